//! `rea environment-serve` over MCP (streamable HTTP at /mcp and stdio) on
//! the Kinto dev captures: the tool list, reads equal to HTTP, errors in the
//! data-plane shape, writes, and DNS-rebinding checks.

mod common;

use common::{block, fixture, recorded, Mcp, Server};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

const PRODUCTS: &str = "/v1/buckets/shop/collections/products/records";

fn tool<'a>(tools: &'a [Value], method: &str, template: &str) -> &'a Value {
    tools
        .iter()
        .find(|t| t["title"] == format!("{method} {template}"))
        .unwrap_or_else(|| panic!("no tool {method} {template}"))
}

#[test]
fn tools_carry_schemas_descriptions_and_explicit_hints() {
    let server = Server::start(&fixture("dev-a.har"), &[]);
    let mut mcp = Mcp::connect(server.addr);
    let tools = mcp.tools();
    assert!(!tools.is_empty());
    for t in &tools {
        let a = &t["annotations"];
        for hint in [
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        ] {
            assert!(a[hint].is_boolean(), "{} lacks {hint}: {a}", t["name"]);
        }
        assert_eq!(a["openWorldHint"], false);
        let title = t["title"].as_str().unwrap();
        let method = title.split(' ').next().unwrap();
        assert_eq!(a["destructiveHint"], method == "DELETE", "{title}");
        assert_eq!(a["readOnlyHint"], method == "GET", "{title}");
        assert!(
            t["description"].as_str().unwrap().starts_with(title),
            "{title}"
        );
        assert_eq!(t["inputSchema"]["type"], "object");
    }
    let item = tool(&tools, "GET", &format!("{PRODUCTS}/{{record_id}}"));
    assert_eq!(item["inputSchema"]["required"], json!(["record_id"]));
    let list = tool(&tools, "GET", PRODUCTS);
    assert!(
        list["inputSchema"]["properties"]["_sort"].is_object(),
        "observed query names: {list}"
    );
    // The card advertises the same tools.
    let card = server.get("/.well-known/agent-env.json").json();
    let advertised: Vec<&str> = card["capabilities"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    let listed: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(advertised, listed);
}

#[test]
fn a_read_over_mcp_answers_the_bytes_http_answers_and_the_recording() {
    let server = Server::start(&fixture("dev-a.har"), &[]);
    let mut mcp = Mcp::connect(server.addr);
    let tools = mcp.tools();
    let name = tool(&tools, "GET", &format!("{PRODUCTS}/{{record_id}}"))["name"]
        .as_str()
        .unwrap()
        .to_string();
    let result = mcp.call(&name, json!({"record_id": "prod-001"}));
    assert_eq!(result["isError"], false, "{result}");
    let http = server.get(&format!("{PRODUCTS}/prod-001"));
    assert_eq!(block(&result, 0).as_bytes(), http.body.as_slice());
    assert_eq!(result["structuredContent"], http.json());
    let entry = recorded("dev-a.har")
        .into_iter()
        .find(|e| e.target == format!("{PRODUCTS}/prod-001"))
        .unwrap();
    assert_eq!(Some(http.json()), entry.response);
}

#[test]
fn a_missing_item_is_an_error_result_in_the_data_plane_shape() {
    let server = Server::start(&fixture("dev-a.har"), &[]);
    let mut mcp = Mcp::connect(server.addr);
    let tools = mcp.tools();
    let name = tool(&tools, "GET", &format!("{PRODUCTS}/{{record_id}}"))["name"]
        .as_str()
        .unwrap()
        .to_string();
    let result = mcp.call(&name, json!({"record_id": "prod-999"}));
    assert_eq!(result["isError"], true, "{result}");
    assert!(block(&result, 0).starts_with("not_found: "), "{result}");
    assert!(block(&result, 1).starts_with("HTTP 404\n"), "{result}");
    let s = &result["structuredContent"];
    assert_eq!(s["code"], "not_found");
    assert_eq!(s["applied"], "no");
    assert_eq!(s["retryable"], false);
    assert!(s["message"].is_string());
    // An argument the tool does not take is refused the same way.
    let bad = mcp.call(&name, json!({"record_id": "prod-001", "bogus": 1}));
    assert_eq!(bad["isError"], true);
    assert_eq!(bad["structuredContent"]["code"], "invalid_arguments");
    // The protocol envelope stays with MCP: a call with no name is a JSON-RPC error.
    let no_name = mcp.request("tools/call", json!({"arguments": {}}));
    assert!(no_name["error"]["code"].is_i64(), "{no_name}");
}

#[test]
fn writes_over_mcp_change_what_reads_return() {
    let server = Server::start(&fixture("dev-a.har"), &[]);
    let mut mcp = Mcp::connect(server.addr);
    let tools = mcp.tools();
    let create = tool(&tools, "POST", PRODUCTS)["name"]
        .as_str()
        .unwrap()
        .to_string();
    let body = common::recorded_body("dev-a.har", "POST", PRODUCTS, "Tea Tin");
    let created = mcp.call(&create, json!({ "body": body }));
    assert_eq!(created["isError"], false, "{created}");
    let id = created["structuredContent"]["data"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let read = server.get(&format!("{PRODUCTS}/{id}"));
    assert_eq!(read.status, 200);
    assert_eq!(read.json()["data"]["name"], "Tea Tin");
    assert!(server.data().to_string().contains(&id));
}

#[test]
fn origins_other_than_loopback_are_refused_on_mcp() {
    let server = Server::start(&fixture("dev-a.har"), &[]);
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
    .to_string();
    let accept = ("Accept", "application/json, text/event-stream");
    let ct = ("Content-Type", "application/json");
    let evil = common::http(
        server.addr,
        "POST",
        "/mcp",
        &[ct, accept, ("Origin", "http://evil.example")],
        Some(&init),
    );
    assert_eq!(evil.status, 403, "{}", evil.text());
    let ok = common::http(
        server.addr,
        "POST",
        "/mcp",
        &[ct, accept, ("Origin", "http://localhost:3000")],
        Some(&init),
    );
    assert_eq!(ok.status, 200, "{}", ok.text());
    // A rebound DNS name arrives with a foreign Host header.
    let mut stream = std::net::TcpStream::connect(server.addr).unwrap();
    write!(stream, "POST /mcp HTTP/1.1\r\nHost: attacker.example\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{init}", init.len()).unwrap();
    let mut raw = String::new();
    std::io::Read::read_to_string(&mut stream, &mut raw).unwrap();
    assert!(raw.starts_with("HTTP/1.1 403"), "{raw}");
}

/// With --stdio, stdout carries only MCP messages: every line is JSON-RPC.
#[test]
fn stdio_serves_mcp_and_keeps_stdout_clean() {
    let mut child = Command::new(common::rea())
        .args(["environment-serve"])
        .arg(fixture("dev-a.har"))
        .arg("--stdio")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut send = |v: Value| {
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    };
    let mut read = || {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        serde_json::from_str::<Value>(&line)
            .unwrap_or_else(|e| panic!("stdout carried a non-JSON line ({e}): {line:?}"))
    };
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}));
    let init = read();
    assert_eq!(init["id"], 1);
    assert_eq!(init["result"]["serverInfo"]["name"], "rea");
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let list = read();
    let tools = list["result"]["tools"].as_array().unwrap();
    let name = tool(tools, "GET", &format!("{PRODUCTS}/{{record_id}}"))["name"]
        .as_str()
        .unwrap()
        .to_string();
    send(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": name, "arguments": {"record_id": "prod-010"}}}),
    );
    let call = read();
    assert_eq!(
        call["result"]["structuredContent"]["data"]["id"],
        "prod-010"
    );
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}

