//! Ignored timing test of the create path: N creates of the recorded
//! product body against the Kinto dev-a engine, timed in slices so a cost
//! that grows with the World shows as falling creates per second.
//! Run: `cargo test --release -p rea-derivation create_throughput -- --ignored --nocapture`.

use crate::engine::{Applied, Call, Engine, Generator};
use crate::state::environment_state;
use crate::state::kinto_tests::all_rules;
use crate::testkit::fixture;
use serde_json::Value;
use std::time::Instant;

/// Counting uuids and a clock one millisecond on per call, as the served
/// system clock moves on between requests.
struct Ticking(u64);

impl Generator for Ticking {
    fn uuid(&mut self) -> String {
        self.0 += 1;
        format!("00000000-0000-4000-8000-{:012}", self.0)
    }
    fn now_ms(&mut self) -> i64 {
        1_800_000_000_000 + self.0 as i64
    }
    fn token(&mut self, alphabet: &str, len: usize) -> String {
        alphabet.chars().cycle().take(len).collect()
    }
}

const PRODUCTS: &str = "/v1/buckets/shop/collections/products/records";

/// The body the capture sent with its first product create (read from the
/// HAR itself, as benches/serve.sh does).
fn recorded_create_body() -> Value {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/kinto/dev-a.har");
    let har: Value = serde_json::from_slice(&std::fs::read(path).expect("fixture")).expect("JSON");
    har["log"]["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .find_map(|e| {
            let req = &e["request"];
            let url = req["url"].as_str()?;
            if req["method"] != "POST" || !url.ends_with("/products/records") {
                return None;
            }
            serde_json::from_str(req["postData"]["text"].as_str()?).ok()
        })
        .expect("a recorded product create with a JSON body")
}

#[test]
#[ignore = "timing; run with --release --ignored --nocapture"]
fn create_throughput() {
    let ev = fixture("kinto/dev-a.har");
    let rules = all_rules();
    let manifest = crate::manifest::environment_manifest(&ev, &rules, true).unwrap();
    let state = environment_state(&ev, &rules).unwrap();
    let engine = Engine::new(&ev, manifest, state).unwrap();
    let body = recorded_create_body();
    let mut world = engine.initial_world();
    let mut gen = Ticking(0);
    let call = Call {
        method: "POST".into(),
        path: PRODUCTS.into(),
        query: None,
        headers: Vec::new(),
        body: Some(body),
    };
    let slices = 5;
    let per_slice = 2000;
    let mut rates = Vec::new();
    for slice in 0..slices {
        let started = Instant::now();
        for _ in 0..per_slice {
            let answer = engine.call(&mut world, &call, &mut gen);
            assert_eq!(answer.applied, Applied::Yes, "{answer:?}");
        }
        let secs = started.elapsed().as_secs_f64();
        let rate = per_slice as f64 / secs;
        eprintln!(
            "creates {:>6}..{:>6}: {rate:>10.0} creates/s ({:.1} us each), World {} entities",
            slice * per_slice,
            (slice + 1) * per_slice,
            secs * 1e6 / per_slice as f64,
            world.entity_count()
        );
        rates.push(rate);
    }
    let first = rates[0];
    let last = rates[rates.len() - 1];
    eprintln!(
        "last slice / first slice: {:.2} (1.0 means no growth with the World)",
        last / first
    );
}
