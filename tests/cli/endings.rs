//! Honest endings (issue 10): unresearchable questions and reports without
//! a verified source end with their own reason and exit code; run_start is
//! always first; reading-order numbers map to report numbers; salvaged
//! reports list unresearched aspects; security notes survive memory; cut
//! documents are "truncated" gaps.

use std::collections::BTreeMap;
use std::path::Path;

use dra::protocol::{Event, EventBody, StatusReason, StatusState, WarningCode};
use dra::report::SourceEntry;

use super::common::{PADMAPAY_QUESTION, TestHome, parse_events};

fn json_run(sb: &TestHome, args: &[&str], code: i32) -> Vec<Event> {
    let out = sb
        .dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        // These endings are for runs that may not ask (clarifying first is
        // tested in tests/cli/clarify.rs).
        .args(["--json", "ask", "--no-clarify"])
        .args(args)
        .assert()
        .code(code);
    parse_events(&String::from_utf8_lossy(&out.get_output().stdout))
}

fn terminal(events: &[Event]) -> (StatusState, Option<StatusReason>, String) {
    match &events.last().expect("events").body {
        EventBody::Status(s) => (s.state, s.reason, s.detail.clone().unwrap_or_default()),
        other => panic!("last event is not a status: {other:?}"),
    }
}

fn report_of(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("report.md")).expect("report.md written")
}

/// The latest run directory (runs are named by time).
fn last_run(sb: &TestHome) -> std::path::PathBuf {
    let mut dirs: Vec<_> = std::fs::read_dir(sb.runs())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    dirs.pop().unwrap()
}

#[test]
fn a_question_with_nothing_to_research_stops_early_and_says_how_to_ask() {
    // A question of control characters only is empty once sanitised: a
    // usage error before any run (tests/cli/robust_cli.rs).
    for q in ["x", "Compare them"] {
        let sb = TestHome::new();
        let events = json_run(&sb, &[q], 7);
        assert!(matches!(events[0].body, EventBody::RunStart { .. }));
        let (state, reason, detail) = terminal(&events);
        assert_eq!(state, StatusState::Error, "{q:?}");
        assert_eq!(reason, Some(StatusReason::QuestionUnclear), "{q:?}");
        assert!(detail.contains("ask about a named subject"), "{detail}");
        assert!(
            !events.iter().any(|e| matches!(
                e.body,
                EventBody::ToolCall { .. }
                    | EventBody::Source { .. }
                    | EventBody::SearchQuery { .. }
            )),
            "{q:?}: nothing is researched"
        );
        let report = report_of(&sb.run_dir());
        assert!(report.contains("Nothing was researched"), "{report}");
        assert!(
            !report.chars().any(|c| c.is_control() && c != '\n'),
            "{report:?}"
        );
    }
    // The human summary tells the user what to do.
    let sb = TestHome::new();
    let out = sb
        .dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["ask", "--no-clarify", "Compare them"])
        .assert()
        .code(7);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(stderr.contains("question_unclear"), "{stderr}");
    assert!(stderr.contains("ask about a named subject"), "{stderr}");
}

#[test]
fn a_report_with_no_verified_source_is_not_delivered() {
    let sb = TestHome::new();
    let corpus = sb.dir.path().join("notes");
    std::fs::create_dir_all(&corpus).unwrap();
    std::fs::write(
        corpus.join("bread.md"),
        "---\ntitle: Sourdough at home\nurl: https://bakery.example/sourdough\n---\n\nSourdough bread needs a starter fed with flour and water. Bake it at 230 degrees for forty minutes.\n",
    )
    .unwrap();
    let corpus = corpus.display().to_string();
    let events = json_run(
        &sb,
        &[
            "--corpus",
            &corpus,
            "Is Quorvex Freight (Nagpur, India) a reliable cold-chain partner? Check leadership and pricing.",
        ],
        6,
    );
    assert!(matches!(events[0].body, EventBody::RunStart { .. }));
    let (state, reason, detail) = terminal(&events);
    assert_eq!(
        (state, reason),
        (StatusState::Error, Some(StatusReason::NoVerifiedSource))
    );
    assert!(!detail.is_empty());
    let dir = sb.run_dir();
    let report = report_of(&dir);
    assert!(report.contains("**No verified source.**"), "{report}");
    let sources: Vec<SourceEntry> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("sources.json")).unwrap()).unwrap();
    assert!(sources.is_empty(), "{sources:?}");
}

