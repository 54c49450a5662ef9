//! The native mitmproxy decoder next to a bare tnetstring framing scan of
//! the same bytes, in one run. Input: the committed `.mitm` fixtures
//! (`tests/fixtures/formats/`, `tests/fixtures/kinto/`) concatenated and
//! repeated to about 8 MiB (a flow file is a plain sequence of flows).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rea_core::mitm::{self, record, tnetstring};
use rea_core::redact::Declared;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

fn flows() -> Vec<u8> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
    let mut one = Vec::new();
    for name in [
        "formats/api-http1.mitm",
        "formats/ws-h2.mitm",
        "formats/grpc-native.mitm",
        "formats/grpc-web.mitm",
        "formats/protobuf-http1.mitm",
        "kinto/dev-a.mitm",
        "kinto/dev-b.mitm",
    ] {
        one.extend(std::fs::read(root.join(name)).expect("fixture"));
    }
    let mut bytes = Vec::new();
    while bytes.len() < 8 * 1024 * 1024 {
        bytes.extend_from_slice(&one);
    }
    bytes
}

/// The whole decoder: read, profile check, every flow to its Evidence record.
fn decode_to_records(bytes: &[u8]) -> usize {
    let decoded = mitm::decode(bytes).unwrap();
    let mut fields = 0;
    for (i, item) in decoded.flows.iter().enumerate() {
        let c =
            record::convert(&item.value, &format!("/{i}"), i as u64, Declared::new(&[])).unwrap();
        fields += c.binary_fields.len();
    }
    fields
}

fn bench(c: &mut Criterion) {
    let bytes = flows();
    let mut group = c.benchmark_group("mitm");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.sample_size(10);
    group.bench_function("tnetstring_scan", |b| {
        b.iter(|| black_box(tnetstring::scan(black_box(&bytes)).unwrap()))
    });
    group.bench_function("tnetstring_read_all", |b| {
        b.iter(|| black_box(tnetstring::read_all(black_box(&bytes)).unwrap()))
    });
    group.bench_function("mitm_decode_to_evidence_records", |b| {
        b.iter(|| black_box(decode_to_records(black_box(&bytes))))
    });
    group.finish();
    cpu_time_ratio(&bytes);
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

/// The three workloads interleaved and timed in thread CPU time, so the
/// ratios hold on a machine shared with other work.
fn cpu_time_ratio(bytes: &[u8]) {
    const ROUNDS: u32 = 6;
    let mut spent = [Duration::ZERO; 3];
    for _ in 0..ROUNDS {
        let start = thread_cpu();
        black_box(tnetstring::scan(bytes).unwrap());
        spent[0] += thread_cpu() - start;
        let start = thread_cpu();
        drop(black_box(tnetstring::read_all(bytes).unwrap()));
        spent[1] += thread_cpu() - start;
        let start = thread_cpu();
        black_box(decode_to_records(bytes));
        spent[2] += thread_cpu() - start;
    }
    let mib = bytes.len() as f64 * f64::from(ROUNDS) / (1024.0 * 1024.0);
    let rate: Vec<f64> = spent.iter().map(|d| mib / d.as_secs_f64()).collect();
    println!(
        "thread CPU time, {ROUNDS} interleaved rounds of {} bytes:",
        bytes.len()
    );
    println!(
        "  tnetstring::scan (bare framing)      {:8.1} MiB/s",
        rate[0]
    );
    println!(
        "  tnetstring::read_all (values)        {:8.1} MiB/s  ratio {:.3}",
        rate[1],
        rate[1] / rate[0]
    );
    println!(
        "  mitm decode + Evidence records       {:8.1} MiB/s  ratio {:.3}",
        rate[2],
        rate[2] / rate[0]
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
