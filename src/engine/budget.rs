//! Hard budgets per run. Every call reserves before it starts, so parallel
//! sub-researchers cannot overshoot: a reservation that would cross a limit
//! is refused. Crossing 75% of any limit is reported once (`budget_soft`).

use crate::sync::LockExt;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::protocol::StatusReason;

pub use crate::config::Limits;

#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Spent {
    pub tool_calls: u64,
    pub tokens: u64,
    pub usd: f64,
    pub steps: u64,
    pub model_calls: u64,
}

/// The limits a run has; each is also the reason a run halts on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    ToolCalls,
    Tokens,
    Usd,
    Deadline,
    Steps,
}

impl From<Limit> for StatusReason {
    fn from(limit: Limit) -> Self {
        match limit {
            Limit::ToolCalls => StatusReason::ToolCalls,
            Limit::Tokens => StatusReason::Tokens,
            Limit::Usd => StatusReason::Usd,
            Limit::Deadline => StatusReason::Deadline,
            Limit::Steps => StatusReason::Steps,
        }
    }
}

/// A limit that was hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exhausted(pub Limit);

#[derive(Debug)]
struct State {
    spent: Spent,
    /// Tokens and dollars held by calls in flight.
    held_tokens: u64,
    held_usd: f64,
    soft_reported: bool,
}

#[derive(Debug)]
pub struct Budget {
    limits: Limits,
    started: Instant,
    state: Mutex<State>,
}

/// What a model call holds until it settles.
#[derive(Debug, Clone, Copy)]
pub struct Hold {
    tokens: u64,
    usd: f64,
}

impl Budget {
    pub fn new(limits: Limits) -> Self {
        Self::since(limits, Instant::now())
    }

    /// A budget whose clock (elapsed time, the deadline) started at
    /// `started`: a run's setup (loading its corpus) counts.
    pub fn since(limits: Limits, started: Instant) -> Self {
        Budget {
            limits,
            started,
            state: Mutex::new(State {
                spent: Spent::default(),
                held_tokens: 0,
                held_usd: 0.0,
                soft_reported: false,
            }),
        }
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding the lock leaves plain counters behind: still usable.
        self.state.lock_or_recover()
    }

    pub fn spent(&self) -> Spent {
        self.lock().spent
    }

    pub fn check_deadline(&self) -> Result<(), Exhausted> {
        if self.started.elapsed() >= self.limits.deadline {
            Err(Exhausted(Limit::Deadline))
        } else {
            Ok(())
        }
    }

    /// Reserves one tool call.
    pub fn reserve_tool_call(&self) -> Result<(), Exhausted> {
        self.check_deadline()?;
        let mut s = self.lock();
        if s.spent.tool_calls >= self.limits.max_tool_calls {
            return Err(Exhausted(Limit::ToolCalls));
        }
        s.spent.tool_calls += 1;
        Ok(())
    }

    /// Reserves one orchestrator step.
    pub fn reserve_step(&self) -> Result<(), Exhausted> {
        let mut s = self.lock();
        if s.spent.steps >= self.limits.max_steps {
            return Err(Exhausted(Limit::Steps));
        }
        s.spent.steps += 1;
        Ok(())
    }

    /// Reserves the worst case of one model call before it starts.
    pub fn reserve_model_call(&self, tokens: u64, usd: f64) -> Result<Hold, Exhausted> {
        self.check_deadline()?;
        let mut s = self.lock();
        if s.spent.tokens + s.held_tokens + tokens > self.limits.max_total_tokens {
            return Err(Exhausted(Limit::Tokens));
        }
        if s.spent.usd + s.held_usd + usd > self.limits.max_usd + 1e-12 {
            return Err(Exhausted(Limit::Usd));
        }
        s.held_tokens += tokens;
        s.held_usd += usd;
        Ok(Hold { tokens, usd })
    }

