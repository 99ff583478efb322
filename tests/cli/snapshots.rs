//! Snapshot tests of what users read: the report of an offline run of each
//! kind of question, the human rows drawn for one, `dra doctor`, `dra
//! runs`, `dra tiers` and the main error messages. A change to any of them shows
//! up in review as a changed `.snap` file under `tests/cli/snapshots/`
//! (accept with `INSTA_UPDATE=always cargo test` or `cargo insta review`).
//! Run ids, times, temporary paths and durations are filtered out; the
//! clock is pinned with `DRA_TODAY` and sub-researchers run one at a time,
//! so the rows come in one order.

use super::common::{PADMAPAY_QUESTION, TestHome, repo_path};
use dra::protocol::{Event, EventBody};

/// Filters for what differs between two identical runs.
pub(super) fn settings(sb: &TestHome) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_prepend_module_to_snapshot(false);
    let home = regex::escape(&sb.dir.path().display().to_string());
    s.add_filter(&home, "[HOME]");
    s.add_filter(&regex::escape(env!("CARGO_MANIFEST_DIR")), "[REPO]");
    s.add_filter(r"\d{8}T\d{6}Z-[0-9a-f]{8}", "[RUN]");
    s.add_filter(r"run [0-9a-f]{8}", "run [ID]");
    s.add_filter(r"resume [0-9a-f]{8}", "resume [ID]");
    s.add_filter(r"v\d+\.\d+\.\d+", "v[VERSION]");
    s.add_filter(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z", "[TIME]");
    s.add_filter(r"(?m)^[0-9a-f]{8}   ", "[ID]       ");
    // `dra runs`: the id and the minute it started.
    s.add_filter(
        r"(?m)^[0-9a-f]{8} \d{4}-\d{2}-\d{2} \d{2}:\d{2} ",
        "[ID]     [MINUTE]         ",
    );
    s.add_filter(r"\d+\.\d s\b", "[SECS] s");
    // Which sandbox doctor finds depends on the machine (tests/cli/sandbox.rs checks it).
    s.add_filter(
        r"\] sandbox: [^\n]*(\n        fix: [^\n]*)?",
        "] sandbox: [THIS MACHINE'S SANDBOX]",
    );
    s
}

/// A successful `dra` run in `sb`'s runs dir, its clock pinned and its
/// sub-researchers run one at a time (so its rows come in one order).
fn pinned(sb: &TestHome, args: &[&std::ffi::OsStr]) -> assert_cmd::assert::Assert {
    pinned_ending(sb, args, 0)
}

/// `pinned`, ending with exit code `code`.
fn pinned_ending(
    sb: &TestHome,
    args: &[&std::ffi::OsStr],
    code: i32,
) -> assert_cmd::assert::Assert {
    sb.dra()
        .env("DRA_TODAY", "2026-12-01")
        .env("DRA_MAX_PARALLEL", "1")
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(args)
        .assert()
        .code(code)
}

fn offline_run(sb: &TestHome) -> (String, String) {
    let out = pinned(sb, &["ask".as_ref(), PADMAPAY_QUESTION.as_ref()]);
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(!stderr.contains('\u{1b}'), "NO_COLOR rows carry no escapes");
    let report = std::fs::read_to_string(sb.run_dir().join("report.md")).unwrap();
    (report, stderr)
}

/// The rows with each batch of page reads in one order: a sub-researcher
/// reads a search's pages at once, and their `read`/`rejected` lines come
/// in the order the reads finish, which the load of the machine decides.
pub(super) fn reads_in_order(rows: &str) -> String {
    let is_read = |l: &str| {
        let t = l.trim_start();
        t.starts_with("rejected ") || t.split_whitespace().nth(1) == Some("read")
    };
    let mut out: Vec<String> = Vec::new();
    let mut batch: Vec<&str> = Vec::new();
    for line in rows.lines().chain(std::iter::once("")) {
        if is_read(line) {
            batch.push(line);
            continue;
        }
        batch.sort_unstable();
        out.extend(batch.drain(..).map(String::from));
        out.push(line.to_string());
    }
    out.pop();
    out.join("\n") + if rows.ends_with('\n') { "\n" } else { "" }
}

