//! The app's paths are answered by the server's direct service function
//! (`server::run`), the other surfaces by `rea_serve::app`'s Router: the
//! same requests, sent to two environments built from the same capture, one
//! over a loopback listener and one through the Router in-process, get the
//! same status, headers (but `Date`) and body, writes and refusals included.

use axum::body::Body;
use axum::http::Request as HttpRequest;
use http_body_util::BodyExt;
use rea_serve::{app, run, Environment, ServeConfig, StartOptions};
use std::io::{Read, Write};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

const ITEM: &str = "/v1/buckets/shop/collections/products/records/prod-001";

fn kinto() -> Arc<Environment> {
    let capture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/kinto/dev-a.har");
    Arc::new(Environment::from_capture(&capture, &StartOptions::all_rules()).unwrap())
}

/// Method, path, headers and body of one request.
type Case<'a> = (&'a str, &'a str, Vec<(&'a str, &'a str)>, &'a str);

/// Status, headers (lower-case names, `Date` left out, in order) and body.
type Seen = (u16, Vec<(String, String)>, Vec<u8>);

/// One request over a fresh connection (`Connection: close`), read to its end.
fn over_tcp(port: u16, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Seen {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut text = format!("{method} {path} HTTP/1.1\r\nconnection: close\r\n");
    for (n, v) in headers {
        text.push_str(&format!("{n}: {v}\r\n"));
    }
    if !body.is_empty() {
        text.push_str(&format!("content-length: {}\r\n", body.len()));
    }
    text.push_str("\r\n");
    text.push_str(body);
    stream.write_all(text.as_bytes()).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8(raw[..split].to_vec()).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .filter(|(n, _)| n != "date" && n != "connection")
        .collect();
    (status, headers, raw[split + 4..].to_vec())
}

/// `text` with every run of 12 or more digits (a write's clock, in ms, and
/// the validators made of it: the two environments write a moment apart)
/// read as `#`.
fn masked(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut run = Vec::new();
    for &b in text.iter().chain(std::iter::once(&b' ')) {
        if b.is_ascii_digit() {
            run.push(b);
            continue;
        }
        if run.len() >= 12 {
            out.push(b'#');
        } else {
            out.extend_from_slice(&run);
        }
        run.clear();
        out.push(b);
    }
    out.pop();
    out
}

fn masked_headers(headers: &[(String, String)]) -> Vec<(String, Vec<u8>)> {
    headers
        .iter()
        .filter(|(n, _)| n != "last-modified")
        .map(|(n, v)| (n.clone(), masked(v.as_bytes())))
        .collect()
}

async fn through_router(
    router: &axum::Router,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Seen {
    let mut request = HttpRequest::builder().method(method).uri(path);
    for (n, v) in headers {
        request = request.header(*n, *v);
    }
    if !body.is_empty() {
        request = request.header("content-length", body.len());
    }
    let response = router
        .clone()
        .oneshot(request.body(Body::from(body.to_string())).unwrap())
        .await
        .unwrap();
    let status = response.status().as_u16();
    let mut headers: Vec<(String, String)> = response
        .headers()
        .iter()
        .map(|(n, v)| (n.as_str().to_string(), v.to_str().unwrap().to_string()))
        .filter(|(n, _)| n != "date")
        .collect();
    let body = response
        .into_body()
        .collect()
        .await
        .unwrap()
        .to_bytes()
        .to_vec();
    // hyper frames the body on the wire; the Router's answer leaves it to hyper.
    if !headers.iter().any(|(n, _)| n == "content-length") && method != "HEAD" {
        headers.push(("content-length".into(), body.len().to_string()));
    }
    (status, headers, body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_direct_path_answers_as_the_router_does() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let host = format!("127.0.0.1:{port}");
    let config = ServeConfig {
        host: "127.0.0.1".into(),
        port,
        ..ServeConfig::default()
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = kinto();
    let server = {
        let config = config.clone();
        tokio::spawn(async move {
            run(listener, served, &config, async {
                let _ = stopped.await;
            })
            .await
        })
    };
    let router = app(kinto(), &config, CancellationToken::new());
    let json = ("content-type", "application/json");
    let h = host.as_str();
    let cases: Vec<Case> = vec![
        ("GET", ITEM, vec![("host", h)], ""),
        ("HEAD", ITEM, vec![("host", h)], ""),
        (
            "PATCH",
            ITEM,
            vec![("host", h), json],
            r#"{"data": {"price": 12.5}}"#,
        ),
        ("GET", ITEM, vec![("host", h)], ""),
        (
            "GET",
            "/v1/buckets/shop/collections/products/records",
            vec![("host", h)],
            "",
        ),
        ("PATCH", ITEM, vec![("host", h), json], "not json"),
        ("GET", "/v1/nothing/here", vec![("host", h)], ""),
        ("GET", ITEM, vec![("host", "evil.example")], ""),
        (
            "GET",
            ITEM,
            vec![("host", h), ("origin", "http://evil.example")],
            "",
        ),
        ("DELETE", ITEM, vec![("host", h)], ""),
        ("GET", ITEM, vec![("host", h)], ""),
    ];
    for (method, path, headers, body) in cases {
        let wire = {
            let headers: Vec<(String, String)> = headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect();
            let (method, path, body) = (method.to_string(), path.to_string(), body.to_string());
            tokio::task::spawn_blocking(move || {
                let headers: Vec<(&str, &str)> = headers
                    .iter()
                    .map(|(n, v)| (n.as_str(), v.as_str()))
                    .collect();
                over_tcp(port, &method, &path, &headers, &body)
            })
            .await
            .unwrap()
        };
        let routed = through_router(&router, method, path, &headers, body).await;
        assert_eq!(wire.0, routed.0, "{method} {path}: status");
        assert_eq!(
            masked_headers(&wire.1),
            masked_headers(&routed.1),
            "{method} {path}: headers"
        );
        assert_eq!(masked(&wire.2), masked(&routed.2), "{method} {path}: body");
    }
    let _ = stop.send(());
    let _ = tokio::time::timeout(Duration::from_secs(15), server).await;
}
