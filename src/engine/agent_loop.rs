//! The agent loop shared by the orchestrator and sub-researchers: call the
//! model, run its tool calls (concurrently), feed results back, until a
//! deliverable is accepted, the model stalls after nudges, the budget halts
//! or the run is cancelled.

use crate::sync::LockExt;
use std::sync::Arc;

use futures::future::join_all;
use serde_json::json;
use sha2::{Digest, Sha256};

use super::budget::Limit;
use super::clarifier::{answers_message, pair_answers, questions_in_prose};
use super::context::RunCtx;
use super::model::{
    ChatRequest, ChatResponse, Message, ModelNotice, ModelSink, Role, ToolCall, estimate_tokens,
};
use super::prompts;
use super::replay::ModelLookup;
use super::search_listing;
use super::tool::names::{REQUEST_CLARIFICATION, WEB_SEARCH};
use super::tool::{AgentCx, Deliverable, ToolKind, ToolOutput, ToolRegistry};
use crate::config::ModelRole;
use crate::protocol::{EventBody, MAIN_AGENT, RunMode, StatusReason, StatusState};
use crate::store::Record;

/// Nudges before a model that stops calling tools counts as stalled.
pub const MAX_NUDGES: u32 = 2;
/// Model calls one sub-researcher may make.
pub const SUBAGENT_MAX_STEPS: u64 = 40;
/// Worst-case output tokens reserved per model call.
const RESERVED_OUTPUT_TOKENS: u64 = 4096;

pub struct AgentSpec {
    pub role: ModelRole,
    pub system: String,
    pub tools: ToolRegistry,
    pub nudge: String,
}

#[derive(Debug)]
pub enum AgentEnd {
    Delivered(Deliverable),
    /// The lead answered in plain text on its first turn, calling no tool.
    DirectAnswer(String),
    /// The model stopped calling tools and ignored the nudges.
    Stalled {
        text: String,
    },
    Halted(StatusReason),
    Cancelled,
    Failed(String),
}

/// Stops the whole run for an exhausted budget, reporting it once.
pub fn halt(run: &RunCtx, limit: Limit) {
    if !run.cancel.is_cancelled() {
        run.emitter.status(
            MAIN_AGENT,
            StatusState::BudgetHalt,
            Some(limit.into()),
            Some(limit_detail(run, limit)),
        );
    }
    run.cancel.cancel(StatusReason::BudgetExhausted);
}

fn limit_detail(run: &RunCtx, limit: Limit) -> String {
    let l = run.budget.limits();
    let s = run.budget.spent();
    match limit {
        Limit::ToolCalls => format!("tool calls {} of {}", s.tool_calls, l.max_tool_calls),
        Limit::Tokens => format!("tokens {} of {}", s.tokens, l.max_total_tokens),
        Limit::Usd => format!(
            "{} of {}",
            crate::engine::budget::dollars(s.usd),
            crate::engine::budget::dollars(l.max_usd)
        ),
        Limit::Deadline => format!(
            "{:.0}s of {:.0}s",
            run.budget.elapsed().as_secs_f64(),
            l.deadline.as_secs_f64()
        ),
        Limit::Steps => format!("orchestrator steps {} of {}", s.steps, l.max_steps),
    }
}

