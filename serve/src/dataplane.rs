//! The AgentEnv data plane: the environment card at
//! `/.well-known/agent-env.json` and JSON-RPC 2.0 at `/agentenv`
//! (`data/reset`, `data/get`, `data/add` with `load: "replace"`).
//! `AgentEnv-Role` and `write_namespace` are accepted and ignored: one
//! environment holds one World, whoever calls.

use crate::environment::Environment;
use crate::tools::card_entry;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub(crate) const INTAKE_URI: &str = "urn:agentenv:intake/v1";
/// The table holding documents (reads that are not entities) as `{path, value}` rows.
pub(crate) const DOCUMENTS_TABLE: &str = "documents";
const OPERATIONS: [&str; 3] = ["data/reset", "data/add", "data/get"];
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
    let mut out: Map<String, Value> = env.tables().into_iter().collect();
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
    if env.tables().contains_key(DOCUMENTS_TABLE) {
        format!("{DOCUMENTS_TABLE}_")
    } else {
        DOCUMENTS_TABLE.to_string()
    }
}

/// The environment card.
pub(crate) fn card(env: &Environment) -> Value {
    let tables = Value::Object(tables(env));
    let add_data = json!({"part": "data", "format": "json", "load": "replace", "tables": tables});
    let add_file = json!({
        "part": "file", "format": "json", "mimeTypes": ["application/json"],
        "load": "replace", "tables": tables
    });
    let get_data = json!({"part": "data", "format": "json", "tables": tables});
    json!({
        "name": env.name(),
        "protocolVersion": "1.0",
        "url": "/agentenv",
        "preferredTransport": "JSONRPC",
        "additionalInterfaces": [{"url": "/mcp", "transport": "mcp"}],
        "capabilities": {
            "tools": env.tools().map(card_entry).collect::<Vec<_>>(),
            "operations": OPERATIONS,
            "extensions": [{
                "uri": INTAKE_URI,
                "description": "data/add replaces the whole World with collection -> rows (one table per entity type, plus documents as {path, value} rows); data/get returns it in the same shape.",
                "params": {"add": [add_data, add_file], "get": [get_data]}
            }]
        }
    })
}

pub(crate) async fn card_handler(State(plane): State<Plane>) -> Response {
    json_response(&card(&plane.env))
}

/// `POST /agentenv`.
pub(crate) async fn rpc_handler(State(plane): State<Plane>, body: Bytes) -> Response {
    let reply = {
        let plane = plane.clone();
        // data/add may read a file and validate a large World: keep it off the
        // async workers.
        tokio::task::spawn_blocking(move || rpc(&plane, &body)).await
    };
    match reply {
        Ok(value) => json_response(&value),
        Err(_) => json_response(&rpc_error(Value::Null, -32603, "internal error", None)),
    }
}

/// Answers one JSON-RPC request body.
pub(crate) fn rpc(plane: &Plane, body: &[u8]) -> Value {
    let request: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(_) => return rpc_error(Value::Null, -32700, "parse error", None),
    };
    let Value::Object(mut request) = request else {
        return rpc_error(Value::Null, -32600, "invalid request", None);
    };
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    if request.get("jsonrpc") != Some(&json!("2.0")) {
        return rpc_error(id, -32600, "invalid request", None);
    }
    let Some(method) = request.get("method").and_then(Value::as_str) else {
        return rpc_error(id, -32600, "invalid request", None);
    };
    let method = method.to_string();
    // Taken, not copied: a data/add's rows become the World's entities.
    let params = match request.shift_remove("params") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(p)) => p,
        Some(_) => return invalid_params(id, "params must be an object"),
    };
    match method.as_str() {
        "data/reset" => {
            plane.env.reset();
            rpc_result(id, json!({}))
        }
        "data/get" => {
            // `write_namespace` (an upload grant) is accepted and ignored: the
            // export is always returned inline.
            let data = to_tables(&plane.env.export(), &documents_table_name(&plane.env));
            rpc_result(id, json!({"parts": [{"kind": "data", "data": data}]}))
        }
        "data/add" => match data_add(plane, params) {
            Ok(()) => rpc_result(id, json!({})),
            Err(detail) => invalid_params(id, &detail),
        },
        other => rpc_error(id, -32601, &format!("method not found: {other}"), None),
    }
}

