//! What a sub-researcher read: each page's view, joined over its reads.

#[derive(Default)]
pub(super) struct PageRead {
    pub number: usize,
    pub title: String,
    pub source_type: String,
    pub as_of: Option<String>,
    pub text: String,
    pub next_offset: Option<usize>,
    pub reads: usize,
}
