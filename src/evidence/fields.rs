//! The claim fields of organisation research and what each one needs: how
//! fast it ages, whether only the latest value counts, whether it needs extra
//! proof, and which kinds of source are authoritative for it.
//!
//! Researching something else means editing this file: the vocabulary, the
//! half-lives, the high-stakes set and the authority overrides all live here.

use serde::{Deserialize, Serialize};

use super::SourceType;

/// One kind of fact a report states about an organisation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Field {
    /// Who runs it: CEO, managing director, leadership.
    Ceo,
    Founders,
    Headquarters,
    /// The founding year.
    Founded,
    /// Licence, authorisation, registration or certification.
    RegulatoryStatus,
    /// Rounds raised and who led them.
    Funding,
    Valuation,
    /// Operational reliability: uptime, outages, on-time rate.
    Reliability,
    /// Breaches, hacks, fraud, data leaks.
    SecurityIncident,
    Pricing,
    /// What customers say: ratings, reviews, complaints.
    Sentiment,
    Employees,
    /// Fleet, warehouses, throughput: what the organisation can deliver.
    Capacity,
    Customers,
    Other,
}

impl Field {
    pub const ALL: [Field; 15] = [
        Field::Ceo,
        Field::Founders,
        Field::Headquarters,
        Field::Founded,
        Field::RegulatoryStatus,
        Field::Funding,
        Field::Valuation,
        Field::Reliability,
        Field::SecurityIncident,
        Field::Pricing,
        Field::Sentiment,
        Field::Employees,
        Field::Capacity,
        Field::Customers,
        Field::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Field::Ceo => "ceo",
            Field::Founders => "founders",
            Field::Headquarters => "headquarters",
            Field::Founded => "founded",
            Field::RegulatoryStatus => "regulatory_status",
            Field::Funding => "funding",
            Field::Valuation => "valuation",
            Field::Reliability => "reliability",
            Field::SecurityIncident => "security_incident",
            Field::Pricing => "pricing",
            Field::Sentiment => "sentiment",
            Field::Employees => "employees",
            Field::Capacity => "capacity",
            Field::Customers => "customers",
            Field::Other => "other",
        }
    }

    /// The canonical name (or a listed alias) back to the field; free text
    /// goes through [`field_for`] instead.
    pub fn parse(s: &str) -> Option<Field> {
        let s = s.trim().to_ascii_lowercase().replace(['-', ' '], "_");
        if let Some(f) = Field::ALL.iter().find(|f| f.as_str() == s) {
            return Some(*f);
        }
        Some(match s.as_str() {
            "leadership" | "managing_director" | "md" => Field::Ceo,
            "hq" => Field::Headquarters,
            "founding_year" => Field::Founded,
            "licence" | "license" | "regulatory" | "certification" => Field::RegulatoryStatus,
            "fleet" => Field::Capacity,
            "headcount" => Field::Employees,
            _ => return None,
        })
    }

    /// One line for prompts and reports.
    pub fn description(self) -> &'static str {
        match self {
            Field::Ceo => "who currently leads the organisation (CEO, managing director)",
            Field::Founders => "who founded the organisation",
            Field::Headquarters => "where the organisation is headquartered",
            Field::Founded => "the year the organisation was founded",
            Field::RegulatoryStatus => {
                "licence, authorisation, registration or certification status"
            }
            Field::Funding => "funding rounds: stage, amount, lead investors",
            Field::Valuation => "the latest reported valuation",
            Field::Reliability => "operational reliability: uptime, outages, on-time rate",
            Field::SecurityIncident => "security incidents: breaches, hacks, fraud, data leaks",
            Field::Pricing => "prices, fees and rate cards",
            Field::Sentiment => "customer sentiment: ratings, reviews, complaints",
            Field::Employees => "number of employees",
            Field::Capacity => "capacity: fleet, warehouses, throughput",
            Field::Customers => "customers and notable clients",
            Field::Other => "anything else",
        }
    }

    /// Days after which a claim is worth half as fresh.
    pub fn half_life_days(self) -> f64 {
        match self {
            Field::Ceo => 365.0,
            Field::Founders => 3650.0,
            Field::Headquarters => 3650.0,
            // A founding year never changes; only typos age.
            Field::Founded => 36500.0,
            Field::RegulatoryStatus => 365.0,
            Field::Funding => 730.0,
            Field::Valuation => 365.0,
            Field::Reliability => 180.0,
            Field::SecurityIncident => 365.0,
            Field::Pricing => 180.0,
            Field::Sentiment => 180.0,
            Field::Employees => 365.0,
            Field::Capacity => 365.0,
            Field::Customers => 365.0,
            Field::Other => 365.0,
        }
    }

    /// Whether the value changes over time so that only the latest holds
    /// (older values become history rather than conflicts).
    pub fn time_sensitive(self) -> bool {
        match self {
            Field::Ceo
            | Field::RegulatoryStatus
            | Field::Funding
            | Field::Valuation
            | Field::Reliability
            | Field::Pricing
            | Field::Sentiment
            | Field::Employees
            | Field::Capacity
            | Field::Customers => true,
            // Incidents accumulate: an older incident is not replaced by a
            // newer one, so they are compared on strength alone.
            Field::SecurityIncident
            | Field::Founders
            | Field::Headquarters
            | Field::Founded
            | Field::Other => false,
        }
    }

    /// Whether a wrong value does real harm: such claims need a regulator or
    /// official source, or two independent origins, else their confidence
    /// is capped at [`HIGH_STAKES_CAP`].
    pub fn high_stakes(self) -> bool {
        matches!(self, Field::RegulatoryStatus | Field::SecurityIncident)
    }

    /// How authoritative a kind of source is for this field, in [0, 1].
    pub fn authority(self, source: SourceType) -> f64 {
        field_override(self, source).unwrap_or_else(|| base_authority(source))
    }
}

