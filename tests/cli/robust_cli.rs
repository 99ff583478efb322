//! Issue 10, the CLI side: the whole question (multi-line, `-`,
//! `--question-file`), signals (SIGTERM, SIGHUP, a double Ctrl-C), output
//! sanitised of control sequences, `--color always` into a pipe, config
//! keys with suggestions, `.env` errors with their line, OS errors once.

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use dra::protocol::{EventBody, StatusReason, StatusState};
use serde_json::Value;

use super::common::{PADMAPAY_QUESTION, TestHome, parse_events, repo_path};
use super::online::{Fault, ONLINE_KEY, Server, start};

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Characters no terminal row or report may carry.
fn unsafe_chars(text: &str) -> Vec<char> {
    text.chars()
        .filter(|&c| {
            (c.is_control() && c != '\n' && c != '\t')
                || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}')
        })
        .collect()
}

fn run_header(run_dir: &Path) -> Value {
    let events = std::fs::read_to_string(run_dir.join("events.jsonl")).unwrap();
    serde_json::from_str(events.lines().next().unwrap()).unwrap()
}

#[test]
fn a_multi_line_question_is_planned_and_reported_whole() {
    let sb = TestHome::new();
    let out = sb
        .dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["--json", "ask"])
        .arg("Is PadmaPay reliable?\nCheck leadership\tand pricing.")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let events = parse_events(&String::from_utf8_lossy(&out.stdout));
    let plan: Vec<String> = events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::Plan { todos, .. } => {
                Some(todos.iter().map(|t| t.content.clone()).collect())
            }
            _ => None,
        })
        .unwrap();
    // The second line names the aspects: the plan follows it.
    assert_eq!(plan, ["leadership", "pricing"], "{plan:?}");
    let report = std::fs::read_to_string(sb.run_dir().join("report.md")).unwrap();
    assert!(
        report.contains("**Question:** Is PadmaPay reliable? Check leadership and pricing."),
        "{report}"
    );
    // The run header keeps the question as asked.
    assert_eq!(
        run_header(&sb.run_dir())["question"],
        "Is PadmaPay reliable?\nCheck leadership\tand pricing."
    );
}

#[test]
fn dash_reads_the_question_from_stdin() {
    let sb = TestHome::new();
    let out = sb
        .dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["-q", "ask", "-"])
        .write_stdin("Is PadmaPay reliable?\nCheck pricing.\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let report = std::fs::read_to_string(sb.run_dir().join("report.md")).unwrap();
    assert!(
        report.contains("**Question:** Is PadmaPay reliable? Check pricing."),
        "{report}"
    );

    let out = sb
        .dra()
        .args(["ask", "-"])
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains("standard input"),
        "{}",
        stderr_of(&out)
    );
}

