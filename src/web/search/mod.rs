//! Web search backends: Tavily, SearXNG and Brave, each a
//! [`SearchBackend`]. Keys travel only in request headers; no error message
//! carries one, and redirects are not followed (a custom header such as
//! Brave's `X-Subscription-Token` would survive a cross-host redirect).

mod brave;
mod searxng;
mod tavily;

use std::sync::Arc;
use std::time::Duration;

use backon::{ExponentialBuilder, Retryable};
use reqwest::{Client, RequestBuilder, Url, redirect};
use serde::de::DeserializeOwned;

pub use brave::{BRAVE_DEFAULT_BASE_URL, Brave};
pub use searxng::SearxNg;
pub use tavily::Tavily;

use crate::config::settings as keys;
use crate::config::{SearchSettings, Secret};
use crate::ports::{SearchBackend, WebError};

/// One web search backend, described once: what people call it, the
/// settings that turn it on, and how it is built. `dra ask`'s and
/// `dra doctor`'s messages and the choice of backend read this table.
pub struct BackendSpec {
    pub name: &'static str,
    /// Set all of these and the backend is configured.
    pub keys: &'static [&'static str],
    /// Builds the backend from configured settings.
    pub build: fn(&SearchSettings) -> Result<Arc<dyn SearchBackend>, WebError>,
}

impl BackendSpec {
    pub fn configured(&self, s: &SearchSettings) -> bool {
        self.keys.iter().all(|k| s.is_set(k))
    }
}

/// A backend's setting that `configured` promised is there.
fn required<'a, T>(value: Option<&'a T>, key: &str) -> Result<&'a T, WebError>
where
    T: ?Sized,
{
    value.ok_or_else(|| WebError::Failed(format!("{key} is not set")))
}

/// Every backend, in order of preference. Adding one: a new file with its
/// [`SearchBackend`] impl, one row here, and its keys in the settings
/// table (`config/settings.rs`, listed in `SEARCH_KEYS`).
pub const BACKENDS: &[BackendSpec] = &[
    BackendSpec {
        name: "Tavily",
        keys: &[keys::TAVILY_API_KEY],
        build: |s| {
            let key = required(s.secret(keys::TAVILY_API_KEY), keys::TAVILY_API_KEY)?;
            let base = s.text(keys::TAVILY_BASE_URL).unwrap_or_default();
            Ok(Arc::new(Tavily::new(key.clone(), base)?))
        },
    },
    BackendSpec {
        name: "SearXNG",
        keys: &[keys::SEARXNG_URL],
        build: |s| {
            let url = required(s.text(keys::SEARXNG_URL), keys::SEARXNG_URL)?;
            Ok(Arc::new(SearxNg::new(url)?))
        },
    },
    BackendSpec {
        name: "Brave",
        keys: &[keys::BRAVE_API_KEY],
        build: |s| {
            let key = required(s.secret(keys::BRAVE_API_KEY), keys::BRAVE_API_KEY)?;
            Ok(Arc::new(Brave::new(key.clone(), BRAVE_DEFAULT_BASE_URL)?))
        },
    },
];

/// Whether any backend is configured.
pub fn any_backend(s: &SearchSettings) -> bool {
    BACKENDS.iter().any(|b| b.configured(s))
}

