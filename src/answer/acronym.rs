//! Abbreviations a text defines ("write-ahead log (WAL)", "TOAST (The
//! Oversized-Attribute Storage Technique)"), found by the algorithm of
//! Schwartz and Hearst (2003): the letters of the short form, read from the
//! end, are found in order in the words before it, the first one at the
//! start of a word. A sentence that says "WAL" then speaks of the
//! write-ahead log, and one that spells the long form speaks of "WAL".

use std::collections::BTreeMap;

/// The shortest and longest short form, in characters.
const SHORT_LEN: std::ops::RangeInclusive<usize> = 2..=10;

/// The abbreviations `text` defines: short form → long form, the first
/// definition of each short form winning.
pub fn definitions(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut rest = text;
    let mut before_start = 0usize;
    let mut offset = 0usize;
    while let Some(open) = rest.find('(') {
        let Some(close) = rest[open..].find(')').map(|c| open + c) else {
            break;
        };
        let abs_open = offset + open;
        let inside = &rest[open + 1..close];
        // What stands before the parenthesis, back to the last clause break.
        let before = &text[before_start.max(clause_start(text, abs_open))..abs_open];
        if let Some((short, long)) = pair(before, inside) {
            out.entry(short).or_insert(long);
        }
        before_start = offset + close + 1;
        offset += close + 1;
        rest = &text[offset..];
    }
    out
}

/// The abbreviations of a set of texts, and what a sentence says once
/// they are read: its words plus the long form of each short form it uses
/// and the short form of each long form it spells.
#[derive(Debug, Default, Clone)]
pub struct Abbreviations {
    pairs: BTreeMap<String, String>,
}

impl Abbreviations {
    /// The abbreviations all of `texts` define, the first definition of a
    /// short form winning.
    pub fn of<'a>(texts: impl IntoIterator<Item = &'a str>) -> Self {
        let mut pairs = BTreeMap::new();
        for t in texts {
            for (short, long) in definitions(t) {
                pairs.entry(short).or_insert(long);
            }
        }
        Abbreviations { pairs }
    }

    /// `sentence` with the other form of every abbreviation it uses
    /// appended (the short form is matched as a whole word, the long form
    /// case-insensitively); the sentence itself when it uses none.
    pub fn expand<'s>(&self, sentence: &'s str) -> std::borrow::Cow<'s, str> {
        if self.pairs.is_empty() {
            return sentence.into();
        }
        let lower = sentence.to_lowercase();
        let mut extra = String::new();
        for (short, long) in &self.pairs {
            if has_whole_word(sentence, short) {
                extra.push(' ');
                extra.push_str(long);
            } else if lower.contains(&long.to_lowercase()) {
                extra.push(' ');
                extra.push_str(short);
            }
        }
        if extra.is_empty() {
            sentence.into()
        } else {
            format!("{sentence} ({})", extra.trim_start()).into()
        }
    }
}

fn has_whole_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// Where the clause holding byte `at` starts: after the last sentence end
/// or line break before it.
fn clause_start(text: &str, at: usize) -> usize {
    text[..at]
        .rfind(['.', '!', '?', ';', ':', '\n'])
        .map_or(0, |i| i + 1)
}

/// The (short, long) pair a parenthesis defines: "long form (SHORT)",
/// "long form (hereafter "SHORT")" or "SHORT (long form)".
fn pair(before: &str, inside: &str) -> Option<(String, String)> {
    let inside_words: Vec<&str> = inside.split_whitespace().collect();
    // "long form (SHORT)" or a parenthesis ending in a quoted SHORT.
    let short = match inside_words.as_slice() {
        [one] => Some(trim_token(one)),
        [.., last] if inside.contains('"') || inside.contains('\u{201c}') => Some(trim_token(last)),
        _ => None,
    };
    if let Some(short) = short.filter(|s| is_short_form(s))
        && let Some(long) = long_form(short, before)
    {
        return Some((short.to_string(), long));
    }
    // "SHORT (long form)".
    let short = trim_token(before.split_whitespace().last()?);
    if is_short_form(short) && inside_words.len() >= 2 {
        let long = long_form(short, inside)?;
        // The whole parenthesis must be the long form, not a remark.
        if long.split_whitespace().count() == inside_words.len() {
            return Some((short.to_string(), long));
        }
    }
    None
}

