//! The tool contract: the [`Tool`] trait, what a call returns, the calling
//! agent as a tool sees it ([`AgentCx`]), one agent's [`ToolRegistry`], the
//! run's [`ToolSet`] (the skills', MCP, custom and sandbox tools that join
//! the built-ins) and every built-in tool's name ([`names`]). The tools
//! themselves live in `engine::tools`; the agent loop, the prompts and the
//! offline model need only this file.
//!
//! A built-in tool implements [`TypedTool`]: its arguments are a serde
//! struct, and the schema the model is offered is derived from that same
//! struct ([`args_schema`]), so the two cannot drift apart.
//!
//! Names are public (models and scripts rely on them): orchestrator:
//! `request_clarification`, `write_todos`, `task`, `web_search`,
//! `fetch_url`, `read_source`, `review_evidence`, `submit_report`;
//! sub-researcher: `web_search`, `fetch_url`, `read_source`,
//! `submit_findings`; both also `read_skill` when the run found any skill,
//! and `execute` when the run has a sandbox.

use crate::sync::LockExt;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use schemars::generate::SchemaSettings;
use schemars::transform::RecursiveTransform;
use schemars::{JsonSchema, Schema};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::context::RunCtx;
use super::model::ToolSpec;
use crate::evidence::Findings;
use crate::protocol::ErrorClass;
pub use crate::protocol::ToolDisplay;

/// Every built-in tool's name, spelled here once: the tools, the prompts,
/// the offline model and the renderer import it.
pub mod names {
    /// The name models call `RequestClarification` by.
    pub const REQUEST_CLARIFICATION: &str = "request_clarification";
    /// The name models call `Execute` by.
    pub const EXECUTE: &str = "execute";
    /// The name models call `FetchUrl` by.
    pub const FETCH_URL: &str = "fetch_url";
    /// The name models call `ReadSource` by.
    pub const READ_SOURCE: &str = "read_source";
    /// The name models call `ReadSkill` by.
    pub const READ_SKILL: &str = "read_skill";
    /// The name models call `ReviewEvidence` by.
    pub const REVIEW_EVIDENCE: &str = "review_evidence";
    /// The name models call `WebSearch` by.
    pub const WEB_SEARCH: &str = "web_search";
    /// The name models call `SubmitFindings` by.
    pub const SUBMIT_FINDINGS: &str = "submit_findings";
    /// The name models call `SubmitReport` by.
    pub const SUBMIT_REPORT: &str = "submit_report";
    /// The name models call `Task` by.
    pub const TASK: &str = "task";
    /// The name models call `WriteTodos` by.
    pub const WRITE_TODOS: &str = "write_todos";
}

/// Characters of a page the model sees per call.
pub const VIEW_CHARS: usize = 14_000;

/// How the summary of a locally answered repeat of a permanently failed
/// call starts (its [`ToolOutput::repeated`] is set too).
pub const REPEATED: &str = "repeated: ";

/// Where a tool comes from: what its calls are reported as, and how the
/// terminal shows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    /// One of dra's own tools.
    Builtin,
    /// A tool of a configured MCP server (calls are `mcp_call` / `mcp_result`).
    Mcp,
    /// A custom tool from the configuration.
    Custom,
}

/// A deliverable that ends an agent's loop.
#[derive(Debug, Clone)]
pub enum Deliverable {
    Report(String),
    Findings(Findings),
    /// Questions for the user; the run stops until they answer.
    Clarification(Vec<String>),
}

#[derive(Debug, Clone)]
pub struct ToolOutput {
    pub ok: bool,
    /// What the model reads.
    pub content: String,
    /// One line for the `tool_result` event.
    pub summary: String,
    pub error_class: Option<ErrorClass>,
    pub deliverable: Option<Deliverable>,
    /// A repeat of a permanently failed call, answered locally and not sent
    /// again (the result event carries `repeated: true`).
    pub repeated: bool,
}

impl ToolOutput {
    pub fn ok(content: impl Into<String>, summary: impl Into<String>) -> Self {
        ToolOutput {
            ok: true,
            content: content.into(),
            summary: summary.into(),
            error_class: None,
            deliverable: None,
            repeated: false,
        }
    }

    /// A failed call the model can fix by changing its arguments.
    pub fn permanent(message: impl Into<String>) -> Self {
        let message = message.into();
        ToolOutput {
            ok: false,
            content: format!("Error: {message}"),
            summary: message,
            error_class: Some(ErrorClass::Permanent),
            deliverable: None,
            repeated: false,
        }
    }

    /// A failed call worth one retry.
    pub fn transient(message: impl Into<String>) -> Self {
        ToolOutput {
            error_class: Some(ErrorClass::Transient),
            ..Self::permanent(message)
        }
    }
}

