//! Engine tests on the real Kinto capture and small hand-made states:
//! tool calls, replay, unserved writes, World export/import and tables.

use crate::engine::{AnswerBody, Call, Engine, World, COLLECTION_MEMBER};
use crate::state::environment_state;
use crate::state::kinto_tests::{all_rules, Fixed};
use crate::testkit::fixture;
use serde_json::{json, Value};

fn kinto() -> (Engine, Value) {
    let ev = fixture("kinto/dev-a.har");
    let rules = all_rules();
    let manifest = crate::manifest::environment_manifest(&ev, &rules, true).unwrap();
    let state = environment_state(&ev, &rules).unwrap();
    (Engine::new(&ev, manifest, state).unwrap(), ev)
}

const PRODUCTS: &str = "/v1/buckets/shop/collections/products/records";

fn get(
    engine: &Engine,
    world: &mut World,
    path: &str,
    query: Option<&str>,
) -> crate::engine::Answer {
    let call = Call {
        method: "GET".into(),
        path: path.into(),
        query: query.map(str::to_string),
        headers: Vec::new(),
        body: None,
    };
    engine.call(world, &call, &mut Fixed(0))
}

#[test]
fn tool_call_builds_the_request_line() {
    let (engine, _) = kinto();
    let item = engine
        .route("GET", &format!("{PRODUCTS}/prod-001"))
        .unwrap()
        .0
        .name
        .clone();
    let call = engine
        .tool_call(&item, &json!({"record_id": "prod 1/2"}))
        .unwrap();
    assert_eq!(call.path, format!("{PRODUCTS}/prod%201%2F2"));
    assert_eq!(call.method, "GET");
    let (tool, params) = engine.route("GET", &call.path).unwrap();
    assert_eq!(tool.name, item);
    assert_eq!(params["record_id"], "prod 1/2");
    let err = engine.tool_call(&item, &json!({})).unwrap_err();
    assert_eq!(err.code(), "invalid_arguments");
    let err = engine
        .tool_call(&item, &json!({"record_id": "x", "bogus": 1}))
        .unwrap_err();
    assert!(matches!(
        err,
        crate::engine::Refusal::InvalidArguments { argument: Some(ref a), .. } if a == "bogus"
    ));
    assert_eq!(
        engine.tool_call("nope", &json!({})).unwrap_err().code(),
        "unknown_tool"
    );
    assert_eq!(
        engine.tool_call(&item, &json!([1])).unwrap_err().code(),
        "invalid_arguments"
    );
    let list = engine.route("GET", PRODUCTS).unwrap().0.name.clone();
    let call = engine
        .tool_call(&list, &json!({"_limit": 6, "_sort": "-stock"}))
        .unwrap();
    let query = call.query.unwrap();
    assert!(
        query.contains("_limit=6") && query.contains("_sort=-stock"),
        "{query}"
    );
}

