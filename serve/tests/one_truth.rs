//! One truth per resource across the app model and the engine, on real
//! captures: an entity of a path resource whose collection the engine's
//! World holds is held once, as the engine's row. A write through the app
//! model is written to the row, a row changed by an engine write (here an
//! MCP-style tool call, which the engine answers) or by `data/add` is what
//! the app model's reads answer next, `data/get` lists it once (in the
//! World's tables; the `app_model_held` table names it by key only), and
//! `data/reset` restores both sides. See docs/serving.md ("One truth per
//! resource").

use rea_engine::{AnswerBody, Call};
use rea_serve::{Environment, ImportError, Request, StartOptions};
use serde_json::{json, Value};
use std::path::PathBuf;

fn start(rel: &str) -> Environment {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(rel);
    Environment::from_capture(&path, &StartOptions::default()).expect("environment")
}

fn body(reply: &rea_serve::Reply) -> Value {
    match &reply.answer.body {
        AnswerBody::Json(v) => v.clone(),
        _ => Value::Null,
    }
}

fn http(env: &Environment, method: &str, target: &str, sent: Option<Value>) -> (u16, Value) {
    let (path, query) = match target.split_once('?') {
        Some((p, q)) => (p.to_string(), Some(q.to_string())),
        None => (target.to_string(), None),
    };
    let reply = env.call(&Request::Http(Call {
        method: method.into(),
        path,
        query,
        headers: vec![
            ("host".into(), "127.0.0.1:18765".into()),
            ("content-type".into(), "application/json".into()),
        ],
        body: sent,
    }));
    (reply.answer.status, body(&reply))
}

/// A tool call to the tool at `method template` (answered by the engine).
fn tool(env: &Environment, method: &str, template: &str, arguments: Value) -> (u16, Value) {
    let name = env
        .all_tools()
        .iter()
        .find(|t| t.tool.method == method && t.tool.path_template == template)
        .map(|t| t.tool.name.clone())
        .unwrap_or_else(|| {
            let all: Vec<String> = env
                .all_tools()
                .iter()
                .map(|t| format!("{} {}", t.tool.method, t.tool.path_template))
                .collect();
            panic!("a tool {method} {template} among {all:?}")
        });
    let arguments = arguments.as_object().cloned().unwrap_or_default();
    let reply = env.call(&Request::Tool { name, arguments });
    (reply.answer.status, body(&reply))
}

/// The rows of `table` in `data/get` whose `id` is `id`.
fn rows(env: &Environment, table: &str, id: &Value) -> Vec<Value> {
    env.export()["collections"][table]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| &r["id"] == id)
        .cloned()
        .collect()
}

/// `data/add` in additive spirit: `edit` changes the current World.
fn add(env: &Environment, edit: impl Fn(&mut Value)) -> Result<(), ImportError> {
    env.load(&|current: &Value| {
        let mut next = current.clone();
        edit(&mut next);
        Ok(next)
    })
}

fn set_row(world: &mut Value, table: &str, id: &Value, member: &str, value: Value) {
    for r in world["collections"][table]
        .as_array_mut()
        .expect("the table")
    {
        if &r["id"] == id {
            r[member] = value.clone();
        }
    }
}

fn listed<'a>(list: &'a Value, id: &Value) -> Vec<&'a Value> {
    let items = list.get("data").unwrap_or(list);
    items
        .as_array()
        .into_iter()
        .flatten()
        .filter(|i| &i["id"] == id)
        .collect()
}

const TAGS: &str = "/wp-json/wp/v2/tags";

