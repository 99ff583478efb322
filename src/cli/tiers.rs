use super::{CliResult, Exit, GlobalArgs, print_stdout};
use crate::config::tiers::{DEFAULT_TIER, MODEL_TIERS};

pub fn run(g: &GlobalArgs) -> CliResult {
    let config = super::resolve_config(g, Default::default())?;
    for w in &config.warnings {
        errln!("warning: {w}");
    }
    let active = config.tier().name;
    if g.json {
        let rows: Vec<_> = MODEL_TIERS
            .iter()
            .map(|t| {
                serde_json::json!({
                    "name": t.name,
                    "default": t.name == DEFAULT_TIER,
                    "active": t.name == active,
                    "research": t.research,
                    "subagent": t.subagent,
                    "utility": t.utility,
                })
            })
            .collect();
        let mut s = serde_json::to_string_pretty(&rows).unwrap_or_default();
        s.push('\n');
        print_stdout(s.as_bytes());
        return Ok(Exit::Ok);
    }
    let mut s = String::from(
        "Model tiers (prices: $ per million tokens, input/output; select with DRA_MODEL_TIER)\n\n",
    );
    s.push_str(&format!(
        "  {:<10} {:<40} {:<40} {:<44}\n",
        "TIER", "RESEARCH (orchestrator)", "SUB-AGENT", "UTILITY"
    ));
    for t in MODEL_TIERS {
        let cell = |slot: &crate::config::ModelSlot| {
            format!(
                "{} ({:.2}/{:.2})",
                slot.slug, slot.input_per_m, slot.output_per_m
            )
        };
        let mark = if t.name == active { "*" } else { " " };
        s.push_str(&format!(
            "{mark} {:<10} {:<40} {:<40} {:<44}\n",
            t.name,
            cell(&t.research),
            cell(&t.subagent),
            cell(&t.utility)
        ));
    }
    s.push_str(&format!(
        "\n* active tier ({active}); default: {DEFAULT_TIER}\n"
    ));
    print_stdout(s.as_bytes());
    Ok(Exit::Ok)
}
