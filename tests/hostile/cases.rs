//! The hostile and malformed inputs of `tests/inspect.rs`: one table, each
//! case with its exact error code or redaction, built here from a valid
//! HAR 1.2 entry (no hand-written "real" captures).

use super::{evidence, failure};
use serde_json::{json, Value};

const RAW: &str = "\"@RAW@\"";

/// A valid HAR 1.2 entry.
pub(super) fn entry() -> Value {
    json!({
        "startedDateTime": "2026-01-01T00:00:00.000Z",
        "time": 1.5,
        "request": {
            "method": "POST", "url": "http://api.example/items?sort=asc", "httpVersion": "HTTP/1.1",
            "cookies": [], "headers": [{"name": "Accept", "value": "application/json"}],
            "queryString": [{"name": "sort", "value": "asc"}], "headersSize": -1, "bodySize": 2,
            "postData": {"mimeType": "application/json", "text": "{}"}
        },
        "response": {
            "status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
            "headers": [{"name": "Content-Type", "value": "text/plain"}],
            "content": {"size": 2, "mimeType": "text/plain", "text": "aGk=", "encoding": "base64"},
            "redirectURL": "", "headersSize": -1, "bodySize": 2
        },
        "cache": {},
        "timings": {"send": 0, "wait": 1, "receive": 0}
    })
}

pub(super) fn har(entries: Vec<Value>) -> Value {
    json!({"log": {"version": "1.2", "creator": {"name": "rea-tests", "version": "1"}, "entries": entries}})
}

/// A capture text with one `"@RAW@"` placeholder replaced by raw JSON text.
fn spliced(doc: &Value, raw: &str) -> Vec<u8> {
    let text = doc.to_string();
    assert!(text.contains(RAW));
    text.replacen(RAW, raw, 1).into_bytes()
}

fn with_extension(raw: &str) -> Vec<u8> {
    let mut e = entry();
    e["_x"] = json!("@RAW@");
    spliced(&har(vec![entry(), e]), raw)
}

fn edited(edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut doc = har(vec![entry(), entry(), entry()]);
    edit(&mut doc);
    doc.to_string().into_bytes()
}

enum Input {
    Bytes(Vec<u8>),
    /// A file of this many zero bytes (sparse).
    Sparse(u64),
    Symlink,
    Directory,
    Missing,
}

enum Expect {
    Error(&'static str, &'static str),
    Evidence(fn(&Value)),
}

struct Case {
    name: &'static str,
    input: Input,
    args: &'static [&'static str],
    expect: Expect,
}

pub(super) fn record(doc: &Value, ordinal: u64) -> &Value {
    doc["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ordinal"] == ordinal)
        .expect("record")
}

