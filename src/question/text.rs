//! Text helpers for reading a question: a lowercase view that remembers
//! where each of its bytes came from in the original, so a cue found in the
//! lowercase text can cut the original at a character boundary (lowercasing
//! changes lengths: `İ` is two bytes, its lowercase `i̇` three).

/// The lowercase form of a text and, for each of its bytes, the byte offset
/// in the original of the character it came from.
pub(crate) struct Folded<'a> {
    pub original: &'a str,
    pub lower: String,
    origin: Vec<usize>,
}

impl<'a> Folded<'a> {
    pub fn new(original: &'a str) -> Self {
        let mut lower = String::with_capacity(original.len());
        let mut origin = Vec::with_capacity(original.len() + 1);
        for (i, c) in original.char_indices() {
            for l in c.to_lowercase() {
                let before = lower.len();
                lower.push(l);
                origin.extend(std::iter::repeat_n(i, lower.len() - before));
            }
        }
        origin.push(original.len());
        Folded {
            original,
            lower,
            origin,
        }
    }

    /// The offset in the original of the character that lowercase byte
    /// `pos` belongs to (the end of the original for `pos >= lower.len()`).
    pub fn to_original(&self, pos: usize) -> usize {
        self.origin.get(pos).copied().unwrap_or(self.original.len())
    }

    /// The original text from the character at lowercase offset `start`
    /// up to the one at lowercase offset `end`.
    pub fn slice(&self, start: usize, end: usize) -> &'a str {
        let a = self.to_original(start);
        let b = self.to_original(end).max(a);
        self.original.get(a..b).unwrap_or("")
    }

    /// The first occurrence of `needle` (lowercase) at or after `from`.
    pub fn find_from(&self, from: usize, needle: &str) -> Option<usize> {
        self.lower
            .get(from..)
            .and_then(|rest| rest.find(needle))
            .map(|p| p + from)
    }
}

/// Words of a text: runs of letters, digits, `-`, `_` and `'` (and a `.`
/// between digits), without a trailing possessive `'s`. An identifier
/// (`pg_start_backup`, `journal_mode`) and a version (`3.35.0`) are one
/// word: searched whole, they find the page that names them, not every
/// page that says "start", "mode" or "35".
pub(crate) fn words(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let digit_at = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
    let mut parts: Vec<&str> = Vec::new();
    let mut from = 0usize;
    for (i, c) in text.char_indices() {
        let dotted = c == '.' && i > 0 && digit_at(i - 1) && digit_at(i + 1);
        if !(c.is_alphanumeric() || matches!(c, '-' | '_' | '\'' | '’') || dotted) {
            parts.push(&text[from..i]);
            from = i + c.len_utf8();
        }
    }
    parts.push(&text[from..]);
    parts
        .into_iter()
        .map(|w| {
            w.trim_matches(|c| matches!(c, '-' | '_' | '\'' | '’'))
                .trim_end_matches("'s")
                .trim_end_matches("’s")
        })
        .filter(|w| !w.is_empty())
}

/// Whether `word` (any case) appears as a whole word in `text`.
pub(crate) fn has_word(text: &str, word: &str) -> bool {
    let word = word.to_lowercase();
    words(text).any(|w| w.to_lowercase() == word)
}

/// Collapses whitespace and trims the punctuation a clause ends or starts with.
pub(crate) fn tidy(text: &str) -> String {
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    collapsed
        .trim_matches(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':' | '?' | '.' | '!'))
        .to_string()
}

/// Upper-cases the first character.
pub(crate) fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// At most `max` characters, cut at a word boundary when one is near.
pub(crate) fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max).collect();
    match cut.rfind(' ') {
        Some(i) if i > max / 2 => cut[..i].to_string(),
        _ => cut,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_one_word() {
        let w: Vec<&str> = words("Calls pg_start_backup() and _private_ or co-op's").collect();
        assert_eq!(
            w,
            ["Calls", "pg_start_backup", "and", "private", "or", "co-op"]
        );
        let w: Vec<&str> = words("What's new in SQLite 3.35.0? It ends. 2.").collect();
        assert_eq!(
            w,
            ["What", "new", "in", "SQLite", "3.35.0", "It", "ends", "2"]
        );
    }

    #[test]
    fn folded_offsets_survive_length_changes() {
        let f = Folded::new("İSTANBUL: check A");
        let pos = f.lower.find("check ").unwrap_or(0);
        assert_eq!(&f.original[f.to_original(pos)..], "check A");
        assert_eq!(f.slice(pos, f.lower.len()), "check A");
    }

    proptest::proptest! {
        #[test]
        fn every_lowercase_offset_maps_to_a_char_boundary(s in "[İßΣK\u{301}\u{5d0}a-zA-Z ,:?]{0,40}|\\PC{0,60}") {
            let f = Folded::new(&s);
            for pos in 0..=f.lower.len() + 1 {
                proptest::prop_assert!(s.is_char_boundary(f.to_original(pos)));
                let _ = f.slice(pos, f.lower.len());
                let _ = f.slice(f.lower.len(), pos);
            }
        }

        #[test]
        fn tidy_shorten_capitalise_never_panic(s in "\\PC{0,80}", n in 0usize..40) {
            let t = shorten(&capitalise(&tidy(&s)), n);
            proptest::prop_assert!(t.chars().count() <= n);
        }
    }
}
