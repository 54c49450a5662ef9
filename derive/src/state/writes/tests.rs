//! Scenario tests of the write side: small captures built in code, run
//! through plan building and the replay check.

use super::testkit::{ex, Scenario};
use serde_json::{json, Value};

fn items() -> Vec<Value> {
    vec![
        json!({"id": 1, "title": "a", "done": false}),
        json!({"id": 2, "title": "b", "done": false}),
    ]
}

fn list(items: &[Value]) -> Value {
    Value::Array(items.to_vec())
}

/// Reads the initial items; create, update and delete, each shown by a later read.
fn happy() -> Scenario {
    let created = json!({"id": 3, "title": "Hello World", "done": false, "slug": "hello-world", "created_at": "2024-05-01T12:00:02Z"});
    let mut after_create = items();
    after_create.push(created.clone());
    Scenario::new(
        &[
            ex("GET", "/api/items", 200).answer(list(&items())),
            ex("GET", "/api/items/1", 200).answer(items()[0].clone()),
            ex("POST", "/api/items", 201)
                .body(json!({"title": "Hello World", "done": false}))
                .answer(created.clone()),
            ex("GET", "/api/items", 200).answer(list(&after_create)),
            ex("PATCH", "/api/items/1", 200)
                .body(json!({"title": "B"}))
                .answer(json!({"id": 1, "title": "B", "done": false})),
            ex("GET", "/api/items/1", 200).answer(json!({"id": 1, "title": "B", "done": false})),
            ex("DELETE", "/api/items/2", 204),
            ex("GET", "/api/items/2", 404).answer(json!({"error": "not found"})),
        ],
        &items(),
        None,
    )
}

#[test]
fn writes_are_one_plan_per_write_tool_in_tool_order() {
    // WRITE-01
    let plans = happy().plans();
    let tools: Vec<&str> = plans.iter().map(|p| p.tool.as_str()).collect();
    assert_eq!(
        tools,
        [
            "create_item",
            "update_item",
            "replace_item",
            "delete_item",
            "put_settings",
            "logout"
        ]
    );
}

#[test]
fn confirmed_writes_are_served() {
    // CHECK-01, CHECK-05, CHECK-06, CHECK-07, CHECK-10, CHECK-14, WRITE-02..04
    let s = happy();
    let create = s.plan("create_item");
    assert_eq!(
        (
            create.effect.as_str(),
            create.status.as_str(),
            create.reason.map(|r| r.as_str())
        ),
        ("create", "served", None)
    );
    assert_eq!(create.checked_record_ordinals, vec![3]);
    assert_eq!(create.example_ordinal, Some(2));
    let rules: Vec<(&str, &str)> = create
        .field_rules
        .iter()
        .map(|r| (r.field.as_str(), r.rule.name()))
        .collect();
    assert_eq!(
        rules,
        [
            ("id", "identity"),
            ("title", "echo"),
            ("done", "echo"),
            ("slug", "slug"),
            ("created_at", "clock")
        ]
    );
    assert_eq!(create.required_members, ["title", "done"]);
    let update = s.plan("update_item");
    assert_eq!(
        (update.effect.as_str(), update.status.as_str()),
        ("update", "served")
    );
    assert_eq!(update.checked_record_ordinals, vec![5]);
    // WRITE-24: a PATCH requires nothing.
    assert!(update.required_members.is_empty());
    let delete = s.plan("delete_item");
    assert_eq!(
        (delete.effect.as_str(), delete.status.as_str()),
        ("delete", "served")
    );
    assert_eq!(delete.checked_record_ordinals, vec![7]);
}

