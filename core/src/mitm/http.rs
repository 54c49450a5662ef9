//! The flows of a native mitmproxy file as HAR-shaped HTTP records, for
//! serving (beyond the spec): the same record model a mitmproxy 12.2.3
//! `SaveHar` export gives the derivation, built from the exact native
//! bytes, so one `.mitm` session serves without an export. Inspection
//! never uses this; it reports native states unchanged (`super::inspect`).
//!
//! Where the HAR export is lossy the records keep the native facts: request
//! bodies that are not UTF-8 are base64 with `encoding: "base64"` (HAR
//! writes lossy text), and response bodies that are not UTF-8 are base64.

use super::profile::{member, CURRENT_STATE_VERSION};
use super::tnetstring::Native;
use super::{decode, BASIS, RECORDS_POINTER};
use crate::error::ErrorReport;
use crate::evidence::{Evidence, Location, Record};
use crate::har::binary_fields;
use crate::har_shape::{
    decode_coding, form_pairs, header_value, lossless_text, name_values, query_string,
};
use crate::read;
use crate::redact::{Declared, Redactor};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{json, Map, Value};
use std::collections::HashSet;
use std::path::Path;

/// The record model's decoder name.
pub const DECODER_NAME: &str = "rea-mitmproxy-http";
/// Its profile: HAR 1.2 entries built from mitmproxy 12.2.3 flow state 21.
pub const PROFILE: &str = "har-1.2-entries-from-mitmproxy-12.2.3-flows";

/// Reads a `.mitm` file into HTTP-record Evidence the derivation consumes
/// like HAR inspection Evidence (`capture.format: "har"`), with transport
/// credentials excluded as in HAR inspection.
pub fn http_evidence(path: &Path) -> Result<Evidence, ErrorReport> {
    let snapshot = read::read_stable(path)?;
    let decoded = decode(&snapshot.bytes)?;
    let total = decoded.flows.len() as u64;
    let mut records = Vec::new();
    let mut redactions = Vec::new();
    let mut servers_seen = HashSet::new();
    let mut skipped = 0usize;
    for (ordinal, (item, version)) in decoded.flows.iter().zip(&decoded.versions).enumerate() {
        if *version != super::profile::StateVersion::Integer(CURRENT_STATE_VERSION) {
            return Err(ErrorReport::new(
                "unsupported_profile",
                crate::error::Category::Unsupported,
                format!("flow {ordinal} has an older state version; serving builds HTTP records from state version {CURRENT_STATE_VERSION} (mitmproxy 12.2.3) only"),
            )
            .detail("record_ordinal", ordinal as u64)
            .guidance("Open and save the flows with mitmproxy 12.2.3 (it migrates them), or export them as HAR."));
        }
        let Native::Dict(flow) = &item.value else {
            continue;
        };
        if !matches!(member(flow, "type"), Some(Native::Str(t)) if t == "http") {
            skipped += 1;
            continue;
        }
        let mut entry = entry(flow, &mut servers_seen);
        let base = format!("{RECORDS_POINTER}/{ordinal}");
        let mut redactor = Redactor::new(Declared::new(&[]), Some(ordinal as u64));
        redactor.transport(&mut entry, &base);
        let fields = binary_fields::describe(&entry, &base);
        redactions.extend(redactor.redactions);
        records.push(Record {
            ordinal: ordinal as u64,
            location: Location::ByteRange {
                offset: item.offset as u64,
                length: item.length as u64,
            },
            reported: entry,
            numeric_literals: Vec::new(),
            binary_fields: fields,
        });
    }
    let mut limitations = vec![
        "These HTTP records were built from native mitmproxy flows in the shape of mitmproxy 12.2.3 HAR entries, for serving; they are not inspection Evidence.".to_string(),
        "Mitmproxy messages are upstream-assembled messages, not recovered wire fragments.".to_string(),
        "Request and response bodies that are not UTF-8 text are base64 of their exact bytes; cookies are not parsed out of their headers.".to_string(),
    ];
    if skipped > 0 {
        limitations.push(format!(
            "{skipped} non-HTTP flow(s) (TCP, UDP or DNS) have no HTTP record."
        ));
    }
    Ok(crate::serving::http_records_evidence(
        crate::serving::HttpRecords {
            format: "mitmproxy",
            basis: BASIS,
            decoder: DECODER_NAME,
            profile: PROFILE,
            records_pointer: RECORDS_POINTER,
            path,
            snapshot: &snapshot,
            total,
            records,
            redactions,
            limitations,
        },
    ))
}

