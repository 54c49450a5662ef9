//! Runs the real Python clients against the built server: the AgentEnv
//! reference client (`agentenv-framework-protocol`) and the official `mcp`
//! SDK over stdio and streamable HTTP. `tests/python/setup.sh` installs the
//! pinned packages into `.venv` at the repo root (idempotent).

mod common;

use common::{fixture, repo_root, Mcp, Server};
use serde_json::{json, Value};
use std::process::Command;

const PRODUCTS: &str = "/v1/buckets/shop/collections/products/records";

fn venv_python() -> std::path::PathBuf {
    let root = repo_root();
    let status = Command::new("bash")
        .arg(root.join("tests/python/setup.sh"))
        .status()
        .expect("run tests/python/setup.sh");
    assert!(status.success(), "tests/python/setup.sh failed: {status:?}");
    root.join(".venv/bin/python")
}

fn tool_name(tools: &[Value], title: &str) -> String {
    tools
        .iter()
        .find(|t| t["title"] == title)
        .and_then(|t| t["name"].as_str())
        .unwrap_or_else(|| panic!("no tool titled {title}"))
        .to_string()
}

fn run_script(python: &std::path::Path, script: &str, args: &[String]) {
    let out = Command::new(python)
        .arg(repo_root().join("tests/python").join(script))
        .args(args)
        .current_dir(repo_root().join("tests/python"))
        .output()
        .expect("run python");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(out.status.success(), "{script} failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}

#[test]
fn real_python_clients_drive_the_server() {
    let python = venv_python();
    let server = Server::start(&fixture("dev-a.har"), &[]);
    let tools = Mcp::connect(server.addr).tools();
    let read = tool_name(&tools, &format!("GET {PRODUCTS}/{{record_id}}"));
    let write = tool_name(&tools, &format!("POST {PRODUCTS}"));
    let read_args = json!({"record_id": "prod-001"}).to_string();
    let body = common::recorded_body("dev-a.har", "POST", PRODUCTS, "Python Mug");
    let write_args = json!({ "body": body }).to_string();
    let base = format!("http://{}", server.addr);
    run_script(
        &python,
        "agentenv_clients.py",
        &[
            base.clone(),
            read.clone(),
            read_args.clone(),
            write.clone(),
            write_args.clone(),
        ],
    );
    run_script(
        &python,
        "mcp_clients.py",
        &[
            common::rea().to_string(),
            fixture("dev-a.har").display().to_string(),
            format!("{base}/mcp"),
            read,
            read_args,
            write,
            write_args,
        ],
    );
}

/// MCP conformance with the official SDK on the three dev captures: each
/// write tool succeeds with only its required properties, structured results
/// hold to their output schemas, closing a session logs nothing (issue 15
/// part 2).
#[test]
fn mcp_sdk_fills_only_required_properties_and_closes_quietly() {
    let python = venv_python();
    for (app, min_writes) in [("kinto", 5), ("wordpress", 1), ("mlflow", 0)] {
        let capture = repo_root()
            .join("tests/fixtures")
            .join(app)
            .join("dev-a.har");
        let server = Server::start(&capture, &[]);
        let base = format!("http://{}", server.addr);
        run_script(
            &python,
            "mcp_conformance.py",
            &[base, min_writes.to_string()],
        );
    }
}

/// The OpenAPI export (issue 15 part 1): `rea environment-openapi` on the
/// three dev captures validates with openapi-spec-validator, is
/// deterministic, is what `/_rea/openapi.json` serves, and a bounded
/// schemathesis run against the served fake with it finds no 5xx and no
/// answer violating the document.
#[test]
fn openapi_export_validates_and_schemathesis_finds_nothing() {
    let python = venv_python();
    let dir = tempfile::tempdir().unwrap();
    let mut documents = Vec::new();
    for app in ["kinto", "wordpress", "mlflow"] {
        let capture = repo_root()
            .join("tests/fixtures")
            .join(app)
            .join("dev-a.har");
        let export = || {
            let out = Command::new(common::rea())
                .arg("environment-openapi")
                .arg(&capture)
                .output()
                .expect("run rea");
            assert!(
                out.status.success(),
                "{app}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            out.stdout
        };
        let text = export();
        assert_eq!(text, export(), "{app}: the export is not deterministic");
        let yaml = Command::new(common::rea())
            .arg("environment-openapi")
            .arg(&capture)
            .arg("--yaml")
            .output()
            .unwrap();
        assert!(yaml.stdout.starts_with(b"openapi: 3.1.0\n"), "{app}");
        let path = dir.path().join(format!("{app}.openapi.json"));
        std::fs::write(&path, &text).unwrap();
        documents.push(path.display().to_string());

        let server = Server::start(&capture, &[]);
        let served = server.get("/_rea/openapi.json");
        assert_eq!(served.status, 200);
        let exported: Value = serde_json::from_slice(&text).unwrap();
        assert_eq!(served.json(), exported, "{app}");
        let base = format!("http://{}", server.addr);
        let schemathesis = python.with_file_name("schemathesis");
        let out = Command::new(&schemathesis)
            .args(["run", &format!("{base}/_rea/openapi.json"), "--url", &base])
            .args(["--mode", "positive"])
            .args(["--checks", "not_a_server_error,response_schema_conformance"])
            .args(["--max-examples", "10", "--generation-deterministic"])
            .args(["--phases", "examples,fuzzing", "--request-timeout", "10"])
            .current_dir(dir.path())
            .output()
            .expect("run schemathesis");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{app}: schemathesis found issues:\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains(" passed"), "{app}: {stdout}");
    }
    run_script(&python, "openapi_validate.py", &documents);
}

/// `examples/episode.py` (issue 15 part 4), the copy-paste episode with the
/// AgentEnv reference client, runs as written: on the shared World, and in
/// two isolated episodes of one `--isolate` server.
#[test]
fn the_episode_example_runs() {
    let python = venv_python();
    let capture = repo_root().join("examples/kinto-dev-a.har");
    let run = |base: &str, extra: &[&str]| {
        let out = Command::new(&python)
            .arg(repo_root().join("examples/episode.py"))
            .arg(base)
            .args(extra)
            .output()
            .expect("run examples/episode.py");
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            out.status.success(),
            "episode.py {extra:?} failed:\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: Value = serde_json::from_str(stdout.trim()).expect("one JSON line");
        assert_eq!(report["problems"], json!([]), "{report}");
    };
    let shared = Server::start(&capture, &[]);
    run(&format!("http://{}", shared.addr), &[]);
    run(&format!("http://{}", shared.addr), &[]);
    drop(shared);
    let isolated = Server::start(&capture, &["--isolate"]);
    let base = format!("http://{}", isolated.addr);
    run(&base, &["--episode", "run-1"]);
    run(&base, &["--episode", "run-2"]);
    // The episodes left the default World as recorded.
    let recorded = Server::start(&capture, &[]);
    assert_eq!(isolated.data(), recorded.data());
}

/// One truth per resource over the AgentEnv data plane (docs/serving.md):
/// the reference client's data/get, data/add and data/reset against a
/// WordPress capture whose tag creates the app model answers, read back
/// over plain HTTP.
#[test]
fn agentenv_client_sees_one_row_per_entity_the_app_model_writes() {
    let python = venv_python();
    let capture = repo_root().join("tests/fixtures/wordpress/dev-a.har");
    let server = Server::start(&capture, &[]);
    run_script(
        &python,
        "agentenv_one_truth.py",
        &[format!("http://{}", server.addr)],
    );
}

/// The app model's own World over the AgentEnv data plane: MLflow's RPC
/// entities and id counters are rows of declared tables that round-trip,
/// load, empty on a replace that leaves them out, and refuse a bad row.
#[test]
fn agentenv_client_round_trips_the_app_models_own_world() {
    let python = venv_python();
    let capture = repo_root().join("tests/fixtures/mlflow/dev-a.har");
    let server = Server::start(&capture, &[]);
    run_script(
        &python,
        "agentenv_app_model.py",
        &[format!("http://{}", server.addr)],
    );
}
