//! Each state rule and reason on a small capture built in code, both sides
//! of each condition.

use crate::budget::Budget;
use crate::state::{environment_state, environment_state_budgeted, State, ViewPlan};
use crate::testkit::{evidence, har_entry};
use serde_json::{json, Value};

/// One JSON exchange starting `t` ms after a fixed instant, lasting 1 ms.
fn ex(method: &str, path: &str, status: i64, body: Value, t: u64) -> Value {
    ex_text(method, path, status, &body.to_string(), t)
}

fn ex_text(method: &str, path: &str, status: i64, text: &str, t: u64) -> Value {
    let mut e = har_entry(
        method,
        &format!("http://app.example{path}"),
        status,
        "application/json",
    );
    let start = chrono::DateTime::from_timestamp_millis(1_767_225_600_000 + t as i64).unwrap();
    e["startedDateTime"] = json!(start.to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
    e["time"] = json!(1.0);
    e["response"]["content"]["text"] = json!(text);
    e["response"]["content"]["size"] = json!(text.len());
    e
}

fn state(entries: Vec<Value>) -> State {
    environment_state(&evidence(entries), &[]).expect("state")
}

fn view<'a>(s: &'a State, tool: &str) -> &'a ViewPlan {
    s.views
        .iter()
        .find(|v| v.tool() == tool)
        .unwrap_or_else(|| panic!("no view {tool}: {:#?}", s.views))
}

fn reason(s: &State, tool: &str) -> Option<String> {
    match view(s, tool) {
        ViewPlan::Recorded(r) => Some(r.reason.to_string()),
        _ => None,
    }
}

fn items(n: u64) -> Value {
    Value::Array(
        (1..=n)
            .map(|i| json!({"id": i, "name": format!("n{i}")}))
            .collect(),
    )
}

#[test]
fn state_01_02_entities_and_documents() {
    let s = state(vec![
        ex("GET", "/api/items", 200, items(2), 0),
        ex("GET", "/api/settings", 200, json!({"theme": "dark"}), 10),
    ]);
    assert_eq!(s.view, "environment-state");
    assert_eq!(s.types.len(), 1);
    assert_eq!(s.types[0].name, "items");
    assert_eq!(s.entities.len(), 2);
    assert_eq!(s.documents.len(), 1);
    assert_eq!(s.documents[0].path, "/api/settings");
    assert_eq!(s.documents[0].value, json!({"theme": "dark"}));
    assert!(matches!(view(&s, "get_items"), ViewPlan::List(_)));
    assert!(matches!(view(&s, "get_settings"), ViewPlan::Document(_)));
}

#[test]
fn state_03_30_one_plan_per_read_tool_in_manifest_order() {
    let ev = evidence(vec![
        ex("GET", "/api/items", 200, items(2), 0),
        ex(
            "GET",
            "/api/items/1",
            200,
            json!({"id": 1, "name": "n1"}),
            10,
        ),
        ex("GET", "/api/settings", 200, json!({}), 20),
        ex("POST", "/api/items", 201, json!({"id": 3}), 30),
        ex("HEAD", "/api/items", 200, json!({}), 40),
    ]);
    let manifest = crate::manifest::environment_manifest(&ev, &[], true).unwrap();
    let s = environment_state(&ev, &[]).unwrap();
    let read_tools: Vec<&str> = manifest
        .tools
        .iter()
        .filter(|t| t.method != "POST")
        .map(|t| t.name.as_str())
        .collect();
    let planned: Vec<&str> = s.views.iter().map(ViewPlan::tool).collect();
    assert_eq!(planned, read_tools);
    assert_eq!(reason(&s, "head_items").as_deref(), Some("body-unusable"));
}

