//! The app model's Rails-style kinds on the Redmine captures
//! (`tests/fixtures/redmine/`, real Redmine 5.0.4): format-suffix routes
//! (`/issues/{id}.json` for an id only a list showed), `204` writes and the
//! read that shows them, reference objects set by id, empty-bodied absence,
//! presence validation, list filters on reference ids and a boolean
//! selector with its default — each compared with what the real app
//! answered in the other session (`dev-b.har`), served from `dev-a.har`.

mod common;

use common::{rea, repo_root};
use rea_engine::{AnswerBody, Call, Request};
use rea_serve::{Environment, StartOptions};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Command;

fn capture(name: &str) -> PathBuf {
    repo_root().join("tests/fixtures/redmine").join(name)
}

fn env() -> Environment {
    Environment::from_capture(&capture("dev-a.har"), &StartOptions::default()).expect("environment")
}

/// (status, body) of one call; `Value::Null` for an empty body.
fn send(env: &Environment, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let (path, query) = match path.split_once('?') {
        Some((p, q)) => (p.to_string(), Some(q.to_string())),
        None => (path.to_string(), None),
    };
    let reply = env.call(&Request::Http(Call {
        method: method.into(),
        path,
        query,
        headers: vec![("host".into(), "127.0.0.1:18399".into())],
        body,
    }));
    let body = match &reply.answer.body {
        AnswerBody::Json(v) => v.clone(),
        AnswerBody::Empty => Value::Null,
        other => panic!("not JSON: {other:?}"),
    };
    (reply.answer.status, body)
}

/// The real app's answer to request `n` (1-based) of a recorded session.
fn recorded(session: &str, n: usize) -> (String, u16, Value) {
    let har: Value =
        serde_json::from_slice(&std::fs::read(capture(session)).expect("read HAR")).expect("HAR");
    let e = &har["log"]["entries"][n - 1];
    let url = e["request"]["url"].as_str().unwrap();
    let path = url.splitn(4, '/').nth(3).map(|p| format!("/{p}")).unwrap();
    let text = e["response"]["content"]["text"].as_str().unwrap_or("");
    let body = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(text).unwrap()
    };
    (path, e["response"]["status"].as_u64().unwrap() as u16, body)
}

#[test]
fn an_issue_only_a_list_showed_is_read_at_its_json_route() {
    let env = env();
    // dev-b request 8: GET /issues/2.json, an id dev-a never read (only listed).
    let (path, status, expected) = recorded("dev-b.har", 8);
    assert_eq!(path, "/issues/2.json");
    let got = send(&env, "GET", &path, None);
    assert_eq!(got, (status, expected));
    // A time entry too (dev-b request 17), under a sibling resource.
    let (path, status, expected) = recorded("dev-b.har", 17);
    assert_eq!(path, "/time_entries/5.json");
    assert_eq!(send(&env, "GET", &path, None), (status, expected));
}

#[test]
fn a_204_update_sets_reference_objects_by_id_and_the_read_shows_it() {
    let env = env();
    let (status, body) = send(
        &env,
        "PUT",
        "/issues/5.json",
        Some(json!({"issue": {"status_id": 2, "assigned_to_id": 9, "done_ratio": 60}})),
    );
    assert_eq!((status, body), (204, Value::Null));
    let (status, read) = send(&env, "GET", "/issues/5.json", None);
    assert_eq!(status, 200);
    let issue = &read["issue"];
    assert_eq!(
        issue["status"],
        json!({"id": 2, "name": "In Progress", "is_closed": false})
    );
    assert_eq!(
        issue["assigned_to"],
        json!({"id": 9, "name": "Sofia Fischer"})
    );
    assert_eq!(issue["done_ratio"], json!(60));
    assert!(issue.get("status_id").is_none(), "{issue}");
}

#[test]
fn missing_and_deleted_issues_get_the_apps_empty_404() {
    let env = env();
    assert_eq!(
        send(&env, "GET", "/issues/777.json", None),
        (404, Value::Null)
    );
    assert_eq!(
        send(&env, "DELETE", "/issues/15.json", None),
        (204, Value::Null)
    );
    assert_eq!(
        send(&env, "GET", "/issues/15.json", None),
        (404, Value::Null)
    );
    assert_eq!(
        send(&env, "DELETE", "/issues/15.json", None),
        (404, Value::Null)
    );
}

