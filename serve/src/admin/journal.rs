//! The request journal: a bounded ring of the last calls from every surface
//! (HTTP, MCP, data plane), each with the request (credentials redacted),
//! the answer's status and size, the tool, the source and whether it was
//! applied, and for unmatched requests the nearest tools with why each did
//! not match. New entries are broadcast for the SSE stream; each call also
//! writes the one per-request log line.

use super::coverage::Coverage;
use super::nearest::Near;
use super::redact;
use serde::Serialize;
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::broadcast;

/// Entries kept by default.
pub const DEFAULT_CAPACITY: usize = 1000;
/// Request bodies longer than this (as JSON text) are kept as their size only.
const MAX_BODY_CHARS: usize = 16 * 1024;
/// Entries the SSE stream may fall behind by before a subscriber skips ahead.
const STREAM_BACKLOG: usize = 256;

/// Which surface a call came in on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Surface {
    Http,
    Mcp,
    DataPlane,
}

impl Surface {
    pub fn as_str(self) -> &'static str {
        match self {
            Surface::Http => "http",
            Surface::Mcp => "mcp",
            Surface::DataPlane => "data-plane",
        }
    }
}

/// Where an answer came from: rendered from (or applied to) the World,
/// replayed from a recording, answered by the inferred app model, or
/// not answered at all (no tool, a recorded read that never saw the line,
/// a write whose plan is not served, a request rea refused before routing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    World,
    Recording,
    Model,
    Unmatched,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::World => "world",
            Source::Recording => "recording",
            Source::Model => "model",
            Source::Unmatched => "unmatched",
        }
    }
}

/// When a call arrived: kept as the system clock's value (not even
/// converted to a date), written as RFC 3339 (UTC, milliseconds) only when
/// the entry is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp(std::time::SystemTime);

impl Stamp {
    pub fn now() -> Stamp {
        Stamp(std::time::SystemTime::now())
    }
}

impl std::fmt::Display for Stamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = chrono::DateTime::<chrono::Utc>::from(self.0);
        f.write_str(&at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
    }
}

impl Serialize for Stamp {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// An HTTP request as the journal keeps it: credentials already redacted
/// (header values, query parameters, JSON members), a large body already
/// replaced by its size; its JSON view is built only when it is read.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpShown {
    pub method: String,
    pub path: String,
    pub query: Option<String>,
    pub headers: Vec<(String, String)>,
    pub body: Option<Value>,
}

/// The request of an entry, as received, credentials redacted.
#[derive(Debug, Clone, PartialEq)]
pub enum Shown {
    /// On the app's own paths (the hot path: no JSON is built to record it).
    Http(Box<HttpShown>),
    /// Any other surface, as its JSON.
    Json(Value),
}

impl Shown {
    /// The JSON the journal serves: `method`, `path`, `query`, `headers`,
    /// `body` (HTTP); `tool`, `arguments` (MCP); `operation` (data plane).
    pub fn to_value(&self) -> Value {
        match self {
            Shown::Json(v) => v.clone(),
            Shown::Http(h) => {
                let headers: serde_json::Map<String, Value> = h
                    .headers
                    .iter()
                    .map(|(n, v)| (n.clone(), Value::String(v.clone())))
                    .collect();
                serde_json::json!({
                    "method": h.method,
                    "path": h.path,
                    "query": h.query,
                    "headers": headers,
                    "body": h.body,
                })
            }
        }
    }

    /// A top-level text member of the JSON view (`method`, `path`, `query`,
    /// `tool`, `operation`), without building the view.
    pub fn text(&self, key: &str) -> Option<&str> {
        match self {
            Shown::Json(v) => v.get(key).and_then(Value::as_str),
            Shown::Http(h) => match key {
                "method" => Some(&h.method),
                "path" => Some(&h.path),
                "query" => h.query.as_deref(),
                _ => None,
            },
        }
    }

