mod ask;
mod commands;
mod common;
mod online;
mod planner;
mod redteam;
mod scripted_offline;
mod web_run;
