//! The search backends against loopback servers that emulate each API:
//! assertions on the requests they send and on the hits they map.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::{any, get, post};
use dra::config::{Config, Layers, SearchSettings, Secret, Settings};
use dra::ports::{SearchBackend, SearchHit, WebError};
use dra::web::{Brave, SearchOptions, SearxNg, Tavily, search_backend_from_settings};
use serde_json::{Value, json};

use super::common::{percent_decode, serve, within};

const KEY: &str = "tvly-canary-SECRET-0123456789";

/// One request as the emulator saw it.
#[derive(Debug, Clone, Default)]
struct Req {
    method: String,
    path: String,
    query: BTreeMap<String, String>,
    headers: BTreeMap<String, String>,
    body: String,
}

#[derive(Clone, Default)]
struct Log {
    reqs: Arc<Mutex<Vec<Req>>>,
    /// Requests still to fail with 429 before answering.
    fail_first: Arc<AtomicUsize>,
}

impl Log {
    fn all(&self) -> Vec<Req> {
        self.reqs.lock().unwrap().clone()
    }
}

fn record(
    log: &Log,
    method: &str,
    path: &str,
    q: Option<String>,
    headers: &HeaderMap,
    body: String,
) {
    let query = q
        .unwrap_or_default()
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect();
    let headers = headers
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string()))
        .collect();
    log.reqs.lock().unwrap().push(Req {
        method: method.into(),
        path: path.into(),
        query,
        headers,
        body,
    });
}

fn opts() -> SearchOptions {
    SearchOptions {
        connect_timeout: Duration::from_secs(2),
        timeout: Duration::from_secs(5),
        retries: 2,
        first_retry_delay: Duration::from_millis(10),
    }
}

fn tavily_router(log: Log) -> Router {
    Router::new()
        .route(
            "/search",
            post(|State(log): State<Log>, headers: HeaderMap, body: String| async move {
                record(&log, "POST", "/search", None, &headers, body);
                if log.fail_first.load(Ordering::SeqCst) > 0 {
                    log.fail_first.fetch_sub(1, Ordering::SeqCst);
                    return (StatusCode::TOO_MANY_REQUESTS, "slow down").into_response();
                }
                if headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()) != Some(&format!("Bearer {KEY}")) {
                    // Echo the key back, as a careless API might.
                    let sent = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
                    return (StatusCode::UNAUTHORIZED, format!("{{\"detail\":{{\"error\":\"bad key {sent}\"}}}}")).into_response();
                }
                axum::Json(json!({
                    "query": "padmapay licence",
                    "response_time": 0.4,
                    "results": [
                        {"title": "PadmaPay licence renewed", "url": "https://news.example/padmapay-licence",
                         "content": "The RBI renewed PadmaPay's <b>payment aggregator</b> licence.", "score": 0.9,
                         "published_date": "Fri, 15 Mar 2024 10:00:00 GMT"},
                        {"title": "PadmaPay pricing", "url": "https://padmapay.example/pricing",
                         "content": "2% per transaction", "score": 0.7},
                        {"title": "Not a web page", "url": "ftp://files.example/x", "content": "x", "score": 0.1}
                    ]
                }))
                .into_response()
            }),
        )
        .with_state(log)
}

#[tokio::test]
async fn tavily_posts_the_query_with_a_bearer_key_and_maps_hits() {
    within(20, async {
        let log = Log::default();
        let addr = serve(tavily_router(log.clone())).await;
        let t = Tavily::with_options(Secret::new(KEY), &format!("http://{addr}"), opts()).unwrap();
        assert_eq!(t.name(), "tavily");
        let hits = t.search("padmapay licence", 3).await.unwrap();
        assert_eq!(
            hits,
            vec![
                SearchHit {
                    title: "PadmaPay licence renewed".into(),
                    url: "https://news.example/padmapay-licence".into(),
                    snippet: "The RBI renewed PadmaPay's payment aggregator licence.".into(),
                    published: Some("2024-03-15".into()),
                },
                SearchHit {
                    title: "PadmaPay pricing".into(),
                    url: "https://padmapay.example/pricing".into(),
                    snippet: "2% per transaction".into(),
                    published: None,
                },
            ]
        );
        let reqs = log.all();
        assert_eq!(reqs.len(), 1);
        let r = &reqs[0];
        assert_eq!((r.method.as_str(), r.path.as_str()), ("POST", "/search"));
        assert_eq!(r.headers["authorization"], format!("Bearer {KEY}"));
        assert_eq!(r.headers["content-type"], "application/json");
        let body: Value = serde_json::from_str(&r.body).unwrap();
        assert_eq!(body["query"], "padmapay licence");
        assert_eq!(body["max_results"], 3);
        assert!(!r.body.contains(KEY), "the key travels in the header only");
    })
    .await;
}

