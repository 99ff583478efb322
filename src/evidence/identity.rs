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
}

impl IdentityCheck {
    pub fn passes(&self) -> bool {
        self.score >= IDENTITY_GATE && self.lookalike.is_none()
    }
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

/// Scores one page against the anchors.
pub fn check(anchors: &EntityAnchors, url: &str, title: &str, text: &str) -> IdentityCheck {
    let Some(name) = anchors.name.as_deref().filter(|n| !n.trim().is_empty()) else {
        // Nothing to check against: no gate.
        return IdentityCheck {
            score: 1.0,
            matched: vec![],
            lookalike: None,
        };
    };
    // Names inside domains and e-mail addresses ("padmapay-uk.example") are
    // not mentions of the entity.
    static ADDRESS: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| crate::re(r"\S*[A-Za-z0-9]\.[A-Za-z]{2,}\S*|\S+@\S+"));
    let body = fold(&ADDRESS.replace_all(&format!("{title}\n{text}"), " "));
    let host = host_of(url);
    let mut matched = Vec::new();

    for excluded in &anchors.exclude {
        if fold(excluded) != fold(name) && contains_words(&body, excluded) {
            return IdentityCheck {
                score: 0.0,
                matched,
                lookalike: Some(format!("mentions excluded look-alike {excluded:?}")),
            };
        }
    }

    let exact = contains_words(&body, name);
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
    if !anchors.industry.is_empty() {
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
    let lookalike = (variant && anchor_hits == 0).then(|| {
        "names a different entity with a similar name and matches none of the identity anchors"
            .to_string()
    });
    IdentityCheck {
        score: (score * 100.0).round() / 100.0,
        matched,
        lookalike,
    }
}

pub use crate::document::host_of;

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

    #[test]
    fn hosts() {
        assert_eq!(host_of("https://www.A.example:8080/x?y"), "a.example");
        assert_eq!(host_of("http://user@b.example/"), "b.example");
        assert_eq!(host_of("http://[::1]:80/"), "::1");
    }
}
