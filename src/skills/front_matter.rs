//! The front matter of a `SKILL.md`: a `---` fenced block of YAML-style
//! `key: value` lines, then the Markdown body. Only the shapes skill files
//! use are understood (no YAML crate): plain, single- and double-quoted
//! scalars, `|` and `>` block scalars, and indented continuation lines of a
//! plain value. Unknown keys are kept; anything else is an error that says
//! which line, never a panic.

use std::collections::BTreeMap;

/// A parsed `SKILL.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// Every key of the front matter, with its value (unquoted, folded).
    pub keys: BTreeMap<String, String>,
    /// The Markdown after the closing fence.
    pub body: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrontMatterError {
    #[error("no front matter: the file must open with a `---` line")]
    Missing,
    #[error("the front matter opened with `---` is never closed by another `---` line")]
    Unclosed,
    #[error("front matter line {line}: expected `key: value`, got {text:?}")]
    BadLine { line: usize, text: String },
    #[error("front matter line {line}: the quoted value of `{key}` is never closed")]
    UnclosedQuote { line: usize, key: String },
    #[error("front matter line {line}: `{key}` appears twice")]
    DuplicateKey { line: usize, key: String },
}

/// Splits and parses a `SKILL.md`. A byte-order mark and CRLF line ends are
/// tolerated.
pub fn parse(text: &str) -> Result<Parsed, FrontMatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    if first.trim_end() != "---" {
        return Err(FrontMatterError::Missing);
    }
    let mut front: Vec<&str> = Vec::new();
    let mut offset = first.len();
    let mut closed = false;
    for line in lines.by_ref() {
        offset += line.len();
        let bare = line.trim_end();
        if bare == "---" || bare == "..." {
            closed = true;
            break;
        }
        front.push(line.trim_end_matches(['\n', '\r']));
    }
    if !closed {
        return Err(FrontMatterError::Unclosed);
    }
    let keys = parse_keys(&front)?;
    let body = text.get(offset..).unwrap_or("").trim().to_string();
    Ok(Parsed { keys, body })
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