/// The settings that turn on a backend, for messages: "A, B or C".
pub fn backend_keys_hint() -> String {
    let keys: Vec<&str> = BACKENDS
        .iter()
        .filter_map(|b| b.keys.first().copied())
        .collect();
    match keys.split_last() {
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The configured backend, by preference (the table's order). `None` when
/// none is configured (or its client cannot be built, which is logged).
pub fn search_backend_from_settings(s: &SearchSettings) -> Option<Arc<dyn SearchBackend>> {
    match (BACKENDS.iter().find(|b| b.configured(s))?.build)(s) {
        Ok(b) => Some(b),
        Err(e) => {
            tracing::warn!("web search backend unavailable: {e}");
            None
        }
    }
}

/// Timeouts and retries shared by the backends.
#[derive(Debug, Clone)]
pub struct SearchOptions {
    pub connect_timeout: Duration,
    pub timeout: Duration,
    /// Retries on 429, 5xx and connection failures.
    pub retries: usize,
    pub first_retry_delay: Duration,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(30),
            retries: 2,
            first_retry_delay: Duration::from_millis(500),
        }
    }
}

/// The HTTP side of a backend.
#[derive(Debug, Clone)]
pub(crate) struct Http {
    backend: &'static str,
    client: Client,
    opts: SearchOptions,
}

/// One failed attempt, and whether another might succeed.
struct Attempt {
    error: WebError,
    transient: bool,
}

impl Http {
    pub(crate) fn new(backend: &'static str, opts: SearchOptions) -> Result<Http, WebError> {
        let client = Client::builder()
            .redirect(redirect::Policy::none())
            .connect_timeout(opts.connect_timeout)
            .timeout(opts.timeout)
            .user_agent(format!("dra/{}", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| {
                WebError::Failed(format!("{backend}: cannot build the HTTP client: {e}"))
            })?;
        Ok(Http {
            backend,
            client,
            opts,
        })
    }

    pub(crate) fn client(&self) -> &Client {
        &self.client
    }

    /// Sends the request `make` builds (again on each retry) and decodes the
    /// JSON answer. `secret` is scrubbed from any message.
    pub(crate) async fn json<T: DeserializeOwned>(
        &self,
        make: impl Fn() -> RequestBuilder,
        secret: Option<&Secret>,
    ) -> Result<T, WebError> {
        let attempt = || async {
            let response = make().send().await.map_err(|e| Attempt {
                transient: e.is_connect() || e.is_timeout(),
                error: self.failed(&describe(&e), secret),
            })?;
            let status = response.status();
            let body = response.text().await.map_err(|e| Attempt {
                transient: true,
                error: self.failed(&describe(&e), secret),
            })?;
            if !status.is_success() {
                let hint = match status.as_u16() {
                    401 | 403 => " (check the API key or the instance's settings)",
                    429 => " (rate limited)",
                    _ => "",
                };
                let excerpt: String = body.chars().take(200).collect();
                return Err(Attempt {
                    transient: status.as_u16() == 429 || status.is_server_error(),
                    error: self.failed(&format!("HTTP {status}{hint}: {excerpt}"), secret),
                });
            }
            serde_json::from_str::<T>(&body).map_err(|e| Attempt {
                transient: false,
                error: self.failed(&format!("unexpected answer: {e}"), secret),
            })
        };
        let backoff = ExponentialBuilder::default()
            .with_min_delay(self.opts.first_retry_delay)
            .with_max_delay(self.opts.first_retry_delay * 8)
            .with_max_times(self.opts.retries);
        attempt
            .retry(backoff)
            .when(|a: &Attempt| a.transient)
            .await
            .map_err(|a| a.error)
    }

    fn failed(&self, message: &str, secret: Option<&Secret>) -> WebError {
        let mut message = message.trim().to_string();
        if let Some(s) = secret.filter(|s| !s.expose().is_empty()) {
            message = message.replace(s.expose(), "***");
        }
        WebError::Failed(format!("{} search failed: {message}", self.backend))
    }
}

/// reqwest's error without its URL (which carries the query, and for
/// SearXNG possibly credentials).
fn describe(e: &reqwest::Error) -> String {
    let what = if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "cannot connect"
    } else {
        "request failed"
    };
    format!("{what}{}", crate::web::fetch::causes(e))
}

/// `base` with `path` appended (a base without a trailing slash keeps its
/// last segment).
pub(crate) fn endpoint(backend: &str, base: &str, path: &str) -> Result<Url, WebError> {
    let mut base = Url::parse(base.trim())
        .map_err(|e| WebError::Failed(format!("{backend}: bad base URL: {e}")))?;
    if !matches!(base.scheme(), "http" | "https") {
        return Err(WebError::Failed(format!(
            "{backend}: the base URL must be http(s)"
        )));
    }
    if !base.path().ends_with('/') {
        let p = format!("{}/", base.path());
        base.set_path(&p);
    }
    base.join(path)
        .map_err(|e| WebError::Failed(format!("{backend}: bad base URL: {e}")))
}

/// `url` with query parameters appended, encoded.
pub(crate) fn with_query(url: &Url, params: &[(&str, &str)]) -> Url {
    let mut url = url.clone();
    url.query_pairs_mut().extend_pairs(params);
    url
}

/// Snippet text: tags and entities from HTML-flavoured APIs removed,
/// invisible characters dropped, whitespace collapsed.
pub(crate) fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    let out = crate::evidence::clean::decode_entities(&out.replace("&#x27;", "'"));
    let (out, _) = crate::evidence::clean::strip_invisible(&out);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A result date as `YYYY-MM-DD`, from ISO 8601 or RFC 2822.
pub(crate) fn date(s: Option<&str>) -> Option<String> {
    let s = s?.trim();
    crate::document::normalize_date(s).or_else(|| {
        chrono::DateTime::parse_from_rfc2822(s)
            .ok()
            .map(|d| d.format("%Y-%m-%d").to_string())
    })
}

/// Results with an http(s) URL, at most `max`.
pub(crate) fn keep(hits: Vec<crate::ports::SearchHit>, max: usize) -> Vec<crate::ports::SearchHit> {
    hits.into_iter()
        .filter(|h| h.url.starts_with("http://") || h.url.starts_with("https://"))
        .take(max)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_backend_key_reaches_search_settings() {
        for b in BACKENDS {
            for k in b.keys {
                assert!(keys::SEARCH_KEYS.contains(k), "{} reads {k}", b.name);
            }
        }
        assert_eq!(
            backend_keys_hint(),
            "TAVILY_API_KEY, SEARXNG_URL or BRAVE_API_KEY"
        );
    }

    #[test]
    fn endpoints_keep_the_base_path() {
        let e = |b: &str, p: &str| {
            endpoint("t", b, p)
                .map(|u| u.to_string())
                .unwrap_or_default()
        };
        assert_eq!(
            e("https://api.tavily.com", "search"),
            "https://api.tavily.com/search"
        );
        assert_eq!(e("https://h/searx", "search"), "https://h/searx/search");
        assert_eq!(e("https://h/searx/", "search"), "https://h/searx/search");
        assert!(endpoint("t", "ftp://h", "x").is_err());
    }

    #[test]
    fn snippets_are_plain() {
        assert_eq!(
            plain("The <strong>PadmaPay</strong> API &amp; SDK\u{200b}  docs &#x27;v2&#x27;"),
            "The PadmaPay API & SDK docs 'v2'"
        );
    }

    #[test]
    fn dates() {
        assert_eq!(
            date(Some("2024-01-15T10:00:00")).as_deref(),
            Some("2024-01-15")
        );
        assert_eq!(
            date(Some("Mon, 15 Jan 2024 10:00:00 GMT")).as_deref(),
            Some("2024-01-15")
        );
        assert_eq!(date(Some("2 days ago")), None);
        assert_eq!(date(None), None);
    }
}
