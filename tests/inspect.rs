//! End-to-end tests of `rea inspect-web-network-capture`: every real
//! fixture decodes into schema-valid Evidence, and a table of hostile or
//! malformed inputs each answers with its exact error code or redaction.

use serde_json::{json, Value};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `rea inspect-web-network-capture ARGS...`.
fn rea(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rea"))
        .arg("inspect-web-network-capture")
        .args(args)
        .output()
        .expect("run rea")
}

fn schema(name: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(repo().join("manifests").join(name)).unwrap();
    jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap()
}

fn assert_valid(validator: &jsonschema::Validator, doc: &Value, what: &str) {
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .take(5)
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:?}");
}

/// Runs an inspection that must succeed and returns its Evidence.
fn evidence(args: &[&str]) -> Value {
    let out = rea(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).expect("evidence JSON");
    assert_valid(&schema("evidence.schema.json"), &doc, "evidence");
    doc
}

/// Runs an inspection that must fail and returns its JSON error.
fn failure(args: &[&str]) -> (Value, i32) {
    let out = rea(args);
    assert!(!out.status.success(), "{args:?} unexpectedly succeeded");
    assert!(out.stdout.is_empty(), "a failure prints nothing on stdout");
    let text = String::from_utf8_lossy(&out.stderr);
    let err: Value = serde_json::from_str(text.trim())
        .unwrap_or_else(|_| panic!("one JSON error on stderr: {text}"));
    assert_valid(&schema("error.schema.json"), &err, "error");
    (err, out.status.code().unwrap_or(-1))
}

#[path = "hostile/cases.rs"]
mod cases;

use cases::{entry, har, record};

fn har_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            har_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "har") {
            out.push(path);
        }
    }
}

#[test]
fn every_fixture_decodes_with_all_its_records() {
    let mut files = Vec::new();
    har_files(&repo().join("tests/fixtures"), &mut files);
    har_files(&repo().join("examples"), &mut files);
    files.sort();
    assert!(files.len() >= 9, "fixtures missing: {files:?}");
    for file in files {
        let expected: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        let entries = expected["log"]["entries"].as_array().unwrap().len() as u64;
        let doc = evidence(&[file.to_str().unwrap(), "har", "--json"]);
        assert_eq!(
            doc["capture"]["total_records"],
            entries,
            "{}",
            file.display()
        );
        assert_eq!(
            doc["records"].as_array().unwrap().len() as u64,
            entries,
            "{}",
            file.display()
        );
        assert_eq!(doc["capture"]["container"]["log"]["entries"], Value::Null);
        assert_eq!(doc["capture"]["records_pointer"], "/log/entries");
        for (i, record) in doc["records"].as_array().unwrap().iter().enumerate() {
            assert_eq!(record["ordinal"], i as u64);
            assert_eq!(
                record["location"],
                json!({"kind": "json-pointer", "pointer": format!("/log/entries/{i}")})
            );
        }
    }
}

