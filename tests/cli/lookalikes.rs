//! Look-alikes on one review site, same title format: a same-named product
//! in another category, a namesake in another country, one with another
//! legal form, and the genuine page. The identity gate reads each page's
//! category, country and legal-name signals and says why it rejects.

use std::collections::BTreeMap;

use dra::corpus::Corpus;
use dra::evidence::assess;
use dra::protocol::{EntityAnchors, EventBody, Verdict};

use super::common::{TestHome, parse_events, repo_path};

const SITE: &str = "https://www.reviewhub.example/";

/// (page, expected verdict, a word the reason must carry)
const MATRIX: &[(&str, Verdict, &str)] = &[
    (
        "cloud-computing/gpu-cloud/corvid-cloud",
        Verdict::Accepted,
        "",
    ),
    (
        "accounting-software/corvid-cloud",
        Verdict::Rejected,
        "category",
    ),
    (
        "cloud-computing/gpu-cloud/corvid-cloud-de",
        Verdict::Rejected,
        "country",
    ),
    (
        "cloud-computing/gpu-cloud/corvid-cloud-inc",
        Verdict::Rejected,
        "legal form",
    ),
];

fn anchors() -> EntityAnchors {
    EntityAnchors {
        name: Some("Corvid Cloud Ltd".into()),
        country: Some("United Kingdom".into()),
        city: Some("Manchester".into()),
        industry: vec!["GPU cloud".into()],
        ..Default::default()
    }
}

#[test]
fn the_identity_gate_tells_lookalikes_on_one_site_apart() {
    let corpus = Corpus::from_path(&repo_path("tests/corpora/lookalikes")).unwrap();
    let got: BTreeMap<String, (Verdict, String)> = corpus
        .documents()
        .iter()
        .map(|d| {
            let p = assess(d, &anchors(), "2026-11-29");
            (p.url.clone(), (p.verdict, p.reason.unwrap_or_default()))
        })
        .collect();
    let mut table = String::from("page | expected | got | reason\n");
    for (path, want, why) in MATRIX {
        let url = format!("{SITE}{path}");
        let (verdict, reason) = got
            .get(&url)
            .unwrap_or_else(|| panic!("{url} not in {got:?}"));
        table.push_str(&format!("{path} | {want:?} | {verdict:?} | {reason}\n"));
        assert_eq!(verdict, want, "{url}: {reason}");
        assert!(
            reason.contains(why),
            "{url}: the reason names the {why}: {reason}"
        );
    }
    println!("{table}");
    // The same pages without an industry, country or legal form to hold
    // them against: nothing contradicts, all pass.
    let bare = EntityAnchors {
        name: Some("Corvid Cloud".into()),
        ..Default::default()
    };
    for d in &corpus.documents() {
        assert_eq!(
            assess(d, &bare, "2026-11-29").verdict,
            Verdict::Accepted,
            "{}",
            d.url
        );
    }
}

#[test]
fn a_run_cites_the_genuine_page_and_names_why_the_others_were_rejected() {
    let sb = TestHome::new();
    let out = sb
        .dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["--json", "ask", "--corpus"])
        .arg(repo_path("tests/corpora/lookalikes"))
        .args([
            "--entity",
            "Corvid Cloud Ltd",
            "--country",
            "United Kingdom",
            "--city",
            "Manchester",
            "--industry",
            "GPU cloud",
            "Is Corvid Cloud a good GPU cloud provider? Check pricing and reviews.",
        ])
        .assert();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let events = parse_events(&stdout);
    let judged: BTreeMap<String, (Verdict, String)> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Evidence {
                url,
                verdict,
                reason,
                ..
            } => Some((url.clone(), (*verdict, reason.clone().unwrap_or_default()))),
            _ => None,
        })
        .collect();
    for (path, want, why) in MATRIX {
        let url = format!("{SITE}{path}");
        if let Some((verdict, reason)) = judged.get(&url) {
            assert_eq!(verdict, want, "{url}: {reason}");
            assert!(reason.contains(why), "{reason}");
        }
    }
    assert!(
        judged
            .values()
            .filter(|(v, _)| *v == Verdict::Rejected)
            .count()
            >= 2,
        "the run read the look-alikes: {judged:?}"
    );
    let report = std::fs::read_to_string(sb.run_dir().join("report.md")).unwrap();
    let sources = std::fs::read_to_string(sb.run_dir().join("sources.json")).unwrap();
    assert!(sources.contains("gpu-cloud/corvid-cloud\""), "{sources}");
    for other in ["accounting-software", "corvid-cloud-de", "corvid-cloud-inc"] {
        assert!(!sources.contains(other), "{other} cited: {sources}");
    }
    assert!(
        report.contains("different entity with a similar name"),
        "{report}"
    );
}
