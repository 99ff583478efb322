mod ask;
mod claims;
mod commands;
mod common;
mod online;
mod redteam;
mod scripted_offline;
mod web_run;
