//! The sessions of a Fiddler `.saz` archive as HAR-shaped HTTP records, for
//! serving (beyond the spec): the record model a HAR export gives the
//! derivation, built from the archive's raw messages, so a Fiddler session
//! serves without an export. Inspection never uses this; it reports the
//! exact stored bytes (`super::evidence`).
//!
//! Unlike inspection, response and request bodies are de-chunked
//! (`Transfer-Encoding: chunked`) and decoded per `Content-Encoding` (gzip,
//! deflate, br) under `har_shape::MAX_DECODED_BODY_BYTES`; an unknown coding (zstd
//! included) or a body that does not decode keeps its stored bytes and a
//! limitation says so. CONNECT tunnels and sessions without a request or a
//! response are left out and listed like left-out HAR entries.

use super::{Session, RECORDS_POINTER};
use crate::error::ErrorReport;
use crate::evidence::{Evidence, Location, Record};
use crate::har::{binary_fields, Issue, LeftOutEntry};
use crate::har_shape::{
    decode_coding, form_pairs, header_value, lossless_text, name_values, query_string,
    MAX_DECODED_BODY_BYTES,
};
use crate::read;
use crate::redact::{Declared, Redactor};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{json, Map, Value};
use std::path::Path;

/// The record model's decoder name.
pub const DECODER_NAME: &str = "rea-saz-http";
/// Its profile: HAR 1.2 entries built from Fiddler session archives.
pub const PROFILE: &str = "har-1.2-entries-from-saz-sessions";

/// A body as served: its bytes and, when they are still the stored bytes
/// despite a coding, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Body {
    pub bytes: Vec<u8>,
    /// `Some(reason)` when a transfer or content coding was not removed.
    pub kept_raw: Option<String>,
}

/// Reads a `.saz` archive into HTTP-record Evidence the derivation consumes
/// like HAR inspection Evidence (`capture.format: "har"`), with transport
/// credentials excluded as in HAR inspection, and the sessions left out.
pub fn http_evidence(path: &Path) -> Result<(Evidence, Vec<LeftOutEntry>), ErrorReport> {
    let snapshot = read::read_stable(path)?;
    let decoded = super::decode(&snapshot.bytes, None)?;
    let total = decoded.sessions.len() as u64;
    let mut records = Vec::new();
    let mut redactions = Vec::new();
    let mut left_out = Vec::new();
    let mut raw_kept = 0usize;
    for (ordinal, session) in decoded.sessions.iter().enumerate() {
        let base = format!("{RECORDS_POINTER}/{ordinal}");
        let (mut entry, kept) = match entry(session) {
            Ok(built) => built,
            Err((keyword, message)) => {
                left_out.push(LeftOutEntry {
                    ordinal: ordinal as u64,
                    pointer: base.clone(),
                    issues: vec![Issue {
                        pointer: base,
                        keyword: keyword.to_string(),
                        message,
                    }],
                });
                continue;
            }
        };
        raw_kept += kept;
        let mut redactor = Redactor::new(Declared::new(&[]), Some(ordinal as u64));
        redactor.transport(&mut entry, &base);
        let fields = binary_fields::describe(&entry, &base);
        redactions.extend(redactor.redactions);
        records.push(Record {
            ordinal: ordinal as u64,
            location: Location::ArchiveMembers {
                members: session.members.clone(),
            },
            reported: entry,
            numeric_literals: Vec::new(),
            binary_fields: fields,
        });
    }
    let mut limitations = vec![
        "These HTTP records were built from Fiddler session archive messages in the shape of HAR 1.2 entries, for serving; they are not inspection Evidence.".to_string(),
        "Bodies were de-chunked and decoded per Content-Encoding (gzip, deflate, br) for serving; bodies that are not UTF-8 text are base64 of their bytes; cookies are not parsed out of their headers.".to_string(),
    ];
    if raw_kept > 0 {
        limitations.push(format!(
            "{raw_kept} body(ies) kept their stored bytes: an unknown or undecodable transfer or content coding (see each record's `_reaBodyKeptRaw`)."
        ));
    }
    if !left_out.is_empty() {
        limitations.push(format!(
            "{} session(s) (CONNECT tunnels, or without a request or a response) have no HTTP record.",
            left_out.len()
        ));
    }
    let evidence = crate::serving::http_records_evidence(crate::serving::HttpRecords {
        format: "saz",
        basis: "observed",
        decoder: DECODER_NAME,
        profile: PROFILE,
        records_pointer: RECORDS_POINTER,
        path,
        snapshot: &snapshot,
        total,
        records,
        redactions,
        limitations,
    });
    Ok((evidence, left_out))
}

