//! Hostile requests against `rea environment-serve` (the built binary on
//! 127.0.0.1, Kinto dev captures): identity-safe writes, cross-site and
//! DNS-rebinding protection on every surface, JSON-RPC and MCP protocol
//! errors to the letter, slow clients and connection limits, CORS
//! preflights, HEAD and 405.

mod common;

use common::{fixture, Server};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

const COLLECTIONS: &str = "/v1/buckets/shop/collections";

fn records(collection: &str) -> String {
    format!("{COLLECTIONS}/{collection}/records")
}

/// Ids of one collection's rows in the data/get export.
fn ids(server: &Server, collection: &str) -> Vec<String> {
    let list = server.get(&records(collection)).json();
    let mut out: Vec<String> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap_or("?").to_string())
        .collect();
    out.sort();
    out
}

/// One raw request (the exact bytes), answered text, the connection closed.
fn raw(addr: SocketAddr, request: &str) -> String {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

fn post_json(
    server: &Server,
    target: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> common::Response {
    let mut all = vec![("Content-Type", "application/json")];
    all.extend_from_slice(headers);
    common::http(server.addr, "POST", target, &all, Some(body))
}

#[test]
fn a_body_id_never_rewrites_an_entitys_identity() {
    let server = Server::start(&fixture("dev-a.har"), &[]);
    let before = ids(&server, "products");
    assert!(before.contains(&"prod-005".to_string()));
    let target = format!("{}/prod-005", records("products"));
    // The whole entity (as PUT needs it) under another id.
    let mut whole = server.get(&target).json()["data"].clone();
    for method in ["PATCH", "PUT"] {
        whole["id"] = json!("prod-002");
        let r = server.send(method, &target, Some(&json!({ "data": whole })));
        assert_eq!(r.status, 400, "{method}: {}", r.text());
        assert_eq!(r.json()["error"], "id_mismatch", "{method}");
        // A nested object as the id.
        whole["id"] = json!({"x": 1});
        let r = server.send(method, &target, Some(&json!({ "data": whole })));
        assert_eq!(r.status, 400, "{method}: {}", r.text());
        assert_eq!(r.json()["error"], "id_mismatch", "{method}");
    }
    assert_eq!(ids(&server, "products"), before, "ids unique and unchanged");
    // The same id as the path's is accepted and changes nothing of it.
    let r = server.send(
        "PATCH",
        &target,
        Some(&json!({"data": {"id": "prod-005", "stock": 4}})),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["data"]["id"], "prod-005");
    assert_eq!(ids(&server, "products"), before);
    // A create cannot bring an id that is not a string.
    let r = server.send(
        "POST",
        &records("products"),
        Some(&json!({"data": {"id": {"x": 1}, "name": "Odd"}})),
    );
    assert!(
        r.status == 400 || r.status == 409,
        "a non-scalar id is refused: {} {}",
        r.status,
        r.text()
    );
    // The export stays loadable.
    let data = server.data();
    let reply = server.rpc(
        "data/add",
        json!({"parts": [{"kind": "data", "data": data}]}),
    );
    assert_eq!(reply["result"], json!({}), "{reply}");
}

/// The same on the routes the app model answers (dev-b's order updates and
/// product creates are not served by the state's plans).
#[test]
fn app_model_writes_keep_identities_too() {
    let server = Server::start(&fixture("dev-b.har"), &[]);
    let target = format!("{}/ord-001", records("orders"));
    let before = server.get(&target).json();
    for id in [json!("zzz"), json!({"x": 1})] {
        let r = server.send("PATCH", &target, Some(&json!({"data": {"id": id}})));
        assert_eq!(r.status, 400, "{}", r.text());
        assert_eq!(r.json()["error"], "id_mismatch");
    }
    assert_eq!(server.get(&target).json(), before);
    let r = server.send(
        "PATCH",
        &target,
        Some(&json!({"data": {"id": "ord-001", "status": "shipped"}})),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["data"]["id"], "ord-001");
    let r = server.send(
        "POST",
        &records("products"),
        Some(&json!({"data": {"id": {"x": 1}, "name": "Odd"}})),
    );
    assert_eq!(r.status, 400, "{}", r.text());
}

#[test]
fn updates_validate_their_body_shape_the_same_on_every_route() {
    let server = Server::start(&fixture("dev-a.har"), &[]);
    let before = server.data();
    let mut codes = Vec::new();
    for (collection, id) in [
        ("products", "prod-001"),
        ("orders", "ord-001"),
        ("customers", "cust-001"),
    ] {
        let target = format!("{}/{id}", records(collection));
        let r = server.send("PATCH", &target, Some(&json!({"data": [1, 2]})));
        assert_eq!(r.status, 400, "{collection}: {}", r.text());
        codes.push(r.json()["error"].clone());
    }
    assert!(codes.iter().all(|c| c == &codes[0]), "{codes:?}");
    assert_eq!(server.data(), before);
}

#[test]
fn a_cross_site_page_cannot_change_the_world() {
    let server = Server::start(&fixture("dev-a.har"), &[]);
    let before = server.data();
    let wipe = json!({"jsonrpc": "2.0", "id": 1, "method": "data/add",
        "params": {"parts": [{"kind": "data", "data": {}}]}})
    .to_string();
    // The form a page can send without a preflight: text/plain, its Origin.
    let r = common::http(
        server.addr,
        "POST",
        "/agentenv",
        &[
            ("Content-Type", "text/plain"),
            ("Origin", "http://evil.example"),
        ],
        Some(&wipe),
    );
    assert_eq!(r.status, 403, "{}", r.text());
    // text/plain from the server's own origin is still not JSON-RPC.
    let r = common::http(
        server.addr,
        "POST",
        "/agentenv",
        &[("Content-Type", "text/plain")],
        Some(&wipe),
    );
    assert_eq!(r.status, 415, "{}", r.text());
    assert_eq!(r.json()["error"]["code"], -32600);
    let r = post_json(
        &server,
        "/agentenv",
        &[("Origin", "http://evil.example")],
        &wipe,
    );
    assert_eq!(r.status, 403);
    assert_eq!(r.json()["error"]["data"]["code"], "origin_not_allowed");
    // The app's own write paths refuse it too (the recording shows no CORS).
    let r = post_json(
        &server,
        &format!("{}/prod-001", records("products")),
        &[("Origin", "http://evil.example")],
        r#"{"data": {"stock": 0}}"#,
    );
    assert_eq!(r.status, 403, "{}", r.text());
    assert_eq!(r.json()["error"], "origin_not_allowed");
    let r = common::http(
        server.addr,
        "DELETE",
        &format!("{}/prod-001", records("products")),
        &[("Origin", "null")],
        None,
    );
    assert_eq!(r.status, 403);
    // An `<img>` from another site sends no Origin, but says it is cross-site.
    let r = common::http(
        server.addr,
        "GET",
        "/.well-known/agent-env.json",
        &[
            ("Sec-Fetch-Site", "cross-site"),
            ("Sec-Fetch-Mode", "no-cors"),
        ],
        None,
    );
    assert_eq!(r.status, 403);
    // A link followed from another site is a navigation, and may read.
    let r = common::http(
        server.addr,
        "GET",
        &records("products"),
        &[
            ("Sec-Fetch-Site", "cross-site"),
            ("Sec-Fetch-Mode", "navigate"),
        ],
        None,
    );
    assert_eq!(r.status, 200);
    assert_eq!(server.data(), before);
    // A page on loopback (a local front end) is not foreign.
    let r = post_json(
        &server,
        "/agentenv",
        &[("Origin", "http://localhost:5173")],
        r#"{"jsonrpc": "2.0", "id": 2, "method": "data/get"}"#,
    );
    assert_eq!(r.status, 200);
}

#[test]
fn a_foreign_host_is_refused_on_every_surface() {
    let server = Server::start(&fixture("dev-a.har"), &[]);
    let get = r#"{"jsonrpc":"2.0","id":1,"method":"data/get"}"#;
    let cases = [
        format!("POST /agentenv HTTP/1.1\r\nHost: rebound.example:{}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{get}", server.addr.port(), get.len()),
        "GET /.well-known/agent-env.json HTTP/1.1\r\nHost: rebound.example\r\nConnection: close\r\n\r\n".to_string(),
        format!("GET {} HTTP/1.1\r\nHost: rebound.example\r\nConnection: close\r\n\r\n", records("products")),
        "GET /_rea/ HTTP/1.1\r\nHost: rebound.example\r\nConnection: close\r\n\r\n".to_string(),
        format!("POST /mcp HTTP/1.1\r\nHost: 10.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{get}", get.len()),
    ];
    for request in &cases {
        let answer = raw(server.addr, request);
        assert!(answer.starts_with("HTTP/1.1 403"), "{request}\n-> {answer}");
        assert!(answer.contains("host_not_allowed"), "{answer}");
        assert!(!answer.contains("prod-001"), "nothing leaks: {answer}");
    }
    // Loopback names pass.
    for host in ["localhost", "127.0.0.1", "[::1]"] {
        let answer = raw(
            server.addr,
            &format!("POST /agentenv HTTP/1.1\r\nHost: {host}:{}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{get}", server.addr.port(), get.len()),
        );
        assert!(answer.starts_with("HTTP/1.1 200"), "{host}: {answer}");
    }
}

#[test]
fn data_plane_json_rpc_to_the_letter() {
    let server = Server::start(&fixture("dev-a.har"), &[]);
    let before = server.data();
    // Duplicate member names are refused, as the HAR reader refuses them.
    let dup = r#"{"jsonrpc":"2.0","id":3,"method":"data/add","params":{"parts":[{"kind":"data","data":{"products":[],"products":[]}}]}}"#;
    let r = post_json(&server, "/agentenv", &[], dup);
    let reply = r.json();
    assert_eq!(reply["id"], 3, "{reply}");
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert!(reply["error"]["data"]["detail"]
        .as_str()
        .unwrap()
        .contains("/params/parts/0/data/products"));
    assert_eq!(server.data(), before);
    // A notification is carried out and never answered.
    let r = post_json(
        &server,
        "/agentenv",
        &[],
        r#"{"jsonrpc":"2.0","method":"data/add","params":{"parts":[{"kind":"data","data":{}}]}}"#,
    );
    assert_eq!(r.status, 204);
    assert!(r.body.is_empty());
    assert_ne!(server.data(), before, "the notification ran");
    let r = post_json(
        &server,
        "/agentenv",
        &[],
        r#"{"jsonrpc":"2.0","method":"data/reset"}"#,
    );
    assert_eq!(r.status, 204);
    assert!(r.body.is_empty());
    assert_eq!(server.data(), before);
    // An id is echoed as written, 1e400 included.
    let r = post_json(
        &server,
        "/agentenv",
        &[],
        r#"{"jsonrpc":"2.0","id":1e400,"method":"data/reset"}"#,
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.text(), r#"{"jsonrpc":"2.0","id":1e400,"result":{}}"#);
    // Batches: one answer per request, none for notifications.
    let r = post_json(
        &server,
        "/agentenv",
        &[],
        r#"[{"jsonrpc":"2.0","id":"a","method":"data/reset"},{"jsonrpc":"2.0","method":"data/reset"},{"jsonrpc":"2.0","id":"b","method":"nope"},5]"#,
    );
    let replies = r.json();
    let replies = replies.as_array().unwrap();
    assert_eq!(replies.len(), 3, "{replies:?}");
    assert_eq!(
        replies[0],
        json!({"jsonrpc": "2.0", "id": "a", "result": {}})
    );
    assert_eq!(replies[1]["error"]["code"], -32601);
    assert_eq!(replies[2]["id"], Value::Null);
    assert_eq!(replies[2]["error"]["code"], -32600);
    let r = post_json(&server, "/agentenv", &[], "[]");
    assert_eq!(r.json()["error"]["code"], -32600);
    let r = post_json(
        &server,
        "/agentenv",
        &[],
        r#"[{"jsonrpc":"2.0","method":"data/reset"}]"#,
    );
    assert_eq!(r.status, 204);
    // An id that is neither string, number nor null.
    let r = post_json(
        &server,
        "/agentenv",
        &[],
        r#"{"jsonrpc":"2.0","id":{},"method":"data/get"}"#,
    );
    assert_eq!(r.json()["error"]["code"], -32600);
    assert_eq!(r.json()["id"], Value::Null);
    // A number a double cannot hold inside params is refused, not nulled.
    let r = post_json(
        &server,
        "/agentenv",
        &[],
        r#"{"jsonrpc":"2.0","id":9,"method":"data/add","params":{"parts":[{"kind":"data","data":{"products":[{"id":"x","price":1e400}]}}]}}"#,
    );
    assert_eq!(r.json()["error"]["code"], -32602, "{}", r.text());
    assert_eq!(server.data(), before);
}

const ACCEPT: (&str, &str) = ("Accept", "application/json, text/event-stream");

fn mcp_post(server: &Server, body: &str) -> common::Response {
    post_json(server, "/mcp", &[ACCEPT], body)
}

#[test]
fn mcp_protocol_errors_to_the_letter() {
    let server = Server::start(&fixture("dev-a.har"), &[]);
    let r = mcp_post(&server, "{not json");
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"]["code"], -32700);
    assert_eq!(r.json()["id"], Value::Null);
    for bad in [
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
        r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1e400,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1}"#,
        r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
        "7",
    ] {
        let r = mcp_post(&server, bad);
        assert_eq!(r.status, 400, "{bad}: {}", r.text());
        assert_eq!(r.json()["error"]["code"], -32600, "{bad}");
    }
    let mut mcp = common::Mcp::connect(server.addr);
    let tool = mcp.tools()[0]["name"].as_str().unwrap().to_string();
    drop(mcp);
    let r = mcp_post(
        &server,
        &json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
            "params": {"name": tool, "arguments": [1, 2]}})
        .to_string(),
    );
    assert_eq!(r.json()["error"]["code"], -32602, "{}", r.text());
    assert_eq!(r.json()["id"], 4);
    // Other media types stay HTTP's answer.
    let r = common::http(
        server.addr,
        "POST",
        "/mcp",
        &[("Content-Type", "text/plain"), ACCEPT],
        Some("{}"),
    );
    assert_eq!(r.status, 415);
}