#[test]
fn a_tag_the_app_model_creates_is_one_row_that_every_read_and_data_add_agree_on() {
    // WordPress dev-a: POST /tags is answered by the app model.
    let env = start("tests/fixtures/wordpress/dev-a.har");
    let (status, tag) = http(&env, "POST", TAGS, Some(json!({"name": "Guatemala"})));
    assert_eq!(status, 201, "{tag}");
    let id = tag["id"].clone();
    let item = format!("{TAGS}/{id}");
    // data/get: the tag is listed exactly once, as a row of the tags table;
    // the app-model part names it by key only.
    let got = env.export();
    let row = rows(&env, "tags", &id);
    assert_eq!(row.len(), 1, "one row: {row:?}");
    assert_eq!(row[0]["name"], json!("Guatemala"));
    // Its value is that row: the app model's own tables do not list it,
    // and `app_model_held` names it by key only.
    let own = got["collections"]["app_model_entities"]
        .as_array()
        .expect("the app model's own entities");
    assert!(!own.iter().any(|e| e["scope"] == json!(TAGS)), "{own:?}");
    let held = &got["collections"]["app_model_held"];
    assert_eq!(held[0]["id"], json!(id.to_string()));
    assert!(held[0].get("entity").is_none());
    // data/add changes the row: the item read and the list read show it.
    add(&env, |w| {
        set_row(w, "tags", &id, "name", json!("Guatemala Huehue"))
    })
    .expect("data/add");
    let (status, read) = http(&env, "GET", &item, None);
    assert_eq!((status, &read["name"]), (200, &json!("Guatemala Huehue")));
    let (_, list) = http(&env, "GET", &format!("{TAGS}?per_page=100"), None);
    let shown = listed(&list, &id);
    assert_eq!(shown.len(), 1, "listed once");
    assert_eq!(shown[0]["name"], json!("Guatemala Huehue"));
    // An update through the app model starts from that value and is
    // written to the row.
    let (status, updated) = http(
        &env,
        "POST",
        &item,
        Some(json!({"description": "Huehuetenango"})),
    );
    assert_eq!(status, 200, "{updated}");
    assert_eq!(updated["name"], json!("Guatemala Huehue"));
    let row = rows(&env, "tags", &id);
    assert_eq!(row[0]["description"], json!("Huehuetenango"));
    assert_eq!(row[0]["name"], json!("Guatemala Huehue"));
    // data/add without the row: every read agrees it is gone.
    add(&env, |w| {
        w["collections"]["tags"]
            .as_array_mut()
            .expect("tags")
            .retain(|r| r["id"] != id)
    })
    .expect("data/add");
    assert_eq!(http(&env, "GET", &item, None).0, 404);
    let (_, list) = http(&env, "GET", &format!("{TAGS}?per_page=100"), None);
    assert!(listed(&list, &id).is_empty(), "the list drops it");
    // data/reset: both sides back at the recording's start.
    env.reset();
    assert_eq!(env.export()["collections"]["app_model_held"], json!([]));
    assert!(rows(&env, "tags", &id).is_empty());
    assert_eq!(http(&env, "GET", &item, None).0, 404);
}

#[test]
fn a_delete_through_the_app_model_removes_the_row_and_a_data_get_round_trip_keeps_it_so() {
    // WordPress dev-a: the category delete (`?force=true`) is the app model's.
    let env = start("tests/fixtures/wordpress/dev-a.har");
    let (_, cats) = http(&env, "GET", "/wp-json/wp/v2/categories", None);
    let id = cats[0]["id"].clone();
    assert_eq!(rows(&env, "categories", &id).len(), 1);
    let item = format!("/wp-json/wp/v2/categories/{id}");
    let (status, renamed) = http(&env, "POST", &item, Some(json!({"name": "Brewing notes"})));
    assert_eq!(status, 200, "{renamed}");
    assert_eq!(
        rows(&env, "categories", &id)[0]["name"],
        json!("Brewing notes")
    );
    let reply = env.call(&Request::Http(Call::new(
        "DELETE",
        &item,
        Some("force=true"),
    )));
    assert_eq!(reply.answer.status, 200, "{:?}", reply.answer.body);
    assert_eq!(body(&reply)["previous"]["name"], json!("Brewing notes"));
    assert!(rows(&env, "categories", &id).is_empty(), "the row is gone");
    let (_, list) = http(&env, "GET", "/wp-json/wp/v2/categories", None);
    assert!(listed(&list, &id).is_empty());
    // data/get then data/add of that result: the same World.
    let got = env.export();
    env.replace(&got).expect("the exported World loads back");
    assert_eq!(env.export(), got);
    assert_eq!(http(&env, "GET", &item, None).0, 404);
}

const PRODUCTS: &str = "/v1/buckets/shop/collections/products/records";
const PRODUCT: &str = "/v1/buckets/shop/collections/products/records/{uuid}";
const ORDERS: &str = "/v1/buckets/shop/collections/orders/records";
const ORDER: &str = "/v1/buckets/shop/collections/orders/records/{uuid}";
const NEW: &str = "5d4c2d0e-8a43-4f7e-9b4a-2f1f0c9e7a11";
const CUSTOMERS: &str = "/v1/buckets/shop/collections/customers/records";

