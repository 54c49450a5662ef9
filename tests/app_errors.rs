//! The app's own refusals instead of rea's, on the real captures: a request
//! body that does not parse as JSON gets the app's recorded answer to one
//! (json-server's Express 400 page) where the recording shows it, and rea's
//! own `body_not_json` where it does not (Kinto) or where the body was sent
//! as a media type the app was never seen refusing.

mod common;

use common::{http, rea, repo_root, Server};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

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
    let out = Command::new(rea())
        .arg("environment-model")
        .arg(capture(app, name))
        .arg("--json")
        .output()
        .expect("run rea environment-model");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
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
