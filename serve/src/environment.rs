//! The served environment: an immutable model and one mutable World behind a
//! std `Mutex` (never held across `.await`), plus the World it started with.
//! Every adapter answers through `Environment::call`, so the same request
//! over MCP, over HTTP or after `data/add` answers the same bytes.
//!
//! Reads are pure functions of the World, so their replies are cached per
//! request line until the World changes (an applied or possibly-applied
//! write, `data/reset`, `data/add`). Entries are inserted and the cache is
//! cleared only while the World lock is held, so a cached reply is always
//! the one the current World would render.

use crate::generator::SystemGenerator;
use crate::model::{ImportError, Model, ToolInfo};
use crate::outcome::body_bytes;
use axum::body::Bytes;
use axum::http::HeaderMap;
use indexmap::IndexMap;
use rea_engine::{Answer, Applied, Call};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Cached read replies kept at most; the cache is emptied when it is full.
const CACHE_ENTRIES: usize = 4096;

/// One answer, the body bytes every adapter serves for it, and the HTTP
/// headers it is served with (built once, so a cached read costs no parsing).
#[derive(Debug)]
pub struct Reply {
    pub answer: Answer,
    pub bytes: Bytes,
    pub headers: HeaderMap,
}

impl Reply {
    pub fn new(answer: Answer) -> Reply {
        let bytes = Bytes::from(body_bytes(&answer));
        let headers = crate::http::response_headers(&answer);
        Reply {
            answer,
            bytes,
            headers,
        }
    }
}

/// One request to the environment, from whichever adapter.
#[derive(Debug, Clone)]
pub enum Request {
    /// An MCP tool call: the tool's name and its arguments.
    Tool {
        name: String,
        arguments: Map<String, Value>,
    },
    /// A request at the recorded API's own method, path and query.
    Http(Call),
}

/// The object-safe face of a hosted model.
trait Hosted: Send + Sync {
    fn name(&self) -> &str;
    fn tools(&self) -> &[ToolInfo];
    fn route(&self, method: &str, path: &str) -> Option<String>;
    fn tool_call(&self, tool: &str, arguments: &Map<String, Value>) -> Result<Call, Box<Answer>>;
    fn answer(&self, call: &Call) -> Arc<Reply>;
    fn cached(&self, call: &Call) -> Option<Arc<Reply>>;
    fn reset(&self);
    fn rebase(&self, value: &Value) -> Result<(), ImportError>;
    fn get(&self) -> Value;
    fn add(&self, value: &Value) -> Result<(), ImportError>;
    fn tables(&self) -> IndexMap<String, Value>;
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic while holding the lock cannot leave a half-applied call: the
    // engine changes the World only when it answers `applied: yes`.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

struct Host<M: Model> {
    model: M,
    world: Mutex<M::World>,
    initial: Mutex<M::World>,
    /// Read replies by `METHOD target`, valid for the current World.
    reads: Mutex<HashMap<String, Arc<Reply>>>,
}

/// The cache key of a read that may be cached: GET/HEAD without a body.
fn read_key(call: &Call) -> Option<String> {
    let read = call.method.eq_ignore_ascii_case("GET") || call.method.eq_ignore_ascii_case("HEAD");
    (read && call.body.is_none()).then(|| format!("{} {}", call.method, call.line()))
}

impl<M: Model> Host<M> {
    fn lock(&self) -> std::sync::MutexGuard<'_, M::World> {
        lock(&self.world)
    }
}

impl<M: Model> Hosted for Host<M> {
    fn name(&self) -> &str {
        self.model.name()
    }
    fn tools(&self) -> &[ToolInfo] {
        self.model.tools()
    }
    fn route(&self, method: &str, path: &str) -> Option<String> {
        self.model.route(method, path)
    }
    fn tool_call(&self, tool: &str, arguments: &Map<String, Value>) -> Result<Call, Box<Answer>> {
        self.model.tool_call(tool, arguments)
    }
    fn cached(&self, call: &Call) -> Option<Arc<Reply>> {
        let key = read_key(call)?;
        lock(&self.reads).get(&key).cloned()
    }
    fn answer(&self, call: &Call) -> Arc<Reply> {
        if let Some(hit) = self.cached(call) {
            return hit;
        }
        let key = read_key(call);
        let mut generator = SystemGenerator;
        let mut world = self.lock();
        let reply = Arc::new(Reply::new(self.model.call(
            &mut world,
            call,
            &mut generator,
        )));
        let mut reads = lock(&self.reads);
        if reply.answer.applied != Applied::No {
            reads.clear();
        } else if let Some(key) = key {
            if reads.len() >= CACHE_ENTRIES {
                reads.clear();
            }
            reads.insert(key, reply.clone());
        }
        drop(reads);
        drop(world);
        reply
    }
    fn reset(&self) {
        let fresh = lock(&self.initial).clone();
        let mut world = self.lock();
        *world = fresh;
        lock(&self.reads).clear();
    }
    fn rebase(&self, value: &Value) -> Result<(), ImportError> {
        let start = self.model.import(value)?;
        *lock(&self.initial) = start.clone();
        let mut world = self.lock();
        *world = start;
        lock(&self.reads).clear();
        Ok(())
    }
    fn get(&self) -> Value {
        let snapshot = self.lock().clone();
        self.model.export(&snapshot)
    }
    fn add(&self, value: &Value) -> Result<(), ImportError> {
        // Build the replacement outside the lock; swap it in at once.
        let replacement = self.model.import(value)?;
        let mut world = self.lock();
        *world = replacement;
        lock(&self.reads).clear();
        Ok(())
    }
    fn tables(&self) -> IndexMap<String, Value> {
        self.model.tables()
    }
}

