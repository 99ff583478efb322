//! One file of a folder corpus (or a single-file corpus) as a document:
//! Markdown and text with optional front matter, HTML with the metadata in
//! its markup, PDF text. A file that cannot be read is an `Err` with the
//! reason (the caller skips it); what is read but doubtful (cut at a cap,
//! decoded from a legacy encoding or lossily, a front-matter value dra does
//! not understand) is a warning.

use std::path::Path;

use super::decode::{self, Decoded};
use super::loaded::{Loaded, Truncated};
use super::{ContentType, DocMeta, RawDocument};
use crate::document::normalize_date;
use crate::evidence::{MAX_STORED_CHARS, SourceType, clean};

/// What kind of document a file is, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Markdown,
    Text,
    Html,
    Pdf,
}

pub fn kind_of(path: &Path) -> Option<FileKind> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "md" | "markdown" => FileKind::Markdown,
        "txt" => FileKind::Text,
        "html" | "htm" => FileKind::Html,
        "pdf" => FileKind::Pdf,
        _ => return None,
    })
}

/// Reads one file, at most `min(cap, budget)` bytes of it; `budget` is the
/// total left for the corpus and goes down by what was read.
pub fn read_file(
    path: &Path,
    cap: u64,
    budget: &mut u64,
    loaded: &mut Loaded,
) -> Result<RawDocument, String> {
    let kind = kind_of(path).ok_or("not a .md, .markdown, .txt, .html, .htm or .pdf file")?;
    let file = path.display().to_string();
    let limit = cap.min(*budget);
    let capped = decode::read_capped(path, limit).map_err(|e| super::loaded::io_reason(&e))?;
    *budget = budget.saturating_sub(capped.bytes.len() as u64);
    let which_cap = if limit < cap {
        "the corpus's total cap (DRA_CORPUS_MAX_TOTAL_BYTES)"
    } else {
        "the document cap (DRA_CORPUS_MAX_DOCUMENT_BYTES)"
    };
    if kind == FileKind::Pdf {
        if capped.cut {
            return Err(format!(
                "a PDF larger than {limit} bytes, {which_cap}; a cut PDF cannot be read"
            ));
        }
        return pdf_document(path, &capped.bytes);
    }
    let decoded = match kind {
        FileKind::Html => decode::decode_html(&capped.bytes, capped.cut),
        _ => decode::decode(&capped.bytes, capped.cut),
    }
    .map_err(|e| e.to_string())?;
    note_decoding(&file, &decoded, loaded);
    // The visible text of an HTML page (what the engine keeps), read once.
    let mut html_text = String::new();
    let mut doc = match kind {
        FileKind::Html => {
            let (doc, text) = html_document(path, decoded.text);
            html_text = text;
            doc
        }
        FileKind::Markdown => text_document(path, decoded.text, ContentType::Markdown, loaded),
        _ => text_document(path, decoded.text, ContentType::Plain, loaded),
    };
    if doc.content.trim().is_empty() {
        return Err("no text after the front matter".into());
    }
    let text = match kind {
        FileKind::Html => html_text,
        _ => std::mem::take(&mut doc.content),
    };
    // One warning per cut file: the engine's cut when it is the tighter one
    // (a 50 MB text loses everything past 120,000 characters, not past the
    // byte cap), else the byte cap.
    let warned = loaded.warnings.len();
    if let Some(kept) = note_stored_cap(&file, &doc.url, &text, loaded) {
        if capped.cut
            && let Some(w) = loaded.warnings.get_mut(warned)
        {
            w.push_str(&format!(
                "; the file itself is larger than {limit} bytes, {which_cap}"
            ));
        }
        doc.meta.extra.insert(TRUNCATED_KEY.into(), kept);
    } else if capped.cut {
        loaded.warnings.push(format!(
            "{file}: cut at {limit} bytes by {which_cap}; text past that is not read"
        ));
        let kept = format!("the first {limit} bytes");
        doc.meta.extra.insert(TRUNCATED_KEY.into(), kept.clone());
        loaded.truncated.push(Truncated {
            url: doc.url.clone(),
            file: file.clone(),
            kept,
        });
    }
    if kind != FileKind::Html {
        doc.content = text;
    }
    Ok(doc)
}

fn note_decoding(file: &str, d: &Decoded, loaded: &mut Loaded) {
    // A declared charset or a byte-order mark is trusted silently; a guess
    // or a lossy decoding is worth a line.
    if d.lossy {
        loaded.warnings.push(format!(
            "{file}: some bytes are not valid {}; they were replaced",
            d.encoding.unwrap_or("UTF-8")
        ));
    } else if d.guessed
        && let Some(enc) = d.encoding
    {
        loaded
            .warnings
            .push(format!("{file}: not UTF-8; read as {enc} (detected)"));
    }
}

/// The metadata key set on a document that was cut, to what was kept
/// ("the first 16777216 bytes"): what the report can say instead of "not
/// found".
pub const TRUNCATED_KEY: &str = "dra_truncated";