/// The exact bytes behind a reported field of the session.
fn sidecar<'a>(session: &'a Session, pointer: &str) -> Option<&'a [u8]> {
    session
        .sidecars
        .iter()
        .find(|s| s.pointer == pointer)
        .map(|s| s.bytes.as_slice())
}

fn headers(session: &Session, side: &str) -> Vec<(String, String)> {
    let Some(Value::Array(items)) = session.reported[side].get("headers") else {
        return Vec::new();
    };
    items
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let name = h["name"].as_str().unwrap_or_default().to_string();
            let value = match h["value"].as_str() {
                Some(v) => v.to_string(),
                None => sidecar(session, &format!("/{side}/headers/{i}/value"))
                    .map(lossless_text)
                    .unwrap_or_default(),
            };
            (name, value)
        })
        .collect()
}

/// The HAR entry of one session and how many of its bodies kept their
/// stored bytes, or why it has none (`(keyword, message)`).
fn entry(session: &Session) -> Result<(Value, usize), (&'static str, String)> {
    let request = &session.reported["request"];
    let response = &session.reported["response"];
    if request.is_null() {
        return Err((
            "saz_no_request",
            "the session has no request (`_c.txt`) member".into(),
        ));
    }
    let method = request["method"].as_str().unwrap_or_default().to_string();
    if method.eq_ignore_ascii_case("CONNECT") {
        return Err((
            "saz_connect_tunnel",
            "the session is a CONNECT tunnel, not an HTTP exchange".into(),
        ));
    }
    if response.is_null() {
        return Err((
            "saz_no_response",
            "the session has no response (`_s.txt`) member".into(),
        ));
    }
    let target = request["url"].as_str().unwrap_or_default();
    let request_headers = headers(session, "request");
    let url = absolute_url(target, &request_headers, is_https(session));
    let mut kept = 0usize;

    let mut req = Map::new();
    req.insert("method".into(), json!(method));
    req.insert("url".into(), json!(url));
    req.insert("httpVersion".into(), request["httpVersion"].clone());
    req.insert("cookies".into(), json!([]));
    req.insert("headers".into(), name_values(&request_headers));
    req.insert("queryString".into(), query_string(&url));
    req.insert("headersSize".into(), json!(-1));
    let raw_request = sidecar(session, "/request/body").unwrap_or_default();
    req.insert("bodySize".into(), json!(raw_request.len()));
    if !raw_request.is_empty() {
        let body = served_body(raw_request, &request_headers);
        kept += usize::from(body.kept_raw.is_some());
        let mime = header_value(&request_headers, "content-type").unwrap_or("");
        let mut post = Map::new();
        post.insert("mimeType".into(), json!(mime));
        text_or_base64(&mut post, &body.bytes);
        let params = if mime
            .to_ascii_lowercase()
            .starts_with("application/x-www-form-urlencoded")
        {
            form_pairs(&body.bytes)
        } else {
            json!([])
        };
        post.insert("params".into(), params);
        if let Some(why) = &body.kept_raw {
            post.insert("_reaBodyKeptRaw".into(), json!(why));
        }
        req.insert("postData".into(), Value::Object(post));
    }

    let response_headers = headers(session, "response");
    let raw_response = sidecar(session, "/response/body").unwrap_or_default();
    let body = served_body(raw_response, &response_headers);
    kept += usize::from(body.kept_raw.is_some());
    let mut content = Map::new();
    content.insert("size".into(), json!(body.bytes.len()));
    content.insert(
        "compression".into(),
        json!(body.bytes.len() as i64 - raw_response.len() as i64),
    );
    content.insert(
        "mimeType".into(),
        json!(header_value(&response_headers, "content-type").unwrap_or("")),
    );
    text_or_base64(&mut content, &body.bytes);
    if let Some(why) = &body.kept_raw {
        content.insert("_reaBodyKeptRaw".into(), json!(why));
    }
    let resp = json!({
        "status": response["status"].clone(),
        "statusText": response["statusText"].as_str().unwrap_or(""),
        "httpVersion": response["httpVersion"].clone(),
        "cookies": [],
        "headers": name_values(&response_headers),
        "content": Value::Object(content),
        "redirectURL": header_value(&response_headers, "location").unwrap_or(""),
        "headersSize": -1,
        "bodySize": raw_response.len(),
    });

    let mut out = Map::new();
    out.insert(
        "startedDateTime".into(),
        json!(timer(&session.reported["metadata"], "ClientBeginRequest").unwrap_or_default()),
    );
    out.insert("time".into(), json!(0));
    out.insert("request".into(), Value::Object(req));
    out.insert("response".into(), resp);
    out.insert("cache".into(), json!({}));
    out.insert(
        "timings".into(),
        json!({"send": 0, "wait": 0, "receive": 0}),
    );
    Ok((Value::Object(out), kept))
}

