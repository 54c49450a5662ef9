//! The recorded API at its own paths: one fallback handler turning a request
//! line into an environment call, answering with the recorded content type and
//! only the recorded headers that still describe the answer. `HEAD` answers
//! as the path's `GET` without the body where no `HEAD` was recorded; a known
//! path with an unknown method answers `405` with `Allow` where the
//! recording showed a `405`.

use crate::environment::{Environment, Reply, Request};
use crate::outcome::content_type;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use rea_engine::replayable;
use rea_engine::{Answer, Call, Refusal};
use std::sync::Arc;

/// The fallback handler: every request no other route took.
pub(crate) async fn fallback(
    State(env): State<Arc<Environment>>,
    mut request: axum::extract::Request,
) -> Response {
    let started = std::time::Instant::now();
    // The request's parts are taken, not copied; a request without a body
    // (most reads) is not collected.
    let method = request.method().clone();
    let uri = request.uri().clone();
    let headers = std::mem::take(request.headers_mut());
    let body = if http_body::Body::size_hint(request.body()).exact() == Some(0) {
        Bytes::new()
    } else {
        // Read as the `Bytes` extractor reads it: within the body limit.
        match <Bytes as axum::extract::FromRequest<_>>::from_request(request, &env).await {
            Ok(body) => body,
            Err(rejection) => return rejection.into_response(),
        }
    };
    answer(&env, &method, &uri, headers, &body, started)
}

/// Answers one request at the app's paths (the fallback's work once the
/// body is read), marked as journaled for the router's log layer.
pub(crate) fn answer(
    env: &Environment,
    method: &Method,
    uri: &axum::http::Uri,
    headers: HeaderMap,
    body: &Bytes,
    started: std::time::Instant,
) -> Response {
    let mut response = respond(env, method, uri, headers, body, started);
    response.extensions_mut().insert(crate::admin::Journaled);
    response
}

/// Answers and journals one request at the app's paths (the server's
/// direct path calls this; its request line is logged by the journal). A
/// body-less read the cache holds is answered from the cache before any
/// call is built: a lookup, the journal entry and the prepared reply.
pub(crate) fn respond(
    env: &Environment,
    method: &Method,
    uri: &axum::http::Uri,
    headers: HeaderMap,
    body: &Bytes,
    started: std::time::Instant,
) -> Response {
    let head = method == Method::HEAD;
    let routed = if head && !env.routes("HEAD", uri.path()) {
        "GET"
    } else {
        method.as_str()
    };
    let episode = env.episode_of(&headers);
    if crate::environment::is_read(routed) && blank(body) {
        let key = crate::environment::read_key_of(routed, uri.path(), uri.query(), keyed(&headers));
        if let Some(reply) = env.cached_read(episode.as_deref(), &key) {
            crate::admin::journal_http_parts(env, routed, uri, &headers, &reply, started);
            return served(env, uri, &reply, head);
        }
    }
    let (parsed, refused) = match parse_body(&headers, body) {
        Ok(parsed) => (parsed, None),
        Err(message) => (None, Some(message)),
    };
    let request = Request::Http(Call {
        method: routed.to_string(),
        path: uri.path().to_string(),
        query: uri.query().map(str::to_string),
        headers: request_headers(&headers),
        body: parsed,
    });
    let reply = match refused {
        // The engine is synchronous and quick; the lock is never held
        // across an await point. With `--isolate`, `AgentEnv-Episode`
        // names the episode whose World answers.
        None => env.call_in(episode.as_deref(), &request),
        Some(message) => Arc::new(Reply::new(
            crate::app_model::malformed_body(env, &headers)
                .unwrap_or_else(|| Refusal::BodyNotJson { message }.answer()),
        )),
    };
    crate::admin::journal_http(env, request, &reply, started);
    served(env, uri, &reply, head)
}

/// The response a reply is served as (a tool-less answer at a path other
/// methods reach: the recorded `405`).
fn served(env: &Environment, uri: &axum::http::Uri, reply: &Reply, head: bool) -> Response {
    if reply.answer.error_code.as_deref() == Some("no_matching_tool") {
        if let Some(response) = method_not_allowed(env, uri.path()) {
            return response;
        }
    }
    to_response(reply, head)
}

