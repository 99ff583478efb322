//! Re-ranking BM25's best passages by how much of the query they hold and
//! how close together. BM25 scores each query word on its own, so a passage
//! that repeats one common word ("values", "stop") can outrank the one
//! that says what was asked in one sentence ("it is not possible to store
//! very large field values directly"). Here a passage also earns for the
//! share of the query's weight it covers (coverage) and for the share that
//! sits within one short window (proximity), each word weighed by its
//! rarity in the corpus.
//!
//! A query word also matches the words of its family: the corpus' own
//! words that share its stem but for a short ending the English stemmer
//! keeps ("readers" and "reading", "writers" and "writing", "storage" and
//! "store"), at a lower weight.

use tantivy::schema::{Field, IndexRecordOption};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{Searcher, Term};

/// The stemmed words of `text` as the index's analyzer makes them.
pub(super) fn stems(analyzer: &mut TextAnalyzer, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stream = analyzer.token_stream(text);
    while let Some(token) = stream.next() {
        out.push(token.text.clone());
    }
    out
}

/// Weight of a family word's match against its query word's.
const FAMILY_WEIGHT: f32 = 0.6;

/// Distinct query words for a re-ranking.
const MIN_WORDS: usize = 3;

/// Tokens in the proximity window: about one sentence.
const WINDOW: usize = 12;

/// How much a passage's coverage and proximity add to its BM25 score, as
/// multiples of it.
const COVERAGE_GAIN: f32 = 1.0;
const PROXIMITY_GAIN: f32 = 1.0;

/// Whether two stems are one word's family: they share a prefix of at
/// least four letters that is all of the shorter one but at most its last
/// letter, and differ in length by at most three ("read"/"reader",
/// "store"/"storag", "larg"/"largest"; not "valu"/"valid").
fn is_family(a: &str, b: &str) -> bool {
    if a == b {
        return false;
    }
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.len() < 4 || long.len() - short.len() > 3 {
        return false;
    }
    let shared = short.iter().zip(&long).take_while(|(x, y)| x == y).count();
    shared >= 4 && shared + 1 >= short.len()
}

/// One word of the query: its stem, its family in the corpus, and its
/// weight (inverse document frequency).
#[derive(Debug, Clone)]
struct Word {
    stem: String,
    family: Vec<String>,
    weight: f32,
}

impl Word {
    /// How well `token` matches this word: 1 for the word, less for its family.
    fn matches(&self, token: &str) -> f32 {
        if token == self.stem {
            1.0
        } else if self.family.iter().any(|f| f == token) {
            FAMILY_WEIGHT
        } else {
            0.0
        }
    }
}

/// The query's distinct words, weighed.
#[derive(Debug, Clone, Default)]
pub(super) struct QueryWords {
    words: Vec<Word>,
    total: f32,
}

impl QueryWords {
    /// The query's stems in `field`, each with its family among the
    /// field's words and its rarity.
    pub(super) fn of(
        query: &str,
        analyzer: &mut TextAnalyzer,
        searcher: &Searcher,
        field: Field,
    ) -> QueryWords {
        // A query that lists alternatives ("ceo OR founder OR appointed")
        // asks for any of them, not for all in one place: BM25 alone.
        if query.split_whitespace().any(|w| w == "OR") {
            return QueryWords::default();
        }
        let n = searcher.num_docs().max(1) as f32;
        let mut words: Vec<Word> = Vec::new();
        // A name ("PadmaPay", "SQLite") or a code ("pg_start_backup",
        // "3.35.0") has no family: "padma" is another name, not a form of it.
        let analysed = query.split_whitespace().flat_map(|raw| {
            let named = raw
                .chars()
                .any(|c| c.is_uppercase() || c.is_ascii_digit() || c == '_');
            stems(analyzer, raw).into_iter().map(move |s| (s, named))
        });
        let analysed: Vec<(String, bool)> = analysed.collect();
        for (stem, named) in analysed {
            if words.iter().any(|w| w.stem == stem) {
                continue;
            }
            let df = searcher
                .doc_freq(&Term::from_field_text(field, &stem))
                .unwrap_or(0) as f32;
            let weight = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            let family = if named {
                vec![]
            } else {
                family_of(&stem, searcher, field)
            };
            words.push(Word {
                stem,
                family,
                weight,
            });
        }
        let total = words.iter().map(|w| w.weight).sum();
        QueryWords { words, total }
    }

    /// The family words to search for as well, with the field they are in.
    pub(super) fn family_terms(&self, field: Field) -> Vec<Term> {
        self.words
            .iter()
            .flat_map(|w| w.family.iter())
            .map(|f| Term::from_field_text(field, f))
            .collect()
    }

