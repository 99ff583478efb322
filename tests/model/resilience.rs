//! Failures: rate limits, gateway errors, dropped and stalled streams,
//! timeouts, refusals, and the key staying secret through all of them.

use std::time::{Duration, Instant};

use dra::config::Secret;
use dra::engine::model::openai::{OpenAiClient, OpenAiOptions};
use dra::engine::model::{ChatModel, ModelError, NoSink};
use serde_json::json;

use super::scripted::{Piece, Reply, Scripted, completion, data, delta, finish, text_completion};
use super::{KEY, Notices, client, options, question, request, within};

fn ok_stream(text: &str) -> Reply {
    let mut chunks = vec![delta(json!({"content": text}))];
    chunks.extend(finish("stop", (3, 2)));
    Reply::sse(&chunks)
}

#[tokio::test]
async fn a_rate_limit_waits_as_long_as_retry_after_says() {
    within(async {
        let server = Scripted::start(vec![
            Reply::status(429, json!({"error": {"message": "slow down", "code": 429}}))
                .header("retry-after", "1"),
            Reply::json(text_completion("after the wait")),
        ])
        .await;
        let model = client(options(&server, "test/rl"));
        let notices = Notices::default();
        let started = Instant::now();
        let r = model
            .complete(&request(question(), vec![]), &notices)
            .await
            .unwrap();
        let waited = started.elapsed();
        assert_eq!(r.content, "after the wait");
        assert!(waited >= Duration::from_millis(950), "{waited:?}");
        assert_eq!(notices.retries(), vec![(1, 1000, "HTTP 429".to_string())]);
        assert_eq!(server.requests().len(), 2);
    })
    .await;
}

#[tokio::test]
async fn gateway_errors_back_off_then_succeed() {
    within(async {
        let server = Scripted::start(vec![
            Reply::status(500, json!({"error": {"message": "internal"}})),
            Reply::status(502, json!({"error": {"message": "bad gateway"}}))
                .header("retry-after-ms", "30"),
            Reply::status(503, json!({"error": {"message": "unavailable"}})),
            Reply::json(text_completion("fine now")),
        ])
        .await;
        let model = client(options(&server, "test/gw"));
        let notices = Notices::default();
        let r = model
            .complete(&request(question(), vec![]), &notices)
            .await
            .unwrap();
        assert_eq!(r.content, "fine now");
        let retries = notices.retries();
        let attempts: Vec<u32> = retries.iter().map(|r| r.0).collect();
        let reasons: Vec<&str> = retries.iter().map(|r| r.2.as_str()).collect();
        assert_eq!(attempts, vec![1, 2, 3]);
        assert_eq!(reasons, vec!["HTTP 500", "HTTP 502", "HTTP 503"]);
        // Backoff from 5 ms with jitter; the provider's 30 ms where it said.
        assert!((5..10).contains(&retries[0].1), "{retries:?}");
        assert_eq!(retries[1].1, 30);
        assert!((10..=40).contains(&retries[2].1), "{retries:?}");
        assert_eq!(server.requests().len(), 4);
    })
    .await;
}

