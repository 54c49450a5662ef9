//! The Action API of the MediaWiki pair (`tests/fixtures/mediawiki/`): an
//! RPC-style path (`POST /api.php`, the operation and the page in a
//! form-encoded body). rea reads form bodies as members, and answers a
//! refused write with exactly a recorded refusal's parameter names the way
//! the app did (HTTP 200 `{"error": …}`), in both directions of the pair;
//! an accepted write's names are never answered with a refusal, and a
//! path with one operation (DRF's creates) holds no RPC refusal.

mod common;

use common::{http, repo_root, Server};
use serde_json::{json, Value};

fn capture(app: &str, session: &str) -> std::path::PathBuf {
    repo_root()
        .join("tests/fixtures")
        .join(app)
        .join(format!("{session}.har"))
}

/// Entry `n` (1-based): (form body as sent, recorded status, recorded answer).
fn form_entry(session: &str, n: usize) -> (String, u16, Value) {
    let har: Value =
        serde_json::from_slice(&std::fs::read(capture("mediawiki", session)).unwrap()).unwrap();
    let e = &har["log"]["entries"][n - 1];
    assert_eq!(
        e["request"]["postData"]["mimeType"],
        "application/x-www-form-urlencoded"
    );
    (
        e["request"]["postData"]["text"]
            .as_str()
            .unwrap()
            .to_string(),
        e["response"]["status"].as_u64().unwrap() as u16,
        serde_json::from_str(e["response"]["content"]["text"].as_str().unwrap()).unwrap(),
    )
}

fn post_form(server: &Server, body: &str) -> common::Response {
    http(
        server.addr,
        "POST",
        "/api.php",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        Some(body),
    )
}

fn model(app: &str, session: &str) -> Value {
    common::environment_model(&capture(app, session))
}

#[test]
fn refused_form_writes_get_the_apps_own_refusal_both_ways() {
    // (train, scored, the scored session's refused edits: no token, a missing page)
    for (train, scored, steps) in [("dev-a", "dev-b", [26, 37]), ("dev-b", "dev-a", [33, 34])] {
        let server = Server::start(&capture("mediawiki", train), &[]);
        for n in steps {
            let (body, status, answer) = form_entry(scored, n);
            let r = post_form(&server, &body);
            assert_eq!(r.status, status, "{train} -> {scored} step {n}: {body}");
            let served = r.json();
            assert_eq!(served, answer, "{train} -> {scored} step {n}: {body}");
            assert!(served["error"]["code"].is_string());
        }
    }
}

#[test]
fn an_accepted_writes_names_are_never_answered_with_a_refusal() {
    let server = Server::start(&capture("mediawiki", "dev-a"), &[]);
    // dev-b's create of Walnut sends the names of dev-a's accepted create.
    let (body, _, _) = form_entry("dev-b", 23);
    let r = post_form(&server, &body);
    let text = r.text();
    assert!(
        !text.contains("missingparam") && !text.contains("missingtitle"),
        "{text}"
    );
}

#[test]
fn the_model_keys_rpc_refusals_by_names_with_their_evidence() {
    let m = model("mediawiki", "dev-a");
    let refusals = m["rpc_refusals"].as_array().expect("rpc_refusals");
    assert_eq!(refusals.len(), 2);
    let no_token = &refusals[0];
    assert_eq!(no_token["path"], "/api.php");
    assert_eq!(
        no_token["names"],
        json!([
            "action",
            "format",
            "formatversion",
            "summary",
            "text",
            "title"
        ])
    );
    assert_eq!(no_token["lacked"], json!(["createonly", "token"]));
    assert_eq!(no_token["answer"]["error"]["code"], "missingparam");
    // Compared with the accepted create (record 29, ordinal 28).
    assert_eq!(no_token["checked_against"], json!([28]));
    assert_eq!(refusals[1]["answer"]["error"]["code"], "missingtitle");
    // One operation per path (DRF's creates, refused for a duplicate name):
    // not RPC-style, no refusal kept.
    assert!(model("drf", "dev-a").get("rpc_refusals").is_none());
}

/// Entry `n` (1-based) of a session: (path?query, recorded answer).
fn read_entry(session: &str, n: usize) -> (String, Value) {
    let har: Value =
        serde_json::from_slice(&std::fs::read(capture("mediawiki", session)).unwrap()).unwrap();
    let e = &har["log"]["entries"][n - 1];
    let url = e["request"]["url"].as_str().unwrap();
    (
        url.strip_prefix("http://127.0.0.1:18400")
            .unwrap()
            .to_string(),
        serde_json::from_str(e["response"]["content"]["text"].as_str().unwrap()).unwrap(),
    )
}

