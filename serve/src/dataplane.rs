//! The AgentEnv data plane: the environment card at
//! `/.well-known/agent-env.json` and JSON-RPC 2.0 at `/agentenv`
//! (`data/reset`, `data/get`, `data/add` with `load: "replace"` or
//! `load: "additive"`), and the one reading of an intake World (`intake`):
//! the bare tables, a `data/get` result, or a whole JSON-RPC reply, for
//! `--state` and `data/add` alike. The envelope follows JSON-RPC 2.0 to the
//! letter: batches, notifications (no answer), ids echoed as written
//! (checked by `crate::jsonrpc`, in its data-plane dialect).
//! `AgentEnv-Role` and `write_namespace` are accepted and ignored.

use crate::environment::Environment;
use crate::jsonrpc::{self, Unreadable};
use crate::tools::card_entry;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use rea_core::json::NumericLiteral;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod fast_add;

pub(crate) const INTAKE_URI: &str = "urn:agentenv:intake/v1";
/// The card extension saying how episodes are addressed (`--isolate`).
pub(crate) const EPISODES_URI: &str = "urn:rea:episodes/v1";
/// The table holding documents (reads that are not entities) as `{path, value}` rows.
pub(crate) const DOCUMENTS_TABLE: &str = "documents";
const OPERATIONS: [&str; 3] = ["data/reset", "data/add", "data/get"];
/// The load modes `data/add` accepts, per part (`metadata.load`); the first is the default.
const LOADS: [&str; 2] = ["replace", "additive"];
const INTAKE_DESCRIPTION: &str = "data/add takes collection -> rows (one table per entity type, plus documents as {path, value} rows), as the bare tables, a data/get result ({\"parts\": [{\"kind\": \"data\", \"data\": tables}]}) or a whole JSON-RPC reply carrying one. Each part's metadata.load says how it loads: \"replace\" (the default) makes it the whole World, so a table it leaves out is emptied; \"additive\" upserts its rows into the current World, per table, by the row identity the table requires (the id field, and _collection where a type spans collections; documents by path), leaving the other rows and tables as they are. Parts apply in order, all or nothing. data/get returns the World as the bare tables. Tables named app_model_* hold what the inferred app model keeps beside the entity tables (its own entities, the keys of rows it answers for, singleton documents, id counters, logged writes, the document store's documents, the path-keyed tree's entities); they load, upsert and empty like any other table.";
/// What an intake World may look like, for error details.
const INTAKE_SHAPES: &str = "one of: the bare tables {\"<collection>\": [row, ...], ...}; a data/get result {\"parts\": [{\"kind\": \"data\", \"data\": <tables>}]}; a whole JSON-RPC reply {\"jsonrpc\": \"2.0\", \"id\": ..., \"result\": <data/get result>}";
/// The largest file a `file://` part may name.
const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// Data-plane settings from the command line.
#[derive(Debug, Clone, Default)]
pub struct DataPlaneConfig {
    /// The only directory `file://` URIs may point into; `None` refuses them.
    pub data_root: Option<PathBuf>,
}

/// Shared state of the data-plane handlers.
#[derive(Clone)]
pub(crate) struct Plane {
    pub env: Arc<Environment>,
    pub config: Arc<DataPlaneConfig>,
}

/// The table schemas: one per entity collection plus the documents table.
pub(crate) fn tables(env: &Environment) -> Map<String, Value> {
    let mut out: Map<String, Value> = env.data_tables().into_iter().collect();
    out.insert(
        documents_table_name(env),
        json!({
            "type": "object",
            "description": "a document: the value a read returns for one path that is not an entity collection",
            "properties": {
                "path": {"type": "string"},
                "value": {}
            },
            "required": ["path", "value"],
            "additionalProperties": false
        }),
    );
    out
}

fn documents_table_name(env: &Environment) -> String {
    // An entity type called `documents` keeps its name; documents move aside.
    if env.data_tables().contains_key(DOCUMENTS_TABLE) {
        format!("{DOCUMENTS_TABLE}_")
    } else {
        DOCUMENTS_TABLE.to_string()
    }
}

