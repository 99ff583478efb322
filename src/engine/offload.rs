//! Large tool results (MCP and custom tools). A result over
//! `DRA_MAX_RESULT_CHARS` or `DRA_MAX_RESULT_ROWS` is written whole to the
//! run's `offload/` folder (the sandbox sees it read-only under
//! `/workspace`) and the model gets a stub instead: where the file is,
//! its size, rows and columns, and its head. With `DRA_OFFLOAD_RESULTS=false`
//! the bounds cut the result instead. This file holds the pure part (the
//! shape of a result, the stub, the file's place); `tools::tool_source`
//! does the writing and storing.

use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use crate::config::OffloadSettings;

/// Rows of the head shown in a stub.
pub const HEAD_ROWS: usize = 20;
/// Characters of the head shown in a stub, at most.
pub const HEAD_CHARS: usize = 2_000;
/// Columns named in a stub, at most.
const MAX_COLUMNS: usize = 50;
/// Array elements looked at for column names.
const COLUMN_SCAN: usize = 1_000;

/// What a result looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A JSON array (of objects when it has columns).
    JsonArray,
    /// Other JSON.
    Json,
    /// Delimited text with a header line (CSV, TSV, ...).
    Delimited(char),
    Text,
}

impl Format {
    /// The offloaded file's extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::JsonArray | Format::Json => "json",
            Format::Delimited('\t') => "tsv",
            Format::Delimited(_) => "csv",
            Format::Text => "txt",
        }
    }

    fn describe(self, columns: bool) -> String {
        match self {
            Format::JsonArray if columns => "JSON array of objects".into(),
            Format::JsonArray => "JSON array".into(),
            Format::Json => "JSON".into(),
            Format::Delimited('\t') => "tab-separated rows under a header line".into(),
            Format::Delimited(c) => format!("rows separated by '{c}' under a header line"),
            Format::Text => "text".into(),
        }
    }
}

/// The size and layout of a result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    pub format: Format,
    pub chars: usize,
    /// Array elements, data lines under a header, or lines of text.
    pub rows: usize,
    /// Keys of a JSON array's objects (first seen first) or a header's fields.
    pub columns: Vec<String>,
    /// The first rows (one per line), at most [`HEAD_CHARS`] characters.
    pub head: String,
}

/// Reads the shape of a result.
pub fn shape(text: &str) -> Shape {
    let chars = text.chars().count();
    let trimmed = text.trim_start();
    if (trimmed.starts_with('[') || trimmed.starts_with('{'))
        && let Ok(value) = serde_json::from_str::<Value>(text)
    {
        return match value {
            Value::Array(items) => {
                let columns = object_keys(&items);
                let head = items
                    .iter()
                    .take(HEAD_ROWS)
                    .map(Value::to_string)
                    .collect::<Vec<_>>()
                    .join("\n");
                Shape {
                    format: Format::JsonArray,
                    chars,
                    rows: items.len(),
                    columns,
                    head: cap(&head, HEAD_CHARS),
                }
            }
            other => Shape {
                format: Format::Json,
                chars,
                rows: text.lines().filter(|l| !l.trim().is_empty()).count(),
                columns: match &other {
                    Value::Object(m) => m.keys().take(MAX_COLUMNS).cloned().collect(),
                    _ => Vec::new(),
                },
                head: cap(&head_lines(text), HEAD_CHARS),
            },
        };
    }
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if let Some(delim) = delimiter(&lines) {
        let columns: Vec<String> = split_fields(lines[0], delim)
            .into_iter()
            .map(|f| f.trim().to_string())
            .take(MAX_COLUMNS)
            .collect();
        return Shape {
            format: Format::Delimited(delim),
            chars,
            rows: lines.len() - 1,
            columns,
            head: cap(
                &lines
                    .iter()
                    .take(HEAD_ROWS + 1)
                    .copied()
                    .collect::<Vec<_>>()
                    .join("\n"),
                HEAD_CHARS,
            ),
        };
    }
    Shape {
        format: Format::Text,
        chars,
        rows: lines.len(),
        columns: Vec::new(),
        head: cap(&head_lines(text), HEAD_CHARS),
    }
}

fn head_lines(text: &str) -> String {
    text.lines().take(HEAD_ROWS).collect::<Vec<_>>().join("\n")
}

/// The keys of an array's objects, in order of first appearance.
fn object_keys(items: &[Value]) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for item in items.iter().take(COLUMN_SCAN) {
        if let Value::Object(m) = item {
            for k in m.keys() {
                if keys.len() < MAX_COLUMNS && !keys.contains(k) {
                    keys.push(k.clone());
                }
            }
        }
    }
    keys
}

