mod ask;
mod commands;
mod common;
mod web_run;
