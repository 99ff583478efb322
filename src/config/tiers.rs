//! MODEL_TIERS: the named price packages. Which models a tier means is decided
//! here, in one reviewed place, never per environment variable or per run.
//! Prices are dollars per million tokens (input, output), checked against
//! OpenRouter on 2026-07-30; they drift. A cached input token (a prompt
//! prefix the provider read from its cache) costs the provider family's
//! cache-read share of the input price: a tenth for Anthropic and DeepSeek,
//! a quarter for Google, and the full price for families whose cache price
//! was not checked, so a cost is never under-counted.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ModelSlot {
    pub slug: &'static str,
    /// $ per million input tokens.
    pub input_per_m: f64,
    /// $ per million output tokens.
    pub output_per_m: f64,
    /// $ per million input tokens read from the provider's prompt cache.
    pub cached_input_per_m: f64,
}

impl ModelSlot {
    /// Dollar cost of one call, `cached` of its input tokens read from the
    /// provider's prompt cache.
    pub fn cost(&self, input_tokens: u64, output_tokens: u64, cached: u64) -> f64 {
        let cached = cached.min(input_tokens);
        ((input_tokens - cached) as f64 * self.input_per_m
            + cached as f64 * self.cached_input_per_m
            + output_tokens as f64 * self.output_per_m)
            / 1_000_000.0
    }
}

/// The share of the input price a cached input token costs, by the slug's
/// provider family (see the module's note).
const fn cache_share(slug: &str) -> f64 {
    let b = slug.as_bytes();
    if starts_with(b, b"anthropic/") || starts_with(b, b"deepseek/") {
        0.1
    } else if starts_with(b, b"google/") {
        0.25
    } else {
        1.0
    }
}

const fn starts_with(s: &[u8], prefix: &[u8]) -> bool {
    if s.len() < prefix.len() {
        return false;
    }
    let mut i = 0;
    while i < prefix.len() {
        if s[i] != prefix[i] {
            return false;
        }
        i += 1;
    }
    true
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ModelTier {
    pub name: &'static str,
    /// Runs the orchestrator.
    pub research: ModelSlot,
    /// Runs the sub-researchers.
    pub subagent: ModelSlot,
    /// Narrow calls: compression, extraction.
    pub utility: ModelSlot,
    /// The dollar ceiling of a run on this tier unless DRA_MAX_USD or
    /// --max-usd says otherwise: roughly what a thorough run costs here.
    pub default_max_usd: f64,
}

/// Which slot of a tier a model call uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelRole {
    Research,
    Subagent,
    Utility,
}

impl ModelTier {
    pub fn slot(&self, role: ModelRole) -> &ModelSlot {
        match role {
            ModelRole::Research => &self.research,
            ModelRole::Subagent => &self.subagent,
            ModelRole::Utility => &self.utility,
        }
    }
}

const fn slot(slug: &'static str, input_per_m: f64, output_per_m: f64) -> ModelSlot {
    ModelSlot {
        slug,
        input_per_m,
        output_per_m,
        cached_input_per_m: input_per_m * cache_share(slug),
    }
}

/// Ordered cheapest first.
pub const MODEL_TIERS: &[ModelTier] = &[
    ModelTier {
        name: "extra-low",
        default_max_usd: 0.50,
        research: slot("xiaomi/mimo-v2.5", 0.14, 0.28),
        subagent: slot("deepseek/deepseek-v4-flash", 0.14, 0.28),
        utility: slot("qwen/qwen3-30b-a3b-instruct-2507", 0.05, 0.19),
    },
    ModelTier {
        name: "low",
        default_max_usd: 1.50,
        research: slot("deepseek/deepseek-v4-pro", 0.43, 0.87),
        subagent: slot("deepseek/deepseek-v4-flash", 0.14, 0.28),
        utility: slot("deepseek/deepseek-v4-flash", 0.14, 0.28),
    },
    ModelTier {
        name: "mid",
        default_max_usd: 5.00,
        research: slot("google/gemini-3.6-flash", 1.50, 7.50),
        subagent: slot("xiaomi/mimo-v2.5", 0.14, 0.28),
        utility: slot("deepseek/deepseek-v4-flash", 0.14, 0.28),
    },
    ModelTier {
        name: "high",
        default_max_usd: 15.00,
        research: slot("anthropic/claude-sonnet-5", 2.0, 10.0),
        subagent: slot("moonshotai/kimi-k2.6", 0.65, 2.72),
        utility: slot("google/gemini-3.5-flash-lite", 0.30, 2.50),
    },
];

/// The tier used when nothing is configured: a bare checkout can't silently
/// burn money.
pub const DEFAULT_TIER: &str = "extra-low";

pub fn find_tier(name: &str) -> Option<&'static ModelTier> {
    MODEL_TIERS.iter().find(|t| t.name == name)
}

pub fn default_tier() -> &'static ModelTier {
    &MODEL_TIERS[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subagent_is_never_pricier_than_the_orchestrator() {
        for t in MODEL_TIERS {
            assert!(
                t.subagent.input_per_m <= t.research.input_per_m
                    && t.subagent.output_per_m <= t.research.output_per_m,
                "tier {}: sub-agent {} costs more than orchestrator {}",
                t.name,
                t.subagent.slug,
                t.research.slug
            );
        }
    }

    #[test]
    fn each_tier_costs_more_than_the_one_below_on_the_research_slot() {
        for pair in MODEL_TIERS.windows(2) {
            let (lo, hi) = (&pair[0].research, &pair[1].research);
            assert!(
                hi.input_per_m > lo.input_per_m && hi.output_per_m > lo.output_per_m,
                "{} is not pricier than {}",
                pair[1].name,
                pair[0].name
            );
        }
    }

    #[test]
    fn default_tier_exists_and_is_cheapest() {
        assert_eq!(default_tier().name, DEFAULT_TIER);
        assert!(find_tier(DEFAULT_TIER).is_some());
    }

    #[test]
    fn dearer_tiers_carry_larger_default_caps() {
        for pair in MODEL_TIERS.windows(2) {
            assert!(pair[1].default_max_usd > pair[0].default_max_usd);
        }
    }

    #[test]
    fn cost_uses_per_million_prices() {
        let s = slot("x", 2.0, 10.0);
        assert!((s.cost(1_000_000, 100_000, 0) - 3.0).abs() < 1e-9);
        // An unchecked family's cached tokens cost the full input price.
        assert!((s.cost(1_000_000, 100_000, 600_000) - 3.0).abs() < 1e-9);
        // Anthropic's cost a tenth: 400k at $2 + 600k at $0.20 + $1 out.
        let a = slot("anthropic/claude-x", 2.0, 10.0);
        assert!((a.cost(1_000_000, 100_000, 600_000) - 1.92).abs() < 1e-9);
        assert!((slot("google/g", 1.0, 1.0).cached_input_per_m - 0.25).abs() < 1e-12);
        // More cached than sent is capped at what was sent.
        assert!((a.cost(10, 0, 99) - a.cost(10, 0, 10)).abs() < 1e-15);
    }
}
