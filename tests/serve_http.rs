//! `rea environment-serve` over plain HTTP and the data plane, on the Kinto
//! dev captures: recorded reads, a write sequence, data/get/add/reset and
//! concurrent writers, against the built binary on 127.0.0.1.

mod common;

use common::{essence, fixture, recorded, Server};
use serde_json::{json, Value};

const PRODUCTS: &str = "/v1/buckets/shop/collections/products/records";
const CUSTOMERS: &str = "/v1/buckets/shop/collections/customers/records";

/// The reads the capture made before its first write answer exactly what
/// Kinto answered: status, media type and JSON body.
#[test]
fn initial_reads_equal_the_recorded_responses() {
    let server = Server::start(&fixture("dev-a.har"), &[]);
    let entries = recorded("dev-a.har");
    let first_write = entries.iter().position(|e| e.method != "GET").unwrap();
    assert!(first_write >= 10);
    for (i, e) in entries[..first_write].iter().enumerate() {
        let r = server.get(&e.target);
        assert_eq!(r.status, e.status, "#{i} {}: {}", e.target, r.text());
        assert_eq!(
            essence(r.header("content-type").unwrap_or("")),
            essence(&e.mime),
            "#{i} {}",
            e.target
        );
        assert_eq!(
            Some(r.json()),
            e.response_served_at(server.addr),
            "#{i} {}",
            e.target
        );
        // Framing headers describe the body actually served.
        assert!(r.header("content-encoding").is_none());
        assert!(r.header("set-cookie").is_none());
        assert_eq!(
            r.header("content-length")
                .map(|l| l.parse::<usize>().unwrap()),
            Some(r.body.len())
        );
    }
}

#[test]
fn an_unknown_route_says_no_recorded_tool_matches() {
    let server = Server::start(&fixture("dev-a.har"), &[]);
    let r = server.get("/v2/nothing/here?x=1");
    assert_eq!(r.status, 404);
    let body = r.json();
    assert_eq!(body["error"], "no_matching_tool");
    assert!(body["message"]
        .as_str()
        .unwrap()
        .contains("no recorded tool matches GET /v2/nothing/here"));
}

fn rows<'a>(data: &'a Value, collection_path: &str) -> Vec<&'a Value> {
    data.as_object()
        .unwrap()
        .values()
        .filter_map(Value::as_array)
        .flatten()
        .filter(|row| {
            row.get("_collection")
                .and_then(Value::as_str)
                .is_none_or(|c| c == collection_path)
        })
        .collect()
}

fn has_id(data: &Value, collection_path: &str, id: &str) -> bool {
    rows(data, collection_path).iter().any(|r| r["id"] == id)
}

/// create → read → update → read → delete → read, as Kinto answered in the
/// recording (201 with a generated id, the item, the patched item, the
/// deletion, then 404).
#[test]
fn create_read_update_read_delete_read_behaves_like_kinto() {
    let server = Server::start(&fixture("dev-a.har"), &[]);
    let entries = recorded("dev-a.har");
    let recorded_create = entries
        .iter()
        .find(|e| e.method == "POST" && e.target == PRODUCTS)
        .unwrap();
    let created = server.send("POST", PRODUCTS, recorded_create.body.as_ref());
    assert_eq!(created.status, 201, "{}", created.text());
    let body = created.json();
    let id = body["data"]["id"]
        .as_str()
        .expect("generated id")
        .to_string();
    assert_eq!(id.len(), 36, "a uuid like Kinto's: {id}");
    assert_eq!(
        body["data"]["name"],
        recorded_create.body.as_ref().unwrap()["data"]["name"]
    );
    assert!(body["data"]["last_modified"].is_number());

    let item = format!("{PRODUCTS}/{id}");
    let read = server.get(&item);
    assert_eq!(read.status, 200, "{}", read.text());
    assert_eq!(read.json()["data"], body["data"]);

    let patched = server.send("PATCH", &item, Some(&json!({"data": {"price": 16.5}})));
    assert_eq!(patched.status, 200, "{}", patched.text());
    assert_eq!(patched.json()["data"]["price"], 16.5);
    let read = server.get(&item);
    assert_eq!(read.json()["data"]["price"], 16.5);
    assert_eq!(read.json()["data"]["name"], body["data"]["name"]);

    let deleted = server.send("DELETE", &item, None);
    assert_eq!(deleted.status, 200, "{}", deleted.text());
    assert_eq!(deleted.json()["data"]["deleted"], true);
    assert_eq!(deleted.json()["data"]["id"], id.as_str());
    let gone = server.get(&item);
    assert_eq!(gone.status, 404, "{}", gone.text());
    let recorded_404 = entries
        .iter()
        .find(|e| e.status == 404 && e.target.starts_with(PRODUCTS))
        .unwrap();
    let expected = recorded_404.response.as_ref().unwrap();
    assert_eq!(gone.json()["errno"], expected["errno"]);
    assert_eq!(gone.json()["error"], expected["error"]);
}

