//! One meaning per write plan on every route that reaches it: a `PUT`
//! replaces the held record the same way on its own item route, on a
//! sibling collection's item route (the family's plan adapted) and as an
//! MCP tool call; a `POST` create holds the same record whether it came
//! over HTTP or MCP. (`PATCH` across the same routes: `patch_meaning.rs`.)
//! Checked on Kinto dev-a, json-server dev-a and DRF dev-a.

use rea_engine::{AnswerBody, Call};
use rea_serve::{Environment, Request, StartOptions};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

fn fixture(rel: &str) -> PathBuf {
    let local = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(rel);
    if local.exists() {
        local
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/fixtures")
            .join(rel)
    }
}

fn body_of(reply: &rea_serve::Reply) -> Value {
    match &reply.answer.body {
        AnswerBody::Json(v) => v.clone(),
        _ => Value::Null,
    }
}

fn http(env: &Environment, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let reply = env.call(&Request::Http(Call {
        method: method.into(),
        path: path.into(),
        query: None,
        headers: vec![("host".into(), "127.0.0.1:18150".into())],
        body,
    }));
    (reply.answer.status, body_of(&reply))
}

/// Calls the tool that answers `method path` over HTTP, as an MCP tool
/// call with the path's params as arguments.
fn mcp(env: &Environment, method: &str, path: &str, body: Value) -> (u16, Value) {
    let tool = env
        .all_tools()
        .iter()
        .find(|t| {
            t.tool.method == method && rea_engine::path_fits_template(path, &t.tool.path_template)
        })
        .unwrap_or_else(|| panic!("a {method} tool for {path}"))
        .clone();
    let mut arguments = Map::new();
    let names = tool.tool.path_template.split('/');
    for (segment, value) in names.zip(path.split('/')) {
        if let Some(name) = segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            let param = tool
                .tool
                .params
                .iter()
                .find(|p| p.name == name)
                .map_or(name, |p| p.name.as_str());
            arguments.insert(param.to_string(), json!(value));
        }
    }
    arguments.insert("body".into(), body);
    let reply = env.call(&Request::Tool {
        name: tool.tool.name.clone(),
        arguments,
    });
    (reply.answer.status, body_of(&reply))
}

/// The member names of a held record, and its values but `volatile` ones.
fn held(read: &Value, volatile: &[&str]) -> Value {
    let mut v = read.clone();
    if let Some(o) = v.as_object_mut() {
        for name in volatile {
            if o.contains_key(*name) {
                o.insert((*name).to_string(), json!("<volatile>"));
            }
        }
    }
    v
}

#[test]
fn kinto_put_replaces_alike_on_its_route_and_over_mcp() {
    let capture = fixture("kinto/dev-a.har");
    let options = StartOptions::all_rules();
    let put = json!({"data": {"name": "Replaced", "price": 1.5}});
    let volatile = ["last_modified"];
    let product = "/v1/buckets/shop/collections/products/records/prod-013";
    let by_http = {
        let env = Environment::from_capture(&capture, &options).expect("environment");
        let (status, answer) = http(&env, "PUT", product, Some(put.clone()));
        assert_eq!(status, 200, "{answer}");
        http(&env, "GET", product, None).1["data"].clone()
    };
    let by_mcp = {
        let env = Environment::from_capture(&capture, &options).expect("environment");
        let (status, answer) = mcp(&env, "PUT", product, put.clone());
        assert_eq!(status, 200, "{answer}");
        http(&env, "GET", product, None).1["data"].clone()
    };
    assert_eq!(held(&by_mcp, &volatile), held(&by_http, &volatile));
    // A replace: the members not sent are gone.
    let names: Vec<&String> = by_http.as_object().expect("a record").keys().collect();
    assert!(
        !names.iter().any(|n| *n == "stock" || *n == "category"),
        "unsent members are gone: {by_http}"
    );
}