#[tokio::test]
async fn tavily_errors_never_carry_the_key_and_429_is_retried() {
    within(20, async {
        let log = Log::default();
        let addr = serve(tavily_router(log.clone())).await;
        let wrong = "tvly-wrong-key-SHOULD-NOT-LEAK";
        let t =
            Tavily::with_options(Secret::new(wrong), &format!("http://{addr}"), opts()).unwrap();
        let e = t.search("q", 5).await.unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("tavily") && msg.contains("401"), "{msg}");
        assert!(!msg.contains(wrong), "key leaked: {msg}");
        assert!(format!("{e:?}").find(wrong).is_none());
        assert_eq!(log.all().len(), 1, "401 is not retried");

        let log = Log::default();
        log.fail_first.store(2, Ordering::SeqCst);
        let addr = serve(tavily_router(log.clone())).await;
        let t = Tavily::with_options(Secret::new(KEY), &format!("http://{addr}"), opts()).unwrap();
        assert_eq!(t.search("q", 5).await.unwrap().len(), 2);
        assert_eq!(log.all().len(), 3, "two 429s, then success");

        let log = Log::default();
        log.fail_first.store(10, Ordering::SeqCst);
        let addr = serve(tavily_router(log.clone())).await;
        let t = Tavily::with_options(Secret::new(KEY), &format!("http://{addr}"), opts()).unwrap();
        let e = t.search("q", 5).await.unwrap_err();
        assert!(e.to_string().contains("rate limited"), "{e}");
        assert_eq!(log.all().len(), 3, "one try and two retries");
    })
    .await;
}

fn searxng_router(log: Log) -> Router {
    Router::new()
        .route(
            "/searx/search",
            get(|State(log): State<Log>, RawQuery(q): RawQuery, headers: HeaderMap| async move {
                record(&log, "GET", "/searx/search", q, &headers, String::new());
                let last = log.all().pop().unwrap();
                if last.query.get("format").map(String::as_str) != Some("json") {
                    return (StatusCode::FORBIDDEN, "Forbidden").into_response();
                }
                axum::Json(json!({
                    "query": last.query["q"],
                    "number_of_results": 0,
                    "results": (0..8).map(|i| json!({
                        "url": format!("https://site{i}.example/page"),
                        "title": format!("Result {i} &amp; more"),
                        "content": format!("Snippet {i}\u{200b} about \u{202e}PadmaPay"),
                        "engine": "duckduckgo",
                        "publishedDate": if i == 0 { json!("2023-11-05T00:00:00") } else { Value::Null },
                    })).collect::<Vec<_>>()
                }))
                .into_response()
            }),
        )
        .route(
            "/closed/search",
            get(|| async { (StatusCode::FORBIDDEN, "Forbidden").into_response() }),
        )
        .with_state(log)
}

#[tokio::test]
async fn searxng_gets_json_and_truncates_to_max() {
    within(20, async {
        let log = Log::default();
        let addr = serve(searxng_router(log.clone())).await;
        let s = SearxNg::with_options(&format!("http://{addr}/searx"), opts()).unwrap();
        assert_eq!(s.name(), "searxng");
        let hits = s.search("padmapay outage & refunds", 5).await.unwrap();
        assert_eq!(hits.len(), 5);
        assert_eq!(hits[0].title, "Result 0 & more");
        assert_eq!(hits[0].url, "https://site0.example/page");
        assert_eq!(
            hits[0].snippet, "Snippet 0 about PadmaPay",
            "invisible characters dropped"
        );
        assert_eq!(hits[0].published.as_deref(), Some("2023-11-05"));
        assert_eq!(hits[1].published, None);
        let r = &log.all()[0];
        assert_eq!(r.query["q"], "padmapay outage & refunds");
        assert_eq!(r.query["format"], "json");
        assert!(!r.headers.contains_key("authorization"));

        let closed = SearxNg::with_options(&format!("http://{addr}/closed"), opts()).unwrap();
        let e = closed.search("q", 5).await.unwrap_err();
        assert!(e.to_string().contains("search.formats"), "{e}");
    })
    .await;
}

fn brave_router(log: Log, leak: Log) -> Router {
    Router::new()
        .route(
            "/res/v1/web/search",
            get(|State(log): State<Log>, RawQuery(q): RawQuery, headers: HeaderMap| async move {
                record(&log, "GET", "/res/v1/web/search", q, &headers, String::new());
                axum::Json(json!({
                    "type": "search",
                    "web": {"results": [
                        {"title": "PadmaPay Reviews | <strong>Merchants</strong>", "url": "https://reviews.example/padmapay",
                         "description": "Merchants rate <strong>PadmaPay</strong> 4.1 &amp; praise support.",
                         "age": "March 3, 2024", "page_age": "2024-03-03T08:00:00"},
                        {"title": "PadmaPay status", "url": "https://status.padmapay.example/",
                         "description": "All systems operational"}
                    ]}
                }))
                .into_response()
            }),
        )
        .route(
            "/moved/res/v1/web/search",
            get(|| async { (StatusCode::FOUND, [(header::LOCATION, "/elsewhere")]).into_response() }),
        )
        .with_state(log)
        .merge(
            Router::new()
                .route(
                    "/elsewhere",
                    any(|State(leak): State<Log>, headers: HeaderMap| async move {
                        record(&leak, "GET", "/elsewhere", None, &headers, String::new());
                        StatusCode::OK
                    }),
                )
                .with_state(leak),
        )
}

