//! Drop-in custom tools: each executable regular file in
//! `DRA_CUSTOM_TOOLS_DIR` is a tool. `TOOL --describe` prints
//! `{name, description, parameters}` (parameters: a JSON Schema for an
//! object); a call gets its JSON arguments on stdin and answers on stdout.
//! Every process starts with a clean environment (none of dra's keys), in
//! its own process group (killed whole on a timeout), with stdout capped
//! and stderr drained to the debug log. This file finds, describes and runs
//! tools; `engine::tools::custom` offers them to the agents.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// How long `TOOL --describe` may take.
pub const DESCRIBE_TIMEOUT: Duration = Duration::from_secs(5);
/// The most a call's stdout is read; past it the tool is stopped and the
/// result is what came before (the model is told it was cut).
pub const MAX_OUTPUT_BYTES: usize = 8 * 1024 * 1024;
/// The most `--describe` may print.
const MAX_DESCRIBE_BYTES: usize = 256 * 1024;
/// Characters of stderr kept for an error message.
const STDERR_TAIL: usize = 2_000;

/// A tool that described itself.
#[derive(Clone)]
pub struct Described {
    pub file: PathBuf,
    /// The name it gave, sanitised (made unique when offered).
    pub name: String,
    pub description: String,
    /// Its schema, cleaned for providers (`$schema`, `title` removed).
    pub parameters: Value,
    pub validator: Arc<jsonschema::Validator>,
}

impl std::fmt::Debug for Described {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Described")
            .field("file", &self.file)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// A file that could not be a tool: why, and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broken {
    pub file: PathBuf,
    pub why: String,
    pub fix: String,
}

/// What a folder holds.
#[derive(Debug, Default)]
pub struct Toolbox {
    pub tools: Vec<Described>,
    pub broken: Vec<Broken>,
}

/// Why a process run did not end with an answer.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("could not start it: {0}")]
    Spawn(std::io::Error),
    #[error("no answer within {0:?}; its process group was killed")]
    Timeout(Duration),
    #[error("{status}{}", tail_suffix(.stderr))]
    Exit { status: String, stderr: String },
}

fn tail_suffix(stderr: &str) -> String {
    if stderr.trim().is_empty() {
        " (nothing on stderr)".into()
    } else {
        format!("; stderr ends:\n{stderr}")
    }
}

/// A finished run.
#[derive(Debug)]
pub struct Finished {
    pub stdout: Vec<u8>,
    /// Whether stdout went past the cap (the tool was then stopped).
    pub cut: bool,
    /// The end of stderr.
    pub stderr: String,
}

/// The files of a folder that are tools: executable regular files (through
/// symbolic links), sorted by name. Dotfiles, `README*`, `_template*` and
/// anything else are skipped with a debug log line.
pub fn candidates(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    Ok(scan(dir)?.0)
}

/// Whether a file begins with `#!`: a script, meant to be run.
fn is_script(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 2];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && &head == b"#!"
}

/// The tools of a folder, and its scripts that lack the executable bit
/// (meant as tools, but they cannot run).
fn scan(dir: &Path) -> std::io::Result<(Vec<PathBuf>, Vec<PathBuf>)> {
    // Absolute: a tool runs in another working directory.
    let dir = std::path::absolute(dir)?;
    let mut out = Vec::new();
    let mut not_executable = Vec::new();
    for entry in std::fs::read_dir(&dir)? {
        let entry = entry?;
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let skip = if name.starts_with('.') {
            Some("a dotfile")
        } else if name.to_ascii_lowercase().starts_with("readme") {
            Some("a README")
        } else if name.starts_with("_template") {
            Some("a template")
        } else {
            match std::fs::metadata(&path) {
                Err(_) => Some("unreadable"),
                Ok(m) if !m.is_file() => Some("not a regular file"),
                Ok(m) if m.permissions().mode() & 0o111 == 0 => Some("not executable"),
                Ok(_) => None,
            }
        };
        match skip {
            Some("not executable") if is_script(&path) => not_executable.push(path),
            Some(why) => tracing::debug!(file = %path.display(), "custom tools: skipped ({why})"),
            None => out.push(path),
        }
    }
    out.sort();
    not_executable.sort();
    Ok((out, not_executable))
}

