//! The served environment: an immutable model and one mutable World behind a
//! std `Mutex` (never held across `.await`), plus the World it started with.
//! `Environment::from_capture` is the one start-up; every adapter answers
//! through `Environment::call`, which hands the request to the engine to
//! route once and dispatch, so the same request over MCP, over HTTP or
//! after `data/add` answers the same bytes.
//!
//! Reads are pure functions of the World, so their replies are cached per
//! request line until the World changes (an applied or possibly-applied
//! write, `data/reset`, `data/add`). Entries are inserted and the cache is
//! cleared only while the World lock is held, so a cached reply is always
//! the one the current World would render.

use crate::episodes::Episodes;
use crate::generator::SystemGenerator;
use crate::model::{ImportError, Model, ToolInfo, ToolSchemas};
use crate::outcome::body_bytes;
use axum::body::Bytes;
use axum::http::HeaderMap;
use indexmap::IndexMap;
pub use rea_engine::Request;
use rea_engine::{Answer, Applied};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

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

/// The object-safe face of a hosted model.
trait Hosted: Send + Sync {
    fn name(&self) -> &str;
    fn tools(&self) -> &[ToolInfo];
    fn answer(&self, request: &Request) -> Arc<Reply>;
    fn reset(&self);
    fn rebase(&self, value: &Value) -> Result<(), ImportError>;
    fn get(&self) -> Value;
    fn add(&self, value: &Value) -> Result<(), ImportError>;
    fn load(&self, next: &dyn Fn(&Value) -> Result<Value, ImportError>) -> Result<(), ImportError>;
    fn tables(&self) -> IndexMap<String, Value>;
    /// The episode side (`--isolate`): the same operations on episode `name`.
    fn isolate(&mut self, idle: Option<Duration>);
    fn isolated(&self) -> bool;
    fn answer_in(&self, name: &str, request: &Request) -> Option<Arc<Reply>>;
    fn reset_in(&self, name: &str) -> bool;
    fn get_in(&self, name: &str) -> Option<Value>;
    fn load_in(
        &self,
        name: &str,
        next: &dyn Fn(&Value) -> Result<Value, ImportError>,
    ) -> Option<Result<(), ImportError>>;
    fn end(&self, name: &str) -> bool;
    fn episode_count(&self) -> usize;
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
    /// The isolated episodes' Worlds (none unless `--isolate`); their reads
    /// are not cached.
    episodes: Episodes<M::World>,
}

/// Request headers an answer depends on (the serving origin and the
/// preconditions), so they are part of a cached read's key.
const KEYED_HEADERS: [&str; 3] = ["host", "if-none-match", "if-modified-since"];

/// The cache key of a read that may be cached: an HTTP GET/HEAD without a
/// body, with the request headers its answer depends on.
fn read_key(request: &Request) -> Option<String> {
    let Request::Http(call) = request else {
        return None;
    };
    let read = call.method.eq_ignore_ascii_case("GET") || call.method.eq_ignore_ascii_case("HEAD");
    if !read || call.body.is_some() {
        return None;
    }
    let mut key = format!("{} {}", call.method, call.line());
    for name in KEYED_HEADERS {
        if let Some(v) = call.header(name) {
            key.push_str(&format!("\n{name}: {v}"));
        }
    }
    Some(key)
}

impl<M: Model> Host<M> {
    fn lock(&self) -> std::sync::MutexGuard<'_, M::World> {
        lock(&self.world)
    }

    /// Episode `name`'s World, created from the starting World on first use.
    fn episode(&self, name: &str) -> Option<Arc<Mutex<M::World>>> {
        self.episodes
            .world(Some(name), || lock(&self.initial).clone())
    }
}