#[test]
fn a_record_the_app_model_upserts_is_the_row_a_tool_call_then_patches_and_deletes() {
    // Kinto dev-a: a PUT to an id no recording holds is the app model's upsert.
    let env = start("tests/fixtures/kinto/dev-a.har");
    let item = format!("{PRODUCTS}/{NEW}");
    let (status, put) = http(
        &env,
        "PUT",
        &item,
        Some(json!({"data": {"name": "Kettle", "price": 30}})),
    );
    assert_eq!(status, 201, "{put}");
    let id = json!(NEW);
    assert_eq!(rows(&env, "products_records", &id).len(), 1);
    // A tool call is answered by its tool, the engine: it finds the row.
    let (status, patched) = tool(
        &env,
        "PATCH",
        PRODUCT,
        json!({"uuid": NEW, "body": {"data": {"price": 35}}}),
    );
    assert_eq!(status, 200, "{patched}");
    // Every HTTP read shows the tool's change (the item read is the app model's).
    let (status, read) = http(&env, "GET", &item, None);
    assert_eq!((status, &read["data"]["price"]), (200, &json!(35)));
    assert_eq!(read["data"]["name"], json!("Kettle"));
    let (_, list) = http(&env, "GET", PRODUCTS, None);
    let shown = listed(&list, &id);
    assert_eq!(shown.len(), 1);
    assert_eq!(shown[0]["price"], json!(35));
    // data/add changes it: the item and the list show the new value.
    add(&env, |w| {
        set_row(w, "products_records", &id, "price", json!(40))
    })
    .expect("data/add");
    assert_eq!(http(&env, "GET", &item, None).1["data"]["price"], json!(40));
    // The list as a tool call is the engine's: the same value.
    let (status, by_tool) = tool(&env, "GET", PRODUCTS, json!({}));
    assert_eq!(status, 200, "{by_tool}");
    assert_eq!(listed(&by_tool, &id)[0]["price"], json!(40));
    let (_, list) = http(&env, "GET", PRODUCTS, None);
    assert_eq!(listed(&list, &id)[0]["price"], json!(40));
    // An order upserted the same way, deleted through the tool: the HTTP
    // item read and the list agree it is gone.
    let order = format!("{ORDERS}/{NEW}");
    let (status, _) = http(
        &env,
        "PUT",
        &order,
        Some(json!({"data": {"status": "new"}})),
    );
    assert_eq!(status, 201);
    assert_eq!(rows(&env, "orders_records", &id).len(), 1);
    let (status, gone) = tool(&env, "DELETE", ORDER, json!({"uuid": NEW}));
    assert_eq!(status, 200, "{gone}");
    assert_eq!(http(&env, "GET", &order, None).0, 404);
    let (_, list) = http(&env, "GET", ORDERS, None);
    assert!(listed(&list, &id).is_empty());
    assert!(rows(&env, "orders_records", &id).is_empty());
}

#[test]
fn an_engine_patch_is_what_the_app_models_next_write_of_the_record_starts_from() {
    // Kinto dev-a: the PATCH of a recorded record is the engine's; the
    // PUT that follows is the app model's (its replace keeps the record's
    // server-filled members): it must start from the patched row.
    let env = start("tests/fixtures/kinto/dev-a.har");
    let item = format!("{CUSTOMERS}/cust-005");
    let (status, _) = http(
        &env,
        "PATCH",
        &item,
        Some(json!({"data": {"signup_date": "2025-01-01"}})),
    );
    assert_eq!(status, 200);
    let (status, put) = http(&env, "PUT", &item, Some(json!({"data": {"name": "N"}})));
    assert_eq!(status, 200, "{put}");
    let row = rows(&env, "customers_records", &json!("cust-005"));
    assert_eq!(row.len(), 1);
    assert_eq!(row[0]["name"], json!("N"));
    let (_, read) = http(&env, "GET", &item, None);
    assert_eq!(
        read["data"], put["data"],
        "the read shows what the PUT answered"
    );
    assert_eq!(
        read["data"].get("signup_date"),
        row[0].get("signup_date"),
        "the row and the read agree"
    );
}

