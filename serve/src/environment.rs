//! The served environment: an immutable model and one mutable World behind a
//! std `Mutex` (never held across `.await`), plus the World it started with.
//! `Environment::from_capture` is the one start-up; every adapter answers
//! through `Environment::call`, which hands the request to the engine to
//! route once and dispatch, so the same request over MCP, over HTTP or
//! after `data/add` answers the same bytes.
//!
//! Reads are pure functions of the World, so their replies are cached per
//! request line until the part of the World they read changes: each entry
//! names the collections (by entity type and collection path), the whole
//! types and whether the documents its answer read, and an applied or
//! possibly-applied write drops the entries of the collections it wrote
//! (every entry when what it wrote is not known; `data/reset` and
//! `data/add` drop every entry). Entries are inserted and dropped only while
//! the World lock is held, so a cached reply is always the one the current
//! World would render.

use crate::episodes::Episodes;
use crate::generator::SystemGenerator;
use crate::model::{ImportError, Model, ToolInfo, ToolSchemas};
use crate::outcome::body_bytes;
use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderName};
use indexmap::IndexMap;
pub use rea_engine::Request;
use rea_engine::{Answer, Applied, Footprint};
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
    /// The cached reply of the read whose key is `key`, if the cache holds one.
    fn cached(&self, key: &str) -> Option<Arc<Reply>>;
    fn reset(&self);
    fn rebase(&self, value: &Value) -> Result<(), ImportError>;
    fn get(&self) -> Value;
    fn add(&self, value: Value) -> Result<(), ImportError>;
    /// `add` of tables given row by row; `None` when the model cannot.
    fn add_streamed(
        &self,
        tables: Vec<(String, &mut dyn Iterator<Item = Value>)>,
    ) -> Option<Result<(), ImportError>> {
        let _ = tables;
        None
    }
    fn load(&self, next: &dyn Fn(&Value) -> Result<Value, ImportError>) -> Result<(), ImportError>;
    fn tables(&self) -> IndexMap<String, Value>;
    fn data_tables(&self) -> IndexMap<String, Value>;
    fn routes(&self, method: &str, path: &str) -> bool;
    fn list_basis(&self, request: &Request) -> Option<&'static str>;
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
    reads: Mutex<ReadCache>,
    /// The isolated episodes' Worlds (none unless `--isolate`); their reads
    /// are not cached.
    episodes: Episodes<M::World>,
    /// Re-allocates the journal's entries once a retired World is freed.
    journal: crate::admin::Repacker,
}

/// The hasher of read keys: a read is looked up on every request, and
/// SipHash of its key was a tenth of a cached read's own work. foldhash is
/// seeded per process at random, so a client cannot choose keys that collide
/// without knowing the seed; and the cache holds at most `CACHE_ENTRIES`
/// keys (emptied when full), so even colliding keys cost a bounded probe.
type KeyHasher = foldhash::fast::RandomState;

/// Read replies by key, with the keys that depend on each collection, on
/// each whole type, on the documents, and on anything at all (a footprint
/// not known).
#[derive(Default)]
struct ReadCache {
    entries: HashMap<String, Arc<Reply>, KeyHasher>,
    by_collection: HashMap<(String, String), Vec<String>>,
    by_type: HashMap<String, Vec<String>>,
    by_documents: Vec<String>,
    by_anything: Vec<String>,
    /// Keys held in the lists above (an entry dropped through one list
    /// stays named in the others until they are drained).
    indexed: usize,
}

impl ReadCache {
    fn get(&self, key: &str) -> Option<Arc<Reply>> {
        self.entries.get(key).cloned()
    }

    fn clear(&mut self) {
        *self = ReadCache::default();
    }

