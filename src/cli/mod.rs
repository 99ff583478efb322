//! The command line: flags, commands, renderers. The only layer that touches
//! the terminal. stdout is a contract: the report path and a summary line in
//! human mode, JSONL events only with `--json`.

/// Like `eprintln!`, but a closed or full stderr is ignored instead of
/// panicking: losing a progress line must never stop a run. On a terminal
/// the line is folded to its width (see [`folded_for_stderr`]).
macro_rules! errln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let line = format!($($arg)*);
        let _ = writeln!(std::io::stderr(), "{}", $crate::cli::folded_for_stderr(&line));
    }};
}

/// A message for stderr as a terminal of its current width shows it: words
/// folded before the last column and later lines indented two spaces, so
/// the terminal never wraps a row mid-word. Into a pipe or a file it is
/// unchanged (one line per message, for grep).
pub(crate) fn folded_for_stderr(text: &str) -> std::borrow::Cow<'_, str> {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return std::borrow::Cow::Borrowed(text);
    }
    fold(text, stderr_line_width())
}

/// The columns a line on stderr may take: the terminal's width less its last
/// column, where a terminal would wait to wrap.
pub(crate) fn stderr_line_width() -> usize {
    usize::from(console::Term::stderr().size().1).saturating_sub(1)
}

/// `text` folded at `width` columns (at least 20; colour escapes take no
/// room), later lines of each line indented two spaces.
fn fold(text: &str, width: usize) -> std::borrow::Cow<'_, str> {
    let width = width.max(20);
    if text
        .lines()
        .all(|l| textwrap::core::display_width(l) <= width)
    {
        return std::borrow::Cow::Borrowed(text);
    }
    let options = textwrap::Options::new(width).subsequent_indent("  ");
    let lines: Vec<String> = text
        .split('\n')
        .map(|l| textwrap::fill(l, &options))
        .collect();
    std::borrow::Cow::Owned(lines.join("\n"))
}

mod ask;
mod clarify;
mod diff;
mod doctor;
mod eval;
pub mod exit;
mod export;
mod index;
mod lint_report;
mod mcp_serve;
mod next_step;
mod render;
mod resume;
mod runs;
mod tiers;
mod watch;

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

pub use exit::Exit;

#[derive(Debug, Parser)]
#[command(
    name = "dra",
    version,
    about = "dra: a deep research agent. Plans, searches, reads, validates evidence and writes a cited report.",
    long_about = None,
    after_help = "Exit codes: 0 ok, 1 failure, 2 usage or configuration error, 3 awaiting clarification, 4 partial (salvaged) report, 5 budget exhausted, 6 no verified source, 7 question names nothing to research, 8 question not answered, 9 changes found (diff --exit-code), 129 hung up (SIGHUP), 130 interrupted (SIGINT), 143 terminated (SIGTERM)."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// Print events as JSON lines on stdout (and nothing else).
    #[arg(help_heading = "Output", long, global = true)]
    pub json: bool,
    /// When to use colour and live rows.
    #[arg(help_heading = "Output", long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Less output on stderr.
    #[arg(help_heading = "Output", short, long, global = true)]
    pub quiet: bool,
    /// More output on stderr (-v shows thinking, -vv debug logs).
    #[arg(help_heading = "Output", short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Where runs are written [env: DRA_RUNS_DIR].
    #[arg(help_heading = "Output", long, global = true, value_name = "DIR")]
    pub runs_dir: Option<PathBuf>,
    /// Config file (default: dra/config.toml in the platform config dir).
    #[arg(help_heading = "Output", long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// Examples under `dra ask --help`.
const ASK_EXAMPLES: &str = "Examples:
  dra ask \"Who is the CEO of PadmaPay?\"   # no key: offline, embedded corpus
  dra ask --corpus ./docs \"How does write-ahead logging work?\"
  dra ask --json \"Who is the CEO of PadmaPay?\" | jq -c 'select(.type==\"source\")'
  dra ask --entity PadmaPay --domain padmapay.example \"Who leads PadmaPay?\"
  dra ask --continue last \"What does it charge?\"   # a follow-up on the last run";

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Research a question and write a cited report.
    #[command(after_help = ASK_EXAMPLES)]
    Ask(Box<ask::AskArgs>),
    /// Continue an interrupted, crashed or paused run from its records (answer its questions with --answer).
    Resume(Box<resume::ResumeArgs>),
    /// Check the setup (keys, endpoint, evidence, runs dir...) and say whether dra can run; --settings lists every setting.
    Doctor(doctor::DoctorArgs),
    /// Show the model tiers and their prices.
    Tiers,
    /// Index a corpus folder ahead of time (kept in the cache; --list, --prune), and with DRA_EMBED_MODEL embed every passage so `ask --corpus` ranks all of it by meaning.
    Index(index::IndexArgs),
    /// List recent runs (newest first), or prune old ones with --prune AGE.
    Runs(runs::RunsArgs),
    /// Export a run's cited sources as a bibliography (CSL-JSON, BibTeX or RIS) for Zotero, Pandoc or LaTeX.
    Export(export::ExportArgs),
    /// What changed between two runs of a question: new, changed and retracted answers, with sources (--exit-code: 9 on change).
    Diff(diff::DiffArgs),
    /// Re-run every question of a file once (--once, for cron or CI), each compared with its previous run; one summary of what changed.
    Watch(watch::WatchArgs),
    /// Run the cases of a gold set and print the evaluation metrics.
    Eval(eval::EvalArgs),
    /// Lint a report's citations (and scrub leaks) without running anything.
    LintReport(lint_report::LintArgs),
    /// Serve dra as an MCP server (stdio, or streamable HTTP with --listen): research, search, fetch, runs.
    McpServe(Box<mcp_serve::McpServeArgs>),
    /// Print shell completions.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff).
    #[command(hide = true)]
    Man,
}

