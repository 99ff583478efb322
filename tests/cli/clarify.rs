//! Clarifying questions: the offline model asks when the question names
//! nothing to research; headless runs stop with exit 3; `--no-clarify`
//! states its assumption; on a terminal the questions are asked with
//! dialoguer and the run goes on with the answers.

use dra::protocol::{EventBody, StatusReason, StatusState};

use super::common::{TestHome, parse_events};

fn terminal(events: &[dra::protocol::Event]) -> (StatusState, Option<StatusReason>) {
    events
        .iter()
        .rev()
        .find_map(|e| match &e.body {
            EventBody::Status(s) if matches!(s.state, StatusState::Done | StatusState::Error) => {
                Some((s.state, s.reason))
            }
            _ => None,
        })
        .expect("a terminal status")
}

fn questions(events: &[dra::protocol::Event]) -> Vec<String> {
    events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::Clarification { questions } => Some(questions.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

fn ask_json(
    question: &str,
    extra: &[&str],
    env: &[(&str, &str)],
) -> (i32, Vec<dra::protocol::Event>, TestHome) {
    let sb = TestHome::new();
    let mut cmd = sb.dra();
    cmd.args(["--json", "--runs-dir"]).arg(sb.runs()).arg("ask");
    cmd.args(extra).arg(question);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let events = parse_events(&String::from_utf8_lossy(&out.stdout));
    (out.status.code().unwrap_or(-1), events, sb)
}

#[test]
fn subject_less_questions_are_asked_about_and_end_with_exit_3() {
    for (q, want) in [
        (
            "Is it reliable?",
            "Which company or product do you mean by \u{201c}it\u{201d}?",
        ),
        ("hi", "What would you like researched?"),
        ("x", "What would you like to know about \u{201c}x\u{201d}"),
        ("Compare them", "What should be compared with what?"),
    ] {
        let (code, events, sb) = ask_json(q, &[], &[]);
        assert_eq!(code, 3, "{q}: exit code");
        let asked = questions(&events);
        assert!(
            asked.iter().any(|a| a.starts_with(want)),
            "{q}: asked {asked:?}"
        );
        assert_eq!(
            terminal(&events),
            (StatusState::Done, Some(StatusReason::AwaitingClarification)),
            "{q}"
        );
        // No research was done before asking.
        assert!(
            !events
                .iter()
                .any(|e| matches!(e.body, EventBody::SearchQuery { .. })),
            "{q}"
        );
        // The questions are in the run dir too.
        let logged = std::fs::read_to_string(sb.run_dir().join("events.jsonl")).unwrap();
        assert!(logged.contains("\"type\":\"clarification\""));
    }
}

#[test]
fn a_named_question_is_not_asked_about() {
    let (code, events, _sb) = ask_json("Who leads PadmaPay?", &[], &[]);
    assert!(questions(&events).is_empty());
    assert_ne!(code, 3);
}

#[test]
fn no_clarify_researches_and_states_the_assumption() {
    for (extra, env) in [
        (vec!["--no-clarify"], vec![]),
        (vec![], vec![("DRA_CLARIFY", "false")]),
    ] {
        let (code, events, sb) = ask_json("Is it reliable?", &extra, &env);
        assert!(questions(&events).is_empty(), "{extra:?} {env:?}");
        assert_ne!(code, 3);
        // The model was not even offered the tool.
        assert!(!events.iter().any(|e| matches!(&e.body, EventBody::ToolCall { tool, .. } if tool == "request_clarification")));
        let report = std::fs::read_to_string(sb.run_dir().join("report.md")).unwrap();
        assert!(report.contains("**Assumptions:**"), "{report}");
        assert!(report.contains("clarifying is off"), "{report}");
    }
}

#[test]
fn no_clarify_with_nothing_to_research_says_so() {
    let (_code, events, sb) = ask_json("hi", &["--no-clarify"], &[]);
    assert!(questions(&events).is_empty());
    assert!(
        !events
            .iter()
            .any(|e| matches!(e.body, EventBody::SearchQuery { .. }))
    );
    let report = std::fs::read_to_string(sb.run_dir().join("report.md")).unwrap();
    assert!(report.contains("Nothing to research"), "{report}");
}

#[test]
fn doctor_shows_the_clarify_setting() {
    let sb = TestHome::new();
    let out = sb
        .dra()
        .args(["doctor", "--settings"])
        .env("DRA_CLARIFY", "false")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("DRA_CLARIFY"), "{text}");
}

/// The binary with the sandbox's environment, for a pseudo-terminal.
fn pty_command(sb: &TestHome) -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_dra"));
    let home = sb.dir.path();
    c.current_dir(home)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("NO_COLOR", "1");
    for (k, _) in std::env::vars() {
        if k.starts_with("DRA_")
            || k.ends_with("_API_KEY")
            || k == "OPENAI_BASE_URL"
            || k == "RUST_LOG"
        {
            c.env_remove(k);
        }
    }
    c
}

