//! The app's own refusals instead of rea's, on the real captures:
//! - a request body that does not parse as JSON gets the app's recorded
//!   answer to one (json-server's Express 400 page) where the recording shows
//!   it, and rea's own `body_not_json` where it does not (Kinto) or where the
//!   body was sent as a media type the app was never seen refusing;
//! - a member sent against the type the app accepts gets the app's
//!   invalid-type answer (WordPress's `rest_invalid_param`, DRF's field
//!   errors), compared with what the real apps answered to requests no
//!   session sent (`tests/fixtures/app_errors/*.json`, with how they were
//!   made): lent to other members only where the recording confirms it;
//! - a value outside the values a member's recorded refusal lists gets that
//!   refusal (WordPress's `rest_not_in_enum` for a post's `status`).

mod common;

use common::{http, repo_root, Server};
use serde_json::Value;
use std::path::PathBuf;

fn capture(app: &str, name: &str) -> PathBuf {
    let local = repo_root().join("tests/fixtures").join(app).join(name);
    if local.exists() {
        local
    } else {
        repo_root().join("../shared/fixtures").join(app).join(name)
    }
}

/// The entries of a HAR.
fn entries(app: &str, name: &str) -> Vec<Value> {
    let har: Value = serde_json::from_slice(&std::fs::read(capture(app, name)).unwrap()).unwrap();
    har["log"]["entries"].as_array().unwrap().clone()
}

