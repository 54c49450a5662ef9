//! Shared helpers for the serving tests: start the built `rea
//! environment-serve` on a capture (127.0.0.1, a free port), speak plain
//! HTTP/1.1, JSON-RPC and MCP to it, read the recorded HAR, stop it.
#![allow(dead_code, unreachable_pub)]

pub(crate) mod inspect_client;

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub(crate) fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub(crate) fn fixture(name: &str) -> PathBuf {
    repo_root().join("tests/fixtures/kinto").join(name)
}

pub(crate) fn rea() -> &'static str {
    env!("CARGO_BIN_EXE_rea")
}

/// `rea environment-model CAPTURE --json`: the app model of a capture.
pub(crate) fn environment_model(capture: &Path) -> Value {
    let out = Command::new(rea())
        .arg("environment-model")
        .arg(capture)
        .arg("--json")
        .output()
        .expect("run rea environment-model");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("a JSON model")
}

/// A running `rea environment-serve`; stopped (SIGTERM) on drop.
pub(crate) struct Server {
    pub(crate) child: Child,
    pub(crate) addr: SocketAddr,
    pub(crate) log: Arc<Mutex<Vec<String>>>,
}

impl Server {
    pub(crate) fn start(capture: &Path, extra: &[&str]) -> Server {
        let mut cmd = Command::new(rea());
        cmd.arg("environment-serve")
            .arg(capture)
            .args(["--host", "127.0.0.1", "--port", "0"])
            .args(extra)
            .env_remove("MCP_HOST")
            .env_remove("MCP_PORT")
            .env_remove("ENVIRONMENT_NAME")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        Server::spawn(cmd)
    }

