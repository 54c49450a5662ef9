//! Kinds of RPC behaviour on the real captures (`tests/fixtures/mlflow/`),
//! each checked on Kinto and WordPress so it stays out where the recording
//! contradicts it: empty list members omitted (`empty`), keyed arrays
//! (`keyed`), item upserts by an unseen verb, and aggregate members
//! recomputed from dependents (`aggregates`).

use super::serving::{serving_model, ModelWorld, Served, ServingModel};
use super::*;
use crate::testkit::fixture;
use serde_json::{json, Value};

const API: &str = "/api/2.0/mlflow";

fn model(relative: &str) -> Model {
    environment_model(&fixture(relative)).expect("model")
}

struct Session {
    s: ServingModel,
    w: ModelWorld,
    n: u64,
}

impl Session {
    fn of(relative: &str) -> Session {
        let s = serving_model(&fixture(relative)).expect("serving model");
        let w = s.initial_world();
        Session { s, w, n: 0 }
    }

    fn call(
        &mut self,
        method: &str,
        verb: &str,
        query: Option<&str>,
        body: Option<Value>,
    ) -> Served {
        let n = &mut self.n;
        let mut uuid = || {
            *n += 1;
            format!("{:032x}", *n)
        };
        self.s
            .answer(
                &mut self.w,
                method,
                &format!("{API}/{verb}"),
                query,
                body.as_ref(),
                1_800_000_000_000,
                &mut uuid,
            )
            .unwrap_or_else(|| panic!("{method} {verb}: not answered by the model"))
    }

    fn new_run(&mut self) -> String {
        let run = self.call(
            "POST",
            "runs/create",
            None,
            Some(json!({"experiment_id": "0", "run_name": "t", "start_time": 1})),
        );
        run.body.unwrap()["run"]["info"]["run_id"]
            .as_str()
            .unwrap()
            .to_string()
    }
}

#[test]
fn empty_list_members_are_omitted_where_the_recording_shows_it() {
    // MLflow dev-a: runs/create (12) answers `data` without `metrics` and
    // `params`, which runs/get shows as arrays; no answer holds `[]`.
    let m = model("mlflow/dev-a.har");
    let e = &m.empty_lists;
    assert_eq!(e.rule, "omitted", "{e:?}");
    assert!(
        e.members.contains(&"/run/data metrics".to_string()),
        "{e:?}"
    );
    assert!(e.supported_by.contains(&12), "{e:?}");
    assert!(e.contradicted_by.is_empty());
    // Kinto and WordPress answer empty arrays: the rule is `shown` there.
    for f in ["kinto/dev-a.har", "wordpress/dev-a.har"] {
        let e = model(f).empty_lists;
        assert_eq!(e.rule, "shown", "{f}: {e:?}");
        assert!(!e.contradicted_by.is_empty());
        assert!(!e.omitted());
    }
}

#[test]
fn an_unknown_metric_of_a_known_run_answers_the_empty_result() {
    // MLflow dev-b request 39: `metrics/get-history?run_id=<own run>&metric_key=no_such_metric`
    // answers `{}` after the run logged other metrics.
    let mut s = Session::of("mlflow/dev-a.har");
    let id = s.new_run();
    let logged = s.call(
        "POST",
        "runs/log-metric",
        None,
        Some(json!({"run_id": id, "key": "mape", "value": 0.1, "timestamp": 1, "step": 0})),
    );
    assert_eq!(logged.status, 200);
    let q = format!("run_id={id}&metric_key=no_such_metric");
    let h = s.call("GET", "metrics/get-history", Some(&q), None);
    assert_eq!((h.status, h.basis), (200, "empty-result"));
    assert_eq!(h.body, Some(json!({})));
    let q = format!("run_id={id}&metric_key=mape");
    let h = s.call("GET", "metrics/get-history", Some(&q), None);
    assert_eq!(h.body.unwrap()["metrics"].as_array().map(Vec::len), Some(1));
}

