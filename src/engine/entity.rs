//! Identity anchors from the question when no flags give them: the entity is
//! the first proper name, and a parenthesis after it gives city and country
//! ("PadmaPay (Kochi, India)").

use crate::protocol::EntityAnchors;

const NOT_NAMES: &[&str] = &[
    "Is",
    "Are",
    "Was",
    "Were",
    "What",
    "Which",
    "Who",
    "Whom",
    "Whose",
    "When",
    "Where",
    "Why",
    "How",
    "Should",
    "Could",
    "Would",
    "Can",
    "Does",
    "Do",
    "Did",
    "Has",
    "Have",
    "Tell",
    "Give",
    "Find",
    "Check",
    "Compare",
    "Research",
    "Assess",
    "Evaluate",
    "Summarize",
    "Summarise",
    "Please",
    "The",
    "A",
    "An",
    "Our",
    "We",
    "I",
    "My",
    "Let",
    "Look",
    "List",
    "Describe",
    "Explain",
    "In",
    "On",
    "For",
    "Of",
    "And",
    "Or",
    "Today",
    "Now",
    "Currently",
    "Current",
    "Any",
    "Vendor",
    "Due",
    "Diligence",
];

/// Fills the anchors the flags left empty from the question.
pub fn complete_anchors(question: &str, flags: &EntityAnchors) -> EntityAnchors {
    let mut a = flags.clone();
    let given = flags.name.is_some()
        || flags.domain.is_some()
        || flags.country.is_some()
        || flags.city.is_some()
        || !flags.industry.is_empty()
        || !flags.exclude.is_empty();
    if a.name.is_none()
        && let Some((name, end)) = first_proper_name(question)
    {
        let start = end - name.len();
        a.name = Some(name);
        // A name the user did not give is a relevance signal, not a gate.
        a.inferred = !given;
        // "the CurbSpec open curb data standard": what the question calls
        // the subject is the kind of thing it is, so a same-named page
        // that files itself under another category is about another thing.
        if a.inferred
            && a.industry.is_empty()
            && let Some(kind) = described_as(question, start)
        {
            a.industry = vec![kind];
        }
        if let Some((city, country)) = parenthetical_place(&question[end..]) {
            if a.city.is_none() {
                a.city = city;
            }
            if a.country.is_none() {
                a.country = country;
            }
        }
    }
    a
}

fn is_name_word(w: &str) -> bool {
    let mut chars = w.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    first.is_uppercase()
        && w.chars().all(|c| c.is_alphanumeric() || c == '-' || c == '&' || c == '.')
        && !NOT_NAMES.contains(&w)
        // All-caps short words are acronyms ("D2C", "CEO"), not names.
        && !(w.len() <= 4 && w.chars().all(|c| c.is_uppercase() || c.is_ascii_digit()))
}

