//! One recorded exchange as the app model reads it: the decoded path
//! segments, query pairs, request headers and JSON bodies of a primary-origin
//! record, plus the JSON helpers the inference modules share.

use crate::state::records::{Body, Record};
use crate::state::writes::input::percent_decode;
use serde_json::Value;

/// A record with its request and answer decoded once.
#[derive(Debug, Clone)]
pub(crate) struct Exchange {
    pub ordinal: u64,
    pub method: String,
    pub status: u16,
    /// Decoded path segments (empty segments dropped).
    pub segments: Vec<String>,
    /// Decoded query pairs, in their order.
    pub query: Vec<(String, String)>,
    /// Request header names (lower case) and values.
    pub request_headers: Vec<(String, String)>,
    pub response_headers: Vec<(String, String)>,
    /// The request body when it is JSON.
    pub body: Option<Value>,
    /// The answer body when it is JSON.
    pub answer: Option<Value>,
    /// True when the answer had no body at all.
    pub answer_empty: bool,
    /// The answer body's text, when it is text.
    pub answer_text: Option<String>,
}

impl Exchange {
    /// Decodes a record with its Evidence entry (for the request headers),
    /// taking its method and answer text over rather than copying them.
    /// `None` when the record has no path or no status.
    pub(crate) fn of(record: Record, entry: Option<&Value>) -> Option<Exchange> {
        let path = record.path.as_ref()?;
        let status = record.status?;
        let segments = path
            .split('/')
            .filter(|s| !s.is_empty())
            .map(percent_decode)
            .collect();
        let query = record
            .query
            .as_deref()
            .map(rea_engine::codec::query_pairs)
            .unwrap_or_default();
        let request_headers: Vec<(String, String)> = entry
            .and_then(|e| e.get("request"))
            .and_then(|r| r.get("headers"))
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(|h| {
                        Some((
                            h.get("name")?.as_str()?.to_ascii_lowercase(),
                            h.get("value")?.as_str()?.to_string(),
                        ))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let text = record.request_text.as_deref().unwrap_or("");
        let form = request_headers
            .iter()
            .any(|(n, v)| n == "content-type" && rea_engine::codec::is_form_media_type(v));
        let body = serde_json::from_str::<Value>(text)
            .ok()
            .or_else(|| form.then(|| rea_engine::codec::form_object(text)).flatten());
        let (answer, answer_empty) = match &record.response_body {
            Body::Text(t) if t.trim().is_empty() => (None, true),
            Body::Text(t) => (serde_json::from_str(t).ok(), false),
            Body::None => (None, true),
            Body::Bytes(b) => (None, b.is_empty()),
        };
        let response_headers = record
            .response_headers
            .iter()
            .map(|(n, v)| (n.to_ascii_lowercase(), v.clone()))
            .collect();
        Some(Exchange {
            ordinal: record.ordinal,
            method: record.method,
            status,
            segments,
            query,
            request_headers,
            response_headers,
            body,
            answer,
            answer_empty,
            answer_text: match record.response_body {
                Body::Text(t) => Some(t),
                _ => None,
            },
        })
    }

    pub(crate) fn is_2xx(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// True for methods that only read.
    pub(crate) fn is_read(&self) -> bool {
        matches!(self.method.as_str(), "GET" | "HEAD" | "OPTIONS")
    }

    pub(crate) fn request_header(&self, name: &str) -> Option<&str> {
        self.request_headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub(crate) fn response_header(&self, name: &str) -> Option<&str> {
        self.response_headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub(crate) fn query_value(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// `/a/b` from the decoded segments.
    pub(crate) fn path(&self) -> String {
        join(&self.segments)
    }
}

/// `/a/b` from segments (`/` when there are none).
pub(crate) fn join(segments: &[String]) -> String {
    if segments.is_empty() {
        "/".to_string()
    } else {
        format!("/{}", segments.join("/"))
    }
}

/// A scalar as the text a URL would carry (`"5"` for `"5"` and `5`).
pub(crate) fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Escapes one JSON-pointer token.
pub(crate) fn token(key: &str) -> String {
    crate::pointer_token(key)
}

/// Every scalar leaf of `value` whose parent member is named: (pointer, member, text).
/// Array elements are walked with their index; `limit` bounds the walk.
pub(crate) fn named_leaves(value: &Value, limit: usize) -> Vec<(String, String, String)> {
    leaves_from(vec![(String::new(), value)], Vec::new(), limit)
}

/// `named_leaves` of an object held as its map (no copy into a `Value`).
pub(crate) fn named_leaves_of_map(
    map: &serde_json::Map<String, Value>,
    limit: usize,
) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let mut stack = Vec::new();
    if limit > 0 {
        members_of("", map, &mut out, &mut stack);
    }
    leaves_from(stack, out, limit)
}

type Leaves = Vec<(String, String, String)>;

fn leaves_from(mut stack: Vec<(String, &Value)>, mut out: Leaves, limit: usize) -> Leaves {
    while let Some((pointer, v)) = stack.pop() {
        if out.len() >= limit {
            break;
        }
        match v {
            Value::Object(map) => members_of(&pointer, map, &mut out, &mut stack),
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate().rev() {
                    stack.push((format!("{pointer}/{i}"), child));
                }
            }
            _ => {}
        }
    }
    out
}

fn members_of<'a>(
    pointer: &str,
    map: &'a serde_json::Map<String, Value>,
    out: &mut Leaves,
    stack: &mut Vec<(String, &'a Value)>,
) {
    for (k, child) in map.iter().rev() {
        let p = format!("{pointer}/{}", token(k));
        if let Some(t) = scalar_text(child) {
            out.push((p, k.clone(), t));
        } else {
            stack.push((p, child));
        }
    }
}

/// True for member names that name an identity by convention (`id`, `*_id`,
/// `*Id`, `*uuid`, `uid`). A candidate only: callers confirm by echo.
pub(crate) fn id_like(member: &str) -> bool {
    let lower = member.to_ascii_lowercase();
    lower == "id"
        || lower == "uid"
        || lower.ends_with("_id")
        || lower.ends_with("uuid")
        || (member.ends_with("Id") && member.len() > 2)
}

/// The object an answer is "about": the root object, or the value of its one
/// member when the root has exactly one object member besides scalars and
/// link/permission metadata. Returns (pointer, object).
pub(crate) fn entity_of(answer: &Value) -> Option<(String, &serde_json::Map<String, Value>)> {
    let root = answer.as_object()?;
    let objects: Vec<(&String, &serde_json::Map<String, Value>)> = root
        .iter()
        .filter_map(|(k, v)| v.as_object().map(|o| (k, o)))
        .collect();
    let scalars = root.values().filter(|v| scalar_text(v).is_some()).count();
    if scalars == 0 && !objects.is_empty() {
        // An envelope: the member whose object carries an id-like member or
        // the widest object (`{"data": {...}, "permissions": {...}}`).
        let pick = objects
            .iter()
            .find(|(_, o)| o.keys().any(|k| id_like(k)))
            .or_else(|| objects.iter().max_by_key(|(_, o)| o.len()))?;
        return Some((format!("/{}", token(pick.0)), pick.1));
    }
    Some((String::new(), root))
}

/// The first array of objects in an answer (root, or a root member): (pointer, items).
pub(crate) fn list_of(answer: &Value) -> Option<(String, &Vec<Value>)> {
    if let Some(items) = answer.as_array() {
        return Some((String::new(), items));
    }
    answer.as_object()?.iter().find_map(|(k, v)| {
        v.as_array()
            .filter(|a| a.iter().all(Value::is_object))
            .map(|a| (format!("/{}", token(k)), a))
    })
}

/// Every scalar text inside a value, bounded.
pub(crate) fn all_texts(value: &Value, limit: usize, out: &mut Vec<String>) {
    if out.len() >= limit {
        return;
    }
    match value {
        Value::Object(map) => map.values().for_each(|v| all_texts(v, limit, out)),
        Value::Array(items) => items.iter().for_each(|v| all_texts(v, limit, out)),
        other => {
            if let Some(t) = scalar_text(other) {
                out.push(t);
            }
        }
    }
}

/// Sorted, deduplicated ordinals.
pub(crate) fn sorted(mut v: Vec<u64>) -> Vec<u64> {
    v.sort_unstable();
    v.dedup();
    v
}
