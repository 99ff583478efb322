//! The identity gate: is this page about the entity we research, or a
//! look-alike? Identity is a gate (below [`IDENTITY_GATE`] the page is
//! rejected however good the rest), not a weight.

use serde::Serialize;

use crate::protocol::EntityAnchors;

pub const IDENTITY_GATE: f64 = 0.5;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IdentityCheck {
    pub score: f64,
    /// Anchors the page matched (`name`, `domain`, `country`, `city`, `industry`).
    pub matched: Vec<String>,
    /// Why the page is about someone else, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lookalike: Option<String>,
    /// The name was inferred from the question: the score ranks the page
    /// but only a look-alike fails it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub inferred: bool,
}

impl IdentityCheck {
    pub fn passes(&self) -> bool {
        self.lookalike.is_none() && (self.inferred || self.score >= IDENTITY_GATE)
    }
}

/// Legal-form words a name may carry or drop ("Halden Freight Pvt Ltd").
const LEGAL_SUFFIXES: &[&str] = &[
    "ltd",
    "limited",
    "inc",
    "incorporated",
    "llc",
    "llp",
    "lp",
    "gmbh",
    "ag",
    "sa",
    "sas",
    "sarl",
    "srl",
    "spa",
    "pvt",
    "private",
    "plc",
    "corp",
    "corporation",
    "co",
    "company",
    "bv",
    "nv",
    "oy",
    "ab",
    "as",
    "asa",
    "kk",
    "pty",
    "pte",
    "bhd",
    "sdn",
];

/// Titles before a person's name ("President Obama", "Dr Jane Doe").
const TITLES: &[&str] = &[
    "president",
    "former",
    "vice",
    "prime",
    "minister",
    "mr",
    "mrs",
    "ms",
    "miss",
    "dr",
    "prof",
    "professor",
    "sir",
    "dame",
    "lord",
    "lady",
    "senator",
    "sen",
    "governor",
    "gov",
    "rep",
    "representative",
    "mayor",
    "chancellor",
    "king",
    "queen",
    "prince",
    "princess",
    "pope",
    "judge",
    "justice",
    "general",
    "gen",
    "ceo",
    "chairman",
    "chair",
    "secretary",
    "premier",
];

/// Other ways a text names the entity, each with how strongly it
/// identifies it: the name without its legal form (1.0), without a title
/// ("President Obama" → "Obama", 0.9), a product inside a longer name
/// ("Firefox Reader View" → "Reader View", 0.6). Folded forms.
fn aliases(name: &str) -> Vec<(String, f64)> {
    let folded = fold(name);
    let mut words: Vec<&str> = folded.split(' ').filter(|w| !w.is_empty()).collect();
    let mut out: Vec<(String, f64)> = Vec::new();
    let push = |alias: String, strength: f64, out: &mut Vec<(String, f64)>| {
        if !alias.is_empty() && alias != folded && !out.iter().any(|(a, _)| *a == alias) {
            out.push((alias, strength));
        }
    };
    while words.len() > 1 && words.last().is_some_and(|w| LEGAL_SUFFIXES.contains(w)) {
        words.pop();
    }
    push(words.join(" "), 1.0, &mut out);
    let mut titled = false;
    while words.len() > 1 && words.first().is_some_and(|w| TITLES.contains(w)) {
        words.remove(0);
        titled = true;
    }
    if titled {
        push(words.join(" "), 0.9, &mut out);
        if let Some(last) = words.last().filter(|w| w.chars().count() >= 3) {
            push(last.to_string(), 0.9, &mut out);
        }
    } else if words.len() >= 3 {
        // A product inside a longer name: the last two words.
        push(words[words.len() - 2..].join(" "), 0.6, &mut out);
    }
    out
}

/// The name's acronym ("Open Transit Feed" → "OTF"), when it has one: two
/// or more capitalised words, legal forms left out.
fn acronym(name: &str) -> Option<String> {
    let words: Vec<&str> = name
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .filter(|w| !LEGAL_SUFFIXES.contains(&w.to_lowercase().as_str()))
        .collect();
    if words.len() < 2
        || !words
            .iter()
            .all(|w| w.chars().next().is_some_and(char::is_uppercase))
    {
        return None;
    }
    let a: String = words.iter().filter_map(|w| w.chars().next()).collect();
    (a.chars().count() >= 2).then_some(a)
}

