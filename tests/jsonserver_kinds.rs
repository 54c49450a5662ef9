//! The kinds json-server shows, served from `tests/fixtures/jsonserver/dev-a.har`
//! and checked against what the real app answered in `dev-b.har` (the same
//! seed, another session: the real answers, recorded through mitmproxy, see
//! the fixture's README): a nested route of a parent dev-a never read and a
//! nested route dev-a never used (relations), an embed and an expansion of
//! unseen entities, comparison spellings dev-a never sent (a lent family,
//! `_like`), an `_start`/`_end` slice, `_sort` with `_order`, and a delete
//! that cascades to the parent's dependents. The app model names the
//! relations with their evidence.

mod common;

use common::{rea, repo_root, Server};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

fn capture(name: &str) -> PathBuf {
    repo_root().join("tests/fixtures/jsonserver").join(name)
}

/// The real app's answer to `target` in `dev-b.har` (the first 2xx GET).
fn real(target: &str) -> Value {
    let har: Value = serde_json::from_slice(&std::fs::read(capture("dev-b.har")).unwrap()).unwrap();
    let entry = har["log"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| {
            let url = e["request"]["url"].as_str().unwrap_or("");
            let path = url.splitn(4, '/').nth(3).map(|p| format!("/{p}"));
            e["request"]["method"] == "GET" && path.as_deref() == Some(target)
        })
        .unwrap_or_else(|| panic!("dev-b has no GET {target}"));
    serde_json::from_str(entry["response"]["content"]["text"].as_str().unwrap()).unwrap()
}

fn ids(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_i64().unwrap())
        .collect()
}

#[test]
fn unseen_narrowings_answer_what_the_real_app_answered() {
    let server = Server::start(&capture("dev-a.har"), &[]);
    for target in [
        // A nested route of a parent dev-a never used (dev-a: /posts/1/comments).
        "/posts/9/comments",
        // A nested route dev-a never used at all: the relation's key
        // spelling (`postId` of posts → `authorId` of authors), a convention.
        "/authors/4/posts",
        // An embed and an expansion of entities dev-a never embedded.
        "/posts/6?_embed=comments",
        "/comments/12?_expand=post",
        // `views_gte` kept lends `_lte`, `_ne`, `_like` (also to comments).
        "/posts?views_lte=200",
        "/posts?category_ne=tech&_sort=views&_order=desc&_limit=5",
        "/comments?likes_gte=20&approved=true",
        "/comments?body_like=great",
        // A slice by start and end; a sort with a separate direction.
        "/posts?_start=5&_end=10",
        "/posts?score_gte=3.5&_sort=score&_order=asc",
        "/authors?_sort=rating&_order=desc&_limit=4",
    ] {
        let got = server.get(target);
        assert_eq!(got.status, 200, "{target}: {}", got.text());
        assert_eq!(got.json(), real(target), "{target}");
    }
    // The narrowing is not a replay: a value no session sent.
    let got = server.get("/posts?views_lte=100").json();
    assert_eq!(ids(&got), vec![1, 9, 16], "{got}");
}

#[test]
fn a_parents_delete_removes_its_dependents() {
    let server = Server::start(&capture("dev-a.har"), &[]);
    // Post 1's comments (ids 1 and 21 in the seed), read through the
    // nested route, then gone with the post.
    let before = server.get("/posts/1/comments").json();
    assert_eq!(ids(&before), vec![1, 21]);
    assert_eq!(server.send("DELETE", "/posts/1", None).status, 200);
    assert_eq!(server.get("/posts/1").status, 404);
    assert_eq!(server.get("/comments/1").status, 404);
    assert_eq!(server.get("/comments/21").status, 404);
    assert_eq!(
        ids(&server.get("/posts/1/comments").json()),
        Vec::<i64>::new()
    );
    // Other posts' comments stay.
    assert_eq!(server.get("/comments/2").status, 200);
}

#[test]
fn the_app_model_names_each_relation_with_its_evidence() {
    let out = Command::new(rea())
        .arg("environment-model")
        .arg(capture("dev-a.har"))
        .arg("--json")
        .output()
        .expect("run rea environment-model");
    assert!(out.status.success());
    let model: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rels = model["relations"]["relations"].as_array().unwrap();
    let posts = rels
        .iter()
        .find(|r| r["parent"] == "/posts" && r["child"] == "/comments")
        .expect("posts -> comments");
    assert_eq!(posts["member"], "postId");
    assert_eq!(posts["status"], "confirmed");
    // dev-a 16 (`/posts/1/comments`), ordinal 15; the nested create (30,
    // ordinal 29) wrote the key as text; the cascade read (29, ordinal 28).
    assert!(posts["nested_by"].as_array().unwrap().contains(&15.into()));
    assert_eq!(posts["nested_creates"], serde_json::json!([29]));
    assert_eq!(posts["nested_key"], "text");
    assert_eq!(posts["cascade_by"], serde_json::json!([28]));
    let authors = rels
        .iter()
        .find(|r| r["parent"] == "/authors" && r["child"] == "/posts")
        .expect("authors -> posts");
    assert_eq!(authors["member"], "authorId");
    assert_eq!(authors["status"], "convention");
    let embeds = model["relations"]["embeddings"].as_array().unwrap();
    assert!(embeds.iter().any(|e| e["param"] == "_embed"
        && e["adds"] == "children"
        && e["confirmed_by"] == serde_json::json!([16])));
    assert!(embeds.iter().any(|e| e["param"] == "_expand"
        && e["adds"] == "parent"
        && e["confirmed_by"] == serde_json::json!([17])));
    // The lent comparison family, with the kept spelling it comes from.
    let lists = model["list_semantics"]["endpoints"].as_array().unwrap();
    let comments = lists.iter().find(|e| e["tool"] == "get_comments").unwrap();
    let lent = comments["lent_operators"].as_array().unwrap();
    assert!(lent
        .iter()
        .any(|l| l["affix"] == "_lte" && l["op"] == "lte" && l["from"] == "get_posts views_gte"));
    assert!(lent
        .iter()
        .any(|l| l["affix"] == "_like" && l["op"] == "like"));
}

#[test]
fn a_create_through_a_nested_route_sets_the_parents_key_as_the_app_does() {
    // dev-a creates one comment through `/posts/3/comments` (the server
    // writes `postId: "3"`, the path segment as text, and the next id) and
    // never posts to `/comments`; dev-b's real answer to the same kind of
    // call under post 21 is `postId: "21"`, `id: 26`.
    let server = Server::start(&capture("dev-a.har"), &[]);
    let body = serde_json::json!({"body": "Nested", "author": "Kira", "likes": 0, "approved": false, "rating": null});
    let created = server.send("POST", "/posts/5/comments", Some(&body));
    assert_eq!(created.status, 201, "{}", created.text());
    let created = created.json();
    assert_eq!(created["postId"], "5");
    assert_eq!(created["id"], 26);
    assert_eq!(created["body"], "Nested");
    let listed = server.get("/posts/5/comments").json();
    assert!(ids(&listed).contains(&26), "{listed}");
    assert_eq!(server.get("/comments/26").json()["postId"], "5");
}
