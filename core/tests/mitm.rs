//! The native mitmproxy decoder against mitmdump's own reading of every
//! fixture (`tests/fixtures/mitm-reference/`, written by
//! `tests/python/mitm_reference.py` running inside mitmdump 12.2.3), the
//! Evidence goldens (`tests/golden/mitm/`, `REA_UPDATE_GOLDEN=1` rewrites
//! them) and the documented errors of hostile inputs.

use rea_core::evidence::{Evidence, Location};
use rea_core::inspect::{inspect_web_network_capture, InspectRequest};
use rea_core::mitm::tnetstring::{self, python_float_repr, Native};
use rea_core::read::hex;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Every native fixture: its reference name and its path from the repo root.
const FIXTURES: &[(&str, &str)] = &[
    ("formats-api-http1", "tests/fixtures/formats/api-http1.mitm"),
    ("formats-ws-h2", "tests/fixtures/formats/ws-h2.mitm"),
    (
        "formats-grpc-native",
        "tests/fixtures/formats/grpc-native.mitm",
    ),
    ("formats-grpc-web", "tests/fixtures/formats/grpc-web.mitm"),
    (
        "formats-protobuf-http1",
        "tests/fixtures/formats/protobuf-http1.mitm",
    ),
    ("kinto-dev-a", "tests/fixtures/kinto/dev-a.mitm"),
    ("kinto-dev-b", "tests/fixtures/kinto/dev-b.mitm"),
    ("wordpress-dev-a", "../shared/fixtures/wordpress/dev-a.mitm"),
    ("wordpress-dev-b", "../shared/fixtures/wordpress/dev-b.mitm"),
    ("mlflow-dev-a", "../shared/fixtures/mlflow/dev-a.mitm"),
    ("mlflow-dev-b", "../shared/fixtures/mlflow/dev-b.mitm"),
];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn reference(name: &str) -> Value {
    let path = repo().join(format!("tests/fixtures/mitm-reference/{name}.json"));
    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap()
}

fn digest(bytes: &[u8]) -> Value {
    json!([bytes.len(), hex(&Sha256::digest(bytes))])
}

/// The reference's typed form of one native value.
fn typed(v: &Native) -> Value {
    match v {
        Native::Null => Value::Null,
        Native::Bool(b) => Value::Bool(*b),
        Native::Int(t) => json!({"int": t}),
        Native::Float(f) => json!({"float": python_float_repr(*f)}),
        Native::Str(s) => json!({"str": s}),
        Native::Bytes(b) => json!({"bytes": digest(b)}),
        Native::List(items) => Value::Array(items.iter().map(typed).collect()),
        Native::Dict(pairs) => {
            json!({"dict": pairs.iter().map(|(k, v)| json!([typed(k), typed(v)])).collect::<Vec<_>>()})
        }
    }
}

fn inspect(path: &Path) -> Evidence {
    let mut request = InspectRequest::har(path);
    request.format = "mitmproxy".into();
    inspect_web_network_capture(&request).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_tnetstring_reader_agrees_with_mitmdump_on_every_fixture() {
    for (name, path) in FIXTURES {
        let reference = reference(name);
        let bytes = std::fs::read(repo().join(path)).unwrap();
        assert_eq!(reference["sha256"], hex(&Sha256::digest(&bytes)), "{name}");
        let items = tnetstring::read_all(&bytes).unwrap();
        let expected = reference["items"].as_array().unwrap();
        assert_eq!(items.len(), expected.len(), "{name}");
        assert!(!items.is_empty());
        for (item, want) in items.iter().zip(expected) {
            assert_eq!(
                item.offset as u64,
                want["offset"].as_u64().unwrap(),
                "{name}"
            );
            assert_eq!(
                item.length as u64,
                want["length"].as_u64().unwrap(),
                "{name}"
            );
            assert_eq!(
                typed(&item.value),
                want["value"],
                "{name} at {}",
                item.offset
            );
        }
    }
}

/// Walks mitmdump's typed value beside the reported record, checking every
/// leaf against the record's view and sidecars.
struct Walk<'a> {
    fields: HashMap<&'a str, (u64, Option<&'a str>)>,
    literals: HashMap<&'a str, &'a str>,
    redacted: Vec<&'a str>,
    leaves: usize,
}