/// How strongly a text names the entity: 1.0 for the name (or the name
/// without its legal form), less for a title-less surname, an acronym (as
/// a whole, case-sensitive word) or a product inside the longer name.
pub fn name_strength(name: &str, text: &str) -> f64 {
    let body = fold(text);
    if contains_words(&body, name) {
        return 1.0;
    }
    let mut best: f64 = 0.0;
    for (alias, strength) in aliases(name) {
        if contains_words(&body, &alias) {
            best = best.max(strength);
        }
    }
    if let Some(a) = acronym(name)
        && text.split(|c: char| !c.is_alphanumeric()).any(|w| w == a)
    {
        best = best.max(0.6);
    }
    if let Some(head) = capitals_head(name)
        && text
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| w == head)
    {
        best = best.max(0.8);
    }
    best
}

/// The upper-case word that names a thing followed by lowercase words
/// saying what kind of thing it is ("WAL mode", "JSON type", "FTS5
/// extension"): the word alone names it, as a whole upper-case word.
fn capitals_head(name: &str) -> Option<&str> {
    let mut words = name.split_whitespace();
    let head = words.next()?;
    let rest: Vec<&str> = words.collect();
    let capitals = head.chars().count() >= 2
        && head
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        && head.chars().any(|c| c.is_ascii_uppercase());
    let kind = !rest.is_empty()
        && rest.len() <= 2
        && rest.iter().all(|w| w.chars().all(|c| c.is_lowercase()));
    (capitals && kind).then_some(head)
}

/// Folds text for name matching: lowercase, letters and digits only, words
/// separated by single spaces.
fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut sep = true;
    for c in text.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
            sep = false;
        } else if !sep {
            out.push(' ');
            sep = true;
        }
    }
    out.trim_end().to_string()
}

fn contains_words(haystack_folded: &str, needle: &str) -> bool {
    let needle = fold(needle);
    if needle.is_empty() {
        return false;
    }
    let padded = format!(" {haystack_folded} ");
    padded.contains(&format!(" {needle} "))
}

/// Scores one page against the anchors, from its words alone.
pub fn check(anchors: &EntityAnchors, url: &str, title: &str, text: &str) -> IdentityCheck {
    check_with(anchors, url, title, text, &PageSignals::default())
}