/// 2,000 half-open connections (nothing sent, half a header, half a body)
/// are closed by the server, and a normal request still answers.
#[test]
fn slow_clients_are_cut_off_and_others_still_answer() {
    let server = Server::start(
        &fixture("dev-a.har"),
        &[
            "--header-read-timeout",
            "1",
            "--idle-timeout",
            "2",
            "--max-connections",
            "4096",
        ],
    );
    let started = Instant::now();
    let mut slow = Vec::new();
    for i in 0..2000 {
        let mut s = TcpStream::connect_timeout(&server.addr, Duration::from_secs(10)).unwrap();
        match i % 3 {
            0 => {}
            1 => s
                .write_all(format!("GET {} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ", records("products")).as_bytes())
                .unwrap(),
            _ => s
                .write_all(b"POST /agentenv HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\"")
                .unwrap(),
        }
        slow.push(s);
    }
    // Every one is closed by the server, within a bounded time.
    let deadline = Instant::now() + Duration::from_secs(60);
    for (i, s) in slow.iter_mut().enumerate() {
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(!left.is_zero(), "connection {i} still open after 60 s");
        s.set_read_timeout(Some(left)).unwrap();
        let mut buf = [0u8; 4096];
        loop {
            match s.read(&mut buf) {
                Ok(0) => break,
                // A header timeout may answer 408 before closing.
                Ok(_) => continue,
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
                Err(e) => panic!("connection {i} not closed by the server: {e}"),
            }
        }
    }
    let elapsed = started.elapsed();
    let r = server.get(&records("products"));
    assert_eq!(r.status, 200);
    eprintln!("2000 slow connections closed in {elapsed:?}");
}

