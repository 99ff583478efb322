//! Sentence splitting for extractive quoting: every unit returned is a
//! verbatim substring of the input. A sentence that introduces a block
//! ("... use the following pragma:", "... as follows") carries the lines of
//! the block after it, so a value in a code block, list or table is quoted
//! with the sentence that says what it is; a table row (cells separated by
//! [`CELL_SEPARATOR`]) is one unit and knows its table's header row.

use super::structure::CELL_SEPARATOR;

/// The most lines and characters of a block a sentence carries.
const MAX_BLOCK_LINES: usize = 8;
const MAX_BLOCK_CHARS: usize = 1000;

/// One quotable unit of text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unit<'a> {
    /// The unit, verbatim (trimmed): a sentence, a sentence and the block
    /// it introduces (with its line breaks), or a table row.
    pub text: &'a str,
    /// The sentence alone (the introducing sentence of a carried block).
    pub head: &'a str,
    /// For a table row, the first row of its table (its header).
    pub header: Option<&'a str>,
}

impl Unit<'_> {
    /// Whether the unit carries a block after its sentence.
    pub fn carries_block(&self) -> bool {
        self.text.len() > self.head.len()
    }

    /// Whether the unit is a row of a table.
    pub fn is_row(&self) -> bool {
        self.header.is_some()
    }
}

/// Splits text into sentences. Boundaries: `.`, `!` or `?` followed by
/// whitespace and an uppercase letter, digit or quote; and line breaks,
/// except the ones inside a block a sentence introduces (see [`units`]).
/// Each returned slice is trimmed and borrowed from `text`.
pub fn split(text: &str) -> Vec<&str> {
    units(text).into_iter().map(|u| u.text).collect()
}

/// The quotable units of `text`: sentences, sentences carrying the block
/// they introduce, and table rows with their header row.
pub fn units(text: &str) -> Vec<Unit<'_>> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if is_table_line(&lines, i) {
            let row = line.trim();
            out.push(Unit {
                text: row,
                head: row,
                header: table_header(&lines, i),
            });
            i += 1;
            continue;
        }
        let mut sentences = Vec::new();
        split_line(line, &mut sentences);
        let Some(last) = sentences.pop() else {
            i += 1;
            continue;
        };
        let block = block_after(&lines, i).filter(|_| introduces(last));
        // A terse introducer ("Advantages include:") leans on the sentence
        // before it on its line: the two carry the block together.
        let lead = match block {
            Some(_) if last.split_whitespace().count() <= TERSE_WORDS => sentences.pop(),
            _ => None,
        };
        out.extend(sentences.into_iter().map(plain));
        match block {
            Some(end) => {
                let from = offset(text, lead.unwrap_or(last));
                let head_end = offset(text, last) + last.len();
                let to = offset(text, lines[end]) + lines[end].trim_end().len();
                out.push(Unit {
                    text: &text[from..to],
                    head: &text[from..head_end],
                    header: None,
                });
                i = end + 1;
            }
            None => {
                out.push(plain(last));
                i += 1;
            }
        }
    }
    out
}

/// Words an introducer has at most to lean on the sentence before it.
const TERSE_WORDS: usize = 2;

/// Words a section heading has at most.
const HEADING_WORDS: usize = 10;

/// Where each unit of a page sits: the section heading it is under (the
/// heading's whole line), and whether it is part of a heading itself. A
/// heading is a line that is a paragraph of its own, a few words with no
/// sentence's end, numbered ("2.1. Checkpointing"), marked ("## Setup")
/// or in title case ("How WAL Works").
pub struct Sections<'a> {
    pub under: Vec<Option<&'a str>>,
    pub heading: Vec<bool>,
}

