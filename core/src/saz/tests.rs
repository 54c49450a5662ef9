//! Decoder and Evidence tests on archives built here with the `zip` writer
//! (hostile ones patched byte by byte) and on the real Fiddler fixtures.

use super::*;
use crate::error::Category;
use crate::evidence::{Evidence, Location, RedactionReason, RedactionScope};
use crate::inspect::{inspect_web_network_capture, InspectRequest};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use sha2::Digest;
use std::io::{Cursor, Write};
use std::path::PathBuf;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

fn zip_with(members: &[(&str, &[u8])], method: CompressionMethod) -> Vec<u8> {
    let mut w = ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(method);
    for (name, bytes) in members {
        if name.ends_with('/') {
            w.add_directory(*name, options).unwrap();
        } else {
            w.start_file(*name, options).unwrap();
            w.write_all(bytes).unwrap();
        }
    }
    w.finish().unwrap().into_inner()
}

fn zip(members: &[(&str, &[u8])]) -> Vec<u8> {
    zip_with(members, CompressionMethod::Deflated)
}

const GET: &[u8] = b"GET https://h.example/a HTTP/1.1\r\nHost: h.example\r\n\r\n";
const OK: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nhello";
const META: &[u8] = b"\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n<Session SID=\"7\"><SessionTimers ClientConnected=\"2026-11-30T10:00:00Z\" /><SessionFlags><SessionFlag N=\"x-a\" V=\"1 &amp; 2\" /></SessionFlags><Note>a &lt;b&gt; <![CDATA[c]]></Note></Session>";

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/formats/saz"
    ))
    .join(name)
}

/// Inspects archive bytes written to a temporary file.
fn inspect_bytes(
    bytes: &[u8],
    configure: impl FnOnce(&mut InspectRequest),
) -> Result<Evidence, ErrorReport> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.saz");
    std::fs::write(&path, bytes).unwrap();
    let mut request = InspectRequest::har(&path);
    request.format = "saz".into();
    configure(&mut request);
    inspect_web_network_capture(&request)
}

fn inspect_ok(bytes: &[u8]) -> Evidence {
    inspect_bytes(bytes, |_| {}).unwrap()
}

fn field<'a>(
    record: &'a crate::evidence::Record,
    suffix: &str,
) -> Option<&'a crate::evidence::BinaryField> {
    record
        .binary_fields
        .iter()
        .find(|f| f.pointer.ends_with(suffix))
}

fn bytes_of(field: &crate::evidence::BinaryField) -> Vec<u8> {
    STANDARD.decode(field.base64.as_deref().unwrap()).unwrap()
}

fn code(e: &ErrorReport) -> (&str, Category) {
    (e.code.as_str(), e.category)
}

#[test]
fn one_record_joins_the_members_of_a_stem() {
    // SAZ-03, SAZ-04
    let ev = inspect_ok(&zip(&[
        ("raw/", b""),
        ("raw/7_c.txt", GET),
        ("raw/7_s.txt", OK),
        ("raw/7_m.xml", META),
    ]));
    assert_eq!(ev.capture.total_records, 1);
    let r = &ev.records[0];
    assert_eq!(
        r.location,
        Location::ArchiveMembers {
            members: vec![
                "raw/7_c.txt".into(),
                "raw/7_s.txt".into(),
                "raw/7_m.xml".into()
            ]
        }
    );
    assert_eq!(r.reported["request"]["method"], "GET");
    assert_eq!(r.reported["request"]["url"], "https://h.example/a");
    assert_eq!(r.reported["response"]["status"], 200);
    assert_eq!(r.reported["metadata"]["name"], "Session");
    assert_eq!(ev.capture.format, "saz");
    assert_eq!(ev.capture.records_pointer, "/sessions");
    assert_eq!(ev.capture.container["sessions"], Value::Null);
    assert_eq!(ev.capture.container["other_members"][0]["name"], "raw/");
}

