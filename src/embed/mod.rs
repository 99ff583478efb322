//! Sentence embeddings: texts to unit vectors whose dot product says how
//! close two texts are in meaning, so a question finds the passage that
//! answers it in other words. [`Embedder`] is the port; [`SentenceBert`]
//! runs a sentence-transformers BERT model (all-MiniLM-L6-v2, say) in pure
//! Rust with candle; [`StaticModel`] is a table of token vectors distilled
//! from one ([`distill`]), far faster and somewhat less exact.

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod bert;
mod static_model;
pub mod store;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use bert::SentenceBert;
pub use static_model::{StaticModel, distill};

/// The setting that names a sentence-transformers model folder.
pub const MODEL_KEY: &str = crate::config::settings::EMBED_MODEL;

/// The files a model folder must hold.
pub const MODEL_FILES: &[&str] = &["config.json", "model.safetensors", "tokenizer.json"];

/// How a model folder failed to load or a text failed to embed.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error(
        "the embedding model folder {dir} has no {file}: a sentence-transformers folder holds {files}; point {key} at one (e.g. all-MiniLM-L6-v2)",
        files = MODEL_FILES.join(", "),
        key = MODEL_KEY
    )]
    Missing { dir: PathBuf, file: &'static str },
    #[error(
        "the embedding model folder {dir} is damaged ({file}: {detail}); replace the folder {key} names with a fresh copy",
        key = MODEL_KEY
    )]
    Damaged {
        dir: PathBuf,
        file: &'static str,
        detail: String,
    },
    #[error("embedding failed: {0}")]
    Run(String),
}

/// A sentence embedder: each text becomes a unit vector of [`Embedder::dim`]
/// numbers; similar meanings have a dot product near 1.
pub trait Embedder: Send + Sync {
    /// The model's name and size, for people.
    fn id(&self) -> &str;
    /// What tells this model's vectors from another's (stored vectors are
    /// kept per fingerprint): the same files in another folder give the
    /// same one, another model in a same-named folder a different one.
    fn fingerprint(&self) -> &str;
    /// How many numbers each vector holds.
    fn dim(&self) -> usize;
    /// One unit vector per text, in order.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;
}

/// A model file that does not read as what it should be.
fn damaged(dir: &Path, file: &'static str, detail: impl std::fmt::Display) -> EmbedError {
    EmbedError::Damaged {
        dir: dir.to_path_buf(),
        file,
        detail: detail.to_string(),
    }
}

/// Embedding failed while running.
fn run(e: impl std::fmt::Display) -> EmbedError {
    EmbedError::Run(e.to_string())
}

/// The similarity of two unit vectors (their dot product, in -1..=1).
pub fn similarity(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Loads the model a folder holds, checking first that its files are there:
/// a static model when its `config.json` says `"model_type": "model2vec"`,
/// else a sentence-transformers BERT model.
pub fn load(dir: &Path) -> Result<Arc<dyn Embedder>, EmbedError> {
    for &file in MODEL_FILES {
        if !dir.join(file).is_file() {
            return Err(EmbedError::Missing {
                dir: dir.to_path_buf(),
                file,
            });
        }
    }
    let config = std::fs::read_to_string(dir.join("config.json")).unwrap_or_default();
    if static_model::is_static(&config) {
        Ok(Arc::new(StaticModel::load(dir)?))
    } else {
        Ok(Arc::new(SentenceBert::load(dir)?))
    }
}
