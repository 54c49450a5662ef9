//! Scores `rea environment-serve` with the shared fidelity harness on the
//! Django REST framework pair (`tests/fixtures/drf/`, both directions):
//! each direction fails 2 points below its measured score, and
//! `rea environment-check` agrees with fidelity.py on every pair within one
//! request. The pattern of `tests/fidelity.rs`, on this project's own
//! captures.

mod common;

use common::{rea, repo_root};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

/// (train, scored, measured %): fidelity.py against `rea environment-serve`
/// on branch h-drf (2026-12-02; ANALYSIS.md has the table and the misses).
const MEASURED: [(&str, &str, f64); 2] = [("dev-a", "dev-b", 85.1), ("dev-b", "dev-a", 79.5)];

fn harness() -> PathBuf {
    let shared = repo_root().join("../shared/fidelity/fidelity.py");
    if shared.is_file() {
        shared
    } else {
        repo_root().join("tests/fidelity/fidelity.py")
    }
}

fn session(name: &str) -> PathBuf {
    repo_root()
        .join("tests/fixtures/drf")
        .join(format!("{name}.har"))
}

fn fidelity(train: &str, scored: &str) -> (Value, String) {
    let report = tempfile::NamedTempFile::new().unwrap();
    let serve = format!("'{}' environment-serve {{capture}} --port {{port}}", rea());
    let out = Command::new(repo_root().join(".venv/bin/python"))
        .arg(harness())
        .arg("--train")
        .arg(session(train))
        .arg("--heldout")
        .arg(session(scored))
        .args(["--serve", &serve, "--json"])
        .arg(report.path())
        .output()
        .expect("run fidelity.py");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "fidelity.py failed on {train} -> {scored}: {text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = serde_json::from_slice(&std::fs::read(report.path()).unwrap()).unwrap();
    (json, text)
}

fn check(train: &str, scored: &str) -> Value {
    let out = Command::new(rea())
        .arg("environment-check")
        .arg(session(train))
        .arg("--against")
        .arg(session(scored))
        .arg("--json")
        .output()
        .expect("run rea environment-check");
    assert!(out.status.success());
    serde_json::from_slice(&out.stdout).expect("a JSON report")
}

fn verdicts(report: &Value) -> Vec<(u64, String)> {
    report["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["i"].as_u64().unwrap(),
                r["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn the_drf_pair_scores_at_least_its_floors_both_ways_and_environment_check_agrees() {
    let status = Command::new("bash")
        .arg(repo_root().join("tests/python/setup.sh"))
        .status()
        .unwrap();
    assert!(status.success());
    let results: Vec<_> = std::thread::scope(|s| {
        let runs: Vec<_> = MEASURED
            .iter()
            .map(|&(a, b, m)| s.spawn(move || (a, b, m, fidelity(a, b), check(a, b))))
            .collect();
        runs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut failures = Vec::new();
    for (train, scored, measured, (fid, text), chk) in &results {
        println!("== {train} -> {scored}\n{text}");
        let score = fid["summary"]["score"].as_f64().unwrap_or(0.0);
        if score < measured - 2.0 {
            failures.push(format!(
                "{train} -> {scored}: fidelity {score}% is below the floor {}%",
                measured - 2.0
            ));
        }
        let (a, b) = (verdicts(fid), verdicts(chk));
        let differing: Vec<u64> = a
            .iter()
            .zip(&b)
            .filter(|(x, y)| x != y)
            .map(|(x, _)| x.0)
            .collect();
        if a.len() != b.len() || differing.len() > 1 {
            failures.push(format!(
                "{train} -> {scored}: environment-check disagrees with fidelity.py on {differing:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
