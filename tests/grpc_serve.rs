//! A real gRPC client (`grpcio` in the test venv) against `rea
//! environment-serve` on the native gRPC capture, over h2c: recorded
//! requests get the recorded answers (messages, metadata, grpc-status),
//! server streaming replays its frames, an unrecorded request is refused.
//! The same methods as MCP tools, with JSON messages under
//! `--descriptor-set`.

mod common;

use common::{repo_root, Mcp, Server};
use serde_json::json;
use std::path::PathBuf;
use std::process::Command;

fn formats(name: &str) -> PathBuf {
    repo_root().join("tests/fixtures/formats").join(name)
}

fn venv_python() -> PathBuf {
    let root = repo_root();
    let status = Command::new("bash")
        .arg(root.join("tests/python/setup.sh"))
        .status()
        .expect("run tests/python/setup.sh");
    assert!(status.success(), "tests/python/setup.sh failed: {status:?}");
    root.join(".venv/bin/python")
}

#[test]
fn grpcio_calls_the_served_fake_over_h2c() {
    let python = venv_python();
    let descriptor = formats("api.pb");
    let descriptor_arg = descriptor.display().to_string();
    let mut server = Server::start(
        &formats("grpc-native.mitm"),
        &["--descriptor-set", &descriptor_arg],
    );
    let out = Command::new(&python)
        .arg(repo_root().join("tests/python/grpc_client.py"))
        .arg(server.addr.to_string())
        .arg(&descriptor)
        .output()
        .expect("run python");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "grpc_client.py failed:\n{stdout}\n{stderr}\n{}",
        server.log_text()
    );
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
    server.stop();
}

#[test]
fn recorded_grpc_methods_are_mcp_tools_with_json_messages() {
    let descriptor = formats("api.pb").display().to_string();
    let mut server = Server::start(
        &formats("grpc-native.har"),
        &["--descriptor-set", &descriptor],
    );
    let mut mcp = Mcp::connect(server.addr);
    let tools = mcp.tools();
    let get = tools
        .iter()
        .find(|t| t["name"] == "grpc_Catalogue_GetProduct")
        .expect("the GetProduct tool");
    assert_eq!(get["inputSchema"]["properties"]["sku"]["type"], "string");
    let result = mcp.call("grpc_Catalogue_GetProduct", json!({"sku": "SKU-001"}));
    let answer = &result["structuredContent"];
    assert_eq!(answer["record_ordinal"], 0, "{result}");
    assert_eq!(answer["messages"][0]["sku"], "SKU-001");
    assert_eq!(answer["headers"]["x-catalogue-region"], "eu-west");
    let refused = mcp.call("grpc_Catalogue_GetProduct", json!({"sku": "SKU-777"}));
    assert_eq!(refused["isError"], true);
    assert_eq!(refused["structuredContent"]["code"], "not_recorded");
    server.stop();
}
