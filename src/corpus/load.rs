//! Loading a corpus: the JSON format, a folder of documents, or a single
//! document. The JSON format is strict (errors name the file, the document
//! and the field); a folder survives bad files (each skipped with a
//! warning). Everything read is capped: the corpus file, each document and
//! the total.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

pub use super::loaded::{Loaded, Truncated, io_reason};
use super::{ContentType, RawDocument, decode, folder, walk};
use crate::config::{Value as Setting, settings, table_default};
use crate::document::{SourceType, normalize_date};

/// A cap's default, from the settings table (the one place defaults live).
fn table_uint(key: &str) -> u64 {
    match table_default(key) {
        Some(Setting::Uint(n)) => n,
        _ => u64::MAX,
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    /// The OS error is part of the message, not a `source`: printed once.
    #[error("cannot read corpus {}: {}", path.display(), io_reason(error))]
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("corpus {file}: not valid JSON: {message}")]
    Json { file: String, message: String },
    #[error("corpus {file}: {problem}")]
    Shape { file: String, problem: String },
    #[error("corpus {file}: document {index}{url}: field `{field}`: {problem}")]
    Field {
        file: String,
        index: usize,
        url: String,
        field: String,
        problem: String,
    },
    #[error(
        "corpus {}: no readable .md, .markdown, .txt, .html, .htm or .pdf files found{}",
        path.display(),
        if *skipped > 0 { format!(" ({skipped} skipped: {first})") } else { String::new() }
    )]
    EmptyFolder {
        path: PathBuf,
        skipped: usize,
        first: String,
    },
    #[error(
        "corpus {}: larger than {cap} bytes; raise DRA_CORPUS_MAX_BYTES to read it",
        path.display()
    )]
    TooLarge { path: PathBuf, cap: u64 },
    #[error("corpus index: {0}")]
    Index(String),
}

/// Called with the files looked at so far, the files in all and the bytes
/// read so far, every [`PROGRESS_EVERY`] files of a folder.
pub type Progress = dyn Fn(usize, usize, u64) + Send + Sync;
pub const PROGRESS_EVERY: usize = 50;

/// How a corpus is loaded: caps and what to skip.
#[derive(Clone)]
pub struct LoadOptions {
    /// The largest corpus file (JSON) read, in bytes; a larger one is an error.
    pub max_file_bytes: u64,
    /// The most of one document read; the rest is cut, with a warning.
    pub max_document_bytes: u64,
    /// The most read from a folder in all; later files are not read.
    pub max_total_bytes: u64,
    /// Folders never read (dra's runs folder).
    pub skip_dirs: Vec<PathBuf>,
    /// Told (files looked at, files in all, bytes read) as a folder loads.
    pub progress: Option<std::sync::Arc<Progress>>,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            max_file_bytes: table_uint(settings::CORPUS_MAX_BYTES),
            max_document_bytes: table_uint(settings::CORPUS_MAX_DOCUMENT_BYTES),
            max_total_bytes: table_uint(settings::CORPUS_MAX_TOTAL_BYTES),
            skip_dirs: Vec::new(),
            progress: None,
        }
    }
}

impl std::fmt::Debug for LoadOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadOptions")
            .field("max_file_bytes", &self.max_file_bytes)
            .field("max_document_bytes", &self.max_document_bytes)
            .field("max_total_bytes", &self.max_total_bytes)
            .field("skip_dirs", &self.skip_dirs)
            .finish_non_exhaustive()
    }
}

const DOC_FIELDS: &[&str] = &[
    "url",
    "title",
    "published",
    "updated",
    "source_type",
    "content_type",
    "content",
];

/// Loads a JSON corpus file or a folder with the default caps.
pub fn load_path(path: &Path) -> Result<Vec<RawDocument>, CorpusError> {
    load(path, &LoadOptions::default()).map(|l| l.docs)
}

