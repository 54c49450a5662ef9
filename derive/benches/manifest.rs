//! Manifest derivation time next to decode time on the 30 MiB Kinto
//! capture (`../shared/fixtures/kinto/large.har` from the repo root).
//! Skips (with a note) when that file is absent; `REA_LARGE_HAR=PATH`
//! names it explicitly (e.g. from a git worktree).

use criterion::{criterion_group, criterion_main, Criterion};
use rea_core::{inspect_web_network_capture, InspectRequest};
use rea_derivation::view::ApiSurfaceView;
use rea_derivation::{api_surface, environment_manifest, TemplateRule};
use std::path::PathBuf;
use std::time::Duration;

/// `REA_LARGE_HAR` when set, else `../shared/fixtures/kinto/large.har`
/// relative to the repository root.
fn large() -> Option<PathBuf> {
    let path = match std::env::var_os("REA_LARGE_HAR") {
        Some(p) => PathBuf::from(p),
        None => {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures/kinto/large.har")
        }
    };
    path.is_file().then_some(path)
}

fn bench(c: &mut Criterion) {
    let Some(path) = large() else {
        eprintln!("large.har not found next to the repository; nothing to measure");
        return;
    };
    let request = InspectRequest::har(&path);
    let mut group = c.benchmark_group("kinto-large");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    group.bench_function("decode (inspect_web_network_capture)", |b| {
        b.iter(|| inspect_web_network_capture(&request).expect("decode"))
    });
    let evidence = inspect_web_network_capture(&request).expect("decode");
    group.bench_function("evidence to JSON value", |b| {
        b.iter(|| serde_json::to_value(&evidence).expect("value"))
    });
    let value = serde_json::to_value(&evidence).expect("value");
    group.bench_function("api-surface", |b| {
        b.iter(|| api_surface(&value, &ApiSurfaceView::default()).expect("view"))
    });
    group.bench_function("environment-manifest (no rules)", |b| {
        b.iter(|| environment_manifest(&value, &[], true).expect("manifest"))
    });
    group.bench_function("environment-manifest (all rules)", |b| {
        b.iter(|| environment_manifest(&value, &TemplateRule::ALL, true).expect("manifest"))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