/// Adds a did-you-mean to an unknown subcommand clap found none for: clap
/// misses swapped letters ("aks" for "ask"), which an edit distance
/// counting a swap as one edit catches.
fn suggest_subcommand(e: &mut clap::Error) {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::InvalidSubcommand || e.get(ContextKind::SuggestedSubcommand).is_some()
    {
        return;
    }
    let Some(ContextValue::String(typed)) = e.get(ContextKind::InvalidSubcommand) else {
        return;
    };
    let typed = typed.to_lowercase();
    let cmd = <Cli as clap::CommandFactory>::command();
    let best = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .map(|n| (strsim::osa_distance(&typed, &n), n))
        .filter(|(d, n)| *d <= if n.len() > 4 { 2 } else { 1 })
        .min();
    if let Some((_, name)) = best {
        e.insert(
            ContextKind::SuggestedSubcommand,
            ContextValue::Strings(vec![name]),
        );
    }
}

/// Entry point: parses flags, runs the command, maps the outcome to an exit code.
pub fn main() -> std::process::ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(mut e) => {
            suggest_subcommand(&mut e);
            let code = if e.use_stderr() {
                Exit::Usage
            } else {
                Exit::Ok
            };
            let _ = e.print();
            return code.into();
        }
    };
    init_tracing(&cli.global);
    install_panic_hook();
    let outcome = match &cli.command {
        Command::Ask(args) => ask::run(&cli.global, args),
        Command::Resume(args) => resume::run(&cli.global, args),
        Command::Doctor(args) => doctor::run(&cli.global, args),
        Command::Tiers => tiers::run(&cli.global),
        Command::Index(args) => index::run(&cli.global, args),
        Command::Runs(args) => runs::run(&cli.global, args),
        Command::Diff(args) => diff::run(&cli.global, args),
        Command::Export(args) => export::run(&cli.global, args),
        Command::Watch(args) => watch::run(&cli.global, args),
        Command::Eval(args) => eval::run(&cli.global, args),
        Command::LintReport(args) => lint_report::run(&cli.global, args),
        Command::McpServe(args) => mcp_serve::run(&cli.global, args),
        Command::Completions { shell } => {
            let mut out = Vec::new();
            write_completions(*shell, &mut out);
            print_stdout(&out);
            Ok(Exit::Ok)
        }
        Command::Man => {
            let mut out = Vec::new();
            match write_man(&mut out) {
                Ok(()) => {
                    print_stdout(&out);
                    Ok(Exit::Ok)
                }
                Err(e) => Err(CliError::Failure(anyhow::anyhow!(e))),
            }
        }
    };
    match outcome {
        Ok(code) => code.into(),
        Err(CliError::Usage(e)) => {
            errln!("error: {}", shown(&format!("{e:#}")));
            Exit::Usage.into()
        }
        Err(CliError::Failure(e)) => {
            errln!("error: {}", shown(&format!("{e:#}")));
            Exit::Failure.into()
        }
    }
}

/// Text from outside (file names, page text, settings) as it may be shown on
/// the terminal: no control sequence or bidi override.
pub(crate) fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    crate::document::sanitize_text(text)
}

/// Errors at the edge, already classified for the exit code.
#[derive(Debug)]
pub enum CliError {
    /// Bad input or configuration: exit 2.
    Usage(anyhow::Error),
    /// Anything else: exit 1.
    Failure(anyhow::Error),
}

pub type CliResult = Result<Exit, CliError>;

/// Panics print one line with a hint, except inside guarded calls that
/// expect them (the PDF extractor), which handle the failure themselves.
fn install_panic_hook() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if crate::evidence::extract::panic_is_expected() {
            return;
        }
        if std::env::var_os("RUST_BACKTRACE").is_some() {
            default(info);
        } else {
            errln!(
                "dra: internal error: {info}\n(this is a bug; rerun with RUST_BACKTRACE=1 and report it)"
            );
        }
    }));
}

