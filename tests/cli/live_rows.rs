//! The live rows as a terminal shows them: `dra ask` on a pseudo-terminal
//! of 60 and 120 columns (stdout to a file, so the screen holds stderr
//! alone), its output played through a terminal emulator (vt100). What is
//! left on the screen when the run ends is snapshotted (spinner rows clear
//! themselves), and no row may wrap at any moment of the run: a line that
//! wraps on a real terminal wraps here.

use super::common::{PADMAPAY_QUESTION, TestHome};
use super::snapshots::{reads_in_order, settings};

/// Rows of the pseudo-terminal: enough that nothing scrolls away.
const ROWS: u16 = 400;

/// What a terminal of `cols` columns shows after `dra ARGS` ends, and the
/// exit code. Fails if any row wrapped while the run drew it.
fn on_terminal(sb: &TestHome, cols: u16, args: &[&str], envs: &[(&str, &str)]) -> (String, i32) {
    let mut c = std::process::Command::new("sh");
    sb.isolate(&mut c);
    c.env_remove("NO_COLOR")
        .env("TERM", "xterm-256color")
        .env("DRA_TODAY", "2026-12-01")
        .env("DRA_MAX_PARALLEL", "1")
        .envs(envs.iter().copied())
        .arg("-c")
        .arg(format!(
            "stty cols {cols} rows {ROWS} && exec \"$@\" >stdout.txt"
        ))
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_dra"))
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(args);
    let mut p = rexpect::session::spawn_command(c, Some(90_000)).unwrap();
    let out = p.exp_eof().unwrap();
    let code = match p.process().wait().unwrap() {
        rexpect::process::WaitStatus::Exited(_, code) => code,
        other => panic!("{other:?}\n{out}"),
    };
    let mut term = vt100::Parser::new(ROWS.try_into().unwrap(), cols.try_into().unwrap(), 0);
    // rexpect hands each byte over as one char.
    let bytes: Vec<u8> = out
        .chars()
        .map(|c| u8::try_from(c).unwrap_or(b'?'))
        .collect();
    for byte in &bytes {
        term.process(std::slice::from_ref(byte));
        // A row the terminal wrapped with text in its last column: a line
        // ran over. (The live rows pad their lines with spaces to the width,
        // and dra keeps its lines out of the last column.)
        let screen = term.screen();
        let row = screen.cursor_position().0.saturating_sub(1);
        let last = screen
            .cell(row, cols - 1)
            .is_some_and(|c| !c.contents().trim().is_empty());
        assert!(
            !(screen.row_wrapped(row) && last),
            "row {row} wrapped at {cols} columns:\n{}",
            screen.contents()
        );
    }
    // Row by row: the live rows pad a line to the width and let the
    // terminal wrap to the next row, which `contents()` would join.
    let mut shown: Vec<String> = term
        .screen()
        .rows(0, cols)
        .map(|r| r.trim_end().to_string())
        .collect();
    while shown.last().is_some_and(String::is_empty) {
        shown.pop();
    }
    (reads_in_order(&(shown.join("\n") + "\n")), code)
}

fn snapshot_at(sb: &TestHome, name: &str, cols: u16, screen: &str) {
    settings(sb).bind(|| insta::assert_snapshot!(format!("live_rows_{name}_{cols}"), screen));
}

/// The README's first command, offline: at most 30 lines, none wider than
/// the terminal.
#[test]
fn an_offline_run_fits_60_and_120_columns() {
    for cols in [60, 120] {
        let sb = TestHome::new();
        let (screen, code) = on_terminal(&sb, cols, &["ask", PADMAPAY_QUESTION], &[]);
        assert_eq!(code, 0, "{screen}");
        assert!(screen.lines().count() <= 30, "{screen}");
        snapshot_at(&sb, "offline", cols, &screen);
    }
}

/// Loader warnings: three, then how many more.
#[test]
fn loader_warnings_fit_60_and_120_columns() {
    for cols in [60, 120] {
        let sb = TestHome::new();
        let corpus = sb.dir.path().join("corpus");
        super::corpus_loading::messy_folder(&corpus);
        let corpus = corpus.display().to_string();
        let (screen, code) = on_terminal(
            &sb,
            cols,
            &[
                "ask",
                "--offline",
                "--corpus",
                &corpus,
                super::corpus_loading::QUESTION,
            ],
            &[],
        );
        assert_eq!(code, 0, "{screen}");
        assert!(screen.contains("-v lists them"), "{screen}");
        snapshot_at(&sb, "loader_warnings", cols, &screen);
    }
}

/// Pages that cannot be fetched: each error once, the outage and how to
/// resume.
#[test]
fn failing_fetches_fit_60_and_120_columns() {
    for cols in [60, 120] {
        let sb = TestHome::new();
        let pages = super::outage::dead_port();
        let (base, _rt) = super::outage::search_server(false, pages);
        let allow = format!("127.0.0.1:{pages},{}", base.trim_start_matches("http://"));
        let (screen, code) = on_terminal(
            &sb,
            cols,
            &[
                "ask",
                "--web",
                "Is Zephyr Parcel (Pune, India) a reliable courier partner?",
            ],
            &[
                ("TAVILY_API_KEY", "tvly-test"),
                ("TAVILY_BASE_URL", &base),
                ("DRA_FETCH_ALLOWLIST", &allow),
            ],
        );
        assert_eq!(code, 1, "{screen}");
        assert!(screen.contains("dra resume "), "{screen}");
        let screen = screen.replace(&pages.to_string(), "[PORT]");
        snapshot_at(&sb, "failing_fetches", cols, &screen);
    }
}

/// `-q` on a terminal: no rows, no notes; the report path still on stdout.
#[test]
fn quiet_draws_nothing_on_a_terminal() {
    let sb = TestHome::new();
    let (screen, code) = on_terminal(&sb, 120, &["-q", "ask", PADMAPAY_QUESTION], &[]);
    assert_eq!(code, 0, "{screen}");
    assert_eq!(screen.trim(), "", "{screen}");
    let stdout = std::fs::read_to_string(sb.dir.path().join("stdout.txt")).unwrap();
    assert!(stdout.contains("report.md"), "{stdout}");
}
