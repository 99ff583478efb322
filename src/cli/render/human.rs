//! Human output: live rows on stderr when it is a terminal (indicatif), plain
//! lines otherwise; the report path and a one-line summary on stdout.

use std::collections::HashMap;
use std::time::Duration;

use console::style;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::super::{GlobalArgs, print_stdout, stderr_is_live};
use crate::engine::RunSummary;
use crate::protocol::{
    ClarificationAnswer, EntityAnchors, Event, EventBody, FindingRow, RunMode, SourceNumber,
    Status, StatusState, SubagentState, Todo, ToolDisplay, Verdict, WarningCode,
};

pub struct Human {
    live: Option<MultiProgress>,
    rows: HashMap<String, ProgressBar>,
    quiet: bool,
    verbose: u8,
    colour: bool,
}

/// One row of outside text: events reach the renderer already cleaned of
/// control sequences (by the recorder); a row also loses its line breaks, so
/// a title cannot draw a fake row of its own.
fn one(s: &str) -> std::borrow::Cow<'_, str> {
    crate::document::sanitize_line(s)
}

fn serde_name<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}

/// Where a source comes from, for its row: its domain, or for a local
/// file (no domain) the folder it is in ("sqlite3/").
fn where_from(domain: &str, url: &str) -> String {
    if !domain.is_empty() {
        return domain.to_string();
    }
    url.strip_prefix("file://")
        .and_then(|path| path.rsplit('/').nth(1))
        .filter(|dir| !dir.is_empty())
        .map_or_else(String::new, |dir| format!("{dir}/"))
}