impl std::fmt::Display for Field {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The most a high-stakes claim without a regulator or official source and
/// without two independent origins may be believed.
pub const HIGH_STAKES_CAP: f64 = 0.35;

/// Authority of a source type when the field has no opinion of its own.
pub fn base_authority(source: SourceType) -> f64 {
    match source {
        SourceType::Regulator => 1.0,
        SourceType::Official => 0.85,
        SourceType::News => 0.70,
        SourceType::PressRelease => 0.70,
        SourceType::Review => 0.55,
        SourceType::Other => 0.40,
        SourceType::Forum => 0.35,
        SourceType::Blog => 0.30,
    }
}

/// Where a field trusts a source type more or less than usual.
fn field_override(field: Field, source: SourceType) -> Option<f64> {
    use SourceType as S;
    Some(match (field, source) {
        // A registry is the authority on a licence; a blog never is.
        (Field::RegulatoryStatus, S::Official) => 0.80,
        (Field::RegulatoryStatus, S::News) => 0.60,
        (Field::RegulatoryStatus, S::PressRelease) => 0.65,
        (Field::RegulatoryStatus, S::Review) => 0.15,
        (Field::RegulatoryStatus, S::Forum) => 0.10,
        (Field::RegulatoryStatus, S::Blog) => 0.05,
        (Field::RegulatoryStatus, S::Other) => 0.20,
        // Independent news is the best check on an incident the company
        // might downplay; the company's own word counts for less.
        (Field::SecurityIncident, S::News) => 0.80,
        (Field::SecurityIncident, S::Official) => 0.60,
        (Field::SecurityIncident, S::PressRelease) => 0.50,
        (Field::SecurityIncident, S::Forum) => 0.40,
        (Field::SecurityIncident, S::Blog) => 0.25,
        // Review sites are the authority on ratings; the company on its own
        // customers is biased.
        (Field::Sentiment, S::Review) => 0.80,
        (Field::Sentiment, S::Forum) => 0.55,
        (Field::Sentiment, S::News) => 0.60,
        (Field::Sentiment, S::Official) => 0.30,
        (Field::Sentiment, S::PressRelease) => 0.25,
        (Field::Sentiment, S::Blog) => 0.40,
        // Users notice outages in real time; self-reported uptime is
        // marketing as much as measurement.
        (Field::Reliability, S::Forum) => 0.50,
        (Field::Reliability, S::Review) => 0.60,
        (Field::Reliability, S::Official) => 0.70,
        (Field::Reliability, S::PressRelease) => 0.55,
        // The company is the authority on its own prices.
        (Field::Pricing, S::Official) => 1.0,
        (Field::Pricing, S::Regulator) => 0.80,
        (Field::Pricing, S::News) => 0.60,
        (Field::Pricing, S::Review) => 0.60,
        (Field::Pricing, S::PressRelease) => 0.75,
        // Rounds are announced by the company and checked by the press.
        (Field::Funding, S::PressRelease) => 0.80,
        (Field::Funding, S::News) => 0.80,
        (Field::Funding, S::Regulator) => 0.90,
        // Valuations are usually anonymous sourcing or company spin.
        (Field::Valuation, S::Official) => 0.65,
        (Field::Valuation, S::PressRelease) => 0.60,
        (Field::Valuation, S::Regulator) => 0.90,
        // Company registries list directors and addresses.
        (Field::Ceo | Field::Founders | Field::Headquarters | Field::Founded, S::Regulator) => 0.95,
        (Field::Ceo | Field::Founders | Field::Headquarters | Field::Founded, S::Official) => 0.90,
        (Field::Ceo | Field::Founders | Field::Headquarters | Field::Founded, S::PressRelease) => {
            0.80
        }
        (Field::Ceo | Field::Founders | Field::Headquarters | Field::Founded, S::News) => 0.75,
        _ => return None,
    })
}

/// A keyword: words matched in order on consecutive words of the text; a
/// word ending in `*` matches as a prefix.
type Keywords = &'static [&'static str];