#[test]
fn selection_keeps_caller_order_and_producer_ordinals() {
    let path = repo().join("tests/fixtures/kinto/dev-a.har");
    let doc = evidence(&[
        path.to_str().unwrap(),
        "har",
        "--record",
        "2",
        "--record",
        "0",
        "--json",
    ]);
    let ordinals: Vec<u64> = doc["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["ordinal"].as_u64().unwrap())
        .collect();
    assert_eq!(ordinals, [2, 0]);
    assert_eq!(doc["parameters"]["record_ordinals"], json!([2, 0]));
    assert_eq!(
        (
            doc["capture"]["total_records"].as_u64(),
            doc["capture"]["retained_records"].as_u64()
        ),
        (Some(40), Some(2))
    );
}

#[test]
fn summary_writes_the_complete_evidence_to_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("evidence.json");
    let path = repo().join("tests/fixtures/kinto/dev-a.har");
    let out = rea(&[
        path.to_str().unwrap(),
        "har",
        "--record",
        "3",
        "--detail",
        "summary",
        "--evidence_output",
        output.to_str().unwrap(),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["detail"], "summary");
    assert_eq!(summary["retained_records"], 1);
    assert!(summary.get("records").is_none());
    let saved: Value = serde_json::from_slice(&std::fs::read(&output).unwrap()).unwrap();
    assert_valid(&schema("evidence.schema.json"), &saved, "saved evidence");
    assert_eq!(saved["records"][0]["ordinal"], 3);
    assert!(saved["records"][0]["reported"]["request"].is_object());
}

#[test]
fn human_output_names_records_methods_origins_and_redactions() {
    let path = repo().join("tests/fixtures/kinto/dev-a.har");
    let out = rea(&[path.to_str().unwrap(), "har"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("40 of 40 records"), "{text}");
    assert!(
        text.contains("methods: ") && text.contains("GET "),
        "{text}"
    );
    assert!(text.contains("origins: http://127.0.0.1:"), "{text}");
    assert!(text.contains("redactions: "), "{text}");
    let bad = rea(&["no-such.har", "har"]);
    assert_eq!(bad.status.code(), Some(2));
    let text = String::from_utf8(bad.stderr).unwrap();
    let lines: Vec<&str> = text.trim_end().lines().collect();
    // The message, then the guidance on a line of its own.
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines[0].starts_with("error: capture_not_found (input): "),
        "{text}"
    );
    assert!(lines[1].starts_with("hint: "), "{text}");
}

#[test]
fn text_errors_show_the_first_issues_and_count_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let mut entries = Vec::new();
    for _ in 0..8 {
        let mut e = entry();
        e["request"].as_object_mut().unwrap().remove("method");
        entries.push(e);
    }
    let path = write_capture(dir.path(), "bad.har", &har(entries));
    let out = rea(&[path.to_str().unwrap(), "har"]);
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("error: har_validation_failed (input): "),
        "{text}"
    );
    assert_eq!(
        lines[1],
        "  /log/entries/0/request: required member \"method\" is missing"
    );
    assert!(lines[6].contains("and 3 more"), "{text}");
    assert!(lines[7].starts_with("hint: "), "{text}");
}

#[test]
fn inspection_never_changes_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.har");
    std::fs::copy(repo().join("tests/fixtures/kinto/dev-b.har"), &path).unwrap();
    let before = (
        std::fs::read(&path).unwrap(),
        std::fs::metadata(&path).unwrap().modified().unwrap(),
    );
    evidence(&[path.to_str().unwrap(), "har", "--json"]);
    failure(&[path.to_str().unwrap(), "har", "--record", "999", "--json"]);
    let after = (
        std::fs::read(&path).unwrap(),
        std::fs::metadata(&path).unwrap().modified().unwrap(),
    );
    assert!(before == after, "the capture changed");
}

// ---------------------------------------------------------------------
// Declared sensitive values, producer profiles, byte descriptors, reads.
// ---------------------------------------------------------------------

fn write_capture(dir: &Path, name: &str, doc: &Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, doc.to_string()).unwrap();
    path
}

#[test]
fn declared_values_appear_nowhere_in_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kinto-session.har");
    std::fs::copy(repo().join("tests/fixtures/kinto/dev-a.har"), &path).unwrap();
    let out = rea(&[
        path.to_str().unwrap(),
        "har",
        "--json",
        "--sensitive-value",
        "kinto",
        "--sensitive-value",
        "shop",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        !text.contains("kinto") && !text.contains("shop"),
        "a declared value leaked"
    );
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_valid(&schema("evidence.schema.json"), &doc, "evidence");
    assert_eq!(doc["parameters"]["sensitive_value_count"], 2);
    assert_eq!(doc["artifact"]["path"], "");
    assert!(
        doc["artifact"]["sha256"].is_string(),
        "the digest stays unless it is declared"
    );
    assert!(doc["explanations"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e.as_str().unwrap().contains("artifact.path")));
    assert!(doc["redactions"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["reason"] == "sensitive-value"));
    // Contract spellings are kept.
    assert_eq!(
        (
            doc["parameters"]["format"].as_str(),
            doc["capture"]["decoder"]["name"].as_str()
        ),
        (Some("har"), Some("rea-har"))
    );
}

