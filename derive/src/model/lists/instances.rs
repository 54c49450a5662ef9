//! The recorded list instances of a capture: per list endpoint (a `GET`
//! tool of an entity type, or a tool whose answers hold an array of
//! objects and whose requests carry a query or a JSON body), each
//! successful call's parameters, listed items, envelope and headers, and
//! the universe (the World list) its answers are checked against.

use crate::manifest::{Manifest, Tool};
use crate::model::lists::eval::{body_params, query_params};
use crate::model::lists::fields::{FieldPath, Step};
use crate::model::lists::semantics::Carrier;
use crate::state::records::{Body, Record};
use crate::state::timeline::Roots;
use crate::state::State;
use serde_json::Value;
use std::collections::HashMap;

/// One recorded call of a list endpoint.
#[derive(Debug, Clone)]
pub(crate) struct Instance {
    pub ordinal: u64,
    pub path: String,
    pub query: Option<String>,
    pub params: Vec<(String, Value)>,
    /// The listed items (empty when the answer holds no array).
    pub items: Vec<Value>,
    /// The whole answer.
    pub body: Value,
    pub headers: Vec<(String, String)>,
    /// True when no write under a related root came before it.
    pub initial: bool,
    /// For an instance after writes: the World as of that moment (the
    /// recording's writes replayed, `moments`), when it could be known.
    pub universe: Option<Vec<Value>>,
}

impl Instance {
    /// True when the instance can be re-rendered: from the initial World,
    /// or from the World as of its moment.
    pub(crate) fn checkable(&self) -> bool {
        self.initial || self.universe.is_some()
    }
}

/// One list endpoint and its instances.
#[derive(Debug, Clone)]
pub(crate) struct Endpoint {
    pub tool: Tool,
    pub carrier: Carrier,
    pub items_pointer: String,
    pub identity: Option<FieldPath>,
    /// `state` or `answers`.
    pub universe_kind: String,
    /// The entities of the collection (state order), or the distinct items
    /// the initial answers listed, in first-seen order.
    pub universe: Vec<Value>,
    pub instances: Vec<Instance>,
}

fn json_body(rec: &Record) -> Option<Value> {
    match &rec.response_body {
        Body::Text(t) => serde_json::from_str(t).ok(),
        _ => None,
    }
}

/// The pointer of the listed array: the root when it is an array of
/// objects, else the one member holding an array of objects.
fn items_pointer(body: &Value) -> Option<String> {
    let objects = |v: &Value| {
        v.as_array()
            .is_some_and(|a| !a.is_empty() && a.iter().all(Value::is_object))
    };
    if objects(body) {
        return Some(String::new());
    }
    let obj = body.as_object()?;
    let members: Vec<&String> = obj
        .iter()
        .filter(|(_, v)| objects(v))
        .map(|(k, _)| k)
        .collect();
    (members.len() == 1).then(|| format!("/{}", crate::pointer_token(members[0])))
}

const IDENTITY_NAMES: &[&str] = &["id", "uid", "uuid", "_id", "ID", "Id", "guid"];
const LATE_IDENTITY_NAMES: &[&str] = &["key", "slug", "name"];

/// A path every item carries with distinct scalar values: the usual
/// identity names, then `*_id`/`*Id` members, one level down too, then
/// `key`, `slug`, `name`.
pub(crate) fn identity_of(items: &[&Value]) -> Option<FieldPath> {
    let distinct = |p: &FieldPath| {
        let mut seen = Vec::new();
        for i in items {
            match p.get(i) {
                Some(v @ (Value::String(_) | Value::Number(_))) if !seen.contains(&v) => {
                    seen.push(v)
                }
                _ => return false,
            }
        }
        !seen.is_empty()
    };
    let first = items.first()?.as_object()?;
    let mut candidates: Vec<FieldPath> = IDENTITY_NAMES
        .iter()
        .map(|n| FieldPath::member(n))
        .collect();
    let suffixed = |k: &str| k.ends_with("_id") || k.ends_with("Id");
    candidates.extend(
        first
            .keys()
            .filter(|k| suffixed(k))
            .map(|k| FieldPath::member(k)),
    );
    for (k, v) in first {
        if let Some(inner) = v.as_object() {
            for k2 in inner
                .keys()
                .filter(|k2| IDENTITY_NAMES.contains(&k2.as_str()) || suffixed(k2))
            {
                candidates.push(FieldPath(vec![
                    Step::Member { name: k.clone() },
                    Step::Member { name: k2.clone() },
                ]));
            }
        }
    }
    candidates.extend(LATE_IDENTITY_NAMES.iter().map(|n| FieldPath::member(n)));
    candidates.into_iter().find(distinct)
}

fn normalize(path: &str) -> String {
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    format!("/{}", segs.join("/"))
}

