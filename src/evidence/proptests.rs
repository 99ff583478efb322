//! Property tests for scoring, copies and merging: the answer does not
//! depend on the order evidence arrives in, confidence stays in range, and
//! no evidence is lost from the provenance.

use std::collections::{BTreeMap, HashMap};

use proptest::prelude::*;

use super::dedup::{self, DocForDedup};
use super::merge::{self, MAX_CONFIDENCE, MergeOptions, noisy_or};
use super::values::{self, normalize_value};
use super::{Claim, EvidenceItem, Field, Scores, SourceRef, SourceType, field_for, score};

/// A number with a unit; `N` is the number. Units of one class
/// (`unit_class`) may be spelt alike after normalising.
const VALUE_UNITS: &[&str] = &[
    "N%", "N km", "N ms", "$N", "₹N", "€N", "N crore", "N GB", "N MB", "N kg", "N", "vN",
];

fn is_currency(i: usize) -> bool {
    matches!(VALUE_UNITS[i], "$N" | "₹N" | "€N")
}

/// Words the key tokens drop on purpose (stopwords, months, titles...),
/// which a generated name may happen to be.
fn is_common_word(name: &str) -> bool {
    let stop = [
        "the", "and", "for", "was", "has", "been", "are", "were", "its", "may", "mar", "jan",
        "feb", "apr", "jun", "jul", "aug", "sep", "oct", "nov", "dec", "june", "july", "march",
        "april",
    ];
    name.split(' ')
        .any(|w| stop.contains(&w.to_lowercase().as_str()))
        || name.split(' ').count()
            != name
                .split(' ')
                .collect::<std::collections::BTreeSet<_>>()
                .len()
}

const FIELDS: &[&str] = &["ceo", "licence status", "funding", "pricing", "founded"];
const VALUES: &[&str] = &[
    "Ananya Rao",
    "Ms. Ananya Rao, CEO",
    "Rohit Mehra",
    "final authorisation",
    "licence revoked",
    "in-principle authorisation",
    "Series B, $40M",
    "Series A, $10M",
    "$40 million",
    "1.9% per transaction",
    "2%",
    "2015",
    "Nandini Deshpande has been the managing director of Halden Freight since 1 July 2025.",
    "Suresh Kulkarni served as managing director from 2015 until 30 June 2025.",
    "The certificate was suspended on 16 January 2025 and reinstated on 12 May 2025.",
    "Halden Freight charges ₹44 per km for a full-truck-load trip, effective 1 April 2026.",
];
const URLS: &[&str] = &[
    "https://registry.regulator.example/a",
    "https://nimbuspay.example/about",
    "https://nimbuspay.example/press/1",
    "https://bizdaily.example/2026/1",
    "https://wire.example/copy",
    "https://blog.example/post",
    "https://forum.example/t/1",
];
const TYPES: &[SourceType] = &[
    SourceType::Regulator,
    SourceType::Official,
    SourceType::PressRelease,
    SourceType::News,
    SourceType::Other,
    SourceType::Blog,
    SourceType::Forum,
];
const DATES: &[Option<&str>] = &[
    None,
    Some("2023-05-01"),
    Some("2024-08-06"),
    Some("2025-07-01"),
    Some("2025-07-20"),
    Some("2026-09-10"),
];

fn item_strategy() -> impl Strategy<Value = (usize, usize, usize, usize, f64, bool)> {
    (
        0..FIELDS.len(),
        0..VALUES.len(),
        0..URLS.len(),
        0..DATES.len(),
        0.0f64..1.0,
        prop::bool::weighted(0.9),
    )
}

fn build(specs: &[(usize, usize, usize, usize, f64, bool)]) -> Vec<EvidenceItem> {
    specs
        .iter()
        .enumerate()
        .map(|(n, &(f, v, u, d, r, accepted))| EvidenceItem {
            id: format!("e{n:03}"),
            origin: "p".into(),
            claim: Claim {
                field: FIELDS[f].into(),
                value: VALUES[v].into(),
                snippet: VALUES[v].into(),
                event_date: None,
            },
            source: SourceRef {
                url: URLS[u].into(),
                domain: crate::document::host_of(URLS[u]),
                source_type: TYPES[u],
                published: DATES[d].map(str::to_string),
                updated: None,
                retrieved: "2026-11-29".into(),
            },
            scores: Scores {
                reliability: (r * 1000.0).round() / 1000.0,
                ..Scores::default()
            },
            accepted,
            flags: vec![],
        })
        .collect()
}

fn opts() -> MergeOptions {
    MergeOptions::new(
        score::parse_date("2026-11-29").unwrap_or_default(),
        Some("Halden Freight"),
    )
}

