//! The typed event protocol: every step of a run is an [`Event`], written to
//! events.jsonl, printed as JSONL with `--json` and drawn as live rows.
//!
//! Consumers must check `protocol_version` in `run_start` (and in the first
//! line of events.jsonl). Additive keys and event types do not bump it; a
//! renamed or removed key does.

mod events;
mod names;
mod ops;

pub use events::*;
pub use ops::*;

/// Bumped only on breaking shape changes.
pub const PROTOCOL_VERSION: u32 = 1;

/// The version of this engine, as reported in `run_start.engine_version`.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");