/// Scores one page against the anchors, reading its category, country and
/// legal-name signals too ([`super::category`]): a page that names the
/// entity but sits in another industry, another country or carries another
/// legal form is a look-alike, and the reason says which signal said so.
pub fn check_with(
    anchors: &EntityAnchors,
    url: &str,
    title: &str,
    text: &str,
    signals: &PageSignals,
) -> IdentityCheck {
    let Some(name) = anchors.name.as_deref().filter(|n| !n.trim().is_empty()) else {
        // Nothing to check against: no gate.
        return IdentityCheck {
            score: 1.0,
            matched: vec![],
            lookalike: None,
            inferred: false,
        };
    };
    // Names inside domains and e-mail addresses ("padmapay-uk.example") are
    // not mentions of the entity.
    static ADDRESS: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| crate::re(r"\S*[A-Za-z0-9]\.[A-Za-z]{2,}\S*|\S+@\S+"));
    let body_raw = ADDRESS
        .replace_all(&format!("{title}\n{text}"), " ")
        .into_owned();
    let body = fold(&body_raw);
    let host = host_of(url);
    let mut matched = Vec::new();

    for excluded in &anchors.exclude {
        if fold(excluded) != fold(name) && contains_words(&body, excluded) {
            return IdentityCheck {
                score: 0.0,
                matched,
                lookalike: Some(format!("mentions excluded look-alike {excluded:?}")),
                inferred: anchors.inferred,
            };
        }
    }

    let alias = name_strength(name, &body_raw);
    let exact = alias >= 1.0;
    let squashed_name: String = fold(name).replace(' ', "");
    let variant = !exact && squashed_name.len() >= 4 && {
        // Same letters, different spacing: "Padma Pay" for "PadmaPay".
        let words: Vec<&str> = body.split(' ').collect();
        (2..=4).any(|n| words.windows(n).any(|w| w.concat() == squashed_name))
            || (fold(name).contains(' ') && words.contains(&squashed_name.as_str()))
    };
    let name_score = if exact {
        matched.push("name".to_string());
        1.0
    } else if variant {
        0.3
    } else if alias > 0.0 {
        matched.push("alias".to_string());
        alias
    } else {
        0.0
    };

    let mut anchor_total = 0usize;
    let mut anchor_hits = 0usize;
    if let Some(domain) = anchors.domain.as_deref() {
        anchor_total += 1;
        let d = domain
            .trim()
            .trim_start_matches("www.")
            .to_ascii_lowercase();
        if host == d || host.ends_with(&format!(".{d}")) || body.contains(&fold(&d)) {
            anchor_hits += 1;
            matched.push("domain".into());
        }
    }
    for (label, value) in [("country", &anchors.country), ("city", &anchors.city)] {
        if let Some(v) = value.as_deref() {
            anchor_total += 1;
            if contains_words(&body, v) {
                anchor_hits += 1;
                matched.push(label.into());
            }
        }
    }
    // An industry read off the question (an inferred subject's kind) only
    // tells a look-alike by its category (`contradiction`); it is no
    // anchor a page must name.
    if !anchors.industry.is_empty() && !anchors.inferred {
        anchor_total += 1;
        if anchors.industry.iter().any(|i| contains_words(&body, i)) {
            anchor_hits += 1;
            matched.push("industry".into());
        }
    }

    let score = if anchor_total == 0 {
        name_score * 0.75
    } else {
        0.5 * name_score + 0.5 * (anchor_hits as f64 / anchor_total as f64)
    };
    let lookalike = (variant && anchor_hits == 0)
        .then(|| {
            "names a different entity with a similar name and matches none of the identity anchors"
                .to_string()
        })
        .or_else(|| {
            (name_score > 0.0)
                .then(|| contradiction(anchors, name, url, title, &body_raw, signals))
                .flatten()
        });
    IdentityCheck {
        score: (score * 100.0).round() / 100.0,
        matched,
        lookalike,
        inferred: anchors.inferred,
    }
}

/// Why a page that names the entity is about another one: its category
/// shares nothing with the anchors' industry, its address is in another
/// country, or it gives the name another legal form.
fn contradiction(
    anchors: &EntityAnchors,
    name: &str,
    url: &str,
    title: &str,
    body: &str,
    signals: &PageSignals,
) -> Option<String> {
    let (base, form) = category::split_legal_form(name);
    if let Some(form) = form {
        let mut forms = category::legal_forms_after(&base, &format!("{title}\n{body}"));
        for legal in &signals.legal_names {
            if let (b, Some(f)) = category::split_legal_form(legal)
                && b == base
            {
                forms.insert(f);
            }
        }
        if !forms.is_empty() && !forms.contains(form) {
            let named: Vec<String> = forms.iter().map(|f| format!("{f:?}")).collect();
            return Some(format!(
                "the page gives the name another legal form ({}), not {form:?} as in {name:?}",
                named.join(", ")
            ));
        }
    }
    if let Some(country) = anchors.country.as_deref() {
        let wanted = category::countries_in(country);
        let city = anchors.city.as_deref().map(category::fold_words);
        let mut found = Vec::new();
        let mut agrees = false;
        for s in &signals.countries {
            let codes = category::countries_in(&s.value);
            let in_city = city.as_deref().is_some_and(|c| {
                !c.is_empty()
                    && format!(" {} ", category::fold_words(&s.value)).contains(&format!(" {c} "))
            });
            if in_city || codes.iter().any(|c| wanted.contains(c)) {
                agrees = true;
            } else if !codes.is_empty() {
                found.push(format!("{:?} ({})", s.value, s.from));
            }
        }
        if !wanted.is_empty() && !agrees && !found.is_empty() {
            return Some(format!(
                "the page places the entity in another country: {}, not {country:?}",
                found.join(", ")
            ));
        }
    }
    if !anchors.industry.is_empty() {
        let industry: std::collections::BTreeSet<String> = anchors
            .industry
            .iter()
            .flat_map(|i| category::terms(i))
            .collect();
        let title_says_industry = anchors
            .industry
            .iter()
            .any(|i| contains_words(&fold(title), i));
        let mut cats: Vec<&category::Signal> = signals.categories.iter().collect();
        let from_url = category::url_categories(url);
        cats.extend(from_url.iter());
        // The entity's own name is no category ("Corvid Cloud" as the last
        // breadcrumb says nothing about cloud computing).
        let own = category::terms(&base);
        let terms_of = |s: &category::Signal| -> std::collections::BTreeSet<String> {
            category::terms(&s.value)
                .difference(&own)
                .cloned()
                .collect()
        };
        let cats: Vec<&category::Signal> = cats
            .into_iter()
            .filter(|s| !terms_of(s).is_empty())
            .collect();
        let page: std::collections::BTreeSet<String> =
            cats.iter().flat_map(|s| terms_of(s)).collect();
        if !industry.is_empty()
            && !cats.is_empty()
            && !title_says_industry
            && !category::overlap(&industry, &page)
        {
            let listed: Vec<String> = cats
                .iter()
                .take(4)
                .map(|s| format!("{:?} ({})", s.value, s.from))
                .collect();
            let brand = signals
                .brands
                .first()
                .map(|b| format!("; brand {b:?}"))
                .unwrap_or_default();
            return Some(format!(
                "a same-named page in another category: {}{brand} shares nothing with the industry {:?}",
                listed.join(", "),
                anchors.industry.join(", ")
            ));
        }
    }
    None
}

