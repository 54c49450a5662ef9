//! The document-store kinds of the app model (`derive/src/model/docstore/`)
//! on the real pouchdb-server captures in `tests/fixtures/couch/`: what
//! `environment-model` infers from dev-a (with its evidence), and what
//! `environment-serve` answers to calls no recording holds — revisions that
//! advance per write, the conflict answer for a stale or missing revision,
//! documents only a list showed, key-range paging, and a search POST with a
//! filter the capture never used — compared with the real app's answers in
//! dev-b.har (recorded from the same seed).

mod common;

use common::{http, rea, repo_root, Server};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Command;

fn couch(name: &str) -> PathBuf {
    repo_root().join("tests/fixtures/couch").join(name)
}

fn model(name: &str) -> Value {
    common::environment_model(&couch(name))
}

/// The recorded answer of dev-b's request `ordinal` (1-based).
fn recorded(name: &str, ordinal: usize) -> (u16, Value) {
    let har: Value = serde_json::from_slice(&std::fs::read(couch(name)).unwrap()).unwrap();
    let e = &har["log"]["entries"][ordinal - 1];
    let text = e["response"]["content"]["text"].as_str().unwrap();
    (
        e["response"]["status"].as_u64().unwrap() as u16,
        serde_json::from_str(text).unwrap(),
    )
}

fn send(s: &Server, method: &str, target: &str, body: Option<&Value>) -> (u16, Value) {
    let text = body.map(Value::to_string);
    let r = http(
        s.addr,
        method,
        target,
        &[
            ("Content-Type", "application/json"),
            ("Accept", "application/json"),
        ],
        text.as_deref(),
    );
    (r.status, r.json())
}

#[test]
fn the_model_infers_the_store_with_its_evidence() {
    let m = model("dev-a.har");
    let d = &m["document_store"];
    assert_eq!(d["key_member"], "_id");
    assert_eq!(d["revision_member"], "_rev");
    assert_eq!(d["collections"], json!(["/authors", "/books"]));
    assert_eq!(d["ack"]["key"], "id");
    assert_eq!(d["ack"]["revision"], "rev");
    assert_eq!(d["ack"]["constants"], json!({"ok": true}));
    // The body's `_rev` and `?rev=` name the revision; `If-Match` does not
    // (dev-a request 39 sent the current revision only there and got 409).
    assert_eq!(d["revision_sources"], json!(["body:_rev", "query:rev"]));
    assert_eq!(d["rejected_sources"][0]["source"], "header:if-match");
    assert!(!d["rejected_sources"][0]["contradicted_by"]
        .as_array()
        .unwrap()
        .is_empty());
    assert_eq!(d["conflict"]["status"], 409);
    assert_eq!(d["conflict"]["body"]["error"], "conflict");
    assert_eq!(d["reserved_key"]["leading"], "_");
    let rows = &d["rows"][0];
    assert_eq!(rows["literal"], "_all_docs");
    assert_eq!(
        rows["params"],
        json!({"descending": "descending", "endkey": "end", "include_docs": "include",
               "limit": "limit", "skip": "skip", "startkey": "start"})
    );
    assert_eq!(
        rows["numbers"],
        json!({"offset": "skipped", "total_rows": "count"})
    );
    let search = &d["searches"][0];
    assert_eq!(search["literal"], "_find");
    assert_eq!(search["sortable"], json!(["year"]));
    assert_eq!(search["operators"], json!(["$eq", "$gte", "$lt"]));
    assert_eq!(
        d["info"]["members"],
        json!({"adapter": "constant", "auto_compaction": "constant",
               "backend_adapter": "constant", "db_name": "name", "doc_count": "count",
               "instance_start_time": "clock", "update_seq": "sequence"})
    );
    // The document fits the model's schema.
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("manifests/environment-model.schema.json"))
            .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(&m).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // Every kind the replay ran is reproduced on every record it answered.
    for (kind, e) in d["evidence"].as_object().unwrap() {
        assert!(
            e["contradicted_by"].as_array().unwrap().is_empty(),
            "{kind} contradicted: {e}"
        );
        assert!(!e["supported_by"].as_array().unwrap().is_empty(), "{kind}");
    }
}

#[test]
fn recordings_without_revisions_get_no_store() {
    for app in ["kinto", "wordpress", "mlflow"] {
        let har = repo_root()
            .join("../shared/fixtures")
            .join(app)
            .join("dev-a.har");
        if !har.is_file() {
            continue;
        }
        let out = Command::new(rea())
            .arg("environment-model")
            .arg(&har)
            .arg("--json")
            .output()
            .unwrap();
        let m: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(m.get("document_store").is_none(), "{app}");
    }
}