    fn insert(&mut self, key: String, reply: Arc<Reply>, read: Option<&Footprint>) {
        if self.entries.len() >= CACHE_ENTRIES || self.indexed >= 4 * CACHE_ENTRIES {
            self.clear();
        }
        match read {
            None => {
                self.by_anything.push(key.clone());
                self.indexed += 1;
            }
            Some(read) => {
                for c in &read.read_collections {
                    self.by_collection
                        .entry(c.clone())
                        .or_default()
                        .push(key.clone());
                    self.indexed += 1;
                }
                for t in &read.read_types {
                    self.by_type.entry(t.clone()).or_default().push(key.clone());
                    self.indexed += 1;
                }
                if read.read_documents {
                    self.by_documents.push(key.clone());
                    self.indexed += 1;
                }
            }
        }
        self.entries.insert(key, reply);
    }

    /// Drops the entries a write may have changed the answers of.
    fn invalidate(&mut self, written: Option<&Footprint>) {
        let Some(w) = written.filter(|w| !w.wrote_nothing()) else {
            self.clear();
            return;
        };
        let mut dropped: Vec<String> = std::mem::take(&mut self.by_anything);
        for c in &w.written_collections {
            dropped.extend(self.by_collection.remove(c).unwrap_or_default());
            dropped.extend(self.by_type.remove(&c.0).unwrap_or_default());
        }
        if w.written_documents {
            dropped.append(&mut self.by_documents);
        }
        self.indexed = self.indexed.saturating_sub(dropped.len());
        for key in dropped {
            self.entries.remove(&key);
        }
    }
}

/// Request headers an answer depends on (the serving origin and the
/// preconditions), so they are part of a cached read's key, in this order.
pub(crate) const KEYED_HEADERS: [HeaderName; 3] = [
    axum::http::header::HOST,
    axum::http::header::IF_NONE_MATCH,
    axum::http::header::IF_MODIFIED_SINCE,
];

/// The cache key of a read that may be cached: an HTTP GET/HEAD without a
/// body, with the request headers its answer depends on.
fn read_key(request: &Request) -> Option<String> {
    let Request::Http(call) = request else {
        return None;
    };
    if !is_read(&call.method) || call.body.is_some() {
        return None;
    }
    Some(read_key_of(
        &call.method,
        &call.path,
        call.query.as_deref(),
        KEYED_HEADERS.map(|name| call.header(name.as_str())),
    ))
}

/// Whether a method's answers may be cached (GET and HEAD).
pub(crate) fn is_read(method: &str) -> bool {
    method.eq_ignore_ascii_case("GET") || method.eq_ignore_ascii_case("HEAD")
}

/// The cache key of a body-less read from its request line and the values
/// of its `KEYED_HEADERS`, in that order (each the first visible-ASCII value
/// of its name, as `Call::header` reads them): the one spelling of a key,
/// for the engine's `Call` and for the HTTP adapter's lookup before it
/// builds one.
pub(crate) fn read_key_of(
    method: &str,
    path: &str,
    query: Option<&str>,
    values: [Option<&str>; 3],
) -> String {
    // Built by pushing (no formatting machinery): this runs on every read.
    let mut key = String::with_capacity(method.len() + path.len() + 64);
    key.push_str(method);
    key.push(' ');
    key.push_str(path);
    if let Some(q) = query {
        key.push('?');
        key.push_str(q);
    }
    for (name, value) in KEYED_HEADERS.iter().zip(values) {
        if let Some(v) = value {
            key.push('\n');
            key.push_str(name.as_str());
            key.push_str(": ");
            key.push_str(v);
        }
    }
    key
}

