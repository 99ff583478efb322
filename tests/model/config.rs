//! Clients built from configuration: one per tier slot, with the settings
//! that decide streaming, retries and the tool protocol.

use std::sync::Arc;

use dra::config::{Config, Layers, Settings};
use dra::engine::model::openai::{ModelBuildError, router_from_settings};
use dra::engine::model::{ModelError, NoSink};
use serde_json::json;

use super::scripted::{Reply, Scripted, delta, finish, text_completion};
use super::{KEY, question, request, within};

fn config(env: &[(&str, &str)]) -> Config {
    let layers = Layers {
        env: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..Layers::default()
    };
    Config::resolve(&layers).unwrap()
}

#[tokio::test]
async fn one_client_per_slot_with_the_tier_slugs_and_streaming_rules() {
    within(async {
        let mut stream = vec![delta(json!({"content": "streamed"}))];
        stream.extend(finish("stop", (1, 1)));
        let server = Scripted::start(vec![
            Reply::sse(&stream),
            Reply::json(text_completion("whole")),
            Reply::status(503, json!({"error": {"message": "down"}})),
        ])
        .await;
        let base = server.base_url();
        let c = config(&[
            ("OPENROUTER_API_KEY", KEY),
            ("OPENAI_BASE_URL", &base),
            ("DRA_MODEL_TIER", "low"),
            ("DRA_MAX_RETRIES", "0"),
            ("DRA_TOOL_PROTOCOL", "native"),
        ]);
        let router = router_from_settings(&Settings::from_config(&c), None).unwrap();
        assert_eq!(router.research.slug(), "deepseek/deepseek-v4-pro");
        assert_eq!(router.subagent.slug(), "deepseek/deepseek-v4-flash");
        // Same slug, same client (and so the same learnt fallback).
        assert!(Arc::ptr_eq(&router.subagent, &router.utility));

        let req = request(question(), vec![]);
        let r = router.research.complete(&req, &NoSink).await.unwrap();
        assert_eq!(r.content, "streamed");
        assert_eq!(r.model, "deepseek/deepseek-v4-pro");
        let r = router.subagent.complete(&req, &NoSink).await.unwrap();
        assert_eq!(r.content, "whole");
        // DRA_MAX_RETRIES=0: the 503 is final at once.
        let err = router.utility.complete(&req, &NoSink).await.unwrap_err();
        assert!(
            matches!(err, ModelError::Http { status: 503, .. }),
            "{err:?}"
        );

        let reqs = server.requests();
        assert_eq!(reqs.len(), 3);
        assert_eq!(reqs[0].body["model"], "deepseek/deepseek-v4-pro");
        assert_eq!(reqs[0].body["stream"], true);
        // deepseek-v4-flash is on the default streaming denylist.
        assert_eq!(reqs[1].body["model"], "deepseek/deepseek-v4-flash");
        assert_eq!(reqs[1].body["stream"], false);
        for q in &reqs {
            assert_eq!(
                q.header("authorization"),
                Some(format!("Bearer {KEY}").as_str())
            );
        }
    })
    .await;
}

#[tokio::test]
async fn streaming_off_and_the_envelope_protocol_come_from_settings() {
    within(async {
        let server = Scripted::start(vec![Reply::json(text_completion("FINAL>>> ok"))]).await;
        let base = server.base_url();
        let c = config(&[
            ("OPENAI_API_KEY", KEY),
            ("OPENAI_BASE_URL", &base),
            ("DRA_STREAMING", "false"),
            ("DRA_TOOL_PROTOCOL", "envelope"),
        ]);
        let router = router_from_settings(&Settings::from_config(&c), None).unwrap();
        let r = router
            .research
            .complete(&request(question(), vec![super::search_tool()]), &NoSink)
            .await
            .unwrap();
        assert_eq!(r.content, "ok");
        let q = &server.requests()[0];
        assert_eq!(q.body["stream"], false);
        assert!(q.body.get("tools").is_none());
        assert_eq!(q.body["model"], "xiaomi/mimo-v2.5");
    })
    .await;
}

#[test]
fn no_key_no_router() {
    let err = router_from_settings(&Settings::from_config(&config(&[])), None)
        .err()
        .unwrap();
    assert!(matches!(err, ModelBuildError::NoApiKey));
}