fn is_key(k: &str) -> bool {
    !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn parse_keys(front: &[&str]) -> Result<BTreeMap<String, String>, FrontMatterError> {
    let mut keys = BTreeMap::new();
    let mut i = 0;
    while i < front.len() {
        let line = front[i];
        let n = i + 1;
        i += 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if indent(line) > 0 {
            // An indented line outside a value: part of a nested map or list
            // of a key dra does not read (`metadata:`), skipped.
            continue;
        }
        let Some((key, rest)) = trimmed.split_once(':') else {
            return Err(FrontMatterError::BadLine {
                line: n,
                text: trimmed.chars().take(80).collect(),
            });
        };
        let key = key.trim();
        if !is_key(key) {
            return Err(FrontMatterError::BadLine {
                line: n,
                text: trimmed.chars().take(80).collect(),
            });
        }
        let rest = rest.trim();
        // The lines indented under this key (continuations, block scalars,
        // nested maps).
        let start = i;
        while i < front.len() && (front[i].trim().is_empty() || indent(front[i]) > 0) {
            i += 1;
        }
        let under = &front[start..i];
        let value = match rest.chars().next() {
            Some('|') | Some('>') if rest.len() <= 3 => block_scalar(rest.starts_with('|'), under),
            Some(q @ ('"' | '\'')) => {
                quoted(q, rest, under).ok_or(FrontMatterError::UnclosedQuote {
                    line: n,
                    key: key.to_string(),
                })?
            }
            _ => plain(rest, under),
        };
        if keys.insert(key.to_string(), value).is_some() {
            return Err(FrontMatterError::DuplicateKey {
                line: n,
                key: key.to_string(),
            });
        }
    }
    Ok(keys)
}

/// A `|` (keep line breaks) or `>` (fold them into spaces) block.
fn block_scalar(literal: bool, under: &[&str]) -> String {
    let lines: Vec<&str> = under.iter().map(|l| l.trim()).collect();
    let joined = if literal {
        lines.join("\n")
    } else {
        lines
            .split(|l| l.is_empty())
            .map(|para| para.join(" "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    joined.trim().to_string()
}

/// A plain value, possibly continued on indented lines (folded). A value
/// with nested lines only (`metadata:` then a map) becomes empty.
fn plain(rest: &str, under: &[&str]) -> String {
    let rest = strip_comment(rest);
    if rest.is_empty() {
        return String::new();
    }
    let mut parts = vec![rest.to_string()];
    parts.extend(
        under
            .iter()
            .map(|l| strip_comment(l.trim()))
            .filter(|l| !l.is_empty())
            .map(String::from),
    );
    parts.join(" ")
}

/// ` # comment` at the end of a plain value.
fn strip_comment(v: &str) -> &str {
    match v.find(" #") {
        Some(i) => v[..i].trim_end(),
        None => v,
    }
}

/// A single- or double-quoted value, possibly spanning indented lines.
fn quoted(q: char, rest: &str, under: &[&str]) -> Option<String> {
    let mut text = rest[1..].to_string();
    for l in under {
        text.push(' ');
        text.push_str(l.trim());
    }
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c == q && q == '\'' && chars.peek() == Some(&'\'') => {
                chars.next();
                out.push('\'');
            }
            c if c == q => return Some(out.trim().to_string()),
            '\\' if q == '"' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => return None,
            },
            c => out.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(text: &str) -> BTreeMap<String, String> {
        parse(text).unwrap().keys
    }

    #[test]
    fn reads_plain_quoted_and_block_values() {
        let p = parse(
            "---\nname: due-diligence\ndescription: Check a company\n  before you sign. # why\nlicense: \"MIT \\\"x\\\"\"\nnote: 'it''s'\nlong: >\n  one\n  two\n\n  three\nlit: |\n  a\n  b\nmetadata:\n  author: me\n  tags: [a, b]\n---\n\n# Body\n\nDo this.\n",
        )
        .unwrap();
        assert_eq!(p.keys["name"], "due-diligence");
        assert_eq!(p.keys["description"], "Check a company before you sign.");
        assert_eq!(p.keys["license"], "MIT \"x\"");
        assert_eq!(p.keys["note"], "it's");
        assert_eq!(p.keys["long"], "one two\nthree");
        assert_eq!(p.keys["lit"], "a\nb");
        assert_eq!(p.keys["metadata"], "");
        assert_eq!(p.body, "# Body\n\nDo this.");
    }

    #[test]
    fn crlf_and_bom_are_tolerated() {
        let k = keys("\u{feff}---\r\nname: x\r\ndescription: y\r\n---\r\nbody\r\n");
        assert_eq!(k["name"], "x");
        assert_eq!(k["description"], "y");
    }

    #[test]
    fn broken_front_matter_is_an_error_naming_the_line() {
        assert_eq!(parse("# Title\n\ntext"), Err(FrontMatterError::Missing));
        assert_eq!(parse(""), Err(FrontMatterError::Missing));
        assert_eq!(
            parse("---\nname: x\n# no end\n"),
            Err(FrontMatterError::Unclosed)
        );
        assert_eq!(
            parse("---\nname: x\njust words\n---\n"),
            Err(FrontMatterError::BadLine {
                line: 2,
                text: "just words".into()
            })
        );
        assert!(matches!(
            parse("---\ndescription: \"open\n---\n"),
            Err(FrontMatterError::UnclosedQuote { line: 1, .. })
        ));
        assert!(matches!(
            parse("---\nname: a\nname: b\n---\n"),
            Err(FrontMatterError::DuplicateKey { line: 2, .. })
        ));
    }

    proptest::proptest! {
        #[test]
        fn never_panics_on_any_text(s in "(---\n)?([a-z:|>'\"# \\\\\n-]|é|\u{feff}){0,300}") {
            let _ = parse(&s);
        }

        #[test]
        fn written_keys_read_back(
            name in "[a-z][a-z0-9-]{0,30}",
            desc in "[A-Za-z0-9 ,.;()'\"-]{0,120}",
            body in "\\PC{0,200}",
        ) {
            // Written the way a user would: double-quoted with escapes.
            let quoted = desc.replace('\\', "\\\\").replace('"', "\\\"");
            let text = format!("---\nname: {name}\ndescription: \"{quoted}\"\n---\n{body}");
            let p = parse(&text).unwrap();
            proptest::prop_assert_eq!(&p.keys["name"], &name);
            proptest::prop_assert_eq!(&p.keys["description"], desc.trim());
            proptest::prop_assert_eq!(p.body, body.trim().to_string());
        }
    }
}
