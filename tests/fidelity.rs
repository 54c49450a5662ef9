//! Scores `rea environment-serve` with the shared fidelity harness
//! (`../shared/fidelity/fidelity.py` relative to the repo root when that
//! folder is there, else the copy in `tests/fidelity/`): trained on
//! Kinto `dev-a.har`, replaying the held-out `dev-b.har`. Fails below the
//! measured floor minus 2 points.

mod common;

use common::{fixture, repo_root};
use std::process::Command;

/// The score measured on dev-a → dev-b (37/43 when this test was written;
/// 40/43 with the app model, docs/environment-model.md). The test fails 2
/// points below it.
const MEASURED_PERCENT: f64 = 93.0;

#[test]
fn heldout_kinto_session_scores_at_least_the_measured_floor() {
    let root = repo_root();
    let shared = root.join("../shared/fidelity/fidelity.py");
    let harness = if shared.is_file() {
        shared
    } else {
        root.join("tests/fidelity/fidelity.py")
    };
    let status = Command::new("bash")
        .arg(root.join("tests/python/setup.sh"))
        .status()
        .unwrap();
    assert!(status.success());
    let report = tempfile::NamedTempFile::new().unwrap();
    let serve = format!(
        "'{}' environment-serve {{capture}} --port {{port}}",
        common::rea()
    );
    let out = Command::new(root.join(".venv/bin/python"))
        .arg(&harness)
        .args(["--train"])
        .arg(fixture("dev-a.har"))
        .args(["--heldout"])
        .arg(fixture("dev-b.har"))
        .args(["--serve", &serve, "--json"])
        .arg(report.path())
        .output()
        .expect("run fidelity.py");
    let text = String::from_utf8_lossy(&out.stdout);
    println!("{text}");
    assert!(
        out.status.success(),
        "fidelity.py failed: {text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let last = text
        .lines()
        .rev()
        .find(|l| l.starts_with("fidelity: "))
        .expect("score line");
    let percent: f64 = last
        .trim_start_matches("fidelity: ")
        .split('%')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let floor = MEASURED_PERCENT - 2.0;
    assert!(
        percent >= floor,
        "fidelity {percent}% is below the floor {floor}% ({last})"
    );
}
