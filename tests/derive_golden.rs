//! Golden files: for every real HAR fixture, the api-surface view and the
//! environment manifest (without rules and with all five) are compared
//! byte for byte with `tests/golden/`. A mismatch is written beside the
//! golden as `*.actual.json`; `REA_UPDATE_GOLDEN=1` rewrites the goldens.
//! Every output also validates against its schema under `manifests/`.

use rea_core::{inspect_web_network_capture, InspectRequest};
use rea_derivation::view::ApiSurfaceView;
use rea_derivation::{api_surface, environment_manifest, TemplateRule};
use serde_json::Value;
use std::path::{Path, PathBuf};

const FIXTURES: &[&str] = &[
    "kinto/dev-a.har",
    "kinto/dev-b.har",
    "kinto/dev-a.playwright.har",
    "formats/api-http1.har",
    "formats/grpc-native.har",
    "formats/grpc-web.har",
    "formats/protobuf-http1.har",
    "formats/ws-h2.har",
];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn evidence(fixture: &str) -> Value {
    let path = Path::new("tests/fixtures").join(fixture);
    let mut request = InspectRequest::har(repo().join(&path));
    request.capture_path = repo().join(path);
    let evidence =
        inspect_web_network_capture(&request).unwrap_or_else(|e| panic!("{fixture}: {e}"));
    serde_json::to_value(&evidence).expect("Evidence JSON")
}

/// The three documents of one fixture, as pretty JSON text.
fn documents(ev: &Value) -> Vec<(&'static str, &'static str, String)> {
    let surface_view = ApiSurfaceView {
        offset: 0,
        limit: 10_000,
        include_query_parameter_names: true,
    };
    let surface = api_surface(ev, &surface_view).expect("api-surface");
    let plain = environment_manifest(ev, &[], true).expect("manifest");
    let all = environment_manifest(ev, &TemplateRule::ALL, true).expect("manifest with rules");
    let text = |v: &Value| serde_json::to_string_pretty(v).expect("JSON") + "\n";
    vec![
        ("api-surface", "api-surface.schema.json", text(&surface)),
        (
            "manifest",
            "environment-manifest.schema.json",
            text(&serde_json::to_value(&plain).unwrap()),
        ),
        (
            "manifest.all-rules",
            "environment-manifest.schema.json",
            text(&serde_json::to_value(&all).unwrap()),
        ),
    ]
}

fn validator(schema: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(repo().join("manifests").join(schema)).expect("schema file");
    let schema: Value = serde_json::from_str(&text).expect("schema JSON");
    jsonschema::validator_for(&schema).expect("schema compiles")
}

#[test]
fn goldens_match_byte_for_byte() {
    let update = std::env::var_os("REA_UPDATE_GOLDEN").is_some_and(|v| v == "1");
    let mut mismatches = Vec::new();
    for fixture in FIXTURES {
        let ev = evidence(fixture);
        let stem = fixture.trim_end_matches(".har");
        for (kind, schema, text) in documents(&ev) {
            let doc: Value = serde_json::from_str(&text).unwrap();
            let v = validator(schema);
            let errors: Vec<String> = v
                .iter_errors(&doc)
                .map(|e| format!("{e} at {}", e.instance_path()))
                .collect();
            assert!(errors.is_empty(), "{fixture} {kind}: {errors:#?}");

            let golden = repo()
                .join("tests/golden")
                .join(format!("{stem}.{kind}.json"));
            let actual = golden.with_extension("actual.json");
            if update {
                std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
                std::fs::write(&golden, &text).unwrap();
                let _ = std::fs::remove_file(&actual);
                continue;
            }
            match std::fs::read_to_string(&golden) {
                Ok(expected) if expected == text => {
                    let _ = std::fs::remove_file(&actual);
                }
                _ => {
                    std::fs::write(&actual, &text).unwrap();
                    mismatches.push(golden.strip_prefix(repo()).unwrap().display().to_string());
                }
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "golden mismatch (see *.actual.json; regenerate with REA_UPDATE_GOLDEN=1): {mismatches:#?}"
    );
}

#[test]
fn deriving_twice_gives_identical_bytes() {
    for fixture in ["kinto/dev-a.har", "formats/api-http1.har"] {
        let first = documents(&evidence(fixture));
        let second = documents(&evidence(fixture));
        assert_eq!(first, second, "{fixture}");
    }
}
