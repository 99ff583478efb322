mod ask;
mod commands;
mod common;
mod online;
mod web_run;