/// Checked in order: the more specific fields first, so "merchant sentiment"
/// is sentiment and not customers, "security incidents" is not reliability,
/// "regulatory review" is not sentiment, "security certification" is a
/// certification, and "head office" is not leadership.
const KEYWORDS: &[(Field, Keywords)] = &[
    (
        Field::SecurityIncident,
        &[
            "security incident*",
            "security breach*",
            "breach*",
            "hack*",
            "cyber*",
            "data leak*",
            "leak*",
            "fraud*",
            "vulnerab*",
            "ransomware",
            "phishing",
            "compromised",
            "exploit*",
            "attack*",
        ],
    ),
    (
        Field::Headquarters,
        &[
            "headquarter*",
            "hq",
            "head office*",
            "registered office*",
            "based in",
            "where is",
            "address*",
            "located",
            "location*",
        ],
    ),
    (
        Field::RegulatoryStatus,
        &[
            "licen*",
            "regulat*",
            "authoris*",
            "authoriz*",
            "certif*",
            "accredit*",
            "permit*",
            "complian*",
            "registration*",
            "approval*",
            "audit*",
            "iso",
            "pci",
            "sanction*",
            "supervis*",
        ],
    ),
    (
        Field::Sentiment,
        &[
            "sentiment*",
            "review*",
            "rating*",
            "rated",
            "reputation*",
            "complain*",
            "feedback",
            "satisfaction",
            "opinion*",
            "nps",
            "trustpilot",
            "testimonial*",
            "stars",
        ],
    ),
    // "Security" alone, once certifications are ruled out.
    (Field::SecurityIncident, &["secur*"]),
    (
        Field::Valuation,
        &["valuation*", "valued", "worth", "market cap*", "unicorn"],
    ),
    (
        Field::Funding,
        &[
            "fund*",
            "raise*",
            "raising",
            "investor*",
            "investment*",
            "invested",
            "series",
            "seed",
            "round*",
            "capital",
            "ipo",
            "backed",
            "backers",
        ],
    ),
    (Field::Founders, &["founder*", "cofounder*", "who founded"]),
    (
        Field::Founded,
        &[
            "founded",
            "founding",
            "established",
            "incorporated",
            "inception",
            "year started",
        ],
    ),
    (
        Field::Ceo,
        &[
            "ceo*",
            "chief executive*",
            "managing director*",
            "md",
            "leader*",
            "management",
            "executive*",
            "president*",
            "chair*",
            "boss",
            "head of",
            "director*",
            "cto",
            "cfo",
            "coo",
            "board",
            "runs",
        ],
    ),
    (
        Field::Reliability,
        &[
            "reliab*",
            "uptime",
            "downtime*",
            "outage*",
            "availability",
            "on time",
            "ontime",
            "delay*",
            "incident*",
            "sla",
            "slas",
            "latency",
            "performance",
            "service quality",
            "success rate*",
            "delivery rate*",
            "disruption*",
        ],
    ),
    (
        Field::Pricing,
        &[
            "pric*",
            "fee*",
            "cost*",
            "rate card*",
            "rates",
            "tariff*",
            "charge*",
            "commission*",
            "mdr",
            "refund*",
            "subscription*",
            "plans",
        ],
    ),
    (
        Field::Employees,
        &[
            "employee*",
            "staff*",
            "headcount*",
            "workforce",
            "team size*",
            "hiring",
            "layoff*",
            "people",
        ],
    ),
    (
        Field::Capacity,
        &[
            "fleet*",
            "capacity",
            "truck*",
            "vehicle*",
            "aircraft",
            "warehouse*",
            "throughput",
            "per second",
            "per minute",
            "per hour",
            "volume*",
            "branches",
            "footprint",
            "infrastructure",
        ],
    ),
    (
        Field::Customers,
        &[
            "customer*",
            "client*",
            "merchant*",
            "user*",
            "partner*",
            "clientele",
        ],
    ),
];

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn matches_keyword(words: &[String], keyword: &str) -> bool {
    let parts: Vec<&str> = keyword.split(' ').collect();
    if parts.is_empty() || parts.len() > words.len() {
        return false;
    }
    words.windows(parts.len()).any(|window| {
        window
            .iter()
            .zip(&parts)
            .all(|(w, p)| match p.strip_suffix('*') {
                Some(prefix) => w.starts_with(prefix),
                None => w == p,
            })
    })
}

