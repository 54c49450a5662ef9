//! One entry point answering any parsed view request over parent Evidence.

use crate::capture_view::capture_page;
use crate::error::DeriveError;
use crate::manifest::{environment_manifest, environment_manifest_inline};
use crate::surface::{api_surface, api_surface_inline};
use crate::view::ViewRequest;
use serde_json::Value;

/// Answers `view` over `evidence`. `inline` says the Evidence came inline
/// (its envelope is then admitted as text before projection).
pub fn analysis_view(
    evidence: &Value,
    view: &ViewRequest,
    inline: bool,
) -> Result<Value, DeriveError> {
    match view {
        ViewRequest::ApiSurface(v) => {
            if inline {
                api_surface_inline(evidence, v)
            } else {
                api_surface(evidence, v)
            }
        }
        ViewRequest::EnvironmentManifest(v) => {
            let manifest = if inline {
                environment_manifest_inline(
                    evidence,
                    &v.template_rules,
                    v.include_query_parameter_names,
                )?
            } else {
                environment_manifest(evidence, &v.template_rules, v.include_query_parameter_names)?
            };
            serde_json::to_value(&manifest)
                .map_err(|e| DeriveError::invalid_request("", e.to_string()))
        }
        ViewRequest::Capture(v) => capture_page(evidence, v),
        ViewRequest::Qlog(v) => crate::qlog_view::qlog_page(evidence, v),
        ViewRequest::EnvironmentState(v) => {
            let state = crate::state::environment_state_view(evidence, &v.template_rules, inline)?;
            serde_json::to_value(&state)
                .map_err(|e| DeriveError::invalid_request("", e.to_string()))
        }
    }
}
