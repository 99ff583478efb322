//! Gaps the report's writer could not know about: aspects of the plan the
//! run never reached (a salvaged report after Ctrl-C or a budget stop), and
//! documents a corpus cap cut, where "not found" may only mean "not read".

use std::sync::LazyLock;

use regex::Regex;

use super::citations;

static GAPS_HEADING: LazyLock<Regex> =
    LazyLock::new(|| crate::re(r"(?i)^#{2,3}\s*(gaps|what the sources do not say)\s*$"));
/// A gap that says something was looked for and not found.
static NOT_FOUND: LazyLock<Regex> = LazyLock::new(|| {
    crate::re(
        r"(?i)\bnot found\b|\bwas found\b|\bno (?:verifiable )?evidence\b|\bcould not (?:find|establish)\b|\bno (?:sentence|mention|information)\b",
    )
});

/// A document a corpus cap cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    pub url: String,
    /// What was kept ("the first 120000 characters").
    pub kept: String,
}

/// What the run knows beyond the report's own Gaps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GapNotes {
    /// Planned aspects no sub-researcher reported on, and why.
    pub unresearched: Vec<String>,
    /// Pages read per aspect (an unreported aspect with pages read was
    /// cut short, not never reached).
    pub read: Vec<(String, usize)>,
    /// Why the run ended before them (`interrupted`, `budget_exhausted`...).
    pub ended: String,
    pub truncated: Vec<Cut>,
}

impl GapNotes {
    pub fn is_empty(&self) -> bool {
        self.unresearched.is_empty() && self.truncated.is_empty()
    }
}