    /// A top-level member of the JSON view.
    pub fn get(&self, key: &str) -> Option<Value> {
        match self {
            Shown::Json(v) => v.get(key).cloned(),
            Shown::Http(_) => self.to_value().get(key).cloned(),
        }
    }
}

impl From<Value> for Shown {
    fn from(value: Value) -> Shown {
        Shown::Json(value)
    }
}

impl Serialize for Shown {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Shown::Json(v) => v.serialize(s),
            Shown::Http(_) => self.to_value().serialize(s),
        }
    }
}

/// One journal entry, as served at `/_rea/requests`.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    /// Increasing from 1 for the life of the process (not reset by DELETE).
    pub id: u64,
    /// When the call arrived (RFC 3339, UTC).
    pub time: Stamp,
    pub surface: Surface,
    /// The request as received, credentials redacted: `method`, `path`,
    /// `query`, `headers`, `body` (HTTP); `tool`, `arguments` (MCP);
    /// `operation` (data plane).
    pub request: Shown,
    pub status: u16,
    /// Bytes of the answer's body.
    pub size: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// rea's own code for answers it made itself (`no_matching_tool`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    pub tool: Option<String>,
    pub source: Source,
    /// `yes`, `no` or `unknown`.
    pub applied: &'static str,
    pub duration_ms: f64,
    /// For unmatched requests: the nearest tools and why each did not match.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nearest: Vec<Near>,
    /// For an unserved write: the plan's reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Which entries `GET /_rea/requests` returns.
#[derive(Debug, Default, Clone, serde::Deserialize)]
pub struct Filter {
    /// An exact status (`404`) or a class (`4xx`).
    pub status: Option<String>,
    pub tool: Option<String>,
    pub source: Option<String>,
    pub surface: Option<String>,
    /// At most this many (the newest).
    pub limit: Option<usize>,
}

impl Filter {
    fn status_matches(&self, status: u16) -> bool {
        let Some(want) = self.status.as_deref().map(str::trim) else {
            return true;
        };
        if let Some(class) = want.strip_suffix("xx").or_else(|| want.strip_suffix("XX")) {
            return class.parse::<u16>().is_ok_and(|c| status / 100 == c);
        }
        want.parse::<u16>().is_ok_and(|s| s == status)
    }

    pub fn matches(&self, entry: &Entry) -> bool {
        self.status_matches(entry.status)
            && self
                .tool
                .as_deref()
                .is_none_or(|t| entry.tool.as_deref() == Some(t))
            && self
                .source
                .as_deref()
                .is_none_or(|s| entry.source.as_str() == s)
            && self
                .surface
                .as_deref()
                .is_none_or(|s| entry.surface.as_str() == s)
    }
}

/// A message on the journal's stream.
#[derive(Debug, Clone)]
pub enum Event {
    /// One new entry, as JSON text.
    Entry(Arc<str>),
    /// The journal was cleared.
    Cleared,
}

/// The bounded ring and its stream.
pub struct Journal {
    capacity: AtomicUsize,
    /// Shared with the `Repacker` that re-allocates the entries after a
    /// World is retired.
    ring: Arc<Mutex<Ring>>,
    stream: broadcast::Sender<Event>,
    coverage: Coverage,
}

struct Ring {
    next_id: u64,
    entries: VecDeque<Arc<Entry>>,
}

/// Re-allocates the journal's entries on the calling thread. The entries
/// are small, long-lived allocations made among the rows that requests
/// create; when those rows are freed (a retired World), each kept entry
/// would keep its allocator page resident. Copied afresh, the entries sit
/// together, and the pages the rows held can go back to the system.
#[derive(Clone)]
pub struct Repacker(Arc<Mutex<Ring>>);