fn trim_token(t: &str) -> &str {
    t.trim_matches(|c: char| !c.is_alphanumeric())
}

/// A short form: 2 to 10 letters or digits, starting with a letter, with
/// more capitals than not ("WAL", "MVCC", "FTS4"; not "a", "see", "2010").
fn is_short_form(s: &str) -> bool {
    let n = s.chars().count();
    let upper = s.chars().filter(|c| c.is_uppercase()).count();
    SHORT_LEN.contains(&n)
        && s.chars().next().is_some_and(char::is_alphabetic)
        && s.chars().all(|c| c.is_alphanumeric() || c == '-')
        && upper * 2 > n
}

/// The long form of `short` at the end of `candidate`: the words from the
/// one where its first letter starts to the one holding its last letter,
/// at most min(|short| + 5, 2 × |short|) words, quotes trimmed. `None`
/// when its letters are not all found in order.
fn long_form(short: &str, candidate: &str) -> Option<String> {
    let letters: Vec<char> = short
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    let long: Vec<char> = candidate.chars().collect();
    let lower: Vec<char> = long
        .iter()
        .map(|c| c.to_lowercase().next().unwrap_or(*c))
        .collect();
    let mut l = long.len();
    let mut end = None;
    for (si, &c) in letters.iter().enumerate().rev() {
        loop {
            if l == 0 {
                return None;
            }
            l -= 1;
            let word_start = l == 0 || !long[l - 1].is_alphanumeric();
            if lower[l] == c && (si != 0 || word_start) {
                break;
            }
        }
        end.get_or_insert(l);
    }
    let end = end?;
    let end = (end..long.len())
        .find(|&i| long[i].is_whitespace())
        .unwrap_or(long.len());
    let text: String = long[l..end].iter().collect();
    let text = text
        .trim_matches(|c: char| !c.is_alphanumeric())
        .replace(['"', '\u{201c}', '\u{201d}'], "");
    let n_words = text.split_whitespace().count();
    let max_words = (letters.len() + 5).min(letters.len() * 2);
    let is_itself = text.eq_ignore_ascii_case(short);
    (n_words >= 1 && n_words <= max_words && !is_itself && text.chars().count() > short.len())
        .then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defs(text: &str) -> Vec<(String, String)> {
        definitions(text).into_iter().collect()
    }

    #[test]
    fn finds_long_forms_before_and_inside_the_parenthesis() {
        assert_eq!(
            defs("PostgreSQL uses Multiversion Concurrency Control (MVCC) for this."),
            [("MVCC".into(), "Multiversion Concurrency Control".into())]
        );
        assert_eq!(
            defs(
                "This section is an overview of TOAST (The Oversized-Attribute Storage Technique)."
            ),
            [(
                "TOAST".into(),
                "The Oversized-Attribute Storage Technique".into()
            )]
        );
        assert_eq!(
            defs(
                "Beginning with version 3.7.0 (2010-07-21), a new \"Write-Ahead Log\" option (hereafter referred to as \"WAL\") is available."
            ),
            [("WAL".into(), "Write-Ahead Log".into())]
        );
        assert_eq!(
            defs("the write-ahead log (WAL) keeps changes"),
            [("WAL".into(), "write-ahead log".into())]
        );
    }

    #[test]
    fn a_sentence_using_one_form_speaks_of_the_other() {
        let a = Abbreviations::of(["a new \"Write-Ahead Log\" option (hereafter \"WAL\")"]);
        assert_eq!(
            a.expand("Changes are appended to the WAL file."),
            "Changes are appended to the WAL file. (Write-Ahead Log)"
        );
        assert_eq!(
            a.expand("The write-ahead log grows."),
            "The write-ahead log grows. (WAL)"
        );
        assert_eq!(
            a.expand("WALRUS and SWAL are words."),
            "WALRUS and SWAL are words."
        );
    }

    #[test]
    fn remarks_dates_and_unmatched_letters_define_nothing() {
        assert!(defs("Released in May (2010) with fixes (see below).").is_empty());
        assert!(defs("The server (PG) restarted.").is_empty());
        assert!(defs("It costs less (US$5) than the JSON parser (fast).").is_empty());
        assert!(defs("the first release (v2)").is_empty());
    }
}