/// The delimiter of a table: the first of tab, comma, semicolon and pipe
/// that splits the header into at least two fields and every one of the
/// next rows (up to [`HEAD_ROWS`]) into as many.
fn delimiter(lines: &[&str]) -> Option<char> {
    if lines.len() < 2 {
        return None;
    }
    ['\t', ',', ';', '|'].into_iter().find(|&d| {
        let n = split_fields(lines[0], d).len();
        n >= 2
            && lines
                .iter()
                .skip(1)
                .take(HEAD_ROWS)
                .all(|l| split_fields(l, d).len() == n)
    })
}

/// Splits one line at `delim`, outside double quotes.
fn split_fields(line: &str, delim: char) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    for c in line.chars() {
        if c == '"' {
            quoted = !quoted;
        } else if c == delim && !quoted {
            fields.push(String::new());
            continue;
        }
        if let Some(f) = fields.last_mut() {
            f.push(c);
        }
    }
    fields
}

/// At most `max` characters of `s`, with `…` when cut.
fn cap(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max).collect();
    out.push('…');
    out
}

/// Whether a result is over either bound.
pub fn is_large(shape: &Shape, limits: &OffloadSettings) -> bool {
    shape.chars > limits.max_chars || shape.rows > limits.max_rows
}

/// The result cut to the bounds (offloading off): the first `max_rows`
/// lines (a header line kept over them), then the first `max_chars`
/// characters of that.
pub fn truncate(text: &str, shape: &Shape, limits: &OffloadSettings) -> String {
    let keep_lines = match shape.format {
        Format::Delimited(_) => limits.max_rows.saturating_add(1),
        _ => limits.max_rows,
    };
    let by_rows = match shape.format {
        // A JSON array cut by lines is no longer JSON: cut by elements.
        Format::JsonArray => match serde_json::from_str::<Value>(text) {
            Ok(Value::Array(items)) if items.len() > limits.max_rows => items
                .iter()
                .take(limits.max_rows)
                .map(Value::to_string)
                .collect::<Vec<_>>()
                .join("\n"),
            _ => text.to_string(),
        },
        _ => text.lines().take(keep_lines).collect::<Vec<_>>().join("\n"),
    };
    by_rows.chars().take(limits.max_chars).collect()
}

/// The run's folder of offloaded results (relative to the run directory).
/// dra owns it: the sandbox sees it read-only at [`sandbox_dir`], so code
/// cannot swap it for a link that would steer dra's own writes.
pub const RUN_FOLDER: &str = "offload";

