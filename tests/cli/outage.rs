//! Outages are outages: when every search (or every page fetch) fails for
//! network or backend reasons, the run ends `error` with its own reason,
//! names the backend and the error, exits 1 and says how to resume; it
//! never asks the user which company they meant.

use axum::Router;
use axum::http::StatusCode;
use axum::routing::post;
use serde_json::{Value, json};

use super::common::{TestHome, parse_events};
use dra::protocol::{EventBody, StatusReason, StatusState};

/// A loopback port nothing listens on.
pub(super) fn dead_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// A Tavily-style search server: every request gets a 500, or results
/// that point to pages on `pages_port`.
pub(super) fn search_server(fail: bool, pages_port: u16) -> (String, tokio::runtime::Runtime) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let app = Router::new().route(
        "/search",
        post(move |body: axum::Json<Value>| async move {
            if fail {
                return (StatusCode::INTERNAL_SERVER_ERROR, axum::Json(json!({"error": "backend down"})));
            }
            let page = format!("http://127.0.0.1:{pages_port}/about");
            (
                StatusCode::OK,
                axum::Json(json!({"query": body["query"], "results": [
                    {"title": "About Zephyr Parcel", "url": page, "content": "Zephyr Parcel is a courier company.", "score": 0.9}
                ]})),
            )
        }),
    );
    rt.spawn(async move { axum::serve(listener, app).await.unwrap() });
    (base, rt)
}

/// Runs `ask --web` against `base`, pages allowed on `pages_port`.
fn run(sb: &TestHome, base: &str, pages_port: u16) -> (Vec<dra::protocol::Event>, String, i32) {
    let out = sb
        .dra()
        .env("TAVILY_API_KEY", "tvly-test")
        .env("TAVILY_BASE_URL", base)
        .env(
            "DRA_FETCH_ALLOWLIST",
            format!(
                "127.0.0.1:{pages_port},{}",
                base.trim_start_matches("http://")
            ),
        )
        .arg("--runs-dir")
        .arg(sb.runs())
        .args([
            "--json",
            "ask",
            "--web",
            "Is Zephyr Parcel (Pune, India) a reliable courier partner?",
        ])
        .output()
        .unwrap();
    (
        parse_events(&String::from_utf8_lossy(&out.stdout)),
        String::from_utf8_lossy(&out.stderr).to_string(),
        out.status.code().unwrap_or(-1),
    )
}

fn assert_outage(events: &[dra::protocol::Event], stderr: &str, code: i32, want: StatusReason) {
    assert_eq!(code, 1, "{stderr}");
    let status = events
        .iter()
        .rev()
        .find_map(|e| match &e.body {
            EventBody::Status(s) if s.state.is_terminal() => Some(s.clone()),
            _ => None,
        })
        .expect("a terminal status");
    assert_eq!(status.state, StatusState::Error);
    assert_eq!(status.reason, Some(want), "{status:?}");
    assert!(
        !events
            .iter()
            .any(|e| matches!(e.body, EventBody::Clarification { .. })),
        "an outage is not a question for the user"
    );
    assert!(stderr.contains("dra resume "), "{stderr}");
}

#[test]
fn a_search_backend_that_refuses_connections_is_an_outage() {
    let sb = TestHome::new();
    let port = dead_port();
    let (events, stderr, code) = run(&sb, &format!("http://127.0.0.1:{port}"), port);
    assert_outage(&events, &stderr, code, StatusReason::SearchUnavailable);
    let report = std::fs::read_to_string(sb.run_dir().join("report.md")).unwrap();
    assert!(report.contains("Sources unreachable"), "{report}");
    assert!(report.contains("tavily"), "the backend is named: {report}");
    assert!(!report.contains("tvly-test"));
}

#[test]
fn a_search_backend_that_answers_500_is_an_outage() {
    let sb = TestHome::new();
    let (base, _rt) = search_server(true, dead_port());
    let (events, stderr, code) = run(&sb, &base, dead_port());
    assert_outage(&events, &stderr, code, StatusReason::SearchUnavailable);
}

#[test]
fn pages_that_cannot_be_fetched_are_an_outage_of_the_sources() {
    let sb = TestHome::new();
    let pages = dead_port();
    let (base, _rt) = search_server(false, pages);
    let (events, stderr, code) = run(&sb, &base, pages);
    assert_outage(&events, &stderr, code, StatusReason::SourcesUnreachable);
}