#[test]
fn unseen_page_sizes_and_keyed_cursors_are_answered_from_the_chained_pages() {
    // dev-b followed allpages (aplimit=8) to the end and read two categories whole:
    // dev-a's aplimit=5 pages (the second twice) and its Vegetable list are answered
    // as the real app answered them.
    let server = Server::start(&capture("mediawiki", "dev-b"), &[]);
    for n in [11, 12, 38, 40] {
        let (target, answer) = read_entry("dev-a", n);
        let r = server.get(&target);
        assert_eq!(r.status, 200, "dev-a step {n}: {target}: {}", r.text());
        assert_eq!(r.json(), answer, "dev-a step {n}: {target}");
    }
    // The other way: dev-a's two allpages pages cover dev-b's first page of 8, and
    // the continuation is the ninth title.
    let server = Server::start(&capture("mediawiki", "dev-a"), &[]);
    let (target, answer) = read_entry("dev-b", 11);
    let r = server.get(&target);
    assert_eq!(r.json(), answer, "dev-b step 11: {target}");
    assert_eq!(r.json()["continue"]["apcontinue"], "Kiwifruit");
    // Past what dev-a's pages cover (they end with a continuation), no list is made up.
    let r =
        server.get("/api.php?action=query&list=allpages&aplimit=50&format=json&formatversion=2");
    assert_ne!(r.status, 200, "{}", r.text());
}

#[test]
fn the_model_names_limits_cursors_and_chained_lists() {
    let m = model("mediawiki", "dev-a");
    let lists = m["rpc_lists"].as_array().expect("rpc_lists");
    let allpages = lists
        .iter()
        .find(|l| l["items"] == "/query/allpages")
        .unwrap();
    assert_eq!(allpages["path"], "/api.php");
    assert_eq!(allpages["limits"][0]["name"], "aplimit");
    assert_eq!(allpages["cursors"][0]["name"], "apcontinue");
    assert_eq!(
        allpages["cursors"][0]["answer_pointer"],
        "/continue/apcontinue"
    );
    assert_eq!(allpages["cursors"][0]["key_member"], "title");
    // The main namespace: two chained pages (the second read twice), not complete.
    let main = &allpages["lists"][0];
    assert_eq!(main["items"].as_array().unwrap().len(), 10);
    assert_eq!(main["complete"], false);
    let members = lists
        .iter()
        .find(|l| l["items"] == "/query/categorymembers")
        .unwrap();
    // `cmcontinue` is opaque: the page it starts does not begin with an item holding it.
    assert_eq!(members["cursors"][0]["name"], "cmcontinue");
    assert!(members["cursors"][0]["key_member"].is_null());
}

#[test]
fn a_query_keyed_read_of_an_unnamed_page_gets_the_apps_absence() {
    // dev-a shows Plum's revisions present, then `missing` after its delete: the
    // absence. dev-b's read of its deleted Walnut is answered the same way.
    let server = Server::start(&capture("mediawiki", "dev-a"), &[]);
    let (target, answer) = read_entry("dev-b", 35);
    assert_eq!(answer["query"]["pages"][0]["missing"], true);
    let r = server.get(&target);
    assert_eq!(r.status, 200);
    assert_eq!(r.json(), answer, "dev-b step 35: {target}");
    // Two titles in one value (`|` is in no named title) are not one key.
    let two = target.replace("titles=Walnut", "titles=Walnut%7CHazelnut");
    let r = server.get(&two);
    assert_ne!(
        r.json()["query"]["pages"][0]["title"],
        "Walnut|Hazelnut",
        "{}",
        r.text()
    );
    // A page the recording names (Cherry, listed by allpages) is never answered missing.
    let r = server.get(&target.replace("titles=Walnut", "titles=Cherry"));
    assert!(!r.text().contains("\"missing\""), "{}", r.text());
    let m = model("mediawiki", "dev-a");
    let a = &m["rpc_absences"][0];
    assert_eq!(a["key"], "titles");
    assert_eq!(a["key_member"], "title");
    assert_eq!(a["flag"], "missing");
    assert_eq!(a["template_ordinal"], 35);
}
