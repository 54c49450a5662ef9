//! List semantics on the real captures: inference is deterministic and
//! matches the goldens; kept semantics inferred from one session answer
//! requests only the other session of the same app made (the same seeded
//! data), as the real app answered them there.

use crate::manifest::environment_manifest;
use crate::model::lists::eval::{body_params, evaluate, query_params, select, Page};
use crate::model::lists::instances::{endpoints, Endpoint};
use crate::model::lists::semantics::TokenFormat;
use crate::model::lists::{EndpointSemantics, ListSemantics};
use crate::state::environment_state_for;
use crate::state::kinto_tests::all_rules;
use crate::state::records::records_of;
use crate::testkit::fixture;
use serde_json::{json, Value};
use std::collections::HashMap;

pub(crate) struct Loaded {
    pub(crate) semantics: ListSemantics,
    pub(crate) endpoints: Vec<Endpoint>,
}

pub(crate) fn load(relative: &str) -> Loaded {
    let ev = fixture(relative);
    let manifest = environment_manifest(&ev, &all_rules(), true).expect("manifest");
    let state = environment_state_for(&ev, &manifest).expect("state");
    let records = records_of(&ev);
    let serving = crate::model::serving::serving_model(&ev).expect("serving model");
    Loaded {
        semantics: crate::model::lists::infer_with(&records, &manifest, &state, Some(&serving)),
        endpoints: endpoints(&records, &manifest, &state),
    }
}

fn endpoint<'a>(l: &'a Loaded, path_end: &str) -> (&'a EndpointSemantics, &'a Endpoint) {
    let i = l
        .semantics
        .endpoints
        .iter()
        .position(|e| e.path_template.ends_with(path_end))
        .unwrap_or_else(|| panic!("no endpoint {path_end}"));
    (&l.semantics.endpoints[i], &l.endpoints[i])
}

/// Evaluates parameters on an endpoint; the page and the listed entities.
fn ask(l: &Loaded, path_end: &str, params: &[(String, Value)]) -> (Page, Vec<Value>) {
    let (sem, ep) = endpoint(l, path_end);
    let universe: Vec<&Value> = ep.universe.iter().collect();
    let page = evaluate(sem, params, &universe, &HashMap::new())
        .unwrap_or_else(|e| panic!("{path_end} {params:?} not understood: {e:?}"));
    let items = page
        .indices
        .iter()
        .map(|&i| select(universe[i], page.fields.as_deref()))
        .collect();
    (page, items)
}

fn ids(items: &[Value], member: &str) -> Vec<Value> {
    items.iter().map(|i| i[member].clone()).collect()
}

fn strs(list: &[&str]) -> Vec<Value> {
    list.iter().map(|s| json!(s)).collect()
}

const CAPTURES: [&str; 6] = [
    "kinto/dev-a.har",
    "kinto/dev-b.har",
    "wordpress/dev-a.har",
    "wordpress/dev-b.har",
    "mlflow/dev-a.har",
    "mlflow/dev-b.har",
];