/// Gathers the list endpoints of a capture, in manifest tool order.
pub(crate) fn endpoints(records: &[Record], manifest: &Manifest, state: &State) -> Vec<Endpoint> {
    let by_ordinal: HashMap<u64, &Record> = records.iter().map(|r| (r.ordinal, r)).collect();
    let position = timeline_positions(state);
    let roots = Roots::new(&manifest.tools);
    let mut out = Vec::new();
    for tool in &manifest.tools {
        let carrier = match tool.method.as_str() {
            "GET" => Carrier::Query,
            "POST" if crate::state::timeline::is_query_post(&tool.method, &tool.path_template) => {
                Carrier::Body
            }
            _ => continue,
        };
        let typed = state
            .types
            .iter()
            .find(|t| t.list_tools.contains(&tool.name));
        let mut instances = Vec::new();
        let mut pointer: Option<String> = typed.and_then(|_| {
            state.views.iter().find_map(|v| match v {
                crate::state::ViewPlan::List(p) if p.tool == tool.name => Some(p.pointer.clone()),
                _ => None,
            })
        });
        for o in &tool.record_ordinals {
            let Some(rec) = by_ordinal.get(o) else {
                continue;
            };
            if !rec.is_2xx() {
                continue;
            }
            let Some(body) = json_body(rec) else { continue };
            // A bare array first, an envelope later: the envelope's member
            // (`lists::shape`: the bare answers' items are read from the root).
            if pointer.is_none() || (pointer.as_deref() == Some("") && typed.is_none()) {
                pointer = crate::model::lists::shape::envelope_pointer(&body, pointer.take())
                    .or_else(|| items_pointer(&body));
            }
            let params = match carrier {
                Carrier::Query => query_params(rec.query.as_deref().unwrap_or("")),
                Carrier::Body => match rec
                    .request_text
                    .as_deref()
                    .map(serde_json::from_str::<Value>)
                {
                    Some(Ok(v @ Value::Object(_))) => body_params(&v),
                    _ => continue,
                },
            };
            let path = rec.path.clone().unwrap_or_default();
            let root = roots.root_of(&path);
            let here = position.get(o).copied().unwrap_or(usize::MAX);
            let initial = !state.state_writes.iter().any(|w| {
                position.get(&w.ordinal).copied().unwrap_or(0) < here
                    && w.root
                        .as_deref()
                        .is_none_or(|r| crate::model::lists::related::related(r, &root))
            });
            instances.push(Instance {
                ordinal: *o,
                path,
                query: rec.query.clone(),
                params,
                items: Vec::new(),
                body,
                headers: rec.response_headers.clone(),
                initial,
                universe: None,
            });
        }
        let Some(pointer) = pointer else { continue };
        if instances.iter().all(|i| i.params.is_empty()) && typed.is_none() {
            continue;
        }
        // Only answers that are lists at all (an object at the pointer is an item).
        if instances
            .iter()
            .any(|i| i.body.pointer(&pointer).is_some_and(|v| !v.is_array()))
        {
            continue;
        }
        for i in &mut instances {
            i.items = listed_items(&mut i.body, &pointer);
        }
        let (universe_kind, universe, identity) = match typed {
            Some(t) => {
                let collection = instances
                    .iter()
                    .find(|i| i.initial)
                    .map(|i| normalize(&i.path))
                    .unwrap_or_default();
                let universe: Vec<Value> = state
                    .entities
                    .iter()
                    .filter(|e| e.type_name == t.name && e.collection == collection)
                    .map(|e| Value::Object(e.fields.clone()))
                    .collect();
                (
                    "state".to_string(),
                    universe,
                    Some(FieldPath::member(&t.id_field)),
                )
            }
            None => {
                let seen: Vec<&Value> = instances
                    .iter()
                    .filter(|i| i.initial)
                    .flat_map(|i| i.items.iter())
                    .collect();
                let identity = identity_of(&seen).or_else(|| {
                    let groups: Vec<&[Value]> = instances
                        .iter()
                        .filter(|i| i.initial)
                        .map(|i| i.items.as_slice())
                        .collect();
                    crate::model::lists::identity::per_answer(&groups)
                });
                let mut universe: Vec<Value> = Vec::new();
                for item in seen {
                    let dup = match &identity {
                        Some(p) => universe.iter().any(|u| p.get(u) == p.get(item)),
                        None => universe.contains(item),
                    };
                    if !dup {
                        universe.push(item.clone());
                    }
                }
                ("answers".to_string(), universe, identity)
            }
        };
        out.push(Endpoint {
            tool: tool.clone(),
            carrier,
            items_pointer: pointer,
            identity,
            universe_kind,
            universe,
            instances,
        });
    }
    out
}

/// The items an answer lists at `pointer` (or, for a bare array where an
/// envelope was expected, at its root), moved out of the answer: what is
/// left in their place is an empty array, so the answer keeps its shape
/// (an array where the items were) and its other members, which are all
/// the inference reads of it besides the items.
fn listed_items(body: &mut Value, pointer: &str) -> Vec<Value> {
    if let Some(items) = body.pointer_mut(pointer).and_then(Value::as_array_mut) {
        return std::mem::take(items);
    }
    crate::model::lists::shape::take_bare_items(pointer, body).unwrap_or_default()
}

/// Each record's position in the state's timeline, by ordinal.
pub(crate) fn timeline_positions(state: &State) -> HashMap<u64, usize> {
    state
        .timeline
        .iter()
        .enumerate()
        .map(|(i, o)| (*o, i))
        .collect()
}
