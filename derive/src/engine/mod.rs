//! The environment engine: routes an HTTP-shaped call to a tool, renders
//! reads from a World with the state's view plans (or replays recordings),
//! and applies served write plans to a World. The replay check in
//! `state` and the server in `rea-serve` share this one engine, so what the
//! check confirmed is exactly what the server does.
//!
//! Contract (owned by the state work; `rea-serve` relies on it):
//! - `Engine::new(evidence, manifest, state)` builds the immutable engine.
//! - `Engine::initial_world()` is the World the state document describes.
//! - `Engine::route(method, path)` picks the tool for an HTTP request line
//!   (documented precedence: a tool that renders from the World first, then
//!   literal segments over parameters, then manifest order).
//! - `Engine::tool_call(tool, arguments)` turns MCP-style arguments (path
//!   params and query names at the top level, request `body`) into a `Call`.
//! - `Engine::call(&mut world, &call, &mut generator)` answers one call;
//!   it never panics on input and changes the World only when it answers
//!   with `applied: Yes`.
//! - `World::export()` / `World::import(value)` / `Engine::tables()` give
//!   the data-plane shape: `{"collections": {type: [row, ...]}, "documents":
//!   {path: value}}` and one JSON Schema per collection.

use serde_json::Value;

/// One HTTP-shaped request to the environment.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub method: String,
    /// The still-encoded path, e.g. `/v1/buckets/shop`.
    pub path: String,
    /// The raw query string without `?`, if any.
    pub query: Option<String>,
    /// The parsed JSON request body, if any.
    pub body: Option<Value>,
}

/// Whether a call's effect happened (the data plane's `applied`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    Yes,
    No,
    Unknown,
}

/// The body of an answer.
#[derive(Debug, Clone, PartialEq)]
pub enum AnswerBody {
    Json(Value),
    Text(String),
    Bytes(Vec<u8>),
    Empty,
}

/// What the environment answers to one call.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub status: u16,
    pub content_type: Option<String>,
    /// Recorded response headers worth replaying (never credentials,
    /// never `Content-Encoding`, `Transfer-Encoding` or `Content-Length`).
    pub headers: Vec<(String, String)>,
    pub body: AnswerBody,
    /// The tool that answered, when one matched.
    pub tool: Option<String>,
    pub applied: Applied,
    /// For error answers produced by rea itself (not replayed recordings):
    /// a stable code, e.g. `no_matching_tool`, `write_not_served`, `not_recorded`.
    pub error_code: Option<String>,
}

/// Sources of generated values, injected so the replay check and tests are
/// deterministic while the server uses real clocks and random ids.
pub trait Generator {
    fn uuid(&mut self) -> String;
    /// Milliseconds since the Unix epoch.
    fn now_ms(&mut self) -> i64;
    /// A random token of `len` characters drawn from `alphabet`.
    fn token(&mut self, alphabet: &str, len: usize) -> String;
}