use super::category::{self, PageSignals};
use crate::document::host_of;

#[cfg(test)]
mod tests {
    use super::*;

    fn anchors() -> EntityAnchors {
        EntityAnchors {
            name: Some("PadmaPay".into()),
            country: Some("India".into()),
            city: Some("Kochi".into()),
            ..Default::default()
        }
    }

    #[test]
    fn target_pages_pass() {
        let c = check(
            &anchors(),
            "https://padmapay.example/about",
            "About",
            "PadmaPay is based in Kochi, India.",
        );
        assert!(c.passes() && c.score == 1.0, "{c:?}");
        let c = check(
            &anchors(),
            "https://news.example/x",
            "",
            "PadmaPay raised money.",
        );
        assert!(c.passes(), "name alone is enough: {c:?}");
    }

    #[test]
    fn lookalike_with_spaced_name_is_rejected() {
        let c = check(
            &anchors(),
            "https://padmapay-uk.example/",
            "Padma Pay Ltd",
            "Padma Pay Ltd is a remittance firm in Leicester, England.",
        );
        assert!(!c.passes());
        assert!(c.lookalike.is_some());
    }

    #[test]
    fn names_inside_domains_do_not_count() {
        let c = check(
            &anchors(),
            "https://padmapay-uk.example/about",
            "About us | Padma Pay Ltd",
            "Padma Pay Ltd is a remittance firm. Visit padmapay-uk.example or write to help@padmapay-uk.example.",
        );
        assert!(!c.passes(), "{c:?}");
        assert!(c.lookalike.is_some());
    }

    #[test]
    fn unrelated_pages_fail_the_gate() {
        let c = check(
            &anchors(),
            "https://x.example/",
            "Best gateways",
            "Top payment gateways in India.",
        );
        assert!(!c.passes());
    }

    #[test]
    fn excluded_names_reject() {
        let mut a = anchors();
        a.exclude = vec!["Padma Pay Ltd".into()];
        let c = check(
            &a,
            "https://x.example/",
            "",
            "PadmaPay vs Padma Pay Ltd compared, in India.",
        );
        assert!(!c.passes());
    }

    #[test]
    fn no_entity_no_gate() {
        let c = check(
            &EntityAnchors::default(),
            "https://x.example/",
            "",
            "anything",
        );
        assert!(c.passes());
    }

    fn inferred(name: &str) -> EntityAnchors {
        EntityAnchors {
            name: Some(name.into()),
            inferred: true,
            ..Default::default()
        }
    }