fn copies() -> HashMap<String, String> {
    HashMap::from([(
        "https://wire.example/copy".to_string(),
        "https://nimbuspay.example/press/1".to_string(),
    )])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn merge_does_not_depend_on_order(
        (specs, order) in prop::collection::vec(item_strategy(), 0..24).prop_flat_map(|v| {
            let n = v.len();
            (Just(v), Just((0..n).collect::<Vec<usize>>()).prop_shuffle())
        })
    ) {
        // Ids are given before shuffling, so both lists hold the same evidence.
        let items = build(&specs);
        let reordered: Vec<EvidenceItem> = order.iter().map(|&i| items[i].clone()).collect();
        let a = serde_json::to_string(&merge::merge(&items, &copies(), &opts())).unwrap_or_default();
        let b = serde_json::to_string(&merge::merge(&reordered, &copies(), &opts())).unwrap_or_default();
        prop_assert_eq!(a, b);
    }

    #[test]
    fn confidence_is_bounded_and_provenance_complete(specs in prop::collection::vec(item_strategy(), 0..30)) {
        let items = build(&specs);
        let merged = merge::merge(&items, &copies(), &opts());
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for m in &merged {
            prop_assert!((0.0..=MAX_CONFIDENCE).contains(&m.confidence));
            if m.capped {
                prop_assert!(m.confidence <= crate::evidence::fields::HIGH_STAKES_CAP);
            }
            for s in &m.supporting {
                *seen.entry(s.evidence_id.clone()).or_default() += 1;
            }
            for c in m.history.iter().chain(&m.conflicts).chain(&m.rejected) {
                prop_assert!((0.0..=MAX_CONFIDENCE).contains(&c.confidence));
                prop_assert!(!c.supporting.is_empty());
                for s in &c.supporting {
                    *seen.entry(s.evidence_id.clone()).or_default() += 1;
                }
            }
        }
        // Every accepted item appears exactly once, under its own field.
        let accepted: BTreeMap<String, usize> = items
            .iter()
            .filter(|i| i.accepted)
            .map(|i| (i.id.clone(), 1))
            .collect();
        prop_assert_eq!(seen, accepted);
        for m in &merged {
            for s in &m.supporting {
                let item = items.iter().find(|i| i.id == s.evidence_id);
                prop_assert_eq!(item.map(|i| field_for(&i.claim.field)), Some(m.field));
            }
        }
    }

    #[test]
    fn noisy_or_is_bounded_and_monotone(rs in prop::collection::vec(0.0f64..=1.0, 0..10), extra in 0.0f64..=1.0) {
        let c = noisy_or(rs.iter().copied());
        prop_assert!((0.0..=MAX_CONFIDENCE).contains(&c));
        let more = noisy_or(rs.iter().copied().chain([extra]));
        prop_assert!(more + 1e-12 >= c);
        if let Some(max) = rs.iter().copied().reduce(f64::max) {
            prop_assert!(c + 1e-12 >= max.min(MAX_CONFIDENCE));
        }
    }

    #[test]
    fn scores_stay_in_range(
        u in 0..URLS.len(),
        d in 0..DATES.len(),
        identity in -1.0f64..2.0,
        value in "\\PC{0,40}",
        snippet in "\\PC{0,60}",
        event in "\\PC{0,12}",
    ) {
        let claim = Claim { field: "x".into(), value, snippet, event_date: Some(event) };
        let source = SourceRef {
            url: URLS[u].into(),
            domain: crate::document::host_of(URLS[u]),
            source_type: TYPES[u],
            published: DATES[d].map(str::to_string),
            updated: None,
            retrieved: "2026-11-29".into(),
        };
        for f in Field::ALL {
            let s = score::score(f, &claim, &source, identity, opts().today);
            for x in [s.identity, s.authority, s.freshness, s.completeness, s.reliability] {
                prop_assert!((0.0..=1.0).contains(&x));
            }
        }
    }

    #[test]
    fn value_handling_never_panics_and_normalising_is_stable(value in "\\PC{0,80}", f in 0..Field::ALL.len()) {
        let once = normalize_value(&value);
        prop_assert_eq!(normalize_value(&once), once.clone());
        let field = Field::ALL[f];
        let keys = values::key_tokens(&value, field, &values::entity_tokens(Some("Halden Freight")));
        prop_assert!(values::same_value(&keys, &keys, 0.6).is_some() || keys.is_empty());
        let _ = values::sentence_date(&value, opts().today);
        let _ = score::parse_date(&value);
        let _ = field_for(&value);
    }

    #[test]
    fn value_keys_keep_distinct_values_apart(
        n in 1u32..100_000,
        frac in prop::option::of(1u32..100),
        unit in 0usize..VALUE_UNITS.len(),
        other_unit in 0usize..VALUE_UNITS.len(),
        bump in 1u32..9,
        name in "[A-Z][a-z]{2,8}( [A-Z][a-z]{2,8}){0,2}",
        pos in 0usize..30,
        letter in "[a-z]",
        f in 0..Field::ALL.len(),
    ) {
        let field = Field::ALL[f];
        let e = values::entity_tokens(Some("Acme"));
        let keys = |v: &str| values::key_tokens(v, field, &e);
        let differ = |a: &str, b: &str| {
            prop_assert_ne!(normalize_value(a), normalize_value(b), "{} / {}", a, b);
            prop_assert!(values::same_value(&keys(a), &keys(b), 0.6).is_none(), "{} / {}", a, b);
            Ok(())
        };
        let number = match frac {
            Some(x) => format!("{n}.{x}"),
            None => n.to_string(),
        };
        let with = |num: &str, u: usize| VALUE_UNITS[u].replace('N', num);
        // A digit changed.
        let bumped = match frac {
            Some(x) => format!("{n}.{}", x + bump * 100),
            None => (n + bump).to_string(),
        };
        differ(&with(&number, unit), &with(&bumped, unit))?;
        // A unit changed.
        // (Currencies are symbols the normaliser drops, kept as key tokens;
        // a bare number gains a unit rather than changing one.)
        let (a, b) = (with(&number, unit), with(&number, other_unit));
        let bare = |i: usize| VALUE_UNITS[i] == "N";
        if unit != other_unit && !(bare(unit) && is_currency(other_unit)) && !(bare(other_unit) && is_currency(unit)) {
            if is_currency(unit) && is_currency(other_unit) {
                prop_assert!(values::same_value(&keys(&a), &keys(&b), 0.6).is_none(), "{} / {}", a, b);
            } else {
                differ(&a, &b)?;
            }
        }
        // A letter changed in a name.
        let chars: Vec<char> = name.chars().collect();
        let i = pos % chars.len();
        let l = letter.chars().next().unwrap_or('x');
        if chars[i].is_ascii_lowercase() && chars[i] != l {
            let mut other = chars.clone();
            other[i] = l;
            let other: String = other.into_iter().collect();
            prop_assert_ne!(normalize_value(&name), normalize_value(&other));
            if !is_common_word(&name) && !is_common_word(&other) {
                prop_assert!(values::same_value(&keys(&name), &keys(&other), 0.6).is_none(), "{} / {}", name, other);
            }
        }
    }

    #[test]
    fn normalising_any_value_is_idempotent(value in "[A-Za-z0-9 .,%$₹€:/-]{0,40}( (ms|km|GB|crore|version|v)[0-9. ]{0,6})?") {
        let once = normalize_value(&value);
        prop_assert_eq!(normalize_value(&once), once);
    }

    #[test]
    fn origins_are_total_idempotent_and_order_free(
        picks in prop::collection::vec((0usize..4, 0usize..3), 0..12)
    ) {
        const TEXTS: &[&str] = &[
            "Halden Freight raised 120 crore in a round led by Deccan Growth Partners, the company said on Tuesday in Nagpur.",
            "An independent report: the operator raised money from a growth fund, according to people familiar with the deal.",
            "",
            "short text",
        ];
        let urls: Vec<String> = picks.iter().enumerate().map(|(i, _)| format!("https://s{i}.example/")).collect();
        let docs: Vec<DocForDedup> = picks
            .iter()
            .zip(&urls)
            .map(|(&(t, d), url)| DocForDedup {
                url,
                text: TEXTS[t],
                published: [None, Some("2024-01-01"), Some("2024-02-01")][d],
                authority: 0.5,
            })
            .collect();
        let o = dedup::origins(&docs);
        prop_assert_eq!(o.len(), docs.len());
        for origin in o.values() {
            prop_assert_eq!(o.get(origin), Some(origin));
        }
        let mut rev = docs.clone();
        rev.reverse();
        prop_assert_eq!(dedup::origins(&rev), o);
    }

    #[test]
    fn a_value_states_itself_and_never_a_changed_number(
        before in "[A-Za-z]{1,8}( [A-Za-z]{1,8}){0,3}",
        n in 0u32..1_000_000,
        after in "[A-Za-z]{0,8}",
    ) {
        let value = format!("{before} {n} {after}");
        prop_assert!(values::states_value(&value, &value));
        let in_sentence = format!("It is {value}, they said.");
        prop_assert!(values::states_value(&in_sentence, &value));
        let changed = format!("{before} {} {after}", n + 1);
        prop_assert!(!values::states_value(&changed, &value), "{changed:?} states {value:?}");
        let longer = format!("{before} {n}1 {after}");
        prop_assert!(!values::states_value(&longer, &value), "{longer:?} states {value:?}");
    }
}