#[test]
fn data_plane_get_reflects_writes_reset_restores_add_replaces() {
    let server = Server::start(&fixture("dev-a.har"), &[]);
    let initial = server.data();
    assert!(has_id(&initial, PRODUCTS, "prod-001"));

    // A write shows in data/get.
    let kettle = common::recorded_body("dev-a.har", "POST", PRODUCTS, "Kettle");
    let created = server.send("POST", PRODUCTS, Some(&kettle));
    assert_eq!(created.status, 201, "{}", created.text());
    let id = created.json()["data"]["id"].as_str().unwrap().to_string();
    let after = server.data();
    assert!(has_id(&after, PRODUCTS, &id));
    assert_ne!(after, initial);

    // data/reset restores the World the server started with.
    assert_eq!(server.rpc("data/reset", json!({}))["result"], json!({}));
    assert_eq!(server.data(), initial);
    assert_eq!(server.get(&format!("{PRODUCTS}/{id}")).status, 404);

    // data/add with a new World changes what reads return.
    let mut replacement = initial.clone();
    for rows in replacement.as_object_mut().unwrap().values_mut() {
        if let Value::Array(rows) = rows {
            for row in rows.iter_mut() {
                if row["id"] == "prod-001" {
                    row["name"] = json!("Renamed By data/add");
                }
            }
        }
    }
    let reply = server.rpc(
        "data/add",
        json!({"parts": [{"kind": "data", "data": replacement}]}),
    );
    assert_eq!(reply["result"], json!({}), "{reply}");
    let read = server.get(&format!("{PRODUCTS}/prod-001"));
    assert_eq!(read.json()["data"]["name"], "Renamed By data/add");
    assert_eq!(server.data(), replacement);
}

#[test]
fn a_bad_data_add_is_refused_and_changes_nothing() {
    let server = Server::start(&fixture("dev-a.har"), &[]);
    let before = server.data();
    let table = before
        .as_object()
        .unwrap()
        .iter()
        .find(|(_, rows)| {
            rows.as_array()
                .is_some_and(|r| r.iter().any(|row| row["id"] == "prod-001"))
        })
        .map(|(name, _)| name.clone())
        .unwrap();
    let mut missing_id = before.clone();
    missing_id[&table][0].as_object_mut().unwrap().remove("id");
    let mut duplicate = before.clone();
    let first = duplicate[&table][0].clone();
    duplicate[&table].as_array_mut().unwrap().push(first);
    let cases = [
        (json!({"nope": []}), "nope".to_string()),
        (missing_id, table.to_string()),
        (duplicate, "duplicate".to_string()),
    ];
    for (data, needle) in cases {
        let reply = server.rpc(
            "data/add",
            json!({"parts": [{"kind": "data", "data": data}]}),
        );
        assert_eq!(reply["error"]["code"], -32602, "{reply}");
        assert_eq!(reply["error"]["message"], "invalid_request");
        let detail = reply["error"]["data"]["detail"].as_str().unwrap();
        assert!(detail.contains(&needle), "{detail} names {needle}");
        assert_eq!(server.data(), before);
    }
    // Envelope errors per JSON-RPC.
    let r = common::http(
        server.addr,
        "POST",
        "/agentenv",
        &[("Content-Type", "application/json")],
        Some("{oops"),
    );
    assert_eq!(r.json()["error"]["code"], -32700);
    assert_eq!(server.rpc("data/bogus", json!({}))["error"]["code"], -32601);
}