/// A kept-alive connection is given the header-read timeout for its next
/// request once an exchange has ended, and no longer.
#[test]
fn a_kept_alive_connection_waits_for_its_next_header_as_long_as_the_timeout() {
    let server = Server::start(
        &fixture("dev-a.har"),
        &["--header-read-timeout", "1", "--idle-timeout", "30"],
    );
    let mut s = TcpStream::connect_timeout(&server.addr, Duration::from_secs(10)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let request = format!(
        "GET {} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        records("products")
    );
    let mut buf = [0u8; 65536];
    for _ in 0..2 {
        s.write_all(request.as_bytes()).unwrap();
        let n = s.read(&mut buf).unwrap();
        assert!(
            buf[..n].starts_with(b"HTTP/1.1 200"),
            "{}",
            String::from_utf8_lossy(&buf[..n])
        );
        // Read the rest of this answer (one list read's body).
        s.set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        while s.read(&mut buf).is_ok_and(|n| n > 0) {}
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    }
    let quiet = Instant::now();
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(_) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
            Err(e) => panic!("the idle kept-alive connection was not closed: {e}"),
        }
    }
    let waited = quiet.elapsed();
    assert!(
        waited < Duration::from_secs(10),
        "closed after {waited:?}, not after the 1 s header timeout"
    );
}