#[test]
fn ordinals_follow_each_sessions_first_member_in_directory_order() {
    // SAZ-05
    let ev = inspect_ok(&zip(&[
        ("raw/10_c.txt", GET),
        ("raw/2_c.txt", GET),
        ("raw/10_s.txt", OK),
        ("raw/2_s.txt", OK),
    ]));
    let members: Vec<(u64, Location)> = ev
        .records
        .iter()
        .map(|r| (r.ordinal, r.location.clone()))
        .collect();
    assert_eq!(
        members,
        vec![
            (
                0,
                Location::ArchiveMembers {
                    members: vec!["raw/10_c.txt".into(), "raw/10_s.txt".into()]
                }
            ),
            (
                1,
                Location::ArchiveMembers {
                    members: vec!["raw/2_c.txt".into(), "raw/2_s.txt".into()]
                }
            ),
        ]
    );
}

#[test]
fn duplicate_headers_keep_their_recorded_order() {
    // SAZ-06
    let response = b"HTTP/1.1 204 No Content\r\nVia: a\r\nX-Empty:\r\nVia:  b \r\n\r\n";
    let ev = inspect_ok(&zip(&[("raw/1_c.txt", GET), ("raw/1_s.txt", response)]));
    let headers = &ev.records[0].reported["response"]["headers"];
    assert_eq!(
        headers,
        &json!([{"name": "Via", "value": "a"}, {"name": "X-Empty", "value": ""}, {"name": "Via", "value": "b"}])
    );
    assert_eq!(
        ev.records[0].reported["response"]["statusText"],
        "No Content"
    );
}

#[test]
fn bodies_are_exact_sidecar_bytes() {
    // SAZ-07
    let ev = inspect_ok(&zip(&[("raw/1_c.txt", GET), ("raw/1_s.txt", OK)]));
    let r = &ev.records[0];
    let body = field(r, "/response/body").unwrap();
    assert_eq!(body.pointer, "/sessions/0/response/body");
    assert_eq!(body.size, 5);
    assert_eq!(body.base64.as_deref(), Some("aGVsbG8="));
    assert_eq!(
        body.sha256.as_deref(),
        Some("2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")
    );
    assert!(body.establishes_body_bytes);
    assert_eq!(r.reported["response"]["body"], "hello");
}

#[test]
fn chunked_bodies_keep_their_framing() {
    // SAZ-08
    let response = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
    let ev = inspect_ok(&zip(&[("raw/1_c.txt", GET), ("raw/1_s.txt", response)]));
    let body = field(&ev.records[0], "/response/body").unwrap();
    assert_eq!(bytes_of(body), b"5\r\nhello\r\n0\r\n\r\n");
}

#[test]
fn compressed_bodies_stay_compressed_in_real_fixtures() {
    // SAZ-09: httpbin session 5 is `Content-Encoding: gzip`; the sidecar is
    // exactly the stored member's bytes after its head.
    let ev = inspect_web_network_capture(&saz_request(fixture("httpbin-test.saz"))).unwrap();
    let r = &ev.records[4];
    let headers = r.reported["response"]["headers"].as_array().unwrap();
    assert!(headers.iter().any(|h| h["name"]
        .as_str()
        .unwrap()
        .eq_ignore_ascii_case("content-encoding")
        && h["value"] == "gzip"));
    let body = bytes_of(field(r, "/response/body").unwrap());
    assert_eq!(&body[..2], &[0x1f, 0x8b]);
    assert_eq!(
        r.reported["response"]["body"],
        Value::Null,
        "gzip bytes have no UTF-8 display"
    );
    let raw = member_bytes(&fixture("httpbin-test.saz"), "raw/5_s.txt");
    let at = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    assert_eq!(body, raw[at..]);
}

fn saz_request(path: PathBuf) -> InspectRequest {
    let mut request = InspectRequest::har(path);
    request.format = "saz".into();
    request
}

fn member_bytes(path: &std::path::Path, name: &str) -> Vec<u8> {
    let mut archive = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut archive.by_name(name).unwrap(), &mut out).unwrap();
    out
}

