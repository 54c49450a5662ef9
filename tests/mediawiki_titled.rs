//! Items keyed by a title (`tests/fixtures/mediawiki/`, MediaWiki 1.39
//! recorded for real): `rea environment-serve` trained on one session
//! answers, for pages that session never read, what the real app answered
//! in the other session (same seed): its own 404 with the title
//! substituted, and its refusal of a write that lacks the token every
//! accepted write sent. A page some recorded answer names is never answered
//! absent; the app model shows the inference with its evidence.

mod common;

use common::{rea, repo_root, Server};
use serde_json::{json, Value};
use std::process::Command;

/// The origin the recordings name (the app behind mitmproxy).
const ORIGIN: &str = "http://127.0.0.1:18400";

fn capture(session: &str) -> std::path::PathBuf {
    repo_root()
        .join("tests/fixtures/mediawiki")
        .join(format!("{session}.har"))
}

/// The recorded entry `n` (1-based) of a session: (method, target, status, body).
fn entry(session: &str, n: usize) -> (String, String, u16, Value, Value) {
    let har: Value = serde_json::from_slice(&std::fs::read(capture(session)).unwrap()).unwrap();
    let e = &har["log"]["entries"][n - 1];
    let text = e["response"]["content"]["text"].as_str().unwrap_or("");
    let sent = e["request"]["postData"]["text"]
        .as_str()
        .and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or(Value::Null);
    (
        e["request"]["method"].as_str().unwrap().to_string(),
        e["request"]["url"]
            .as_str()
            .unwrap()
            .strip_prefix(ORIGIN)
            .unwrap()
            .to_string(),
        e["response"]["status"].as_u64().unwrap() as u16,
        serde_json::from_str(text).unwrap_or(Value::Null),
        sent,
    )
}

#[test]
fn unseen_titles_get_the_apps_absence_and_refusal_answers_both_ways() {
    // (train, scored, the scored session's absences and refusal by step)
    for (train, scored, steps) in [
        ("dev-a", "dev-b", [10, 36, 33]),
        ("dev-b", "dev-a", [10, 37, 27]),
    ] {
        let server = Server::start(&capture(train), &[]);
        for n in steps {
            let (method, target, status, body, sent) = entry(scored, n);
            assert!(
                target.starts_with("/rest.php/v1/page/"),
                "{scored} step {n} is a page call: {target}"
            );
            let r = server.send(&method, &target, (!sent.is_null()).then_some(&sent));
            assert_eq!(r.status, status, "{train} -> {scored} step {n}: {target}");
            assert_eq!(r.json(), body, "{train} -> {scored} step {n}: {target}");
        }
    }
}

#[test]
fn a_title_the_recording_names_is_never_answered_absent() {
    let server = Server::start(&capture("dev-a"), &[]);
    // Cherry is listed by dev-a's allpages and categorymembers, never read:
    // rea does not know its content, and must not claim the app lacks it.
    let r = server.get("/rest.php/v1/page/Cherry");
    assert_ne!(r.json()["httpCode"], json!(404), "{}", r.text());
    // A title nothing names gets the app's own 404, the title substituted.
    let r = server.get("/rest.php/v1/page/Zucchini_bread");
    assert_eq!(r.status, 404);
    assert_eq!(
        r.json(),
        json!({"messageTranslations": {"en": "The specified title (Zucchini_bread) does not exist"},
               "httpCode": 404, "httpReason": "Not Found"})
    );
    // A write that sends the token is not refused as lacking it.
    let r = server.send(
        "PUT",
        "/rest.php/v1/page/Zucchini_bread",
        Some(&json!({"source": "x", "comment": "c", "token": "+\\"})),
    );
    assert_ne!(
        r.json()["actionModuleErrorCode"],
        json!("missingparam"),
        "{}",
        r.text()
    );
}

#[test]
fn the_app_model_names_the_titled_position_with_its_evidence() {
    let out = Command::new(rea())
        .args(["environment-model", "--json"])
        .arg(capture("dev-a"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let model: Value = serde_json::from_slice(&out.stdout).unwrap();
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("manifests/environment-model.schema.json"))
            .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&model)
        .map(|e| e.to_string())
        .collect();
    assert!(
        errors.is_empty(),
        "the model does not fit the schema: {errors:#?}"
    );
    let p = &model["titled"]["positions"][0];
    assert_eq!(p["parent"], "/rest.php/v1/page");
    assert_eq!(p["echo_members"], json!(["key", "title"]));
    // Apple, Banana, Help:Editing, Quince (twice) and Leek: the 2xx reads.
    assert_eq!(p["supported_by"].as_array().unwrap().len(), 6);
    let named: Vec<&str> = p["named"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(named.contains(&"Cherry") && named.contains(&"Date_palm"));
    assert!(!named.contains(&"No_such_page") && !named.contains(&""));
    // The absence template, checked against both recorded 404s (one of them
    // Plum, after its delete).
    assert_eq!(
        p["absence"]["template"]["messageTranslations"]["en"],
        "The specified title ({title}) does not exist"
    );
    assert_eq!(p["absence"]["checked_against"], json!([9, 36]));
    let refusal = &p["refusals"][0];
    assert_eq!(refusal["method"], "PUT");
    assert_eq!(refusal["lacked"], json!(["token"]));
    assert_eq!(refusal["status"], 400);
}

/// The second app: Redmine reads projects by identifier (`/projects/roastery.json`)
/// beside their numeric ids. The identifier is echoed by the read and listed by
/// `/projects.json`, so an identifier nothing names gets the app's absence: every
/// recorded 404 read of Redmine is empty-bodied, which the model lends by analogy.
#[test]
fn a_second_app_reads_items_by_identifier_and_answers_unknown_ones_absent() {
    let har = repo_root().join("tests/fixtures/redmine/dev-a.har");
    let server = Server::start(&har, &[]);
    // dev-b step 37: the real app answered 404 with an empty body.
    let r = server.get("/projects/nosuch.json");
    assert_eq!(r.status, 404);
    assert_eq!(r.text(), "");
    // A listed identifier is known to exist: never answered absent.
    let r = server.get("/projects/webshop.json");
    assert!(!(r.status == 404 && r.text().is_empty()), "{}", r.text());
}