/// A pseudo-terminal answers the real dialoguer prompt: the run goes on in
/// the same process and delivers a report about the company named.
#[test]
fn a_terminal_answers_the_question_and_the_run_goes_on() {
    let sb = TestHome::new();
    let mut cmd = pty_command(&sb);
    cmd.args(["--runs-dir"])
        .arg(sb.runs())
        .args(["ask", "--max-parallel", "1", "Is it reliable?"])
        .env("TERM", "dumb");
    let mut p = rexpect::session::spawn_command(cmd, Some(60_000)).unwrap();
    p.exp_string("Which company or product do you mean")
        .unwrap();
    p.send_line("PadmaPay").unwrap();
    p.flush().unwrap();
    let rest = p.exp_eof().unwrap();
    let status = p.process().wait().unwrap();
    assert!(
        matches!(status, rexpect::process::WaitStatus::Exited(_, 0)),
        "{status:?}\n{rest}"
    );
    let dir = sb.run_dir();
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(report.contains("PadmaPay"), "{report}");
    assert!(report.contains("[1]"), "a cited report: {report}");
    let events = parse_events(
        &std::fs::read_to_string(dir.join("events.jsonl"))
            .unwrap()
            .lines()
            .skip(1)
            .collect::<Vec<_>>()
            .join("\n"),
    );
    let answered = events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::ClarificationAnswered { answers } => Some(answers.clone()),
            _ => None,
        })
        .expect("a clarification_answered event");
    assert_eq!(answered.len(), 1);
    assert_eq!(answered[0].answer, "PadmaPay");
    assert_eq!(
        terminal(&events),
        (StatusState::Done, Some(StatusReason::ReportDelivered))
    );
    // The answers reached the lead as one user message pairing Q and A.
    let records = std::fs::read_to_string(dir.join("records.jsonl")).unwrap();
    assert!(
        records.contains("1. Q: Which company or product do you mean by"),
        "records"
    );
}

#[test]
fn no_input_never_prompts_on_a_terminal() {
    let sb = TestHome::new();
    let mut cmd = pty_command(&sb);
    cmd.args(["--runs-dir"])
        .arg(sb.runs())
        .args(["ask", "--no-input", "Is it reliable?"])
        .env("TERM", "dumb");
    let mut p = rexpect::session::spawn_command(cmd, Some(60_000)).unwrap();
    let rest = p.exp_eof().unwrap();
    let status = p.process().wait().unwrap();
    assert!(
        matches!(status, rexpect::process::WaitStatus::Exited(_, 3)),
        "{status:?}\n{rest}"
    );
}

/// One Ctrl-C at the prompt interrupts the run like a Ctrl-C anywhere:
/// a report is still written, the exit code is 130, the run can be resumed
/// and stderr says how; it is not taken for a second Ctrl-C.
#[test]
fn one_ctrl_c_at_the_prompt_is_one_interrupt() {
    let sb = TestHome::new();
    let mut cmd = pty_command(&sb);
    cmd.args(["--runs-dir"])
        .arg(sb.runs())
        .args(["ask", "--max-parallel", "1", "Is it reliable?"])
        .env("TERM", "dumb");
    let mut p = rexpect::session::spawn_command(cmd, Some(60_000)).unwrap();
    p.exp_string("Which company or product do you mean")
        .unwrap();
    p.send_control('c').unwrap();
    let rest = p.exp_eof().unwrap();
    let status = p.process().wait().unwrap();
    assert!(
        matches!(status, rexpect::process::WaitStatus::Exited(_, 130)),
        "{status:?}\n{rest}"
    );
    assert!(!rest.contains("exiting without waiting"), "{rest}");
    assert!(rest.contains("dra resume "), "how to continue: {rest}");
    let dir = sb.run_dir();
    assert!(dir.join("report.md").exists(), "a report is written");
    let events = parse_events(
        &std::fs::read_to_string(dir.join("events.jsonl"))
            .unwrap()
            .lines()
            .skip(1)
            .collect::<Vec<_>>()
            .join("\n"),
    );
    assert_eq!(
        terminal(&events),
        (StatusState::Error, Some(StatusReason::Interrupted))
    );
}