fn data_add(plane: &Plane, mut params: Map<String, Value>) -> Result<(), String> {
    let mut parts = match params.shift_remove("parts") {
        Some(Value::Array(parts)) if !parts.is_empty() => parts,
        Some(Value::Array(_)) => return Err("parts: at least one part is required".into()),
        _ => return Err("parts: an array of parts is required".into()),
    };
    if parts.len() != 1 {
        return Err(format!(
            "parts: data/add replaces the whole World from exactly one data or file part; got {}",
            parts.len()
        ));
    }
    let mut part = parts.swap_remove(0);
    if let Some(load) = part.pointer("/metadata/load").and_then(Value::as_str) {
        if load != "replace" {
            return Err(format!(
                "parts[0].metadata.load: only \"replace\" is accepted, got {load:?}"
            ));
        }
    }
    let data = match part.get("kind").and_then(Value::as_str) {
        Some("data") => match part.get_mut("data").map(Value::take) {
            Some(v @ Value::Object(_)) => v,
            _ => {
                return Err("parts[0].data: a JSON object of collection -> rows is required".into())
            }
        },
        Some("file") => file_part(plane, part.get("file"))?,
        Some("text") => {
            return Err(
                "parts[0]: text parts are not accepted; send a data part or a JSON file part"
                    .into(),
            )
        }
        _ => return Err("parts[0].kind: one of data, file is required".into()),
    };
    let world = world_from_tables(&plane.env, data)?;
    plane.env.replace_owned(world).map_err(|e| e.detail)
}

fn file_part(plane: &Plane, file: Option<&Value>) -> Result<Value, String> {
    let Some(Value::Object(file)) = file else {
        return Err("parts[0].file: an object with bytes or uri is required".into());
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
                "parts[0].file.mimeType: only application/json is accepted, got {mime}"
            ));
        }
    }
    let bytes = if let Some(encoded) = file.get("bytes") {
        let Some(encoded) = encoded.as_str() else {
            return Err("parts[0].file.bytes: base64 text is required".into());
        };
        base64::engine::general_purpose::STANDARD
            .decode(encoded.trim())
            .map_err(|e| format!("parts[0].file.bytes: not base64 ({e})"))?
    } else if let Some(uri) = file.get("uri") {
        let Some(uri) = uri.as_str() else {
            return Err("parts[0].file.uri: a string is required".into());
        };
        read_file_uri(plane.config.data_root.as_deref(), uri)?
    } else {
        return Err("parts[0].file: bytes or uri is required".into());
    };
    serde_json::from_slice(&bytes).map_err(|e| format!("parts[0].file: not JSON ({e})"))
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

/// The engine's `{"collections", "documents"}` → the flat table shape.
pub(crate) fn to_tables(world: &Value, documents_table: &str) -> Value {
    let mut out = Map::new();
    if let Some(Value::Object(collections)) = world.get("collections") {
        for (name, rows) in collections {
            out.insert(name.clone(), rows.clone());
        }
    }
    let mut documents = Vec::new();
    if let Some(Value::Object(docs)) = world.get("documents") {
        for (path, value) in docs {
            documents.push(json!({"path": path, "value": value}));
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
    let tables = env.tables();
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
    Ok(json!({"collections": collections, "documents": documents}))
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

fn rpc_result(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn rpc_error(id: Value, code: i64, message: &str, data: Option<Value>) -> Value {
    let mut error = json!({"code": code, "message": message});
    if let Some(data) = data {
        error["data"] = data;
    }
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

fn invalid_params(id: Value, detail: &str) -> Value {
    rpc_error(
        id,
        -32602,
        "invalid_request",
        Some(json!({"detail": detail})),
    )
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
        let flat = to_tables(&world, "documents");
        assert_eq!(
            flat,
            json!({"records": [{"id": "a"}], "documents": [{"path": "/v1/", "value": {"x": 1}}]})
        );
    }

    #[test]
    fn pointers_read_as_fields() {
        assert_eq!(pointer_to_dots("/a/b~1c"), ".a.b/c");
        assert_eq!(missing_field("\"id\" is a required property"), Some("id"));
    }
}