#[test]
fn question_file_is_read_and_its_problems_name_it() {
    let sb = TestHome::new();
    let file = sb.dir.path().join("question.txt");
    std::fs::write(&file, "Is PadmaPay reliable?\n\nCheck its pricing.\n").unwrap();
    let out = sb
        .dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["-q", "ask", "--question-file"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let report = std::fs::read_to_string(sb.run_dir().join("report.md")).unwrap();
    assert!(report.contains("Is PadmaPay reliable? Check its pricing."));

    let missing = sb.dir.path().join("nope.txt");
    let out = sb
        .dra()
        .args(["ask", "--question-file"])
        .arg(&missing)
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("nope.txt"), "{err}");
    assert_eq!(err.matches("os error 2").count(), 1, "{err}");

    let empty = sb.dir.path().join("empty.txt");
    std::fs::write(&empty, "  \n\t\n").unwrap();
    let out = sb
        .dra()
        .args(["ask", "--question-file"])
        .arg(&empty)
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("empty.txt") && err.contains("empty"), "{err}");

    // A question and a question file at once is a usage error.
    let out = sb
        .dra()
        .args(["ask", "x", "--question-file"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn control_bytes_in_the_question_are_never_echoed() {
    let sb = TestHome::new();
    let out = sb
        .dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args([
            "ask",
            "Is PadmaPay\u{1b}]0;pwned\u{7} reliable?\u{1b}[2J\u{202E} Check pricing.",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(unsafe_chars(&err).is_empty(), "{err:?}");
    assert!(!err.contains("pwned"), "{err}");
    let report = std::fs::read_to_string(sb.run_dir().join("report.md")).unwrap();
    assert!(unsafe_chars(&report).is_empty());
    assert!(report.contains("**Question:** Is PadmaPay reliable? Check pricing."));
    let events = std::fs::read_to_string(sb.run_dir().join("events.jsonl")).unwrap();
    assert!(!events.contains("\\u001b") && !events.contains("pwned"));

    // Nothing but control characters is no question.
    let out = sb
        .dra()
        .args(["ask", "\u{1b}[2J\u{7}\u{202E}"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("empty"));
}

/// The embedded corpus with escape sequences and a bidi override in every
/// title and after every sentence of every page.
fn hostile_corpus(dir: &Path) -> std::path::PathBuf {
    let text = std::fs::read_to_string(repo_path("src/corpus/embedded/padmapay.json")).unwrap();
    let mut corpus: Value = serde_json::from_str(&text).unwrap();
    let evil = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{202E}\u{9b}31m";
    for doc in corpus["documents"].as_array_mut().unwrap() {
        let title = doc["title"].as_str().unwrap_or("").to_string();
        doc["title"] = Value::String(format!("{evil}{title}{evil}"));
        let content = doc["content"].as_str().unwrap().to_string();
        doc["content"] = Value::String(
            content
                .replace("<title>", &format!("<title>{evil}"))
                .replace(". ", &format!(". {evil}")),
        );
    }
    let path = dir.join("hostile.json");
    std::fs::write(&path, corpus.to_string()).unwrap();
    path
}

#[test]
fn escape_sequences_in_pages_reach_neither_rows_nor_report() {
    let sb = TestHome::new();
    let corpus = hostile_corpus(sb.dir.path());
    let out = sb
        .dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["--color", "never", "ask", "--corpus"])
        .arg(&corpus)
        .arg(PADMAPAY_QUESTION)
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains(" read "), "rows were printed: {err}");
    assert!(unsafe_chars(&err).is_empty(), "{:?}", unsafe_chars(&err));
    assert!(!err.contains("pwned"), "{err}");
    let run = sb.run_dir();
    let report = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(report.contains("## Sources") && report.contains("PadmaPay"));
    assert!(
        unsafe_chars(&report).is_empty(),
        "{:?}",
        unsafe_chars(&report)
    );
    assert!(!report.contains("pwned"), "{report}");
    for f in ["events.jsonl", "sources.json"] {
        let text = std::fs::read_to_string(run.join(f)).unwrap();
        assert!(unsafe_chars(&text).is_empty(), "{f}");
        // (A search snippet cut inside a sequence may keep its harmless
        // printable tail, `0;pwned`; never the ESC that made it one.)
        assert!(
            !text.contains("\\u001b") && !text.contains("\\u0007"),
            "{f}"
        );
    }
    for page in std::fs::read_dir(run.join("pages")).unwrap() {
        let text = std::fs::read_to_string(page.unwrap().path()).unwrap();
        assert!(unsafe_chars(&text).is_empty());
    }
}

#[test]
fn color_always_draws_rows_into_a_pipe() {
    let sb = TestHome::new();
    let out = sb
        .dra()
        .env_remove("NO_COLOR")
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["--color", "always", "ask"])
        .arg(PADMAPAY_QUESTION)
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("plan") && err.contains(" read "), "{err}");
    assert!(err.contains("done:"), "{err}");
    // Coloured, as asked.
    assert!(err.contains("\u{1b}["), "{err}");
}

#[test]
fn misspelled_config_keys_get_a_suggestion() {
    let sb = TestHome::new();
    let dir = sb.dir.path().join("config/dra");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.toml"), "max_usdd = 1\n").unwrap();
    let out = sb.dra().arg("tiers").output().unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("did you mean `max_usd`?"), "{err}");

    std::fs::write(dir.join("config.toml"), "zzzz = 1\n").unwrap();
    let err = stderr_of(&sb.dra().arg("tiers").output().unwrap());
    assert!(
        err.contains("valid keys: ") && err.contains("max_tool_calls"),
        "{err}"
    );

    std::fs::remove_file(dir.join("config.toml")).unwrap();
    let out = sb
        .dra()
        .arg("tiers")
        .env("DRA_MAX_USDD", "1")
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = stderr_of(&out);
    assert!(
        err.contains("DRA_MAX_USDD") && err.contains("did you mean DRA_MAX_USD?"),
        "{err}"
    );
}