/// Text when the bytes are UTF-8, else base64 with `encoding: "base64"`.
fn text_or_base64(into: &mut Map<String, Value>, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(t) => {
            into.insert("text".into(), json!(t));
        }
        Err(_) => {
            into.insert("text".into(), json!(STANDARD.encode(bytes)));
            into.insert("encoding".into(), json!("base64"));
        }
    }
}

/// Whether Fiddler decrypted the session (a TLS client version flag), for
/// origin-form targets.
fn is_https(session: &Session) -> bool {
    fn walk(node: &Value) -> bool {
        let flag = node["attributes"]["N"].as_str() == Some("https-client-version");
        flag || node["children"]
            .as_array()
            .is_some_and(|c| c.iter().any(walk))
    }
    walk(&session.reported["metadata"])
}

/// The first value of the named attribute anywhere in the metadata tree
/// (`SessionTimers` holds the timers).
fn timer(node: &Value, attribute: &str) -> Option<String> {
    if let Some(v) = node["attributes"][attribute].as_str() {
        return Some(v.to_string());
    }
    node["children"]
        .as_array()?
        .iter()
        .find_map(|c| timer(c, attribute))
}

/// The request URL: an absolute-form target as recorded, else the Host
/// header and the origin-form path (`https` when Fiddler decrypted the
/// session or the Host names port 443).
pub fn absolute_url(target: &str, headers: &[(String, String)], https: bool) -> String {
    let lower = target.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        return target.to_string();
    }
    let host = header_value(headers, "host").unwrap_or("").trim();
    let (host, scheme) = match host.strip_suffix(":443") {
        Some(h) => (h, "https"),
        None if https => (host.strip_suffix(":443").unwrap_or(host), "https"),
        None => (host.strip_suffix(":80").unwrap_or(host), "http"),
    };
    let path = if target == "*" { "/" } else { target };
    let path = if path.starts_with('/') {
        path.to_string()
    } else {
        format!("/{path}")
    };
    format!("{scheme}://{host}{path}")
}

/// The body as served: de-chunked when `Transfer-Encoding` names chunked,
/// then decoded per `Content-Encoding` (each coding in reverse order of
/// application), all under `har_shape::MAX_DECODED_BODY_BYTES`. A step that cannot
/// be taken keeps the bytes so far and says why.
pub fn served_body(raw: &[u8], headers: &[(String, String)]) -> Body {
    let mut bytes = raw.to_vec();
    let transfer = header_value(headers, "transfer-encoding")
        .unwrap_or("")
        .to_ascii_lowercase();
    if transfer.split(',').any(|c| c.trim() == "chunked") {
        match dechunk(&bytes) {
            Some(b) => bytes = b,
            None => {
                return Body {
                    bytes,
                    kept_raw: Some("the chunked transfer coding did not parse".into()),
                }
            }
        }
    }
    let codings: Vec<String> = header_value(headers, "content-encoding")
        .unwrap_or("")
        .split(',')
        .map(|c| c.trim().to_ascii_lowercase())
        .filter(|c| !c.is_empty() && c != "identity")
        .collect();
    for coding in codings.iter().rev() {
        match decode_coding(coding, &bytes) {
            Some(b) => bytes = b,
            None => {
                return Body {
                    bytes,
                    kept_raw: Some(format!(
                        "the content coding `{coding}` is unknown or did not decode within {MAX_DECODED_BODY_BYTES} bytes"
                    )),
                }
            }
        }
    }
    Body {
        bytes,
        kept_raw: None,
    }
}