/// Loads a corpus: a folder, a single document (.md, .markdown, .txt,
/// .html, .htm, .pdf) or a JSON corpus file.
pub fn load(path: &Path, opts: &LoadOptions) -> Result<Loaded, CorpusError> {
    let meta = std::fs::metadata(path).map_err(|error| CorpusError::Read {
        path: path.to_path_buf(),
        error,
    })?;
    if meta.is_dir() {
        return load_dir(path, opts);
    }
    if folder::kind_of(path).is_some() {
        let mut loaded = Loaded::default();
        let mut budget = opts.max_total_bytes;
        let doc = folder::read_file(path, opts.max_document_bytes, &mut budget, &mut loaded)
            .map_err(|problem| CorpusError::Shape {
                file: path.display().to_string(),
                problem,
            })?;
        loaded.docs.push(doc);
        return Ok(loaded);
    }
    let capped =
        decode::read_capped(path, opts.max_file_bytes).map_err(|error| CorpusError::Read {
            path: path.to_path_buf(),
            error,
        })?;
    if capped.cut {
        return Err(CorpusError::TooLarge {
            path: path.to_path_buf(),
            cap: opts.max_file_bytes,
        });
    }
    let file = path.display().to_string();
    let text = decode::decode(&capped.bytes, false).map_err(|e| CorpusError::Json {
        file: file.clone(),
        message: format!(
            "{e} (a corpus is a folder, a .md, .txt, .html or .pdf file, or a JSON corpus file)"
        ),
    })?;
    let docs = parse_json(&text.text, &file)?;
    let mut loaded = Loaded {
        docs,
        ..Loaded::default()
    };
    let mut docs = std::mem::take(&mut loaded.docs);
    for doc in &mut docs {
        if doc.content_type != ContentType::Html
            && let Some(kept) =
                folder::note_stored_cap(&doc.url, &doc.url, &doc.content, &mut loaded)
        {
            doc.meta.extra.insert(folder::TRUNCATED_KEY.into(), kept);
        }
    }
    loaded.docs = docs;
    Ok(loaded)
}

/// Parses the JSON corpus format, strictly.
pub fn parse_json(text: &str, file: &str) -> Result<Vec<RawDocument>, CorpusError> {
    let text = decode::strip_bom(text);
    let root: Value = serde_json::from_str(text).map_err(|e| CorpusError::Json {
        file: file.to_string(),
        message: e.to_string(),
    })?;
    let shape = |problem: &str| CorpusError::Shape {
        file: file.to_string(),
        problem: problem.to_string(),
    };
    let obj = root
        .as_object()
        .ok_or_else(|| shape("the top level must be an object with a `documents` list"))?;
    for key in obj.keys() {
        if key != "name" && key != "documents" {
            return Err(shape(&format!(
                "unknown top-level key `{key}` (expected `name` and `documents`)"
            )));
        }
    }
    let docs = obj
        .get("documents")
        .and_then(Value::as_array)
        .ok_or_else(|| shape("missing `documents` list"))?;
    if docs.is_empty() {
        return Err(shape("`documents` is empty"));
    }
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(docs.len());
    for (i, d) in docs.iter().enumerate() {
        let index = i + 1;
        let url_hint = d
            .get("url")
            .and_then(Value::as_str)
            .map(|u| format!(" ({u})"))
            .unwrap_or_default();
        let field_err = |field: &str, problem: &str| CorpusError::Field {
            file: file.to_string(),
            index,
            url: url_hint.clone(),
            field: field.to_string(),
            problem: problem.to_string(),
        };
        let o = d
            .as_object()
            .ok_or_else(|| field_err("-", "a document must be an object"))?;
        for key in o.keys() {
            if !DOC_FIELDS.contains(&key.as_str()) {
                return Err(field_err(
                    key,
                    &format!("unknown field (expected one of {})", DOC_FIELDS.join(", ")),
                ));
            }
        }
        let string = |field: &str| -> Result<Option<String>, CorpusError> {
            match o.get(field) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(field_err(field, "must be a string")),
            }
        };
        let url = string("url")?.ok_or_else(|| field_err("url", "required"))?;
        if !(url.starts_with("http://")
            || url.starts_with("https://")
            || url.starts_with("file://"))
        {
            return Err(field_err("url", "must be an http(s):// or file:// URL"));
        }
        if !seen.insert(crate::document::normalize_url(&url)) {
            return Err(field_err("url", "duplicate: urls must be unique"));
        }
        let content = string("content")?.ok_or_else(|| field_err("content", "required"))?;
        if content.trim().is_empty() {
            return Err(field_err("content", "is empty"));
        }
        let date = |field: &str| -> Result<Option<String>, CorpusError> {
            match string(field)? {
                None => Ok(None),
                Some(s) => match normalize_date(&s) {
                    Some(d) => Ok(Some(d)),
                    None => Err(field_err(field, &format!("expected YYYY-MM-DD, got {s:?}"))),
                },
            }
        };
        let source_type = match string("source_type")? {
            None => None,
            Some(s) => Some(SourceType::parse(&s).ok_or_else(|| {
                field_err(
                    "source_type",
                    &format!(
                        "unknown {s:?} (expected regulator, official, news, press_release, review, forum, blog or other)"
                    ),
                )
            })?),
        };
        let content_type = match string("content_type")? {
            None => sniff(&content),
            Some(s) => ContentType::parse(&s).ok_or_else(|| {
                field_err(
                    "content_type",
                    &format!("unknown {s:?} (expected text/html, text/markdown or text/plain)"),
                )
            })?,
        };
        out.push(RawDocument {
            url,
            title: string("title")?,
            published: date("published")?,
            updated: date("updated")?,
            source_type,
            content_type,
            content,
            meta: Default::default(),
        });
    }
    Ok(out)
}

