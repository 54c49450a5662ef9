//! Where a retained HAR record's bodies are: their sidecar pointer, the
//! content types and HTTP codings their messages declare, their gRPC path,
//! and the bytes the recording establishes.

use crate::evidence::{Location, Record};
use crate::har::binary_fields::decode_canonical;
use serde_json::Value;

/// What the content-type metadata of one message says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mime {
    /// No content type at all.
    None,
    /// One essence (lowercase, no parameters), however often it is repeated.
    One(String),
    /// A content-type value is excluded (`null`).
    Excluded,
    /// Different essences.
    Conflicting(Vec<String>),
}

/// One body of a selected record.
#[derive(Debug, Clone)]
pub struct Body {
    pub record_ordinal: u64,
    pub record_base: String,
    pub pointer: String,
    pub direction: &'static str,
    pub mime: Mime,
    pub coding_problem: Option<String>,
    pub bytes: Option<Vec<u8>>,
    pub bytes_problem: Option<&'static str>,
    pub grpc_path: Option<String>,
    pub excluded: bool,
}

impl Body {
    /// The MIME metadata names a protobuf or gRPC type, or cannot be read.
    pub fn is_candidate(&self) -> bool {
        let non_empty = self.bytes.as_ref().is_none_or(|b| !b.is_empty());
        match &self.mime {
            Mime::One(e) => super::framing::Framing::from_content_type(e).is_some(),
            Mime::Conflicting(all) => {
                non_empty
                    && all
                        .iter()
                        .any(|e| super::framing::Framing::from_content_type(e).is_some())
            }
            Mime::Excluded => non_empty,
            Mime::None => false,
        }
    }
}

fn essence(value: &str) -> String {
    value
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

fn header_values<'a>(message: &'a Value, name: &str) -> Vec<&'a Value> {
    message
        .get("headers")
        .and_then(Value::as_array)
        .map(|hs| {
            hs.iter()
                .filter(|h| {
                    h.get("name")
                        .and_then(Value::as_str)
                        .is_some_and(|n| n.eq_ignore_ascii_case(name))
                })
                .filter_map(|h| h.get("value"))
                .collect()
        })
        .unwrap_or_default()
}

fn mime(message: &Value, declared: Option<&Value>) -> Mime {
    let mut all: Vec<String> = Vec::new();
    let mut values = header_values(message, "content-type");
    values.extend(declared.filter(|v| v.as_str() != Some("")));
    for v in values {
        match v.as_str() {
            Some(text) => {
                let e = essence(text);
                if !all.contains(&e) {
                    all.push(e);
                }
            }
            None => return Mime::Excluded,
        }
    }
    match all.len() {
        0 => Mime::None,
        1 => Mime::One(all.remove(0)),
        _ => Mime::Conflicting(all),
    }
}

fn coding_problem(message: &Value) -> Option<String> {
    for v in header_values(message, "content-encoding") {
        match v.as_str() {
            None => return Some("its content-encoding metadata is excluded".into()),
            Some(c) if !c.trim().eq_ignore_ascii_case("identity") && !c.trim().is_empty() => {
                return Some(format!("the body has HTTP content coding {:?}", c.trim()))
            }
            _ => {}
        }
    }
    None
}

/// The request and response bodies of one retained HAR record.
pub fn locate(record: &Record) -> Vec<Body> {
    let Location::JsonPointer { pointer: base } = &record.location else {
        return Vec::new();
    };
    let entry = &record.reported;
    let grpc_path = entry
        .pointer("/request/url")
        .and_then(Value::as_str)
        .and_then(|u| url::Url::parse(u).ok())
        .map(|u| u.path().to_string());
    let mut out = Vec::new();
    let parts = [
        ("request", "/request", "/request/postData"),
        ("response", "/response", "/response/content"),
    ];
    for (direction, message_at, content_at) in parts {
        let (Some(message), Some(content)) = (entry.pointer(message_at), entry.pointer(content_at))
        else {
            continue;
        };
        let Some(text) = content.get("text") else {
            continue;
        };
        let pointer = format!("{base}{content_at}/text");
        let sidecar = record.binary_fields.iter().find(|f| f.pointer == pointer);
        let (bytes, bytes_problem, excluded) = match (text.as_str(), sidecar) {
            (None, _) | (_, None) => (None, None, true),
            (Some(t), Some(f)) if f.establishes_body_bytes => (decode_canonical(t), None, false),
            (Some(t), Some(_)) if t.is_ascii() => (Some(t.as_bytes().to_vec()), None, false),
            (Some(_), Some(_)) => (
                None,
                Some("the recorded text is producer-decoded Unicode, which does not establish the body bytes"),
                false,
            ),
        };
        out.push(Body {
            record_ordinal: record.ordinal,
            record_base: base.clone(),
            pointer,
            direction,
            mime: mime(message, content.get("mimeType")),
            coding_problem: coding_problem(message),
            bytes,
            bytes_problem,
            grpc_path: grpc_path.clone(),
            excluded,
        });
    }
    out
}
