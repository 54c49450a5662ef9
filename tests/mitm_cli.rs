//! The `rea` binary on native mitmproxy captures: inspection on the CLI,
//! and serving (beyond the spec): the Kinto `dev-a.mitm` session derives the
//! same manifest and state as the HAR mitmproxy wrote in the same run
//! (`dev-a.har`), and `environment-serve` on each answers the same tools and
//! the same requests, over HTTP and MCP.

mod common;

use common::{fixture, recorded, Mcp, Server};
use rea_derivation::{environment_manifest, TemplateRule};
use serde_json::{json, Value};

fn evidence(name: &str, format: Option<&str>) -> Value {
    evidence_at(&fixture(name), format)
}

fn evidence_at(path: &std::path::Path, format: Option<&str>) -> Value {
    let (e, left_out) = rea_core::serving::capture_evidence(path, format, false).unwrap();
    assert!(left_out.is_empty());
    serde_json::to_value(e).unwrap()
}

/// A derived document without the fields that name its source file and
/// the limitations carried from its decoder (which differ by design).
fn without_source(mut v: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(o) => {
                for key in [
                    "subject",
                    "source",
                    "artifact",
                    "evidence_subject",
                    "capture",
                    "limitations",
                ] {
                    o.remove(key);
                }
                o.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

#[test]
fn the_mitm_session_derives_the_har_sessions_manifest_and_state() {
    let har = evidence("dev-a.har", None);
    let mitm = evidence("dev-a.mitm", None);
    assert_eq!(mitm["parameters"]["format"], "mitmproxy");
    assert_eq!(har["records"].as_array().unwrap().len(), 40);
    same_derivation(&har, &mitm);
    // The other sessions and apps, read where the shared fixtures are.
    let shared = common::repo_root().join("../shared/fixtures");
    for session in [
        "kinto/dev-b",
        "wordpress/dev-a",
        "wordpress/dev-b",
        "mlflow/dev-a",
        "mlflow/dev-b",
    ] {
        let har = evidence_at(&shared.join(format!("{session}.har")), None);
        let mitm = evidence_at(&shared.join(format!("{session}.mitm")), None);
        same_derivation(&har, &mitm);
    }
}

fn same_derivation(har: &Value, mitm: &Value) {
    for rules in [&[][..], &TemplateRule::ALL[..]] {
        let a = environment_manifest(har, rules, true).unwrap();
        let b = environment_manifest(mitm, rules, true).unwrap();
        assert!(!a.tools.is_empty());
        let (ta, tb) = (
            serde_json::to_string_pretty(&without_source(serde_json::to_value(&a).unwrap()))
                .unwrap(),
            serde_json::to_string_pretty(&without_source(serde_json::to_value(&b).unwrap()))
                .unwrap(),
        );
        assert_eq!(ta, tb);
        let sa = rea_derivation::state::environment_state(har, rules).unwrap();
        let sb = rea_derivation::state::environment_state(mitm, rules).unwrap();
        assert_eq!(
            without_source(serde_json::to_value(&sa).unwrap()),
            without_source(serde_json::to_value(&sb).unwrap())
        );
    }
}

/// Masks what a served write generates afresh (uuids, millisecond clocks).
fn generated_masked(v: Value) -> Value {
    match v {
        Value::String(s) if s.len() == 36 && s.chars().filter(|c| *c == '-').count() == 4 => {
            Value::String("<generated-id>".into())
        }
        Value::Number(n) if n.as_f64().is_some_and(|f| f > 1e12) => Value::from(0),
        Value::Array(a) => Value::Array(a.into_iter().map(generated_masked).collect()),
        Value::Object(o) => Value::Object(
            o.into_iter()
                .map(|(k, v)| (k, generated_masked(v)))
                .collect(),
        ),
        other => other,
    }
}

#[test]
fn serving_the_mitm_session_answers_like_serving_the_har() {
    let har = Server::start(&fixture("dev-a.har"), &[]);
    // Detected by content; `--format` names it explicitly for the second run.
    let mitm = Server::start(&fixture("dev-a.mitm"), &[]);
    let named = Server::start(&fixture("dev-a.mitm"), &["--format", "mitmproxy"]);

    let (mut a, mut b, mut c) = (
        Mcp::connect(har.addr),
        Mcp::connect(mitm.addr),
        Mcp::connect(named.addr),
    );
    let tools = a.tools();
    assert!(tools.len() > 5);
    assert_eq!(tools, b.tools());
    assert_eq!(tools, c.tools());
    // Every read-only tool that needs no argument answers the same over MCP.
    let mut called = 0;
    for t in &tools {
        let required = t["inputSchema"]["required"].as_array().map_or(0, Vec::len);
        if t["annotations"]["readOnlyHint"] != true || required > 0 {
            continue;
        }
        let name = t["name"].as_str().unwrap();
        assert_eq!(a.call(name, json!({})), b.call(name, json!({})), "{name}");
        called += 1;
    }
    assert!(called >= 3, "{called} tools called");

    // The held-out session's requests, in order, against both environments.
    let mut compared = 0;
    for e in recorded("dev-b.har") {
        let x = har.send(&e.method, &e.target, e.body.as_ref());
        let y = mitm.send(&e.method, &e.target, e.body.as_ref());
        assert_eq!(x.status, y.status, "{} {}", e.method, e.target);
        assert_eq!(
            x.header("content-type"),
            y.header("content-type"),
            "{} {}",
            e.method,
            e.target
        );
        // Each server names its own listening origin where the app named its own.
        let body = |bytes: &[u8], server: &Server| {
            let text = String::from_utf8_lossy(bytes)
                .replace(&format!("http://{}", server.addr), "http://<served-origin>");
            serde_json::from_str::<Value>(&text).ok()
        };
        let (xj, yj) = (body(&x.body, &har), body(&y.body, &mitm));
        assert_eq!(
            xj.map(generated_masked),
            yj.map(generated_masked),
            "{} {}",
            e.method,
            e.target
        );
        compared += 1;
    }
    assert_eq!(compared, 43);
    // After the same writes, both Worlds hold the same data.
    assert_eq!(generated_masked(har.data()), generated_masked(mitm.data()));
}

#[test]
fn an_unreadable_native_capture_fails_start_up_with_its_error() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("cut.mitm");
    let bytes = std::fs::read(fixture("dev-a.mitm")).unwrap();
    std::fs::write(&bad, &bytes[..bytes.len() / 2]).unwrap();
    let out = std::process::Command::new(common::rea())
        .args(["environment-manifest"])
        .arg(&bad)
        .arg("--json")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(err["code"], "mitmproxy_truncated");
}

#[test]
fn inspection_reads_native_flows_on_the_cli() {
    let path = common::repo_root().join("tests/fixtures/formats/ws-h2.mitm");
    let out = std::process::Command::new(common::rea())
        .arg("inspect-web-network-capture")
        .arg(&path)
        .args(["mitmproxy", "--record", "1", "--record", "0", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let e: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(e["capture"]["format"], "mitmproxy");
    assert_eq!(e["capture"]["total_records"], 11);
    assert_eq!(e["records"][0]["ordinal"], 1);
    assert_eq!(e["records"][1]["location"]["kind"], "byte-range");
    assert_eq!(e["basis"], "upstream-assembled-messages");
    // A HAR named as mitmproxy is refused with the tnetstring error.
    let out = std::process::Command::new(common::rea())
        .arg("inspect-web-network-capture")
        .arg(fixture("dev-a.har"))
        .args(["mitmproxy", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(err["code"], "mitmproxy_invalid_tnetstring");
}

#[test]
fn the_capture_view_pages_native_evidence_and_the_surface_refuses_it() {
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("ws-h2.evidence.json");
    let path = common::repo_root().join("tests/fixtures/formats/ws-h2.mitm");
    let out = std::process::Command::new(common::rea())
        .arg("inspect-web-network-capture")
        .arg(&path)
        .args(["mitmproxy", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    std::fs::write(&saved, &out.stdout).unwrap();
    let view = |spec: &str| {
        std::process::Command::new(common::rea())
            .arg("inspect-analysis-view")
            .arg("--source-file")
            .arg(&saved)
            .args(["--view", spec, "--json"])
            .output()
            .unwrap()
    };
    let out = view(r#"{"kind":"capture","detail":"preview","offset":1,"limit":2}"#);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(page["records"][0]["ordinal"], 1);
    assert_eq!(page["records"][0]["location"]["kind"], "byte-range");
    assert_eq!(page["records"][0]["method"], "GET");
    assert_eq!(page["records"][0]["status"], 200);
    assert_eq!(page["coverage"]["next_offset"], 3);
    let out = view(r#"{"kind":"api-surface"}"#);
    assert!(!out.status.success());
    let err: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(err["code"], "unsupported_parent");
}