#[test]
fn a_blank_or_missing_required_member_gets_the_apps_422() {
    let env = env();
    let blank = json!({"errors": ["Subject cannot be blank"]});
    // dev-b requests 34 and 35: an update blanking the subject, a create without one.
    for n in [34, 35] {
        let (path, status, expected) = recorded("dev-b.har", n);
        assert_eq!((status, &expected), (422, &blank));
        let har: Value =
            serde_json::from_slice(&std::fs::read(capture("dev-b.har")).unwrap()).unwrap();
        let e = &har["log"]["entries"][n - 1]["request"];
        let sent: Value = serde_json::from_str(e["postData"]["text"].as_str().unwrap()).unwrap();
        let method = e["method"].as_str().unwrap();
        assert_eq!(send(&env, method, &path, Some(sent)), (422, blank.clone()));
    }
    // The issue is unchanged.
    let (_, read) = send(&env, "GET", "/issues/10.json", None);
    assert_eq!(
        read["issue"]["subject"],
        json!("Search ignores accents (café)")
    );
}

#[test]
fn lists_filter_on_reference_ids_and_select_by_a_boolean_with_its_default() {
    let env = env();
    // dev-b 12 (`tracker_id=2`, open issues by default) and 16
    // (`user_id=6`): filters on nested reference ids dev-a filtered other
    // values of (or, for `user_id`, another reference of the same kind).
    for n in [12, 16] {
        let (path, status, expected) = recorded("dev-b.har", n);
        assert_eq!(send(&env, "GET", &path, None), (status, expected), "{path}");
    }
}

#[test]
fn the_model_names_its_suffix_references_and_presence_with_evidence() {
    let out = Command::new(rea())
        .arg("environment-model")
        .arg(capture("dev-a.har"))
        .arg("--json")
        .output()
        .expect("run rea environment-model");
    assert!(out.status.success());
    let m: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(m["format_suffix"]["suffix"], json!(".json"));
    assert_eq!(m["format_suffix"]["shapes"], json!([1, 2, 3]));
    let issues = m["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["collection"] == json!("/issues"))
        .expect("the issues resource");
    assert_eq!(issues["item"], json!("/issues/{issue_id}"));
    assert_eq!(issues["item_envelope"], json!("/issue"));
    let refs = m["id_references"].as_array().unwrap();
    let by = |sent: &str| refs.iter().find(|r| r["sent"] == json!(sent)).cloned();
    // PUT /issues/23.json (record 21) then its read (22) show the status set.
    assert_eq!(by("status_id").unwrap()["supported_by"], json!([21, 22]));
    // A parent issue's priority follows its children: the PUT of issue 3
    // (record 23) and its read (24) contradict setting it by id.
    assert_eq!(
        by("priority_id").unwrap()["contradicted_by"],
        json!([23, 24])
    );
    assert_eq!(m["presence"][0]["member"], json!("subject"));
    assert_eq!(m["presence"][0]["answer_ordinal"], json!(27));
    let lists = m["list_semantics"]["endpoints"].as_array().unwrap();
    let issues = lists
        .iter()
        .find(|e| e["tool"] == json!("get_issues"))
        .unwrap();
    assert_eq!(
        issues["default_filters"],
        json!([{"param": "status_id",
                "field": [{"step": "member", "name": "status"},
                          {"step": "member", "name": "is_closed"}],
                "value": false}])
    );
}

#[test]
fn a_model_read_carries_an_etag_and_if_none_match_gets_304_until_it_changes() {
    let env = env();
    let call = |headers: Vec<(String, String)>| {
        let mut h = vec![("host".to_string(), "127.0.0.1:18399".to_string())];
        h.extend(headers);
        env.call(&Request::Http(Call {
            method: "GET".into(),
            path: "/issues/5.json".into(),
            query: None,
            headers: h,
            body: None,
        }))
        .answer
        .clone()
    };
    let first = call(vec![]);
    assert_eq!(first.status, 200);
    let etag = first
        .headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("etag"))
        .map(|(_, v)| v.clone())
        .expect("an ETag, as Redmine's reads carry");
    assert!(etag.starts_with("W/\""), "weak, as recorded: {etag}");
    let again = call(vec![("if-none-match".into(), etag.clone())]);
    assert_eq!(again.status, 304);
    assert!(matches!(again.body, AnswerBody::Empty));
    let (status, _) = send(
        &env,
        "PUT",
        "/issues/5.json",
        Some(json!({"issue": {"done_ratio": 70}})),
    );
    assert_eq!(status, 204);
    // The stale validator no longer matches: the new body.
    let changed = call(vec![("if-none-match".into(), etag)]);
    assert_eq!(changed.status, 200);
}