/// The sections of `text`, whose units are `units` (see [`Sections`]).
pub fn section_headings<'a>(text: &'a str, units: &[Unit<'a>]) -> Sections<'a> {
    // The heading in force and the one before it: a heading's own units
    // (a numbered heading is two) are under the one before it.
    let (mut current, mut before): (Option<&str>, Option<&str>) = (None, None);
    let mut out = Sections {
        under: Vec::with_capacity(units.len()),
        heading: Vec::with_capacity(units.len()),
    };
    for u in units {
        let line = heading_line(text, u);
        if line.is_some() && line != current {
            (before, current) = (current, line);
        }
        out.under
            .push(if line.is_some() { before } else { current });
        out.heading.push(line.is_some());
    }
    out
}

/// The line a unit is on, when that line is a section heading.
fn heading_line<'a>(text: &'a str, u: &Unit<'a>) -> Option<&'a str> {
    if u.is_row() || u.carries_block() {
        return None;
    }
    let from = offset(text, u.text);
    let start = text[..from].rfind('\n').map_or(0, |i| i + 1);
    let end = text[from..].find('\n').map_or(text.len(), |i| from + i);
    let line = text[start..end].trim();
    let before = text[..start].trim_end_matches([' ', '\t', '\r']);
    let after = text[end..].trim_start_matches([' ', '\t', '\r']);
    let alone = (before.is_empty() || before.ends_with("\n\n") || before.ends_with("\n\r\n"))
        && (after.is_empty() || after.starts_with("\n\n") || after.starts_with("\n\r\n"));
    (alone && is_heading_shaped(line)).then_some(line)
}

/// Whether a line has a section heading's shape (see [`Sections`]).
fn is_heading_shaped(t: &str) -> bool {
    let words: Vec<&str> = t.split_whitespace().collect();
    if !(1..=HEADING_WORDS).contains(&words.len())
        || t.ends_with(['.', '!', '?', ':', ';', ','])
        || !t.chars().any(char::is_alphabetic)
    {
        return false;
    }
    let numbered = words.len() > 1
        && words[0]
            .trim_end_matches('.')
            .split('.')
            .all(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
    let small = |w: &str| {
        matches!(
            w,
            "a" | "an" | "the" | "of" | "and" | "or" | "for" | "in" | "on" | "to" | "with" | "vs"
        )
    };
    let title_case = words.len() > 1
        && words.iter().all(|w| {
            small(w)
                || w.chars()
                    .next()
                    .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
        });
    numbered || t.starts_with('#') || title_case
}

fn plain(s: &str) -> Unit<'_> {
    Unit {
        text: s,
        head: s,
        header: None,
    }
}

/// Byte offset of `part` (a slice of `text`) in `text`.
pub fn offset(text: &str, part: &str) -> usize {
    part.as_ptr() as usize - text.as_ptr() as usize
}

/// Whether a sentence announces what follows it: it ends with a colon, or
/// with "as follows" / "the following".
fn introduces(sentence: &str) -> bool {
    let t = sentence.trim_end();
    if t.contains(CELL_SEPARATOR) || t.ends_with("::") {
        return false;
    }
    let lower = t.trim_end_matches('.').to_lowercase();
    t.ends_with(':') || lower.ends_with("as follows") || lower.ends_with("the following")
}

/// The last line of the block after line `i`: the lines that follow it up
/// to a blank line (after the blank lines that close its own paragraph),
/// at most [`MAX_BLOCK_LINES`] of them and [`MAX_BLOCK_CHARS`] in all.
fn block_after(lines: &[&str], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while lines.get(j).is_some_and(|l| l.trim().is_empty()) {
        j += 1;
    }
    let mut end = None;
    let mut chars = 0;
    for (k, line) in lines.iter().enumerate().skip(j).take(MAX_BLOCK_LINES) {
        if line.trim().is_empty() {
            break;
        }
        chars += line.trim().chars().count();
        if chars > MAX_BLOCK_CHARS {
            break;
        }
        end = Some(k);
    }
    end
}

/// Whether line `i` is a row of a table: it has cells, and so does the
/// line before or after it.
fn is_table_line(lines: &[&str], i: usize) -> bool {
    let row = |k: usize| lines.get(k).is_some_and(|l| l.contains(CELL_SEPARATOR));
    row(i) && ((i > 0 && row(i - 1)) || row(i + 1))
}

/// The first row of the table line `i` belongs to.
fn table_header<'a>(lines: &[&'a str], i: usize) -> Option<&'a str> {
    let mut k = i;
    while k > 0 && is_table_line(lines, k - 1) {
        k -= 1;
    }
    (k < i).then(|| lines[k].trim())
}

/// Splits one line into sentences.
fn split_line<'a>(line: &'a str, out: &mut Vec<&'a str>) {
    let bytes: Vec<(usize, char)> = line.char_indices().collect();
    let mut start = 0;
    for (i, &(pos, c)) in bytes.iter().enumerate() {
        // Chinese and Japanese full stops end a sentence without a space.
        if matches!(c, '。' | '！' | '？') {
            push(out, &line[start..pos + c.len_utf8()]);
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
        let boundary = boundary || lowercase_opening(&line[start..pos], next, after);
        if boundary && !is_abbreviation(&line[start..pos]) {
            push(out, &line[start..pos + c.len_utf8()]);
            start = pos + c.len_utf8();
        }
    }
    push(out, &line[start..]);
}

/// Abbreviations written in lower case that a sentence can go on after
/// ("approx. five", "incl. tax").
const LOWER_ABBREVIATIONS: &[&str] = &[
    "approx", "incl", "excl", "resp", "cont", "dept", "govt", "misc", "vols", "nos", "figs",
    "eqns", "refs", "ibid",
];

