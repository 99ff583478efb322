//! Reliability of one piece of evidence, as a number with its reasons:
//! `reliability = 0.45*authority + 0.25*freshness + 0.15*identity +
//! 0.15*completeness`. Identity is also a gate applied earlier (a page below
//! it never yields evidence); here it only weighs.

use chrono::NaiveDate;

use super::fields::{Field, field_for};
use super::{Claim, EvidenceItem, Scores, SourceRef};

pub const W_AUTHORITY: f64 = 0.45;
pub const W_FRESHNESS: f64 = 0.25;
pub const W_IDENTITY: f64 = 0.15;
pub const W_COMPLETENESS: f64 = 0.15;

/// Freshness of a claim whose age is unknown: as if one half-life old, so
/// an undated claim is never fresher than a recent dated one.
pub const UNDATED_FRESHNESS: f64 = 0.5;

pub fn reliability(authority: f64, freshness: f64, identity: f64, completeness: f64) -> f64 {
    let r = W_AUTHORITY * authority
        + W_FRESHNESS * freshness
        + W_IDENTITY * identity
        + W_COMPLETENESS * completeness;
    r.clamp(0.0, 1.0)
}

/// `0.5^(age / half_life)`; a date in the future counts as today.
pub fn freshness(field: Field, as_of: Option<NaiveDate>, today: NaiveDate) -> f64 {
    let Some(date) = as_of else {
        return UNDATED_FRESHNESS;
    };
    let age_days = (today - date).num_days().max(0) as f64;
    0.5f64.powf(age_days / field.half_life_days())
}

/// Parses the dates evidence carries: `YYYY-MM-DD` (optionally followed by a
/// time), `YYYY-MM`, `YYYY`, and written dates ("14 August 2025",
/// "August 14, 2025", "January 2026"). A partial date means the start of
/// its period, the conservative (older) reading.
pub fn parse_date(s: &str) -> Option<NaiveDate> {
    let s = s.trim();
    if let Some(day) = s.get(..10)
        && let Ok(d) = NaiveDate::parse_from_str(day, "%Y-%m-%d")
    {
        return Some(d);
    }
    if let Ok(d) = NaiveDate::parse_from_str(&format!("{s}-01"), "%Y-%m-%d") {
        return Some(d);
    }
    if s.len() == 4
        && let Ok(y) = s.parse::<i32>()
    {
        return NaiveDate::from_ymd_opt(y, 1, 1);
    }
    let cleaned = s.replace(',', " ");
    let words: Vec<&str> = cleaned.split_whitespace().collect();
    let cleaned = words.join(" ");
    // Each form is tried only with its word count: chrono would otherwise
    // read "January 2026" as the 20th of January of the year 26.
    let (formats, text): (&[&str], String) = match words.len() {
        3 => (&["%d %B %Y", "%B %d %Y", "%d %b %Y", "%b %d %Y"], cleaned),
        2 => (&["%d %B %Y", "%d %b %Y"], format!("1 {cleaned}")),
        _ => return None,
    };
    if words.last().is_none_or(|y| y.len() != 4) {
        return None;
    }
    formats
        .iter()
        .find_map(|fmt| NaiveDate::parse_from_str(&text, fmt).ok())
}

/// The date a claim speaks for: its event date, else the page's last update,
/// else its publication.
pub fn claim_date(claim: &Claim, source: &SourceRef) -> Option<NaiveDate> {
    [
        claim.event_date.as_deref(),
        source.updated.as_deref(),
        source.published.as_deref(),
    ]
    .into_iter()
    .flatten()
    .find_map(parse_date)
}