#[test]
fn offline_report_and_rows() {
    let sb = TestHome::new();
    let (report, rows) = offline_run(&sb);
    let rows = reads_in_order(&rows);
    settings(&sb).bind(|| {
        insta::assert_snapshot!("offline_report", report);
        insta::assert_snapshot!("offline_rows", rows);
    });
}

/// `dra ask --help`: flags under headings, then examples.
#[test]
fn ask_help() {
    let sb = TestHome::new();
    let out = sb.dra().args(["ask", "--help"]).assert().success();
    let help = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    for heading in [
        "Question:",
        "Sources:",
        "Subject:",
        "Model:",
        "Budget:",
        "Interaction:",
        "Output:",
        "Examples:",
    ] {
        assert!(help.lines().any(|l| l == heading), "{heading}\n{help}");
    }
    settings(&sb).bind(|| insta::assert_snapshot!("ask_help", help));
}

#[test]
fn doctor_on_a_fresh_machine() {
    let sb = TestHome::new();
    let out = sb.dra().args(["doctor", "--settings"]).assert().success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    settings(&sb).bind(|| insta::assert_snapshot!("doctor_fresh", stdout));
}

/// An offline run over one of the test corpora: the kind it was planned
/// as, and its report.
fn offline_kind_run(corpus: &str, question: &str, code: i32) -> (String, String) {
    let sb = TestHome::new();
    let corpus = repo_path(corpus);
    let out = pinned_ending(
        &sb,
        &[
            "--json".as_ref(),
            "ask".as_ref(),
            "--no-memory".as_ref(),
            "--corpus".as_ref(),
            corpus.as_os_str(),
            question.as_ref(),
        ],
        code,
    );
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let kind = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Event>(l).ok())
        .find_map(|e| match e.body {
            EventBody::Plan { kind, .. } => kind,
            _ => None,
        })
        .map(|k| k.as_str().to_string())
        .unwrap_or_default();
    let report = std::fs::read_to_string(sb.run_dir().join("report.md")).unwrap();
    (kind, report)
}

/// One offline report per kind of question the planner tells apart (the
/// due-diligence one is `offline_report` above).
#[test]
fn offline_report_per_question_kind() {
    let cases = [
        (
            "how_it_works",
            "tests/corpora/calmread",
            "How does Calm Read, the reading mode of the Pelican browser, pick the article text on a page?",
        ),
        (
            "what_changed",
            "tests/corpora/curbspec",
            "What changed in version 3 of the CurbSpec open curb data standard?",
        ),
        (
            "comparison",
            "tests/corpora/kvcompare",
            "How do Quillstore and Brinewood compare on licence and replication?",
        ),
        (
            "landscape",
            "tests/corpora/curbspec",
            "Which cities have adopted the CurbSpec open curb data standard?",
        ),
        (
            "statement",
            "tests/corpora/lanholm",
            "What did the Lanholm city council say about the congestion charge?",
        ),
        (
            "open",
            "tests/corpora/kvcompare",
            "Who maintains the Quillstore embedded database?",
        ),
    ];
    for (kind, corpus, question) in cases {
        // No page of that corpus says who maintains Quillstore: the run
        // says so and ends not answered (exit 8).
        let code = if kind == "open" { 8 } else { 0 };
        let (planned, report) = offline_kind_run(corpus, question, code);
        assert_eq!(planned, kind, "{question}");
        let sb = TestHome::new();
        settings(&sb).bind(|| insta::assert_snapshot!(format!("offline_report_{kind}"), report));
    }
}