#[test]
fn creates_hold_the_same_record_over_http_and_mcp() {
    for (capture, collection, body, pointer) in [
        (
            fixture("kinto/dev-a.har"),
            "/v1/buckets/shop/collections/products/records",
            json!({"data": {"name": "New", "price": 2.5, "stock": 1}}),
            "/data",
        ),
        (
            fixture("jsonserver/dev-a.har"),
            "/posts",
            json!({"title": "New", "views": 0, "authorId": 1}),
            "",
        ),
    ] {
        let created = |over_mcp: bool| {
            let env = Environment::from_capture(&capture, &StartOptions::all_rules()).expect("env");
            let (status, answer) = if over_mcp {
                mcp(&env, "POST", collection, body.clone())
            } else {
                http(&env, "POST", collection, Some(body.clone()))
            };
            assert_eq!(status, 201, "{collection}: {answer}");
            let record = answer
                .pointer(pointer)
                .cloned()
                .expect("the created record");
            let id = match &record["id"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let read = http(&env, "GET", &format!("{collection}/{id}"), None);
            assert_eq!(read.0, 200, "{collection}/{id}: {}", read.1);
            read.1.pointer(pointer).cloned().expect("the read record")
        };
        let volatile = ["last_modified", "id"];
        assert_eq!(
            held(&created(true), &volatile),
            held(&created(false), &volatile),
            "{collection}"
        );
    }
}

/// On its own route a `PUT` without every member the plan requires is
/// refused by the engine and answered by the app model (a replace,
/// `update; convention`). On a sibling collection (no PUT was recorded for
/// customers) the family's plan, adapted, requires the customer's whole
/// entity (`generalize::sibling_required`), so the same body is refused
/// and replaced alike; the replace drops `signup_date`, a stamp-like name
/// the recorded creates sent (`ServingModel::client_sent`).
#[test]
fn kinto_put_replaces_alike_on_a_sibling_route() {
    let capture = fixture("kinto/dev-a.har");
    let options = StartOptions::all_rules();
    let put = json!({"data": {"name": "Replaced", "price": 1.5}});
    let volatile = ["last_modified"];
    let product = "/v1/buckets/shop/collections/products/records/prod-013";
    let env = Environment::from_capture(&capture, &options).expect("environment");
    assert_eq!(http(&env, "PUT", product, Some(put.clone())).0, 200);
    let by_http = http(&env, "GET", product, None).1["data"].clone();
    // A customer: no PUT tool names customers; the products plan answers.
    let customer = "/v1/buckets/shop/collections/customers/records/cust-005";
    let (status, answer) = http(&env, "PUT", customer, Some(put));
    assert_eq!(status, 200, "{answer}");
    let sibling = http(&env, "GET", customer, None).1["data"].clone();
    let mut expected = held(&by_http, &volatile);
    expected["id"] = json!("cust-005");
    assert_eq!(held(&sibling, &volatile), expected, "the same replace");
}

/// The same kind on DRF dev-a: the tasks `PUT` plan (a replace that
/// requires every member it stores) answers a projects item too (no PUT
/// was recorded for projects). A partial `PUT` is answered alike on both
/// routes (the same status and error code, the held record unchanged when
/// refused); a whole one replaces the record on the sibling route.
#[test]
fn drf_put_means_the_same_on_a_sibling_route() {
    let capture = fixture("drf/dev-a.har");
    let options = StartOptions::all_rules();
    let partial = |env: &Environment, path: &str, member: &str| {
        let before = http(env, "GET", path, None);
        assert_eq!(before.0, 200, "{path}: {}", before.1);
        let (status, answer) = http(env, "PUT", path, Some(json!({ member: "Partial" })));
        let after = http(env, "GET", path, None).1;
        let code = answer.get("code").or(answer.get("error")).cloned();
        let unchanged = after == before.1;
        (status, code, unchanged, answer)
    };
    let env = Environment::from_capture(&capture, &options).expect("environment");
    let own = partial(&env, "/api/tasks/1", "title");
    let sibling = partial(&env, "/api/projects/1", "name");
    assert_eq!(
        (own.0, &own.1, own.2),
        (sibling.0, &sibling.1, sibling.2),
        "own route {} / sibling route {}",
        own.3,
        sibling.3
    );
    // A whole project (every member a create of projects requires).
    let whole = json!({
        "name": "Whole", "description": "replaced", "budget": 1.0,
        "active": false, "settings": {}
    });
    let (status, answer) = http(&env, "PUT", "/api/projects/2", Some(whole.clone()));
    assert_eq!(status, 200, "{answer}");
    let mut expected = whole;
    expected["id"] = json!(2);
    assert_eq!(http(&env, "GET", "/api/projects/2", None).1, expected);
}