/// Per-agent state tools may keep between calls.
#[derive(Debug, Default)]
pub struct AgentState {
    pub findings_bounces: u32,
    pub report_bounces: u32,
    pub plan_bounces: u32,
    pub read_urls: HashSet<String>,
}

/// The calling agent, as a tool sees it.
pub struct AgentCx {
    pub run: Arc<RunCtx>,
    /// The tools the run started (one set for every agent).
    pub tools: Arc<ToolSet>,
    pub agent: String,
    /// The aspect a sub-researcher works on (empty for the orchestrator).
    pub aspect: String,
    pub state: Mutex<AgentState>,
    /// Model calls made by this agent, numbering its replay records.
    model_calls: std::sync::atomic::AtomicU64,
}

impl AgentCx {
    pub fn new(
        run: Arc<RunCtx>,
        tools: Arc<ToolSet>,
        agent: impl Into<String>,
        aspect: impl Into<String>,
    ) -> Self {
        AgentCx {
            run,
            tools,
            agent: agent.into(),
            aspect: aspect.into(),
            state: Mutex::new(AgentState::default()),
            model_calls: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Notes that this agent read a page (for itself and for the run's
    /// account of what each aspect read).
    pub fn note_read(&self, url: &str) {
        self.state().read_urls.insert(url.to_string());
        self.run.note_read(&self.aspect, url);
    }

    /// The index of this agent's next model call.
    pub fn next_model_call(&self) -> u64 {
        self.model_calls
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
    }

    pub fn state(&self) -> std::sync::MutexGuard<'_, AgentState> {
        self.state.lock_or_recover()
    }
}

#[async_trait]
pub trait Tool: Send + Sync {
    /// The name models call the tool by (its constant in [`names`]; an
    /// MCP tool's is `label__tool`, known at run time).
    fn name(&self) -> &str;
    /// Where the tool comes from (an MCP server's calls are reported as
    /// `mcp_call` / `mcp_result`).
    fn kind(&self) -> ToolKind {
        ToolKind::Builtin
    }
    /// How a terminal shows the tool's calls and results.
    fn display(&self) -> ToolDisplay {
        ToolDisplay::Default
    }
    /// Whether a successful call ends the calling agent's loop (a
    /// deliverable). Such calls never count against the tool-call budget.
    fn ends_agent(&self) -> bool {
        false
    }
    fn spec(&self) -> ToolSpec;
    async fn call(&self, args: Value, cx: &AgentCx) -> ToolOutput;
    /// Ends what the tool holds open for the run (`execute`'s sandbox
    /// session); called once, when the lead agent is done.
    async fn close(&self) {}
}

/// A built-in tool whose arguments are a typed struct: the schema the model
/// is offered is derived from [`Self::Args`] (its `///` field docs are the
/// properties' descriptions, `#[schemars(...)]` its bounds), and calls are
/// parsed into it by [`parse_args`] before [`Self::run`] sees them. Every
/// `TypedTool` is a [`Tool`].
#[async_trait]
pub trait TypedTool: Send + Sync {
    /// The name models call the tool by (its constant in [`names`]).
    const NAME: &'static str;
    /// Whether a successful call ends the calling agent's loop (see
    /// [`Tool::ends_agent`]).
    const ENDS_AGENT: bool = false;
    /// See [`Tool::display`].
    const DISPLAY: ToolDisplay = ToolDisplay::Default;
    /// The arguments, as the model sends them.
    type Args: DeserializeOwned + JsonSchema + Send;
    /// What the model is told the tool does.
    fn description(&self) -> String;
    /// Runs one call whose arguments parsed.
    async fn run(&self, cx: &AgentCx, args: Self::Args) -> ToolOutput;
    /// See [`Tool::close`].
    async fn close(&self) {}
}

#[async_trait]
impl<T: TypedTool> Tool for T {
    fn name(&self) -> &str {
        T::NAME
    }

    fn ends_agent(&self) -> bool {
        T::ENDS_AGENT
    }

    fn display(&self) -> ToolDisplay {
        T::DISPLAY
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: T::NAME.into(),
            description: self.description(),
            parameters: args_schema::<T::Args>(),
        }
    }

    async fn call(&self, args: Value, cx: &AgentCx) -> ToolOutput {
        match parse_args::<T::Args>(T::NAME, args) {
            Ok(args) => self.run(cx, args).await,
            Err(e) => e,
        }
    }

    async fn close(&self) {
        TypedTool::close(self).await;
    }
}

/// The parameter schema of a tool whose arguments are `A`, self-contained
/// (subschemas inlined: no `$ref`, no `$defs`) and shaped like the schemas
/// tools have always offered: an optional field is left out of `required`
/// rather than made nullable, no `default` (a missing field's meaning is in
/// its description), no Rust-specific `format` (`uint`), and no `$schema`,
/// `title` or top-level `description` (the tool's description speaks for
/// it). The MCP tools' cleaning ([`crate::mcp::names::clean_schema`])
/// finishes it.
pub fn args_schema<A: JsonSchema>() -> Value {
    let schema = SchemaSettings::draft2020_12()
        .with(|s| {
            s.meta_schema = None;
            s.inline_subschemas = true;
        })
        .with_transform(RecursiveTransform(plain_optional))
        .into_generator()
        .into_root_schema_for::<A>();
    let mut schema = schema.to_value();
    let Value::Object(map) = &mut schema else {
        return crate::mcp::names::clean_schema(&Default::default());
    };
    map.remove("description");
    crate::mcp::names::clean_schema(map)
}

/// One subschema as tools offer it: `Option<T>` as plain `T`, and neither
/// `default` nor `format`.
fn plain_optional(schema: &mut Schema) {
    let Some(map) = schema.as_object_mut() else {
        return;
    };
    map.remove("default");
    map.remove("format");
    let is_null = |v: &Value| v.get("type").and_then(Value::as_str) == Some("null");
    if let Some(Value::Array(types)) = map.get_mut("type") {
        types.retain(|t| t.as_str() != Some("null"));
        if let [only] = types.as_slice() {
            let only = only.clone();
            map.insert("type".into(), only);
        }
    } else if let Some(Value::Array(any_of)) = map.get("anyOf")
        && any_of.len() == 2
        && any_of.iter().any(is_null)
        && map.len() == 1
    {
        let inner = any_of.iter().find(|v| !is_null(v)).cloned();
        if let Some(Value::Object(inner)) = inner {
            *map = inner;
        }
    }
}

/// The arguments of a tool that takes none: the schema offers no property,
/// and whatever a model sends anyway is ignored, not refused.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct NoArgs {}

impl<'de> serde::Deserialize<'de> for NoArgs {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(d).map(|_| NoArgs {})
    }
}

