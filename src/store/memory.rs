//! Long-term memory: lessons learnt across runs, kept in the platform data
//! dir. Lessons come only from the engine's own verdicts (a page quarantined
//! for instructions aimed at AI agents, a look-alike rejected by the identity
//! gate), never from page text, so a page cannot plant a lesson. The planner
//! reads them next run; facts are still re-verified.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::write_atomic;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Lessons {
    pub version: u32,
    /// Domains whose pages carried instructions aimed at AI agents.
    #[serde(default)]
    pub hostile_domains: BTreeMap<String, DomainLesson>,
    /// Per entity (folded name): domains about a look-alike entity.
    #[serde(default)]
    pub lookalike_domains: BTreeMap<String, BTreeMap<String, DomainLesson>>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DomainLesson {
    pub reason: String,
    pub times_seen: u32,
    pub last_seen: String,
    pub example_url: String,
}

/// What the engine learnt in one run.
#[derive(Debug, Clone, Default)]
pub struct RunLessons {
    pub entity: Option<String>,
    pub hostile: Vec<(String, String, String)>,
    pub lookalikes: Vec<(String, String, String)>,
}

impl RunLessons {
    /// Drops what was learnt about domains that also gave this run an
    /// accepted page: one look-alike review or one hostile forum post must
    /// not make the next run skip the whole site and its genuine pages.
    pub fn keep_domains_that_served_evidence(
        &mut self,
        accepted: &std::collections::BTreeSet<String>,
    ) {
        self.hostile
            .retain(|(domain, _, _)| !accepted.contains(domain));
        self.lookalikes
            .retain(|(domain, _, _)| !accepted.contains(domain));
    }
}

#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    #[error("memory file {path}: {message}")]
    Io { path: PathBuf, message: String },
}

