//! Reports: hygiene (scrub), citation lint and renumbering, and composing
//! the final report.md and sources.json.

pub mod answers;
pub mod bibliography;
pub mod citations;
pub mod claim_check;
pub mod compose;
pub mod echo;
pub mod evidence_view;
pub mod gaps;
pub mod hygiene;
pub mod links;
mod quoting;

pub use compose::{FinalReport, SourceEntry, draft_from_merged, finalize};

#[cfg(test)]
mod output_proptests;
#[cfg(test)]
mod proptests;
