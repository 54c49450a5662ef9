//! The served environment built by `Environment::from_capture` from the
//! Kinto dev-a capture, driven through `rea_serve::app`'s Router (HTTP and
//! the data plane, in-process with tower `oneshot`) and through
//! `Environment::call` with a tool call (what the MCP handler does): one
//! route per request, headers that describe the answer, one truth per
//! resource, links to the serving origin.

use axum::body::Body;
use axum::http::{HeaderMap, Request as HttpRequest};
use http_body_util::BodyExt;
use rea_serve::{app, Environment, Request, ServeConfig, StartOptions};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

const HOST: &str = "127.0.0.1:18999";
const PRODUCTS: &str = "/v1/buckets/shop/collections/products/records";
const ORDERS: &str = "/v1/buckets/shop/collections/orders/records";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/kinto")
        .join(name)
}

fn kinto() -> Arc<Environment> {
    Arc::new(Environment::from_capture(&fixture("dev-a.har"), &StartOptions::all_rules()).unwrap())
}

struct Reply {
    status: u16,
    headers: HeaderMap,
    body: Vec<u8>,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

async fn send(
    env: &Arc<Environment>,
    method: &str,
    uri: &str,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> Reply {
    let config = ServeConfig {
        host: "127.0.0.1".into(),
        port: 18999,
        data_root: None,
        ..ServeConfig::default()
    };
    let router = app(env.clone(), &config, CancellationToken::new());
    let mut req = HttpRequest::builder()
        .method(method)
        .uri(uri)
        .header("host", HOST)
        .header("content-type", "application/json");
    for (n, v) in headers {
        req = req.header(*n, *v);
    }
    let req = req
        .body(body.map_or_else(Body::empty, |b| Body::from(b.to_string())))
        .unwrap();
    let res = router.oneshot(req).await.unwrap();
    let status = res.status().as_u16();
    let headers = res.headers().clone();
    let body = res.into_body().collect().await.unwrap().to_bytes().to_vec();
    Reply {
        status,
        headers,
        body,
    }
}

async fn get(env: &Arc<Environment>, uri: &str) -> Reply {
    send(env, "GET", uri, &[], None).await
}

async fn rpc(env: &Arc<Environment>, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    send(env, "POST", "/agentenv", &[], Some(body)).await.json()
}

/// The recorded response headers of the first entry with this method and path.
fn recorded_headers(method: &str, path: &str) -> Vec<(String, String)> {
    let har: Value = serde_json::from_slice(&std::fs::read(fixture("dev-a.har")).unwrap()).unwrap();
    let entry = har["log"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| {
            e["request"]["method"] == method
                && e["request"]["url"]
                    .as_str()
                    .is_some_and(|u| u.ends_with(path))
        })
        .expect("a recorded entry");
    entry["response"]["headers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["name"].as_str().unwrap().to_ascii_lowercase(),
                h["value"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn ids(list: &Value) -> Vec<String> {
    list["data"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|i| i["id"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn a_tool_call_is_answered_by_the_tool_it_names() {
    let env = kinto();
    // A recorded (replaying) tool whose template a World-rendering tool
    // also matches: `…/products/records/{uuid}` beside `{record_id}`.
    let recorded = env
        .all_tools()
        .iter()
        .find(|t| t.tool.name.ends_with("products_records_by_uuid") && t.tool.method == "GET")
        .expect("a recorded by-uuid read")
        .clone();
    assert_eq!(recorded.plan, "recorded");
    let uuid = recorded.tool.params[0].observed[0].clone();
    let path = format!("{PRODUCTS}/{uuid}");
    // Over HTTP the World-rendering tool answers the line …
    let http = env.call(&Request::Http(rea_engine::Call::new("GET", &path, None)));
    assert_ne!(
        http.answer.tool.as_deref(),
        Some(recorded.tool.name.as_str())
    );
    // … but a tool call is answered by the tool it names, or refused.
    let mut arguments = Map::new();
    arguments.insert(recorded.tool.params[0].name.clone(), json!(uuid));
    let reply = env.call(&Request::Tool {
        name: recorded.tool.name.clone(),
        arguments,
    });
    assert_eq!(
        reply.answer.tool.as_deref(),
        Some(recorded.tool.name.as_str()),
        "{:?}",
        reply.answer
    );
    assert!(reply.answer.rendered.is_none(), "a recorded tool replays");
    // An unknown tool is refused by name.
    let refused = env.call(&Request::Tool {
        name: "no_such_tool".into(),
        arguments: Map::new(),
    });
    assert_eq!(refused.answer.error_code.as_deref(), Some("unknown_tool"));
}

#[tokio::test]
async fn after_a_patch_the_validators_are_not_the_recorded_ones() {
    let env = kinto();
    let item = format!("{PRODUCTS}/prod-001");
    let recorded = recorded_headers("GET", &item);
    let recorded_etag = recorded
        .iter()
        .find(|(n, _)| n == "etag")
        .map(|(_, v)| v.clone());
    let recorded_lm = recorded
        .iter()
        .find(|(n, _)| n == "last-modified")
        .map(|(_, v)| v.clone());
    let before = get(&env, &item).await;
    assert_eq!(before.status, 200);
    let patched = send(
        &env,
        "PATCH",
        &item,
        &[],
        Some(json!({"data": {"stock": 4321}})),
    )
    .await;
    assert_eq!(
        patched.status,
        200,
        "{}",
        String::from_utf8_lossy(&patched.body)
    );
    let after = get(&env, &item).await;
    assert_eq!(after.json()["data"]["stock"], 4321);
    // The PATCH line is routed once, to the item route's own update plan.
    let mut call = rea_engine::Call::new("PATCH", &item, None);
    call.body = Some(json!({"data": {"stock": 4322}}));
    let routed = env.call(&Request::Http(call));
    assert!(
        routed
            .answer
            .tool
            .as_deref()
            .is_some_and(|t| t.starts_with("patch_") && t.ends_with("_by_record_id")),
        "{:?}",
        routed.answer.tool
    );
    let after = get(&env, &item).await;
    let etag = after.header("etag").map(str::to_string);
    assert!(etag.is_none() || etag != recorded_etag, "{etag:?}");
    assert!(etag.is_none() || etag.as_deref() != before.header("etag"));
    let lm = after.header("last-modified").map(str::to_string);
    assert!(lm.is_none() || lm != recorded_lm, "{lm:?}");
    // The rendered ETag answers a conditional GET.
    if let Some(tag) = etag {
        let again = send(&env, "GET", &item, &[("if-none-match", &tag)], None).await;
        assert_eq!(again.status, 304);
        assert!(again.body.is_empty());
    }
}

/// dev-a with a count header on every recorded products list: the
/// number of entities the answer lists.
fn counted_capture(dir: &Path) -> PathBuf {
    let mut har: Value =
        serde_json::from_slice(&std::fs::read(fixture("dev-a.har")).unwrap()).unwrap();
    for e in har["log"]["entries"].as_array_mut().unwrap() {
        let url = e["request"]["url"].as_str().unwrap_or("").to_string();
        if e["request"]["method"] != "GET" || !url.split('?').next().unwrap().ends_with(PRODUCTS) {
            continue;
        }
        let text = e["response"]["content"]["text"].as_str().unwrap_or("");
        let Ok(body) = serde_json::from_str::<Value>(text) else {
            continue;
        };
        let n = body["data"].as_array().map_or(0, Vec::len);
        e["response"]["headers"]
            .as_array_mut()
            .unwrap()
            .push(json!({"name": "X-Total-Count", "value": n.to_string()}));
    }
    let path = dir.join("counted.har");
    std::fs::write(&path, serde_json::to_vec(&har).unwrap()).unwrap();
    path
}

#[tokio::test]
async fn a_narrowed_list_carries_no_count_header_that_disagrees_with_its_body() {
    let dir = tempfile::tempdir().unwrap();
    let env = Arc::new(
        Environment::from_capture(&counted_capture(dir.path()), &StartOptions::all_rules())
            .unwrap(),
    );
    let full = get(&env, PRODUCTS).await;
    let total = ids(&full.json()).len();
    assert_eq!(
        full.header("x-total-count"),
        Some(total.to_string().as_str())
    );
    let narrowed = get(&env, &format!("{PRODUCTS}?in_id=prod-001,prod-002")).await;
    assert_eq!(narrowed.status, 200);
    assert_eq!(ids(&narrowed.json()).len(), 2);
    assert_eq!(narrowed.header("x-total-count"), Some("2"));
    assert_ne!(narrowed.header("etag"), full.header("etag"));
    // After a create the full list's count follows its body.
    let created = send(
        &env,
        "POST",
        PRODUCTS,
        &[],
        Some(json!({"data": {"name": "Lamp", "price": 12.5, "stock": 3, "category": "home"}})),
    )
    .await;
    if created.status / 100 == 2 {
        let after = get(&env, PRODUCTS).await;
        let n = ids(&after.json()).len();
        assert_eq!(after.header("x-total-count"), Some(n.to_string().as_str()));
    }
}

/// dev-a with one more record: a `304` answering `If-None-Match` for a
/// line only a recorded (replaying) tool reads, after its other recordings.
fn conditional_capture(dir: &Path) -> (PathBuf, String) {
    let mut har: Value =
        serde_json::from_slice(&std::fs::read(fixture("dev-a.har")).unwrap()).unwrap();
    let entries = har["log"]["entries"].as_array_mut().unwrap();
    let recorded = entries
        .iter()
        .find(|e| {
            e["request"]["method"] == "GET"
                && e["request"]["url"]
                    .as_str()
                    .is_some_and(|u| u.contains("/orders/records/") && !u.ends_with("ord-001"))
        })
        .expect("a replayed orders read")
        .clone();
    let url = recorded["request"]["url"].as_str().unwrap().to_string();
    let mut conditional = recorded;
    conditional["startedDateTime"] = json!("2026-11-30T17:26:30.000000+00:00");
    conditional["request"]["headers"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "If-None-Match", "value": "\"1\""}));
    conditional["response"]["status"] = json!(304);
    conditional["response"]["statusText"] = json!("Not Modified");
    conditional["response"]["content"] =
        json!({"size": 0, "mimeType": "application/json", "text": ""});
    conditional["response"]["bodySize"] = json!(0);
    entries.push(conditional);
    let path = dir.join("conditional.har");
    std::fs::write(&path, serde_json::to_vec(&har).unwrap()).unwrap();
    let target = url[url.find("/v1").unwrap()..].to_string();
    (path, target)
}

#[tokio::test]
async fn an_unconditional_get_never_gets_a_recorded_304() {
    let dir = tempfile::tempdir().unwrap();
    let (capture, target) = conditional_capture(dir.path());
    let env = Arc::new(Environment::from_capture(&capture, &StartOptions::all_rules()).unwrap());
    let plain = get(&env, &target).await;
    assert_ne!(
        plain.status,
        304,
        "{}",
        String::from_utf8_lossy(&plain.body)
    );
    let conditional = send(&env, "GET", &target, &[("if-none-match", "\"1\"")], None).await;
    assert_eq!(conditional.status, 304);
    // Again, after the conditional answer was served (and cached).
    assert_ne!(get(&env, &target).await.status, 304);
}

#[tokio::test]
async fn delete_then_data_add_changes_every_read_of_a_document_entity() {
    let env = kinto();
    let item = format!("{ORDERS}/ord-001");
    let first = get(&env, &item).await;
    assert_eq!(first.status, 200);
    assert_eq!(first.json()["data"]["id"], "ord-001");
    let snapshot = rpc(&env, "data/get", json!({})).await["result"]["parts"][0]["data"].clone();
    let deleted = send(&env, "DELETE", &item, &[], None).await;
    assert_eq!(
        deleted.status,
        200,
        "{}",
        String::from_utf8_lossy(&deleted.body)
    );
    assert_eq!(get(&env, &item).await.status, 404);
    assert!(!ids(&get(&env, ORDERS).await.json()).contains(&"ord-001".to_string()));
    // data/add brings it back with another status: item and list agree.
    let mut world = snapshot.clone();
    let mut found = false;
    for rows in world.as_object_mut().unwrap().values_mut() {
        for row in rows.as_array_mut().into_iter().flatten() {
            if row["id"] == "ord-001" && row.get("status").is_some() {
                row["status"] = json!("refunded");
                found = true;
            }
        }
    }
    assert!(found, "ord-001 is a row of the data plane: {snapshot}");
    let added = rpc(
        &env,
        "data/add",
        json!({"parts": [{"kind": "data", "data": world}]}),
    )
    .await;
    assert_eq!(added["result"], json!({}), "{added}");
    let item_read = get(&env, &item).await;
    assert_eq!(item_read.status, 200);
    assert_eq!(item_read.json()["data"]["status"], "refunded");
    let list = get(&env, ORDERS).await.json();
    let row = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "ord-001")
        .cloned()
        .unwrap();
    assert_eq!(row["status"], "refunded");
}

#[tokio::test]
async fn a_next_page_link_followed_reaches_the_fake() {
    let env = kinto();
    let page = get(&env, &format!("{PRODUCTS}?_limit=2")).await;
    assert_eq!(page.status, 200);
    assert_eq!(ids(&page.json()).len(), 2);
    let next = page
        .headers
        .iter()
        .find_map(|(_, v)| {
            v.to_str()
                .ok()
                .filter(|v| v.contains("_limit=2") && v.starts_with("http"))
        })
        .expect("a next-page link")
        .to_string();
    let origin = format!("http://{HOST}");
    assert!(next.starts_with(&origin), "{next}");
    let followed = get(&env, &next[origin.len()..]).await;
    assert_eq!(followed.status, 200);
    let second = ids(&followed.json());
    assert_eq!(second.len(), 2);
    assert!(second.iter().all(|id| !ids(&page.json()).contains(id)));
}

#[tokio::test]
async fn a_write_drops_the_cached_reads_of_its_own_collection_only() {
    let env = kinto();
    let read = |path: &str| env.call(&Request::Http(rea_engine::Call::new("GET", path, None)));
    let product = format!("{PRODUCTS}/prod-001");
    let order = format!("{ORDERS}/ord-001");
    let (p1, o1, l1) = (read(&product), read(&order), read(PRODUCTS));
    assert!(
        Arc::ptr_eq(&p1, &read(&product)),
        "a repeated read is cached"
    );
    // A write to the orders collection leaves the products reads cached …
    let patch = send(
        &env,
        "PATCH",
        &format!("{ORDERS}/ord-001"),
        &[],
        Some(json!({"data": {"status": "shipped"}})),
    )
    .await;
    assert_eq!(
        patch.status,
        200,
        "{}",
        String::from_utf8_lossy(&patch.body)
    );
    assert!(Arc::ptr_eq(&p1, &read(&product)));
    assert!(Arc::ptr_eq(&l1, &read(PRODUCTS)));
    // … and answers the orders read afresh.
    let o2 = read(&order);
    assert!(!Arc::ptr_eq(&o1, &o2));
    assert_eq!(o2.answer.status, 200);
    let shown: Value = serde_json::from_slice(&o2.bytes).unwrap();
    assert_eq!(shown["data"]["status"], "shipped", "{shown}");
    // A create in products (the body the capture sent, a new id) drops
    // the products list read.
    let har: Value = serde_json::from_slice(&std::fs::read(fixture("dev-a.har")).unwrap()).unwrap();
    let mut body: Value = har["log"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["request"])
        .find(|r| r["method"] == "POST" && r["url"].as_str().unwrap().ends_with(PRODUCTS))
        .and_then(|r| serde_json::from_str(r["postData"]["text"].as_str()?).ok())
        .expect("the capture creates a product");
    body["data"]["id"] = json!("prod-cache");
    let created = send(&env, "POST", PRODUCTS, &[], Some(body)).await;
    assert!(
        created.status / 100 == 2,
        "{}",
        String::from_utf8_lossy(&created.body)
    );
    let new_id = created.json()["data"]["id"].as_str().unwrap().to_string();
    let listed = |r: &Arc<rea_serve::Reply>| ids(&serde_json::from_slice(&r.bytes).unwrap());
    let l2 = read(PRODUCTS);
    assert!(!Arc::ptr_eq(&l1, &l2));
    assert!(listed(&l2).contains(&new_id));
    assert!(!listed(&l1).contains(&new_id));
    // data/reset drops everything.
    rpc(&env, "data/reset", json!({})).await;
    assert!(!Arc::ptr_eq(&l2, &read(PRODUCTS)));
    assert!(!listed(&read(PRODUCTS)).contains(&new_id));
}