#[test]
fn state_04_timeline_falls_back_to_record_order() {
    let a = ex("GET", "/api/items", 200, items(1), 50);
    let b = ex("GET", "/api/settings", 200, json!({}), 10);
    let s = state(vec![a.clone(), b.clone()]);
    assert_eq!(s.timeline, vec![1, 0]);
    assert_eq!(s.timeline_order, "start-time");
    let mut b2 = b;
    b2.as_object_mut().unwrap().remove("startedDateTime");
    let s = state(vec![a, b2]);
    assert_eq!(s.timeline, vec![0, 1]);
    assert_eq!(s.timeline_order, "record-order");
}

#[test]
fn state_05_07_initial_reads_end_at_the_first_write() {
    let s = state(vec![
        ex("GET", "/api/items", 200, items(2), 0),
        ex(
            "POST",
            "/api/items",
            201,
            json!({"id": 3, "name": "n3"}),
            10,
        ),
        ex("GET", "/api/items", 200, items(3), 20),
    ]);
    assert_eq!(s.entities.len(), 2);
    assert_eq!(s.state_writes.len(), 1);
    let ViewPlan::List(p) = view(&s, "get_items") else {
        panic!()
    };
    assert_eq!(p.checked_record_ordinals, vec![0]);
    // A 422 is not a write: the later read is initial too (and is the latest of its line).
    let s = state(vec![
        ex("GET", "/api/items", 200, items(2), 0),
        ex("POST", "/api/items", 422, json!({"error": "bad"}), 10),
        ex("GET", "/api/items", 200, items(2), 20),
    ]);
    assert!(s.state_writes.is_empty());
    let ViewPlan::List(p) = view(&s, "get_items") else {
        panic!()
    };
    assert_eq!(p.checked_record_ordinals, vec![2]);
}

#[test]
fn state_06_42_query_post_is_not_a_write() {
    let s = state(vec![
        ex("GET", "/api/items", 200, items(2), 0),
        ex("POST", "/api/items/search", 200, items(1), 10),
        ex("GET", "/api/items", 200, items(2), 20),
    ]);
    assert!(s.state_writes.is_empty());
    assert_eq!(
        reason(&s, "post_items_search").as_deref(),
        Some("query-body")
    );
}

#[test]
fn state_08_a_write_ends_only_its_root() {
    let books = json!([{"id": 1, "t": "a"}, {"id": 2, "t": "b"}]);
    let s = state(vec![
        ex("GET", "/api/v1/books", 200, books.clone(), 0),
        ex("POST", "/api/v1/books", 201, json!({"id": 3}), 10),
        ex("GET", "/api/v1/authors", 200, items(2), 20),
        ex("GET", "/api/v1/books", 200, books, 30),
    ]);
    let authors = s
        .types
        .iter()
        .find(|t| t.name == "authors")
        .expect("authors type");
    assert_eq!(authors.root, "/api/v1/authors");
    assert_eq!(
        s.entities
            .iter()
            .filter(|e| e.type_name == "authors")
            .count(),
        2
    );
    let ViewPlan::List(p) = view(&s, "get_books") else {
        panic!()
    };
    assert_eq!(p.checked_record_ordinals, vec![0]);
}

#[test]
fn state_09_overlapping_reads_are_left_out() {
    let mut long = ex("GET", "/api/items", 200, items(2), 0);
    long["time"] = json!(50.0);
    let s = state(vec![
        long.clone(),
        ex("POST", "/api/items", 201, json!({"id": 3}), 10),
    ]);
    assert_eq!(
        reason(&s, "get_items").as_deref(),
        Some("no-init-recording")
    );
    long["time"] = json!(5.0);
    let s = state(vec![
        long,
        ex("POST", "/api/items", 201, json!({"id": 3}), 10),
    ]);
    assert!(matches!(view(&s, "get_items"), ViewPlan::List(_)));
}