#[test]
fn keyed_arrays_fold_a_repeated_key_as_the_next_read_shows() {
    // MLflow dev-b: runs/log-batch (18) sends `mape` four times and
    // runs/get (23) shows one `mape`, the last: `/data/metrics` is keyed by
    // `key`, confirmed; log-batch's metrics effect is kept.
    let m = model("mlflow/dev-b.har");
    let a = m
        .arrays
        .iter()
        .find(|a| a.resource == "run" && a.pointer == "/data/metrics")
        .expect("run metrics");
    assert_eq!(
        (a.key.as_deref(), a.basis.as_str()),
        (Some("key"), "confirmed")
    );
    assert!(
        a.supported_by.contains(&18) && a.supported_by.contains(&23),
        "{a:?}"
    );
    let batch = m
        .writes
        .iter()
        .find(|w| w.route == format!("{API}/runs/log-batch"))
        .unwrap();
    assert!(
        batch.effects.iter().any(|e| e.pointer == "/data/metrics"),
        "{:?}",
        batch.effects
    );
    // Served (dev-b → dev-a requests 14–19): a batch, then the same key
    // twice; the run shows each key once, with its last value.
    let mut s = Session::of("mlflow/dev-b.har");
    let id = s.new_run();
    s.call(
        "POST",
        "runs/log-batch",
        None,
        Some(json!({"run_id": id, "metrics": [{"key": "auc", "value": 0.8, "timestamp": 1, "step": 0}]})),
    );
    for (v, step) in [(0.18, 0), (0.21, 1)] {
        s.call(
            "POST",
            "runs/log-metric",
            None,
            Some(json!({"run_id": id, "key": "qini", "value": v, "timestamp": 2, "step": step})),
        );
    }
    let q = format!("run_id={id}");
    let run = s.call("GET", "runs/get", Some(&q), None).body.unwrap();
    assert_eq!(
        run["run"]["data"]["metrics"],
        json!([
            {"key": "auc", "value": 0.8, "timestamp": 1, "step": 0},
            {"key": "qini", "value": 0.21, "timestamp": 2, "step": 1}
        ])
    );
    // Kinto and WordPress: no key confirmed by a write.
    for f in ["kinto/dev-a.har", "wordpress/dev-a.har"] {
        assert!(
            model(f).arrays.iter().all(|a| a.basis == "convention"),
            "{f}"
        );
    }
}

#[test]
fn an_unseen_verb_naming_an_array_puts_its_item_there() {
    // MLflow dev-a never calls registered-models/alias; its body without the
    // key has the members of `/aliases` items, which the verb names:
    // dev-b request 31 moves `champion` from version 1 to 3 (by convention).
    let mut s = Session::of("mlflow/dev-a.har");
    let a = s.call(
        "POST",
        "registered-models/alias",
        None,
        Some(json!({"name": "demand-forecaster", "alias": "champion", "version": "3"})),
    );
    assert_eq!((a.status, a.convention), (200, true));
    assert_eq!(a.body, Some(json!({})));
    let q = "name=demand-forecaster";
    let got = s.call("GET", "registered-models/get", Some(q), None);
    assert_eq!(
        got.body.unwrap()["registered_model"]["aliases"],
        json!([{"alias": "champion", "version": "3"}])
    );
    // set-experiment-tag (never called in dev-a) adds to the experiment's tags.
    s.call(
        "POST",
        "experiments/set-experiment-tag",
        None,
        Some(json!({"experiment_id": "4", "key": "reviewed", "value": "yes"})),
    );
    let e = s
        .call("GET", "experiments/get", Some("experiment_id=4"), None)
        .body
        .unwrap();
    let tags = e["experiment"]["tags"].as_array().unwrap();
    assert_eq!(
        tags.last(),
        Some(&json!({"key": "reviewed", "value": "yes"}))
    );
}

