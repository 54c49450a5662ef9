//! The one codec for request lines and JSON: path segments and their
//! canonical spelling, percent-decoding and -encoding, query encoding,
//! path-template parameters and JSON pointers.

use serde_json::{Map, Value};

/// Splits a raw path into its non-empty segments (empty segments are
/// ignored, so `/a/b/` and `/a//b` route like `/a/b`).
pub fn path_segments(path: &str) -> Vec<&str> {
    path.split('/').filter(|s| !s.is_empty()).collect()
}

/// The canonical spelling of a path: non-empty segments joined by `/`.
pub fn normalize_path(path: &str) -> String {
    let segments = path_segments(path);
    if segments.is_empty() {
        return "/".to_string();
    }
    let mut out = String::with_capacity(path.len());
    for s in segments {
        out.push('/');
        out.push_str(s);
    }
    out
}

/// Percent-decodes one path segment (invalid escapes stay as written).
pub fn percent_decode(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = |b: u8| (b as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| segment.to_string())
}

/// Percent-encodes a value for use as one path segment.
pub fn percent_encode_segment(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'-' | b'.'
                    | b'_'
                    | b'~'
                    | b':'
                    | b'@'
                    | b'!'
                    | b'$'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
            )
        {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Percent-encodes a query name or value (`application/x-www-form-urlencoded` style, spaces as `%20`).
pub fn query_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b',' | b':') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The path parameter values of `path` under `template`, by name,
/// percent-decoded. `None` when the path does not fit the template.
pub fn path_params(template: &str, path: &str) -> Option<Vec<(String, String)>> {
    let t: Vec<&str> = template.split('/').filter(|s| !s.is_empty()).collect();
    let p: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    if t.len() != p.len() {
        return None;
    }
    let mut out = Vec::new();
    for (seg, lit) in t.iter().zip(&p) {
        if let Some(name) = seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            out.push((name.to_string(), percent_decode(lit)));
        } else if seg != lit {
            return None;
        }
    }
    Some(out)
}

/// `/a/b/c` → `/a/b`: the collection path of an item path (empty segments dropped).
pub fn parent_path(path: &str) -> String {
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let keep = segs.len().saturating_sub(1);
    format!("/{}", segs[..keep].join("/"))
}

/// The id value as a path segment spells it (strings as is, numbers in JSON).
pub fn id_text(id: &Value) -> Option<String> {
    match id {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Resolves a JSON pointer (`""`, `/data`, `/0`, `/data/0`).
pub fn at_pointer<'a>(value: &'a Value, pointer: &str) -> Option<&'a Value> {
    if pointer.is_empty() {
        Some(value)
    } else {
        value.pointer(pointer)
    }
}

/// The object at `pointer`, if it is one.
pub fn object_at<'a>(value: &'a Value, pointer: &str) -> Option<&'a Map<String, Value>> {
    at_pointer(value, pointer)?.as_object()
}

/// The entity object of a request body: the object at the same pointer as
/// the item view's entity (so `{"data": {...}}` bodies line up with
/// `{"data": {...}}` responses), else the body's root object.
pub fn body_entity<'a>(body: &'a Value, pointer: Option<&str>) -> Option<&'a Map<String, Value>> {
    pointer
        .filter(|p| !p.is_empty())
        .and_then(|p| body.pointer(p))
        .and_then(Value::as_object)
        .or_else(|| body.as_object())
}

/// Escapes one JSON-pointer reference token (`~` → `~0`, `/` → `~1`).
pub fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}