/// The engine keeps the first [`MAX_STORED_CHARS`] characters of a page's
/// text: a longer document is cut there, and the user is told. Returns what
/// was kept when it was cut.
pub fn note_stored_cap(file: &str, url: &str, text: &str, loaded: &mut Loaded) -> Option<String> {
    if text.len() <= MAX_STORED_CHARS {
        return None;
    }
    let chars = text.chars().count();
    if chars <= MAX_STORED_CHARS {
        return None;
    }
    {
        loaded.warnings.push(format!(
            "{file}: only the first {MAX_STORED_CHARS} of its {chars} characters are read (the most kept per page); text past that is not evidence"
        ));
        let kept = format!("the first {MAX_STORED_CHARS} characters");
        loaded.truncated.push(Truncated {
            url: url.to_string(),
            file: file.to_string(),
            kept: kept.clone(),
        });
        Some(kept)
    }
}

fn file_url(path: &Path) -> String {
    let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    format!("file://{}", abs.display())
}

/// A PDF's text (pure Rust, isolated: the extractor panics on odd files).
fn pdf_document(path: &Path, bytes: &[u8]) -> Result<RawDocument, String> {
    if bytes.is_empty() {
        return Err("the file is empty".into());
    }
    let extracted =
        crate::evidence::extract::catch_quietly(|| crate::evidence::extract::pdf_text(bytes))
            .unwrap_or_else(|_| Err("the PDF extractor cannot read this file".into()))
            .map_err(|problem| format!("cannot read the PDF: {problem}"))?;
    if extracted.text.trim().is_empty() {
        return Err("the PDF has no extractable text (scanned images?)".into());
    }
    Ok(RawDocument {
        url: file_url(path),
        title: extracted.title,
        published: extracted.published.as_deref().and_then(normalize_date),
        updated: extracted.modified.as_deref().and_then(normalize_date),
        source_type: None,
        content_type: ContentType::Plain,
        content: extracted.text,
        meta: DocMeta::default(),
    })
}

/// An HTML file as a document, and its visible text.
fn html_document(path: &Path, content: String) -> (RawDocument, String) {
    let page = clean::clean_html(&content);
    let doc = RawDocument {
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
        meta: DocMeta {
            authors: page.authors.clone(),
            publisher: page.publisher.clone(),
            extra: Default::default(),
        },
    };
    (doc, page.text)
}

/// Markdown and text files may open with front matter: YAML-like `key:
/// value` lines between `---` (Jekyll, Hugo) or TOML-like `key = value`
/// lines between `+++` (Hugo). Keys dra uses set the document's fields;
/// others are kept as metadata; values it cannot use are warnings.
fn text_document(
    path: &Path,
    text: String,
    content_type: ContentType,
    loaded: &mut Loaded,
) -> RawDocument {
    let file = path.display().to_string();
    let mut doc = RawDocument {
        url: file_url(path),
        title: None,
        published: None,
        updated: None,
        source_type: None,
        content_type,
        content: String::new(),
        meta: DocMeta::default(),
    };
    let Some(fm) = split_front_matter(&text) else {
        doc.title = first_heading(&text);
        doc.content = text;
        return doc;
    };
    let FrontMatter { pairs, body } = match fm {
        Ok(fm) => fm,
        Err(problem) => {
            loaded
                .warnings
                .push(format!("{file}: {problem}; read as text"));
            doc.title = first_heading(&text);
            doc.content = text;
            return doc;
        }
    };
    let mut warn = |key: &str, v: &str, expected: &str| {
        loaded.warnings.push(format!(
            "{file}: front matter `{key}`: {expected}, got {v:?}; ignored"
        ));
    };
    for (k, v) in pairs {
        match k.to_ascii_lowercase().as_str() {
            "url" | "canonical" | "canonical_url" | "canonicalurl" => {
                if v.starts_with("http://") || v.starts_with("https://") {
                    doc.url = v;
                } else {
                    warn(&k, &v, "expected an http(s) URL");
                }
            }
            "title" => doc.title = Some(v),
            "published" | "date" | "publishdate" | "publish_date" | "pubdate" => {
                match normalize_date(&v) {
                    Some(d) if doc.published.is_none() || k == "published" => {
                        doc.published = Some(d)
                    }
                    Some(_) => {}
                    None => warn(&k, &v, "expected YYYY-MM-DD"),
                }
            }
            "updated" | "lastmod" | "last_modified_at" | "modified" => match normalize_date(&v) {
                Some(d) => doc.updated = Some(d),
                None => warn(&k, &v, "expected YYYY-MM-DD"),
            },
            "source_type" => match SourceType::parse(&v) {
                Some(t) => doc.source_type = Some(t),
                None => warn(
                    &k,
                    &v,
                    "expected regulator, official, news, press_release, review, forum, blog or other",
                ),
            },
            "author" | "authors" => {
                doc.meta.authors.extend(list_items(&v));
                doc.meta.extra.insert(k, v);
            }
            "publisher" | "site_name" => {
                doc.meta.publisher = Some(v.clone());
                doc.meta.extra.insert(k, v);
            }
            _ => {
                doc.meta.extra.insert(k, v);
            }
        }
    }
    doc.content = body.to_string();
    if doc.title.is_none() {
        doc.title = first_heading(body);
    }
    doc
}