    pub(crate) fn spawn(mut cmd: Command) -> Server {
        let mut child = cmd.spawn().expect("start rea");
        let stderr = child.stderr.take().expect("stderr");
        let log = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let sink = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(rest) = line.split("listening on http://").nth(1) {
                    let _ = tx.send(rest.trim().to_string());
                }
                sink.lock().unwrap().push(line);
            }
        });
        let addr = match rx.recv_timeout(Duration::from_secs(120)) {
            Ok(a) => a.parse().expect("address"),
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("rea did not start listening: {:?}", log.lock().unwrap());
            }
        };
        Server { child, addr, log }
    }

    /// The first line the server printed on stdout (its command must have
    /// piped stdout), waiting at most 30 seconds.
    pub(crate) fn first_stdout_line(&mut self) -> String {
        let stdout = self.child.stdout.take().expect("stdout was piped");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        rx.recv_timeout(Duration::from_secs(30))
            .expect("a line on stdout")
    }

    pub(crate) fn log_text(&self) -> String {
        self.log.lock().unwrap().join("\n")
    }

    /// SIGTERM, then wait (bounded); returns the exit status.
    pub(crate) fn stop(&mut self) -> Option<std::process::ExitStatus> {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        self.child.wait().ok();
        None
    }

    pub(crate) fn get(&self, target: &str) -> Response {
        http(self.addr, "GET", target, &[], None)
    }

    pub(crate) fn send(&self, method: &str, target: &str, body: Option<&Value>) -> Response {
        let text = body.map(|b| b.to_string());
        http(
            self.addr,
            method,
            target,
            &[("Content-Type", "application/json")],
            text.as_deref(),
        )
    }

    pub(crate) fn rpc(&self, method: &str, params: Value) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        self.send("POST", "/agentenv", Some(&body)).json()
    }

    /// `data/get` → the exported tables.
    pub(crate) fn data(&self) -> Value {
        let reply = self.rpc("data/get", json!({}));
        reply["result"]["parts"][0]["data"].clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.stop();
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Response {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

impl Response {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    /// The JSON body read with the serving origin `served` spelled as the
    /// recorded `origin` again: the fake rewrites the app's own origin.
    #[allow(dead_code)]
    pub(crate) fn json_as_recorded(&self, served: SocketAddr, origin: &str) -> Value {
        let text = self.text().replace(&format!("http://{served}"), origin);
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
    }
}

/// One HTTP/1.1 request with `Connection: close`.
pub(crate) fn http(
    addr: SocketAddr,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> Response {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut req = format!("{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (n, v) in headers {
        req.push_str(&format!("{n}: {v}\r\n"));
    }
    let body = body.unwrap_or("");
    if !body.is_empty() || matches!(method, "POST" | "PUT" | "PATCH") {
        req.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    req.push_str("\r\n");
    req.push_str(body);
    stream.write_all(req.as_bytes()).expect("write");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read");
    parse_response(&raw)
}

fn parse_response(raw: &[u8]) -> Response {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("header end");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("status");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    let chunked = headers
        .iter()
        .any(|(n, v)| n.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    if chunked {
        body = dechunk(&body);
    }
    Response {
        status,
        headers,
        body,
    }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = data.windows(2).position(|w| w == b"\r\n") {
        let size_text = String::from_utf8_lossy(&data[..end]).into_owned();
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("0").trim(), 16)
            .unwrap_or(0);
        data = &data[end + 2..];
        if size == 0 || data.len() < size {
            break;
        }
        out.extend_from_slice(&data[..size]);
        data = &data[(size + 2).min(data.len())..];
    }
    out
}

/// A recorded HAR entry: the request line target and the response.
#[derive(Debug, Clone)]
pub(crate) struct Recorded {
    pub(crate) method: String,
    pub(crate) target: String,
    pub(crate) body: Option<Value>,
    pub(crate) status: u16,
    pub(crate) mime: String,
    pub(crate) response: Option<Value>,
    /// The recorded origin, e.g. `http://127.0.0.1:37713`.
    pub(crate) origin: String,
}

impl Recorded {
    /// The recorded response as served from `addr`: URLs the app built
    /// from its own origin point at the serving origin.
    pub(crate) fn response_served_at(&self, addr: SocketAddr) -> Option<Value> {
        let text = self.response.as_ref()?.to_string();
        serde_json::from_str(&text.replace(&self.origin, &format!("http://{addr}"))).ok()
    }
}

pub(crate) fn recorded(name: &str) -> Vec<Recorded> {
    let har: Value = serde_json::from_slice(&std::fs::read(fixture(name)).unwrap()).unwrap();
    har["log"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let url = e["request"]["url"].as_str().unwrap();
            let parsed = rea_core::recorded_url::parse(url).expect("recorded URL");
            let target = match parsed.query {
                Some(q) => format!("{}?{q}", parsed.path),
                None => parsed.path.to_string(),
            };
            let text = e["response"]["content"]["text"].as_str().unwrap_or("");
            Recorded {
                method: e["request"]["method"].as_str().unwrap().to_string(),
                target,
                body: e["request"]["postData"]["text"]
                    .as_str()
                    .and_then(|t| serde_json::from_str(t).ok()),
                status: e["response"]["status"].as_u64().unwrap() as u16,
                mime: e["response"]["content"]["mimeType"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
                response: serde_json::from_str(text).ok(),
                origin: parsed.origin.clone(),
            }
        })
        .collect()
}

/// The media type without parameters, lower case.
pub(crate) fn essence(ct: &str) -> String {
    ct.split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// An MCP client over streamable HTTP (protocol 2025-11-25, with a session).
pub(crate) struct Mcp {
    pub(crate) addr: SocketAddr,
    pub(crate) session: Option<String>,
    next: u64,
}

impl Mcp {
    pub(crate) fn connect(addr: SocketAddr) -> Mcp {
        let mut mcp = Mcp {
            addr,
            session: None,
            next: 1,
        };
        let (headers, reply) = mcp.exchange(json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "rea-tests", "version": "0"}}
        }));
        assert!(
            reply["result"]["capabilities"]["tools"].is_object(),
            "{reply}"
        );
        mcp.session = headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("mcp-session-id"))
            .map(|(_, v)| v.clone());
        mcp.notify(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp
    }

    fn headers(&self) -> Vec<(String, String)> {
        let mut h = vec![
            ("Content-Type".to_string(), "application/json".to_string()),
            (
                "Accept".to_string(),
                "application/json, text/event-stream".to_string(),
            ),
        ];
        if let Some(s) = &self.session {
            h.push(("Mcp-Session-Id".into(), s.clone()));
            h.push(("MCP-Protocol-Version".into(), "2025-11-25".into()));
        }
        h
    }

    fn notify(&self, message: Value) {
        let headers = self.headers();
        let refs: Vec<(&str, &str)> = headers
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let r = http(self.addr, "POST", "/mcp", &refs, Some(&message.to_string()));
        assert!(
            r.status < 300,
            "notification refused: {} {}",
            r.status,
            r.text()
        );
    }

    fn exchange(&mut self, message: Value) -> (Vec<(String, String)>, Value) {
        let headers = self.headers();
        let refs: Vec<(&str, &str)> = headers
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let r = http(self.addr, "POST", "/mcp", &refs, Some(&message.to_string()));
        assert_eq!(r.status, 200, "{}", r.text());
        let ct = r.header("content-type").unwrap_or("").to_string();
        let reply = if ct.starts_with("text/event-stream") {
            r.text()
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
                .find(|v| v.get("id") == message.get("id"))
                .unwrap_or_else(|| panic!("no reply in the event stream: {}", r.text()))
        } else {
            r.json()
        };
        (r.headers, reply)
    }

    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        let (_, reply) =
            self.exchange(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        reply
    }

    pub(crate) fn tools(&mut self) -> Vec<Value> {
        let reply = self.request("tools/list", json!({}));
        reply["result"]["tools"]
            .as_array()
            .cloned()
            .unwrap_or_else(|| panic!("{reply}"))
    }

    /// `tools/call` → the result object.
    pub(crate) fn call(&mut self, name: &str, arguments: Value) -> Value {
        let reply = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        reply
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("{reply}"))
    }
}

/// The text of a tool result's n-th content block.
pub(crate) fn block(result: &Value, n: usize) -> String {
    result["content"][n]["text"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

/// The body the capture sent with its first `method` to `target`, with
/// `data.name` replaced (a fresh record of the same shape).
pub(crate) fn recorded_body(capture: &str, method: &str, target: &str, name: &str) -> Value {
    let mut body = recorded(capture)
        .into_iter()
        .find(|e| e.method == method && e.target == target)
        .and_then(|e| e.body)
        .unwrap_or_else(|| panic!("no recorded {method} {target}"));
    body["data"]["name"] = json!(name);
    body
}
