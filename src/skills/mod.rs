//! Skills: folders holding a `SKILL.md` (front matter `name` and
//! `description`, then Markdown instructions) that the agent reads on
//! demand. They are the user's own instructions, so trusted, but bounded:
//! a file over [`MAX_SKILL_BYTES`] is refused, descriptions are cut to
//! [`MAX_DESCRIPTION_CHARS`], at most [`MAX_SKILLS`] are loaded, and every
//! text is cleaned of control characters. A bad skill is skipped with a
//! reason naming its file, never a crash. Skill folders are only read.

pub mod front_matter;

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use crate::document::{sanitize_line, sanitize_text};

/// The largest `SKILL.md` read.
pub const MAX_SKILL_BYTES: u64 = 64 * 1024;
/// The largest other file of a skill folder read through `read_skill`.
pub const MAX_FILE_BYTES: u64 = 256 * 1024;
/// Skills loaded; later ones are skipped.
pub const MAX_SKILLS: usize = 50;
/// A description is cut to this many characters (it goes in every system prompt).
pub const MAX_DESCRIPTION_CHARS: usize = 300;
/// Longest skill name.
pub const MAX_NAME_CHARS: usize = 64;
/// Other files listed per skill, and how deep the listing goes.
const MAX_FILES_LISTED: usize = 100;
const MAX_DEPTH: usize = 4;

/// The file every skill folder holds.
pub const SKILL_FILE: &str = "SKILL.md";

/// A folder to look for skills in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillsDir {
    pub path: PathBuf,
    /// Named by the user (`DRA_SKILLS_DIR`): missing is worth a note.
    pub explicit: bool,
}

/// One loaded skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    pub name: String,
    /// One line, cleaned and bounded.
    pub description: String,
    /// The skill's folder.
    pub dir: PathBuf,
    /// Its `SKILL.md`.
    pub path: PathBuf,
    /// The instructions (the Markdown after the front matter), cleaned.
    pub body: String,
}

/// A folder or file that was not loaded, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub path: PathBuf,
    pub reason: String,
}

/// The skills of a run, in the order found (the first of a name wins).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkillSet {
    pub skills: Vec<Skill>,
    pub skipped: Vec<Skipped>,
    /// The folders that were looked in and exist.
    pub searched: Vec<PathBuf>,
    /// The skill the user chose for the run (`dra ask --skill`).
    pub chosen: Option<String>,
}

/// Why `read_skill` could not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SkillError {
    #[error("unknown skill `{name}`; known skills: {known}")]
    Unknown { name: String, known: String },
    #[error("`{0}` is not a relative path inside the skill folder (no `..`, no absolute paths)")]
    BadPath(String),
    #[error("`{0}` leads outside the skill folder (a symbolic link out is not followed)")]
    Escapes(String),
    #[error("`{file}` is not a file of this skill: {why}")]
    NotFound { file: String, why: String },
    #[error("`{0}` is larger than {MAX_FILE_BYTES} bytes")]
    TooBig(String),
    #[error("`{0}` is not text")]
    NotText(String),
}

impl SkillSet {
    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.name == name)
    }

    /// A skill by name, or an error listing the known names.
    pub fn find(&self, name: &str) -> Result<&Skill, SkillError> {
        self.get(name.trim()).ok_or_else(|| SkillError::Unknown {
            name: sanitize_line(name).chars().take(80).collect(),
            known: if self.skills.is_empty() {
                "none".into()
            } else {
                self.skills
                    .iter()
                    .map(|s| s.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            },
        })
    }
}

/// Loads every skill of `dirs`, in order. Missing default folders are
/// silent; a missing folder the user named is noted in `skipped`.
pub fn load(dirs: &[SkillsDir]) -> SkillSet {
    let mut set = SkillSet::default();
    let mut seen_dirs: Vec<PathBuf> = Vec::new();
    for d in dirs {
        if !d.path.is_dir() {
            if d.explicit {
                set.skipped.push(Skipped {
                    path: d.path.clone(),
                    reason: "the skills folder does not exist".into(),
                });
            }
            continue;
        }
        // The same folder named twice (./skills and its absolute path) is read once.
        let canon = d.path.canonicalize().unwrap_or_else(|_| d.path.clone());
        if seen_dirs.contains(&canon) {
            continue;
        }
        seen_dirs.push(canon);
        set.searched.push(d.path.clone());
        // The folder of one skill, named directly.
        if d.path.join(SKILL_FILE).exists() {
            match load_one(&d.path) {
                Ok(skill) => add(&mut set, skill),
                Err(reason) => set.skipped.push(Skipped {
                    path: d.path.join(SKILL_FILE),
                    reason,
                }),
            }
            continue;
        }
        let mut entries: Vec<PathBuf> = match std::fs::read_dir(&d.path) {
            Ok(rd) => rd.filter_map(|e| e.ok().map(|e| e.path())).collect(),
            Err(e) => {
                set.skipped.push(Skipped {
                    path: d.path.clone(),
                    reason: format!("cannot read the folder: {e}"),
                });
                continue;
            }
        };
        entries.sort();
        for dir in entries {
            let hidden = dir
                .file_name()
                .and_then(|n| n.to_str())
                .is_none_or(|n| n.starts_with('.'));
            if hidden || !dir.is_dir() {
                continue;
            }
            match load_one(&dir) {
                Ok(skill) => add(&mut set, skill),
                Err(reason) => set.skipped.push(Skipped {
                    path: dir.join(SKILL_FILE),
                    reason,
                }),
            }
        }
    }
    set
}

