//! From a report to its cited sentences: which text each `[n]` vouches for.
//! Boilerplate is not a claim: headings, the Sources list, security notes,
//! the footer, labels (`**Pricing**:`, `current:`) and metadata in
//! parentheses after a citation (`(confidence 0.93, as of 2025-01-01)`).

use std::sync::LazyLock;

use regex::Regex;

use crate::report::citations;

/// One cited claim: a sentence, or the part of a sentence before its
/// citation when a sentence cites several sources for several parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CitedClaim {
    /// 1-based line of the report.
    pub line: usize,
    /// The byte range of the whole sentence in the report (what removal cuts).
    pub sentence: (usize, usize),
    /// The claim text, markdown and citations stripped.
    pub text: String,
    /// The source numbers cited for it.
    pub cites: Vec<usize>,
}

static BOILERPLATE_HEADING: LazyLock<Regex> = LazyLock::new(|| {
    crate::re(r"(?im)^#{1,6}\s*(sources|references|bibliography|citations|security notes)\s*$")
});
/// Words that mark a parenthesis as report metadata, not a claim.
static META_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    crate::re(
        r"(?i)^\s*(?:regulator|official|news|press release|review|forum|blog|other)\s*(?:[,;]|$)|\b(?:confidence|as of|retrieved|published|updated|accessed|uncertain|independent sources agree)\b",
    )
});