/// The environment card.
pub(crate) fn card(env: &Environment) -> Value {
    let tables = Value::Object(tables(env));
    let add: Vec<Value> = LOADS
        .iter()
        .flat_map(|load| {
            [
                json!({"part": "data", "format": "json", "load": load, "tables": tables}),
                json!({
                    "part": "file", "format": "json", "mimeTypes": ["application/json"],
                    "load": load, "tables": tables
                }),
            ]
        })
        .collect();
    let get_data = json!({"part": "data", "format": "json", "tables": tables});
    let mut extensions = vec![json!({
        "uri": INTAKE_URI,
        "description": INTAKE_DESCRIPTION,
        "params": {"add": add, "get": [get_data]}
    })];
    if env.isolated() {
        extensions.push(json!({
            "uri": EPISODES_URI,
            "description": "Isolated episodes: each MCP session (Mcp-Session-Id) acts on its own World, created from the starting World and dropped when the session ends (DELETE /mcp) or sits idle. A caller names an episode with the AgentEnv-Episode header (on /agentenv, /mcp and the app's paths) or, for the data plane, with the base URL /episodes/{episode} (POST /episodes/{episode}/agentenv); an MCP session sending AgentEnv-Episode acts on that named episode. Without a name, calls act on the default World.",
            "params": {"header": "AgentEnv-Episode", "dataPlaneBaseUrl": "/episodes/{episode}"}
        }));
    }
    json!({
        "name": env.name(),
        "protocolVersion": "1.0",
        "url": "/agentenv",
        "preferredTransport": "JSONRPC",
        "additionalInterfaces": [{"url": "/mcp", "transport": "mcp"}],
        "capabilities": {
            "tools": env
                .tools()
                .map(|t| card_entry(t, env.tool_schemas(&t.tool.name)))
                .collect::<Vec<_>>(),
            "operations": OPERATIONS,
            "extensions": extensions
        }
    })
}

pub(crate) async fn card_handler(State(plane): State<Plane>) -> Response {
    json_response(&card(&plane.env))
}

/// `POST /agentenv`; with `--isolate`, an `AgentEnv-Episode: NAME` header
/// addresses episode NAME's World.
pub(crate) async fn rpc_handler(
    State(plane): State<Plane>,
    headers: axum::http::HeaderMap,
    body: Bytes,
) -> Response {
    let episode = crate::episodes::named(&headers);
    rpc_reply(plane, episode, body).await
}

/// `POST /episodes/{episode}/agentenv`: the same, the episode named in the
/// path, so that a client taking only a base URL (the AgentEnv reference
/// client) addresses an episode with `BASE/episodes/NAME`.
pub(crate) async fn episode_rpc_handler(
    State(plane): State<Plane>,
    axum::extract::Path(episode): axum::extract::Path<String>,
    body: Bytes,
) -> Response {
    rpc_reply(plane, Some(episode), body).await
}

/// The body size from which a data-plane call counts as a large load.
const LARGE_BODY: usize = 1 << 20;

/// Runs `work` (one data-plane call) on a thread of its own and waits for
/// it. A load builds its World there, and a `data/get` its reply, so the
/// allocator's pages holding them belong to no pooled thread once the
/// thread ends: the thread that later frees them (the one retiring a World,
/// the one sending a reply) takes those pages over and returns them.
/// Built on an idle pooled thread instead, they stayed resident until that
/// thread next ran or left the pool (10 s later): RSS right after a
/// `data/reset` that followed a 100k-row load was 160 MiB for 10 s, then
/// 44 MiB (docs/serving.md, memory after a reset).
fn on_own_thread<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    let slot = std::sync::Mutex::new(Some(work));
    let take = || slot.lock().unwrap_or_else(|p| p.into_inner()).take();
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("rea-data-plane".into())
            .spawn_scoped(scope, || take().map(|work| work()));
        match spawned.map(|handle| handle.join()) {
            Ok(Ok(Some(value))) => Some(value),
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
            // No thread to spare: the work runs here.
            Ok(Ok(None)) | Err(_) => None,
        }
    })
    .or_else(|| take().map(|work| work()))
    .unwrap_or_else(|| unreachable!("the work ran on neither thread"))
}

