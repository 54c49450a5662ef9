//! State derivation time on the 30 MiB Kinto capture
//! (`../shared/fixtures/kinto/large.har` relative to the repository root,
//! or the file `REA_LARGE_HAR` names).
//! The Evidence is built once from the HAR entries (decoding is measured
//! by the decoder's own benchmark); the measured step is manifest + state
//! + write plans with all five opt-in template rules.

use criterion::{criterion_group, criterion_main, Criterion};
use rea_derivation::state::environment_state;
use rea_derivation::TemplateRule;
use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;

fn evidence_of(har: &Value) -> Value {
    let entries = har["log"]["entries"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let total = entries.len();
    let records: Vec<Value> = entries
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            json!({"ordinal": i, "location": {"kind": "json-pointer", "pointer": format!("/log/entries/{i}")},
                   "reported": e, "numeric_literals": [], "binary_fields": []})
        })
        .collect();
    json!({
        "evidence_version": "rea.evidence/1", "operation": "inspect_web_network_capture", "subject": null,
        "basis": "observed",
        "parameters": {"format": "har", "record_ordinals": null, "detail": "complete", "sensitive_value_count": 0},
        "artifact": {"path": "large.har", "sha256": null, "size": 0},
        "capture": {"format": "har", "decoder": {"name": "rea-har"}, "container": {"log": {"entries": null}},
                    "records_pointer": "/log/entries", "total_records": total, "retained_records": total},
        "records": records, "redactions": [], "limitations": [], "explanations": []
    })
}

fn bench(c: &mut Criterion) {
    // `REA_LARGE_HAR` names the capture where `shared/` is not beside the repository.
    let path = std::env::var_os("REA_LARGE_HAR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures/kinto/large.har")
        });
    let Ok(bytes) = std::fs::read(&path) else {
        eprintln!("skipping: {} is not there", path.display());
        return;
    };
    let har: Value = serde_json::from_slice(&bytes).expect("large.har is JSON");
    let evidence = evidence_of(&har);
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
