//! `dra lint-report REPORT [--sources sources.json] [--pages DIR]`: the
//! report gate's checks on any report. Citations resolve; with `--sources`,
//! each `[n]` of the report's Sources list points at the URL sources.json
//! gives it; with `--pages`, every cited sentence and every quote is checked
//! against the stored text of its source (the claim check).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use anyhow::Context;
use clap::Args;
use regex::Regex;
use serde::Deserialize;

use super::{CliError, CliResult, Exit, GlobalArgs, print_stdout};
use crate::document::normalize_url;
use crate::report::citations::{self, Problem, ProblemKind};
use crate::report::claim_check::{self, Check, Library, SourceInput};
use crate::report::{hygiene, links};
use crate::store::page_text_name;

#[derive(Debug, Args)]
pub struct LintArgs {
    /// The report (Markdown) to lint.
    pub file: PathBuf,
    /// sources.json to check citations against (default: the report's own
    /// Sources section). Entries need only `index` and `url`.
    #[arg(long, value_name = "FILE")]
    pub sources: Option<PathBuf>,
    /// Folder of stored page texts (a run's `pages/`): check every cited
    /// sentence and quote against the text of the source it cites.
    #[arg(long, value_name = "DIR")]
    pub pages: Option<PathBuf>,
}

/// One sources.json entry; only `index` and `url` are required.
#[derive(Debug, Clone, Deserialize)]
pub struct SourceRef {
    pub index: usize,
    pub url: String,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub published: Option<String>,
    #[serde(default)]
    pub updated: Option<String>,
}

static URL: LazyLock<Regex> = LazyLock::new(|| crate::re(r"https?://[^\s<>()]+"));

/// The URL on each `[n]` line of a report's Sources section.
pub fn listed_urls(markdown: &str) -> BTreeMap<usize, (usize, String)> {
    let (_, section, offset) = citations::split_sources(markdown);
    let Some(section) = section else {
        return BTreeMap::new();
    };
    let lines: Vec<&str> = section.lines().collect();
    citations::listed_sources(section)
        .into_iter()
        .filter_map(|(line, n)| {
            let text = lines.get(line - 1)?;
            let url = URL
                .find(text)?
                .as_str()
                .trim_end_matches(['.', ',', ';', ')']);
            Some((n, (line + offset, url.to_string())))
        })
        .collect()
}

/// Reads the page texts of the given sources from a folder of
/// `<hash>.txt` files; a missing file leaves that source out (its
/// sentences then fail as having no stored text).
pub fn library_from_pages(sources: &[SourceRef], pages: &Path) -> Library {
    let mut library = Library::new();
    for s in sources {
        let Ok(text) = std::fs::read_to_string(pages.join(page_text_name(&s.url))) else {
            continue;
        };
        let dates: Vec<&str> = [s.published.as_deref(), s.updated.as_deref()]
            .into_iter()
            .flatten()
            .collect();
        library.add(
            s.index,
            &SourceInput {
                text: &text,
                title: &s.title,
                url: &s.url,
                dates,
                findings: Vec::new(),
            },
        );
    }
    library
}

/// The claim check of a report file against a folder of page texts.
pub fn check_report(markdown: &str, sources: &[SourceRef], pages: &Path) -> Check {
    claim_check::check(markdown, &library_from_pages(sources, pages))
}

fn read_sources(p: &Path) -> Result<Vec<SourceRef>, CliError> {
    let raw = std::fs::read_to_string(p)
        .with_context(|| format!("cannot read sources {}", p.display()))
        .map_err(CliError::Usage)?;
    serde_json::from_str(&raw)
        .with_context(|| {
            format!(
                "{} is not a sources.json list of {{index, url, ...}} entries",
                p.display()
            )
        })
        .map_err(CliError::Usage)
}

