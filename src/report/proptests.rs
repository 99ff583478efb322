//! Property tests for the parsers of untrusted text: whatever the input,
//! they do not panic and keep their promises.

use std::collections::BTreeSet;

use proptest::prelude::*;

use super::{citations, hygiene};
use crate::evidence::{clean, quotes, sentences};

fn markdownish() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            "[a-zA-Z ,.]{0,20}",
            (0usize..12).prop_map(|n| format!("[{n}]")),
            Just("\n".to_string()),
            Just("## Sources\n".to_string()),
            Just("<think>x</think>".to_string()),
            Just("{\"type\":\"tool_call\",\"name\":\"a\",\"args\":{}}\n".to_string()),
            Just("[1, 3]".to_string()),
            Just("[2-4]".to_string()),
            "[\\u{200b}\\u{202e}\u{e0041}]{0,3}",
        ],
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #[test]
    fn renumbering_is_contiguous_in_order_of_first_citation(text in markdownish(), keep in prop::collection::btree_set(1usize..12, 0..8)) {
        let (out, order) = citations::renumber(&text, &keep);
        let cited: Vec<usize> = citations::citations(&out).into_iter().map(|(_, n)| n).collect();
        let mut first = Vec::new();
        for n in cited {
            if !first.contains(&n) { first.push(n); }
        }
        prop_assert_eq!(first, (1..=order.len()).collect::<Vec<_>>());
        prop_assert!(order.iter().all(|o| keep.contains(o)));
    }

    #[test]
    fn lint_never_panics_and_a_renumbered_body_has_no_dangling(text in markdownish()) {
        let _ = citations::lint(&text, None);
        let keep: BTreeSet<usize> = (1..=5).collect();
        let (body, order) = citations::renumber(citations::split_sources(&text).0, &keep);
        let known: BTreeSet<usize> = (1..=order.len()).collect();
        let problems = citations::lint(&body, Some(&known));
        prop_assert!(problems.iter().all(|p| p.kind != citations::ProblemKind::Dangling), "{:?}", problems);
    }

    #[test]
    fn scrub_is_idempotent(text in markdownish()) {
        let once = hygiene::scrub(&text).markdown;
        let twice = hygiene::scrub(&once).markdown;
        prop_assert_eq!(once, twice);
    }

    #[test]
    fn sentences_are_substrings(text in "[A-Za-z0-9 .!?\"\n]{0,200}") {
        for s in sentences::split(&text) {
            prop_assert!(text.contains(s));
            prop_assert!(!s.is_empty());
        }
    }

    #[test]
    fn cleaning_leaves_no_invisible_characters(html in "[<>a-z =\"/:;\\u{200b}\\u{feff}\u{e0041}-]{0,200}") {
        let page = clean::clean_html(&html);
        prop_assert!(!page.text.chars().any(clean::is_invisible));
        let page = clean::clean_text(&html);
        prop_assert!(!page.text.chars().any(clean::is_invisible));
    }

    #[test]
    fn every_sentence_of_a_cleaned_page_is_a_valid_quote(text in "[A-Z][a-z]{3,8}( [a-z]{2,8}){4,9}\\. [A-Z][a-z]{3,8}( [a-z]{2,8}){4,9}\\.") {
        let page = clean::clean_text(&text);
        for s in sentences::split(&page.text) {
            prop_assert!(quotes::quote_in_text(s, &page.text));
        }
    }
}
