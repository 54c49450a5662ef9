//! Every derived document validates against its committed JSON Schema
//! under `manifests/` (unit level, over fixture-wrapped Evidence).

use crate::capture_view::capture_page;
use crate::testkit::fixture;
use crate::view::{ApiSurfaceView, CaptureView, Detail};
use crate::{api_surface, environment_manifest, TemplateRule};
use serde_json::Value;

fn check(schema_text: &str, doc: &Value) {
    let schema: Value = serde_json::from_str(schema_text).expect("schema JSON");
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

const SURFACE: &str = include_str!("../../manifests/api-surface.schema.json");
const MANIFEST: &str = include_str!("../../manifests/environment-manifest.schema.json");
const CAPTURE: &str = include_str!("../../manifests/capture-view.schema.json");

#[test]
fn outputs_validate() {
    for name in [
        "kinto/dev-a.har",
        "kinto/dev-b.har",
        "formats/api-http1.har",
        "formats/ws-h2.har",
    ] {
        let ev = fixture(name);
        let view = ApiSurfaceView {
            include_query_parameter_names: true,
            ..Default::default()
        };
        check(SURFACE, &api_surface(&ev, &view).unwrap());
        for rules in [&[][..], &TemplateRule::ALL[..]] {
            let m = environment_manifest(&ev, rules, true).unwrap();
            check(MANIFEST, &serde_json::to_value(&m).unwrap());
        }
        for detail in [Detail::Preview, Detail::Complete] {
            check(
                CAPTURE,
                &capture_page(
                    &ev,
                    &CaptureView {
                        detail,
                        offset: 0,
                        limit: 5,
                    },
                )
                .unwrap(),
            );
        }
    }
}
