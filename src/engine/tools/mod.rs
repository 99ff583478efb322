//! The built-in tools, one file each, and the tools a run starts through
//! its [`ToolProvider`]s (the skills' `read_skill`, the MCP servers', the
//! custom ones, the sandbox's `execute`): [`start`] puts the run's
//! [`ToolSet`] together, [`for_orchestrator`] and [`for_subresearcher`]
//! each agent's registry. The contract the tools implement, and their
//! names, are `engine::tool`.
//!
//! Adding a tool: a new file with its `TypedTool` impl (arguments a serde
//! struct deriving `JsonSchema`: the schema is derived from it), its name in
//! `tool::names`, and one line in the agent's list below. A tool offered
//! only sometimes is a [`ToolProvider`] instead: its file, its name, and
//! one row in [`PROVIDERS`].

pub mod clarify;
pub mod custom;
pub mod execute;
mod fetch;
pub mod mcp;
pub mod read_skill;
mod review;
mod search;
pub(crate) mod submit;
mod task;
mod todos;
mod tool_source;
mod untrusted;

use std::collections::HashSet;
use std::sync::Arc;

use async_trait::async_trait;

pub use clarify::RequestClarification;
pub use fetch::{FetchUrl, ReadSource};
pub use read_skill::ReadSkill;
pub use review::ReviewEvidence;
pub use search::WebSearch;
pub use submit::{SubmitFindings, SubmitReport};
pub use task::Task;
pub use todos::WriteTodos;

use super::clarifier::ClarifyMode;
use super::context::RunCtx;
use super::tool::names::REQUEST_CLARIFICATION;
use super::tool::{AgentCx, Tool, ToolRegistry, ToolSet};

/// A kind of tool the run starts rather than always has (a plug-in
/// point): it looks at the run and its settings once, at run start, and
/// offers its tools (perhaps none) to every agent of the run after their
/// built-ins. What a tool holds open ends with [`Tool::close`] when the
/// research ends ([`ToolSet::close`]).
#[async_trait]
pub trait ToolProvider: Send + Sync {
    /// This provider's tools for the run (its settings are
    /// `run.settings`). `taken` holds every name already offered
    /// (lower-case): a tool whose own name is taken is renamed, and each
    /// name offered is added.
    async fn start(&self, run: &Arc<RunCtx>, taken: &mut HashSet<String>) -> Vec<Arc<dyn Tool>>;

    /// The names of dra's own tools this provider may offer: no other
    /// started tool takes them, offered or not.
    fn reserves(&self) -> &'static [&'static str] {
        &[]
    }
}

/// Every tool provider, in the order their tools are started and offered:
/// the skills' reader, the MCP servers', the custom ones (after MCP: their
/// names keep clear of the servers' tools), the sandbox's `execute`.
static PROVIDERS: &[&dyn ToolProvider] = &[
    &read_skill::Skills,
    &mcp::Servers,
    &custom::Folder,
    &execute::Sandboxed,
];

/// Starts every provider's tools for the run.
pub async fn start(run: &Arc<RunCtx>) -> Arc<ToolSet> {
    let mut taken = reserved_names();
    let mut tools = Vec::new();
    for provider in PROVIDERS {
        tools.extend(provider.start(run, &mut taken).await);
    }
    Arc::new(ToolSet::new(tools))
}

/// The names no started tool may take: every agent's built-ins and dra's
/// own tools a provider may offer.
fn reserved_names() -> HashSet<String> {
    orchestrator_builtins()
        .names()
        .chain(subresearcher_builtins().names())
        .chain(PROVIDERS.iter().flat_map(|p| p.reserves().iter().copied()))
        .map(str::to_ascii_lowercase)
        .collect()
}

/// The lead agent's tools in this run: its built-ins (asking for
/// clarification only when it may), then the run's.
pub fn for_orchestrator(cx: &AgentCx, clarify: ClarifyMode) -> ToolRegistry {
    let builtins = match clarify {
        ClarifyMode::Never => orchestrator_builtins().without(REQUEST_CLARIFICATION),
        ClarifyMode::Stop | ClarifyMode::Wait => orchestrator_builtins(),
    };
    builtins.with(cx.tools.tools())
}

/// A sub-researcher's tools in this run: its built-ins, then the run's.
pub fn for_subresearcher(cx: &AgentCx) -> ToolRegistry {
    subresearcher_builtins().with(cx.tools.tools())
}

/// The orchestrator's built-in tools.
fn orchestrator_builtins() -> ToolRegistry {
    ToolRegistry::new(vec![
        Arc::new(RequestClarification),
        Arc::new(WriteTodos),
        Arc::new(Task),
        Arc::new(WebSearch),
        Arc::new(FetchUrl),
        Arc::new(ReadSource),
        Arc::new(ReviewEvidence),
        Arc::new(SubmitReport),
    ])
}

