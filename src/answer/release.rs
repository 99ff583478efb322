//! Which release a question asks about, and which releases a text speaks
//! of. "What's new in SQLite 3.35.0?" asks about 3.35.0: a page titled
//! "SQLite Release 3.35.0 On 2021-03-12" is that release's own page, one
//! titled "SQLite Release 3.35.4" or a sentence "SQLite version 3.14.1
//! adds ..." speaks of another release, as a sentence dated another year
//! tells of another year.
//!
//! A release is written as a number of three parts or more ("3.35.0"), as
//! a number after "version", "release" or "v" ("Release 15", "v2.1"), or
//! as a number right after the subject's name ("PostgreSQL 15"); a number
//! after any other word ("Section 19.2", "Table 8.2") is no release.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

/// A release number without its trailing zeros: "3.35.0" and "3.35" are
/// one release.
type Release = Vec<u32>;

fn release_of(number: &str) -> Option<Release> {
    let mut parts: Vec<u32> = number
        .split('.')
        .map(|p| p.parse().ok())
        .collect::<Option<Vec<u32>>>()?;
    // "Super Bowl 2021", "release 2019": a year, which tells a time, not a
    // release (the year rules of the vote read it).
    if let [y] = parts[..]
        && super::spans::is_year(y)
    {
        return None;
    }
    while parts.len() > 1 && parts.last() == Some(&0) {
        parts.pop();
    }
    Some(parts)
}

/// The releases `text` names; `subject` matches the subject's name
/// followed by a number ("PostgreSQL 15").
fn named_with(text: &str, subject: Option<&Regex>) -> BTreeSet<Release> {
    static DOTTED: LazyLock<Regex> =
        LazyLock::new(|| crate::re(r"(?:^|[^\w.-])(\d+(?:\.\d+){2,})(?:$|[^\w-]|\.(?:\s|$))"));
    static MARKED: LazyLock<Regex> = LazyLock::new(|| {
        crate::re(r"(?i)\b(?:version|release|v)\s?(\d+(?:\.\d+)*)(?:$|[^\w.-]|\.(?:\s|$))")
    });
    let mut out: BTreeSet<Release> = BTreeSet::new();
    for re in [Some(&*DOTTED), Some(&*MARKED), subject]
        .into_iter()
        .flatten()
    {
        out.extend(re.captures_iter(text).filter_map(|c| release_of(&c[1])));
    }
    out
}

/// The regex of a subject's name followed by a number.
fn subject_regex(subject: &str) -> Option<Regex> {
    let subject = subject.trim();
    if subject.is_empty() {
        return None;
    }
    Regex::new(&format!(
        r"(?i)\b{}\s+(\d+(?:\.\d+)*)(?:$|[^\w.-]|\.(?:\s|$))",
        regex::escape(subject)
    ))
    .ok()
}

/// How a text stands to the releases a question asks about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// It names an asked release.
    Asked,
    /// It names releases, none of them an asked one or part of one
    /// ("3.35.4" is part of "3.35"; "15.1" of "15"): it speaks of others.
    Other,
    /// It names no release, or one close to an asked one.
    Unknown,
}

/// Whether `a` is `b` or one of its point releases, or the other way round.
fn related(a: &Release, b: &Release) -> bool {
    a.starts_with(b) || b.starts_with(a)
}

/// The releases a question asks about, ready to place texts against.
pub struct Asked {
    releases: BTreeSet<Release>,
    subject: Option<Regex>,
}

impl Asked {
    /// The releases `question` names, `subject` being its subject's name.
    pub fn new(question: &str, subject: &str) -> Self {
        let subject = subject_regex(subject);
        Self {
            releases: named_with(question, subject.as_ref()),
            subject,
        }
    }

    /// Whether the question names no release.
    pub fn is_empty(&self) -> bool {
        self.releases.is_empty()
    }

    /// How the releases `text` names stand to those asked.
    pub fn scope(&self, text: &str) -> Scope {
        if self.releases.is_empty() {
            return Scope::Unknown;
        }
        let named = named_with(text, self.subject.as_ref());
        if named.iter().any(|r| self.releases.contains(r)) {
            Scope::Asked
        } else if !named.is_empty()
            && !named
                .iter()
                .any(|r| self.releases.iter().any(|a| related(a, r)))
        {
            Scope::Other
        } else {
            Scope::Unknown
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The releases `text` names, `subject` being the name whose numbers
    /// are releases ("Quokka" of "Quokka 15").
    fn named(text: &str, subject: &str) -> BTreeSet<Release> {
        named_with(text, subject_regex(subject).as_ref())
    }

    fn set(rs: &[&[u32]]) -> BTreeSet<Release> {
        rs.iter().map(|r| r.to_vec()).collect()
    }

    #[test]
    fn releases_are_dotted_numbers_marked_numbers_and_numbers_after_the_subject() {
        assert_eq!(named("What's new in Quokka 4.12.0?", ""), set(&[&[4, 12]]));
        assert_eq!(
            named("Quokka Release 4.12.3 On 2021-04-02", ""),
            set(&[&[4, 12, 3]])
        );
        assert_eq!(named("E.21. Release 15", ""), set(&[&[15]]));
        assert_eq!(
            named("What happened to it in Quokka 15?", "Quokka"),
            set(&[&[15]])
        );
        assert_eq!(
            named("Fixed in v2.1, see version 3.", ""),
            set(&[&[2, 1], &[3]])
        );
    }

    #[test]
    fn section_numbers_dates_and_amounts_are_no_releases() {
        for text in [
            "Section 19.2 explains where these files are located.",
            "See Table 8.2 and Figure 3.",
            "Released on 2021-03-12 for $1.5 million.",
            "The Quokka 15 minute rule applies.",
        ] {
            assert!(named(text, "").is_empty(), "{text}");
        }
        // A year after a name is a time, not a release.
        assert!(named("Who won Quokka Cup 2021?", "Quokka Cup").is_empty());
    }

    #[test]
    fn a_text_speaks_of_the_asked_release_of_another_or_of_none() {
        let asked = Asked::new("What did Quokka 4.12.0 change?", "Quokka");
        assert_eq!(asked.scope("Quokka Release 4.12.0 On 2021"), Scope::Asked);
        assert_eq!(
            asked.scope("Quokka version 3.14.1 adds a patch."),
            Scope::Other
        );
        // A point release of the asked one is close to it, not another.
        assert_eq!(
            asked.scope("Changes in version 4.12.4 (2021):"),
            Scope::Unknown
        );
        assert_eq!(
            asked.scope("Use less memory when running VACUUM."),
            Scope::Unknown
        );
        let none = Asked::new("What did Quokka change?", "Quokka");
        assert!(none.is_empty());
        assert_eq!(none.scope("Quokka version 3.14.1"), Scope::Unknown);
        // A number after the subject's name is a release.
        let major = Asked::new("What happened to it in Quokka 15?", "Quokka");
        assert_eq!(major.scope("E.21. Release 15"), Scope::Asked);
        assert_eq!(
            major.scope("Servers running Quokka 9.2 or later."),
            Scope::Other
        );
        assert_eq!(major.scope("Release 15.1"), Scope::Unknown);
    }
}