/// Removes parentheses holding metadata (`(confidence 0.93, as of
/// 2025-01-01)`, `(news)`, `(uncertain: 1 independent source)`), nested
/// parentheses included, with the space before them.
pub fn strip_meta(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('(') {
        let mut depth = 0usize;
        let mut close = None;
        for (i, c) in rest[open..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(open + i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(close) = close else { break };
        if META_WORDS.is_match(&rest[open + 1..close]) {
            out.push_str(rest[..open].trim_end_matches(' '));
        } else {
            out.push_str(&rest[..=close]);
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

static LIST_MARKER: LazyLock<Regex> =
    LazyLock::new(|| crate::re(r"^\s*(?:[-*+>]\s+|\d{1,3}[.)]\s+)+"));
/// `**Pricing**:`, `**Pricing** (earlier):`.
static BOLD_LABEL: LazyLock<Regex> =
    LazyLock::new(|| crate::re(r"^\s*\*\*[^*]{1,80}\*\*(?:\s*\([^()]{1,40}\))?\s*:\s*"));
/// `current:`, `earlier, true at its time:`: a short label of words.
static WORD_LABEL: LazyLock<Regex> =
    LazyLock::new(|| crate::re(r"^\s*[A-Za-z][A-Za-z ,]{0,40}:\s+"));
static LINK: LazyLock<Regex> = LazyLock::new(|| crate::re(r"\[([^\]]*)\]\([^)]*\)"));

/// The part of a report whose sentences are claims: up to the Sources list
/// or the security notes, whichever comes first.
pub fn claims_region(markdown: &str) -> &str {
    match BOILERPLATE_HEADING.find(markdown) {
        Some(m) => &markdown[..m.start()],
        None => markdown,
    }
}

/// The cited claims of a report, in order.
pub fn cited_claims(markdown: &str) -> Vec<CitedClaim> {
    let region = claims_region(markdown);
    let mut out = Vec::new();
    let mut fenced = false;
    let mut offset = 0;
    for (i, raw) in region.split_inclusive('\n').enumerate() {
        let line_start = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced || trimmed.starts_with('#') || trimmed.is_empty() {
            continue;
        }
        let pieces: Vec<(usize, usize)> = if trimmed.starts_with('|') {
            table_cells(line)
        } else {
            sentences(line)
        };
        for (s, e) in pieces {
            for (text, cites) in claims_of(&line[s..e]) {
                out.push(CitedClaim {
                    line: i + 1,
                    sentence: (line_start + s, line_start + e),
                    text,
                    cites,
                });
            }
        }
    }
    out
}

fn table_cells(line: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in line.char_indices() {
        if c == '|' {
            if line[start..i].trim().len() > 1 {
                out.push((start, i));
            }
            start = i + 1;
        }
    }
    if line[start..].trim().len() > 1 {
        out.push((start, line.len()));
    }
    out
}

/// Sentence ranges of one line. A boundary is `.`, `!` or `?` (or a
/// citation closing a sentence) followed by a space and a capital, digit,
/// quote or parenthesis, never inside a quotation.
pub fn sentences(line: &str) -> Vec<(usize, usize)> {
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_quote = false;
    for (k, &(pos, c)) in chars.iter().enumerate() {
        match c {
            '"' => in_quote = !in_quote,
            '\u{201C}' => in_quote = true,
            '\u{201D}' => in_quote = false,
            _ => {}
        }
        if in_quote || !matches!(c, '.' | '!' | '?') {
            continue;
        }
        let next = chars.get(k + 1).map(|x| x.1);
        let after = chars.get(k + 2).map(|x| x.1);
        let boundary = matches!(next, Some(n) if n == ' ' || n == '\t')
            && matches!(after, Some(a) if a.is_uppercase() || a.is_ascii_digit() || matches!(a, '"' | '\u{201C}' | '(' | '*' | '['));
        if boundary && !is_abbreviation(&line[start..pos]) {
            let end = pos + c.len_utf8();
            if !line[start..end].trim().is_empty() {
                out.push((start, end));
            }
            start = end;
        }
    }
    if !line[start..].trim().is_empty() {
        out.push((start, line.len()));
    }
    // Trim the leading space each sentence after the first carries.
    out.into_iter()
        .map(|(s, e)| {
            let lead = line[s..e].len() - line[s..e].trim_start().len();
            (s + lead, e)
        })
        .collect()
}

fn is_abbreviation(before: &str) -> bool {
    let word = before
        .rsplit(|c: char| c.is_whitespace())
        .next()
        .unwrap_or("");
    // The quote splitter's titles and months, plus `U.S`-style dotted
    // initials and any single capital (not only ASCII ones).
    crate::evidence::sentences::is_abbreviation(before)
        || (word.contains('.') && word.split('.').all(|p| p.chars().count() <= 1))
        || (word.chars().count() == 1 && word.chars().all(|c| c.is_uppercase()))
}

/// The claims of one sentence: each group of adjacent citations vouches for
/// the text since the previous group; words after the last group (other than
/// metadata) belong to it (`According to [3], the CEO is ...`).
fn claims_of(sentence: &str) -> Vec<(String, Vec<usize>)> {
    let spans = citations::citation_spans(sentence);
    if spans.is_empty() {
        return Vec::new();
    }
    // Group citations separated only by spaces, commas or semicolons.
    let mut groups: Vec<(usize, usize, Vec<usize>)> = Vec::new();
    for (s, e, nums) in spans {
        let joins = groups.last().is_some_and(|g| {
            sentence[g.1..s]
                .chars()
                .all(|c| matches!(c, ' ' | ',' | ';'))
        });
        match groups.last_mut() {
            Some(g) if joins => {
                g.1 = e;
                g.2.extend(nums);
            }
            _ => groups.push((s, e, nums)),
        }
    }
    let mut out: Vec<(String, Vec<usize>)> = Vec::new();
    let mut prev = 0;
    for (s, e, nums) in &groups {
        let text = &sentence[prev..*s];
        out.push((text.to_string(), nums.clone()));
        prev = *e;
    }
    let tail = strip_meta(&sentence[prev..]);
    let tail = tail.trim_start_matches(|c: char| c.is_whitespace() || c == ',' || c == ';');
    if let Some(last) = out.last_mut()
        && tail
            .split_whitespace()
            .filter(|w| w.chars().any(char::is_alphanumeric))
            .count()
            >= 2
    {
        last.0 = format!("{} {tail}", last.0.trim_end());
    }
    out.into_iter()
        .enumerate()
        .map(|(i, (t, mut n))| {
            n.sort_unstable();
            n.dedup();
            (clean(&t, i == 0), n)
        })
        .collect()
}

/// Strips markdown, labels and metadata from a claim's text.
pub fn clean(text: &str, first: bool) -> String {
    let mut t = text.to_string();
    if first {
        t = LIST_MARKER.replace(&t, "").into_owned();
        t = BOLD_LABEL.replace(&t, "").into_owned();
        if let Some(m) = WORD_LABEL.find(&t)
            && m.as_str().split_whitespace().count() <= 5
        {
            t = t[m.end()..].to_string();
        }
    }
    t = LINK.replace_all(&t, "$1").into_owned();
    t = strip_meta(&t);
    // Emphasis markers go; an underscore inside a word (`time_rules`) is text.
    let chars: Vec<char> = t.chars().collect();
    let inside_word = |i: usize| {
        i > 0
            && chars[i - 1].is_alphanumeric()
            && chars.get(i + 1).is_some_and(|c| c.is_alphanumeric())
    };
    let t: String = chars
        .iter()
        .enumerate()
        .filter(|&(i, c)| !matches!(c, '*' | '`') && (*c != '_' || inside_word(i)))
        .map(|(_, c)| *c)
        .collect();
    t.trim_matches(|c: char| c.is_whitespace() || matches!(c, '-' | ',' | ';' | ':'))
        .to_string()
}

/// Whether a line left after a removal holds nothing but markers, labels
/// and punctuation.
pub fn is_husk(line: &str) -> bool {
    let t = clean(line, true);
    !t.chars().any(char::is_alphanumeric)
        || BOLD_LABEL
            .replace(line.trim_start_matches(['-', '*', ' ']), "")
            .trim()
            .is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(md: &str) -> Vec<(String, Vec<usize>)> {
        cited_claims(md)
            .into_iter()
            .map(|c| (c.text, c.cites))
            .collect()
    }

    #[test]
    fn splits_claims_and_skips_boilerplate() {
        let md = "# PadmaPay: research report\n\n**Question:** Is it good?\n\n## Answer\n\n- **Funding**: \"PadmaPay raised $12 million. Investors joined.\" [3] (confidence 0.93, as of 2025-01-01)\n\nFees are 1.9% [1]. The CEO is Anita Rao [2][4]. According to [5], uptime was 99.9%.\n\n## Sources\n\n[1] A. https://a.example (news; retrieved 2026-01-01)\n";
        assert_eq!(
            texts(md),
            vec![
                (
                    "\"PadmaPay raised $12 million. Investors joined.\"".to_string(),
                    vec![3]
                ),
                ("Fees are 1.9%".to_string(), vec![1]),
                ("The CEO is Anita Rao".to_string(), vec![2, 4]),
                ("According to uptime was 99.9%.".to_string(), vec![5]),
            ]
        );
    }

    #[test]
    fn several_sources_in_one_sentence() {
        let c = texts("Fees are 1.9% [1] while uptime is 99.9% [2].");
        assert_eq!(
            c,
            vec![
                ("Fees are 1.9%".to_string(), vec![1]),
                ("while uptime is 99.9%".to_string(), vec![2])
            ]
        );
    }

    #[test]
    fn labels_and_husks() {
        assert_eq!(
            clean("  - current: \"fees are 2%\"", true),
            "\"fees are 2%\""
        );
        assert!(is_husk("- **Pricing**: "));
        assert!(is_husk("  - current:  (confidence 0.9)"));
        assert!(!is_husk("- Fees are 2%."));
        assert_eq!(
            strip_meta(
                "\"x\" (confidence 0.76, as of 2026-01-01) (uncertain: 1 independent source, confidence below 0.8) and (Kochi)"
            ),
            "\"x\" and (Kochi)"
        );
    }
}
