//! A local corpus: the offline "web". `--corpus` points at a JSON file or a
//! folder of .md/.txt/.html files; without it the embedded corpus is used.
//! Search over it is ranked full-text search (tantivy, BM25).

mod index;
mod load;
mod web;

use std::collections::HashMap;

pub use index::CorpusIndex;
pub use load::{CorpusError, load_path};

pub use crate::document::{
    ContentType, RawDocument, normalize_date, normalize_date_opt, normalize_url,
};
pub use web::CorpusWeb;

/// The embedded corpus: pages about a fictional company, written by us, with
/// the classic traps of due diligence.
pub const EMBEDDED_JSON: &str = include_str!("embedded/padmapay.json");

/// A loaded, indexed corpus.
pub struct Corpus {
    pub name: String,
    docs: Vec<RawDocument>,
    by_url: HashMap<String, usize>,
    index: CorpusIndex,
}

impl Corpus {
    pub fn embedded() -> Result<Corpus, CorpusError> {
        let docs = load::parse_json(EMBEDDED_JSON, "<embedded corpus>")?;
        Corpus::new("embedded:padmapay".into(), docs)
    }

    pub fn from_path(path: &std::path::Path) -> Result<Corpus, CorpusError> {
        let docs = load_path(path)?;
        Corpus::new(path.display().to_string(), docs)
    }

    pub fn new(name: String, docs: Vec<RawDocument>) -> Result<Corpus, CorpusError> {
        let index = CorpusIndex::build(&docs)?;
        let by_url = docs
            .iter()
            .enumerate()
            .map(|(i, d)| (normalize_url(&d.url), i))
            .collect();
        Ok(Corpus {
            name,
            docs,
            by_url,
            index,
        })
    }

    pub fn len(&self) -> usize {
        self.docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    pub fn get(&self, url: &str) -> Option<&RawDocument> {
        self.by_url.get(&normalize_url(url)).map(|&i| &self.docs[i])
    }

    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<index::Hit>, CorpusError> {
        self.index.search(query, limit)
    }

    pub fn docs(&self) -> &[RawDocument] {
        &self.docs
    }
}