/// Whether a request body is empty or only whitespace (no JSON body).
fn blank(body: &[u8]) -> bool {
    body.iter().all(u8::is_ascii_whitespace)
}

/// The first visible-ASCII value of each of the cache key's headers
/// (`KEYED_HEADERS`, as `Call::header` reads the headers `request_headers`
/// keeps).
fn keyed(headers: &HeaderMap) -> [Option<&str>; 3] {
    first_values(headers, &crate::environment::KEYED_HEADERS, |v| {
        v.to_str().is_ok()
    })
    .map(|v| v.and_then(|v| v.to_str().ok()))
}

/// The first value of each of `names` that `takes` accepts, in one pass
/// over the request's few headers (a hashed lookup per name costs more).
pub(crate) fn first_values<'a, const N: usize>(
    headers: &'a HeaderMap,
    names: &[HeaderName; N],
    takes: impl Fn(&HeaderValue) -> bool,
) -> [Option<&'a HeaderValue>; N] {
    let mut values = [None; N];
    for (name, value) in headers {
        let Some(at) = names.iter().position(|n| n == name) else {
            continue;
        };
        if values[at].is_none() && takes(value) {
            values[at] = Some(value);
        }
    }
    values
}

/// The recorded `405` with `Allow` naming the methods that reach a tool
/// at `path`, when the recording showed one and some method does.
fn method_not_allowed(env: &Environment, path: &str) -> Option<Response> {
    let (content_type, body) = env.observed().method_not_allowed.as_ref()?;
    let allowed: Vec<&str> = crate::cors::METHODS
        .into_iter()
        .filter(|m| env.routes(m, path) || (*m == "HEAD" && env.routes("GET", path)))
        .collect();
    if allowed.is_empty() {
        return None;
    }
    let mut response = Response::new(Body::from(body.clone()));
    *response.status_mut() = StatusCode::METHOD_NOT_ALLOWED;
    let headers = response.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&allowed.join(", ")) {
        headers.insert(axum::http::header::ALLOW, v);
    }
    if let Some(ct) = content_type
        .as_deref()
        .and_then(|c| HeaderValue::from_str(c).ok())
    {
        headers.insert(axum::http::header::CONTENT_TYPE, ct);
    }
    Some(response)
}

/// The request headers the engine reads, as sent (values that are not
/// visible ASCII are left out).
fn request_headers(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .filter_map(|(n, v)| Some((n.as_str().to_string(), v.to_str().ok()?.to_string())))
        .collect()
}

