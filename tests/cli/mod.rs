mod ask;
mod commands;
mod common;
