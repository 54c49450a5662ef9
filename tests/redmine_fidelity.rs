//! Scores `rea environment-serve` on the Redmine pair
//! (`tests/fixtures/redmine/`, the held-out Rails-style app) with the shared
//! fidelity harness, both directions, and checks that `rea
//! environment-check` agrees with it request by request (within one). The
//! pattern of tests/fidelity.rs, on this folder's captures.

mod common;

use common::{rea, repo_root};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

/// Measured 2026-12-02 with fidelity.py against `rea environment-serve`
/// (and environment-check, which agreed on every request): dev-a → dev-b
/// 20/42 (47.6%), dev-b → dev-a 13/41 (31.7%); before the format-suffix,
/// 204, absence, reference, presence, validator and list kinds (1228f08)
/// 2/42 and 2/41. Each direction fails 2 points below its value.
const MEASURED: [(&str, &str, f64); 2] = [
    ("dev-a.har", "dev-b.har", 47.6),
    ("dev-b.har", "dev-a.har", 31.7),
];

fn harness() -> PathBuf {
    let root = repo_root();
    let shared = root.join("../shared/fidelity/fidelity.py");
    if shared.is_file() {
        shared
    } else {
        root.join("tests/fidelity/fidelity.py")
    }
}

fn capture(name: &str) -> PathBuf {
    repo_root().join("tests/fixtures/redmine").join(name)
}

fn fidelity(train: &str, scored: &str) -> (Value, String) {
    let report = tempfile::NamedTempFile::new().unwrap();
    let serve = format!("'{}' environment-serve {{capture}} --port {{port}}", rea());
    let out = Command::new(repo_root().join(".venv/bin/python"))
        .arg(harness())
        .arg("--train")
        .arg(capture(train))
        .arg("--heldout")
        .arg(capture(scored))
        .args(["--serve", &serve, "--json"])
        .arg(report.path())
        .output()
        .expect("run fidelity.py");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "fidelity.py failed: {text}");
    let json = serde_json::from_slice(&std::fs::read(report.path()).unwrap()).unwrap();
    (json, text)
}

fn check(train: &str, scored: &str) -> Value {
    let out = Command::new(rea())
        .arg("environment-check")
        .arg(capture(train))
        .arg("--against")
        .arg(capture(scored))
        .arg("--json")
        .output()
        .expect("run rea environment-check");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
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
fn the_redmine_pair_scores_at_least_its_floors_both_ways_and_environment_check_agrees() {
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
    for (a, b, measured, (fid, text), chk) in &results {
        println!("== {a} -> {b}\n{text}");
        let score = fid["summary"]["score"].as_f64().unwrap_or(0.0);
        if score < measured - 2.0 {
            failures.push(format!(
                "{a} -> {b}: fidelity {score}% is below {}%",
                measured - 2.0
            ));
        }
        let (x, y) = (verdicts(fid), verdicts(chk));
        let differing: Vec<u64> = x
            .iter()
            .zip(&y)
            .filter(|(p, q)| p != q)
            .map(|(p, _)| p.0)
            .collect();
        if x.len() != y.len() || differing.len() > 1 {
            failures.push(format!(
                "{a} -> {b}: environment-check disagrees on {differing:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