fn get<'a>(pairs: &'a [(Native, Native)], name: &str) -> Option<&'a Native> {
    member(pairs, name)
}

fn dict<'a>(pairs: &'a [(Native, Native)], name: &str) -> Option<&'a [(Native, Native)]> {
    match get(pairs, name) {
        Some(Native::Dict(d)) => Some(d),
        _ => None,
    }
}

fn bytes<'a>(pairs: &'a [(Native, Native)], name: &str) -> Option<&'a [u8]> {
    match get(pairs, name) {
        Some(Native::Bytes(b)) => Some(b),
        Some(Native::Str(s)) => Some(s.as_bytes()),
        _ => None,
    }
}

fn float(pairs: &[(Native, Native)], name: &str) -> Option<f64> {
    match get(pairs, name) {
        Some(Native::Float(f)) => Some(*f),
        Some(Native::Int(t)) => t.parse().ok(),
        _ => None,
    }
}

fn text(pairs: &[(Native, Native)], name: &str) -> String {
    bytes(pairs, name).map(lossless_text).unwrap_or_default()
}

fn header_fields(pairs: &[(Native, Native)], name: &str) -> Vec<(String, String)> {
    let Some(Native::List(items)) = get(pairs, name) else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|pair| match pair {
            Native::List(p) if p.len() == 2 => {
                let part = |v: &Native| match v {
                    Native::Bytes(b) => lossless_text(b),
                    Native::Str(s) => s.clone(),
                    _ => String::new(),
                };
                Some((part(&p[0]), part(&p[1])))
            }
            _ => None,
        })
        .collect()
}