#[test]
fn metadata_is_an_xml_node_tree() {
    // SAZ-10
    let ev = inspect_ok(&zip(&[("raw/7_c.txt", GET), ("raw/7_m.xml", META)]));
    assert_eq!(
        ev.records[0].reported["metadata"],
        json!({"name": "Session", "attributes": {"SID": "7"}, "children": [
            {"name": "SessionTimers", "attributes": {"ClientConnected": "2026-11-30T10:00:00Z"}, "children": []},
            {"name": "SessionFlags", "attributes": {}, "children": [
                {"name": "SessionFlag", "attributes": {"N": "x-a", "V": "1 & 2"}, "children": []}]},
            {"name": "Note", "attributes": {}, "children": [{"text": "a <b> c"}]}
        ]})
    );
}

#[test]
fn websocket_and_grpc_members_are_opaque_bytes() {
    // SAZ-11
    let frames: &[u8] = b"\x81\x05hello\xff\x00";
    let ev = inspect_ok(&zip(&[
        ("raw/7_c.txt", GET),
        ("raw/7_w.txt", frames),
        ("raw/7_g.txt", b"grpc"),
    ]));
    let r = &ev.records[0];
    assert_eq!(bytes_of(field(r, "/webSocketMessages").unwrap()), frames);
    assert_eq!(
        r.reported["webSocketMessages"],
        Value::Null,
        "not UTF-8: sidecar only"
    );
    assert_eq!(r.reported["grpcMessages"], "grpc");
    assert_eq!(bytes_of(field(r, "/grpcMessages").unwrap()), b"grpc");
}

#[test]
fn missing_members_are_null_and_empty_bodies_are_empty() {
    // SAZ-12, EVD-15
    let ev = inspect_ok(&zip(&[
        ("raw/7_c.txt", GET),
        ("raw/8_m.xml", META),
        (
            "raw/8_s.txt",
            b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
        ),
    ]));
    let missing = &ev.records[0];
    assert_eq!(missing.reported["response"], Value::Null);
    assert_eq!(missing.reported["metadata"], Value::Null);
    assert_eq!(missing.reported["webSocketMessages"], Value::Null);
    assert!(field(missing, "/response/body").is_none());
    let empty = &ev.records[1];
    assert_eq!(
        empty.reported["request"],
        Value::Null,
        "no _c.txt: request null"
    );
    assert_eq!(empty.reported["response"]["body"], "");
    let body = field(empty, "/response/body").unwrap();
    assert_eq!((body.size, body.base64.as_deref()), (0, Some("")));
}

#[test]
fn non_utf8_bytes_have_no_display_but_an_exact_sidecar() {
    // EVD-14
    let response = b"HTTP/1.1 200 OK\r\nX-Bin: caf\xe9\r\n\r\ncaf\xc3\xa9";
    let ev = inspect_ok(&zip(&[("raw/1_s.txt", response)]));
    let r = &ev.records[0];
    assert_eq!(r.reported["response"]["body"], "café");
    assert_eq!(r.reported["response"]["headers"][0]["value"], Value::Null);
    let header = field(r, "/response/headers/0/value").unwrap();
    assert_eq!(bytes_of(header), b"caf\xe9");
    assert!(!header.establishes_body_bytes);
}

#[test]
fn credential_headers_are_excluded_with_their_bytes() {
    // RED-01, RED-02, RED-14 (SAZ headers)
    let request = b"GET https://u:p@h.example/a HTTP/1.1\r\nAuthorization: Bearer t\r\nCookie: sid=1\r\nProxy-Authorization: \xff\xfe\r\nAccept: */*\r\n\r\n";
    let response = b"HTTP/1.1 200 OK\r\nSet-Cookie: a=b\r\n\r\n";
    let ev = inspect_ok(&zip(&[("raw/1_c.txt", request), ("raw/1_s.txt", response)]));
    let r = &ev.records[0];
    let headers = &r.reported["request"]["headers"];
    assert_eq!(headers[0]["value"], Value::Null);
    assert_eq!(headers[1]["value"], Value::Null);
    assert_eq!(headers[2]["value"], Value::Null);
    assert_eq!(headers[3]["value"], "*/*");
    assert_eq!(r.reported["response"]["headers"][0]["value"], Value::Null);
    assert_eq!(r.reported["request"]["url"], "https://h.example/a");
    assert!(
        field(r, "/request/headers/2/value").is_none(),
        "non-UTF-8 credential bytes are excluded too"
    );
    let pointers: Vec<(&str, RedactionScope)> = ev
        .redactions
        .iter()
        .map(|x| (x.pointer.as_str(), x.scope))
        .collect();
    for p in [
        "/sessions/0/request/headers/0/value",
        "/sessions/0/request/headers/1/value",
        "/sessions/0/request/headers/2/value",
        "/sessions/0/response/headers/0/value",
    ] {
        assert!(
            pointers.contains(&(p, RedactionScope::Value)),
            "{p}: {pointers:?}"
        );
    }
    assert!(pointers.contains(&("/sessions/0/request/url", RedactionScope::Userinfo)));
    assert!(ev
        .redactions
        .iter()
        .all(|x| x.reason == RedactionReason::TransportCredential && x.record_ordinal == Some(0)));
    let text = String::from_utf8(ev.to_json_bytes().unwrap()).unwrap();
    for secret in ["Bearer t", "sid=1", "a=b", "u:p@"] {
        assert!(!text.contains(secret), "{secret}");
    }
}