#[test]
fn state_10_a_redacted_write_url_ends_every_type() {
    let mut w = ex("POST", "/api/other", 201, json!({}), 10);
    w["request"]["url"] = Value::Null;
    let s = state(vec![
        ex("GET", "/api/settings", 200, json!({"a": 1}), 0),
        w,
        ex("GET", "/api/items", 200, items(2), 20),
    ]);
    assert_eq!(
        reason(&s, "get_items").as_deref(),
        Some("no-init-recording")
    );
    assert!(matches!(view(&s, "get_settings"), ViewPlan::Document(_)));
    assert!(
        s.limitations
            .iter()
            .any(|l| l.starts_with("1 state-changing")),
        "{:?}",
        s.limitations
    );
}

#[test]
fn state_12_13_14_item_tools_and_trailing_slashes() {
    let s = state(vec![
        ex("GET", "/api/items/", 200, items(2), 0),
        ex(
            "GET",
            "/api/items/7",
            200,
            json!({"id": 7, "name": "x"}),
            10,
        ),
    ]);
    let t = &s.types[0];
    assert_eq!(t.collection_template, "/api/items");
    assert_eq!(t.id_field, "id");
    assert_eq!(t.id_basis, "path-parameter");
    let ViewPlan::Item(p) = view(&s, "get_items_by_id") else {
        panic!("{:#?}", s.views)
    };
    assert_eq!(p.pointer, "");
    // One collection for `/api/items/` and `/api/items/7`'s parent.
    let collections: Vec<&str> = s.entities.iter().map(|e| e.collection.as_str()).collect();
    assert!(
        collections.iter().all(|c| *c == "/api/items"),
        "{collections:?}"
    );
    assert_eq!(s.entities.len(), 3);
}

#[test]
fn state_15_16_45_entity_pointers_and_no_identity() {
    let s = state(vec![ex(
        "GET",
        "/api/items/7",
        200,
        json!({"data": {"id": 7}, "meta": {}}),
        0,
    )]);
    let ViewPlan::Item(p) = view(&s, "get_items_by_id") else {
        panic!()
    };
    assert_eq!(p.pointer, "/data");
    let s = state(vec![ex(
        "GET",
        "/api/posts/7",
        200,
        json!({"posts": [{"id": 7}]}),
        0,
    )]);
    let ViewPlan::Item(p) = view(&s, "get_posts_by_id") else {
        panic!()
    };
    assert_eq!(p.pointer, "/posts/0");
    let s = state(vec![ex(
        "GET",
        "/api/posts/7",
        200,
        json!({"data": [{"postId": 7}]}),
        0,
    )]);
    assert_eq!(
        reason(&s, "get_posts_by_id").as_deref(),
        Some("no-identity")
    );
    let s = state(vec![ex(
        "GET",
        "/api/items/7",
        200,
        json!({"name": "x"}),
        0,
    )]);
    assert_eq!(
        reason(&s, "get_items_by_id").as_deref(),
        Some("no-identity")
    );
}

#[test]
fn state_17_18_19_20_field_name_identity() {
    let s = state(vec![ex(
        "GET",
        "/api/tags",
        200,
        json!([{"slug": "a", "name": "A"}, {"slug": "b", "name": "B"}]),
        0,
    )]);
    assert_eq!(s.types[0].id_field, "slug");
    assert_eq!(s.types[0].id_basis, "field-name");
    let s = state(vec![ex(
        "GET",
        "/api/users",
        200,
        json!([{"orgId": 1, "user_id": 5}, {"orgId": 1, "user_id": 6}]),
        0,
    )]);
    assert_eq!(s.types[0].id_field, "user_id");
    let s = state(vec![ex(
        "GET",
        "/api/members",
        200,
        json!([{"user_id": 5}]),
        0,
    )]);
    assert!(s.types.is_empty());
    assert!(matches!(view(&s, "get_members"), ViewPlan::Document(_)));
    let s = state(vec![
        ex("GET", "/api/items", 200, json!([]), 0),
        ex("GET", "/api/items?page=2", 200, items(2), 10),
    ]);
    assert_eq!(s.types[0].id_field, "id");
}