/// Describes every tool of a folder at once, each within
/// [`DESCRIBE_TIMEOUT`]. A broken tool never stops the others.
pub async fn discover(dir: &Path) -> std::io::Result<Toolbox> {
    let (files, not_executable) = scan(dir)?;
    let results = futures::future::join_all(files.into_iter().map(describe)).await;
    let mut toolbox = Toolbox::default();
    for file in not_executable {
        let fix = format!("chmod +x {}", file.display());
        toolbox.broken.push(Broken {
            file,
            why: "it is a script without the executable bit".into(),
            fix,
        });
    }
    for r in results {
        match r {
            Ok(t) => toolbox.tools.push(t),
            Err(b) => toolbox.broken.push(b),
        }
    }
    Ok(toolbox)
}

/// Runs `FILE --describe` and checks what it says.
pub async fn describe(file: PathBuf) -> Result<Described, Broken> {
    let broken = |why: String, fix: &str| Broken {
        file: file.clone(),
        why,
        fix: fix.to_string(),
    };
    let cwd = file.parent().unwrap_or(Path::new(".")).to_path_buf();
    let done = run_process(
        &file,
        &["--describe"],
        b"",
        &cwd,
        DESCRIBE_TIMEOUT,
        MAX_DESCRIBE_BYTES,
    )
    .await
    .map_err(|e| {
        let fix = match e {
            RunError::Spawn(_) => {
                "check that its first line (#!) names an installed interpreter and that it is executable"
            }
            RunError::Timeout(_) => "make `--describe` print its JSON at once (within 5 s)",
            RunError::Exit { .. } => {
                "run it with --describe by hand: it must exit 0 and print {\"name\", \"description\", \"parameters\"}"
            }
        };
        broken(format!("--describe failed: {e}"), fix)
    })?;
    let json_fix = "print one JSON object {\"name\": ..., \"description\": ..., \"parameters\": {JSON Schema}} on stdout for --describe (logs go to stderr)";
    if done.cut {
        return Err(broken(
            format!("--describe printed more than {MAX_DESCRIBE_BYTES} bytes"),
            json_fix,
        ));
    }
    let value: Value = serde_json::from_slice(&done.stdout)
        .map_err(|e| broken(format!("--describe did not print JSON: {e}"), json_fix))?;
    parse_description(&value)
        .map_err(|why| broken(why, json_fix))
        .and_then(|(name, description, schema)| {
            let validator = jsonschema::validator_for(&schema).map_err(|e| {
                broken(
                    format!("its parameters are not a usable JSON Schema: {e}"),
                    "fix `parameters`: a JSON Schema for an object (local $refs only)",
                )
            })?;
            let parameters = match &schema {
                Value::Object(m) => crate::mcp::names::clean_schema(m),
                _ => schema.clone(),
            };
            Ok(Described {
                file: file.clone(),
                name,
                description,
                parameters,
                validator: Arc::new(validator),
            })
        })
}

/// The keys a `--describe` answer may have: an MCP tool's `title` and
/// `annotations` are accepted (and not used).
const DESCRIBE_KEYS: &[&str] = &["name", "description", "parameters", "title", "annotations"];