/// The environment every adapter serves.
pub struct Environment {
    host: Box<dyn Hosted>,
    name: String,
}

impl Environment {
    /// Hosts `model`, starting from `start` (a `--state` World) or the
    /// model's initial World. `data/reset` returns to that starting World.
    pub fn new<M: Model>(model: M, start: Option<M::World>) -> Self {
        let initial = start.unwrap_or_else(|| model.initial_world());
        let name = std::env::var("ENVIRONMENT_NAME")
            .ok()
            .filter(|n| !n.trim().is_empty())
            .unwrap_or_else(|| model.name().to_string());
        Environment {
            host: Box::new(Host {
                world: Mutex::new(initial.clone()),
                initial: Mutex::new(initial),
                reads: Mutex::new(HashMap::new()),
                model,
            }),
            name,
        }
    }

    /// The environment name (`ENVIRONMENT_NAME`, else the manifest's).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The model's own name, whatever `ENVIRONMENT_NAME` says.
    pub fn model_name(&self) -> &str {
        self.host.name()
    }

    /// Every manifest tool, served or not.
    pub fn all_tools(&self) -> &[ToolInfo] {
        self.host.tools()
    }

    /// The tools offered: every read and every served write.
    pub fn tools(&self) -> impl Iterator<Item = &ToolInfo> {
        self.all_tools().iter().filter(|t| t.served)
    }

    /// The offered tool called `name`.
    pub fn tool(&self, name: &str) -> Option<&ToolInfo> {
        self.tools().find(|t| t.tool.name == name)
    }

    /// Answers one request. Atomic: the World lock is held for exactly
    /// one engine call.
    pub fn call(&self, request: &Request) -> Arc<Reply> {
        match request {
            Request::Tool { name, arguments } => {
                let Some(info) = self.all_tools().iter().find(|t| t.tool.name == *name) else {
                    return Arc::new(Reply::new(own_error(
                        404,
                        "unknown_tool",
                        &format!("no tool is named {name}"),
                        None,
                    )));
                };
                if !info.served {
                    return Arc::new(Reply::new(not_served(info)));
                }
                match self.host.tool_call(name, arguments) {
                    Ok(call) => self.host.answer(&call),
                    Err(answer) => Arc::new(Reply::new(*answer)),
                }
            }
            Request::Http(call) => {
                if let Some(hit) = self.host.cached(call) {
                    return hit;
                }
                let Some(tool) = self.host.route(&call.method, &call.path) else {
                    return Arc::new(Reply::new(own_error(
                        404,
                        "no_matching_tool",
                        &format!(
                            "no recorded tool matches {} {}",
                            call.method,
                            display_path(call)
                        ),
                        None,
                    )));
                };
                if let Some(info) = self.all_tools().iter().find(|t| t.tool.name == tool) {
                    if !info.served {
                        return Arc::new(Reply::new(not_served(info)));
                    }
                }
                self.host.answer(call)
            }
        }
    }

    /// `data/reset`: back to the starting World.
    pub fn reset(&self) {
        self.host.reset();
    }

    /// Makes `value` (the engine's World shape) both the current World and
    /// the one `data/reset` returns to (`--state`).
    pub fn rebase(&self, value: &Value) -> Result<(), ImportError> {
        self.host.rebase(value)
    }

    /// `data/get`: the World in the data-plane shape.
    pub fn export(&self) -> Value {
        self.host.get()
    }

    /// `data/add` with `load: "replace"`: all or nothing.
    pub fn replace(&self, value: &Value) -> Result<(), ImportError> {
        self.host.add(value)
    }

    /// One JSON Schema per collection.
    pub fn tables(&self) -> IndexMap<String, Value> {
        self.host.tables()
    }
}

fn display_path(call: &Call) -> String {
    match &call.query {
        Some(q) if !q.is_empty() => format!("{}?{}", call.path, q),
        _ => call.path.clone(),
    }
}

fn not_served(info: &ToolInfo) -> Answer {
    let reason = info.reason.as_deref().unwrap_or("not-served");
    own_error(
        501,
        "write_not_served",
        &format!(
            "{} {} is recorded but its write plan is not served (reason: {reason}); nothing was changed",
            info.tool.method, info.tool.path_template
        ),
        Some(reason),
    )
}

/// An error answer produced by rea itself (not a replayed recording), in
/// the engine's shape `{"error": code, "message": ..., "reason"?}`.
pub(crate) fn own_error(status: u16, code: &str, message: &str, reason: Option<&str>) -> Answer {
    let extra = reason.map(|r| json!({ "reason": r }));
    Answer::error(status, code, message, None, extra)
}