#[test]
fn goldens_per_dev_capture_are_deterministic() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden");
    let update = std::env::var_os("REA_UPDATE_GOLDEN").is_some_and(|v| v == "1");
    let mut mismatches = Vec::new();
    for c in CAPTURES {
        let (app, session) = c.trim_end_matches(".har").split_once('/').unwrap();
        let text = serde_json::to_string_pretty(&load(c).semantics).unwrap() + "\n";
        let again = serde_json::to_string_pretty(&load(c).semantics).unwrap() + "\n";
        assert_eq!(text, again, "{c}: inference is not deterministic");
        let path = root
            .join(app)
            .join(format!("{session}.list-semantics.json"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        if update {
            std::fs::write(&path, &text).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            std::fs::write(path.with_extension("actual.json"), &text).unwrap();
            mismatches.push(path);
        }
    }
    assert!(
        mismatches.is_empty(),
        "golden mismatch (see *.actual.json; REA_UPDATE_GOLDEN=1 rewrites): {mismatches:#?}"
    );
}

#[test]
fn kept_meanings_are_never_contradicted_and_contradictions_drop_them() {
    for c in CAPTURES {
        let l = load(c);
        for (sem, ep) in l.semantics.endpoints.iter().zip(&l.endpoints) {
            for check in sem.instances.iter().filter(|i| i.verdict == "contradicted") {
                let inst = ep
                    .instances
                    .iter()
                    .find(|i| i.ordinal == check.ordinal)
                    .unwrap();
                for (name, _) in &inst.params {
                    let p = sem.params.iter().find(|p| p.name == *name);
                    assert!(
                        p.is_none_or(
                            |p| p.status == "dropped" && p.contradicted_by.contains(&check.ordinal)
                        ),
                        "{c} {}: {name} kept despite contradiction #{}",
                        sem.path_template,
                        check.ordinal
                    );
                }
            }
            for p in sem.params.iter().filter(|p| p.status == "kept") {
                assert!(
                    !p.confirmed_by.is_empty(),
                    "{c} {} {}",
                    sem.path_template,
                    p.name
                );
                assert!(p.contradicted_by.is_empty());
            }
        }
    }
}

#[test]
fn kinto_conventions_are_inferred_from_the_recording() {
    let l = load("kinto/dev-a.har");
    let (sem, _) = endpoint(&l, "/products/records");
    let kind = |n: &str| sem.kept(n).map(|m| m.kind());
    assert_eq!(kind("_sort"), Some("sort"));
    assert_eq!(kind("_limit"), Some("page-size"));
    assert_eq!(kind("_token"), Some("cursor"));
    assert_eq!(kind("category"), Some("filter"));
    assert_eq!(sem.spelling.next_header.as_deref(), Some("Next-Page"));
    assert_eq!(sem.spelling.token, Some(TokenFormat::Own));
    assert_eq!(sem.default_order[0].field.text(), "last_modified");
    assert!(sem.default_order[0].descending);
    assert!(sem.instances.iter().all(|i| i.verdict != "contradicted"));
}

/// Filter, sort and page on unseen names and values: dev-a's semantics
/// answer dev-b's requests (dev-a never filtered orders on `paid` nor sorted
/// them by `total`) exactly as Kinto answered them in dev-b.
#[test]
fn kinto_unseen_filter_sort_and_page_match_the_app() {
    let l = load("kinto/dev-a.har");
    let (_, items) = ask(&l, "/orders/records", &query_params("paid=false"));
    assert_eq!(
        ids(&items, "id"),
        strs(&["ord-009", "ord-006", "ord-003", "ord-002"])
    );
    let (page, items) = ask(
        &l,
        "/orders/records",
        &query_params("_sort=-total&_limit=3"),
    );
    assert_eq!(ids(&items, "id"), strs(&["ord-016", "ord-001", "ord-004"]));
    assert_eq!(page.next_offset, Some(3));
    let (_, items) = ask(&l, "/customers/records", &query_params("_sort=name"));
    let want: Vec<Value> = (1..=18).map(|n| json!(format!("cust-{n:03}"))).collect();
    assert_eq!(ids(&items, "id"), want);
}

/// Following rea's own next-page cursors to the end lists what Kinto's
/// `Next-Page` chain listed in dev-b (`_limit=8`: 8, 8, then 4).
#[test]
fn following_next_cursors_to_the_end_matches_the_app() {
    let l = load("kinto/dev-a.har");
    let (sem, ep) = endpoint(&l, "/products/records");
    let universe: Vec<&Value> = ep.universe.iter().collect();
    let mut params = query_params("_limit=8");
    let mut pages = Vec::new();
    for _ in 0..10 {
        let page = evaluate(sem, &params, &universe, &HashMap::new()).unwrap();
        pages.push(
            page.indices
                .iter()
                .map(|&i| universe[i]["id"].clone())
                .collect::<Vec<_>>(),
        );
        let Some(next) = page.next_offset else { break };
        let last = universe[page.indices[page.indices.len() - 1]];
        let token =
            crate::model::lists::eval::own_token(last, sem.identity.as_ref(), &page.sort, next);
        params = query_params(&format!("_limit=8&_token={token}"));
    }
    let want = |a: u32, b: u32| -> Vec<Value> {
        (b..=a)
            .rev()
            .map(|n| json!(format!("prod-{n:03}")))
            .collect()
    };
    assert_eq!(pages, vec![want(20, 13), want(12, 5), want(4, 1)]);
}

/// WordPress: dev-a filtered posts on `categories` and `tags`, paged with
/// `per_page`/`page` and sorted by `orderby=title&order=asc`; dev-b's unseen
/// combinations come out as WordPress answered them.
#[test]
fn wordpress_unseen_combinations_match_the_app() {
    let l = load("wordpress/dev-a.har");
    let (page, items) = ask(&l, "/posts", &query_params("tags=14&per_page=3"));
    assert_eq!(ids(&items, "id"), vec![json!(17), json!(15), json!(13)]);
    // WordPress counted 5: the fifth is post 1, which dev-a never read, so
    // the World counts fewer (never more).
    assert_eq!(page.total, 4);
    let (_, items) = ask(&l, "/posts", &query_params("author=2"));
    assert_eq!(
        ids(&items, "id"),
        [20, 18, 15, 11, 7, 3]
            .iter()
            .map(|n| json!(n))
            .collect::<Vec<_>>()
    );
    // WordPress's page 2 of titles descending is 9, 13, 15, 10, 12. Two
    // posts sorting before them (1 "Welcome…", 4 "Visiting…") were never
    // read before dev-a's first write, so the World's page 2 starts two
    // later; the order itself is WordPress's: its page is a run of ours.
    let (_, all) = ask(
        &l,
        "/posts",
        &query_params("orderby=title&order=desc&per_page=100"),
    );
    let all = ids(&all, "id");
    let want: Vec<Value> = [9, 13, 15, 10, 12].iter().map(|n| json!(n)).collect();
    let at = all
        .iter()
        .position(|v| *v == want[0])
        .expect("post 9 listed");
    assert_eq!(
        at, 3,
        "two of the app's first five are missing from the World"
    );
    assert_eq!(all[at..at + 5], want[..]);
    let (_, items) = ask(
        &l,
        "/posts",
        &query_params("orderby=title&order=desc&per_page=5&page=2"),
    );
    assert_eq!(ids(&items, "id"), all[5..10].to_vec());
}

/// Field selection on a combination dev-a never sent: the members asked
/// for, of the entities the default order lists first.
#[test]
fn wordpress_field_selection() {
    let l = load("wordpress/dev-a.har");
    let (_, items) = ask(&l, "/posts", &query_params("_fields=id,title&per_page=3"));
    assert_eq!(ids(&items, "id"), vec![json!(20), json!(18), json!(17)]);
    for i in &items {
        let mut keys: Vec<&String> = i.as_object().unwrap().keys().collect();
        keys.sort();
        assert_eq!(keys, ["id", "title"]);
    }
    // The recorded `_fields=id,title` answer shows the same first three.
    let (_, ep) = endpoint(&l, "/posts");
    let recorded = ep
        .instances
        .iter()
        .find(|i| i.query.as_deref() == Some("_fields=id,title"))
        .unwrap();
    assert_eq!(items.as_slice(), &recorded.items[..3]);
}

/// MLflow: dev-a never filtered experiments; the filter language its
/// `runs/search` confirmed carries over to `experiments/search`, and the
/// app's own base64 offset tokens are reproduced byte for byte.
#[test]
fn mlflow_search_post_with_unseen_filter_and_app_tokens() {
    let l = load("mlflow/dev-a.har");
    let body = |v: Value| body_params(&v);
    let (_, items) = ask(
        &l,
        "/experiments/search",
        &body(json!({"filter": "tags.gpu = 'a100'", "max_results": 10})),
    );
    assert_eq!(ids(&items, "experiment_id"), strs(&["4"]));
    let (sem, _) = endpoint(&l, "/experiments/search");
    let (page, items) = ask(
        &l,
        "/experiments/search",
        &body(json!({"order_by": ["last_update_time DESC"], "max_results": 4})),
    );
    assert_eq!(ids(&items, "experiment_id"), strs(&["4", "3", "2", "1"]));
    let Some(TokenFormat::Base64Offset { template, padded }) = &sem.spelling.token else {
        panic!("app token format not inferred: {:?}", sem.spelling.token)
    };
    let token = crate::model::lists::eval::app_token(template, *padded, page.next_offset.unwrap());
    assert_eq!(token, "eyJvZmZzZXQiOiA0fQ==");
    let (page, items) = ask(
        &l,
        "/experiments/search",
        &body(
            json!({"order_by": ["last_update_time DESC"], "max_results": 4, "page_token": token}),
        ),
    );
    assert_eq!(ids(&items, "experiment_id"), strs(&["0"]));
    assert_eq!(page.next_offset, None);
}

/// A comparison operator with a value the initial recording never used:
/// MLflow answered `metrics.auc > 0.84` over experiment 2 with these two
/// runs (dev-a record 20, minus the run the session created there).
#[test]
fn mlflow_comparison_on_an_unseen_value() {
    let l = load("mlflow/dev-a.har");
    let (_, items) = ask(
        &l,
        "/runs/search",
        &body_params(
            &json!({"experiment_ids": ["2"], "filter": "metrics.auc > 0.84",
                            "order_by": ["attributes.start_time DESC"]}),
        ),
    );
    let names: Vec<Value> = items
        .iter()
        .map(|r| r["info"]["run_name"].clone())
        .collect();
    assert_eq!(names, strs(&["lgbm-churn-b", "lgbm-churn-a"]));
    let (_, items) = ask(
        &l,
        "/runs/search",
        &body_params(&json!({"experiment_ids": ["2"], "filter": "metrics.auc > 0.99"})),
    );
    assert!(items.is_empty());
}

/// A partial World (dev-b read 14 of WordPress's 19 published posts): the
/// recorded `orderby=title&order=desc&per_page=5&page=2` cannot be
/// re-rendered, but what the World holds agrees with it (the listed posts
/// it knows, in title order, contiguous, 5 per page of 19 in 4 pages), so
/// the sort, direction, page and size are kept; a recording whose order
/// disagreed would drop them. The default page size dev-b's comments
/// showed carries over to posts (dev-b never listed posts unsized).
#[test]
fn a_partial_world_confirms_what_it_holds_and_a_wrong_order_contradicts() {
    let l = load("wordpress/dev-b.har");
    let (sem, ep) = endpoint(&l, "/posts");
    let check = sem.instances.iter().find(|i| i.ordinal == 25).unwrap();
    assert_eq!(check.verdict, "consistent", "{check:?}");
    for name in ["orderby", "order", "page", "per_page"] {
        let p = sem.params.iter().find(|p| p.name == name).unwrap();
        assert_eq!(p.status, "kept", "{name}: {p:?}");
        assert!(p.confirmed_by.contains(&25), "{name}: {p:?}");
    }
    assert_eq!(sem.default_page_size, Some(10));
    assert!(sem
        .adopted
        .contains(&"default-page-size from get_wp_json_wp_comments".to_string()));
    // dev-a's real answer to `orderby=title&order=asc` (record 9), restricted
    // to the posts dev-b's World holds, is the World's order.
    let (_, items) = ask(
        &l,
        "/posts",
        &query_params("orderby=title&order=asc&per_page=20"),
    );
    let app: Vec<u64> = vec![18, 16, 6, 8, 17, 2, 5, 20, 7, 12];
    let held: Vec<u64> = ep
        .universe
        .iter()
        .filter_map(|e| e["id"].as_u64())
        .collect();
    let ours: Vec<u64> = items
        .iter()
        .filter_map(|i| i["id"].as_u64())
        .filter(|id| app.contains(id))
        .collect();
    let want: Vec<u64> = app.into_iter().filter(|id| held.contains(id)).collect();
    assert!(want.len() >= 5, "{want:?}");
    assert_eq!(ours[..want.len()], want[..]);
    // The same recording with two listed posts swapped contradicts.
    let mut wrong = ep.clone();
    let inst = wrong
        .instances
        .iter_mut()
        .find(|i| i.ordinal == 25)
        .unwrap();
    inst.items.swap(0, 1);
    let again = crate::model::lists::infer::infer_endpoint(&wrong);
    let check = again.instances.iter().find(|i| i.ordinal == 25).unwrap();
    assert_eq!(check.verdict, "contradicted", "{check:?}");
    let orderby = again.params.iter().find(|p| p.name == "orderby").unwrap();
    assert_eq!(orderby.status, "dropped");
}

/// Operators spelled in the value (`eq.kitchen`, PostgREST's style): the
/// recorded `?category=kitchen` (Kinto's real answer) spelled as
/// `?category=eq.kitchen` keeps the value-operator convention (the plain
/// equality reading lists nothing there and is not chosen); unseen
/// operators then narrow as their plain spellings do: `neq.` is the
/// complement, `in.(a,b)` the comma list, `not.in.` its complement.
#[test]
fn value_operators_are_kept_when_the_recording_spells_them() {
    let l = load("kinto/dev-a.har");
    let i = l
        .semantics
        .endpoints
        .iter()
        .position(|e| e.path_template.ends_with("/products/records"))
        .unwrap();
    let mut ep = l.endpoints[i].clone();
    let inst = ep
        .instances
        .iter_mut()
        .find(|i| i.params.iter().any(|(n, _)| n == "category"))
        .unwrap();
    for (n, v) in inst.params.iter_mut() {
        if n == "category" {
            *v = json!(format!("eq.{}", v.as_str().unwrap()));
        }
    }
    let sem = crate::model::lists::infer::infer_endpoint(&ep);
    let p = sem.params.iter().find(|p| p.name == "category").unwrap();
    assert_eq!(p.meaning.kind(), "value-operators", "{p:?}");
    assert_eq!(p.status, "kept", "{p:?}");
    let universe: Vec<&Value> = ep.universe.iter().collect();
    let run = |q: &str| -> Vec<Value> {
        let page = evaluate(&sem, &query_params(q), &universe, &HashMap::new())
            .unwrap_or_else(|e| panic!("{q}: {e:?}"));
        page.indices
            .iter()
            .map(|&i| universe[i]["id"].clone())
            .collect()
    };
    let all = run("");
    let kitchen = run("category=eq.kitchen");
    assert!(!kitchen.is_empty());
    let others = run("category=neq.kitchen");
    assert_eq!(kitchen.len() + others.len(), all.len());
    assert!(others.iter().all(|id| !kitchen.contains(id)));
    let categories: Vec<String> = ep
        .universe
        .iter()
        .filter_map(|e| e["category"].as_str().map(String::from))
        .collect();
    let second = categories.iter().find(|c| *c != "kitchen").unwrap();
    let both = run(&format!("category=in.(kitchen,{second})"));
    let want: Vec<Value> = all
        .iter()
        .filter(|id| {
            let e = ep.universe.iter().find(|e| e["id"] == **id).unwrap();
            e["category"] == "kitchen" || e["category"] == json!(second)
        })
        .cloned()
        .collect();
    assert_eq!(both, want);
    assert_eq!(
        run(&format!("category=not.in.(kitchen,{second})")).len(),
        all.len() - want.len()
    );
    // A value without an operator is not understood (the recording's own
    // line, else the fallback, answers it).
    assert!(evaluate(
        &sem,
        &query_params("category=kitchen"),
        &universe,
        &HashMap::new()
    )
    .is_err());
}

/// Lists recorded after writes are checked against the World replayed to
/// their moment: MLflow dev-a's only `registered-models/search` calls come
/// after a create and a rename, and reproduce there (the default order and
/// the offset tokens confirmed); Kinto dev-a's lists after writes reproduce
/// too. A difference after writes never drops a meaning (`unsettled`).
#[test]
fn lists_after_writes_are_checked_at_their_moment() {
    let l = load("mlflow/dev-a.har");
    let (sem, _) = endpoint(&l, "registered-models/search");
    let verdicts: Vec<(u64, &str)> = sem
        .instances
        .iter()
        .map(|i| (i.ordinal, i.verdict.as_str()))
        .collect();
    assert_eq!(verdicts, vec![(32, "reproduced"), (33, "reproduced")]);
    assert!(sem.confirmed());
    assert_eq!(sem.kept("max_results").map(|m| m.kind()), Some("page-size"));
    let (runs, _) = endpoint(&l, "runs/search");
    assert!(runs
        .instances
        .iter()
        .any(|i| i.ordinal == 20 && i.verdict == "reproduced"));
    let k = load("kinto/dev-a.har");
    let (orders, _) = endpoint(&k, "/orders/records");
    assert!(orders.instances.iter().all(|i| i.verdict == "reproduced"));
    assert_eq!(orders.kept("status").map(|m| m.kind()), Some("filter"));
    for c in CAPTURES {
        let l = load(c);
        for (sem, ep) in l.semantics.endpoints.iter().zip(&l.endpoints) {
            for i in sem.instances.iter().filter(|i| i.verdict == "unsettled") {
                let inst = ep
                    .instances
                    .iter()
                    .find(|x| x.ordinal == i.ordinal)
                    .unwrap();
                assert!(
                    !inst.initial,
                    "{c}: initial instance {} unsettled",
                    i.ordinal
                );
                assert!(sem
                    .params
                    .iter()
                    .all(|p| !p.contradicted_by.contains(&i.ordinal)));
            }
        }
    }
}

/// A selector's member: the text member one of whose values is a word of
/// every selecting value (`DELETED_ONLY` → `lifecycle_stage: deleted`), the
/// one with the fewest values first; `ALL` alone selects nothing to infer.
#[test]
fn selector_values_name_a_member_value() {
    use crate::model::lists::infer::selector_field;
    let items = [
        json!({"name": "a", "lifecycle_stage": "active", "info": {"state": "deleted"}}),
        json!({"name": "deleted", "lifecycle_stage": "deleted", "info": {"state": "active"}}),
        json!({"name": "c", "lifecycle_stage": "active", "info": {"state": "active"}}),
    ];
    let refs: Vec<&Value> = items.iter().collect();
    let field = selector_field(&[json!("DELETED_ONLY")], &refs).expect("a selector");
    assert_eq!(field.text(), "lifecycle_stage");
    assert_eq!(selector_field(&[json!("ALL")], &refs), None);
    assert_eq!(selector_field(&[json!("ARCHIVED_ONLY")], &refs), None);
    assert_eq!(selector_field(&[json!(3)], &refs), None);
}