    /// Replaces a hold with what the call really cost.
    pub fn settle(&self, hold: Hold, tokens: u64, usd: f64) {
        let mut s = self.lock();
        s.held_tokens = s.held_tokens.saturating_sub(hold.tokens);
        s.held_usd = (s.held_usd - hold.usd).max(0.0);
        s.spent.tokens += tokens;
        s.spent.usd += usd;
        s.spent.model_calls += 1;
    }

    /// Returns the limit crossing 75% the first time any does.
    pub fn soft_crossed(&self) -> Option<Limit> {
        let mut s = self.lock();
        if s.soft_reported {
            return None;
        }
        let l = &self.limits;
        let reason = if s.spent.tool_calls as f64 >= 0.75 * l.max_tool_calls as f64 {
            Limit::ToolCalls
        } else if s.spent.tokens as f64 >= 0.75 * l.max_total_tokens as f64 {
            Limit::Tokens
        } else if l.max_usd > 0.0 && s.spent.usd >= 0.75 * l.max_usd {
            Limit::Usd
        } else if self.started.elapsed().as_secs_f64() >= 0.75 * l.deadline.as_secs_f64() {
            Limit::Deadline
        } else if s.spent.steps as f64 >= 0.75 * l.max_steps as f64 {
            Limit::Steps
        } else {
            return None;
        };
        s.soft_reported = true;
        Some(reason)
    }
}

/// An amount of dollars written with the digits it needs to be told from
/// its neighbours: "$0.0004", "$0.002", "$0.50", "$12.00", "$0".
pub fn dollars(usd: f64) -> String {
    if usd == 0.0 || !usd.is_finite() {
        return "$0".into();
    }
    if usd.abs() >= 1.0 {
        return format!("${usd:.2}");
    }
    // Two significant digits, at least two decimals, no trailing zeros
    // past those.
    let places = ((-usd.abs().log10()).floor() as usize + 2).clamp(2, 8);
    let mut s = format!("{usd:.places$}");
    while s.len() > s.find('.').map_or(0, |d| d + 3) && s.ends_with('0') {
        s.pop();
    }
    format!("${s}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dollars_show_the_digits_that_tell_a_spend_from_its_cap() {
        assert_eq!(dollars(0.0004), "$0.0004");
        assert_eq!(dollars(0.002), "$0.002");
        assert_eq!(dollars(0.00123), "$0.0012");
        assert_eq!(dollars(0.5), "$0.50");
        assert_eq!(dollars(0.0), "$0");
        assert_eq!(dollars(12.0), "$12.00");
        assert_eq!(dollars(1.234), "$1.23");
    }
    use std::sync::Arc;

    #[test]
    fn tool_calls_never_overshoot_under_contention() {
        let budget = Arc::new(Budget::new(Limits {
            max_tool_calls: 50,
            ..Limits::default()
        }));
        let handles: Vec<_> = (0..8)
            .map(|_| {
                let b = budget.clone();
                std::thread::spawn(move || {
                    (0..100).filter(|_| b.reserve_tool_call().is_ok()).count()
                })
            })
            .collect();
        let granted: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
        assert_eq!(granted, 50);
        assert_eq!(budget.spent().tool_calls, 50);
    }

    #[test]
    fn holds_count_against_limits_until_settled() {
        let b = Budget::new(Limits {
            max_total_tokens: 100,
            ..Limits::default()
        });
        let h = b.reserve_model_call(60, 0.0).unwrap();
        assert!(matches!(
            b.reserve_model_call(60, 0.0),
            Err(Exhausted(Limit::Tokens))
        ));
        b.settle(h, 30, 0.0);
        assert!(b.reserve_model_call(60, 0.0).is_ok());
    }

    #[test]
    fn soft_threshold_reported_once() {
        let b = Budget::new(Limits {
            max_tool_calls: 4,
            ..Limits::default()
        });
        for _ in 0..3 {
            b.reserve_tool_call().unwrap();
        }
        assert_eq!(b.soft_crossed(), Some(Limit::ToolCalls));
        assert_eq!(b.soft_crossed(), None);
    }
}
