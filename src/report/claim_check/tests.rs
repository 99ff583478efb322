use proptest::prelude::*;

use super::facts::{self, fold};
use super::*;

const PRICING: &str = "PadmaPay pricing. Our standard fee is 1.9% per successful transaction for domestic cards and UPI. International cards are charged 3.4%. Over 1,200 merchants signed up in the quarter.";
const LEADERSHIP: &str = "Leadership update, 5 March 2024. Anita Rao has been appointed chief executive officer of PadmaPay. She succeeds Vikram Menon, who stepped down after six years. The Reserve Bank of India granted the company a payment aggregator licence.";

fn library() -> Library {
    let mut lib = Library::new();
    lib.add(
        1,
        &SourceInput {
            text: PRICING,
            title: "Pricing",
            url: "https://padmapay.example/pricing",
            dates: vec!["2025-01-10"],
            findings: vec![],
        },
    );
    lib.add(
        2,
        &SourceInput {
            text: LEADERSHIP,
            title: "PadmaPay names a new CEO",
            url: "https://news.example/padmapay-ceo",
            dates: vec![],
            findings: vec!["PadmaPay has a new boss, Anita Rao, who leads the firm".into()],
        },
    );
    lib
}

fn verdicts(md: &str) -> Vec<(String, bool)> {
    check(md, &library())
        .claims
        .into_iter()
        .map(|c| (c.text, c.supported))
        .collect()
}

#[test]
fn a_correct_paraphrase_passes() {
    let md = "## Findings\n\nPadmaPay charges domestic cards a 1.9% fee per transaction [1]. More than 1200 merchants joined during the quarter [1]. In March 2024 Anita Rao became CEO of PadmaPay [2]. The RBI granted PadmaPay a payment aggregator license [2].";
    let v = verdicts(md);
    assert_eq!(v.len(), 4, "{v:?}");
    assert!(v.iter().all(|(_, ok)| *ok), "{v:?}");
}

#[test]
fn a_changed_number_is_caught() {
    let c = check(
        "PadmaPay charges domestic cards a 1.5% fee per transaction [1].",
        &library(),
    );
    assert_eq!(c.supported(), 0);
    assert!(
        c.claims[0].problems[0].contains("1.5%"),
        "{:?}",
        c.claims[0].problems
    );
    let c = check(
        "Over 1,300 merchants signed up in the quarter [1].",
        &library(),
    );
    assert_eq!(c.supported(), 0);
    let c = check("Anita Rao was appointed on 6 March 2024 [2].", &library());
    assert_eq!(c.supported(), 0, "a day changed");
}

#[test]
fn a_swapped_name_is_caught() {
    let c = check(
        "Anita Desai has been appointed chief executive officer of PadmaPay [2].",
        &library(),
    );
    assert_eq!(c.supported(), 0);
    assert!(c.claims[0].problems[0].contains("Anita Desai"));
    let c = check(
        "Anita Rao has been appointed chief executive officer of PayU [2].",
        &library(),
    );
    assert_eq!(c.supported(), 0);
}

#[test]
fn citing_the_wrong_source_is_caught() {
    // Right facts, wrong number.
    let c = check(
        "Anita Rao has been appointed chief executive officer [1].",
        &library(),
    );
    assert_eq!(c.supported(), 0);
    let c = check("International cards are charged 3.4% [2].", &library());
    assert_eq!(c.supported(), 0);
    // No number or name: the terms must be found together.
    let c = check(
        "Merchants praise the fast onboarding and friendly support [1].",
        &library(),
    );
    assert_eq!(c.supported(), 0, "{:?}", c.claims);
}

#[test]
fn quotes_must_be_verbatim() {
    let ok = check(
        "- **Pricing**: \"Our standard fee is 1.9% per successful transaction\" [1] (confidence 0.91, as of 2025-01-10)",
        &library(),
    );
    assert_eq!((ok.checked(), ok.supported()), (1, 1));
    let edited = check(
        "- **Pricing**: \"Our standard fee is 1.5% per successful transaction\" [1]",
        &library(),
    );
    assert_eq!(edited.supported(), 0);
    assert!(edited.claims[0].problems[0].starts_with("the quote"));
}

#[test]
fn a_paraphrase_of_an_accepted_finding_passes() {
    let c = check(
        "PadmaPay has a new boss who leads the firm [2].",
        &library(),
    );
    assert_eq!(c.supported(), 1, "{:?}", c.claims);
}

#[test]
fn several_sources_share_the_work() {
    let c = check(
        "Anita Rao leads PadmaPay, which charges 1.9% on domestic cards [1][2].",
        &library(),
    );
    assert_eq!(c.supported(), 1, "{:?}", c.claims);
}

#[test]
fn boilerplate_is_not_a_claim() {
    let md = "# PadmaPay: research report\n\n**Question:** Is PadmaPay reliable in 2099?\n\n## Answer\n\nSee [1].\n\n## Security notes\n\n- Quarantined https://x.example: 7 instructions [3].\n\n## Sources\n\n[1] Pricing. https://padmapay.example/pricing (official; retrieved 2026-01-01)\n\n---\n\nOffline run [9].\n";
    assert_eq!(check(md, &library()).checked(), 0);
}

