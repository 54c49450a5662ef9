//! rea-engine: the World and the one engine over it. A request is routed
//! once (`Engine::resolve` → `Routed { tool, params, plan, .. }`) and
//! answered by one dispatch (`Engine::dispatch`): reads render from the
//! World with the state's view plans (or replay recordings), writes apply
//! the served write plans, and rea's own refusals are one `Refusal` enum.
//! The replay check in `rea-derivation` and the server in `rea-serve` both
//! go through `dispatch`, so what the check confirmed is what the server
//! does (docs/architecture.md).
//!
//! Contract (`rea-serve` and `rea-derivation` rely on it):
//! - `Engine::new(evidence, manifest, state)` / `Engine::from_records`
//!   build the immutable engine (templates compiled once).
//! - `Engine::initial_world()` is the World the state document describes.
//! - `Engine::resolve(&Request)` routes once: an HTTP request by the router's
//!   precedence (a tool that renders from the World first, then literal
//!   segments over parameters, then manifest order) or to a family sibling;
//!   a `Request::Tool` is pinned to its tool (answered by it or refused;
//!   the app model may answer its HTTP form, `Engine::tool_call`).
//! - `Engine::dispatch(&mut world, routed, &mut generator)` answers; it
//!   never panics on input and changes the World only when it answers
//!   `applied: Yes`. `Engine::answer` = resolve + dispatch.
//! - `World::export()` / `World::import(value)` / `Engine::tables()` give
//!   the data-plane shape: `{"collections": {type: [row, ...]}, "documents":
//!   {path: value}}` and one JSON Schema per collection.
//!
//! # Layout
//! Modules are private (their items re-exported below) except the shared
//! model and helper modules `manifest`, `state`, `records`, `usable`,
//! `codec`, `insert` and `shapes`.
//! - `dispatch`: `Request`, `Routed`, `Plan`; `resolve` and `dispatch`.
//! - `refusal`: rea's own answers (`Refusal`, with `status()` and `code()`).
//! - `route`: compiled templates and precedence; `codec`: path, percent,
//!   query and JSON-pointer codecs.
//! - `world`: the World, its export/import and per-collection schemas.
//! - `render`: item, document and recorded reads; not-found answers.
//! - `lists`: the one list renderer (`lists::serve::read`): inferred list
//!   semantics, else the query conventions (`lists::conventions`: filters,
//!   sorting, paging, next-page links); `generalize`: sibling collections
//!   and family not-found (docs/serving.md).
//! - `apply`: write plans (the write side); `insert`, `shapes`: placement
//!   and generated value shapes.
//! - `answer_headers`: headers that describe the answer.
//! - `manifest`, `state`, `records`, `usable`: the model types shared with
//!   the derivation (the spec's documents and the record model).

mod answer_headers;
mod apply;
pub mod codec;
mod dispatch;
mod generalize;
pub mod insert;
pub mod lists;
pub mod manifest;
pub mod records;
mod refusal;
mod render;
mod route;
pub mod schemas;
pub mod shapes;
pub mod state;
pub mod usable;
mod world;

use crate::manifest::{Manifest, Tool};
use crate::records::{records_of, Record};
use crate::state::{EntityType, State, ViewPlan, WritePlan};
use indexmap::IndexMap;
use rea_core::ErrorReport;
use serde_json::Value;
use std::collections::HashMap;

/// A map keyed by names the engine fixed at start-up (tools, route
/// literals), looked up on every call: hashed with foldhash (seeded per
/// process) instead of SipHash, a tenth of a write's work. Requests only
/// look names up; none is ever inserted from one.
pub(crate) type NameMap<V> = HashMap<String, V, foldhash::fast::RandomState>;

pub use answer_headers::at_serving_origin;
pub use answer_headers::body_etag;
pub use answer_headers::etag_matches;
pub use answer_headers::replayable;
pub use apply::{merge_patch, PatchMeaning};
pub use codec::{normalize_path, path_segments, percent_decode, percent_encode_segment};
pub use dispatch::{is_read_method, Plan, Request, Routed};
pub use generalize::ItemTarget;
pub use lists::conventions::understands as understands_list_query;
pub use refusal::Refusal;
pub use route::{compile, Params, Segment};
pub use world::{id_matches, path_fits_template, same_id, World, COLLECTION_MEMBER};
pub use world::{Collection, Documents, Footprint, IdKinds};