/// Whether a text speaks of the field at all: it contains one of the
/// field's keywords. [`Field::Other`] has none, so anything speaks of it.
/// Used to set aside quoted sentences filed under the wrong field (an
/// on-time rate quoted as "pricing").
pub fn mentions(field: Field, text: &str) -> bool {
    if field == Field::Other {
        return true;
    }
    let words = words(text);
    KEYWORDS
        .iter()
        .filter(|(f, _)| *f == field)
        .any(|(_, keywords)| keywords.iter().any(|k| matches_keyword(&words, k)))
}

/// Maps a field name, an aspect of a research plan or a claim label
/// ("licence status", "merchant sentiment", "managing director") to a field.
/// Keyword based and generic; anything unrecognised is [`Field::Other`].
pub fn field_for(aspect_or_label: &str) -> Field {
    if let Some(f) = Field::parse(aspect_or_label) {
        return f;
    }
    let words = words(aspect_or_label);
    KEYWORDS
        .iter()
        .find(|(_, keywords)| keywords.iter().any(|k| matches_keyword(&words, k)))
        .map(|(f, _)| *f)
        .unwrap_or(Field::Other)
}

/// Where a claim is merged: the behaviour of a known [`Field`] (half-life,
/// authority, what part of a sentence carries the value) and the key that
/// groups claims about one thing.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct FieldKey {
    pub field: Field,
    /// `ceo`, `pricing`, ... for a field of the vocabulary that one aspect
    /// owns; the aspect's slug (`which_cities_have_adopted_it`) otherwise.
    pub key: String,
    /// The aspect or label, for people.
    pub label: String,
}

/// A label as a key: lowercase words joined by `_`, at most 60 characters.
pub fn slug(label: &str) -> String {
    let mut out = String::new();
    for w in words(label) {
        if out.len() + w.len() + 1 > 60 {
            break;
        }
        if !out.is_empty() {
            out.push('_');
        }
        out.push_str(&w);
    }
    if out.is_empty() { "other".into() } else { out }
}

/// The fields of one run, from the plan's aspects: an aspect that maps to a
/// field of the vocabulary no other aspect maps to is keyed by that field
/// (so claims labelled `ceo` and the aspect "leadership" meet); an aspect
/// that maps to none, or shares its field with another aspect ("price of
/// A", "price of B"), is its own field, keyed by the aspect.
#[derive(Debug, Clone, Default)]
pub struct FieldKeys {
    aspects: Vec<FieldKey>,
}