/// Where the sandbox sees offloaded results: `DRA_OFFLOAD_DIR` kept under
/// `/workspace` (the plain components after `/workspace/`; a directory
/// outside `/workspace` is placed under it, and `/workspace` itself
/// becomes `/workspace/data`, so the workspace stays writable).
pub fn sandbox_dir(offload_dir: &str) -> String {
    let dir = Path::new(offload_dir.trim_end_matches('/'));
    let inside = dir.strip_prefix("/workspace").unwrap_or(dir);
    let parts: Vec<String> = inside
        .components()
        .filter_map(|c| match c {
            Component::Normal(p) => Some(p.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    if parts.is_empty() {
        "/workspace/data".into()
    } else {
        format!("/workspace/{}", parts.join("/"))
    }
}

/// Where an offloaded file goes: its path as the sandbox sees it (under
/// [`sandbox_dir`]) and relative to the run directory (in [`RUN_FOLDER`]).
pub fn file_paths(offload_dir: &str, file: &str) -> (String, PathBuf) {
    let shown = format!("{}/{file}", sandbox_dir(offload_dir));
    (shown, Path::new(RUN_FOLDER).join(file))
}

/// What the model reads instead of a large result.
pub struct Stub<'a> {
    pub shape: &'a Shape,
    pub limits: &'a OffloadSettings,
    /// The source number, when the result is a citable source.
    pub source: Option<usize>,
    pub url: &'a str,
    /// The file as the sandbox sees it, and relative to the run directory.
    pub shown_path: &'a str,
    pub run_relative: &'a str,
}

/// The stub's text. `wrap` marks data from the result (columns, head) as
/// untrusted (the run's spotlight).
pub fn render_stub(stub: &Stub, wrap: impl Fn(&str) -> String) -> String {
    let s = stub.shape;
    let mut out = format!(
        "Large result offloaded to a file: {} characters, {} rows (over DRA_MAX_RESULT_CHARS={} or DRA_MAX_RESULT_ROWS={}); only this stub is shown.\n",
        s.chars, s.rows, stub.limits.max_chars, stub.limits.max_rows
    );
    match stub.source {
        Some(n) => out.push_str(&format!("Source: [{n}] {}\n", stub.url)),
        None => out.push_str(&format!("URL: {} (not a citable source)\n", stub.url)),
    }
    out.push_str(&format!(
        "File: {} (in the run directory: {})\n",
        stub.shown_path, stub.run_relative
    ));
    out.push_str(&format!(
        "Format: {}\n",
        s.format.describe(!s.columns.is_empty())
    ));
    out.push_str(&format!("Rows: {}\n", s.rows));
    if let Some(n) = stub.source {
        out.push_str(&format!(
            "To read more: call read_source with {{\"source\": {n}, \"offset\": N}} (N a character offset; each call shows up to {} characters and the next offset). The whole result is source [{n}]: quotes from any part of it can be cited. If an `execute` tool is offered, code can read the file at {}.\n",
            super::tool::VIEW_CHARS,
            stub.shown_path
        ));
    } else {
        out.push_str(
            "It is not about the research subject, so it cannot be cited or paged with read_source.\n",
        );
    }
    let mut data = String::new();
    if !s.columns.is_empty() {
        data.push_str(&format!("Columns: {}\n", s.columns.join(", ")));
    }
    data.push_str(&format!(
        "Head (first {} rows, at most {HEAD_CHARS} characters):\n{}",
        HEAD_ROWS.min(s.rows),
        s.head
    ));
    out.push('\n');
    out.push_str(&wrap(&data));
    out
}

/// The note put before a result cut to the bounds (offloading off).
pub fn truncation_note(shape: &Shape, limits: &OffloadSettings, kept_chars: usize) -> String {
    format!(
        "Truncated result: it had {} characters and {} rows; only the first {kept_chars} characters (at most {} rows) are kept and stored, because DRA_OFFLOAD_RESULTS=false turns DRA_MAX_RESULT_CHARS={} and DRA_MAX_RESULT_ROWS={} into caps. Text past the cut was never read and cannot be cited.",
        shape.chars, shape.rows, limits.max_rows, limits.max_chars, limits.max_rows
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn limits(max_chars: usize, max_rows: usize) -> OffloadSettings {
        OffloadSettings {
            max_chars,
            max_rows,
            enabled: true,
            dir: "/workspace/data".into(),
        }
    }

    #[test]
    fn json_arrays_of_objects_have_rows_and_columns() {
        let rows: Vec<Value> = (0..50)
            .map(
                |i| serde_json::json!({"date": format!("2026-01-{i:02}"), "rate": i, "ccy": "INR"}),
            )
            .collect();
        let mut with_extra = rows.clone();
        with_extra.push(serde_json::json!({"date": "x", "note": "late column"}));
        let s = shape(&serde_json::to_string_pretty(&with_extra).unwrap());
        assert_eq!(s.format, Format::JsonArray);
        assert_eq!(s.rows, 51);
        assert_eq!(s.columns, vec!["ccy", "date", "rate", "note"]);
        assert_eq!(s.head.lines().count(), HEAD_ROWS);
        assert!(
            s.head
                .starts_with(r#"{"ccy":"INR","date":"2026-01-00","rate":0}"#)
        );
        assert!(is_large(&s, &limits(100_000, 50)));
        assert!(!is_large(&s, &limits(100_000, 51)));
    }

    #[test]
    fn csv_and_tsv_have_a_header_and_rows() {
        let csv = "date,\"pair, quoted\",rate\n2026-01-01,USD/INR,83.1\n2026-01-02,USD/INR,83.2\n";
        let s = shape(csv);
        assert_eq!(s.format, Format::Delimited(','));
        assert_eq!(s.rows, 2);
        assert_eq!(s.columns, vec!["date", "\"pair, quoted\"", "rate"]);
        assert_eq!(s.format.extension(), "csv");
        let tsv = "a\tb\n1\t2\n3\t4\n5\t6";
        let s = shape(tsv);
        assert_eq!((s.format, s.rows), (Format::Delimited('\t'), 3));
        assert_eq!(s.format.extension(), "tsv");
    }

    #[test]
    fn prose_is_text_and_ragged_rows_are_not_a_table() {
        let s =
            shape("PadmaPay, a gateway, is in Kochi.\nIt charges 1.9%.\n\nMore, later, here, now.");
        assert_eq!(s.format, Format::Text);
        assert_eq!(s.rows, 3);
        assert!(s.columns.is_empty());
        let s = shape("{\"a\": 1, \"b\": [1, 2]}");
        assert_eq!(s.format, Format::Json);
        assert_eq!(s.columns, vec!["a", "b"]);
        // Looks like JSON but is not: text.
        assert_eq!(shape("[not json").format, Format::Text);
    }

    #[test]
    fn the_head_is_capped() {
        let long = "x".repeat(10_000);
        let s = shape(&long);
        assert_eq!(s.head.chars().count(), HEAD_CHARS + 1);
        assert!(s.head.ends_with('…'));
    }

    #[test]
    fn files_stay_in_the_run_and_are_shown_under_the_workspace() {
        let (shown, rel) = file_paths("/workspace/data", "t-1.json");
        assert_eq!(shown, "/workspace/data/t-1.json");
        assert_eq!(rel, Path::new("offload/t-1.json"));
        let (shown, rel) = file_paths("/tmp/../etc/", "t.json");
        assert_eq!(shown, "/workspace/tmp/etc/t.json");
        assert_eq!(rel, Path::new("offload/t.json"));
        // The workspace itself is never the read-only folder.
        let (shown, _) = file_paths("/workspace", "t.json");
        assert_eq!(shown, "/workspace/data/t.json");
        assert_eq!(sandbox_dir("/"), "/workspace/data");
    }

    #[test]
    fn truncation_keeps_whole_json_rows_and_the_header() {
        let arr = serde_json::to_string(&(0..10).collect::<Vec<_>>()).unwrap();
        let s = shape(&arr);
        assert_eq!(truncate(&arr, &s, &limits(1000, 3)), "0\n1\n2");
        let csv = "h1,h2\n1,2\n3,4\n5,6";
        assert_eq!(
            truncate(csv, &shape(csv), &limits(1000, 2)),
            "h1,h2\n1,2\n3,4"
        );
        assert_eq!(truncate(csv, &shape(csv), &limits(4, 2)), "h1,h");
    }

    #[test]
    fn the_stub_names_the_file_the_source_and_how_to_read_on() {
        let csv: String = std::iter::once("a,b".to_string())
            .chain((0..30).map(|i| format!("{i},{}", i * 2)))
            .collect::<Vec<_>>()
            .join("\n");
        let s = shape(&csv);
        let l = limits(10, 1000);
        let text = render_stub(
            &Stub {
                shape: &s,
                limits: &l,
                source: Some(4),
                url: "tool://t/abc",
                shown_path: "/workspace/data/t-abc.csv",
                run_relative: "offload/t-abc.csv",
            },
            |d| format!("<<{d}>>"),
        );
        assert!(text.contains("Source: [4] tool://t/abc"), "{text}");
        assert!(text.contains("Rows: 30"));
        assert!(text.contains("{\"source\": 4, \"offset\": N}"));
        assert!(text.contains("<<Columns: a, b\nHead (first 20 rows"));
        assert!(text.contains("\n19,38>>"), "{text}");
        assert!(!text.contains("20,40"));
    }

    proptest! {
        #[test]
        fn json_arrays_count_every_element(n in 0usize..200, key in "[a-z]{1,8}") {
            let rows: Vec<Value> = (0..n).map(|i| serde_json::json!({key.clone(): i})).collect();
            let s = shape(&serde_json::to_string(&rows).unwrap());
            prop_assert_eq!(s.rows, n);
            prop_assert_eq!(s.columns.len(), usize::from(n > 0));
            prop_assert!(s.head.lines().count() <= HEAD_ROWS);
        }

        #[test]
        fn tables_count_rows_under_the_header(rows in 1usize..100, cols in 2usize..6) {
            let mut lines = vec![(0..cols).map(|c| format!("c{c}")).collect::<Vec<_>>().join(",")];
            for r in 0..rows {
                lines.push((0..cols).map(|c| format!("{r}{c}")).collect::<Vec<_>>().join(","));
            }
            let s = shape(&lines.join("\n"));
            prop_assert_eq!(s.format, Format::Delimited(','));
            prop_assert_eq!(s.rows, rows);
            prop_assert_eq!(s.columns.len(), cols);
        }

        #[test]
        fn any_text_has_a_bounded_head_and_truncates_within_bounds(
            text in "\\PC{0,3000}",
            max_chars in 1usize..500,
            max_rows in 1usize..50,
        ) {
            let s = shape(&text);
            prop_assert_eq!(s.chars, text.chars().count());
            prop_assert!(s.head.chars().count() <= HEAD_CHARS + 1);
            let l = limits(max_chars, max_rows);
            let cut = truncate(&text, &s, &l);
            prop_assert!(cut.chars().count() <= max_chars);
            prop_assert!(cut.lines().count() <= max_rows + 1);
        }
    }
}
