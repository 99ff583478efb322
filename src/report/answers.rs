//! The direct answers that open a report: for each sub-question, the value
//! the sources give (stated first, with the sentence that states it and
//! how many independent sources agree), or that the sources do not say.

use std::collections::{BTreeMap, BTreeSet};

use super::quoting::quoted;
use crate::evidence::{Finding, Findings};

/// The text with its first letter in upper case.
pub fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Whether a unit's answer is settled by the direct answers (a value, or
/// the researcher's word that the sources do not say).
pub fn is_direct(unit: &Findings) -> bool {
    unit.answer.is_some() || unit.answered == Some(false) || in_sentences(unit)
}

/// Whether a unit is answered in sentences (how, why, what is, which
/// ones): the researcher said it is answered, and by no single value.
pub fn in_sentences(unit: &Findings) -> bool {
    unit.answered == Some(true) && unit.answer.is_none() && !unit.findings.is_empty()
}

/// A sub-question as a clause after "The sources do not say": "Who won X?"
/// becomes "who won X"; a topic ("funding") becomes "anything about funding".
fn as_clause(label: &str) -> String {
    let l = label.trim().trim_end_matches(['?', '？', '.']).trim();
    let first = l.split_whitespace().next().unwrap_or("").to_lowercase();
    const OPENERS: &[&str] = &[
        "who", "whom", "whose", "what", "when", "where", "which", "why", "how", "whether",
    ];
    if OPENERS.contains(&first.as_str()) {
        let mut c = l.chars();
        c.next()
            .map(|f| f.to_lowercase().chain(c).collect())
            .unwrap_or_default()
    } else if crate::answer::cjk::has_cjk(l) {
        format!("“{l}”")
    } else {
        format!("what the question asks about {l}")
    }
}

/// The direct answers, and what the sources do not say: in the Answer when
/// no sub-question is answered, else lines of a section of its own.
pub struct Direct {
    pub answers: String,
    pub not_said: Vec<String>,
}

/// The unit each quote belongs to: of the units that found it, the one
/// that ranked it highest (its place among the unit's findings), the
/// earlier unit on a tie. A sentence two sub-questions found answers the
/// one that put it first ("offered only when ... 500 characters" answers
/// when reading mode is refused, not how it picks the text, where it came
/// third).
pub fn quote_owners<'a>(units: &[&'a Findings]) -> BTreeMap<&'a str, usize> {
    let mut best: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (u, unit) in units.iter().enumerate() {
        for (rank, f) in unit.findings.iter().enumerate() {
            let e = best.entry(f.quote.as_str()).or_insert((rank, u));
            if rank < e.0 {
                *e = (rank, u);
            }
        }
    }
    best.into_iter().map(|(q, (_, u))| (q, u)).collect()
}

/// The most sentences an answer in sentences quotes.
const ANSWER_SENTENCES: usize = 4;