/// A sub-researcher's built-in tools.
fn subresearcher_builtins() -> ToolRegistry {
    ToolRegistry::new(vec![
        Arc::new(WebSearch),
        Arc::new(FetchUrl),
        Arc::new(ReadSource),
        Arc::new(SubmitFindings),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::tool::{TypedTool, args_schema, names, parse_args};
    use serde_json::{Value, json};

    #[test]
    fn each_tool_is_found_by_the_name_it_offers() {
        for registry in [orchestrator_builtins(), subresearcher_builtins()] {
            for spec in registry.specs() {
                let tool = registry.get(&spec.name).map(|t| t.name());
                assert_eq!(tool, Some(spec.name.as_str()));
            }
            let unique: std::collections::HashSet<&str> = registry.names().collect();
            assert_eq!(unique.len(), registry.names().count(), "duplicate names");
        }
        let sub = subresearcher_builtins();
        assert!(sub.get(names::SUBMIT_REPORT).is_none());
        assert!(
            sub.get(names::SUBMIT_FINDINGS)
                .is_some_and(|t| t.ends_agent())
        );
        assert!(!sub.get(names::WEB_SEARCH).is_some_and(|t| t.ends_agent()));
    }

    /// A value `schema` accepts: its first enum value, the shortest string
    /// or array it allows, its minimum, an object with every property.
    fn sample(schema: &Value) -> Value {
        if let Some(first) = schema.get("enum").and_then(|e| e.get(0)) {
            return first.clone();
        }
        let at_least = |key: &str| schema.get(key).and_then(Value::as_u64).unwrap_or(1);
        match schema["type"].as_str() {
            Some("string") => Value::String("x".repeat(at_least("minLength") as usize)),
            Some("integer") => json!(at_least("minimum")),
            Some("boolean") => json!(true),
            Some("array") => Value::Array(vec![
                sample(&schema["items"]);
                at_least("minItems") as usize
            ]),
            Some("object") => Value::Object(
                schema["properties"]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(k, v)| (k.clone(), sample(v)))
                    .collect(),
            ),
            other => panic!("no sample for type {other:?} in {schema}"),
        }
    }

    fn keys_anywhere(v: &Value, found: &mut Vec<String>) {
        match v {
            Value::Object(m) => m.iter().for_each(|(k, child)| {
                found.push(k.clone());
                keys_anywhere(child, found);
            }),
            Value::Array(items) => items.iter().for_each(|i| keys_anywhere(i, found)),
            _ => {}
        }
    }

    /// A built-in tool's derived schema: a self-contained object schema
    /// whose `required` is exactly the fields serde will not default
    /// (dropping each property in turn from a full call tells which).
    fn check<T: TypedTool>() -> &'static str {
        let schema = args_schema::<T::Args>();
        let name = T::NAME;
        assert_eq!(schema["type"], "object", "{name}: {schema}");
        let mut keys = Vec::new();
        keys_anywhere(&schema, &mut keys);
        for bad in ["$ref", "$defs", "definitions", "$schema"] {
            assert!(!keys.iter().any(|k| k == bad), "{name} has {bad}: {schema}");
        }
        let full = sample(&schema);
        if let Err(e) = parse_args::<T::Args>(name, full.clone()) {
            panic!("{name}: a call with every property fails: {}", e.content);
        }
        let mut needed: Vec<String> = Vec::new();
        for property in full.as_object().into_iter().flat_map(|m| m.keys()) {
            let mut call = full.clone();
            call.as_object_mut().unwrap().remove(property);
            if let Err(e) = parse_args::<T::Args>(name, call) {
                let missing = format!("missing field `{property}`");
                assert!(e.content.contains(&missing), "{name}: {}", e.content);
                needed.push(property.clone());
            }
        }
        let mut required: Vec<String> = schema["required"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| r.as_str().unwrap().to_string())
            .collect();
        required.sort();
        needed.sort();
        assert_eq!(
            required, needed,
            "{name}: required vs fields without a default"
        );
        name
    }

    #[test]
    fn every_builtin_schema_is_derived_whole_and_requires_what_serde_requires() {
        let checked: std::collections::BTreeSet<&str> = [
            check::<RequestClarification>(),
            check::<WriteTodos>(),
            check::<Task>(),
            check::<WebSearch>(),
            check::<FetchUrl>(),
            check::<ReadSource>(),
            check::<ReviewEvidence>(),
            check::<SubmitReport>(),
            check::<SubmitFindings>(),
            check::<ReadSkill>(),
            check::<execute::Execute>(),
        ]
        .into();
        let builtins = orchestrator_builtins();
        let sub = subresearcher_builtins();
        let offered: std::collections::BTreeSet<&str> = builtins
            .names()
            .chain(sub.names())
            .chain(PROVIDERS.iter().flat_map(|p| p.reserves().iter().copied()))
            .collect();
        assert_eq!(checked, offered);
    }
}
