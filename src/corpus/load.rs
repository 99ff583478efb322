//! Loading a corpus: the JSON format or a folder of documents. Errors name
//! the file, the document and the field.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{ContentType, RawDocument};
use crate::document::{SourceType, normalize_date};
use crate::evidence::clean;

#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    #[error("cannot read corpus {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
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
    #[error("corpus {path}: no .md, .markdown, .txt, .html, .htm or .pdf files found")]
    EmptyFolder { path: PathBuf },
    #[error("corpus index: {0}")]
    Index(String),
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

/// Loads a JSON corpus file or a folder.
pub fn load_path(path: &Path) -> Result<Vec<RawDocument>, CorpusError> {
    let meta = std::fs::metadata(path).map_err(|source| CorpusError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    if meta.is_dir() {
        return load_dir(path);
    }
    let text = std::fs::read_to_string(path).map_err(|source| CorpusError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse_json(&text, &path.display().to_string())
}

/// Parses the JSON corpus format, strictly.
pub fn parse_json(text: &str, file: &str) -> Result<Vec<RawDocument>, CorpusError> {
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
        if !seen.insert(super::normalize_url(&url)) {
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
        });
    }
    Ok(out)
}

fn sniff(content: &str) -> ContentType {
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

fn load_dir(dir: &Path) -> Result<Vec<RawDocument>, CorpusError> {
    let mut files = Vec::new();
    collect_files(dir, &mut files)?;
    files.sort();
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for path in files {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .unwrap_or_default();
        let content_type = match ext.as_str() {
            "md" | "markdown" => ContentType::Markdown,
            "txt" => ContentType::Plain,
            "html" | "htm" => ContentType::Html,
            "pdf" => {
                let doc = pdf_document(&path)?;
                if !seen.insert(super::normalize_url(&doc.url)) {
                    return Err(CorpusError::Shape {
                        file: path.display().to_string(),
                        problem: format!("url {} is used by another file", doc.url),
                    });
                }
                out.push(doc);
                continue;
            }
            _ => continue,
        };
        let text = std::fs::read_to_string(&path).map_err(|source| CorpusError::Read {
            path: path.clone(),
            source,
        })?;
        let file = path.display().to_string();
        let doc = match content_type {
            ContentType::Html => html_document(&path, text),
            _ => text_document(&path, &file, text, content_type)?,
        };
        if !seen.insert(super::normalize_url(&doc.url)) {
            return Err(CorpusError::Shape {
                file,
                problem: format!("url {} is used by another file", doc.url),
            });
        }
        out.push(doc);
    }
    if out.is_empty() {
        return Err(CorpusError::EmptyFolder {
            path: dir.to_path_buf(),
        });
    }
    Ok(out)
}

fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), CorpusError> {
    let entries = std::fs::read_dir(dir).map_err(|source| CorpusError::Read {
        path: dir.to_path_buf(),
        source,
    })?;
    for entry in entries {
        let entry = entry.map_err(|source| CorpusError::Read {
            path: dir.to_path_buf(),
            source,
        })?;
        let path = entry.path();
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        if path.is_dir() {
            collect_files(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

fn file_url(path: &Path) -> String {
    let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    format!("file://{}", abs.display())
}

/// A PDF's text (pure Rust, isolated: the extractor panics on odd files).
fn pdf_document(path: &Path) -> Result<RawDocument, CorpusError> {
    let bytes = std::fs::read(path).map_err(|source| CorpusError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let extracted =
        crate::evidence::extract::catch_quietly(|| crate::evidence::extract::pdf_text(&bytes))
            .unwrap_or_else(|_| Err("the PDF extractor cannot read this file".into()))
            .map_err(|problem| CorpusError::Shape {
                file: path.display().to_string(),
                problem: format!("cannot read the PDF: {problem}"),
            })?;
    Ok(RawDocument {
        url: file_url(path),
        title: extracted.title,
        published: extracted.published.as_deref().and_then(normalize_date),
        updated: extracted.modified.as_deref().and_then(normalize_date),
        source_type: None,
        content_type: ContentType::Plain,
        content: extracted.text,
    })
}

fn html_document(path: &Path, content: String) -> RawDocument {
    let page = clean::clean_html(&content);
    RawDocument {
        url: page
            .canonical
            .clone()
            .filter(|u| u.starts_with("http://") || u.starts_with("https://"))
            .unwrap_or_else(|| file_url(path)),
        title: page.title.clone(),
        published: page.published.as_deref().and_then(normalize_date),
        updated: page.modified.as_deref().and_then(normalize_date),
        source_type: page.source_type.as_deref().and_then(SourceType::parse),
        content_type: ContentType::Html,
        content,
    }
}

/// Markdown and text files may open with `---` front matter of `key: value` lines.
fn text_document(
    path: &Path,
    file: &str,
    text: String,
    content_type: ContentType,
) -> Result<RawDocument, CorpusError> {
    let mut doc = RawDocument {
        url: file_url(path),
        title: None,
        published: None,
        updated: None,
        source_type: None,
        content_type,
        content: text.clone(),
    };
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        doc.title = first_heading(&text);
        return Ok(doc);
    };
    let Some(end) = rest.find("\n---") else {
        return Err(CorpusError::Shape {
            file: file.to_string(),
            problem: "front matter opened with --- is never closed".into(),
        });
    };
    let (front, body) = rest.split_at(end);
    let body = body
        .trim_start_matches("\n---")
        .trim_start_matches(['\r', '\n']);
    let field_err = |field: &str, problem: String| CorpusError::Field {
        file: file.to_string(),
        index: 1,
        url: String::new(),
        field: field.to_string(),
        problem,
    };
    for line in front.lines().filter(|l| !l.trim().is_empty()) {
        let Some((k, v)) = line.split_once(':') else {
            return Err(field_err(
                line.trim(),
                "front matter lines are `key: value`".into(),
            ));
        };
        let (k, v) = (k.trim(), v.trim().trim_matches('"').to_string());
        match k {
            "url" => {
                if !(v.starts_with("http://") || v.starts_with("https://")) {
                    return Err(field_err(
                        "url",
                        format!("must be an http(s) URL, got {v:?}"),
                    ));
                }
                doc.url = v;
            }
            "title" => doc.title = Some(v),
            "published" | "updated" => {
                let d = normalize_date(&v)
                    .ok_or_else(|| field_err(k, format!("expected YYYY-MM-DD, got {v:?}")))?;
                if k == "published" {
                    doc.published = Some(d);
                } else {
                    doc.updated = Some(d);
                }
            }
            "source_type" => {
                doc.source_type = Some(
                    SourceType::parse(&v)
                        .ok_or_else(|| field_err("source_type", format!("unknown {v:?}")))?,
                )
            }
            other => {
                return Err(field_err(
                    other,
                    "unknown front matter key (expected url, title, published, updated, source_type)".into(),
                ));
            }
        }
    }
    doc.content = body.to_string();
    if doc.title.is_none() {
        doc.title = first_heading(body);
    }
    Ok(doc)
}

fn first_heading(text: &str) -> Option<String> {
    text.lines()
        .find(|l| l.starts_with("# "))
        .map(|l| l.trim_start_matches("# ").trim().to_string())
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