/// At the connection limit new clients wait; an idle client is cut off and
/// the waiting one is served.
#[test]
fn the_connection_limit_holds_and_frees() {
    let server = Server::start(
        &fixture("dev-a.har"),
        &["--header-read-timeout", "1", "--max-connections", "2"],
    );
    let hold: Vec<TcpStream> = (0..2)
        .map(|_| TcpStream::connect(server.addr).unwrap())
        .collect();
    let started = Instant::now();
    let r = server.get(&records("products"));
    assert_eq!(r.status, 200);
    assert!(
        started.elapsed() >= Duration::from_millis(500),
        "served only once a slot was free"
    );
    drop(hold);
}

#[test]
fn cors_follows_the_recording_and_the_flag() {
    // The browser-recorded session shows `Access-Control-Allow-Origin: *`.
    let server = Server::start(&fixture("dev-a.playwright.har"), &[]);
    let target = format!("{}/prod-001", records("products"));
    let pre = common::http(
        server.addr,
        "OPTIONS",
        &target,
        &[
            ("Origin", "http://front.example"),
            ("Access-Control-Request-Method", "PATCH"),
            (
                "Access-Control-Request-Headers",
                "content-type, authorization",
            ),
        ],
        None,
    );
    assert_eq!(pre.status, 204, "{}", pre.text());
    assert_eq!(pre.header("access-control-allow-origin"), Some("*"));
    let methods = pre.header("access-control-allow-methods").unwrap();
    for m in ["GET", "HEAD", "PATCH", "DELETE"] {
        assert!(methods.contains(m), "{methods}");
    }
    let allowed = pre
        .header("access-control-allow-headers")
        .unwrap()
        .to_ascii_lowercase();
    assert!(allowed.contains("content-type") && allowed.contains("authorization"));
    assert!(pre.header("access-control-max-age").is_some());
    let r = common::http(
        server.addr,
        "GET",
        &target,
        &[("Origin", "http://front.example")],
        None,
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    assert!(r
        .header("access-control-expose-headers")
        .unwrap()
        .contains("ETag"));
    // The data plane never takes a foreign origin, CORS or not.
    let r = post_json(
        &server,
        "/agentenv",
        &[("Origin", "http://front.example")],
        r#"{"jsonrpc":"2.0","id":1,"method":"data/get"}"#,
    );
    assert_eq!(r.status, 403);
    drop(server);

    // A recording without CORS: off by default, one origin by flag.
    let server = Server::start(&fixture("dev-a.har"), &[]);
    let pre = common::http(
        server.addr,
        "OPTIONS",
        &target,
        &[
            ("Origin", "http://front.example"),
            ("Access-Control-Request-Method", "GET"),
        ],
        None,
    );
    assert_eq!(pre.status, 403);
    drop(server);
    let server = Server::start(&fixture("dev-a.har"), &["--cors", "http://front.example"]);
    let pre = common::http(
        server.addr,
        "OPTIONS",
        &target,
        &[
            ("Origin", "http://front.example"),
            ("Access-Control-Request-Method", "GET"),
        ],
        None,
    );
    assert_eq!(pre.status, 204);
    assert_eq!(
        pre.header("access-control-allow-origin"),
        Some("http://front.example")
    );
    assert!(pre.header("vary").unwrap().contains("Origin"));
    let r = common::http(
        server.addr,
        "GET",
        &target,
        &[("Origin", "http://other.example")],
        None,
    );
    assert_eq!(r.status, 403);
}

#[test]
fn head_answers_every_get_route_without_a_body() {
    let server = Server::start(&fixture("dev-a.har"), &[]);
    for target in [
        "/v1/".to_string(),
        records("products"),
        format!("{}/prod-001", records("products")),
    ] {
        let get = server.get(&target);
        let head = common::http(server.addr, "HEAD", &target, &[], None);
        assert_eq!(head.status, get.status, "{target}");
        assert!(head.body.is_empty(), "{target}");
        assert_eq!(head.header("content-type"), get.header("content-type"));
        assert_eq!(
            head.header("content-length"),
            Some(get.body.len().to_string().as_str()),
            "{target}"
        );
        assert_eq!(head.header("etag"), get.header("etag"), "{target}");
    }
}

/// A capture of a small API, called from a page on `https://shop.example`,
/// that answered one unknown method with 405.
fn har_with_405(dir: &std::path::Path) -> std::path::PathBuf {
    let entry = |method: &str, url: &str, status: u16, body: &str, extra: Vec<Value>| {
        let mut headers = vec![json!({"name": "Content-Type", "value": "application/json"})];
        headers.extend(extra);
        json!({
            "startedDateTime": "2026-01-01T00:00:00.000Z", "time": 1,
            "request": {"method": method, "url": url, "httpVersion": "HTTP/1.1",
                "cookies": [], "headers": [{"name": "Origin", "value": "https://shop.example"}],
                "queryString": [], "headersSize": -1, "bodySize": 0},
            "response": {"status": status, "statusText": "", "httpVersion": "HTTP/1.1", "cookies": [],
                "headers": headers,
                "content": {"size": body.len(), "mimeType": "application/json", "text": body},
                "redirectURL": "", "headersSize": -1, "bodySize": body.len()},
            "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}
        })
    };
    let har = json!({"log": {"version": "1.2", "creator": {"name": "rea-tests", "version": "1"}, "entries": [
        entry("GET", "http://api.test/items", 200, r#"[{"id":1,"name":"a"}]"#, vec![]),
        entry("GET", "http://api.test/items/1", 200, r#"{"id":1,"name":"a"}"#, vec![]),
        entry("DELETE", "http://api.test/items", 405, r#"{"error":"method not allowed"}"#,
            vec![json!({"name": "Allow", "value": "GET"})]),
    ]}});
    let path = dir.join("items.har");
    std::fs::write(&path, har.to_string()).unwrap();
    path
}

#[test]
fn an_unknown_method_at_a_known_path_answers_405_where_the_app_did() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&har_with_405(dir.path()), &[]);
    let r = common::http(
        server.addr,
        "PUT",
        "/items/1",
        &[("Content-Type", "application/json")],
        Some("{}"),
    );
    assert_eq!(r.status, 405, "{}", r.text());
    let allow = r.header("allow").unwrap();
    assert!(allow.contains("GET") && allow.contains("HEAD"), "{allow}");
    assert!(!allow.contains("PUT"));
    assert_eq!(r.json(), json!({"error": "method not allowed"}));
    // An unknown path stays rea's own 404.
    let r = common::http(server.addr, "PUT", "/nothing/here", &[], None);
    assert_eq!(r.status, 404);
}

#[test]
fn each_surface_has_its_body_limit() {
    let server = Server::start(
        &fixture("dev-a.har"),
        &[
            "--app-body-limit",
            "64",
            "--data-plane-body-limit",
            "128",
            "--mcp-body-limit",
            "96",
        ],
    );
    let big = |n: usize| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"data/get","params":{{"x":"{}"}}}}"#,
            "a".repeat(n)
        )
    };
    let target = format!("{}/prod-001", records("products"));
    let r = server.send(
        "PATCH",
        &target,
        Some(&json!({"data": {"note": "a".repeat(100)}})),
    );
    assert_eq!(r.status, 413);
    let r = post_json(&server, "/agentenv", &[], &big(100));
    assert_eq!(r.status, 413);
    let r = post_json(&server, "/agentenv", &[], &big(10));
    assert_eq!(r.status, 200);
    let r = post_json(&server, "/mcp", &[ACCEPT], &big(100));
    assert_eq!(r.status, 413);
}