#[test]
fn state_21_list_inside_an_envelope() {
    let s = state(vec![ex(
        "GET",
        "/api/items",
        200,
        json!({"items": [{"id": 1}, {"id": 2}], "tags": [{"t": "a"}]}),
        0,
    )]);
    let ViewPlan::List(p) = view(&s, "get_items") else {
        panic!()
    };
    assert_eq!(p.pointer, "/items");
}

#[test]
fn state_22_23_item_wins_list_keeps_view_fields() {
    let s = state(vec![
        ex(
            "GET",
            "/api/posts",
            200,
            json!([{"id": 1, "title": "Hello…"}, {"id": 2, "title": "B"}]),
            0,
        ),
        ex(
            "GET",
            "/api/posts/1",
            200,
            json!({"id": 1, "title": "Hello world"}),
            10,
        ),
    ]);
    let e = &s.entities[0];
    assert_eq!(e.fields["title"], "Hello world");
    assert_eq!(e.view_fields["get_posts"]["title"], "Hello…");
    // The list view still reproduces its recording from its own values.
    assert!(
        matches!(view(&s, "get_posts"), ViewPlan::List(_)),
        "{:#?}",
        s.views
    );
}

#[test]
fn state_24_volatile_fields() {
    let s = state(vec![
        ex(
            "GET",
            "/api/items/1",
            200,
            json!({"id": 1, "last_seen": 1}),
            0,
        ),
        ex(
            "GET",
            "/api/items/1",
            200,
            json!({"id": 1, "last_seen": 2}),
            10,
        ),
    ]);
    assert_eq!(s.types[0].volatile_fields, vec!["last_seen"]);
    assert_eq!(s.entities[0].fields["last_seen"], 2);
    assert!(matches!(view(&s, "get_items_by_id"), ViewPlan::Item(_)));
}

#[test]
fn state_25_change_across_a_write_under_another_root() {
    let s = state(vec![
        ex(
            "GET",
            "/api/items",
            200,
            json!([{"id": 1, "n": 1}, {"id": 2, "n": 1}]),
            0,
        ),
        ex("POST", "/api/audit", 201, json!({}), 10),
        ex(
            "GET",
            "/api/items",
            200,
            json!([{"id": 1, "n": 2}, {"id": 2, "n": 1}]),
            20,
        ),
    ]);
    assert_eq!(reason(&s, "get_items").as_deref(), Some("fields-differ"));
    let s = state(vec![
        ex(
            "GET",
            "/api/items",
            200,
            json!([{"id": 1, "n": 1}, {"id": 2, "n": 1}]),
            0,
        ),
        ex("POST", "/api/audit", 201, json!({}), 10),
        ex(
            "GET",
            "/api/items",
            200,
            json!([{"id": 1, "n": 1}, {"id": 2, "n": 1}]),
            20,
        ),
    ]);
    assert!(matches!(view(&s, "get_items"), ViewPlan::List(_)));
}

#[test]
fn state_26_27_membership_changes_across_a_write() {
    let s = state(vec![
        ex("GET", "/api/items", 200, json!([]), 0),
        ex("POST", "/api/imports", 201, json!({}), 10),
        ex("GET", "/api/items", 200, json!([{"id": 1}]), 20),
    ]);
    assert_eq!(reason(&s, "get_items").as_deref(), Some("list-differs"));
    // Different query strings are different request lines.
    let s = state(vec![
        ex(
            "GET",
            "/api/items?page=1",
            200,
            json!([{"id": 1}, {"id": 2}]),
            0,
        ),
        ex("POST", "/api/imports", 201, json!({}), 10),
        ex(
            "GET",
            "/api/items?page=2",
            200,
            json!([{"id": 3}, {"id": 4}]),
            20,
        ),
    ]);
    assert!(
        matches!(view(&s, "get_items"), ViewPlan::List(_)),
        "{:#?}",
        s.views
    );
}

