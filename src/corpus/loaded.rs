//! What loading a corpus gives back (the documents, and what to tell the
//! user about skipped and cut files), shared by the loader, the folder
//! reader and the walk.

use super::RawDocument;

/// An OS error's message once (`std::io::Error`'s Display repeats nothing,
/// but callers must not add it again).
pub fn io_reason(e: &std::io::Error) -> String {
    e.to_string()
}

/// A document cut to fit a cap: its text past the cut was never read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Truncated {
    pub url: String,
    pub file: String,
    /// What was kept, e.g. "the first 16777216 bytes".
    pub kept: String,
}

/// A loaded corpus and what the loader has to tell the user.
#[derive(Debug, Default)]
pub struct Loaded {
    pub docs: Vec<RawDocument>,
    /// One line per skipped or cut file, then a summary; never printed here.
    pub warnings: Vec<String>,
    pub truncated: Vec<Truncated>,
}
