//! Planning and the orchestrator's turns: aspects from the question, one
//! task per aspect, the merged review, then the report.

use serde_json::{Value, json};

use super::transcript::{Transcript, anchors_of, field, unwrap_spotlight};
use crate::engine::clarifier::parse_answers;
use crate::engine::model::{Message, Role};
use crate::engine::prompts;
use crate::engine::subresearcher::aspect_of;
use crate::engine::tool::names::{
    READ_SKILL, REQUEST_CLARIFICATION, REVIEW_EVIDENCE, SUBMIT_REPORT, TASK, WRITE_TODOS,
};
use crate::evidence::Findings;
use crate::question;
use crate::report;
use crate::report::evidence_view::FieldView;

/// Aspects to research, from the question alone (see [`question::decompose`]).
pub fn plan_aspects(question: &str, entity: Option<&str>) -> Vec<String> {
    question::decompose(question, entity).aspects
}

/// One turn of the lead: its thinking, its tool calls, and plain text
/// (only when it answers without researching).
pub(super) struct LeadTurn {
    pub thinking: String,
    pub calls: Vec<(&'static str, Value)>,
    pub content: String,
}

/// The lead's turn over the whole transcript. When to ask (the rule is
/// [`question::unclear`]'s, read from the question alone): on the first
/// turn, for greetings, one-word inputs, a comparison without two items and
/// a pronoun subject with no proper name; and once every aspect came back
/// without a verified finding (the subject matches nothing in the sources).
/// It asks at most once per run. Answers fold into the question and the
/// research starts over from them. When it may not ask (`--no-clarify`),
/// it researches anyway and states its assumption in the report; a request
/// with nothing to research at all gets a plain answer saying so.
pub(super) fn lead_turn(messages: &[Message], can_ask: bool) -> LeadTurn {
    let full = Transcript::read(messages);
    let asked = full.called(REQUEST_CLARIFICATION).last();
    let Some(asked) = asked else {
        return orchestrator_turn_with(&full, Asking::Allowed(can_ask));
    };
    // The answers: the first user message after the clarification call.
    let questions: Vec<String> = asked
        .args
        .get("questions")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    let call_at = messages.iter().rposition(|m| {
        m.role == Role::Assistant && m.tool_calls.iter().any(|c| c.name == REQUEST_CLARIFICATION)
    });
    let reply = call_at.and_then(|i| {
        messages[i..]
            .iter()
            .position(|m| m.role == Role::User)
            .map(|j| i + j)
    });
    let (Some(reply_at), Some(answers)) = (
        reply,
        reply.and_then(|j| parse_answers(&messages[j].content, &questions)),
    ) else {
        return orchestrator_turn_with(&full, Asking::Done);
    };
    // The research starts over from the question the user meant.
    let question = field(full.user, prompts::label::RESEARCH_QUESTION).unwrap_or(full.user);
    let meant = question::fold_answers(question, &answers);
    let anchors = crate::engine::entity::complete_anchors(&meant, &anchors_of(full.user));
    let today = field(full.user, prompts::label::TODAY).unwrap_or("");
    // The system prompt stays (it lists the skills).
    let mut view: Vec<Message> = messages
        .iter()
        .filter(|m| m.role == Role::System)
        .cloned()
        .collect();
    view.push(Message::user(prompts::orchestrator_user(
        &meant,
        &anchors,
        today,
        &[],
        "",
    )));
    view.extend(messages[reply_at + 1..].iter().cloned());
    orchestrator_turn_with(&Transcript::read(&view), Asking::Done)
}

/// Whether this turn may still ask.
#[derive(Clone, Copy)]
enum Asking {
    Allowed(bool),
    /// Asked already (answered or not): never again in this run.
    Done,
}

fn ask(unclear: &question::Unclear) -> LeadTurn {
    let questions = unclear.questions();
    LeadTurn {
        thinking: format!(
            "The request is unclear ({unclear:?}); asking {} question(s) before researching.",
            questions.len()
        ),
        calls: vec![(REQUEST_CLARIFICATION, json!({ "questions": questions }))],
        content: String::new(),
    }
}

fn turn(thinking: String, calls: Vec<(&'static str, Value)>) -> LeadTurn {
    LeadTurn {
        thinking,
        calls,
        content: String::new(),
    }
}

/// The lead's turn with no clarification in play (tests use it directly).
#[cfg(test)]
pub(super) fn orchestrator_turn(t: &Transcript) -> (String, Vec<(&'static str, Value)>) {
    let r = orchestrator_turn_with(t, Asking::Allowed(false));
    (r.thinking, r.calls)
}

fn orchestrator_turn_with(t: &Transcript, asking: Asking) -> LeadTurn {
    let question = field(t.user, prompts::label::RESEARCH_QUESTION)
        .unwrap_or(t.user)
        .to_string();
    let anchors = anchors_of(t.user);
    let unclear = question::unclear(&question, anchors.name.as_deref());
    if t.calls.is_empty()
        && let Some(u) = &unclear
    {
        match asking {
            Asking::Allowed(true) => return ask(u),
            Asking::Allowed(false) | Asking::Done if !u.researchable() => {
                return LeadTurn {
                    thinking: "Nothing to research, and no question may be asked.".into(),
                    calls: vec![],
                    content: format!(
                        "Nothing to research: \u{201c}{}\u{201d} names no company, product or topic. Ask a question that names one, for example: dra ask \"Who leads Acme Corp, and how is it funded?\"",
                        question.trim()
                    ),
                };
            }
            _ => {}
        }
    }
    // A skill of the user's that plainly fits the question is read first, once.
    if t.called(READ_SKILL).next().is_none()
        && t.called(WRITE_TODOS).next().is_none()
        && let Some((name, why)) = prompts::chosen_skill(t.system)
            .map(|n| (n, "the user chose it"))
            .or_else(|| {
                super::skill::skill_for(&prompts::skills_listed(t.system), &question)
                    .map(|n| (n, "it fits this question"))
            })
    {
        return turn(
            format!("The skill {name}: {why}; reading it before planning."),
            vec![(READ_SKILL, json!({ "name": name }))],
        );
    }
    let plans: Vec<_> = t.called(WRITE_TODOS).collect();
    // A plan sent back is written again (once): the deterministic plan is
    // the best this model has.
    let bounced = plans
        .last()
        .is_some_and(|c| c.result.is_some_and(|r| r.starts_with("Error")));
    let todos_call = plans.last().filter(|_| !bounced || plans.len() >= 2);
    let Some(todos_call) = todos_call else {
        let asked = question::decompose(&question, anchors.name.as_deref());
        let skills: Vec<&str> = t
            .called(READ_SKILL)
            .filter_map(|c| c.result)
            .map(unwrap_spotlight)
            .collect();
        let aspects = super::skill::plan_with_skills(&skills, asked);
        let todos: Vec<Value> = aspects
            .iter()
            .map(|a| json!({"content": a, "status": "pending"}))
            .collect();
        return turn(
            format!(
                "Planning {} aspect(s) from the question: {}.",
                aspects.len(),
                aspects.join("; ")
            ),
            vec![(WRITE_TODOS, json!({ "todos": todos }))],
        );
    };
    let aspects: Vec<String> = todos_call
        .args
        .get("todos")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|t| t.get("content").and_then(Value::as_str).or(t.as_str()))
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    if t.called(TASK).next().is_none() {
        let calls = aspects
            .iter()
            .map(|a| {
                (
                    TASK,
                    json!({"description": prompts::task_description(a, &question, &anchors), "subagent_type": "researcher"}),
                )
            })
            .collect();
        return turn(
            format!("Delegating {} aspect(s) in parallel.", aspects.len()),
            calls,
        );
    }
    let units: Vec<Findings> = t
        .called(TASK)
        .map(|c| {
            let aspect = c
                .args
                .get("description")
                .and_then(Value::as_str)
                .map(aspect_of)
                .unwrap_or_default();
            let mut f: Findings = c
                .result
                .and_then(|r| serde_json::from_str(unwrap_spotlight(r)).ok())
                .unwrap_or_default();
            if f.aspect.is_empty() {
                f.aspect = aspect;
            }
            f
        })
        .collect();
    let n: usize = units.iter().map(|u| u.findings.len()).sum();
    // Nothing verified in any aspect: the subject matches nothing in the
    // sources. Ask which one was meant (once).
    // (Researchers that read pages about the question and say they do not
    // answer it are not asking about the subject: the report says so.)
    let said_unanswered = units.iter().any(|u| u.answered == Some(false));
    if n == 0
        && !said_unanswered
        && matches!(asking, Asking::Allowed(true))
        && t.called(REVIEW_EVIDENCE).next().is_none()
    {
        let subject = anchors
            .name
            .clone()
            .unwrap_or_else(|| question.trim().trim_end_matches('?').to_string());
        return ask(&question::Unclear::NothingFound(subject));
    }
    // Before writing, the merged view of the evidence.
    let Some(review) = t.called(REVIEW_EVIDENCE).last() else {
        return turn(
            "Reviewing the merged evidence before writing.".to_string(),
            vec![(REVIEW_EVIDENCE, json!({}))],
        );
    };
    let merged: Vec<FieldView> = review
        .result
        .and_then(|r| serde_json::from_str::<Value>(unwrap_spotlight(r)).ok())
        .and_then(|v| serde_json::from_value(v["fields"].clone()).ok())
        .unwrap_or_default();
    let mut markdown =
        report::draft_from_merged(&question, anchors.name.as_deref(), &units, &merged);
    // Researched without asking: say what was assumed.
    if let (Some(u), Asking::Allowed(false)) = (&unclear, asking) {
        markdown = with_assumption(&markdown, &u.assumption());
    }
    turn(
        format!("Writing the report from {n} verified finding(s)."),
        vec![(SUBMIT_REPORT, json!({ "markdown": markdown }))],
    )
}

/// The report with an "Assumptions" line after its question line (or its
/// title, or at the top).
fn with_assumption(markdown: &str, assumption: &str) -> String {
    let line = format!("**Assumptions:** {assumption}\n\n");
    let at = markdown
        .find("**Question:**")
        .or_else(|| markdown.starts_with('#').then_some(0))
        .and_then(|p| markdown[p..].find("\n\n").map(|e| p + e + 2));
    match at {
        Some(at) => format!("{}{line}{}", &markdown[..at], &markdown[at..]),
        None => format!("{line}{markdown}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::Message;

    #[test]
    fn plans_enumerated_aspects() {
        let a = plan_aspects(
            "Is PadmaPay (Kochi, India) a reliable payment-gateway partner for our D2C startup today? Check leadership, licence status, funding, reliability, security incidents, pricing and merchant sentiment.",
            Some("PadmaPay"),
        );
        assert_eq!(
            a,
            vec![
                "leadership",
                "licence status",
                "funding",
                "reliability",
                "security incidents",
                "pricing",
                "merchant sentiment"
            ]
        );
    }

    #[test]
    fn plans_a_checklist_for_diligence_and_the_core_otherwise() {
        assert_eq!(
            plan_aspects("Is Acme a reliable vendor?", Some("Acme")).len(),
            6
        );
        assert_eq!(
            plan_aspects("Who runs Acme Corp?", Some("Acme Corp")),
            vec!["Who runs Acme Corp"]
        );
    }

    /// The whole planner turn (plan, then delegation) on any question: it
    /// never panics, and every aspect becomes one task.
    fn plan_and_delegate(q: &str) -> Result<(), proptest::test_runner::TestCaseError> {
        use crate::engine::model::{Message, ToolCall};
        let user = Message::user(crate::engine::prompts::orchestrator_user(
            q,
            &crate::engine::entity::complete_anchors(q, &Default::default()),
            "2026-11-29",
            &[],
            "",
        ));
        let first = [user.clone()];
        // Nothing to research (a greeting, punctuation): a plain answer.
        // (An empty question never reaches the model: `dra ask` refuses it.)
        if !q.trim().is_empty() && question::unclear(q, None).is_some_and(|u| !u.researchable()) {
            let t = lead_turn(&first, false);
            proptest::prop_assert!(t.calls.is_empty());
            proptest::prop_assert!(t.content.starts_with("Nothing to research"));
            let t = lead_turn(&first, true);
            proptest::prop_assert_eq!(t.calls[0].0, REQUEST_CLARIFICATION);
            return Ok(());
        }
        let (_, calls) = orchestrator_turn(&Transcript::read(&first));
        proptest::prop_assert_eq!(calls.len(), 1);
        proptest::prop_assert_eq!(calls[0].0, WRITE_TODOS);
        let n = calls[0].1["todos"].as_array().map_or(0, Vec::len);
        proptest::prop_assert!(n >= 1);
        let call = ToolCall {
            id: "c1".into(),
            name: WRITE_TODOS.into(),
            arguments: calls[0].1.clone(),
        };
        let second = [
            user,
            Message::assistant("", vec![call.clone()]),
            Message::tool(&call, "Plan recorded."),
        ];
        let (_, calls) = orchestrator_turn(&Transcript::read(&second));
        proptest::prop_assert_eq!(calls.len(), n);
        proptest::prop_assert!(calls.iter().all(|(name, _)| *name == TASK));
        Ok(())
    }

    fn lead_user(q: &str) -> Message {
        Message::user(crate::engine::prompts::orchestrator_user(
            q,
            &crate::engine::entity::complete_anchors(q, &Default::default()),
            "2026-11-29",
            &[],
            "",
        ))
    }

    #[test]
    fn asks_first_when_the_subject_is_a_pronoun() {
        let t = lead_turn(&[lead_user("Is it reliable?")], true);
        assert_eq!(t.calls.len(), 1);
        assert_eq!(t.calls[0].0, REQUEST_CLARIFICATION);
        assert_eq!(
            t.calls[0].1["questions"][0],
            "Which company or product do you mean by \u{201c}it\u{201d}?"
        );
        // Not offered the tool: it plans instead.
        let t = lead_turn(&[lead_user("Is it reliable?")], false);
        assert_eq!(t.calls[0].0, WRITE_TODOS);
    }

    #[test]
    fn answers_fold_into_a_new_plan_about_the_named_company() {
        use crate::engine::clarifier::{answers_message, pair_answers};
        use crate::engine::model::ToolCall;
        let ask = lead_turn(&[lead_user("Is it reliable?")], true);
        let call = ToolCall {
            id: "call_1_1".into(),
            name: REQUEST_CLARIFICATION.into(),
            arguments: ask.calls[0].1.clone(),
        };
        let qs: Vec<String> = vec![ask.calls[0].1["questions"][0].as_str().unwrap().into()];
        let messages = [
            lead_user("Is it reliable?"),
            Message::assistant("", vec![call.clone()]),
            Message::tool(&call, "The user answered."),
            Message::user(answers_message(&pair_answers(&qs, &["PadmaPay".into()]))),
        ];
        let t = lead_turn(&messages, true);
        assert_eq!(t.calls[0].0, WRITE_TODOS, "{}", t.thinking);
        // Delegation carries the company the user named.
        let todo = ToolCall {
            id: "call_2_1".into(),
            name: WRITE_TODOS.into(),
            arguments: t.calls[0].1.clone(),
        };
        let mut more = messages.to_vec();
        more.push(Message::assistant("", vec![todo.clone()]));
        more.push(Message::tool(&todo, "Plan recorded."));
        let t = lead_turn(&more, true);
        assert!(t.calls.iter().all(|(n, _)| *n == TASK));
        let d = t.calls[0].1["description"].as_str().unwrap();
        assert!(d.contains("Entity: PadmaPay"), "{d}");
        assert!(d.contains("Is PadmaPay reliable?"), "{d}");
    }

    #[test]
    fn the_assumption_goes_under_the_question() {
        let md = with_assumption("# T\n\n**Question:** q\n\n## Answer\n", "none named.");
        assert_eq!(
            md,
            "# T\n\n**Question:** q\n\n**Assumptions:** none named.\n\n## Answer\n"
        );
        assert!(with_assumption("text", "a").starts_with("**Assumptions:** a"));
    }

    #[test]
    fn a_question_with_dotted_capitals_plans() {
        // `İ` lowercases to three bytes; the planner used to cut the
        // question at the lowercase offset and panic.
        let q = "İİİİ İSTANBUL LİMANI: check ports, rail and roads";
        assert_eq!(plan_aspects(q, None), vec!["ports", "rail", "roads"]);
        assert!(plan_and_delegate(q).is_ok());
    }

    proptest::proptest! {
        #[test]
        fn any_question_plans_and_delegates(
            q in "\\PC{0,200}|([İıßẞΣς\u{301}\u{5d0}-\u{5ea}\u{627}-\u{64a}\u{202e}KÅ]|what |how |does |it |compare | vs | and |, |: |check |which |when was |\\?){0,40}"
        ) {
            plan_and_delegate(&q)?;
        }
    }
}