#[test]
fn build_reasons() {
    let s = happy();
    // WRITE-06
    let logout = s.plan("logout");
    assert_eq!(
        (logout.effect.as_str(), logout.reason.map(|r| r.as_str())),
        ("none", Some("no-state-target"))
    );
    // WRITE-07: no successful call at all.
    let put = s.plan("replace_item");
    assert_eq!(put.reason.map(|r| r.as_str()), Some("no-call"));
    // WRITE-05 without a call.
    let s = Scenario::new(
        &[ex("GET", "/api/settings", 200).answer(json!({"theme": "dark"}))],
        &items(),
        Some(json!({"theme": "dark"})),
    );
    let doc = s.plan("put_settings");
    assert_eq!(
        (doc.effect.as_str(), doc.reason.map(|r| r.as_str())),
        ("document", Some("no-call"))
    );
    // WRITE-07: only a redirect recorded.
    let s = Scenario::new(
        &[
            ex("GET", "/api/items", 200).answer(list(&items())),
            ex("POST", "/api/items", 302).body(json!({"title": "x"})),
        ],
        &items(),
        None,
    );
    assert_eq!(
        s.plan("create_item").reason.map(|r| r.as_str()),
        Some("no-call")
    );
    // WRITE-08: a form-encoded body.
    let s = Scenario::new(
        &[
            ex("GET", "/api/items", 200).answer(list(&items())),
            ex("POST", "/api/items", 201)
                .raw_body("application/x-www-form-urlencoded", "title=x")
                .answer(json!({"id": 3, "title": "x"})),
        ],
        &items(),
        None,
    );
    assert_eq!(
        s.plan("create_item").reason.map(|r| r.as_str()),
        Some("body-unusable")
    );
    // WRITE-09: 201 with an empty body and no later read.
    let s = Scenario::new(
        &[
            ex("GET", "/api/items", 200).answer(list(&items())),
            ex("POST", "/api/items", 201).body(json!({"title": "x"})),
        ],
        &items(),
        None,
    );
    assert_eq!(
        s.plan("create_item").reason.map(|r| r.as_str()),
        Some("no-observation")
    );
}

#[test]
fn a_later_read_before_the_next_write_observes_a_create() {
    // WRITE-09, other side: the empty 201 is followed by a list read.
    let mut after = items();
    after.push(json!({"id": 3, "title": "xyz", "done": false}));
    let s = Scenario::new(
        &[
            ex("GET", "/api/items", 200).answer(list(&items())),
            ex("POST", "/api/items", 201).body(json!({"title": "xyz", "done": false})),
            ex("GET", "/api/items", 200).answer(list(&after)),
        ],
        &items(),
        None,
    );
    let plan = s.plan("create_item");
    assert_eq!(plan.reason, None, "{plan:?}");
    assert_eq!(plan.status, "served");
}

#[test]
fn unsent_changes_must_be_explained() {
    // WRITE-22
    let items = vec![json!({"id": 1, "title": "a", "score": 3})];
    let s = Scenario::new(
        &[
            ex("GET", "/api/items", 200).answer(list(&items)),
            ex("PATCH", "/api/items/1", 200)
                .body(json!({"title": "B"}))
                .answer(json!({"id": 1, "title": "B", "score": 17})),
        ],
        &items,
        None,
    );
    assert_eq!(
        s.plan("update_item").reason.map(|r| r.as_str()),
        Some("unexplained-change")
    );
}

#[test]
fn contradicted_plans_name_the_reads() {
    // CHECK-12, CHECK-11
    let s = Scenario::new(
        &[
            ex("GET", "/api/items", 200).answer(list(&items())),
            ex("GET", "/api/items/1", 200).answer(items()[0].clone()),
            ex("PATCH", "/api/items/1", 200)
                .body(json!({"title": "B"}))
                .answer(json!({"id": 1, "title": "B", "done": false})),
            ex("GET", "/api/items/1", 200).answer(json!({"id": 1, "title": "B", "done": false})),
            ex("PATCH", "/api/items/1", 200)
                .body(json!({"title": "C"}))
                .answer(json!({"id": 1, "title": "C", "done": false})),
            ex("GET", "/api/items/1", 200)
                .answer(json!({"id": 1, "title": "c (normalized)", "done": false})),
        ],
        &items(),
        None,
    );
    let plan = s.plan("update_item");
    assert_eq!(plan.status, "unserved");
    assert_eq!(plan.reason.map(|r| r.as_str()), Some("contradicted"));
    assert_eq!(plan.contradicted_by, vec![5]);
    assert_eq!(plan.checked_record_ordinals, vec![3]);
}

#[test]
fn unconfirmed_without_a_later_read() {
    // CHECK-11: a create never followed by a read.
    let s = Scenario::new(
        &[
            ex("GET", "/api/items", 200).answer(list(&items())),
            ex("POST", "/api/items", 201)
                .body(json!({"title": "x"}))
                .answer(json!({"id": 3, "title": "x"})),
        ],
        &items(),
        None,
    );
    let plan = s.plan("create_item");
    assert_eq!(
        (plan.status.as_str(), plan.reason.map(|r| r.as_str())),
        ("unserved", Some("unconfirmed"))
    );
}

