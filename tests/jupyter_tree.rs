//! The path-keyed tree kinds of the app model (`derive/src/model/tree/`) on
//! the real Jupyter Server captures in `tests/fixtures/jupyter/`: what
//! `environment-model` infers from dev-a (with its replay evidence), and what
//! `environment-serve` answers to calls dev-a never made — a key spanning
//! segments with a dot inside, `content=0`, an untitled `.json` (its media
//! type from another `.json` entry), a save (its size the text's length), a
//! move, the app's 409 and 404 quoting the key, a saved copy — compared with
//! dev-b's recorded answers (same seed) where dev-b made the same call.

mod common;

use common::{repo_root, Server};
use serde_json::{json, Value};
use std::path::PathBuf;

fn jupyter(name: &str) -> PathBuf {
    repo_root().join("tests/fixtures/jupyter").join(name)
}

#[test]
fn the_model_infers_the_tree_with_its_evidence() {
    let m = common::environment_model(&jupyter("dev-a.har"));
    let t = &m["tree_store"];
    assert_eq!(t["prefix"], "/api/contents");
    assert_eq!(t["key_member"], "path");
    assert_eq!(t["name_member"], "name");
    assert_eq!(t["children_member"], "content");
    assert_eq!(t["type_member"], "type");
    assert_eq!(t["container_type"], "directory");
    assert_eq!(t["detail_members"], json!(["content", "format"]));
    assert_eq!(t["container_detail"], json!({"format": "json"}));
    assert_eq!(t["omit_details"], json!(["content", "0"]));
    assert_eq!(t["size_of"], json!(["size", "content"]));
    assert_eq!(t["by_extension"], "mimetype");
    assert_eq!(t["rename_member"], "path");
    assert_eq!(t["tails"], json!(["checkpoints"]));
    assert_eq!(t["copies"]["id"], "checkpoint");
    assert_eq!(t["copies"]["restored_status"], 204);
    let untitled = t["untitled"].as_array().unwrap();
    assert!(untitled.contains(
        &json!({"type_value": "file", "stem": "untitled", "ext": ".txt", "ext_member": "ext"})
    ));
    assert!(
        untitled.contains(&json!({"type_value": "notebook", "stem": "Untitled", "ext": ".ipynb"}))
    );
    assert_eq!(t["exists"]["status"], 409);
    assert_eq!(t["absent"]["GET"]["before"], "file or directory '");
    // Every answer kind the replay ran is reproduced, none contradicted.
    let evidence = t["evidence"].as_object().unwrap();
    for kind in [
        "read",
        "read-omitting-details",
        "put-create",
        "put-replace",
        "untitled",
        "rename",
        "exists",
        "delete",
        "absent",
        "copy-list",
        "copy-create",
        "copy-restore",
    ] {
        let e = &evidence[kind];
        assert!(
            !e["supported_by"].as_array().unwrap().is_empty(),
            "{kind}: {e}"
        );
        assert_eq!(e["contradicted_by"], json!([]), "{kind}");
    }
    // `.json` is part of the keys here, not a representation suffix.
    assert!(m.get("format_suffix").is_none());
}

#[test]
fn other_apps_infer_no_tree() {
    for capture in [
        repo_root().join("../shared/fixtures/kinto/dev-a.har"),
        repo_root().join("tests/fixtures/couch/dev-a.har"),
        repo_root().join("tests/fixtures/datasette/dev-a.har"),
    ] {
        let m = common::environment_model(&capture);
        assert!(m.get("tree_store").is_none(), "{capture:?}");
    }
}

/// dev-b's recorded answer of its request `n` (1-based): status and body text.
fn recorded(n: usize) -> (u16, String) {
    let har: Value = serde_json::from_slice(&std::fs::read(jupyter("dev-b.har")).unwrap()).unwrap();
    let e = &har["log"]["entries"][n - 1];
    (
        e["response"]["status"].as_u64().unwrap() as u16,
        e["response"]["content"]["text"]
            .as_str()
            .unwrap_or("")
            .to_string(),
    )
}

/// `v` without the clock members (they differ between runs).
fn timeless(mut v: Value) -> Value {
    if let Some(o) = v.as_object_mut() {
        o.remove("last_modified");
        o.remove("created");
        for c in o.values_mut() {
            if let Some(list) = c.as_array_mut() {
                for e in list.iter_mut() {
                    *e = timeless(e.take());
                }
            }
        }
    }
    v
}

