//! Stub pages: a page of the corpus that shares its title with a fuller
//! page and is far shorter than it, or says it moved or is no longer kept.
//! A stub is not evidence while the full page exists: search leaves it out.

use std::collections::{BTreeSet, HashMap};

/// A page this many times shorter than a same-titled page is a stub.
const SHORTER: usize = 4;

/// How far into a page a notice that it moved is looked for.
const NOTICE_CHARS: usize = 600;

/// Words of a page saying its content lives elsewhere now.
const MOVED: &[&str] = &[
    "has moved",
    "have moved",
    "was moved",
    "has been moved",
    "moved to",
    "no longer maintained",
    "no longer distributed",
    "no longer available",
    "no longer updated",
    "no longer supported",
    "is deprecated",
    "has been replaced by",
    "is obsolete",
];

/// The positions of the stubs among `pages` (title, visible text).
pub fn stubs(pages: &[(String, String)]) -> BTreeSet<usize> {
    let key = |t: &str| {
        t.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let mut longest: HashMap<String, usize> = HashMap::new();
    for (title, text) in pages {
        let k = key(title);
        if !k.is_empty() {
            let n = longest.entry(k).or_default();
            *n = (*n).max(text.chars().count());
        }
    }
    pages
        .iter()
        .enumerate()
        .filter(|(_, (title, text))| {
            let Some(&full) = longest.get(&key(title)) else {
                return false;
            };
            let len = text.chars().count();
            len < full && (len * SHORTER <= full || says_moved(text))
        })
        .map(|(i, _)| i)
        .collect()
}

/// Whether the opening of a page says it moved or is no longer kept.
fn says_moved(text: &str) -> bool {
    let head: String = text
        .chars()
        .take(NOTICE_CHARS)
        .collect::<String>()
        .to_lowercase();
    let head = head.split_whitespace().collect::<Vec<_>>().join(" ");
    MOVED.iter().any(|m| head.contains(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(title: &str, text: &str) -> (String, String) {
        (title.to_string(), text.to_string())
    }

    #[test]
    fn short_or_moved_same_titled_pages_are_stubs() {
        let full = "The tide gauge reads the sea level every minute. ".repeat(20);
        let pages = vec![
            p("Tide Gauges", &full),
            p("Tide  gauges", "See the new chapter."),
            p(
                "Tide Gauges",
                &format!("This page has moved. {}", &full[..full.len() / 2]),
            ),
            p("Other", "Short."),
            p("", "Untitled."),
            p("", &full),
        ];
        assert_eq!(stubs(&pages), BTreeSet::from([1, 2]));
        // Alone with its title, a short page is the page.
        assert!(stubs(&[p("Tide Gauges", "See the new chapter.")]).is_empty());
        // Two near-equal pages of one title are both kept.
        assert!(stubs(&[p("A", &full), p("A", &full[10..])]).is_empty());
    }
}
