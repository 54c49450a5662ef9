//! Pseudonymising the serving Evidence of a capture next to cloning that
//! Evidence (the baseline: one walk that copies every string), in one run.
//! Input: the Kinto `dev-a.har` and the secrets fixture's serving Evidence,
//! with a declared value so the replacement pass has a matcher.

use criterion::{criterion_group, criterion_main, Criterion};
use rea_core::secrets::{pseudonymise_evidence, SecretPolicy};
use rea_core::{decode_for_serving, InspectRequest};
use serde_json::Value;
use std::hint::black_box;
use std::path::PathBuf;

fn evidence(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(name);
    let (e, _) = decode_for_serving(&InspectRequest::har(path)).expect("fixture decodes");
    serde_json::to_value(&e).expect("evidence JSON")
}

fn bench(c: &mut Criterion) {
    let policy = SecretPolicy {
        keep: false,
        sensitive_values: vec!["shop".into()],
    };
    let mut group = c.benchmark_group("secrets");
    group.sample_size(10);
    for name in ["kinto/dev-a.har", "secrets/tokens.har"] {
        let ev = evidence(name);
        group.bench_function(format!("clone_evidence/{name}"), |b| {
            b.iter(|| black_box(ev.clone()))
        });
        group.bench_function(format!("clone_and_pseudonymise/{name}"), |b| {
            b.iter(|| {
                let mut e = ev.clone();
                black_box(pseudonymise_evidence(&mut e, &policy))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
