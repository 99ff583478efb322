//! A page's metadata from its markup: dates, authors, publisher and kind of
//! source, from JSON-LD (`datePublished`, `dateModified`, `@type`,
//! `author`, `publisher`, with `@graph` arrays and `@id` references),
//! OpenGraph and article meta tags, microdata and `<time datetime>`.
//! Untrusted markup: malformed JSON-LD is skipped, never an error, and
//! every string is bounded and cleaned of invisible characters.

use dom_query::{Document, Selection};
use serde_json::Value;

use super::invisible::is_invisible;

/// What a page says about itself. Dates are `YYYY-MM-DD`; `source_type`
/// is a word [`crate::evidence::SourceType::parse`] reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageMeta {
    pub published: Option<String>,
    pub modified: Option<String>,
    pub source_type: Option<String>,
    pub authors: Vec<String>,
    pub publisher: Option<String>,
}

/// The most authors kept, and the longest name or publisher.
const MAX_AUTHORS: usize = 10;
const MAX_NAME_CHARS: usize = 120;
/// JSON-LD blocks larger than this are not parsed.
const MAX_JSON_LD_BYTES: usize = 512 * 1024;
/// How deep `@graph` and `mainEntity` nesting is followed.
const MAX_NESTING: usize = 6;

/// Parses `html` and reads its metadata.
pub fn from_html(html: &str) -> PageMeta {
    read(&Document::from(html))
}

/// Reads the metadata of a parsed page (before scripts are removed: JSON-LD
/// lives in `<script>`).
pub fn read(doc: &Document) -> PageMeta {
    let ld = JsonLd::from_document(doc);
    let main = ld.main();
    let published = first_date(&[
        meta(doc, "article:published_time"),
        main.and_then(|m| date_of(m.get("datePublished"))),
        main.and_then(|m| date_of(m.get("dateCreated"))),
        meta(doc, "og:published_time"),
        meta(doc, "date"),
        meta(doc, "pubdate"),
        meta(doc, "publishdate"),
        meta(doc, "dc.date.issued"),
        meta(doc, "dcterms.created"),
        itemprop(doc, "datePublished"),
        time_element(doc),
    ]);
    let modified = first_date(&[
        meta(doc, "article:modified_time"),
        main.and_then(|m| date_of(m.get("dateModified"))),
        meta(doc, "og:updated_time"),
        meta(doc, "last-modified"),
        meta(doc, "dcterms.modified"),
        itemprop(doc, "dateModified"),
    ]);
    let source_type = meta(doc, "dra:source_type")
        .map(|s| s.trim().to_ascii_lowercase())
        .or_else(|| ld.items.iter().find_map(source_type_of_ld))
        .or_else(|| meta(doc, "og:type").and_then(|t| source_type_of_og(&t)));
    let mut authors: Vec<String> = main.map(|m| ld.names(m.get("author"))).unwrap_or_default();
    if authors.is_empty() {
        authors = [meta(doc, "author"), meta(doc, "article:author")]
            .into_iter()
            .flatten()
            .filter(|a| !looks_like_url(a))
            .flat_map(|a| split_names(&a))
            .collect();
    }
    if authors.is_empty() {
        authors = texts(&doc.select("[rel='author'], [itemprop='author'] [itemprop='name']"));
    }
    let mut clean_authors: Vec<String> = Vec::new();
    for a in authors.into_iter().filter_map(|a| clean_name(&a)) {
        if !clean_authors.contains(&a) && clean_authors.len() < MAX_AUTHORS {
            clean_authors.push(a);
        }
    }
    let publisher = main
        .and_then(|m| ld.names(m.get("publisher")).into_iter().next())
        .or_else(|| meta(doc, "og:site_name"))
        .or_else(|| meta(doc, "publisher"))
        .or_else(|| meta(doc, "application-name"))
        .and_then(|p| clean_name(&p));
    PageMeta {
        published,
        modified,
        source_type,
        authors: clean_authors,
        publisher,
    }
}