/// The document store's documents in `data/get`: (collection, id) → the
/// document, each key listed once, either as a World document at its path
/// or as a row of `app_model_store`, never both.
fn store_documents(env: &Environment) -> std::collections::BTreeMap<(String, String), Value> {
    let got = env.export();
    let mut out = std::collections::BTreeMap::new();
    let mut listed: Vec<Value> = got["collections"]["app_model_store"]
        .as_array()
        .expect("the document store's documents")
        .clone();
    let collections: std::collections::BTreeSet<String> = listed
        .iter()
        .filter_map(|d| d["collection"].as_str().map(str::to_string))
        .collect();
    for (path, value) in got["documents"].as_object().expect("documents") {
        if let Some((c, id)) = path.rsplit_once('/') {
            if collections.contains(c) && value.get("_rev").is_some() {
                listed
                    .push(json!({"collection": c, "id": id, "document": value, "deleted": false}));
            }
        }
    }
    for d in &listed {
        let key = (
            d["collection"].as_str().unwrap_or_default().to_string(),
            d["id"].as_str().unwrap_or_default().to_string(),
        );
        assert!(
            out.insert(key.clone(), d.clone()).is_none(),
            "{key:?} twice"
        );
    }
    out
}

#[test]
fn data_get_lists_every_document_of_the_document_store_once_with_its_current_value() {
    // couch dev-a: the document store (pouchdb) is the app model's.
    let env = start("tests/fixtures/couch/dev-a.har");
    let fresh = store_documents(&env);
    let (status, all) = http(&env, "GET", "/books/_all_docs", None);
    assert_eq!(status, 200);
    let live: Vec<&str> = all["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert!(!live.is_empty());
    for id in &live {
        let d = &fresh[&("/books".to_string(), id.to_string())];
        assert_eq!(d["deleted"], json!(false), "{id}");
    }
    // A write: the document is listed once, as it is now.
    let (status, put) = http(&env, "PUT", "/books/book-new", Some(json!({"title": "T"})));
    assert_eq!(status, 201, "{put}");
    let now = store_documents(&env);
    let d = &now[&("/books".to_string(), "book-new".to_string())];
    assert_eq!(d["document"]["title"], json!("T"));
    assert_eq!(d["document"]["_rev"], put["rev"]);
    assert_eq!(now.len(), fresh.len() + 1);
    // A document the World also holds at its path (the spec's document
    // of a recorded read) is that one value: a write through the store
    // changes it, a data/add of it changes what the store answers.
    let (_, book) = http(&env, "GET", "/books/book-001", None);
    let mut edited = book.clone();
    edited["title"] = json!("Retitled");
    let (status, ack) = http(&env, "PUT", "/books/book-001", Some(edited));
    assert_eq!(status, 201, "{ack}");
    let held = env.export()["documents"]["/books/book-001"].clone();
    assert_eq!(held["title"], json!("Retitled"));
    assert_eq!(held["_rev"], ack["rev"]);
    add(&env, |w| {
        w["documents"]["/books/book-001"]["title"] = json!("Added")
    })
    .expect("data/add");
    let (status, read) = http(&env, "GET", "/books/book-001", None);
    assert_eq!((status, &read["title"]), (200, &json!("Added")));
    // One the store cannot take (no revision) is refused, the World unchanged.
    let refused = add(&env, |w| {
        w["documents"]["/books/book-001"] = json!({"title": "no revision"})
    });
    assert!(refused.is_err());
    assert_eq!(
        http(&env, "GET", "/books/book-001", None).1["title"],
        json!("Added")
    );
    // data/get → data/add → data/get is the same World; data/reset restores the start.
    let got = env.export();
    env.replace(&got).expect("loads back");
    assert_eq!(env.export(), got);
    let (status, read) = http(&env, "GET", "/books/book-new", None);
    assert_eq!((status, &read["title"]), (200, &json!("T")));
    env.reset();
    assert_eq!(store_documents(&env), fresh);
    assert_eq!(http(&env, "GET", "/books/book-new", None).0, 404);
}

// A derived listing is a view of the one store, never a second copy
// (issue 8, "One truth per resource"): pouchdb's `_all_docs` rows (id,
// key, value.rev) and `_find` answers are rendered from the document
// store's documents, so after a PUT, a DELETE and a `data/add` every read
// (the document, `_all_docs`, `_find`) agrees; and the World's table of
// those rows, which nothing serves (the store owns every route at its
// path), is not part of the data plane's tables, so `data/get` lists each
// document once. Real capture: `tests/fixtures/couch/dev-a.har`.

/// `_all_docs`' rows: id → rev.
fn all_docs(env: &Environment) -> std::collections::BTreeMap<String, String> {
    let (status, all) = http(env, "GET", "/books/_all_docs", None);
    assert_eq!(status, 200, "{all}");
    all["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            assert_eq!(r["id"], r["key"], "{r}");
            (
                r["id"].as_str().expect("id").to_string(),
                r["value"]["rev"].as_str().expect("rev").to_string(),
            )
        })
        .collect()
}

