use async_trait::async_trait;
use serde_json::json;

use crate::engine::tool::names::REVIEW_EVIDENCE;
use crate::engine::tool::{AgentCx, NoArgs, ToolOutput, TypedTool};
use crate::report::evidence_view;

/// The merged evidence, for the writer: what is known per field, with
/// confidence, dates, history and conflicts, cited by source number.
pub struct ReviewEvidence;

#[async_trait]
impl TypedTool for ReviewEvidence {
    const NAME: &'static str = REVIEW_EVIDENCE;
    type Args = NoArgs;

    fn description(&self) -> String {
        "After the sub-researchers are done: the findings of the run merged per field (one field per aspect of the plan; sub-topics such as pricing:international apart; copies counted once, sources weighted by authority and freshness), each with its current value, a verbatim quote and its source number [n], confidence, the quote's as-of date, history, conflicts and rejected weak values, plus the sections this kind of question needs (report_guidance). Write the report from this.".into()
    }

    async fn run(&self, cx: &AgentCx, _args: NoArgs) -> ToolOutput {
        let run = &cx.run;
        let (fields, copies) = run.merge_evidence();
        let number_of = |url: &str| run.pages.get(url).and_then(|(_, n)| n);
        let view = evidence_view::view(&fields, &number_of);
        let n = view.len();
        let kind = crate::question::classify(&run.question);
        let body = json!({
            "question_kind": kind.as_str(),
            "report_guidance": crate::engine::prompts::report_guidance(kind),
            "fields": view,
            "copies_collapsed": copies.pairs.len(),
        });
        ToolOutput::ok(
            run.spotlight(&serde_json::to_string_pretty(&body).unwrap_or_default()),
            format!(
                "{n} merged field(s), {} copy pair(s) collapsed",
                copies.pairs.len()
            ),
        )
    }
}
