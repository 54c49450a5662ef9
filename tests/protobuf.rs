//! Protobuf end to end through the built binary: the CLI flags of the
//! spec's example (PB-17) and MCP `protobuf.schema` with explicit
//! `record_ordinals`, then `protobuf` pages over the retained parent (PB-18,
//! PB-41). Every read is bounded by a timeout.

use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Command;

mod common;
use common::inspect_client::InspectClient as Client;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/formats")
        .join(name)
}

/// PB-17: `--record 0 --protobuf-schema api.pb --protobuf-message TYPE --detail summary --evidence_output F --json`.
#[test]
fn cli_schema_flags_interpret_the_selected_record() {
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("evidence.json");
    let out = Command::new(env!("CARGO_BIN_EXE_rea"))
        .arg("inspect-web-network-capture")
        .arg(fixture("grpc-native.har"))
        .args(["har", "--record", "0", "--protobuf-schema"])
        .arg(fixture("api.pb"))
        .args(["--protobuf-message", "rea.fixture.catalogue.v1.Product"])
        .args([
            "--protobuf-body-pointer",
            "/log/entries/0/response/content/text",
        ])
        .args(["--detail", "summary", "--evidence_output"])
        .arg(&out_file)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["protobuf"]["bodies"], 1);
    let doc: Value = serde_json::from_slice(&std::fs::read(&out_file).unwrap()).unwrap();
    let fields = doc["protobuf"]["fields"].as_array().unwrap();
    assert!(fields
        .iter()
        .any(|f| f["schema_name"] == "view_count" && f["schema_value"] == "9007199254740993"));
    assert_eq!(
        doc["protobuf"]["descriptor"]["message_type"],
        "rea.fixture.catalogue.v1.Product"
    );
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("manifests/evidence.schema.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert!(jsonschema::validator_for(&schema).unwrap().is_valid(&doc));
    let bad = Command::new(env!("CARGO_BIN_EXE_rea"))
        .arg("inspect-web-network-capture")
        .arg(fixture("grpc-native.har"))
        .args([
            "har",
            "--record",
            "0",
            "--protobuf-framing",
            "json",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    let err: Value = serde_json::from_slice(&bad.stderr).unwrap();
    assert_eq!(err["code"], "invalid_argument");
}

/// PB-18, PB-41 over MCP: `protobuf: {schema: {...}}` with explicit
/// `record_ordinals`, then a field page over the retained parent.
#[test]
fn mcp_schema_argument_then_protobuf_pages() {
    let mut client = Client::start();
    let summary = client.structured(
        "inspect_web_network_capture",
        json!({"capture_path": fixture("grpc-web.har").to_str().unwrap(), "format": "har",
               "record_ordinals": [4], "detail": "summary",
               "protobuf": {"schema": {"descriptor_set_path": fixture("api.pb").to_str().unwrap(),
                                       "message_type": "rea.fixture.catalogue.v1.Product"},
                            "body_pointers": ["/log/entries/4/response/content/text"]}}),
    );
    assert_eq!(summary["protobuf"]["bodies"], 1, "{summary}");
    let id = summary["normalized_result"]["parent_evidence_id"]
        .as_str()
        .unwrap()
        .to_string();
    let source = json!({"kind": "retained-evidence", "evidence_id": id});
    let page = client.structured(
        "inspect_analysis_view",
        json!({"source": source, "view": {"kind":"protobuf","collection":"fields","record_ordinals":[4],
               "schema_names":["title"],"fields":["number","schema_name","schema_value"],"offset":0,"limit":32}}),
    );
    assert_eq!(page["view"], "protobuf", "{page}");
    let rows = page["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1);
    assert!(rows[0]["schema_value"]
        .as_str()
        .unwrap()
        .starts_with('\u{feff}'));
    assert_eq!(rows[0]["offset_basis"], "retained-body-bytes");
    let frames = client.structured(
        "inspect_analysis_view",
        json!({"source": source, "view": {"kind":"protobuf","collection":"frames","record_ordinals":[4],"offset":0,"limit":16}}),
    );
    let kinds: Vec<&str> = frames["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["data", "trailer"]);
    let bad = client.request(
        "tools/call",
        json!({"name": "inspect_web_network_capture",
        "arguments": {"capture_path": "x.har", "format": "har", "protobuf": {"framing": "json"}}}),
    );
    assert!(bad.to_string().contains("invalid_argument"), "{bad}");
}
