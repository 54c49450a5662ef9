//! State derivation time on the 30 MiB Kinto capture
//! (`../shared/fixtures/kinto/large.har` relative to the repository root,
//! or the file `REA_LARGE_HAR` names).
//! The capture is decoded once (decoding is measured by the decoder's own
//! benchmark); the measured step is manifest + state
//! + write plans with all five opt-in template rules.

use criterion::{criterion_group, criterion_main, Criterion};
use rea_derivation::state::environment_state;
use rea_derivation::TemplateRule;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

fn bench(c: &mut Criterion) {
    // `REA_LARGE_HAR` names the capture where `shared/` is not beside the repository.
    let path = std::env::var_os("REA_LARGE_HAR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures/kinto/large.har")
        });
    if !path.is_file() {
        eprintln!("skipping: {} is not there", path.display());
        return;
    }
    let decoded = rea_core::inspect_web_network_capture(&rea_core::InspectRequest::har(&path))
        .expect("decode");
    let evidence: Value = serde_json::to_value(&decoded).expect("Evidence JSON");
    let rules = TemplateRule::parse_list(&[
        "after-uid-literal",
        "opaque-token",
        "sibling-pair-variance",
        "sibling-variance",
        "prefix-variance",
    ])
    .expect("rules");
    let started = std::time::Instant::now();
    let manifest = rea_derivation::environment_manifest(&evidence, &rules, true).expect("manifest");
    let manifest_time = started.elapsed();
    let started = std::time::Instant::now();
    let state = environment_state(&evidence, &rules).expect("state");
    eprintln!(
        "one run: manifest alone {manifest_time:?} ({} tools); manifest + state + writes {:?}",
        manifest.tools.len(),
        started.elapsed()
    );
    eprintln!(
        "large.har: {} types, {} entities, {} documents, {} views, {} writes",
        state.types.len(),
        state.entities.len(),
        state.documents.len(),
        state.views.len(),
        state.writes.len()
    );
    let mut group = c.benchmark_group("environment_state");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.bench_function("kinto_large_har", |b| {
        b.iter(|| environment_state(&evidence, &rules).expect("state"))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