/// The first run of capitalised words that is not a question word; returns
/// it and the byte offset just after it.
fn first_proper_name(q: &str) -> Option<(String, usize)> {
    let mut words: Vec<(usize, &str)> = Vec::new();
    let mut start = None;
    for (i, c) in q.char_indices() {
        let part_of_word = c.is_alphanumeric() || c == '-' || c == '&' || c == '\'';
        match (part_of_word, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                words.push((s, &q[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        words.push((s, &q[s..]));
    }
    let mut i = 0;
    while i < words.len() {
        let (s, w) = words[i];
        if is_name_word(w.trim_end_matches("'s")) {
            let mut end = s + w.trim_end_matches("'s").len();
            let mut name = q[s..end].to_string();
            let mut j = i;
            while j + 1 < words.len() {
                let (s_prev, w_prev) = words[j];
                let (s2, w2) = words[j + 1];
                let bare = w2.trim_end_matches("'s");
                // Only words separated by a single space continue a name,
                // and a possessive only when it opens the name and its
                // owner is an ordinary word, as in a title ("Assassin's
                // Creed"; not "Acme's Chennai office", "Halden Freight's
                // Chennai office").
                let joined = q[s_prev + w_prev.len()..s2].chars().all(|c| c == ' ')
                    && s2 == s_prev + w_prev.len() + 1;
                let through = w_prev.len() == w_prev.trim_end_matches("'s").len()
                    || (j == i && title_possessive(w_prev));
                if is_name_word(bare) && joined && through {
                    name = q[s..s2 + bare.len()].to_string();
                    end = s2 + bare.len();
                    j += 1;
                } else {
                    break;
                }
            }
            return Some((name, end));
        }
        i += 1;
    }
    None
}

/// Words that end the noun phrase a name heads: prepositions,
/// conjunctions, auxiliaries and the verbs questions ask with.
const PHRASE_ENDS: &[&str] = &[
    "and", "or", "but", "in", "on", "for", "with", "from", "to", "of", "that", "which", "who",
    "whose", "is", "are", "was", "were", "has", "have", "had", "does", "do", "did", "say", "said",
    "says", "will", "would", "can", "could", "should", "may", "might", "must", "be", "been",
    "since", "by", "at", "as", "about", "than", "when", "where", "after", "before", "if", "into",
    "over", "under", "between", "against", "during", "this", "these", "those", "its", "it",
];

/// The lowercase words after a name that the question introduces with
/// "the" ("the CurbSpec open curb data standard," gives "open curb data
/// standard"): one to five words, up to a clause's end or a word that
/// ends the phrase. `start` is where the name begins.
fn described_as(question: &str, start: usize) -> Option<String> {
    let before = question.get(..start)?.trim_end().to_lowercase();
    if !(before == "the" || before.ends_with(" the")) {
        return None;
    }
    let rest = question.get(start..)?;
    let mut words = rest.split_whitespace().skip_while(|w| {
        w.chars()
            .next()
            .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
    });
    let mut kind: Vec<&str> = Vec::new();
    for raw in words.by_ref() {
        let w = raw.trim_end_matches([',', '.', '?', '!', ';', ':']);
        if PHRASE_ENDS.contains(&w)
            || w.is_empty()
            || !w.chars().all(|c| c.is_lowercase() || c == '-')
        {
            break;
        }
        kind.push(w);
        if w.len() < raw.len() {
            break;
        }
    }
    (1..=5).contains(&kind.len()).then(|| kind.join(" "))
}

/// Whether a word is a possessive of an ordinary noun ("Assassin's"), as
/// titles have, not of a name ("Tesla's").
fn title_possessive(w: &str) -> bool {
    w.strip_suffix("'s")
        .is_some_and(|owner| crate::answer::is_english_word(&owner.to_lowercase()))
}

/// `(City, Country)` or `(Country)` right after the name.
fn parenthetical_place(rest: &str) -> Option<(Option<String>, Option<String>)> {
    let rest = rest.trim_start();
    let inner = rest.strip_prefix('(')?;
    let inner = &inner[..inner.find(')')?];
    let parts: Vec<String> = inner
        .split(',')
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect();
    match parts.len() {
        0 => None,
        1 => Some((None, Some(parts[0].clone()))),
        n => Some((Some(parts[0].clone()), Some(parts[n - 1].clone()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entity_and_place_from_question() {
        let a = complete_anchors(
            "Is PadmaPay (Kochi, India) a reliable payment-gateway partner for our D2C startup today?",
            &EntityAnchors::default(),
        );
        assert_eq!(a.name.as_deref(), Some("PadmaPay"));
        assert_eq!(a.city.as_deref(), Some("Kochi"));
        assert_eq!(a.country.as_deref(), Some("India"));
    }

    #[test]
    fn multiword_names_and_flags_win() {
        let a = complete_anchors(
            "Should we pick Halden Freight as our cold-chain partner?",
            &EntityAnchors::default(),
        );
        assert_eq!(a.name.as_deref(), Some("Halden Freight"));
        let flags = EntityAnchors {
            name: Some("X Corp".into()),
            ..Default::default()
        };
        assert_eq!(
            complete_anchors("Is PadmaPay good?", &flags)
                .name
                .as_deref(),
            Some("X Corp")
        );
    }

    #[test]
    fn a_title_with_a_possessive_is_one_name() {
        let name = |q: &str| complete_anchors(q, &EntityAnchors::default()).name;
        assert_eq!(
            name("Who directed the Assassin's Creed movie?").as_deref(),
            Some("Assassin's Creed")
        );
        assert_eq!(
            name("What was Orbitex's revenue in Q1?").as_deref(),
            Some("Orbitex")
        );
        assert_eq!(
            name("Did Orbitex's Chennai office close?").as_deref(),
            Some("Orbitex")
        );
        assert_eq!(
            name("Did Halden Freight's Chennai office close?").as_deref(),
            Some("Halden Freight")
        );
    }

    #[test]
    fn what_the_question_calls_an_inferred_subject_is_its_kind() {
        let kind = |q: &str| complete_anchors(q, &EntityAnchors::default()).industry;
        assert_eq!(
            kind("What changed in version 3 of the Tidewell open tide data standard, and when?"),
            ["open tide data standard"]
        );
        assert_eq!(
            kind("What did the Marrow city council say about parking?"),
            ["city council"]
        );
        // No "the", a verb at once, or a name the user gave: no kind.
        assert!(kind("How does Tidewell stop readers from blocking?").is_empty());
        assert!(kind("What is the Tidewell?").is_empty());
        let flags = EntityAnchors {
            name: Some("Tidewell".into()),
            ..Default::default()
        };
        assert!(
            complete_anchors("Is the Tidewell tide standard open?", &flags)
                .industry
                .is_empty()
        );
    }

    #[test]
    fn no_name_no_entity() {
        assert_eq!(
            complete_anchors(
                "what are the trends in cold chain logistics?",
                &EntityAnchors::default()
            )
            .name,
            None
        );
    }

    #[test]
    fn an_inferred_name_is_marked_and_a_given_one_is_not() {
        let q = "What is Firefox Reader View and how does it work?";
        let a = complete_anchors(q, &EntityAnchors::default());
        assert_eq!(a.name.as_deref(), Some("Firefox Reader View"));
        assert!(a.inferred);
        let flags = EntityAnchors {
            domain: Some("mozilla.example".into()),
            ..Default::default()
        };
        let a = complete_anchors(q, &flags);
        assert_eq!(a.name.as_deref(), Some("Firefox Reader View"));
        assert!(!a.inferred, "a user anchor keeps the gate hard");
    }

    proptest::proptest! {
        #[test]
        fn any_question_completes_anchors(
            q in "\\PC{0,200}|([İıßẞΣ\u{301}\u{5d0}\u{202e}KÅ]|[A-Z][a-z]{1,6} |\\(|\\)|, ){0,40}"
        ) {
            let a = complete_anchors(&q, &EntityAnchors::default());
            if let Some(name) = &a.name {
                proptest::prop_assert!(q.contains(name.split(' ').next().unwrap_or("")));
                proptest::prop_assert!(a.inferred);
            }
        }
    }
}