/// A quarter for each of: a date, a real snippet (three words or more), a
/// known publisher (a domain name), a value.
pub fn completeness(claim: &Claim, source: &SourceRef) -> f64 {
    let has_date = claim_date(claim, source).is_some();
    let snippet = claim.snippet.trim();
    let real_snippet = snippet.chars().count() >= 15 && snippet.split_whitespace().count() >= 3;
    let domain = source.domain.trim();
    let known_publisher = domain.contains('.')
        && domain.chars().any(|c| c.is_alphabetic())
        && !domain.contains(char::is_whitespace);
    let has_value = claim.value.chars().any(char::is_alphanumeric);
    [has_date, real_snippet, known_publisher, has_value]
        .iter()
        .filter(|&&b| b)
        .count() as f64
        / 4.0
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The full breakdown for one claim from one source. `identity` comes from
/// the identity gate; `today` is the run's date.
pub fn score(
    field: Field,
    claim: &Claim,
    source: &SourceRef,
    identity: f64,
    today: NaiveDate,
) -> Scores {
    let authority = field.authority(source.source_type);
    let freshness = freshness(field, claim_date(claim, source), today);
    let identity = identity.clamp(0.0, 1.0);
    let completeness = completeness(claim, source);
    Scores {
        identity: round3(identity),
        authority: round3(authority),
        freshness: round3(freshness),
        completeness: round3(completeness),
        reliability: round3(reliability(authority, freshness, identity, completeness)),
    }
}

/// Scores an item from what it carries: its field label (through
/// [`field_for`]) and the identity score already on it.
pub fn score_item(item: &EvidenceItem, today: NaiveDate) -> Scores {
    score(
        field_for(&item.claim.field),
        &item.claim,
        &item.source,
        item.scores.identity,
        today,
    )
}

/// The item with its scores filled in. `today` is `YYYY-MM-DD`; when it
/// does not parse, the clock's date is used.
pub fn scored(mut item: EvidenceItem, today: &str) -> EvidenceItem {
    let today = parse_date(today).unwrap_or_else(|| chrono::Utc::now().date_naive());
    item.scores = score_item(&item, today);
    item
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::SourceType;

    fn day(s: &str) -> NaiveDate {
        parse_date(s).unwrap()
    }

    fn regulator_evidence() -> (Claim, SourceRef) {
        (
            Claim {
                field: "regulatory_status".into(),
                value: "final authorisation".into(),
                snippet: "Status: final authorisation granted on 14 August 2025.".into(),
                event_date: Some("2025-08-14".into()),
            },
            SourceRef {
                url: "https://registry.regulator.example/payment-aggregators/nimbuspay".into(),
                domain: "registry.regulator.example".into(),
                source_type: SourceType::Regulator,
                published: Some("2025-08-14".into()),
                updated: Some("2026-07-01".into()),
                retrieved: "2026-11-01".into(),
            },
        )
    }

    #[test]
    fn reproduces_the_seed_regulator_row() {
        // The course's validated evidence: authority 1.0, freshness 0.43,
        // identity 0.75, completeness 1.0 -> reliability 0.82.
        let (claim, source) = regulator_evidence();
        let s = score(
            Field::RegulatoryStatus,
            &claim,
            &source,
            0.75,
            day("2026-11-01"),
        );
        assert_eq!(s.authority, 1.0);
        assert_eq!(s.freshness, 0.43);
        assert_eq!(s.identity, 0.75);
        assert_eq!(s.completeness, 1.0);
        assert_eq!(s.reliability, 0.82);
    }

    #[test]
    fn freshness_halves_every_half_life() {
        let today = day("2026-01-01");
        let a_year_ago = day("2025-01-01");
        let f = freshness(Field::Ceo, Some(a_year_ago), today);
        assert!((f - 0.5).abs() < 0.01, "{f}");
        let f = freshness(Field::Pricing, Some(a_year_ago), today);
        assert!((f - 0.25).abs() < 0.01, "{f}");
        assert!(freshness(Field::Founded, Some(day("2000-01-01")), today) > 0.8);
        assert_eq!(freshness(Field::Ceo, Some(day("2027-01-01")), today), 1.0);
        assert_eq!(freshness(Field::Ceo, None, today), UNDATED_FRESHNESS);
    }

    #[test]
    fn event_date_wins_over_page_dates() {
        let (mut claim, source) = regulator_evidence();
        assert_eq!(claim_date(&claim, &source), Some(day("2025-08-14")));
        claim.event_date = None;
        assert_eq!(claim_date(&claim, &source), Some(day("2026-07-01")));
        let source = SourceRef {
            updated: None,
            ..source
        };
        assert_eq!(claim_date(&claim, &source), Some(day("2025-08-14")));
    }

    #[test]
    fn parses_the_dates_evidence_carries() {
        assert_eq!(parse_date("2025-08-14T10:00:00Z"), Some(day("2025-08-14")));
        assert_eq!(parse_date("2025-08"), Some(day("2025-08-01")));
        assert_eq!(parse_date("2025"), Some(day("2025-01-01")));
        assert_eq!(parse_date("14 August 2025"), Some(day("2025-08-14")));
        assert_eq!(parse_date("August 14, 2025"), Some(day("2025-08-14")));
        assert_eq!(parse_date("January 2026"), Some(day("2026-01-01")));
        assert_eq!(parse_date("1 Jul 2025"), Some(day("2025-07-01")));
        assert_eq!(parse_date("soon"), None);
        assert_eq!(parse_date(""), None);
    }

    #[test]
    fn completeness_counts_what_is_present() {
        let (mut claim, mut source) = regulator_evidence();
        assert_eq!(completeness(&claim, &source), 1.0);
        claim.snippet = "yes".into();
        assert_eq!(completeness(&claim, &source), 0.75);
        claim.event_date = None;
        source.published = None;
        source.updated = None;
        assert_eq!(completeness(&claim, &source), 0.5);
        source.domain = String::new();
        assert_eq!(completeness(&claim, &source), 0.25);
        claim.value = " - ".into();
        assert_eq!(completeness(&claim, &source), 0.0);
    }

    #[test]
    fn a_blog_scores_below_the_regulator_on_a_licence() {
        let (claim, source) = regulator_evidence();
        let today = day("2026-11-01");
        let blog = SourceRef {
            source_type: SourceType::Blog,
            domain: "rumours.example".into(),
            ..source.clone()
        };
        let r = score(Field::RegulatoryStatus, &claim, &source, 0.75, today).reliability;
        let b = score(Field::RegulatoryStatus, &claim, &blog, 0.75, today).reliability;
        assert!(b < 0.5 && r - b > 0.4, "regulator {r} blog {b}");
    }

    #[test]
    fn reliability_stays_in_range() {
        assert_eq!(reliability(1.0, 1.0, 1.0, 1.0), 1.0);
        assert_eq!(reliability(0.0, 0.0, 0.0, 0.0), 0.0);
        assert_eq!(reliability(2.0, 2.0, 2.0, 2.0), 1.0);
    }
}
