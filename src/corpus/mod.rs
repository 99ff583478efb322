//! A local corpus: the offline "web". `--corpus` points at a JSON file or a
//! folder of .md/.txt/.html files; without it the embedded corpus is used.
//! Search over it is ranked full-text search (tantivy, BM25).

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod cache;
mod decode;
mod folder;
mod index;
mod load;
mod loaded;
mod pages;
mod rerank;
mod stubs;
mod walk;
mod web;

pub use cache::{CachedIndex, Refreshed, cache_root};
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

/// A loaded, indexed corpus: its pages are kept in its index (in memory,
/// or on disk for a folder), not in this struct.
pub struct Corpus {
    pub name: String,
    /// How many pages it has.
    len: usize,
    /// What the loader skipped, cut or noticed, for the user.
    warnings: Vec<String>,
    truncated: Vec<Truncated>,
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

    /// A corpus of `docs`, indexed in memory.
    pub fn new(name: String, docs: Vec<RawDocument>) -> Result<Corpus, CorpusError> {
        let index = CorpusIndex::build(&docs)?;
        Ok(Corpus::of_index(name, index))
    }

    fn of_index(name: String, index: CorpusIndex) -> Corpus {
        Corpus {
            name,
            len: index.len(),
            warnings: Vec::new(),
            truncated: Vec::new(),
            index,
        }
    }

    /// A folder's corpus through its index in `cache` (made or brought up
    /// to date first; see [`cache::refresh`]), with what changed.
    pub fn open_cached(
        folder: &std::path::Path,
        cache: &CachedIndex,
        opts: &LoadOptions,
    ) -> Result<(Corpus, Refreshed), CorpusError> {
        let (index, refreshed) = cache::refresh(folder, cache, opts)?;
        let mut corpus = Corpus::of_index(folder.display().to_string(), index);
        corpus.warnings = refreshed.warnings.clone();
        corpus.truncated = refreshed.truncated.clone();
        Ok((corpus, refreshed))
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The page at `url` (as read: raw HTML stays HTML).
    pub fn get(&self, url: &str) -> Option<RawDocument> {
        self.index.document_at(url).unwrap_or_else(|e| {
            tracing::warn!("corpus page {url} not read: {e}");
            None
        })
    }

    /// The page a search hit points at ([`index::Hit::doc`]).
    pub fn document(&self, id: usize) -> Option<RawDocument> {
        self.index.document(id).unwrap_or_else(|e| {
            tracing::warn!("corpus page {id} not read: {e}");
            None
        })
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

    /// Every page, in order (it reads them all: for tests and small corpora).
    pub fn documents(&self) -> Vec<RawDocument> {
        self.index.documents().unwrap_or_default()
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