fn add(set: &mut SkillSet, skill: Skill) {
    if let Some(first) = set.get(&skill.name) {
        let reason = format!(
            "duplicate skill name `{}`: the one in {} is used",
            skill.name,
            first.path.display()
        );
        set.skipped.push(Skipped {
            path: skill.path,
            reason,
        });
    } else if set.skills.len() >= MAX_SKILLS {
        set.skipped.push(Skipped {
            path: skill.path,
            reason: format!("more than {MAX_SKILLS} skills: not loaded"),
        });
    } else {
        set.skills.push(skill);
    }
}

/// A valid skill name: 1-64 letters, digits, `-` or `_`, starting with a
/// letter or digit.
pub fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && name.chars().count() <= MAX_NAME_CHARS
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// One line, cleaned, at most [`MAX_DESCRIPTION_CHARS`] characters.
pub fn bounded_description(d: &str) -> String {
    let line = sanitize_line(d);
    let words: Vec<&str> = line.split_whitespace().collect();
    let one = words.join(" ");
    if one.chars().count() <= MAX_DESCRIPTION_CHARS {
        return one;
    }
    let mut cut: String = one.chars().take(MAX_DESCRIPTION_CHARS - 1).collect();
    cut.push('\u{2026}');
    cut
}

fn load_one(dir: &Path) -> Result<Skill, String> {
    let path = dir.join(SKILL_FILE);
    let text = read_confined(dir, &path, MAX_SKILL_BYTES).map_err(|e| match e {
        SkillError::NotFound { .. } => format!("no {SKILL_FILE} in the folder"),
        SkillError::TooBig(_) => format!("{SKILL_FILE} is larger than {MAX_SKILL_BYTES} bytes"),
        other => other.to_string(),
    })?;
    let parsed = front_matter::parse(&text).map_err(|e| e.to_string())?;
    let name = parsed
        .keys
        .get("name")
        .map(|n| n.trim())
        .filter(|n| !n.is_empty())
        .ok_or("the front matter has no `name`")?;
    if !valid_name(name) {
        return Err(format!(
            "invalid name {:?}: use 1-{MAX_NAME_CHARS} letters, digits, `-` or `_`",
            sanitize_line(name)
        ));
    }
    let description = parsed
        .keys
        .get("description")
        .map(|d| bounded_description(d))
        .filter(|d| !d.is_empty())
        .ok_or("the front matter has no `description`")?;
    let body = sanitize_text(&parsed.body).into_owned();
    if body.trim().is_empty() {
        return Err("no instructions after the front matter".into());
    }
    Ok(Skill {
        name: name.to_string(),
        description,
        dir: dir.to_path_buf(),
        path,
        body,
    })
}