/// Parses tool arguments into their typed form, or explains what is wrong.
/// The error is the tool's answer to the model, returned as is.
#[expect(
    clippy::result_large_err,
    reason = "the error is the tool's answer to the model, returned once per call"
)]
pub fn parse_args<T: DeserializeOwned>(tool: &str, args: Value) -> Result<T, ToolOutput> {
    let args = match args {
        // Some models send arguments as a JSON string.
        Value::String(s) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
        Value::Null => Value::Object(Default::default()),
        other => other,
    };
    serde_json::from_value(args).map_err(|e| {
        ToolOutput::permanent(format!(
            "invalid arguments for {tool}: {e}. Check the tool's parameter schema and call it again."
        ))
    })
}

/// One agent's tools, looked up by name; built once per agent.
pub struct ToolRegistry {
    tools: Vec<Arc<dyn Tool>>,
    by_name: HashMap<String, usize>,
    specs: Vec<ToolSpec>,
}

impl ToolRegistry {
    pub fn new(tools: Vec<Arc<dyn Tool>>) -> Self {
        let by_name = tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name().to_string(), i))
            .collect();
        let specs = tools.iter().map(|t| t.spec()).collect();
        ToolRegistry {
            tools,
            by_name,
            specs,
        }
    }

    /// The same tools but one (`--no-clarify` drops `request_clarification`).
    pub fn without(self, name: &str) -> Self {
        Self::new(
            self.tools
                .into_iter()
                .filter(|t| t.name() != name)
                .collect(),
        )
    }

    /// This registry with `extra` tools (a run's MCP or custom tools) after its own.
    pub fn with(self, extra: &[Arc<dyn Tool>]) -> Self {
        if extra.is_empty() {
            return self;
        }
        let mut tools = self.tools;
        tools.extend(extra.iter().cloned());
        Self::new(tools)
    }

    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.by_name.get(name).map(|&i| &self.tools[i])
    }

    /// What the model is offered, in registration order.
    pub fn specs(&self) -> &[ToolSpec] {
        &self.specs
    }

    pub fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.tools.iter().map(|t| t.name())
    }
}

/// The tools a run started (`engine::tools::ToolProvider`: its skills',
/// MCP servers', custom and sandbox tools), offered to every agent of the
/// run after its built-ins, in the providers' order.
#[derive(Default)]
pub struct ToolSet {
    tools: Vec<Arc<dyn Tool>>,
}

impl ToolSet {
    pub fn new(tools: Vec<Arc<dyn Tool>>) -> Self {
        ToolSet { tools }
    }

    /// Every tool the run started, in the order they are offered.
    pub fn tools(&self) -> &[Arc<dyn Tool>] {
        &self.tools
    }

    /// Ends what the run's tools hold open (the sandbox session).
    pub async fn close(&self) {
        for tool in &self.tools {
            tool.close().await;
        }
    }
}
