//! The claim check through the real binary: `dra lint-report --pages`
//! catches a changed number, a swapped name, a sentence citing the wrong
//! source, an edited quote and a Sources list pointing `[n]` elsewhere; a
//! correct paraphrase passes; and every report dra writes passes its own check.

use std::path::Path;

use dra::store::page_text_name;
use predicates::prelude::*;

use super::common::TestHome;

const PRICING_URL: &str = "https://padmapay.example/pricing";
const PRICING: &str = "PadmaPay pricing. Our standard fee is 1.9% per successful transaction for domestic cards and UPI. International cards are charged 3.4%. Over 1,200 merchants signed up between January and March.";
const NEWS_URL: &str = "https://news.example/2024/padmapay-new-ceo";
const NEWS: &str = "Kochi, 5 March 2024. PadmaPay has appointed Anita Rao as chief executive officer. She succeeds Vikram Menon, who stepped down after six years. The company raised $12 million in a Series A round led by Lotus Ventures.";

/// A folder of page texts, sources.json with minimal entries, and a report.
fn fixture(
    sb: &TestHome,
    report: &str,
) -> (std::path::PathBuf, std::path::PathBuf, std::path::PathBuf) {
    let pages = sb.dir.path().join("pages");
    std::fs::create_dir_all(&pages).unwrap();
    for (url, text) in [(PRICING_URL, PRICING), (NEWS_URL, NEWS)] {
        std::fs::write(pages.join(page_text_name(url)), text).unwrap();
    }
    let sources = sb.dir.path().join("sources.json");
    std::fs::write(
        &sources,
        format!(r#"[{{"index": 1, "url": "{PRICING_URL}"}}, {{"index": 2, "url": "{NEWS_URL}"}}]"#),
    )
    .unwrap();
    let file = sb.dir.path().join("report.md");
    std::fs::write(&file, report).unwrap();
    (file, sources, pages)
}

fn report(body: &str) -> String {
    format!(
        "# PadmaPay: research report\n\n**Question:** Is PadmaPay a good partner?\n\n## Findings\n\n{body}\n\n## Sources\n\n[1] Pricing. {PRICING_URL} (official; retrieved 2026-01-01)\n[2] New CEO. {NEWS_URL} (news; published 2024-03-05; retrieved 2026-01-01)\n"
    )
}

const PARAPHRASE: &str = "PadmaPay charges domestic cards a 1.9% fee on each successful transaction [1]. In March 2024 the company named Anita Rao its CEO, succeeding Vikram Menon [2]. It raised USD 12m in a Series A led by Lotus Ventures [2].";

fn lint(sb: &TestHome, body: &str) -> (i32, String) {
    let (file, sources, pages) = fixture(sb, &report(body));
    let out = sb
        .dra()
        .arg("lint-report")
        .arg(&file)
        .arg("--sources")
        .arg(&sources)
        .arg("--pages")
        .arg(&pages)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
    )
}

#[test]
fn a_correct_paraphrase_passes() {
    let sb = TestHome::new();
    let (code, out) = lint(&sb, PARAPHRASE);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("3/3 cited sentences supported (100%)"),
        "{out}"
    );
    assert!(out.contains("clean"), "{out}");
}

#[test]
fn a_changed_number_is_caught() {
    let sb = TestHome::new();
    let (code, out) = lint(&sb, &PARAPHRASE.replace("USD 12m", "USD 15m"));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("the number 15m is not in [2]"), "{out}");
    assert!(out.contains("2/3 cited sentences supported"), "{out}");
}

#[test]
fn a_swapped_name_is_caught() {
    let sb = TestHome::new();
    let (code, out) = lint(&sb, &PARAPHRASE.replace("Anita Rao", "Anita Desai"));
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("the name \"Anita Desai\" is not in [2]"),
        "{out}"
    );
}

#[test]
fn a_sentence_citing_the_wrong_source_is_caught() {
    let sb = TestHome::new();
    let wrong = PARAPHRASE.replace("transaction [1]", "transaction [2]");
    let (code, out) = lint(&sb, &wrong);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("report.md:7:"), "the line is named: {out}");
    assert!(out.contains("the number 1.9% is not in [2]"), "{out}");
    // Without a number or a name, the words must still be found together.
    let (code, out) = lint(
        &sb,
        "Merchants praise its fast onboarding and friendly support staff [2].",
    );
    assert_eq!(code, 1, "{out}");
}

