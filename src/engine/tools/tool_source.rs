//! A tool's text result as a source: what MCP tools and custom tools share.
//! The result is stored like a page under a stable URL (`mcp://...`,
//! `tool://...`) with the tool as publisher, judged like any page (scanned
//! for instructions aimed at agents, identity-checked), and answered like
//! `fetch_url` answers. A result over the large-result bounds is written
//! whole to the run's `offload/` folder (never through a link) and the
//! model gets a stub
//! ([`crate::engine::offload`]); it is still stored whole, so a quote from
//! any part of it verifies and `read_source` pages through it.

use crate::sync::LockExt;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::document::{ContentType, DocMeta, RawDocument, SourceType};
use crate::engine::offload;
use crate::engine::tool::{AgentCx, REPEATED, ToolOutput, VIEW_CHARS};
use crate::evidence::{self, injection};
use crate::protocol::{ErrorClass, RunMode, Verdict, WarningCode};
use crate::store::beneath::{Beneath, BeneathError};

/// Where a result came from.
pub struct ResultOrigin {
    /// The stable URL the result is stored under.
    pub url: String,
    pub title: String,
    /// Who published it ("custom tool fx_table", an MCP server's label).
    pub publisher: String,
    /// The start of the offloaded file's name (`<stem>.<ext>`).
    pub file_stem: String,
}

/// A failed call with guidance for its class (MCP and custom tools).
pub(crate) fn failure(class: ErrorClass, message: String) -> ToolOutput {
    let guidance = match class {
        ErrorClass::Permanent => {
            "This is permanent: fix the arguments (check the tool's schema) or use another tool; do not repeat the same call."
        }
        ErrorClass::Transient => "This looks transient: one retry is reasonable.",
        ErrorClass::Unknown => {
            "Retry at most once with the same arguments, or change them if the message says what is wrong."
        }
    };
    let summary: String = message.chars().take(200).collect();
    ToolOutput {
        ok: false,
        content: format!("Error: {message}\n{guidance}"),
        summary,
        error_class: Some(class),
        deliverable: None,
        repeated: false,
    }
}

/// The calls of one outside tool (MCP or custom) that failed permanently
/// in this run, by canonical arguments: an identical repeat is answered
/// locally, marked repeated, and never sent again.
#[derive(Default)]
pub struct PermanentFailures(std::sync::Mutex<std::collections::HashMap<String, String>>);

impl PermanentFailures {
    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<String, String>> {
        self.0.lock_or_recover()
    }

    /// The local answer to a repeat of a call that failed permanently.
    pub fn repeat(&self, key: &str) -> Option<ToolOutput> {
        let message = self.lock().get(key).cloned()?;
        let mut out = failure(
            ErrorClass::Permanent,
            format!(
                "this exact call already failed permanently in this run and was not sent again: {message}"
            ),
        );
        out.summary = format!("{}{}", REPEATED, out.summary);
        out.repeated = true;
        Some(out)
    }

    /// Remembers the call when it failed permanently.
    pub fn note(&self, key: String, out: &ToolOutput) {
        if !out.ok && out.error_class == Some(ErrorClass::Permanent) {
            self.lock()
                .insert(key, out.summary.chars().take(500).collect());
        }
    }
}

/// Canonical JSON (sorted keys), for hashing arguments and showing them.
pub fn canonical(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .iter()
                .map(|k| format!("{}:{}", Value::String((*k).clone()), canonical(&m[*k])))
                .collect();
            format!("{{{}}}", parts.join(","))
        }
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(canonical).collect::<Vec<_>>().join(",")
        ),
        other => other.to_string(),
    }
}