async fn rpc_reply(plane: Plane, episode: Option<String>, body: Bytes) -> Response {
    let reply = {
        let plane = plane.clone();
        // data/add may read a file and validate a large World: keep it off the
        // async workers.
        tokio::task::spawn_blocking(move || {
            let answer = move || {
                let started = std::time::Instant::now();
                let (text, operation) = rpc(&plane, episode.as_deref(), &body);
                crate::admin::journal_data_plane(
                    &plane.env,
                    operation.as_deref(),
                    text.as_deref(),
                    started,
                );
                if body.len() >= LARGE_BODY {
                    // A large load's body and its parse are garbage now: the
                    // freed memory goes back to the system before the reply (a
                    // trim left to a background thread could wait behind busy
                    // cores, and stall the next call on the allocator's lock).
                    drop(body);
                    crate::memory::give_back_memory();
                }
                text
            };
            on_own_thread(answer)
        })
        .await
    };
    let mut response = match reply {
        Ok(Some(text)) => text_response(text),
        Ok(None) => axum::http::StatusCode::NO_CONTENT.into_response(),
        Err(_) => text_response(error_text(
            "null",
            jsonrpc::INTERNAL_ERROR,
            "internal error",
            None,
        )),
    };
    response.extensions_mut().insert(crate::admin::Journaled);
    response
}

/// Answers one JSON-RPC 2.0 body to the letter: the reply text, or `None`
/// when it held only notifications, and the operation the body names (a
/// single message's string `method`; the journal's `operation`). Ids are
/// echoed as written (`1e400` included); duplicate member names are
/// refused, as the HAR reader does.
pub(crate) fn rpc(
    plane: &Plane,
    episode: Option<&str>,
    body: &[u8],
) -> (Option<String>, Option<String>) {
    // The common data/add, read a row at a time; any other body, or any
    // error, is answered below.
    if let Some(reply) = fast_add::try_answer(plane, episode, body) {
        return (Some(reply), Some("data/add".to_string()));
    }
    let parsed = match jsonrpc::read(body) {
        Ok(p) => p,
        Err(Unreadable::DuplicateKey { pointer, message }) => {
            let reply = duplicate_key_reply(body, &pointer, &message);
            return (Some(reply), operation_of_duplicated(body));
        }
        Err(Unreadable::NotJson { message }) => {
            let reply = error_text(
                "null",
                jsonrpc::PARSE_ERROR,
                DIALECT.parse_error,
                Some(json!({"detail": format!("the body is not JSON: {message}")})),
            );
            return (Some(reply), None);
        }
    };
    let operation = parsed
        .value
        .as_object()
        .and_then(|m| m.get("method"))
        .and_then(Value::as_str)
        .map(str::to_string);
    (answer_parsed(plane, episode, parsed), operation)
}

/// The `method` of a body whose member names repeat: read as serde reads a
/// struct (a repeated `method` reads as none).
fn operation_of_duplicated(body: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Head {
        method: Option<String>,
    }
    serde_json::from_slice::<Head>(body).ok()?.method
}

/// The replies to a body read as JSON.
fn answer_parsed(
    plane: &Plane,
    episode: Option<&str>,
    parsed: rea_core::json::Parsed,
) -> Option<String> {
    let literals = &parsed.numeric_literals;
    // The first number under `{at}/params` a double cannot hold.
    let unsafe_number = |at: &str| {
        let prefix = format!("{at}/params");
        literals
            .iter()
            .find(|l| !l.safe && l.pointer.starts_with(&prefix))
            .map(|l| {
                format!(
                    "{}: the number {} cannot be represented",
                    &l.pointer[at.len()..],
                    l.lexeme
                )
            })
    };
    match parsed.value {
        Value::Array(batch) if batch.is_empty() => Some(invalid("null", "an empty batch")),
        Value::Array(batch) => {
            let replies: Vec<String> = batch
                .into_iter()
                .enumerate()
                .filter_map(|(i, m)| {
                    let at = format!("/{i}");
                    one(plane, episode, m, &at, literals, unsafe_number(&at))
                })
                .collect();
            (!replies.is_empty()).then(|| format!("[{}]", replies.join(",")))
        }
        message => one(plane, episode, message, "", literals, unsafe_number("")),
    }
}

/// The data plane's envelope (`jsonrpc::DATA_PLANE`).
const DIALECT: jsonrpc::Dialect = jsonrpc::DATA_PLANE;

/// An invalid-request reply for `id` (JSON text).
fn invalid(id: &str, detail: &str) -> String {
    error_text(
        id,
        jsonrpc::INVALID_REQUEST,
        DIALECT.invalid_request,
        Some(json!({"detail": detail})),
    )
}

/// A duplicate member name: in `params` an invalid-params error for the
/// request's id, elsewhere an invalid request.
fn duplicate_key_reply(body: &[u8], pointer: &str, message: &str) -> String {
    let detail = format!("{pointer}: a member is named twice ({message})");
    let last_wins: Option<Value> = serde_json::from_slice(body).ok();
    let id = last_wins
        .as_ref()
        .and_then(|v| v.get("id"))
        .filter(|id| id.is_string() || id.is_number())
        .map(Value::to_string);
    match id {
        Some(id) if pointer.starts_with("/params/") => error_text(
            &id,
            jsonrpc::INVALID_PARAMS,
            "invalid_request",
            Some(json!({"detail": detail})),
        ),
        _ => invalid("null", &detail),
    }
}