pub async fn run_agent(cx: Arc<AgentCx>, spec: AgentSpec, user: String) -> AgentEnd {
    let run = cx.run.clone();
    let is_main = cx.agent == MAIN_AGENT;
    let mut messages = vec![Message::system(spec.system.clone()), Message::user(user)];
    let mut nudges = 0;
    let mut index: u64 = 0;
    loop {
        if run.cancel.is_cancelled() {
            return AgentEnd::Cancelled;
        }
        if is_main {
            if let Err(e) = run.budget.reserve_step() {
                halt(&run, e.0);
                return AgentEnd::Halted(e.0.into());
            }
        } else if index >= SUBAGENT_MAX_STEPS {
            return AgentEnd::Failed(format!("gave up after {SUBAGENT_MAX_STEPS} model calls"));
        }
        let request = ChatRequest {
            role: spec.role,
            messages: messages.clone(),
            tools: spec.tools.specs().to_vec(),
        };
        let response = match call_model(&cx, &request).await {
            Ok(r) => r,
            Err(end) => return end,
        };
        index += 1;

        if response.tool_calls.is_empty() {
            if is_main && index == 1 && nudges == 0 {
                let text = response.content.trim();
                let questions = questions_in_prose(text);
                let may_ask = spec.tools.get(REQUEST_CLARIFICATION).is_some();
                if may_ask && !questions.is_empty() && !narrates_a_plan(text) {
                    // Questions in prose instead of the tool: the same event, the same stop.
                    run.emitter.emit(
                        &cx.agent,
                        EventBody::Clarification {
                            questions: questions.clone(),
                        },
                    );
                    if let Some(answers) = answers_for(&cx, &questions).await {
                        messages.push(Message::assistant(response.content.clone(), vec![]));
                        messages.push(Message::user(answers_message(&pair_answers(
                            &questions, &answers,
                        ))));
                        continue;
                    }
                    return AgentEnd::Delivered(Deliverable::Clarification(questions));
                }
                if !text.is_empty() && !narrates_a_plan(text) {
                    return AgentEnd::DirectAnswer(text.to_string());
                }
            }
            if nudges < MAX_NUDGES {
                nudges += 1;
                let mut assistant = Message::assistant(response.content.clone(), vec![]);
                assistant.reasoning = response.thinking.clone();
                messages.push(assistant);
                messages.push(Message::user(spec.nudge.clone()));
                continue;
            }
            return AgentEnd::Stalled {
                text: response.content,
            };
        }
        let mut assistant =
            Message::assistant(response.content.clone(), response.tool_calls.clone());
        // Some providers (DeepSeek) refuse the next turn without their reasoning sent back.
        assistant.reasoning = response.thinking.clone();
        messages.push(assistant);
        let outputs = join_all(
            response
                .tool_calls
                .iter()
                .map(|call| execute(&cx, &spec.tools, call)),
        )
        .await;
        let mut delivered = None;
        let earlier = messages.len();
        for (call, out) in response.tool_calls.iter().zip(outputs) {
            messages.push(Message::tool(call, out.content.clone()));
            if delivered.is_none() {
                delivered = out.deliverable;
            }
        }
        // A new search makes the snippets of the earlier ones spent: they
        // travel on as titles and URLs only.
        if response.tool_calls.iter().any(|c| c.name == WEB_SEARCH) {
            for m in &mut messages[..earlier] {
                if m.role == Role::Tool
                    && m.name.as_deref() == Some(WEB_SEARCH)
                    && let Some(d) = search_listing::digest(&m.content, &cx.run.spotlight)
                {
                    m.content = d;
                }
            }
        }
        if let Some(Deliverable::Clarification(questions)) = &delivered
            && is_main
            && let Some(answers) = answers_for(&cx, questions).await
        {
            messages.push(Message::user(answers_message(&pair_answers(
                questions, &answers,
            ))));
            continue;
        }
        if let Some(d) = delivered {
            return AgentEnd::Delivered(d);
        }
        // Answers to clarifying questions come back as the user's message.
        if is_main && let Some(reply) = run.clarify.take_reply() {
            messages.push(Message::user(reply));
        }
        if run.cancel.is_cancelled() {
            return AgentEnd::Cancelled;
        }
        if let Some(limit) = run.budget.soft_crossed() {
            run.emitter.status(
                MAIN_AGENT,
                StatusState::BudgetSoft,
                Some(limit.into()),
                Some(limit_detail(&run, limit)),
            );
            messages.push(Message::user(prompts::WRAP_UP));
        }
    }
}

/// Answers to a clarification, if the run has them: given in an earlier
/// invocation (replayed), or waiting from `--answer`/`--answers` (then an
/// event and a record). `None` ends the run awaiting the user.
async fn answers_for(cx: &AgentCx, questions: &[String]) -> Option<Vec<String>> {
    let run = &cx.run;
    if let Some(replay) = run.replay.as_deref()
        && let Some(answers) = replay.answers(&cx.agent, questions)
    {
        return Some(answers);
    }
    if let Some(replay) = run.replay.as_deref() {
        replay.go_live(&cx.agent);
    }
    let mut answers = run.answers.lock_or_recover().pop_front()?;
    answers.resize(questions.len(), String::new());
    run.emitter.emit(
        &cx.agent,
        EventBody::ClarificationAnswered {
            answers: pair_answers(questions, &answers),
        },
    );
    run.emitter
        .record(Record::ClarificationAnswers {
            agent: cx.agent.clone(),
            questions: questions.to_vec(),
            answers: answers.clone(),
        })
        .await;
    Some(answers)
}