/// Planned aspects with no findings unit: compared without case, spaces or
/// punctuation, so "Pricing." and "pricing" are one aspect.
/// An aspect compared without case, spaces or punctuation.
fn key(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

pub fn unresearched(plan: &[String], researched: &[String]) -> Vec<String> {
    let done: Vec<String> = researched.iter().map(|r| key(r)).collect();
    let mut out: Vec<String> = Vec::new();
    for aspect in plan {
        let k = key(aspect);
        if !k.is_empty() && !done.contains(&k) && !out.iter().any(|o| key(o) == k) {
            out.push(aspect.trim().to_string());
        }
    }
    out
}

/// The report with the notes under its Gaps section (made when missing,
/// before any Sources section): "not found" gaps say they may be truncated,
/// each cut document and each unresearched aspect gets its own line.
pub fn amend(markdown: &str, notes: &GapNotes) -> String {
    if notes.is_empty() {
        return markdown.to_string();
    }
    let (body, sources, _) = citations::split_sources(markdown);
    let mut lines: Vec<String> = body.trim_end().lines().map(str::to_string).collect();
    let heading = lines.iter().position(|l| GAPS_HEADING.is_match(l.trim()));
    let (start, mut end) = match heading {
        Some(h) => {
            let end = lines[h + 1..]
                .iter()
                .position(|l| l.starts_with("# ") || l.starts_with("## "))
                .map_or(lines.len(), |i| h + 1 + i);
            (h + 1, end)
        }
        None => {
            lines.extend([String::new(), "## Gaps".to_string(), String::new()]);
            (lines.len(), lines.len())
        }
    };
    if !notes.truncated.is_empty() {
        let n = notes.truncated.len();
        let what = if n == 1 {
            "1 document read was".to_string()
        } else {
            format!("{n} documents read were")
        };
        for line in &mut lines[start..end] {
            let item = line.trim_start();
            if (item.starts_with("- ") || item.starts_with("* ")) && NOT_FOUND.is_match(item) {
                line.push_str(&format!(
                    " (truncated, not \"not found\": {what} cut by the corpus caps, and the part not read may hold it)"
                ));
            }
        }
    }
    // New lines go after the section's last non-blank line.
    while end > start && lines[end - 1].trim().is_empty() {
        end -= 1;
    }
    let mut added: Vec<String> = Vec::new();
    for aspect in &notes.unresearched {
        let read = notes
            .read
            .iter()
            .find(|(a, _)| key(a) == key(aspect))
            .map_or(0, |(_, n)| *n);
        added.push(if read > 0 {
            format!(
                "- {}: cut short: {} read, but the run ended ({}) before its findings were submitted",
                capitalise(aspect),
                crate::count(read, "page"),
                notes.ended
            )
        } else {
            format!(
                "- {}: not researched: the run ended ({}) before this aspect was reached",
                capitalise(aspect),
                notes.ended
            )
        });
    }
    // By address: pages read in parallel finish in any order, the report
    // does not change with it.
    let mut truncated: Vec<_> = notes.truncated.iter().collect();
    truncated.sort_by(|a, b| a.url.cmp(&b.url));
    truncated.dedup_by(|a, b| a.url == b.url);
    for cut in truncated {
        added.push(format!(
            "- Truncated: {}: only {} were read (corpus caps); the rest was not searched",
            // A code span: the report links only to cited sources.
            super::links::inert(&cut.url),
            cut.kept
        ));
    }
    let at = end;
    lines.splice(at..at, added);
    let mut out = lines.join("\n");
    out.push('\n');
    if let Some(s) = sources {
        out.push('\n');
        out.push_str(s);
    }
    out
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notes(unresearched: &[&str], truncated: &[(&str, &str)]) -> GapNotes {
        GapNotes {
            unresearched: unresearched.iter().map(|s| s.to_string()).collect(),
            ended: "interrupted".into(),
            read: Vec::new(),
            truncated: truncated
                .iter()
                .map(|(u, k)| Cut {
                    url: u.to_string(),
                    kept: k.to_string(),
                })
                .collect(),
        }
    }

    const REPORT: &str = "# R\n\n## Answer\n\nA [1].\n\n## Gaps\n\n- Pricing: no sentence about pricing was found in the 2 page(s) read\n- Funding: the round size is disputed\n\n## Sources\n\n[1] T. https://a.example/\n";

    #[test]
    fn cut_pages_are_listed_in_one_order_whatever_order_they_were_read_in() {
        let one = [
            ("file:///b.html", "the first 10 characters"),
            ("file:///a.html", "the first 10 characters"),
        ];
        let mut other = one;
        other.reverse();
        let out = amend(REPORT, &notes(&[], &one));
        assert_eq!(out, amend(REPORT, &notes(&[], &other)));
        assert!(
            out.find("a.html").unwrap() < out.find("b.html").unwrap(),
            "{out}"
        );
    }

    #[test]
    fn unresearched_aspects_and_cuts_join_the_gaps_section() {
        let out = amend(
            REPORT,
            &notes(
                &["licence status", "merchant sentiment"],
                &[("file:///big.txt", "the first 10 characters")],
            ),
        );
        let gaps = out
            .split("## Gaps")
            .nth(1)
            .unwrap()
            .split("## Sources")
            .next()
            .unwrap();
        assert!(
            gaps.contains("- Licence status: not researched: the run ended (interrupted)"),
            "{out}"
        );
        assert!(
            gaps.contains("- Merchant sentiment: not researched"),
            "{out}"
        );
        assert!(
            gaps.contains("- Truncated: `file:///big.txt`: only the first 10 characters were read"),
            "{out}"
        );
        let pricing = gaps.lines().find(|l| l.contains("Pricing")).unwrap();
        assert!(pricing.contains("truncated"), "{pricing}");
        let funding = gaps.lines().find(|l| l.contains("Funding")).unwrap();
        assert!(!funding.contains("truncated"), "{funding}");
        assert_eq!(out.matches("## Gaps").count(), 1);
        assert!(
            out.contains("## Sources\n\n[1] T. https://a.example/"),
            "{out}"
        );
    }

    #[test]
    fn a_report_without_gaps_gets_a_section_before_its_sources() {
        let out = amend(
            "# R\n\nA [1].\n\n## Sources\n\n[1] x\n",
            &notes(&["pricing"], &[]),
        );
        let gaps = out.find("## Gaps").unwrap();
        assert!(gaps < out.find("## Sources").unwrap(), "{out}");
        assert!(out.contains("- Pricing: not researched"), "{out}");
        assert_eq!(amend(REPORT, &GapNotes::default()), REPORT);
    }

    #[test]
    fn an_aspect_with_pages_read_was_cut_short_not_never_reached() {
        let mut n = notes(&["merchant sentiment", "pricing"], &[]);
        n.read = vec![("Merchant sentiment.".into(), 3)];
        let out = amend(REPORT, &n);
        assert!(
            out.contains("- Merchant sentiment: cut short: 3 pages read, but the run ended (interrupted) before its findings were submitted"),
            "{out}"
        );
        assert!(out.contains("- Pricing: not researched"), "{out}");
    }

    #[test]
    fn aspects_match_without_case_or_punctuation() {
        let plan = vec![
            "Pricing.".to_string(),
            "Leadership".into(),
            "pricing".into(),
            "Funding".into(),
        ];
        let done = vec!["leadership".to_string()];
        assert_eq!(
            unresearched(&plan, &done),
            vec!["Pricing.".to_string(), "Funding".into()]
        );
    }

    proptest::proptest! {
        #[test]
        fn amending_keeps_every_line_of_the_report(md in "(\\PC{0,30}\n){0,12}", aspect in "[a-z]{1,12}") {
            let out = amend(&md, &notes(&[&aspect], &[("u", "k")]));
            for line in md.lines().filter(|l| !l.trim().is_empty()) {
                proptest::prop_assert!(out.contains(line.trim_end()), "{line:?} lost from {out:?}");
            }
            proptest::prop_assert_eq!(out.matches("- Truncated: `u`").count(), 1);
        }
    }
}