/// One message of a body (at `at` in it): its reply, or `None` for a
/// notification.
fn one(
    plane: &Plane,
    episode: Option<&str>,
    message: Value,
    at: &str,
    literals: &[NumericLiteral],
    unsafe_number: Option<String>,
) -> Option<String> {
    let (id, method) = match jsonrpc::check(&message, at, literals, &DIALECT) {
        Ok(envelope) => (envelope.id, envelope.method.unwrap_or("").to_string()),
        Err(refused) => return Some(invalid(&refused.id, &refused.detail)),
    };
    let Value::Object(mut request) = message else {
        return None;
    };
    let outcome = match unsafe_number {
        Some(detail) => Err(invalid_params_error(&detail)),
        // Taken, not copied: a data/add's rows become the World's entities.
        None => call(plane, episode, &method, request.shift_remove("params")),
    };
    // A notification is carried out and never answered.
    let id = id?;
    Some(match outcome {
        Ok(result) => jsonrpc::result_reply(&id, &result),
        Err(error) => jsonrpc::error_reply(&id, &error),
    })
}

/// Runs one method: its result, or its JSON-RPC error object.
fn call(
    plane: &Plane,
    episode: Option<&str>,
    method: &str,
    params: Option<Value>,
) -> Result<Value, Value> {
    let params = match params {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(p)) => p,
        Some(_) => return Err(invalid_params_error("params must be an object")),
    };
    match method {
        "data/reset" => {
            plane.env.reset_in(episode);
            Ok(json!({}))
        }
        "data/get" => {
            // `write_namespace` (an upload grant) is accepted and ignored: the
            // export is always returned inline.
            let data = into_tables(
                plane.env.export_in(episode),
                &documents_table_name(&plane.env),
            );
            // Built as is: `json!` would copy every row through `to_value`.
            let mut part = Map::new();
            part.insert("kind".to_string(), Value::String("data".to_string()));
            part.insert("data".to_string(), data);
            let mut result = Map::new();
            result.insert("parts".to_string(), Value::Array(vec![Value::Object(part)]));
            Ok(Value::Object(result))
        }
        "data/add" => match data_add(plane, episode, params) {
            Ok(()) => Ok(json!({})),
            Err(detail) => Err(invalid_params_error(&detail)),
        },
        other => Err(jsonrpc::error(
            jsonrpc::METHOD_NOT_FOUND,
            &format!("method not found: {other}"),
            None,
        )),
    }
}

fn data_add(
    plane: &Plane,
    episode: Option<&str>,
    mut params: Map<String, Value>,
) -> Result<(), String> {
    let parts = match params.shift_remove("parts") {
        Some(Value::Array(parts)) if !parts.is_empty() => parts,
        Some(Value::Array(_)) => return Err("parts: at least one part is required".into()),
        _ => return Err("parts: an array of parts is required".into()),
    };
    // Read and check every part before the World changes; each part's rows
    // are taken, not copied.
    let mut loads = Vec::with_capacity(parts.len());
    for (i, mut part) in parts.into_iter().enumerate() {
        let at = format!("parts[{i}]");
        let load = match part.pointer("/metadata/load") {
            None | Some(Value::Null) => LOADS[0],
            Some(Value::String(l)) if l == LOADS[0] => LOADS[0],
            Some(Value::String(l)) if l == LOADS[1] => LOADS[1],
            Some(other) => {
                return Err(format!(
                    "{at}.metadata.load: one of \"replace\", \"additive\" is expected, got {other}"
                ))
            }
        };
        let kind = part.get("kind").and_then(Value::as_str).map(str::to_string);
        let data = match kind.as_deref() {
            Some("data") => match part.get_mut("data").map(Value::take) {
                Some(v) => v,
                None => return Err(format!("{at}.data: {INTAKE_SHAPES} is expected")),
            },
            Some("file") => file_part(plane, &at, part.get("file"))?,
            Some("text") => {
                return Err(format!(
                    "{at}: text parts are not accepted; send a data part or a JSON file part ({INTAKE_SHAPES})"
                ))
            }
            _ => return Err(format!("{at}.kind: one of data, file is required")),
        };
        let tables = intake(data).map_err(|e| format!("{at}.data: {e}"))?;
        let world = world_from_tables(&plane.env, Value::Object(tables))
            .map_err(|e| format!("{at}.data: {e}"))?;
        loads.push((load, world));
    }
    if loads.len() == 1 && loads[0].0 == LOADS[0] {
        // One replacing part (the common case): the World is built from it
        // without another copy.
        let (_, world) = loads.swap_remove(0);
        return plane
            .env
            .replace_owned_in(episode, world)
            .map_err(|e| e.detail);
    }
    plane
        .env
        .load_in(episode, &|current: &Value| {
            let mut next = current.clone();
            for (load, world) in &loads {
                next = if *load == LOADS[1] {
                    upsert(&plane.env, next, world)
                } else {
                    world.clone()
                };
            }
            Ok(next)
        })
        .map_err(|e| e.detail)
}

