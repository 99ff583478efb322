//! Which failures are worth another attempt, and how long to wait: the
//! provider's `Retry-After` / `retry-after-ms` when it says (also as LiteLLM
//! forwards them, `llm_provider-retry-after(-ms)`), else exponential
//! backoff with jitter (backon).

use std::time::{Duration, SystemTime};

use backon::ExponentialBuilder;
use reqwest::header::HeaderMap;

use super::ModelError;

/// One failed attempt, classified.
#[derive(Debug, Clone)]
pub struct Failure {
    pub error: ModelError,
    pub retryable: bool,
    /// What the provider asked us to wait, already capped.
    pub retry_after: Option<Duration>,
    /// Short reason for the retry notice (`HTTP 503`, `stream stalled`, ...).
    pub reason: String,
}

impl Failure {
    pub fn fatal(error: ModelError) -> Self {
        let reason = error.to_string();
        Failure {
            error,
            retryable: false,
            retry_after: None,
            reason,
        }
    }

    pub fn transient(error: ModelError, reason: impl Into<String>) -> Self {
        Failure {
            error,
            retryable: true,
            retry_after: None,
            reason: reason.into(),
        }
    }
}

/// Statuses worth retrying: rate limits and the gateway family. Other 4xx
/// mean the request itself is wrong and would fail again. 529 is the
/// "overloaded" status some upstreams pass through.
pub fn retryable_status(status: u16) -> bool {
    matches!(status, 429 | 500 | 502 | 503 | 504 | 529)
}

/// How long the provider asked us to wait: `retry-after-ms` (milliseconds),
/// else `Retry-After` as seconds or an HTTP date, each also under LiteLLM's
/// `llm_provider-` prefix (the longer of the two waits); capped at `cap`.
pub fn retry_after(headers: &HeaderMap, now: SystemTime, cap: Duration) -> Option<Duration> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    // One source's wait: its milliseconds header, else its seconds or date.
    let wait_of = |prefix: &str| -> Option<Duration> {
        if let Some(ms) =
            text(&format!("{prefix}retry-after-ms")).and_then(|s| s.parse::<f64>().ok())
        {
            return seconds(ms / 1000.0);
        }
        let raw = text(&format!("{prefix}retry-after"))?;
        match raw.parse::<f64>() {
            Ok(secs) => seconds(secs),
            Err(_) => http_date_wait(raw, now),
        }
    };
    // LiteLLM forwards the upstream's headers under `llm_provider-`; when
    // the gateway and the provider both say, the longer wait is the one
    // that will not be refused again.
    let wait = [wait_of(""), wait_of("llm_provider-")]
        .into_iter()
        .flatten()
        .max()?;
    Some(wait.min(cap))
}

fn seconds(x: f64) -> Option<Duration> {
    (x.is_finite() && x >= 0.0).then(|| Duration::from_secs_f64(x.min(1e9)))
}

/// `Retry-After: Wed, 21 Oct 2015 07:28:00 GMT`; a date in the past means now.
fn http_date_wait(raw: &str, now: SystemTime) -> Option<Duration> {
    let when = chrono::DateTime::parse_from_rfc2822(raw).ok()?;
    let when = SystemTime::from(when.with_timezone(&chrono::Utc));
    Some(when.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Exponential backoff from `base`, doubling up to `max`, with jitter seeded
/// from the OS so parallel sub-agents do not retry in lock-step.
pub fn backoff(base: Duration, max: Duration, retries: u32) -> ExponentialBuilder {
    let mut seed = [0u8; 8];
    // Without OS randomness the jitter is still there, just predictable.
    let _ = getrandom::fill(&mut seed);
    ExponentialBuilder::default()
        .with_min_delay(base)
        .with_max_delay(max.max(base))
        .with_factor(2.0)
        .with_max_times(retries as usize)
        .with_jitter()
        .with_jitter_seed(u64::from_le_bytes(seed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use backon::BackoffBuilder;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn retry_after_forms() {
        let cap = Duration::from_secs(60);
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_470);
        assert_eq!(
            retry_after(&headers(&[("retry-after", "2")]), now, cap),
            Some(Duration::from_secs(2))
        );
        assert_eq!(
            retry_after(
                &headers(&[("retry-after-ms", "150"), ("retry-after", "9")]),
                now,
                cap
            ),
            Some(Duration::from_millis(150))
        );
        // 2015-10-21T07:28:00Z is 10 s after `now`.
        assert_eq!(
            retry_after(
                &headers(&[("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")]),
                now,
                cap
            ),
            Some(Duration::from_secs(10))
        );
        assert_eq!(
            retry_after(&headers(&[("retry-after", "86400")]), now, cap),
            Some(cap)
        );
        assert_eq!(
            retry_after(&headers(&[("retry-after", "soon")]), now, cap),
            None
        );
        assert_eq!(retry_after(&headers(&[]), now, cap), None);
        // Behind LiteLLM.
        assert_eq!(
            retry_after(&headers(&[("llm_provider-retry-after", "15")]), now, cap),
            Some(Duration::from_secs(15))
        );
        assert_eq!(
            retry_after(
                &headers(&[
                    ("llm_provider-retry-after-ms", "1500"),
                    ("llm_provider-retry-after", "9")
                ]),
                now,
                cap
            ),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            retry_after(
                &headers(&[("retry-after", "2"), ("llm_provider-retry-after", "15")]),
                now,
                cap
            ),
            Some(Duration::from_secs(15))
        );
    }

    proptest::proptest! {
        #[test]
        fn any_retry_header_values_give_a_capped_wait(
            a in "[ -~]{0,24}", b in "[ -~]{0,24}", c in "[0-9.]{0,8}", d in "[ -~]{0,24}"
        ) {
            let cap = Duration::from_secs(60);
            let h = headers(&[
                ("retry-after", &a),
                ("llm_provider-retry-after", &b),
                ("llm_provider-retry-after-ms", &c),
                ("retry-after-ms", &d),
            ]);
            if let Some(w) = retry_after(&h, SystemTime::now(), cap) {
                proptest::prop_assert!(w <= cap);
            }
        }
    }

    #[test]
    fn only_rate_limits_and_gateway_errors_retry() {
        for s in [429, 500, 502, 503, 504] {
            assert!(retryable_status(s), "{s}");
        }
        for s in [400, 401, 403, 404, 408, 409, 422, 501] {
            assert!(!retryable_status(s), "{s}");
        }
    }

    #[test]
    fn backoff_grows_with_jitter_and_stops() {
        let delays: Vec<Duration> =
            backoff(Duration::from_millis(10), Duration::from_millis(35), 4)
                .build()
                .collect();
        assert_eq!(delays.len(), 4);
        // Each delay is its exponential step plus up to 100% jitter.
        for (d, step) in delays.iter().zip([10u64, 20, 35, 35]) {
            assert!(
                *d >= Duration::from_millis(step) && *d < Duration::from_millis(2 * step),
                "{delays:?}"
            );
        }
    }
}
