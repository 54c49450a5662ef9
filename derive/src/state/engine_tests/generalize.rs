//! Tests of the serve-time generalizations (list queries, `generalize`) on small
//! captures built in code: unrecorded list queries with paging, the
//! recorded default order after writes, sibling collections and not-found.

use crate::engine::{AnswerBody, Call, Engine, Plan, Request, World};
use crate::state::kinto_tests::Fixed;
use crate::state::writes::testkit::{ex, Scenario};
use crate::state::{Entity, FieldRule, Insert, Rule, WriteAnswer, WritePlan};
use rea_engine::shapes::ClockFormat;
use serde_json::{json, Value};

fn item(id: &str, name: &str, price: f64, paid: bool, modified: i64) -> Value {
    json!({"id": id, "name": name, "price": price, "paid": paid, "last_modified": modified})
}

fn clock_rule() -> FieldRule {
    let format = ClockFormat::EpochMs { string: false };
    FieldRule::new("last_modified", Rule::Clock { format })
}

fn patch_plan() -> WritePlan {
    WritePlan {
        tool: "update_item".into(),
        method: "PATCH".into(),
        effect: crate::state::model::Effect::Update,
        type_name: Some("items".into()),
        document_path: None,
        status: crate::state::model::PlanStatus::Served,
        reason: None,
        contradicted_by: vec![],
        checked_record_ordinals: vec![],
        example_ordinal: Some(4),
        required_members: vec![],
        body_fixed: vec![],
        field_rules: vec![clock_rule()],
        insert: Some(Insert {
            position: crate::state::model::InsertPosition::Sorted,
            field: Some("last_modified".into()),
            order: Some(crate::state::model::SortOrder::Descending),
        }),
        answer: Some(WriteAnswer {
            status: 200,
            envelope_ordinal: 4,
            pointer: Some("/data".into()),
        }),
    }
}

/// Items at `/api/items` (three, newest first) with a recorded paged list,
/// an item view with a recorded not-found, a served PATCH; and a sibling
/// type `things` at `/api/things` that only ever had a list.
fn engine() -> Engine {
    let items = [
        item("i3", "cherry", 3.0, false, 30),
        item("i2", "apple", 1.0, true, 20),
        item("i1", "banana", 2.0, false, 10),
    ];
    let exchanges = vec![
        ex("GET", "/api/items", 200).answer(json!({"data": items})),
        ex("GET", "/api/items/i1", 200).answer(json!({"data": items[2], "meta": 1})),
        ex("GET", "/api/items?_limit=1", 200).answer(json!({"data": [items[0]]})),
        ex("GET", "/api/items/i9", 404).answer(json!({"code": 404, "details": {"id": "i9"}})),
        ex("PATCH", "/api/items/i1", 200)
            .body(json!({"data": {"paid": true}}))
            .answer(json!({"data": items[2]})),
    ];
    let mut s = Scenario::new(&exchanges, &items, None);
    let rec = s.records.get_mut(&2).unwrap();
    rec.response_headers.push((
        "Next-Page".into(),
        "http://app.test/api/items?_limit=1&_token=abc".into(),
    ));
    for v in &mut s.state.views {
        if let crate::state::ViewPlan::Item(p) = v {
            p.pointer = "/data".into();
            p.envelope_ordinal = 1;
            p.not_found_ordinal = Some(3);
        }
        if let crate::state::ViewPlan::List(p) = v {
            p.pointer = "/data".into();
        }
    }
    s.state.writes.push(patch_plan());
    let mut things = s.state.types[0].clone();
    things.name = "things".into();
    things.collection_template = "/api/things".into();
    things.root = "/api/things".into();
    things.item_tool = None;
    things.list_tools = vec![];
    s.state.types.push(things);
    for (id, modified) in [("t1", 5), ("t2", 6)] {
        let fields = item(id, id, 9.0, false, modified);
        s.state.entities.push(Entity {
            type_name: "things".into(),
            collection: "/api/things".into(),
            id: json!(id),
            fields: fields.as_object().cloned().unwrap(),
            view_fields: Default::default(),
            record_ordinals: vec![],
        });
    }
    Engine::from_records(s.records, s.manifest, s.state).unwrap()
}

fn send(
    engine: &Engine,
    world: &mut World,
    method: &str,
    line: &str,
    body: Option<Value>,
) -> crate::engine::Answer {
    let (path, query) = match line.split_once('?') {
        Some((p, q)) => (p.to_string(), Some(q.to_string())),
        None => (line.to_string(), None),
    };
    let call = Call {
        method: method.into(),
        path,
        query,
        headers: Vec::new(),
        body,
    };
    engine.call(world, &call, &mut Fixed(0))
}

fn ids(answer: &crate::engine::Answer) -> Vec<String> {
    let AnswerBody::Json(body) = &answer.body else {
        panic!("{answer:?}")
    };
    body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect()
}

fn header<'a>(answer: &'a crate::engine::Answer, name: &str) -> Option<&'a str> {
    answer
        .headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

