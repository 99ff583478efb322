mod ask;
mod commands;
mod common;
mod online;
mod redteam;
mod web_run;