    #[test]
    fn an_inferred_subject_ranks_but_never_rejects() {
        let a = inferred("Firefox Reader View");
        let off_topic = check(
            &a,
            "https://support.mozilla.example/reader",
            "Reader mode",
            "Reader mode strips away clutter like buttons and ads.",
        );
        assert!(off_topic.passes(), "{off_topic:?}");
        let on_topic = check(
            &a,
            "https://blog.example/x",
            "",
            "Firefox Reader View strips away clutter.",
        );
        assert!(on_topic.passes());
        assert!(
            on_topic.score > off_topic.score,
            "the name still ranks pages"
        );
        // The same page fails when the user gave the name.
        let given = EntityAnchors {
            inferred: false,
            ..a
        };
        assert!(
            !check(
                &given,
                "https://support.mozilla.example/reader",
                "Reader mode",
                "Reader mode strips away clutter like buttons and ads."
            )
            .passes()
        );
    }

    #[test]
    fn an_inferred_subject_still_rejects_a_lookalike() {
        let mut a = anchors();
        a.inferred = true;
        let c = check(
            &a,
            "https://padmapay-uk.example/",
            "Padma Pay Ltd",
            "Padma Pay Ltd is a remittance firm in Leicester, England.",
        );
        assert!(!c.passes(), "{c:?}");
        assert!(c.lookalike.is_some());
    }

    #[test]
    fn aliases_name_the_entity() {
        // Without the legal form.
        assert_eq!(
            name_strength("Halden Freight Pvt Ltd", "Halden Freight runs 90 trucks."),
            1.0
        );
        assert_eq!(
            name_strength("Halden Freight", "Halden Freight Pvt. Ltd. runs trucks."),
            1.0
        );
        // The surname after a title.
        assert!(name_strength("President Obama", "Barack Obama told the BBC...") >= 0.9);
        // An acronym, as a whole upper-case word only.
        assert!(name_strength("Open Transit Feed", "OTF 3.0 was published in May.") > 0.0);
        assert_eq!(name_strength("Open Transit Feed", "an otf font"), 0.0);
        // A product inside the longer name.
        assert!(name_strength("Firefox Reader View", "Reader View hides ads.") > 0.0);
        // Nothing for another name.
        assert_eq!(
            name_strength("Halden Freight", "Orla Freight runs trucks."),
            0.0
        );
        // The upper-case word of "WAL mode" names it; a lowercase "wal"
        // or the kind word alone does not.
        assert!(name_strength("WAL mode", "WAL is significantly faster.") >= 0.8);
        assert!(name_strength("WAL mode", "Readers of a WAL-backed file.") >= 0.8);
        assert_eq!(name_strength("WAL mode", "a wal of text"), 0.0);
        assert_eq!(name_strength("WAL mode", "the default mode"), 0.0);
        assert_eq!(name_strength("Open data", "OPEN now"), 0.0);
    }

    #[test]
    fn an_alias_alone_does_not_pass_a_given_name() {
        let a = EntityAnchors {
            name: Some("Open Transit Feed".into()),
            ..Default::default()
        };
        assert!(!check(&a, "https://x.example/", "", "OTF 3 is out.").passes());
    }

    proptest::proptest! {
        #[test]
        fn name_matching_never_panics(
            name in "\\PC{0,30}|[İßΣ\u{301}\u{5d0}A-Z a-z.]{0,30}",
            text in "\\PC{0,200}",
        ) {
            let s = name_strength(&name, &text);
            proptest::prop_assert!((0.0..=1.0).contains(&s));
            let a = EntityAnchors { name: Some(name.clone()), inferred: true, ..Default::default() };
            let c = check(&a, "https://x.example/", "", &text);
            proptest::prop_assert!(c.passes() || c.lookalike.is_some());
        }
    }

    fn corvid() -> EntityAnchors {
        EntityAnchors {
            name: Some("Corvid Cloud Ltd".into()),
            country: Some("United Kingdom".into()),
            industry: vec!["GPU cloud".into()],
            ..Default::default()
        }
    }