/// One HTTP-shaped request to the environment.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub method: String,
    /// The still-encoded path, e.g. `/v1/buckets/shop`.
    pub path: String,
    /// The raw query string without `?`, if any.
    pub query: Option<String>,
    /// The request headers (names as sent), for preconditions
    /// (`If-None-Match`, `If-Match`, ...) and the serving origin (`Host`).
    pub headers: Vec<(String, String)>,
    /// The parsed JSON request body, if any.
    pub body: Option<Value>,
}

impl Call {
    /// A call without headers or body.
    pub fn new(method: &str, path: &str, query: Option<&str>) -> Call {
        Call {
            method: method.to_string(),
            path: path.to_string(),
            query: query.map(str::to_string),
            headers: Vec::new(),
            body: None,
        }
    }

    /// The value of a request header (names compare case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

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
    /// When the body was rendered from the World: the recording whose
    /// envelope and headers it reuses (its validators and counts no longer
    /// describe the body; see `answer_headers`).
    pub rendered: Option<u64>,
}

/// A document the capture also recorded as an entity: held once, as the
/// entity, and read back into the document's recorded shape.
#[derive(Debug, Clone, PartialEq)]
pub struct DocumentEntity {
    pub type_name: String,
    pub collection: String,
    pub id: String,
    /// Where the entity sits in the document's value (`""` or `/member`).
    pub pointer: String,
    /// The entity's members in the document's recorded order.
    pub fields: Vec<String>,
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
    /// Each type's compiled collection template (as `state.types`).
    type_templates: Vec<Vec<route::Segment>>,
    /// Each type's family (see `generalize::family`), by type index.
    families: Vec<Vec<usize>>,
    /// Documents that are also entities, by document path.
    entity_documents: HashMap<String, DocumentEntity>,
    views: NameMap<usize>,
    writes: NameMap<usize>,
    tools: NameMap<usize>,
    /// The inferred list semantics (`rea-derivation`'s `model::lists`),
    /// when the caller supplied them: lists are then served from them.
    pub lists: Option<lists::ListSemantics>,
    /// Where each recording's ETag sits in its body, found once.
    etag_members: answer_headers::EtagMembers,
    /// The recorded answers writes and rendered reads answer from, each
    /// parsed once.
    recorded_answers: apply::RecordedAnswers,
}

