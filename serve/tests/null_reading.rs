//! A `PATCH`'s sent `null` is read as the recording shows it
//! (`derive/src/model/nulls.rs`): Kinto dev-b records a `null` that removes
//! the member (RFC 7396); DRF dev-b records one that is stored, on the task
//! route, and its tag route (no recorded `null`) takes that reading from
//! it. Where no `PATCH` of the app sent a `null` (Kinto dev-a) the default
//! stays: a merge patch, which removes it.

use rea_engine::{AnswerBody, Call};
use rea_serve::{Environment, Request, StartOptions};
use serde_json::{json, Value};
use std::path::PathBuf;

fn start(rel: &str) -> Environment {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(rel);
    Environment::from_capture(&path, &StartOptions::default()).expect("environment")
}

fn http(env: &Environment, method: &str, path: &str, sent: Option<Value>) -> (u16, Value) {
    let reply = env.call(&Request::Http(Call {
        method: method.into(),
        path: path.into(),
        query: None,
        headers: vec![
            ("host".into(), "127.0.0.1:18765".into()),
            ("content-type".into(), "application/json".into()),
        ],
        body: sent,
    }));
    let body = match &reply.answer.body {
        AnswerBody::Json(v) => v.clone(),
        _ => Value::Null,
    };
    (reply.answer.status, body)
}

#[test]
fn a_recorded_stored_null_is_stored_on_its_route_and_lent_to_the_apps_other_patch_routes() {
    let env = start("tests/fixtures/drf/dev-b.har");
    // The tag route recorded no null; the task route's stored one decides.
    let (status, tag) = http(&env, "PATCH", "/api/tags/6/", Some(json!({"color": null})));
    assert_eq!(status, 200, "{tag}");
    assert_eq!(tag.get("color"), Some(&Value::Null), "{tag}");
    let (_, read) = http(&env, "GET", "/api/tags/6/", None);
    assert_eq!(read.get("color"), Some(&Value::Null), "{read}");
    let (status, task) = http(
        &env,
        "PATCH",
        "/api/tasks/16/",
        Some(json!({"assignee": null})),
    );
    assert_eq!(status, 200, "{task}");
    assert_eq!(task.get("assignee"), Some(&Value::Null), "{task}");
}

#[test]
fn a_recorded_removing_null_and_the_default_remove_the_member() {
    for (capture, id) in [
        ("tests/fixtures/kinto/dev-b.har", "prod-008"),
        ("tests/fixtures/kinto/dev-a.har", "prod-001"),
    ] {
        let env = start(capture);
        let item = format!("/v1/buckets/shop/collections/products/records/{id}");
        let item = item.as_str();
        let (status, before) = http(&env, "GET", item, None);
        assert_eq!(status, 200, "{capture}: {before}");
        let member = before["data"]
            .as_object()
            .and_then(|d| {
                d.keys()
                    .find(|k| !["id", "last_modified"].contains(&k.as_str()))
                    .cloned()
            })
            .expect("a member to clear");
        let (status, after) = http(
            &env,
            "PATCH",
            item,
            Some(json!({"data": {member.clone(): null}})),
        );
        assert_eq!(status, 200, "{capture}: {after}");
        assert!(after["data"].get(&member).is_none(), "{capture}: {after}");
    }
}
