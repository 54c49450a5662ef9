//! Operating the fake: the request journal, coverage, health, the live page
//! and the per-request log line, under one prefix (`/_rea` unless moved with
//! `--admin-prefix`).
//!
//! # Layout
//! - `journal`: the bounded ring of calls from every surface, its SSE stream.
//! - `redact`: what the journal never keeps (credentials, by name).
//! - `line`: the per-request info line and the writer a binary may set.
//! - `nearest`: the near-miss explanation for unmatched requests.
//! - `coverage`: what the fake could not answer, grouped by kind.
//! - `routes`: the admin router (`/_rea/...`) and the log layer.
//! - `page.html`: the live page, embedded.
//!
//! The surfaces call one function each: `journal_http`, `journal_tool`,
//! `journal_data_plane`.

mod coverage;
mod journal;
mod line;
mod nearest;
mod redact;
mod routes;
#[cfg(test)]
mod tests;

pub use journal::{
    Entry, Filter, HttpShown, Journal, Repacker, Shown, Source, Stamp, Surface, DEFAULT_CAPACITY,
};
pub use line::{on_request_line, LineWriter, RequestLine};
pub use nearest::Near;
pub(crate) use routes::{log_layer, log_unjournaled, router, Journaled};

use crate::environment::{Environment, Reply, Request};
use crate::outcome::{applied_str, content_type};
use rea_engine::{Answer, Applied};
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

/// The admin prefix when none is given.
pub const DEFAULT_PREFIX: &str = "/_rea";

/// What the operator sees of a served environment: its journal, whether it
/// is ready, the admin prefix and what it was started from.
pub struct Ops {
    journal: Journal,
    ready: AtomicBool,
    prefix: OnceLock<String>,
    about: OnceLock<Value>,
}

impl Default for Ops {
    fn default() -> Self {
        Ops::new(DEFAULT_CAPACITY)
    }
}

impl Ops {
    pub fn new(capacity: usize) -> Ops {
        Ops {
            journal: Journal::new(capacity),
            ready: AtomicBool::new(false),
            prefix: OnceLock::new(),
            about: OnceLock::new(),
        }
    }

    pub fn journal(&self) -> &Journal {
        &self.journal
    }

    /// Marks the environment listening (`/_rea/ready` answers 200).
    pub fn set_ready(&self) {
        self.ready.store(true, Ordering::SeqCst);
    }

    pub fn is_ready(&self) -> bool {
        self.ready.load(Ordering::SeqCst)
    }

    /// Moves the admin routes (e.g. `/_ops`); only before the router is built.
    /// The prefix must start with `/`, have no trailing `/` and not be `/`.
    pub fn set_prefix(&self, prefix: &str) -> Result<(), String> {
        let p = valid_prefix(prefix)?;
        self.prefix
            .set(p)
            .map_err(|_| "the admin prefix is already set".to_string())
    }

    pub fn prefix(&self) -> &str {
        self.prefix.get().map_or(DEFAULT_PREFIX, String::as_str)
    }

    /// What the environment was started from (capture, format, rules,
    /// model), shown on the page; set once by the caller.
    pub fn set_about(&self, about: Value) {
        let _ = self.about.set(about);
    }

    pub fn about(&self) -> Value {
        self.about.get().cloned().unwrap_or_else(|| json!({}))
    }
}

/// Chooses the admin prefix: `given` (checked), else `/_rea`, else — when
/// the recorded app itself has paths under `/_rea/` — the first of
/// `/__rea`, `/_rea_admin` it does not use. Returns the prefix and, when the
/// app's own paths are shadowed or the default moved, a warning to print.
pub fn choose_prefix(
    env: &Environment,
    given: Option<&str>,
) -> Result<(String, Option<String>), String> {
    let used = |prefix: &str| {
        env.all_tools().iter().any(|t| {
            let p = &t.tool.path_template;
            p == prefix || p.starts_with(&format!("{prefix}/"))
        })
    };
    if let Some(given) = given {
        let p = valid_prefix(given)?;
        let warning = used(&p).then(|| {
            format!("warning: the recorded app has paths under {p}/; the admin routes there take precedence")
        });
        env.ops().set_prefix(&p)?;
        return Ok((p, warning));
    }
    let candidates = [DEFAULT_PREFIX, "/__rea", "/_rea_admin"];
    let p = candidates
        .iter()
        .find(|c| !used(c))
        .copied()
        .unwrap_or(DEFAULT_PREFIX);
    let warning = (p != DEFAULT_PREFIX).then(|| {
        format!("the recorded app has paths under {DEFAULT_PREFIX}/; the admin routes moved to {p}/ (set them with --admin-prefix)")
    });
    env.ops().set_prefix(p)?;
    Ok((p.to_string(), warning))
}