/// The content of `<meta property=NAME>` or `<meta name=NAME>`, matched
/// without regard to case.
pub(super) fn meta(doc: &Document, name: &str) -> Option<String> {
    let sel = doc.select("meta[content]");
    sel.nodes().iter().find_map(|n| {
        let key = n.attr("property").or_else(|| n.attr("name"))?;
        if !key.trim().eq_ignore_ascii_case(name) {
            return None;
        }
        let v = n.attr("content")?;
        let v = v.trim();
        (!v.is_empty()).then(|| v.to_string())
    })
}

/// Microdata: `<meta itemprop content>`, `<time itemprop datetime>` or the
/// element's text.
fn itemprop(doc: &Document, prop: &str) -> Option<String> {
    let sel = doc.select(&format!("[itemprop='{prop}']"));
    sel.nodes().iter().find_map(|n| {
        n.attr("content")
            .or_else(|| n.attr("datetime"))
            .map(|s| s.to_string())
            .or_else(|| Some(n.text().to_string()))
            .filter(|s| !s.trim().is_empty())
    })
}

/// A `<time datetime>` that dates the page: one marked `pubdate`, else the
/// first inside an `<article>` or page header, else the first of the page
/// that is not inside a comment thread.
fn time_element(doc: &Document) -> Option<String> {
    for sel in [
        "time[pubdate][datetime]",
        "article header time[datetime]",
        "header time[datetime]",
        "article time[datetime]",
        "time[datetime]",
    ] {
        let found = doc.select(sel);
        let hit = found.nodes().iter().find_map(|n| {
            let in_comments = n.ancestors(Some(8)).iter().any(|a| {
                let marks = format!(
                    "{} {}",
                    a.attr("class").unwrap_or_default(),
                    a.attr("id").unwrap_or_default()
                )
                .to_ascii_lowercase();
                marks.contains("comment") || marks.contains("related")
            });
            (!in_comments)
                .then(|| n.attr("datetime"))
                .flatten()
                .and_then(|d| parse_date(&d))
        });
        if hit.is_some() {
            return hit;
        }
    }
    None
}

fn first_date(candidates: &[Option<String>]) -> Option<String> {
    candidates.iter().flatten().find_map(|s| parse_date(s))
}

fn texts(sel: &Selection) -> Vec<String> {
    sel.nodes()
        .iter()
        .map(|n| n.text().to_string())
        .filter(|t| !t.trim().is_empty())
        .collect()
}

fn looks_like_url(s: &str) -> bool {
    let s = s.trim();
    s.starts_with("http://") || s.starts_with("https://") || s.starts_with('/')
}

