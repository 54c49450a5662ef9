//! Benchmark: HAR schema validation of the 30 MiB `large.har` capture
//! (read from `../shared/fixtures/kinto/large.har` beside the repository),
//! next to a plain `serde_json` parse of the same bytes.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rea_core::har_schema::validate_har;
use std::hint::black_box;
use std::path::{Path, PathBuf};

/// `large.har`: `$REA_LARGE_HAR` if set, else `../shared/fixtures/kinto/`
/// beside the repository (or beside its parent, for a worktree).
fn large_har() -> Option<Vec<u8>> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut candidates: Vec<PathBuf> = std::env::var_os("REA_LARGE_HAR")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    for up in ["..", "../.."] {
        candidates.push(repo.join(up).join("shared/fixtures/kinto/large.har"));
    }
    candidates.iter().find_map(|path| std::fs::read(path).ok())
}

fn bench(c: &mut Criterion) {
    let Some(bytes) = large_har() else {
        eprintln!("large.har not found beside the repository; skipping");
        return;
    };
    let doc: serde_json::Value = serde_json::from_slice(&bytes).expect("large.har is JSON");
    let mut group = c.benchmark_group("large.har");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("serde_json::from_slice", |b| {
        b.iter(|| serde_json::from_slice::<serde_json::Value>(black_box(&bytes)).expect("JSON"))
    });
    group.bench_function("validate_har", |b| {
        b.iter(|| validate_har(black_box(&doc)).expect("valid"))
    });
    // The slow path: every entry needs the Playwright relaxation, so the
    // document fails as written and every entry is copied, relaxed and
    // validated on its own.
    let mut relaxed = doc.clone();
    relaxed["log"]["creator"] = serde_json::json!({"name": "Playwright", "version": "1.58.2"});
    if let Some(entries) = relaxed["log"]["entries"].as_array_mut() {
        for entry in entries {
            entry["serverIPAddress"] = serde_json::json!("[2001:db8::1]");
        }
    }
    group.bench_function("validate_har (Playwright, every address bracketed)", |b| {
        b.iter(|| validate_har(black_box(&relaxed)).expect("valid"))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
