//! qlog end to end through the built binary: the CLI selection of the
//! spec's example (QLOG-01), and MCP `rea inspect-mcp` summary with a
//! retained parent feeding the focused qlog views (QVIEW-01). Every read is
//! bounded by a timeout.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

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

struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: u64,
}

impl Client {
    fn start() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rea"))
            .arg("inspect-mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("rea inspect-mcp starts");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut client = Client {
            child,
            stdin,
            lines,
            next_id: 0,
        };
        let init = client.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "qlog-test", "version": "0"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "rea", "{init}");
        client.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        client
    }

    fn send(&mut self, message: Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        for _ in 0..100 {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .expect("a reply within 60 s");
            let value: Value = serde_json::from_str(&line).unwrap();
            if value["id"] == id {
                return value;
            }
        }
        panic!("no reply to request {id}");
    }

    fn call(&mut self, name: &str, arguments: Value) -> Value {
        let reply = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        reply["result"]["structuredContent"].clone()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        drop(self.stdin.take());
        for _ in 0..100 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
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
    let summary = client.call(
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
    let page = client.call(
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
    let contributions = client.call(
        "inspect_analysis_view",
        json!({"source": source, "view": {"kind":"qlog","facet":"contributions","trace_index":0,"stream_id":"0","direction":"sent","offset":0,"limit":20}}),
    );
    assert_eq!(contributions["rows"].as_array().unwrap().len(), 20);
    let events = client.call(
        "inspect_analysis_view",
        json!({"source": source, "view": {"kind":"capture","detail":"preview","offset":95,"limit":1}}),
    );
    assert_eq!(
        events["records"][0]["location"]["pointer"],
        "/traces/0/events/95"
    );
}
