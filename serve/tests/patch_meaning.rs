//! One meaning per write plan: the engine applies a `PATCH` as its plan
//! means it (each sent member stored as sent, what the replay check
//! confirmed), and the app model in front makes it an RFC 7396 merge patch
//! only on the routes where its own evidence fits one (`merge-patch` among
//! the route's write hypotheses, and its replay of the route's writes got
//! every recorded status). Checked on two recordings (Kinto dev-a, the
//! `api-http1` items API) and on the same items API with one recorded
//! answer altered to contradict a merge patch.

use rea_engine::{AnswerBody, Call};
use rea_serve::{Environment, Request, StartOptions};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

const BASIS: &str = "x-rea-model-basis";

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(rel)
}

fn start(path: &Path, options: &StartOptions) -> Environment {
    Environment::from_capture(path, options).expect("environment")
}

struct Got {
    status: u16,
    body: Value,
    basis: Option<String>,
}

fn got(reply: std::sync::Arc<rea_serve::Reply>) -> Got {
    let basis = reply
        .answer
        .headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(BASIS))
        .map(|(_, v)| v.clone());
    Got {
        status: reply.answer.status,
        body: match &reply.answer.body {
            AnswerBody::Json(v) => v.clone(),
            _ => Value::Null,
        },
        basis,
    }
}

fn http(env: &Environment, method: &str, path: &str, body: Option<Value>) -> Got {
    got(env.call(&Request::Http(Call {
        method: method.into(),
        path: path.into(),
        query: None,
        headers: vec![("host".into(), "127.0.0.1:18999".into())],
        body,
    })))
}

/// Kinto wraps the record in `data`.
fn data(v: Value) -> Value {
    json!({ "data": v })
}

/// PATCHes the record at `path` with `{<object member>: {<its first
/// member>: null}, <string member>: null}` (members its read shows), checks
/// the read after it shows a merge patch, and answers the PATCH's answer.
fn merge_probe(env: &Environment, path: &str) -> Got {
    let before = http(env, "GET", path, None).body["data"].clone();
    let (object, inner) = before
        .as_object()
        .and_then(|o| {
            o.iter().find_map(|(k, v)| {
                let inner = v.as_object().filter(|i| i.len() >= 2)?;
                Some((k.clone(), inner.keys().next()?.clone()))
            })
        })
        .unwrap_or_else(|| panic!("{path}: an object member: {before}"));
    let text = before
        .as_object()
        .and_then(|o| {
            o.iter()
                .find(|(k, v)| *k != "id" && v.is_string())
                .map(|(k, _)| k.clone())
        })
        .unwrap_or_else(|| panic!("{path}: a string member: {before}"));
    let patch = json!({ object.clone(): { inner.clone(): null }, text.clone(): null });
    let answer = http(env, "PATCH", path, Some(data(patch)));
    assert_eq!(answer.status, 200, "{path}: {}", answer.body);
    let read = http(env, "GET", path, None).body["data"].clone();
    let mut expected = before[&object].clone();
    expected.as_object_mut().expect("object").remove(&inner);
    assert_eq!(read[&object], expected, "{path}: objects merge: {read}");
    assert!(read.get(&text).is_none(), "{path}: null removes: {read}");
    answer
}

/// The paths of `env`'s PATCH tools whose plan is `served` (or not), their
/// params filled with an observed value, whose records the World holds.
fn patch_paths(env: &Environment, served: bool) -> Vec<String> {
    env.all_tools()
        .iter()
        .filter(|t| t.tool.method == "PATCH" && t.served == served)
        .map(|t| {
            let mut path = t.tool.path_template.clone();
            for p in &t.tool.params {
                path = path.replace(&format!("{{{}}}", p.name), &p.observed[0]);
            }
            path
        })
        .filter(|p| http(env, "GET", p, None).status == 200)
        .collect()
}