/// The one reading of an intake World (`--state`, a `data/add` part): the
/// bare tables, a `data/get` result, or a whole JSON-RPC reply carrying one.
/// A collection is always an array, so `parts` holding part objects and a
/// string `jsonrpc` cannot be tables.
pub(crate) fn intake(value: Value) -> Result<Map<String, Value>, String> {
    let Value::Object(mut object) = value else {
        return Err(format!(
            "{INTAKE_SHAPES} is expected; got {}",
            kind_of(&value)
        ));
    };
    if let Some(version) = object.get("jsonrpc") {
        if version != "2.0" {
            return Err(format!(
                "a JSON-RPC reply needs \"jsonrpc\": \"2.0\"; {INTAKE_SHAPES} is expected"
            ));
        }
        if let Some(error) = object.get("error") {
            return Err(format!(
                "this JSON-RPC reply is an error ({error}), not a data/get result; {INTAKE_SHAPES} is expected"
            ));
        }
        return match object.shift_remove("result") {
            Some(result @ Value::Object(_)) if result.get("parts").is_some() => {
                intake(result).map_err(|e| format!("result: {e}"))
            }
            _ => Err(format!(
                "this JSON-RPC reply has no data/get result (result.parts); {INTAKE_SHAPES} is expected"
            )),
        };
    }
    if let Some(Value::Array(parts)) = object.get("parts") {
        // An empty `parts` reads as a table of that name with no rows.
        let is_result = object.len() == 1
            && !parts.is_empty()
            && parts
                .iter()
                .all(|p| p.get("kind").and_then(Value::as_str).is_some());
        if is_result {
            let Some(Value::Array(parts)) = object.shift_remove("parts") else {
                unreachable!("`parts` was just read as an array")
            };
            let total = parts.len();
            let mut data: Vec<Value> = parts
                .into_iter()
                .filter(|p| p["kind"] == "data")
                .filter_map(|mut p| p.get_mut("data").map(Value::take))
                .collect();
            return match (data.len(), data.pop()) {
                (1, Some(Value::Object(tables))) => Ok(tables),
                (1, Some(other)) => Err(format!(
                    "parts[0].data: the tables {{\"<collection>\": [row, ...]}} are expected; got {}",
                    kind_of(&other)
                )),
                (n, _) => Err(format!(
                    "a data/get result with exactly one data part is expected; got {n} data parts of {total}"
                )),
            };
        }
    }
    if let Some((name, v)) = object.iter().find(|(_, v)| !v.is_array()) {
        return Err(format!(
            "{name}: a collection must be an array of rows, got {}; {INTAKE_SHAPES} is expected",
            kind_of(v)
        ));
    }
    Ok(object)
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `load: "additive"`: `part` (the engine's shape, already checked) upserted
/// into `current`, per table, by the identity the table requires (its
/// `required` members: the id field, and `_collection` where a type spans
/// collections); documents by path. Existing rows keep their place; new
/// rows are appended.
pub(crate) fn upsert(env: &Environment, mut current: Value, part: &Value) -> Value {
    let tables = env.data_tables();
    if let Some(Value::Object(collections)) = part.get("collections") {
        for (name, rows) in collections {
            let identity: Vec<String> = tables
                .get(name)
                .and_then(|s| s.get("required"))
                .and_then(Value::as_array)
                .map(|r| {
                    r.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            let slot = &mut current["collections"][name.as_str()];
            if !slot.is_array() {
                *slot = Value::Array(Vec::new());
            }
            let Value::Array(existing) = slot else {
                continue;
            };
            // The first held row of each identity, so a load is linear.
            let mut held: HashMap<Vec<String>, usize> = HashMap::new();
            for (i, r) in existing.iter().enumerate() {
                if let Some(key) = identity_key(r, &identity) {
                    held.entry(key).or_insert(i);
                }
            }
            for row in rows.as_array().into_iter().flatten() {
                let key = identity_key(row, &identity);
                let found = match &key {
                    Some(key) => held.get(key).copied(),
                    // An identity that is not all strings and numbers: as
                    // the rows compare, one by one.
                    None => existing.iter().position(|other| {
                        !identity.is_empty()
                            && identity.iter().all(|k| match (other.get(k), row.get(k)) {
                                (Some(a), Some(b)) => a == b || rea_engine::same_id(a, b),
                                _ => false,
                            })
                    }),
                };
                match found {
                    Some(i) => existing[i] = row.clone(),
                    None => {
                        if let Some(key) = key {
                            held.entry(key).or_insert(existing.len());
                        }
                        existing.push(row.clone());
                    }
                }
            }
        }
    }
    if let Some(Value::Object(docs)) = part.get("documents") {
        if !current["documents"].is_object() {
            current["documents"] = Value::Object(Map::new());
        }
        if let Value::Object(held) = &mut current["documents"] {
            for (path, value) in docs {
                held.insert(path.clone(), value.clone());
            }
        }
    }
    current
}

/// A row's identity as text (its `identity` members, each a string or a
/// number: two rows are the same row exactly when these are equal, as
/// `same_id` compares them); `None` when a member is missing or of another
/// kind, or there is no identity.
fn identity_key(row: &Value, identity: &[String]) -> Option<Vec<String>> {
    if identity.is_empty() {
        return None;
    }
    identity
        .iter()
        .map(|k| match row.get(k)? {
            Value::String(s) => Some(format!("s{s}")),
            Value::Number(n) => Some(format!("n{n}")),
            _ => None,
        })
        .collect()
}

fn file_part(plane: &Plane, at: &str, file: Option<&Value>) -> Result<Value, String> {
    let Some(Value::Object(file)) = file else {
        return Err(format!(
            "{at}.file: an object with bytes or uri is required"
        ));
    };
    if let Some(mime) = file.get("mimeType").and_then(Value::as_str) {
        let essence = mime
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if essence != "application/json" && !essence.ends_with("+json") {
            return Err(format!(
                "{at}.file.mimeType: only application/json is accepted, got {mime}"
            ));
        }
    }
    let bytes = if let Some(encoded) = file.get("bytes") {
        let Some(encoded) = encoded.as_str() else {
            return Err(format!("{at}.file.bytes: base64 text is required"));
        };
        base64::engine::general_purpose::STANDARD
            .decode(encoded.trim())
            .map_err(|e| format!("{at}.file.bytes: not base64 ({e})"))?
    } else if let Some(uri) = file.get("uri") {
        let Some(uri) = uri.as_str() else {
            return Err(format!("{at}.file.uri: a string is required"));
        };
        read_file_uri(plane.config.data_root.as_deref(), uri)?
    } else {
        return Err(format!("{at}.file: bytes or uri is required"));
    };
    let parsed = rea_core::json::parse(&bytes).map_err(|e| format!("{at}.file: not JSON ({e})"))?;
    match parsed.numeric_literals.iter().find(|l| !l.safe) {
        Some(l) => Err(format!(
            "{at}.file{}: the number {} cannot be represented",
            l.pointer, l.lexeme
        )),
        None => Ok(parsed.value),
    }
}

/// Reads a `file://` URI, only below `data_root`; never fetches anything else.
pub(crate) fn read_file_uri(data_root: Option<&Path>, uri: &str) -> Result<Vec<u8>, String> {
    let lower = uri.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        return Err(
            "parts[0].file.uri: data/add never fetches over the network; send the bytes inline"
                .into(),
        );
    }
    let Some(rest) = uri.strip_prefix("file://") else {
        return Err("parts[0].file.uri: only file:// URIs are accepted".into());
    };
    let Some(root) = data_root else {
        return Err(
            "parts[0].file.uri: file:// URIs need the server started with --data-root".into(),
        );
    };
    let parsed = url::Url::parse(uri).map_err(|e| format!("parts[0].file.uri: {e}"))?;
    let path = parsed
        .to_file_path()
        .map_err(|_| format!("parts[0].file.uri: not a local path: {rest}"))?;
    let root = root
        .canonicalize()
        .map_err(|e| format!("--data-root is not readable ({e})"))?;
    let real = path
        .canonicalize()
        .map_err(|e| format!("parts[0].file.uri: cannot open {} ({e})", path.display()))?;
    if !real.starts_with(&root) {
        return Err("parts[0].file.uri: the file is outside --data-root".into());
    }
    let meta = std::fs::metadata(&real).map_err(|e| format!("parts[0].file.uri: {e}"))?;
    if !meta.is_file() {
        return Err("parts[0].file.uri: not a regular file".into());
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!(
            "parts[0].file.uri: the file has {} bytes, more than the {MAX_FILE_BYTES}-byte limit",
            meta.len()
        ));
    }
    std::fs::read(&real).map_err(|e| format!("parts[0].file.uri: {e}"))
}

/// The engine's `{"collections", "documents"}` → the flat table shape,
/// taking the World: its rows move into the tables, no copy.
pub(crate) fn into_tables(world: Value, documents_table: &str) -> Value {
    let Value::Object(mut world) = world else {
        return into_tables(Value::Object(Map::new()), documents_table);
    };
    let mut out = Map::new();
    if let Some(Value::Object(collections)) = world.shift_remove("collections") {
        out.extend(collections);
    }
    let mut documents = Vec::new();
    if let Some(Value::Object(docs)) = world.shift_remove("documents") {
        for (path, value) in docs {
            let mut row = Map::new();
            row.insert("path".to_string(), Value::String(path));
            row.insert("value".to_string(), value);
            documents.push(Value::Object(row));
        }
    }
    out.insert(documents_table.to_string(), Value::Array(documents));
    Value::Object(out)
}

/// The flat table shape → the engine's shape, checked against the tables.
/// Errors name the collection, the row and the field.
pub(crate) fn world_from_tables(env: &Environment, data: Value) -> Result<Value, String> {
    let Value::Object(data) = data else {
        return Err("data: a JSON object of collection -> rows is required".into());
    };
    let documents_table = documents_table_name(env);
    let tables = env.data_tables();
    let mut collections = Map::new();
    let mut documents = Map::new();
    for (name, rows) in data {
        let Value::Array(rows) = rows else {
            return Err(format!("{name}: a collection must be an array of rows"));
        };
        if *name == documents_table {
            for (i, row) in rows.iter().enumerate() {
                let Some(path) = row.get("path").and_then(Value::as_str) else {
                    return Err(format!("{name}[{i}].path: a string is required"));
                };
                let Some(value) = row.get("value") else {
                    return Err(format!("{name}[{i}].value: required"));
                };
                if let Some(extra) = row
                    .as_object()
                    .and_then(|o| o.keys().find(|k| *k != "path" && *k != "value"))
                {
                    return Err(format!("{name}[{i}].{extra}: unknown field"));
                }
                if documents.insert(path.to_string(), value.clone()).is_some() {
                    return Err(format!("{name}[{i}].path: duplicate path {path}"));
                }
            }
            continue;
        }
        let Some(schema) = tables.get(&name) else {
            let mut declared: Vec<&str> = tables.keys().map(String::as_str).collect();
            declared.push(&documents_table);
            return Err(format!(
                "{name}: unknown collection (declared: {})",
                declared.join(", ")
            ));
        };
        let validator = jsonschema::validator_for(schema)
            .map_err(|e| format!("{name}: the table schema does not compile ({e})"))?;
        for (i, row) in rows.iter().enumerate() {
            if !row.is_object() {
                return Err(format!("{name}[{i}]: a row must be a JSON object"));
            }
            if let Err(e) = validator.validate(row) {
                let at = e.instance_path().to_string();
                let field = missing_field(&e.to_string()).map(|f| format!("/{f}"));
                let at = if at.is_empty() {
                    field.unwrap_or_default()
                } else {
                    at
                };
                return Err(format!("{name}[{i}]{}: {e}", pointer_to_dots(&at)));
            }
        }
        collections.insert(name, Value::Array(rows));
    }
    // Built as is: `json!` would copy every row through `to_value`.
    Ok(world_value(collections, documents))
}

/// The engine's `{"collections", "documents"}` shape, taking both maps.
fn world_value(collections: Map<String, Value>, documents: Map<String, Value>) -> Value {
    let mut world = Map::new();
    world.insert("collections".to_string(), Value::Object(collections));
    world.insert("documents".to_string(), Value::Object(documents));
    Value::Object(world)
}

/// `"x" is a required property` → `x`.
fn missing_field(message: &str) -> Option<&str> {
    let rest = message.strip_suffix(" is a required property")?;
    Some(rest.trim_matches('"'))
}

fn pointer_to_dots(pointer: &str) -> String {
    pointer
        .split('/')
        .filter(|s| !s.is_empty())
        .map(|s| format!(".{}", s.replace("~1", "/").replace("~0", "~")))
        .collect()
}

fn invalid_params_error(detail: &str) -> Value {
    jsonrpc::error(
        jsonrpc::INVALID_PARAMS,
        "invalid_request",
        Some(json!({"detail": detail})),
    )
}

fn error_text(id: &str, code: i64, message: &str, data: Option<Value>) -> String {
    jsonrpc::error_reply(id, &jsonrpc::error(code, message, data))
}

fn text_response(text: String) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], text).into_response()
}

