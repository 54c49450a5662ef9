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

/// Evidence of a fixture through the real decoder (`rea inspect-web-network-capture`).
fn inspect(capture: &str, extra: &[&str]) -> Vec<u8> {
    let mut args = vec!["inspect-web-network-capture", capture, "har", "--json"];
    args.extend_from_slice(extra);
    let out = rea(&args, None);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn view(source: &str, view: &str, stdin: Option<&[u8]>) -> Value {
    let out = rea(
        &[
            "inspect-analysis-view",
            "--source-file",
            source,
            "--view",
            view,
            "--json",
        ],
        stdin,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("view JSON")
}

#[test]
fn inline_and_file_sources_answer_the_same_capture_page() {
    let evidence = inspect("tests/fixtures/kinto/dev-a.har", &[]);
    let inline = view("-", r#"{"kind":"capture"}"#, Some(&evidence));
    assert_eq!(inline["records"].as_array().unwrap().len(), 20);
    assert_eq!(inline["total_records"], 40);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ev.json");
    std::fs::write(&path, &evidence).unwrap();
    let from_file = view(
        path.to_str().unwrap(),
        r#"{"kind":"capture","detail":"preview","offset":0,"limit":20}"#,
        None,
    );
    assert_eq!(inline, from_file);
    let first = &from_file["records"][0];
    assert_eq!(first["method"], "GET");
    assert_eq!(first["status"], 200);
    assert_eq!(first["location"]["pointer"], "/log/entries/0");
    assert!(first["url"].as_str().unwrap().ends_with("/v1/"));
    assert!(first["bodies"][0]["sha256"].is_string());
    let text = from_file.to_string();
    assert!(!text.contains("\"headers\"") && !text.contains("Authorization"));
}

#[test]
fn complete_page_carries_sidecars() {
    let evidence = inspect("tests/fixtures/kinto/dev-a.har", &[]);
    let page = view(
        "-",
        r#"{"kind":"capture","detail":"complete","offset":0,"limit":1}"#,
        Some(&evidence),
    );
    let record = &page["records"][0];
    assert!(record["reported"]["request"]["headers"].is_array());
    assert!(record["binary_fields"].is_array());
    assert!(record["numeric_literals"].is_array());
}

#[test]
fn subset_parent_pages_in_its_own_order() {
    let evidence = inspect(
        "tests/fixtures/kinto/dev-a.har",
        &["--record", "2", "--record", "0"],
    );
    let page = view(
        "-",
        r#"{"kind":"capture","offset":1,"limit":1}"#,
        Some(&evidence),
    );
    assert_eq!(page["records"][0]["ordinal"], 0);
    assert_eq!(page["total_records"], 40);
    assert_eq!(page["retained_records"], 2);
    assert_eq!(page["coverage"]["complete"], true);
    assert_eq!(page["coverage"]["retained_records"], 2);
    let surface = view("-", r#"{"kind":"api-surface"}"#, Some(&evidence));
    assert!(surface["limitations"]
        .as_array()
        .unwrap()
        .iter()
        .any(|l| l.as_str().unwrap().contains("retains 2 of")));
}

#[test]
fn views_never_reopen_the_capture() {
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("cap.har");
    std::fs::copy(repo().join("tests/fixtures/kinto/dev-a.har"), &capture).unwrap();
    let evidence = inspect(capture.to_str().unwrap(), &[]);
    let ev_path = dir.path().join("ev.json");
    std::fs::write(&ev_path, &evidence).unwrap();
    let before = view(ev_path.to_str().unwrap(), r#"{"kind":"api-surface"}"#, None);
    std::fs::remove_file(&capture).unwrap();
    let after = view(ev_path.to_str().unwrap(), r#"{"kind":"api-surface"}"#, None);
    assert_eq!(before, after);
}

#[test]
fn sensitive_parent_is_refused_without_repeating_the_declaration() {
    let evidence = inspect(
        "tests/fixtures/kinto/dev-a.har",
        &["--sensitive-value", "prod-001"],
    );
    for v in [
        r#"{"kind":"api-surface","include_query_parameter_names":true}"#,
        r#"{"kind":"environment-manifest"}"#,
    ] {
        let out = rea(
            &[
                "inspect-analysis-view",
                "--source-file",
                "-",
                "--view",
                v,
                "--json",
            ],
            Some(&evidence),
        );
        assert_eq!(out.status.code(), Some(3));
        let err = error_of(&out);
        assert_eq!(err["details"]["reason"], "sensitive_values_unretained");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("prod-001"));
    }
}

#[test]
fn manifest_view_equals_the_shortcut_command() {
    let evidence = inspect("tests/fixtures/kinto/dev-a.har", &[]);
    let via_view = view(
        "-",
        r#"{"kind":"environment-manifest","template_rules":["prefix-variance","sibling-variance"],"include_query_parameter_names":true}"#,
        Some(&evidence),
    );
    let out = rea(
        &[
            "environment-manifest",
            "tests/fixtures/kinto/dev-a.har",
            "--template-rule",
            "sibling-variance",
            "--template-rule",
            "prefix-variance",
            "--query-parameter-names",
            "--json",
        ],
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shortcut: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(via_view, shortcut);
    let names: Vec<&str> = shortcut["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["path_template"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"/v1/buckets/shop/collections/products/records/{record_id}"));
}

#[test]
fn manifest_table_without_json() {
    let out = rea(
        &[
            "environment-manifest",
            "tests/fixtures/kinto/dev-a.har",
            "--template-rule",
            "none",
        ],
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("environment 127-0-0-1-37713 (http://127.0.0.1:37713)"),
        "{text}"
    );
    assert!(text.contains("get_buckets_shop_collections_products_records_by_uuid"));
    let out = rea(
        &[
            "environment-manifest",
            "tests/fixtures/kinto/dev-a.har",
            "--template-rule",
            "bogus",
            "--json",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(error_of(&out)["code"], "invalid_request");
}

/// One default (issue 15 part 5): `environment-manifest` and
/// `environment-state` use the template rules `environment-serve` uses (all
/// five) unless told otherwise; `inspect-analysis-view` keeps the spec's
/// default of none.
#[test]
fn derived_commands_share_the_served_template_rules_by_default() {
    let json_of = |args: &[&str]| -> Value {
        let out = rea(args, None);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("JSON on stdout")
    };
    let capture = "tests/fixtures/kinto/dev-a.har";
    let all: Vec<&str> = [
        "after-uid-literal",
        "opaque-token",
        "sibling-pair-variance",
        "sibling-variance",
        "prefix-variance",
    ]
    .to_vec();
    for command in ["environment-manifest", "environment-state"] {
        let default = json_of(&[command, capture, "--json"]);
        assert_eq!(
            default["template_rules"],
            serde_json::json!(all),
            "{command}"
        );
        let mut explicit = vec![command, capture, "--json"];
        for r in &all {
            explicit.extend(["--template-rule", r]);
        }
        assert_eq!(default, json_of(&explicit), "{command}");
        let none = json_of(&[command, capture, "--json", "--template-rule", "none"]);
        assert_eq!(none["template_rules"], serde_json::json!([]), "{command}");
    }
    let evidence = inspect(capture, &[]);
    let spec_default = view("-", r#"{"kind":"environment-manifest"}"#, Some(&evidence));
    assert_eq!(spec_default["template_rules"], serde_json::json!([]));
}
