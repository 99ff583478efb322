//! A local corpus: the offline "web". `--corpus` points at a JSON file or a
//! folder of .md/.txt/.html files; without it the embedded corpus is used.
//! Search over it is ranked full-text search (tantivy, BM25).

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod decode;
mod folder;
mod index;
mod load;
mod loaded;
mod rerank;
mod stubs;
mod walk;
mod web;

use std::collections::HashMap;

pub use folder::TRUNCATED_KEY;
pub use index::CorpusIndex;
pub use load::{CorpusError, LoadOptions, Loaded, Progress, Truncated, load, load_path};
pub use walk::is_run_dir;

use crate::document::normalize_url;
pub use crate::document::{ContentType, DocMeta, RawDocument};
pub use web::CorpusWeb;

/// The embedded corpus: pages about a fictional company, written by us, with
/// the classic traps of due diligence.
pub const EMBEDDED_JSON: &str = include_str!("embedded/padmapay.json");

/// A loaded, indexed corpus.
pub struct Corpus {
    pub name: String,
    docs: Vec<RawDocument>,
    /// What the loader skipped, cut or noticed, for the user.
    warnings: Vec<String>,
    truncated: Vec<Truncated>,
    by_url: HashMap<String, usize>,
    index: CorpusIndex,
}

impl Corpus {
    pub fn embedded() -> Result<Corpus, CorpusError> {
        let docs = load::parse_json(EMBEDDED_JSON, "<embedded corpus>")?;
        Corpus::new("embedded:padmapay".into(), docs)
    }

    /// Loads a corpus with the default caps.
    pub fn from_path(path: &std::path::Path) -> Result<Corpus, CorpusError> {
        Corpus::load(path, &LoadOptions::default())
    }

    /// Loads a corpus file, a folder or a single document; see [`load`].
    pub fn load(path: &std::path::Path, opts: &LoadOptions) -> Result<Corpus, CorpusError> {
        let loaded = load(path, opts)?;
        let mut corpus = Corpus::new(path.display().to_string(), loaded.docs)?;
        corpus.warnings = loaded.warnings;
        corpus.truncated = loaded.truncated;
        Ok(corpus)
    }

    /// What loading skipped or cut, one line each (shown to the user).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The document at `url` when it was cut to fit a cap.
    pub fn truncated(&self, url: &str) -> Option<&Truncated> {
        let key = normalize_url(url);
        self.truncated.iter().find(|t| normalize_url(&t.url) == key)
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
            warnings: Vec::new(),
            truncated: Vec::new(),
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

    /// Search ranks by meaning as well as words from now on, with the
    /// vectors `store` holds and adds.
    pub fn set_embedder(
        &mut self,
        embedder: std::sync::Arc<dyn crate::embed::Embedder>,
        store: crate::embed::store::VectorStore,
    ) -> Result<(), CorpusError> {
        self.index.set_embedder(embedder, store)
    }

    /// Passages there are, and how many have a vector (with an embedder).
    pub fn dense_coverage(&self) -> Option<(usize, usize)> {
        self.index.dense_coverage()
    }

    /// Embeds every passage without a vector; see [`CorpusIndex::embed_all`].
    pub fn embed_all(
        &self,
        batch: usize,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<(), CorpusError> {
        self.index.embed_all(batch, progress)
    }

    pub fn docs(&self) -> &[RawDocument] {
        &self.docs
    }
}

/// A loader message fit for a terminal: file names may hold control
/// characters or bidi overrides, which never reach the user raw.
pub fn printable(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() || crate::evidence::clean::is_invisible(c) {
                '\u{FFFD}'
            } else {
                c
            }
        })
        .collect()
}