#[test]
fn an_edited_quote_and_a_wrong_url_are_caught() {
    let sb = TestHome::new();
    let (code, out) = lint(
        &sb,
        "- **Pricing**: \"Our standard fee is 1.9% per successful transaction\" [1] (confidence 0.90, as of 2026-01-01)\n- **Leadership**: \"PadmaPay has appointed Anita Rao as chief executive officer.\" [2]",
    );
    assert_eq!(code, 0, "{out}");
    let (code, out) = lint(
        &sb,
        "- **Pricing**: \"Our standard fee is 1.5% per successful transaction\" [1]\n- **Leadership**: \"PadmaPay has appointed Anita Rao as chief executive officer.\" [2]",
    );
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("the quote \"Our standard fee is 1.5%"),
        "{out}"
    );
    // sources.json points [1] at another URL than the report's Sources list.
    let (file, sources, _) = fixture(&sb, &report(PARAPHRASE));
    std::fs::write(
        &sources,
        format!(r#"[{{"index": 1, "url": "https://elsewhere.example/"}}, {{"index": 2, "url": "{NEWS_URL}"}}]"#),
    )
    .unwrap();
    sb.dra()
        .arg("lint-report")
        .arg(&file)
        .arg("--sources")
        .arg(&sources)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(
            "[1] is {PRICING_URL} in the report but https://elsewhere.example/ in sources.json"
        )));
}

#[test]
fn lint_report_json_carries_the_claim_tally() {
    let sb = TestHome::new();
    let (file, sources, pages) = fixture(&sb, &report(&PARAPHRASE.replace("1.9%", "2.9%")));
    let out = sb
        .dra()
        .args(["--json", "lint-report"])
        .arg(&file)
        .arg("--sources")
        .arg(&sources)
        .arg("--pages")
        .arg(&pages)
        .assert()
        .code(1);
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["claims"]["checked"], 3);
    assert_eq!(v["claims"]["supported"], 2);
    let kinds: Vec<&str> = v["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["kind"].as_str())
        .collect();
    assert_eq!(kinds, vec!["unsupported"]);
}

fn check_run(sb: &TestHome, run: &Path) {
    let out = sb
        .dra()
        .arg("lint-report")
        .arg(run.join("report.md"))
        .arg("--sources")
        .arg(run.join("sources.json"))
        .arg("--pages")
        .arg(run.join("pages"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("(100%)"), "{stdout}");
}

#[test]
fn every_report_dra_writes_passes_its_own_check() {
    let sb = TestHome::new();
    let out = sb
        .dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args([
            "--json",
            "ask",
            "Is PadmaPay (Kochi, India) a reliable payment-gateway partner for our D2C startup today? Check leadership, licence status, funding, reliability, security incidents, pricing and merchant sentiment.",
        ])
        .assert()
        .success();
    let run = sb.run_dir();
    check_run(&sb, &run);
    // The tally is in the usage event.
    let events = super::common::parse_events(&String::from_utf8_lossy(&out.get_output().stdout));
    let claims = events
        .iter()
        .find_map(|e| match &e.body {
            dra::protocol::EventBody::Usage { claims, .. } => *claims,
            _ => None,
        })
        .unwrap();
    assert!(claims.checked >= 7, "{claims:?}");
    assert_eq!(claims.supported, claims.checked, "{claims:?}");
    // An edited quote in that report is caught.
    let report = std::fs::read_to_string(run.join("report.md")).unwrap();
    let line = report
        .lines()
        .find(|l| l.starts_with("- \"") && l.chars().any(|c| c.is_ascii_digit()))
        .unwrap();
    let digit = line.find(|c: char| c.is_ascii_digit()).unwrap();
    let d = line.as_bytes()[digit];
    let edited_line = format!(
        "{}{}{}",
        &line[..digit],
        if d == b'9' { '8' } else { (d + 1) as char },
        &line[digit + 1..]
    );
    let edited = run.join("edited.md");
    std::fs::write(&edited, report.replacen(line, &edited_line, 1)).unwrap();
    sb.dra()
        .arg("lint-report")
        .arg(&edited)
        .arg("--sources")
        .arg(run.join("sources.json"))
        .arg("--pages")
        .arg(run.join("pages"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains("is not supported"));
}
