//! qlog end to end through the built binary: the CLI selection of the
//! spec's example (QLOG-01), and MCP `rea inspect-mcp` summary with a
//! retained parent feeding the focused qlog views (QVIEW-01). Every read is
//! bounded by a timeout.

use serde_json::{json, Value};
use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

mod common;
use common::inspect_client::InspectClient as Client;

fn fixture(case: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/formats/qlog")
        .join(case)
}

/// QLOG-01: `rea inspect-web-network-capture origin.qlog qlog --record 95 --record 0 --json`.
#[test]
fn cli_selects_events_95_and_0() {
    let out = Command::new(env!("CARGO_BIN_EXE_rea"))
        .arg("inspect-web-network-capture")
        .arg(fixture("loss/origin.qlog"))
        .args(["qlog", "--record", "95", "--record", "0", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ordinals: Vec<u64> = doc["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["ordinal"].as_u64().unwrap())
        .collect();
    assert_eq!(ordinals, vec![95, 0]);
    assert_eq!(
        doc["records"][0]["location"]["pointer"],
        "/traces/0/events/95"
    );
    assert_eq!(doc["capture"]["format"], "qlog");
    assert_eq!(doc["qlog"]["scope"], "all-recorded-events-before-selection");
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("manifests/evidence.schema.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert!(jsonschema::validator_for(&schema).unwrap().is_valid(&doc));
}

/// Unsupported qlog shapes answer the unsupported exit code on the CLI.
#[test]
fn cli_unsupported_version_exits_unsupported() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v04.qlog");
    std::fs::write(
        &path,
        r#"{"qlog_format":"JSON","qlog_version":"0.4","traces":[]}"#,
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rea"))
        .arg("inspect-web-network-capture")
        .arg(&path)
        .args(["qlog", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let err: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(err["code"], "qlog_profile_unsupported");
}

/// QVIEW-01, QVIEW-08 over MCP: the summary gives identity, profile, scope
/// and fact counts plus a parent id; the views page the retained facts
/// even after the source file is deleted.
#[test]
fn mcp_summary_then_focused_views() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("origin.qlog");
    std::fs::copy(fixture("loss/origin.qlog"), &copy).unwrap();
    let mut client = Client::start();
    let summary = client.structured(
        "inspect_web_network_capture",
        json!({"capture_path": copy.to_str().unwrap(), "format": "qlog", "detail": "summary"}),
    );
    assert_eq!(summary["format"], "qlog", "{summary}");
    assert!(summary["subject"].as_str().unwrap().starts_with("sha256:"));
    assert_eq!(summary["decoder"]["profile"], "aioquic-1.5.0-json-qlog-0.3");
    assert_eq!(
        summary["qlog"]["scope"],
        "all-recorded-events-before-selection"
    );
    assert_eq!(summary["qlog"]["stream_count"], 8);
    assert_eq!(summary["qlog"]["loss_declaration_count"], 1);
    assert_eq!(summary["qlog"]["event_count"], 187);
    let id = summary["normalized_result"]["parent_evidence_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(id.starts_with("ev_"), "{id}");
    std::fs::remove_file(&copy).unwrap();
    let source = json!({"kind": "retained-evidence", "evidence_id": id});
    let page = client.structured(
        "inspect_analysis_view",
        json!({"source": source, "view": {"kind":"qlog","facet":"streams","trace_index":0,"offset":0,"limit":10}}),
    );
    assert_eq!(page["view"], "qlog", "{page}");
    let s0 = page["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["stream_id"] == "0" && s["direction"] == "sent")
        .unwrap();
    assert_eq!(s0["repeated_bytes"], "1167");
    let contributions = client.structured(
        "inspect_analysis_view",
        json!({"source": source, "view": {"kind":"qlog","facet":"contributions","trace_index":0,"stream_id":"0","direction":"sent","offset":0,"limit":20}}),
    );
    assert_eq!(contributions["rows"].as_array().unwrap().len(), 20);
    let events = client.structured(
        "inspect_analysis_view",
        json!({"source": source, "view": {"kind":"capture","detail":"preview","offset":95,"limit":1}}),
    );
    assert_eq!(
        events["records"][0]["location"]["pointer"],
        "/traces/0/events/95"
    );
}

// ---- the real-provider verification lane (QLOG-38, QLOG-39) ------------

/// What the lane expects of the loss capture: stream 0 sent coverage and
/// the one repeated range. Defaults are the committed fixtures' facts (see
/// tests/fixtures/formats/qlog and its README); a caller's own aioquic
/// experiment sets `REA_QLOG_EXPECT_UNIQUE` / `REA_QLOG_EXPECT_REPEATED`.
fn expected(var: &str, default: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| default.to_string())
}

fn cli_evidence(path: &std::path::Path, extra: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_rea"))
        .arg("inspect-web-network-capture")
        .arg(path)
        .arg("qlog")
        .args(extra)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Runs every check of the lane on a control and a loss qlog and writes
/// the report to `report` only if that file does not exist yet.
fn lane(
    control: &std::path::Path,
    loss: &std::path::Path,
    report: &std::path::Path,
) -> Result<Value, String> {
    // The report is created exclusively before anything runs.
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(report)
        .map_err(|e| format!("refusing to write the report: {e}"))?;
    let mut checks: Vec<Value> = Vec::new();
    let mut check =
        |name: &str, passed: bool| checks.push(json!({"check": name, "passed": passed}));
    let mut client = Client::start();
    let tools = client.request("tools/list", json!({}));
    let inspect_schema = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "inspect_web_network_capture")
        .map(|t| t["inputSchema"].clone())
        .unwrap();
    let validator = jsonschema::validator_for(&inspect_schema);
    let evidence_schema: Value = serde_json::from_str(
        &std::fs::read_to_string(
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("manifests/evidence.schema.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let evidence_validator = jsonschema::validator_for(&evidence_schema).unwrap();
    let mut summaries = Vec::new();
    for (role, path) in [("control", control), ("loss", loss)] {
        let arguments = json!({"capture_path": path.to_str().unwrap(), "format": "qlog"});
        check(
            &format!("{role}: MCP input schema compiles and admits the call"),
            validator.as_ref().is_ok_and(|v| v.is_valid(&arguments)),
        );
        let cli = cli_evidence(path, &[]);
        let mcp = client.structured("inspect_web_network_capture", arguments.clone());
        check(
            &format!("{role}: CLI and stdio MCP answer the same Evidence"),
            cli == mcp,
        );
        check(
            &format!("{role}: Evidence satisfies its schema"),
            evidence_validator.is_valid(&cli),
        );
        let bytes = std::fs::read(path).unwrap();
        let digest = rea_core::read::read_stable(path).unwrap().sha256;
        check(
            &format!("{role}: artifact digest is the file's SHA-256"),
            cli["artifact"]["sha256"] == digest.as_str(),
        );
        let raw: Value = serde_json::from_slice(&bytes).unwrap();
        let events: usize = raw["traces"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["events"].as_array().unwrap().len())
            .sum();
        check(
            &format!("{role}: original event count"),
            cli["capture"]["total_records"] == events,
        );
        let mut selected = arguments.clone();
        selected["record_ordinals"] = json!([0]);
        selected["detail"] = json!("summary");
        let summary = client.structured("inspect_web_network_capture", selected);
        let id = summary["normalized_result"]["parent_evidence_id"]
            .as_str()
            .unwrap_or("")
            .to_string();
        let view = client.structured(
            "inspect_analysis_view",
            json!({"source": {"kind":"retained-evidence","evidence_id": id}, "view": {"kind":"qlog","facet":"streams","trace_index":0}}),
        );
        check(
            &format!("{role}: selection scope stays all-recorded-events-before-selection"),
            summary["retained_records"] == 1
                && summary["qlog"]["scope"] == "all-recorded-events-before-selection",
        );
        let full_streams = cli["qlog"]["traces"][0]["streams"]
            .as_array()
            .unwrap()
            .len();
        check(
            &format!("{role}: retained parent lookup pages every stream"),
            view["rows"].as_array().map(Vec::len) == Some(full_streams),
        );
        let text = serde_json::to_string(&cli).unwrap();
        let mut leaked = false;
        for t in raw["traces"].as_array().unwrap() {
            for e in t["events"].as_array().unwrap() {
                if let Some(tok) = e["data"]["stateless_reset_token"].as_str() {
                    leaked |= text.contains(tok);
                }
                for f in e["data"]["frames"].as_array().into_iter().flatten() {
                    for key in ["reset_token", "token"] {
                        if let Some(tok) = f[key].as_str() {
                            leaked |= text.contains(tok);
                        }
                    }
                }
            }
        }
        check(
            &format!("{role}: credential exclusions (reset and NEW_TOKEN tokens)"),
            !leaked,
        );
        summaries.push((role, cli));
    }
    let (control_ev, loss_ev) = (&summaries[0].1, &summaries[1].1);
    let stream0 = |ev: &Value| {
        ev["qlog"]["traces"][0]["streams"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["stream_id"] == "0" && s["direction"] == "sent")
            .cloned()
            .unwrap_or(Value::Null)
    };
    check(
        "loss: one origin trace",
        loss_ev["qlog"]["traces"].as_array().map(Vec::len) == Some(1)
            && loss_ev["qlog"]["traces"][0]["vantage_point_type"] == "server",
    );
    let unique = expected("REA_QLOG_EXPECT_UNIQUE", "32842");
    let repeated_len = expected("REA_QLOG_EXPECT_REPEATED", "1167");
    check(
        "loss: known stream coverage",
        stream0(loss_ev)["unique_bytes"] == unique.as_str(),
    );
    let repeated: Vec<Value> = stream0(loss_ev)["ranges"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["kind"] == "repeated")
        .cloned()
        .collect();
    check(
        "loss: one repeated range of the known length",
        repeated.len() == 1 && repeated[0]["length"] == repeated_len.as_str(),
    );
    check(
        "control: no repeated bytes",
        stream0(control_ev)["repeated_bytes"] == "0",
    );
    let passed = checks.iter().all(|c| c["passed"] == true);
    // Identity and outcomes only: no keys, tokens or captured values.
    let report_doc = json!({
        "lane": "rea qlog real-provider verification",
        "profile": "aioquic-1.5.0-json-qlog-0.3",
        "artifacts": summaries.iter().map(|(role, ev)| json!({
            "role": role, "sha256": ev["artifact"]["sha256"], "total_records": ev["capture"]["total_records"]
        })).collect::<Vec<_>>(),
        "checks": checks,
        "passed": passed,
    });
    file.write_all(
        serde_json::to_string_pretty(&report_doc)
            .unwrap()
            .as_bytes(),
    )
    .map_err(|e| e.to_string())?;
    Ok(report_doc)
}

/// QLOG-38: the lane on caller-supplied evidence (`REA_QLOG_CONTROL`,
/// `REA_QLOG_LOSS`, `REA_QLOG_REPORT`), by default the committed aioquic
/// fixtures and a fresh report in a temporary folder.
#[test]
fn real_provider_lane_passes() {
    let dir = tempfile::tempdir().unwrap();
    let control = std::env::var_os("REA_QLOG_CONTROL")
        .map(PathBuf::from)
        .unwrap_or_else(|| fixture("clean/origin.qlog"));
    let loss = std::env::var_os("REA_QLOG_LOSS")
        .map(PathBuf::from)
        .unwrap_or_else(|| fixture("loss/origin.qlog"));
    let report = std::env::var_os("REA_QLOG_REPORT")
        .map(PathBuf::from)
        .unwrap_or_else(|| dir.path().join("report.json"));
    let doc = lane(&control, &loss, &report).unwrap();
    let failed: Vec<&Value> = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["passed"] != true)
        .collect();
    assert!(failed.is_empty(), "{failed:?}");
    assert!(doc["checks"].as_array().unwrap().len() >= 19);
    // QLOG-39: the report holds no key or captured credential value.
    let text = std::fs::read_to_string(&report).unwrap();
    for raw in [&control, &loss] {
        let doc: Value = serde_json::from_slice(&std::fs::read(raw).unwrap()).unwrap();
        for t in doc["traces"].as_array().unwrap() {
            for e in t["events"].as_array().unwrap() {
                if let Some(tok) = e["data"]["stateless_reset_token"].as_str() {
                    assert!(!text.contains(tok));
                }
            }
        }
    }
}

/// QLOG-39: an existing report path is refused and left unchanged.
#[test]
fn lane_refuses_an_existing_report() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    std::fs::write(&report, "keep").unwrap();
    let err = lane(
        &fixture("clean/origin.qlog"),
        &fixture("loss/origin.qlog"),
        &report,
    )
    .unwrap_err();
    assert!(err.contains("refusing"), "{err}");
    assert_eq!(std::fs::read_to_string(&report).unwrap(), "keep");
}