impl FieldKeys {
    pub fn new<S: AsRef<str>>(aspects: &[S]) -> FieldKeys {
        let mut seen = std::collections::BTreeSet::new();
        let labels: Vec<&str> = aspects
            .iter()
            .map(|a| a.as_ref().trim())
            .filter(|a| !a.is_empty() && seen.insert(slug(a)))
            .collect();
        let fields: Vec<Field> = labels.iter().map(|a| field_for(a)).collect();
        let aspects = labels
            .iter()
            .zip(&fields)
            .map(|(label, &field)| {
                let shared = fields.iter().filter(|&&f| f == field).count() > 1;
                let key = if field == Field::Other || shared {
                    slug(label)
                } else {
                    field.as_str().to_string()
                };
                FieldKey {
                    field,
                    key,
                    label: label.to_string(),
                }
            })
            .collect();
        FieldKeys { aspects }
    }

    /// The key of a claim labelled `label` (an aspect, or a field name a
    /// model chose); `context` (its value and quote) picks among aspects
    /// that share a field.
    pub fn key_for(&self, label: &str, context: &str) -> FieldKey {
        let label = label.trim();
        let s = slug(label);
        if let Some(a) = self.aspects.iter().find(|a| slug(&a.label) == s) {
            return a.clone();
        }
        let field = field_for(label);
        if field != Field::Other {
            let owners: Vec<&FieldKey> = self.aspects.iter().filter(|a| a.field == field).collect();
            match owners.as_slice() {
                [one] => return (*one).clone(),
                [] => {}
                many => {
                    // The aspect whose own words (those no sibling has)
                    // the claim mentions.
                    let ctx: std::collections::BTreeSet<String> =
                        words(context).into_iter().collect();
                    let own = |a: &FieldKey| {
                        words(&a.label)
                            .into_iter()
                            .filter(|w| {
                                w.len() > 2
                                    && many
                                        .iter()
                                        .filter(|b| b.key != a.key)
                                        .all(|b| !words(&b.label).contains(w))
                            })
                            .any(|w| ctx.contains(&w))
                    };
                    let hits: Vec<&&FieldKey> = many.iter().filter(|a| own(a)).collect();
                    if let [one] = hits.as_slice() {
                        return (**one).clone();
                    }
                }
            }
            return FieldKey {
                field,
                key: field.as_str().to_string(),
                label: field.as_str().replace('_', " "),
            };
        }
        FieldKey {
            field,
            key: s,
            label: label.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aspects_become_fields() {
        let keys = FieldKeys::new(&[
            "leadership",
            "what changed in version 3",
            "which cities have adopted it",
            "price of WireGuard",
            "price of OpenVPN",
        ]);
        let k = |label: &str, ctx: &str| keys.key_for(label, ctx).key;
        assert_eq!(k("leadership", ""), "ceo");
        assert_eq!(
            k("ceo", "Kavya Menon is CEO"),
            "ceo",
            "a field name meets its aspect"
        );
        assert_eq!(
            k("which cities have adopted it", ""),
            "which_cities_have_adopted_it"
        );
        assert_eq!(
            keys.key_for("which cities have adopted it", "").field,
            Field::Other
        );
        assert_eq!(
            k("what changed in version 3", ""),
            "what_changed_in_version_3"
        );
        // Two aspects about prices are two fields, never one another's history.
        assert_eq!(k("price of WireGuard", ""), "price_of_wireguard");
        assert_eq!(k("price of OpenVPN", ""), "price_of_openvpn");
        assert_eq!(
            k("pricing", "OpenVPN Access Server costs $15 a month"),
            "price_of_openvpn"
        );
        assert_eq!(k("pricing", "no product named"), "pricing");
        // A label no aspect owns keeps its own key.
        assert_eq!(k("market share", ""), "market_share");
        assert_eq!(
            FieldKeys::default().key_for("licence status", "").key,
            "regulatory_status"
        );
    }

    #[test]
    fn names_round_trip() {
        for f in Field::ALL {
            assert_eq!(Field::parse(f.as_str()), Some(f));
            assert_eq!(field_for(f.as_str()), f);
            let json = serde_json::to_string(&f).unwrap();
            assert_eq!(json, format!("\"{}\"", f.as_str()));
        }
        assert_eq!(Field::parse("fleet"), Some(Field::Capacity));
        assert_eq!(Field::parse("nonsense"), None);
    }

    #[test]
    fn maps_free_text_to_fields() {
        let cases = [
            ("licence status", Field::RegulatoryStatus),
            ("licence and regulatory status", Field::RegulatoryStatus),
            ("License", Field::RegulatoryStatus),
            ("certification", Field::RegulatoryStatus),
            ("ISO 27001 certification", Field::RegulatoryStatus),
            ("merchant sentiment", Field::Sentiment),
            ("customer sentiment", Field::Sentiment),
            ("Trustpilot rating", Field::Sentiment),
            ("CEO", Field::Ceo),
            ("managing director", Field::Ceo),
            ("leadership", Field::Ceo),
            ("who runs the company", Field::Ceo),
            ("founders", Field::Founders),
            ("co-founder", Field::Founders),
            ("year founded", Field::Founded),
            ("founding year", Field::Founded),
            ("head office", Field::Headquarters),
            ("headquarters", Field::Headquarters),
            ("funding", Field::Funding),
            ("Series B round", Field::Funding),
            ("valuation", Field::Valuation),
            ("reliability and incidents", Field::Reliability),
            ("uptime", Field::Reliability),
            ("on-time delivery rate", Field::Reliability),
            ("security incidents", Field::SecurityIncident),
            ("data breach", Field::SecurityIncident),
            ("pricing", Field::Pricing),
            ("fees", Field::Pricing),
            ("MDR", Field::Pricing),
            ("number of employees", Field::Employees),
            ("fleet size", Field::Capacity),
            ("refrigerated trucks", Field::Capacity),
            ("notable customers", Field::Customers),
            ("security certification", Field::RegulatoryStatus),
            ("regulatory review", Field::RegulatoryStatus),
            ("card fraud", Field::SecurityIncident),
            ("security", Field::SecurityIncident),
            ("startup stage", Field::Other),
            ("investigation", Field::Other),
            ("weather", Field::Other),
            ("", Field::Other),
        ];
        for (text, want) in cases {
            assert_eq!(field_for(text), want, "{text:?}");
        }
    }

    #[test]
    fn words_are_matched_whole_or_by_declared_prefix() {
        // "refund" is not "fund", "mdr" is not "md", "founded" is not "founder".
        assert_eq!(field_for("refund policy"), Field::Pricing);
        assert_eq!(field_for("MDR"), Field::Pricing);
        assert_eq!(field_for("founded"), Field::Founded);
    }

    #[test]
    fn tells_whether_a_sentence_speaks_of_a_field() {
        let on_time = "Halden Freight achieved an on-time delivery rate of 97.2% in FY2025-26.";
        assert!(mentions(Field::Reliability, on_time));
        assert!(!mentions(Field::Pricing, on_time));
        assert!(mentions(Field::Pricing, "It charges 44 per km."));
        assert!(mentions(
            Field::Ceo,
            "She became managing director in 2025."
        ));
        assert!(mentions(Field::Other, "anything"));
    }

    #[test]
    fn authority_follows_the_field() {
        use SourceType as S;
        assert_eq!(Field::Sentiment.authority(S::Review), 0.80);
        assert_eq!(Field::SecurityIncident.authority(S::News), 0.80);
        assert_eq!(Field::Reliability.authority(S::Forum), 0.50);
        assert_eq!(Field::RegulatoryStatus.authority(S::Regulator), 1.0);
        assert!(Field::RegulatoryStatus.authority(S::Blog) < 0.1);
        assert!(Field::Pricing.authority(S::Official) > Field::Pricing.authority(S::Blog));
        for f in Field::ALL {
            for s in [
                S::Regulator,
                S::Official,
                S::News,
                S::PressRelease,
                S::Review,
                S::Forum,
                S::Blog,
                S::Other,
            ] {
                let a = f.authority(s);
                assert!((0.0..=1.0).contains(&a), "{f} {s:?} {a}");
            }
            assert!(f.half_life_days() > 0.0);
        }
    }

    #[test]
    fn stakes_and_time() {
        assert!(Field::RegulatoryStatus.high_stakes());
        assert!(Field::SecurityIncident.high_stakes());
        assert!(!Field::Pricing.high_stakes());
        assert!(Field::Ceo.time_sensitive());
        assert!(Field::Pricing.time_sensitive());
        assert!(!Field::Founded.time_sensitive());
        assert!(Field::Founded.half_life_days() > 10_000.0);
    }
}