/// `_find` by `_id`: the documents it answers.
fn find(env: &Environment, id: &str) -> Vec<Value> {
    let (status, found) = http(
        env,
        "POST",
        "/books/_find",
        Some(json!({"selector": {"_id": id}})),
    );
    assert_eq!(status, 200, "{found}");
    found["docs"].as_array().expect("docs").clone()
}

/// Every read of `id` agrees: the document's revision is the one
/// `_all_docs` lists and `_find` answers; absent from all three when `None`.
fn agree(env: &Environment, id: &str, rev: Option<&str>, title: Option<&str>) {
    let (status, doc) = http(env, "GET", &format!("/books/{id}"), None);
    let listed = all_docs(env);
    let found = find(env, id);
    match rev {
        Some(rev) => {
            assert_eq!(status, 200, "{doc}");
            assert_eq!(doc["_rev"], json!(rev));
            assert_eq!(listed.get(id).map(String::as_str), Some(rev), "_all_docs");
            assert_eq!(found.len(), 1, "_find: {found:?}");
            assert_eq!(found[0]["_rev"], json!(rev));
            if let Some(t) = title {
                assert_eq!(doc["title"], json!(t));
                assert_eq!(found[0]["title"], json!(t));
            }
        }
        None => {
            assert_eq!(status, 404, "{doc}");
            assert!(!listed.contains_key(id), "_all_docs still lists {id}");
            assert!(found.is_empty(), "_find still finds {id}: {found:?}");
        }
    }
}

fn tables(env: &Environment) -> Vec<String> {
    env.export()["collections"]
        .as_object()
        .expect("collections")
        .keys()
        .cloned()
        .collect()
}

#[test]
fn the_all_docs_rows_are_a_view_of_the_store_after_writes_and_data_add() {
    let env = start("tests/fixtures/couch/dev-a.har");
    // The World's `_all_docs` tables are nothing's to serve: not data-plane tables.
    for t in tables(&env) {
        assert!(!t.ends_with("all_docs"), "{t} is listed");
    }
    assert!(!env.data_tables().contains_key("books_all_docs"));
    // A PUT of a new document: every read lists it with its revision.
    let (status, made) = http(
        &env,
        "PUT",
        "/books/book-plane",
        Some(json!({"title": "P"})),
    );
    assert_eq!(status, 201, "{made}");
    let rev = made["rev"].as_str().expect("rev").to_string();
    agree(&env, "book-plane", Some(&rev), Some("P"));
    // An update: the new revision everywhere.
    let (status, updated) = http(
        &env,
        "PUT",
        "/books/book-plane",
        Some(json!({"title": "P2", "_rev": rev})),
    );
    assert_eq!(status, 201, "{updated}");
    let rev2 = updated["rev"].as_str().expect("rev").to_string();
    assert_ne!(rev, rev2);
    agree(&env, "book-plane", Some(&rev2), Some("P2"));
    // A DELETE: gone from every read.
    let (status, _) = http(
        &env,
        "DELETE",
        &format!("/books/book-plane?rev={rev2}"),
        None,
    );
    assert_eq!(status, 200);
    agree(&env, "book-plane", None, None);
    // data/get lists every document once: as a World document at its path
    // or as a row of the store's table, never as an `_all_docs` row.
    let got = env.export();
    let store = got["collections"]["app_model_store"]
        .as_array()
        .expect("store");
    let mut seen = std::collections::BTreeSet::new();
    for d in store {
        let key = format!(
            "{}/{}",
            d["collection"].as_str().unwrap(),
            d["id"].as_str().unwrap()
        );
        assert!(got["documents"].get(&key).is_none(), "{key} twice");
        assert!(seen.insert(key.clone()), "{key} twice in the store table");
    }
    // data/add of a changed document (a row of the store's table): every read shows it.
    let mut next = got.clone();
    let row = next["collections"]["app_model_store"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|d| d["id"] == json!("book-003"))
        .expect("book-003 is a store row");
    row["document"]["title"] = json!("Added by data/add");
    let rev3 = row["document"]["_rev"].as_str().unwrap().to_string();
    env.replace(&next).expect("data/add");
    agree(&env, "book-003", Some(&rev3), Some("Added by data/add"));
    // data/add without it: gone from every read.
    next["collections"]["app_model_store"]
        .as_array_mut()
        .unwrap()
        .retain(|d| d["id"] != json!("book-003"));
    env.replace(&next).expect("data/add");
    agree(&env, "book-003", None, None);
    // A World document (book-001, held at its path) changed by data/add.
    let (_, before) = http(&env, "GET", "/books/book-001", None);
    let mut w = env.export();
    w["documents"]["/books/book-001"]["title"] = json!("Via the World");
    env.replace(&w).expect("data/add");
    agree(
        &env,
        "book-001",
        before["_rev"].as_str(),
        Some("Via the World"),
    );
    // The round trip is the same World; reset restores the start.
    let got = env.export();
    env.replace(&got).expect("loads back");
    assert_eq!(env.export(), got);
    env.reset();
    let (status, _) = http(&env, "GET", "/books/book-003", None);
    assert_eq!(status, 200);
}

