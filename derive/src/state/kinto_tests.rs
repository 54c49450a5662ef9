//! The state of the real Kinto captures (all five opt-in template rules).

use crate::engine::{AnswerBody, Call, Engine, Generator};
use crate::state::{environment_state, ViewPlan};
use crate::template_rules::TemplateRule;
use crate::testkit::fixture;

pub(crate) fn all_rules() -> Vec<TemplateRule> {
    TemplateRule::parse_list(&[
        "after-uid-literal",
        "opaque-token",
        "sibling-pair-variance",
        "sibling-variance",
        "prefix-variance",
    ])
    .expect("rules")
}

pub(crate) struct Fixed(pub(crate) u64);

impl Generator for Fixed {
    fn uuid(&mut self) -> String {
        self.0 += 1;
        format!("00000000-0000-4000-8000-{:012}", self.0)
    }
    fn now_ms(&mut self) -> i64 {
        1_800_000_000_000
    }
    fn token(&mut self, alphabet: &str, len: usize) -> String {
        alphabet.chars().cycle().take(len).collect()
    }
}

#[test]
fn kinto_records_are_entities_identified_by_id() {
    let ev = fixture("kinto/dev-a.har");
    let state = environment_state(&ev, &all_rules()).expect("state");
    let dump = serde_json::to_string_pretty(&state.views).unwrap();
    let records: Vec<_> = state
        .types
        .iter()
        .filter(|t| t.collection_template.ends_with("/records"))
        .collect();
    assert!(!records.is_empty(), "{dump}");
    for t in &records {
        assert_eq!(t.id_field, "id", "{t:?}");
    }
    let products = state
        .entities
        .iter()
        .filter(|e| e.collection.ends_with("/products/records"))
        .count();
    assert_eq!(products, 20);
    for v in &state.views {
        if let ViewPlan::Recorded(r) = v {
            eprintln!("recorded {} {}", r.tool, r.reason);
        }
    }
    let list_plans = state
        .views
        .iter()
        .filter(|v| matches!(v, ViewPlan::List(p) if p.lines.iter().any(|l| l.line.ends_with("/records"))))
        .count();
    assert!(list_plans >= 1, "{dump}");
}

#[test]
fn kinto_engine_answers_reads_as_recorded() {
    let ev = fixture("kinto/dev-a.har");
    let rules = all_rules();
    let manifest = crate::manifest::environment_manifest(&ev, &rules, true).unwrap();
    let state = environment_state(&ev, &rules).unwrap();
    let engine = Engine::new(&ev, manifest, state).unwrap();
    let mut world = engine.initial_world();
    let mut gen = Fixed(0);
    let entries = ev["records"].as_array().unwrap();
    // Every read before the first write answers exactly as recorded.
    for rec in entries.iter().take(14) {
        let url = rec["reported"]["request"]["url"].as_str().unwrap();
        let parsed = rea_core::recorded_url::parse(url).unwrap();
        let call = Call {
            method: "GET".into(),
            path: parsed.path.into(),
            query: parsed.query.map(str::to_string),
            headers: Vec::new(),
            body: None,
        };
        let answer = engine.call(&mut world, &call, &mut gen);
        let recorded: serde_json::Value = serde_json::from_str(
            rec["reported"]["response"]["content"]["text"]
                .as_str()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(answer.status, 200, "{url}");
        assert_eq!(answer.body, AnswerBody::Json(recorded), "{url}");
    }
    // A record the World does not hold answers as the recorded 404 did.
    let call = Call {
        method: "GET".into(),
        path: "/v1/buckets/shop/collections/products/records/prod-999".into(),
        query: None,
        headers: Vec::new(),
        body: None,
    };
    let answer = engine.call(&mut world, &call, &mut gen);
    assert_eq!(answer.status, 404);
    let AnswerBody::Json(body) = answer.body else {
        panic!("json")
    };
    assert_eq!(body["details"]["id"], "prod-999");
}

#[test]
#[ignore]
fn dump_kinto_state() {
    let ev = fixture("kinto/dev-a.har");
    let state = environment_state(&ev, &all_rules()).unwrap();
    let mut s = state.clone();
    s.entities.truncate(3);
    eprintln!("{}", serde_json::to_string_pretty(&s).unwrap());
}

/// Times the phases on the large capture: `REA_LARGE_HAR=... cargo test
/// --release -p rea-derivation large_har_phases -- --ignored --nocapture`.
#[test]
#[ignore]
fn large_har_phases() {
    let Some(path) = std::env::var_os("REA_LARGE_HAR") else {
        return;
    };
    let har: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let ev = crate::testkit::evidence(har["log"]["entries"].as_array().cloned().unwrap());
    let rules = all_rules();
    let t = std::time::Instant::now();
    let manifest = crate::manifest::environment_manifest(&ev, &rules, true).unwrap();
    eprintln!("manifest {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let records = crate::state::records::records_of(&ev);
    eprintln!("records {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let state = crate::state::environment_state_for(&ev, &manifest).unwrap();
    eprintln!("state with writes {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let writes = crate::state::writes::derive_writes(&manifest, &records, &state).unwrap();
    eprintln!("writes alone {:?} ({} plans)", t.elapsed(), writes.len());
}
