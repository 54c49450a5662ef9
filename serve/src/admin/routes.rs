//! The admin router under the prefix (`/_rea` by default): the live page,
//! the journal (JSON, SSE, DELETE), coverage, health and readiness, and the
//! environment's tools and tables for the page; plus the layer that writes
//! the log line of every HTTP request the journal does not already log.

use super::journal::{self, Filter};
use crate::environment::Environment;
use axum::extract::{Query, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use futures_util::Stream;
use serde_json::{json, Value};
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::broadcast::error::RecvError;
use tokio_util::sync::CancellationToken;

/// The live page: one self-contained file, no external assets.
const PAGE: &str = include_str!("page.html");
/// Rows per table the page asks for unless it says otherwise.
const DEFAULT_ROWS: usize = 50;
const MAX_ROWS: usize = 1000;

/// Marks a response whose request the journal already logged.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Journaled;

#[derive(Clone)]
struct Admin {
    env: Arc<Environment>,
    /// Ends the SSE streams when the server shuts down.
    closing: CancellationToken,
}

/// The admin routes at `env.ops().prefix()`.
pub(crate) fn router<S: Clone + Send + Sync + 'static>(
    env: Arc<Environment>,
    closing: CancellationToken,
) -> Router<S> {
    let prefix = env.ops().prefix().to_string();
    let at = |path: &str| format!("{prefix}{path}");
    Router::new()
        .route(&prefix, get(page))
        .route(&at("/"), get(page))
        .route(&at("/health"), get(health))
        .route(&at("/ready"), get(ready))
        .route(&at("/environment"), get(environment))
        .route(&at("/tables"), get(tables))
        .route(&at("/requests"), get(requests).delete(clear))
        .route(&at("/requests/stream"), get(stream))
        .route(&at("/coverage"), get(coverage))
        .route(&at(crate::openapi::OPENAPI_FILE), get(openapi))
        // More admin routes go here, as `.route(&at("/name"), get(handler))`.
        .with_state(Admin { env, closing })
}

async fn page() -> Response {
    let mut response = (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        PAGE,
    )
        .into_response();
    // Nothing but this origin: the page loads no external asset.
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:",
        ),
    );
    response
}

async fn health() -> Json<Value> {
    Json(json!({"status": "ok"}))
}

async fn ready(State(admin): State<Admin>) -> Response {
    if admin.env.ops().is_ready() {
        Json(json!({"ready": true})).into_response()
    } else {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(json!({"ready": false, "message": "not listening yet"})),
        )
            .into_response()
    }
}

async fn environment(State(admin): State<Admin>) -> Json<Value> {
    let env = &admin.env;
    let tools: Vec<Value> = env
        .all_tools()
        .iter()
        .map(|t| {
            json!({
                "name": t.tool.name,
                "method": t.tool.method,
                "template": t.tool.path_template,
                "kind": match t.kind { crate::model::ToolKind::Read => "read", crate::model::ToolKind::Write => "write" },
                "plan": t.plan,
                "reason": t.reason,
                "served": t.served,
            })
        })
        .collect();
    Json(json!({
        "name": env.name(),
        "model": env.model_name(),
        "about": env.ops().about(),
        "prefix": env.ops().prefix(),
        "version": env!("CARGO_PKG_VERSION"),
        "journal_capacity": env.ops().journal().capacity(),
        "tools": tools,
    }))
}

#[derive(serde::Deserialize)]
struct Rows {
    limit: Option<usize>,
}

/// Each table with its row count and its first rows.
async fn tables(State(admin): State<Admin>, Query(rows): Query<Rows>) -> Json<Value> {
    let limit = rows.limit.unwrap_or(DEFAULT_ROWS).min(MAX_ROWS);
    let env = admin.env.clone();
    let world = tokio::task::spawn_blocking(move || env.export())
        .await
        .unwrap_or(Value::Null);
    let mut out = Vec::new();
    if let Some(Value::Object(collections)) = world.get("collections") {
        for (name, rows) in collections {
            let rows = rows.as_array().cloned().unwrap_or_default();
            out.push(json!({
                "name": name,
                "count": rows.len(),
                "rows": rows.into_iter().take(limit).collect::<Vec<_>>(),
            }));
        }
    }
    if let Some(Value::Object(docs)) = world.get("documents") {
        let rows: Vec<Value> = docs
            .iter()
            .take(limit)
            .map(|(path, value)| json!({"path": path, "value": value}))
            .collect();
        out.push(json!({"name": "documents", "count": docs.len(), "rows": rows}));
    }
    Json(json!({ "tables": out }))
}

async fn requests(State(admin): State<Admin>, Query(filter): Query<Filter>) -> Json<Value> {
    let journal = admin.env.ops().journal();
    let entries = journal.entries(&filter);
    Json(json!({
        "capacity": journal.capacity(),
        "held": journal.len(),
        "count": entries.len(),
        "entries": entries,
    }))
}

async fn clear(State(admin): State<Admin>) -> Response {
    admin.env.ops().journal().clear();
    StatusCode::NO_CONTENT.into_response()
}

/// New entries as they are journaled: `event: entry` with the entry's JSON,
/// `event: cleared` after a DELETE, `event: lagged` when the reader fell
/// behind (the count skipped).
async fn stream(State(admin): State<Admin>) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let rx = admin.env.ops().journal().subscribe();
    let events = futures_util::stream::unfold(
        (rx, admin.closing),
        |(mut rx, closing)| async move {
            let event = tokio::select! {
                _ = closing.cancelled() => return None,
                msg = rx.recv() => match msg {
                    Ok(journal::Event::Entry(text)) => Event::default().event("entry").data(&*text),
                    Ok(journal::Event::Cleared) => Event::default().event("cleared").data("{}"),
                    Err(RecvError::Lagged(n)) => Event::default().event("lagged").data(n.to_string()),
                    Err(RecvError::Closed) => return None,
                },
            };
            Some((Ok(event), (rx, closing)))
        },
    );
    Sse::new(events).keep_alive(KeepAlive::default())
}

async fn coverage(State(admin): State<Admin>) -> Json<Value> {
    Json(super::coverage(&admin.env))
}

async fn openapi(State(admin): State<Admin>) -> Response {
    crate::openapi::response(&admin.env)
}

/// Logs every HTTP request the journal did not log itself (admin routes,
/// the card, MCP transport requests at debug: their tool calls are journaled).
pub(crate) async fn log_layer(request: Request, next: Next) -> Response {
    let started = Instant::now();
    // Cheap handles (no text copied): most answers are journaled, and their
    // line was written by the journal.
    let method = request.method().clone();
    let uri = request.uri().clone();
    let response = next.run(request).await;
    log_unjournaled(&method, uri.path(), &response, started);
    response
}

/// Writes the log line of a response whose request the journal did not log.
pub(crate) fn log_unjournaled(
    method: &axum::http::Method,
    path: &str,
    response: &Response,
    started: Instant,
) {
    if response.extensions().get::<Journaled>().is_some() {
        return;
    }
    let method = method.as_str();
    let status = response.status().as_u16();
    let duration_ms = (started.elapsed().as_secs_f64() * 1e6).round() / 1e3;
    if path == "/mcp" || path.starts_with("/mcp/") {
        tracing::debug!(target: "rea::request", surface = "mcp-transport", method, path, status, duration_ms, "{method} {path} {status}");
    } else {
        super::line::info(&super::line::RequestLine {
            surface: "http",
            method,
            path,
            tool: "-",
            source: "-",
            status,
            duration_ms,
        });
    }
}
