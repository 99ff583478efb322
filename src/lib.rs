//! dra: a deep research agent in one binary.
//!
//! - [`protocol`]: the typed event protocol and the ops a front end sends.
//! - [`engine`]: the orchestrator, sub-researchers, tools, budgets, models.
//! - [`evidence`]: cleaning pages, injection tripwire, identity gate, quotes.
//! - [`question`]: what kind of question was asked (it reads answer types from [`answer`]).
//! - [`answer`]: answers as values: answer types, candidate spans, the vote across sources (it imports only [`document`]).
//! - [`report`]: hygiene, citation lint, composing report.md and sources.json.
//! - [`store`]: the run directory and its writer.
//! - [`sandbox`]: sandboxed code execution (bubblewrap, the llm-sandbox sidecar).
//! - [`config`]: layered settings with provenance, model tiers.
//! - [`mcp`]: dra as a client of the user's MCP servers (rmcp); its configuration rules are in `config::mcp`.
//! - [`custom_tools`]: the user's drop-in custom tools: found, described and run (offered to the agents by `engine::tools::custom`).
//! - [`corpus`]: the offline "web" (embedded or `--corpus`), full-text search.
//! - [`embed`]: sentence embeddings (candle BERT) for search by meaning.
//! - [`skills`]: the user's skill folders (`SKILL.md`), loaded and bounded.
//! - [`mcp_server`]: dra as an MCP server (`dra mcp-serve`): research, search, fetch and runs as tools.
//! - [`app`]: the composition root: settings and inputs to a ready engine.
//! - [`document`], [`ports`]: shared vocabulary (documents; search and fetch traits).
//! - [`cli`]: commands and renderers (the only code that touches the terminal).

pub mod answer;
pub mod app;
pub mod changes;
pub mod cli;
pub mod config;
pub mod corpus;
pub mod custom_tools;
pub mod document;
pub mod embed;
pub mod engine;
pub mod evidence;
pub mod mcp;
pub mod mcp_server;
pub mod ports;
pub mod protocol;
pub mod question;
pub mod report;
pub mod sandbox;
pub mod skills;
pub mod store;
pub mod sync;
pub mod web;

/// A count and its noun, singular for one: "1 aspect", "3 aspects".
pub(crate) fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Compiles a regex literal. Patterns are constants covered by tests, so a
/// failure is a programming error caught before release.
#[expect(
    clippy::expect_used,
    reason = "patterns are constants covered by tests"
)]
pub(crate) fn re(pattern: &str) -> regex::Regex {
    regex::Regex::new(pattern).expect("static regex literal compiles")
}