#[test]
fn declared_values_exclude_bytes_fields_and_member_coordinates() {
    // RED-07 over byte fields, ERR-01, ERR-02, ERR-03
    let response = b"HTTP/1.1 200 OK\r\n\r\npw=hunter2\xff";
    let bytes = zip(&[
        ("raw/sec7_c.txt", GET),
        ("raw/sec7_s.txt", response),
        ("raw/2_c.txt", GET),
    ]);
    let ev = inspect_bytes(&bytes, |r| {
        r.sensitive_values = vec!["hunter2".into(), "sec7".into()]
    })
    .unwrap();
    let r = &ev.records[0];
    assert_eq!(r.location, Location::Unknown);
    assert_eq!(r.ordinal, 0);
    assert!(ev.artifact.sha256.is_some());
    assert_eq!(r.reported["response"]["body"], Value::Null);
    assert!(field(r, "/response/body").is_none());
    assert!(ev
        .redactions
        .iter()
        .any(|x| x.pointer == "/sessions/0/response/body"
            && x.reason == RedactionReason::SensitiveValue));
    assert!(matches!(
        ev.records[1].location,
        Location::ArchiveMembers { .. }
    ));
    let text = String::from_utf8(ev.to_json_bytes().unwrap()).unwrap();
    assert!(
        !text.contains("hunter2") && !text.contains("sec7"),
        "{text}"
    );
    assert_eq!(ev.parameters.sensitive_value_count, 2);
}

#[test]
fn declared_paths_digests_and_format_names_follow_the_har_rules() {
    // RED-08, RED-11, RED-12, RED-20 on SAZ.
    let bytes = zip(&[("raw/1_c.txt", GET)]);
    let digest = crate::read::hex(&sha2::Sha256::digest(&bytes));
    let ev = inspect_bytes(&bytes, |r| {
        r.sensitive_values = vec!["s.saz".into(), "saz".into(), digest[..16].into()]
    })
    .unwrap();
    assert_eq!(ev.artifact.path, "");
    assert_eq!(
        (ev.artifact.sha256.as_deref(), ev.subject.as_deref()),
        (None, None)
    );
    assert_eq!(ev.artifact.size, bytes.len() as u64);
    assert_eq!(
        (ev.parameters.format.as_str(), ev.capture.format.as_str()),
        ("saz", "saz")
    );
    assert_eq!(ev.capture.decoder.name, "rea-saz");
    assert!(ev
        .explanations
        .iter()
        .any(|e| e.contains("artifact.path is empty")));
    // A failure naming a member keeps its code; the declared text is gone.
    let bad = zip(&[("raw/sec_c.txt", b"garbage")]);
    let e = inspect_bytes(&bad, |r| r.sensitive_values = vec!["sec".into()]).unwrap_err();
    assert_eq!(code(&e), ("saz_message_malformed", Category::Input));
    assert_eq!(e.details["member"], Value::Null);
    assert!(!e.to_json().to_string().contains("sec_"));
}

