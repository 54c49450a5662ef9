//! Decode + validate of the 30 MiB `large.har` next to a plain
//! `serde_json::from_slice::<Value>` of the same bytes, in one run.
//! The capture is read from `../shared/fixtures/kinto/large.har` relative
//! to the repository root (or `REA_LARGE_HAR`); without it the bench says so
//! and measures nothing.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

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
    cpu_time_ratio(&bytes);
}

/// Thread CPU time of the current thread.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// The same three workloads interleaved and timed in thread CPU time, so
/// the ratio holds on a machine shared with other work (wall-clock
/// samples above swing with the load).
fn cpu_time_ratio(bytes: &[u8]) {
    const ROUNDS: u32 = 6;
    let mut spent = [Duration::ZERO; 3];
    for _ in 0..ROUNDS {
        let start = thread_cpu();
        drop(black_box(
            serde_json::from_slice::<serde_json::Value>(bytes).unwrap(),
        ));
        spent[0] += thread_cpu() - start;
        let start = thread_cpu();
        drop(black_box(rea_core::json::parse(bytes).unwrap()));
        spent[1] += thread_cpu() - start;
        let start = thread_cpu();
        drop(black_box(rea_core::har::decode(bytes, None).unwrap()));
        spent[2] += thread_cpu() - start;
    }
    let mib = bytes.len() as f64 * f64::from(ROUNDS) / (1024.0 * 1024.0);
    let rate: Vec<f64> = spent.iter().map(|d| mib / d.as_secs_f64()).collect();
    println!(
        "thread CPU time, {ROUNDS} interleaved rounds of {} bytes:",
        bytes.len()
    );
    println!("  serde_json::from_slice::<Value>   {:8.1} MiB/s", rate[0]);
    println!(
        "  rea_core::json::parse             {:8.1} MiB/s  ratio {:.2}",
        rate[1],
        rate[1] / rate[0]
    );
    println!(
        "  rea_core::har::decode (+validate) {:8.1} MiB/s  ratio {:.2}",
        rate[2],
        rate[2] / rate[0]
    );
}

criterion_group!(benches, decode);
criterion_main!(benches);
