//! What a run's research came to, judged before it is delivered: how many
//! sub-questions the sources answer, and whether the sources are about the
//! subject at all (an inferred subject that no page read names is not
//! researched by those pages, however on-topic their words).

use crate::evidence::{Findings, Page};
use crate::protocol::{EntityAnchors, StatusReason, StatusState, Verdict};
use crate::question::{self, QuestionKind};

/// Sub-questions answered and not, by the researchers' own word (units
/// that did not say count in neither).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub answered: usize,
    pub unanswered: usize,
}

impl Tally {
    pub fn of(units: &[Findings]) -> Tally {
        let mut t = Tally::default();
        for u in units {
            if u.answer.is_some() || u.answered == Some(true) && !u.findings.is_empty() {
                t.answered += 1;
            } else if u.answered == Some(false) {
                t.unanswered += 1;
            }
        }
        t
    }

    /// "2 of 3 sub-questions answered", when any unit said.
    pub fn describe(&self) -> Option<String> {
        let total = self.answered + self.unanswered;
        (total > 0).then(|| {
            format!(
                "{} of {total} sub-question{} answered",
                self.answered,
                if total == 1 { "" } else { "s" }
            )
        })
    }

    /// Every unit that said was unanswered.
    pub fn none_answered(&self) -> bool {
        self.answered == 0 && self.unanswered > 0
    }
}

/// The inferred subject when pages were accepted and none of them names it
/// (by name, alias or its domain): the sources are about something else.
pub fn subject_absent(anchors: &EntityAnchors, pages: &[Page]) -> Option<String> {
    let name = anchors
        .name
        .as_deref()
        .map(str::trim)
        .filter(|n| !n.is_empty())?;
    if !anchors.inferred {
        return None;
    }
    let accepted: Vec<&Page> = pages
        .iter()
        .filter(|p| p.verdict == Verdict::Accepted)
        .collect();
    let names_it = |p: &Page| {
        p.identity
            .matched
            .iter()
            .any(|m| matches!(m.as_str(), "name" | "alias" | "domain"))
    };
    (!accepted.is_empty() && !accepted.iter().any(|p| names_it(p))).then(|| name.to_string())
}

/// What the answers make of a run's ending.
#[derive(Debug, PartialEq)]
pub enum Judged {
    /// The sources are not about the subject: this report instead, and the
    /// run ends `no_verified_source`.
    SubjectAbsent { markdown: String, detail: String },
    /// Every sub-question that said was unanswered: `not_answered`.
    NotAnswered { detail: String },
    /// The ending stands; the tally is its detail when it had none.
    Kept { detail: Option<String> },
}

/// Judges a run's ending `(state, reason, detail)` by its answers. The
/// subject is judged for due diligence, whose subject is a name; elsewhere
/// an inferred subject is a phrase of the question ("World Cup Final")
/// that pages word their own way.
pub fn judge(
    question_text: &str,
    anchors: &EntityAnchors,
    pages: &[Page],
    units: &[Findings],
    (state, reason, detail): (StatusState, StatusReason, Option<String>),
) -> Judged {
    let delivered = state == StatusState::Done
        && matches!(
            reason,
            StatusReason::ReportDelivered | StatusReason::ReportSalvaged
        );
    let diligence = question::classify(question_text) == QuestionKind::DueDiligence;
    if delivered
        && diligence
        && let Some(name) = subject_absent(anchors, pages)
    {
        let accepted = pages
            .iter()
            .filter(|p| p.verdict == Verdict::Accepted)
            .count();
        return Judged::SubjectAbsent {
            markdown: absent_report(question_text, &name, accepted),
            detail: format!("nothing in the sources is about {name}"),
        };
    }
    let tally = Tally::of(units);
    if state == StatusState::Done
        && reason == StatusReason::ReportDelivered
        && tally.none_answered()
    {
        return Judged::NotAnswered {
            detail: format!(
                "the sources read do not say what the question asks ({})",
                tally.describe().unwrap_or_default()
            ),
        };
    }
    Judged::Kept {
        detail: if state == StatusState::Done {
            detail.or_else(|| tally.describe())
        } else {
            detail
        },
    }
}

/// The report of a run whose sources are not about its subject.
pub fn absent_report(question: &str, name: &str, pages: usize) -> String {
    format!(
        "# {name}: research report\n\n**Question:** {}\n\n## Answer\n\nNothing in the sources is about {name}: none of the {pages} page{} read names it, so nothing in them is evidence about {name}. Point dra at sources that cover {name} (`--corpus`, another search backend), or name the subject you meant.\n",
        question.trim(),
        if pages == 1 { "" } else { "s" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(answer: Option<&str>, answered: Option<bool>) -> Findings {
        Findings {
            answer: answer.map(String::from),
            answered,
            ..Default::default()
        }
    }

    #[test]
    fn the_tally_counts_what_researchers_said() {
        let t = Tally::of(&[
            unit(Some("Jane Doe"), Some(true)),
            unit(None, Some(false)),
            unit(None, None),
        ]);
        assert_eq!(
            t,
            Tally {
                answered: 1,
                unanswered: 1
            }
        );
        assert_eq!(
            t.describe().as_deref(),
            Some("1 of 2 sub-questions answered")
        );
        assert!(!t.none_answered());
        assert!(Tally::of(&[unit(None, Some(false))]).none_answered());
        assert_eq!(Tally::of(&[unit(None, None)]).describe(), None);
    }
}