    /// How well a passage answers the query beyond BM25: a factor of at
    /// least 1 to multiply its score by. `lead` is text that counts for
    /// coverage only (the page's title), `body` the passage's stems.
    pub(super) fn fit(&self, lead: &[String], body: &[String]) -> f32 {
        // A query of one or two words ("PadmaPay leadership") has no
        // sentence to find: BM25's ranking stands.
        if self.total <= 0.0 || self.words.len() < MIN_WORDS {
            return 1.0;
        }
        // The tokens that match a query word, with where they stand: a
        // window holding the most starts at one of them.
        let hits: Vec<(usize, usize, f32)> = body
            .iter()
            .enumerate()
            .filter_map(|(pos, t)| self.best_match(t).map(|(w, m)| (pos, w, m)))
            .collect();
        let lead_hits = lead.iter().filter_map(|t| self.best_match(t));
        let covered = self.held(hits.iter().map(|h| (h.1, h.2)).chain(lead_hits));
        let close = (0..hits.len())
            .map(|k| {
                let end = hits[k].0 + WINDOW;
                self.held(
                    hits[k..]
                        .iter()
                        .take_while(|h| h.0 < end)
                        .map(|h| (h.1, h.2)),
                )
            })
            .fold(0.0f32, f32::max);
        1.0 + COVERAGE_GAIN * covered / self.total + PROXIMITY_GAIN * close / self.total
    }
}

impl QueryWords {
    /// The query word `token` matches best, and how well.
    fn best_match(&self, token: &str) -> Option<(usize, f32)> {
        self.words
            .iter()
            .enumerate()
            .map(|(i, w)| (i, w.matches(token)))
            .filter(|(_, m)| *m > 0.0)
            .max_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// The weight of the query held by matches `(word, strength)`: each
    /// word counted once, at its strongest match.
    fn held(&self, matches: impl Iterator<Item = (usize, f32)>) -> f32 {
        let mut strongest = vec![0.0f32; self.words.len()];
        for (w, m) in matches {
            strongest[w] = strongest[w].max(m);
        }
        strongest
            .iter()
            .zip(&self.words)
            .map(|(m, w)| m * w.weight)
            .sum()
    }
}

/// The words of `field` that are `stem`'s family ([`is_family`]).
fn family_of(stem: &str, searcher: &Searcher, field: Field) -> Vec<String> {
    let prefix: String = stem.chars().take(4).collect();
    if prefix.chars().count() < 4 {
        return vec![];
    }
    let mut out: Vec<String> = Vec::new();
    for segment in searcher.segment_readers() {
        let Ok(inverted) = segment.inverted_index(field) else {
            continue;
        };
        let mut upper = prefix.clone().into_bytes();
        if let Some(last) = upper.last_mut() {
            *last = last.saturating_add(1);
        }
        let Ok(mut stream) = inverted
            .terms()
            .range()
            .ge(&prefix)
            .lt(&upper)
            .into_stream()
        else {
            continue;
        };
        while stream.advance() {
            if let Ok(word) = std::str::from_utf8(stream.key())
                && is_family(stem, word)
                && !out.iter().any(|o| o == word)
            {
                out.push(word.to_string());
            }
        }
    }
    out
}

/// A term query for each family word, to add to the search.
pub(super) fn family_queries(terms: Vec<Term>) -> Vec<Box<dyn tantivy::query::Query>> {
    terms
        .into_iter()
        .map(|t| {
            Box::new(tantivy::query::BoostQuery::new(
                Box::new(tantivy::query::TermQuery::new(
                    t,
                    IndexRecordOption::WithFreqs,
                )),
                FAMILY_WEIGHT,
            )) as Box<dyn tantivy::query::Query>
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_share_all_of_the_shorter_stem_but_its_last_letter() {
        assert!(is_family("reader", "read"));
        assert!(is_family("writer", "write"));
        assert!(is_family("storag", "store"));
        assert!(is_family("larg", "largest"));
        assert!(!is_family("valu", "valid"));
        assert!(!is_family("numer", "number"));
        assert!(!is_family("chang", "changelog"));
        assert!(!is_family("read", "read"));
        assert!(!is_family("run", "runs"));
    }

    fn word(stem: &str, weight: f32) -> Word {
        Word {
            stem: stem.into(),
            family: vec![],
            weight,
        }
    }

    fn toks(text: &str) -> Vec<String> {
        text.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn a_passage_holding_the_query_in_one_window_fits_best() {
        let q = QueryWords {
            words: vec![word("store", 2.0), word("larg", 2.0), word("valu", 1.0)],
            total: 5.0,
        };
        let together = q.fit(&[], &toks("it cannot store larg valu directly"));
        let apart = q.fit(
            &[],
            &toks("store a b c d e f g h i j k l m n o p larg q r s t u v w x y z valu"),
        );
        let one = q.fit(&[], &toks("valu valu valu valu"));
        assert!(together > apart, "{together} {apart}");
        assert!(apart > one, "{apart} {one}");
        assert!((q.fit(&[], &[]) - 1.0).abs() < 1e-6);
        let two = QueryWords {
            words: vec![word("store", 2.0), word("larg", 2.0)],
            total: 4.0,
        };
        assert!((two.fit(&[], &toks("store larg")) - 1.0).abs() < 1e-6);
    }
}