fn parse_body(headers: &HeaderMap, body: &Bytes) -> Result<Option<serde_json::Value>, String> {
    if blank(body) {
        return Ok(None);
    }
    match serde_json::from_slice(body) {
        Ok(value) => Ok(Some(value)),
        // A form-encoded body reads as a flat object of strings.
        Err(_) if form_body(headers) => std::str::from_utf8(body)
            .ok()
            .and_then(rea_engine::codec::form_object)
            .map(Some)
            .ok_or_else(|| "the form-encoded request body is not UTF-8 pairs".to_string()),
        Err(e) => {
            let ct = headers
                .get(axum::http::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("none");
            Err(format!(
                "the request body is not JSON ({e}; content type {ct}); rea serves JSON APIs"
            ))
        }
    }
}

fn form_body(headers: &HeaderMap) -> bool {
    headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(rea_engine::codec::is_form_media_type)
}

/// Builds the HTTP response for a reply.
pub(crate) fn to_response(reply: &Reply, head: bool) -> Response {
    let status =
        StatusCode::from_u16(reply.answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let bytes = if head {
        Bytes::new()
    } else {
        reply.bytes.clone()
    };
    let mut response = Response::new(Body::from(bytes));
    *response.status_mut() = status;
    *response.headers_mut() = reply.headers.clone();
    if head {
        // The length the GET's body has.
        response.headers_mut().insert(
            axum::http::header::CONTENT_LENGTH,
            HeaderValue::from(reply.bytes.len()),
        );
    }
    response
}

/// The headers an answer is served with: the replayable recorded ones and
/// the content type.
pub(crate) fn response_headers(answer: &Answer) -> HeaderMap {
    let mut out = HeaderMap::with_capacity(answer.headers.len() + 1);
    let mut names = lock_names();
    for (name, value) in &answer.headers {
        let Some(n) = served_name(&mut names, name) else {
            continue;
        };
        if let Ok(v) = HeaderValue::from_str(value) {
            out.append(n, v);
        }
    }
    drop(names);
    if let Some(ct) = content_type(answer) {
        if let Ok(v) = HeaderValue::from_str(&ct) {
            out.insert(axum::http::header::CONTENT_TYPE, v);
        }
    }
    out
}

/// Recorded header names, as spelled, to the name they are served under
/// (`None`: not replayable or not a valid name). A recording has a few dozen
/// names, decided once each instead of on every answer; looked up with
/// foldhash (SipHash was a fifth of building a write's headers).
type Names = std::collections::HashMap<Box<str>, Option<HeaderName>, foldhash::fast::RandomState>;

/// Names kept at most (an app answering ever new header names is decided
/// afresh past this).
const NAMES_KEPT: usize = 4096;

fn lock_names() -> std::sync::MutexGuard<'static, Names> {
    static NAMES: std::sync::OnceLock<std::sync::Mutex<Names>> = std::sync::OnceLock::new();
    NAMES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn served_name(names: &mut Names, name: &str) -> Option<HeaderName> {
    if let Some(known) = names.get(name) {
        return known.clone();
    }
    let decided = replayable(name)
        .then(|| HeaderName::from_bytes(name.as_bytes()).ok())
        .flatten();
    if names.len() < NAMES_KEPT {
        names.insert(name.into(), decided.clone());
    }
    decided
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_and_stale_framing_headers_are_never_replayed() {
        for name in [
            "Set-Cookie",
            "Authorization",
            "Content-Encoding",
            "Transfer-Encoding",
            "Content-Length",
            "X-Auth-Token",
            "X-CSRF-Token",
            ":status",
        ] {
            assert!(!replayable(name), "{name}");
        }
        for name in [
            "ETag",
            "Last-Modified",
            "Cache-Control",
            "Next-Page",
            "Total-Records",
            "WWW-Authenticate",
        ] {
            assert!(replayable(name), "{name}");
        }
    }

    /// The adapter's one-pass view of the key's headers is the one a call's
    /// headers give (`Call::header` over `request_headers`): the first
    /// visible-ASCII value of each name, whatever the order and repeats.
    #[test]
    fn keyed_headers_are_read_as_a_call_reads_them() {
        let mut headers = HeaderMap::new();
        headers.append("accept", "*/*".parse().unwrap());
        headers.append(
            "if-none-match",
            HeaderValue::from_bytes(b"\"caf\xc3\xa9\"").unwrap(),
        );
        headers.append("if-none-match", "\"2\"".parse().unwrap());
        headers.append("host", "127.0.0.1:1".parse().unwrap());
        headers.append("host", "other".parse().unwrap());
        let call = Call {
            method: "GET".into(),
            path: "/a".into(),
            query: None,
            headers: request_headers(&headers),
            body: None,
        };
        let from_call = crate::environment::KEYED_HEADERS.map(|n| call.header(n.as_str()));
        assert_eq!(keyed(&headers), from_call);
        assert_eq!(keyed(&headers), [Some("127.0.0.1:1"), Some("\"2\""), None]);
        assert_eq!(keyed(&HeaderMap::new()), [None; 3]);
    }

    /// The remembered decision is the one made afresh, every time.
    #[test]
    fn served_header_names_are_decided_once_as_replayable_decides() {
        let answer = Answer {
            status: 200,
            content_type: Some("application/json".into()),
            headers: [
                ("ETag", "\"1\""),
                ("Set-Cookie", "a=b"),
                ("X-Custom", "v"),
                ("Bad Name", "v"),
                ("etag", "\"2\""),
            ]
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect(),
            ..Refusal::BodyNotJson {
                message: String::new(),
            }
            .answer()
        };
        for _ in 0..2 {
            let headers = response_headers(&answer);
            let etags: Vec<_> = headers.get_all("etag").iter().collect();
            assert_eq!(etags, ["\"1\"", "\"2\""]);
            assert!(headers.get("set-cookie").is_none());
            assert_eq!(headers.get("x-custom").unwrap(), "v");
            assert_eq!(headers.get("content-type").unwrap(), "application/json");
            assert_eq!(headers.len(), 4);
        }
    }
}