/// The data of a chunked body (RFC 9112 §7.1): chunk extensions and
/// trailers are dropped; `None` when the framing is broken.
pub fn dechunk(raw: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut at = 0usize;
    loop {
        let nl = raw[at..].iter().position(|&b| b == b'\n')? + at;
        let line = std::str::from_utf8(&raw[at..nl])
            .ok()?
            .trim_end_matches('\r');
        let size = line.split(';').next()?.trim();
        let size = usize::from_str_radix(size, 16).ok()?;
        at = nl + 1;
        if size == 0 {
            return Some(out);
        }
        let end = at.checked_add(size)?;
        if end > raw.len() || (out.len() + size) as u64 > MAX_DECODED_BODY_BYTES {
            return None;
        }
        out.extend_from_slice(&raw[at..end]);
        at = end;
        // The CRLF after the chunk data.
        if raw[at..].starts_with(b"\r\n") {
            at += 2;
        } else if raw[at..].starts_with(b"\n") {
            at += 1;
        } else {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Cursor, Write};
    use zip::write::SimpleFileOptions;
    use zip::ZipWriter;

    fn saz(members: &[(&str, &[u8])]) -> tempfile::NamedTempFile {
        let mut w = ZipWriter::new(Cursor::new(Vec::new()));
        for (name, bytes) in members {
            w.start_file(*name, SimpleFileOptions::default()).unwrap();
            w.write_all(bytes).unwrap();
        }
        let bytes = w.finish().unwrap().into_inner();
        let mut file = tempfile::Builder::new().suffix(".saz").tempfile().unwrap();
        file.write_all(&bytes).unwrap();
        file
    }

    fn fields(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn chunked_bodies_are_dechunked() {
        assert_eq!(
            dechunk(b"4\r\nWiki\r\n5;ext=1\r\npedia\r\n0\r\nTrailer: x\r\n\r\n").unwrap(),
            b"Wikipedia"
        );
        assert_eq!(dechunk(b"0\r\n\r\n").unwrap(), b"");
        assert!(dechunk(b"zz\r\nabc").is_none());
        assert!(dechunk(b"9\r\nshort\r\n").is_none());
    }

    #[test]
    fn bodies_are_decoded_per_content_encoding_after_dechunking() {
        let packed = gzip(b"{\"a\":1}");
        let mut chunked = format!("{:x}\r\n", packed.len()).into_bytes();
        chunked.extend_from_slice(&packed);
        chunked.extend_from_slice(b"\r\n0\r\n\r\n");
        let h = fields(&[
            ("Transfer-Encoding", "chunked"),
            ("Content-Encoding", "gzip"),
        ]);
        let body = served_body(&chunked, &h);
        assert_eq!(body.bytes, b"{\"a\":1}");
        assert_eq!(body.kept_raw, None);

        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(b"deflated").unwrap();
        let body = served_body(
            &z.finish().unwrap(),
            &fields(&[("Content-Encoding", "deflate")]),
        );
        assert_eq!(body.bytes, b"deflated");

        let body = served_body(b"opaque", &fields(&[("Content-Encoding", "zstd")]));
        assert_eq!(body.bytes, b"opaque");
        assert!(body.kept_raw.unwrap().contains("zstd"));
        let body = served_body(b"not gzip", &fields(&[("Content-Encoding", "gzip")]));
        assert_eq!(body.bytes, b"not gzip");
        assert!(body.kept_raw.is_some());
    }

    #[test]
    fn urls_are_absolute_form_or_host_and_path() {
        let host = fields(&[("Host", "api.example:8080")]);
        assert_eq!(
            absolute_url("https://x.example/a?b=1", &host, false),
            "https://x.example/a?b=1"
        );
        assert_eq!(
            absolute_url("/a?b=1", &host, false),
            "http://api.example:8080/a?b=1"
        );
        assert_eq!(
            absolute_url("/a", &fields(&[("host", "s.example:443")]), false),
            "https://s.example/a"
        );
        assert_eq!(
            absolute_url("/a", &fields(&[("Host", "s.example")]), true),
            "https://s.example/a"
        );
    }

    #[test]
    fn sessions_become_har_entries_and_tunnels_are_left_out() {
        let gz = gzip(b"{\"ok\":true}");
        let mut response =
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n\r\n"
                .to_vec();
        response.extend_from_slice(&gz);
        let meta = b"<Session SID=\"1\"><SessionTimers ClientBeginRequest=\"2025-08-30T11:33:40.0256586-07:00\" /><SessionFlags><SessionFlag N=\"https-client-version\" V=\"Tls12\" /></SessionFlags></Session>";
        let file = saz(&[
            (
                "raw/1_c.txt",
                b"POST /items?q=a%20b HTTP/1.1\r\nHost: api.example\r\nContent-Type: application/json\r\nAuthorization: Bearer secret\r\n\r\n{\"n\":1}",
            ),
            ("raw/1_s.txt", &response),
            ("raw/1_m.xml", meta),
            (
                "raw/2_c.txt",
                b"CONNECT api.example:443 HTTP/1.1\r\nHost: api.example:443\r\n\r\n",
            ),
            ("raw/2_s.txt", b"HTTP/1.1 200 Connection Established\r\n\r\n"),
            (
                "raw/3_c.txt",
                b"GET http://api.example/x HTTP/1.1\r\nHost: api.example\r\n\r\n",
            ),
        ]);
        let (e, left_out) = http_evidence(file.path()).unwrap();
        assert_eq!(e.capture.format, "har");
        assert_eq!(e.parameters.format, "saz");
        assert_eq!((e.capture.total_records, e.records.len()), (3, 1));
        let keywords: Vec<_> = left_out
            .iter()
            .map(|l| (l.ordinal, l.issues[0].keyword.as_str()))
            .collect();
        assert_eq!(
            keywords,
            [(1, "saz_connect_tunnel"), (2, "saz_no_response")]
        );
        let entry = &e.records[0].reported;
        assert_eq!(entry["request"]["url"], "https://api.example/items?q=a%20b");
        assert_eq!(
            entry["request"]["queryString"],
            json!([{"name": "q", "value": "a b"}])
        );
        assert_eq!(entry["request"]["postData"]["text"], "{\"n\":1}");
        assert_eq!(entry["request"]["postData"]["mimeType"], "application/json");
        assert_eq!(entry["response"]["status"], 200);
        assert_eq!(entry["response"]["content"]["text"], "{\"ok\":true}");
        assert_eq!(entry["response"]["content"]["mimeType"], "application/json");
        assert_eq!(
            entry["startedDateTime"],
            "2025-08-30T11:33:40.0256586-07:00"
        );
        // Transport credentials are excluded as HAR serving excludes them.
        let auth = entry["request"]["headers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["name"] == "Authorization");
        assert_ne!(
            auth.map(|h| h["value"].clone()),
            Some(json!("Bearer secret"))
        );
        assert!(!e.redactions.is_empty());
    }

    #[test]
    fn binary_bodies_are_base64() {
        let file = saz(&[
            (
                "raw/1_c.txt",
                b"PUT http://h.example/b HTTP/1.1\r\nHost: h.example\r\n\r\n\xff\x00\xfe",
            ),
            (
                "raw/1_s.txt",
                b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n\x80\x81",
            ),
        ]);
        let (e, _) = http_evidence(file.path()).unwrap();
        let entry = &e.records[0].reported;
        assert_eq!(entry["request"]["postData"]["encoding"], "base64");
        assert_eq!(
            entry["request"]["postData"]["text"],
            STANDARD.encode(b"\xff\x00\xfe")
        );
        assert_eq!(entry["response"]["content"]["encoding"], "base64");
        assert_eq!(
            entry["response"]["content"]["text"],
            STANDARD.encode(b"\x80\x81")
        );
    }
}

#[cfg(test)]
mod fixture_tests {
    use super::*;

    fn fixture(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/formats/saz")
            .join(name)
    }

    #[test]
    fn the_httpbin_archive_decodes_its_codings() {
        let (e, left_out) = http_evidence(&fixture("httpbin-test.saz")).unwrap();
        assert!(left_out.is_empty(), "{left_out:?}");
        let by_url = |u: &str| {
            e.records
                .iter()
                .map(|r| &r.reported)
                .find(|r| r["request"]["url"] == u)
                .unwrap_or_else(|| panic!("no {u}"))
        };
        for (url, flag) in [
            ("https://httpbin.org/brotli", "brotli"),
            ("https://httpbin.org/gzip", "gzipped"),
            ("https://httpbin.org/deflate", "deflated"),
        ] {
            let text = by_url(url)["response"]["content"]["text"].as_str().unwrap();
            let body: Value = serde_json::from_str(text).unwrap();
            assert_eq!(body[flag], true, "{url}");
        }
        // The chunked stream is served de-chunked: one JSON document a line.
        let stream = by_url("https://httpbin.org/stream/5")["response"]["content"]["text"]
            .as_str()
            .unwrap();
        assert_eq!(stream.lines().count(), 5);
        for line in stream.lines() {
            serde_json::from_str::<Value>(line).unwrap();
        }
        let post = by_url("https://httpbin.org/post");
        assert_eq!(post["request"]["method"], "POST");
        assert!(post["request"]["postData"]["text"].is_string());
    }
}
