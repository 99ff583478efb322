//! `dra diff`: two offline runs of one question over two versions of a
//! corpus (a price cut; a funding page re-dated and reworded with the same
//! amount), compared by sub-question with normalised values.

use std::path::{Path, PathBuf};

use super::common::TestHome;

const QUESTION: &str =
    "What does Corvane Freight charge per pallet, and how much funding has it raised?";

fn corpus(root: &Path, name: &str, price: &str, funding: &str) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("pricing.md"),
        format!("# Corvane Freight pricing\n\nCorvane Freight charges {price} per pallet per month for cold storage in Pune.\n"),
    )
    .unwrap();
    std::fs::write(dir.join("funding.md"), funding).unwrap();
    dir
}

/// Runs the question over `corpus`; returns the new run's directory.
fn ask(home: &TestHome, corpus: &Path) -> PathBuf {
    let before: Vec<PathBuf> = runs(home);
    home.dra()
        .arg("--runs-dir")
        .arg(home.runs())
        .args(["-q", "ask", "--no-memory", "--corpus"])
        .arg(corpus)
        .arg(QUESTION)
        .assert()
        .success();
    runs(home)
        .into_iter()
        .find(|d| !before.contains(d))
        .unwrap()
}

fn runs(home: &TestHome) -> Vec<PathBuf> {
    std::fs::read_dir(home.runs())
        .map(|rd| rd.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default()
}

fn diff(home: &TestHome, args: &[&str]) -> (Option<i32>, String, String) {
    let out = home
        .dra()
        .arg("--runs-dir")
        .arg(home.runs())
        .arg("diff")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_price_cut_is_a_change_and_a_reworded_amount_is_not() {
    let home = TestHome::new();
    let v1 = corpus(
        home.dir.path(),
        "v1",
        "INR 900",
        "# Corvane Freight raises Series A\n\nCorvane Freight raised a Series A round of $12 million in March 2025 from Western Ghats Ventures.\n",
    );
    let v2 = corpus(
        home.dir.path(),
        "v2",
        "INR 750",
        "# Corvane Freight raises Series A\n\nUpdated 30 November 2026.\n\nCorvane Freight raised a Series A round of US$12M in March 2025 from Western Ghats Ventures.\n",
    );
    let a = ask(&home, &v1);
    // Run directories are named by the second they start in.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let b = ask(&home, &v2);
    let (a_s, b_s) = (a.to_str().unwrap(), b.to_str().unwrap());

    let (code, out, _) = diff(&home, &["--json", a_s, b_s]);
    assert_eq!(code, Some(0), "without --exit-code a change is no failure");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["changed"], true);
    let fields = v["fields"].as_array().unwrap();
    let kinds: Vec<(&str, &str)> = fields
        .iter()
        .map(|f| (f["kind"].as_str().unwrap(), f["label"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("changed", "What does Corvane Freight charge per pallet"),
            ("unchanged", "How much funding has Corvane Freight raised"),
        ],
        "{out}"
    );
    assert!(
        fields[0]["before"]["value"]
            .as_str()
            .unwrap()
            .contains("INR 900")
    );
    assert!(
        fields[0]["after"]["value"]
            .as_str()
            .unwrap()
            .contains("INR 750")
    );
    assert!(
        fields[0]["after"]["url"]
            .as_str()
            .unwrap()
            .ends_with("v2/pricing.md")
    );

    // Human output: Markdown, also written as the newer run's changes.md.
    let (code, out, err) = diff(&home, &["--exit-code", a_s, b_s]);
    assert_eq!(code, Some(9), "{err}");
    assert!(out.contains("(changed):"), "{out}");
    assert!(out.contains("INR 900") && out.contains("INR 750"), "{out}");
    assert_eq!(std::fs::read_to_string(b.join("changes.md")).unwrap(), out);

    // The latest two runs of the question, by --last.
    let (code, out, _) = diff(&home, &["--last", "--exit-code"]);
    assert_eq!(code, Some(9));
    assert!(
        out.contains("INR 900 per pallet") && out.contains("→"),
        "{out}"
    );

    // A run against itself: nothing changed, exit 0 with --exit-code.
    let (code, out, _) = diff(&home, &["--exit-code", b_s, b_s]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("Nothing the sources say has changed."),
        "{out}"
    );
}

#[test]
fn bad_run_names_are_usage_errors_that_say_what_to_do() {
    let home = TestHome::new();
    let (code, _, err) = diff(&home, &["nope", "nada"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("nope"), "{err}");
    let (code, _, err) = diff(&home, &["--last"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("no runs") && err.contains("dra ask"), "{err}");
    let (code, _, err) = diff(&home, &["--last", "3"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--last 2"), "{err}");
}

#[test]
fn ask_since_opens_the_report_with_what_changed_and_says_so_by_exit_code() {
    let home = TestHome::new();
    let funding = "# Corvane Freight raises Series A\n\nCorvane Freight raised a Series A round of $12 million in March 2025 from Western Ghats Ventures.\n";
    let v1 = corpus(home.dir.path(), "v1", "INR 900", funding);
    let v2 = corpus(home.dir.path(), "v2", "INR 750", funding);
    let a = ask(&home, &v1);
    let since = |corpus: &Path| {
        home.dra()
            .arg("--runs-dir")
            .arg(home.runs())
            .args(["--json", "ask", "--no-memory", "--exit-code", "--since"])
            .arg(&a)
            .arg("--corpus")
            .arg(corpus)
            .arg(QUESTION)
            .output()
            .unwrap()
    };
    let out = since(&v2);
    assert_eq!(out.status.code(), Some(9));
    let events = super::common::parse_events(&String::from_utf8_lossy(&out.stdout));
    let changes: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.body {
            dra::protocol::EventBody::Changes {
                changed,
                changes_path,
                ..
            } => Some((*changed, changes_path.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].0, 1);
    let dir = PathBuf::from(changes[0].1.clone().unwrap())
        .parent()
        .unwrap()
        .to_path_buf();
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let opening = report.split("## Answer").next().unwrap();
    assert!(opening.contains("## Changes since "), "{report}");
    assert!(
        opening.contains("INR 900") && opening.contains("INR 750"),
        "{report}"
    );
    // The report links only to its own sources: the earlier run's are in changes.md.
    assert!(!report.contains("v1/pricing.md"), "{report}");
    assert!(
        std::fs::read_to_string(dir.join("changes.md"))
            .unwrap()
            .contains("v1/pricing.md")
    );

    // The same corpus again: nothing changed, exit 0.
    let out = since(&v1);
    assert_eq!(out.status.code(), Some(0));

    // A run that is not there is a usage error before anything is spent.
    let out = home
        .dra()
        .arg("--runs-dir")
        .arg(home.runs())
        .args(["ask", "--no-memory", "--since", "ffffffff", "--corpus"])
        .arg(&v1)
        .arg(QUESTION)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--since"));
}

#[test]
fn watch_once_reruns_each_question_and_alerts_only_on_change() {
    let home = TestHome::new();
    let funding = "# Corvane Freight raises Series A\n\nCorvane Freight raised a Series A round of $12 million in March 2025 from Western Ghats Ventures.\n";
    let docs = corpus(home.dir.path(), "docs", "INR 900", funding);
    let file = home.dir.path().join("watch.toml");
    std::fs::write(
        &file,
        "[[question]]\nquestion = \"What does Corvane Freight charge per pallet?\"\ncorpus = \"docs\"\n\n[[question]]\nquestion = \"How much funding has Corvane Freight raised?\"\ncorpus = \"docs\"\n",
    )
    .unwrap();
    let watch = || {
        let out = home
            .dra()
            .arg("--runs-dir")
            .arg(home.runs())
            .args(["--json", "watch", "--once", "--exit-code"])
            .arg(&file)
            .output()
            .unwrap();
        let v: serde_json::Value =
            serde_json::from_str(String::from_utf8_lossy(&out.stdout).trim()).unwrap();
        (out.status.code(), v)
    };
    // First runs: nothing to compare with.
    let (code, v) = watch();
    assert_eq!(code, Some(0), "{v}");
    assert!(
        v["questions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|q| q["since_run"].is_null())
    );
    // The price is cut: one question moved, the other did not.
    std::fs::write(
        docs.join("pricing.md"),
        "# Corvane Freight pricing\n\nCorvane Freight charges INR 750 per pallet per month for cold storage in Pune.\n",
    )
    .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let (code, v) = watch();
    assert_eq!(code, Some(9), "{v}");
    let qs = v["questions"].as_array().unwrap();
    assert_eq!(qs[0]["changed"], 1, "{v}");
    assert!(qs[0]["since_run"].is_string());
    assert_eq!(qs[1]["changed"], 0);
    assert_eq!(qs[1]["unchanged"], 1, "{v}");
    let md = std::fs::read_to_string(qs[0]["changes_md"].as_str().unwrap()).unwrap();
    assert!(md.contains("INR 900") && md.contains("INR 750"), "{md}");
    // Nothing moved since: exit 0.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let (code, v) = watch();
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["changed"], false);
    // A missing corpus is named before anything runs.
    let bad = home.dir.path().join("bad.toml");
    std::fs::write(
        &bad,
        "[[question]]\nquestion = \"Q?\"\ncorpus = \"nowhere\"\n",
    )
    .unwrap();
    let out = home
        .dra()
        .arg("--runs-dir")
        .arg(home.runs())
        .args(["watch", "--once"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nowhere"));
    // Without --once, dra says how to schedule it.
    let out = home.dra().args(["watch"]).arg(&file).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cron"));
}

/// Copies `from` over `to` (replacing it): a folder corpus updated in place.
pub(super) fn replace_dir(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    for entry in super::common::run_files(from) {
        let rel = entry.strip_prefix(from).unwrap();
        let dest = to.join(rel);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::copy(&entry, dest).unwrap();
    }
}

/// The gold changes of tests/corpora/changes (v1 -> v2, the folder updated
/// in place): a CEO replaced, a price cut, a licence revoked, a funding
/// round added, a page deleted; a page only re-dated and an archived copy
/// of the old price page re-published are no change.
#[test]
fn diff_finds_exactly_the_gold_changes_of_a_corpus_that_moved() {
    let home = TestHome::new();
    let root = super::common::repo_path("tests/corpora/changes");
    let docs = home.dir.path().join("docs");
    let question = "Who is the CEO of Corvane Freight, what does it charge per pallet, what is the status of its cold storage licence, and how much funding has it raised in total?";
    let ask_q = || {
        home.dra()
            .arg("--runs-dir")
            .arg(home.runs())
            .args(["-q", "ask", "--no-memory", "--corpus"])
            .arg(&docs)
            .arg(question)
            .assert()
            .success();
    };
    replace_dir(&root.join("v1"), &docs);
    ask_q();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    replace_dir(&root.join("v2"), &docs);
    ask_q();
    let (code, out, err) = diff(&home, &["--json", "--last", "--exit-code"]);
    assert_eq!(code, Some(9), "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_the_gold_changes(&v);
    // The deleted page is no longer read; the re-dated page and the
    // archived copy change no answer.
    let removed: Vec<&str> = v["sources_removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert!(removed.iter().any(|u| u.ends_with("/awards.md")), "{out}");
}

/// The gold changes of tests/corpora/changes in `dra diff --json`'s output:
/// four changed answers and nothing else.
pub(super) fn assert_the_gold_changes(v: &serde_json::Value) {
    let moved: Vec<(String, String, String)> = v["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let value = |side: &str| f[side]["value"].as_str().unwrap_or("").to_string();
            (
                f["kind"].as_str().unwrap().to_string(),
                value("before"),
                value("after"),
            )
        })
        .collect();
    assert!(moved.iter().all(|m| m.0 == "changed"), "{v}");
    assert_eq!(moved.len(), 4, "{v}");
    for (before, after) in [
        ("Ishaan Rao", "Leela Das"),
        ("INR 900", "INR 750"),
        ("active cold storage licence", "revoked"),
        ("$12 million", "$42 million"),
    ] {
        assert!(
            moved
                .iter()
                .any(|(_, b, a)| b.contains(before) && a.contains(after)),
            "{before} -> {after}: {v}"
        );
    }
}