#[test]
fn served_writes_advance_revisions_and_refuse_stale_ones() {
    let s = Server::start(&couch("dev-a.har"), &[]);
    // A document only a list showed (dev-a never read book-015 itself),
    // as the real app answered it in dev-b (request 26).
    let (status, doc) = send(&s, "GET", "/books/book-015", None);
    assert_eq!((status, &doc), (200, &recorded("dev-b.har", 26).1));
    let rev1 = doc["_rev"].as_str().unwrap().to_string();
    let mut body = doc.clone();
    body["price"] = json!(12.0);
    let (status, ack) = send(&s, "PUT", "/books/book-015", Some(&body));
    assert_eq!(status, 201);
    assert_eq!(ack["ok"], true);
    assert_eq!(ack["id"], "book-015");
    let rev2 = ack["rev"].as_str().unwrap().to_string();
    assert!(rev2.starts_with("2-") && rev2.len() == rev1.len(), "{rev2}");
    // The same now-stale revision again: the app's conflict (dev-b 28).
    let (status, refusal) = send(&s, "PUT", "/books/book-015", Some(&body));
    assert_eq!((status, refusal), recorded("dev-b.har", 28));
    // No revision at all: conflict too; the read shows the update.
    let (status, _) = send(&s, "PUT", "/books/book-015", Some(&json!({"title": "x"})));
    assert_eq!(status, 409);
    let (_, now) = send(&s, "GET", "/books/book-015", None);
    assert_eq!(now["_rev"], rev2.as_str());
    assert_eq!(now["price"], 12.0);
    // A delete with the stale revision is refused, with the current one done.
    let (status, _) = send(&s, "DELETE", &format!("/books/book-015?rev={rev1}"), None);
    assert_eq!(status, 409);
    let (status, gone) = send(&s, "DELETE", &format!("/books/book-015?rev={rev2}"), None);
    assert_eq!(status, 200);
    assert!(gone["rev"].as_str().unwrap().starts_with("3-"));
    let (status, absent) = send(&s, "GET", "/books/book-015", None);
    assert_eq!(
        (status, absent),
        (404, json!({"error": "not_found", "reason": "missing"}))
    );
    // A create on the sibling collection never created in: a generated uuid.
    let (status, ack) = send(&s, "POST", "/authors", Some(&json!({"name": "N"})));
    assert_eq!(status, 201);
    assert_eq!(ack["id"].as_str().unwrap().len(), 36);
    assert!(ack["rev"].as_str().unwrap().starts_with("1-"));
}

#[test]
fn unseen_paging_and_search_match_the_real_app() {
    let s = Server::start(&couch("dev-a.har"), &[]);
    // Key-range paging the capture never used, following the last key
    // twice (dev-b requests 9, 10, 11), a descending page and a range.
    for (ordinal, target) in [
        (9, "/authors/_all_docs?include_docs=true&limit=4"),
        (
            10,
            "/authors/_all_docs?include_docs=true&limit=4&startkey=%22author-04%22&skip=1",
        ),
        (
            11,
            "/authors/_all_docs?include_docs=true&limit=4&startkey=%22author-08%22&skip=1",
        ),
        (
            12,
            "/books/_all_docs?include_docs=true&descending=true&limit=3",
        ),
        (5, "/books/_all_docs"),
    ] {
        assert_eq!(
            send(&s, "GET", target, None),
            recorded("dev-b.har", ordinal),
            "{target}"
        );
    }
    // Search POSTs with filters dev-a never sent: `$gt` with `fields`, a
    // descending sort with a limit, `$in` (dev-b requests 15, 16, 18), and a
    // sort on a member no search sorted on (the app's 400, request 38).
    for (ordinal, body) in [
        (
            15,
            json!({"selector": {"price": {"$gt": 30}}, "fields": ["_id", "price"]}),
        ),
        (
            16,
            json!({"selector": {"year": {"$lt": 1975}}, "sort": [{"year": "desc"}], "limit": 4}),
        ),
        (
            38,
            json!({"selector": {"in_stock": true}, "sort": [{"price": "desc"}]}),
        ),
    ] {
        assert_eq!(
            send(&s, "POST", "/books/_find", Some(&body)),
            recorded("dev-b.har", ordinal)
        );
    }
    let body = json!({"selector": {"country": {"$in": ["FR", "DE"]}}});
    assert_eq!(
        send(&s, "POST", "/authors/_find", Some(&body)),
        recorded("dev-b.har", 18)
    );
}