fn init_tracing(g: &GlobalArgs) {
    use tracing_subscriber::EnvFilter;
    let default = match g.verbose {
        // rmcp logs transport failures that dra reports itself (mcp_error,
        // `dra doctor`); they show from -vv.
        0 | 1 => "warn,rmcp=off",
        2 => "debug",
        _ => "trace",
    };
    let filter = EnvFilter::try_from_env("RUST_LOG").unwrap_or_else(|_| EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        // A broken stderr must not turn into a panic inside the engine.
        .log_internal_errors(false)
        .with_ansi(g.color == ColorChoice::Always)
        .try_init();
}

pub fn write_completions(shell: clap_complete::Shell, out: &mut Vec<u8>) {
    clap_complete::generate(shell, &mut Cli::command(), "dra", out);
}

/// One man page for dra and every subcommand (no `dra-ask(1)` pages are
/// shipped, so none is referred to): each subcommand is a section with its
/// synopsis, description and options.
pub fn write_man(out: &mut Vec<u8>) -> std::io::Result<()> {
    let cmd = Cli::command();
    let man = clap_mangen::Man::new(cmd.clone());
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    man.render_options_section(out)?;
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = format!("dra {}", sub.get_name());
        out.extend_from_slice(format!(".SH \"{}\"\n", name.to_uppercase()).as_bytes());
        let page = clap_mangen::Man::new(sub.clone().bin_name(&name));
        let mut section = Vec::new();
        page.render_synopsis_section(&mut section)?;
        page.render_description_section(&mut section)?;
        page.render_options_section(&mut section)?;
        // Its sections are subsections of the command's.
        let text = String::from_utf8_lossy(&section).replace(".SH ", ".SS ");
        out.extend_from_slice(text.as_bytes());
    }
    man.render_extra_section(out)?;
    man.render_version_section(out)
}

/// Writes to stdout; a closed pipe is not an error (`dra ... | head`).
pub(crate) fn print_stdout(bytes: &[u8]) -> bool {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|_| out.flush()) {
        Ok(()) => true,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => false,
        Err(_) => false,
    }
}

/// Whether stdout gets colour (`dra doctor`'s verdict): as stderr, but for
/// stdout's own terminal.
pub(crate) fn stdout_is_live(g: &GlobalArgs) -> bool {
    use std::io::IsTerminal;
    match g.color {
        ColorChoice::Never => false,
        ColorChoice::Always => true,
        ColorChoice::Auto => {
            std::io::stdout().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::env::var("TERM").map(|t| t != "dumb").unwrap_or(true)
        }
    }
}

/// Whether stderr gets colour and live rows.
pub(crate) fn stderr_is_live(g: &GlobalArgs) -> bool {
    use std::io::IsTerminal;
    if g.json || g.quiet {
        return false;
    }
    match g.color {
        ColorChoice::Never => false,
        ColorChoice::Always => true,
        ColorChoice::Auto => {
            std::io::stderr().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::env::var("TERM").map(|t| t != "dumb").unwrap_or(true)
        }
    }
}

/// Resolves configuration for a command, with the flags that map to settings.
pub(crate) fn resolve_config(
    g: &GlobalArgs,
    flags: std::collections::BTreeMap<&'static str, String>,
) -> Result<crate::config::Config, CliError> {
    resolve_config_with_mcp(g, flags, Vec::new())
}

/// [`resolve_config`] with `--mcp` flags.
pub(crate) fn resolve_config_with_mcp(
    g: &GlobalArgs,
    flags: std::collections::BTreeMap<&'static str, String>,
    mcp: Vec<String>,
) -> Result<crate::config::Config, CliError> {
    let mut layers = crate::config::Layers::from_process(g.config.clone());
    layers.flags = flags;
    layers.mcp = mcp;
    if let Some(d) = &g.runs_dir {
        layers
            .flags
            .insert(crate::config::settings::RUNS_DIR, d.display().to_string());
    }
    crate::config::Config::resolve(&layers).map_err(|e| CliError::Usage(anyhow::anyhow!(e)))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_long_message_folds_at_the_width_with_an_indent() {
        let text = "warning: skipped /tmp/corpus/broken.md: a broken symbolic link (nowhere.md)";
        let folded = super::fold(text, 30);
        assert!(folded.lines().all(|l| l.chars().count() <= 30), "{folded}");
        assert!(
            folded.lines().skip(1).all(|l| l.starts_with("  ")),
            "{folded}"
        );
        let words = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(words(&folded), words(text));
        // Short lines and each line of a message on its own.
        assert_eq!(super::fold("ok\nfine", 30), "ok\nfine");
        // Colour escapes take no room.
        let red = format!("\u{1b}[31m{}\u{1b}[0m", "x".repeat(25));
        assert_eq!(super::fold(&red, 30), red);
    }
}
