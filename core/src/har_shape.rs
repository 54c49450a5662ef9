//! The pieces both HAR-shaped record builders for serving (native mitmproxy
//! flows, Fiddler sessions) share: header text, HAR name/value lists, query
//! strings, and bounded content decoding.

use serde_json::{json, Value};
use std::io::Read;

/// The most bytes a body is de-chunked or decoded to; a larger result keeps
/// the stored bytes.
pub const MAX_DECODED_BODY_BYTES: u64 = 64 * 1024 * 1024;

/// Header and line text: UTF-8, else Latin-1 (one char per byte).
pub(crate) fn lossless_text(b: &[u8]) -> String {
    match std::str::from_utf8(b) {
        Ok(s) => s.to_string(),
        Err(_) => b.iter().map(|&c| c as char).collect(),
    }
}

/// The first value of a header, by case-insensitive name.
pub(crate) fn header_value<'a>(fields: &'a [(String, String)], name: &str) -> Option<&'a str> {
    fields
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// Fields as a HAR `[{name, value}]` list, in order.
pub(crate) fn name_values(fields: &[(String, String)]) -> Value {
    Value::Array(
        fields
            .iter()
            .map(|(n, v)| json!({"name": n, "value": v}))
            .collect(),
    )
}

/// The query of a URL or path (`parse_qsl` with blank values kept) as HAR
/// name/values; a fragment is not part of it.
pub(crate) fn query_string(target: &str) -> Value {
    let query = target.split_once('?').map_or("", |(_, q)| q);
    let query = query.split_once('#').map_or(query, |(q, _)| q);
    form_pairs(query.as_bytes())
}

/// `application/x-www-form-urlencoded` bytes as HAR name/values.
pub(crate) fn form_pairs(bytes: &[u8]) -> Value {
    Value::Array(
        url::form_urlencoded::parse(bytes)
            .map(|(n, v)| json!({"name": n, "value": v}))
            .collect(),
    )
}

/// `raw` with one content coding removed (gzip/x-gzip, deflate as zlib or
/// raw, br), within [`MAX_DECODED_BODY_BYTES`]; `None` when the coding is
/// unknown, the bytes do not decode, or the result would be larger.
pub(crate) fn decode_coding(coding: &str, raw: &[u8]) -> Option<Vec<u8>> {
    match coding {
        "gzip" | "x-gzip" => bounded(flate2::read::MultiGzDecoder::new(raw)),
        "deflate" => bounded(flate2::read::ZlibDecoder::new(raw))
            .or_else(|| bounded(flate2::read::DeflateDecoder::new(raw))),
        "br" => bounded(brotli_decompressor::Decompressor::new(raw, 4096)),
        _ => None,
    }
}

fn bounded(mut reader: impl Read) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let read = (&mut reader)
        .take(MAX_DECODED_BODY_BYTES + 1)
        .read_to_end(&mut out)
        .ok()?;
    (read as u64 <= MAX_DECODED_BODY_BYTES).then_some(out)
}
