//! Scores `rea environment-serve` with the shared fidelity harness
//! (`../shared/fidelity/fidelity.py` relative to the repo root when that
//! folder is there, else the copy in `tests/fidelity/`) on the three
//! developer pairs (Kinto from `tests/fixtures/kinto/`, WordPress and MLflow
//! from `../shared/fixtures/`), trained on `dev-a.har` and replaying the
//! held-out `dev-b.har`; each fails 2 points below its measured score. The same
//! test checks that `rea environment-check` agrees with fidelity.py on
//! every pair, live, within one request. `tests/fidelity/pairs.sh` prints
//! the whole table (both directions).

mod common;

use common::{rea, repo_root};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

/// The dev-a → dev-b scores measured with fidelity.py against
/// `rea environment-serve` (2026-12-01): at main cd4aea9 Kinto 37/43
/// (86.0%), WordPress 4/43 (9.3%), MLflow 0/43 (0.0%); with the app model
/// (docs/environment-model.md) Kinto 40/43 (93.0%), WordPress 7/43 (16.3%),
/// MLflow 16/43 (37.2%); with the list semantics too (main ee21f4b) Kinto
/// 40/43 (93.0%), WordPress 9/43 (20.9%), MLflow 19/43 (44.2%); with
/// singleton documents and log reads WordPress 11/43 (25.6%), MLflow 21/43
/// (48.8%); with shared id sequences, numbers within a key and lists that
/// follow the app model's writes (the next round) Kinto 40/43 (93.0%),
/// WordPress 14/43 (32.6%), MLflow 24/43 (55.8%); with contradicted plans
/// the model's replay confirms, references, revisions, empty results,
/// keyed arrays, aggregates and lists checked at their moment (the round
/// after) Kinto 40/43 (93.0%), WordPress 20/43 (46.5%), MLflow 28/43
/// (65.1%). Each pair fails 2 points below its value.
pub(crate) const MEASURED: [(&str, f64); 3] =
    [("kinto", 93.0), ("wordpress", 46.5), ("mlflow", 65.1)];

fn harness() -> PathBuf {
    let root = repo_root();
    let shared = root.join("../shared/fidelity/fidelity.py");
    if shared.is_file() {
        shared
    } else {
        root.join("tests/fidelity/fidelity.py")
    }
}

/// A developer capture: the project's copy in `tests/fixtures/` (Kinto),
/// else the shared fixture set beside the repo (WordPress, MLflow).
fn pair(app: &str, name: &str) -> PathBuf {
    let local = repo_root().join("tests/fixtures").join(app).join(name);
    if local.is_file() {
        local
    } else {
        repo_root().join("../shared/fixtures").join(app).join(name)
    }
}

/// Runs fidelity.py on one pair; returns its JSON report and text.
fn fidelity(app: &str) -> (Value, String) {
    let report = tempfile::NamedTempFile::new().unwrap();
    let serve = format!("'{}' environment-serve {{capture}} --port {{port}}", rea());
    let out = Command::new(repo_root().join(".venv/bin/python"))
        .arg(harness())
        .arg("--train")
        .arg(pair(app, "dev-a.har"))
        .arg("--heldout")
        .arg(pair(app, "dev-b.har"))
        .args(["--serve", &serve, "--json"])
        .arg(report.path())
        .output()
        .expect("run fidelity.py");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "fidelity.py failed on {app}: {text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = serde_json::from_slice(&std::fs::read(report.path()).unwrap()).unwrap();
    (json, text)
}

/// Runs `rea environment-check --json` on one pair.
fn check(app: &str) -> Value {
    let out = Command::new(rea())
        .arg("environment-check")
        .arg(pair(app, "dev-a.har"))
        .arg("--against")
        .arg(pair(app, "dev-b.har"))
        .arg("--json")
        .output()
        .expect("run rea environment-check");
    assert!(
        out.status.success(),
        "environment-check failed on {app}: {}",
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
fn heldout_dev_sessions_score_at_least_their_floors_and_environment_check_agrees() {
    let status = Command::new("bash")
        .arg(repo_root().join("tests/python/setup.sh"))
        .status()
        .unwrap();
    assert!(status.success());
    let results: Vec<(&str, f64, (Value, String), Value)> = std::thread::scope(|s| {
        let runs: Vec<_> = MEASURED
            .iter()
            .map(|&(app, measured)| s.spawn(move || (app, measured, fidelity(app), check(app))))
            .collect();
        runs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut failures = Vec::new();
    for (app, measured, (fid, text), chk) in &results {
        println!("== {app}\n{text}");
        let score = fid["summary"]["score"].as_f64().unwrap_or(0.0);
        let floor = measured - 2.0;
        if score < floor {
            failures.push(format!(
                "{app}: fidelity {score}% is below the floor {floor}%"
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
                "{app}: environment-check disagrees with fidelity.py on requests {differing:?} ({} vs {} scored)",
                b.len(),
                a.len()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
