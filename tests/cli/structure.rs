//! Structure is evidence (issue 20): a value in a code block after the
//! sentence that introduces it, in a table cell or in a definition list is
//! answered and quoted verbatim; a stub page with the title of a full page
//! (far shorter, or saying it is no longer maintained) is not evidence while
//! the full page exists. The corpus is `tests/corpora/structure/`.

use super::common::{TestHome, repo_path, section};

/// Runs `dra ask` offline over the structure corpus; returns the exit code
/// and report.md.
fn ask(sb: &TestHome, question: &str) -> (i32, String) {
    sb.ask_offline(&repo_path("tests/corpora/structure"), question)
}

#[test]
fn a_code_block_after_its_introducing_sentence_is_answered_and_quoted() {
    let sb = TestHome::new();
    let (code, report) = ask(
        &sb,
        "What are the default drift levels of the harbor and open-sea profiles?",
    );
    assert_eq!(code, 0, "{report}");
    let answer = section(&report, "Answer");
    // The values sit in the code block, not in the sentence before it.
    assert!(answer.contains("drift-level = 3"), "{report}");
    assert!(answer.contains("drift-level = 8"), "{report}");
    // The quote is the page's text: the claim check found nothing to drop.
    assert!(!report.contains("not found in"), "{report}");
}

#[test]
fn a_value_in_a_table_cell_or_a_definition_list_is_answered() {
    let sb = TestHome::new();
    let (code, report) = ask(&sb, "Which log format code gives the wind speed in knots?");
    assert_eq!(code, 0, "{report}");
    assert!(section(&report, "Answer").contains("%k"), "{report}");
    let sb = TestHome::new();
    let (code, report) = ask(&sb, "What is the default mooring_timeout?");
    assert_eq!(code, 0, "{report}");
    assert!(section(&report, "Answer").contains("90"), "{report}");
}

#[test]
fn a_stub_with_the_title_of_a_full_page_is_not_evidence() {
    let sb = TestHome::new();
    let (code, report) = ask(
        &sb,
        "What is the default drift level of the harbor profile?",
    );
    assert_eq!(code, 0, "{report}");
    assert!(!report.contains("old/profiles.html"), "{report}");
    assert!(!report.contains("no longer maintained"), "{report}");
    assert!(report.contains("drift-level = 3"), "{report}");
}