#[tokio::test]
async fn retries_run_out_with_the_last_status() {
    within(async {
        let server = Scripted::start(vec![
            Reply::status(503, json!({"error": {"message": "down"}})),
            Reply::status(503, json!({"error": {"message": "down"}})),
            Reply::status(503, json!({"error": {"message": "still down"}})),
            Reply::json(text_completion("never reached")),
        ])
        .await;
        let mut o = options(&server, "test/down");
        o.max_retries = 2;
        let notices = Notices::default();
        let err = client(o)
            .complete(&request(question(), vec![]), &notices)
            .await
            .unwrap_err();
        match err {
            ModelError::Http {
                status,
                body_excerpt,
            } => {
                assert_eq!(status, 503);
                assert!(body_excerpt.contains("still down"), "{body_excerpt}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(notices.retries().len(), 2);
        assert_eq!(server.requests().len(), 3);
        assert_eq!(server.remaining(), 1);
    })
    .await;
}

#[tokio::test]
async fn other_client_errors_are_never_retried() {
    within(async {
        for status in [400u16, 401, 403, 404, 408, 422] {
            let server = Scripted::start(vec![
                Reply::status(
                    status,
                    json!({"error": {"message": format!("problem {status}")}}),
                ),
                Reply::json(text_completion("never reached")),
            ])
            .await;
            let notices = Notices::default();
            let err = client(options(&server, "test/4xx"))
                .complete(&request(question(), vec![]), &notices)
                .await
                .unwrap_err();
            match err {
                ModelError::Http {
                    status: s,
                    body_excerpt,
                } => {
                    assert_eq!(s, status);
                    assert!(body_excerpt.contains(&format!("problem {status}")));
                }
                other => panic!("{status}: {other:?}"),
            }
            assert_eq!(server.requests().len(), 1, "{status}");
            assert!(notices.retries().is_empty());
        }
    })
    .await;
}

#[tokio::test]
async fn a_dropped_or_truncated_stream_is_retried() {
    within(async {
        let server = Scripted::start(vec![
            Reply::Sse(vec![
                Piece::Raw(data(&delta(json!({"content": "half"})))),
                // Let the headers and first chunk reach the client first.
                Piece::Pause(Duration::from_millis(50)),
                Piece::Drop,
            ]),
            // Ends cleanly but before any finish or [DONE].
            Reply::Sse(vec![Piece::Raw(data(&delta(json!({"content": "half"}))))]),
            ok_stream("whole"),
        ])
        .await;
        let mut o = options(&server, "test/drop");
        o.streaming = true;
        let notices = Notices::default();
        let r = client(o)
            .complete(&request(question(), vec![]), &notices)
            .await
            .unwrap();
        assert_eq!(r.content, "whole");
        let reasons: Vec<String> = notices.retries().into_iter().map(|r| r.2).collect();
        assert_eq!(reasons, vec!["stream dropped", "stream truncated"]);
        assert_eq!(server.requests().len(), 3);
    })
    .await;
}

#[tokio::test]
async fn a_stalled_stream_hits_the_idle_timeout() {
    within(async {
        let stalled = || {
            Reply::Sse(vec![
                Piece::Raw(data(&delta(json!({"content": "thinking about"})))),
                Piece::Stall,
            ])
        };
        let server = Scripted::start(vec![stalled(), stalled(), ok_stream("recovered")]).await;
        let mut o = options(&server, "test/stall");
        o.streaming = true;
        o.max_retries = 0;
        let started = Instant::now();
        let err = client(o.clone())
            .complete(&request(question(), vec![]), &NoSink)
            .await
            .unwrap_err();
        assert!(
            matches!(err, ModelError::Stalled { idle_ms: 300 }),
            "{err:?}"
        );
        let took = started.elapsed();
        assert!(
            took >= Duration::from_millis(290) && took < Duration::from_secs(3),
            "{took:?}"
        );
        // With a retry, the next attempt recovers.
        o.max_retries = 2;
        let notices = Notices::default();
        let r = client(o)
            .complete(&request(question(), vec![]), &notices)
            .await
            .unwrap();
        assert_eq!(r.content, "recovered");
        assert!(notices.retries()[0].2.contains("stalled"));
    })
    .await;
}

#[tokio::test]
async fn keep_alive_comments_keep_a_slow_stream_alive() {
    within(async {
        // 800 ms before the first token, idle timeout 300 ms: the comments
        // every 100 ms say the connection is alive.
        let mut pieces = Vec::new();
        for _ in 0..8 {
            pieces.push(Piece::Raw(": OPENROUTER PROCESSING\n\n".into()));
            pieces.push(Piece::Pause(Duration::from_millis(100)));
        }
        pieces.push(Piece::Raw(data(&delta(
            json!({"content": "slow but alive"}),
        ))));
        for c in finish("stop", (1, 1)) {
            pieces.push(Piece::Raw(data(&c)));
        }
        pieces.push(Piece::Raw("data: [DONE]\n\n".into()));
        let server = Scripted::start(vec![Reply::Sse(pieces)]).await;
        let mut o = options(&server, "test/alive");
        o.streaming = true;
        o.max_retries = 0;
        let r = client(o)
            .complete(&request(question(), vec![]), &NoSink)
            .await
            .unwrap();
        assert_eq!(r.content, "slow but alive");
    })
    .await;
}

#[tokio::test]
async fn the_request_timeout_bounds_a_slow_answer() {
    within(async {
        // Bytes keep trickling (so the idle timer never fires), but the
        // answer takes longer than the request ceiling.
        let mut pieces = Vec::new();
        for _ in 0..40 {
            pieces.push(Piece::Raw(": still working\n\n".into()));
            pieces.push(Piece::Pause(Duration::from_millis(50)));
        }
        let server = Scripted::start(vec![Reply::Sse(pieces)]).await;
        let mut o = options(&server, "test/slow");
        o.streaming = true;
        o.max_retries = 0;
        o.request_timeout = Duration::from_millis(400);
        o.idle_timeout = Duration::from_secs(5);
        let started = Instant::now();
        let err = client(o)
            .complete(&request(question(), vec![]), &NoSink)
            .await
            .unwrap_err();
        assert!(matches!(err, ModelError::Timeout(_)), "{err:?}");
        assert!(started.elapsed() < Duration::from_millis(1500));
    })
    .await;
}

#[tokio::test]
async fn refusals_carry_the_providers_words_and_are_not_retried() {
    within(async {
        let server = Scripted::start(vec![
            Reply::json(completion(
                json!({"content": "I cannot continue with this request."}),
                "content_filter",
                (5, 5),
            )),
            Reply::json(completion(
                json!({"content": null, "refusal": "I can't help with that."}),
                "stop",
                (5, 5),
            )),
            Reply::status(
                400,
                json!({"error": {"message": "Your request was rejected as a result of our safety system (content policy)."}}),
            ),
        ])
        .await;
        let model = client(options(&server, "test/refuse"));
        let req = request(question(), vec![]);
        let mut words = Vec::new();
        for _ in 0..3 {
            match model.complete(&req, &NoSink).await {
                Err(ModelError::Refused(w)) => words.push(w),
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(words[0], "I cannot continue with this request.");
        assert_eq!(words[1], "I can't help with that.");
        assert!(words[2].contains("safety system"), "{}", words[2]);
        assert_eq!(server.requests().len(), 3);
    })
    .await;
}

#[tokio::test]
async fn an_in_band_stream_error_is_retried() {
    within(async {
        let server = Scripted::start(vec![
            Reply::sse(&[
                delta(json!({"content": "par"})),
                json!({"error": {"message": "Provider disconnected", "code": 502},
                       "choices": [{"delta": {}, "finish_reason": "error"}]}),
            ]),
            ok_stream("second time"),
        ])
        .await;
        let mut o = options(&server, "test/inband");
        o.streaming = true;
        let notices = Notices::default();
        let r = client(o)
            .complete(&request(question(), vec![]), &notices)
            .await
            .unwrap();
        assert_eq!(r.content, "second time");
        assert!(notices.retries()[0].2.contains("Provider disconnected"));
    })
    .await;
}

fn assert_hidden(what: &str, text: &str) {
    assert!(!text.contains(KEY), "{what} shows the key: {text}");
    assert!(
        !text.contains("canary"),
        "{what} shows part of the key: {text}"
    );
}

#[tokio::test]
async fn the_key_never_shows_in_errors_notices_or_debug() {
    within(async {
        let echo =
            json!({"error": {"message": format!("Incorrect API key provided: {KEY}. Check it.")}});
        let server = Scripted::start(vec![
            Reply::status(401, echo.clone()),
            Reply::status(500, echo.clone()),
            Reply::status(500, echo.clone()),
            Reply::sse(&[json!({"error": {"message": format!("bad key {KEY}"), "code": 401}})]),
        ])
        .await;
        let mut o = options(&server, "test/secret");
        o.max_retries = 1;
        let model = client(o.clone());
        assert_hidden("client Debug", &format!("{model:?}"));
        assert_hidden("options Debug", &format!("{o:?}"));
        let notices = Notices::default();
        let req = request(question(), vec![]);
        let mut errors = Vec::new();
        errors.push(model.complete(&req, &notices).await.unwrap_err());
        errors.push(model.complete(&req, &notices).await.unwrap_err());
        o.streaming = true;
        errors.push(client(o).complete(&req, &notices).await.unwrap_err());

        // A refused connection to a URL that carries the key itself.
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = closed.local_addr().unwrap().port();
        drop(closed);
        let mut o = OpenAiOptions::new(
            format!("http://user:{KEY}@127.0.0.1:{port}/v1"),
            Secret::new(KEY),
            "test/secret",
        );
        o.max_retries = 1;
        o.backoff_base = Duration::from_millis(5);
        let keyed = OpenAiClient::new(o).unwrap();
        assert_hidden("client Debug", &format!("{keyed:?}"));
        let err = keyed.complete(&req, &notices).await.unwrap_err();
        assert!(matches!(err, ModelError::Connection(_)), "{err:?}");
        errors.push(err);

        assert_eq!(errors.len(), 4);
        for e in &errors {
            assert_hidden("error Display", &e.to_string());
            assert_hidden("error Debug", &format!("{e:?}"));
        }
        assert!(
            errors[0]
                .to_string()
                .contains("Incorrect API key provided: ***")
        );
        for n in notices.all() {
            assert_hidden("notice", &format!("{n:?}"));
        }
        assert!(!notices.retries().is_empty());
    })
    .await;
}