impl<M: Model> Host<M> {
    /// Frees a replaced World off the caller's path (`memory::retire`),
    /// then repacks the journal so the pages the World's rows held empty.
    fn retire<T: Send + 'static>(&self, old: T) {
        let journal = self.journal.clone();
        crate::memory::retire(old, move || journal.repack());
    }

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
        if let Some(hit) = key.as_ref().and_then(|k| lock(&self.reads).get(k)) {
            return hit;
        }
        let mut generator = SystemGenerator;
        let mut world = self.lock();
        self.model.begin_trace(&mut world);
        let answer = self.model.answer(&mut world, request, &mut generator);
        let footprint = self.model.end_trace(&mut world, &answer);
        let reply = Arc::new(Reply::new(answer));
        let mut reads = lock(&self.reads);
        if reply.answer.applied != Applied::No {
            reads.invalidate(footprint.as_ref());
        } else if let Some(key) = key {
            reads.insert(key, reply.clone(), footprint.as_ref());
        }
        drop(reads);
        drop(world);
        reply
    }
    fn cached(&self, key: &str) -> Option<Arc<Reply>> {
        lock(&self.reads).get(key)
    }
    fn reset(&self) {
        let fresh = lock(&self.initial).clone();
        let mut world = self.lock();
        let old = std::mem::replace(&mut *world, fresh);
        let reads = std::mem::take(&mut *lock(&self.reads));
        drop(world);
        self.retire((old, reads));
    }
    fn rebase(&self, value: &Value) -> Result<(), ImportError> {
        let start = self.model.import(value)?;
        let old_start = std::mem::replace(&mut *lock(&self.initial), start.clone());
        let mut world = self.lock();
        let old = std::mem::replace(&mut *world, start);
        let reads = std::mem::take(&mut *lock(&self.reads));
        drop(world);
        self.retire((old, old_start, reads));
        Ok(())
    }
    fn get(&self) -> Value {
        let snapshot = self.lock().clone();
        self.model.export(&snapshot)
    }
    fn add(&self, value: Value) -> Result<(), ImportError> {
        // Build the replacement outside the lock; swap it in at once.
        let replacement = self.model.import_owned(value)?;
        let mut world = self.lock();
        let old = std::mem::replace(&mut *world, replacement);
        let reads = std::mem::take(&mut *lock(&self.reads));
        drop(world);
        self.retire((old, reads));
        Ok(())
    }
    fn add_streamed(
        &self,
        tables: Vec<(String, &mut dyn Iterator<Item = Value>)>,
    ) -> Option<Result<(), ImportError>> {
        // As `add`: built outside the lock, swapped in at once.
        let replacement = match self.model.import_streamed(tables)? {
            Ok(world) => world,
            Err(e) => return Some(Err(e)),
        };
        let mut world = self.lock();
        let old = std::mem::replace(&mut *world, replacement);
        let reads = std::mem::take(&mut *lock(&self.reads));
        drop(world);
        self.retire((old, reads));
        Some(Ok(()))
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
    fn data_tables(&self) -> IndexMap<String, Value> {
        self.model.data_tables()
    }
    fn routes(&self, method: &str, path: &str) -> bool {
        self.model.routes(method, path)
    }

    fn list_basis(&self, request: &Request) -> Option<&'static str> {
        self.model.list_basis(&self.lock(), request)
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
    /// The recorded gRPC methods (served beside the model, never changing the World).
    grpc: crate::grpc::Catalogue,
    sessions: crate::sessions::SessionBounds,
    /// What the recording showed of HTTP-level behaviour (CORS, `405`).
    observed: crate::cors::Observed,
    /// The journal, readiness and admin prefix (`crate::admin`).
    ops: crate::admin::Ops,
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
        let ops = crate::admin::Ops::default();
        Environment {
            host: Box::new(Host {
                world: Mutex::new(initial.clone()),
                initial: Mutex::new(initial),
                reads: Mutex::new(ReadCache::default()),
                episodes: Episodes::off(),
                journal: ops.journal().repacker(),
                model,
            }),
            name,
            grpc: crate::grpc::Catalogue::default(),
            sessions: crate::sessions::SessionBounds::default(),
            observed: crate::cors::Observed::default(),
            ops,
            schemas,
        }
    }

    /// The environment serving `grpc`'s recorded methods too.
    pub(crate) fn with_grpc(mut self, grpc: crate::grpc::Catalogue) -> Self {
        self.grpc = grpc;
        self
    }

    /// The recorded gRPC methods.
    pub(crate) fn grpc(&self) -> &crate::grpc::Catalogue {
        &self.grpc
    }

    /// The MCP session bounds the HTTP adapter applies.
    pub fn with_session_bounds(mut self, bounds: crate::sessions::SessionBounds) -> Self {
        self.sessions = bounds;
        self
    }

    /// The MCP session bounds.
    pub fn session_bounds(&self) -> crate::sessions::SessionBounds {
        self.sessions
    }

    /// Keeps what the recording showed of HTTP-level behaviour (start-up).
    pub(crate) fn with_observed(mut self, observed: crate::cors::Observed) -> Self {
        self.observed = observed;
        self
    }

    /// What the recording showed of HTTP-level behaviour.
    pub(crate) fn observed(&self) -> &crate::cors::Observed {
        &self.observed
    }

    /// Whether an HTTP request with `method` at `path` reaches a tool.
    pub fn routes(&self, method: &str, path: &str) -> bool {
        self.host.routes(method, path)
    }

    /// What the operator sees: the journal, coverage, readiness, the admin prefix.
    pub fn ops(&self) -> &crate::admin::Ops {
        &self.ops
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

    /// The episode a request on the app's paths acts on:
    /// the one `AgentEnv-Episode` names, with `--isolate`; `None` otherwise,
    /// when every request answers from the default World (so without
    /// `--isolate` the header is not read at all).
    pub(crate) fn episode_of(&self, headers: &axum::http::HeaderMap) -> Option<String> {
        self.host
            .isolated()
            .then(|| crate::episodes::named(headers))
            .flatten()
    }

    /// The reply `call_in` would give a body-less read with cache key `key`
    /// (`read_key_of`), when the cache holds it: the HTTP adapter asks this
    /// before it builds the call. `None` when the read acts on an episode
    /// of its own (`episode_of`: episodes' reads are not cached) or the
    /// cache holds no reply for it.
    pub(crate) fn cached_read(&self, episode: Option<&str>, key: &str) -> Option<Arc<Reply>> {
        if episode.is_some() {
            return None;
        }
        self.host.cached(key)
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

    /// How a list read would be answered now (`semantics`, `recorded`,
    /// `convention`, `unconfirmed`; see `rea_engine::lists::serve::basis`),
    /// without answering it; `None` for other calls.
    pub fn list_basis(&self, request: &Request) -> Option<&'static str> {
        self.host.list_basis(request)
    }

    /// `data/get`: the World in the data-plane shape.
    pub fn export(&self) -> Value {
        self.host.get()
    }

    /// `data/add` with `load: "replace"`: all or nothing.
    pub fn replace(&self, value: &Value) -> Result<(), ImportError> {
        self.host.add(value.clone())
    }

    /// `replace`, taking the value (its rows become the entities, no copy).
    pub fn replace_owned(&self, value: Value) -> Result<(), ImportError> {
        self.host.add(value)
    }

    /// `replace_owned` of tables given row by row, on the default World
    /// (`None` when isolation is on or the model cannot: the caller then
    /// replaces with the whole value).
    pub fn replace_streamed(
        &self,
        tables: Vec<(String, &mut dyn Iterator<Item = Value>)>,
    ) -> Option<Result<(), ImportError>> {
        if self.host.isolated() {
            return None;
        }
        self.host.add_streamed(tables)
    }

    /// `replace_owned` on episode `episode`'s World (the default World when
    /// isolation is off or no episode is named).
    pub fn replace_owned_in(&self, episode: Option<&str>, value: Value) -> Result<(), ImportError> {
        match episode.filter(|_| self.host.isolated()) {
            None => self.replace_owned(value),
            Some(_) => self.load_in(episode, &|_| Ok(value.clone())),
        }
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

    /// The data plane's tables (`data/get`, `data/add`, the card): one JSON
    /// Schema per collection, the app model's own tables included.
    pub fn data_tables(&self) -> IndexMap<String, Value> {
        self.host.data_tables()
    }
}
