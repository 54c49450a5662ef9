//! The one codec for request lines and JSON: path segments and their
//! canonical spelling, percent-decoding and -encoding, query encoding,
//! path-template parameters and JSON pointers.

use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
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

/// Characters a path segment keeps unescaped: RFC 3986 `pchar` minus `%`
/// (unreserved and sub-delims, `:` and `@`).
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b':')
    .remove(b'@')
    .remove(b'!')
    .remove(b'$')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')')
    .remove(b'*')
    .remove(b'+')
    .remove(b',')
    .remove(b';')
    .remove(b'=');

/// Characters a query name or value keeps unescaped.
const QUERY: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b',')
    .remove(b':');

/// Percent-decodes one path segment (invalid escapes stay as written; a
/// result that is not UTF-8 keeps the raw spelling).
pub fn percent_decode(segment: &str) -> String {
    percent_decode_str(segment)
        .decode_utf8()
        .map_or_else(|_| segment.to_string(), |s| s.into_owned())
}

/// Decodes one query name or value: `+` is a space, then percent escapes.
pub fn query_decode(text: &str) -> String {
    percent_decode(&text.replace('+', " "))
}

/// The name/value pairs of a raw query string, percent- and `+`-decoded,
/// in order.
pub fn query_pairs(query: &str) -> Vec<(String, String)> {
    url::form_urlencoded::parse(query.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// True for an `application/x-www-form-urlencoded` media type (parameters ignored).
pub fn is_form_media_type(content_type: &str) -> bool {
    content_type.split(';').next().is_some_and(|m| {
        m.trim()
            .eq_ignore_ascii_case("application/x-www-form-urlencoded")
    })
}

/// A form-encoded body as a flat JSON object of strings, in its order (a
/// repeated name keeps its last value). `None` when it holds no pair.
pub fn form_object(text: &str) -> Option<serde_json::Value> {
    let pairs = query_pairs(text.trim());
    (!pairs.is_empty()).then(|| {
        serde_json::Value::Object(
            pairs
                .into_iter()
                .map(|(k, v)| (k, serde_json::Value::String(v)))
                .collect(),
        )
    })
}

/// Percent-encodes a value for use as one path segment.
pub fn percent_encode_segment(value: &str) -> String {
    utf8_percent_encode(value, SEGMENT).to_string()
}

/// Percent-encodes a query name or value (spaces as `%20`).
pub fn query_encode(text: &str) -> String {
    utf8_percent_encode(text, QUERY).to_string()
}

/// The path parameter values of `path` under `template`, by name,
/// percent-decoded. `None` when the path does not fit the template.
pub fn path_params(template: &str, path: &str) -> Option<Vec<(String, String)>> {
    crate::route::bind(&crate::route::compile(template), &path_segments(path))
        .map(|params| params.into_iter().collect())
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

/// Resolves a JSON pointer (`""`, `/data`, `/0`, `/data/0`) as
/// `Value::pointer` does, without copying a reference token that holds no
/// `~` escape (serde_json's allocates two strings per token).
pub fn at_pointer<'a>(value: &'a Value, pointer: &str) -> Option<&'a Value> {
    tokens(pointer)?.try_fold(value, |target, raw| match target {
        Value::Object(map) => map.get(&*unescaped(raw)),
        Value::Array(items) => array_index(raw).and_then(|i| items.get(i)),
        _ => None,
    })
}

/// `Value::pointer_mut`, as `at_pointer` reads the pointer.
pub fn at_pointer_mut<'a>(value: &'a mut Value, pointer: &str) -> Option<&'a mut Value> {
    tokens(pointer)?.try_fold(value, |target, raw| match target {
        Value::Object(map) => map.get_mut(&*unescaped(raw)),
        Value::Array(items) => array_index(raw).and_then(move |i| items.get_mut(i)),
        _ => None,
    })
}

