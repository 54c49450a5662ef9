//! The app model on the real captures (`tests/fixtures/{kinto,wordpress,mlflow}/dev-a.har`):
//! one test per kind of inference, each checked on the captures that show it.

use super::*;
use crate::testkit::{evidence, fixture, har_entry, with_body};
use serde_json::json;

fn model(relative: &str) -> Model {
    environment_model(&fixture(relative)).expect("model")
}

fn resource<'a>(m: &'a Model, collection: &str) -> &'a Resource {
    m.resources
        .iter()
        .find(|r| r.collection == collection)
        .unwrap_or_else(|| panic!("no resource {collection}"))
}

fn write<'a>(m: &'a Model, method: &str, route: &str) -> &'a WriteSemantics {
    m.writes
        .iter()
        .find(|w| w.method == method && w.route == route)
        .unwrap_or_else(|| panic!("no write {method} {route}"))
}

const KINTO_RECORDS: &str = "/v1/buckets/{bucket_id}/collections/{collection_id}/records";
const KINTO_RECORD: &str =
    "/v1/buckets/{bucket_id}/collections/{collection_id}/records/{record_id}";

#[test]
fn model_is_deterministic() {
    for f in ["kinto/dev-a.har", "wordpress/dev-a.har", "mlflow/dev-a.har"] {
        let a = serde_json::to_string(&model(f)).unwrap();
        let b = serde_json::to_string(&model(f)).unwrap();
        assert_eq!(a, b, "{f}");
    }
}

#[test]
fn id_segments_under_parametric_parents_cover_sibling_collections() {
    // Kinto: one records resource for products, customers and orders; the
    // collection segment is parametric because the collections list lists it.
    let m = model("kinto/dev-a.har");
    let r = resource(&m, KINTO_RECORDS);
    assert_eq!(r.item.as_deref(), Some(KINTO_RECORD));
    assert_eq!(r.item_envelope.as_deref(), Some("/data"));
    assert_eq!(r.list_envelope.as_deref(), Some("/data"));
    assert_eq!(r.keys[0].entity_member, "/id");
    assert!(r.contradicted_by.is_empty());
    // Ids the capture never read (`prod-000`, a 404) route to the same template.
    let read = r
        .operations
        .iter()
        .find(|o| o.method == "GET" && o.role == "read")
        .unwrap();
    assert!(read.ordinals.contains(&39), "{read:?}");
    assert!(read.statuses.contains(&404));
}

#[test]
fn child_collection_reads_like_its_parent() {
    // Kinto: `GET …/collections/{id}` was never recorded; the buckets item
    // read (the collection's ancestor) lends it.
    let m = model("kinto/dev-a.har");
    let c = resource(&m, "/v1/buckets/{bucket_id}/collections");
    let lent = &c.inferred_operations;
    assert!(
        lent.iter()
            .any(|o| o.method == "GET" && o.from == "/v1/buckets"),
        "{lent:?}"
    );
}

#[test]
fn list_only_sibling_collections_get_item_routes() {
    // WordPress: `/pages` is only listed; its sibling `/posts` shows how items
    // are addressed, read and updated.
    let m = model("wordpress/dev-a.har");
    let pages = resource(&m, "/wp-json/wp/v2/pages");
    assert_eq!(
        pages.item.as_deref(),
        Some("/wp-json/wp/v2/pages/{page_id}")
    );
    let methods: Vec<&str> = pages
        .inferred_operations
        .iter()
        .map(|o| o.method.as_str())
        .collect();
    assert!(
        methods.contains(&"GET") && methods.contains(&"PUT"),
        "{methods:?}"
    );
    let comments = resource(&m, "/wp-json/wp/v2/comments");
    assert!(comments
        .inferred_operations
        .iter()
        .any(|o| o.method == "PUT" && o.from == "/wp-json/wp/v2/posts"));
}

#[test]
fn rpc_keys_in_the_query_and_the_body() {
    let m = model("mlflow/dev-a.har");
    let runs = resource(&m, "/api/2.0/mlflow/runs");
    assert_eq!(runs.addressing, "rpc");
    assert_eq!(runs.item_envelope.as_deref(), Some("/run"));
    let q = runs.keys.iter().find(|k| k.location == "query").unwrap();
    assert_eq!(
        (q.name.as_str(), q.entity_member.as_str()),
        ("run_id", "/info/run_id")
    );
    let b = runs.keys.iter().find(|k| k.location == "body").unwrap();
    assert_eq!(b.name, "run_id");
    let role = |route: &str| {
        runs.operations
            .iter()
            .find(|o| o.route == route)
            .map(|o| o.role.clone())
            .unwrap()
    };
    assert_eq!(role("/api/2.0/mlflow/runs/create"), "create");
    assert_eq!(role("/api/2.0/mlflow/runs/get"), "read");
    assert_eq!(role("/api/2.0/mlflow/runs/update"), "action");
    // The experiment is created by RPC and read back by the key the create answered.
    let e = resource(&m, "/api/2.0/mlflow/experiments");
    let get = e
        .operations
        .iter()
        .find(|o| o.route == "/api/2.0/mlflow/experiments/get")
        .unwrap();
    assert!(
        get.ordinals.contains(&38),
        "experiment 5, created by #11, read by #38"
    );
    assert_eq!(
        e.operations
            .iter()
            .find(|o| o.route == "/api/2.0/mlflow/experiments/create")
            .unwrap()
            .role,
        "create"
    );
}

#[test]
fn update_semantics_merge_post_as_update_and_convention() {
    let k = model("kinto/dev-a.har");
    let patch = write(&k, "PATCH", KINTO_RECORD);
    assert_eq!(patch.semantics, "merge");
    assert_eq!(patch.request_envelope.as_deref(), Some("data"));
    assert!(patch.rejected.iter().any(|r| r.hypothesis == "replace"));
    assert!(!patch.checked_against.is_empty());
    // PUT sent every member: nothing tells merge from replace, so the
    // method's convention, uncontradicted, is chosen and marked as such.
    assert_eq!(
        write(&k, "PUT", KINTO_RECORD).semantics,
        "replace(convention)"
    );
    let w = model("wordpress/dev-a.har");
    let post = write(&w, "POST", "/wp-json/wp/v2/posts/{post_id}");
    assert_eq!(post.semantics, "post-as-update+merge");
    assert_eq!(post.answer.body, "entity");
}

#[test]
fn soft_delete_then_forced_delete() {
    let w = model("wordpress/dev-a.har");
    let d = write(&w, "DELETE", "/wp-json/wp/v2/posts/{post_id}");
    assert_eq!(d.semantics, "soft-delete-then-forced");
    let del = d.delete.as_ref().unwrap();
    assert!(del.soft);
    assert_eq!(del.hard_query.as_deref(), Some("force=true"));
    assert_eq!(del.readable_after, vec![24]);
    assert_eq!(del.absent_after, vec![26]);
    // A delete whose answer says `deleted` with the previous entity.
    let t = write(&w, "DELETE", "/wp-json/wp/v2/tags/{tag_id}");
    assert_eq!(t.answer.body, "previous");
    // Kinto answers a tombstone and the item is gone.
    let k = model("kinto/dev-a.har");
    let kd = write(&k, "DELETE", KINTO_RECORD);
    assert_eq!(kd.semantics, "hard-delete");
    assert_eq!(kd.answer.body, "tombstone");
}