pub fn run(g: &GlobalArgs, args: &LintArgs) -> CliResult {
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read report {}", args.file.display()))
        .map_err(CliError::Usage)?;
    let sources = args.sources.as_deref().map(read_sources).transpose()?;
    let known: Option<BTreeSet<usize>> = sources
        .as_ref()
        .map(|s| s.iter().map(|e| e.index).collect());
    let mut problems = citations::lint(&text, known.as_ref());
    let scrub = hygiene::scrub(&text);
    for what in &scrub.removed {
        problems.push(Problem {
            line: 0,
            kind: ProblemKind::Leak,
            message: format!("leaked {what} (the scrub would remove it)"),
        });
    }
    let listed = listed_urls(&text);
    problems.extend(outside_link_problems(&text, sources.as_deref(), &listed));
    if let Some(sources) = &sources {
        let by_index: BTreeMap<usize, &SourceRef> = sources.iter().map(|s| (s.index, s)).collect();
        for (n, (line, url)) in &listed {
            match by_index.get(n) {
                Some(s) if normalize_url(&s.url) != normalize_url(url) => problems.push(Problem {
                    line: *line,
                    kind: ProblemKind::WrongUrl,
                    message: format!("[{n}] is {url} in the report but {} in sources.json", s.url),
                }),
                Some(_) => {}
                None => problems.push(Problem {
                    line: *line,
                    kind: ProblemKind::WrongUrl,
                    message: format!("[{n}] ({url}) is not in sources.json"),
                }),
            }
        }
    }
    let mut claims = None;
    if let Some(dir) = &args.pages {
        // A run that accepted no page has no pages/ folder, and nothing to cite.
        let cites = !citations::citations(citations::split_sources(&text).0).is_empty();
        if !dir.is_dir() && cites {
            return Err(CliError::Usage(anyhow::anyhow!(
                "--pages {} is not a folder",
                dir.display()
            )));
        }
        // Without sources.json, the report's own Sources list maps [n] to URLs.
        let refs: Vec<SourceRef> = sources.clone().unwrap_or_else(|| {
            listed
                .iter()
                .map(|(n, (_, url))| SourceRef {
                    index: *n,
                    url: url.clone(),
                    title: String::new(),
                    published: None,
                    updated: None,
                })
                .collect()
        });
        let check = check_report(&text, &refs, dir);
        for c in check.unsupported() {
            let quote = c.problems.iter().any(|p| p.starts_with("the quote"));
            problems.push(Problem {
                line: c.line,
                kind: if quote {
                    ProblemKind::QuoteNotInSource
                } else {
                    ProblemKind::Unsupported
                },
                message: format!(
                    "\"{}\" is not supported: {}",
                    short(&c.text, 120),
                    c.problems.join("; ")
                ),
            });
        }
        claims = Some(check);
    }
    problems.sort_by_key(|p| p.line);
    // A report or sources.json is outside text: what is printed of it (and
    // of the file's name) carries no escape sequence or bidi control.
    for p in &mut problems {
        p.message = crate::document::sanitize_line(&p.message).into_owned();
    }
    let file = crate::document::sanitize_line(&args.file.display().to_string()).into_owned();
    if g.json {
        let mut v =
            serde_json::json!({ "file": file, "clean": problems.is_empty(), "problems": problems });
        if let Some(c) = &claims {
            v["claims"] = serde_json::json!({
                "checked": c.checked(),
                "supported": c.supported(),
                "rate": c.rate(),
            });
        }
        print_stdout(format!("{v}\n").as_bytes());
    } else {
        let mut s = String::new();
        for p in &problems {
            s.push_str(&format!("{file}:{}: {}\n", p.line, p.message));
        }
        if let Some(c) = &claims
            && !g.quiet
        {
            s.push_str(&format!(
                "{file}: {}/{} cited sentences supported ({:.0}%)\n",
                c.supported(),
                c.checked(),
                c.rate() * 100.0
            ));
        }
        if problems.is_empty() && !g.quiet {
            s.push_str(&format!("{file}: clean\n"));
        }
        print_stdout(s.as_bytes());
    }
    Ok(if problems.is_empty() {
        Exit::Ok
    } else {
        Exit::Failure
    })
}

/// Links, images and HTML in the report's body that point anywhere but its
/// sources (sources.json's URLs, else the report's own Sources list): the
/// report gate would have turned each into plain text.
fn outside_link_problems(
    text: &str,
    sources: Option<&[SourceRef]>,
    listed: &BTreeMap<usize, (usize, String)>,
) -> Vec<Problem> {
    let allowed: Vec<&str> = match sources {
        Some(s) => s.iter().map(|e| e.url.as_str()).collect(),
        None => listed.values().map(|(_, u)| u.as_str()).collect(),
    };
    let (body, _, _) = citations::split_sources(text);
    links::outside_links(body, &allowed)
        .into_iter()
        .map(|o| Problem {
            line: o.line,
            kind: ProblemKind::OutsideLink,
            message: format!("{} (a report links only to its sources)", o.what),
        })
        .collect()
}

fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}...", s.chars().take(n).collect::<String>())
    }
}
