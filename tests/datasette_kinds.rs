//! The kinds Datasette shows, served from `tests/fixtures/datasette/dev-a.har`
//! and checked against what the real app answered in `dev-b.har` (the same
//! seed, another session, recorded through mitmproxy: see the fixture's
//! README): item reads whose query selects another representation
//! (`?_shape=array` answers `[row]`) for rows dev-a never read, and writes
//! sent as `POST` to a verb tail (`/-/insert`, `/{id}/-/update`,
//! `/{id}/-/delete`, `/-/upsert`) with the entity carried in a body member,
//! the reads after them, and the app's refusal of a missing id. The app model
//! names the representations with their evidence.

mod common;

use common::{rea, repo_root, Server};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Command;

fn capture(name: &str) -> PathBuf {
    repo_root().join("tests/fixtures/datasette").join(name)
}

/// dev-b's request `n` (1-based, the plan's step): method, path and query,
/// body, and the real app's status and answer.
fn real(n: usize) -> (String, String, Option<Value>, u16, Value) {
    let har: Value = serde_json::from_slice(&std::fs::read(capture("dev-b.har")).unwrap()).unwrap();
    let e = &har["log"]["entries"][n - 1];
    let url = e["request"]["url"].as_str().unwrap();
    let target = format!("/{}", url.splitn(4, '/').nth(3).unwrap());
    let body = e["request"]["postData"]["text"]
        .as_str()
        .filter(|t| !t.is_empty())
        .map(|t| serde_json::from_str(t).unwrap());
    let answer = serde_json::from_str(e["response"]["content"]["text"].as_str().unwrap()).unwrap();
    (
        e["request"]["method"].as_str().unwrap().to_string(),
        target,
        body,
        e["response"]["status"].as_u64().unwrap() as u16,
        answer,
    )
}

#[test]
fn shape_array_reads_of_unseen_rows_answer_what_the_real_app_answered() {
    let server = Server::start(&capture("dev-a.har"), &[]);
    // dev-b 4–7: rows dev-a never read, `?_shape=array` (dev-a read other
    // rows that way, and listed these in full).
    for n in 4..=7 {
        let (method, target, _, status, answer) = real(n);
        assert_eq!(method, "GET");
        assert!(target.ends_with("?_shape=array"), "{target}");
        let got = server.get(&target);
        assert_eq!(got.status, status, "{target}: {}", got.text());
        assert_eq!(got.json(), answer, "{target}");
        assert!(got.json().as_array().is_some_and(|a| a.len() == 1));
    }
    // The plain read of the same row is not wrapped.
    let plain = server.get("/library/books/14.json");
    assert!(plain.json().is_object(), "{}", plain.text());
}

#[test]
fn verb_writes_and_the_reads_after_them_answer_what_the_real_app_answered() {
    let server = Server::start(&capture("dev-a.har"), &[]);
    // dev-b 22–28 on a book of its own: insert (`{"row"}`, `"return": true`),
    // read, update (`{"update"}`), read, delete, read (404), delete again
    // (404 `Record not found: ['23']`, the id substituted in dev-a's
    // `['999']` refusal). dev-a never deleted a book (its delete was of a
    // review: the sibling lends the route) and never updated one without
    // `"return"` (authors lend the `{"ok": true}` answer).
    for n in 22..=28 {
        let (method, target, body, status, answer) = real(n);
        let got = server.send(&method, &target, body.as_ref());
        assert_eq!(got.status, status, "{n} {method} {target}: {}", got.text());
        assert_eq!(got.json(), answer, "{n} {method} {target}");
    }
    // An update of a row nobody holds: the app's refusal, its id substituted.
    let got = server.send(
        "POST",
        "/library/reviews/77/-/update",
        Some(&json!({"update": {"stars": 1}})),
    );
    assert_eq!(got.status, 404, "{}", got.text());
    assert_eq!(got.json()["errors"], json!(["Record not found: ['77']"]));
}