#[test]
fn non_2xx_writes_are_not_modelled() {
    // CHECK-02, CHECK-03: a PATCH answered 302 is not modelled; the item it
    // wrote is unknown until the next read of it, which is then not held
    // against the plan.
    let s = Scenario::new(
        &[
            ex("GET", "/api/items", 200).answer(list(&items())),
            ex("GET", "/api/items/1", 200).answer(items()[0].clone()),
            ex("PATCH", "/api/items/1", 200)
                .body(json!({"title": "B"}))
                .answer(json!({"id": 1, "title": "B", "done": false})),
            ex("GET", "/api/items/1", 200).answer(json!({"id": 1, "title": "B", "done": false})),
            ex("PATCH", "/api/items/1", 302).body(json!({"title": "Q"})),
            ex("GET", "/api/items/1", 200).answer(json!({"id": 1, "title": "Q", "done": true})),
        ],
        &items(),
        None,
    );
    let plan = s.plan("update_item");
    assert_eq!(plan.example_ordinal, Some(2));
    assert_eq!(
        (plan.status.as_str(), plan.reason.map(|r| r.as_str())),
        ("served", None),
        "{plan:?}"
    );
}

#[test]
fn a_later_unmodelled_write_limits_the_check_to_sent_members() {
    // CHECK-08, CHECK-04: modelled PATCH of title, then an unanswered write
    // below item 1, then a read differing only in `done`.
    let s = Scenario::new(
        &[
            ex("GET", "/api/items", 200).answer(list(&items())),
            ex("GET", "/api/items/1", 200).answer(items()[0].clone()),
            ex("PATCH", "/api/items/1", 200)
                .body(json!({"title": "B"}))
                .answer(json!({"id": 1, "title": "B", "done": false})),
            ex("POST", "/api/items/1/archive", 0),
            ex("GET", "/api/items/1", 200).answer(json!({"id": 1, "title": "B", "done": true})),
        ],
        &items(),
        None,
    );
    let plan = s.plan("update_item");
    assert_eq!(
        (plan.status.as_str(), plan.reason.map(|r| r.as_str())),
        ("served", None),
        "{plan:?}"
    );
    // The other side: the member it sent differs → contradicted.
    let s = Scenario::new(
        &[
            ex("GET", "/api/items", 200).answer(list(&items())),
            ex("GET", "/api/items/1", 200).answer(items()[0].clone()),
            ex("PATCH", "/api/items/1", 200)
                .body(json!({"title": "B"}))
                .answer(json!({"id": 1, "title": "B", "done": false})),
            ex("POST", "/api/items/1/archive", 0),
            ex("GET", "/api/items/1", 200).answer(json!({"id": 1, "title": "Z", "done": true})),
        ],
        &items(),
        None,
    );
    assert_eq!(
        s.plan("update_item").reason.map(|r| r.as_str()),
        Some("contradicted")
    );
}

#[test]
fn unmodelled_writes_taint_their_path_and_above() {
    // CHECK-04: an unmodelled `PUT /api/items/1/tags` taints `/api/items`
    // too, so the later list read is checked only on what the PATCH sent.
    let after = vec![
        json!({"id": 1, "title": "B", "done": true}),
        items()[1].clone(),
    ];
    let exchanges = |with_tags: bool| {
        let mut v = vec![
            ex("GET", "/api/items", 200).answer(list(&items())),
            ex("GET", "/api/items/1", 200).answer(items()[0].clone()),
            ex("PATCH", "/api/items/1", 200)
                .body(json!({"title": "B"}))
                .answer(json!({"id": 1, "title": "B", "done": false})),
        ];
        if with_tags {
            v.push(ex("PUT", "/api/items/1/tags", 200).body(json!({"tags": ["x"]})));
        }
        v.push(ex("GET", "/api/items", 200).answer(list(&after)));
        v
    };
    let s = Scenario::new(&exchanges(true), &items(), None);
    let plan = s.plan("update_item");
    assert_eq!(
        (plan.status.as_str(), plan.checked_record_ordinals.clone()),
        ("served", vec![4]),
        "{plan:?}"
    );
    // Without the unmodelled write the whole list is compared: `done`
    // differs on the PATCHed item, which contradicts the PATCH.
    let s = Scenario::new(&exchanges(false), &items(), None);
    let plan = s.plan("update_item");
    assert_eq!(
        (
            plan.reason.map(|r| r.as_str()),
            plan.contradicted_by.clone()
        ),
        (Some("contradicted"), vec![3])
    );
}

