//! MCP session bounds over streamable HTTP, in-process: at most
//! `max_sessions` open at once (a new one beyond is refused with a message
//! that says what to do), and a closed session makes room again.

use axum::body::Body;
use axum::http::Request as HttpRequest;
use rea_serve::{app, Environment, ServeConfig, SessionBounds, StartOptions};
use serde_json::json;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

fn initialize() -> Body {
    Body::from(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-03-26", "capabilities": {},
            "clientInfo": {"name": "bounds-test", "version": "1"}}})
        .to_string(),
    )
}

fn mcp(method: &str, session: Option<&str>, body: Body) -> HttpRequest<Body> {
    let mut req = HttpRequest::builder()
        .method(method)
        .uri("/mcp")
        .header("host", "127.0.0.1:18999")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    if let Some(id) = session {
        req = req.header("mcp-session-id", id);
    }
    req.body(body).unwrap()
}

#[tokio::test]
async fn sessions_beyond_the_bound_are_refused_until_one_closes() {
    let capture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/kinto/dev-a.har");
    let env = Environment::from_capture(&capture, &StartOptions::default())
        .unwrap()
        .with_session_bounds(SessionBounds {
            max_sessions: 2,
            idle_timeout: Duration::from_secs(60),
        });
    let config = ServeConfig {
        host: "127.0.0.1".into(),
        port: 18999,
        data_root: None,
        ..Default::default()
    };
    let router = app(Arc::new(env), &config, CancellationToken::new());
    let mut ids = Vec::new();
    for _ in 0..2 {
        let res = router
            .clone()
            .oneshot(mcp("POST", None, initialize()))
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
        let id = res.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_string();
        ids.push(id);
    }
    let refused = router
        .clone()
        .oneshot(mcp("POST", None, initialize()))
        .await
        .unwrap();
    assert!(refused.status().is_server_error(), "{}", refused.status());
    let body = axum::body::to_bytes(refused.into_body(), 1 << 20)
        .await
        .unwrap();
    let text = String::from_utf8_lossy(&body);
    assert!(text.contains("maximum of 2 open MCP sessions"), "{text}");
    assert!(text.contains("--max-sessions"), "{text}");
    // Closing one makes room for a new one.
    let closed = router
        .clone()
        .oneshot(mcp("DELETE", Some(&ids[0]), Body::empty()))
        .await
        .unwrap();
    assert!(closed.status().is_success(), "{}", closed.status());
    let mut admitted = false;
    for _ in 0..50 {
        let res = router
            .clone()
            .oneshot(mcp("POST", None, initialize()))
            .await
            .unwrap();
        if res.status() == 200 {
            admitted = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(admitted, "a closed session made no room");
}
