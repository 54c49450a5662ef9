//! Decode + validate of the 30 MiB `large.har` next to a plain
//! `serde_json::from_slice::<Value>` of the same bytes, in one run.
//! The capture is read from `../shared/fixtures/kinto/large.har` relative
//! to the repository root (or `REA_LARGE_HAR`); without it the bench says so
//! and measures nothing.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::path::PathBuf;

fn large_har() -> Option<Vec<u8>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let path = std::env::var_os("REA_LARGE_HAR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let beside = root.join("../shared/fixtures/kinto/large.har");
            // A worktree one level deeper than a clone finds it one folder further up.
            let further = root.join("../../shared/fixtures/kinto/large.har");
            if !beside.exists() && further.exists() {
                further
            } else {
                beside
            }
        });
    match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(e) => {
            eprintln!("decode bench skipped: cannot read {}: {e}", path.display());
            None
        }
    }
}

fn decode(c: &mut Criterion) {
    let Some(bytes) = large_har() else { return };
    let mut group = c.benchmark_group("large_har");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.sample_size(10);
    group.bench_function("serde_json_from_slice_value", |b| {
        b.iter(|| {
            black_box(serde_json::from_slice::<serde_json::Value>(black_box(&bytes)).unwrap())
        })
    });
    group.bench_function("rea_json_parse", |b| {
        b.iter(|| black_box(rea_core::json::parse(black_box(&bytes)).unwrap()))
    });
    group.bench_function("rea_har_decode_and_validate", |b| {
        b.iter(|| black_box(rea_core::har::decode(black_box(&bytes), None).unwrap()))
    });
    group.finish();
}

criterion_group!(benches, decode);
criterion_main!(benches);
