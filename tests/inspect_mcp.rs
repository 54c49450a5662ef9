//! `rea inspect-mcp` over stdio, spoken by hand as MCP JSON-RPC: the strict
//! argument contract, retained Evidence and its views, redaction of
//! declared values in argument errors. Every read is bounded by a timeout.

use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Command;

mod common;
use common::inspect_client::InspectClient as Client;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixture() -> String {
    repo()
        .join("tests/fixtures/kinto/dev-a.har")
        .to_string_lossy()
        .into_owned()
}

/// The error contract: isError, text `<code>: <message>`, the ErrorReport as structured content.
fn assert_error(result: &Value, code: &str) -> Value {
    assert_eq!(result["isError"], true, "{result}");
    let report = result["structuredContent"].clone();
    assert_eq!(report["code"], code, "{result}");
    assert_eq!(report["category"], "input", "{result}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert_eq!(
        text,
        format!(
            "{}: {}",
            report["code"].as_str().unwrap(),
            report["message"].as_str().unwrap()
        )
    );
    report
}

fn cli(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_rea"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// MCP-01 (advertised side): both tools with strict schemas.
#[test]
fn tools_list_advertises_strict_schemas() {
    let mut client = Client::start();
    let list = client.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["inspect_web_network_capture", "inspect_analysis_view"]
    );
    for tool in tools {
        assert_eq!(tool["inputSchema"]["additionalProperties"], false, "{tool}");
    }
    let props = tools[0]["inputSchema"]["properties"].as_object().unwrap();
    let keys: Vec<&str> = props.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "capture_path",
            "format",
            "record_ordinals",
            "sensitive_values",
            "detail",
            "capture_timeout_ms",
            "protobuf"
        ]
    );
}

/// INS-11 + VIEW-01: summary retains the Evidence; a retained-evidence
/// capture page equals the CLI's page over the same Evidence written to a file.
#[test]
fn summary_then_retained_evidence_page_matches_the_cli() {
    let mut client = Client::start();
    let path = fixture();
    let summary = client.call(
        "inspect_web_network_capture",
        json!({"capture_path": path, "format": "har", "detail": "summary"}),
    );
    assert_eq!(summary["isError"], false, "{summary}");
    let s = &summary["structuredContent"];
    let id = s["normalized_result"]["parent_evidence_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        id.len() == 15 && id.starts_with("ev_") && id[3..].bytes().all(|b| b.is_ascii_hexdigit()),
        "{id}"
    );
    assert_eq!(s["detail"], "summary");
    assert!(s["total_records"].as_u64().unwrap() > 0);
    assert!(
        s.get("records").is_none(),
        "summary carries no record content"
    );

    let view = json!({"kind": "capture", "detail": "preview", "offset": 0, "limit": 20});
    let page = client.call(
        "inspect_analysis_view",
        json!({"source": {"kind": "retained-evidence", "evidence_id": id}, "view": view}),
    );
    assert_eq!(page["isError"], false, "{page}");

    let dir = tempfile::tempdir().unwrap();
    let evidence_file = dir.path().join("evidence.json");
    let evidence = cli(&["inspect-web-network-capture", &path, "har", "--json"]);
    std::fs::write(&evidence_file, serde_json::to_vec(&evidence).unwrap()).unwrap();
    let expected = cli(&[
        "inspect-analysis-view",
        "--source-file",
        evidence_file.to_str().unwrap(),
        "--view",
        &view.to_string(),
        "--json",
    ]);
    assert_eq!(page["structuredContent"], expected);

    // The same page from the file source and from the Evidence given inline.
    let from_file = client.call(
        "inspect_analysis_view",
        json!({"source": {"kind": "evidence-file", "path": evidence_file}, "view": view}),
    );
    assert_eq!(from_file["structuredContent"], expected);
    let inline = client.call(
        "inspect_analysis_view",
        json!({"source": {"kind": "inline", "evidence": evidence}, "view": view}),
    );
    assert_eq!(inline["isError"], false, "{inline}");
    assert_eq!(inline["structuredContent"]["records"], expected["records"]);

    // An id this server never issued is an input error.
    let unknown = client.call(
        "inspect_analysis_view",
        json!({"source": {"kind": "retained-evidence", "evidence_id": "ev_000000000000"}, "view": view}),
    );
    assert_error(&unknown, "evidence_not_retained");
}