struct FrontMatter<'a> {
    pairs: Vec<(String, String)>,
    body: &'a str,
}

/// `None` without front matter; `Err` when it is opened and never closed.
fn split_front_matter(text: &str) -> Option<Result<FrontMatter<'_>, String>> {
    let text = decode::strip_bom(text);
    let (fence, sep) = if text.starts_with("---") {
        ("---", ':')
    } else if text.starts_with("+++") {
        ("+++", '=')
    } else {
        return None;
    };
    let first_line_end = text.find('\n')?;
    if text[..first_line_end].trim_end() != fence {
        return None;
    }
    let rest = &text[first_line_end + 1..];
    let mut offset = 0;
    let mut end = None;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == fence || (fence == "---" && line.trim_end() == "...") {
            end = Some((offset, offset + line.len()));
            break;
        }
        offset += line.len();
    }
    let Some((front_end, body_start)) = end else {
        return Some(Err(format!(
            "front matter opened with {fence} is never closed"
        )));
    };
    let front = &rest[..front_end];
    let body = rest[body_start..].trim_start_matches(['\r', '\n']);
    let mut pairs: Vec<(String, String)> = Vec::new();
    for line in front.lines() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let continuation = line.starts_with([' ', '\t']) || line.trim_start().starts_with("- ");
        match line.split_once(sep) {
            Some((k, v)) if !continuation && !k.trim().is_empty() && !k.trim().contains(' ') => {
                pairs.push((k.trim().to_string(), unquote(v.trim())));
            }
            _ => {
                // A YAML list item or a folded line belongs to the key above.
                if let Some((_, v)) = pairs.last_mut() {
                    let item = unquote(line.trim().trim_start_matches("- ").trim());
                    if !v.is_empty() {
                        v.push_str(", ");
                    }
                    v.push_str(&item);
                }
            }
        }
    }
    Some(Ok(FrontMatter { pairs, body }))
}

fn unquote(v: &str) -> String {
    let v = v.trim();
    for q in ['"', '\''] {
        if v.len() >= 2 && v.starts_with(q) && v.ends_with(q) {
            return v[1..v.len() - 1].to_string();
        }
    }
    v.to_string()
}

/// `[a, "b"]` or `a, b` as items.
fn list_items(v: &str) -> Vec<String> {
    v.trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .split(',')
        .map(unquote)
        .filter(|s| !s.is_empty())
        .collect()
}

fn first_heading(text: &str) -> Option<String> {
    text.lines()
        .find(|l| l.starts_with("# "))
        .map(|l| l.trim_start_matches("# ").trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn doc_of(text: &str) -> (RawDocument, Loaded) {
        let mut loaded = Loaded::default();
        let doc = text_document(
            Path::new("/nonexistent/a.md"),
            text.to_string(),
            ContentType::Markdown,
            &mut loaded,
        );
        (doc, loaded)
    }

    #[test]
    fn hugo_and_jekyll_front_matter_is_kept() {
        let (doc, loaded) = doc_of(
            "\u{feff}---\ntitle: \"Rates\"\ndate: 2024-03-15T10:00:00-07:00\nauthor: Jane Roe\ntags:\n  - pricing\n  - fees\ndraft: false\n---\n# Ignored\nBody text.",
        );
        assert_eq!(doc.title.as_deref(), Some("Rates"));
        assert_eq!(doc.published.as_deref(), Some("2024-03-15"));
        assert_eq!(doc.meta.authors, vec!["Jane Roe".to_string()]);
        assert_eq!(
            doc.meta.extra.get("tags").map(String::as_str),
            Some("pricing, fees")
        );
        assert_eq!(
            doc.meta.extra.get("draft").map(String::as_str),
            Some("false")
        );
        assert_eq!(doc.content, "# Ignored\nBody text.");
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    }

    #[test]
    fn toml_front_matter_and_bad_values_warn() {
        let (doc, loaded) =
            doc_of("+++\ntitle = 'T'\npublished = \"March 2025\"\nurl = \"/relative\"\n+++\nBody.");
        assert_eq!(doc.title.as_deref(), Some("T"));
        assert_eq!(doc.published, None);
        assert!(doc.url.starts_with("file://"));
        assert_eq!(loaded.warnings.len(), 2, "{:?}", loaded.warnings);
        assert!(loaded.warnings[0].contains("published"));
    }

    #[test]
    fn unclosed_front_matter_is_text_with_a_warning() {
        let (doc, loaded) = doc_of("---\ntitle: x\nno end here");
        assert!(doc.content.contains("no end here"));
        assert!(loaded.warnings[0].contains("never closed"));
    }

    proptest! {
        #[test]
        fn front_matter_never_panics(s in "(---|\\+\\+\\+)?\n?([a-z: =\"'\\-\\[\\],\n]|é){0,200}") {
            let (doc, _) = doc_of(&s);
            prop_assert!(doc.content.len() <= s.len());
        }
    }
}