/// The name, description and schema of a `--describe` answer.
pub fn parse_description(v: &Value) -> Result<(String, String, Value), String> {
    let Value::Object(m) = v else {
        return Err("--describe printed JSON that is not an object".into());
    };
    // A misspelt key ("params") would leave the tool without its schema.
    if let Some(unknown) = m.keys().find(|k| !DESCRIBE_KEYS.contains(&k.as_str())) {
        // MCP calls the schema `inputSchema`.
        let meant = if unknown == "inputSchema" {
            Some("parameters")
        } else {
            crate::config::settings::closest(unknown, DESCRIBE_KEYS.iter().copied())
        };
        let hint = meant
            .map(|k| format!(" (did you mean \"{k}\"?)"))
            .unwrap_or_default();
        let shown: String = crate::mcp::names::sanitize(unknown)
            .chars()
            .take(40)
            .collect();
        return Err(format!(
            "its description has an unknown key \"{shown}\"{hint}; the keys are {}",
            DESCRIBE_KEYS.join(", ")
        ));
    }
    let name = m
        .get("name")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .ok_or("its description has no \"name\" (a non-empty string)")?;
    let name: String = crate::mcp::names::sanitize(name)
        .chars()
        .take(crate::mcp::names::MAX_NAME)
        .collect();
    let description = match m.get("description") {
        Some(Value::String(d)) if !d.trim().is_empty() => d.trim().to_string(),
        _ => return Err("its description has no \"description\" (a non-empty string)".into()),
    };
    let schema = match m.get("parameters") {
        None | Some(Value::Null) => {
            Value::Object(Map::from_iter([("type".into(), Value::from("object"))]))
        }
        Some(Value::Object(s)) => {
            match s.get("type") {
                None => {}
                Some(Value::String(t)) if t == "object" => {}
                Some(other) => {
                    return Err(format!(
                        "its \"parameters\" must describe an object (\"type\": \"object\"), not {other}"
                    ));
                }
            }
            Value::Object(s.clone())
        }
        Some(other) => {
            return Err(format!(
                "its \"parameters\" must be a JSON Schema object, not {other}"
            ));
        }
    };
    Ok((name, description, schema))
}

/// What is wrong with arguments, one line per violation (`at /path: ...`);
/// empty when they are valid.
pub fn violations(validator: &jsonschema::Validator, args: &Value) -> Vec<String> {
    validator
        .iter_errors(args)
        .take(10)
        .map(|e| {
            let path = e.instance_path().to_string();
            let at = if path.is_empty() {
                "/".to_string()
            } else {
                path
            };
            format!("at {at}: {e}")
        })
        .collect()
}

/// A tool's stdout as text: `None` when it is not text (not UTF-8, or
/// holding NUL bytes). A cut in the middle of a character at the cap is
/// dropped. JSON is re-printed: an array one element per line, anything
/// else pretty.
pub fn output_text(stdout: &[u8], cut: bool) -> Option<String> {
    let text = match std::str::from_utf8(stdout) {
        Ok(t) => t,
        Err(e) if cut && e.error_len().is_none() => {
            std::str::from_utf8(&stdout[..e.valid_up_to()]).ok()?
        }
        Err(_) => return None,
    };
    if text.contains('\0') {
        return None;
    }
    Some(match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(items)) if !items.is_empty() => format!(
            "[\n{}\n]",
            items
                .iter()
                .map(Value::to_string)
                .collect::<Vec<_>>()
                .join(",\n")
        ),
        Ok(Value::String(s)) => s,
        Ok(v @ Value::Object(_)) => serde_json::to_string_pretty(&v).unwrap_or_default(),
        Ok(v) => v.to_string(),
        Err(_) => text.trim_end().to_string(),
    })
}