/// One paragraph per unit that has a direct answer; `single`: the report
/// has one sub-question, whose label is the question itself.
pub fn direct_answers(labels: &[String], units: &[&Findings], single: bool) -> Direct {
    let mut out = String::new();
    let mut not_said = Vec::new();
    let any_answered = units
        .iter()
        .any(|u| u.answer.is_some() || u.answered == Some(true) && !u.findings.is_empty());
    let owners = quote_owners(units);
    for (i, (label, unit)) in labels.iter().zip(units).enumerate() {
        let head = if single {
            String::new()
        } else {
            format!("**{}:** ", capitalize(label))
        };
        if let Some(value) = &unit.answer {
            let stating: Vec<_> = unit
                .findings
                .iter()
                .filter(|f| f.value.as_deref() == Some(value.as_str()))
                .collect();
            let Some(best) = stating.first().copied().or(unit.findings.first()) else {
                continue;
            };
            let sources: BTreeSet<usize> = stating.iter().map(|f| f.source).collect();
            // The count only: citations inside a parenthesis would split
            // the sentence for the claim check; the evidence lists them.
            let agree = if sources.len() >= 2 {
                format!(" ({} independent sources agree)", sources.len())
            } else {
                String::new()
            };
            out.push_str(&format!(
                "{head}**{value}**: {} [{}]{agree}\n\n",
                quoted(&best.quote),
                best.source
            ));
        } else if in_sentences(unit) {
            // An answer in sentences: the sentences the research chose for
            // it (the parts of a question asking several things can sit
            // in one source), each once, in order.
            // A sentence another answer owns ([`quote_owners`]) is not
            // quoted again, unless the unit has no other.
            let mut seen = BTreeSet::new();
            let mut fresh: Vec<&Finding> = unit
                .findings
                .iter()
                .filter(|f| {
                    owners.get(f.quote.as_str()) == Some(&i) && seen.insert(f.quote.as_str())
                })
                .take(ANSWER_SENTENCES)
                .collect();
            if fresh.is_empty() {
                fresh.extend(unit.findings.first());
            }
            let quotes: Vec<String> = fresh
                .iter()
                .map(|f| format!("{} [{}]", quoted(&f.quote), f.source))
                .collect();
            out.push_str(&format!("{head}{}\n\n", quotes.join(" ")));
        } else if unit.answered == Some(false) {
            let line = format!("The sources do not say {}.", as_clause(label));
            if any_answered {
                not_said.push(line);
            } else {
                out.push_str(&format!("{head}{line}\n\n"));
            }
        }
    }
    Direct {
        answers: out,
        not_said,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::Finding;

    fn finding(quote: &str, source: usize, value: Option<&str>) -> Finding {
        Finding {
            claim: quote.into(),
            quote: quote.into(),
            url: format!("https://s{source}.example/"),
            source,
            field: None,
            value: value.map(String::from),
            as_of: None,
            title: String::new(),
            source_type: None,
        }
    }

    #[test]
    fn a_value_comes_first_with_its_quote_and_its_agreeing_sources() {
        let unit = Findings {
            aspect: "Who leads Acme".into(),
            findings: vec![
                finding("Acme is led by Jane Doe.", 2, Some("Jane Doe")),
                finding(
                    "Jane Doe became chief executive in 2024.",
                    5,
                    Some("Jane Doe"),
                ),
                finding("Acme charges INR 400 per widget.", 3, None),
            ],
            answer: Some("Jane Doe".into()),
            answered: Some(true),
            ..Default::default()
        };
        let md = direct_answers(&["Who leads Acme".into()], &[&unit], true).answers;
        assert!(
            md.starts_with(
                "**Jane Doe**: \"Acme is led by Jane Doe.\" [2] (2 independent sources agree)\n"
            ),
            "{md}"
        );
        assert!(!md.contains("INR"));
    }

    #[test]
    fn the_answer_line_passes_the_claim_check() {
        use crate::report::claim_check::{Library, SourceInput, check};
        let mut lib = Library::new();
        for (n, text) in [
            (2, "Acme is led by Jane Doe."),
            (5, "Jane Doe became chief executive in 2024."),
        ] {
            lib.add(
                n,
                &SourceInput {
                    text,
                    url: "https://s.example/",
                    ..Default::default()
                },
            );
        }
        let unit = Findings {
            findings: vec![
                finding("Acme is led by Jane Doe.", 2, Some("Jane Doe")),
                finding(
                    "Jane Doe became chief executive in 2024.",
                    5,
                    Some("Jane Doe"),
                ),
            ],
            answer: Some("Jane Doe".into()),
            ..Default::default()
        };
        let md = format!(
            "## Answer\n\n{}",
            direct_answers(&["Who leads Acme".into()], &[&unit], true).answers
        );
        let c = check(&md, &lib);
        assert!(
            !c.claims.is_empty() && c.claims.iter().all(|c| c.supported),
            "{md}: {:?}",
            c.claims
        );
    }

    #[test]
    fn an_unanswered_sub_question_says_the_sources_do_not_say() {
        let unit = Findings {
            answered: Some(false),
            ..Default::default()
        };
        let md = direct_answers(&["Who won the 2031 Harwick Medal".into()], &[&unit], true).answers;
        assert_eq!(
            md,
            "The sources do not say who won the 2031 Harwick Medal.\n\n"
        );
        let md = direct_answers(&["funding".into()], &[&unit], false).answers;
        assert!(
            md.starts_with("**Funding:** The sources do not say"),
            "{md}"
        );
        // Beside an answered sub-question it is a section of its own.
        let answered = Findings {
            findings: vec![finding("Acme is led by Jane Doe.", 2, Some("Jane Doe"))],
            answer: Some("Jane Doe".into()),
            ..Default::default()
        };
        let d = direct_answers(
            &["Who leads Acme".into(), "funding".into()],
            &[&answered, &unit],
            false,
        );
        assert!(!d.answers.contains("do not say"), "{}", d.answers);
        assert!(
            d.not_said[0].starts_with("The sources do not say"),
            "{:?}",
            d.not_said
        );
    }

    #[test]
    fn a_shared_sentence_answers_the_sub_question_that_ranked_it_first() {
        let rule = "Reading mode is offered only when the article has 500 characters.";
        let how = Findings {
            findings: vec![
                finding("Reading mode scores blocks by text density.", 1, None),
                finding("The scorer keeps neighbouring blocks.", 1, None),
                finding(rule, 1, None),
            ],
            answered: Some(true),
            ..Default::default()
        };
        let when = Findings {
            findings: vec![
                finding(rule, 1, None),
                finding("A review liked it.", 2, None),
            ],
            answered: Some(true),
            ..Default::default()
        };
        let owners = quote_owners(&[&how, &when]);
        assert_eq!(owners[rule], 1);
        let md = direct_answers(
            &["How does it pick".into(), "When is it refused".into()],
            &[&how, &when],
            false,
        )
        .answers;
        let (first, second) = md.split_once("When is it refused").unwrap();
        assert!(!first.contains("500 characters"), "{md}");
        assert!(second.contains("500 characters"), "{md}");
    }
}