#[test]
fn a_declared_digest_nulls_subject_and_sha256() {
    let path = repo().join("tests/fixtures/kinto/dev-b.har");
    let plain = evidence(&[path.to_str().unwrap(), "har", "--json", "--record", "0"]);
    let digest = plain["artifact"]["sha256"].as_str().unwrap().to_string();
    let doc = evidence(&[
        path.to_str().unwrap(),
        "har",
        "--json",
        "--record",
        "0",
        "--sensitive-value",
        &digest,
    ]);
    assert_eq!(
        (doc["subject"].clone(), doc["artifact"]["sha256"].clone()),
        (Value::Null, Value::Null)
    );
    assert_eq!(doc["artifact"]["size"], plain["artifact"]["size"]);
    assert!(doc["explanations"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e.as_str().unwrap().contains("subject")));
    assert!(!doc.to_string().contains(&digest));
}

#[test]
fn declared_har_keeps_contract_spellings() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_capture(dir.path(), "c.json", &har(vec![entry()]));
    let doc = evidence(&[
        path.to_str().unwrap(),
        "har",
        "--json",
        "--sensitive-value",
        "har",
    ]);
    assert_eq!(doc["parameters"]["format"], "har");
    assert_eq!(doc["capture"]["format"], "har");
    assert_eq!(doc["capture"]["decoder"]["profile"], "har-1.2");
    assert_eq!(doc["capture"]["decoder"]["name"], "rea-har");

    // Generated free text follows the declarations too.
    let doc = evidence(&[
        path.to_str().unwrap(),
        "har",
        "--json",
        "--sensitive-value",
        "attribution",
    ]);
    assert!(!doc.to_string().contains("attribution"));
    assert!(!doc["limitations"].as_array().unwrap().is_empty());
}

#[test]
fn saved_evidence_feeds_the_analysis_view() {
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("evidence.json");
    let path = repo().join("tests/fixtures/kinto/dev-a.har");
    let out = rea(&[path.to_str().unwrap(), "har", "--json"]);
    assert!(out.status.success());
    std::fs::write(&saved, &out.stdout).unwrap();
    let view = Command::new(env!("CARGO_BIN_EXE_rea"))
        .args([
            "inspect-analysis-view",
            "--source-file",
            saved.to_str().unwrap(),
        ])
        .args([
            "--view",
            r#"{"kind":"capture","detail":"preview","offset":1,"limit":1}"#,
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        view.status.success(),
        "{}",
        String::from_utf8_lossy(&view.stderr)
    );
    let page: Value = serde_json::from_slice(&view.stdout).unwrap();
    assert_eq!(page["records"][0]["ordinal"], 1);
    assert_eq!(page["total_records"], 40);
}

#[test]
fn a_hidden_record_coordinate_is_unknown_and_keeps_its_ordinal() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_capture(dir.path(), "c.har", &har(vec![entry(), entry()]));
    let doc = evidence(&[
        path.to_str().unwrap(),
        "har",
        "--json",
        "--sensitive-value",
        "entries/1",
    ]);
    let r = record(&doc, 1);
    assert_eq!(r["location"], json!({"kind": "unknown"}));
    assert_eq!(record(&doc, 0)["location"]["pointer"], "/log/entries/0");
    assert!(doc["artifact"]["sha256"].is_string());
    assert!(!doc.to_string().contains("entries/1"));
}