/// The HAR entry of one HTTP flow, as mitmproxy 12.2.3's `SaveHar.flow_entry`.
fn entry(flow: &[(Native, Native)], servers_seen: &mut HashSet<String>) -> Value {
    let empty: &[(Native, Native)] = &[];
    let request = dict(flow, "request").unwrap_or(empty);
    let response = dict(flow, "response");
    let server = dict(flow, "server_conn").unwrap_or(empty);

    let server_id = text(server, "id");
    let (connect, ssl) = if servers_seen.contains(&server_id) {
        (-1.0, -1.0)
    } else if let (Some(tcp), Some(start)) = (
        float(server, "timestamp_tcp_setup"),
        float(server, "timestamp_start"),
    ) {
        servers_seen.insert(server_id);
        let ssl = float(server, "timestamp_tls_setup").map_or(-1.0, |tls| 1000.0 * (tls - tcp));
        (1000.0 * (tcp - start), ssl)
    } else {
        (-1.0, -1.0)
    };
    let q_start = float(request, "timestamp_start");
    let q_end = float(request, "timestamp_end");
    let send = match (q_end, q_start) {
        (Some(e), Some(s)) if e != 0.0 => 1000.0 * (e - s),
        _ => 0.0,
    };
    let wait = match (response.and_then(|r| float(r, "timestamp_start")), q_end) {
        (Some(rs), Some(e)) if e != 0.0 => 1000.0 * (rs - e),
        _ => 0.0,
    };
    let receive = match response.map(|r| (float(r, "timestamp_end"), float(r, "timestamp_start"))) {
        Some((Some(e), Some(s))) if e != 0.0 => 1000.0 * (e - s),
        _ => 0.0,
    };
    let timings = [connect, ssl, send, receive, wait];
    let time: f64 = timings.iter().filter(|v| **v >= 0.0).sum();

    let method = text(request, "method");
    let request_headers = header_fields(request, "headers");
    let path = text(request, "path");
    let mut req = Map::new();
    req.insert("method".into(), json!(method));
    req.insert(
        "url".into(),
        json!(pretty_url(request, &request_headers, &path)),
    );
    req.insert("httpVersion".into(), json!(text(request, "http_version")));
    req.insert("cookies".into(), json!([]));
    req.insert("headers".into(), name_values(&request_headers));
    req.insert("queryString".into(), query_string(&path));
    req.insert("headersSize".into(), json!(-1));
    let raw_request = bytes(request, "content");
    req.insert("bodySize".into(), json!(raw_request.map_or(0, <[u8]>::len)));
    if matches!(method.as_str(), "POST" | "PUT" | "PATCH") {
        let mime = header_value(&request_headers, "content-type").unwrap_or("");
        let mut post = Map::new();
        post.insert("mimeType".into(), json!(mime));
        let body = raw_request.map(|raw| decoded_body(raw, &request_headers));
        match body.as_deref().map(std::str::from_utf8) {
            Some(Ok(t)) => {
                post.insert("text".into(), json!(t));
            }
            Some(Err(_)) => {
                post.insert(
                    "text".into(),
                    json!(STANDARD.encode(body.as_deref().unwrap_or_default())),
                );
                post.insert("encoding".into(), json!("base64"));
            }
            None => {
                post.insert("text".into(), Value::Null);
            }
        }
        let form = mime
            .to_ascii_lowercase()
            .starts_with("application/x-www-form-urlencoded");
        let params = match (&body, form) {
            (Some(b), true) => form_pairs(b),
            _ => Value::Array(Vec::new()),
        };
        post.insert("params".into(), params);
        req.insert("postData".into(), Value::Object(post));
    }

    let resp = match response {
        Some(r) => response_value(r),
        None => json!({
            "status": 0, "statusText": "", "httpVersion": "", "headers": [], "cookies": [],
            "content": {}, "redirectURL": "", "headersSize": -1, "bodySize": -1,
            "_transferSize": 0,
            "_error": match dict(flow, "error") { Some(e) => json!(text(e, "msg")), None => Value::Null },
        }),
    };

    let mut out = Map::new();
    out.insert(
        "startedDateTime".into(),
        json!(q_start.map(python_isoformat_utc).unwrap_or_default()),
    );
    out.insert("time".into(), json!(time));
    out.insert("request".into(), Value::Object(req));
    out.insert("response".into(), resp);
    out.insert("cache".into(), json!({}));
    out.insert(
        "timings".into(),
        json!({"connect": connect, "ssl": ssl, "send": send, "receive": receive, "wait": wait}),
    );
    if let Some(Native::List(peer)) = get(server, "peername") {
        if let Some(host) = peer.first().and_then(|h| match h {
            Native::Str(s) => Some(s.clone()),
            Native::Bytes(b) => Some(lossless_text(b)),
            _ => None,
        }) {
            out.insert("serverIPAddress".into(), json!(host));
        }
    }
    if let Some(Native::Dict(ws)) = get(flow, "websocket") {
        out.insert("_resourceType".into(), json!("websocket"));
        out.insert("_webSocketMessages".into(), websocket_messages(ws));
    }
    Value::Object(out)
}

