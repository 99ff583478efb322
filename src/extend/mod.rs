//! Ways to extend dra without a rebuild that live outside the engine:
//! drop-in custom tools (found, described and run here; offered to the
//! agents by `engine::tools::custom`).

pub mod custom_tools;
