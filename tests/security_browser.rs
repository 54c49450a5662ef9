//! A real browser (headless Debian Chromium) on a foreign page cannot change
//! the World: the page, served from `http://evil.test:PORT` (mapped to
//! 127.0.0.1 by Chromium's resolver rules), sends what any web page can —
//! simple `text/plain` POSTs and a form post to `/agentenv` and to the app's
//! write path, a CORS fetch with `application/json`, and a request under a
//! rebound host name. A control POST to a loopback sink shows the browser
//! does send such requests. Skipped (with a message) when `chromium` is not
//! installed.

mod common;

use common::{fixture, Server};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn chromium() -> Option<&'static str> {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
}

fn page(rea: u16, own: u16) -> String {
    let products = "/v1/buckets/shop/collections/products/records";
    format!(
        r#"<!doctype html><html><head><title>pending</title></head><body><pre id="out">pending</pre>
<form id="f" method="POST" action="http://127.0.0.1:{rea}/agentenv" enctype="text/plain" target="frame"><input name='{{"jsonrpc":"2.0","id":9,"method":"data/add","params":{{"parts":[{{"kind":"data","data":{{}}}}]}},"x":"' value='"}}'></form>
<iframe name="frame"></iframe>
<script>
const wipe = JSON.stringify({{jsonrpc: "2.0", id: 1, method: "data/add", params: {{parts: [{{kind: "data", data: {{}}}}]}}}});
const out = [];
async function attempt(label, url, init) {{
  try {{ const r = await fetch(url, init); out.push(label + ":" + r.type + ":" + r.status); }}
  catch (e) {{ out.push(label + ":blocked"); }}
}}
async function go() {{
  const simple = {{method: "POST", mode: "no-cors", headers: {{"Content-Type": "text/plain"}}, body: wipe}};
  await attempt("agentenv", "http://127.0.0.1:{rea}/agentenv", simple);
  await attempt("app-write", "http://127.0.0.1:{rea}{products}", {{method: "POST", mode: "no-cors", headers: {{"Content-Type": "text/plain"}}, body: '{{"data": {{"name": "planted"}}}}'}});
  await attempt("cors-json", "http://127.0.0.1:{rea}/agentenv", {{method: "POST", headers: {{"Content-Type": "application/json"}}, body: wipe}});
  await attempt("rebound", "http://evil.test:{rea}/agentenv", simple);
  await attempt("control", "http://127.0.0.1:{own}/sink", simple);
  document.getElementById("f").submit();
  await new Promise(r => setTimeout(r, 500));
  document.getElementById("out").textContent = out.join("\n");
  document.title = "done";
}}
go();
</script></body></html>"#
    )
}

/// Serves the attack page and counts control posts, until `deadline`.
fn serve_page(listener: TcpListener, html: String, sink: Arc<AtomicUsize>, deadline: Instant) {
    listener.set_nonblocking(true).unwrap();
    while Instant::now() < deadline {
        let Ok((mut s, _)) = listener.accept() else {
            std::thread::sleep(Duration::from_millis(20));
            continue;
        };
        s.set_nonblocking(false).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
        let mut buf = vec![0u8; 16384];
        let n = s.read(&mut buf).unwrap_or(0);
        let head = String::from_utf8_lossy(&buf[..n]).into_owned();
        let reply = if head.starts_with("POST /sink") {
            sink.fetch_add(1, Ordering::SeqCst);
            "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n".to_string()
        } else {
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{html}",
                html.len()
            )
        };
        let _ = s.write_all(reply.as_bytes());
    }
}

#[test]
fn a_foreign_page_in_a_real_browser_cannot_change_the_world() {
    let Some(browser) = chromium() else {
        eprintln!("skipped: no chromium on this machine (the raw-HTTP cross-site tests in tests/security.rs still run)");
        return;
    };
    let server = Server::start(&fixture("dev-a.har"), &[]);
    let before = server.data();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let own = listener.local_addr().unwrap().port();
    let html = page(server.addr.port(), own);
    let sink = Arc::new(AtomicUsize::new(0));
    let deadline = Instant::now() + Duration::from_secs(60);
    let counter = sink.clone();
    let pages = std::thread::spawn(move || serve_page(listener, html, counter, deadline));
    let profile = tempfile::tempdir().unwrap();
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--host-resolver-rules=MAP evil.test 127.0.0.1",
            "--virtual-time-budget=10000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("http://evil.test:{own}/"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromium");
    let mut dom = String::new();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let _ = stdout.read_to_string(&mut dom);
        dom
    });
    let stop = Instant::now() + Duration::from_secs(45);
    while Instant::now() < stop {
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
    let dom = reader.join().unwrap();
    drop(pages);
    assert!(dom.contains("<title>done</title>"), "the page ran: {dom}");
    assert!(
        sink.load(Ordering::SeqCst) >= 1,
        "the browser sends cross-site simple POSTs to loopback (control): {dom}"
    );
    // The CORS-mode request is stopped (403 on the preflight or the request).
    assert!(dom.contains("cors-json:blocked"), "{dom}");
    assert_eq!(
        server.data(),
        before,
        "the World is unchanged; page said: {dom}"
    );
}