#[test]
fn run_start_comes_first_even_when_memory_cannot_be_read() {
    let memory = |sb: &TestHome| sb.dir.path().join("data/dra/memory/lessons.json");
    // Corrupt, then unreadable (a directory where the file should be).
    let corrupt = TestHome::new();
    std::fs::create_dir_all(memory(&corrupt).parent().unwrap()).unwrap();
    std::fs::write(memory(&corrupt), "{ not json").unwrap();
    let unreadable = TestHome::new();
    std::fs::create_dir_all(memory(&unreadable)).unwrap();
    for sb in [corrupt, unreadable] {
        let events = json_run(&sb, &[PADMAPAY_QUESTION], 0);
        assert!(
            matches!(events[0].body, EventBody::RunStart { .. }),
            "first event: {:?}",
            events[0].body
        );
        assert!(
            events.iter().any(|e| matches!(
                &e.body,
                EventBody::Warning {
                    code: WarningCode::MemoryUnreadable,
                    ..
                }
            )),
            "the memory problem is still told"
        );
    }
}

#[test]
fn every_report_number_maps_to_the_source_event_it_came_from() {
    let sb = TestHome::new();
    let events = json_run(&sb, &[PADMAPAY_QUESTION], 0);
    let read: BTreeMap<usize, String> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Source { index, url, .. } => Some((*index, url.clone())),
            _ => None,
        })
        .collect();
    let mapping = events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::Sources { sources } => Some(sources.clone()),
            _ => None,
        })
        .expect("a sources event");
    let report_at = events
        .iter()
        .position(|e| matches!(e.body, EventBody::Report { .. }))
        .unwrap();
    let sources_at = events
        .iter()
        .position(|e| matches!(e.body, EventBody::Sources { .. }))
        .unwrap();
    assert!(
        sources_at < report_at,
        "the mapping comes with the final report"
    );
    // Every source event is mapped once, with its own URL.
    assert_eq!(mapping.len(), read.len());
    for m in &mapping {
        assert_eq!(read.get(&m.index), Some(&m.url), "{m:?}");
    }
    let dir = sb.run_dir();
    // The report event says where report.md is, and it holds what it says.
    let EventBody::Report {
        markdown,
        report_path,
    } = &events[report_at].body
    else {
        unreachable!()
    };
    let path = report_path
        .as_deref()
        .expect("the report event's report_path");
    assert_eq!(std::path::Path::new(path), dir.join("report.md"));
    assert_eq!(&std::fs::read_to_string(path).unwrap(), markdown);
    let json: Vec<SourceEntry> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("sources.json")).unwrap()).unwrap();
    // sources.json holds exactly the cited sources, under their report numbers.
    let cited: Vec<_> = mapping.iter().filter(|m| m.report.is_some()).collect();
    assert_eq!(cited.len(), json.len());
    for entry in &json {
        let m = mapping
            .iter()
            .find(|m| m.report == Some(entry.index))
            .unwrap_or_else(|| panic!("report [{}] not in the mapping", entry.index));
        assert_eq!(m.url, entry.url);
    }
    // Every [n] in report.md resolves through the mapping to a source event with the same URL.
    let report = report_of(&dir);
    let (body, _, _) = dra::report::citations::split_sources(&report);
    let numbers = dra::report::citations::citations(body);
    assert!(numbers.len() >= 5, "{report}");
    let mut renumbered = false;
    for (_, n) in numbers {
        let m = mapping
            .iter()
            .find(|m| m.report == Some(n))
            .expect("mapped");
        let entry = json.iter().find(|e| e.index == n).expect("in sources.json");
        assert_eq!(read[&m.index], entry.url, "[{n}]");
        renumbered |= m.index != n;
    }
    assert!(renumbered, "the PadmaPay report renumbers some sources");
    // The rows show the report numbers once known.
    let out = sb
        .dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["-v", "ask", PADMAPAY_QUESTION])
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    let row = stderr
        .lines()
        .find(|l| l.starts_with("sources: "))
        .unwrap_or_else(|| panic!("no sources row in:\n{stderr}"));
    assert!(
        row.contains("read [") && row.contains("-> report [1]"),
        "{row}"
    );
}

#[test]
fn a_salvaged_report_tells_an_aspect_cut_short_from_one_never_reached() {
    // One sub-researcher at a time: the first reads pages, then the tool
    // calls run out before it submits; the others never start.
    let sb = TestHome::new();
    json_run(
        &sb,
        &[
            "--max-parallel",
            "1",
            "--max-tool-calls",
            "12",
            PADMAPAY_QUESTION,
        ],
        5,
    );
    let report = report_of(&sb.run_dir());
    let gaps = gaps_of(&report);
    let cut = gaps
        .lines()
        .find(|l| l.contains("cut short"))
        .unwrap_or_else(|| panic!("an aspect cut short:\n{gaps}"));
    assert!(
        cut.contains("pages read") && cut.contains("(budget exhausted)"),
        "{cut}"
    );
    assert!(gaps.contains("not researched"), "{gaps}");
}