#[test]
fn kinto_patches_merge_on_every_route_that_reaches_a_patch_plan() {
    // dev-a's PATCH writes fit [merge, merge-patch] (none contradicts a
    // merge patch), and the model's replay of them got every status. With
    // every template rule the engine's PATCH plans are served: the engine
    // applies them as merge patches because the model said so.
    let env = start(&fixture("kinto/dev-a.har"), &StartOptions::all_rules());
    let mut paths = patch_paths(&env, true);
    assert!(paths.len() >= 2, "{paths:?}");
    // A record of a collection no PATCH tool names reaches a sibling's plan.
    paths.push("/v1/buckets/shop/collections/orders/records/ord-003".into());
    for path in &paths {
        let answer = merge_probe(&env, path);
        assert_eq!(
            answer.basis.as_deref(),
            Some("merge-patch; confirmed"),
            "{path}: the model's inference is named"
        );
    }
    // A tool call means what the HTTP line means: pinned to its tool.
    let tool = env
        .all_tools()
        .iter()
        .find(|t| {
            t.tool.method == "PATCH" && t.served && t.tool.path_template.contains("/products/")
        })
        .expect("a served PATCH tool of products")
        .clone();
    let mut arguments = Map::new();
    for p in &tool.tool.params {
        arguments.insert(p.name.clone(), json!(p.observed[0]));
    }
    let call = |body: Value| {
        let mut arguments = arguments.clone();
        arguments.insert("body".into(), data(body));
        got(env.call(&Request::Tool {
            name: tool.tool.name.clone(),
            arguments,
        }))
    };
    let answer = call(json!({"rating": {"count": null}}));
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.basis.as_deref(), Some("merge-patch; confirmed"));
    let rating = &answer.body["data"]["rating"];
    assert!(
        rating.is_object() && rating.get("count").is_none(),
        "{}",
        answer.body
    );
    // Without the rules the literal PATCH tools are not served; whichever
    // answers (the app model), a PATCH still means a merge patch there.
    let env = start(&fixture("kinto/dev-a.har"), &StartOptions::default());
    let paths = patch_paths(&env, false);
    assert!(paths.len() >= 2, "{paths:?}");
    for path in &paths {
        merge_probe(&env, path);
    }
}

/// `PATCH /api/items/1 {"stock": 3, "tags": null}`, then its read.
fn patch_item_1(env: &Environment) -> Value {
    let patched = http(
        env,
        "PATCH",
        "/api/items/1",
        Some(json!({"stock": 3, "tags": null})),
    );
    assert_eq!(patched.status, 200, "{}", patched.body);
    let read = http(env, "GET", "/api/items/1", None).body;
    assert_eq!(read["stock"], json!(3), "{read}");
    read
}

#[test]
fn an_items_api_patch_removes_a_member_sent_as_null() {
    // api-http1 record 5: `PATCH {"stock": 7, "tags": null}` answered the
    // item without `tags` (a merge patch, not "stored as sent"); the PUT
    // before it answered without `meta` (a replace), so the model's write
    // evidence is read against the PUT's entity.
    let env = start(&fixture("formats/api-http1.har"), &StartOptions::default());
    let before = http(&env, "GET", "/api/items/1", None).body;
    assert_eq!(before["tags"], json!(["tools", "metal"]), "{before}");
    let read = patch_item_1(&env);
    assert!(read.get("tags").is_none(), "null removes: {read}");
    assert_eq!(read["name"], json!("Widget"), "unsent members stay: {read}");
}

#[test]
fn a_recorded_answer_that_contradicts_a_merge_patch_leaves_the_plans_meaning() {
    // The same recording, record 5 answering `"tags": null` (the null
    // stored as sent): the model rejects the merge patch (and a merge),
    // so nothing serves one: the sent null is stored as sent.
    let text = std::fs::read_to_string(fixture("formats/api-http1.har")).expect("fixture");
    let mut har: Value = serde_json::from_str(&text).expect("har");
    let entry = &mut har["log"]["entries"][5];
    assert_eq!(entry["request"]["method"], json!("PATCH"));
    let kept = r#"{"id": 4, "name": "Sprocket XL", "price": 2.5, "tags": null, "stock": 7}"#;
    entry["response"]["content"]["text"] = json!(kept);
    entry["response"]["content"]["size"] = json!(kept.len());
    let path = std::env::temp_dir().join(format!("rea-patch-meaning-{}.har", std::process::id()));
    std::fs::write(&path, serde_json::to_vec(&har).expect("json")).expect("write");
    let env = start(&path, &StartOptions::default());
    std::fs::remove_file(&path).expect("remove");
    let read = patch_item_1(&env);
    assert_eq!(read["tags"], json!(null), "stored as sent: {read}");
}
