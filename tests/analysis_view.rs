//! `rea inspect-analysis-view`: the built binary over Evidence files and
//! inline Evidence, its typed errors and exit codes.

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rea(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rea"))
        .args(args)
        .current_dir(repo())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run rea");
    {
        let mut input = child.stdin.take().expect("stdin");
        if let Some(bytes) = stdin {
            // rea may answer before reading stdin (a bad view): ignore a closed pipe.
            let _ = input.write_all(bytes);
        }
    }
    child.wait_with_output().expect("rea output")
}

fn error_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stderr)
        .unwrap_or_else(|_| panic!("stderr: {}", String::from_utf8_lossy(&out.stderr)))
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path.to_string_lossy().into_owned()
}

#[test]
fn invalid_evidence_file_reports_path_and_content_issues() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"{"evidence_version":"rea.evidence/1","operation":"inspect_web_network_capture",
        "parameters":{"sensitive_value_count":0},"capture":{"format":"har","total_records":1},
        "records":[{"ordinal":"zero","location":{"kind":"unknown"},"reported":null}]}"#;
    let path = write(dir.path(), "ev.json", text);
    let out = rea(
        &[
            "inspect-analysis-view",
            "--source-file",
            &path,
            "--view",
            r#"{"kind":"api-surface"}"#,
            "--json",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    let err = error_of(&out);
    assert_eq!(err["code"], "EvidenceFileError");
    assert_eq!(err["details"]["path"], path.as_str());
    assert_eq!(
        err["details"]["content_issues"][0]["pointer"],
        "/records/0/ordinal"
    );
}

#[test]
fn missing_file_is_unavailable() {
    let out = rea(
        &[
            "inspect-analysis-view",
            "--source-file",
            "no/such/ev.json",
            "--view",
            r#"{"kind":"api-surface"}"#,
            "--json",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(4));
    assert_eq!(error_of(&out)["code"], "EvidenceFileError");
}

#[test]
fn bad_view_is_invalid_request() {
    for view in [
        r#"{"kind":"api-surface","bogus":1}"#,
        r#"{"kind":"nope"}"#,
        "not json",
        r#"{"kind":"environment-manifest","template_rules":["opaque-token","opaque-token"]}"#,
    ] {
        let out = rea(
            &[
                "inspect-analysis-view",
                "--source-file",
                "-",
                "--view",
                view,
                "--json",
            ],
            Some(b"{}"),
        );
        assert_eq!(out.status.code(), Some(2), "{view}");
        assert_eq!(error_of(&out)["code"], "invalid_request", "{view}");
    }
}

#[test]
fn readable_error_without_json() {
    let out = rea(
        &[
            "inspect-analysis-view",
            "--source-file",
            "-",
            "--view",
            r#"{"kind":"api-surface"}"#,
        ],
        Some(b"[]"),
    );
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(text.starts_with("error: invalid_evidence"), "{text}");
}