/// The `app_model_tree` rows of `data/get` (the path-keyed tree's World).
fn tree_rows(env: &Environment) -> Vec<Value> {
    env.export()["collections"]["app_model_tree"]
        .as_array()
        .cloned()
        .expect("the app_model_tree table")
}

#[test]
fn the_path_keyed_trees_entities_are_data_plane_rows_that_a_round_trip_and_a_replace_keep() {
    let env = start("tests/fixtures/jupyter/dev-a.har");
    let at_start = tree_rows(&env);
    assert!(at_start.iter().any(|r| r["key"] == "notes/todo.txt"));
    let before = env.export();
    let put = json!({"type": "file", "format": "text", "content": "one truth\n"});
    let (status, _) = http(&env, "PUT", "/api/contents/notes/one-truth.txt", Some(put));
    assert_eq!(status, 201);
    let (status, read) = http(&env, "GET", "/api/contents/notes/one-truth.txt", None);
    assert_eq!((status, &read["content"]), (200, &json!("one truth\n")));
    // data/get lists the new file as a row of the tree's table.
    let after_put = env.export();
    let row: Vec<&Value> = after_put["collections"]["app_model_tree"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["key"] == "notes/one-truth.txt")
        .collect();
    assert_eq!(row.len(), 1, "{row:?}");
    assert_eq!(row[0]["detail"]["content"], "one truth\n");
    // data/add of the World before the PUT: the tree is the start's again.
    env.load(&|_: &Value| Ok(before.clone())).expect("data/add");
    assert_eq!(tree_rows(&env), at_start);
    // data/add of the World after it: the file reads back.
    env.load(&|_: &Value| Ok(after_put.clone()))
        .expect("data/add");
    let (status, read) = http(&env, "GET", "/api/contents/notes/one-truth.txt", None);
    assert_eq!((status, &read["content"]), (200, &json!("one truth\n")));
    assert_eq!(env.export(), after_put);
    // A replace that leaves the table out empties the tree's World.
    let mut without = after_put.clone();
    without["collections"]
        .as_object_mut()
        .unwrap()
        .remove("app_model_tree");
    env.load(&|_: &Value| Ok(without.clone()))
        .expect("data/add");
    assert!(tree_rows(&env).is_empty());
    // A bad row is refused and the World is unchanged.
    let mut bad = after_put.clone();
    bad["collections"]["app_model_tree"]
        .as_array_mut()
        .unwrap()
        .push(json!({"key": 7}));
    let held = env.export();
    assert!(env.load(&|_: &Value| Ok(bad.clone())).is_err());
    assert_eq!(env.export(), held);
    // data/reset restores the start.
    env.reset();
    assert_eq!(tree_rows(&env), at_start);
}