fn response_value(r: &[(Native, Native)]) -> Value {
    let headers = header_fields(r, "headers");
    let raw = bytes(r, "content");
    let decoded = raw.map(|b| decoded_body(b, &headers));
    let raw_len = raw.map_or(0, <[u8]>::len);
    let decoded_len = decoded.as_ref().map_or(0, Vec::len);
    let mut content = Map::new();
    content.insert("size".into(), json!(raw_len));
    content.insert(
        "compression".into(),
        json!(decoded_len as i64 - raw_len as i64),
    );
    content.insert(
        "mimeType".into(),
        json!(header_value(&headers, "content-type").unwrap_or("")),
    );
    match decoded.as_deref() {
        Some(body) if !body.is_empty() && is_mostly_bin(body) => {
            content.insert("text".into(), json!(STANDARD.encode(body)));
            content.insert("encoding".into(), json!("base64"));
        }
        Some(body) => match std::str::from_utf8(body) {
            Ok(t) => {
                content.insert("text".into(), json!(t));
            }
            Err(_) => {
                content.insert("text".into(), json!(STANDARD.encode(body)));
                content.insert("encoding".into(), json!("base64"));
            }
        },
        None => {
            content.insert("text".into(), json!(""));
        }
    }
    let status = match get(r, "status_code") {
        Some(Native::Int(t)) => t.parse::<i64>().map_or(Value::Null, |n| json!(n)),
        _ => Value::Null,
    };
    let mut out = json!({
        "status": status,
        "statusText": text(r, "reason"),
        "httpVersion": text(r, "http_version"),
        "cookies": [],
        "headers": name_values(&headers),
        "content": Value::Object(content),
        "redirectURL": header_value(&headers, "location").unwrap_or(""),
        "headersSize": -1,
        "bodySize": raw_len,
    });
    // HTTP trailers (gRPC's grpc-status among them), which HAR has no
    // member for: kept as `_trailers` when the flow has any, without
    // transport credentials.
    let trailers: Vec<(String, String)> = header_fields(r, "trailers")
        .into_iter()
        .filter(|(n, _)| {
            !crate::redact::CREDENTIAL_HEADERS
                .iter()
                .any(|c| n.eq_ignore_ascii_case(c))
        })
        .collect();
    if !trailers.is_empty() {
        out["_trailers"] = name_values(&trailers);
    }
    out
}

/// The body with its `Content-Encoding` (gzip, deflate, br) removed, as
/// mitmproxy's `Message.content`; the raw bytes when the encoding is
/// unknown (zstd included), the bytes do not decode, or decoding would pass
/// `har_shape::MAX_DECODED_BODY_BYTES` (mitmproxy likewise falls back to
/// `raw_content` when decoding fails).
fn decoded_body(raw: &[u8], headers: &[(String, String)]) -> Vec<u8> {
    let encoding = header_value(headers, "content-encoding")
        .map(|e| e.trim().to_ascii_lowercase())
        .unwrap_or_default();
    let decoded = match encoding.as_str() {
        "gzip" | "deflate" | "br" => decode_coding(&encoding, raw),
        _ => None,
    };
    decoded.unwrap_or_else(|| raw.to_vec())
}

/// mitmproxy's `strutils.is_mostly_bin`.
fn is_mostly_bin(s: &[u8]) -> bool {
    if s.is_empty() {
        return false;
    }
    // Cut near 100 bytes, before the first byte that starts a character.
    let cut = if s.len() > 100 {
        (100..s.len().min(104))
            .find(|&c| (s[c] >> 6) != 0b10)
            .unwrap_or(100)
    } else {
        s.len()
    };
    let s = &s[..cut];
    let low = s.iter().filter(|&&i| i < 9 || (13 < i && i < 32)).count();
    let high = s.iter().filter(|&&i| i > 126).count();
    let ascii = s.len() - low - high;
    if ascii as f64 / s.len() as f64 > 0.7 {
        return false;
    }
    if (ascii + high) as f64 / s.len() as f64 > 0.95 && std::str::from_utf8(s).is_ok() {
        return false;
    }
    true
}

/// `Request.pretty_url`: scheme, the Host header's (or HTTP/2 authority's)
/// host and port, the path; the port omitted when it is the scheme's default.
fn pretty_url(request: &[(Native, Native)], headers: &[(String, String)], path: &str) -> String {
    let scheme = text(request, "scheme");
    let version = text(request, "http_version");
    let authority = text(request, "authority");
    let host_header = if version.starts_with("HTTP/2") || version.starts_with("HTTP/3") {
        Some(authority.as_str())
            .filter(|a| !a.is_empty())
            .or_else(|| header_value(headers, "host"))
    } else {
        header_value(headers, "host")
    };
    let default_port = match scheme.as_str() {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    };
    let (host, port) = match host_header.filter(|h| !h.is_empty()) {
        Some(h) => {
            let (host, port) = split_authority(h);
            (host, port.or(default_port).unwrap_or(443))
        }
        None => {
            let port = match get(request, "port") {
                Some(Native::Int(t)) => t.parse().unwrap_or(0),
                _ => 0,
            };
            (text(request, "host"), port)
        }
    };
    let path = if path == "*" { "" } else { path };
    let host = if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]")
    } else {
        host
    };
    if Some(port) == default_port {
        format!("{scheme}://{host}{path}")
    } else {
        format!("{scheme}://{host}:{port}{path}")
    }
}

