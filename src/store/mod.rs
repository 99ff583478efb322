//! Runs on disk: `<runs dir>/<UTC timestamp>-<short id>/` holding events.jsonl,
//! records.jsonl (model calls and tool results, for replay), report.md,
//! sources.json and evidence.json; and the long-term memory of lessons.

mod atomic;
pub mod beneath;
pub mod checkpoint;
pub mod memory;
mod recorder;
pub mod reserve;
mod run_dir;
pub mod runs;

pub use atomic::write_atomic;
pub use recorder::{
    GroupCommit, Record, Recorder, RecorderCloser, RecorderHandle, Spawned, sanitized,
};
pub use run_dir::{RunDir, RunHeader, new_run_id, page_text_file, page_text_name};
