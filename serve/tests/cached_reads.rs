//! A read answered from the reply cache answers what the World holds now:
//! after every kind of write (HTTP PATCH and DELETE, an MCP tool call,
//! `data/add`, `data/reset`) the next read of the changed entity, item and
//! list, is the new value, on the router's path and on the listener's
//! direct path (`rea_serve::run`), and the journal records cached reads as
//! it records the others. Built on the Kinto dev-a capture.

use axum::body::Body;
use axum::http::Request as HttpRequest;
use http_body_util::BodyExt;
use rea_serve::{app, Environment, Request, ServeConfig, StartOptions};
use serde_json::{json, Map, Value};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

const HOST: &str = "127.0.0.1:18399";
const PRODUCTS: &str = "/v1/buckets/shop/collections/products/records";

fn kinto() -> Arc<Environment> {
    let har = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/kinto/dev-a.har");
    Arc::new(Environment::from_capture(&har, &StartOptions::all_rules()).unwrap())
}

fn config() -> ServeConfig {
    ServeConfig {
        host: "127.0.0.1".into(),
        port: 18399,
        ..ServeConfig::default()
    }
}

/// One request through the router: status and JSON body.
async fn send(
    env: &Arc<Environment>,
    method: &str,
    uri: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let router = app(env.clone(), &config(), CancellationToken::new());
    let req = HttpRequest::builder()
        .method(method)
        .uri(uri)
        .header("host", HOST)
        .header("content-type", "application/json")
        .body(body.map_or_else(Body::empty, |b| Body::from(b.to_string())))
        .unwrap();
    let res = router.oneshot(req).await.unwrap();
    let status = res.status().as_u16();
    let bytes = res.into_body().collect().await.unwrap().to_bytes();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

async fn rpc(env: &Arc<Environment>, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    send(env, "POST", "/agentenv", Some(body)).await.1
}

/// The price the item read and the list read show for `id`.
async fn prices(env: &Arc<Environment>, id: &str) -> (Value, Value) {
    let (status, item) = send(env, "GET", &format!("{PRODUCTS}/{id}"), None).await;
    assert_eq!(status, 200, "{item}");
    let (status, list) = send(env, "GET", PRODUCTS, None).await;
    assert_eq!(status, 200, "{list}");
    let row = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .cloned()
        .unwrap_or(Value::Null);
    (item["data"]["price"].clone(), row["price"].clone())
}

/// The served tool that PATCHes one product record.
fn patch_tool(env: &Environment) -> (String, String) {
    let tool = env
        .tools()
        .find(|t| {
            t.tool.method == "PATCH"
                && t.tool.path_template.starts_with(PRODUCTS)
                && t.tool.params.len() == 1
        })
        .expect("a served PATCH of a product record");
    (tool.tool.name.clone(), tool.tool.params[0].name.clone())
}

#[tokio::test]
async fn a_cached_read_answers_the_new_value_after_every_kind_of_write() {
    let env = kinto();
    let item = format!("{PRODUCTS}/prod-001");
    let (recorded, listed) = prices(&env, "prod-001").await;
    assert_eq!(recorded, listed);
    // Read twice: the second is served from the cache.
    assert_eq!(prices(&env, "prod-001").await, (recorded.clone(), listed));

    // HTTP PATCH.
    let (status, body) = send(&env, "PATCH", &item, Some(json!({"data": {"price": 1.5}}))).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(prices(&env, "prod-001").await, (json!(1.5), json!(1.5)));

    // An MCP tool call (what the MCP handler hands the environment).
    let (tool, param) = patch_tool(&env);
    let mut arguments = Map::new();
    arguments.insert(param, json!("prod-001"));
    arguments.insert("body".into(), json!({"data": {"price": 2.5}}));
    let reply = env.call(&Request::Tool {
        name: tool,
        arguments,
    });
    assert_eq!(reply.answer.status, 200, "{:?}", reply.answer);
    assert_eq!(prices(&env, "prod-001").await, (json!(2.5), json!(2.5)));

    // data/add replaces the World with one where the price is another.
    let mut world = rpc(&env, "data/get", json!({})).await["result"]["parts"][0]["data"].clone();
    let mut found = false;
    for rows in world.as_object_mut().unwrap().values_mut() {
        for row in rows.as_array_mut().into_iter().flatten() {
            if row["id"] == "prod-001" && row.get("price").is_some() {
                row["price"] = json!(3.5);
                found = true;
            }
        }
    }
    assert!(found, "prod-001 is a row of the data plane");
    let added = rpc(
        &env,
        "data/add",
        json!({"parts": [{"kind": "data", "data": world}]}),
    )
    .await;
    assert_eq!(added["result"], json!({}), "{added}");
    assert_eq!(prices(&env, "prod-001").await, (json!(3.5), json!(3.5)));

    // data/reset: the recorded value again.
    let reset = rpc(&env, "data/reset", json!({})).await;
    assert!(reset.get("error").is_none(), "{reset}");
    let (price, _) = prices(&env, "prod-001").await;
    assert_eq!(price, recorded);

    // HTTP DELETE: the item is gone from both reads.
    let (status, body) = send(&env, "DELETE", &item, None).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(send(&env, "GET", &item, None).await.0, 404);
    let (_, list) = send(&env, "GET", PRODUCTS, None).await;
    assert!(list["data"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["id"] != "prod-001"));
}

/// A request over a real connection (HTTP/1.1, closed after the answer):
/// the status and the JSON body.
async fn over_tcp(port: u16, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .expect("an answer within 10 s")
        .unwrap();
    let text = String::from_utf8_lossy(&answer).to_string();
    let status = text[9..12].parse().unwrap();
    let json = text
        .split_once("\r\n\r\n")
        .and_then(|(_, b)| serde_json::from_str(b).ok())
        .unwrap_or(Value::Null);
    (status, json)
}

#[tokio::test]
async fn the_direct_path_serves_cached_reads_that_follow_writes_and_journals_them() {
    let env = kinto();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = env.clone();
    let server = tokio::spawn(async move {
        rea_serve::run(listener, served, &config(), async {
            let _ = stopped.await;
        })
        .await
    });
    let item = format!("{PRODUCTS}/prod-002");
    let (status, first) = over_tcp(port, "GET", &item, None).await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(
        over_tcp(port, "GET", &item, None).await,
        (200, first.clone())
    );
    let (status, _) = over_tcp(port, "PATCH", &item, Some(json!({"data": {"stock": 777}}))).await;
    assert_eq!(status, 200);
    let (status, after) = over_tcp(port, "GET", &item, None).await;
    assert_eq!(status, 200);
    assert_eq!(after["data"]["stock"], 777, "{after}");
    assert_ne!(first["data"]["stock"], 777);
    // Every request is journaled, the cached one as the others, with the
    // request line and the headers it came with.
    let entries = env.ops().journal().entries(&Default::default());
    let reads: Vec<_> = entries
        .iter()
        .filter(|e| e.request.text("method") == Some("GET"))
        .collect();
    assert_eq!(reads.len(), 3);
    for read in &reads {
        assert_eq!(read.request.text("path"), Some(item.as_str()));
        assert_eq!(read.status, 200);
        assert_eq!(
            read.request.get("headers").unwrap()["host"],
            format!("127.0.0.1:{port}")
        );
    }
    assert_eq!(reads[0].request.to_value(), reads[1].request.to_value());
    assert_eq!(reads[0].tool, reads[1].tool);
    assert_eq!(reads[0].source, reads[1].source);
    stop.send(()).unwrap();
    server.await.unwrap().unwrap();
}