/// Entity keys compare without case, spaces or punctuation.
pub fn entity_key(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

pub struct Memory {
    path: PathBuf,
}

impl Memory {
    pub fn at(dir: &Path) -> Self {
        Memory {
            path: dir.join("lessons.json"),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads the lessons; a missing file is an empty memory, a corrupt one
    /// is an error (never silently replaced).
    pub fn load(&self) -> Result<Lessons, MemoryError> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| {
                self.err(format!(
                    "not valid lessons JSON ({e}); move it aside to start afresh"
                ))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Lessons {
                version: 1,
                ..Lessons::default()
            }),
            Err(e) => Err(self.err(e.to_string())),
        }
    }

    /// Merges a run's lessons in, under a lock so concurrent runs do not
    /// lose each other's lessons.
    pub fn learn(&self, run: &RunLessons, today: &str) -> Result<Lessons, MemoryError> {
        let dir = self.path.parent().unwrap_or_else(|| Path::new("."));
        std::fs::create_dir_all(dir).map_err(|e| self.err(e.to_string()))?;
        let lock = File::create(dir.join("lessons.lock")).map_err(|e| self.err(e.to_string()))?;
        lock.lock().map_err(|e| self.err(e.to_string()))?;
        let mut lessons = self.load()?;
        lessons.version = 1;
        let bump = |map: &mut BTreeMap<String, DomainLesson>,
                    (domain, url, reason): &(String, String, String)| {
            let e = map.entry(domain.clone()).or_default();
            e.times_seen += 1;
            e.last_seen = today.to_string();
            e.reason = reason.clone();
            e.example_url = url.clone();
        };
        // A page without a host (a file of a local corpus) has no domain
        // whose other pages a lesson could speak for.
        let hosted = |l: &&(String, String, String)| !l.0.is_empty();
        for h in run.hostile.iter().filter(hosted) {
            bump(&mut lessons.hostile_domains, h);
        }
        if let Some(entity) = &run.entity {
            let map = lessons
                .lookalike_domains
                .entry(entity_key(entity))
                .or_default();
            for l in run.lookalikes.iter().filter(hosted) {
                bump(map, l);
            }
        }
        let mut bytes = serde_json::to_vec_pretty(&lessons).map_err(|e| self.err(e.to_string()))?;
        bytes.push(b'\n');
        let written = write_atomic(&self.path, &bytes).map_err(|e| self.err(e.to_string()));
        let _ = lock.unlock();
        written.map(|_| lessons)
    }

    fn err(&self, message: String) -> MemoryError {
        MemoryError::Io {
            path: self.path.clone(),
            message,
        }
    }
}

impl DomainLesson {
    /// The earlier run's verdict, shortened, for the report's security notes.
    fn why(&self) -> String {
        let reason = self.reason.trim();
        if reason.is_empty() {
            return String::new();
        }
        let mut short: String = reason
            .chars()
            .filter(|c| !c.is_control())
            .take(160)
            .collect();
        if reason.chars().count() > 160 {
            short.push_str("...");
        }
        format!(": {short}")
    }
}

impl Lessons {
    /// Why a URL's domain is known to be bad for this entity, if it is.
    pub fn known_bad(&self, entity: Option<&str>, domain: &str) -> Option<String> {
        // No host, no domain: one hostile file says nothing of the others.
        if domain.is_empty() {
            return None;
        }
        if let Some(l) = self.hostile_domains.get(domain) {
            return Some(format!(
                "carried instructions aimed at AI agents in an earlier run ({}{})",
                l.last_seen,
                l.why()
            ));
        }
        let key = entity_key(entity?);
        self.lookalike_domains
            .get(&key)
            .and_then(|m| m.get(domain))
            .map(|l| {
                format!(
                    "is about a look-alike entity, learnt in an earlier run ({}{})",
                    l.last_seen,
                    l.why()
                )
            })
    }

    /// The lessons relevant to a run, one line each, for the planner.
    pub fn brief(&self, entity: Option<&str>) -> Vec<String> {
        let mut out: Vec<String> = self
            .hostile_domains
            .iter()
            .map(|(d, l)| {
                format!(
                    "{d}: carried instructions aimed at AI agents (seen {} time(s), last {})",
                    l.times_seen, l.last_seen
                )
            })
            .collect();
        if let Some(m) = entity.and_then(|e| self.lookalike_domains.get(&entity_key(e))) {
            out.extend(m.iter().map(|(d, l)| {
                format!(
                    "{d}: about a look-alike entity, not this one (last {})",
                    l.last_seen
                )
            }));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_domain_that_served_evidence_is_not_learnt() {
        let mut run = RunLessons {
            entity: Some("Corvid Cloud".into()),
            hostile: vec![
                (
                    "forum.example".into(),
                    "https://forum.example/t/1".into(),
                    "injection".into(),
                ),
                (
                    "bad.example".into(),
                    "https://bad.example/".into(),
                    "injection".into(),
                ),
            ],
            lookalikes: vec![(
                "reviews.example".into(),
                "https://reviews.example/accounting/corvid".into(),
                "another category".into(),
            )],
        };
        let accepted = ["forum.example".to_string(), "reviews.example".to_string()]
            .into_iter()
            .collect();
        run.keep_domains_that_served_evidence(&accepted);
        assert_eq!(run.hostile.len(), 1);
        assert_eq!(run.hostile[0].0, "bad.example");
        assert!(run.lookalikes.is_empty());
    }

    #[test]
    fn learns_merges_and_answers() {
        let dir = tempfile::tempdir().unwrap();
        let mem = Memory::at(dir.path());
        assert_eq!(mem.load().unwrap().hostile_domains.len(), 0);
        let run = RunLessons {
            entity: Some("PadmaPay".into()),
            hostile: vec![(
                "bad.example".into(),
                "https://bad.example/x".into(),
                "injection".into(),
            )],
            lookalikes: vec![(
                "uk.example".into(),
                "https://uk.example/".into(),
                "look-alike".into(),
            )],
        };
        mem.learn(&run, "2026-11-29").unwrap();
        let l = mem.learn(&run, "2026-11-30").unwrap();
        assert_eq!(l.hostile_domains["bad.example"].times_seen, 2);
        assert!(
            l.known_bad(Some("Padma pay"), "uk.example").is_some(),
            "entity keys fold case and spaces"
        );
        assert!(
            l.known_bad(Some("Other"), "uk.example").is_none(),
            "look-alikes are per entity"
        );
        assert!(l.known_bad(None, "bad.example").is_some());
        // The earlier verdict travels with the lesson, for the security notes.
        let why = l.known_bad(None, "bad.example").unwrap();
        assert!(why.contains("(2026-11-30: injection)"), "{why}");
        assert_eq!(l.brief(Some("PadmaPay")).len(), 2);
    }

    #[test]
    fn a_hostile_local_file_is_not_learnt_as_a_domain() {
        let dir = tempfile::tempdir().unwrap();
        let mem = Memory::at(dir.path());
        let run = RunLessons {
            entity: Some("Quokka".into()),
            hostile: vec![(
                String::new(),
                "file:///docs/a.html".into(),
                "injection".into(),
            )],
            lookalikes: vec![(
                String::new(),
                "file:///docs/b.html".into(),
                "look-alike".into(),
            )],
        };
        let l = mem.learn(&run, "2026-12-06").unwrap();
        assert!(l.hostile_domains.is_empty(), "{:?}", l.hostile_domains);
        assert!(l.known_bad(Some("Quokka"), "").is_none());
    }

    #[test]
    fn corrupt_memory_is_an_error_not_a_reset() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("lessons.json"), "{not json").unwrap();
        let e = Memory::at(dir.path()).load().unwrap_err().to_string();
        assert!(
            e.contains("lessons.json") && e.contains("move it aside"),
            "{e}"
        );
    }
}