#[test]
fn server_filled_members_on_create() {
    let k = model("kinto/dev-a.har");
    let c = write(&k, "POST", KINTO_RECORDS);
    let id = c.server_filled.iter().find(|f| f.member == "id").unwrap();
    assert_eq!(id.kind, "id:uuid");
    assert!(c
        .server_filled
        .iter()
        .any(|f| f.member == "last_modified" && f.kind == "clock"));
    let w = model("wordpress/dev-a.har");
    let p = write(&w, "POST", "/wp-json/wp/v2/posts");
    let slug = p.server_filled.iter().find(|f| f.member == "slug").unwrap();
    assert_eq!(slug.kind, "derived:slug(title)");
    assert!(p
        .server_filled
        .iter()
        .any(|f| f.member == "id" && f.kind == "id:integer"));
}

#[test]
fn rpc_actions_show_their_effect_on_the_next_read() {
    let m = model("mlflow/dev-a.har");
    let tag = write(&m, "POST", "/api/2.0/mlflow/runs/set-tag");
    assert_eq!(tag.answer.body, "empty-object");
    assert!(tag
        .effects
        .iter()
        .any(|e| e.pointer == "/data/tags" && e.how == "appends"));
    let rename = write(&m, "POST", "/api/2.0/mlflow/registered-models/rename");
    assert!(rename
        .effects
        .iter()
        .any(|e| e.pointer == "/name" && e.member.as_deref() == Some("new_name")));
}

#[test]
fn stale_if_match_answers_412_and_the_etag_is_a_member() {
    let k = model("kinto/dev-a.har");
    let v = k
        .conditions
        .validators
        .iter()
        .find(|v| v.resource == "records")
        .unwrap();
    assert_eq!(
        (v.header.as_str(), v.member.as_deref()),
        ("etag", Some("last_modified"))
    );
    assert!(v.contradicted_by.is_empty());
    let p = &k.conditions.preconditions[0];
    assert_eq!(p.header, "if-match");
    assert_eq!(p.current, vec![29]);
    assert_eq!(p.stale, vec![30]);
    assert_eq!(p.stale_status, Some(412));
    assert!(p.contradicted_by.is_empty());
}

#[test]
fn validation_unique_and_required_members() {
    let w = model("wordpress/dev-a.har");
    let unique: Vec<&Rule> = w.validation.iter().filter(|r| r.kind == "unique").collect();
    assert_eq!(unique.len(), 2, "categories and tags: {unique:?}");
    assert!(unique
        .iter()
        .all(|r| r.member.as_deref() == Some("name") && r.status == 400));
    let m = model("mlflow/dev-a.har");
    let req = m
        .validation
        .iter()
        .find(|r| r.route == "/api/2.0/mlflow/runs/log-batch")
        .unwrap();
    assert_eq!(
        (req.kind.as_str(), req.member.as_deref()),
        ("required", Some("metrics[].value"))
    );
    let dup = m
        .validation
        .iter()
        .find(|r| r.route == "/api/2.0/mlflow/registered-models/create")
        .unwrap();
    assert_eq!(dup.kind, "unique");
    // Kinto's 412 is a precondition, not a validation rule.
    assert!(model("kinto/dev-a.har").validation.is_empty());
}

#[test]
fn error_shapes_substitute_the_request_values() {
    let m = model("mlflow/dev-a.har");
    assert_eq!(
        m.errors.shared_members,
        vec!["error_class", "error_code", "message", "sqlstate"]
    );
    let runs_404 = m
        .errors
        .shapes
        .iter()
        .find(|s| s.status == 404 && s.supported_by.contains(&39))
        .unwrap();
    assert_eq!(
        runs_404.template.as_ref().unwrap()["message"],
        json!("Run with id={id} not found")
    );
    let k = model("kinto/dev-a.har");
    let s = k.errors.shapes.iter().find(|s| s.status == 404).unwrap();
    assert_eq!(s.template.as_ref().unwrap()["details"]["id"], json!("{id}"));
    assert_eq!(s.supported_by, vec![23, 37, 39]);
    // Resources never seen missing answer with a sibling's absence.
    let w = model("wordpress/dev-a.har");
    let c = w
        .errors
        .absence
        .iter()
        .find(|a| a.collection == "/wp-json/wp/v2/comments")
        .unwrap();
    assert_eq!(
        (c.basis.as_str(), c.from_resource.as_str()),
        ("by-analogy", "/wp-json/wp/v2/posts")
    );
}

#[test]
fn reads_sent_as_post() {
    let m = model("mlflow/dev-a.har");
    let s = m
        .post_reads
        .iter()
        .find(|p| p.route == "/api/2.0/mlflow/experiments/search")
        .unwrap();
    assert_eq!(s.list_envelope.as_deref(), Some("/experiments"));
    assert!(s.body_members.contains(&"max_results".to_string()));
    assert!(m.writes.iter().all(|w| !w.route.ends_with("/search")));
    // No capture without POST reads invents one.
    assert!(model("kinto/dev-a.har").post_reads.is_empty());
}

