//! `dra mcp-serve`: dra as an MCP server for IDEs and other agents, over
//! stdio (default; stdout carries JSON-RPC only, everything else goes to
//! stderr) or streamable HTTP (`--listen 127.0.0.1:PORT`, path `/mcp`).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;

use super::ask::BudgetArgs;
use super::{CliError, CliResult, Exit, GlobalArgs};
use crate::app::Source;
use crate::config::{Secret, Settings, settings};
use crate::mcp_server::listen::{self, HttpListener, ListenError};
use crate::mcp_server::policy::CorpusPolicy;
use crate::mcp_server::{DraServer, ServeConfig};

#[derive(Debug, Args)]
pub struct McpServeArgs {
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio (e.g.
    /// 127.0.0.1:8765; port 0 picks a free one, printed on stderr).
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<SocketAddr>,
    /// Allow --listen on an address other than loopback (a bearer token is then required).
    #[arg(long, requires = "listen")]
    pub allow_remote: bool,
    /// Bearer token HTTP clients must send; prefer DRA_MCP_SERVE_TOKEN or
    /// --token-file (a flag shows in `ps`). Without any, HTTP gets a random
    /// token, printed on stderr.
    #[arg(long, value_name = "TOKEN", requires = "listen")]
    pub token: Option<String>,
    /// Read the bearer token from this file (its first line).
    #[arg(
        long,
        value_name = "FILE",
        requires = "listen",
        conflicts_with = "token"
    )]
    pub token_file: Option<PathBuf>,
    /// Serve HTTP on loopback without a token (any local user can then call dra).
    #[arg(long, requires = "listen", conflicts_with_all = ["token", "token_file", "allow_remote"])]
    pub no_token: bool,
    /// A folder whose files `research` calls may name as `corpus`
    /// (repeatable). Over HTTP a call may name none without it; over stdio,
    /// any path unless roots are given.
    #[arg(long = "corpus-root", value_name = "DIR")]
    pub corpus_roots: Vec<PathBuf>,
    /// `runs` lists every run in the runs dir, not only those this server made.
    #[arg(long)]
    pub all_runs: bool,
    /// Research this corpus (a JSON corpus file, or a folder or file of .md/.txt/.html/.pdf) unless a call names its own.
    #[arg(long, value_name = "PATH")]
    pub corpus: Option<PathBuf>,
    /// Research the web with the configured search backend, even offline.
    #[arg(long, conflicts_with = "corpus")]
    pub web: bool,
    /// Use the offline extractive model even when an API key is set.
    #[arg(long)]
    pub offline: bool,
    /// Model tier (extra-low, low, mid, high) [env: DRA_MODEL_TIER].
    #[arg(long, value_hint = clap::ValueHint::Other)]
    pub tier: Option<String>,
    /// Defaults for every run (a call's max_usd and deadline win).
    #[command(flatten)]
    pub budget: BudgetArgs,
    /// An MCP server the runs may use: `[LABEL=]URL` or `[LABEL=]COMMAND ARGS` (repeatable).
    #[arg(long = "mcp", value_name = "[LABEL=]URL|COMMAND")]
    pub mcp: Vec<String>,
}

fn flags(args: &McpServeArgs) -> BTreeMap<&'static str, String> {
    let mut f = BTreeMap::new();
    if let Some(t) = &args.tier {
        f.insert(settings::MODEL_TIER, t.clone());
    }
    if let Some(t) = &args.token {
        f.insert(settings::MCP_SERVE_TOKEN, t.clone());
    }
    args.budget.put_into(&mut f);
    if args.offline {
        f.insert(settings::OFFLINE, "true".into());
    }
    f
}