/// Turns a model client's notices into events.
struct LoopSink {
    run: Arc<RunCtx>,
    agent: String,
    model: String,
}

impl ModelSink for LoopSink {
    fn notice(&self, notice: ModelNotice) {
        match notice {
            ModelNotice::Retry {
                attempt,
                delay_ms,
                reason,
            } => self.run.emitter.emit(
                &self.agent,
                EventBody::Retry {
                    model: self.model.clone(),
                    attempt,
                    delay_ms,
                    reason,
                },
            ),
            ModelNotice::Fallback { detail } => self.run.emitter.warning(
                &self.agent,
                crate::protocol::WarningCode::ModelFallback,
                detail,
            ),
            // Streamed reasoning is emitted whole when the call completes.
            ModelNotice::ThinkingDelta(_) => {}
        }
    }
}

/// One model call with everything around it: the budget reservation, the
/// cancellation race, metering, the replay record and the thinking event.
/// The error is how the calling agent ends.
pub async fn call_model(cx: &AgentCx, request: &ChatRequest) -> Result<ChatResponse, AgentEnd> {
    let run = &cx.run;
    let model = run.models.for_role(request.role).clone();
    let slot = *run.settings.tier.slot(request.role);
    let request_json = serde_json::to_string(request).unwrap_or_default();
    let est_in = estimate_tokens(&request_json);
    let est_usd = match run.mode {
        RunMode::Offline => 0.0,
        RunMode::Online => slot.cost(est_in, RESERVED_OUTPUT_TOKENS, 0),
    };
    let hold = match run
        .budget
        .reserve_model_call(est_in + RESERVED_OUTPUT_TOKENS, est_usd)
    {
        Ok(h) => h,
        Err(e) => {
            halt(run, e.0);
            return Err(AgentEnd::Halted(e.0.into()));
        }
    };
    let index = cx.next_model_call();
    let request_digest = format!("{:x}", Sha256::digest(request_json.as_bytes()));
    let recorded = match run.replay.as_deref() {
        Some(replay) => match replay.model_call(&cx.agent, index, &request_digest) {
            ModelLookup::Hit(r) => Some(*r),
            ModelLookup::Diverged => {
                run.emitter.warning(
                    &cx.agent,
                    crate::protocol::WarningCode::ReplayDiverged,
                    format!("model call {index} differs from the recorded one; it is made again, and so is the rest of this agent's work"),
                );
                None
            }
            ModelLookup::Miss => None,
        },
        None => None,
    };
    let replayed = recorded.is_some();
    let response = match recorded {
        Some(r) => r,
        None => {
            let sink = LoopSink {
                run: run.clone(),
                agent: cx.agent.clone(),
                model: model.slug().to_string(),
            };
            tracing::debug!(agent = %cx.agent, model = %model.slug(), messages = request.messages.len(), "model call");
            let response = tokio::select! {
                r = model.complete(request, &sink) => r,
                _ = run.cancel.cancelled() => {
                    run.budget.settle(hold, 0, 0.0);
                    return Err(AgentEnd::Cancelled);
                }
            };
            match response {
                Ok(r) => r,
                Err(e) => {
                    run.budget.settle(hold, 0, 0.0);
                    return Err(AgentEnd::Failed(e.to_string()));
                }
            }
        }
    };
    let mut usage = response.usage;
    if usage.total() == 0 {
        usage.input_tokens = est_in;
        usage.output_tokens = estimate_tokens(&response.content)
            + estimate_tokens(&serde_json::to_string(&response.tool_calls).unwrap_or_default());
    }
    let cost = match run.mode {
        RunMode::Offline => 0.0,
        RunMode::Online => slot.cost(
            usage.input_tokens,
            usage.output_tokens,
            usage.cached_input_tokens,
        ),
    };
    run.budget.settle(hold, usage.total(), cost);
    run.meter.add(&response.model, usage, cost);
    if let Some(t) = response
        .thinking
        .as_deref()
        .filter(|t| !t.trim().is_empty())
    {
        run.emitter.emit(
            &cx.agent,
            EventBody::Thinking {
                text: t.to_string(),
            },
        );
    }
    // The checkpoint (a replayed call is recorded already).
    if !replayed {
        run.emitter
            .record(Record::ModelCall {
                agent: cx.agent.clone(),
                index,
                request_digest,
                model: response.model.clone(),
                response: serde_json::to_value(&response).unwrap_or(json!(null)),
            })
            .await;
    }
    Ok(response)
}

