//! Sentence splitting for extractive quoting: every sentence returned is a
//! verbatim substring of the input.

/// Splits text into sentences. Boundaries: `.`, `!` or `?` followed by
/// whitespace and an uppercase letter, digit or quote; and line breaks.
/// Each returned slice is trimmed and borrowed from `text`.
pub fn split(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for line in text.lines() {
        let bytes: Vec<(usize, char)> = line.char_indices().collect();
        let mut start = 0;
        for (i, &(pos, c)) in bytes.iter().enumerate() {
            // Chinese and Japanese full stops end a sentence without a space.
            if matches!(c, '。' | '！' | '？') {
                push(&mut out, &line[start..pos + c.len_utf8()]);
                start = pos + c.len_utf8();
                continue;
            }
            if !matches!(c, '.' | '!' | '?') {
                continue;
            }
            let next = bytes.get(i + 1).map(|x| x.1);
            let after = bytes.get(i + 2).map(|x| x.1);
            let boundary = matches!(next, Some(n) if n.is_whitespace())
                && matches!(after, Some(a) if a.is_uppercase() || a.is_ascii_digit() || a == '"' || a == '\u{201C}' || a == '(');
            if boundary && !is_abbreviation(&line[start..pos]) {
                push(&mut out, &line[start..pos + c.len_utf8()]);
                start = pos + c.len_utf8();
            }
        }
        push(&mut out, &line[start..]);
    }
    out
}

fn push<'a>(out: &mut Vec<&'a str>, s: &'a str) {
    let s = s.trim();
    if !s.is_empty() {
        out.push(s);
    }
}

/// Whether the word before a full stop is an abbreviation (a title, a
/// legal suffix, a month) rather than a sentence end.
pub fn is_abbreviation(before: &str) -> bool {
    let word = before
        .rsplit(|c: char| c.is_whitespace())
        .next()
        .unwrap_or("");
    matches!(
        word,
        "Mr" | "Mrs"
            | "Ms"
            | "Dr"
            | "St"
            | "No"
            | "Inc"
            | "Ltd"
            | "Co"
            | "Corp"
            | "vs"
            | "e.g"
            | "i.e"
            | "Jan"
            | "Feb"
            | "Mar"
            | "Apr"
            | "Jun"
            | "Jul"
            | "Aug"
            | "Sep"
            | "Sept"
            | "Oct"
            | "Nov"
            | "Dec"
            | "approx"
            | "Rs"
    ) || (word.len() == 1 && word.chars().all(|c| c.is_ascii_uppercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_sentence_ends_only() {
        let t =
            "Acme raised $3.5 million. Dr. Rao joined Acme Ltd. In 2025 it grew!\nNew line here";
        assert_eq!(
            split(t),
            vec![
                "Acme raised $3.5 million.",
                "Dr. Rao joined Acme Ltd. In 2025 it grew!",
                "New line here"
            ]
        );
    }

    #[test]
    fn every_sentence_is_a_substring() {
        let t = "A b. C d? E f! \"G\" h.  I j";
        for s in split(t) {
            assert!(t.contains(s));
        }
    }
}
