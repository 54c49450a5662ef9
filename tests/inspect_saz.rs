//! Fiddler SAZ end to end through the built binary: every SAZ fixture
//! decodes into schema-valid Evidence matching its golden byte for byte,
//! MCP inspects SAZ with the same arguments, the capture view pages SAZ
//! Evidence (preview and complete, subsets, after the file is gone), and the
//! HAR-only projections refuse it. `REA_UPDATE_GOLDEN=1` rewrites goldens.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc::channel;
use std::time::Duration;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

const FIXTURES: [&str; 2] = ["httpbin-test", "NewCaseName1"];

fn fixture(name: &str) -> String {
    format!("tests/fixtures/formats/saz/{name}.saz")
}

fn rea(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rea"))
        .args(args)
        .current_dir(repo())
        .output()
        .expect("run rea")
}

fn ok_json(args: &[&str]) -> Value {
    let out = rea(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

fn failure(args: &[&str]) -> Value {
    let out = rea(args);
    assert!(!out.status.success(), "{args:?} unexpectedly succeeded");
    serde_json::from_slice(&out.stderr).expect("one JSON error on stderr")
}

fn schema() -> jsonschema::Validator {
    let text = std::fs::read_to_string(repo().join("manifests/evidence.schema.json")).unwrap();
    jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap()
}

fn view(evidence_file: &str, view: Value) -> Output {
    rea(&[
        "inspect-analysis-view",
        "--source-file",
        evidence_file,
        "--view",
        &view.to_string(),
        "--json",
    ])
}

fn view_ok(evidence_file: &str, v: Value) -> Value {
    let out = view(evidence_file, v);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// SAZ-01, EVD-02: both real Fiddler archives decode with every session,
/// member-name locations, and Evidence identical to the goldens.
#[test]
fn every_saz_fixture_decodes_and_matches_its_golden() {
    let validator = schema();
    let mut mismatches = Vec::new();
    for name in FIXTURES {
        let path = fixture(name);
        let out = rea(&["inspect-web-network-capture", &path, "saz", "--json"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&doc)
            .take(5)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
        assert_eq!(doc["capture"]["format"], "saz");
        assert_eq!(doc["capture"]["decoder"]["name"], "rea-saz");
        let records = doc["records"].as_array().unwrap();
        assert_eq!(
            records.len() as u64,
            doc["capture"]["total_records"].as_u64().unwrap()
        );
        for (i, record) in records.iter().enumerate() {
            assert_eq!(record["ordinal"], i as u64);
            let members = record["location"]["members"].as_array().unwrap();
            assert_eq!(record["location"]["kind"], "archive-members");
            let stem = format!("raw/{}_", i + 1);
            assert!(members
                .iter()
                .all(|m| m.as_str().unwrap().starts_with(&stem)));
        }
        let mut text = String::from_utf8(out.stdout).unwrap();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        let golden = repo().join(format!("tests/golden/saz/{name}.evidence.json"));
        if std::env::var_os("REA_UPDATE_GOLDEN").is_some() {
            std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
            std::fs::write(&golden, &text).unwrap();
            continue;
        }
        match std::fs::read_to_string(&golden) {
            Ok(expected) if expected == text => {}
            _ => {
                std::fs::write(golden.with_extension("actual.json"), &text).unwrap();
                mismatches.push(name);
            }
        }
    }
    assert!(mismatches.is_empty(), "golden mismatches: {mismatches:?}");
}

/// SAZ-01 (`--record 0`), INS-04/INS-06 on SAZ; BUDGET-24: the archive is unchanged.
#[test]
fn record_selection_keeps_order_and_the_file_is_never_changed() {
    let path = fixture("httpbin-test");
    let before = std::fs::read(repo().join(&path)).unwrap();
    let one = ok_json(&[
        "inspect-web-network-capture",
        &path,
        "saz",
        "--record",
        "0",
        "--json",
    ]);
    assert_eq!(one["records"].as_array().unwrap().len(), 1);
    assert_eq!(one["records"][0]["ordinal"], 0);
    let two = ok_json(&[
        "inspect-web-network-capture",
        &path,
        "saz",
        "--record",
        "2",
        "--record",
        "0",
        "--json",
    ]);
    let ordinals: Vec<u64> = two["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["ordinal"].as_u64().unwrap())
        .collect();
    assert_eq!(ordinals, [2, 0]);
    let err = failure(&[
        "inspect-web-network-capture",
        &path,
        "saz",
        "--record",
        "6",
        "--json",
    ]);
    assert_eq!(err["code"], "record_ordinal_out_of_range");
    let err = failure(&[
        "inspect-web-network-capture",
        "tests/fixtures/kinto/dev-a.har",
        "saz",
        "--json",
    ]);
    assert_eq!(
        (err["code"].as_str(), err["category"].as_str()),
        (Some("saz_archive_invalid"), Some("input"))
    );
    assert_eq!(std::fs::read(repo().join(&path)).unwrap(), before);
}

/// VIEW-02..VIEW-11 over SAZ Evidence, through the CLI.
#[test]
fn capture_views_page_saz_evidence() {
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("s.saz");
    std::fs::copy(repo().join(fixture("httpbin-test")), &capture).unwrap();
    let capture_path = capture.to_str().unwrap();
    let parent = rea(&[
        "inspect-web-network-capture",
        capture_path,
        "saz",
        "--record",
        "2",
        "--record",
        "0",
        "--json",
    ]);
    assert!(parent.status.success());
    let evidence_file = dir.path().join("evidence.json");
    std::fs::write(&evidence_file, &parent.stdout).unwrap();
    let ev_path = evidence_file.to_str().unwrap();
    let parent: Value = serde_json::from_slice(&parent.stdout).unwrap();

    // VIEW-04, VIEW-05: headline fields, member locations and byte descriptors only.
    let preview = view_ok(
        ev_path,
        json!({"kind": "capture", "detail": "preview", "offset": 0, "limit": 20}),
    );
    let r = &preview["records"][0];
    assert_eq!(r["ordinal"], 2);
    assert_eq!(r["method"], "GET");
    assert_eq!(r["url"], "https://httpbin.org/brotli");
    assert_eq!(r["status"], 200);
    assert_eq!(r["location"]["kind"], "archive-members");
    let body = r["bodies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["pointer"] == "/sessions/2/response/body")
        .expect("response body descriptor");
    assert!(body["size"].as_u64().unwrap() > 0 && body["sha256"].is_string());
    let text = preview.to_string();
    for absent in [
        "headers",
        "SessionTimers",
        "base64",
        "Mozilla/5.0",
        "\"children\"",
    ] {
        assert!(!text.contains(absent), "preview holds {absent}");
    }

    // VIEW-06: complete pages are the exact records with every sidecar.
    let complete = view_ok(
        ev_path,
        json!({"kind": "capture", "detail": "complete", "offset": 0, "limit": 1}),
    );
    assert_eq!(complete["records"][0], parent["records"][0]);
    assert!(complete["records"][0]["binary_fields"][0]["base64"].is_string());
    assert_eq!(
        complete["records"][0]["reported"]["metadata"]["name"],
        "Session"
    );

    // VIEW-07, VIEW-08, VIEW-09: parent order, producer ordinals, subset coverage.
    let second = view_ok(
        ev_path,
        json!({"kind": "capture", "detail": "preview", "offset": 1, "limit": 1}),
    );
    assert_eq!(second["records"][0]["ordinal"], 0);
    assert_eq!(
        (
            second["total_records"].as_u64(),
            second["retained_records"].as_u64()
        ),
        (Some(6), Some(2))
    );
    assert_eq!(second["coverage"]["complete"], true);
    assert_eq!(second["coverage"]["retained_records"], 2);
    assert!(second["limitations"][0]
        .as_str()
        .unwrap()
        .contains("says nothing about the records that were not selected"));

    // VIEW-02: the same Evidence inline on stdin.
    let mut child = Command::new(env!("CARGO_BIN_EXE_rea"))
        .args([
            "inspect-analysis-view",
            "--source-file",
            "-",
            "--view",
            r#"{"kind":"capture","detail":"preview"}"#,
            "--json",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&std::fs::read(&evidence_file).unwrap())
        .unwrap();
    let inline = child.wait_with_output().unwrap();
    assert!(
        inline.status.success(),
        "{}",
        String::from_utf8_lossy(&inline.stderr)
    );
    let inline: Value = serde_json::from_slice(&inline.stdout).unwrap();
    assert_eq!(inline["records"], preview["records"]);

    // VIEW-10: the capture deleted, the page is identical.
    std::fs::remove_file(&capture).unwrap();
    assert_eq!(
        view_ok(
            ev_path,
            json!({"kind": "capture", "detail": "preview", "offset": 0, "limit": 20})
        ),
        preview
    );

    // VIEW-11: new bytes need a new inspection; the old parent keeps its digest and records.
    let other = std::fs::read(repo().join(fixture("NewCaseName1"))).unwrap();
    std::fs::write(&capture, other).unwrap();
    let fresh = ok_json(&["inspect-web-network-capture", capture_path, "saz", "--json"]);
    assert_ne!(fresh["artifact"]["sha256"], parent["artifact"]["sha256"]);
    assert_eq!(
        view_ok(
            ev_path,
            json!({"kind": "capture", "detail": "complete", "offset": 0, "limit": 1})
        )["records"][0],
        parent["records"][0]
    );
}

/// The api-surface, environment-manifest and environment-state projections
/// refuse SAZ Evidence with the typed `non_har_capture` reason.
#[test]
fn har_only_projections_refuse_saz_evidence() {
    let dir = tempfile::tempdir().unwrap();
    let out = rea(&[
        "inspect-web-network-capture",
        &fixture("httpbin-test"),
        "saz",
        "--json",
    ]);
    let evidence_file = dir.path().join("evidence.json");
    std::fs::write(&evidence_file, &out.stdout).unwrap();
    for kind in ["api-surface", "environment-manifest", "environment-state"] {
        let out = view(evidence_file.to_str().unwrap(), json!({"kind": kind}));
        assert!(!out.status.success(), "{kind}");
        let err: Value = serde_json::from_slice(&out.stderr).unwrap();
        assert_eq!(err["category"], "unsupported", "{kind}: {err}");
        assert_eq!(err["details"]["reason"], "non_har_capture", "{kind}: {err}");
    }
}

/// SAZ-02 and VIEW-01 on SAZ: MCP takes `capture_path`, `format: "saz"` and
/// `record_ordinals`; a summary's retained parent pages through the capture view.
#[test]
fn mcp_inspects_saz_and_pages_the_retained_parent() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rea"))
        .arg("inspect-mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut id = 0;
    let mut request =
        |stdin: &mut std::process::ChildStdin, method: &str, params: Value| -> Value {
            id += 1;
            writeln!(
                stdin,
                "{}",
                json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
            )
            .unwrap();
            stdin.flush().unwrap();
            for _ in 0..100 {
                let line = rx
                    .recv_timeout(Duration::from_secs(60))
                    .expect("a reply within 60 s");
                let value: Value = serde_json::from_str(&line).unwrap();
                if value["id"] == id {
                    return value;
                }
            }
            panic!("no reply");
        };
    request(
        &mut stdin,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "saz-test", "version": "0"}}),
    );
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    )
    .unwrap();
    let path = repo().join(fixture("httpbin-test"));
    let path = path.to_str().unwrap();
    let one = request(
        &mut stdin,
        "tools/call",
        json!({"name": "inspect_web_network_capture",
        "arguments": {"capture_path": path, "format": "saz", "record_ordinals": [0]}}),
    );
    let records = one["result"]["structuredContent"]["records"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["ordinal"], 0);
    assert_eq!(records[0]["location"]["members"][0], "raw/1_c.txt");

    let summary = request(
        &mut stdin,
        "tools/call",
        json!({"name": "inspect_web_network_capture",
        "arguments": {"capture_path": path, "format": "saz", "detail": "summary"}}),
    );
    let s = &summary["result"]["structuredContent"];
    assert_eq!(s["total_records"], 6);
    let evidence_id = s["normalized_result"]["parent_evidence_id"]
        .as_str()
        .unwrap()
        .to_string();
    let page = request(
        &mut stdin,
        "tools/call",
        json!({"name": "inspect_analysis_view", "arguments": {
        "source": {"kind": "retained-evidence", "evidence_id": evidence_id},
        "view": {"kind": "capture", "detail": "preview", "offset": 0, "limit": 20}}}),
    );
    let page = &page["result"]["structuredContent"];
    assert_eq!(page["records"].as_array().unwrap().len(), 6);
    assert_eq!(page["records"][5]["method"], "POST");
    drop(stdin);
    for _ in 0..100 {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The SAZ commands `docs/fiddler-everywhere.md` and `docs/saz.md` document
/// run as written (the `/absolute/session.saz` placeholder replaced by the
/// real fixture's absolute path).
#[test]
fn documented_saz_commands_work() {
    let absolute = repo().join(fixture("httpbin-test"));
    let absolute = absolute.to_str().unwrap();
    let mut commands = Vec::new();
    for page in ["docs/fiddler-everywhere.md", "docs/saz.md"] {
        let text = std::fs::read_to_string(repo().join(page)).unwrap();
        for line in text
            .lines()
            .filter(|l| l.starts_with("rea inspect-web-network-capture "))
        {
            commands.push(line.replace("/absolute/session.saz", absolute));
        }
    }
    assert!(commands.len() >= 4, "{commands:?}");
    for command in commands {
        let args: Vec<&str> = command.split_whitespace().skip(1).collect();
        let doc = ok_json(&args);
        assert_eq!(doc["capture"]["format"], "saz", "{command}");
        assert!(!doc["records"].as_array().unwrap().is_empty(), "{command}");
    }
}