/// `"A, B and C"` as names (a meta author tag often lists several).
fn split_names(s: &str) -> Vec<String> {
    s.split([',', ';', '|'])
        .flat_map(|p| p.split(" and "))
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// A name fit to show: invisible and control characters gone, whitespace
/// collapsed, a "By " prefix dropped, bounded.
fn clean_name(s: &str) -> Option<String> {
    let visible: String = s
        .chars()
        .filter(|&c| !is_invisible(c))
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let joined = visible.split_whitespace().collect::<Vec<_>>().join(" ");
    let trimmed = joined
        .strip_prefix("By ")
        .or_else(|| joined.strip_prefix("by "))
        .unwrap_or(&joined)
        .trim();
    if trimmed.is_empty() || looks_like_url(trimmed) {
        return None;
    }
    Some(trimmed.chars().take(MAX_NAME_CHARS).collect())
}

/// A date in one of the forms pages use, as `YYYY-MM-DD`: ISO 8601 (with
/// or without time), `YYYY/MM/DD`, RFC 2822, `March 5, 2024`, `5 March 2024`.
pub fn parse_date(s: &str) -> Option<String> {
    use chrono::NaiveDate;
    let s = s.trim();
    let plausible = |d: NaiveDate| {
        use chrono::Datelike;
        (1900..=2200)
            .contains(&d.year())
            .then(|| d.format("%Y-%m-%d").to_string())
    };
    if let Some(day) = s.get(..10) {
        let rest = &s[10..];
        let ends = rest.is_empty() || rest.starts_with(['T', 't', ' ']);
        for fmt in ["%Y-%m-%d", "%Y/%m/%d"] {
            if ends && let Ok(d) = NaiveDate::parse_from_str(day, fmt) {
                return plausible(d);
            }
        }
    }
    if let Ok(d) = chrono::DateTime::parse_from_rfc2822(s) {
        return plausible(d.date_naive());
    }
    let words = s.replace(',', " ");
    let words = words.split_whitespace().collect::<Vec<_>>().join(" ");
    for fmt in [
        "%B %d %Y",
        "%b %d %Y",
        "%d %B %Y",
        "%d %b %Y",
        "%A %B %d %Y",
    ] {
        if let Ok(d) = NaiveDate::parse_from_str(&words, fmt) {
            return plausible(d);
        }
    }
    None
}

/// The JSON-LD items of a page, flattened: top-level objects, arrays,
/// `@graph` members and `mainEntity` objects.
pub(super) struct JsonLd {
    pub(super) items: Vec<Value>,
}

impl JsonLd {
    pub(super) fn from_document(doc: &Document) -> JsonLd {
        let mut items = Vec::new();
        let scripts = doc.select("script");
        for node in scripts.nodes() {
            let is_ld = node.attr("type").is_some_and(|t| {
                t.trim()
                    .to_ascii_lowercase()
                    .starts_with("application/ld+json")
            });
            if !is_ld {
                continue;
            }
            let text = node.text();
            if text.len() > MAX_JSON_LD_BYTES {
                continue;
            }
            if let Some(v) = parse_lenient(&text) {
                flatten(v, 0, &mut items);
            }
        }
        JsonLd { items }
    }

    /// The item that describes the page's content: the first article-like
    /// item, else the first with a publication date, else a web page.
    fn main(&self) -> Option<&serde_json::Map<String, Value>> {
        let objects = || self.items.iter().filter_map(Value::as_object);
        objects()
            .find(|o| types_of(o).iter().any(|t| is_article_type(t)))
            .or_else(|| objects().find(|o| o.contains_key("datePublished")))
            .or_else(|| objects().find(|o| types_of(o).iter().any(|t| t.ends_with("WebPage"))))
    }

    /// Names in an `author` or `publisher` value: a string, an object with a
    /// `name`, an `@id` reference to another item, or a list of these.
    fn names(&self, v: Option<&Value>) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(v) = v {
            self.collect_names(v, 0, &mut out);
        }
        out
    }

    fn collect_names(&self, v: &Value, depth: usize, out: &mut Vec<String>) {
        if depth > MAX_NESTING || out.len() >= MAX_AUTHORS {
            return;
        }
        match v {
            Value::String(s) if !looks_like_url(s) => out.extend(split_names(s)),
            Value::Array(list) => {
                for item in list {
                    self.collect_names(item, depth + 1, out);
                }
            }
            Value::Object(o) => match o.get("name") {
                Some(Value::String(name)) => out.push(name.clone()),
                Some(other) => self.collect_names(other, depth + 1, out),
                None => {
                    if let Some(id) = o.get("@id").and_then(Value::as_str)
                        && let Some(target) = self.by_id(id)
                        && !std::ptr::eq(target, o)
                    {
                        self.collect_names(&Value::Object(target.clone()), depth + 1, out);
                    } else if let Some(s) = o.get("@value") {
                        self.collect_names(s, depth + 1, out);
                    }
                }
            },
            _ => {}
        }
    }

    fn by_id(&self, id: &str) -> Option<&serde_json::Map<String, Value>> {
        self.items
            .iter()
            .filter_map(Value::as_object)
            .find(|o| o.get("@id").and_then(Value::as_str) == Some(id) && o.contains_key("name"))
    }
}

/// JSON-LD as pages write it: wrapped in HTML comments or CDATA, with a
/// trailing comma or a stray semicolon. `None` when it still is not JSON.
fn parse_lenient(text: &str) -> Option<Value> {
    let t = text.trim();
    let t = t.strip_prefix("<!--").unwrap_or(t);
    let t = t.strip_suffix("-->").unwrap_or(t).trim();
    let t = t.strip_prefix("//<![CDATA[").unwrap_or(t);
    let t = t.strip_suffix("//]]>").unwrap_or(t).trim();
    let t = t.trim_end_matches(';').trim();
    if let Ok(v) = serde_json::from_str(t) {
        return Some(v);
    }
    // Trailing commas before a closing bracket, outside strings.
    let mut fixed = String::with_capacity(t.len());
    let mut in_string = false;
    let mut escaped = false;
    let chars: Vec<char> = t.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if in_string {
            fixed.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        if c == '"' {
            in_string = true;
        }
        if c == ',' {
            let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
            if matches!(next, Some('}') | Some(']')) {
                continue;
            }
        }
        // Raw control characters (a literal newline in a string is common).
        fixed.push(c);
    }
    serde_json::from_str(&fixed).ok().or_else(|| {
        // Literal newlines and tabs inside strings.
        let spaced: String = fixed
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        serde_json::from_str(&spaced).ok()
    })
}

