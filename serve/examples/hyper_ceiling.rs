//! The bench's limit server: a minimal stateful hyper server over one
//! collection, for `benches/serve.sh` to run beside `rea environment-serve`.
//! It holds the collection's entities in memory with an id index and
//! answers the same recorded bytes: an item read is its entity inside the
//! item answer's envelope, the list read the entities inside the list
//! answer's envelope (both rendered once per change, then served from
//! memory). PATCH merges the sent members (shallow), POST adds an entity
//! with the next id, DELETE removes one. No routing logic beyond one
//! collection path, no validation: the physical limit of this job.
//!
//! usage: hyper_ceiling PORT COLLECTION_PATH ITEM_ANSWER LIST_ANSWER POINTER ID_FIELD
//!   ITEM_ANSWER / LIST_ANSWER: files holding one item and one list answer
//!   (the envelope is kept, the entity or entities at POINTER replaced);
//!   POINTER: where the entity sits in an item answer and the list sits in a
//!   list answer (e.g. `/data`); ID_FIELD: the entities' identity member.

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use indexmap::IndexMap;
use serde_json::{Map, Value};
use std::convert::Infallible;
use std::sync::{Arc, Mutex};

struct Collection {
    path: String,
    item_envelope: Value,
    list_envelope: Value,
    pointer: String,
    id_field: String,
    state: Mutex<State>,
}

struct Entity {
    value: Map<String, Value>,
    bytes: Bytes,
}

#[derive(Default)]
struct State {
    entities: IndexMap<String, Entity>,
    next_id: u64,
    /// The list answer, rendered on the first read after a change.
    list: Option<Bytes>,
}

impl Collection {
    fn render(&self, envelope: &Value, value: Value) -> Bytes {
        let mut out = envelope.clone();
        if let Some(slot) = out.pointer_mut(&self.pointer) {
            *slot = value;
        }
        Bytes::from(serde_json::to_vec(&out).unwrap_or_default())
    }

    fn entity(&self, value: Map<String, Value>) -> Entity {
        let bytes = self.render(&self.item_envelope, Value::Object(value.clone()));
        Entity { value, bytes }
    }

    fn sent(&self, body: &[u8]) -> Option<Map<String, Value>> {
        let v: Value = serde_json::from_slice(body).ok()?;
        match v.pointer(&self.pointer)? {
            Value::Object(m) => Some(m.clone()),
            _ => None,
        }
    }

    fn answer(&self, method: &Method, path: &str, body: &[u8]) -> (StatusCode, Bytes) {
        let path = path.trim_end_matches('/');
        let id = path
            .strip_prefix(self.path.as_str())
            .and_then(|rest| rest.strip_prefix('/'))
            .filter(|id| !id.is_empty() && !id.contains('/'));
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        match (method, id) {
            (&Method::GET, None) if path == self.path => {
                if state.list.is_none() {
                    let items = state
                        .entities
                        .values()
                        .map(|e| Value::Object(e.value.clone()))
                        .collect();
                    state.list = Some(self.render(&self.list_envelope, Value::Array(items)));
                }
                (StatusCode::OK, state.list.clone().unwrap_or_default())
            }
            (&Method::POST, None) if path == self.path => {
                let Some(mut value) = self.sent(body) else {
                    return (StatusCode::BAD_REQUEST, Bytes::new());
                };
                state.next_id += 1;
                let id = format!("limit-{}", state.next_id);
                value.insert(self.id_field.clone(), Value::String(id.clone()));
                let entity = self.entity(value);
                let bytes = entity.bytes.clone();
                state.entities.insert(id, entity);
                state.list = None;
                (StatusCode::CREATED, bytes)
            }
            (&Method::GET, Some(id)) => match state.entities.get(id) {
                Some(e) => (StatusCode::OK, e.bytes.clone()),
                None => (StatusCode::NOT_FOUND, Bytes::new()),
            },
            (&Method::PATCH, Some(id)) => {
                let Some(sent) = self.sent(body) else {
                    return (StatusCode::BAD_REQUEST, Bytes::new());
                };
                let Some(held) = state.entities.get(id) else {
                    return (StatusCode::NOT_FOUND, Bytes::new());
                };
                let mut value = held.value.clone();
                for (k, v) in sent {
                    value.insert(k, v);
                }
                let entity = self.entity(value);
                let bytes = entity.bytes.clone();
                state.entities.insert(id.to_string(), entity);
                state.list = None;
                (StatusCode::OK, bytes)
            }
            (&Method::DELETE, Some(id)) => match state.entities.shift_remove(id) {
                Some(_) => {
                    state.list = None;
                    (StatusCode::OK, Bytes::from_static(b"{\"deleted\":true}"))
                }
                None => (StatusCode::NOT_FOUND, Bytes::new()),
            },
            _ => (StatusCode::NOT_FOUND, Bytes::new()),
        }
    }
}

fn load(path: &str) -> Result<Value, Box<dyn std::error::Error>> {
    Ok(serde_json::from_slice(&std::fs::read(path)?)?)
}

#[tokio::main(flavor = "multi_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    const USAGE: &str =
        "usage: hyper_ceiling PORT COLLECTION_PATH ITEM_ANSWER LIST_ANSWER POINTER ID_FIELD";
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [port, path, item, list, pointer, id_field] = args.as_slice() else {
        return Err(USAGE.into());
    };
    let port: u16 = port.parse()?;
    let list_envelope = load(list)?;
    let mut state = State::default();
    let collection = Collection {
        path: path.trim_end_matches('/').to_string(),
        item_envelope: load(item)?,
        list_envelope: list_envelope.clone(),
        pointer: pointer.clone(),
        id_field: id_field.clone(),
        state: Mutex::new(State::default()),
    };
    for e in list_envelope
        .pointer(pointer)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let (Some(obj), Some(id)) = (e.as_object(), e.get(id_field)) else {
            continue;
        };
        let id = match id {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        state.entities.insert(id, collection.entity(obj.clone()));
    }
    *collection.state.lock().unwrap_or_else(|p| p.into_inner()) = state;
    let collection = Arc::new(collection);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("listening on http://{}", listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        let collection = collection.clone();
        tokio::spawn(async move {
            let service = service_fn(move |req: Request<hyper::body::Incoming>| {
                let collection = collection.clone();
                async move {
                    let (parts, body) = req.into_parts();
                    let body = body
                        .collect()
                        .await
                        .map(|b| b.to_bytes())
                        .unwrap_or_default();
                    let (status, bytes) = collection.answer(&parts.method, parts.uri.path(), &body);
                    let response = Response::builder()
                        .status(status)
                        .header("content-type", "application/json")
                        .body(Full::new(bytes));
                    Ok::<_, Infallible>(response.unwrap_or_default())
                }
            });
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
