//! What a caller of `dra mcp-serve` may ask for: which files `research`'s
//! `corpus` may name (only below the roots the server was started with,
//! none by default over HTTP), and how far a call's `max_usd` and
//! `deadline` may go (never past the server's own: a caller may lower a
//! budget, never raise it).

use std::path::{Component, Path, PathBuf};
use std::time::Duration;

/// Which paths `research { corpus }` may name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CorpusPolicy {
    /// Any path on this machine (stdio without `--corpus-root`: the client
    /// is the user's own process, with the user's rights anyway).
    Any,
    /// Only paths at or below these roots (none: no `corpus` at all).
    Within(Vec<PathBuf>),
}

impl CorpusPolicy {
    /// The policy for a server: roots named with `--corpus-root` always
    /// bound it; without any, stdio allows any path and HTTP none.
    pub fn new(roots: &[PathBuf], http: bool) -> CorpusPolicy {
        if roots.is_empty() && !http {
            return CorpusPolicy::Any;
        }
        CorpusPolicy::Within(roots.iter().map(|r| resolved(r)).collect())
    }

    /// Whether a call may name a corpus at all.
    pub fn allows_any(&self) -> bool {
        !matches!(self, CorpusPolicy::Within(r) if r.is_empty())
    }

    /// The roots, for the tool's description and refusals.
    pub fn describe(&self) -> String {
        match self {
            CorpusPolicy::Any => "any folder or file on the server's machine".into(),
            CorpusPolicy::Within(roots) => roots
                .iter()
                .map(|r| crate::document::single_line(&r.display().to_string()))
                .collect::<Vec<_>>()
                .join(", "),
        }
    }

    /// The path a call may research, or why not. A path is judged by where
    /// it really leads (symbolic links and `..` resolved), so no link
    /// inside a root reaches out of it.
    pub fn check(&self, path: &Path) -> Result<PathBuf, String> {
        let CorpusPolicy::Within(roots) = self else {
            return Ok(path.to_path_buf());
        };
        if roots.is_empty() {
            return Err("research: `corpus` is refused: this server lets callers name no files (start it with --corpus-root DIR to allow folders below DIR)".into());
        }
        let real = resolved(path);
        if roots.iter().any(|r| real.starts_with(r)) {
            Ok(real)
        } else {
            Err(format!(
                "research: `corpus` {} is not below the folders this server allows ({})",
                crate::document::single_line(&path.display().to_string()),
                self.describe()
            ))
        }
    }
}

/// Where a path really leads: canonical when it exists, else made
/// absolute with `.` and `..` resolved by hand (nothing there to read).
fn resolved(path: &Path) -> PathBuf {
    if let Ok(real) = std::fs::canonicalize(path) {
        return real;
    }
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut out = PathBuf::new();
    for c in absolute.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// A call's budget under the server's: the lower of the two.
pub fn ceiling_usd(server: f64, asked: Option<f64>) -> f64 {
    asked.map_or(server, |a| a.min(server))
}

/// A call's deadline under the server's: the shorter of the two.
pub fn ceiling_deadline(server: Duration, asked: Option<Duration>) -> Duration {
    asked.map_or(server, |a| a.min(server))
}

/// The run header's settings with the limits a call actually ran under
/// (`DRA_MAX_USD`, `DRA_DEADLINE`), where the call lowered the server's.
pub fn header_with_limits(
    mut header: serde_json::Value,
    server: &crate::config::Limits,
    used: &crate::config::Limits,
) -> serde_json::Value {
    use crate::config::{Value, settings};
    if let Some(map) = header.as_object_mut() {
        if used.max_usd != server.max_usd {
            let shown = Value::Float(used.max_usd).display();
            map.insert(settings::MAX_USD.into(), shown.into());
        }
        if used.deadline != server.deadline {
            let shown = Value::Seconds(used.deadline).display();
            map.insert(settings::DEADLINE.into(), shown.into());
        }
    }
    header
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_records_the_limits_a_call_lowered() {
        let server = crate::config::Limits::default();
        let mut used = server;
        used.deadline = Duration::from_secs(30);
        let header = serde_json::json!({"DRA_DEADLINE": "600s", "DRA_MAX_USD": "2"});
        let shown = header_with_limits(header.clone(), &server, &used);
        assert_eq!(shown["DRA_DEADLINE"], "30s");
        assert_eq!(shown["DRA_MAX_USD"], "2");
        assert_eq!(header_with_limits(header.clone(), &server, &server), header);
    }

    #[test]
    fn http_allows_no_corpus_by_default_and_stdio_any() {
        let none = CorpusPolicy::new(&[], true);
        assert!(!none.allows_any());
        assert!(none.check(Path::new("/etc")).is_err());
        assert_eq!(CorpusPolicy::new(&[], false), CorpusPolicy::Any);
        assert!(CorpusPolicy::Any.check(Path::new("/etc")).is_ok());
    }

    #[test]
    fn roots_bound_paths_through_links_and_dots() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("notes");
        let outside = dir.path().join("secret");
        std::fs::create_dir_all(root.join("a")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("link")).unwrap();
        let p = CorpusPolicy::new(std::slice::from_ref(&root), true);
        assert!(p.check(&root.join("a")).is_ok());
        assert!(p.check(&root).is_ok());
        assert!(p.check(&root.join("missing/file.md")).is_ok());
        assert!(
            p.check(&root.join("link")).is_err(),
            "a link out of the root"
        );
        assert!(p.check(&root.join("../secret")).is_err());
        assert!(p.check(&root.join("a/../../secret/x.md")).is_err());
        assert!(p.check(&outside).is_err());
        // A sibling whose name starts like the root is not below it.
        std::fs::create_dir_all(dir.path().join("notes-old")).unwrap();
        assert!(p.check(&dir.path().join("notes-old")).is_err());
    }

    #[test]
    fn a_caller_may_lower_a_budget_never_raise_it() {
        assert_eq!(ceiling_usd(2.0, None), 2.0);
        assert_eq!(ceiling_usd(2.0, Some(0.5)), 0.5);
        assert_eq!(ceiling_usd(2.0, Some(50.0)), 2.0);
        let s = Duration::from_secs(600);
        assert_eq!(
            ceiling_deadline(s, Some(Duration::from_secs(10))),
            Duration::from_secs(10)
        );
        assert_eq!(ceiling_deadline(s, Some(Duration::from_secs(99_999))), s);
        assert_eq!(ceiling_deadline(s, None), s);
    }
}