fn redaction_at(doc: &Value, pointer: &str) -> Value {
    doc["redactions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["pointer"] == pointer)
        .cloned()
        .unwrap_or(Value::Null)
}

fn cases() -> Vec<Case> {
    use Expect::{Error, Evidence};
    use Input::*;
    vec![
        Case {
            name: "duplicate keys",
            input: Bytes(with_extension(r#"{"a":1,"a":2}"#)),
            args: &[],
            expect: Error("duplicate_key", "input"),
        },
        Case {
            name: "duplicate keys with equal values",
            input: Bytes(with_extension(r#"{"a":1,"a":1}"#)),
            args: &[],
            expect: Error("duplicate_key", "input"),
        },
        Case {
            name: "escaped duplicate keys",
            input: Bytes(with_extension(r#"{"ab":1,"a\u0062":2}"#)),
            args: &[],
            expect: Error("duplicate_key", "input"),
        },
        Case {
            name: "65-level nesting",
            input: Bytes(with_extension(&format!(
                "{}{}",
                "[".repeat(61),
                "]".repeat(61)
            ))),
            args: &[],
            expect: Error("nesting_too_deep", "input"),
        },
        Case {
            name: "64-level nesting is fine",
            input: Bytes(with_extension(&format!(
                "{}{}",
                "[".repeat(60),
                "]".repeat(60)
            ))),
            args: &[],
            expect: Evidence(|_| {}),
        },
        Case {
            name: "over 32 MiB",
            input: Sparse(33_554_433),
            args: &[],
            expect: Error("capture_too_large", "input"),
        },
        Case {
            name: "over 32 MiB with a long timeout and a selection",
            input: Sparse(40_000_000),
            args: &["--capture_timeout_ms", "600000", "--record", "0"],
            expect: Error("capture_too_large", "input"),
        },
        Case {
            name: "truncated JSON",
            input: Bytes({
                let mut b = har(vec![entry()]).to_string().into_bytes();
                b.truncate(b.len() - 7);
                b
            }),
            args: &[],
            expect: Error("invalid_json", "input"),
        },
        Case {
            name: "invalid UTF-8",
            input: Bytes(
                with_extension("\"\u{1}\"")
                    .into_iter()
                    .map(|b| if b == 1 { 0xff } else { b })
                    .collect(),
            ),
            args: &[],
            expect: Error("invalid_utf8", "input"),
        },
        Case {
            name: "non-canonical base64",
            input: Bytes(edited(|d| {
                d["log"]["entries"][1]["response"]["content"]["text"] = json!("aGl=")
            })),
            args: &[],
            expect: Error("har_validation_failed", "input"),
        },
        Case {
            name: "unsafe integer in a standard field",
            input: Bytes(spliced(
                &edited_value(|d| d["log"]["entries"][1]["request"]["bodySize"] = json!("@RAW@")),
                "9007199254740993",
            )),
            args: &[],
            expect: Error("har_validation_failed", "input"),
        },
        Case {
            name: "unsafe integer in an extension",
            input: Bytes(with_extension("9007199254740993")),
            args: &[],
            expect: Evidence(|doc| {
                let r = record(doc, 1);
                assert_eq!(r["reported"]["_x"], Value::Null);
                assert!(r["numeric_literals"].as_array().unwrap().contains(&json!({"pointer": "/log/entries/1/_x", "lexeme": "9007199254740993", "safe": false})));
            }),
        },
        Case {
            name: "number lexemes kept",
            input: Bytes(spliced(
                &edited_value(|d| d["log"]["entries"][0]["time"] = json!("@RAW@")),
                "12.50",
            )),
            args: &[],
            expect: Evidence(|doc| {
                assert_eq!(
                    record(doc, 0)["numeric_literals"],
                    json!([{"pointer": "/log/entries/0/time", "lexeme": "12.50", "safe": true}])
                );
                assert_eq!(record(doc, 0)["reported"]["time"], json!(12.5));
            }),
        },
        Case {
            name: "wrong HAR version",
            input: Bytes(edited(|d| d["log"]["version"] = json!("1.3"))),
            args: &[],
            expect: Error("har_version_unsupported", "unsupported"),
        },
        Case {
            name: "HAR 1.1 is read under the 1.2 schemas",
            input: Bytes(edited(|d| d["log"]["version"] = json!("1.1"))),
            args: &[],
            expect: Evidence(|doc| {
                assert_eq!(doc["capture"]["container"]["log"]["version"], "1.1");
                assert_eq!(doc["capture"]["retained_records"], 3);
            }),
        },
        Case {
            name: "a producer profile does not let through another producer's quirk",
            input: Bytes(edited(|d| {
                d["log"]["creator"] = json!({"name": "Charles Proxy", "version": "4.6.3"});
                d["log"]["entries"][1]["request"]["headersSize"] = Value::Null;
            })),
            args: &[],
            expect: Error("har_validation_failed", "input"),
        },
        Case {
            name: "an unsafe number is not an unknown size, even for Firefox",
            input: Bytes({
                let mut doc = har(vec![entry()]);
                doc["log"]["creator"] = json!({"name": "Firefox", "version": "111.0.1"});
                doc["log"]["entries"][0]["response"]["headersSize"] = json!("@RAW@");
                spliced(&doc, "9007199254740993")
            }),
            args: &[],
            expect: Error("har_validation_failed", "input"),
        },
        Case {
            name: "a mitmproxy flow file given as HAR is named",
            input: Bytes(b"14:4:type;4:http;}".to_vec()),
            args: &[],
            expect: Error("capture_format_mismatch", "input"),
        },
        Case {
            name: "missing request in an unselected entry",
            input: Bytes(edited(|d| {
                d["log"]["entries"][1]
                    .as_object_mut()
                    .unwrap()
                    .remove("request");
            })),
            args: &["--record", "0"],
            expect: Error("har_validation_failed", "input"),
        },
        Case {
            name: "missing log.creator",
            input: Bytes(edited(|d| {
                d["log"].as_object_mut().unwrap().remove("creator");
            })),
            args: &[],
            expect: Error("har_validation_failed", "input"),
        },
        Case {
            name: "symlink",
            input: Symlink,
            args: &[],
            expect: Error("capture_is_symlink", "input"),
        },
        Case {
            name: "missing file",
            input: Missing,
            args: &[],
            expect: Error("capture_not_found", "input"),
        },
        Case {
            name: "directory",
            input: Directory,
            args: &[],
            expect: Error("capture_not_regular_file", "input"),
        },
        Case {
            name: "__proto__ is an ordinary member",
            input: Bytes(with_extension(r#"{"__proto__":{"polluted":true}}"#)),
            args: &[],
            expect: Evidence(|doc| {
                assert_eq!(
                    record(doc, 1)["reported"]["_x"],
                    json!({"__proto__": {"polluted": true}})
                );
                assert!(record(doc, 0)["reported"].get("polluted").is_none());
            }),
        },
        Case {
            name: "credential in a URL",
            input: Bytes(edited(|d| {
                d["log"]["entries"][2]["request"]["url"] = json!("https://u:p@h.example/a?b=1")
            })),
            args: &[],
            expect: Evidence(|doc| {
                assert_eq!(
                    record(doc, 2)["reported"]["request"]["url"],
                    "https://h.example/a?b=1"
                );
                assert_eq!(
                    redaction_at(doc, "/log/entries/2/request/url"),
                    json!({"pointer": "/log/entries/2/request/url", "record_ordinal": 2, "scope": "userinfo", "reason": "transport-credential"})
                );
            }),
        },
        Case {
            name: "credential URL without a safe span",
            input: Bytes(edited(|d| {
                d["log"]["entries"][0]["request"]["url"] = json!("http:///u:p@h.example/x")
            })),
            args: &[],
            expect: Evidence(|doc| {
                assert_eq!(record(doc, 0)["reported"]["request"]["url"], Value::Null);
                assert_eq!(
                    redaction_at(doc, "/log/entries/0/request/url")["scope"],
                    "field"
                );
            }),
        },
        Case {
            name: "authentication headers and cookies",
            input: Bytes(edited(|d| {
                let req = &mut d["log"]["entries"][1]["request"];
                req["headers"] = json!([{"name": "authorization", "value": "Bearer t"}, {"name": "Cookie", "value": "sid=1"}, {"name": "X-Token", "value": "kept"}]);
                req["cookies"] = json!([{"name": "sid", "value": "1"}]);
                d["log"]["entries"][1]["response"]["headers"] =
                    json!([{"name": "Set-Cookie", "value": "sid=2"}]);
            })),
            args: &[],
            expect: Evidence(|doc| {
                let r = &record(doc, 1)["reported"];
                assert_eq!(
                    r["request"]["headers"],
                    json!([{"name": "authorization", "value": null}, {"name": "Cookie", "value": null}, {"name": "X-Token", "value": "kept"}])
                );
                assert_eq!(r["request"]["cookies"][0]["value"], Value::Null);
                assert_eq!(r["response"]["headers"][0]["value"], Value::Null);
                assert_eq!(
                    redaction_at(doc, "/log/entries/1/request/cookies/0/value")["reason"],
                    "transport-credential"
                );
            }),
        },
        Case {
            name: "declared value in a header",
            input: Bytes(edited(|d| {
                d["log"]["entries"][0]["request"]["headers"][0]["value"] = json!("x-hunter2-y")
            })),
            args: &["--sensitive-value", "hunter2"],
            expect: Evidence(|doc| {
                assert_eq!(
                    record(doc, 0)["reported"]["request"]["headers"][0]["value"],
                    Value::Null
                );
                assert_eq!(
                    redaction_at(doc, "/log/entries/0/request/headers/0/value"),
                    json!({"pointer": "/log/entries/0/request/headers/0/value", "record_ordinal": 0, "scope": "value", "reason": "sensitive-value"})
                );
                assert_eq!(doc["parameters"]["sensitive_value_count"], 1);
            }),
        },
        Case {
            name: "declared value in request and base64 response bodies",
            input: Bytes(edited(|d| {
                d["log"]["entries"][1]["request"]["postData"]["text"] = json!("pw=hunter2");
                d["log"]["entries"][2]["response"]["content"]["text"] = json!("cHc9aHVudGVyMg==");
            })),
            args: &["--sensitive-value", "hunter2"],
            expect: Evidence(|doc| {
                assert_eq!(
                    record(doc, 1)["reported"]["request"]["postData"]["text"],
                    Value::Null
                );
                assert_eq!(
                    record(doc, 2)["reported"]["response"]["content"]["text"],
                    Value::Null
                );
                let fields = record(doc, 2)["binary_fields"].as_array().unwrap().clone();
                assert!(
                    fields
                        .iter()
                        .all(|f| f["pointer"] != "/log/entries/2/response/content/text"),
                    "no digest of a redacted body"
                );
                assert_eq!(record(doc, 0)["binary_fields"][1]["size"], 2);
            }),
        },
        Case {
            name: "declared property name",
            input: Bytes(edited(|d| {
                d["log"]["entries"][0]["_meta"] = json!({"X-Internal-Key": "v", "other": 1})
            })),
            args: &["--sensitive-value", "X-Internal-Key"],
            expect: Evidence(|doc| {
                assert_eq!(record(doc, 0)["reported"]["_meta"], json!({"other": 1}));
                assert_eq!(
                    redaction_at(doc, "/log/entries/0/_meta"),
                    json!({"pointer": "/log/entries/0/_meta", "record_ordinal": 0, "scope": "property-name", "reason": "sensitive-value"})
                );
            }),
        },
        Case {
            name: "duplicate ordinals",
            input: Bytes(edited(|_| {})),
            args: &["--record", "1", "--record", "1"],
            expect: Error("record_ordinal_duplicate", "input"),
        },
        Case {
            name: "out-of-range ordinal",
            input: Bytes(edited(|_| {})),
            args: &["--record", "3"],
            expect: Error("record_ordinal_out_of_range", "input"),
        },
        Case {
            name: "negative ordinal",
            input: Bytes(edited(|_| {})),
            args: &["--record", "-1"],
            expect: Error("invalid_record_ordinal", "input"),
        },
        Case {
            name: "summary without an output file",
            input: Bytes(edited(|_| {})),
            args: &["--detail", "summary"],
            expect: Error("evidence_output_required", "input"),
        },
        Case {
            name: "zero timeout",
            input: Bytes(edited(|_| {})),
            args: &["--capture_timeout_ms", "0"],
            expect: Error("invalid_argument", "input"),
        },
        Case {
            name: "unsafe number in a pages timing",
            input: Bytes(spliced(
                &edited_value(
                    |d| d["log"]["pages"] = json!([{"startedDateTime": "2026-01-01T00:00:00Z", "id": "p", "title": "t", "pageTimings": {"onLoad": "@RAW@"}}]),
                ),
                "1e400",
            )),
            args: &[],
            expect: Error("har_validation_failed", "input"),
        },
    ]
}

fn edited_value(edit: impl FnOnce(&mut Value)) -> Value {
    let mut doc = har(vec![entry(), entry(), entry()]);
    edit(&mut doc);
    doc
}

#[test]
fn hostile_inputs_answer_exactly() {
    let cases = cases();
    assert!(cases.len() >= 20);
    let dir = tempfile::tempdir().unwrap();
    for (i, case) in cases.into_iter().enumerate() {
        let path = dir.path().join(format!("case-{i}.har"));
        match case.input {
            Input::Bytes(bytes) => std::fs::write(&path, bytes).unwrap(),
            Input::Sparse(len) => std::fs::File::create(&path).unwrap().set_len(len).unwrap(),
            Input::Symlink => {
                let target = dir.path().join(format!("target-{i}.har"));
                std::fs::write(&target, har(vec![entry()]).to_string()).unwrap();
                std::os::unix::fs::symlink(&target, &path).unwrap();
            }
            Input::Directory => std::fs::create_dir(&path).unwrap(),
            Input::Missing => {}
        }
        let mut args = vec![path.to_str().unwrap(), "har", "--json"];
        args.extend_from_slice(case.args);
        match case.expect {
            Expect::Error(code, category) => {
                let (err, exit) = failure(&args);
                assert_eq!(
                    (err["code"].as_str(), err["category"].as_str()),
                    (Some(code), Some(category)),
                    "{}: {err}",
                    case.name
                );
                assert_ne!(exit, 0);
                if code == "capture_too_large" {
                    assert_eq!(err["details"]["budget_bytes"], 33_554_432);
                    assert_eq!(err["details"]["capture_path"], path.to_str().unwrap());
                }
            }
            Expect::Evidence(check) => {
                let doc = evidence(&args);
                check(&doc);
            }
        }
    }
}
