//! The start-up path of `environment-serve`: decode the capture, derive the
//! manifest and the state with the chosen template rules, build the engine
//! and host it; optionally start from a `--state` World.

use rea_core::{Category, ErrorReport};
use rea_derivation::manifest::environment_manifest;
use rea_derivation::state::environment_state_for;
use rea_derivation::TemplateRule;
use rea_engine::Engine;
use rea_serve::engine_model::EngineModel;
use rea_serve::Environment;
use std::path::Path;

/// Builds the served environment, reporting each stage through `progress`.
pub(crate) fn build(
    capture: &Path,
    format: Option<&str>,
    rules: &[String],
    state: Option<&Path>,
    progress: &mut dyn FnMut(&str),
) -> Result<Environment, ErrorReport> {
    let size = std::fs::metadata(capture).map(|m| m.len()).unwrap_or(0);
    progress(&format!(
        "decoding {} ({:.1} MiB)",
        capture.display(),
        size as f64 / (1024.0 * 1024.0)
    ));
    let evidence = rea_core::serving::capture_evidence(capture, format)?;
    let evidence = serde_json::to_value(&evidence).map_err(|e| {
        ErrorReport::new(
            "internal",
            Category::Internal,
            format!("the Evidence did not serialize: {e}"),
        )
    })?;
    let records = evidence["records"].as_array().map_or(0, Vec::len);
    progress(&format!(
        "decoded {records} records; deriving the environment manifest"
    ));
    let names: Vec<&str> = rules.iter().map(String::as_str).collect();
    let rules = TemplateRule::parse_list(&names).map_err(ErrorReport::from)?;
    let manifest = environment_manifest(&evidence, &rules, true).map_err(ErrorReport::from)?;
    progress(&format!(
        "{} tools; deriving the environment state",
        manifest.tools.len()
    ));
    let state_doc = environment_state_for(&evidence, &manifest).map_err(ErrorReport::from)?;
    progress(&format!(
        "{} entities, {} documents, {} write plans; building the engine",
        state_doc.entities.len(),
        state_doc.documents.len(),
        state_doc.writes.len()
    ));
    let engine = Engine::new(&evidence, manifest, state_doc)?;
    drop(evidence);
    let env = Environment::new(EngineModel::new(engine), None);
    if let Some(path) = state {
        progress(&format!(
            "loading the starting World from {}",
            path.display()
        ));
        load_state(&env, path)?;
    }
    Ok(env)
}

/// `--state FILE`: a World in the `data/get` shape becomes the starting
/// World (and what `data/reset` returns to).
fn load_state(env: &Environment, path: &Path) -> Result<(), ErrorReport> {
    let bytes = std::fs::read(path).map_err(|e| {
        ErrorReport::new(
            "state_unreadable",
            Category::Unavailable,
            format!("cannot read --state {}: {e}", path.display()),
        )
        .detail("argument", "state")
    })?;
    let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
        ErrorReport::input(
            "invalid_state",
            format!("--state {} is not JSON: {e}", path.display()),
        )
        .detail("argument", "state")
    })?;
    // Either the bare tables or a data/get result with one data part.
    let tables = value.pointer("/parts/0/data").cloned().unwrap_or(value);
    let world = rea_serve::dataplane::world_from_tables(env, &tables)
        .map_err(|d| rea_serve::ServeError::State(d).report())?;
    env.rebase(&world)
        .map_err(|e| rea_serve::ServeError::State(e.detail).report())
}
