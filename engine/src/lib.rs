//! rea-engine: the environment engine. It routes an HTTP-shaped call to a tool, renders
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
//! - `Engine::call(&world, &call, &mut generator)` answers one call;
//!   it never panics on input and changes the World only when it answers
//!   with `applied: Yes`.
//! - `World::export()` / `World::import(value)` / `Engine::tables()` give
//!   the data-plane shape: `{"collections": {type: [row, ...]}, "documents":
//!   {path: value}}` and one JSON Schema per collection.
//!
//! Writes are delegated to the write side, `engine::apply`:
//!
//! ```text
//! pub fn apply_write(engine: &Engine, plan: &WritePlan, world: &mut World,
//!                           call: &Call, params: &Params, gen: &mut dyn Generator) -> Answer
//! ```
//!
//! `Engine::call` calls it only for a write tool whose plan is `served`
//! (the replay check may call it for any plan); it must leave the World
//! unchanged unless it answers `applied: Yes`.
//!
//! # Layout
//! - `route`: templates, path segments, precedence.
//! - `world`: the World, its export/import and per-collection schemas.
//! - `render`: item, list, document and recorded reads; not-found answers.
//! - `query`: filters, sorting and paging for list lines never recorded
//!   (what the replay check understands).
//! - `listing`, `generalize`: serve-time generalizations (docs/serving.md).
//! - `apply`: write plans (the write side).

pub mod apply;
pub mod codec;
pub mod generalize;
pub mod insert;
pub mod listing;
pub mod manifest;
pub mod query;
pub mod records;
pub mod render;
pub mod route;
pub mod shapes;
pub mod state;
pub mod usable;
pub mod world;

use crate::manifest::{Manifest, Tool};
use crate::records::{records_of, Record};
use crate::state::{EntityType, State, ViewPlan, WritePlan};
use indexmap::IndexMap;
use rea_core::ErrorReport;
use serde_json::{json, Value};
use std::collections::HashMap;

pub use route::{normalize_path, path_segments, percent_decode, percent_encode_segment, Params};
pub use world::{World, COLLECTION_MEMBER};

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

impl Call {
    /// `path?query`, the request line's target.
    pub fn line(&self) -> String {
        match &self.query {
            Some(q) => format!("{}?{q}", self.path),
            None => self.path.clone(),
        }
    }
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

impl Answer {
    /// An error answer produced by rea itself, with a JSON body
    /// `{"error": code, "message": message, ...extra}`.
    pub fn error(
        status: u16,
        code: &str,
        message: &str,
        tool: Option<&str>,
        extra: Option<Value>,
    ) -> Answer {
        let mut body = json!({"error": code, "message": message});
        if let (Some(Value::Object(extra)), Value::Object(map)) = (extra, &mut body) {
            map.extend(extra);
        }
        Answer {
            status,
            content_type: Some("application/json".to_string()),
            headers: Vec::new(),
            body: AnswerBody::Json(body),
            tool: tool.map(str::to_string),
            applied: Applied::No,
            error_code: Some(code.to_string()),
        }
    }
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

/// The immutable engine: manifest, state plans and the recordings they cite.
#[derive(Debug, Clone)]
pub struct Engine {
    pub manifest: Manifest,
    pub state: State,
    records: HashMap<u64, Record>,
    router: route::Router,
    views: HashMap<String, usize>,
    writes: HashMap<String, usize>,
    tools: HashMap<String, usize>,
}

impl Engine {
    /// Builds the engine from the Evidence JSON, its manifest and its state.
    pub fn new(evidence: &Value, manifest: Manifest, state: State) -> Result<Engine, ErrorReport> {
        let records = records_of(evidence)
            .into_iter()
            .map(|r| (r.ordinal, r))
            .collect();
        Engine::from_records(records, manifest, state)
    }

    /// Builds the engine from already-read records.
    pub fn from_records(
        records: HashMap<u64, Record>,
        manifest: Manifest,
        state: State,
    ) -> Result<Engine, ErrorReport> {
        let tools: HashMap<String, usize> = manifest
            .tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name.clone(), i))
            .collect();
        for name in state
            .views
            .iter()
            .map(ViewPlan::tool)
            .chain(state.writes.iter().map(|w| w.tool.as_str()))
        {
            if !tools.contains_key(name) {
                return Err(ErrorReport::input(
                    "state_manifest_mismatch",
                    format!("the state names tool `{name}`, which the manifest does not have"),
                )
                .detail("tool", name)
                .guidance("Derive the state with the same template rules as the manifest."));
            }
        }
        let views = state
            .views
            .iter()
            .enumerate()
            .map(|(i, v)| (v.tool().to_string(), i))
            .collect();
        let writes = state
            .writes
            .iter()
            .enumerate()
            .map(|(i, w)| (w.tool.clone(), i))
            .collect();
        let router = route::Router::new(&manifest.tools);
        Ok(Engine {
            manifest,
            state,
            records,
            router,
            views,
            writes,
            tools,
        })
    }

    /// The World the state document describes.
    pub fn initial_world(&self) -> World {
        World::from_state(&self.state)
    }

    /// One JSON Schema per collection (entity type) for the data plane.
    pub fn tables(&self) -> IndexMap<String, Value> {
        world::tables(&self.state)
    }

    /// Validates a World in the data-plane shape against this state.
    pub fn import(&self, value: &Value) -> Result<World, ErrorReport> {
        World::import(value, &self.state)
    }

    /// The data-plane export of a World.
    pub fn export(&self, world: &World) -> Value {
        world.export(&self.state.types)
    }

