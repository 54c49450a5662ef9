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
        let capture = repo_root().join("tests/fixtures").join(app).join("dev-a.har");
        let server = Server::start(&capture, &[]);
        let base = format!("http://{}", server.addr);
        run_script(
            &python,
            "mcp_conformance.py",
            &[base, min_writes.to_string()],
        );
    }
}
