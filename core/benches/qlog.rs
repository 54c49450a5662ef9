//! The qlog decoder (lossless read, profile and event checks, exact QUIC
//! integer facts) next to a plain `serde_json::from_slice::<Value>` of the
//! same bytes, in one run. Inputs: the real aioquic `loss/origin.qlog`
//! (38 KiB) and an 8 MiB file made of its events repeated in one trace
//! (the stream facts then see many overlapping contributions).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde_json::Value;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

fn real() -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/formats/qlog/loss/origin.qlog");
    std::fs::read(&path).expect("the qlog fixture is committed")
}

/// The real file's events repeated until the document passes `target` bytes.
fn repeated(real: &[u8], target: usize) -> Vec<u8> {
    let mut doc: Value = serde_json::from_slice(real).unwrap();
    let events = doc["traces"][0]["events"].as_array().unwrap().clone();
    let one: usize = events.iter().map(|e| e.to_string().len() + 1).sum();
    let copies = target / one + 1;
    let all: Vec<Value> = (0..copies).flat_map(|_| events.iter().cloned()).collect();
    doc["traces"][0]["events"] = Value::Array(all);
    serde_json::to_vec(&doc).unwrap()
}

/// The whole decoder: read, profile and event checks, and the facts.
fn decode_all(bytes: &[u8]) -> rea_core::qlog::Decoded {
    rea_core::qlog::decode(bytes, None).unwrap()
}

fn bench(c: &mut Criterion) {
    let real = real();
    let large = repeated(&real, 8 * 1024 * 1024);
    for (name, bytes) in [("qlog_real_38k", &real), ("qlog_repeated_8m", &large)] {
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.sample_size(10);
        group.bench_function("serde_json_from_slice_value", |b| {
            b.iter(|| black_box(serde_json::from_slice::<Value>(black_box(bytes)).unwrap()))
        });
        group.bench_function("rea_qlog_decode_and_facts", |b| {
            b.iter(|| black_box(decode_all(black_box(bytes))))
        });
        group.finish();
        cpu_time_ratio(name, bytes);
    }
}

fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// The workloads interleaved in thread CPU time: a ratio that holds on a
/// shared machine. rea's lossless JSON reader alone is shown too, to say
/// how much of the decoder's cost is reading.
fn cpu_time_ratio(name: &str, bytes: &[u8]) {
    const ROUNDS: u32 = 6;
    let mut spent = [Duration::ZERO; 3];
    for _ in 0..ROUNDS {
        let start = thread_cpu();
        drop(black_box(serde_json::from_slice::<Value>(bytes).unwrap()));
        spent[0] += thread_cpu() - start;
        let start = thread_cpu();
        drop(black_box(decode_all(bytes)));
        spent[1] += thread_cpu() - start;
        let start = thread_cpu();
        drop(black_box(rea_core::json::parse(bytes).unwrap()));
        spent[2] += thread_cpu() - start;
    }
    let mib = bytes.len() as f64 * f64::from(ROUNDS) / (1024.0 * 1024.0);
    let rate: Vec<f64> = spent.iter().map(|d| mib / d.as_secs_f64()).collect();
    println!(
        "{name}: thread CPU time, {ROUNDS} interleaved rounds of {} bytes:",
        bytes.len()
    );
    println!(
        "  serde_json::from_slice::<Value>      {:8.1} MiB/s",
        rate[0]
    );
    println!(
        "  rea_core::qlog decode + facts        {:8.1} MiB/s  ratio {:.2}",
        rate[1],
        rate[1] / rate[0]
    );
    println!(
        "  (rea_core::json::parse alone          {:8.1} MiB/s  ratio {:.2})",
        rate[2],
        rate[2] / rate[0]
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