/// STATE-59 over MCP: an unserved write plan is not a tool; calling it by
/// name is a protocol error, not a state change.
#[test]
fn unserved_write_plans_are_not_mcp_tools() {
    let server = Server::start(&fixture("dev-b.har"), &[]);
    let mut mcp = Mcp::connect(server.addr);
    let names: Vec<String> = mcp
        .tools()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    let unserved = "patch_buckets_shop_collections_orders_records_by_uuid";
    assert!(!names.iter().any(|n| n == unserved), "{names:?}");
    assert!(names.iter().any(|n| n.starts_with("get_")));
    let before = server.data();
    let reply = mcp.request(
        "tools/call",
        json!({"name": unserved, "arguments": {"uuid": "e04b2b2e-91bb-494b-9b43-587f28db10f1", "body": {"data": {"status": "paid"}}}}),
    );
    assert!(reply["error"]["code"].is_i64(), "{reply}");
    assert_eq!(server.data(), before);
}

/// A tool call is answered by the tool it names: the recorded by-uuid read
/// (which replays) answers its recorded line, although the World-rendering
/// item tool also matches that path and, over HTTP, answers it from the
/// World (where the entity, created later in the recording, is not held).
#[test]
fn a_tool_call_is_answered_by_the_recorded_tool_it_names() {
    let server = Server::start(&fixture("dev-a.har"), &[]);
    let mut mcp = Mcp::connect(server.addr);
    let tools = mcp.tools();
    let by_uuid = tool(&tools, "GET", &format!("{PRODUCTS}/{{uuid}}"));
    let name = by_uuid["name"].as_str().unwrap().to_string();
    // The latest recording of the line is the one a recorded tool replays.
    let entry = recorded("dev-a.har")
        .into_iter()
        .rev()
        .find(|e| {
            e.method == "GET"
                && e.status == 200
                && e.target.starts_with(&format!("{PRODUCTS}/"))
                && e.target.len() == PRODUCTS.len() + 37
        })
        .expect("a recorded by-uuid read");
    let uuid = &entry.target[PRODUCTS.len() + 1..];
    let result = mcp.call(&name, json!({ "uuid": uuid }));
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(
        Some(result["structuredContent"].clone()),
        entry.response_served_at(server.addr)
    );
    // Over HTTP the same line reaches the World-rendering item tool.
    assert_eq!(server.get(&entry.target).status, 404);
}
