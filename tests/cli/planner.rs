//! Planning and the identity gate on a small corpus written for these
//! tests (tests/corpora/planner): a how-it-works question whose subject is
//! inferred, the same question with the subject given as an anchor, a
//! look-alike firm, and a question full of dotted capitals.

use serde_json::Value;

use super::common::{TestHome, repo_path};

const QUESTION: &str = "What is Larkspur Sync and how does it work?";
const BLOG: &str = "https://notes-weekly.example/2026/06/inside-the-larkspur-engine";
const LOOKALIKE: &str = "https://larkspursync-plumbing.example/about";

fn run(args: &[&str]) -> Vec<Value> {
    let sb = TestHome::new();
    let out = sb
        .dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["ask", "--json", "--corpus"])
        .arg(repo_path("tests/corpora/planner"))
        .args(args)
        .assert()
        .success();
    String::from_utf8_lossy(&out.get_output().stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn of_type<'a>(events: &'a [Value], t: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == t).collect()
}

fn verdict_of<'a>(events: &'a [Value], url: &str) -> Option<&'a str> {
    of_type(events, "fetch")
        .into_iter()
        .find(|e| e["url"] == url)
        .and_then(|e| e["verdict"].as_str())
}

fn status(events: &[Value]) -> (String, String) {
    let s = of_type(events, "status");
    let last = s.last().copied().cloned().unwrap_or_default();
    (
        last["state"].as_str().unwrap_or("").to_string(),
        last["reason"].as_str().unwrap_or("").to_string(),
    )
}

#[test]
fn an_inferred_subject_plans_by_kind_and_never_rejects_a_page() {
    let events = run(&[QUESTION]);
    let plan = of_type(&events, "plan");
    let plan = plan.first().expect("a plan event");
    assert_eq!(plan["kind"], "how_it_works");
    let todos: Vec<&str> = plan["todos"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["content"].as_str())
        .collect();
    assert_eq!(todos, ["What Larkspur Sync is", "How Larkspur Sync works",]);
    // Queries are short: the subject and the aspect's key terms.
    for q in of_type(&events, "search_query") {
        let q = q["query"].as_str().unwrap();
        assert!(q.split_whitespace().count() <= 10, "{q}");
    }
    // A page about the subject that does not spell its name is read.
    assert_eq!(verdict_of(&events, BLOG), Some("accepted"));
    for f in of_type(&events, "fetch") {
        let detail = f["detail"].as_str().unwrap_or("");
        assert!(
            !detail.contains("not clearly about the entity"),
            "an inferred subject rejected a page: {f}"
        );
    }
    // A look-alike is still rejected.
    if let Some(v) = verdict_of(&events, LOOKALIKE) {
        assert_eq!(v, "rejected");
    }
    assert_eq!(status(&events), ("done".into(), "report_delivered".into()));
}

#[test]
fn given_anchors_keep_the_gate_hard() {
    let events = run(&["--entity", "Larkspur Sync", QUESTION]);
    assert_eq!(verdict_of(&events, BLOG), Some("rejected"));
    if let Some(v) = verdict_of(&events, LOOKALIKE) {
        assert_eq!(v, "rejected");
    }
}

#[test]
fn a_question_full_of_dotted_capitals_runs_to_the_end() {
    let events =
        run(&["İSTANBUL'DA LARKSPUR SYNC NASIL ÇALIŞIR? İİİ: check chunks, encryption and limits"]);
    let (state, reason) = status(&events);
    assert_eq!(state, "done", "{reason}");
    let plan = of_type(&events, "plan");
    let todos = plan[0]["todos"].as_array().unwrap();
    assert_eq!(todos.len(), 3, "{todos:?}");
}