/// Checks an admin prefix (`/name`, several segments allowed).
pub fn valid_prefix(prefix: &str) -> Result<String, String> {
    let p = prefix.trim();
    let ok = p.starts_with('/')
        && p.len() > 1
        && !p.ends_with('/')
        && !p.contains("//")
        && p.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/-_.~".contains(c))
        && !["/mcp", "/agentenv", "/.well-known"]
            .iter()
            .any(|taken| p == *taken || p.starts_with(&format!("{taken}/")));
    if ok {
        Ok(p.to_string())
    } else {
        Err(format!(
            "the admin prefix {prefix:?} must look like /_rea: a leading /, letters, digits, - _ . ~, no trailing /, and not /mcp, /agentenv or /.well-known"
        ))
    }
}

/// rea's codes for requests the fake had no answer for.
const MISSES: [&str; 4] = [
    "no_matching_tool",
    "unknown_tool",
    "not_recorded",
    "write_not_served",
];

/// Where an answer came from (see `Source`).
pub fn source_of(answer: &Answer) -> Source {
    match (&answer.error_code, &answer.tool) {
        (Some(code), _) if MISSES.contains(&code.as_str()) => Source::Unmatched,
        // Refused before any tool was chosen (e.g. a body that is not JSON).
        (Some(_), None) => Source::Unmatched,
        // The app model answers without naming a manifest tool.
        (None, None) => Source::Model,
        _ if answer.rendered.is_some() || answer.applied == Applied::Yes => Source::World,
        (_, Some(_)) if answer.error_code.is_some() => Source::World,
        _ => Source::Recording,
    }
}

fn now() -> journal::Stamp {
    journal::Stamp::now()
}

fn elapsed_ms(started: Instant) -> f64 {
    (started.elapsed().as_secs_f64() * 1e6).round() / 1e3
}

fn reason_of(env: &Environment, answer: &Answer) -> Option<String> {
    if answer.error_code.as_deref() != Some("write_not_served") {
        return None;
    }
    let tool = answer.tool.as_deref()?;
    env.all_tools()
        .iter()
        .find(|t| t.tool.name == tool)
        .and_then(|t| t.reason.clone())
}

fn entry_for(
    env: &Environment,
    surface: Surface,
    request: journal::Shown,
    reply: &Reply,
    started: Instant,
) -> Entry {
    let answer = &reply.answer;
    Entry {
        id: 0,
        time: now(),
        surface,
        request,
        status: answer.status,
        size: reply.bytes.len(),
        content_type: content_type(answer),
        code: answer.error_code.clone(),
        tool: answer.tool.clone(),
        source: source_of(answer),
        applied: applied_str(answer.applied),
        duration_ms: elapsed_ms(started),
        nearest: Vec::new(),
        reason: reason_of(env, answer),
    }
}

/// Journals one call on the recorded API's own paths (and logs its line).
/// The request is the journal's: it is kept as it is, not copied.
pub(crate) fn journal_http(env: &Environment, request: Request, reply: &Reply, started: Instant) {
    let Request::Http(call) = request else {
        return;
    };
    let nearest = (reply.answer.error_code.as_deref() == Some("no_matching_tool"))
        .then(|| nearest::nearest_to_path(env.all_tools(), &call.method, &call.path));
    let shown = journal::http_request(call);
    let mut entry = entry_for(env, Surface::Http, shown, reply, started);
    entry.nearest = nearest.unwrap_or_default();
    env.ops().journal().record(entry);
}

/// `journal_http` of a body-less request given by its parts (the HTTP
/// adapter's cached reads build no call): the same entry and line.
pub(crate) fn journal_http_parts(
    env: &Environment,
    method: &str,
    uri: &axum::http::Uri,
    headers: &axum::http::HeaderMap,
    reply: &Reply,
    started: Instant,
) {
    let nearest = (reply.answer.error_code.as_deref() == Some("no_matching_tool"))
        .then(|| nearest::nearest_to_path(env.all_tools(), method, uri.path()));
    let shown = journal::http_request_parts(method, uri, headers);
    let mut entry = entry_for(env, Surface::Http, shown, reply, started);
    entry.nearest = nearest.unwrap_or_default();
    env.ops().journal().record(entry);
}