/// `dra runs` after two runs, and `dra tiers`.
#[test]
fn runs_and_tiers_listings() {
    let sb = TestHome::new();
    for question in [
        PADMAPAY_QUESTION,
        "Who is the chief executive officer of PadmaPay?",
    ] {
        pinned(
            &sb,
            &[
                "-q".as_ref(),
                "ask".as_ref(),
                "--no-memory".as_ref(),
                question.as_ref(),
            ],
        );
        // Runs are listed by the second they started in: one each.
        std::thread::sleep(std::time::Duration::from_millis(1100));
    }
    // The CEO run answers with who holds the role now (the latest pages),
    // not who three older pages name; the former CEO is history.
    let ceo = std::fs::read_dir(sb.runs())
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path().join("report.md")).unwrap())
        .find(|r| r.contains("**Question:** Who is the chief executive officer"))
        .expect("the CEO run's report");
    let answer = ceo
        .split("## Answer")
        .nth(1)
        .unwrap()
        .split("\n## ")
        .next()
        .unwrap();
    assert!(answer.trim_start().starts_with("**Kavya Menon**"), "{ceo}");
    let history = ceo.split("## History").nth(1).unwrap_or("");
    assert!(history.contains("Arjun Pillai"), "{ceo}");
    // At 80 columns, paths left to `dra runs ID` and --json.
    let runs = sb
        .dra()
        .env("COLUMNS", "80")
        .arg("--runs-dir")
        .arg(sb.runs())
        .arg("runs")
        .assert()
        .success();
    let runs = String::from_utf8(runs.get_output().stdout.clone()).unwrap();
    assert!(runs.lines().all(|l| l.chars().count() <= 80), "{runs}");
    // One run in full: its question, state, what to do next and its files.
    let last = sb
        .dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["runs", "last"])
        .assert()
        .success();
    let last = String::from_utf8(last.get_output().stdout.clone()).unwrap();
    assert!(
        last.contains("question: Who is the chief executive officer of PadmaPay?")
            && last.contains("state: done")
            && last.contains("next: dra ask --continue ")
            && last.contains("report.md"),
        "{last}"
    );
    let tiers = sb.dra().arg("tiers").assert().success();
    let tiers = String::from_utf8(tiers.get_output().stdout.clone()).unwrap();
    settings(&sb).bind(|| {
        insta::assert_snapshot!("runs_listing", runs);
        insta::assert_snapshot!("tiers_listing", tiers);
    });
}

/// The errors a new user meets first: each names what was wrong and how
/// to fix it, with its exit code.
#[test]
fn main_error_messages() {
    let sb = TestHome::new();
    let config = sb.dir.path().join("config/dra");
    std::fs::create_dir_all(&config).unwrap();
    let mut shown = String::new();
    let mut run = |what: &str, args: &[&str], env: &[(&str, &str)]| {
        let mut c = sb.dra();
        c.arg("--runs-dir").arg(sb.runs()).args(args);
        for (k, v) in env {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        let err = String::from_utf8(out.stderr.clone()).unwrap();
        shown.push_str(&format!(
            "## {what} (exit {})\n{}\n",
            out.status.code().unwrap_or(-1),
            err.trim_end()
        ));
    };
    run(
        "a corpus that does not exist",
        &["ask", "--corpus", "/nonexistent/docs", "What is x?"],
        &[],
    );
    run(
        "a limit that is not a number",
        &["ask", "--max-usd", "abc", "What is x?"],
        &[],
    );
    run(
        "a setting misspelled in the environment",
        &["tiers"],
        &[("DRA_MAX_USDD", "1")],
    );
    run("a run that does not exist", &["resume", "nosuchrun"], &[]);
    run("an unknown command", &["askk", "What is x?"], &[]);
    std::fs::write(config.join("config.toml"), "max_usdd = 1\n").unwrap();
    run("a config key misspelled", &["tiers"], &[]);
    std::fs::write(config.join("config.toml"), "max_usd = \"lots\"\n").unwrap();
    run("a config value of the wrong type", &["tiers"], &[]);
    settings(&sb).bind(|| insta::assert_snapshot!("error_messages", shown));
}