#[test]
fn failures_follow_the_declarations() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("acme-secret.har");
    let out = rea(&[
        missing.to_str().unwrap(),
        "har",
        "--json",
        "--sensitive-value",
        "acme-secret",
    ]);
    let text = String::from_utf8(out.stderr).unwrap();
    assert!(!text.contains("acme-secret"), "{text}");
    let err: Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(
        (err["code"].as_str(), err["category"].as_str()),
        (Some("capture_not_found"), Some("input"))
    );

    // A validation issue under a declared name points at a real ancestor.
    let mut e = entry();
    e["request"]["queryString"] = json!([{"name": "q"}]);
    let path = write_capture(dir.path(), "c.har", &har(vec![e]));
    let (err, _) = failure(&[
        path.to_str().unwrap(),
        "har",
        "--json",
        "--sensitive-value",
        "queryString",
    ]);
    assert_eq!(err["code"], "har_validation_failed");
    assert!(!err.to_string().contains("queryString"), "{err}");
    let pointers: Vec<&str> = err["details"]["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["pointer"].as_str().unwrap())
        .collect();
    assert!(pointers.contains(&"/log/entries/0/request"), "{pointers:?}");

    // Argument errors never repeat a declared value either.
    let out = rea(&[
        "x.har",
        "har",
        "--json",
        "--sensitive-value",
        "zebra42",
        "--zebra42",
    ]);
    let text = String::from_utf8(out.stderr).unwrap();
    assert!(!text.contains("zebra42"), "{text}");
    let err: Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(err["code"], "invalid_argument");
}

#[test]
fn declared_value_inside_non_canonical_base64_still_fails_validation() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = entry();
    e["response"]["content"]["text"] = json!("aHVudGVyMg"); // "hunter2" without padding
    let path = write_capture(dir.path(), "c.har", &har(vec![e]));
    let (err, _) = failure(&[
        path.to_str().unwrap(),
        "har",
        "--json",
        "--sensitive-value",
        "aHVudGVyMg",
    ]);
    assert_eq!(err["code"], "har_validation_failed");
}

#[test]
fn format_is_decided_before_the_file_is_read() {
    let (err, exit) = failure(&["/nonexistent/session.pcap", "pcap", "--json"]);
    assert_eq!(
        (err["code"].as_str(), err["category"].as_str(), exit),
        (Some("unknown_format"), Some("input"), 2)
    );
    // Every format the spec names is decoded: a missing file is a read failure.
    for format in ["mitmproxy", "saz", "qlog"] {
        let (err, exit) = failure(&["/nonexistent/session", format, "--json"]);
        assert_eq!(
            (err["code"].as_str(), err["category"].as_str(), exit),
            (Some("capture_not_found"), Some("input"), 2),
            "{format}"
        );
    }
}

#[test]
fn read_denial_is_access_denied() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = write_capture(dir.path(), "s.har", &har(vec![entry()]));
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
    // A file this process created is owned by its effective user.
    let root = std::fs::metadata(&path).unwrap().uid() == 0;
    let out = if root {
        // Root reads anything; run rea as `nobody` so the denial is real.
        let setpriv = Path::new("/usr/bin/setpriv");
        if !setpriv.exists() {
            eprintln!(
                "read_denial_is_access_denied: running as root without setpriv; not exercised"
            );
            return;
        }
        Command::new(setpriv)
            .args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                env!("CARGO_BIN_EXE_rea"),
            ])
            .args([
                "inspect-web-network-capture",
                path.to_str().unwrap(),
                "har",
                "--json",
            ])
            .output()
            .unwrap()
    } else {
        rea(&[path.to_str().unwrap(), "har", "--json"])
    };
    if root && out.stderr.is_empty() {
        eprintln!("read_denial_is_access_denied: `nobody` cannot run the built binary here; not exercised");
        return;
    }
    let err: Value = serde_json::from_slice(&out.stderr)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(
        (err["code"].as_str(), err["category"].as_str()),
        (Some("access_denied"), Some("unavailable"))
    );
    assert_eq!(err["details"]["os_code"], "EACCES");
    assert!(err["guidance"].as_str().unwrap().contains("read access"));
    assert_eq!(out.status.code(), Some(4));
}

