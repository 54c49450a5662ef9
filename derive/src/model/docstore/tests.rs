//! The document store on the real pouchdb-server capture
//! (`tests/fixtures/couch/dev-a.har`): revision shapes, the World a served
//! write leaves, and the app model's export/import of it.

use super::is_revision;
use crate::model::serving::serving_model;
use crate::testkit::fixture;
use rea_engine::Call;
use serde_json::{json, Value};

fn call(method: &str, path: &str, query: Option<&str>, body: Option<Value>) -> Call {
    Call {
        method: method.into(),
        path: path.into(),
        query: query.map(str::to_string),
        headers: Vec::new(),
        body,
    }
}

#[test]
fn revision_tokens_are_a_generation_and_a_long_token() {
    assert!(is_revision("1-76a32c5cfb1c6091c3422d2eacbbda2f"));
    assert!(is_revision("12-abcdefgh"));
    assert!(!is_revision("0-76a32c5cfb1c6091"));
    assert!(!is_revision("1-short"));
    assert!(!is_revision("book-001"));
    assert!(!is_revision("2026-12-01"));
}

#[test]
fn a_served_delete_is_exported_and_imported_back() {
    let serving = serving_model(&fixture("couch/dev-a.har")).expect("serving model");
    let mut world = serving.initial_world();
    let mut n = 0u32;
    let mut uuid = || {
        n += 1;
        format!("00000000-0000-4000-8000-{n:012}")
    };
    let read = serving
        .answer_engine_call(
            &mut world,
            &call("GET", "/books/book-015", None, None),
            0,
            &mut uuid,
        )
        .expect("the store reads a document only a list showed");
    let rev = read.body.as_ref().unwrap()["_rev"]
        .as_str()
        .unwrap()
        .to_string();
    let gone = serving
        .answer_engine_call(
            &mut world,
            &call(
                "DELETE",
                "/books/book-015",
                Some(&format!("rev={rev}")),
                None,
            ),
            0,
            &mut uuid,
        )
        .unwrap();
    assert_eq!(gone.status, 200);
    let rev2 = gone.body.as_ref().unwrap()["rev"]
        .as_str()
        .unwrap()
        .to_string();
    // The next generation, a fresh hash of the recorded length.
    assert!(rev2.starts_with("2-") && rev2.len() == rev.len(), "{rev2}");
    let exported = serving.export(&world).expect("a changed World");
    assert_eq!(exported["document_store"]["documents"][0]["id"], "book-015");
    assert_eq!(exported["document_store"]["documents"][0]["deleted"], true);
    let mut back = serving.import(&exported).expect("imports");
    let again = serving
        .answer_engine_call(
            &mut back,
            &call("GET", "/books/book-015", None, None),
            0,
            &mut uuid,
        )
        .unwrap();
    assert_eq!(again.status, 404);
    // An unknown collection is refused by name.
    let mut bad = exported.clone();
    bad["document_store"]["documents"][0]["collection"] = json!("/nowhere");
    assert!(serving.import(&bad).unwrap_err().contains("/nowhere"));
}