impl Walk<'_> {
    fn check(&mut self, want: &Value, got: &Value, pointer: &str) {
        if self.redacted.contains(&pointer) {
            assert_eq!(got, &Value::Null, "{pointer}");
            return;
        }
        self.leaves += 1;
        match want {
            Value::Null | Value::Bool(_) => assert_eq!(got, want, "{pointer}"),
            Value::Array(items) => {
                let got = got.as_array().unwrap_or_else(|| panic!("{pointer}"));
                assert_eq!(got.len(), items.len(), "{pointer}");
                for (i, (w, g)) in items.iter().zip(got).enumerate() {
                    self.check(w, g, &format!("{pointer}/{i}"));
                }
            }
            Value::Object(o) => {
                if let Some(t) = o.get("str") {
                    assert_eq!(got, t, "{pointer}");
                } else if let Some(b) = o.get("bytes") {
                    let (size, sha) = self.fields[pointer];
                    assert_eq!(json!([size, sha]), *b, "{pointer}");
                    if let Some(text) = got.as_str() {
                        assert_eq!(digest(text.as_bytes()), *b, "{pointer}");
                    }
                } else if let Some(i) = o.get("int") {
                    let shown = got.as_number().map(|n| n.to_string());
                    let native = self.literals.get(pointer).copied().map(str::to_string);
                    assert_eq!(
                        native.or(shown).as_ref(),
                        i.as_str().map(str::to_string).as_ref(),
                        "{pointer}"
                    );
                } else if let Some(f) = o.get("float") {
                    let shown = got.as_f64().map(python_float_repr);
                    let native = self.literals.get(pointer).copied().map(str::to_string);
                    assert_eq!(
                        native.or(shown).as_ref(),
                        f.as_str().map(str::to_string).as_ref(),
                        "{pointer}"
                    );
                } else {
                    let got = got.as_object().unwrap_or_else(|| panic!("{pointer}"));
                    let pairs = o["dict"].as_array().unwrap();
                    let names: Vec<&str> = pairs
                        .iter()
                        .map(|p| p[0]["str"].as_str().unwrap())
                        .collect();
                    assert_eq!(
                        got.keys().map(String::as_str).collect::<Vec<_>>(),
                        names,
                        "{pointer}"
                    );
                    for p in pairs {
                        let name = p[0]["str"].as_str().unwrap();
                        self.check(&p[1], &got[name], &format!("{pointer}/{name}"));
                    }
                }
            }
            _ => panic!("unexpected reference value at {pointer}"),
        }
    }
}

#[test]
fn evidence_records_report_exactly_what_mitmdump_read() {
    for (name, path) in FIXTURES {
        let reference = reference(name);
        let evidence = inspect(&repo().join(path));
        assert_eq!(evidence.capture.format, "mitmproxy");
        assert_eq!(evidence.basis, "upstream-assembled-messages");
        let items = reference["items"].as_array().unwrap();
        assert_eq!(evidence.records.len(), items.len(), "{name}");
        for (record, want) in evidence.records.iter().zip(items) {
            assert_eq!(
                record.location,
                Location::ByteRange {
                    offset: want["offset"].as_u64().unwrap(),
                    length: want["length"].as_u64().unwrap()
                }
            );
            let mut walk = Walk {
                fields: record
                    .binary_fields
                    .iter()
                    .map(|f| (f.pointer.as_str(), (f.size, f.sha256.as_deref())))
                    .collect(),
                literals: record
                    .numeric_literals
                    .iter()
                    .map(|l| (l.pointer.as_str(), l.lexeme.as_str()))
                    .collect(),
                redacted: evidence
                    .redactions
                    .iter()
                    .filter(|r| r.record_ordinal == Some(record.ordinal))
                    .map(|r| r.pointer.as_str())
                    .collect(),
                leaves: 0,
            };
            let base = format!("/{}", record.ordinal);
            walk.check(&want["value"], &record.reported, &base);
            assert!(walk.leaves > 50, "{name}: {} leaves", walk.leaves);
            // Every sidecar belongs to a native byte field mitmdump read.
            assert_eq!(
                record.binary_fields.len(),
                count_bytes(&want["value"]) - walk.redacted.len(),
                "{name}"
            );
        }
    }
}

fn count_bytes(v: &Value) -> usize {
    match v {
        Value::Array(items) => items.iter().map(count_bytes).sum(),
        Value::Object(o) if o.contains_key("bytes") => 1,
        Value::Object(o) => o.get("dict").map_or(0, count_bytes),
        _ => 0,
    }
}