/// Whether a full stop ends a sentence although the next one opens in
/// lower case, as one naming a lowercase identifier does ("... is needed.
/// jsonb also supports indexing"): the stop follows a whole sentence (four
/// words or more) ending in a plain word of four letters or more, not an
/// abbreviation ("approx. five", "e.g. this").
fn lowercase_opening(before: &str, next: Option<char>, after: Option<char>) -> bool {
    if !(next.is_some_and(char::is_whitespace) && after.is_some_and(|a| a.is_ascii_lowercase())) {
        return false;
    }
    let word = before.rsplit(char::is_whitespace).next().unwrap_or("");
    word.len() >= 4
        && word.chars().all(|c| c.is_ascii_lowercase())
        && !LOWER_ABBREVIATIONS.contains(&word)
        && before.split_whitespace().count() >= 4
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
    fn a_sentence_knows_the_section_heading_it_sits_under() {
        let text = "Quokka Manual\n\n1. Overview\n\nQuokka stores rows in pages.\n\n\
                    2.1. How Paging Works\n\nA page holds rows. It is written whole.\n\
                    Short list item\n\nHow Pages Are Freed\n\nFree pages go to a list.\n\n\
                    A plain sentence without a stop\n\nIt is not a heading.";
        let units = units(text);
        let s = section_headings(text, &units);
        let at = |t: &str| units.iter().position(|u| u.text == t).unwrap();
        let under = |t: &str| s.under[at(t)];
        assert_eq!(under("Quokka stores rows in pages."), Some("1. Overview"));
        assert_eq!(under("It is written whole."), Some("2.1. How Paging Works"));
        // A line inside a paragraph is no heading.
        assert_eq!(
            under("Free pages go to a list."),
            Some("How Pages Are Freed")
        );
        assert_eq!(under("It is not a heading."), Some("How Pages Are Freed"));
        // A numbered heading is split in two units; both are the heading.
        assert!(s.heading[at("2.1.")] && s.heading[at("How Paging Works")]);
        assert_eq!(under("How Paging Works"), Some("1. Overview"));
        assert!(!s.heading[at("It is written whole.")]);
        assert!(!s.heading[at("Short list item")]);
        assert!(!s.heading[at("A plain sentence without a stop")]);
    }

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
    fn a_sentence_may_open_with_a_lowercase_identifier() {
        let t = "No reparsing of the value is needed. quokkab also supports indexing. It costs approx. five bytes, e.g. this one.";
        assert_eq!(
            split(t),
            vec![
                "No reparsing of the value is needed.",
                "quokkab also supports indexing.",
                "It costs approx. five bytes, e.g. this one."
            ]
        );
    }

    #[test]
    fn a_sentence_carries_the_block_it_introduces() {
        let t = "To turn tides on, run the following command:\n\ntidectl --on\n\nIt prints ok. Then wait.";
        let u = units(t);
        assert_eq!(
            u[0].text,
            "To turn tides on, run the following command:\n\ntidectl --on"
        );
        assert_eq!(u[0].head, "To turn tides on, run the following command:");
        assert!(u[0].carries_block());
        assert_eq!(split(t)[1..], ["It prints ok.", "Then wait."]);
        // A colon in the middle of a line introduces nothing.
        assert_eq!(split("Note: this. Next line")[0], "Note: this.");
        // Of a long block, the first lines are carried and the rest stay lines.
        let long = format!("Values:\n{}", "a very long line of words\n".repeat(30));
        let parts = split(&long);
        assert_eq!(parts[0].lines().count(), 1 + MAX_BLOCK_LINES);
        assert_eq!(parts.len(), 1 + 30 - MAX_BLOCK_LINES);
        // A terse introducer leans on the sentence before it on its line.
        let t = "Tides are optional. There are pros and cons to tides. Advantages include:\n\nTides are fast.\nTides are cheap.\n\nEnd here.";
        let u = units(t);
        assert_eq!(u[0].text, "Tides are optional.");
        assert_eq!(
            u[1].head,
            "There are pros and cons to tides. Advantages include:"
        );
        assert!(u[1].text.ends_with("Tides are cheap."));
    }

    #[test]
    fn table_rows_know_their_header() {
        let t = "Intro text here.\n\nCode | Meaning\n%q | week of year\n%z | zone\n\nAfter | one";
        let u = units(t);
        let rows: Vec<_> = u.iter().filter(|u| u.is_row()).collect();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].text, "%q | week of year");
        assert_eq!(rows[0].header, Some("Code | Meaning"));
        assert_eq!(rows[1].header, Some("Code | Meaning"));
        // A lone line with a bar (a title bar) is no table.
        assert!(u.iter().any(|u| u.text == "After | one" && !u.is_row()));
    }

    #[test]
    fn every_sentence_is_a_substring() {
        let t = "A b. C d? E f! \"G\" h.  I j:\n\n  x = 1\ny | z\nw | v";
        for s in split(t) {
            assert!(t.contains(s));
        }
    }
}