/// INS-03: explicit ordinals keep the caller's order (complete Evidence inline).
#[test]
fn record_ordinals_keep_the_callers_order() {
    let mut client = Client::start();
    let result = client.call(
        "inspect_web_network_capture",
        json!({"capture_path": fixture(), "format": "har", "record_ordinals": [2, 0]}),
    );
    assert_eq!(result["isError"], false, "{result}");
    let ordinals: Vec<u64> = result["structuredContent"]["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["ordinal"].as_u64().unwrap())
        .collect();
    assert_eq!(ordinals, [2, 0]);
}

/// MCP-01: an unknown argument name is refused with the REA error contract.
#[test]
fn unknown_argument_is_refused_with_the_contract() {
    let mut client = Client::start();
    let result = client.call(
        "inspect_web_network_capture",
        json!({"capture_path": fixture(), "format": "har", "bogus": 1}),
    );
    let report = assert_error(&result, "invalid_argument");
    assert_eq!(report["details"]["argument"], "bogus");
    let view = client.call(
        "inspect_analysis_view",
        json!({"source": {"kind": "evidence-file", "path": "x.json"}, "view": {}, "extra": true}),
    );
    assert_eq!(
        assert_error(&view, "invalid_argument")["details"]["argument"],
        "extra"
    );
}

/// RED-04 + MCP-02: a declared sensitive value used as an argument name
/// never appears in the reply; declared values exclude captured fields.
#[test]
fn declared_value_as_argument_name_never_appears() {
    let mut client = Client::start();
    let secret = "s3cr3t";
    let result = client.call(
        "inspect_web_network_capture",
        json!({"capture_path": fixture(), "format": "har", "sensitive_values": [secret], secret: 1}),
    );
    assert_error(&result, "invalid_argument");
    assert!(!result.to_string().contains(secret), "{result}");

    // A value that occurs in the capture is excluded from the Evidence.
    let evidence = cli(&["inspect-web-network-capture", &fixture(), "har", "--json"]);
    let method = evidence["records"][0]["reported"]["request"]["method"]
        .as_str()
        .unwrap()
        .to_string();
    let url = evidence["records"][0]["reported"]["request"]["url"]
        .as_str()
        .unwrap()
        .to_string();
    let path_segment = url.rsplit('/').find(|s| s.len() >= 4).unwrap().to_string();
    let redacted = client.call(
        "inspect_web_network_capture",
        json!({"capture_path": fixture(), "format": "har", "record_ordinals": [0],
               "sensitive_values": [path_segment]}),
    );
    assert_eq!(redacted["isError"], false, "{redacted}");
    let doc = &redacted["structuredContent"];
    assert!(!doc.to_string().contains(&path_segment), "{doc}");
    assert!(!doc["redactions"].as_array().unwrap().is_empty());
    assert_eq!(doc["records"][0]["reported"]["request"]["method"], method);
}

/// MCP-03: a malformed argument fails before any file access: the path does
/// not exist, yet the answer is the argument error, not capture_not_found.
#[test]
fn malformed_arguments_fail_before_the_file_is_opened() {
    let mut client = Client::start();
    let missing = repo().join("tests/fixtures/does-not-exist.har");
    let result = client.call(
        "inspect_web_network_capture",
        json!({"capture_path": missing, "format": "har", "record_ordinals": "2"}),
    );
    let report = assert_error(&result, "invalid_argument");
    assert_eq!(report["details"]["argument"], "record_ordinals");
    // The same path with well-formed arguments does reach the filesystem.
    let reached = client.call(
        "inspect_web_network_capture",
        json!({"capture_path": missing, "format": "har"}),
    );
    assert_eq!(reached["isError"], true);
    assert_ne!(
        reached["structuredContent"]["code"], "invalid_argument",
        "{reached}"
    );
}