#[test]
fn an_aggregate_member_is_recomputed_after_a_dependent_create() {
    // MLflow dev-a: `latest_versions` of a registered model holds copies of
    // its model versions (name references the model); demand-forecaster
    // shows only version 2 (32: a gap), fraud-detector one per stage.
    let m = model("mlflow/dev-a.har");
    assert_eq!(m.aggregates.len(), 1, "{:?}", m.aggregates);
    let g = &m.aggregates[0];
    assert_eq!(
        (
            g.resource.as_str(),
            g.pointer.as_str(),
            g.dependent.as_str(),
            g.reference.as_str(),
            g.per.as_str(),
            g.order.as_str()
        ),
        (
            "registered_model",
            "/latest_versions",
            "model_version",
            "/name",
            "/current_stage",
            "/version"
        )
    );
    assert_eq!(g.supported_by, vec![32]);
    assert!(g.contradicted_by.is_empty());
    // Served (dev-b requests 29 and 32): version 3 replaces version 2, the
    // latest of stage None.
    let mut s = Session::of("mlflow/dev-a.har");
    let v = s.call(
        "POST",
        "model-versions/create",
        None,
        Some(json!({"name": "demand-forecaster", "run_id": "132f205db9d34bcababc3c6fb904c192", "source": "s3://x", "description": "new"})),
    );
    assert_eq!(v.status, 200);
    let created = v.body.unwrap()["model_version"].clone();
    assert_eq!(created["version"], json!("3"));
    let got = s
        .call(
            "GET",
            "registered-models/get",
            Some("name=demand-forecaster"),
            None,
        )
        .body
        .unwrap();
    assert_eq!(got["registered_model"]["latest_versions"], json!([created]));
    // A stage change of the new version: version 2 (known from the copy)
    // is the latest of stage None again, version 3 the latest of Staging.
    s.call(
        "POST",
        "model-versions/transition-stage",
        None,
        Some(json!({"name": "demand-forecaster", "version": "3", "stage": "Staging", "archive_existing_versions": false})),
    );
    let got = s
        .call(
            "GET",
            "registered-models/get",
            Some("name=demand-forecaster"),
            None,
        )
        .body
        .unwrap();
    let latest = got["registered_model"]["latest_versions"]
        .as_array()
        .unwrap()
        .clone();
    let shown: Vec<(&Value, &Value)> = latest
        .iter()
        .map(|v| (&v["version"], &v["current_stage"]))
        .collect();
    assert_eq!(
        shown,
        vec![
            (&json!("2"), &json!("None")),
            (&json!("3"), &json!("Staging"))
        ]
    );
    // Kinto and WordPress show no aggregate.
    for f in ["kinto/dev-a.har", "wordpress/dev-a.har"] {
        assert!(model(f).aggregates.is_empty(), "{f}");
    }
}

#[test]
fn a_verb_is_lent_between_a_parent_and_its_dependents() {
    // MLflow dev-a: runs/delete (21) marks the run deleted (22) and the
    // experiment read after experiments/delete (35) is deleted (36); no run
    // is read after an experiment delete, so the cascade itself is lent,
    // not confirmed (dev-b request 43).
    let m = model("mlflow/dev-a.har");
    let a = &m.analogies;
    assert_eq!(a.len(), 1, "{a:?}");
    assert_eq!(
        (
            a[0].direction.as_str(),
            a[0].route.as_str(),
            a[0].changes.as_str(),
            a[0].reference.as_deref(),
            a[0].pointer.as_str()
        ),
        (
            "dependents",
            "/api/2.0/mlflow/experiments/delete",
            "run",
            Some("/info/experiment_id"),
            "/info/lifecycle_stage"
        )
    );
    assert_eq!(a[0].supported_by, vec![21, 22, 35, 36]);
    let mut s = Session::of("mlflow/dev-a.har");
    let run = s.call(
        "POST",
        "runs/create",
        None,
        Some(json!({"experiment_id": "4", "run_name": "t", "start_time": 1})),
    );
    let id = run.body.unwrap()["run"]["info"]["run_id"].clone();
    let del = s.call(
        "POST",
        "experiments/delete",
        None,
        Some(json!({"experiment_id": "4"})),
    );
    assert_eq!((del.status, del.convention), (200, true));
    let q = format!("run_id={}", id.as_str().unwrap());
    let got = s.call("GET", "runs/get", Some(&q), None).body.unwrap();
    assert_eq!(got["run"]["info"]["lifecycle_stage"], json!("deleted"));
    // MLflow dev-b: the confirmed cascade of experiments/delete lends
    // runs/delete (never called there) the same change on the run itself.
    let m = model("mlflow/dev-b.har");
    assert_eq!(m.analogies.len(), 1, "{:?}", m.analogies);
    assert_eq!(
        (
            m.analogies[0].direction.as_str(),
            m.analogies[0].route.as_str()
        ),
        ("own", "/api/2.0/mlflow/runs/delete")
    );
    let mut s = Session::of("mlflow/dev-b.har");
    let id = s.new_run();
    let del = s.call("POST", "runs/delete", None, Some(json!({"run_id": id})));
    assert_eq!((del.status, del.convention), (200, true));
    let got = s
        .call("GET", "runs/get", Some(&format!("run_id={id}")), None)
        .body
        .unwrap();
    assert_eq!(got["run"]["info"]["lifecycle_stage"], json!("deleted"));
    // Kinto and WordPress address nothing by RPC: no analogy.
    for f in ["kinto/dev-a.har", "wordpress/dev-a.har"] {
        assert!(model(f).analogies.is_empty(), "{f}");
    }
}