/// A model that describes what it is about to do instead of doing it
/// ("I'll search for...") has not answered; it gets nudged.
fn narrates_a_plan(text: &str) -> bool {
    let lower = text.to_lowercase();
    [
        "i will ",
        "i'll ",
        "let me ",
        "i am going to ",
        "i'm going to ",
        "first, i",
        "next, i",
        "i need to ",
        "i should ",
    ]
    .iter()
    .any(|p| lower.contains(p))
}

async fn execute(cx: &AgentCx, tools: &ToolRegistry, call: &ToolCall) -> ToolOutput {
    let run = &cx.run;
    let id = format!("{}:{}", cx.agent, call.id);
    let Some(tool) = tools.get(&call.name) else {
        let names: Vec<&str> = tools.names().collect();
        return ToolOutput::permanent(format!(
            "unknown tool {:?}; available tools: {}",
            call.name,
            names.join(", ")
        ));
    };
    if !tool.ends_agent()
        && let Err(e) = run.budget.reserve_tool_call()
    {
        halt(run, e.0);
        return ToolOutput::permanent("the run's budget is exhausted; no more tool calls");
    }
    let mcp = tool.kind() == ToolKind::Mcp;
    let display = tool.display();
    let (tool_id, tool_name, tool_args) = (id.clone(), call.name.clone(), call.arguments.clone());
    run.emitter.emit(
        &cx.agent,
        if mcp {
            EventBody::McpCall {
                id: tool_id,
                tool: tool_name,
                args: tool_args,
            }
        } else {
            EventBody::ToolCall {
                id: tool_id,
                tool: tool_name,
                args: tool_args,
                display,
            }
        },
    );
    tracing::debug!(agent = %cx.agent, tool = %call.name, "tool call");
    let out = tool.call(call.arguments.clone(), cx).await;
    // On resume the tool ran again on recorded searches and fetches, which
    // rebuilds its state; a result with no record (it was in flight) or a
    // different one makes the agent live.
    let replayed = match run.replay.as_deref() {
        Some(replay) => match replay.tool_result(&cx.agent, &call.id) {
            Some(recorded) if recorded == out.content => true,
            _ => {
                replay.go_live(&cx.agent);
                false
            }
        },
        None => false,
    };
    let (tool, ok, summary, error_class) = (
        call.name.clone(),
        out.ok,
        out.summary.clone(),
        out.error_class,
    );
    // A repeat of a permanently failed call answered locally (MCP and
    // custom tools) says so.
    let repeated = out.repeated.then_some(true);
    run.emitter.emit(
        &cx.agent,
        if mcp {
            EventBody::McpResult {
                id,
                tool,
                ok,
                repeated,
                summary,
                error_class,
            }
        } else {
            EventBody::ToolResult {
                id,
                tool,
                ok,
                summary,
                error_class,
                repeated,
                display,
            }
        },
    );
    // The checkpoint (a replayed result is recorded already). A transient
    // failure is no completed call: a resumed run makes it again.
    if !replayed && out.error_class != Some(crate::protocol::ErrorClass::Transient) {
        run.emitter
            .record(Record::ToolResult {
                agent: cx.agent.clone(),
                call_id: call.id.clone(),
                tool: call.name.clone(),
                args: call.arguments.clone(),
                ok: out.ok,
                result: out.content.clone(),
            })
            .await;
    }
    out
}
