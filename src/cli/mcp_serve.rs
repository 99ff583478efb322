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
use crate::config::{Settings, settings};
use crate::serve::listen::{self, HttpListener, ListenError};
use crate::serve::{DraServer, ServeConfig};

#[derive(Debug, Args)]
pub struct McpServeArgs {
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio (e.g.
    /// 127.0.0.1:8765; port 0 picks a free one, printed on stderr).
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<SocketAddr>,
    /// Allow --listen on an address other than loopback (a bearer token is then required).
    #[arg(long, requires = "listen")]
    pub allow_remote: bool,
    /// Bearer token HTTP clients must send; prefer DRA_MCP_SERVE_TOKEN (a flag shows in `ps`).
    #[arg(long, value_name = "TOKEN", requires = "listen")]
    pub token: Option<String>,
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
    #[arg(long)]
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
    let remote = args.listen.is_some_and(|a| !a.ip().is_loopback());
    if let Some(addr) = args.listen {
        listen::check_listen(addr, args.allow_remote, settings.serve.token.as_ref())
            .map_err(listen_error)?;
    }
    let source = match (&args.corpus, args.web) {
        (Some(path), _) => Source::Corpus(path.clone()),
        (None, true) => Source::Web,
        (None, false) => Source::Default,
    };
    // The same decision `dra ask` makes, before any client connects.
    crate::app::evidence_source(&settings, &source).map_err(super::ask::setup_error)?;
    let token = settings.serve.token.clone();
    let server = DraServer::new(ServeConfig {
        settings,
        header_settings: config.redacted(),
        source,
        allow_corpus_arg: !remote,
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
                let listener = HttpListener::bind(addr, args.allow_remote, token.as_ref()).await?;
                // Always printed: with port 0 this is how a caller learns the port.
                errln!("dra mcp-serve: listening on {}", listener.url());
                if !g.quiet {
                    errln!("dra mcp-serve: {}", super::shown(&server.describe()));
                }
                listener.serve(server, token, stop_signal()).await
            }
        }
    });
    runtime.shutdown_timeout(std::time::Duration::from_secs(2));
    outcome.map_err(listen_error)?;
    Ok(Exit::Ok)
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