#[test]
fn connection_flags_are_checked() {
    for args in [
        ["--idle-timeout", "0"],
        ["--header-read-timeout", "-1"],
        ["--max-connections", "0"],
        ["--cors", "ftp://x.example"],
    ] {
        let out = std::process::Command::new(common::rea())
            .arg("environment-serve")
            .arg(fixture("dev-a.har"))
            .args(["--port", "0"])
            .args(args)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("invalid_argument") || err.contains(args[0]),
            "{args:?}: {err}"
        );
    }
}

/// A replayed session sends the recording's own page origin: the app's paths
/// take it (it is the app's, not a foreign site's); the data plane does not.
#[test]
fn the_recordings_own_origins_reach_the_apps_paths_only() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&har_with_405(dir.path()), &[]);
    for origin in ["https://shop.example", "http://api.test"] {
        let r = common::http(server.addr, "GET", "/items/1", &[("Origin", origin)], None);
        assert_eq!(r.status, 200, "{origin}: {}", r.text());
    }
    let r = common::http(
        server.addr,
        "GET",
        "/items/1",
        &[("Origin", "https://evil.example")],
        None,
    );
    assert_eq!(r.status, 403);
    let r = post_json(
        &server,
        "/agentenv",
        &[("Origin", "https://shop.example")],
        r#"{"jsonrpc":"2.0","id":1,"method":"data/get"}"#,
    );
    assert_eq!(r.status, 403);
}