#[test]
fn mismatches_no_write_explains_are_side_effects() {
    // CHECK-09: the create is confirmed by its item read, but the list
    // read after it shows item 1 changed, which no write touched.
    let created = json!({"id": 3, "title": "x", "done": false});
    let mut after = vec![
        json!({"id": 1, "title": "a", "done": true}),
        items()[1].clone(),
    ];
    after.push(created.clone());
    let s = Scenario::new(
        &[
            ex("GET", "/api/items", 200).answer(list(&items())),
            ex("GET", "/api/items/1", 200).answer(items()[0].clone()),
            ex("POST", "/api/items", 201)
                .body(json!({"title": "x", "done": false}))
                .answer(created.clone()),
            ex("GET", "/api/items/3", 200).answer(created),
            ex("GET", "/api/items", 200).answer(list(&after)),
        ],
        &items(),
        None,
    );
    let plan = s.plan("create_item");
    assert_eq!(plan.checked_record_ordinals, vec![3], "{plan:?}");
    assert_eq!(plan.reason.map(|r| r.as_str()), Some("side-effect"));
}

#[test]
fn updates_answering_fields_no_initial_entity_holds_are_incomplete() {
    // CHECK-13
    let s = Scenario::new(
        &[
            ex("GET", "/api/items", 200).answer(list(&items())),
            ex("PATCH", "/api/items/1", 200)
                .body(json!({"title": "B"}))
                .answer(json!({"id": 1, "title": "B", "done": false, "owner": "ann"})),
            ex("GET", "/api/items/1", 200).answer(json!({"id": 1, "title": "B", "done": false})),
        ],
        &items(),
        None,
    );
    let plan = s.plan("update_item");
    assert_eq!(
        plan.reason.map(|r| r.as_str()),
        Some("incomplete-entities"),
        "{plan:?}"
    );
    // Other side: the initial entities hold `owner`.
    let held = vec![json!({"id": 1, "title": "a", "done": false, "owner": "ann"})];
    let s = Scenario::new(
        &[
            ex("GET", "/api/items", 200).answer(list(&held)),
            ex("PATCH", "/api/items/1", 200)
                .body(json!({"title": "B"}))
                .answer(json!({"id": 1, "title": "B", "done": false, "owner": "ann"})),
            ex("GET", "/api/items/1", 200)
                .answer(json!({"id": 1, "title": "B", "done": false, "owner": "ann"})),
        ],
        &held,
        None,
    );
    assert_eq!(s.plan("update_item").reason, None);
}

#[test]
fn put_requires_every_member_the_first_call_sent() {
    // WRITE-24, WRITE-21
    let s = Scenario::new(
        &[
            ex("GET", "/api/items", 200).answer(list(&items())),
            ex("PUT", "/api/items/1", 200)
                .body(json!({"title": "B", "done": "yes"}))
                .answer(json!({"id": 1, "title": "B", "done": true})),
            ex("GET", "/api/items/1", 200).answer(json!({"id": 1, "title": "B", "done": true})),
        ],
        &items(),
        None,
    );
    let plan = s.plan("replace_item");
    assert_eq!(plan.required_members, ["title", "done"]);
    assert_eq!(plan.body_fixed.len(), 1);
    assert_eq!(
        (
            plan.body_fixed[0].sent.clone(),
            plan.body_fixed[0].value.clone()
        ),
        (json!("yes"), json!(true))
    );
    assert_eq!(plan.status, "served", "{plan:?}");
}