#[test]
fn a_salvaged_report_lists_every_unresearched_aspect_under_gaps() {
    let sb = TestHome::new();
    let events = json_run(&sb, &["--max-tool-calls", "12", PADMAPAY_QUESTION], 5);
    let plan: Vec<String> = events
        .iter()
        .rev()
        .find_map(|e| match &e.body {
            EventBody::Plan { todos, .. } => {
                Some(todos.iter().map(|t| t.content.clone()).collect())
            }
            _ => None,
        })
        .expect("a plan");
    let researched: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::SubagentFindings { unit, .. } => Some(unit.clone()),
            _ => None,
        })
        .collect();
    let report = report_of(&sb.run_dir());
    let gaps = gaps_of(&report).to_lowercase();
    let unresearched = gaps.matches("not researched").count();
    assert!(unresearched >= 1, "{gaps}");
    assert!(
        unresearched + researched.len() >= plan.len(),
        "{plan:?} / {researched:?}\n{gaps}"
    );
    for aspect in &plan {
        assert!(
            gaps.contains(&aspect.to_lowercase()),
            "{aspect:?} missing from Gaps:\n{gaps}"
        );
    }
    assert!(gaps.contains("the run ended (budget exhausted)"), "{gaps}");
}

#[test]
fn security_notes_survive_memory() {
    let sb = TestHome::new();
    json_run(&sb, &[PADMAPAY_QUESTION], 0);
    let first = report_of(&last_run(&sb));
    assert!(first.contains("best-gateways-2026.example"), "{first}");
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let events = json_run(&sb, &[PADMAPAY_QUESTION], 0);
    assert!(
        !events.iter().any(|e| matches!(&e.body, EventBody::Fetch { url, .. } if url.contains("best-gateways-2026.example"))),
        "memory skipped the page"
    );
    let second = report_of(&last_run(&sb));
    let notes = second
        .split("## Security notes")
        .nth(1)
        .unwrap_or_else(|| panic!("no security notes:\n{second}"))
        .split("\n## ")
        .next()
        .unwrap();
    assert!(notes.contains("best-gateways-2026.example"), "{notes}");
    assert!(notes.contains("instructions aimed at AI agents"), "{notes}");
}

#[test]
fn a_gap_in_a_cut_document_says_truncated() {
    let sb = TestHome::new();
    let corpus = sb.dir.path().join("docs");
    std::fs::create_dir_all(&corpus).unwrap();
    let mut text = String::from(
        "---\ntitle: Zentrix Logistics handbook\nurl: https://zentrix.example/handbook\n---\n\nZentrix Logistics is a freight company based in Pune, India. Zentrix Logistics was founded in 2011 by Meera Iyer.\n\n",
    );
    while text.len() < 130_000 {
        text.push_str(
            "Zentrix Logistics trucks leave the Pune depot every morning and return at night.\n",
        );
    }
    text.push_str("\nZentrix Logistics pricing starts at Rs 900 per pallet per day.\n");
    std::fs::write(corpus.join("handbook.md"), text).unwrap();
    let corpus = corpus.display().to_string();
    let out = sb
        .dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args([
            "--json",
            "ask",
            "--no-clarify",
            "--corpus",
            &corpus,
            "Is Zentrix Logistics (Pune, India) a reliable freight partner? Check leadership and pricing.",
        ])
        .assert();
    let events = parse_events(&String::from_utf8_lossy(&out.get_output().stdout));
    assert!(matches!(events[0].body, EventBody::RunStart { .. }));
    let report = report_of(&sb.run_dir());
    let gaps = gaps_of(&report);
    assert!(
        gaps.contains("- Truncated: `https://zentrix.example/handbook"),
        "{gaps}"
    );
    let pricing = gaps
        .lines()
        .find(|l| l.to_lowercase().contains("pricing"))
        .unwrap_or_else(|| panic!("no pricing gap:\n{gaps}"));
    assert!(pricing.contains("truncated"), "{pricing}");
}

#[test]
fn a_subject_found_nowhere_is_not_answered_with_coincidental_sentences() {
    // Real-world pages about other things: a café, a laptop's Wi-Fi. "How
    // Firefox Reader View works" shares one word ("works") with them.
    let sb = TestHome::new();
    let corpus = super::common::repo_path("tests/corpora/realworld");
    let corpus = corpus.display().to_string();
    let events = json_run(
        &sb,
        &[
            "--corpus",
            &corpus,
            "What is Firefox Reader View and how does it work?",
        ],
        6,
    );
    let (state, reason, _) = terminal(&events);
    assert_eq!(
        (state, reason),
        (StatusState::Error, Some(StatusReason::NoVerifiedSource))
    );
    let report = report_of(&sb.run_dir());
    assert!(!report.contains("café"), "{report}");
    assert!(!report.contains("systemd"), "{report}");
}

/// The section of a report saying what it could not find: "What the
/// sources do not say" in dra's own reports, "Gaps" when only the run's
/// notes made one.
fn gaps_of(report: &str) -> &str {
    ["## What the sources do not say", "## Gaps"]
        .iter()
        .find_map(|h| report.split(h).nth(1))
        .unwrap_or_else(|| panic!("no gaps section in:\n{report}"))
        .split("\n## ")
        .next()
        .unwrap_or_default()
}
