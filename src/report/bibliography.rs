//! A run's cited sources as a bibliography other tools read: CSL-JSON
//! (Zotero, Pandoc's citeproc), BibTeX (biblatex `@online` entries, for
//! LaTeX and Pandoc) and RIS (reference managers). Each source is one
//! entry, keyed `dra<n>` after its `[n]` in report.md, with its title,
//! authors, publisher (or domain), publication date, URL and the date it
//! was read. Titles and names are page text: each format's special
//! characters are escaped, never passed through.

use serde_json::{Value, json};

use super::compose::SourceEntry;
use crate::document::SourceType;

/// The bibliography formats `dra export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BibFormat {
    /// CSL-JSON: an array of items (Zotero, Pandoc's citeproc).
    CslJson,
    /// BibTeX, as biblatex `@online` entries.
    Bibtex,
    /// RIS, one `TY  - ELEC` record per source.
    Ris,
}

/// The citation key of source `[n]`.
fn key(s: &SourceEntry) -> String {
    format!("dra{}", s.index)
}

/// `YYYY-MM-DD`, `YYYY-MM` or `YYYY` as numbers.
fn date_parts(date: &str) -> Option<Vec<u32>> {
    let parts: Vec<u32> = date
        .get(..10.min(date.len()))?
        .split('-')
        .map_while(|p| p.parse().ok())
        .collect();
    (!parts.is_empty() && parts[0] > 999).then_some(parts)
}

/// The sources as `format`.
pub fn render(sources: &[SourceEntry], format: BibFormat) -> String {
    match format {
        BibFormat::CslJson => csl_json(sources),
        BibFormat::Bibtex => sources.iter().map(bibtex).collect::<Vec<_>>().join("\n"),
        BibFormat::Ris => sources.iter().map(ris).collect(),
    }
}

fn csl_type(t: SourceType) -> &'static str {
    match t {
        SourceType::News => "article-newspaper",
        SourceType::Blog | SourceType::Forum => "post-weblog",
        _ => "webpage",
    }
}

/// Who published a source: the name the page gives, else its domain.
fn publisher(s: &SourceEntry) -> &str {
    s.publisher
        .as_deref()
        .filter(|p| !p.trim().is_empty())
        .unwrap_or(&s.domain)
}

fn csl_json(sources: &[SourceEntry]) -> String {
    let items: Vec<Value> = sources
        .iter()
        .map(|s| {
            let mut item = json!({
                "id": key(s),
                "type": csl_type(s.source_type),
                "title": s.title,
                "URL": s.url,
            });
            let publisher = publisher(s);
            if !publisher.is_empty() {
                item["container-title"] = publisher.into();
            }
            if !s.authors.is_empty() {
                // Names as written: splitting "Petra Novak" into family and
                // given names would guess wrong for half the world.
                item["author"] = s.authors.iter().map(|a| json!({ "literal": a })).collect();
            }
            if let Some(p) = s.published.as_deref().and_then(date_parts) {
                item["issued"] = json!({ "date-parts": [p] });
            }
            if let Some(p) = date_parts(&s.retrieved) {
                item["accessed"] = json!({ "date-parts": [p] });
            }
            item
        })
        .collect();
    serde_json::to_string_pretty(&items).unwrap_or_else(|_| "[]".into()) + "\n"
}

/// Text for a braced BibTeX field: LaTeX's special characters escaped, so
/// a title cannot close its field, open a command or unbalance braces.
fn tex(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in crate::document::single_line(text).chars() {
        match c {
            '\\' => out.push_str("\\textbackslash{}"),
            '{' | '}' | '#' | '$' | '%' | '&' | '_' => {
                out.push('\\');
                out.push(c);
            }
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            '@' => out.push_str("{@}"),
            c => out.push(c),
        }
    }
    out
}

/// A URL for a braced field, read verbatim by biblatex: the characters that
/// would end or unbalance the field percent-encoded.
fn tex_url(url: &str) -> String {
    crate::document::single_line(url)
        .replace('%', "%25")
        .replace('{', "%7B")
        .replace('}', "%7D")
        .replace('\\', "%5C")
        .replace(' ', "%20")
}

fn bibtex(s: &SourceEntry) -> String {
    let mut fields: Vec<(&str, String)> = vec![("title", tex(&s.title))];
    if !s.authors.is_empty() {
        // Each name braced whole: "and" inside a name is no separator.
        let names: Vec<String> = s
            .authors
            .iter()
            .map(|a| format!("{{{}}}", tex(a)))
            .collect();
        fields.push(("author", names.join(" and ")));
    }
    let publisher = publisher(s);
    if !publisher.is_empty() {
        fields.push(("organization", tex(publisher)));
    }
    if let Some(date) = s.published.as_deref().filter(|d| date_parts(d).is_some()) {
        fields.push(("date", tex(date.get(..10).unwrap_or(date))));
    }
    fields.push(("url", tex_url(&s.url)));
    if date_parts(&s.retrieved).is_some() {
        fields.push(("urldate", tex(&s.retrieved)));
    }
    let body: Vec<String> = fields
        .iter()
        .map(|(k, v)| format!("  {k} = {{{v}}}"))
        .collect();
    format!("@online{{{},\n{}\n}}\n", key(s), body.join(",\n"))
}