#[test]
fn declared_values_from_a_real_archive_appear_nowhere() {
    // RED-04..RED-07 and ERR-01..03 on the real httpbin archive: a header
    // value, a metadata attribute value, request-body text inside gzip-free
    // bytes and a member name.
    let mut request = saz_request(fixture("httpbin-test.saz"));
    let declared = ["gunicorn/19.9.0", "msedge:12140", "custtel", "raw/3_s.txt"];
    request.sensitive_values = declared.iter().map(|s| s.to_string()).collect();
    let ev = inspect_web_network_capture(&request).unwrap();
    let text = String::from_utf8(ev.to_json_bytes().unwrap()).unwrap();
    for value in declared {
        assert!(!text.contains(value), "{value} appears");
    }
    assert_eq!(ev.records[2].location, Location::Unknown);
    assert_eq!(ev.records[2].ordinal, 2);
    let post = &ev.records[5];
    assert_eq!(post.reported["request"]["body"], Value::Null);
    assert!(field(post, "/request/body").is_none());
    assert!(ev
        .redactions
        .iter()
        .all(|r| r.reason == RedactionReason::SensitiveValue));
    // Six `Server` values, six `x-processinfo` attributes, one request body.
    assert!(ev.redactions.len() > 6 + 6, "{}", ev.redactions.len());
}

#[test]
fn selection_keeps_caller_order_and_checks_range() {
    let bytes = zip(&[
        ("raw/1_c.txt", GET),
        ("raw/2_c.txt", GET),
        ("raw/3_c.txt", GET),
    ]);
    let ev = inspect_bytes(&bytes, |r| r.record_ordinals = Some(vec![2, 0])).unwrap();
    let ordinals: Vec<u64> = ev.records.iter().map(|r| r.ordinal).collect();
    assert_eq!(ordinals, vec![2, 0]);
    assert_eq!(
        (ev.capture.total_records, ev.capture.retained_records),
        (3, 2)
    );
    assert!(ev
        .limitations
        .iter()
        .any(|l| l.contains("2 of the capture's 3")));
    let e = inspect_bytes(&bytes, |r| r.record_ordinals = Some(vec![3])).unwrap_err();
    assert_eq!(e.code, "record_ordinal_out_of_range");
}

#[test]
fn every_session_is_validated_before_selection() {
    let bytes = zip(&[("raw/1_c.txt", GET), ("raw/2_c.txt", b"garbage")]);
    let e = inspect_bytes(&bytes, |r| r.record_ordinals = Some(vec![0])).unwrap_err();
    assert_eq!(code(&e), ("saz_message_malformed", Category::Input));
    assert_eq!(e.details["member"], "raw/2_c.txt");
}

// ---- hostile archives -------------------------------------------------

/// Offsets of every central-directory and local header in `bytes`.
fn headers(bytes: &[u8], signature: &[u8; 4]) -> Vec<usize> {
    bytes
        .windows(4)
        .enumerate()
        .filter(|(_, w)| w == signature)
        .map(|(i, _)| i)
        .collect()
}