pub fn run(g: &GlobalArgs, args: &McpServeArgs) -> CliResult {
    let config = super::resolve_config_with_mcp(g, flags(args), args.mcp.clone())?;
    for w in &config.warnings {
        errln!("warning: {}", super::shown(w));
    }
    let settings = Settings::from_config(&config);
    let token = match args.listen {
        Some(addr) => http_token(args, settings.serve.token.clone(), addr.ip().is_loopback())?,
        None => None,
    };
    if let Some(addr) = args.listen {
        listen::check_listen(addr, args.allow_remote, token.as_ref().map(|t| &t.0))
            .map_err(listen_error)?;
    }
    let source = match (&args.corpus, args.web) {
        (Some(path), _) => Source::Corpus(path.clone()),
        (None, true) => Source::Web,
        (None, false) => Source::Default,
    };
    // The same decision `dra ask` makes, before any client connects.
    crate::app::evidence_source(&settings, &source).map_err(super::ask::setup_error)?;
    let server = DraServer::new(ServeConfig {
        settings,
        header_settings: config.redacted(),
        source,
        corpus: CorpusPolicy::new(&args.corpus_roots, args.listen.is_some()),
        all_runs: args.all_runs,
    });
    let runtime = super::ask::runtime()?;
    let outcome = runtime.block_on(async move {
        match args.listen {
            None => {
                if !g.quiet {
                    errln!(
                        "dra mcp-serve: serving MCP on stdio: {}",
                        super::shown(&server.describe())
                    );
                }
                listen::serve_stdio(server, stop_signal()).await
            }
            Some(addr) => {
                let secret = token.as_ref().map(|t| &t.0);
                let listener = HttpListener::bind(addr, args.allow_remote, secret).await?;
                // Always printed: with port 0 this is how a caller learns the port.
                errln!("dra mcp-serve: listening on {}", listener.url());
                if let Some((t, TokenFrom::Generated)) = &token {
                    // Always printed too: the clients need it.
                    errln!(
                        "dra mcp-serve: bearer token: {} (clients send `Authorization: Bearer <token>`; choose it with --token-file or DRA_MCP_SERVE_TOKEN)",
                        t.expose()
                    );
                }
                if !g.quiet {
                    errln!("dra mcp-serve: {}", super::shown(&server.describe()));
                }
                listener
                    .serve(server, token.map(|t| t.0), stop_signal())
                    .await
            }
        }
    });
    runtime.shutdown_timeout(std::time::Duration::from_secs(2));
    outcome.map_err(listen_error)?;
    Ok(Exit::Ok)
}

/// Where the HTTP token came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TokenFrom {
    /// `--token` or DRA_MCP_SERVE_TOKEN (through the settings), or `--token-file`.
    Given,
    /// Made up at start-up and printed on stderr.
    Generated,
}

/// The token HTTP clients must send: the configured one, the first line of
/// `--token-file`, none with `--no-token`, else (on loopback) a random one.
/// Off loopback the operator must choose it: a token printed on one
/// machine's terminal is not one the remote clients have.
fn http_token(
    args: &McpServeArgs,
    configured: Option<Secret>,
    loopback: bool,
) -> Result<Option<(Secret, TokenFrom)>, CliError> {
    if args.no_token {
        return Ok(None);
    }
    if let Some(t) = configured.filter(|t| !t.expose().trim().is_empty()) {
        return Ok(Some((t, TokenFrom::Given)));
    }
    if let Some(path) = &args.token_file {
        let text = std::fs::read_to_string(path).map_err(|e| {
            CliError::Usage(anyhow::anyhow!(
                "cannot read --token-file {}: {e}",
                path.display()
            ))
        })?;
        let line = text.lines().next().unwrap_or("").trim().to_string();
        if line.is_empty() {
            return Err(CliError::Usage(anyhow::anyhow!(
                "--token-file {} holds no token (its first line is empty)",
                path.display()
            )));
        }
        return Ok(Some((Secret::new(line), TokenFrom::Given)));
    }
    if !loopback {
        return Ok(None);
    }
    let mut bytes = [0u8; 24];
    getrandom::fill(&mut bytes)
        .map_err(|e| CliError::Failure(anyhow::anyhow!("cannot make a bearer token: {e}")))?;
    let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Ok(Some((Secret::new(token), TokenFrom::Generated)))
}

fn listen_error(e: ListenError) -> CliError {
    match e {
        ListenError::Refused(m) => CliError::Usage(anyhow::anyhow!(m)),
        ListenError::Failed(m) => CliError::Failure(anyhow::anyhow!(m)),
    }
}

/// SIGINT or SIGTERM: stop serving (runs in flight are interrupted as
/// their connections close).
async fn stop_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut int), Ok(mut term)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = int.recv() => {}
        _ = term.recv() => {}
    }
}
