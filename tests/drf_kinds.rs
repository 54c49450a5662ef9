//! The kinds the DRF pair (`tests/fixtures/drf/`, a Django REST framework
//! app recorded for real) needs, served by `rea environment-serve` trained
//! on dev-a and compared with what the real app answered in dev-b (same
//! seed, another session): page links in the body envelope followed to
//! the end, a delete answered 204 then the app's 404, a create lacking a
//! required member answered in the app's keyed error shape, the 404 of a
//! resource the capture never saw missing naming that resource, and a
//! server default that is `null`.

mod common;

use common::{repo_root, Server};
use serde_json::{json, Value};

/// The origin the recordings name (the app's address behind mitmproxy).
const ORIGIN: &str = "http://127.0.0.1:18410";

fn capture(session: &str) -> std::path::PathBuf {
    repo_root()
        .join("tests/fixtures/drf")
        .join(format!("{session}.har"))
}

/// The real app's answers in dev-b, in order: (method, path?query, status, body).
fn dev_b() -> Vec<(String, String, u16, Value)> {
    let har: Value =
        serde_json::from_slice(&std::fs::read(capture("dev-b")).expect("dev-b.har")).unwrap();
    har["log"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let url = e["request"]["url"].as_str().unwrap();
            let target = url.strip_prefix(ORIGIN).unwrap().to_string();
            let text = e["response"]["content"]["text"].as_str().unwrap_or("");
            (
                e["request"]["method"].as_str().unwrap().to_string(),
                target,
                e["response"]["status"].as_u64().unwrap() as u16,
                serde_json::from_str(text).unwrap_or(Value::Null),
            )
        })
        .collect()
}

fn recorded(all: &[(String, String, u16, Value)], n: usize) -> (u16, Value) {
    let (_, _, status, body) = &all[n - 1];
    (*status, body.clone())
}

/// Without the volatile `created_at` of created tasks (the harness
/// compares it by shape).
fn without_clock(mut v: Value) -> Value {
    if let Some(o) = v.as_object_mut() {
        o.remove("created_at");
    }
    v
}

#[test]
fn next_links_in_the_body_are_the_apps_own_and_lead_to_the_end() {
    let b = dev_b();
    let server = Server::start(&capture("dev-a"), &[]);
    // dev-a never asked for page_size=7: four pages, each as the app answered.
    let mut target = "/api/tasks/?page_size=7".to_string();
    let mut pages = 0;
    for n in 2..=5 {
        assert_eq!(
            b[n - 1].1,
            target,
            "dev-b step {n} is the page the link named"
        );
        let r = server.get(&target);
        assert_eq!(r.status, 200);
        let served = r.json_as_recorded(server.addr, ORIGIN);
        let (_, body) = recorded(&b, n);
        assert_eq!(served, body, "page {n}");
        pages += 1;
        match served["next"].as_str() {
            Some(next) => target = next.strip_prefix(ORIGIN).unwrap().to_string(),
            None => break,
        }
    }
    assert_eq!(pages, 4, "the last page's next is null");
    // A filter with a sort dev-a never combined: its links keep the query, sorted.
    let r = server.get("/api/projects/?ordering=name&page_size=5");
    let served = r.json_as_recorded(server.addr, ORIGIN);
    assert_eq!(
        served["next"],
        json!(format!(
            "{ORIGIN}/api/projects/?ordering=name&page=2&page_size=5"
        ))
    );
    assert_eq!(served["previous"], Value::Null);
    assert_eq!(served, recorded(&b, 16).1);
}

#[test]
fn a_delete_answers_204_then_the_apps_404_twice() {
    let b = dev_b();
    let server = Server::start(&capture("dev-a"), &[]);
    let gone = server.send("DELETE", "/api/tasks/8/", None);
    assert_eq!(gone.status, 204);
    assert!(gone.body.is_empty(), "no body: {}", gone.text());
    let read = server.get("/api/tasks/8/");
    assert_eq!((read.status, read.json()), recorded(&b, 27));
    let again = server.send("DELETE", "/api/tasks/8/", None);
    assert_eq!((again.status, again.json()), recorded(&b, 28));
    // The list no longer holds it (dev-b step 29: project 3 without task 8).
    let list = server.get("/api/tasks/?project=3");
    assert_eq!(
        list.json_as_recorded(server.addr, ORIGIN),
        recorded(&b, 29).1
    );
}