    /// The tool for an HTTP request line, with its path params (see
    /// `route::Router::route` for the precedence).
    pub fn route(&self, method: &str, path: &str) -> Option<(&Tool, Params)> {
        self.router
            .route(method, path, |i| {
                self.view_of(&self.manifest.tools[i].name)
                    .is_some_and(ViewPlan::renders_from_world)
            })
            .map(|(i, p)| (&self.manifest.tools[i], p))
    }

    /// The family sibling's tool that answers an item line no tool covers
    /// (see `generalize`); the server routes such lines to it.
    pub fn sibling_tool(&self, method: &str, path: &str) -> Option<String> {
        generalize::sibling_tool(self, method, path)
    }

    /// A manifest tool by name.
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.get(name).map(|&i| &self.manifest.tools[i])
    }

    /// The view plan of a read tool.
    pub fn view_of(&self, tool: &str) -> Option<&ViewPlan> {
        self.views.get(tool).map(|&i| &self.state.views[i])
    }

    /// The write plan of a write tool.
    pub fn write_of(&self, tool: &str) -> Option<&WritePlan> {
        self.writes.get(tool).map(|&i| &self.state.writes[i])
    }

    /// An entity type by name.
    pub fn entity_type(&self, name: &str) -> Option<&EntityType> {
        self.state.types.iter().find(|t| t.name == name)
    }

    /// A recording by ordinal.
    pub fn record(&self, ordinal: u64) -> Option<&Record> {
        self.records.get(&ordinal)
    }

    /// Turns MCP-style arguments into a call: each path param by name
    /// (required), each observed query name (optional; a string, number or
    /// boolean, or an array of them for a repeated name), and the request
    /// body as `body`. Unknown arguments are refused.
    pub fn tool_call(&self, tool: &str, arguments: &Value) -> Result<Call, ErrorReport> {
        let Some(t) = self.tool(tool) else {
            return Err(
                ErrorReport::input("unknown_tool", format!("no tool named `{tool}`"))
                    .detail("tool", tool),
            );
        };
        let empty = serde_json::Map::new();
        let args = match arguments {
            Value::Object(map) => map,
            Value::Null => &empty,
            _ => {
                return Err(ErrorReport::input(
                    "invalid_arguments",
                    "tool arguments must be a JSON object",
                )
                .detail("tool", tool))
            }
        };
        for key in args.keys() {
            let known = key == "body"
                || t.params.iter().any(|p| &p.name == key)
                || t.query_parameter_names.iter().any(|q| &q.name == key);
            if !known {
                return Err(ErrorReport::input(
                    "invalid_arguments",
                    format!("tool `{tool}` has no argument `{key}`"),
                )
                .detail("tool", tool)
                .detail("argument", key.as_str()));
            }
        }
        let mut path = String::new();
        for seg in route::compile(&t.path_template) {
            path.push('/');
            match seg {
                route::Segment::Literal(l) => path.push_str(&l),
                route::Segment::Param(name) => {
                    let value = match args.get(&name) {
                        Some(Value::String(s)) if !s.is_empty() => s.clone(),
                        Some(Value::Number(n)) => n.to_string(),
                        _ => {
                            return Err(ErrorReport::input(
                                "invalid_arguments",
                                format!("tool `{tool}` needs `{name}`, a non-empty string"),
                            )
                            .detail("tool", tool)
                            .detail("argument", name.as_str()))
                        }
                    };
                    path.push_str(&percent_encode_segment(&value));
                }
            }
        }
        if path.is_empty() {
            path.push('/');
        }
        let mut pairs = Vec::new();
        for q in &t.query_parameter_names {
            let Some(v) = args.get(&q.name) else { continue };
            let values: Vec<&Value> = match v {
                Value::Array(items) => items.iter().collect(),
                other => vec![other],
            };
            for v in values {
                let text = match v {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    Value::Bool(b) => b.to_string(),
                    _ => {
                        return Err(ErrorReport::input(
                            "invalid_arguments",
                            format!(
                                "query argument `{}` must be a string, number or boolean",
                                q.name
                            ),
                        )
                        .detail("tool", tool)
                        .detail("argument", q.name.as_str()))
                    }
                };
                pairs.push(format!(
                    "{}={}",
                    codec::query_encode(&q.name),
                    codec::query_encode(&text)
                ));
            }
        }
        let query = (!pairs.is_empty()).then(|| pairs.join("&"));
        Ok(Call {
            method: t.method.clone(),
            path,
            query,
            body: args.get("body").cloned(),
        })
    }

    /// Answers one call against `world`. Reads never change the World;
    /// a write changes it only through a served write plan.
    /// Item lines no tool covers and not-found answers are generalized by
    /// `generalize` (see docs/serving.md).
    pub fn call(&self, world: &mut World, call: &Call, gen: &mut dyn Generator) -> Answer {
        generalize::call(self, world, call, gen)
    }

    /// Answers one call with the routed tool alone (no generalization).
    pub fn call_direct(&self, world: &mut World, call: &Call, gen: &mut dyn Generator) -> Answer {
        let Some((tool, params)) = self.route(&call.method, &call.path) else {
            return Answer::error(
                404,
                "no_matching_tool",
                &format!("no recorded tool matches {} {}", call.method, call.path),
                None,
                None,
            );
        };
        if let Some(plan) = self.write_of(&tool.name) {
            if plan.status != "served" {
                let reason = plan
                    .reason
                    .clone()
                    .unwrap_or_else(|| "unserved".to_string());
                return Answer::error(
                    501,
                    "write_not_served",
                    &format!("the write plan of `{}` is not served ({reason})", tool.name),
                    Some(&tool.name),
                    Some(json!({"reason": reason})),
                );
            }
            return apply::apply_write(self, plan, world, call, &params, gen);
        }
        render::read(self, world, tool, &params, call)
    }
}