#[tokio::test]
async fn brave_sends_the_subscription_token_and_strips_markup() {
    within(20, async {
        let log = Log::default();
        let leak = Log::default();
        let addr = serve(brave_router(log.clone(), leak.clone())).await;
        let b = Brave::with_options(Secret::new(KEY), &format!("http://{addr}"), opts()).unwrap();
        assert_eq!(b.name(), "brave");
        let hits = b.search("padmapay reviews", 50).await.unwrap();
        assert_eq!(hits.len(), 2);
        assert_eq!(hits[0].title, "PadmaPay Reviews | Merchants");
        assert_eq!(
            hits[0].snippet,
            "Merchants rate PadmaPay 4.1 & praise support."
        );
        assert_eq!(hits[0].published.as_deref(), Some("2024-03-03"));
        assert_eq!(hits[1].url, "https://status.padmapay.example/");
        let r = &log.all()[0];
        assert_eq!(r.headers["x-subscription-token"], KEY);
        assert_eq!(r.headers["accept"], "application/json");
        assert_eq!(r.query["q"], "padmapay reviews");
        assert_eq!(r.query["count"], "20", "count is capped at Brave's maximum");
        assert!(!r.headers.contains_key("authorization"));

        // A redirect is not followed, so the token cannot travel with it.
        let moved =
            Brave::with_options(Secret::new(KEY), &format!("http://{addr}/moved"), opts()).unwrap();
        let e = moved.search("q", 5).await.unwrap_err();
        assert!(
            matches!(&e, WebError::Failed(m) if m.contains("302")),
            "{e:?}"
        );
        assert!(!e.to_string().contains(KEY));
        assert!(leak.all().is_empty(), "the redirect target saw a request");
        // Control: the redirect target does record what reaches it.
        reqwest::Client::builder()
            .no_proxy()
            .build()
            .unwrap()
            .get(format!("http://{addr}/elsewhere"))
            .send()
            .await
            .unwrap();
        assert_eq!(leak.all().len(), 1);
    })
    .await;
}

fn config(env: &[(&str, String)]) -> SearchSettings {
    let mut layers = Layers::default();
    for (k, v) in env {
        layers.env.insert((*k).to_string(), v.clone());
    }
    Settings::from_config(&Config::resolve(&layers).unwrap()).search
}

#[tokio::test]
async fn from_config_prefers_tavily_then_searxng_then_brave() {
    within(20, async {
        let tavily_log = Log::default();
        let tavily = serve(tavily_router(tavily_log.clone())).await;
        let searx_log = Log::default();
        let searx = serve(searxng_router(searx_log.clone())).await;

        let all = [
            ("TAVILY_API_KEY", KEY.to_string()),
            ("TAVILY_BASE_URL", format!("http://{tavily}")),
            ("SEARXNG_URL", format!("http://{searx}/searx")),
            ("BRAVE_API_KEY", "brave-key".to_string()),
        ];
        let b = search_backend_from_settings(&config(&all)).unwrap();
        assert_eq!(b.name(), "tavily");
        assert_eq!(b.search("q", 2).await.unwrap().len(), 2);
        assert_eq!(
            tavily_log.all().len(),
            1,
            "the configured base URL was used"
        );

        let b = search_backend_from_settings(&config(&all[2..])).unwrap();
        assert_eq!(b.name(), "searxng");
        assert_eq!(b.search("q", 2).await.unwrap().len(), 2);
        assert_eq!(searx_log.all().len(), 1);

        let b = search_backend_from_settings(&config(&all[3..])).unwrap();
        assert_eq!(b.name(), "brave");

        assert!(search_backend_from_settings(&config(&[])).is_none());
    })
    .await;
}

/// A backend that never answers within the timeout is an outage: the
/// search fails (after its retries) with "timed out", and the run's reach
/// calls that `search_unavailable`, not a question for the user.
#[tokio::test]
async fn a_search_that_times_out_is_an_outage() {
    let app = Router::new().route(
        "/search",
        post(|| async {
            tokio::time::sleep(Duration::from_secs(5)).await;
            "late"
        }),
    );
    let addr = serve(app).await;
    let quick = SearchOptions {
        timeout: Duration::from_millis(200),
        ..opts()
    };
    let t = Tavily::with_options(Secret::new(KEY), &format!("http://{addr}"), quick).unwrap();
    let result = within(20, t.search("padmapay", 5)).await;
    match &result {
        Err(WebError::Failed(m)) => assert!(m.contains("timed out"), "{m}"),
        other => panic!("{other:?}"),
    }
    let reach = dra::engine::reach::Reach::default();
    reach.search(&result);
    let outage = reach.outage("tavily").expect("an outage");
    assert_eq!(
        outage.reason,
        dra::protocol::StatusReason::SearchUnavailable
    );
    assert!(outage.detail.contains("timed out"), "{}", outage.detail);
}