#[test]
fn state_28_sparse_lines_keep_fields() {
    let s = state(vec![
        ex(
            "GET",
            "/api/items",
            200,
            json!([{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]),
            0,
        ),
        ex(
            "GET",
            "/api/items?fields=id",
            200,
            json!([{"id": 1}, {"id": 2}]),
            10,
        ),
    ]);
    assert_eq!(s.entities[0].fields["name"], "a");
}

#[test]
fn state_29_first_sighting_order() {
    let s = state(vec![
        ex("GET", "/api/items/2", 200, json!({"id": 2}), 0),
        ex("GET", "/api/items/1", 200, json!({"id": 1}), 10),
    ]);
    let ids: Vec<&Value> = s.entities.iter().map(|e| &e.id).collect();
    assert_eq!(ids, vec![&json!(2), &json!(1)]);
    assert_eq!(s.entities[0].record_ordinals, vec![0]);
    assert_eq!(s.entities[1].record_ordinals, vec![1]);
}

#[test]
fn state_31_item_plan_fields_and_envelope() {
    let s = state(vec![
        ex(
            "GET",
            "/api/items/7",
            200,
            json!({"data": {"id": 7, "name": "x"}, "meta": {}}),
            0,
        ),
        ex(
            "GET",
            "/api/items/8",
            200,
            json!({"data": {"id": 8}, "meta": {}}),
            10,
        ),
    ]);
    let ViewPlan::Item(p) = view(&s, "get_items_by_id") else {
        panic!("{:#?}", s.views)
    };
    assert_eq!(p.pointer, "/data");
    assert_eq!(p.fields, vec!["id", "name"]);
    assert_eq!(p.required_fields, vec!["id"]);
    assert_eq!(p.envelope_ordinal, 1);
    assert_eq!(p.checked_record_ordinals, vec![0, 1]);
    let s = state(vec![
        ex(
            "GET",
            "/api/items/7",
            200,
            json!({"data": {"id": 7}, "meta": {"a": 1}}),
            0,
        ),
        ex(
            "GET",
            "/api/items/8",
            200,
            json!({"data": {"id": 8}, "meta": {"a": 2}}),
            10,
        ),
    ]);
    assert_eq!(
        reason(&s, "get_items_by_id").as_deref(),
        Some("envelope-varies")
    );
}

fn membership(s: &State) -> String {
    match view(s, "get_items") {
        ViewPlan::List(p) => p.membership.to_string(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn state_32_33_34_35_36_membership_and_counters() {
    let s = state(vec![ex(
        "GET",
        "/api/items",
        200,
        json!({"items": items(3), "count": 3}),
        0,
    )]);
    let ViewPlan::List(p) = view(&s, "get_items") else {
        panic!()
    };
    assert_eq!(p.pointer, "/items");
    assert_eq!(p.counters, vec!["/count"]);
    assert_eq!(p.membership, "all");
    // A recording missing one entity.
    let s = state(vec![
        ex("GET", "/api/items", 200, items(3), 0),
        ex("GET", "/api/items?page=2", 200, items(2), 10),
    ]);
    assert_eq!(membership(&s), "recorded");
    // Paging parameters may be `all`; a filter may not.
    let s = state(vec![ex(
        "GET",
        "/api/items?page=1&limit=20",
        200,
        items(3),
        0,
    )]);
    assert_eq!(membership(&s), "all");
    let s = state(vec![ex("GET", "/api/items?status=open", 200, items(3), 0)]);
    assert_eq!(membership(&s), "recorded");
    // Item totals.
    let s = state(vec![ex(
        "GET",
        "/api/items",
        200,
        json!({"items": items(3), "total": "10"}),
        0,
    )]);
    assert_eq!(membership(&s), "recorded");
    let s = state(vec![ex(
        "GET",
        "/api/items",
        200,
        json!({"items": items(3), "total_pages": 5}),
        0,
    )]);
    assert_eq!(membership(&s), "all");
    // Next-page markers.
    let s = state(vec![ex(
        "GET",
        "/api/items",
        200,
        json!({"items": items(3), "has_more": true}),
        0,
    )]);
    assert_eq!(membership(&s), "recorded");
    let s = state(vec![ex(
        "GET",
        "/api/items",
        200,
        json!({"items": items(3), "has_more": false, "next": null}),
        0,
    )]);
    assert_eq!(membership(&s), "all");
    let s = state(vec![ex(
        "GET",
        "/api/items",
        200,
        json!({"items": items(3), "nextPageToken": "abc"}),
        0,
    )]);
    assert_eq!(membership(&s), "recorded");
}

#[test]
fn state_37_38_documents_speak_for_their_path() {
    let s = state(vec![ex(
        "GET",
        "/api/settings",
        200,
        json!({"theme": "dark"}),
        0,
    )]);
    let ViewPlan::Document(p) = view(&s, "get_settings") else {
        panic!()
    };
    assert_eq!(p.path, "/api/settings");
    let s = state(vec![
        ex("GET", "/api/settings", 200, json!({"theme": "dark"}), 0),
        ex("POST", "/api/other", 201, json!({}), 10),
        ex("GET", "/api/settings", 200, json!({"theme": "light"}), 20),
    ]);
    assert_eq!(reason(&s, "get_settings").as_deref(), Some("fields-differ"));
    let s = state(vec![
        ex("GET", "/api/settings", 200, json!({"theme": "dark"}), 0),
        ex("GET", "/api/settings", 200, json!({"theme": "light"}), 20),
    ]);
    assert_eq!(s.documents[0].value, json!({"theme": "light"}));
}

#[test]
fn state_40_reproduction_ignores_member_order() {
    let s = state(vec![
        ex(
            "GET",
            "/api/items",
            200,
            json!([{"id": 1, "a": 1, "b": 2}, {"id": 2, "a": 1, "b": 2}]),
            0,
        ),
        ex(
            "GET",
            "/api/items/1",
            200,
            json!({"b": 2, "id": 1, "a": 1}),
            10,
        ),
    ]);
    assert!(matches!(view(&s, "get_items"), ViewPlan::List(_)));
    let ViewPlan::Item(p) = view(&s, "get_items_by_id") else {
        panic!()
    };
    assert_eq!(p.checked_record_ordinals, vec![1]);
}

#[test]
fn state_41_list_that_cannot_be_reproduced() {
    // A sparse line shows fewer fields than the state renders.
    let s = state(vec![
        ex(
            "GET",
            "/api/items",
            200,
            json!([{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]),
            0,
        ),
        ex(
            "GET",
            "/api/items?fields=id",
            200,
            json!([{"id": 1}, {"id": 2}]),
            10,
        ),
    ]);
    assert_eq!(
        reason(&s, "get_items").as_deref(),
        Some("list-differs"),
        "{:#?}",
        s.views
    );
    // A value that changed between two lines with no write between is volatile instead.
    let s = state(vec![
        ex(
            "GET",
            "/api/items?x=1",
            200,
            json!([{"id": 1, "v": "old"}, {"id": 2, "v": "b"}]),
            0,
        ),
        ex(
            "GET",
            "/api/items?x=2",
            200,
            json!([{"id": 1, "v": "new"}, {"id": 2, "v": "b"}]),
            10,
        ),
    ]);
    assert!(matches!(view(&s, "get_items"), ViewPlan::List(_)));
    assert_eq!(s.types[0].volatile_fields, vec!["v"]);
}

#[test]
fn state_43_44_no_init_recording_and_unusable_bodies() {
    let s = state(vec![ex(
        "GET",
        "/api/items/1",
        404,
        json!({"error": "nf"}),
        0,
    )]);
    assert_eq!(
        reason(&s, "get_items_by_id").as_deref(),
        Some("no-init-recording")
    );
    let mut html = ex_text("GET", "/api/page", 200, "<html></html>", 0);
    html["response"]["content"]["mimeType"] = json!("text/html");
    let s = state(vec![html, ex("GET", "/api/items", 200, items(2), 10)]);
    assert_eq!(reason(&s, "get_page").as_deref(), Some("body-unusable"));
    let s = state(vec![ex_text(
        "GET",
        "/api/items",
        200,
        r#"[{"id":1,"n":9007199254740993},{"id":2}]"#,
        0,
    )]);
    assert_eq!(reason(&s, "get_items").as_deref(), Some("body-unusable"));
}

#[test]
fn state_46_47_path_and_query_variance() {
    let s = state(vec![
        ex("GET", "/api/items/1/meta", 200, json!({"a": 1}), 0),
        ex("GET", "/api/items/2/meta", 200, json!({"a": 2}), 10),
    ]);
    assert_eq!(
        reason(&s, "get_items_meta_by_id").as_deref(),
        Some("path-varies"),
        "{:#?}",
        s.views
    );
    let s = state(vec![
        ex("GET", "/api/settings?lang=en", 200, json!({"a": 1}), 0),
        ex("GET", "/api/settings?lang=fr", 200, json!({"a": 2}), 10),
    ]);
    assert_eq!(reason(&s, "get_settings").as_deref(), Some("query-varies"));
}

#[test]
fn state_48_rendered_oversize() {
    // `1e2` renders as `100.0`: a body under 256 KiB renders over it.
    let n = 60_000;
    let text = format!("{{\"v\":[{}]}}", vec!["1e2"; n].join(","));
    assert!(text.len() <= 256 * 1024);
    let s = state(vec![ex_text("GET", "/api/settings", 200, &text, 0)]);
    assert_eq!(
        reason(&s, "get_settings").as_deref(),
        Some("rendered-oversize")
    );
    let small = format!("{{\"v\":[{}]}}", ["1e2"; 10].join(","));
    let s = state(vec![ex_text("GET", "/api/settings", 200, &small, 0)]);
    assert!(matches!(view(&s, "get_settings"), ViewPlan::Document(_)));
}

#[test]
fn state_53_55_56_refusals_basis_unknowns() {
    let mut ev = evidence(vec![ex("GET", "/api/items", 200, items(2), 0)]);
    let s = environment_state(&ev, &[]).unwrap();
    assert_eq!(s.basis, "inferred");
    assert_eq!(s.unknowns.len(), 3);
    assert!(s.unknowns[0].contains("authorization"));
    assert!(s.unknowns[1].contains("computes responses"));
    assert!(s.unknowns[2].contains("Write effects"));
    ev["parameters"]["sensitive_value_count"] = json!(1);
    let e = environment_state(&ev, &[]).unwrap_err().to_report();
    assert_eq!(e.details["reason"], "sensitive_values_unretained");
    ev["parameters"]["sensitive_value_count"] = json!(0);
    ev["capture"]["format"] = json!("saz");
    let e = environment_state(&ev, &[]).unwrap_err().to_report();
    assert_eq!(e.category, rea_core::Category::Unsupported);
}

#[test]
fn state_57_budget() {
    let ev = evidence(vec![ex("GET", "/api/items", 200, items(50), 0)]);
    let e = environment_state_budgeted(&ev, &[], &mut Budget::new(4_000))
        .unwrap_err()
        .to_report();
    assert_eq!(e.code, "resource_constraint");
    assert!(environment_state_budgeted(&ev, &[], &mut Budget::new(10_000_000)).is_ok());
}

#[test]
fn write_clock_is_the_next_second_after_the_last_record() {
    let s = state(vec![ex("GET", "/api/items", 200, items(1), 1_500)]);
    assert_eq!(s.write_clock, Some(1_767_225_602_000));
}