impl<M: Model> Hosted for Host<M> {
    fn name(&self) -> &str {
        self.model.name()
    }
    fn tools(&self) -> &[ToolInfo] {
        self.model.tools()
    }
    fn answer(&self, request: &Request) -> Arc<Reply> {
        let key = read_key(request);
        if let Some(hit) = key.as_ref().and_then(|k| lock(&self.reads).get(k).cloned()) {
            return hit;
        }
        let mut generator = SystemGenerator;
        let mut world = self.lock();
        let reply = Arc::new(Reply::new(self.model.answer(
            &mut world,
            request,
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
    fn load(&self, next: &dyn Fn(&Value) -> Result<Value, ImportError>) -> Result<(), ImportError> {
        // Under the lock, so no write lands between reading the World and
        // swapping in the one built from it.
        let mut world = self.lock();
        let replacement = self.model.import(&next(&self.model.export(&world))?)?;
        *world = replacement;
        lock(&self.reads).clear();
        Ok(())
    }
    fn tables(&self) -> IndexMap<String, Value> {
        self.model.tables()
    }
    fn isolate(&mut self, idle: Option<Duration>) {
        self.episodes.set_idle(idle);
    }
    fn isolated(&self) -> bool {
        self.episodes.enabled()
    }
    fn answer_in(&self, name: &str, request: &Request) -> Option<Arc<Reply>> {
        let world = self.episode(name)?;
        let mut world = lock(&world);
        let answer = self.model.answer(&mut world, request, &mut SystemGenerator);
        Some(Arc::new(Reply::new(answer)))
    }
    fn reset_in(&self, name: &str) -> bool {
        // A fresh episode is the starting World: drop the old one, clone once.
        if !self.episodes.enabled() {
            return false;
        }
        self.episodes.end(name);
        self.episode(name).is_some()
    }
    fn get_in(&self, name: &str) -> Option<Value> {
        let world = self.episode(name)?;
        let snapshot = lock(&world).clone();
        Some(self.model.export(&snapshot))
    }
    fn load_in(
        &self,
        name: &str,
        next: &dyn Fn(&Value) -> Result<Value, ImportError>,
    ) -> Option<Result<(), ImportError>> {
        let world = self.episode(name)?;
        let mut world = lock(&world);
        let built = next(&self.model.export(&world)).and_then(|v| self.model.import(&v));
        Some(built.map(|replacement| *world = replacement))
    }
    fn end(&self, name: &str) -> bool {
        self.episodes.end(name)
    }
    fn episode_count(&self) -> usize {
        self.episodes.count()
    }
}

/// The environment every adapter serves.
pub struct Environment {
    host: Box<dyn Hosted>,
    name: String,
    /// Each tool's schemas, inferred once at start-up.
    schemas: HashMap<String, ToolSchemas>,
}

impl Environment {
    /// Hosts `model`, starting from `start` (a `--state` World) or the
    /// model's initial World. `data/reset` returns to that starting World.
    /// `name` overrides the model's own name (the CLI passes
    /// `ENVIRONMENT_NAME`); the library reads no process environment.
    pub fn new<M: Model>(model: M, start: Option<M::World>, name: Option<&str>) -> Self {
        let initial = start.unwrap_or_else(|| model.initial_world());
        let name = name
            .filter(|n| !n.trim().is_empty())
            .map_or_else(|| model.name().to_string(), str::to_string);
        let schemas = model
            .tools()
            .iter()
            .map(|t| (t.tool.name.clone(), model.tool_schemas(&t.tool.name)))
            .collect();
        Environment {
            host: Box::new(Host {
                world: Mutex::new(initial.clone()),
                initial: Mutex::new(initial),
                reads: Mutex::new(HashMap::new()),
                episodes: Episodes::off(),
                model,
            }),
            name,
            schemas,
        }
    }

    /// The environment name (the one given at start-up, else the manifest's).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The model's own name, whatever name the environment was given.
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

    /// Isolated episodes (`--isolate`): every MCP session and every caller
    /// naming an episode gets its own World, created from the starting
    /// World, dropped at session end or after `idle` without use. Off by
    /// default.
    pub fn with_isolation(mut self, idle: Duration) -> Self {
        self.host.isolate(Some(idle));
        self
    }

    /// Whether episodes are isolated.
    pub fn isolated(&self) -> bool {
        self.host.isolated()
    }

    /// Answers one request in episode `episode` (its own World) when
    /// isolation is on and an episode is named, else in the default World.
    pub fn call_in(&self, episode: Option<&str>, request: &Request) -> Arc<Reply> {
        episode
            .and_then(|name| self.host.answer_in(name, request))
            .unwrap_or_else(|| self.host.answer(request))
    }

    /// `data/reset` of an episode (or of the default World).
    pub fn reset_in(&self, episode: Option<&str>) {
        if !episode.is_some_and(|name| self.host.reset_in(name)) {
            self.host.reset();
        }
    }

    /// `data/get` of an episode (or of the default World).
    pub fn export_in(&self, episode: Option<&str>) -> Value {
        episode
            .and_then(|name| self.host.get_in(name))
            .unwrap_or_else(|| self.host.get())
    }

    /// `load` on an episode (or on the default World).
    pub fn load_in(
        &self,
        episode: Option<&str>,
        next: &dyn Fn(&Value) -> Result<Value, ImportError>,
    ) -> Result<(), ImportError> {
        match episode.and_then(|name| self.host.load_in(name, next)) {
            Some(done) => done,
            None => self.host.load(next),
        }
    }

    /// Drops episode `name` (an ended MCP session); true when it existed.
    pub fn end_episode(&self, name: &str) -> bool {
        self.host.end(name)
    }

    /// The episodes held now.
    pub fn episode_count(&self) -> usize {
        self.host.episode_count()
    }

    /// What tool `name` takes and answers (empty for an unknown tool).
    pub fn tool_schemas(&self, name: &str) -> &ToolSchemas {
        static NONE: std::sync::OnceLock<ToolSchemas> = std::sync::OnceLock::new();
        self.schemas
            .get(name)
            .unwrap_or_else(|| NONE.get_or_init(ToolSchemas::default))
    }

    /// Answers one request. Atomic: the World lock is held for exactly
    /// one engine call (the engine routes it once, then dispatches).
    pub fn call(&self, request: &Request) -> Arc<Reply> {
        self.host.answer(request)
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

    /// `data/add` in general: the World `next` builds from the current one
    /// (both in the engine's `{"collections", "documents"}` shape) replaces
    /// it, atomically; on any error nothing changes.
    pub fn load(
        &self,
        next: &dyn Fn(&Value) -> Result<Value, ImportError>,
    ) -> Result<(), ImportError> {
        self.host.load(next)
    }

    /// One JSON Schema per collection.
    pub fn tables(&self) -> IndexMap<String, Value> {
        self.host.tables()
    }
}