fn flatten(v: Value, depth: usize, out: &mut Vec<Value>) {
    if depth > MAX_NESTING || out.len() > 1000 {
        return;
    }
    match v {
        Value::Array(list) => {
            for item in list {
                flatten(item, depth + 1, out);
            }
        }
        Value::Object(mut o) => {
            let graph = o.remove("@graph");
            let main_entity = o.get("mainEntity").filter(|m| m.is_object()).cloned();
            if o.contains_key("@type") || o.contains_key("@id") {
                out.push(Value::Object(o));
            }
            if let Some(g) = graph {
                flatten(g, depth + 1, out);
            }
            if let Some(m) = main_entity {
                flatten(m, depth + 1, out);
            }
        }
        _ => {}
    }
}

/// The `@type` names of an item, without a vocabulary prefix
/// (`schema:NewsArticle`, `https://schema.org/NewsArticle`).
pub(super) fn types_of(o: &serde_json::Map<String, Value>) -> Vec<String> {
    let bare = |s: &str| {
        s.rsplit(['/', ':', '#'])
            .next()
            .unwrap_or(s)
            .trim()
            .to_string()
    };
    match o.get("@type") {
        Some(Value::String(s)) => vec![bare(s)],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).map(bare).collect(),
        _ => Vec::new(),
    }
}

fn is_article_type(t: &str) -> bool {
    t.ends_with("Article")
        || t.ends_with("Posting")
        || t.ends_with("Review")
        || matches!(
            t,
            "Report" | "PressRelease" | "Blog" | "Question" | "Answer"
        )
}

fn source_type_of_ld(v: &Value) -> Option<String> {
    let o = v.as_object()?;
    types_of(o).iter().find_map(|t| {
        let kind = if t.ends_with("NewsArticle") || t == "ReportageNewsArticle" {
            "news"
        } else if t == "BlogPosting" || t == "LiveBlogPosting" || t == "Blog" {
            "blog"
        } else if t.ends_with("Review") {
            "review"
        } else if t == "DiscussionForumPosting" || t == "QAPage" || t == "Question" {
            "forum"
        } else if t == "PressRelease" {
            "press_release"
        } else {
            return None;
        };
        Some(kind.to_string())
    })
}

fn source_type_of_og(t: &str) -> Option<String> {
    let t = t.trim().to_ascii_lowercase();
    let kind = match t.as_str() {
        "blog" | "blogposting" | "blog_post" => "blog",
        "news" | "newsarticle" | "news_article" => "news",
        _ => return None,
    };
    Some(kind.to_string())
}

