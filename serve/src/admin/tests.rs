//! The admin router in-process (tower `oneshot`, no socket) on the
//! `testing::Notes` model: readiness before a listener, the SSE stream
//! delivering an entry and ending on shutdown, where answers come from.

use super::{source_of, Source};
use crate::testing::Notes;
use crate::{app, Environment, ServeConfig};
use axum::body::Body;
use axum::http::{Request as HttpRequest, StatusCode};
use http_body_util::BodyExt;
use rea_engine::{Answer, AnswerBody, Applied};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

fn env() -> Arc<Environment> {
    Arc::new(Environment::new(Notes::new(), None, None))
}

fn config() -> ServeConfig {
    ServeConfig {
        host: "127.0.0.1".into(),
        port: 0,
        data_root: None,
        ..ServeConfig::default()
    }
}

async fn get(env: &Arc<Environment>, uri: &str) -> (StatusCode, Vec<u8>) {
    let router = app(env.clone(), &config(), CancellationToken::new());
    let req = HttpRequest::builder().uri(uri).body(Body::empty()).unwrap();
    let res = router.oneshot(req).await.unwrap();
    let status = res.status();
    (
        status,
        res.into_body().collect().await.unwrap().to_bytes().to_vec(),
    )
}

#[tokio::test]
async fn ready_only_once_listening_and_health_always() {
    let env = env();
    assert_eq!(get(&env, "/_rea/health").await.0, StatusCode::OK);
    assert_eq!(
        get(&env, "/_rea/ready").await.0,
        StatusCode::SERVICE_UNAVAILABLE
    );
    env.ops().set_ready();
    assert_eq!(get(&env, "/_rea/ready").await.0, StatusCode::OK);
}

#[tokio::test]
async fn the_stream_sends_each_entry_and_ends_on_shutdown() {
    let env = env();
    let closing = CancellationToken::new();
    let router = app(env.clone(), &config(), closing.clone());
    let req = HttpRequest::builder()
        .uri("/_rea/requests/stream")
        .body(Body::empty())
        .unwrap();
    let res = router.oneshot(req).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream"));
    let mut body = res.into_body();
    // A call of the fake after the stream opened arrives as one event.
    assert_eq!(get(&env, "/v1/notes/1").await.0, StatusCode::OK);
    let frame = tokio::time::timeout(Duration::from_secs(5), body.frame())
        .await
        .expect("an event within 5 s")
        .expect("a frame")
        .unwrap();
    let text = String::from_utf8(frame.into_data().unwrap().to_vec()).unwrap();
    assert!(text.starts_with("event: entry\ndata: {"), "{text}");
    assert!(text.contains("\"path\":\"/v1/notes/1\""), "{text}");
    // Shutdown ends the stream (so a graceful shutdown never waits on it).
    closing.cancel();
    let end = tokio::time::timeout(Duration::from_secs(5), body.frame())
        .await
        .expect("the stream ends within 5 s");
    assert!(end.is_none(), "{end:?}");
}

fn answer(
    tool: Option<&str>,
    code: Option<&str>,
    rendered: Option<u64>,
    applied: Applied,
) -> Answer {
    Answer {
        status: 200,
        content_type: None,
        headers: vec![],
        body: AnswerBody::Empty,
        tool: tool.map(str::to_string),
        applied,
        error_code: code.map(str::to_string),
        rendered,
    }
}

#[test]
fn sources_tell_world_recording_model_and_unmatched_apart() {
    use Applied::{No, Yes};
    let t = Some("get_note");
    assert_eq!(source_of(&answer(t, None, Some(3), No)), Source::World);
    assert_eq!(
        source_of(&answer(Some("create_note"), None, None, Yes)),
        Source::World
    );
    assert_eq!(
        source_of(&answer(t, Some("not_found"), None, No)),
        Source::World
    );
    assert_eq!(source_of(&answer(t, None, None, No)), Source::Recording);
    assert_eq!(source_of(&answer(None, None, None, Yes)), Source::Model);
    for code in [
        "no_matching_tool",
        "not_recorded",
        "write_not_served",
        "unknown_tool",
    ] {
        assert_eq!(
            source_of(&answer(t, Some(code), None, No)),
            Source::Unmatched
        );
    }
    assert_eq!(
        source_of(&answer(None, Some("body_not_json"), None, No)),
        Source::Unmatched
    );
}

#[tokio::test]
async fn a_reset_repacks_the_journal_into_equal_entries() {
    let env = env();
    for uri in ["/v1/notes/1", "/v1/notes/2", "/v1/nothing-here"] {
        get(&env, uri).await;
    }
    let journal = env.ops().journal();
    let before = journal.entries(&super::Filter::default());
    assert_eq!(before.len(), 3);
    let text = |entries: &[Arc<super::Entry>]| serde_json::to_string(entries).unwrap();
    // A reset retires the World on its own thread, then re-allocates the
    // entries there: the same entries, in new allocations.
    env.reset();
    let mut after = journal.entries(&super::Filter::default());
    for _ in 0..500 {
        if !Arc::ptr_eq(&after[0], &before[0]) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
        after = journal.entries(&super::Filter::default());
    }
    assert!(after.iter().zip(&before).all(|(a, b)| !Arc::ptr_eq(a, b)));
    assert_eq!(text(&after), text(&before));
    // Entries keep arriving after a repack, numbered on.
    get(&env, "/v1/notes/1").await;
    let last = journal.entries(&super::Filter::default());
    assert_eq!(last.len(), 4);
    assert_eq!(last[3].id, before[2].id + 1);
}