/// A pointer's raw reference tokens (none for `""`); `None` when a
/// non-empty pointer does not start with `/`.
fn tokens(pointer: &str) -> Option<impl Iterator<Item = &str>> {
    let rest = match pointer {
        "" => None,
        p => Some(p.strip_prefix('/')?),
    };
    Some(rest.into_iter().flat_map(|r| r.split('/')))
}

/// One reference token unescaped as serde_json does (`~1` → `/`, then
/// `~0` → `~`), borrowed when it holds no `~`.
fn unescaped(raw: &str) -> std::borrow::Cow<'_, str> {
    if raw.contains('~') {
        raw.replace("~1", "/").replace("~0", "~").into()
    } else {
        raw.into()
    }
}

/// An array index token as serde_json reads one (no sign, no leading zero;
/// a token with an escape is never a number, escaped or not).
fn array_index(raw: &str) -> Option<usize> {
    if raw.starts_with('+') || (raw.starts_with('0') && raw.len() != 1) {
        return None;
    }
    raw.parse().ok()
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
        .and_then(|p| at_pointer(body, p))
        .and_then(Value::as_object)
        .or_else(|| body.as_object())
}

/// `Value::pointer` on an object's members, without wrapping (copying) the
/// object in a `Value`; `None` for the empty pointer.
pub fn member_at<'a>(object: &'a Map<String, Value>, pointer: &str) -> Option<&'a Value> {
    let rest = pointer.strip_prefix('/')?;
    let (first, tail) = match rest.find('/') {
        Some(at) => (&rest[..at], &rest[at..]),
        None => (rest, ""),
    };
    let member = object.get(&*unescaped(first))?;
    at_pointer(member, tail)
}

/// Escapes one JSON-pointer reference token (`~` → `~0`, `/` → `~1`).
pub fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `at_pointer` and `at_pointer_mut` find what serde_json's find, escapes,
    /// indices and malformed pointers included.
    #[test]
    fn pointers_resolve_as_serde_json_resolves_them() {
        let mut value = serde_json::json!({
            "data": {"a/b": 1, "m~n": [10, 20], "": {"": 3}, "~1": 4, "0": 5},
            "list": [{"id": "x"}, {"id": "y"}],
        });
        for p in [
            "",
            "/",
            "//",
            "/data",
            "/data/a~1b",
            "/data/m~0n/1",
            "/data/m~0n/01",
            "/data/m~0n/+1",
            "/data/m~0n/2",
            "/data/~01",
            "/data/0",
            "/list/0/id",
            "/list/1/id/x",
            "/list/-",
            "data",
            "/missing",
            "/data/a/b",
            "/list/00",
        ] {
            assert_eq!(at_pointer(&value, p), value.pointer(p), "{p:?}");
            let expected = value.clone().pointer_mut(p).map(|v| v.clone());
            assert_eq!(
                at_pointer_mut(&mut value, p).map(|v| v.clone()),
                expected,
                "{p:?}"
            );
        }
        *at_pointer_mut(&mut value, "/list/1/id").unwrap() = "z".into();
        assert_eq!(value["list"][1]["id"], "z");
    }

    #[test]
    fn codecs_round_trip_and_keep_what_they_cannot_decode() {
        assert_eq!(percent_decode("a%2Fb%zz%4"), "a/b%zz%4");
        assert_eq!(percent_decode("%41"), "A");
        assert_eq!(percent_decode("%FF"), "%FF");
        assert_eq!(percent_encode_segment("a/b c+é"), "a%2Fb%20c+%C3%A9");
        assert_eq!(query_encode("a b,c&d"), "a%20b,c%26d");
        assert_eq!(query_decode("a+b%2Bc"), "a b+c");
        assert_eq!(pointer_token("a/b~c"), "a~1b~0c");
        assert_eq!(normalize_path("/a//b/"), "/a/b");
        assert_eq!(normalize_path(""), "/");
    }
}