/// `url.parse_authority(..., check=False)`: host (brackets removed) and port.
fn split_authority(authority: &str) -> (String, Option<u16>) {
    if let Some(rest) = authority.strip_prefix('[') {
        if let Some((host, after)) = rest.split_once(']') {
            let port = after.strip_prefix(':').and_then(|p| p.parse().ok());
            return (host.to_string(), port);
        }
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if !host.contains(':') => match port.parse() {
            Ok(p) => (host.to_string(), Some(p)),
            Err(_) => (authority.to_string(), None),
        },
        _ => (authority.to_string(), None),
    }
}

fn websocket_messages(ws: &[(Native, Native)]) -> Value {
    let Some(Native::List(messages)) = get(ws, "messages") else {
        return json!([]);
    };
    Value::Array(
        messages
            .iter()
            .filter_map(|m| {
                let Native::List(parts) = m else { return None };
                let opcode: i64 = match parts.first()? {
                    Native::Int(t) => t.parse().ok()?,
                    _ => return None,
                };
                let from_client = matches!(parts.get(1)?, Native::Bool(true));
                let content = match parts.get(2)? {
                    Native::Bytes(b) => b.as_slice(),
                    _ => return None,
                };
                let time = match parts.get(3) {
                    Some(Native::Float(f)) => json!(f),
                    _ => Value::Null,
                };
                let data = match (opcode, std::str::from_utf8(content)) {
                    (1, Ok(t)) => json!(t),
                    _ => json!(STANDARD.encode(content)),
                };
                Some(json!({
                    "type": if from_client { "send" } else { "receive" },
                    "time": time, "opcode": opcode, "data": data,
                }))
            })
            .collect(),
    )
}

/// `datetime.fromtimestamp(ts, timezone.utc).isoformat()`.
pub fn python_isoformat_utc(ts: f64) -> String {
    let mut secs = ts.floor();
    let mut micros = ((ts - secs) * 1e6).round_ties_even();
    if micros >= 1e6 {
        secs += 1.0;
        micros -= 1e6;
    }
    let secs = secs as i64;
    let micros = micros as i64;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let time = format!("{:02}:{:02}:{:02}", rem / 3600, rem % 3600 / 60, rem % 60);
    if micros == 0 {
        format!("{y:04}-{m:02}-{d:02}T{time}+00:00")
    } else {
        format!("{y:04}-{m:02}-{d:02}T{time}.{micros:06}+00:00")
    }
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_print_as_python_isoformat() {
        assert_eq!(
            python_isoformat_utc(1796059295.0144958),
            "2026-11-30T17:21:35.014496+00:00"
        );
        assert_eq!(python_isoformat_utc(0.0), "1970-01-01T00:00:00+00:00");
    }

    #[test]
    fn mostly_binary_follows_mitmproxy() {
        assert!(!is_mostly_bin(b"{\"a\": 1}"));
        assert!(is_mostly_bin(&[0u8, 1, 2, 3, 255, 254]));
        assert!(!is_mostly_bin("ünïcödé".as_bytes()));
    }

    #[test]
    fn authorities_split_like_mitmproxy() {
        assert_eq!(
            split_authority("127.0.0.1:18080"),
            ("127.0.0.1".into(), Some(18080))
        );
        assert_eq!(split_authority("[::1]:8080"), ("::1".into(), Some(8080)));
        assert_eq!(split_authority("Example.com"), ("Example.com".into(), None));
    }
}
