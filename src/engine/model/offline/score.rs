//! Sentence scoring: which verbatim sentences of the pages read state the
//! aspect's value, weighed by term rarity, source authority and freshness.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::lexicon::{has_value, stemmer, terms_for, words};
use super::research::PageRead;
use super::{MAX_FINDINGS, PER_PAGE};
use crate::evidence::{quotes, sentences};

pub(super) struct Candidate {
    pub sentence: String,
    pub url: String,
    pub as_of: Option<String>,
    pub score: f64,
}

/// How much a kind of source is trusted for facts about an entity.
fn authority(source_type: &str) -> f64 {
    match source_type {
        "regulator" => 1.4,
        "official" => 1.2,
        "news" => 1.1,
        "press_release" | "review" => 1.0,
        "other" => 0.9,
        "forum" => 0.8,
        "blog" => 0.75,
        _ => 0.9,
    }
}

/// 0.5^(age / two years): newer pages state the current position more often.
fn freshness(as_of: Option<&str>, today: &str) -> f64 {
    let parse = |d: &str| chrono::NaiveDate::parse_from_str(d.get(..10)?, "%Y-%m-%d").ok();
    match (as_of.and_then(parse), parse(today)) {
        (Some(a), Some(t)) => 0.5f64.powf(((t - a).num_days().max(0) as f64) / 730.0),
        _ => 0.5,
    }
}

/// The best sentences about an aspect, verbatim, one origin per sentence.
pub(super) fn extract(
    aspect: &str,
    entity: &str,
    order: &[String],
    pages: &BTreeMap<String, PageRead>,
    thesaurus: bool,
    must_mention: bool,
    today: &str,
) -> Vec<Candidate> {
    let terms = terms_for(aspect, thesaurus);
    let st = stemmer();
    let entity_lower = entity.to_lowercase();
    // Sentence frequency of each term over everything read: a term in every
    // sentence ("merchant" on a payments site) says little about the aspect.
    let mut n_sentences = 0usize;
    let mut df: HashMap<&str, usize> = HashMap::new();
    for url in order {
        for s in sentences::split(&pages[url].text) {
            n_sentences += 1;
            let stems: BTreeSet<String> = words(s).map(|w| st.stem(&w).into_owned()).collect();
            let lower = s.to_lowercase();
            for t in terms.stems.iter().filter(|t| stems.contains(*t)) {
                *df.entry(t.as_str()).or_default() += 1;
            }
            for ph in terms
                .phrases
                .iter()
                .filter(|ph| lower.contains(ph.as_str()))
            {
                *df.entry(ph.as_str()).or_default() += 1;
            }
        }
    }
    let weight = |term: &str| {
        let d = df.get(term).copied().unwrap_or(0) as f64;
        (1.0 + ((n_sentences as f64 + 1.0) / (d + 1.0)).ln() / 2.0).clamp(0.3, 3.0)
    };
    let mut all: Vec<Candidate> = Vec::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for url in order {
        let p = &pages[url];
        // A page that never names the subject (an inferred subject lets it
        // through the gate) ranks below the pages that do.
        let page_relevance = if entity_lower.is_empty()
            || crate::evidence::identity::name_strength(entity, &format!("{}\n{}", p.title, p.text))
                > 0.0
        {
            1.0
        } else {
            0.6
        };
        let mut local: Vec<Candidate> = Vec::new();
        for s in sentences::split(&p.text) {
            let n_words = s.split_whitespace().count();
            if !(5..=70).contains(&n_words) || !s.chars().any(char::is_alphabetic) {
                continue;
            }
            let lower = s.to_lowercase();
            let stems: BTreeSet<String> = words(s).map(|w| st.stem(&w).into_owned()).collect();
            let hits: f64 = terms
                .stems
                .iter()
                .filter(|t| stems.contains(*t))
                .map(|t| weight(t))
                .chain(
                    terms
                        .phrases
                        .iter()
                        .filter(|ph| lower.contains(ph.as_str()))
                        .map(|ph| weight(ph)),
                )
                .sum();
            if hits == 0.0 {
                continue;
            }
            let named = if entity_lower.is_empty() {
                0.0
            } else {
                crate::evidence::identity::name_strength(entity, s)
            };
            // In a comparison, a sentence about the other item is no answer.
            if must_mention && named == 0.0 {
                continue;
            }
            let mut score = hits;
            // The subject by its name or an alias (surname, acronym...).
            score += 0.5 * named;
            if s.chars().any(|c| c.is_ascii_digit()) {
                score += 0.3;
            }
            if !terms.values.is_empty() {
                // A sentence without the kind of value the aspect asks for is weak, however on-topic.
                score *= if terms.values.iter().any(|&k| has_value(k, s, entity)) {
                    1.6
                } else {
                    0.5
                };
            }
            // Conditions and possibilities ("if a breach affects...", "can be checked") are not facts.
            let padded = format!(" {lower} ");
            if [
                " if ", " can be ", " may ", " could ", " would ", " should ", " unless ",
            ]
            .iter()
            .any(|m| padded.contains(m))
            {
                score -= 1.0;
            }
            if !s.ends_with(['.', '!', '?', '"', ')']) {
                score -= 0.75;
            }
            // A sentence that points elsewhere ("full report at x.example/y") states no fact itself.
            if s.split_whitespace()
                .any(|w| w.contains('/') && w.contains('.'))
            {
                continue;
            }
            if score < 1.0 {
                continue;
            }
            score *= page_relevance
                * authority(&p.source_type)
                * (0.75 + 0.25 * freshness(p.as_of.as_deref(), today));
            local.push(Candidate {
                sentence: s.to_string(),
                url: url.clone(),
                as_of: p.as_of.clone(),
                score,
            });
        }
        local.sort_by(|a, b| b.score.total_cmp(&a.score));
        for c in local.into_iter().take(PER_PAGE) {
            // The same sentence on two pages (a syndicated copy) counts once.
            if seen.insert(quotes::normalize(&c.sentence).to_lowercase()) {
                all.push(c);
            }
        }
    }
    all.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| b.as_of.cmp(&a.as_of))
            .then_with(|| a.url.cmp(&b.url))
    });
    all.truncate(MAX_FINDINGS);
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extracts_relevant_verbatim_sentences() {
        let mut pages = BTreeMap::new();
        pages.insert(
            "u1".to_string(),
            PageRead {
                text: "Acme appointed Jane Doe as chief executive officer in 2026. The office has a nice garden. Menu".into(),
                as_of: Some("2026-01-01".into()),
                ..Default::default()
            },
        );
        let f = extract(
            "leadership",
            "Acme",
            &["u1".to_string()],
            &pages,
            true,
            false,
            "2026-06-01",
        );
        assert_eq!(f.len(), 1);
        assert_eq!(
            f[0].sentence,
            "Acme appointed Jane Doe as chief executive officer in 2026."
        );
    }
}
