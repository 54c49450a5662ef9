//! The SAZ decoder next to a plain `zip` extraction of every member of the
//! same archive, in one run: the real 96 KB `NewCaseName1.saz` fixture and
//! a 600-session archive written here with the `zip` writer (JSON request
//! and response bodies, Fiddler-style metadata). Criterion's wall-clock
//! samples first, then interleaved thread-CPU rounds with the ratios.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rea_core::inspect::InspectRequest;
use rea_core::read::Snapshot;
use rea_core::redact::Declared;
use std::hint::black_box;
use std::io::{Cursor, Read, Write};
use std::path::PathBuf;
use std::time::Duration;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

fn fixture() -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/formats/saz/NewCaseName1.saz");
    std::fs::read(path).expect("the SAZ fixture")
}

/// A Fiddler-shaped archive: `raw/N_c.txt`, `raw/N_s.txt`, `raw/N_m.xml` per session.
fn synthetic(sessions: usize) -> Vec<u8> {
    let mut w = ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    w.add_directory("raw/", options).unwrap();
    for i in 1..=sessions {
        let body: String = (0..40)
            .map(|k| format!("{{\"id\":{},\"name\":\"item-{i}-{k}\",\"tags\":[\"a\",\"b\"],\"price\":{}.{:02}}},", i * 100 + k, k * 7, k))
            .collect();
        let request = format!(
            "POST https://api.example/items/{i} HTTP/1.1\r\nHost: api.example\r\nContent-Type: application/json\r\nAccept: */*\r\nX-Trace: {i}\r\nX-Trace: {i}b\r\nContent-Length: 13\r\n\r\n{{\"q\":\"x{i}\"}}"
        );
        let response = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nServer: bench\r\nCache-Control: no-cache\r\n\r\n[{}]",
            body.len() + 1,
            body.trim_end_matches(',')
        );
        let metadata = format!(
            "\u{feff}<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n<Session SID=\"{i}\" BitFlags=\"19\">\r\n  <SessionTimers ClientConnected=\"2026-11-30T10:00:00.1234567-07:00\" ClientBeginRequest=\"2026-11-30T10:00:00.2-07:00\" ServerDoneResponse=\"2026-11-30T10:00:00.3-07:00\" />\r\n  <PipeInfo CltReuse=\"true\" Reused=\"true\" />\r\n  <SessionFlags>\r\n    <SessionFlag N=\"x-clientip\" V=\"127.0.0.1\" />\r\n    <SessionFlag N=\"x-clientport\" V=\"{}\" />\r\n    <SessionFlag N=\"x-processinfo\" V=\"bench:1\" />\r\n  </SessionFlags>\r\n</Session>",
            50_000 + i
        );
        for (suffix, bytes) in [("c.txt", request), ("s.txt", response), ("m.xml", metadata)] {
            w.start_file(format!("raw/{i}_{suffix}"), options).unwrap();
            w.write_all(bytes.as_bytes()).unwrap();
        }
    }
    w.finish().unwrap().into_inner()
}

/// The baseline: open the archive and inflate every member, nothing else.
fn extract_all(bytes: &[u8]) -> usize {
    let mut zip = ZipArchive::new(Cursor::new(bytes)).unwrap();
    let mut total = 0;
    for i in 0..zip.len() {
        let mut file = zip.by_index(i).unwrap();
        let mut out = Vec::with_capacity(file.size() as usize);
        file.read_to_end(&mut out).unwrap();
        total += out.len();
    }
    total
}

fn evidence(bytes: &[u8], request: &InspectRequest) -> Vec<u8> {
    let snapshot = Snapshot {
        bytes: bytes.to_vec(),
        sha256: String::new(),
        size: bytes.len() as u64,
    };
    let ev =
        rea_core::saz::evidence::inspect(request, Declared::new(&[]), &snapshot, None).unwrap();
    ev.to_json_bytes().unwrap()
}

fn saz(c: &mut Criterion) {
    let mut request = InspectRequest::har("bench.saz");
    request.format = "saz".into();
    for (name, bytes) in [
        ("fixture_NewCaseName1", fixture()),
        ("synthetic_600_sessions", synthetic(600)),
    ] {
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.sample_size(20);
        group.bench_function("zip_extract_all_members", |b| {
            b.iter(|| black_box(extract_all(black_box(&bytes))))
        });
        group.bench_function("rea_saz_decode", |b| {
            b.iter(|| black_box(rea_core::saz::decode(black_box(&bytes), None).unwrap()))
        });
        group.bench_function("rea_saz_evidence_json", |b| {
            b.iter(|| black_box(evidence(black_box(&bytes), &request)))
        });
        group.finish();
        cpu_time_ratio(name, &bytes, &request);
    }
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

/// The three workloads interleaved and timed in thread CPU time, so the
/// ratios hold on a machine shared with other work.
fn cpu_time_ratio(name: &str, bytes: &[u8], request: &InspectRequest) {
    const ROUNDS: u32 = 30;
    let mut spent = [Duration::ZERO; 3];
    for _ in 0..ROUNDS {
        let start = thread_cpu();
        black_box(extract_all(bytes));
        spent[0] += thread_cpu() - start;
        let start = thread_cpu();
        drop(black_box(rea_core::saz::decode(bytes, None).unwrap()));
        spent[1] += thread_cpu() - start;
        let start = thread_cpu();
        drop(black_box(evidence(bytes, request)));
        spent[2] += thread_cpu() - start;
    }
    let mib = bytes.len() as f64 * f64::from(ROUNDS) / (1024.0 * 1024.0);
    let rate: Vec<f64> = spent.iter().map(|d| mib / d.as_secs_f64()).collect();
    println!(
        "{name}: thread CPU time, {ROUNDS} interleaved rounds of {} archive bytes:",
        bytes.len()
    );
    println!("  zip extraction of every member     {:8.1} MiB/s", rate[0]);
    println!(
        "  rea_core::saz::decode              {:8.1} MiB/s  ratio {:.2}",
        rate[1],
        rate[1] / rate[0]
    );
    println!(
        "  decode + Evidence + JSON bytes     {:8.1} MiB/s  ratio {:.2}",
        rate[2],
        rate[2] / rate[0]
    );
}

criterion_group!(benches, saz);
criterion_main!(benches);