#[test]
fn unrecorded_list_queries_filter_sort_and_page() {
    let engine = engine();
    let mut world = engine.initial_world();
    let w = &mut world;
    assert_eq!(
        ids(&send(&engine, w, "GET", "/api/items?paid=false", None)),
        ["i3", "i1"]
    );
    assert_eq!(
        ids(&send(&engine, w, "GET", "/api/items?price=1", None)),
        ["i2"]
    );
    assert_eq!(
        ids(&send(&engine, w, "GET", "/api/items?not_paid=false", None)),
        ["i2"]
    );
    assert_eq!(
        ids(&send(&engine, w, "GET", "/api/items?_sort=name", None)),
        ["i2", "i1", "i3"]
    );
    assert_eq!(
        ids(&send(&engine, w, "GET", "/api/items?sort=-price", None)),
        ["i3", "i1", "i2"]
    );
    assert_eq!(
        ids(&send(&engine, w, "GET", "/api/items?unknown=1", None)),
        ["i3", "i2", "i1"]
    );
    // Paging follows the recorded header name and URL shape, with our token.
    let first = send(&engine, w, "GET", "/api/items?_sort=price&_limit=2", None);
    assert_eq!(ids(&first), ["i2", "i1"]);
    let next = header(&first, "Next-Page")
        .expect("a next page")
        .to_string();
    assert!(
        next.starts_with("http://app.test/api/items?_sort=price&_limit=2&_token="),
        "{next}"
    );
    let line = next.trim_start_matches("http://app.test");
    let second = send(&engine, w, "GET", line, None);
    assert_eq!(ids(&second), ["i3"]);
    assert_eq!(header(&second, "Next-Page"), None);
    // The recorded line keeps its recorded answer.
    assert_eq!(
        ids(&send(&engine, w, "GET", "/api/items?_limit=1", None)),
        ["i3"]
    );
}

#[test]
fn lists_follow_the_recorded_order_after_an_update() {
    let engine = engine();
    let mut world = engine.initial_world();
    let answer = send(
        &engine,
        &mut world,
        "PATCH",
        "/api/items/i1",
        Some(json!({"data": {"paid": true}})),
    );
    assert_eq!(answer.status, 200);
    assert_eq!(
        ids(&send(&engine, &mut world, "GET", "/api/items", None)),
        ["i1", "i3", "i2"]
    );
}

#[test]
fn sibling_collections_answer_item_reads_and_writes() {
    let engine = engine();
    let mut world = engine.initial_world();
    let resolve = |line: &str| {
        let request = Request::Http(Call::new("GET", line, None));
        let routed = engine.resolve(&request).unwrap();
        (
            routed.tool.name.clone(),
            matches!(routed.plan, Plan::SiblingRead(_)),
        )
    };
    assert_eq!(resolve("/api/things/t1"), ("get_item".to_string(), true));
    assert!(!resolve("/api/items/i1").1);
    let answer = send(&engine, &mut world, "GET", "/api/things/t1", None);
    assert_eq!(answer.status, 200);
    let AnswerBody::Json(body) = &answer.body else {
        panic!()
    };
    assert_eq!(body["data"]["id"], "t1");
    assert_eq!(body["meta"], 1);
    // PATCH through the sibling's plan means what the plan means on its
    // own route: each sent member stored as sent (what the check confirmed),
    // on `things` only.
    let patch = json!({"data": {"name": null, "paid": true}});
    let mut stored = world.clone();
    for (ty, collection, id) in [
        ("things", "/api/things", "t1"),
        ("items", "/api/items", "i1"),
    ] {
        let path = format!("{collection}/{id}");
        let answer = send(&engine, &mut stored, "PATCH", &path, Some(patch.clone()));
        assert_eq!(answer.status, 200, "{answer:?}");
        let held = stored.entity(ty, collection, id).unwrap();
        assert_eq!(held.fields.get("name"), Some(&Value::Null), "{path}");
    }
    // A caller that names the merge patch (the app model, where its
    // evidence fits one) gets it on both routes: `null` removes.
    let merging = |world: &mut World, path: &str| {
        let call = Call {
            method: "PATCH".into(),
            path: path.into(),
            query: None,
            headers: Vec::new(),
            body: Some(patch.clone()),
        };
        engine.answer_with(world, &Request::Http(call), &mut Fixed(0), &|_| {
            crate::engine::PatchMeaning::MergePatch
        })
    };
    let answer = merging(&mut world, "/api/things/t1");
    assert_eq!(answer.status, 200, "{answer:?}");
    let held = world.entity("things", "/api/things", "t1").unwrap();
    assert_eq!(held.fields.get("paid"), Some(&json!(true)));
    assert!(!held.fields.contains_key("name"));
    let held = held.clone();
    let own = merging(&mut world, "/api/items/i1");
    assert_eq!(own.status, 200, "{own:?}");
    let item = world.entity("items", "/api/items", "i1").unwrap();
    assert!(!item.fields.contains_key("name"));
    assert_eq!(
        held.fields.get("last_modified"),
        Some(&json!(1_800_000_000_000i64))
    );
    assert!(world.entity("items", "/api/things", "t1").is_none());
    // A body whose entity is not an object is refused and changes nothing.
    let before = world.clone();
    let answer = send(
        &engine,
        &mut world,
        "PATCH",
        "/api/things/t1",
        Some(json!({"data": [1]})),
    );
    assert_eq!(answer.status, 400);
    assert_eq!(world, before);
}

#[test]
fn not_found_answers_take_the_recorded_shape() {
    let engine = engine();
    let mut world = engine.initial_world();
    for line in ["/api/items/zz", "/api/things/zz"] {
        let answer = send(&engine, &mut world, "GET", line, None);
        assert_eq!(answer.status, 404);
        let AnswerBody::Json(body) = &answer.body else {
            panic!()
        };
        assert_eq!(
            body,
            &json!({"code": 404, "details": {"id": "zz"}}),
            "{line}"
        );
    }
    let answer = send(
        &engine,
        &mut world,
        "PATCH",
        "/api/things/zz",
        Some(json!({"data": {}})),
    );
    assert_eq!(answer.status, 404);
    let AnswerBody::Json(body) = &answer.body else {
        panic!()
    };
    assert_eq!(body["details"]["id"], "zz");
}