#[test]
fn inserts_fill_unsent_columns_with_null_and_continue_the_ids() {
    let server = Server::start(&capture("dev-a.har"), &[]);
    // dev-a inserted authors 16 and books 23, 24 (its first creates): a
    // fresh fake starts where the app's counters stood.
    let got = server.send(
        "POST",
        "/library/authors/-/insert",
        Some(&json!({"row": {"name": "Vera Lind"}})),
    );
    assert_eq!(got.status, 201, "{}", got.text());
    let row = &got.json()["rows"][0];
    assert_eq!(row["id"], 16, "{row}");
    for member in ["country", "born", "rating", "active", "website", "tags"] {
        assert_eq!(row[member], Value::Null, "{member}: {row}");
    }
    // The read after it shows the same row; the upsert of an existing id
    // (dev-b 33's Lars Holm) merges, a new id is created.
    let read = server.get("/library/authors/16.json?_shape=array").json();
    assert_eq!(read, json!([row]));
    let up = server.send(
        "POST",
        "/library/authors/-/upsert",
        Some(
            &json!({"rows": [{"id": 12, "country": "KR"}, {"id": 31, "name": "New"}],
                     "return": true}),
        ),
    );
    assert_eq!(up.status, 200, "{}", up.text());
    let rows = up.json()["rows"].clone();
    assert_eq!(rows[0]["name"], "Lars Holm", "{rows}");
    assert_eq!(rows[0]["country"], "KR", "{rows}");
    assert_eq!(rows[1]["id"], 31, "{rows}");
    assert_eq!(rows[1]["born"], Value::Null, "{rows}");
}

