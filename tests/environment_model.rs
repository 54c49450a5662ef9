//! The app model (`rea environment-model`) of the three dev-a captures:
//! golden documents compared byte for byte (regenerate with
//! `REA_UPDATE_GOLDEN=1`), validated against
//! `manifests/environment-model.schema.json`, plus the command line. The
//! spec's own documents are untouched (their goldens are checked elsewhere).

use rea_core::{inspect_web_network_capture, InspectRequest};
use rea_derivation::environment_model;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const CAPTURES: [&str; 3] = ["kinto/dev-a.har", "wordpress/dev-a.har", "mlflow/dev-a.har"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn model_text(path: &Path) -> String {
    let evidence = inspect_web_network_capture(&InspectRequest::har(path)).expect("decode");
    let evidence = serde_json::to_value(&evidence).expect("evidence JSON");
    let model = environment_model(&evidence).expect("model");
    serde_json::to_string_pretty(&model).expect("model JSON") + "\n"
}

fn schema() -> jsonschema::Validator {
    let text = std::fs::read_to_string(root().join("manifests/environment-model.schema.json"))
        .expect("schema file");
    let schema: Value = serde_json::from_str(&text).expect("schema JSON");
    jsonschema::validator_for(&schema).expect("valid schema")
}

#[test]
fn golden_models_of_the_dev_captures() {
    let validator = schema();
    let update = std::env::var_os("REA_UPDATE_GOLDEN").is_some();
    let mut mismatches = Vec::new();
    for rel in CAPTURES {
        let file = root().join("tests/fixtures").join(rel);
        let text = model_text(&file);
        assert_eq!(
            text,
            model_text(&file),
            "model of {rel} is not deterministic"
        );
        let value: Value = serde_json::from_str(&text).expect("json");
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{rel} does not fit the schema: {errors:#?}"
        );
        let name = rel.replace('/', "__").replace(".har", ".model.json");
        let golden = root().join("tests/golden/environment-model").join(&name);
        if update {
            std::fs::create_dir_all(golden.parent().unwrap()).expect("golden dir");
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

#[test]
fn a_model_with_a_cascade_fits_the_schema() {
    // MLflow dev-b records an experiment delete that cascades to its runs.
    let text = model_text(&root().join("tests/fixtures/mlflow/dev-b.har"));
    let value: Value = serde_json::from_str(&text).expect("json");
    let cascades: Vec<&Value> = value["writes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w.get("cascades"))
        .collect();
    assert_eq!(cascades.len(), 1, "one write cascades");
    let errors: Vec<String> = schema()
        .iter_errors(&value)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn every_inference_names_records_of_the_capture() {
    // Every ordinal the model cites is one of the records it read.
    for rel in CAPTURES {
        let value: Value =
            serde_json::from_str(&model_text(&root().join("tests/fixtures").join(rel))).unwrap();
        let records: Vec<u64> = value["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        let mut cited = Vec::new();
        collect_ordinals(&value, "", &mut cited);
        assert!(!cited.is_empty());
        for (at, o) in cited {
            assert!(records.contains(&o), "{rel}: {at} cites #{o}");
        }
        for r in value["resources"].as_array().unwrap() {
            assert!(
                !r["supported_by"].as_array().unwrap().is_empty(),
                "{rel}: {r}"
            );
        }
    }
}

fn collect_ordinals(v: &Value, key: &str, out: &mut Vec<(String, u64)>) {
    match v {
        Value::Object(m) => m.iter().for_each(|(k, c)| collect_ordinals(c, k, out)),
        Value::Array(items) => {
            for c in items {
                if matches!(
                    key,
                    "supported_by" | "checked_against" | "contradicted_by" | "ordinals"
                ) {
                    if let Some(o) = c.as_u64() {
                        out.push((key.to_string(), o));
                    }
                }
                collect_ordinals(c, key, out);
            }
        }
        _ => {}
    }
}

#[test]
fn command_prints_the_model_and_a_summary() {
    let capture = root().join("tests/fixtures/mlflow/dev-a.har");
    let out = Command::new(env!("CARGO_BIN_EXE_rea"))
        .arg("environment-model")
        .arg(&capture)
        .arg("--json")
        .output()
        .expect("run rea");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let value: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(value["view"], "environment-model");
    let text = Command::new(env!("CARGO_BIN_EXE_rea"))
        .arg("environment-model")
        .arg(&capture)
        .output()
        .expect("run rea");
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("run [rpc] /api/2.0/mlflow/runs"), "{text}");
    let missing = Command::new(env!("CARGO_BIN_EXE_rea"))
        .arg("environment-model")
        .arg(root().join("tests/fixtures/no-such.har"))
        .arg("--json")
        .output()
        .expect("run rea");
    assert!(!missing.status.success());
    let err: Value = serde_json::from_slice(&missing.stderr).expect("error JSON");
    assert!(
        err.get("code").is_some() || err.get("error").is_some(),
        "{err}"
    );
}
