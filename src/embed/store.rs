//! Vectors kept between runs: one append-only file per corpus and model in
//! dra's cache directory, so a passage is embedded once, not once per run.
//! The file is a cache, never trusted: a foreign, damaged or cut file is
//! read up to its last whole record or started afresh.
//!
//! Layout: a header line `dra-vectors 1 <dim> <model id>\n`, then records of
//! a 16-byte key (the start of the text's SHA-256), `dim` little-endian f32
//! and a 4-byte check (the start of the SHA-256 of key and vector).

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sha2::{Digest, Sha256};

const MAGIC: &str = "dra-vectors 1";

/// A text's key: the start of its SHA-256.
pub type Key = [u8; 16];

pub fn key(text: &str) -> Key {
    let digest = Sha256::digest(text.as_bytes());
    let mut k = [0u8; 16];
    k.copy_from_slice(&digest[..16]);
    k
}

fn check(key: &Key, vector: &[u8]) -> [u8; 4] {
    let mut h = Sha256::new();
    h.update(key);
    h.update(vector);
    let d = h.finalize();
    [d[0], d[1], d[2], d[3]]
}

/// The vectors of one corpus under one model, in memory and (when it has a
/// path) on disk.
pub struct VectorStore {
    path: Option<PathBuf>,
    header: String,
    dim: usize,
    vectors: HashMap<Key, Arc<Vec<f32>>>,
    /// Why the file on disk was not used, for a warning.
    pub discarded: Option<String>,
    /// The file must be written afresh before it is appended to.
    rewrite: bool,
}

impl VectorStore {
    /// A store that lives only as long as the process.
    pub fn in_memory(model_id: &str, dim: usize) -> VectorStore {
        VectorStore {
            path: None,
            header: format!("{MAGIC} {dim} {model_id}\n"),
            dim,
            vectors: HashMap::new(),
            discarded: None,
            rewrite: true,
        }
    }

    /// Opens (or starts) the store at `path` for `model_id`'s vectors.
    pub fn open(path: &Path, model_id: &str, dim: usize) -> VectorStore {
        let mut store = VectorStore::in_memory(model_id, dim);
        store.path = Some(path.to_path_buf());
        match std::fs::File::open(path) {
            Ok(file) => {
                store.read(file);
                store.rewrite = store.discarded.is_some();
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => store.discarded = Some(e.to_string()),
        }
        store
    }

    fn read(&mut self, mut file: std::fs::File) {
        let mut bytes = Vec::new();
        if let Err(e) = file.read_to_end(&mut bytes) {
            self.discarded = Some(e.to_string());
            return;
        }
        let Some(body) = bytes.strip_prefix(self.header.as_bytes()) else {
            self.discarded = Some("written by another model or version".into());
            return;
        };
        let size = 16 + 4 * self.dim + 4;
        let mut damaged = 0usize;
        for record in body.chunks(size) {
            if record.len() < size {
                damaged += 1;
                break;
            }
            let mut k = [0u8; 16];
            k.copy_from_slice(&record[..16]);
            let vector = &record[16..size - 4];
            if check(&k, vector) != record[size - 4..] {
                damaged += 1;
                continue;
            }
            let v: Vec<f32> = vector
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            self.vectors.insert(k, Arc::new(v));
        }
        if damaged > 0 {
            self.discarded = Some(format!("{damaged} damaged record(s) skipped"));
        }
    }

    pub fn len(&self) -> usize {
        self.vectors.len()
    }

    pub fn is_empty(&self) -> bool {
        self.vectors.is_empty()
    }

    pub fn get(&self, key: &Key) -> Option<Arc<Vec<f32>>> {
        self.vectors.get(key).cloned()
    }

    /// Adds vectors and appends them to the file; a write that fails costs
    /// only the next run's time (the vectors stay in memory).
    pub fn insert(&mut self, new: Vec<(Key, Vec<f32>)>) -> std::io::Result<()> {
        let mut bytes = Vec::with_capacity(new.len() * (20 + 4 * self.dim));
        for (k, v) in new {
            if v.len() != self.dim || self.vectors.contains_key(&k) {
                continue;
            }
            let start = bytes.len();
            bytes.extend_from_slice(&k);
            for x in &v {
                bytes.extend_from_slice(&x.to_le_bytes());
            }
            let c = check(&k, &bytes[start + 16..]);
            bytes.extend_from_slice(&c);
            self.vectors.insert(k, Arc::new(v));
        }
        match self.path.clone() {
            Some(path) if !bytes.is_empty() => self.append(&path, &bytes),
            _ => Ok(()),
        }
    }

    fn append(&mut self, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        if self.rewrite {
            // Start over: header, then every vector known.
            let tmp = path.with_extension(format!("tmp{}", std::process::id()));
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(self.header.as_bytes())?;
            let mut all = Vec::new();
            for (k, v) in &self.vectors {
                all.extend_from_slice(k);
                let start = all.len();
                for x in v.iter() {
                    all.extend_from_slice(&x.to_le_bytes());
                }
                let c = check(k, &all[start..]);
                all.extend_from_slice(&c);
            }
            f.write_all(&all)?;
            f.sync_all()?;
            std::fs::rename(&tmp, path)?;
            self.rewrite = false;
            return Ok(());
        }
        let mut f = std::fs::OpenOptions::new().append(true).open(path)?;
        f.write_all(bytes)
    }
}

/// Where the vectors of the corpus at `corpus` under `model_id` are kept:
/// dra's cache directory, one file per (canonical folder, model).
pub fn path_for(corpus: &Path, model_id: &str) -> Option<PathBuf> {
    let dirs = directories::ProjectDirs::from("", "", "dra")?;
    let canonical = corpus
        .canonicalize()
        .unwrap_or_else(|_| corpus.to_path_buf());
    let mut h = Sha256::new();
    h.update(canonical.as_os_str().as_encoded_bytes());
    h.update([0]);
    h.update(model_id.as_bytes());
    let name: String = h.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Some(dirs.cache_dir().join("vectors").join(format!("{name}.vec")))
}