#[test]
fn evidence_goldens_for_every_fixture() {
    let update = std::env::var_os("REA_UPDATE_GOLDEN").is_some_and(|v| v == "1");
    let mut mismatches = Vec::new();
    for (name, path) in FIXTURES {
        let mut evidence = inspect(&repo().join(path));
        evidence.artifact.path = path.to_string();
        let text = serde_json::to_string_pretty(&evidence).unwrap() + "\n";
        let golden = repo().join(format!("tests/golden/mitm/{name}.evidence.json"));
        let actual = golden.with_extension("actual.json");
        if update {
            std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
            std::fs::write(&golden, &text).unwrap();
            continue;
        }
        match std::fs::read_to_string(&golden) {
            Ok(want) if want == text => {
                let _ = std::fs::remove_file(&actual);
            }
            _ => {
                std::fs::write(&actual, &text).unwrap();
                mismatches.push(name);
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "golden mismatch (see *.actual.json; regenerate with REA_UPDATE_GOLDEN=1): {mismatches:?}"
    );
}

#[test]
fn decoding_twice_gives_byte_identical_evidence() {
    let path = repo().join("tests/fixtures/formats/ws-h2.mitm");
    assert_eq!(
        inspect(&path).to_json_bytes().unwrap(),
        inspect(&path).to_json_bytes().unwrap()
    );
}

/// The HAR export mitmproxy wrote in the same run as each native fixture.
fn har_of(path: &str) -> String {
    path.replace(".mitm", ".har")
}

/// The entry fields the derivation reads, from one HAR-shaped entry.
fn served_facts(entry: &Value) -> Value {
    let pick = |v: &Value, keys: &[&str]| {
        let mut out = serde_json::Map::new();
        for k in keys {
            if let Some(x) = v.get(*k) {
                out.insert(k.to_string(), x.clone());
            }
        }
        Value::Object(out)
    };
    json!({
        "startedDateTime": entry["startedDateTime"],
        "time": entry["time"],
        "serverIPAddress": entry.get("serverIPAddress"),
        "_webSocketMessages": entry.get("_webSocketMessages"),
        "request": pick(&entry["request"], &["method", "url", "httpVersion", "headers", "queryString", "bodySize"]),
        "postData": entry["request"].get("postData").map(|p| pick(p, &["mimeType", "text", "params"])),
        "response": pick(&entry["response"], &["status", "statusText", "httpVersion", "headers", "redirectURL", "bodySize"]),
        "content": pick(&entry["response"]["content"], &["size", "compression", "mimeType", "text", "encoding"]),
    })
}

#[test]
fn served_records_match_the_har_mitmproxy_wrote_apart_from_its_losses() {
    use base64::Engine;
    let mut report = Vec::new();
    let mut lossy_bodies = 0;
    for (name, path) in FIXTURES {
        let reference = reference(name);
        let native = rea_core::mitm::http::http_evidence(&repo().join(path)).unwrap();
        assert_eq!(native.capture.format, "har");
        let mut request = InspectRequest::har(repo().join(har_of(path)));
        request.format = "har".into();
        let har = inspect_web_network_capture(&request).unwrap();
        assert_eq!(native.records.len(), har.records.len(), "{name}");
        for (n, h) in native.records.iter().zip(&har.records) {
            let (a, b) = (served_facts(&n.reported), served_facts(&h.reported));
            for key in [
                "startedDateTime",
                "time",
                "serverIPAddress",
                "_webSocketMessages",
                "request",
                "postData",
                "response",
                "content",
            ] {
                if a[key] == b[key] {
                    continue;
                }
                // What the HAR lost: a request body that is not UTF-8, which
                // SaveHar writes as lossy text. The record keeps the exact bytes
                // mitmdump read.
                let post = &n.reported["request"]["postData"];
                if key == "postData" && post["encoding"] == "base64" {
                    let body = base64::engine::general_purpose::STANDARD
                        .decode(post["text"].as_str().unwrap())
                        .unwrap();
                    assert!(std::str::from_utf8(&body).is_err());
                    assert_eq!(
                        digest(&body),
                        reference["http"][n.ordinal as usize]["request"]["content"],
                        "{name} #{}",
                        n.ordinal
                    );
                    assert_eq!(a["postData"]["mimeType"], b["postData"]["mimeType"]);
                    lossy_bodies += 1;
                    continue;
                }
                report.push(format!(
                    "{name} #{}: {key}\n  mitm {}\n  har  {}",
                    n.ordinal, a[key], b[key]
                ));
            }
        }
    }
    assert!(
        report.is_empty(),
        "{} differences:\n{}",
        report.len(),
        report.join("\n")
    );
    // The upload, the multipart file and two gRPC request streams.
    assert_eq!(lossy_bodies, 4);
}

#[test]
fn native_evidence_is_valid_under_the_evidence_schema() {
    let text = std::fs::read_to_string(repo().join("manifests/evidence.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap();
    for (name, path) in FIXTURES {
        for doc in [
            serde_json::to_value(inspect(&repo().join(path))).unwrap(),
            serde_json::to_value(rea_core::mitm::http::http_evidence(&repo().join(path)).unwrap())
                .unwrap(),
        ] {
            let errors: Vec<String> = validator
                .iter_errors(&doc)
                .take(5)
                .map(|e| format!("{e} at {}", e.instance_path()))
                .collect();
            assert!(errors.is_empty(), "{name}: {errors:?}");
        }
    }
    // Non-finite native floats keep their representation in a valid sidecar.
    let mut doc = serde_json::to_value(inspect(&repo().join(FIXTURES[4].1))).unwrap();
    for lexeme in ["nan", "-inf", "1e-05", "18446744073709551616"] {
        doc["records"][0]["numeric_literals"] =
            json!([{"pointer": "/0/x", "lexeme": lexeme, "safe": false}]);
        assert!(validator.is_valid(&doc), "{lexeme}");
    }
}

fn field<'a>(
    record: &'a rea_core::evidence::Record,
    pointer: &str,
) -> &'a rea_core::evidence::BinaryField {
    record
        .binary_fields
        .iter()
        .find(|f| f.pointer == pointer)
        .unwrap_or_else(|| panic!("no sidecar at {pointer}"))
}

#[test]
fn http1_http2_websocket_and_grpc_flows_keep_their_native_facts() {
    // WebSocket over HTTP/1.1: nine messages, the binary ones as exact bytes.
    let ws = inspect(&repo().join("tests/fixtures/formats/ws-h2.mitm"));
    let flow = &ws.records[0];
    assert_eq!(flow.reported["type"], "http");
    assert_eq!(flow.reported["version"], 21);
    let messages = flow.reported["websocket"]["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 9);
    assert_eq!(
        messages[0],
        json!([1, true, "hello", 1796059295.0204866, false, false])
    );
    assert_eq!(messages[6][2], Value::Null);
    let binary = field(flow, "/0/websocket/messages/6/2");
    assert_eq!(binary.base64.as_deref(), Some("AAECYmluYXJ5/w=="));
    assert_eq!(flow.reported["websocket"]["close_reason"], "bye");
    // HTTP/2 client leg, HTTP/1.1 upstream leg, as mitmproxy recorded them.
    assert_eq!(
        ws.records[1].reported["request"]["http_version"],
        "HTTP/2.0"
    );
    assert_eq!(
        ws.records[1].reported["response"]["http_version"],
        "HTTP/1.1"
    );
    // Raw ids are kept, never invented.
    assert_eq!(flow.reported["id"], "7f9a5b2f-ed88-436e-ba92-ad29f6ab7679");
    assert_eq!(flow.reported["client_conn"]["timestamp_end"], Value::Null);

    // gRPC: HTTP/2 trailers (absent from the HAR), binary metadata, framed bodies.
    let grpc = inspect(&repo().join("tests/fixtures/formats/grpc-native.mitm"));
    let not_found = &grpc.records[1];
    let trailers = &not_found.reported["response"]["trailers"];
    assert_eq!(trailers[0], json!(["grpc-status", "5"]));
    assert_eq!(
        trailers[1][1],
        "product 'SKU-404' not found %E2%80%94 check SKU"
    );
    // A native empty response content stays an empty byte field.
    assert_eq!(not_found.reported["response"]["content"], "");
    assert_eq!(field(not_found, "/1/response/content").size, 0);
    // The compressed request stream of flow 4 has no UTF-8 view, only its bytes.
    let compressed = &grpc.records[4];
    assert_eq!(compressed.reported["request"]["content"], Value::Null);
    let body = field(compressed, "/4/request/content");
    assert!(body.base64.as_deref().unwrap().starts_with("AQAAACo"));
    // The authorization metadata is a transport credential.
    assert_eq!(
        grpc.records[0].reported["request"]["headers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h[0] == "authorization")
            .unwrap()[1],
        Value::Null
    );

    // HTTP/1.1: HEAD without a body and a 204 keep empty content; the
    // gzip response is reported as the raw encoded bytes mitmproxy stored.
    let api = inspect(&repo().join("tests/fixtures/formats/api-http1.mitm"));
    assert_eq!(api.records[7].reported["request"]["method"], "HEAD");
    let gzip = &api.records[13];
    assert_eq!(gzip.reported["response"]["content"], Value::Null);
    assert_eq!(field(gzip, "/13/response/content").size, 167);
    assert_eq!(api.capture.total_records, 24);
}
