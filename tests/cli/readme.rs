//! Every README shell example runs as written. Each ```sh block is run by
//! bash in a fresh home holding the files the examples name (`./my-docs`,
//! `./docs`, `question.txt`, `answers.json`, `answers.txt`, `domain.md`,
//! the repository's `tests/` and `custom_tools/`), with the dra under test
//! first on PATH, no key and no network; every command must exit 0, or the
//! code its comment names ("# exit 3: ..."). A line is left out only for a
//! reason listed in [`SKIPPED`], so a new example is run unless it says
//! why it cannot be.

use std::collections::BTreeMap;
use std::path::Path;

use super::common::{TestHome, repo_path};

/// Lines not run, each for its reason: what a test may not use.
const SKIPPED: &[(&str, &str)] = &[
    (
        "mcp-serve",
        "a server that runs until stopped (cli::mcp_serve)",
    ),
    ("<run>", "names a run folder of your own"),
    ("resume 95af", "names a run id of your own"),
];

/// Why a line is not run, if it is not: a value of your own to fill in
/// (`TAVILY_API_KEY=tvly-...`: a key, and so the network), or a reason
/// of [`SKIPPED`].
fn skipped(line: &str) -> Option<&'static str> {
    if line
        .split_whitespace()
        .any(|w| w.contains('=') && w.ends_with("..."))
    {
        return Some("needs a key or token of your own (and the network)");
    }
    SKIPPED
        .iter()
        .find(|(mark, _)| line.contains(mark))
        .map(|(_, why)| *why)
}

/// Blocks not run: they build or test dra itself (`cargo ...`).
fn builds_dra(block: &str) -> bool {
    block.lines().any(|l| l.trim_start().starts_with("cargo ")) || block.contains("; do cargo")
}

/// The README's ```sh blocks: the line each starts on, and its lines.
fn shell_blocks(readme: &str) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    let mut open: Option<(usize, Vec<String>)> = None;
    for (i, line) in readme.lines().enumerate() {
        if line.starts_with("```") {
            match open.take() {
                Some(block) => out.push(block),
                None if line.trim() == "```sh" => open = Some((i + 1, Vec::new())),
                None => {}
            }
        } else if let Some((_, lines)) = open.as_mut() {
            lines.push(line.to_string());
        }
    }
    out
}

/// The exit code a line's comment promises ("# exit 3: ..."), else 0.
fn promised_exit(line: &str) -> i32 {
    line.split_once("# exit ")
        .and_then(|(_, rest)| {
            rest.split(|c: char| !c.is_ascii_digit())
                .next()?
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

/// The files the examples name, in a fresh home.
fn furnish(home: &Path) {
    let copy = |from: &Path, to: &Path| {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    };
    copy(&repo_path("tests/corpora/halden"), &home.join("my-docs"));
    copy(&repo_path("tests/corpora/halden"), &home.join("docs"));
    #[cfg(unix)]
    for dir in ["tests", "custom_tools"] {
        std::os::unix::fs::symlink(repo_path(dir), home.join(dir)).unwrap();
    }
    for (name, text) in [
        ("question.txt", "Who is the CEO of PadmaPay?\n"),
        ("answers.json", r#"["PadmaPay, Kochi", ""]"#),
        ("answers.txt", "PadmaPay, Kochi\n\n"),
        (
            "domain.md",
            "We are an Indian D2C marketplace; amounts in INR crore.\n",
        ),
    ] {
        std::fs::write(home.join(name), text).unwrap();
    }
}

/// Runs one block; returns each failing line's exit code by its index in
/// `lines` (bash's ERR trap reports every command that fails).
fn run_block(lines: &[String]) -> (BTreeMap<usize, i32>, String) {
    let sb = TestHome::new();
    furnish(sb.dir.path());
    let script = format!(
        "set -o pipefail\ntrap 'echo \"$? $LINENO\" >&3' ERR\n{}\n",
        lines.join("\n")
    );
    let bin = Path::new(env!("CARGO_BIN_EXE_dra")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // A second guard besides the skipped lines: a private network
    // namespace, where the machine allows one, so no example reaches out.
    let private = std::process::Command::new("unshare")
        .args(["--net", "true"])
        .status()
        .is_ok_and(|s| s.success());
    let mut c = if private {
        let mut c = std::process::Command::new("unshare");
        c.args(["--net", "--", "bash"]);
        c
    } else {
        std::process::Command::new("bash")
    };
    sb.isolate(&mut c);
    let failures = sb.dir.path().join(".failures");
    let out = c
        .env("PATH", path)
        .args(["-c", &format!("exec 3>{}\n{script}", failures.display())])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let mut failed = BTreeMap::new();
    for line in std::fs::read_to_string(&failures)
        .unwrap_or_default()
        .lines()
    {
        let mut w = line.split(' ');
        let (Some(code), Some(at)) = (w.next(), w.next()) else {
            continue;
        };
        let (Ok(code), Ok(at)) = (code.parse::<i32>(), at.parse::<usize>()) else {
            continue;
        };
        // The script's line 1 is `exec 3>`, 2 and 3 set up the trap.
        let line = at
            .checked_sub(4)
            .expect("a failure in the test's own set-up lines");
        failed.insert(line, code);
    }
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (failed, stderr)
}

#[test]
#[cfg(unix)]
fn every_readme_example_runs_as_written() {
    let readme = std::fs::read_to_string(repo_path("README.md")).unwrap();
    let mut ran = 0;
    let mut problems = Vec::new();
    for (start, block) in shell_blocks(&readme) {
        if builds_dra(&block.join("\n")) {
            continue;
        }
        // A terminal session ("$ cmd" then its output): the commands only.
        let prompted = block.iter().any(|l| l.starts_with("$ "));
        let lines: Vec<String> = block
            .iter()
            .filter(|l| !prompted || l.starts_with("$ "))
            .map(|l| {
                let l = l.strip_prefix("$ ").unwrap_or(l);
                match skipped(l) {
                    Some(why) => format!(": skipped, {why}"),
                    None => l.to_string(),
                }
            })
            .collect();
        let (failed, stderr) = run_block(&lines);
        for (i, line) in lines.iter().enumerate() {
            if line.starts_with(": skipped") {
                continue;
            }
            ran += usize::from(line.contains("dra "));
            let got = failed.get(&i).copied().unwrap_or(0);
            let want = promised_exit(line);
            if got != want {
                problems.push(format!(
                    "README.md block at line {start}: `{line}` exited {got}, expected {want}"
                ));
            }
        }
        if failed.keys().any(|&i| i >= lines.len()) {
            problems.push(format!(
                "README.md block at line {start}: a failure outside its lines: {failed:?}\n{stderr}"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The usage block alone has a dozen runnable dra commands.
    assert!(ran >= 20, "only {ran} dra commands ran");
}

#[test]
fn a_comment_names_the_exit_code_and_own_values_are_not_run() {
    assert_eq!(promised_exit("dra ask x   # exit 3: awaiting"), 3);
    assert_eq!(promised_exit("dra runs    # recent runs"), 0);
    assert!(skipped("TAVILY_API_KEY=tvly-... dra ask --web \"x\"").is_some());
    assert!(skipped("OPENAI_API_KEY=... dra ask \"x\"").is_some());
    assert!(skipped("dra ask --corpus ./my-docs \"x...\"").is_none());
}