fn date_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Array(list) => list.iter().find_map(|x| date_of(Some(x))),
        Value::Object(o) => date_of(o.get("@value")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn json_ld_graph_with_references() {
        let html = r#"<html><head><script type="application/ld+json">
        {"@context":"https://schema.org","@graph":[
          {"@type":"Organization","@id":"https://bbc.example/#org","name":"BBC News"},
          {"@type":"WebPage","@id":"https://bbc.example/p","datePublished":"2016-01-01"},
          {"@type":["NewsArticle"],"headline":"Obama on guns","datePublished":"2015-07-24T08:00:00+01:00",
           "dateModified":{"@value":"2015-07-25"},
           "author":[{"@type":"Person","name":"Jon Sopel"},"Anna Smith"],
           "publisher":{"@id":"https://bbc.example/#org"}}
        ]}</script></head><body><p>x</p></body></html>"#;
        let m = from_html(html);
        assert_eq!(m.published.as_deref(), Some("2015-07-24"));
        assert_eq!(m.modified.as_deref(), Some("2015-07-25"));
        assert_eq!(m.source_type.as_deref(), Some("news"));
        assert_eq!(m.authors, vec!["Jon Sopel", "Anna Smith"]);
        assert_eq!(m.publisher.as_deref(), Some("BBC News"));
    }

    #[test]
    fn opengraph_meta_and_time_elements() {
        let html = r#"<html><head>
          <meta property="og:type" content="article">
          <meta property="og:site_name" content="The Daily Example">
          <meta name="author" content="Jane Roe, John Doe">
          </head><body><div class="comments"><time datetime="2023-01-09">c</time></div>
          <article><header><time datetime="2022-11-30T09:00:00Z">Nov 30</time></header><p>Body</p></article></body></html>"#;
        let m = from_html(html);
        assert_eq!(m.published.as_deref(), Some("2022-11-30"));
        assert_eq!(m.publisher.as_deref(), Some("The Daily Example"));
        assert_eq!(m.authors, vec!["Jane Roe", "John Doe"]);
        assert_eq!(m.source_type, None);
        let blog = from_html(
            r#"<script type="application/ld+json">[{"@type":"BlogPosting","datePublished":"March 5, 2024","author":{"name":"By Kim\u202e Lee"}},]</script>"#,
        );
        assert_eq!(blog.source_type.as_deref(), Some("blog"));
        assert_eq!(blog.published.as_deref(), Some("2024-03-05"));
        assert_eq!(blog.authors, vec!["Kim Lee"]);
    }

    #[test]
    fn malformed_json_ld_is_skipped() {
        let html = r#"<script type="application/ld+json">{"@type":"NewsArticle", "datePublished": </script>
          <script type="application/ld+json"><!-- {"@type":"NewsArticle","datePublished":"2020-02-02",} --></script>"#;
        let m = from_html(html);
        assert_eq!(m.published.as_deref(), Some("2020-02-02"));
        assert_eq!(
            from_html("<script type='application/ld+json'>null</script>"),
            PageMeta::default()
        );
        assert_eq!(
            from_html(r#"<script type="application/ld+json">{"@graph":{"@graph":[[[{"@type":"Article","author":{"@id":"x"}}]]]}}</script>"#).authors,
            Vec::<String>::new()
        );
    }

    #[test]
    fn dates_in_page_forms() {
        assert_eq!(parse_date("2024-03-15").as_deref(), Some("2024-03-15"));
        assert_eq!(
            parse_date("2024/03/15 10:00").as_deref(),
            Some("2024-03-15")
        );
        assert_eq!(
            parse_date("Fri, 15 Mar 2024 10:00:00 GMT").as_deref(),
            Some("2024-03-15")
        );
        assert_eq!(parse_date("15 March 2024").as_deref(), Some("2024-03-15"));
        assert_eq!(parse_date("2024-03-15garbage"), None);
        assert_eq!(parse_date("yesterday"), None);
        assert_eq!(parse_date("0001-01-01"), None);
    }

    proptest! {
        #[test]
        fn never_panics_on_arbitrary_json_ld(body in "[\\[\\]{}\":,@a-zA-Z0-9 \\n\\\\-]{0,300}") {
            let html = format!("<script type=\"application/ld+json\">{body}</script><time datetime=\"{body}\">");
            let m = from_html(&html);
            prop_assert!(m.authors.len() <= MAX_AUTHORS);
        }

        #[test]
        fn never_panics_on_arbitrary_values(name in any::<String>(), date in any::<String>(), t in any::<String>()) {
            let v = serde_json::json!({"@type": t, "datePublished": date, "author": [{"name": name}, name], "publisher": {"name": name}});
            let html = format!("<script type=\"application/ld+json\">{v}</script><meta property=\"og:type\" content=\"{t}\">");
            let m = from_html(&html);
            for a in &m.authors {
                prop_assert!(!a.chars().any(|c| c.is_control() || is_invisible(c)));
                prop_assert!(a.chars().count() <= MAX_NAME_CHARS);
            }
            if let Some(d) = &m.published {
                prop_assert!(d.len() == 10);
            }
        }
    }
}
