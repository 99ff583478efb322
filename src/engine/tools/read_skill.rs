//! `read_skill`: the instructions of one of the user's skills, read on
//! demand (the system prompts list the skills by name and description).
//! Skills are the user's own text, so the body is not spotlighted; other
//! files of the folder are listed and read only when asked for, confined to
//! the folder. A `skill` event fires the first time each skill is read in a
//! run.

use std::collections::HashSet;
use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::engine::context::RunCtx;
use crate::engine::tool::names::READ_SKILL;
use crate::engine::tool::{AgentCx, Tool, ToolOutput, TypedTool};
use crate::protocol::EventBody;

/// The `state` of a `skill` event when a skill is read.
pub const APPLIED: &str = "applied";

pub struct ReadSkill;

/// Offers `read_skill` when the run found any skill.
pub struct Skills;

#[async_trait]
impl super::ToolProvider for Skills {
    async fn start(&self, run: &Arc<RunCtx>, _: &mut HashSet<String>) -> Vec<Arc<dyn Tool>> {
        if run.skills.is_empty() {
            Vec::new()
        } else {
            vec![Arc::new(ReadSkill)]
        }
    }

    fn reserves(&self) -> &'static [&'static str] {
        &[READ_SKILL]
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct Args {
    /// The skill's name, as listed.
    name: String,
    /// Optional: a file of the skill's folder, by the relative path listed.
    #[serde(default)]
    file: Option<String>,
}

#[async_trait]
impl TypedTool for ReadSkill {
    const NAME: &'static str = READ_SKILL;
    type Args = Args;

    fn description(&self) -> String {
        "Read one of the user's skills (listed under SKILLS in your instructions): its instructions, and the other files of its folder. Call it when a skill applies, then follow it. With `file`, read one of the listed files instead.".into()
    }

    async fn run(&self, cx: &AgentCx, args: Args) -> ToolOutput {
        let skill = match cx.run.skills.find(&args.name) {
            Ok(s) => s,
            Err(e) => return ToolOutput::permanent(e.to_string()),
        };
        let file = args
            .file
            .as_deref()
            .map(str::trim)
            .filter(|f| !f.is_empty());
        let (content, summary) = match file {
            Some(f) => match skill.read_file(f) {
                // A skill's SKILL.md instructs by design; the files beside it
                // are material (references, examples, data) and are judged
                // like any text from outside: instructions aimed at agents
                // in them withhold the file.
                Ok(text) if !crate::evidence::injection::scan_text(&text).is_empty() => {
                    let hits = crate::evidence::injection::scan_text(&text);
                    cx.run.emitter.warning(
                        &cx.agent,
                        crate::protocol::WarningCode::Other,
                        format!(
                            "skill {}: the file {f} carries instructions aimed at AI agents ({}); it is withheld from the model",
                            skill.name,
                            hits.join(", ")
                        ),
                    );
                    return ToolOutput::permanent(format!(
                        "skill {}: the file {f} was withheld: it carries instructions aimed at AI agents",
                        skill.name
                    ));
                }
                Ok(text) => {
                    let summary = format!(
                        "skill {}: {} ({} chars)",
                        skill.name,
                        f,
                        text.chars().count()
                    );
                    (
                        format!("Skill: {}\nFile: {f}\n\n{text}", skill.name),
                        summary,
                    )
                }
                Err(e) => {
                    return ToolOutput::permanent(format!("skill {}: {e}", skill.name));
                }
            },
            None => {
                let mut s = format!(
                    "Skill: {}\nDescription: {}\n",
                    skill.name, skill.description
                );
                let files = skill.files();
                if !files.is_empty() {
                    s.push_str(&format!(
                        "Other files of this skill (read one with {READ_SKILL} {{\"name\": \"{}\", \"file\": PATH}} when the instructions point to it):\n",
                        skill.name
                    ));
                    for f in &files {
                        s.push_str(&format!("- {f}\n"));
                    }
                }
                s.push_str(
                    "\nInstructions (they work within the rules of your system prompt):\n\n",
                );
                s.push_str(&skill.body);
                let summary = format!(
                    "skill {} ({} chars, {} other file(s))",
                    skill.name,
                    skill.body.chars().count(),
                    files.len()
                );
                (s, summary)
            }
        };
        if cx.run.skill_applied(&skill.name) {
            cx.run.emitter.emit(
                &cx.agent,
                EventBody::Skill {
                    name: skill.name.clone(),
                    path: crate::document::sanitize_line(&skill.path.display().to_string())
                        .into_owned(),
                    state: APPLIED.into(),
                },
            );
        }
        ToolOutput::ok(content, summary)
    }
}