#[test]
fn a_create_lacking_a_required_member_gets_the_apps_keyed_400() {
    let b = dev_b();
    let server = Server::start(&capture("dev-a"), &[]);
    let r = server.send("POST", "/api/tasks/", Some(&json!({"title": "No project"})));
    assert_eq!((r.status, r.json()), recorded(&b, 38));
    assert_eq!(r.json(), json!({"project": ["This field is required."]}));
    // Nothing was created: the next create takes the next id.
    let made = server.send(
        "POST",
        "/api/tasks/",
        Some(
            &json!({"project": 6, "title": "Ranking tweaks", "status": "todo", "priority": 3,
            "estimate": 2.0, "assignee": "judy", "tags": [5], "details": {"points": 2}}),
        ),
    );
    assert_eq!(made.status, 201);
    assert_eq!(made.json()["id"], 25);
}

#[test]
fn an_unseen_resources_404_names_that_resource() {
    let b = dev_b();
    let server = Server::start(&capture("dev-a"), &[]);
    let r = server.get("/api/projects/99/");
    assert_eq!((r.status, r.json()), recorded(&b, 40));
    assert_eq!(r.json()["detail"], "No Project matches the given query.");
}

#[test]
fn a_create_fills_the_servers_null_default_and_keeps_the_sent_object() {
    let b = dev_b();
    let server = Server::start(&capture("dev-a"), &[]);
    let body = json!({"project": 6, "title": "Ranking tweaks", "status": "todo", "priority": 3,
        "estimate": 2.0, "assignee": "judy", "tags": [5], "details": {"points": 2}});
    let r = server.send("POST", "/api/tasks/", Some(&body));
    assert_eq!(r.status, 201);
    let served = r.json();
    assert_eq!(
        served["due_date"],
        Value::Null,
        "unsent: the server's default"
    );
    assert_eq!(
        served["details"],
        json!({"points": 2}),
        "the sent object, not dev-a's"
    );
    assert!(served["created_at"]
        .as_str()
        .is_some_and(|t| t.ends_with('Z')));
    let (status, recorded_body) = recorded(&b, 20);
    assert_eq!(status, 201);
    assert_eq!(without_clock(served), without_clock(recorded_body));
}

#[test]
fn the_model_records_the_page_link_spelling_with_its_evidence() {
    let out = std::process::Command::new(common::rea())
        .arg("environment-model")
        .arg(capture("dev-a"))
        .arg("--json")
        .output()
        .expect("run rea environment-model");
    assert!(out.status.success());
    let model: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let tasks = model["list_semantics"]["endpoints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["path_template"] == "/api/tasks/")
        .expect("the tasks list")
        .clone();
    let token = &tasks["spelling"]["token"];
    assert_eq!(token["format"], "page-link");
    assert_eq!(token["param"], "page");
    assert_eq!(token["sorted"], true, "dev-a's links sort the query");
    assert_eq!(token["order_basis"], "recorded");
    assert_eq!(token["previous"], "previous");
    assert_eq!(token["first_bare"], true);
    assert_eq!(token["null_at_end"], true);
    let delete = model["writes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["method"] == "DELETE")
        .expect("the delete");
    assert_eq!(delete["answer"]["statuses"], json!([204]));
    assert_eq!(delete["answer"]["body"], "empty");
    let required = model["validation"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["route"] == "/api/tasks" && v["kind"] == "required")
        .expect("a required rule on the tasks create");
    assert!(!required["checked_against"].as_array().unwrap().is_empty());
}

#[test]
fn a_list_never_recorded_unsorted_takes_creation_order_from_its_sibling() {
    // Trained on dev-b: its only tags list is `?ordering=-name`; the tasks
    // list confirms creation order (`created_at` ascending), which tags lack.
    let har: Value =
        serde_json::from_slice(&std::fs::read(capture("dev-a")).expect("dev-a.har")).unwrap();
    let entry = &har["log"]["entries"][3];
    assert!(entry["request"]["url"]
        .as_str()
        .unwrap()
        .ends_with("/api/tags/"));
    let real: Value =
        serde_json::from_str(entry["response"]["content"]["text"].as_str().unwrap()).unwrap();
    let server = Server::start(&capture("dev-b"), &[]);
    let r = server.get("/api/tags/");
    assert_eq!(r.status, 200);
    assert_eq!(r.json_as_recorded(server.addr, ORIGIN), real);
}
