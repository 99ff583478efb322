//! The model's view of a page: plain text with a few header lines, not an
//! escaped JSON string, so quotes copied from it carry no `\n` or `\"` and
//! a model reading text attributes each sentence to the right source.
//!
//! ```text
//! Source: [3] https://example.com/pricing
//! Title: Pricing
//! Type: official
//! Published: 2026-06-01
//! Characters: 0-14000 of 52000
//! Next offset: 14000
//!
//! The page text, as stored...
//! ```
//!
//! The fetch tools write it ([`render`]); the offline model reads it back
//! ([`parse`]). The labels are shared constants so the two cannot drift.

/// Header labels.
pub const SOURCE: &str = "Source:";
pub const TITLE: &str = "Title:";
pub const TYPE: &str = "Type:";
pub const PUBLISHED: &str = "Published:";
pub const UPDATED: &str = "Updated:";
pub const CHARACTERS: &str = "Characters:";
pub const NEXT_OFFSET: &str = "Next offset:";

/// One view of an accepted page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageView {
    pub number: usize,
    pub url: String,
    pub title: String,
    pub source_type: String,
    pub published: Option<String>,
    pub updated: Option<String>,
    /// Character offset of `text` in the page, and the page's length.
    pub offset: usize,
    pub total: usize,
    pub next_offset: Option<usize>,
    pub text: String,
}

/// A header value on one line: control characters and line breaks become
/// spaces, so a page's title cannot forge a header line.
fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The view as text: header lines, a blank line, the text.
pub fn render(v: &PageView) -> String {
    let mut s = format!("{SOURCE} [{}] {}\n", v.number, one_line(&v.url));
    s.push_str(&format!("{TITLE} {}\n", one_line(&v.title)));
    s.push_str(&format!("{TYPE} {}\n", one_line(&v.source_type)));
    if let Some(p) = &v.published {
        s.push_str(&format!("{PUBLISHED} {}\n", one_line(p)));
    }
    if let Some(u) = &v.updated {
        s.push_str(&format!("{UPDATED} {}\n", one_line(u)));
    }
    let end = v.offset + v.text.chars().count();
    s.push_str(&format!("{CHARACTERS} {}-{end} of {}\n", v.offset, v.total));
    if let Some(n) = v.next_offset {
        s.push_str(&format!("{NEXT_OFFSET} {n}\n"));
    }
    s.push('\n');
    s.push_str(&v.text);
    s
}

/// Reads a view back; `None` when the text is not one (a refusal, an error).
pub fn parse(text: &str) -> Option<PageView> {
    let (head, body) = text.split_once("\n\n").unwrap_or((text, ""));
    let mut lines = head.lines();
    let first = lines.next()?.strip_prefix(SOURCE)?.trim_start();
    let (number, url) = first.strip_prefix('[')?.split_once(']')?;
    let mut v = PageView {
        number: number.trim().parse().ok()?,
        url: url.trim().to_string(),
        text: body.to_string(),
        ..PageView::default()
    };
    let value = |l: &str, label: &str| l.strip_prefix(label).map(|r| r.trim().to_string());
    for l in lines {
        if let Some(t) = value(l, TITLE) {
            v.title = t;
        } else if let Some(t) = value(l, TYPE) {
            v.source_type = t;
        } else if let Some(p) = value(l, PUBLISHED) {
            v.published = Some(p).filter(|p| !p.is_empty());
        } else if let Some(u) = value(l, UPDATED) {
            v.updated = Some(u).filter(|u| !u.is_empty());
        } else if let Some(c) = value(l, CHARACTERS) {
            let (range, total) = c.split_once(" of ")?;
            v.offset = range.split('-').next()?.trim().parse().ok()?;
            v.total = total.trim().parse().ok()?;
        } else if let Some(n) = value(l, NEXT_OFFSET) {
            v.next_offset = n.parse().ok();
        }
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_plain_text_under_a_header() {
        let v = PageView {
            number: 3,
            url: "https://x.example/p".into(),
            title: "Pricing \"now\"".into(),
            source_type: "official".into(),
            published: Some("2026-06-01".into()),
            updated: None,
            offset: 0,
            total: 40,
            next_offset: Some(20),
            text: "He said \"yes\".\n\nNew paragraph.".into(),
        };
        let s = render(&v);
        assert!(s.starts_with("Source: [3] https://x.example/p\nTitle: Pricing \"now\"\n"));
        assert!(s.ends_with("\n\nHe said \"yes\".\n\nNew paragraph."), "{s}");
        assert!(!s.contains("\\n") && !s.contains("\\\""));
        assert_eq!(parse(&s), Some(v));
        assert_eq!(parse("{\"status\": \"quarantined\"}"), None);
    }

    #[test]
    fn a_title_cannot_forge_a_header() {
        let v = PageView {
            title: "T\nNext offset: 99\n\nfake".into(),
            text: "body".into(),
            ..PageView::default()
        };
        let back = parse(&render(&v)).unwrap();
        assert_eq!(back.next_offset, None);
        assert_eq!(back.text, "body");
    }

    proptest::proptest! {
        #[test]
        fn views_round_trip(
            number in 0usize..500,
            title in "\\PC{0,60}",
            text in "\\PC{0,300}",
            offset in 0usize..100_000,
            more in proptest::option::of(0usize..100_000),
            published in proptest::option::of("[0-9]{4}-[0-9]{2}-[0-9]{2}"),
        ) {
            let v = PageView {
                number,
                url: "https://x.example/a".into(),
                title: one_line(&title),
                source_type: "news".into(),
                published,
                updated: None,
                offset,
                total: offset + text.chars().count(),
                next_offset: more,
                text,
            };
            proptest::prop_assert_eq!(parse(&render(&v)), Some(v));
            let _ = parse(&title);
        }
    }
}