/// Reads `path`, which must resolve (links followed) to a regular file
/// inside `dir`, of at most `cap` bytes, as UTF-8 text.
fn read_confined(dir: &Path, path: &Path, cap: u64) -> Result<String, SkillError> {
    let shown = path.strip_prefix(dir).unwrap_or(path).display().to_string();
    let not_found = |why: String| SkillError::NotFound {
        file: shown.clone(),
        why,
    };
    let root = dir
        .canonicalize()
        .map_err(|e| not_found(format!("the skill folder cannot be read: {e}")))?;
    let real = path.canonicalize().map_err(|e| not_found(e.to_string()))?;
    if !real.starts_with(&root) {
        return Err(SkillError::Escapes(shown));
    }
    let meta = std::fs::metadata(&real).map_err(|e| not_found(e.to_string()))?;
    if !meta.is_file() {
        return Err(not_found("not a regular file".into()));
    }
    if meta.len() > cap {
        return Err(SkillError::TooBig(shown));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(&real)
        .and_then(|f| f.take(cap + 1).read_to_end(&mut bytes))
        .map_err(|e| not_found(e.to_string()))?;
    if bytes.len() as u64 > cap {
        return Err(SkillError::TooBig(shown));
    }
    if bytes.contains(&0) {
        return Err(SkillError::NotText(shown));
    }
    String::from_utf8(bytes).map_err(|_| SkillError::NotText(shown))
}

impl Skill {
    /// The other files of the folder, as relative paths (`/`-separated),
    /// sorted; hidden entries and `SKILL.md` are left out. Never read.
    pub fn files(&self) -> Vec<String> {
        let mut out: Vec<String> = walkdir::WalkDir::new(&self.dir)
            .follow_links(false)
            .max_depth(MAX_DEPTH)
            .into_iter()
            .filter_entry(|e| {
                e.depth() == 0 || !e.file_name().to_str().is_none_or(|n| n.starts_with('.'))
            })
            .filter_map(Result::ok)
            .filter(|e| e.depth() > 0 && !e.file_type().is_dir())
            .filter_map(|e| {
                let rel = e.path().strip_prefix(&self.dir).ok()?;
                let parts: Vec<&str> = rel
                    .components()
                    .map(|c| c.as_os_str().to_str())
                    .collect::<Option<_>>()?;
                Some(parts.join("/"))
            })
            .filter(|r| r != SKILL_FILE)
            .map(|r| sanitize_line(&r).into_owned())
            .collect();
        out.sort();
        out.truncate(MAX_FILES_LISTED);
        out
    }

    /// One file of the folder by relative path: no `..`, no absolute path,
    /// and no link that resolves outside the folder.
    pub fn read_file(&self, file: &str) -> Result<String, SkillError> {
        let rel = Path::new(file.trim());
        let shown = || sanitize_line(file).chars().take(200).collect::<String>();
        if file.trim().is_empty()
            || rel
                .components()
                .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
        {
            return Err(SkillError::BadPath(shown()));
        }
        let text = read_confined(&self.dir, &self.dir.join(rel), MAX_FILE_BYTES)?;
        Ok(sanitize_text(&text).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, rel: &str, text: &str) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn skill_md(name: &str, desc: &str) -> String {
        format!("---\nname: {name}\ndescription: {desc}\n---\n# {name}\n\nDo the thing.\n")
    }

    fn dirs(paths: &[&Path]) -> Vec<SkillsDir> {
        paths
            .iter()
            .map(|p| SkillsDir {
                path: p.to_path_buf(),
                explicit: false,
            })
            .collect()
    }

    #[test]
    fn loads_good_skills_and_skips_bad_ones_with_reasons() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        write(a.path(), "alpha/SKILL.md", &skill_md("alpha", "First one"));
        write(a.path(), "alpha/ref/notes.md", "notes");
        write(a.path(), "beta/SKILL.md", "# no front matter\n");
        write(
            a.path(),
            "big/SKILL.md",
            &format!(
                "{}{}",
                skill_md("big", "x"),
                "y".repeat(MAX_SKILL_BYTES as usize)
            ),
        );
        write(a.path(), "empty/README.md", "nothing");
        write(a.path(), ".hidden/SKILL.md", &skill_md("hidden", "h"));
        write(a.path(), "README.md", "not a skill");
        write(a.path(), "bad-name/SKILL.md", &skill_md("bad name!", "x"));
        write(
            a.path(),
            "nodesc/SKILL.md",
            "---\nname: nodesc\n---\nbody\n",
        );
        write(
            b.path(),
            "again/SKILL.md",
            &skill_md("alpha", "Second alpha"),
        );
        write(
            b.path(),
            "gamma/SKILL.md",
            &skill_md("gamma", "Third\u{1b}[31m one"),
        );
        let set = load(&dirs(&[a.path(), b.path()]));
        let names: Vec<&str> = set.skills.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["alpha", "gamma"]);
        assert_eq!(set.get("alpha").unwrap().description, "First one");
        assert_eq!(set.get("gamma").unwrap().description, "Third one");
        let reason = |dir: &str| {
            set.skipped
                .iter()
                .find(|s| s.path.parent().unwrap().ends_with(dir))
                .map(|s| s.reason.clone())
                .unwrap_or_default()
        };
        assert!(reason("beta").contains("no front matter"), "{set:?}");
        assert!(reason("big").contains("larger than 65536"), "{set:?}");
        assert!(reason("empty").contains("no SKILL.md"), "{set:?}");
        assert!(reason("bad-name").contains("invalid name"), "{set:?}");
        assert!(reason("nodesc").contains("no `description`"), "{set:?}");
        assert!(
            reason("again").contains("duplicate skill name `alpha`"),
            "{set:?}"
        );
        assert_eq!(set.skipped.len(), 6, "{set:?}");
        assert_eq!(set.get("alpha").unwrap().files(), ["ref/notes.md"]);
        let err = set.find("nope").unwrap_err().to_string();
        assert!(err.contains("known skills: alpha, gamma"), "{err}");
    }

    #[test]
    fn a_folder_of_one_skill_may_be_named_directly() {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), "one/SKILL.md", &skill_md("one", "Just one"));
        let set = load(&dirs(&[&d.path().join("one"), d.path()]));
        let names: Vec<&str> = set.skills.iter().map(|s| s.name.as_str()).collect();
        // Named directly, then found again in its parent: one skill, one duplicate note.
        assert_eq!(names, ["one"]);
        assert_eq!(set.skipped.len(), 1, "{set:?}");
    }

    #[test]
    fn a_missing_folder_is_silent_unless_named() {
        let set = load(&[SkillsDir {
            path: PathBuf::from("/nonexistent/skills"),
            explicit: false,
        }]);
        assert_eq!(set, SkillSet::default());
        let set = load(&[SkillsDir {
            path: PathBuf::from("/nonexistent/skills"),
            explicit: true,
        }]);
        assert!(set.skipped[0].reason.contains("does not exist"));
    }

    #[test]
    fn at_most_fifty_skills_and_bounded_descriptions() {
        let d = tempfile::tempdir().unwrap();
        for i in 0..MAX_SKILLS + 2 {
            write(
                d.path(),
                &format!("s{i:03}/SKILL.md"),
                &skill_md(&format!("s{i:03}"), &"word ".repeat(200)),
            );
        }
        let set = load(&dirs(&[d.path()]));
        assert_eq!(set.skills.len(), MAX_SKILLS);
        assert_eq!(set.skipped.len(), 2);
        for s in &set.skills {
            assert!(s.description.chars().count() <= MAX_DESCRIPTION_CHARS);
            assert!(s.description.ends_with('\u{2026}'));
        }
    }

    #[cfg(unix)]
    #[test]
    fn files_are_confined_to_the_skill_folder() {
        let d = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        write(outside.path(), "secret.txt", "top secret");
        write(d.path(), "s/SKILL.md", &skill_md("s", "d"));
        write(d.path(), "s/ref/a.md", "A file");
        write(d.path(), "s/bin.dat", "a\0b");
        std::os::unix::fs::symlink(
            outside.path().join("secret.txt"),
            d.path().join("s/link.txt"),
        )
        .unwrap();
        std::os::unix::fs::symlink(d.path().join("s/ref/a.md"), d.path().join("s/inside.md"))
            .unwrap();
        let set = load(&dirs(&[d.path()]));
        let s = set.get("s").unwrap();
        assert_eq!(s.files(), ["bin.dat", "inside.md", "link.txt", "ref/a.md"]);
        assert_eq!(s.read_file("ref/a.md").unwrap(), "A file");
        assert_eq!(s.read_file("./ref/a.md").unwrap(), "A file");
        assert_eq!(s.read_file("inside.md").unwrap(), "A file");
        for bad in ["../s/ref/a.md", "/etc/passwd", "ref/../../x", ""] {
            assert!(
                matches!(s.read_file(bad), Err(SkillError::BadPath(_))),
                "{bad}"
            );
        }
        assert!(matches!(
            s.read_file("link.txt"),
            Err(SkillError::Escapes(_))
        ));
        assert!(matches!(
            s.read_file("bin.dat"),
            Err(SkillError::NotText(_))
        ));
        assert!(matches!(
            s.read_file("missing.md"),
            Err(SkillError::NotFound { .. })
        ));
        // A SKILL.md that is a link out of its folder is refused.
        std::fs::create_dir_all(d.path().join("t")).unwrap();
        write(outside.path(), "SKILL.md", &skill_md("t", "d"));
        std::os::unix::fs::symlink(outside.path().join("SKILL.md"), d.path().join("t/SKILL.md"))
            .unwrap();
        let set = load(&dirs(&[d.path()]));
        assert!(set.get("t").is_none());
        assert!(
            set.skipped.iter().any(|s| s.reason.contains("outside")),
            "{set:?}"
        );
    }

    proptest::proptest! {
        #[test]
        fn descriptions_are_one_bounded_clean_line(d in "\\PC{0,400}|[\\x00-\\x1f\u{202e} a-z]{0,400}") {
            let out = bounded_description(&d);
            proptest::prop_assert!(out.chars().count() <= MAX_DESCRIPTION_CHARS);
            proptest::prop_assert!(!out.chars().any(|c| c.is_control() || crate::document::sanitize::is_bidi_control(c)));
        }

        #[test]
        fn names_are_checked_without_panics(n in "\\PC{0,80}") {
            if valid_name(&n) {
                proptest::prop_assert!(!n.is_empty() && n.len() <= MAX_NAME_CHARS);
                proptest::prop_assert!(!n.contains(['/', '.', ' ']));
            }
        }
    }
}