#[test]
fn removal_lists_the_sentence_under_gaps() {
    let md = "## Answer\n\n- **Pricing**: \"Our standard fee is 1.9% per successful transaction\" [1]\n- **Leadership**: Anita Desai is CEO [2].\n\nFees are 1.9% [1]. Fees rose to 2.5% in 2025 [1].\n\n## Gaps\n\n- Funding: nothing found\n";
    let lib = library();
    let c = check(md, &lib);
    assert_eq!(c.checked(), 4);
    assert_eq!(c.supported(), 2);
    let e = remove_unsupported(md, &c, &lib);
    assert_eq!(e.removed.len(), 2);
    assert!(!e.markdown.contains("Anita Desai is CEO [2]"));
    assert!(!e.markdown.contains("**Leadership**"), "{}", e.markdown);
    assert!(
        e.markdown.contains("Fees are 1.9% [1].\n"),
        "{}",
        e.markdown
    );
    let gaps = e.markdown.split("## Gaps").nth(1).unwrap_or("");
    assert!(
        gaps.contains("- Funding: nothing found\n- Removed a sentence"),
        "{}",
        e.markdown
    );
    assert!(gaps.contains("https://news.example/padmapay-ceo"));
    assert!(
        !gaps.contains("[2]"),
        "no citation survives in the gap: {gaps}"
    );
    // What is left passes.
    let again = check(&e.markdown, &lib);
    assert_eq!(again.supported(), again.checked());
}

#[test]
fn gaps_section_is_created_before_sources() {
    let out = add_gaps("Body [1].\n\n## Sources\n\n[1] A\n", &["x".into()]);
    assert_eq!(out, "Body [1].\n\n## Gaps\n\n- x\n\n## Sources\n\n[1] A\n");
}

fn texty() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            "[a-zA-Z ,.'\"-]{0,12}",
            "[0-9]{1,7}",
            Just(",".to_string()),
            Just("1,200".to_string()),
            Just("12,34,567".to_string()),
            Just(" million".to_string()),
            Just("m ".to_string()),
            Just("%".to_string()),
            Just(" March 2024".to_string()),
            Just("2024-03-05".to_string()),
            Just("05/03/2024".to_string()),
            Just("\u{201C}\u{2014}\u{00A0}\u{2019}".to_string()),
            Just("[1]".to_string()),
            Just("\n".to_string()),
            "\\PC{0,6}",
        ],
        0..24,
    )
    .prop_map(|p| p.concat())
}

proptest! {
    #[test]
    fn fold_is_idempotent(s in texty()) {
        let once = fold(&s);
        prop_assert_eq!(fold(&once), once.clone());
    }

    #[test]
    fn number_keys_are_canonical(s in texty()) {
        let folded = fold(&s);
        for n in facts::numbers(&folded) {
            for k in &n.keys {
                // A key read again is the same key.
                let again: Vec<String> = facts::numbers(k).into_iter().map(|m| m.keys[0].clone()).collect();
                prop_assert_eq!(again, vec![k.clone()]);
            }
        }
    }

    #[test]
    fn date_readings_are_canonical(s in texty()) {
        for d in facts::dates(&fold(&s)) {
            for r in &d.readings {
                let again: Vec<String> = facts::dates(r).into_iter().flat_map(|d| d.readings).collect();
                prop_assert_eq!(again, vec![r.clone()]);
            }
        }
    }

    #[test]
    fn extractors_never_panic(s in "\\PC{0,200}", t in texty()) {
        let all = format!("{s}{t}");
        let _ = facts::names(&all);
        let _ = facts::acronyms(&all);
        let _ = facts::terms(&fold(&all));
        let lib = library();
        let c = check(&all, &lib);
        let e = remove_unsupported(&all, &c, &lib);
        // Removal leaves nothing unsupported behind.
        let again = check(&e.markdown, &lib);
        prop_assert_eq!(again.supported(), again.checked(), "{}", e.markdown);
    }

    #[test]
    fn verbatim_sentences_of_a_source_pass(i in 0usize..4) {
        let s = crate::evidence::sentences::split(LEADERSHIP);
        let sentence = s[i % s.len()];
        let c = check(&format!("\"{sentence}\" [2]"), &library());
        prop_assert_eq!(c.supported(), c.checked());
        let c = check(&format!("{sentence} [2]"), &library());
        prop_assert_eq!(c.supported(), c.checked());
    }
}

/// Markdown escaping, emphasis and code marks around verbatim words do not
/// change what a quotation matches: a verbatim sentence is never removed.
#[test]
fn markdown_marks_never_unverify_a_verbatim_quote() {
    const MANUAL: &str = "By adding [profile.*] sections to Cargo.toml, you can override any of the default settings. The `opt-level` setting controls the number of optimizations.";
    let mut lib = Library::new();
    lib.add(
        1,
        &SourceInput {
            text: MANUAL,
            title: "Customizing Builds with Release Profiles",
            url: "https://manual.example/profiles",
            dates: vec![],
            findings: vec![],
        },
    );
    for md in [
        "## Answer\n\n\"By adding [profile.*] sections to Cargo.toml, you can override any of the default settings.\" [1]\n",
        "## Answer\n\n\"By adding \\[profile.\\*\\] sections to Cargo.toml, you can override any of the default settings.\" [1]\n",
        "## Answer\n\n\"By adding `[profile.*]` sections to *Cargo.toml*, you can override any of the default settings.\" [1]\n",
        "## Answer\n\n\"The `opt-level` setting controls the number of optimizations.\" [1]\n",
        "## Answer\n\n\"The opt\\-level setting controls the number of optimizations.\" [1]\n",
    ] {
        let c = check(md, &lib);
        assert!(
            !c.claims.is_empty() && c.claims.iter().all(|c| c.supported),
            "{md}: {:?}",
            c.claims
        );
    }
    // Still verbatim: a changed word is caught.
    let c = check(
        "## Answer\n\n\"By adding [profile.*] sections to Cargo.toml, you can remove any of the default settings.\" [1]\n",
        &lib,
    );
    assert!(c.claims.iter().any(|c| !c.supported));
}