#[test]
fn the_model_names_the_representation_and_its_evidence() {
    let out = Command::new(rea())
        .args(["environment-model", "--json"])
        .arg(capture("dev-a.har"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let model: Value = serde_json::from_slice(&out.stdout).unwrap();
    let reps = model["representations"]
        .as_array()
        .expect("representations");
    let books = reps
        .iter()
        .find(|r| r["resource"] == "books")
        .expect("books");
    assert_eq!(books["query"], json!([["_shape", "array"]]));
    assert_eq!(books["pointer"], "/0");
    assert!(!books["supported_by"].as_array().unwrap().is_empty());
    // The verb routes are the resources' write operations.
    let ops: Vec<(String, String)> = model["resources"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["operations"].as_array().unwrap().iter())
        .map(|o| {
            (
                o["route"].as_str().unwrap().to_string(),
                o["role"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for (route, role) in [
        ("/library/books/-/insert", "create"),
        ("/library/books/{book_id}/-/update", "update"),
        ("/library/reviews/{review_id}/-/delete", "delete"),
        ("/library/reviews/-/upsert", "upsert"),
    ] {
        assert!(
            ops.contains(&(route.to_string(), role.to_string())),
            "{route} {role}: {ops:?}"
        );
    }
}

#[test]
fn an_id_spelled_like_the_status_is_not_substituted_into_it() {
    // dev-b reads `authors/404` (answered 404 `{"ok": false, …, "status":
    // 404}`): the template keeps the status a number, so another id's
    // absence answers `"status": 404` too (dev-a 29, `reviews/7` after its
    // delete).
    let out = Command::new(rea())
        .args(["environment-model", "--json"])
        .arg(capture("dev-b.har"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let model: Value = serde_json::from_slice(&out.stdout).unwrap();
    let shape = model["errors"]["shapes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["template"]["error"] == "Row not found")
        .expect("the row absence shape");
    assert_eq!(shape["template"]["status"], 404, "{shape}");
    let server = Server::start(&capture("dev-b.har"), &[]);
    let got = server.get("/library/authors/77.json?_shape=array");
    assert_eq!(got.status, 404, "{}", got.text());
    assert_eq!(
        got.json(),
        json!({"ok": false, "error": "Row not found", "errors": ["Row not found"], "status": 404})
    );
}

/// dev-b's list reads 8–12 and 19: query combinations dev-a never sent —
/// operator spellings on other members and values (`__lt`, `__gte` lent by
/// dev-a's `__gt`, `__in`, `__contains`), sorts both ways (`_sort`,
/// `_sort_desc`), column selections (`_col` keeps the identity), and the
/// answer's shape (`_shape=array` the bare rows, `_shape=objects` the
/// envelope) — answered from dev-a's World as the real app answered them.
#[test]
fn unseen_list_queries_answer_what_the_real_app_answered() {
    let server = Server::start(&capture("dev-a.har"), &[]);
    for n in [8, 9, 10, 11, 12, 19] {
        let (method, target, _, status, answer) = real(n);
        assert_eq!(method, "GET");
        let got = server.get(&target);
        assert_eq!(got.status, status, "{target}: {}", got.text());
        assert_eq!(got.json(), answer, "{target}");
    }
    // The shapes: bare rows, and the envelope with `"next": null` on the
    // last page (the real app's own spelling, not left out).
    let (_, target, ..) = real(10);
    assert!(server.get(&target).json().is_array(), "{target}");
    let (_, target, ..) = real(19);
    let envelope = server.get(&target).json();
    assert_eq!(envelope["next"], Value::Null, "{envelope}");
    assert!(envelope.as_object().unwrap().contains_key("next"));
    // A column selection shows the identity and the named members only,
    // in the table's member order; no count where none was asked for.
    let (_, target, ..) = real(9);
    let rows = server.get(&target).json()["rows"].clone();
    for r in rows.as_array().unwrap() {
        let keys: Vec<&String> = r.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["id", "title", "price"], "{r}");
    }
    assert!(server.get(&target).json().get("count").is_none());
}

/// `_nocol` leaves the named members out (dev-a's `_nocol=tags&_nocol=website`
/// confirms it): on another table and other members, every other member
/// stays.
#[test]
fn omitted_columns_leave_only_those_members_out() {
    let server = Server::start(&capture("dev-a.har"), &[]);
    let got = server.get("/library/books.json?_nocol=description&_nocol=meta");
    assert_eq!(got.status, 200, "{}", got.text());
    let rows = got.json()["rows"].as_array().unwrap().clone();
    assert_eq!(rows.len(), 22);
    // dev-b 18 is the same selection (paged by 4): the real app's members.
    let (_, _, _, _, answer) = real(18);
    let real_keys: Vec<String> = answer["rows"][0]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    for r in &rows {
        let keys: Vec<String> = r.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, real_keys, "{r}");
    }
}

/// The list semantics the model keeps for Datasette, each with evidence
/// from dev-a's answers.
#[test]
fn the_model_names_the_list_meanings_and_their_evidence() {
    let out = Command::new(rea())
        .args(["environment-model", "--json"])
        .arg(capture("dev-a.har"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let model: Value = serde_json::from_slice(&out.stdout).unwrap();
    let endpoints = model["list_semantics"]["endpoints"].as_array().unwrap();
    let meaning = |tool: &str, param: &str| -> (String, String, Value) {
        let e = endpoints
            .iter()
            .find(|e| e["tool"] == tool)
            .unwrap_or_else(|| panic!("{tool}"));
        let p = e["params"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == param)
            .unwrap_or_else(|| panic!("{tool} {param}"));
        (
            p["meaning"]["kind"].as_str().unwrap().to_string(),
            p["status"].as_str().unwrap().to_string(),
            p["confirmed_by"].clone(),
        )
    };
    for (tool, param, kind) in [
        ("get_library_books", "_shape", "bare-items"),
        ("get_library_books", "_sort_desc", "sort-descending"),
        ("get_library_books", "_size", "page-size"),
        ("get_library_books", "_col", "columns"),
        ("get_library_books", "year__gt", "filter"),
        ("get_library_books", "title__contains", "filter"),
        ("get_library_authors", "_nocol", "omit-fields"),
        ("get_library_authors", "country__in", "filter"),
        ("get_library_authors", "_sort", "sort"),
        ("get_library_reviews", "book_id", "filter"),
    ] {
        let (k, status, by) = meaning(tool, param);
        assert_eq!(k, kind, "{tool} {param}");
        assert_eq!(status, "kept", "{tool} {param}");
        assert!(
            !by.as_array().unwrap().is_empty(),
            "{tool} {param}: no evidence"
        );
    }
    let books = endpoints
        .iter()
        .find(|e| e["tool"] == "get_library_books")
        .unwrap();
    let shape = books["params"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "_shape")
        .unwrap();
    assert_eq!(shape["meaning"]["values"], json!(["array"]));
    assert_eq!(books["identity"], json!([{"step": "member", "name": "id"}]));
}