/// One RIS line: a tag and a value on one line.
fn ris_line(tag: &str, value: &str) -> String {
    format!("{tag}  - {}\n", crate::document::single_line(value).trim())
}

fn ris(s: &SourceEntry) -> String {
    let mut out = ris_line("TY", "ELEC");
    out.push_str(&ris_line("ID", &key(s)));
    out.push_str(&ris_line("TI", &s.title));
    for a in &s.authors {
        out.push_str(&ris_line("AU", a));
    }
    let publisher = publisher(s);
    if !publisher.is_empty() {
        out.push_str(&ris_line("PB", publisher));
    }
    if let Some(p) = s.published.as_deref().and_then(date_parts) {
        out.push_str(&ris_line("PY", &p[0].to_string()));
        let slashed: Vec<String> = p.iter().map(|n| format!("{n:02}")).collect();
        out.push_str(&ris_line("DA", &slashed.join("/")));
    }
    out.push_str(&ris_line("UR", &s.url));
    if date_parts(&s.retrieved).is_some() {
        out.push_str(&ris_line("Y2", &s.retrieved.replace('-', "/")));
    }
    out.push_str("ER  - \n\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hostile() -> SourceEntry {
        SourceEntry {
            index: 3,
            url: "https://news.example/a b?q={x}%20\\".into(),
            title: "Fees up 50% & more}\n@online{evil, title={x}} \\input{/etc/passwd} ~^_#$"
                .into(),
            domain: "news.example".into(),
            source_type: SourceType::News,
            published: Some("2025-05-21".into()),
            updated: None,
            retrieved: "2026-12-08".into(),
            authors: vec!["Petra Novak".into(), "Smith and Sons}".into()],
            publisher: Some("Ledger\nTY  - JOUR".into()),
        }
    }

    #[test]
    fn csl_json_carries_every_field_as_data() {
        let out = render(&[hostile()], BibFormat::CslJson);
        let v: Value = serde_json::from_str(&out).unwrap();
        let item = &v[0];
        assert_eq!(item["id"], "dra3");
        assert_eq!(item["type"], "article-newspaper");
        assert_eq!(item["URL"], "https://news.example/a b?q={x}%20\\");
        assert_eq!(item["author"][1]["literal"], "Smith and Sons}");
        assert_eq!(item["issued"]["date-parts"], json!([[2025, 5, 21]]));
        assert_eq!(item["accessed"]["date-parts"], json!([[2026, 12, 8]]));
    }

    #[test]
    fn bibtex_fields_cannot_be_closed_or_run_commands() {
        let out = render(&[hostile()], BibFormat::Bibtex);
        assert!(out.starts_with("@online{dra3,\n"), "{out}");
        // One entry: the title's "@online{" and braces are escaped text.
        assert_eq!(out.matches("@online{").count(), 1, "{out}");
        assert!(out.contains("{@}online\\{evil"), "{out}");
        assert!(
            out.contains("\\textbackslash{}input\\{/etc/passwd\\}"),
            "{out}"
        );
        assert!(out.contains("50\\% \\& more\\}"), "{out}");
        assert!(
            out.contains("author = {{Petra Novak} and {Smith and Sons\\}}}"),
            "{out}"
        );
        assert!(
            out.contains("url = {https://news.example/a%20b?q=%7Bx%7D%2520%5C}"),
            "{out}"
        );
        assert!(out.contains("urldate = {2026-12-08}"), "{out}");
        // Braces balance in every field line.
        for line in out.lines().filter(|l| l.starts_with("  ")) {
            let unescaped = line.replace("\\{", "").replace("\\}", "");
            let open = unescaped.matches('{').count();
            assert_eq!(open, unescaped.matches('}').count(), "{line}");
        }
    }

    #[test]
    fn ris_values_stay_on_their_line() {
        let out = render(&[hostile()], BibFormat::Ris);
        let tags: Vec<&str> = out.lines().filter_map(|l| l.get(..2)).collect();
        assert_eq!(
            tags,
            [
                "TY", "ID", "TI", "AU", "AU", "PB", "PY", "DA", "UR", "Y2", "ER"
            ],
            "{out}"
        );
        assert!(out.contains("DA  - 2025/05/21\n"), "{out}");
        assert!(!out.contains("\nTY  - JOUR"), "{out}");
    }
}
