//! Where a retained record's bodies are (HAR `postData`/`content` texts,
//! SAZ message `body` sidecars): their sidecar pointer, the content types
//! and HTTP codings their messages declare, their gRPC path, and the bytes
//! the recording establishes.

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
    /// The recorded bytes may still be under an HTTP coding rea cannot see
    /// through (excluded or unknown coding metadata; any coding of a
    /// native body): a credential check inside them cannot complete.
    pub coding_unresolved: bool,
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

/// The values of a header: HAR/SAZ `{name, value}` objects, or native
/// mitmproxy `[name, value]` pairs.
fn header_values<'a>(message: &'a Value, name: &str) -> Vec<&'a Value> {
    let pair = |h: &'a Value| -> Option<(&'a Value, &'a Value)> {
        match h {
            Value::Array(p) if p.len() == 2 => Some((&p[0], &p[1])),
            _ => Some((h.get("name")?, h.get("value")?)),
        }
    };
    message
        .get("headers")
        .and_then(Value::as_array)
        .map(|hs| {
            hs.iter()
                .filter_map(pair)
                .filter(|(n, _)| n.as_str().is_some_and(|n| n.eq_ignore_ascii_case(name)))
                .map(|(_, v)| v)
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

/// For native bodies (SAZ: the exact stored bytes, never de-chunked):
/// a transfer coding other than identity leaves the bytes opaque too.
fn native_coding_problem(message: &Value) -> Option<String> {
    if let Some(p) = coding_problem(message) {
        return Some(p);
    }
    for v in header_values(message, "transfer-encoding") {
        match v.as_str() {
            None => return Some("its transfer-encoding metadata is excluded".into()),
            Some(c) if !c.trim().eq_ignore_ascii_case("identity") && !c.trim().is_empty() => {
                return Some(format!(
                    "the stored body has HTTP transfer coding {:?}, which rea does not remove",
                    c.trim()
                ))
            }
            _ => {}
        }
    }
    None
}

/// HAR texts are producer-decoded for the codings producers remove; an
/// excluded or unknown coding may still cover the recorded bytes.
fn har_coding_unresolved(message: &Value) -> bool {
    header_values(message, "content-encoding")
        .iter()
        .any(|v| match v.as_str() {
            None => true,
            Some(c) => {
                let c = c.trim().to_ascii_lowercase();
                !["", "identity", "gzip", "x-gzip", "deflate", "br", "zstd"].contains(&c.as_str())
            }
        })
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

/// The path of a request target (absolute-form or origin-form).
fn target_path(target: &str) -> Option<String> {
    if target.starts_with('/') {
        return Some(
            target
                .split(['?', '#'])
                .next()
                .unwrap_or(target)
                .to_string(),
        );
    }
    url::Url::parse(target).ok().map(|u| u.path().to_string())
}

/// The request and response bodies of one retained SAZ session: the
/// `body` sidecar of each message, its bytes exact (`base64`).
fn locate_saz(record: &Record) -> Vec<Body> {
    let base = format!("{}/{}", crate::saz::RECORDS_POINTER, record.ordinal);
    let entry = &record.reported;
    let grpc_path = entry
        .pointer("/request/url")
        .and_then(Value::as_str)
        .and_then(target_path);
    let mut out = Vec::new();
    for direction in ["request", "response"] {
        let Some(message) = entry.get(direction) else {
            continue;
        };
        let pointer = format!("{base}/{direction}/body");
        let sidecar = record.binary_fields.iter().find(|f| f.pointer == pointer);
        let bytes = sidecar
            .and_then(|f| f.base64.as_deref())
            .and_then(decode_canonical);
        out.push(Body {
            record_ordinal: record.ordinal,
            record_base: base.clone(),
            excluded: bytes.is_none(),
            pointer,
            direction,
            mime: mime(message, None),
            coding_unresolved: native_coding_problem(message).is_some(),
            coding_problem: native_coding_problem(message),
            bytes,
            bytes_problem: None,
            grpc_path: grpc_path.clone(),
        });
    }
    out
}

/// The request and response bodies of one native mitmproxy flow: each
/// message's `content` (upstream-assembled, never transfer-coded), its
/// bytes the base64 sidecar or the exact UTF-8 text.
fn locate_mitm(record: &Record) -> Vec<Body> {
    let base = format!("{}/{}", crate::mitm::RECORDS_POINTER, record.ordinal);
    let entry = &record.reported;
    let grpc_path = entry
        .pointer("/request/path")
        .and_then(Value::as_str)
        .and_then(target_path);
    let mut out = Vec::new();
    for direction in ["request", "response"] {
        let Some(message) = entry.get(direction).filter(|m| m.is_object()) else {
            continue;
        };
        let pointer = format!("{base}/{direction}/content");
        let sidecar = record.binary_fields.iter().find(|f| f.pointer == pointer);
        let bytes = match (sidecar, message.get("content")) {
            (Some(f), _) if f.base64.is_some() => f.base64.as_deref().and_then(decode_canonical),
            (Some(_), Some(Value::String(t))) => Some(t.as_bytes().to_vec()),
            _ => None,
        };
        let coding = coding_problem(message);
        out.push(Body {
            record_ordinal: record.ordinal,
            record_base: base.clone(),
            excluded: bytes.is_none(),
            pointer,
            direction,
            mime: mime(message, None),
            coding_unresolved: coding.is_some(),
            coding_problem: coding,
            bytes,
            bytes_problem: None,
            grpc_path: grpc_path.clone(),
        });
    }
    out
}

/// The request and response bodies of one retained record.
pub fn locate(record: &Record) -> Vec<Body> {
    if matches!(record.location, Location::ArchiveMembers { .. }) {
        return locate_saz(record);
    }
    if matches!(
        record.location,
        Location::ByteRange { .. } | Location::Unknown
    ) && record.reported.get("type").and_then(Value::as_str) == Some("http")
    {
        return locate_mitm(record);
    }
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
            coding_unresolved: har_coding_unresolved(message),
            bytes,
            bytes_problem,
            grpc_path: grpc_path.clone(),
            excluded,
        });
    }
    out
}