#[test]
fn dotenv_errors_name_the_path_and_line() {
    let sb = TestHome::new();
    std::fs::write(
        sb.dir.path().join(".env"),
        "# settings\nDRA_MAX_RETRIES=2\n\nFOO BAR=3\n",
    )
    .unwrap();
    let out = sb.dra().arg("tiers").output().unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let path = std::fs::canonicalize(sb.dir.path().join(".env")).unwrap();
    assert!(err.contains(&path.display().to_string()), "{err}");
    assert!(err.contains("line 4") && err.contains("FOO BAR=3"), "{err}");
    assert!(!err.contains("line index"), "{err}");
}

#[test]
fn os_errors_are_printed_once() {
    let sb = TestHome::new();
    let out = sb
        .dra()
        .args(["--config", "/nonexistent/dra.toml", "tiers"])
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.matches("os error 2").count(), 1, "{err}");
    assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
}

/// An online run against the slow scripted server, started and left running.
fn slow_run(server: &Server, sb: &TestHome) -> Child {
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_dra"))
        .current_dir(sb.dir.path())
        .env("HOME", sb.dir.path())
        .env("XDG_DATA_HOME", sb.dir.path().join("data"))
        .env("XDG_CONFIG_HOME", sb.dir.path().join("config"))
        .env("OPENAI_API_KEY", ONLINE_KEY)
        .env("OPENAI_BASE_URL", &server.base)
        .env("NO_COLOR", "1")
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["ask", "--corpus"])
        .arg(repo_path("src/corpus/embedded/padmapay.json"))
        .arg(PADMAPAY_QUESTION)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start_at = Instant::now();
    while server.count() < 5 {
        assert!(
            start_at.elapsed() < Duration::from_secs(30),
            "the run never got going"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

fn kill(child: &Child, signal: &str) {
    let status = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

fn wait(child: Child) -> (Option<i32>, String) {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut child = child;
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        assert!(Instant::now() < deadline, "dra did not stop after a signal");
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    (out.status.code(), stderr_of(&out))
}

/// The last line of events.jsonl is the run's one terminal status.
fn assert_ends_with_terminal_status(run_dir: &Path) -> dra::protocol::Status {
    let text = std::fs::read_to_string(run_dir.join("events.jsonl")).unwrap();
    let events = parse_events(&text.lines().skip(1).collect::<Vec<_>>().join("\n"));
    let terminal: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Status(s) if s.state.is_terminal() => Some(s.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(terminal.len(), 1, "{text}");
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "seq in order");
    match &events.last().unwrap().body {
        EventBody::Status(s) => {
            assert_eq!(
                (s.state, s.reason),
                (StatusState::Error, Some(StatusReason::Interrupted))
            );
            s.clone()
        }
        other => panic!("the last event is {other:?}"),
    }
}

#[test]
fn sigterm_and_sighup_end_a_run_like_ctrl_c() {
    for (signal, code) in [("TERM", 143), ("HUP", 129)] {
        let server = start(Fault::Slow);
        let sb = TestHome::new();
        let child = slow_run(&server, &sb);
        kill(&child, signal);
        let (got, err) = wait(child);
        assert_eq!(got, Some(code), "SIG{signal}: {err}");
        assert!(err.contains(&format!("SIG{signal}: finishing up")), "{err}");
        let run = sb.run_dir();
        for f in ["report.md", "sources.json", "evidence.json"] {
            assert!(run.join(f).is_file(), "{f} after SIG{signal}");
        }
        let report = std::fs::read_to_string(run.join("report.md")).unwrap();
        assert!(report.contains("## Sources"), "{report}");
        assert_ends_with_terminal_status(&run);
    }
}

#[test]
fn a_second_signal_exits_at_once_and_still_ends_the_log() {
    // The second signal must land while the first one's salvage runs; when
    // the run finished first, it is tried again.
    let mut forced = false;
    for _ in 0..4 {
        let server = start(Fault::Slow);
        let sb = TestHome::new();
        let child = slow_run(&server, &sb);
        kill(&child, "INT");
        std::thread::sleep(Duration::from_millis(5));
        kill(&child, "INT");
        let (code, err) = wait(child);
        assert_eq!(code, Some(130), "{err}");
        let status = assert_ends_with_terminal_status(&sb.run_dir());
        // Forced, and the writer (not the run) wrote the terminal line.
        let detail = status.detail.unwrap_or_default();
        if err.contains("SIGINT again: exiting without waiting") && detail.contains("SIGINT again")
        {
            forced = true;
            break;
        }
    }
    assert!(forced, "the second Ctrl-C never arrived during the run");
}