impl Engine {
    /// The engine serving lists from inferred list semantics.
    pub fn with_list_semantics(mut self, lists: lists::ListSemantics) -> Engine {
        self.lists = Some(lists);
        self
    }

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
        let tools: NameMap<usize> = manifest
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
        let type_templates: Vec<Vec<route::Segment>> = state
            .types
            .iter()
            .map(|t| route::compile(&t.collection_template))
            .collect();
        let families = generalize::families(&type_templates);
        let mut engine = Engine {
            manifest,
            state,
            records,
            router,
            type_templates,
            families,
            entity_documents: HashMap::new(),
            views,
            writes,
            tools,
            lists: None,
            etag_members: Default::default(),
            recorded_answers: Default::default(),
        };
        engine.entity_documents = generalize::entity_documents(&engine);
        Ok(engine)
    }

    /// The World the state document describes.
    pub fn initial_world(&self) -> World {
        self.held_once(World::from_state(&self.state))
    }

    /// Drops the documents that are also entities (`entity_documents`):
    /// the entity is their one truth.
    fn held_once(&self, mut world: World) -> World {
        world
            .documents
            .retain(|path, _| !self.entity_documents.contains_key(path));
        world
    }

    /// The entity a document path is also recorded as, if any.
    pub fn document_entity(&self, path: &str) -> Option<&DocumentEntity> {
        self.entity_documents.get(path)
    }

    /// One JSON Schema per collection (entity type) for the data plane.
    pub fn tables(&self) -> IndexMap<String, Value> {
        world::tables(&self.state)
    }

    /// Validates a World in the data-plane shape against this state.
    pub fn import(&self, value: &Value) -> Result<World, ErrorReport> {
        World::import(value, &self.state).map(|w| self.held_once(w))
    }

    /// `import`, taking the value (its rows become the entities, no copy).
    pub fn import_owned(&self, value: Value) -> Result<World, ErrorReport> {
        World::import_owned(value, &self.state).map(|w| self.held_once(w))
    }

    /// `World::import_streamed`: a World from tables given row by row.
    pub fn import_streamed(
        &self,
        tables: Vec<(String, &mut dyn Iterator<Item = Value>)>,
    ) -> Result<World, ErrorReport> {
        World::import_streamed(tables, &self.state).map(|w| self.held_once(w))
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

    /// A manifest tool by name.
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.get(name).map(|&i| &self.manifest.tools[i])
    }

    /// A manifest tool's index by name.
    pub fn tool_index(&self, name: &str) -> Option<usize> {
        self.tools.get(name).copied()
    }

    /// An entity type's index (in `state.types`) by name.
    pub fn type_index(&self, name: &str) -> Option<usize> {
        self.state.types.iter().position(|t| t.name == name)
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
    pub fn tool_call(&self, tool: &str, arguments: &Value) -> Result<Call, Refusal> {
        let Some(t) = self.tool(tool) else {
            return Err(Refusal::UnknownTool {
                name: tool.to_string(),
            });
        };
        let invalid = |argument: Option<&str>, message: String| Refusal::InvalidArguments {
            tool: tool.to_string(),
            argument: argument.map(str::to_string),
            message,
        };
        let empty = serde_json::Map::new();
        let args = match arguments {
            Value::Object(map) => map,
            Value::Null => &empty,
            _ => {
                return Err(invalid(
                    None,
                    "tool arguments must be a JSON object".to_string(),
                ))
            }
        };
        // The list arguments the inferred semantics understand (query ones).
        let (list_args, list_in_body) = lists::schema::arguments(self, tool);
        let mut query_names: Vec<&str> = t
            .query_parameter_names
            .iter()
            .map(|q| q.name.as_str())
            .collect();
        if !list_in_body {
            for name in list_args.keys() {
                if !query_names.contains(&name.as_str())
                    && !t.params.iter().any(|p| &p.name == name)
                {
                    query_names.push(name);
                }
            }
        }
        for key in args.keys() {
            let known = key == "body"
                || t.params.iter().any(|p| &p.name == key)
                || query_names.contains(&key.as_str());
            if !known {
                return Err(invalid(
                    Some(key),
                    format!("tool `{tool}` has no argument `{key}`"),
                ));
            }
        }
        let mut path = String::new();
        for (index, seg) in self.router.segments(self.tools[tool]).iter().enumerate() {
            path.push('/');
            match seg {
                route::Segment::Literal(l) => path.push_str(l),
                route::Segment::Param(placeholder) => {
                    // The argument is the tool param of this segment (its
                    // name may differ from the placeholder: `{numeric}` is `id`).
                    let name = t
                        .params
                        .iter()
                        .find(|p| p.segment_index == index)
                        .map_or(placeholder.as_str(), |p| p.name.as_str());
                    let value = match args.get(name) {
                        Some(Value::String(s)) if !s.is_empty() => s.clone(),
                        Some(Value::Number(n)) => n.to_string(),
                        _ => {
                            return Err(invalid(
                                Some(name),
                                format!("tool `{tool}` needs `{name}`, a non-empty string"),
                            ))
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
        for name in &query_names {
            let Some(v) = args.get(*name) else { continue };
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
                        return Err(invalid(
                            Some(name),
                            format!("query argument `{name}` must be a string, number or boolean"),
                        ))
                    }
                };
                pairs.push(format!(
                    "{}={}",
                    codec::query_encode(name),
                    codec::query_encode(&text)
                ));
            }
        }
        let query = (!pairs.is_empty()).then(|| pairs.join("&"));
        Ok(Call {
            method: t.method.clone(),
            path,
            query,
            headers: Vec::new(),
            body: args.get("body").cloned(),
        })
    }
}
