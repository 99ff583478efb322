mod ask;
mod commands;
mod common;
mod corpus_loading;
mod online;
mod redteam;
mod scripted_offline;
mod web_run;