#[test]
fn document_writes() {
    // WRITE-05: a PUT to a document's path, confirmed by the next read.
    let s = Scenario::new(
        &[
            ex("GET", "/api/settings", 200).answer(json!({"theme": "dark", "lang": "en"})),
            ex("PUT", "/api/settings", 200)
                .body(json!({"theme": "light"}))
                .answer(json!({"theme": "light", "lang": "en"})),
            ex("GET", "/api/settings", 200).answer(json!({"theme": "light", "lang": "en"})),
        ],
        &items(),
        Some(json!({"theme": "dark", "lang": "en"})),
    );
    let plan = s.plan("put_settings");
    assert_eq!(
        (plan.effect.as_str(), plan.document_path.as_deref()),
        ("document", Some("/api/settings"))
    );
    assert_eq!(plan.required_members, ["theme"]);
    assert_eq!(plan.status, "served", "{plan:?}");
}

mod apply {
    use super::super::testkit::{ex, Scenario, T0};
    use super::{happy, items, list};
    use crate::engine::{AnswerBody, Applied, Call, Engine, Generator, World};
    use serde_json::{json, Value};

    struct Fixed;
    impl Generator for Fixed {
        fn uuid(&mut self) -> String {
            "7d444840-9dc0-41d1-b245-5ffdce74fad2".into()
        }
        fn now_ms(&mut self) -> i64 {
            T0 + 60_000
        }
        fn token(&mut self, alphabet: &str, len: usize) -> String {
            alphabet.chars().cycle().take(len).collect()
        }
    }

    fn engine(s: &Scenario) -> Engine {
        let mut state = s.state.clone();
        state.writes = s.plans();
        Engine::from_records(s.records.clone(), s.manifest.clone(), state).expect("engine")
    }

    fn call(method: &str, path: &str, body: Option<Value>) -> Call {
        Call {
            method: method.into(),
            path: path.into(),
            query: None,
            headers: Vec::new(),
            body,
        }
    }

    fn json_of(body: &AnswerBody) -> Value {
        match body {
            AnswerBody::Json(v) => v.clone(),
            other => panic!("not JSON: {other:?}"),
        }
    }

    #[test]
    fn create_generates_and_echoes_per_the_plan() {
        let s = happy();
        let engine = engine(&s);
        let mut world = engine.initial_world();
        let answer = engine.call(
            &mut world,
            &call(
                "POST",
                "/api/items",
                Some(json!({"title": "New Item", "done": true})),
            ),
            &mut Fixed,
        );
        assert_eq!((answer.status, answer.applied), (201, Applied::Yes));
        let body = json_of(&answer.body);
        assert_eq!(
            body,
            json!({"id": 3, "title": "New Item", "done": true, "slug": "new-item", "created_at": "2024-05-01T12:01:00Z"})
        );
        assert_eq!(world.list("items", "/api/items").len(), 3);
        let read = engine.call(&mut world, &call("GET", "/api/items/3", None), &mut Fixed);
        assert_eq!(json_of(&read.body)["slug"], "new-item");
    }

    #[test]
    fn refusals_change_nothing() {
        let s = happy();
        let engine = engine(&s);
        let mut world = engine.initial_world();
        let before: World = world.clone();
        for (body, code) in [
            (None, "body_required"),
            (Some(json!([1, 2])), "body_not_object"),
            (Some(json!({"title": "x"})), "missing_required_members"),
        ] {
            let answer = engine.call(&mut world, &call("POST", "/api/items", body), &mut Fixed);
            assert_eq!(
                (answer.status, answer.error_code.as_deref(), answer.applied),
                (400, Some(code), Applied::No)
            );
            assert_eq!(world, before);
        }
        // An update of an entity the World does not hold answers not-found.
        let answer = engine.call(
            &mut world,
            &call("PATCH", "/api/items/99", Some(json!({"title": "x"}))),
            &mut Fixed,
        );
        assert_eq!(
            (answer.status, answer.error_code.as_deref()),
            (404, Some("not_found"))
        );
        assert_eq!(world, before);
        // A PATCH requires nothing; it stores members as sent.
        let answer = engine.call(
            &mut world,
            &call("PATCH", "/api/items/2", Some(json!({"done": true}))),
            &mut Fixed,
        );
        assert_eq!((answer.status, answer.applied), (200, Applied::Yes));
        assert_eq!(
            world.entity("items", "/api/items", "2").unwrap().fields["done"],
            json!(true)
        );
    }

