//! Planning and the orchestrator's turns: aspects from the question, one
//! task per aspect, the merged review, then the report.

use serde_json::{Value, json};

use super::transcript::{Transcript, anchors_of, field, unwrap_spotlight};
use crate::engine::prompts;
use crate::engine::subresearcher::aspect_of;
use crate::engine::tools::names::{REVIEW_EVIDENCE, SUBMIT_REPORT, TASK, WRITE_TODOS};
use crate::evidence::Findings;
use crate::question;
use crate::report;
use crate::report::evidence_view::FieldView;

/// Aspects to research, from the question alone (see [`question::decompose`]).
pub fn plan_aspects(question: &str, entity: Option<&str>) -> Vec<String> {
    question::decompose(question, entity).aspects
}

pub(super) fn orchestrator_turn(t: &Transcript) -> (String, Vec<(&'static str, Value)>) {
    let question = field(t.user, prompts::label::RESEARCH_QUESTION)
        .unwrap_or(t.user)
        .to_string();
    let anchors = anchors_of(t.user);
    let plans: Vec<_> = t.called(WRITE_TODOS).collect();
    // A plan sent back is written again (once): the deterministic plan is
    // the best this model has.
    let bounced = plans
        .last()
        .is_some_and(|c| c.result.is_some_and(|r| r.starts_with("Error")));
    let todos_call = plans.last().filter(|_| !bounced || plans.len() >= 2);
    let Some(todos_call) = todos_call else {
        let aspects = plan_aspects(&question, anchors.name.as_deref());
        let todos: Vec<Value> = aspects
            .iter()
            .map(|a| json!({"content": a, "status": "pending"}))
            .collect();
        return (
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
        return (
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
    // Before writing, the merged view of the evidence.
    let Some(review) = t.called(REVIEW_EVIDENCE).last() else {
        return (
            "Reviewing the merged evidence before writing.".to_string(),
            vec![(REVIEW_EVIDENCE, json!({}))],
        );
    };
    let merged: Vec<FieldView> = review
        .result
        .and_then(|r| serde_json::from_str::<Value>(unwrap_spotlight(r)).ok())
        .and_then(|v| serde_json::from_value(v["fields"].clone()).ok())
        .unwrap_or_default();
    let markdown = report::draft_from_merged(&question, anchors.name.as_deref(), &units, &merged);
    let n: usize = units.iter().map(|u| u.findings.len()).sum();
    (
        format!("Writing the report from {n} verified finding(s)."),
        vec![(SUBMIT_REPORT, json!({ "markdown": markdown }))],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

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
        ));
        let first = [user.clone()];
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