/// Runs `file args...` with `input` on stdin in `cwd`: a clean
/// environment, its own process group (killed whole on a timeout, and any
/// process left in it once the tool exits), stdout read up to `max_stdout`
/// bytes, stderr to the debug log.
pub async fn run_process(
    file: &Path,
    args: &[&str],
    input: &[u8],
    cwd: &Path,
    timeout: Duration,
    max_stdout: usize,
) -> Result<Finished, RunError> {
    // Whatever the tool starts, detached or not, is killed when it ends.
    let tree = crate::sandbox::subtree::Subtree::new();
    let (mark, value) = tree.env();
    let mut cmd = tokio::process::Command::new(file);
    cmd.args(args)
        .env_clear()
        .envs(crate::config::mcp::child_env(
            std::env::vars(),
            &BTreeMap::new(),
        ))
        .env(mark, value)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = cmd.spawn().map_err(RunError::Spawn)?;
    let group = child.id().and_then(|p| i32::try_from(p).ok());
    let label = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (stdin, stdout, stderr) = (child.stdin.take(), child.stdout.take(), child.stderr.take());
    let work = async {
        let write = async move {
            if let Some(mut w) = stdin {
                // A tool that never reads its input closes the pipe early.
                let _ = w.write_all(input).await;
                let _ = w.shutdown().await;
            }
        };
        let read = async move {
            let mut buf = Vec::new();
            let mut cut = false;
            if let Some(out) = stdout {
                let mut limited = out.take(max_stdout as u64 + 1);
                let _ = limited.read_to_end(&mut buf).await;
                if buf.len() > max_stdout {
                    buf.truncate(max_stdout);
                    cut = true;
                    kill_group(group);
                }
            }
            (buf, cut)
        };
        let drain = drain_stderr(label.clone(), stderr);
        let ((), (stdout, cut), stderr) = tokio::join!(write, read, drain);
        let status = child.wait().await;
        (stdout, cut, stderr, status)
    };
    let outcome = tokio::time::timeout(timeout, work).await;
    // Whatever is left of the group (a stray background child) goes too,
    // and whatever left the group (setsid, a double fork).
    kill_group(group);
    tree.kill();
    let Ok((stdout, cut, stderr, status)) = outcome else {
        let _ = child.wait().await;
        return Err(RunError::Timeout(timeout));
    };
    let status = status.map_err(RunError::Spawn)?;
    if !status.success() && !cut {
        use std::os::unix::process::ExitStatusExt;
        let status = match (status.code(), status.signal()) {
            (Some(code), _) => format!("exited with status {code}"),
            (None, Some(sig)) => format!("was killed by signal {sig}"),
            _ => "failed".to_string(),
        };
        return Err(RunError::Exit { status, stderr });
    }
    Ok(Finished {
        stdout,
        cut,
        stderr,
    })
}

fn kill_group(group: Option<i32>) {
    if let Some(pgid) = group.filter(|&p| p > 1) {
        // SAFETY: killpg only sends a signal; an empty group gives ESRCH.
        unsafe {
            libc::killpg(pgid, libc::SIGKILL);
        }
    }
}