#[test]
fn serving_dev_a_answers_calls_it_never_recorded_as_the_app_did() {
    let s = Server::start(&jupyter("dev-a.har"), &[]);
    let c = "/api/contents";
    // content=0: the directory without its children (dev-b #15).
    let r = s.get(&format!("{c}/notes?content=0"));
    assert_eq!(r.status, 200);
    assert_eq!(
        timeless(r.json()),
        timeless(serde_json::from_str(&recorded(15).1).unwrap())
    );
    // An untitled .json (dev-b #24): named by the app's rule, its media type
    // that of dev-a's cities.json.
    let r = s.send(
        "POST",
        &format!("{c}/data"),
        Some(&json!({"type": "file", "ext": ".json"})),
    );
    assert_eq!(r.status, 201);
    assert_eq!(
        timeless(r.json()),
        timeless(serde_json::from_str(&recorded(24).1).unwrap())
    );
    // Saved (dev-b #25): the size is the text's length; read back (#26).
    let text = "{\"reading\": 21.7, \"ok\": true}\n";
    let r = s.send(
        "PUT",
        &format!("{c}/data/untitled.json"),
        Some(&json!({"type": "file", "format": "text", "content": text})),
    );
    assert_eq!((r.status, r.json()["size"].clone()), (200, json!(30)));
    let r = s.get(&format!(
        "{c}/data/untitled.json?type=file&format=text&content=1"
    ));
    assert_eq!(
        timeless(r.json()),
        timeless(serde_json::from_str(&recorded(26).1).unwrap())
    );
    // Moved (#27), the old key gone with the app's own 404 text (#29).
    let r = s.send(
        "PATCH",
        &format!("{c}/data/untitled.json"),
        Some(&json!({"path": "data/readings.json"})),
    );
    assert_eq!(
        timeless(r.json()),
        timeless(serde_json::from_str(&recorded(27).1).unwrap())
    );
    let r = s.get(&format!(
        "{c}/data/untitled.json?type=file&format=text&content=1"
    ));
    assert_eq!((r.status, r.text()), recorded(29));
    // A move onto a held key: the app's 409 quoting the target.
    let r = s.send(
        "PATCH",
        &format!("{c}/data/readings.json"),
        Some(&json!({"path": "data/cities.json"})),
    );
    assert_eq!(r.status, 409);
    assert_eq!(
        r.json(),
        json!({"message": "File already exists: data/cities.json", "reason": null})
    );
    // The listing holds the moved entity.
    let names: Vec<Value> = s.get(&format!("{c}/data?content=1")).json()["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].clone())
        .collect();
    assert!(names.contains(&json!("readings.json")) && !names.contains(&json!("untitled.json")));
    // A saved copy of a file dev-a never copied (dev-b #16, #17): listed
    // empty, made with the file's own last_modified.
    assert_eq!(
        s.get(&format!("{c}/notes/changelog.txt/checkpoints"))
            .json(),
        json!([])
    );
    let r = s.send("POST", &format!("{c}/notes/ideas.txt/checkpoints"), None);
    assert_eq!(
        (r.status, r.json()),
        (
            recorded(17).0,
            serde_json::from_str(&recorded(17).1).unwrap()
        )
    );
    // A new directory with a file in it, listed, removed (dev-b #34-#39).
    let r = s.send(
        "PUT",
        &format!("{c}/reports"),
        Some(&json!({"type": "directory"})),
    );
    assert_eq!(r.status, 201);
    let r = s.send(
        "PUT",
        &format!("{c}/reports/q1.md"),
        Some(&json!({"type": "file", "format": "text", "content": "# Q1\n"})),
    );
    assert_eq!(
        (
            r.status,
            r.json()["mimetype"].clone(),
            r.json()["size"].clone()
        ),
        (201, json!("text/markdown"), json!(5))
    );
    let listed = s.get(&format!("{c}/reports?content=1")).json();
    assert_eq!(listed["content"][0]["path"], "reports/q1.md");
    assert_eq!(s.send("DELETE", &format!("{c}/reports"), None).status, 204);
    let r = s.get(&format!("{c}/reports/q1.md"));
    assert_eq!(
        (r.status, r.text()),
        (
            404,
            "file or directory '/reports/q1.md' does not exist".to_string()
        )
    );
}