/// 16 hex digits of the hash of a call (tool, canonical arguments) and its
/// answer: the same call with the same answer gets the same URL in every run.
pub fn result_hash(tool: &str, args: &Value, text: &str) -> String {
    let mut h = Sha256::new();
    h.update(tool.as_bytes());
    h.update([0]);
    h.update(canonical(args).as_bytes());
    h.update([0]);
    h.update(text.as_bytes());
    h.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The most characters of an outside tool's description the model is shown.
pub const DESCRIPTION_MAX: usize = 2_000;

/// A tool's description as the model is shown it: withheld (with a
/// warning) when it carries instructions aimed at agents, else cleaned,
/// capped and spotlighted.
pub fn untrusted_description(
    run: &crate::engine::context::RunCtx,
    whose: &str,
    text: &str,
) -> String {
    let hits = injection::scan_text(text);
    if hits.is_empty() {
        let capped: String = crate::document::sanitize_text(text)
            .chars()
            .take(DESCRIPTION_MAX)
            .collect();
        return run.spotlight(&capped);
    }
    run.emitter.warning(
        crate::protocol::MAIN_AGENT,
        WarningCode::Other,
        format!(
            "{whose}: the description carries instructions aimed at AI agents ({}); it is withheld from the model",
            hits.join(", ")
        ),
    );
    "(withheld: it carried instructions aimed at AI agents)".to_string()
}

/// Writes an offloaded result below the run directory, through no link.
fn write_offload(
    run_dir: &std::path::Path,
    relative: &std::path::Path,
    bytes: &[u8],
) -> Result<(), BeneathError> {
    Beneath::open(run_dir)?.write_atomic(relative, bytes)
}

/// Stores a text result as a source and answers the model: a page view,
/// a stub for a large result, or why it cannot be cited.
pub async fn store_result(cx: &AgentCx, origin: ResultOrigin, text: String) -> ToolOutput {
    let run = &cx.run;
    let limits = &run.settings.offload;
    let shape = offload::shape(&text);
    let large = offload::is_large(&shape, limits);
    let mut note = None;
    let mut file = None;
    let content = if large && !limits.enabled {
        let cut = offload::truncate(&text, &shape, limits);
        note = Some(offload::truncation_note(
            &shape,
            limits,
            cut.chars().count(),
        ));
        cut
    } else {
        if large {
            let name = format!("{}.{}", origin.file_stem, shape.format.extension());
            let (shown, relative) = offload::file_paths(&limits.dir, &name);
            match write_offload(run.run_dir.path(), &relative, text.as_bytes()) {
                Ok(()) => file = Some((shown, relative.display().to_string())),
                Err(e) => run.emitter.warning(
                    &cx.agent,
                    if e.is_link() {
                        WarningCode::Security
                    } else {
                        WarningCode::WriteFailed
                    },
                    format!("could not offload the result {}: {e}", origin.url),
                ),
            }
        }
        text
    };
    let raw = RawDocument {
        url: origin.url,
        title: Some(origin.title),
        published: None,
        updated: None,
        source_type: Some(SourceType::Other),
        content_type: ContentType::Plain,
        content,
        meta: DocMeta {
            authors: Vec::new(),
            publisher: Some(origin.publisher),
            extra: Default::default(),
        },
    };
    // A large result is kept whole (past the per-page cap), so any part of
    // it can be quoted; a small one is under the cap anyway.
    let page = evidence::assess_keeping(&raw, &run.anchors, &run.today, usize::MAX);
    let stored = run.pages.insert(page);
    let page = &stored.page;
    if !stored.seen_before {
        super::fetch::announce(cx, page, stored.number);
    }
    cx.note_read(&page.url);
    let with_note = |s: String| match &note {
        Some(n) => format!("{n}\n\n{s}"),
        None => s,
    };
    let chars = page.text.chars().count();
    match page.verdict {
        Verdict::Accepted => {
            if !stored.seen_before && run.mode == RunMode::Online {
                crate::engine::claims::extract_claims(cx, page).await;
            }
            let n = stored.number.unwrap_or(0);
            match &file {
                Some((shown, relative)) if large => ToolOutput::ok(
                    offload::render_stub(
                        &offload::Stub {
                            shape: &shape,
                            limits,
                            source: stored.number,
                            url: &page.url,
                            shown_path: shown,
                            run_relative: relative,
                        },
                        |d| run.spotlight(d),
                    ),
                    format!("[{n}] {chars} chars, offloaded to {shown}"),
                ),
                _ => ToolOutput::ok(
                    with_note(super::fetch::view(cx, page, stored.number, 0)),
                    match note {
                        Some(_) => format!("[{n}] {chars} chars (truncated)"),
                        None => format!("[{n}] {chars} chars"),
                    },
                ),
            }
        }
        Verdict::Quarantined => ToolOutput::ok(
            json!({
                "status": page.verdict,
                "url": page.url,
                "reason": page.reason,
                "note": "The result carries instructions aimed at AI agents; it is withheld and must not be cited."
            })
            .to_string(),
            "quarantined",
        ),
        _ => {
            // Not about the entity (or empty): the model may read it, but it
            // is not a citable source.
            let shown: String = match &file {
                Some((path, _)) => format!(
                    "(the first {} characters; the whole result is in {path})\n{}",
                    VIEW_CHARS,
                    page.text.chars().take(VIEW_CHARS).collect::<String>()
                ),
                None => page.text.chars().take(VIEW_CHARS).collect(),
            };
            let body = json!({
                "status": page.verdict,
                "url": page.url,
                "reason": page.reason,
                "note": "Not citable as evidence about the subject.",
                "text": shown,
            });
            ToolOutput::ok(
                with_note(run.spotlight(&serde_json::to_string_pretty(&body).unwrap_or_default())),
                format!(
                    "not citable ({})",
                    page.reason.clone().unwrap_or_default()
                ),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_ignore_key_order_but_not_values() {
        let a = json!({"q": "x", "n": 1});
        let b = json!({"n": 1, "q": "x"});
        assert_eq!(result_hash("t", &a, "r"), result_hash("t", &b, "r"));
        assert_ne!(result_hash("t", &a, "r"), result_hash("t", &a, "s"));
        assert_ne!(result_hash("t", &a, "r"), result_hash("u", &a, "r"));
        assert_eq!(result_hash("t", &a, "r").len(), 16);
        assert_eq!(canonical(&b), r#"{"n":1,"q":"x"}"#);
    }
}