/// Reads stderr to the end (so the tool never blocks on a full pipe),
/// logging each line at debug level; returns its last characters.
async fn drain_stderr(label: String, stderr: Option<tokio::process::ChildStderr>) -> String {
    use tokio::io::AsyncBufReadExt;
    let Some(stderr) = stderr else {
        return String::new();
    };
    let mut tail: std::collections::VecDeque<String> = Default::default();
    let mut kept = 0usize;
    let mut lines = tokio::io::BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let line: String = line.chars().take(STDERR_TAIL).collect();
        tracing::debug!(tool = %label, "custom tool stderr: {line}");
        kept += line.chars().count() + 1;
        tail.push_back(line);
        while kept > STDERR_TAIL && tail.len() > 1 {
            if let Some(old) = tail.pop_front() {
                kept -= old.chars().count() + 1;
            }
        }
    }
    let text = Vec::from(tail).join("\n");
    crate::document::sanitize_text(text.trim()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn a_misspelt_describe_key_is_named_with_the_key_meant() {
        let v = json!({"name": "fx", "description": "Rates.", "params": {"type": "object"}});
        let err = parse_description(&v).unwrap_err();
        assert!(
            err.contains("\"params\"") && err.contains("did you mean \"parameters\"?"),
            "{err}"
        );
        let v = json!({"name": "fx", "description": "Rates.", "inputSchema": {"type": "object"}});
        let err = parse_description(&v).unwrap_err();
        assert!(err.contains("did you mean \"parameters\"?"), "{err}");
        let v = json!({"name": "fx", "title": "FX", "description": "Rates.", "parameters": {"type": "object"}});
        assert!(parse_description(&v).is_ok());
    }

    #[test]
    fn descriptions_are_checked() {
        let (name, desc, schema) = parse_description(&json!({
            "name": "fx table",
            "description": " Rates. ",
            "parameters": {"type": "object", "properties": {"ccy": {"type": "string"}}}
        }))
        .unwrap();
        assert_eq!((name.as_str(), desc.as_str()), ("fx_table", "Rates."));
        assert_eq!(schema["properties"]["ccy"]["type"], "string");
        let (_, _, none) = parse_description(&json!({"name": "n", "description": "d"})).unwrap();
        assert_eq!(none, json!({"type": "object"}));
        for bad in [
            json!([]),
            json!({"description": "d"}),
            json!({"name": " ", "description": "d"}),
            json!({"name": "n"}),
            json!({"name": "n", "description": "d", "parameters": "x"}),
            json!({"name": "n", "description": "d", "parameters": {"type": "string"}}),
        ] {
            assert!(parse_description(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn violations_name_the_path() {
        let v = jsonschema::validator_for(&json!({
            "type": "object",
            "properties": {"text": {"type": "string"}, "n": {"type": "integer", "minimum": 1}},
            "required": ["text"],
            "additionalProperties": false
        }))
        .unwrap();
        assert!(violations(&v, &json!({"text": "a", "n": 2})).is_empty());
        let errs = violations(&v, &json!({"text": 5, "n": 0}));
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert!(
            errs.iter()
                .any(|e| e.starts_with("at /text:") && e.contains("string"))
        );
        assert!(errs.iter().any(|e| e.starts_with("at /n:")));
        let missing = violations(&v, &json!({}));
        assert!(
            missing[0].starts_with("at /:") && missing[0].contains("text"),
            "{missing:?}"
        );
    }

    #[test]
    fn remote_refs_are_not_fetched() {
        // Without default features jsonschema resolves nothing over the network.
        let r = jsonschema::validator_for(
            &json!({"type": "object", "properties": {"a": {"$ref": "http://127.0.0.1:9/s.json"}}}),
        );
        assert!(r.is_err());
    }

    #[test]
    fn output_is_text_or_refused() {
        assert_eq!(output_text(b"hello\n", false).as_deref(), Some("hello"));
        assert_eq!(
            output_text(b"[{\"a\": 1}, {\"a\": 2}]", false).as_deref(),
            Some("[\n{\"a\":1},\n{\"a\":2}\n]")
        );
        assert_eq!(
            output_text(b"{\"a\":1}", false).as_deref(),
            Some("{\n  \"a\": 1\n}")
        );
        assert_eq!(
            output_text(b"\"just text\"", false).as_deref(),
            Some("just text")
        );
        assert_eq!(output_text(b"\xff\xfe", false), None);
        assert_eq!(output_text(b"a\0b", false), None);
        // A cut in the middle of a character at the cap.
        let s = "é".repeat(3);
        let bytes = &s.as_bytes()[..5];
        assert_eq!(output_text(bytes, true).as_deref(), Some("éé"));
        assert_eq!(output_text(bytes, false), None);
    }

    #[test]
    fn only_executable_files_are_candidates() {
        let dir = tempfile::tempdir().unwrap();
        let mk = |name: &str, mode: u32| {
            let p = dir.path().join(name);
            std::fs::write(&p, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
        };
        mk("tool.sh", 0o755);
        mk("b_tool", 0o700);
        mk("notes.txt", 0o644);
        std::fs::write(dir.path().join("data.csv"), "a,b\n").unwrap();
        mk("README.md", 0o755);
        mk(".hidden", 0o755);
        mk("_template.py", 0o755);
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let names: Vec<String> = candidates(dir.path())
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["b_tool", "tool.sh"]);
        // A script without the executable bit is named, with the fix; a
        // data file is not.
        let (_, not_executable) = scan(dir.path()).unwrap();
        let names: Vec<_> = not_executable
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["notes.txt"]);
        let toolbox = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(discover(dir.path()))
            .unwrap();
        assert!(
            toolbox
                .broken
                .iter()
                .any(|b| b.fix.starts_with("chmod +x ") && b.fix.ends_with("notes.txt")),
            "{:?}",
            toolbox.broken
        );
    }

    fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, body).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    #[tokio::test]
    async fn broken_tools_say_why_and_how_to_fix_them() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let cases = [
            (
                script(
                    d,
                    "exits.sh",
                    "#!/bin/sh\necho 'no such mode' >&2\nexit 1\n",
                ),
                "exited with status 1",
                "by hand",
            ),
            (
                script(d, "interp.sh", "#!/nonexistent/python9\n"),
                "could not start it",
                "#!",
            ),
            (
                script(
                    d,
                    "schema.sh",
                    "#!/bin/sh\necho '{\"name\": \"s\", \"description\": \"d\", \"parameters\": {\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"nonsense\"}}}}'\n",
                ),
                "not a usable JSON Schema",
                "parameters",
            ),
            (
                script(d, "prose.sh", "#!/bin/sh\necho 'I am a tool'\n"),
                "did not print JSON",
                "JSON object",
            ),
        ];
        for (file, why, fix) in cases {
            let b = describe(file.clone()).await.unwrap_err();
            assert_eq!(b.file, file);
            assert!(b.why.contains(why), "{}: {}", file.display(), b.why);
            assert!(b.fix.contains(fix), "{}: {}", file.display(), b.fix);
        }
        let ok = script(
            d,
            "ok.sh",
            "#!/bin/sh\necho '{\"name\": \"ok tool\", \"description\": \"d\", \"title\": \"x\", \"parameters\": {\"$schema\": \"https://json-schema.org/draft/2020-12/schema\", \"type\": \"object\", \"properties\": {\"q\": {\"type\": \"string\"}}}}'\n",
        );
        let t = describe(ok).await.unwrap();
        assert_eq!(t.name, "ok_tool");
        assert!(t.parameters.get("$schema").is_none());
        let toolbox = discover(d).await.unwrap();
        assert_eq!((toolbox.tools.len(), toolbox.broken.len()), (1, 4));
    }

    #[tokio::test]
    async fn a_timeout_kills_the_whole_process_group() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("child.pid");
        let tool = script(
            dir.path(),
            "hang.sh",
            &format!(
                "#!/bin/sh\nsleep 300 &\necho $! > {}\nsleep 300\n",
                pid_file.display()
            ),
        );
        let started = std::time::Instant::now();
        let r = run_process(
            &tool,
            &[],
            b"{}",
            dir.path(),
            Duration::from_millis(500),
            MAX_OUTPUT_BYTES,
        )
        .await;
        assert!(matches!(r, Err(RunError::Timeout(_))), "{r:?}");
        assert!(started.elapsed() < Duration::from_secs(10));
        let pid = std::fs::read_to_string(&pid_file).unwrap();
        // SIGKILL lands asynchronously: give the kernel a moment.
        let mut stat = String::new();
        for _ in 0..50 {
            stat =
                std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())).unwrap_or_default();
            if stat.is_empty() || stat.split_whitespace().nth(2) == Some("Z") {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("the timed-out tool's child survives: {stat}");
    }

    #[tokio::test]
    async fn output_past_the_cap_stops_the_tool_and_is_cut() {
        let dir = tempfile::tempdir().unwrap();
        let tool = script(dir.path(), "yes.sh", "#!/bin/sh\nexec yes PadmaPay\n");
        let done = run_process(
            &tool,
            &[],
            b"",
            dir.path(),
            Duration::from_secs(20),
            100_000,
        )
        .await
        .unwrap();
        assert!(done.cut);
        assert_eq!(done.stdout.len(), 100_000);
    }

    proptest! {
        #[test]
        fn any_bytes_give_text_or_none_and_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300), cut: bool) {
            if let Some(t) = output_text(&bytes, cut) {
                prop_assert!(!t.contains('\0'));
            }
        }

        #[test]
        fn any_described_name_is_valid(name in "\\PC{1,100}") {
            if let Ok((n, _, _)) = parse_description(&json!({"name": name, "description": "d"})) {
                prop_assert!(!n.is_empty() && n.len() <= 64);
                prop_assert!(n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
            }
        }
    }
}
