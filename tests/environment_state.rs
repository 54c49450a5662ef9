//! The environment state of every real capture under `tests/fixtures/`:
//! golden documents compared byte for byte (regenerate with
//! `REA_UPDATE_GOLDEN=1`), validated against
//! `manifests/environment-state.schema.json`, plus the command line.

use rea_core::{inspect_web_network_capture, InspectRequest};
use rea_derivation::state::environment_state;
use rea_derivation::TemplateRule;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const ALL_RULES: [&str; 5] = [
    "after-uid-literal",
    "opaque-token",
    "sibling-pair-variance",
    "sibling-variance",
    "prefix-variance",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn hars(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("fixtures")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            hars(&p, out);
        } else if p.extension().is_some_and(|e| e == "har") {
            out.push(p);
        }
    }
}

fn evidence_of(path: &Path) -> Value {
    let evidence = inspect_web_network_capture(&InspectRequest::har(path)).expect("decode");
    serde_json::to_value(&evidence).expect("evidence JSON")
}

fn state_text(path: &Path) -> String {
    let rules = TemplateRule::parse_list(&ALL_RULES).expect("rules");
    let state = environment_state(&evidence_of(path), &rules).expect("state");
    serde_json::to_string_pretty(&state).expect("state JSON") + "\n"
}

fn schema() -> jsonschema::Validator {
    let text = std::fs::read_to_string(root().join("manifests/environment-state.schema.json"))
        .expect("schema file");
    let schema: Value = serde_json::from_str(&text).expect("schema JSON");
    jsonschema::validator_for(&schema).expect("valid schema")
}

#[test]
fn golden_states_of_every_fixture() {
    let mut files = Vec::new();
    hars(&root().join("tests/fixtures"), &mut files);
    assert!(files.len() >= 4, "fixtures found: {files:?}");
    let validator = schema();
    let update = std::env::var_os("REA_UPDATE_GOLDEN").is_some();
    let mut mismatches = Vec::new();
    for file in &files {
        let rel = file
            .strip_prefix(root().join("tests/fixtures"))
            .expect("relative");
        let name = rel
            .to_string_lossy()
            .replace(['/', '\\'], "__")
            .replace(".har", ".state.json");
        let golden = root().join("tests/golden/environment-state").join(&name);
        let text = state_text(file);
        assert_eq!(
            text,
            state_text(file),
            "state of {rel:?} is not deterministic"
        );
        let value: Value = serde_json::from_str(&text).expect("json");
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{rel:?} does not fit the schema: {errors:#?}"
        );
        if update {
            std::fs::write(&golden, &text).expect("write golden");
            continue;
        }
        match std::fs::read_to_string(&golden) {
            Ok(expected) if expected == text => {}
            _ => {
                let actual = golden.with_extension("actual.json");
                std::fs::write(&actual, &text).expect("write actual");
                mismatches.push(format!("{} (see {})", golden.display(), actual.display()));
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "golden mismatches (REA_UPDATE_GOLDEN=1 regenerates): {mismatches:#?}"
    );
}

/// The typed plan vocabulary reads every golden state document back and
/// writes it out byte for byte.
#[test]
fn golden_states_read_back_byte_for_byte() {
    let dir = root().join("tests/golden/environment-state");
    let mut read = 0;
    for entry in std::fs::read_dir(&dir).expect("goldens") {
        let path = entry.expect("entry").path();
        let name = path.to_string_lossy().to_string();
        if !name.ends_with(".state.json") || name.ends_with(".actual.json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("golden");
        let state: rea_derivation::state::State =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let again = serde_json::to_string_pretty(&state).expect("json") + "\n";
        assert!(again == text, "{name} does not read back byte for byte");
        read += 1;
    }
    assert!(read >= 4, "goldens read: {read}");
}

#[test]
fn command_prints_the_state_and_a_summary() {
    let capture = root().join("tests/fixtures/kinto/dev-a.har");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rea"));
    cmd.arg("environment-state").arg(&capture).arg("--json");
    for r in ALL_RULES {
        cmd.arg("--template-rule").arg(r);
    }
    let out = cmd.output().expect("run rea");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let expected: Value = serde_json::from_str(&state_text(&capture)).expect("json");
    assert_eq!(printed, expected);

    let out = Command::new(env!("CARGO_BIN_EXE_rea"))
        .arg("environment-state")
        .arg(&capture)
        .output()
        .expect("run rea");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("types:") && text.contains("views:") && text.contains("writes:"),
        "{text}"
    );
    assert!(text.contains("products_records: 20 entities"), "{text}");
}

#[test]
fn command_refuses_bad_rules_and_missing_files() {
    let capture = root().join("tests/fixtures/kinto/dev-a.har");
    let out = Command::new(env!("CARGO_BIN_EXE_rea"))
        .args(["environment-state"])
        .arg(&capture)
        .args(["--template-rule", "bogus", "--json"])
        .output()
        .expect("run rea");
    assert_eq!(out.status.code(), Some(2));
    let err: Value = serde_json::from_slice(&out.stderr).expect("JSON error");
    assert_eq!(err["code"], "invalid_request");
    let out = Command::new(env!("CARGO_BIN_EXE_rea"))
        .args(["environment-state", "no/such/file.har", "--json"])
        .output()
        .expect("run rea");
    assert!(!out.status.success());
    let err: Value = serde_json::from_slice(&out.stderr).expect("JSON error");
    assert!(err["code"].is_string());
}

#[test]
fn analysis_view_answers_the_environment_state_kind() {
    let capture = root().join("tests/fixtures/kinto/dev-a.har");
    let dir = tempfile::tempdir().expect("temp dir");
    let evidence = dir.path().join("evidence.json");
    let out = Command::new(env!("CARGO_BIN_EXE_rea"))
        .arg("inspect-web-network-capture")
        .arg(&capture)
        .args(["har", "--json"])
        .output()
        .expect("run rea");
    assert!(out.status.success());
    std::fs::write(&evidence, &out.stdout).expect("write evidence");
    let view =
        serde_json::json!({"kind": "environment-state", "template_rules": ALL_RULES}).to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_rea"))
        .arg("inspect-analysis-view")
        .arg("--source-file")
        .arg(&evidence)
        .args(["--view", &view, "--json"])
        .output()
        .expect("run rea");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answered: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let expected: Value = serde_json::from_str(&state_text(&capture)).expect("json");
    assert_eq!(answered, expected);
    let out = Command::new(env!("CARGO_BIN_EXE_rea"))
        .arg("inspect-analysis-view")
        .arg("--source-file")
        .arg(&evidence)
        .args([
            "--view",
            r#"{"kind":"environment-state","template_rules":["opaque-token","opaque-token"]}"#,
            "--json",
        ])
        .output()
        .expect("run rea");
    assert_eq!(out.status.code(), Some(2));
    let err: Value = serde_json::from_slice(&out.stderr).expect("JSON error");
    assert_eq!(err["code"], "invalid_request");
}