/// 16 clients creating and updating at once lose no acknowledged write.
#[test]
fn sixteen_concurrent_clients_lose_no_acknowledged_write() {
    let server = Server::start(&fixture("dev-a.har"), &[]);
    let addr = server.addr;
    let template = common::recorded_body("dev-a.har", "POST", CUSTOMERS, "template");
    let template = &template;
    let acknowledged: Vec<(String, i64)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..16)
            .map(|t| {
                s.spawn(move || {
                    let mut mine = Vec::new();
                    for i in 0..10 {
                        let mut body = template.clone();
                        body["data"]["name"] = json!(format!("w{t}-{i}"));
                        let body = body.to_string();
                        let r = common::http(
                            addr,
                            "POST",
                            CUSTOMERS,
                            &[("Content-Type", "application/json")],
                            Some(&body),
                        );
                        if r.status != 201 {
                            continue;
                        }
                        let id = r.json()["data"]["id"].as_str().unwrap().to_string();
                        let patch = json!({"data": {"loyalty_points": i + 1}}).to_string();
                        let u = common::http(
                            addr,
                            "PATCH",
                            &format!("{CUSTOMERS}/{id}"),
                            &[("Content-Type", "application/json")],
                            Some(&patch),
                        );
                        if u.status == 200 {
                            mine.push((id, i + 1));
                        }
                    }
                    mine
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert_eq!(
        acknowledged.len(),
        160,
        "every create and update was acknowledged"
    );
    let data = server.data();
    let held = rows(&data, CUSTOMERS);
    for (id, stock) in &acknowledged {
        let row = held
            .iter()
            .find(|r| r["id"] == id.as_str())
            .unwrap_or_else(|| panic!("{id} lost"));
        assert_eq!(row["loyalty_points"], *stock, "{id}");
    }
}

#[test]
fn sigterm_stops_the_server_cleanly() {
    let mut server = Server::start(&fixture("dev-a.har"), &[]);
    let log = server.log_text();
    assert!(log.contains("card:"), "{log}");
    assert!(log.contains("/.well-known/agent-env.json"));
    assert!(log.contains("template rules: after-uid-literal, opaque-token, sibling-pair-variance, sibling-variance, prefix-variance"), "{log}");
    let status = server.stop().expect("stopped within 10 s");
    assert!(status.success(), "{status:?}");
}

const ORDERS: &str = "/v1/buckets/shop/collections/orders/records";

/// STATE-59: a write plan the replay check did not confirm is not served.
/// On dev-b, `PUT orders/records/{record_id}` and `PATCH orders/records/{uuid}`
/// are `contradicted` (a later read disagrees with what the plan would have
/// done) and `PATCH orders/records/{record_id}` is `no-call` (no successful
/// call to build it from): none is an MCP tool, and the PUT at its own path
/// answers the reason and changes nothing.
#[test]
fn unconfirmed_and_contradicted_write_plans_are_not_served() {
    let server = Server::start(&fixture("dev-b.har"), &[]);
    let log = server.log_text();
    assert!(log.contains("write plans not served:"), "{log}");
    assert!(
        log.contains("patch_buckets_shop_collections_orders_records_by_uuid: contradicted"),
        "{log}"
    );
    assert!(
        log.contains("put_buckets_shop_collections_orders_records_by_record_id: contradicted"),
        "{log}"
    );
    let card = server.get("/.well-known/agent-env.json").json();
    let names: Vec<&str> = card["capabilities"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(!names.contains(&"patch_buckets_shop_collections_orders_records_by_uuid"));
    assert!(!names.contains(&"patch_buckets_shop_collections_orders_records_by_record_id"));
    assert!(!names.contains(&"put_buckets_shop_collections_orders_records_by_record_id"));

    let before = server.data();
    let body = recorded("dev-b.har")
        .into_iter()
        .find(|e| e.method == "PUT")
        .unwrap()
        .body;
    let put = server.send("PUT", &format!("{ORDERS}/ord-016"), body.as_ref());
    assert_eq!(put.status, 501, "{}", put.text());
    assert_eq!(put.json()["error"], "write_not_served");
    assert_eq!(put.json()["reason"], "contradicted");
    assert_eq!(server.data(), before);
}

/// `--state FILE` starts from another World; `data/reset` returns to it.
#[test]
fn state_file_is_the_starting_world() {
    let first = Server::start(&fixture("dev-a.har"), &[]);
    let mut data = first.data();
    drop(first);
    for rows in data.as_object_mut().unwrap().values_mut() {
        if let Value::Array(rows) = rows {
            rows.retain(|row| row["id"] != "prod-002");
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("world.json");
    std::fs::write(&path, data.to_string()).unwrap();
    let server = Server::start(&fixture("dev-a.har"), &["--state", path.to_str().unwrap()]);
    assert_eq!(server.get(&format!("{PRODUCTS}/prod-002")).status, 404);
    assert_eq!(server.data(), data);
    let r = server.send("DELETE", &format!("{PRODUCTS}/prod-003"), None);
    assert_eq!(r.status, 200, "{}", r.text());
    server.rpc("data/reset", json!({}));
    assert_eq!(server.data(), data);
}

/// `--state` takes a saved `data/get` reply as it is (the whole JSON-RPC
/// envelope) and a `data/get` result; a shape that is not a World is refused
/// with the shapes that are (issue 15 part 4).
#[test]
fn state_file_takes_a_saved_data_get_reply() {
    let first = Server::start(&fixture("dev-a.har"), &[]);
    let mut reply = first.rpc("data/get", json!({}));
    drop(first);
    for rows in reply["result"]["parts"][0]["data"]
        .as_object_mut()
        .unwrap()
        .values_mut()
    {
        if let Value::Array(rows) = rows {
            rows.retain(|row| row["id"] != "prod-002");
        }
    }
    let data = reply["result"]["parts"][0]["data"].clone();
    let dir = tempfile::tempdir().unwrap();
    for (name, saved) in [
        ("reply.json", reply.clone()),
        ("result.json", reply["result"].clone()),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, saved.to_string()).unwrap();
        let server = Server::start(&fixture("dev-a.har"), &["--state", path.to_str().unwrap()]);
        assert_eq!(
            server.get(&format!("{PRODUCTS}/prod-002")).status,
            404,
            "{name}"
        );
        assert_eq!(server.data(), data, "{name}");
    }
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, b"[1, 2]").unwrap();
    let out = std::process::Command::new(common::rea())
        .args(["environment-serve"])
        .arg(fixture("dev-a.har"))
        .args(["--port", "0", "--json", "--state", bad.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err: Value = serde_json::from_slice(
        out.stderr
            .split(|b| *b == b'\n')
            .rfind(|l| !l.is_empty())
            .unwrap(),
    )
    .unwrap();
    assert_eq!(err["code"], "invalid_state", "{err}");
    let detail = err["details"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("a data/get result") && detail.contains("JSON-RPC reply"),
        "{detail}"
    );
}

/// `load: "additive"` upserts one table's rows by id and leaves the other
/// tables, their rows and the documents as they are (a replace would empty
/// them).
#[test]
fn additive_data_add_upserts_one_table() {
    let server = Server::start(&fixture("dev-a.har"), &[]);
    let before = server.data();
    let (table, rows) = before
        .as_object()
        .unwrap()
        .iter()
        .find(|(_, rows)| {
            rows.as_array()
                .is_some_and(|r| r.iter().any(|row| row["id"] == "prod-004"))
        })
        .map(|(t, r)| (t.clone(), r.as_array().unwrap().clone()))
        .expect("the table holding prod-004");
    let mut edited = rows.iter().find(|r| r["id"] == "prod-004").unwrap().clone();
    edited["name"] = json!("Upserted");
    let mut added = edited.clone();
    added["id"] = json!("prod-new-1");
    let reply = server.rpc(
        "data/add",
        json!({"parts": [{"kind": "data", "data": {table.clone(): [edited, added]}, "metadata": {"load": "additive"}}]}),
    );
    assert_eq!(reply["result"], json!({}), "{reply}");
    let after = server.data();
    for (name, rows) in before.as_object().unwrap() {
        if *name != table {
            assert_eq!(&after[name], rows, "{name} changed");
        }
    }
    let now = after[&table].as_array().unwrap();
    assert_eq!(now.len(), rows.len() + 1);
    assert_eq!(
        server.get(&format!("{PRODUCTS}/prod-004")).json()["data"]["name"],
        "Upserted"
    );
    assert_eq!(server.get(&format!("{PRODUCTS}/prod-new-1")).status, 200);
}

/// `data/add` reads `file://` URIs only under `--data-root`.
#[test]
fn file_parts_load_from_the_data_root_only() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(
        &fixture("dev-a.har"),
        &["--data-root", dir.path().to_str().unwrap()],
    );
    let mut data = server.data();
    for rows in data.as_object_mut().unwrap().values_mut() {
        if let Value::Array(rows) = rows {
            for row in rows.iter_mut().filter(|r| r["id"] == "prod-004") {
                row["name"] = json!("From A File");
            }
        }
    }
    let inside = dir.path().join("seed.json");
    std::fs::write(&inside, data.to_string()).unwrap();
    let uri = format!("file://{}", inside.display());
    let reply = server.rpc(
        "data/add",
        json!({"parts": [{"kind": "file", "file": {"uri": uri, "mimeType": "application/json"}}]}),
    );
    assert_eq!(reply["result"], json!({}), "{reply}");
    assert_eq!(
        server.get(&format!("{PRODUCTS}/prod-004")).json()["data"]["name"],
        "From A File"
    );

    let outside_dir = tempfile::tempdir().unwrap();
    let outside = outside_dir.path().join("seed.json");
    std::fs::write(&outside, b"{}").unwrap();
    for uri in [
        format!("file://{}", outside.display()),
        "http://127.0.0.1:9/seed.json".to_string(),
    ] {
        let reply = server.rpc(
            "data/add",
            json!({"parts": [{"kind": "file", "file": {"uri": uri}}]}),
        );
        assert_eq!(reply["error"]["code"], -32602, "{reply}");
    }
    assert_eq!(server.data(), data);
}

#[test]
fn environment_name_overrides_the_card_name() {
    let mut cmd = std::process::Command::new(common::rea());
    cmd.arg("environment-serve")
        .arg(fixture("dev-a.har"))
        .args(["--host", "127.0.0.1", "--port", "0"])
        .env("ENVIRONMENT_NAME", "kinto-shop")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    let server = Server::spawn(cmd);
    assert_eq!(
        server.get("/.well-known/agent-env.json").json()["name"],
        "kinto-shop"
    );
    let plain = Server::start(&fixture("dev-a.har"), &[]);
    assert_eq!(
        plain.get("/.well-known/agent-env.json").json()["name"],
        "127-0-0-1-37713"
    );
}

/// A next-page link the fake answers points at the fake itself: followed
/// (with curl when the machine has it, else with the test's own client) it
/// reaches the next page of the same list.
#[test]
fn a_next_page_link_followed_reaches_the_fake() {
    let server = Server::start(&fixture("dev-a.har"), &[]);
    let first = server.get(&format!("{PRODUCTS}?_limit=2"));
    assert_eq!(first.status, 200);
    let next = first
        .header("next-page")
        .expect("a next-page link")
        .to_string();
    let origin = format!("http://{}", server.addr);
    assert!(next.starts_with(&origin), "{next}");
    let ids = |v: &Value| -> Vec<String> {
        v["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect()
    };
    let curl = std::process::Command::new("curl")
        .args(["-sf", "--max-time", "10", &next])
        .output();
    let second: Value = match curl {
        Ok(out) if out.status.success() => serde_json::from_slice(&out.stdout).unwrap(),
        _ => server.get(&next[origin.len()..]).json(),
    };
    let (a, b) = (ids(&first.json()), ids(&second));
    assert_eq!(b.len(), 2);
    assert!(b.iter().all(|id| !a.contains(id)), "{a:?} then {b:?}");
}