fn model(app: &str, name: &str) -> Value {
    let doc = common::environment_model(&capture(app, name));
    // Every model these tests read fits the model's schema.
    let text = std::fs::read_to_string(repo_root().join("manifests/environment-model.schema.json"))
        .unwrap();
    let validator = jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{app} {name}: {errors:#?}");
    doc
}

/// The recorded answer of the entry whose request body does not parse, in
/// a session (the real app's answer to a malformed body).
fn recorded_malformed(app: &str, name: &str) -> (u16, String, String) {
    let e = entries(app, name)
        .into_iter()
        .find(|e| {
            e["request"]["postData"]["text"]
                .as_str()
                .is_some_and(|t| serde_json::from_str::<Value>(t).is_err())
        })
        .expect("a malformed body in the session");
    let r = &e["response"];
    (
        r["status"].as_u64().unwrap() as u16,
        r["content"]["mimeType"].as_str().unwrap().to_string(),
        r["content"]["text"].as_str().unwrap().to_string(),
    )
}

#[test]
fn a_malformed_body_gets_the_apps_recorded_refusal_on_any_route() {
    // dev-a recorded one malformed body (`POST /comments`); dev-b's real
    // answer to another (`POST /authors`) is the one to match.
    let doc = model("jsonserver", "dev-a.har");
    let m = &doc["malformed_body"];
    assert_eq!(m["status"], 400, "{m}");
    assert_eq!(m["media_types"], serde_json::json!(["application/json"]));
    assert_eq!(m["supported_by"], m["checked_against"]);
    assert_eq!(m["supported_by"].as_array().unwrap().len(), 1);

    let (status, mime, text) = recorded_malformed("jsonserver", "dev-b.har");
    let server = Server::start(&capture("jsonserver", "dev-a.har"), &[]);
    let before = server.get("/posts").json();
    for (target, body) in [("/authors", r#"{"name": "broken"#), ("/posts", "{oops")] {
        let got = http(
            server.addr,
            "POST",
            target,
            &[("Content-Type", "application/json")],
            Some(body),
        );
        assert_eq!(got.status, status, "{target}: {}", got.text());
        assert_eq!(got.header("content-type"), Some(mime.as_str()));
        assert_eq!(got.text(), text, "{target}");
    }
    // Nothing changed.
    assert_eq!(server.get("/posts").json(), before);
    // A body sent as a media type the app was never seen refusing: rea's own.
    let got = http(
        server.addr,
        "POST",
        "/posts",
        &[("Content-Type", "text/plain")],
        Some("{oops"),
    );
    assert_eq!(got.status, 400);
    assert_eq!(got.json()["error"], "body_not_json", "{}", got.text());
}

#[test]
fn without_a_recorded_refusal_rea_keeps_its_own() {
    // Kinto's sessions never sent a malformed body.
    assert!(model("kinto", "dev-a.har").get("malformed_body").is_none());
    let server = Server::start(&capture("kinto", "dev-a.har"), &[]);
    let got = http(
        server.addr,
        "POST",
        "/v1/buckets/shop/collections/products/records",
        &[("Content-Type", "application/json")],
        Some("{oops"),
    );
    assert_eq!(got.status, 400);
    assert_eq!(got.json()["error"], "body_not_json", "{}", got.text());
}

/// The real app's answers to wrongly typed members (test data).
fn wrong_types(app: &str) -> Vec<Value> {
    let path = repo_root().join(format!("tests/fixtures/app_errors/{app}-wrong-types.json"));
    let doc: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    doc["exchanges"].as_array().unwrap().clone()
}

#[test]
fn wordpress_wrong_types_get_its_invalid_parameter_answer_for_any_integer_member() {
    // dev-b recorded two: `categories[0]` on POST /posts and `start_of_week`
    // on POST /settings; the first renders the second exactly, so it is
    // lent to every integer member (and array of integers).
    let doc = model("wordpress", "dev-b.har");
    let refusals = doc["member_types"]["refusals"].as_array().unwrap();
    assert_eq!(refusals.len(), 2, "{refusals:?}");
    let lent: Vec<&Value> = refusals
        .iter()
        .filter(|r| !r["lent_by"].as_array().unwrap().is_empty())
        .collect();
    assert_eq!(lent.len(), 1);
    assert_eq!(lent[0]["member"], "categories");
    assert_eq!(lent[0]["item_spelling"], "{member}[{index}]");

    let server = Server::start(&capture("wordpress", "dev-b.har"), &[]);
    let settings = server.get("/wp-json/wp/v2/settings").json();
    for x in wrong_types("wordpress") {
        let target = x["path"].as_str().unwrap();
        let got = server.send(x["method"].as_str().unwrap(), target, Some(&x["body"]));
        assert_eq!(got.status, 400, "{target} {}: {}", x["body"], got.text());
        assert_eq!(got.json(), x["answer"], "{target} {}", x["body"]);
    }
    // Refused writes change nothing.
    assert_eq!(server.get("/wp-json/wp/v2/settings").json(), settings);
    // A numeric string is a value the app reads as an integer: not judged.
    let got = server.send(
        "POST",
        "/wp-json/wp/v2/settings",
        Some(&serde_json::json!({"posts_per_page": "7"})),
    );
    assert_ne!(got.status, 400, "{}", got.text());

    // dev-a recorded no wrongly typed member: no type refusal is served.
    let a = model("wordpress", "dev-a.har");
    assert_eq!(a["member_types"]["refusals"], serde_json::json!([]));
    let server = Server::start(&capture("wordpress", "dev-a.har"), &[]);
    let got = server.send(
        "POST",
        "/wp-json/wp/v2/settings",
        Some(&serde_json::json!({"posts_per_page": "ten"})),
    );
    assert_ne!(
        serde_json::from_slice::<Value>(&got.body).ok().as_ref(),
        Some(&wrong_types("wordpress")[0]["answer"]),
        "{}",
        got.text()
    );
}

#[test]
fn drf_wrong_types_get_the_field_error_of_the_member_the_recording_refused() {
    // dev-b recorded one: PATCH /api/tasks/3/ {"priority": "high"}.
    let doc = model("drf", "dev-b.har");
    let refusals = doc["member_types"]["refusals"].as_array().unwrap();
    assert_eq!(refusals.len(), 1);
    assert_eq!(
        refusals[0]["template"],
        serde_json::json!({"{member}": ["A valid integer is required."]})
    );
    assert!(refusals[0]["lent_by"].as_array().unwrap().is_empty());

    let server = Server::start(&capture("drf", "dev-b.har"), &[]);
    let task = server.get("/api/tasks/5/").json();
    for x in wrong_types("drf") {
        let target = x["path"].as_str().unwrap();
        let body = &x["body"];
        let got = server.send(x["method"].as_str().unwrap(), target, Some(body));
        if body.get("priority").is_some_and(|p| p != "7") {
            // The refused member, on its item route and on its collection.
            assert_eq!(got.status, 400, "{target} {body}: {}", got.text());
            assert_eq!(got.json(), x["answer"], "{target} {body}");
        } else {
            // Never lent without a second refusal that confirms it: DRF
            // answers a key or a decimal member in other words.
            let member = body.as_object().unwrap().keys().next().unwrap().clone();
            let integer = serde_json::json!({ member: ["A valid integer is required."] });
            assert_ne!(
                serde_json::from_slice::<Value>(&got.body).ok(),
                Some(integer),
                "{target} {body}"
            );
        }
    }
    assert_eq!(server.get("/api/tasks/5/").json(), task);
}

#[test]
fn wordpress_values_outside_a_listed_enum_get_its_refusal() {
    // dev-a recorded `{"status": "live"}` refused, the answer listing the
    // accepted values (publish, future, draft, pending, private).
    let doc = model("wordpress", "dev-a.har");
    let enums = doc["member_types"]["enums"].as_array().unwrap();
    assert_eq!(enums.len(), 1, "{enums:?}");
    assert_eq!(enums[0]["member"], "status");
    for listed in ["publish", "future", "draft", "pending", "private"] {
        assert!(enums[0]["allowed"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a == listed));
    }
    let server = Server::start(&capture("wordpress", "dev-a.har"), &[]);
    let exchanges: Vec<Value> = {
        let path = repo_root().join("tests/fixtures/app_errors/wordpress-enum.json");
        let doc: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        doc["exchanges"].as_array().unwrap().clone()
    };
    for x in exchanges {
        let target = x["path"].as_str().unwrap();
        let body = &x["body"];
        let got = server.send(x["method"].as_str().unwrap(), target, Some(body));
        if x["status"] == 400 {
            // On the create route it was recorded on, and on the item route.
            assert_eq!(got.status, 400, "{target} {body}: {}", got.text());
            assert_eq!(got.json(), x["answer"], "{target} {body}");
        } else {
            // A listed value no session sent is accepted, as the app did.
            assert_eq!(got.status, x["status"], "{target} {body}: {}", got.text());
            assert_eq!(got.json()["status"], x["answer"]["status"]);
        }
    }
}
