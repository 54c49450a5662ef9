//! A client of `rea inspect-mcp` over stdio for the inspection tests:
//! starts the built binary, initializes, sends JSON-RPC lines and waits
//! (bounded) for each reply; dropping it closes stdin and reaps the child.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

/// One running `rea inspect-mcp`, initialized.
pub(crate) struct InspectClient {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: u64,
}

impl InspectClient {
    pub(crate) fn start() -> InspectClient {
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
        let mut client = InspectClient {
            child,
            stdin,
            lines,
            next_id: 0,
        };
        let init = client.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "rea-tests", "version": "0"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "rea", "{init}");
        client.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        client
    }

    pub(crate) fn send(&mut self, message: Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends one request and waits (at most 60 s) for the reply with its id.
    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        for _ in 0..100 {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .expect("a reply within 60 s");
            let value: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout carried a non-JSON line ({e}): {line:?}"));
            if value["id"] == id {
                return value;
            }
        }
        panic!("no reply to request {id}");
    }

    /// Calls a tool and answers the `result` member.
    pub(crate) fn call(&mut self, name: &str, arguments: Value) -> Value {
        let reply = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        reply["result"].clone()
    }

    /// Calls a tool and answers its `structuredContent`.
    pub(crate) fn structured(&mut self, name: &str, arguments: Value) -> Value {
        self.call(name, arguments)["structuredContent"].clone()
    }
}

impl Drop for InspectClient {
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
