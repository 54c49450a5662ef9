//! Operating the served fake (`/_rea/`): the request journal after HTTP, MCP
//! and data-plane calls, its ring bound, the nearest-tool explanation, that
//! it never holds a recorded credential; coverage after known misses;
//! health and readiness; the admin prefix; one log line per request in text
//! and JSON, on stderr only under `--stdio`; `--version`.

mod common;

use common::{fixture, http, rea, repo_root, Mcp, Server};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

const PRODUCTS: &str = "/v1/buckets/shop/collections/products/records";

fn formats(name: &str) -> PathBuf {
    repo_root().join("tests/fixtures/formats").join(name)
}

fn journal(server: &Server, query: &str) -> Value {
    let r = server.get(&format!("/_rea/requests{query}"));
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

fn entries(server: &Server, query: &str) -> Vec<Value> {
    journal(server, query)["entries"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn the_journal_holds_http_mcp_and_data_plane_calls() {
    let server = Server::start(&fixture("dev-a.har"), &[]);
    assert_eq!(server.get(&format!("{PRODUCTS}/prod-001")).status, 200);
    let mut mcp = Mcp::connect(server.addr);
    let tools = mcp.tools();
    let read = tools
        .iter()
        .find(|t| t["title"] == format!("GET {PRODUCTS}/{{record_id}}"))
        .and_then(|t| t["name"].as_str())
        .unwrap()
        .to_string();
    let result = mcp.call(&read, json!({"record_id": "prod-002"}));
    assert_ne!(result["isError"], true, "{result}");
    let reply = mcp.request(
        "tools/call",
        json!({"name": "no_such_tool_at_all", "arguments": {}}),
    );
    assert!(reply.get("error").is_some(), "{reply}");
    assert!(server.rpc("data/reset", json!({}))["result"].is_object());
    assert_eq!(server.get("/v1/nowhere/at/all").status, 404);

    let all = entries(&server, "");
    let surfaces: Vec<&str> = all.iter().map(|e| e["surface"].as_str().unwrap()).collect();
    assert_eq!(
        surfaces,
        ["http", "mcp", "mcp", "data-plane", "http"],
        "{all:?}"
    );
    // Ids increase; every entry has status, size, source, applied, duration.
    for (i, e) in all.iter().enumerate() {
        assert_eq!(e["id"], i as u64 + 1);
        for key in ["status", "size", "source", "applied", "duration_ms", "time"] {
            assert!(!e[key].is_null(), "{key} missing in {e}");
        }
    }
    let http_read = &all[0];
    assert_eq!(http_read["request"]["method"], "GET");
    assert_eq!(http_read["request"]["path"], format!("{PRODUCTS}/prod-001"));
    assert_eq!(http_read["status"], 200);
    assert_eq!(http_read["source"], "world");
    assert!(http_read["size"].as_u64().unwrap() > 10);
    assert_eq!(all[1]["tool"], read.as_str());
    assert_eq!(all[1]["request"]["arguments"]["record_id"], "prod-002");
    assert_eq!(all[1]["status"], 200);
    assert_eq!(all[2]["code"], "unknown_tool");
    assert_eq!(all[2]["source"], "unmatched");
    assert_eq!(all[3]["request"]["operation"], "data/reset");
    assert_eq!(all[3]["applied"], "yes");
    assert_eq!(all[4]["code"], "no_matching_tool");

    // Filters: by status (exact and class), tool and source.
    assert_eq!(entries(&server, "?status=4xx").len(), 2);
    assert_eq!(entries(&server, "?status=200").len(), 3);
    // The HTTP read and the MCP call went to the same tool.
    assert_eq!(entries(&server, &format!("?tool={read}")).len(), 2);
    assert_eq!(entries(&server, "?source=unmatched").len(), 2);
    assert_eq!(entries(&server, "?surface=mcp").len(), 2);
    assert_eq!(entries(&server, "?limit=1")[0]["id"], 5);

    // DELETE empties it; ids go on.
    let cleared = http(server.addr, "DELETE", "/_rea/requests", &[], None);
    assert_eq!(cleared.status, 204);
    assert!(entries(&server, "").is_empty());
    server.get(&format!("{PRODUCTS}/prod-001"));
    assert_eq!(entries(&server, "")[0]["id"], 6);
}

#[test]
fn the_ring_keeps_only_the_newest_calls() {
    let server = Server::start(&fixture("dev-a.har"), &["--journal-size", "3"]);
    for i in 0..7 {
        server.get(&format!("{PRODUCTS}/prod-00{i}"));
    }
    let j = journal(&server, "");
    assert_eq!(j["capacity"], 3);
    assert_eq!(j["held"], 3);
    let ids: Vec<u64> = j["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, [5, 6, 7]);
    // The default bound is 1,000.
    let server = Server::start(&fixture("dev-a.har"), &[]);
    assert_eq!(journal(&server, "")["capacity"], 1000);
}

#[test]
fn an_unmatched_path_names_its_nearest_tools_and_why() {
    let server = Server::start(&fixture("dev-a.har"), &[]);
    let typo = "/v1/buckets/shop/collectionz/products/records/prod-001";
    assert_eq!(server.get(typo).status, 404);
    let e = &entries(&server, "?source=unmatched")[0];
    assert_eq!(e["code"], "no_matching_tool");
    let nearest = e["nearest"].as_array().expect("nearest tools");
    assert!(!nearest.is_empty() && nearest.len() <= 3, "{nearest:?}");
    assert_eq!(
        nearest[0]["template"],
        format!("{PRODUCTS}/{{record_id}}"),
        "{nearest:?}"
    );
    assert_eq!(nearest[0]["method"], "GET");
    assert_eq!(
        nearest[0]["why"][0],
        "segment 4 is `collectionz`; the tool expects `collections`"
    );
    // The wrong method on a known path says which method the tool answers.
    server.send("PUT", "/v1/buckets/shop/collections", Some(&json!({})));
    let e = entries(&server, "?source=unmatched").pop().unwrap();
    let why = e["nearest"][0]["why"].to_string();
    assert!(why.contains("answers GET, not PUT"), "{e}");
}

#[test]
fn the_journal_and_log_never_hold_a_recorded_credential() {
    let har = formats("api-http1.har");
    let recorded: Value = serde_json::from_slice(&std::fs::read(&har).unwrap()).unwrap();
    let mut secrets = Vec::new();
    for entry in recorded["log"]["entries"].as_array().unwrap() {
        for side in ["request", "response"] {
            for h in entry[side]["headers"].as_array().unwrap() {
                let name = h["name"].as_str().unwrap().to_ascii_lowercase();
                if ["authorization", "cookie", "set-cookie"].contains(&name.as_str()) {
                    secrets.push(h["value"].as_str().unwrap().to_string());
                }
            }
        }
    }
    assert!(
        secrets.iter().any(|s| s.starts_with("Bearer ")),
        "{secrets:?}"
    );
    assert!(
        secrets.iter().any(|s| s.contains("session=")),
        "{secrets:?}"
    );
    let authorization = secrets.iter().find(|s| s.starts_with("Bearer ")).unwrap();
    let token = authorization.trim_start_matches("Bearer ");
    let cookie = secrets.iter().find(|s| s.contains("session=")).unwrap();
    let session = cookie
        .split(';')
        .find_map(|p| p.trim().strip_prefix("session="))
        .unwrap();

    let mut server = Server::start(&har, &[]);
    // A client sends the recorded credentials back: headers, query, body.
    let headers = [
        ("Authorization", authorization.as_str()),
        ("Cookie", cookie.as_str()),
        ("Content-Type", "application/json"),
    ];
    http(server.addr, "GET", "/api/items/1", &headers, None);
    http(
        server.addr,
        "GET",
        &format!("/api/headers?access_token={token}&session={session}"),
        &headers,
        None,
    );
    let body = json!({"user": "u", "password": token, "nested": {"session": session}});
    http(
        server.addr,
        "POST",
        "/api/form",
        &headers,
        Some(&body.to_string()),
    );

    let journal = server.get("/_rea/requests").text();
    assert!(journal.contains("redacted"), "{journal}");
    assert!(journal.contains("/api/items/1"), "{journal}");
    let coverage = server.get("/_rea/coverage").text();
    server.stop();
    let log = server.log_text();
    for text in [&journal, &coverage, &log] {
        for secret in [authorization.as_str(), cookie.as_str(), token, session] {
            assert!(!text.contains(secret), "{secret} leaked: {text}");
        }
    }
}

#[test]
fn coverage_lists_what_the_fake_could_not_answer() {
    let mut server = Server::start(&formats("api-http1.har"), &[]);
    assert_eq!(server.get("/api/nothing/here").status, 404);
    assert_eq!(server.get("/api/nothing/here").status, 404);
    // A recorded view asked for a line the capture never saw.
    assert_eq!(server.get("/api/blob/2048").status, 404);
    // A recorded write whose plan is not served.
    let r = server.send("POST", "/api/form", Some(&json!({"a": 1})));
    assert_eq!(r.status, 501, "{}", r.text());
    assert_eq!(server.get("/api/items/1").status, 200);

    let c = server.get("/_rea/coverage").json();
    assert_eq!(c["calls"], 5);
    assert_eq!(c["unanswered"], 4);
    let unmatched = c["unmatched_routes"].as_array().unwrap();
    assert_eq!(unmatched.len(), 1, "{c}");
    assert_eq!(unmatched[0]["line"], "GET /api/nothing/here");
    assert_eq!(unmatched[0]["count"], 2);
    assert!(unmatched[0]["nearest"]["tool"].is_string(), "{c}");
    let unrecorded = c["unrecorded_lines"].as_array().unwrap();
    assert_eq!(unrecorded.len(), 1, "{c}");
    assert_eq!(unrecorded[0]["line"], "GET /api/blob/2048");
    assert_eq!(unrecorded[0]["tool"], "get_blob_by_id");
    let form = c["unserved_writes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["tool"] == "post_form")
        .cloned()
        .expect("post_form is an unserved write");
    assert_eq!(form["count"], 1);
    assert_eq!(form["reason"], "no-state-target");
    assert!(c["unconfirmed_model_answers"].is_array());
    // The journal entry of the unserved write carries the plan's reason.
    let e = entries(&server, "?tool=post_form").pop().unwrap();
    assert_eq!(e["code"], "write_not_served");
    assert_eq!(e["reason"], "no-state-target");

    // The end-of-run summary says the same on shutdown.
    server.stop();
    let log = server.log_text();
    assert!(log.contains("coverage: 5 calls, 4 not answered"), "{log}");
    assert!(log.contains("GET /api/nothing/here ×2; nearest"), "{log}");
    assert!(
        log.contains("GET /api/blob/2048 ×1 [get_blob_by_id]"),
        "{log}"
    );
    assert!(
        log.contains("POST /api/form ×1 [post_form: no-state-target]"),
        "{log}"
    );
}

#[test]
fn health_and_readiness() {
    let server = Server::start(&fixture("dev-a.har"), &[]);
    let health = server.get("/_rea/health");
    assert_eq!(health.status, 200);
    assert_eq!(health.json(), json!({"status": "ok"}));
    let ready = server.get("/_rea/ready");
    assert_eq!(ready.status, 200);
    assert_eq!(ready.json()["ready"], true);
    // Probes are not calls of the fake: the journal stays empty.
    assert!(entries(&server, "").is_empty());
    let page = server.get("/_rea/");
    assert_eq!(page.status, 200);
    assert!(page
        .header("content-type")
        .unwrap()
        .starts_with("text/html"));
    assert!(page.text().contains("<title>rea</title>"));
    // No external asset: nothing is loaded from another origin.
    assert!(!page.text().contains("http://") && !page.text().contains("https://"));
    assert_eq!(server.get("/_rea").status, 200);
}

#[test]
fn the_admin_prefix_moves() {
    let server = Server::start(&fixture("dev-a.har"), &["--admin-prefix", "/_ops"]);
    assert_eq!(server.get("/_ops/health").status, 200);
    assert_eq!(server.get("/_ops/requests").status, 200);
    let openapi = server.get("/_ops/openapi.json");
    assert_eq!(openapi.status, 200);
    assert_eq!(openapi.json()["openapi"], "3.1.0");
    assert_eq!(server.get("/_rea/openapi.json").status, 404);
    // /_rea/ is the app's again (no tool matches it here).
    let r = server.get("/_rea/health");
    assert_eq!(r.status, 404);
    assert_eq!(r.json()["error"], "no_matching_tool");

    // A capture whose app uses /_rea/ moves the admin routes by itself.
    let dir = tempfile::tempdir().unwrap();
    let har = std::fs::read_to_string(formats("api-http1.har")).unwrap();
    let moved = dir.path().join("app-uses-rea.har");
    std::fs::write(&moved, har.replace(":18080/api/", ":18080/_rea/api/")).unwrap();
    let server = Server::start(&moved, &[]);
    assert_eq!(server.get("/__rea/health").status, 200);
    let item = server.get("/_rea/api/items/1");
    assert_eq!(item.status, 200, "{}", item.text());
    assert!(server
        .log_text()
        .contains("the admin routes moved to /__rea/"));

    let bad = Command::new(rea())
        .args(["environment-serve", "--admin-prefix", "rea/"])
        .arg(fixture("dev-a.har"))
        .args(["--port", "0"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2), "{bad:?}");
    assert!(String::from_utf8_lossy(&bad.stderr).contains("admin prefix"));
}

/// The request log lines (target `rea::request`) in a server's stderr.
fn request_lines(log: &str) -> Vec<String> {
    log.lines()
        .filter(|l| l.contains("rea::request"))
        .map(str::to_string)
        .collect()
}

fn three_calls(server: &Server) {
    server.get(&format!("{PRODUCTS}/prod-001"));
    server.get("/v1/nowhere");
    server.rpc("data/get", json!({}));
}

#[test]
fn one_text_log_line_per_request() {
    let mut server = Server::start(&fixture("dev-a.har"), &[]);
    three_calls(&server);
    server.stop();
    let lines = request_lines(&server.log_text());
    assert_eq!(lines.len(), 3, "{lines:#?}");
    assert!(lines[0].contains(" INFO "), "{}", lines[0]);
    assert!(lines[0].contains(&format!("path=\"{PRODUCTS}/prod-001\"")));
    assert!(
        lines[0].contains("tool=\"get_buckets_shop_collections_products_records_by_record_id\"")
    );
    assert!(lines[0].contains("source=\"world\"") && lines[0].contains("status=200"));
    assert!(lines[0].contains("duration_ms="));
    assert!(lines[1].contains("source=\"unmatched\"") && lines[1].contains("status=404"));
    assert!(lines[2].contains("method=\"data/get\""));

    // -q hides them; RUST_LOG overrides the flags.
    let mut quiet = Server::start(&fixture("dev-a.har"), &["-q"]);
    three_calls(&quiet);
    quiet.stop();
    assert!(request_lines(&quiet.log_text()).is_empty());
    let mut cmd = Command::new(rea());
    cmd.arg("environment-serve")
        .arg(fixture("dev-a.har"))
        .args(["--port", "0", "-q"])
        .env("RUST_LOG", "rea::request=info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut loud = Server::spawn(cmd);
    three_calls(&loud);
    loud.stop();
    assert_eq!(request_lines(&loud.log_text()).len(), 3);
}

#[test]
fn one_json_log_line_per_request() {
    let mut server = Server::start(&fixture("dev-a.har"), &["--log-format", "json"]);
    three_calls(&server);
    server.stop();
    let lines: Vec<Value> = server
        .log_text()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["target"] == "rea::request")
        .collect();
    assert_eq!(lines.len(), 3, "{}", server.log_text());
    let first = &lines[0];
    assert_eq!(first["level"], "INFO");
    assert_eq!(first["method"], "GET");
    assert_eq!(first["path"], format!("{PRODUCTS}/prod-001"));
    assert_eq!(first["source"], "world");
    assert_eq!(first["status"], 200);
    assert!(first["duration_ms"].is_number());
    assert!(first["tool"].is_string());
    assert_eq!(lines[1]["source"], "unmatched");
    assert_eq!(lines[2]["surface"], "data-plane");
}

#[test]
fn under_stdio_logs_go_to_stderr_only() {
    let mut child = Command::new(rea())
        .arg("environment-serve")
        .arg(fixture("dev-a.har"))
        .args(["--stdio", "--log-format", "json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ];
    for m in &messages {
        writeln!(stdin, "{m}").unwrap();
    }
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut out = Vec::new();
    let tools = loop {
        let line = rx.recv_timeout(Duration::from_secs(60)).expect("a reply");
        let v: Value = serde_json::from_str(&line).expect("stdout carries only JSON-RPC");
        out.push(v.clone());
        if v["id"] == 2 {
            break v["result"]["tools"].clone();
        }
    };
    let name = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["title"] == format!("GET {PRODUCTS}/{{record_id}}"))
        .and_then(|t| t["name"].as_str())
        .unwrap()
        .to_string();
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": name, "arguments": {"record_id": "prod-001"}}});
    writeln!(stdin, "{call}").unwrap();
    loop {
        let line = rx.recv_timeout(Duration::from_secs(60)).expect("a reply");
        let v: Value = serde_json::from_str(&line).expect("stdout carries only JSON-RPC");
        assert_eq!(v["jsonrpc"], "2.0");
        if v["id"] == 3 {
            break;
        }
    }
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<Value> = stderr
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["target"] == "rea::request")
        .collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert_eq!(lines[0]["tool"], name.as_str());
    assert_eq!(lines[0]["surface"], "mcp");
    assert!(stderr.contains("coverage: 1 calls"), "{stderr}");
}

#[test]
fn version_names_the_git_commit() {
    let out = Command::new(rea()).arg("--version").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with(&format!("rea {} (commit ", env!("CARGO_PKG_VERSION"))),
        "{text}"
    );
    let commit = text
        .trim()
        .trim_end_matches(')')
        .rsplit(' ')
        .next()
        .unwrap();
    let head = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(repo_root())
        .output();
    match head {
        Ok(h) if h.status.success() => {
            assert_eq!(commit, String::from_utf8_lossy(&h.stdout).trim());
        }
        _ => assert_eq!(commit, "unknown"),
    }
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

fn run_script(script: &str, args: &[String], path: Option<&str>) -> String {
    let python = venv_python();
    let mut cmd = Command::new(python);
    cmd.arg(repo_root().join("tests/python").join(script))
        .args(args)
        .current_dir(repo_root().join("tests/python"));
    if let Some(path) = path {
        cmd.env("PATH", path);
    }
    let out = cmd.output().expect("run python");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(out.status.success(), "{script} failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
    stdout
}

/// Headless Chromium (Debian's `chromium`, driven by Playwright from the
/// test venv) on the live page: tools and a table shown, an HTTP write in the
/// page's journal within a second, a screenshot under the test's output
/// (`target/rea-admin-page.png`).
#[test]
fn the_live_page_works_in_a_real_browser() {
    let server = Server::start(&fixture("dev-a.har"), &[]);
    let body = common::recorded_body("dev-a.har", "POST", PRODUCTS, "Browser Mug");
    let shot = repo_root().join("target").join("rea-admin-page.png");
    let _ = std::fs::remove_file(&shot);
    let out = run_script(
        "admin_page.py",
        &[
            format!("http://{}", server.addr),
            PRODUCTS.to_string(),
            body.to_string(),
            shot.display().to_string(),
        ],
        None,
    );
    assert!(out.contains("journal showed the write after"), "{out}");
    assert!(std::fs::metadata(&shot).unwrap().len() > 10_000);
}

/// The stdio client configuration in docs/serving.md, verbatim (only the
/// placeholder path made real), works with the `mcp` SDK once `rea` is on
/// PATH, as `cargo install --path .` puts it.
#[test]
fn the_documented_stdio_configuration_works_with_the_mcp_sdk() {
    let bin = PathBuf::from(rea());
    let dir = bin.parent().unwrap().display().to_string();
    let path = match std::env::var("PATH") {
        Ok(p) if !p.is_empty() => format!("{dir}:{p}"),
        _ => dir,
    };
    run_script(
        "docs_stdio.py",
        &[
            repo_root().join("docs/serving.md").display().to_string(),
            repo_root().display().to_string(),
        ],
        Some(&path),
    );
}

/// MCP tools of recorded gRPC methods (answered from recorded messages,
/// outside the engine) are journaled and logged too.
#[test]
fn grpc_method_tools_are_journaled() {
    let descriptor = formats("api.pb").display().to_string();
    let mut server = Server::start(
        &formats("grpc-native.har"),
        &["--descriptor-set", &descriptor],
    );
    let mut mcp = Mcp::connect(server.addr);
    mcp.call("grpc_Catalogue_GetProduct", json!({"sku": "SKU-001"}));
    mcp.call("grpc_Catalogue_GetProduct", json!({"sku": "SKU-777"}));
    let all = entries(&server, "?tool=grpc_Catalogue_GetProduct");
    assert_eq!(all.len(), 2, "{all:?}");
    assert_eq!(all[0]["surface"], "mcp");
    assert_eq!(all[0]["status"], 200);
    assert_eq!(all[0]["source"], "recording");
    assert_eq!(all[0]["request"]["arguments"]["sku"], "SKU-001");
    assert_eq!(all[1]["code"], "not_recorded");
    assert_eq!(all[1]["source"], "unmatched");
    server.stop();
    let lines = request_lines(&server.log_text());
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains("tool=\"grpc_Catalogue_GetProduct\""))
            .count(),
        2,
        "{lines:#?}"
    );
}