    fn signals(categories: &[&str], countries: &[&str]) -> PageSignals {
        let sig = |from: &'static str, v: &&str| category::Signal {
            from,
            value: v.to_string(),
        };
        PageSignals {
            categories: categories.iter().map(|v| sig("breadcrumbs", v)).collect(),
            countries: countries
                .iter()
                .map(|v| sig("JSON-LD address", v))
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn a_post_about_a_same_named_product_is_a_lookalike_of_the_kind_the_question_names() {
        // The question asked of "the Tidewell open tide data standard".
        let anchors = EntityAnchors {
            name: Some("Tidewell".into()),
            industry: vec!["open tide data standard".into()],
            inferred: true,
            ..Default::default()
        };
        let html = r#"<html><head><script type="application/ld+json">
            {"@context": "https://schema.org", "@type": "BlogPosting",
             "about": {"@type": "Product", "name": "Tidewell Pro buoy sensor",
                       "category": "Marine buoy sensors"}}</script></head>
            <body>Version 2 of the Tidewell buoy firmware is out.</body></html>"#;
        let signals = category::read_html(html, "tidewell");
        let text = "Version 2 of the Tidewell buoy firmware is out.";
        let url = "https://tidewell-devices.example/blog/firmware-2";
        let other = check_with(&anchors, url, "Tidewell firmware 2", text, &signals);
        assert!(
            other
                .lookalike
                .as_deref()
                .is_some_and(|r| r.contains("Marine buoy sensors")),
            "{other:?}"
        );
        // The standard's own news page, filed as an article, passes.
        let own = category::read_html(
            r#"<script type="application/ld+json">{"@type": "NewsArticle", "about": {"@type": "Thing", "name": "Tidewell", "category": "Open data standards"}}</script>"#,
            "tidewell",
        );
        let ok = check_with(&anchors, url, "Tidewell 2 published", text, &own);
        assert!(ok.passes(), "{ok:?}");
    }

    #[test]
    fn markup_that_contradicts_the_anchors_rejects_and_says_why() {
        let text = "Corvid Cloud is reviewed here by its users in the United Kingdom.";
        let url = "https://reviews.example/p/corvid-cloud";
        let ok = check_with(
            &corvid(),
            url,
            "Corvid Cloud",
            text,
            &signals(&["Home", "GPU Cloud"], &["GB"]),
        );
        assert!(ok.passes(), "{ok:?}");
        let cat = check_with(
            &corvid(),
            url,
            "Corvid Cloud",
            text,
            &signals(&["Accounting Software"], &[]),
        );
        assert!(
            cat.lookalike
                .as_deref()
                .is_some_and(|r| r.contains("category") && r.contains("Accounting Software")),
            "{cat:?}"
        );
        let abroad = check_with(
            &corvid(),
            url,
            "Corvid Cloud",
            text,
            &signals(&[], &["Berlin, Germany"]),
        );
        assert!(
            abroad
                .lookalike
                .as_deref()
                .is_some_and(|r| r.contains("country")),
            "{abroad:?}"
        );
        let inc = check_with(
            &corvid(),
            url,
            "Corvid Cloud",
            "Corvid Cloud Inc. rents GPUs in the United Kingdom.",
            &PageSignals::default(),
        );
        assert!(
            inc.lookalike
                .as_deref()
                .is_some_and(|r| r.contains("legal form")),
            "{inc:?}"
        );
        // The URL alone can say the category.
        let by_url = check_with(
            &corvid(),
            "https://reviews.example/accounting-software/corvid-cloud",
            "Corvid Cloud",
            text,
            &PageSignals::default(),
        );
        assert!(!by_url.passes(), "{by_url:?}");
        // Without an industry, a country or a legal form, nothing contradicts.
        let bare = EntityAnchors {
            name: Some("Corvid Cloud".into()),
            ..Default::default()
        };
        assert!(
            check_with(
                &bare,
                url,
                "Corvid Cloud",
                "Corvid Cloud Inc. in Germany.",
                &signals(&["Accounting"], &["DE"])
            )
            .passes()
        );
    }

    #[test]
    fn hosts() {
        assert_eq!(host_of("https://www.A.example:8080/x?y"), "a.example");
        assert_eq!(host_of("http://user@b.example/"), "b.example");
        assert_eq!(host_of("http://[::1]:80/"), "::1");
    }
}