#[test]
fn id_segment_with_a_suffix() {
    // None of the three captures has Rails-style `{id}.json` segments, so
    // this one is hand-made: a list, then two items by `{id}.json`.
    let base = "http://h.example/issues";
    let list = with_body(
        har_entry("GET", &format!("{base}.json"), 200, "application/json"),
        "application/json",
        "",
    );
    let mut list = list;
    list["response"]["content"]["text"] =
        json!(r#"{"issues":[{"id":12,"subject":"a"},{"id":13,"subject":"b"}]}"#);
    let mut item = har_entry("GET", &format!("{base}/12.json"), 200, "application/json");
    item["response"]["content"]["text"] = json!(r#"{"issue":{"id":12,"subject":"a"}}"#);
    let mut other = har_entry("GET", &format!("{base}/40.json"), 404, "application/json");
    other["response"]["content"]["text"] = json!(r#"{"errors":["not found"]}"#);
    let m = environment_model(&evidence(vec![list, item, other])).unwrap();
    // `.json` names the media type of every answer under it, on paths of
    // two shapes: a format suffix, so the routes are spelled without it and
    // the list is the items' collection (`format_suffix`).
    let f = m.format_suffix.as_ref().expect("a format suffix");
    assert_eq!(
        (f.suffix.as_str(), f.shapes.as_slice()),
        (".json", &[1, 2][..])
    );
    let r = resource(&m, "/issues");
    let seg = r.segment.as_ref().unwrap();
    assert_eq!((seg.suffix.as_str(), seg.kind.as_str()), ("", "integer"));
    assert_eq!(r.item.as_deref(), Some("/issues/{issue_id}"));
    assert_eq!(r.item_envelope.as_deref(), Some("/issue"));
    assert!(r
        .operations
        .iter()
        .any(|o| o.role == "list" && o.route == "/issues"));
    // `40.json`, never seen, routes to the same item.
    let read = r.operations.iter().find(|o| o.role == "read").unwrap();
    assert_eq!(read.ordinals, vec![1, 2]);
}

#[test]
fn serving_an_rpc_create_then_reading_it_by_the_key_it_answered() {
    // MLflow: `experiments/create` answers only the new key; `experiments/get?experiment_id=`
    // then reads the created experiment; a verb the recording never used but
    // whose body names the key answers like the resource's other actions (`{}`).
    let s = serving::serving_model(&fixture("mlflow/dev-a.har")).unwrap();
    let mut w = s.initial_world();
    let mut n = 0;
    let mut uuid = || {
        n += 1;
        format!("00000000-0000-4000-8000-{n:012}")
    };
    let now = 1_717_408_800_000;
    let mut call =
        |w: &mut serving::ModelWorld, m: &str, p: &str, q: Option<&str>, b: Option<Value>| {
            s.answer(w, m, p, q, b.as_ref(), now, &mut uuid)
                .expect("answered")
        };
    let created = call(
        &mut w,
        "POST",
        "/api/2.0/mlflow/experiments/create",
        None,
        Some(json!({"name": "x"})),
    );
    assert_eq!(
        created.body,
        Some(json!({"experiment_id": "5"})),
        "after the seeded 0..4"
    );
    let got = call(
        &mut w,
        "GET",
        "/api/2.0/mlflow/experiments/get",
        Some("experiment_id=5"),
        None,
    );
    assert_eq!(got.status, 200);
    assert_eq!(got.body.as_ref().unwrap()["experiment"]["name"], json!("x"));
    let tag = call(
        &mut w,
        "POST",
        "/api/2.0/mlflow/experiments/set-experiment-tag",
        None,
        Some(json!({"experiment_id": "5", "key": "a", "value": "b"})),
    );
    assert_eq!((tag.status, tag.body), (200, Some(json!({}))));
    // A run created by RPC gets a new 32-hex id everywhere the recorded one was.
    let run = call(
        &mut w,
        "POST",
        "/api/2.0/mlflow/runs/create",
        None,
        Some(json!({"experiment_id": "5", "run_name": "r", "user_id": "u", "start_time": 1})),
    );
    let info = &run.body.as_ref().unwrap()["run"]["info"];
    let id = info["run_id"].as_str().unwrap().to_string();
    assert_eq!(id.len(), 32);
    assert_eq!(info["run_name"], json!("r"));
    assert_eq!(
        info["artifact_uri"],
        json!(format!("mlflow-artifacts:/5/{id}/artifacts"))
    );
    assert_eq!(
        run.body.as_ref().unwrap()["run"]["data"]["tags"],
        json!([{"key": "mlflow.runName", "value": "r"}])
    );
    let got = call(
        &mut w,
        "GET",
        "/api/2.0/mlflow/runs/get",
        Some(&format!("run_id={id}")),
        None,
    );
    assert_eq!(
        got.body.as_ref().unwrap()["run"]["info"]["run_id"],
        json!(id)
    );
    // An id nobody holds: the app's own absence answer with the id in it.
    let missing = call(
        &mut w,
        "GET",
        "/api/2.0/mlflow/runs/get",
        Some("run_id=feedfeedfeedfeedfeedfeedfeedfeed"),
        None,
    );
    assert_eq!(missing.status, 404);
    assert_eq!(
        missing.body.unwrap()["message"],
        json!("Run with id=feedfeedfeedfeedfeedfeedfeedfeed not found")
    );
}

#[test]
fn serving_an_upsert_put_then_its_read_and_delete() {
    // Kinto: clients choose record ids (`ord-001`, not the uuid the server
    // generates on POST), so a PUT to an id nobody holds creates it (201).
    let s = serving::serving_model(&fixture("kinto/dev-a.har")).unwrap();
    let mut w = s.initial_world();
    let mut uuid = || "8854ee53-0000-4000-8000-000000000001".to_string();
    let item = "/v1/buckets/shop/collections/orders/records/ord-100";
    let body = json!({"data": {"customer_id": "cust-001", "status": "pending", "total": 5.0}});
    let put = s
        .answer(
            &mut w,
            "PUT",
            item,
            None,
            Some(&body),
            1_796_059_600_000,
            &mut uuid,
        )
        .unwrap();
    assert_eq!(put.status, 201);
    let data = &put.body.as_ref().unwrap()["data"];
    assert_eq!(data["id"], json!("ord-100"));
    assert_eq!(data["status"], json!("pending"));
    assert!(data["last_modified"].is_number(), "{data}");
    assert!(
        put.body.as_ref().unwrap().get("permissions").is_some(),
        "the recorded envelope"
    );
    assert!(s.holds(&w, "GET", item));
    let got = s
        .answer(&mut w, "GET", item, None, None, 0, &mut uuid)
        .unwrap();
    assert_eq!(got.body.as_ref().unwrap()["data"]["total"], json!(5.0));
    let del = s
        .answer(
            &mut w,
            "DELETE",
            item,
            None,
            None,
            1_796_059_600_001,
            &mut uuid,
        )
        .unwrap();
    assert_eq!(del.body.as_ref().unwrap()["data"]["deleted"], json!(true));
    let gone = s
        .answer(&mut w, "GET", item, None, None, 0, &mut uuid)
        .unwrap();
    assert_eq!(gone.status, 404);
    assert_eq!(gone.body.unwrap()["details"]["id"], json!("ord-100"));
    // WordPress ids are the server's integers: no upsert, the app's 404.
    let wp = serving::serving_model(&fixture("wordpress/dev-a.har")).unwrap();
    let mut ww = wp.initial_world();
    let miss = wp
        .answer(
            &mut ww,
            "PUT",
            "/wp-json/wp/v2/posts/9999",
            None,
            Some(&json!({"title": "t"})),
            0,
            &mut uuid,
        )
        .unwrap();
    assert_eq!(miss.status, 404);
}

#[test]
fn serving_the_apps_absence_for_a_resource_never_seen_missing() {
    // WordPress never recorded a missing comment; a missing post answers
    // `rest_post_invalid_id`, and by analogy a missing comment names the comment.
    let s = serving::serving_model(&fixture("wordpress/dev-a.har")).unwrap();
    let a = s.absent("GET", "/wp-json/wp/v2/comments/999").unwrap();
    assert_eq!(a.status, 404);
    assert_eq!(
        a.body.unwrap(),
        json!({"code": "rest_comment_invalid_id", "message": "Invalid comment ID.", "data": {"status": 404}})
    );
}

#[test]
fn replaying_each_recording_through_the_serving_model() {
    // The share of answered records whose status and body the model
    // reproduces exactly, per capture (measured: Kinto 8/27, WordPress 3/25,
    // MLflow 20/38). A lower bound: the model's own ids and clocks differ
    // from the recorded ones by design, and so do reads of entities created
    // under them. Floors a little below the measured shares.
    for (f, floor) in [
        ("kinto/dev-a.har", 0.25),
        ("wordpress/dev-a.har", 0.1),
        ("mlflow/dev-a.har", 0.5),
    ] {
        let r = serving::replay_check(&fixture(f)).unwrap();
        let same = r.iter().filter(|(_, _, s)| *s).count();
        let mut by: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
        for (_, basis, s) in &r {
            let e = by.entry(basis).or_default();
            e.1 += 1;
            if *s {
                e.0 += 1;
            }
        }
        eprintln!("{f}: {same}/{} reproduced; by basis {by:?}", r.len());
        assert!(!r.is_empty(), "{f}: the model answers nothing");
        assert!(
            same as f64 >= floor * r.len() as f64,
            "{f}: {same}/{}",
            r.len()
        );
    }
}

#[test]
fn singleton_documents_merge_the_sent_members_and_the_read_shows_them() {
    // WordPress: GET /settings, POST {"title": "Ember & Bean Notes"} answering
    // the document with only `title` changed (HTML-escaped), then the read
    // showing it. Kinto and MLflow have no such path (their writes land on
    // resources, or no write goes to a read-only path).
    let s = serving::serving_model(&fixture("wordpress/dev-a.har")).unwrap();
    let path = "/wp-json/wp/v2/settings";
    assert!(s.owns("POST", path));
    let mut w = s.initial_world();
    let mut uuid = || "u".to_string();
    let first = s
        .answer(&mut w, "GET", path, None, None, 0, &mut uuid)
        .unwrap();
    assert_eq!(first.status, 200);
    assert_eq!(first.body.as_ref().unwrap()["posts_per_page"], json!(10));
    let put = s
        .answer(
            &mut w,
            "POST",
            path,
            None,
            Some(&json!({"posts_per_page": 6, "title": "A & B"})),
            0,
            &mut uuid,
        )
        .unwrap();
    assert_eq!(put.status, 200);
    let body = put.body.unwrap();
    assert_eq!(body["posts_per_page"], json!(6));
    assert_eq!(body["title"], json!("A &amp; B"));
    assert_eq!(body["email"], first.body.as_ref().unwrap()["email"]);
    // A value of another type, or a member the document lacks: not a merge
    // the recording showed; the caller falls back to the spec's plans.
    for bad in [json!({"start_of_week": "monday"}), json!({"nope": 1})] {
        assert!(s
            .answer(&mut w, "POST", path, None, Some(&bad), 0, &mut uuid)
            .is_none());
    }
    let after = s
        .answer(&mut w, "GET", path, None, None, 0, &mut uuid)
        .unwrap();
    assert_eq!(after.body.unwrap(), body);
    // A query is not the document's plain read.
    assert!(s
        .answer(
            &mut w,
            "GET",
            path,
            Some("context=edit"),
            None,
            0,
            &mut uuid
        )
        .is_none());
    for f in ["kinto/dev-a.har", "mlflow/dev-a.har"] {
        let (_, xs) = model_and_exchanges(&fixture(f)).unwrap();
        let m = model(f);
        let t = routes::Templates::infer(&xs);
        let docs = documents::infer(&xs, &|x| {
            snapshots::target_of(x, &m.resources, &t).is_some()
        });
        assert!(docs.is_empty(), "{f}: {docs:?}");
    }
}

#[test]
fn log_reads_answer_the_items_earlier_writes_logged() {
    // MLflow dev-a: runs/log-metric twice (qini) and log-batch (auc), then
    // metrics/get-history?run_id=…&metric_key=qini answering the two qini
    // points in write order: run_id is the owner, metric_key filters `key`.
    let f = "mlflow/dev-a.har";
    let (_, xs) = model_and_exchanges(&fixture(f)).unwrap();
    let m = model(f);
    let t = routes::Templates::infer(&xs);
    let logs = logs::infer(&xs, &|x| {
        snapshots::target_of(x, &m.resources, &t).is_some()
    });
    assert_eq!(logs.len(), 1, "{logs:?}");
    let l = &logs[0];
    assert_eq!(l.path, "/api/2.0/mlflow/metrics/get-history");
    assert_eq!(
        (
            l.member.as_str(),
            l.owner_query.as_str(),
            l.owner_body.as_str()
        ),
        ("metrics", "run_id", "run_id")
    );
    assert_eq!(
        l.filters,
        vec![("metric_key".to_string(), "key".to_string())]
    );
    // Served: a new run, a batch and a single metric, then the history.
    let s = serving::serving_model(&fixture(f)).unwrap();
    let mut w = s.initial_world();
    let mut n = 0;
    let mut uuid = || {
        n += 1;
        format!("00000000-0000-4000-8000-{n:012}")
    };
    let run = s
        .answer(
            &mut w,
            "POST",
            "/api/2.0/mlflow/runs/create",
            None,
            Some(&json!({"experiment_id": "0", "run_name": "x", "start_time": 1})),
            0,
            &mut uuid,
        )
        .unwrap();
    let id = run.body.unwrap()["run"]["info"]["run_id"]
        .as_str()
        .unwrap()
        .to_string();
    for body in [
        json!({"run_id": id, "metrics": [{"key": "m", "value": 1.0, "timestamp": 1, "step": 0}, {"key": "o", "value": 9.0, "timestamp": 1, "step": 0}]}),
        json!({"run_id": id, "key": "m", "value": 2.0, "timestamp": 2, "step": 1}),
    ] {
        let path = if body.get("metrics").is_some() {
            "log-batch"
        } else {
            "log-metric"
        };
        let a = s
            .answer(
                &mut w,
                "POST",
                &format!("/api/2.0/mlflow/runs/{path}"),
                None,
                Some(&body),
                0,
                &mut uuid,
            )
            .unwrap();
        assert_eq!(a.status, 200);
    }
    let h = s
        .answer(
            &mut w,
            "GET",
            &l.path,
            Some(&format!("run_id={id}&metric_key=m")),
            None,
            0,
            &mut uuid,
        )
        .unwrap();
    assert_eq!(
        h.body.unwrap(),
        json!({"metrics": [
            {"key": "m", "value": 1.0, "timestamp": 1, "step": 0},
            {"key": "m", "value": 2.0, "timestamp": 2, "step": 1}
        ]})
    );
    // Nothing logged for that key of a known run: the app's empty result
    // (MLflow omits empty list members, `empty_lists`); an unknown run:
    // not answered (the caller falls back).
    let empty = s
        .answer(
            &mut w,
            "GET",
            &l.path,
            Some(&format!("run_id={id}&metric_key=zz")),
            None,
            0,
            &mut uuid,
        )
        .unwrap();
    assert_eq!((empty.status, empty.basis), (200, "empty-result"));
    assert_eq!(empty.body, Some(json!({})));
    assert!(s
        .answer(
            &mut w,
            "GET",
            &l.path,
            Some("run_id=ffffffffffffffffffffffffffffffff&metric_key=zz"),
            None,
            0,
            &mut uuid
        )
        .is_none());
    // Kinto and WordPress show no log read.
    for f in ["kinto/dev-a.har", "wordpress/dev-a.har"] {
        let (_, xs) = model_and_exchanges(&fixture(f)).unwrap();
        let m = model(f);
        let t = routes::Templates::infer(&xs);
        let logs = logs::infer(&xs, &|x| {
            snapshots::target_of(x, &m.resources, &t).is_some()
        });
        assert!(logs.is_empty(), "{f}: {logs:?}");
    }
}

#[test]
fn an_unseen_single_item_action_appends_where_only_a_batch_sibling_did() {
    // MLflow dev-a: runs/log-batch appends `params`, `metrics` and `tags`;
    // log-metric and set-tag append one metric / tag each. An unseen verb
    // whose body (without run_id) is one param ({key, value}) appends to
    // params, the one batch array no single-item action covers; an unseen
    // verb with another body only answers `{}`.
    let s = serving::serving_model(&fixture("mlflow/dev-a.har")).unwrap();
    let mut w = s.initial_world();
    let mut n = 0;
    let mut uuid = || {
        n += 1;
        format!("00000000-0000-4000-8000-{n:012}")
    };
    let base = "/api/2.0/mlflow/runs";
    let mut call =
        |w: &mut serving::ModelWorld,
         method: &str,
         path: &str,
         q: Option<&str>,
         b: Option<Value>| { s.answer(w, method, path, q, b.as_ref(), 0, &mut uuid) };
    let run = call(
        &mut w,
        "POST",
        &format!("{base}/create"),
        None,
        Some(json!({"experiment_id": "0", "run_name": "x", "start_time": 1})),
    )
    .unwrap();
    let id = run.body.unwrap()["run"]["info"]["run_id"]
        .as_str()
        .unwrap()
        .to_string();
    call(
        &mut w,
        "POST",
        &format!("{base}/log-batch"),
        None,
        Some(json!({"run_id": id, "params": [{"key": "a", "value": "1"}]})),
    )
    .unwrap();
    let lent = call(
        &mut w,
        "POST",
        &format!("{base}/log-parameter"),
        None,
        Some(json!({"run_id": id, "key": "b", "value": "2"})),
    )
    .unwrap();
    assert_eq!(lent.body.unwrap(), json!({}));
    let other = call(
        &mut w,
        "POST",
        &format!("{base}/frobnicate"),
        None,
        Some(json!({"run_id": id, "flag": true})),
    )
    .unwrap();
    assert_eq!(other.body.unwrap(), json!({}));
    let got = call(
        &mut w,
        "GET",
        &format!("{base}/get"),
        Some(&format!("run_id={id}")),
        None,
    )
    .unwrap();
    assert_eq!(
        got.body.unwrap()["run"]["data"]["params"],
        json!([{"key": "a", "value": "1"}, {"key": "b", "value": "2"}])
    );
}

fn ask(
    s: &serving::ServingModel,
    w: &mut serving::ModelWorld,
    method: &str,
    path: &str,
    query: Option<&str>,
    body: Option<serde_json::Value>,
) -> serving::Served {
    let mut n = 0u32;
    let mut uuid = || {
        n += 1;
        format!("00000000-0000-4000-8000-{n:012}")
    };
    s.answer(w, method, path, query, body.as_ref(), 0, &mut uuid)
        .unwrap_or_else(|| panic!("the model does not answer {method} {path}"))
}

#[test]
fn id_sequences_are_shared_by_sibling_collections_and_start_where_the_recording_shows() {
    // WordPress dev-a: the first post (27) is one past the pages' highest id
    // (26), not the posts' (21); a tag (20) continues the category created
    // just before (19); comments count on their own (31). MLflow dev-a:
    // experiments/create answered 5.
    let m = model("wordpress/dev-a.har");
    let seq = |c: &str| {
        m.sequences
            .iter()
            .find(|s| s.collections.iter().any(|x| x == c))
            .unwrap_or_else(|| panic!("no sequence for {c}"))
    };
    let posts = seq("/wp-json/wp/v2/posts");
    assert_eq!(posts.starts_after, 26);
    assert!(posts
        .collections
        .contains(&"/wp-json/wp/v2/pages".to_string()));
    assert_eq!(posts.members[1].basis, "sibling-max");
    let terms = seq("/wp-json/wp/v2/tags");
    assert_eq!(terms.starts_after, 18);
    assert_eq!(terms.collections[0], "/wp-json/wp/v2/categories");
    assert_eq!(terms.members[1].basis, "continues-sibling-create");
    assert_eq!(terms.supported_by, vec![27, 32]);
    assert_eq!(seq("/wp-json/wp/v2/comments").starts_after, 30);
    let ml = model("mlflow/dev-a.har");
    assert_eq!(ml.sequences.len(), 1);
    assert_eq!(ml.sequences[0].starts_after, 4);
    // Served: a session that creates a tag first gets 19 (dev-b's answer),
    // then a category 20, from the one counter; the link naming the id in
    // its query follows it.
    let s = serving::serving_model(&fixture("wordpress/dev-a.har")).unwrap();
    let mut w = s.initial_world();
    let tag = ask(
        &s,
        &mut w,
        "POST",
        "/wp-json/wp/v2/tags",
        None,
        Some(json!({"name": "Guatemala"})),
    );
    assert_eq!(tag.status, 201);
    let tag = tag.body.unwrap();
    assert_eq!(tag["id"], json!(19));
    assert!(tag["_links"]["wp:post_type"][0]["href"]
        .as_str()
        .unwrap()
        .ends_with("/posts?tags=19"));
    let cat = ask(
        &s,
        &mut w,
        "POST",
        "/wp-json/wp/v2/categories",
        None,
        Some(json!({"name": "Decaf Process Notes"})),
    );
    assert_eq!(cat.body.as_ref().unwrap()["id"], json!(20), "{cat:?}");
}

#[test]
fn a_soft_delete_lent_by_a_sibling_keeps_the_entity_until_the_forced_delete() {
    // WordPress dev-a: posts are trashed (a read after the delete answered
    // `status: "trash"`) and gone after `?force=true`; comments were only
    // ever deleted with `force=true`, so a comment delete without it is the
    // sibling's soft delete (its constant `status` only), marked a convention.
    let m = model("wordpress/dev-a.har");
    let d = write(&m, "DELETE", "/wp-json/wp/v2/posts/{post_id}")
        .delete
        .clone()
        .unwrap();
    assert_eq!(d.hard_query.as_deref(), Some("force=true"));
    assert_eq!(d.soft_sets["status"], json!({"value": "trash"}));
    assert_eq!(d.soft_sets["slug"], json!({"append": "__trashed"}));
    let s = serving::serving_model(&fixture("wordpress/dev-a.har")).unwrap();
    let mut w = s.initial_world();
    let c = ask(
        &s,
        &mut w,
        "POST",
        "/wp-json/wp/v2/comments",
        None,
        Some(json!({"post": 12, "content": "The cheapest one was the 1 litre model."})),
    );
    assert_eq!(c.status, 201);
    let c = c.body.unwrap();
    assert_eq!(c["id"], json!(31), "the comments' own counter");
    assert_eq!(
        c["content"]["rendered"],
        json!("<p>The cheapest one was the 1 litre model.</p>\n")
    );
    let path = "/wp-json/wp/v2/comments/31";
    let put = ask(
        &s,
        &mut w,
        "PUT",
        path,
        None,
        Some(json!({"content": "The 0.8 litre one."})),
    );
    assert_eq!(
        put.body.unwrap()["content"]["raw"],
        json!("The 0.8 litre one.")
    );
    let trash = ask(&s, &mut w, "DELETE", path, None, None);
    assert_eq!(
        (trash.status, trash.basis, trash.convention),
        (200, "soft-delete", true)
    );
    assert_eq!(trash.body.unwrap()["status"], json!("trash"));
    let read = ask(&s, &mut w, "GET", path, None, None).body.unwrap();
    assert_eq!(read["status"], json!("trash"));
    assert!(
        read.get("author_email").is_none(),
        "shown like the recorded reads"
    );
    let gone = ask(&s, &mut w, "DELETE", path, Some("force=true"), None);
    assert_eq!(gone.status, 200);
    let gone = gone.body.unwrap();
    assert_eq!(gone["deleted"], json!(true));
    assert_eq!(gone["previous"]["status"], json!("trash"));
    assert!(
        gone["previous"].get("_links").is_none(),
        "as the recorded `previous`"
    );
    let after = ask(&s, &mut w, "GET", path, None, None);
    assert_eq!(after.status, 404);
    assert_eq!(
        after.body.unwrap()["code"],
        json!("rest_comment_invalid_id")
    );
}

#[test]
fn a_number_filled_within_a_sent_key_continues_the_highest_shown_and_keys_are_compound() {
    // MLflow dev-a: model-versions/create answered version "1" for a new
    // name; the registered-models list showed version 2 of
    // demand-forecaster nested in `latest_versions`. A create for it is
    // version 3, readable by name and version, beside other versions.
    let s = serving::serving_model(&fixture("mlflow/dev-a.har")).unwrap();
    let mut w = s.initial_world();
    let base = "/api/2.0/mlflow";
    let run = "7a7e25e07e3340d9a1c15028a8fa500a";
    let created = ask(
        &s,
        &mut w,
        "POST",
        &format!("{base}/model-versions/create"),
        None,
        Some(json!({"name": "demand-forecaster", "run_id": run, "source": "s3://x"})),
    );
    assert_eq!(created.status, 200);
    let mv = created.body.unwrap();
    assert_eq!(mv["model_version"]["version"], json!("3"));
    assert_eq!(mv["model_version"]["source"], json!("s3://x"));
    assert_eq!(mv["model_version"]["description"], json!(""), "the default");
    let again = ask(
        &s,
        &mut w,
        "POST",
        &format!("{base}/model-versions/create"),
        None,
        Some(json!({"name": "demand-forecaster", "run_id": run, "source": "s3://y"})),
    );
    assert_eq!(again.body.unwrap()["model_version"]["version"], json!("4"));
    let read = ask(
        &s,
        &mut w,
        "GET",
        &format!("{base}/model-versions/get"),
        Some("name=demand-forecaster&version=3"),
        None,
    );
    assert_eq!(read.status, 200);
    assert_eq!(
        read.body.unwrap()["model_version"]["source"],
        json!("s3://x")
    );
    // A run the recording never showed (random ids) is not refused; an
    // experiment id past the sequence is.
    let unseen = ask(
        &s,
        &mut w,
        "POST",
        &format!("{base}/model-versions/create"),
        None,
        Some(
            json!({"name": "shelf-detector", "run_id": "eadbba57d1c64e17aba002ed46faf1fb", "source": "s"}),
        ),
    );
    assert_eq!(unseen.status, 200);
    assert_eq!(unseen.body.unwrap()["model_version"]["version"], json!("1"));
    let orphan = ask(
        &s,
        &mut w,
        "POST",
        &format!("{base}/runs/create"),
        None,
        Some(json!({"experiment_id": "999", "run_name": "orphan", "start_time": 1})),
    );
    assert_eq!(orphan.status, 404);
    assert_eq!(
        orphan.body.unwrap()["message"],
        json!("No Experiment with id=999 exists")
    );
}

#[test]
fn a_removal_verb_beside_an_appending_action_removes_the_item() {
    // MLflow dev-a records runs/set-tag (appends {key, value} to
    // /data/tags, as the next runs/get shows) but never runs/delete-tag:
    // the removal verb of the same noun removes the tag with that key.
    let s = serving::serving_model(&fixture("mlflow/dev-a.har")).unwrap();
    let mut w = s.initial_world();
    let base = "/api/2.0/mlflow";
    let run = "132f205db9d34bcababc3c6fb904c192";
    let tags = |s: &serving::ServingModel, w: &mut serving::ModelWorld| {
        let read = ask(
            s,
            w,
            "GET",
            &format!("{base}/runs/get"),
            Some(&format!("run_id={run}")),
            None,
        );
        let body = read.body.unwrap();
        body["run"]["data"]["tags"]
            .as_array()
            .unwrap_or_else(|| panic!("{body}"))
            .iter()
            .map(|t| t["key"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    ask(
        &s,
        &mut w,
        "POST",
        &format!("{base}/runs/set-tag"),
        None,
        Some(json!({"run_id": run, "key": "stage", "value": "x"})),
    );
    assert!(tags(&s, &mut w).contains(&"stage".to_string()));
    let del = ask(
        &s,
        &mut w,
        "POST",
        &format!("{base}/runs/delete-tag"),
        None,
        Some(json!({"run_id": run, "key": "stage"})),
    );
    assert_eq!((del.status, del.convention), (200, true));
    assert_eq!(del.body.unwrap(), json!({}));
    assert!(!tags(&s, &mut w).contains(&"stage".to_string()));
}

#[test]
fn a_parent_delete_cascades_to_the_dependents_that_reference_it() {
    // MLflow dev-b: experiments/delete of experiment 5 (record 40), then
    // runs/get of its run (42) shows `lifecycle_stage: deleted`, with no
    // write to the run between its earlier read and that one.
    let m = model("mlflow/dev-b.har");
    let w = write(&m, "POST", "/api/2.0/mlflow/experiments/delete");
    assert_eq!(w.cascades.len(), 1, "{:?}", w.cascades);
    let c = &w.cascades[0];
    assert_eq!(
        (
            c.resource.as_str(),
            c.reference.as_str(),
            c.pointer.as_str()
        ),
        ("run", "/info/experiment_id", "/info/lifecycle_stage")
    );
    assert_eq!(c.value, json!("deleted"));
    assert_eq!(c.supported_by, vec![40, 42]);
    assert!(c.contradicted_by.is_empty());
    // No capture of the other apps, nor MLflow dev-a (its experiment delete
    // is restored before any run read), shows a cascade: none is kept.
    for f in ["mlflow/dev-a.har", "kinto/dev-a.har", "wordpress/dev-a.har"] {
        assert!(model(f).writes.iter().all(|w| w.cascades.is_empty()), "{f}");
    }
    // Served on an experiment the recording never deleted (3): its runs are
    // marked, a run of another experiment (4) is not.
    let s = serving::serving_model(&fixture("mlflow/dev-b.har")).unwrap();
    let mut world = s.initial_world();
    let stage = |s: &serving::ServingModel, w: &mut serving::ModelWorld, run: &str| {
        let got = ask(
            s,
            w,
            "GET",
            "/api/2.0/mlflow/runs/get",
            Some(&format!("run_id={run}")),
            None,
        );
        assert_eq!(got.status, 200, "{run}");
        got.body.unwrap()["run"]["info"]["lifecycle_stage"].clone()
    };
    const OF_3: [&str; 2] = [
        "c321c65260e94634ac8ebe51c483214a",
        "e5a28afb43534ce98a00ff2181f020d4",
    ];
    const OF_4: &str = "eadbba57d1c64e17aba002ed46faf1fb";
    assert_eq!(stage(&s, &mut world, OF_3[0]), json!("active"));
    let deleted = ask(
        &s,
        &mut world,
        "POST",
        "/api/2.0/mlflow/experiments/delete",
        None,
        Some(json!({"experiment_id": "3"})),
    );
    assert_eq!(deleted.status, 200);
    for run in OF_3 {
        assert_eq!(stage(&s, &mut world, run), json!("deleted"), "{run}");
    }
    assert_eq!(stage(&s, &mut world, OF_4), json!("active"));
}

#[test]
fn a_reply_create_follows_its_references_and_a_contradicted_plan_is_answered_where_the_replay_confirms_the_model(
) {
    // WordPress dev-a creates one comment (on post 8, no parent); its list of
    // post 14's comments shows a reply (parent 21) with an `in-reply-to`
    // link that the others (parent 0) lack. A reply to comment 21 on post 12
    // re-rendered from the create's example: `up` points at post 12, the
    // `in-reply-to` link is added for 21, and `link` continues post 12's own.
    let s = serving::serving_model(&fixture("wordpress/dev-a.har")).unwrap();
    // The spec's plan for POST /comments is contradicted; the model's replay
    // of the recorded creates got every recorded status.
    assert!(s.confirms_write("POST", "/wp-json/wp/v2/comments"));
    assert!(s.confirms_write("PATCH", "/wp-json/wp/v2/posts/29"));
    // No PATCH of a comment was recorded: the route is confirmed as the
    // write the model lends it is on its own route (one meaning per lent
    // write).
    assert!(s.confirms_write("PATCH", "/wp-json/wp/v2/comments/29"));
    let mut w = s.initial_world();
    let post = ask(&s, &mut w, "GET", "/wp-json/wp/v2/posts/12", None, None);
    let post_link = post.body.unwrap()["link"].as_str().unwrap().to_string();
    let c = ask(
        &s,
        &mut w,
        "POST",
        "/wp-json/wp/v2/comments",
        None,
        Some(json!({"post": 12, "content": "The 1 litre model.", "parent": 21})),
    );
    assert_eq!(c.status, 201);
    let body = c.body.unwrap();
    let id = body["id"].as_u64().unwrap();
    let links = &body["_links"];
    assert!(links["up"][0]["href"]
        .as_str()
        .unwrap()
        .ends_with("/wp-json/wp/v2/posts/12"));
    assert!(links["in-reply-to"][0]["href"]
        .as_str()
        .unwrap()
        .ends_with("/wp-json/wp/v2/comments/21"));
    assert_eq!(body["link"], json!(format!("{post_link}#comment-{id}")));
    // A comment without a parent gets no `in-reply-to` link.
    let plain = ask(
        &s,
        &mut w,
        "POST",
        "/wp-json/wp/v2/comments",
        None,
        Some(json!({"post": 12, "content": "Another note on kettles."})),
    );
    assert!(plain.body.unwrap()["_links"].get("in-reply-to").is_none());
    // A plain read shows the read shape (no `content.raw`, which only the
    // create's edit-context answer shows).
    let read = ask(
        &s,
        &mut w,
        "GET",
        &format!("/wp-json/wp/v2/comments/{id}"),
        None,
        None,
    );
    assert_eq!(read.status, 200);
    let content = read.body.unwrap()["content"].clone();
    assert!(
        content.get("rendered").is_some() && content.get("raw").is_none(),
        "{content}"
    );
}

#[test]
fn a_create_fills_the_empty_default_of_unsent_members_and_a_forced_delete_answers_as_recorded() {
    // WordPress dev-b creates a reply (parent 20) and deletes a comment soft,
    // then forced (`{"deleted": true, "previous": …}`). A comment created
    // without `parent` shows `parent: 0` (every read shows it; recorded
    // comments show 0) and no `in-reply-to` link; the soft delete answers
    // the entity, the forced one the recorded forced shape.
    let s = serving::serving_model(&fixture("wordpress/dev-b.har")).unwrap();
    let mut w = s.initial_world();
    let c = ask(
        &s,
        &mut w,
        "POST",
        "/wp-json/wp/v2/comments",
        None,
        Some(json!({"post": 12, "content": "Tried it with oat milk."})),
    );
    assert_eq!(c.status, 201);
    let body = c.body.unwrap();
    assert_eq!(body["parent"], json!(0));
    assert!(body["_links"].get("in-reply-to").is_none(), "{body}");
    let item = format!("/wp-json/wp/v2/comments/{}", body["id"]);
    let soft = ask(&s, &mut w, "DELETE", &item, None, None);
    assert_eq!(soft.status, 200);
    assert_eq!(soft.body.as_ref().unwrap()["id"], body["id"]);
    let forced = ask(&s, &mut w, "DELETE", &item, Some("force=true"), None);
    assert_eq!(forced.status, 200);
    let forced = forced.body.unwrap();
    assert_eq!(forced["deleted"], json!(true));
    assert_eq!(forced["previous"]["id"], body["id"]);
    assert_eq!(ask(&s, &mut w, "GET", &item, None, None).status, 404);
    // Kinto (second app): its record creates send every member they show,
    // so nothing is filled; the create still answers as before.
    let k = serving::serving_model(&fixture("kinto/dev-a.har")).unwrap();
    let mut kw = k.initial_world();
    let r = ask(
        &k,
        &mut kw,
        "POST",
        "/v1/buckets/shop/collections/customers/records",
        None,
        Some(json!({"data": {"name": "Ada"}})),
    );
    assert_eq!(r.status, 201);
    assert_eq!(r.body.unwrap()["data"]["name"], json!("Ada"));
}

#[test]
fn an_update_that_draws_a_revision_id_moves_the_shared_sequence() {
    // WordPress dev-b: PUT /pages/26 answers a new `predecessor-version` id
    // (27) and `version-history` count 1 before the first create (page 28):
    // the counter stood at 26. A served PUT draws 27 the same way; the next
    // page is 28 and a post after it 29 (pages and posts share the counter).
    let m = model("wordpress/dev-b.har");
    let seq = m
        .sequences
        .iter()
        .find(|s| s.collections.contains(&"/wp-json/wp/v2/pages".to_string()))
        .unwrap();
    assert_eq!(seq.starts_after, 26);
    let s = serving::serving_model(&fixture("wordpress/dev-b.har")).unwrap();
    let mut w = s.initial_world();
    let put = ask(
        &s,
        &mut w,
        "PUT",
        "/wp-json/wp/v2/pages/26",
        None,
        Some(json!({"content": "Open Thursday to Saturday."})),
    );
    assert_eq!(put.status, 200);
    let links = put.body.unwrap()["_links"].clone();
    assert_eq!(links["predecessor-version"][0]["id"], json!(27));
    assert!(links["predecessor-version"][0]["href"]
        .as_str()
        .unwrap()
        .ends_with("/wp-json/wp/v2/pages/26/revisions/27"));
    assert_eq!(links["version-history"][0]["count"], json!(1));
    let page = ask(
        &s,
        &mut w,
        "POST",
        "/wp-json/wp/v2/pages",
        None,
        Some(json!({"title": "Wholesale", "parent": 25})),
    );
    assert_eq!(page.body.unwrap()["id"], json!(28));
    // A resource whose reads show no revisions draws none (tags).
    let made = ask(
        &s,
        &mut w,
        "POST",
        "/wp-json/wp/v2/tags",
        None,
        Some(json!({"name": "Kenya"})),
    );
    let tag = ask(
        &s,
        &mut w,
        "PUT",
        &format!("/wp-json/wp/v2/tags/{}", made.body.unwrap()["id"]),
        None,
        Some(json!({"description": "Washed coffees."})),
    );
    assert_eq!(tag.status, 200);
    assert!(tag.body.unwrap()["_links"]
        .get("predecessor-version")
        .is_none());
}

#[test]
fn a_document_whose_stored_texts_are_escaped_escapes_a_sent_text() {
    // WordPress dev-b never writes a text with `&` to /settings, but its
    // stored title reads `Ember &amp; Bean Journal` (and no text holds a
    // bare `&`): a sent `&` comes back escaped, as dev-a's write shows.
    let s = serving::serving_model(&fixture("wordpress/dev-b.har")).unwrap();
    let mut w = s.initial_world();
    let path = "/wp-json/wp/v2/settings";
    let put = ask(
        &s,
        &mut w,
        "POST",
        path,
        None,
        Some(json!({"title": "A & B"})),
    );
    assert_eq!(put.body.unwrap()["title"], json!("A &amp; B"));
    let read = ask(&s, &mut w, "GET", path, None, None);
    assert_eq!(read.body.unwrap()["title"], json!("A &amp; B"));
}

#[test]
fn a_create_lent_by_a_sibling_renders_one_of_the_collections_own_entities_and_the_sent_text() {
    // WordPress dev-a never creates a page; posts' create is lent (pages and
    // posts share most read members and their parent). The new page is
    // page 26 (same parent 25) re-rendered: title, slug and link follow the
    // sent title, the author is the caller (posts' create shows 1) and its
    // link names user 1, clocks are now, and `content` is rendered without
    // the block comments the posts' create showed stripped.
    let s = serving::serving_model(&fixture("wordpress/dev-a.har")).unwrap();
    let mut w = s.initial_world();
    let raw =
        "<!-- wp:paragraph -->\n<p>Cafes: ask for our price list.</p>\n<!-- /wp:paragraph -->";
    let page = ask(
        &s,
        &mut w,
        "POST",
        "/wp-json/wp/v2/pages",
        None,
        Some(json!({"title": "Wholesale", "content": raw, "status": "publish", "parent": 25})),
    );
    assert_eq!(page.status, 201);
    assert!(page.convention, "a lent create is a convention");
    let p = page.body.unwrap();
    assert_eq!(p["id"], json!(27), "pages draw from the posts' counter");
    assert_eq!(p["slug"], json!("wholesale"));
    assert!(p["link"]
        .as_str()
        .unwrap()
        .ends_with("/about-us/wholesale/"));
    assert_eq!(p["title"]["rendered"], json!("Wholesale"));
    assert_eq!(p["author"], json!(1));
    assert!(p["_links"]["author"][0]["href"]
        .as_str()
        .unwrap()
        .ends_with("/users/1"));
    assert_eq!(
        p["content"]["rendered"],
        json!("\n<p>Cafes: ask for our price list.</p>\n")
    );
    assert_eq!(
        p["excerpt"]["rendered"],
        json!("<p>Cafes: ask for our price list.</p>\n")
    );
    // Kinto (second app): a collection with its own creates is not lent.
    let k = serving::serving_model(&fixture("kinto/dev-a.har")).unwrap();
    let mut kw = k.initial_world();
    let r = ask(
        &k,
        &mut kw,
        "POST",
        "/v1/buckets/shop/collections/customers/records",
        None,
        Some(json!({"data": {"name": "Ada"}})),
    );
    assert_eq!(r.status, 201);
}

#[test]
fn an_item_read_of_a_model_held_entity_honours_the_recorded_field_selection() {
    // WordPress dev-b lists posts with `_fields=id,title,status` and every
    // item shows exactly those members: `_fields` is a field selection. A
    // post the model created, read with `_fields`, shows only the named
    // members, in the read shape (no `title.raw`).
    let s = serving::serving_model(&fixture("wordpress/dev-b.har")).unwrap();
    let mut w = s.initial_world();
    let post = ask(
        &s,
        &mut w,
        "POST",
        "/wp-json/wp/v2/posts",
        None,
        Some(json!({"title": "Roast Day Diary", "status": "draft"})),
    );
    let id = post.body.unwrap()["id"].clone();
    let read = ask(
        &s,
        &mut w,
        "GET",
        &format!("/wp-json/wp/v2/posts/{id}"),
        Some("_fields=id,title,modified"),
        None,
    );
    assert_eq!(read.status, 200);
    let body = read.body.unwrap();
    let keys: Vec<&str> = body
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys.len(), 3, "{keys:?}");
    assert!(keys.contains(&"title") && keys.contains(&"modified"));
    assert!(body["title"].get("raw").is_none(), "{body}");
}