impl Repacker {
    /// Replaces each entry by a copy of it (readers holding the old one keep
    /// it). The copies are made outside the ring's lock (this runs on a
    /// low-priority thread, and every call records under that lock); an entry
    /// dropped from the ring meanwhile is not put back.
    pub fn repack(&self) {
        let kept: Vec<Arc<Entry>> = lock(&self.0).entries.iter().cloned().collect();
        let copies: Vec<(Arc<Entry>, Arc<Entry>)> = kept
            .into_iter()
            .map(|old| {
                let copy = Arc::new(Entry::clone(&old));
                (old, copy)
            })
            .collect();
        let mut ring = lock(&self.0);
        // Both in id order: the ring only drops its oldest and appends.
        let mut copies_left = copies.iter().peekable();
        for entry in ring.entries.iter_mut() {
            while copies_left.next_if(|(old, _)| old.id < entry.id).is_some() {}
            if let Some((_, copy)) = copies_left.next_if(|(old, _)| Arc::ptr_eq(old, entry)) {
                *entry = copy.clone();
            }
        }
        drop(ring);
        // The originals are freed here, outside the lock.
        drop(copies);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Journal {
    pub fn new(capacity: usize) -> Journal {
        let (stream, _) = broadcast::channel(STREAM_BACKLOG);
        Journal {
            capacity: AtomicUsize::new(capacity.max(1)),
            ring: Arc::new(Mutex::new(Ring {
                next_id: 1,
                entries: VecDeque::new(),
            })),
            stream,
            coverage: Coverage::default(),
        }
    }

    pub fn capacity(&self) -> usize {
        self.capacity.load(Ordering::Relaxed)
    }

    /// Changes how many entries are kept (at least one); drops the oldest
    /// entries beyond it.
    pub fn set_capacity(&self, capacity: usize) {
        let capacity = capacity.max(1);
        self.capacity.store(capacity, Ordering::Relaxed);
        let mut ring = lock(&self.ring);
        while ring.entries.len() > capacity {
            ring.entries.pop_front();
        }
    }

    /// What re-allocates the kept entries (`Repacker::repack`).
    pub fn repacker(&self) -> Repacker {
        Repacker(self.ring.clone())
    }

    pub fn coverage(&self) -> &Coverage {
        &self.coverage
    }

    /// Adds an entry (its `id` is assigned here), logs the request line,
    /// counts it for coverage and broadcasts it.
    pub fn record(&self, mut entry: Entry) {
        log_line(&entry);
        self.coverage.count(&entry);
        let entry = {
            let mut ring = lock(&self.ring);
            entry.id = ring.next_id;
            ring.next_id += 1;
            let entry = Arc::new(entry);
            while ring.entries.len() >= self.capacity() {
                ring.entries.pop_front();
            }
            ring.entries.push_back(entry.clone());
            entry
        };
        if self.stream.receiver_count() > 0 {
            if let Ok(text) = serde_json::to_string(&*entry) {
                let _ = self.stream.send(Event::Entry(text.into()));
            }
        }
    }

    /// The entries `filter` selects, oldest first.
    pub fn entries(&self, filter: &Filter) -> Vec<Arc<Entry>> {
        let ring = lock(&self.ring);
        let mut out: Vec<Arc<Entry>> = ring
            .entries
            .iter()
            .filter(|e| filter.matches(e))
            .cloned()
            .collect();
        if let Some(limit) = filter.limit {
            let skip = out.len().saturating_sub(limit);
            out.drain(..skip);
        }
        out
    }

    /// How many entries the ring holds.
    pub fn len(&self) -> usize {
        lock(&self.ring).entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Empties the ring (`DELETE /_rea/requests`); coverage keeps counting
    /// since start-up.
    pub fn clear(&self) {
        lock(&self.ring).entries.clear();
        let _ = self.stream.send(Event::Cleared);
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.stream.subscribe()
    }
}

/// The request as the journal keeps it: an HTTP request line with its
/// headers and JSON body, credentials redacted in place (the call is the
/// journal's now: nothing is copied).
pub(super) fn http_request(call: rea_engine::Call) -> Shown {
    let rea_engine::Call {
        method,
        path,
        query,
        mut headers,
        body,
    } = call;
    for (name, value) in headers.iter_mut() {
        if redact::credential_name(name) {
            *value = redact::REDACTED.to_string();
        }
    }
    let query = query.map(|q| if q.is_empty() { q } else { redact::query(&q) });
    Shown::Http(Box::new(HttpShown {
        method,
        path,
        query,
        headers,
        body: body.map(bounded_owned),
    }))
}

/// `http_request` of the body-less call a request line and its headers
/// make (`http::request_headers`' view: visible-ASCII values), built from
/// them directly (the cached read path builds no call).
pub(crate) fn http_request_parts(
    method: &str,
    uri: &axum::http::Uri,
    headers: &axum::http::HeaderMap,
) -> Shown {
    let headers = headers
        .iter()
        .filter_map(|(n, v)| {
            let name = n.as_str();
            let value = if redact::credential_name(name) {
                redact::REDACTED
            } else {
                v.to_str().ok()?
            };
            Some((name.to_string(), value.to_string()))
        })
        .collect();
    let query = uri.query().map(|q| {
        if q.is_empty() {
            String::new()
        } else {
            redact::query(q)
        }
    });
    Shown::Http(Box::new(HttpShown {
        method: method.to_string(),
        path: uri.path().to_string(),
        query,
        headers,
        body: None,
    }))
}

/// A JSON body with credential members redacted, or its size when large.
pub(super) fn bounded_body(body: &Value) -> Value {
    bounded_owned(body.clone())
}

/// `bounded_body`, redacting in place.
fn bounded_owned(mut body: Value) -> Value {
    redact::json_in_place(&mut body);
    let chars = json_len(&body);
    if chars > MAX_BODY_CHARS {
        serde_json::json!({"omitted": format!("{chars} characters of JSON")})
    } else {
        body
    }
}

/// The length of `value` as compact JSON text, counted without writing it.
fn json_len(value: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        Err(_) => 0,
    }
}

/// The one info line for a call: method, path, tool, source, status, duration.
fn log_line(entry: &Entry) {
    let req = &entry.request;
    let (method, path) = match entry.surface {
        Surface::Http => (
            req.text("method").unwrap_or(""),
            req.text("path").unwrap_or(""),
        ),
        Surface::Mcp => ("tools/call", "mcp"),
        Surface::DataPlane => (req.text("operation").unwrap_or(""), "/agentenv"),
    };
    super::line::info(&super::line::RequestLine {
        surface: entry.surface.as_str(),
        method,
        path,
        tool: entry.tool.as_deref().unwrap_or("-"),
        source: entry.source.as_str(),
        status: entry.status,
        duration_ms: entry.duration_ms,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cached read's entry, built from the request's parts, is the entry
    /// its call would make: the same headers (credentials redacted, values
    /// that are not visible ASCII left out), the same redacted query.
    #[test]
    fn a_request_from_its_parts_is_shown_as_its_call_is() {
        let mut headers = axum::http::HeaderMap::new();
        headers.insert("host", "127.0.0.1:1".parse().unwrap());
        headers.insert("authorization", "Basic c2VjcmV0".parse().unwrap());
        headers.append("x-api-key", "k".parse().unwrap());
        headers.append(
            "x-note",
            axum::http::HeaderValue::from_bytes(b"caf\xc3\xa9").unwrap(),
        );
        headers.append("accept", "application/json".parse().unwrap());
        for target in ["/a/b?token=t&x=1", "/a/b?", "/a/b"] {
            let uri: axum::http::Uri = target.parse().unwrap();
            let call = rea_engine::Call {
                method: "GET".into(),
                path: uri.path().into(),
                query: uri.query().map(str::to_string),
                headers: headers
                    .iter()
                    .filter_map(|(n, v)| Some((n.to_string(), v.to_str().ok()?.to_string())))
                    .collect(),
                body: None,
            };
            let parts = http_request_parts("GET", &uri, &headers);
            assert_eq!(parts, http_request(call), "{target}");
            let shown = parts.to_value();
            assert_eq!(shown["headers"]["authorization"], "redacted");
            assert_eq!(shown["headers"]["x-api-key"], "redacted");
            assert!(shown["headers"].get("x-note").is_none());
        }
    }
}
