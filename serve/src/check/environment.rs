//! The one place `environment-check` builds the served Environment, the same
//! way `rea environment-serve` does (decode, manifest with every opt-in
//! template rule, state, engine). When `Environment::from_capture` lands,
//! this function becomes a call to it.

use crate::engine_model::EngineModel;
use crate::Environment;
use rea_core::{inspect_web_network_capture, Category, ErrorReport, InspectRequest};
use rea_derivation::engine::Engine;
use rea_derivation::manifest::environment_manifest;
use rea_derivation::state::environment_state_for;
use rea_derivation::TemplateRule;
use std::path::Path;

/// Builds the Environment `environment-serve` would serve for `capture`,
/// from every record or only from `records` (zero-based entry ordinals).
pub fn build_environment(
    capture: &Path,
    records: Option<Vec<u64>>,
) -> Result<Environment, ErrorReport> {
    let mut request = InspectRequest::har(capture);
    request.record_ordinals = records;
    let evidence = inspect_web_network_capture(&request)?;
    let evidence = serde_json::to_value(&evidence).map_err(|e| {
        ErrorReport::new(
            "internal",
            Category::Internal,
            format!("the Evidence did not serialize: {e}"),
        )
    })?;
    let manifest =
        environment_manifest(&evidence, &TemplateRule::ALL, true).map_err(ErrorReport::from)?;
    let state = environment_state_for(&evidence, &manifest).map_err(ErrorReport::from)?;
    let engine = Engine::new(&evidence, manifest, state)?;
    Ok(Environment::new(EngineModel::new(engine), None))
}