fn json_response(value: &Value) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        serde_json::to_vec(value).unwrap_or_default(),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_data_plane_call_runs_on_a_thread_of_its_own_and_its_panic_reaches_the_caller() {
        let caller = std::thread::current().id();
        let ran_on = on_own_thread(|| std::thread::current().id());
        assert_ne!(ran_on, caller);
        assert_eq!(
            on_own_thread(|| std::thread::current().name().map(str::to_string)),
            Some("rea-data-plane".to_string())
        );
        let panic = std::panic::catch_unwind(|| on_own_thread(|| panic!("boom")));
        assert!(panic.is_err());
    }

    #[test]
    fn file_uris_stay_under_the_data_root_and_never_fetch() {
        let dir = tempfile::tempdir().unwrap();
        let inside = dir.path().join("w.json");
        std::fs::write(&inside, b"{}").unwrap();
        let uri = url::Url::from_file_path(&inside).unwrap().to_string();
        assert_eq!(read_file_uri(Some(dir.path()), &uri).unwrap(), b"{}");
        assert!(read_file_uri(None, &uri)
            .unwrap_err()
            .contains("--data-root"));
        let other = tempfile::tempdir().unwrap();
        let outside = other.path().join("x.json");
        std::fs::write(&outside, b"{}").unwrap();
        let uri = url::Url::from_file_path(&outside).unwrap().to_string();
        assert!(read_file_uri(Some(dir.path()), &uri)
            .unwrap_err()
            .contains("outside"));
        assert!(
            read_file_uri(Some(dir.path()), "https://example.com/w.json")
                .unwrap_err()
                .contains("never fetches")
        );
        assert!(read_file_uri(Some(dir.path()), "ftp://x/y").is_err());
    }

    #[test]
    fn tables_shape_round_trips_documents() {
        let world =
            json!({"collections": {"records": [{"id": "a"}]}, "documents": {"/v1/": {"x": 1}}});
        let flat = into_tables(world.clone(), "documents");
        assert_eq!(
            flat,
            json!({"records": [{"id": "a"}], "documents": [{"path": "/v1/", "value": {"x": 1}}]})
        );
    }

    #[test]
    fn identity_keys_compare_as_same_id_does() {
        let ids = ["id".to_string()];
        let key = |v: Value| identity_key(&json!({"id": v}), &ids);
        for (a, b) in [
            (json!("1"), json!(1)),
            (json!(1), json!(1.0)),
            (json!("a"), json!("b")),
            (json!(7), json!(7)),
            (json!("x"), json!("x")),
        ] {
            assert_eq!(
                key(a.clone()) == key(b.clone()),
                rea_engine::same_id(&a, &b),
                "{a} {b}"
            );
        }
        // Not strings or numbers, or missing: compared row by row instead.
        assert_eq!(key(json!(true)), None);
        assert_eq!(identity_key(&json!({"name": "a"}), &ids), None);
        assert_eq!(identity_key(&json!({"id": "a"}), &[]), None);
        // Every member of a compound identity counts.
        let both = ["id".to_string(), "_collection".to_string()];
        assert_ne!(
            identity_key(&json!({"id": "a", "_collection": "/x"}), &both),
            identity_key(&json!({"id": "a", "_collection": "/y"}), &both)
        );
    }

    #[test]
    fn pointers_read_as_fields() {
        assert_eq!(pointer_to_dots("/a/b~1c"), ".a.b/c");
        assert_eq!(missing_field("\"id\" is a required property"), Some("id"));
    }
}