/// Journals one MCP `tools/call`; `reply` is `None` when no tool has the name.
pub(crate) fn journal_tool(
    env: &Environment,
    name: &str,
    arguments: &Map<String, Value>,
    reply: Option<&Reply>,
    started: Instant,
) {
    let shown = journal::Shown::Json(json!({
        "tool": name,
        "arguments": journal::bounded_body(&Value::Object(arguments.clone())),
    }));
    let entry = match reply {
        Some(reply) => entry_for(env, Surface::Mcp, shown, reply, started),
        None => Entry {
            id: 0,
            time: now(),
            surface: Surface::Mcp,
            request: shown,
            status: 404,
            size: 0,
            content_type: None,
            code: Some("unknown_tool".to_string()),
            tool: None,
            source: Source::Unmatched,
            applied: "no",
            duration_ms: elapsed_ms(started),
            nearest: nearest::nearest_to_name(env.all_tools(), name),
            reason: None,
        },
    };
    env.ops().journal().record(entry);
}

/// Journals one MCP call answered outside the engine from recorded messages
/// (a gRPC method's tool): a replay, or rea's refusal with its code.
pub(crate) fn journal_recorded_tool(
    env: &Environment,
    name: &str,
    arguments: &Map<String, Value>,
    result: &rmcp::model::CallToolResult,
    started: Instant,
) {
    let failed = result.is_error == Some(true);
    let code = failed.then(|| {
        result
            .structured_content
            .as_ref()
            .and_then(|s| s.get("code"))
            .and_then(Value::as_str)
            .unwrap_or("error")
            .to_string()
    });
    let (status, source) = match code.as_deref() {
        None => (200, Source::Recording),
        Some("not_recorded") => (404, Source::Unmatched),
        Some("invalid_arguments") => (400, Source::Unmatched),
        Some(_) => (502, Source::Recording),
    };
    let size = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.len()))
        .sum();
    let entry = Entry {
        id: 0,
        time: now(),
        surface: Surface::Mcp,
        request: json!({
            "tool": name,
            "arguments": journal::bounded_body(&Value::Object(arguments.clone())),
        })
        .into(),
        status,
        size,
        content_type: Some("application/json".to_string()),
        code,
        tool: Some(name.to_string()),
        source,
        applied: "no",
        duration_ms: elapsed_ms(started),
        nearest: Vec::new(),
        reason: None,
    };
    env.ops().journal().record(entry);
}

/// Journals one data-plane JSON-RPC call from the operation its body named
/// (as the data plane read it: a large `data/add` body is not parsed again)
/// and its reply. `reply` is the reply text (`None`: only notifications, no
/// answer). Only its top-level `error` is read: a large `data/get` result is
/// skipped, not built again.
pub(crate) fn journal_data_plane(
    env: &Environment,
    operation: Option<&str>,
    reply: Option<&str>,
    started: Instant,
) {
    #[derive(serde::Deserialize)]
    struct Reply {
        error: Option<Value>,
    }
    let operation = operation.unwrap_or("(unreadable)").to_string();
    let error = reply
        .and_then(|t| serde_json::from_str::<Reply>(t).ok())
        .and_then(|r| r.error);
    let error = error.as_ref();
    let applied = error.is_none() && matches!(operation.as_str(), "data/reset" | "data/add");
    let size = reply.map_or(0, str::len);
    let entry = Entry {
        id: 0,
        time: now(),
        surface: Surface::DataPlane,
        request: json!({"method": "POST", "path": "/agentenv", "operation": operation}).into(),
        status: if error.is_some() { 400 } else { 200 },
        size,
        content_type: Some("application/json".to_string()),
        code: error
            .and_then(|e| e.get("code"))
            .map(|c| format!("jsonrpc {c}")),
        tool: None,
        source: Source::World,
        applied: if applied { "yes" } else { "no" },
        duration_ms: elapsed_ms(started),
        nearest: Vec::new(),
        reason: None,
    };
    env.ops().journal().record(entry);
}

/// The coverage document of an environment.
pub fn coverage(env: &Environment) -> Value {
    env.ops().journal().coverage().report(env.all_tools())
}

/// The end-of-run coverage summary, one line each.
pub fn coverage_summary(env: &Environment) -> Vec<String> {
    env.ops().journal().coverage().summary(env.all_tools())
}