#[test]
fn producer_profiles_relax_only_validation() {
    let dir = tempfile::tempdir().unwrap();
    let mut doc = har(vec![entry()]);
    doc["log"]["creator"] = json!({"name": "mitmproxy", "version": "12.2.3"});
    doc["log"]["entries"][0]["request"]["postData"]["text"] = Value::Null;
    let path = write_capture(dir.path(), "mitm.har", &doc);
    let ev = evidence(&[path.to_str().unwrap(), "har", "--json"]);
    assert_eq!(
        ev["capture"]["decoder"]["producer_profile"],
        "mitmproxy-savehar-10-12"
    );
    assert_eq!(
        record(&ev, 0)["reported"]["request"]["postData"]["text"],
        Value::Null
    );
    let fields = record(&ev, 0)["binary_fields"].as_array().unwrap().clone();
    assert!(
        fields
            .iter()
            .all(|f| !f["pointer"].as_str().unwrap().contains("postData")),
        "no invented request body"
    );

    doc["log"]["creator"] = json!({"name": "Firefox", "version": "140.0"});
    let path = write_capture(dir.path(), "firefox.har", &doc);
    assert_eq!(
        failure(&[path.to_str().unwrap(), "har", "--json"]).0["code"],
        "har_validation_failed"
    );

    let mut doc = har(vec![entry()]);
    doc["log"]["creator"] = json!({"name": "Playwright", "version": "1.58.2"});
    doc["log"]["entries"][0]["serverIPAddress"] = json!("[2001:db8::1]");
    let path = write_capture(dir.path(), "pw.har", &doc);
    let ev = evidence(&[path.to_str().unwrap(), "har", "--json"]);
    assert_eq!(
        record(&ev, 0)["reported"]["serverIPAddress"],
        "[2001:db8::1]"
    );
    assert!(ev["limitations"].as_array().unwrap().iter().any(|l| l
        .as_str()
        .unwrap()
        .contains("does not establish where the file came from")));
    doc["log"]["creator"]["version"] = json!("1.57.0");
    let path = write_capture(dir.path(), "pw-old.har", &doc);
    assert_eq!(
        failure(&[path.to_str().unwrap(), "har", "--json"]).0["code"],
        "har_validation_failed"
    );
}

#[test]
fn byte_descriptors_describe_exactly_what_is_established() {
    let dir = tempfile::tempdir().unwrap();
    let mut plain = entry();
    plain["response"]["content"] = json!({"size": 999, "mimeType": "text/plain", "text": "abc"});
    let mut gzip = entry();
    gzip["response"]["content"] =
        json!({"size": 3, "mimeType": "text/plain", "text": "abc", "encoding": "gzip"});
    let mut params = entry();
    params["request"]["postData"] =
        json!({"mimeType": "multipart/form-data", "params": [{"name": "f", "fileName": "a.txt"}]});
    let path = write_capture(
        dir.path(),
        "c.har",
        &har(vec![entry(), plain, gzip, params]),
    );
    let doc = evidence(&[path.to_str().unwrap(), "har", "--json"]);
    let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    assert_eq!(
        record(&doc, 0)["binary_fields"][1],
        json!({"pointer": "/log/entries/0/response/content/text", "encoding": "base64", "establishes_body_bytes": true, "size": 2,
               "sha256": "8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4"})
    );
    assert_eq!(
        record(&doc, 1)["binary_fields"][1],
        json!({"pointer": "/log/entries/1/response/content/text", "encoding": null, "establishes_body_bytes": false, "size": 3, "sha256": abc})
    );
    assert_eq!(record(&doc, 2)["binary_fields"][1]["encoding"], "gzip");
    assert_eq!(
        record(&doc, 2)["binary_fields"][1]["establishes_body_bytes"],
        false
    );
    let fields = record(&doc, 3)["binary_fields"].as_array().unwrap().clone();
    assert_eq!(fields.len(), 1, "params build no body: {fields:?}");
    // Records carry exactly the contract's members: no invented transaction or scenario ids.
    let keys: Vec<&String> = record(&doc, 0).as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "ordinal",
            "location",
            "reported",
            "numeric_literals",
            "binary_fields"
        ]
    );
    assert!(doc["limitations"].as_array().unwrap().iter().any(|l| l
        .as_str()
        .unwrap()
        .contains("does not establish runtime attribution")));
    assert_eq!(doc["parameters"]["detail"], "complete");
}