#[test]
fn lists_render_the_world_and_recorded_lines() {
    let (engine, ev) = kinto();
    let mut world = engine.initial_world();
    // Removing an entity shows in the full list but the recorded filtered
    // line keeps its recorded membership (minus what the World lost).
    let removed = world
        .remove("products_records", PRODUCTS, "prod-001")
        .expect("held");
    let AnswerBody::Json(all) = get(&engine, &mut world, PRODUCTS, None).body else {
        panic!()
    };
    assert_eq!(all["data"].as_array().unwrap().len(), 19);
    world.insert(removed, None);
    let AnswerBody::Json(all) = get(&engine, &mut world, PRODUCTS, None).body else {
        panic!()
    };
    assert_eq!(all["data"].as_array().unwrap().len(), 20);
    assert_eq!(all["data"][19]["id"], "prod-001");
    let recorded: Value = serde_json::from_str(
        ev["records"][10]["reported"]["response"]["content"]["text"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    let AnswerBody::Json(kitchen) =
        get(&engine, &mut world, PRODUCTS, Some("category=kitchen")).body
    else {
        panic!()
    };
    assert_eq!(kitchen, recorded);
}

#[test]
fn recorded_views_replay_their_line_or_say_not_recorded() {
    let (engine, _) = kinto();
    let mut world = engine.initial_world();
    // A uuid under products routes to the item plan (it renders from the
    // World), which does not hold it: the recorded not-found answers.
    let path = format!("{PRODUCTS}/8854ee53-d6c2-42fc-a6fc-fc93b789a106");
    let answer = get(&engine, &mut world, &path, None);
    assert_eq!(answer.status, 404);
    assert!(
        answer
            .tool
            .as_deref()
            .is_some_and(|t| t.ends_with("by_record_id")),
        "{answer:?}"
    );
    // The orders uuid tool is recorded: it replays the latest recording of the line (a 404 after the delete).
    let orders = "/v1/buckets/shop/collections/orders/records/ad5f9919-2cb8-40c1-9fa8-7e92aadead82";
    let answer = get(&engine, &mut world, orders, None);
    assert_eq!(
        (answer.status, answer.error_code.as_deref()),
        (404, None),
        "{answer:?}"
    );
    let AnswerBody::Json(body) = &answer.body else {
        panic!()
    };
    assert_eq!(
        body["details"]["id"],
        "ad5f9919-2cb8-40c1-9fa8-7e92aadead82"
    );
    let other = "/v1/buckets/shop/collections/orders/records/00000000-2cb8-40c1-9fa8-7e92aadead82";
    // A line the recorded uuid tool never saw: the family's item view
    // answers (docs/serving.md), here with the recorded not-found shape.
    let answer = get(&engine, &mut world, other, None);
    assert_eq!(answer.status, 404);
    assert_eq!(answer.error_code.as_deref(), Some("not_found"));
    let AnswerBody::Json(body) = &answer.body else {
        panic!()
    };
    assert_eq!(
        body["details"]["id"],
        "00000000-2cb8-40c1-9fa8-7e92aadead82"
    );
    // A path no tool matches.
    let answer = get(&engine, &mut world, "/nope", None);
    assert_eq!(answer.status, 404);
    assert_eq!(answer.error_code.as_deref(), Some("no_matching_tool"));
    // A document of another path of its template: no value, no recording.
    let answer = get(&engine, &mut world, "/v1/", Some("x=1"));
    assert_eq!(answer.error_code.as_deref(), Some("not_recorded"));
    assert_eq!(get(&engine, &mut world, "/v1", None).status, 200);
}

#[test]
fn replayed_headers_drop_framing_and_credentials() {
    let (engine, _) = kinto();
    let mut world = engine.initial_world();
    let answer = get(&engine, &mut world, "/v1/", None);
    for (name, _) in &answer.headers {
        let n = name.to_ascii_lowercase();
        assert!(
            ![
                "content-length",
                "content-encoding",
                "transfer-encoding",
                "set-cookie",
                "content-type"
            ]
            .contains(&n.as_str()),
            "{n}"
        );
    }
    assert_eq!(answer.content_type.as_deref(), Some("application/json"));
}

#[test]
fn unserved_writes_answer_their_reason_and_change_nothing() {
    let (engine, _) = kinto();
    let plan = engine
        .state
        .writes
        .iter()
        .find(|w| w.status != "served")
        .expect("an unserved plan on dev-a");
    let tool = engine.tool(&plan.tool).unwrap().clone();
    let mut world = engine.initial_world();
    let before = world.clone();
    let call = Call {
        method: tool.method.clone(),
        path: tool.path_template.clone(),
        query: None,
        headers: Vec::new(),
        body: Some(json!({"data": {}})),
    };
    let answer = engine.call(&mut world, &call, &mut Fixed(0));
    assert_eq!(answer.tool.as_deref(), Some(plan.tool.as_str()));
    assert_eq!(answer.status, 501);
    assert_eq!(answer.error_code.as_deref(), Some("write_not_served"));
    assert_eq!(world, before);
}

#[test]
fn export_import_round_trips() {
    let (engine, _) = kinto();
    let world = engine.initial_world();
    let exported = engine.export(&world);
    let rows = exported["collections"]["products_records"]
        .as_array()
        .unwrap();
    assert_eq!(rows.len(), 20);
    // The products template has no parameter, so rows carry no `_collection`.
    assert!(rows[0].get(COLLECTION_MEMBER).is_none());
    assert!(exported["documents"]["/v1/"].is_object());
    let back = engine.import(&exported).unwrap();
    assert_eq!(engine.export(&back), exported);
}

fn refused(engine: &Engine, value: Value) -> rea_core::ErrorReport {
    engine.import(&value).expect_err("refused")
}

#[test]
fn import_refuses_what_does_not_fit() {
    let (engine, _) = kinto();
    let e = refused(&engine, json!({"collections": {"nope": []}}));
    assert_eq!(e.details["collection"], "nope");
    let e = refused(
        &engine,
        json!({"collections": {"products_records": [{"name": "x"}]}}),
    );
    assert_eq!(e.details["field"], "id");
    assert_eq!(e.details["row"], 0);
    let e = refused(
        &engine,
        json!({"collections": {"products_records": [{"id": "a"}, {"id": "a"}]}}),
    );
    assert_eq!(e.details["row"], 1);
    assert!(e.message.contains("duplicate"));
    let e = refused(
        &engine,
        json!({"collections": {"products_records": [{"id": {"x": 1}}]}}),
    );
    assert_eq!(e.details["field"], "id");
    let e = refused(&engine, json!({"collections": {"products_records": [7]}}));
    assert_eq!(e.details["row"], 0);
    let e = refused(&engine, json!({"collections": [], "documents": {}}));
    assert_eq!(e.details["field"], "collections");
    let e = refused(&engine, json!({"documents": {"/nope": 1}}));
    assert_eq!(e.details["field"], "/nope");
    let e = refused(&engine, json!({"colections": {}}));
    assert_eq!(e.code, "invalid_world");
    let e = refused(&engine, json!("x"));
    assert_eq!(e.code, "invalid_world");
    // A valid replacement: reads answer from it.
    let world = engine
        .import(&json!({"collections": {"products_records": [{"id": "p-1", "name": "Only"}]}, "documents": {}}))
        .unwrap();
    let mut world = world;
    let AnswerBody::Json(list) = get(&engine, &mut world, PRODUCTS, None).body else {
        panic!()
    };
    assert_eq!(list["data"], json!([{"id": "p-1", "name": "Only"}]));
    let AnswerBody::Json(item) = get(&engine, &mut world, &format!("{PRODUCTS}/p-1"), None).body
    else {
        panic!()
    };
    assert_eq!(item["data"]["name"], "Only");
    assert_eq!(
        get(&engine, &mut world, &format!("{PRODUCTS}/prod-001"), None).status,
        404
    );
}

#[test]
fn a_type_spanning_collections_needs_collection_paths() {
    let entries = vec![crate::testkit::with_body(
        crate::testkit::har_entry(
            "GET",
            "http://a.example/api/orgs/1/users",
            200,
            "application/json",
        ),
        "",
        "",
    )];
    let mut ev = crate::testkit::evidence(entries);
    ev["records"][0]["reported"]["response"]["content"]["text"] =
        json!(r#"[{"id":1,"n":"a"},{"id":2,"n":"b"}]"#);
    let manifest = crate::manifest::environment_manifest(&ev, &[], true).unwrap();
    let state = environment_state(&ev, &[]).unwrap();
    let engine = Engine::new(&ev, manifest, state).unwrap();
    let world = engine.initial_world();
    let exported = engine.export(&world);
    let rows = exported["collections"]["users"].as_array().unwrap();
    assert_eq!(rows[0][COLLECTION_MEMBER], "/api/orgs/1/users");
    let e = refused(&engine, json!({"collections": {"users": [{"id": 1}]}}));
    assert_eq!(e.details["field"], COLLECTION_MEMBER);
    let e = refused(
        &engine,
        json!({"collections": {"users": [{"id": 1, "_collection": "/api/other"}]}}),
    );
    assert_eq!(e.details["field"], COLLECTION_MEMBER);
    let ok = engine
        .import(
            &json!({"collections": {"users": [{"id": 1, "_collection": "/api/orgs/2/users/"}]}}),
        )
        .unwrap();
    assert_eq!(ok.list("users", "/api/orgs/2/users").len(), 1);
    let tables = engine.tables();
    assert_eq!(tables["users"]["required"], json!(["id", "_collection"]));
    assert_eq!(
        tables["users"]["properties"]["n"],
        json!({"type": "string"})
    );
}

#[test]
fn tables_describe_every_collection() {
    let (engine, _) = kinto();
    let tables = engine.tables();
    let names: Vec<&String> = tables.keys().collect();
    assert_eq!(names.len(), engine.state.types.len());
    let products = &tables["products_records"];
    assert_eq!(products["required"], json!(["id"]));
    assert_eq!(products["properties"]["name"], json!({"type": "string"}));
    let validator = jsonschema::validator_for(products).unwrap();
    let exported = engine.export(&engine.initial_world());
    for row in exported["collections"]["products_records"]
        .as_array()
        .unwrap()
    {
        assert!(validator.is_valid(row), "{row}");
    }
    assert!(!validator.is_valid(&json!({"name": "no id"})));
}

mod generalize;
mod perf;