pub(super) fn sniff(content: &str) -> ContentType {
    let head = content
        .trim_start()
        .get(..200)
        .unwrap_or(content)
        .to_ascii_lowercase();
    if head.starts_with("<!doctype html") || head.starts_with("<html") || head.contains("<body") {
        ContentType::Html
    } else {
        ContentType::Plain
    }
}

fn load_dir(dir: &Path, opts: &LoadOptions) -> Result<Loaded, CorpusError> {
    let walked = walk::walk(dir, &opts.skip_dirs);
    let mut loaded = Loaded {
        warnings: walked.warnings,
        ..Loaded::default()
    };
    let mut skipped = walked.unreadable;
    let mut seen: std::collections::HashMap<String, PathBuf> = std::collections::HashMap::new();
    let mut budget = opts.max_total_bytes;
    let files: Vec<&PathBuf> = walked
        .files
        .iter()
        .filter(|p| folder::kind_of(p).is_some())
        .collect();
    for (n, path) in files.iter().enumerate() {
        if let Some(progress) = &opts.progress
            && n > 0
            && n % PROGRESS_EVERY == 0
        {
            progress(n, files.len(), opts.max_total_bytes - budget);
        }
        if budget == 0 {
            let left = files.len() - n;
            loaded.warnings.push(format!(
                "stopped reading after {n} files: the corpus reached its total cap of {} bytes (DRA_CORPUS_MAX_TOTAL_BYTES); {left} files not read",
                opts.max_total_bytes
            ));
            skipped += left;
            break;
        }
        let doc = match folder::read_file(path, opts.max_document_bytes, &mut budget, &mut loaded) {
            Ok(doc) => doc,
            Err(e) => {
                skipped += 1;
                loaded
                    .warnings
                    .push(format!("skipped {}: {e}", path.display()));
                continue;
            }
        };
        let key = crate::document::normalize_url(&doc.url);
        if let Some(first) = seen.get(&key) {
            skipped += 1;
            loaded.warnings.push(format!(
                "skipped {}: its url {} is already used by {} (the first by path is kept)",
                path.display(),
                doc.url,
                first.display()
            ));
            continue;
        }
        seen.insert(key, path.to_path_buf());
        loaded.docs.push(doc);
    }
    close_folder(dir, loaded.docs.len(), skipped, &mut loaded.warnings)?;
    Ok(loaded)
}

/// The end of reading a folder (in memory or into its index): no page at
/// all is an error naming the first reason; skipped files are summed up.
pub(super) fn close_folder(
    dir: &Path,
    pages: usize,
    skipped: usize,
    warnings: &mut Vec<String>,
) -> Result<(), CorpusError> {
    if pages == 0 {
        return Err(CorpusError::EmptyFolder {
            path: dir.to_path_buf(),
            skipped,
            first: warnings.first().cloned().unwrap_or_default(),
        });
    }
    if skipped > 0 {
        warnings.push(format!(
            "read {} from {}; skipped {} (see above)",
            crate::count(pages, "document"),
            dir.display(),
            crate::count(skipped, "file")
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_file_document_and_field() {
        let bad = r#"{"documents":[{"url":"https://a.example/1","content":"x"},{"url":"https://a.example/2","content":"y","published":"March 2025"}]}"#;
        let e = parse_json(bad, "c.json").unwrap_err().to_string();
        assert!(
            e.contains("c.json")
                && e.contains("document 2")
                && e.contains("published")
                && e.contains("https://a.example/2"),
            "{e}"
        );
        let e = parse_json(r#"{"documents":[{"content":"x"}]}"#, "c.json")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`url`") && e.contains("required"), "{e}");
        let e = parse_json(
            r#"{"documents":[{"url":"https://a.example","content":"x","colour":1}]}"#,
            "c.json",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("colour"), "{e}");
        let e = parse_json(r#"{"documents":[{"url":"https://a.example","content":"x"},{"url":"https://a.example/","content":"y"}]}"#, "c.json").unwrap_err().to_string();
        assert!(e.contains("duplicate"), "{e}");
        assert!(
            parse_json("{", "c.json")
                .unwrap_err()
                .to_string()
                .contains("not valid JSON")
        );
    }

    #[test]
    fn embedded_corpus_parses() {
        let docs = parse_json(super::super::EMBEDDED_JSON, "embedded").unwrap();
        assert!(docs.len() >= 30, "{} documents", docs.len());
    }

    #[test]
    fn dates_normalize() {
        assert_eq!(
            normalize_date("2025-03-01T10:00:00Z").as_deref(),
            Some("2025-03-01")
        );
        assert_eq!(normalize_date("2025-13-01"), None);
        assert_eq!(normalize_date("01/03/2025"), None);
    }
}
