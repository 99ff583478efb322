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

/// What stub detection needs to know of a page ([`super::stubs`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Shape {
    /// The title, lowercase, spaces collapsed ("" when it has none).
    pub title: String,
    /// Characters of visible text.
    pub chars: usize,
    /// Whether its opening says it moved or is no longer kept.
    pub moved: bool,
}

/// A title as stubs are matched by: lowercase, spaces collapsed.
pub fn title_key(title: &str) -> String {
    title
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The ids of the stubs among `pages` (id, shape).
pub fn stubs<'a>(pages: impl Iterator<Item = (u64, &'a Shape)> + Clone) -> BTreeSet<u64> {
    let mut longest: HashMap<&str, usize> = HashMap::new();
    for (_, p) in pages.clone() {
        if !p.title.is_empty() {
            let n = longest.entry(p.title.as_str()).or_default();
            *n = (*n).max(p.chars);
        }
    }
    pages
        .filter(|(_, p)| {
            let Some(&full) = longest.get(p.title.as_str()) else {
                return false;
            };
            p.chars < full && (p.chars * SHORTER <= full || p.moved)
        })
        .map(|(id, _)| id)
        .collect()
}

/// Whether the opening of a page says it moved or is no longer kept.
pub fn says_moved(text: &str) -> bool {
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

    fn p(title: &str, text: &str) -> Shape {
        Shape {
            title: title_key(title),
            chars: text.chars().count(),
            moved: says_moved(text),
        }
    }

    fn of(pages: &[Shape]) -> BTreeSet<u64> {
        stubs(pages.iter().enumerate().map(|(i, p)| (i as u64, p)))
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
        assert_eq!(of(&pages), BTreeSet::from([1, 2]));
        // Alone with its title, a short page is the page.
        assert!(of(&[p("Tide Gauges", "See the new chapter.")]).is_empty());
        // Two near-equal pages of one title are both kept.
        assert!(of(&[p("A", &full), p("A", &full[10..])]).is_empty());
    }
}