fn put_u32(bytes: &mut [u8], at: usize, value: u32) {
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

/// Rewrites the declared (compressed, uncompressed) sizes of every member.
fn declare_sizes(bytes: &mut [u8], compressed: Option<u32>, size: u32) {
    for at in headers(bytes, b"PK\x01\x02") {
        if let Some(c) = compressed {
            put_u32(bytes, at + 20, c);
        }
        put_u32(bytes, at + 24, size);
    }
    for at in headers(bytes, b"PK\x03\x04") {
        if let Some(c) = compressed {
            put_u32(bytes, at + 18, c);
        }
        put_u32(bytes, at + 22, size);
    }
}

#[test]
fn a_zip_bomb_is_refused_by_the_compression_ratio_budget() {
    let zeros = vec![0u8; 4 << 20];
    let bytes = zip(&[("raw/1_s.txt", &zeros)]);
    assert!(bytes.len() < 64 << 10);
    let e = inspect_bytes(&bytes, |_| {}).unwrap_err();
    assert_eq!(
        code(&e),
        ("saz_compression_ratio_exceeded", Category::Input)
    );
    assert_eq!(e.details["budget_ratio"], archive::MAX_RATIO);
    assert_eq!(e.details["member"], "raw/1_s.txt");
    // Small members are never ratio-checked.
    let small = vec![0u8; 32 << 10];
    assert!(archive::read(&zip(&[("x.bin", &small)]), None).is_ok());
}

#[test]
fn members_sharing_stored_bytes_are_refused() {
    let mut w = ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    w.start_file("raw/1_s.txt", options).unwrap();
    w.write_all(OK).unwrap();
    w.shallow_copy_file("raw/1_s.txt", "raw/2_s.txt").unwrap();
    let bytes = w.finish().unwrap().into_inner();
    let e = archive::read(&bytes, None).unwrap_err();
    assert_eq!(code(&e), ("saz_member_overlap", Category::Input));
}

#[test]
fn a_member_inflating_past_its_declared_size_is_refused() {
    let zeros = vec![b'a'; 50_000];
    let mut bytes = zip(&[("raw/1_s.txt", &zeros)]);
    declare_sizes(&mut bytes, None, 10);
    let e = archive::read(&bytes, None).unwrap_err();
    assert_eq!(code(&e), ("saz_archive_invalid", Category::Input));
}

/// An archive with one member whose name the writer would not accept:
/// written under a same-length placeholder, then renamed in every header.
fn zip_named(name: &str, bytes: &[u8]) -> Vec<u8> {
    let placeholder = "Z".repeat(name.len());
    let mut out = zip(&[(placeholder.as_str(), bytes)]);
    let n = name.len();
    for at in 0..out.len() - n {
        if out[at..at + n] == *placeholder.as_bytes() {
            out[at..at + n].copy_from_slice(name.as_bytes());
        }
    }
    out
}

#[test]
fn unsafe_member_names_are_refused() {
    for name in [
        "../evil_c.txt",
        "raw/../../1_c.txt",
        "/abs/raw/1_c.txt",
        "raw\\1_c.txt",
        "C:/raw/1_c.txt",
        "raw/1\0_c.txt",
    ] {
        let e = archive::read(&zip_named(name, GET), None).unwrap_err();
        assert_eq!(
            code(&e),
            ("saz_member_name_unsafe", Category::Input),
            "{name}"
        );
        assert_eq!(e.details["member"], name);
    }
    assert!(archive::read(&zip_named("raw/1_c.txt", GET), None).is_ok());
    assert!(archive::is_safe_name("raw/1_c.txt"));
    assert!(!archive::is_safe_name("a/../b"));
}

#[test]
fn a_truncated_archive_is_invalid() {
    let bytes = zip(&[("raw/1_c.txt", GET), ("raw/1_s.txt", OK)]);
    for cut in [bytes.len() / 2, bytes.len() - 10, 3, 0] {
        let e = inspect_bytes(&bytes[..cut], |_| {}).unwrap_err();
        assert_eq!(
            code(&e),
            ("saz_archive_invalid", Category::Input),
            "cut at {cut}"
        );
    }
    // A corrupt stored member fails its CRC check.
    let mut stored = zip_with(&[("raw/1_s.txt", OK)], CompressionMethod::Stored);
    let at = stored.windows(5).position(|w| w == b"hello").unwrap();
    stored[at] = b'j';
    assert_eq!(
        archive::read(&stored, None).unwrap_err().code,
        "saz_archive_invalid"
    );
}

#[test]
fn over_budget_members_are_refused_before_inflating() {
    let mut big = zip_with(&[("raw/1_s.txt", OK)], CompressionMethod::Stored);
    declare_sizes(&mut big, Some(33 << 20), 33 << 20);
    let e = archive::read(&big, None).unwrap_err();
    assert_eq!(code(&e), ("saz_member_too_large", Category::Input));
    assert_eq!(e.details["budget_bytes"], archive::MAX_MEMBER_BYTES);

    let mut total = zip_with(
        &[("a", b"1"), ("b", b"2"), ("c", b"3"), ("d", b"4")],
        CompressionMethod::Stored,
    );
    declare_sizes(&mut total, Some(30 << 20), 30 << 20);
    let e = archive::read(&total, None).unwrap_err();
    assert_eq!(code(&e), ("saz_archive_too_large", Category::Input));
    assert_eq!(e.details["budget_bytes"], archive::MAX_TOTAL_BYTES);
}

#[test]
fn too_many_members_are_refused() {
    let mut w = ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(CompressionMethod::Stored);
    for i in 0..=archive::MAX_MEMBERS {
        w.add_directory(format!("{i:x}/"), options).unwrap();
    }
    let bytes = w.finish().unwrap().into_inner();
    let e = archive::read(&bytes, None).unwrap_err();
    assert_eq!(code(&e), ("saz_too_many_members", Category::Input));
    assert_eq!(e.details["budget_members"], archive::MAX_MEMBERS as u64);
}

#[test]
fn duplicate_member_names_are_refused() {
    let mut bytes = zip(&[("raw/1_c.txt", GET), ("raw/1_d.txt", GET)]);
    for at in (0..bytes.len() - 11).rev() {
        if &bytes[at..at + 11] == b"raw/1_d.txt" {
            bytes[at..at + 11].copy_from_slice(b"raw/1_c.txt");
        }
    }
    let e = archive::read(&bytes, None).unwrap_err();
    assert_eq!(code(&e), ("saz_member_duplicate", Category::Input));
    assert_eq!(e.details["distinct_names"], 1);
}

fn put_u16_in_headers(bytes: &mut [u8], central: usize, local: usize, value: u16) {
    for at in headers(bytes, b"PK\x01\x02") {
        bytes[at + central..at + central + 2].copy_from_slice(&value.to_le_bytes());
    }
    for at in headers(bytes, b"PK\x03\x04") {
        bytes[at + local..at + local + 2].copy_from_slice(&value.to_le_bytes());
    }
}

#[test]
fn encrypted_members_and_other_compression_methods_are_unsupported() {
    // General-purpose flag bit 0: the member is encrypted.
    let mut encrypted = zip(&[("raw/1_c.txt", GET)]);
    put_u16_in_headers(&mut encrypted, 8, 6, 1);
    let e = archive::read(&encrypted, None).unwrap_err();
    assert_eq!(code(&e), ("saz_archive_unsupported", Category::Unsupported));
    // Method 12 (bzip2) is not read.
    let mut bzip2 = zip(&[("raw/1_c.txt", GET)]);
    put_u16_in_headers(&mut bzip2, 10, 8, 12);
    let e = archive::read(&bzip2, None).unwrap_err();
    assert_eq!(code(&e), ("saz_archive_unsupported", Category::Unsupported));
    assert_eq!(e.details["member"], "raw/1_c.txt");
}

#[test]
fn malformed_messages_name_their_member_and_reason() {
    let cases: [&[u8]; 7] = [
        b"",
        b"GET /a HTTP/1.1\r\nHost: h\r\n",
        b"\r\nGET /a HTTP/1.1\r\n\r\n",
        b"GET /a\r\n\r\n",
        b"GET /a HTTP/1.1\r\nno colon\r\n\r\n",
        b"GET /a HTTP/1.1\r\n folded: x\r\n\r\n",
        b"\xff /a HTTP/1.1\r\n\r\n",
    ];
    for bytes in cases {
        let e = decode(&zip(&[("raw/1_c.txt", bytes)]), None).unwrap_err();
        assert_eq!(
            code(&e),
            ("saz_message_malformed", Category::Input),
            "{bytes:?}"
        );
        assert_eq!(e.details["member"], "raw/1_c.txt");
    }
    for status in [
        &b"HTTP/1.1 20 OK\r\n\r\n"[..],
        b"HTTP/1.1\r\n\r\n",
        b"HTTP/1.1 abc\r\n\r\n",
    ] {
        let e = decode(&zip(&[("raw/1_s.txt", status)]), None).unwrap_err();
        assert_eq!(e.code, "saz_message_malformed", "{status:?}");
    }
    let d = decode(&zip(&[("raw/1_s.txt", b"HTTP/1.1 200\n\nx")]), None).unwrap();
    assert_eq!(
        d.sessions[0].reported["response"]["statusText"],
        Value::Null,
        "no reason phrase: null"
    );
    assert_eq!(
        d.sessions[0].reported["response"]["body"], "x",
        "bare LF heads are read"
    );
}

#[test]
fn invalid_metadata_is_refused() {
    let deep = format!("{}{}", "<a>".repeat(31), "</a>".repeat(31));
    let cases: [(&[u8], &str); 7] = [
        (b"<Session><a></Session>", "saz_metadata_invalid"),
        (b"<Session>", "saz_metadata_invalid"),
        (b"", "saz_metadata_invalid"),
        (b"<a/><b/>", "saz_metadata_invalid"),
        (b"<a x=\"1\" x=\"2\"/>", "saz_metadata_invalid"),
        (b"<a>&custom;</a>", "saz_metadata_invalid"),
        (deep.as_bytes(), "nesting_too_deep"),
    ];
    for (bytes, expected) in cases {
        let e = decode(&zip(&[("raw/1_m.xml", bytes)]), None).unwrap_err();
        assert_eq!(
            code(&e),
            (expected, Category::Input),
            "{}",
            String::from_utf8_lossy(bytes)
        );
        assert_eq!(e.details["member"], "raw/1_m.xml");
    }
    let ok = format!("{}{}", "<a>".repeat(30), "</a>".repeat(30));
    assert!(decode(&zip(&[("raw/1_m.xml", ok.as_bytes())]), None).is_ok());
}

#[test]
fn an_expired_deadline_is_capture_timeout() {
    let bytes = zip(&[("raw/1_c.txt", GET)]);
    let e = decode(&bytes, Some(std::time::Instant::now())).unwrap_err();
    assert_eq!(code(&e), ("capture_timeout", Category::ResourceConstraint));
}

#[test]
fn an_archive_over_the_input_budget_is_refused_before_reading() {
    // BUDGET-01 on SAZ: the same stable read as HAR (a sparse file).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.saz");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(crate::read::INPUT_BUDGET_BYTES + 1).unwrap();
    let e = inspect_web_network_capture(&saz_request(path)).unwrap_err();
    assert_eq!(code(&e), ("capture_too_large", Category::Input));
    assert_eq!(e.details["budget_bytes"], crate::read::INPUT_BUDGET_BYTES);
}

#[test]
fn an_empty_archive_has_no_records() {
    let ev = inspect_ok(&zip(&[("_index.htm", b"<html/>")]));
    assert_eq!(ev.capture.total_records, 0);
    assert!(ev.records.is_empty());
}

#[test]
fn both_real_fixtures_decode_every_session() {
    let ev = inspect_web_network_capture(&saz_request(fixture("httpbin-test.saz"))).unwrap();
    assert_eq!(ev.capture.total_records, 6);
    let urls: Vec<&str> = ev
        .records
        .iter()
        .map(|r| r.reported["request"]["url"].as_str().unwrap())
        .collect();
    assert_eq!(urls[0], "https://httpbin.org/get");
    assert_eq!(urls[5], "https://httpbin.org/post");
    // NewCaseName1 stores `_c`, `_m`, `_s`: locations keep directory order.
    let ev = inspect_web_network_capture(&saz_request(fixture("NewCaseName1.saz"))).unwrap();
    assert_eq!(ev.capture.total_records, 3);
    assert_eq!(
        ev.records[1].location,
        Location::ArchiveMembers {
            members: vec![
                "raw/2_c.txt".into(),
                "raw/2_m.xml".into(),
                "raw/2_s.txt".into()
            ]
        }
    );
    assert_eq!(
        field(&ev.records[1], "/response/body").unwrap().size,
        144_183
    );
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let _ = decode(&bytes, None);
        }

        #[test]
        fn mutated_archives_never_panic(at in 0usize..4096, byte in any::<u8>(), cut in 0usize..64) {
            let mut bytes = zip_with(&[("raw/1_c.txt", GET), ("raw/1_s.txt", OK), ("raw/1_m.xml", META)], CompressionMethod::Stored);
            let at = at % bytes.len();
            bytes[at] = byte;
            let keep = bytes.len() - cut % 16;
            bytes.truncate(keep);
            let _ = decode(&bytes, None);
        }

        #[test]
        fn arbitrary_messages_never_panic(message in proptest::collection::vec(any::<u8>(), 0..256)) {
            let _ = message::parse(message::Side::Request, "m", message.clone());
            let _ = message::parse(message::Side::Response, "m", message.clone());
            let _ = metadata::parse("m", &message);
        }
    }
}