impl Human {
    pub fn new(g: &GlobalArgs) -> Self {
        use std::io::IsTerminal;
        let colour = stderr_is_live(g);
        // Spinners redraw in place, which only a terminal can show; into a
        // pipe (`--color always 2>log`) the same rows are written as lines.
        let live = colour && std::io::stderr().is_terminal();
        Human {
            live: live.then(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr())),
            rows: HashMap::new(),
            quiet: g.quiet,
            verbose: g.verbose,
            colour,
        }
    }

    /// Runs `f` with the live rows hidden (around a prompt).
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.live {
            Some(m) => m.suspend(f),
            None => f(),
        }
    }

    pub fn line(&self, text: &str) {
        if self.quiet {
            return;
        }
        match &self.live {
            Some(m) => {
                let _ = m.println(super::super::folded_for_stderr(text));
            }
            None => errln!("{text}"),
        }
    }

    /// A line of progress (not a warning or an error): on a terminal, cut
    /// to its width, so the rows never wrap; the full text is in the events.
    fn fit(&self, text: &str) {
        match &self.live {
            Some(_) => {
                let width = super::super::stderr_line_width().max(20);
                self.line(&console::truncate_str(text, width, "…"));
            }
            None => self.line(text),
        }
    }

    fn paint(
        &self,
        text: &str,
        f: fn(console::StyledObject<&str>) -> console::StyledObject<&str>,
    ) -> String {
        if self.colour {
            // Forced: console would otherwise decide again (and say no to a pipe).
            f(style(text).force_styling(true)).to_string()
        } else {
            text.to_string()
        }
    }

    fn row(&mut self, unit: &str, msg: String) {
        let Some(m) = &self.live else {
            return;
        };
        let bar = self.rows.entry(unit.to_string()).or_insert_with(|| {
            let b = m.add(ProgressBar::new_spinner());
            b.set_style(
                ProgressStyle::with_template("{spinner} {prefix:.bold} {wide_msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            b.set_prefix(unit.to_string());
            b.enable_steady_tick(Duration::from_millis(120));
            b
        });
        bar.set_message(msg);
    }

    fn end_row(&mut self, unit: &str, msg: String) {
        if let Some(b) = self.rows.remove(unit) {
            b.finish_and_clear();
        }
        self.fit(&msg);
    }

    pub fn clear(&mut self) {
        for (_, b) in self.rows.drain() {
            b.finish_and_clear();
        }
    }

    /// Draws one event: a row, a line, or nothing. Each kind of event has its
    /// own stage below, in the order a run sends them.
    pub fn on_event(&mut self, ev: &Event) {
        let agent = ev.agent.as_str();
        match &ev.body {
            EventBody::RunStart {
                mode,
                tier,
                run_dir,
                entity,
                ..
            } => self.show_run_start(&ev.run_id, mode, tier, run_dir, entity),
            EventBody::Plan { todos, .. } => self.show_plan(todos),
            EventBody::Subagent {
                unit,
                state,
                description,
            } => self.show_subagent(unit, state, description),
            EventBody::SearchQuery { query, .. } => self.show_search_query(agent, query),
            EventBody::SearchResults {
                query,
                count,
                ok,
                error,
                ..
            } => self.show_search_results(agent, query, *count, *ok, error.as_deref()),
            EventBody::Fetch {
                url,
                verdict,
                detail,
                ..
            } => self.show_fetch(agent, url, verdict, detail.as_deref()),
            EventBody::Source {
                title, domain, url, ..
            } => self.show_source(agent, title, &where_from(domain, url)),
            EventBody::ToolCall { tool, display, .. } => self.show_tool_call(agent, tool, *display),
            EventBody::ToolResult {
                tool,
                ok,
                summary,
                display,
                ..
            } => self.show_tool_result(agent, tool, *ok, summary, *display),
            EventBody::SubagentFindings {
                unit,
                findings,
                gaps,
                ..
            } => self.show_findings(unit, findings, gaps),
            EventBody::Thinking { text } => self.show_thinking(agent, text),
            EventBody::Warning { message, code } => self.show_warning(code, message),
            EventBody::Retry {
                model,
                attempt,
                delay_ms,
                reason,
            } => self.line(&format!(
                "  {agent} retry {attempt} of {model} in {delay_ms} ms: {}",
                one(reason)
            )),
            EventBody::Status(s) => self.show_status(agent, s),
            EventBody::Clarification { questions } => self.show_clarification(questions),
            EventBody::Sources { sources } => self.show_sources(sources),
            EventBody::ClarificationAnswered { answers } => self.show_answers(answers),
            EventBody::RunResumed {
                after_seq,
                recorded_model_calls,
                ..
            } => self.line(&format!(
                "resumed after event {after_seq}: {recorded_model_calls} recorded model call(s) to replay"
            )),
            EventBody::Skill { name, .. } => self.show_skill(name),
            EventBody::Changes {
                since_run,
                changed,
                new,
                retracted,
                ..
            } => self.line(&format!(
                "since run {since_run}: {changed} changed, {new} new, {retracted} retracted (changes.md)"
            )),
            EventBody::McpCall { .. }
            | EventBody::McpResult { .. }
            | EventBody::Evidence { .. }
            | EventBody::Report { .. }
            | EventBody::Usage { .. } => {}
        }
    }

    /// The run's first line: its id, mode, tier and entity, then its directory.
    fn show_run_start(
        &self,
        run_id: &str,
        mode: &RunMode,
        tier: &str,
        run_dir: &str,
        entity: &EntityAnchors,
    ) {
        let who = one(entity.name.as_deref().unwrap_or("(no entity named)"));
        self.line(&format!(
            "{} run {run_id} · {} · tier {tier} · entity {who}\n    {run_dir}",
            self.paint("dra", |s| s.bold()),
            serde_name(mode)
        ));
    }

    /// The plan on one line: how many aspects, and which.
    fn show_plan(&self, todos: &[Todo]) {
        let aspects: Vec<String> = todos.iter().map(|t| one(&t.content).into_owned()).collect();
        self.fit(&format!(
            "{} {}: {}",
            self.paint("plan", |s| s.cyan().bold()),
            crate::count(todos.len(), "aspect"),
            aspects.join(", ")
        ));
    }

    /// A page accepted as a source: on the agent's live row, or a line in a
    /// log. Unnumbered: the report numbers its sources when it exists.
    fn show_source(&mut self, agent: &str, title: &str, domain: &str) {
        let domain = if domain.is_empty() { "?" } else { domain };
        let text = format!("read {} ({})", one(title), one(domain));
        if self.live.is_some() && agent != "main" {
            self.row(agent, text);
        } else {
            self.line(&format!("  {agent} {text}"));
        }
    }

    /// A sub-agent starting (a live row, or a line) or ending (its row ends in
    /// a line that says how).
    fn show_subagent(&mut self, unit: &str, state: &SubagentState, description: &str) {
        match state {
            SubagentState::Started => {
                let aspect = description
                    .lines()
                    .next()
                    .unwrap_or("")
                    .trim_start_matches(crate::engine::prompts::label::ASPECT)
                    .trim()
                    .to_string();
                if self.live.is_some() {
                    self.row(unit, format!("{aspect}: starting"));
                } else {
                    self.line(&format!("{unit} started: {aspect}"));
                }
            }
            SubagentState::Done => self.end_row(
                unit,
                format!(
                    "{} {unit} done: {}",
                    self.paint("✓", |s| s.green()),
                    one(description)
                ),
            ),
            SubagentState::Failed => self.end_row(
                unit,
                format!(
                    "{} {unit} failed: {}",
                    self.paint("✗", |s| s.red()),
                    one(description)
                ),
            ),
        }
    }

    /// A search going out shows on the searching agent's live row only.
    fn show_search_query(&mut self, agent: &str, query: &str) {
        if self.live.is_some() && agent != "main" {
            self.row(agent, format!("searching {:?}", one(query)));
        }
    }

    /// A search's outcome: how many results (on the agent's live row, or a
    /// line in a log), or why it failed (a line).
    fn show_search_results(
        &mut self,
        agent: &str,
        query: &str,
        count: usize,
        ok: bool,
        error: Option<&str>,
    ) {
        if ok && self.live.is_some() && agent != "main" {
            self.row(agent, format!("search {:?} → {count} results", one(query)));
        } else if ok {
            self.line(&format!(
                "  {agent} search {:?} → {count} results",
                one(query)
            ));
        } else {
            self.line(&format!(
                "  {agent} search {:?} failed: {}",
                one(query),
                one(error.unwrap_or(""))
            ));
        }
    }

    /// A page read: the agent's row says which, and a page that was not
    /// accepted gets a line saying what became of it.
    fn show_fetch(&mut self, agent: &str, url: &str, verdict: &Verdict, detail: Option<&str>) {
        if self.live.is_some() && agent != "main" {
            self.row(agent, format!("reading {}", one(url)));
        }
        match verdict {
            Verdict::Accepted => {}
            Verdict::Quarantined => self.fit(&format!(
                "  {} {}: {}",
                self.paint("quarantined", |s| s.red().bold()),
                one(url),
                one(detail.unwrap_or(""))
            )),
            Verdict::Rejected => self.fit(&format!(
                "  {} {}: {}",
                self.paint("rejected", |s| s.yellow()),
                one(url),
                one(detail.unwrap_or(""))
            )),
            Verdict::Failed => self.line(&format!(
                "  fetch failed {}: {}",
                one(url),
                one(detail.unwrap_or(""))
            )),
        }
    }

    /// With `-v`, each tool called other than searching and reading (which
    /// have their own lines).
    fn show_tool_call(&self, agent: &str, tool: &str, display: ToolDisplay) {
        if self.verbose > 0 && display != ToolDisplay::OwnEvents {
            self.line(&format!("  {agent} → {tool}"));
        }
    }

    /// A tool's result, when it failed or ran code.
    fn show_tool_result(
        &self,
        agent: &str,
        tool: &str,
        ok: bool,
        summary: &str,
        display: ToolDisplay,
    ) {
        // Searches and reads say how they failed in their own events: once.
        if display == ToolDisplay::OwnEvents {
            return;
        }
        // Code runs are shown even when they succeed: what ran, how it ended.
        if !ok || display == ToolDisplay::Results {
            self.line(&format!("  {agent} {tool}: {}", one(summary)));
        }
    }

    /// With `-v`, a sub-agent's findings: counts and each finding's
    /// evidence (its "done" line gives the count).
    fn show_findings(&self, unit: &str, findings: &[FindingRow], gaps: &[String]) {
        if self.verbose == 0 {
            return;
        }
        self.line(&format!(
            "  {unit} findings: {} (gaps: {})",
            findings.len(),
            gaps.len()
        ));
        for f in findings {
            self.line(&format!("    {} {}", f.source, one(&f.evidence)));
        }
    }

    /// With `-v`, what an agent thought.
    fn show_thinking(&self, agent: &str, text: &str) {
        if self.verbose > 0 {
            self.line(&format!("  {agent} thinking: {}", one(text)));
        }
    }

    /// A warning, except that being offline is not one worth a line, and
    /// the corpus loader's were counted before the run (`print_notes`).
    fn show_warning(&self, code: &WarningCode, message: &str) {
        if !matches!(code, WarningCode::Offline | WarningCode::CorpusLoader) {
            self.line(&format!(
                "{} {}",
                self.paint("warning:", |s| s.yellow().bold()),
                one(message)
            ));
        }
    }

    /// A status change; the run's end is left to `finish`.
    fn show_status(&self, agent: &str, s: &Status) {
        let reason = s.reason.map(|r| serde_name(&r)).unwrap_or_default();
        let detail = s
            .detail
            .as_deref()
            .map(|d| format!(": {}", one(d)))
            .unwrap_or_default();
        match s.state {
            StatusState::Done | StatusState::Error => {}
            StatusState::BudgetSoft => self.line(&format!(
                "{} 75% of the {reason} budget used{detail}",
                self.paint("budget", |s| s.yellow())
            )),
            StatusState::BudgetHalt => self.line(&format!(
                "{} {reason} budget exhausted{detail}",
                self.paint("budget", |s| s.red().bold())
            )),
            StatusState::Revising => self.line(&format!("  {agent} revising ({reason}){detail}")),
            other => self.line(&format!("  status {}{detail}", serde_name(&other))),
        }
    }

    /// The questions the run needs answered before it goes on.
    fn show_clarification(&self, questions: &[String]) {
        self.line("clarification needed:");
        for q in questions {
            self.line(&format!("  ? {}", one(q)));
        }
    }

    /// The answers given to those questions.
    fn show_answers(&self, answers: &[ClarificationAnswer]) {
        for a in answers {
            self.line(&format!("  {} \u{2192} {}", a.question, a.answer));
        }
    }

    /// With `-v`, the report's numbers for the pages read, in reading order.
    fn show_sources(&self, sources: &[SourceNumber]) {
        if self.verbose == 0 {
            return;
        }
        let cited: Vec<String> = sources
            .iter()
            .filter_map(|s| {
                s.report
                    .map(|r| format!("read [{}] -> report [{r}]", s.index))
            })
            .collect();
        let uncited = sources.len() - cited.len();
        if !sources.is_empty() {
            let rest = if uncited > 0 {
                format!(" ({uncited} read, not cited)")
            } else {
                String::new()
            };
            self.line(&format!("sources: {}{rest}", cited.join(", ")));
        }
    }

    /// A skill the run applied.
    fn show_skill(&self, name: &str) {
        self.line(&format!(
            "{} {}",
            self.paint("Skill applied:", |s| s.magenta().bold()),
            one(name)
        ));
    }

    pub fn finish(&mut self, s: &RunSummary) {
        self.clear();
        let reason = serde_name(&s.reason);
        let state = serde_name(&s.state);
        let detail = s
            .detail
            .as_deref()
            .map(|d| format!(" ({})", one(d)))
            .unwrap_or_default();
        // The summary on stdout says how the run ended; stderr adds a line
        // only when there is more to say (a failure, its detail).
        if s.state != StatusState::Done || !detail.is_empty() {
            self.line(&format!(
                "{} {state}: {reason}{detail}",
                self.paint("status", |x| x.bold())
            ));
        }
        if let Some(r) = s.replayed {
            self.line(&format!(
                "resumed: {} answered from the run's records, {} made anew",
                crate::count(r.from_records as usize, "model call"),
                r.new
            ));
        }
        let mut out = String::new();
        if let Some(p) = &s.report_path {
            out.push_str(&format!("{}\n", p.display()));
        }
        let cached = if s.cached_tokens > 0 {
            format!(" ({} cached)", s.cached_tokens)
        } else {
            String::new()
        };
        out.push_str(&format!(
            "{state} ({reason}): {} sources, {} tool calls, {} tokens{cached}, {}, {:.1} s\n",
            s.sources,
            s.tool_calls,
            s.total_tokens,
            crate::engine::budget::dollars(s.cost_usd),
            s.duration.as_secs_f64()
        ));
        print_stdout(out.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_local_file_is_shown_by_its_folder() {
        assert_eq!(
            super::where_from("", "file:///usr/share/doc/sqlite3/wal.html"),
            "sqlite3/"
        );
        assert_eq!(
            super::where_from("padmapay.example", "https://padmapay.example/a"),
            "padmapay.example"
        );
    }
}