    #[test]
    fn delete_removes_and_answers_the_recorded_status() {
        let s = happy();
        let engine = engine(&s);
        let mut world = engine.initial_world();
        let answer = engine.call(
            &mut world,
            &call("DELETE", "/api/items/1", None),
            &mut Fixed,
        );
        assert_eq!((answer.status, answer.applied), (204, Applied::Yes));
        assert!(world.entity("items", "/api/items", "1").is_none());
        let again = engine.call(
            &mut world,
            &call("DELETE", "/api/items/1", None),
            &mut Fixed,
        );
        assert_eq!((again.status, again.applied), (404, Applied::No));
    }

    #[test]
    fn fixed_members_accept_only_their_recorded_value() {
        let s = Scenario::new(
            &[
                ex("GET", "/api/items", 200).answer(list(&items())),
                ex("PUT", "/api/items/1", 200)
                    .body(json!({"title": "B", "done": "yes"}))
                    .answer(json!({"id": 1, "title": "B", "done": true})),
                ex("GET", "/api/items/1", 200).answer(json!({"id": 1, "title": "B", "done": true})),
            ],
            &items(),
            None,
        );
        let engine = engine(&s);
        let mut world = engine.initial_world();
        let refused = engine.call(
            &mut world,
            &call(
                "PUT",
                "/api/items/2",
                Some(json!({"title": "C", "done": "no"})),
            ),
            &mut Fixed,
        );
        assert_eq!(
            (refused.status, refused.error_code.as_deref()),
            (400, Some("member_value_not_modelled"))
        );
        let ok = engine.call(
            &mut world,
            &call(
                "PUT",
                "/api/items/2",
                Some(json!({"title": "C", "done": "yes"})),
            ),
            &mut Fixed,
        );
        assert_eq!(ok.status, 200);
        assert_eq!(
            json_of(&ok.body),
            json!({"id": 2, "title": "C", "done": true})
        );
    }
}

#[test]
fn write_plans_are_charged_to_the_state_budget() {
    // STATE-57 (write side): bodies read and plans kept count against the budget.
    let s = happy();
    let records: Vec<crate::state::records::Record> = (0..s.records.len() as u64)
        .filter_map(|o| s.records.get(&o).cloned())
        .collect();
    let mut small = crate::budget::Budget::new(512);
    let err = super::derive_writes_budgeted(&s.manifest, &records, &s.state, &mut small);
    assert!(
        matches!(
            err,
            Err(crate::error::DeriveError::ResourceConstraint { .. })
        ),
        "{err:?}"
    );
    let mut ample = crate::budget::Budget::new(1 << 20);
    let plans =
        super::derive_writes_budgeted(&s.manifest, &records, &s.state, &mut ample).expect("plans");
    let kept = serde_json::to_string(&plans).unwrap().len() as u64;
    assert_eq!(
        ample.used(),
        kept,
        "temporary charges are given back; the plans stay charged"
    );
}

#[test]
fn a_write_with_a_redacted_url_makes_every_target_unknown() {
    // STATE-10 (write side): a write whose URL was redacted, before the
    // PATCH, leaves every target unknown, so the read after the PATCH is
    // checked only on what the PATCH sent (`done` differs, unsent).
    let mut s = Scenario::new(
        &[
            ex("GET", "/api/items", 200).answer(list(&items())),
            ex("POST", "/api/other", 200).body(json!({})),
            ex("PATCH", "/api/items/1", 200)
                .body(json!({"title": "B"}))
                .answer(json!({"id": 1, "title": "B", "done": false})),
            ex("GET", "/api/items/1", 200).answer(json!({"id": 1, "title": "B", "done": true})),
        ],
        &items(),
        None,
    );
    // Other side first: a known unmodelled write to another path changes
    // nothing here, so the whole item is compared; `done` differs and the
    // PATCH did not touch it, so no write explains it: `side-effect`.
    let known = s.plan("update_item");
    assert_eq!(
        known.reason.map(|r| r.as_str()),
        Some("side-effect"),
        "{known:?}"
    );
    if let Some(r) = s.records.get_mut(&1) {
        r.path = None;
        r.query = None;
    }
    let plan = s.plan("update_item");
    assert_eq!(
        (plan.status.as_str(), plan.checked_record_ordinals.clone()),
        ("served", vec![3]),
        "{plan:?}"
    );
}
