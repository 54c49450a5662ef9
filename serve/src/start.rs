//! The one start-up: `Environment::from_capture(path, options)` decodes the
//! capture, reads its records once, derives the manifest and the state with
//! the chosen template rules, builds the one engine over those records and
//! hosts it; optionally starting from a `--state` World. The caller (the
//! CLI) passes in everything the process environment says; nothing here
//! reads it.

use crate::app_model::WithAppModel;
use crate::engine_model::EngineModel;
use crate::environment::Environment;
use crate::error::ServeError;
use rea_core::har::LeftOutEntry;
use rea_core::{
    decode_for_serving, inspect_web_network_capture, Category, ErrorReport, InspectRequest,
};
use rea_derivation::manifest::environment_manifest;
use rea_derivation::state::environment_state_with_records;
use rea_derivation::TemplateRule;
use rea_engine::records::records_of;
use rea_engine::Engine;
use std::path::{Path, PathBuf};

/// How to build the served environment.
#[derive(Debug, Clone, Default)]
pub struct StartOptions {
    /// The opt-in template rules in effect, by name (`TemplateRule::name`).
    pub template_rules: Vec<String>,
    /// Start from this World (the `data/get` shape) instead of the capture's.
    pub state: Option<PathBuf>,
    /// The environment's name (e.g. `ENVIRONMENT_NAME`); the manifest's
    /// name when `None` or blank.
    pub name: Option<String>,
    /// The capture's format (`har`, `mitmproxy`, `saz`); detected by content when `None`.
    pub format: Option<String>,
    /// Refuse a capture with an entry that fails validation, as inspection
    /// does; by default such an entry is left out and listed.
    pub strict: bool,
    /// Build from these records only (zero-based producer ordinals), as
    /// inspection selects them; every record when `None`.
    pub records: Option<Vec<u64>>,
    /// A compiled `FileDescriptorSet` (`--descriptor-set`): gRPC method
    /// tools then take and answer messages as JSON.
    pub descriptor_set: Option<PathBuf>,
    /// Recorded secrets: pseudonymised by default (`rea_core::secrets`);
    /// `keep` serves them as recorded.
    pub secrets: rea_core::secrets::SecretPolicy,
    /// MCP session bounds (`--max-sessions`, `--session-idle-timeout`).
    pub sessions: crate::sessions::SessionBounds,
    /// Print to stderr which part of the app model answered each request
    /// (`trace: inner`, `trace: app-first`, ...); the CLI sets it from
    /// `REA_MODEL_TRACE`, the library reads no process environment.
    pub model_trace: bool,
}

impl StartOptions {
    /// Every opt-in template rule, no `--state`, the manifest's name.
    pub fn all_rules() -> StartOptions {
        StartOptions {
            template_rules: TemplateRule::ALL
                .iter()
                .map(|r| r.name().to_string())
                .collect(),
            ..StartOptions::default()
        }
    }
}

impl Environment {
    /// Builds the served environment from a capture file.
    pub fn from_capture(path: &Path, options: &StartOptions) -> Result<Environment, ServeError> {
        Environment::from_capture_with_progress(path, options, &mut |_| {})
    }

    /// `from_capture`, reporting each stage through `progress`.
    pub fn from_capture_with_progress(
        path: &Path,
        options: &StartOptions,
        progress: &mut dyn FnMut(&str),
    ) -> Result<Environment, ServeError> {
        Environment::start(path, options, progress).map(|(env, _)| env)
    }

    /// `from_capture_with_progress`, also returning the entries left out
    /// because they failed validation (always empty with `strict`).
    pub fn start(
        path: &Path,
        options: &StartOptions,
        progress: &mut dyn FnMut(&str),
    ) -> Result<(Environment, Vec<LeftOutEntry>), ServeError> {
        build(path, options, progress).map_err(ServeError::Start)
    }
}

fn build(
    capture: &Path,
    options: &StartOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<(Environment, Vec<LeftOutEntry>), ErrorReport> {
    let size = std::fs::metadata(capture).map(|m| m.len()).unwrap_or(0);
    progress(&format!(
        "decoding {} ({:.1} MiB)",
        capture.display(),
        size as f64 / (1024.0 * 1024.0)
    ));
    // A native mitmproxy file (by content, or named) serves from its HTTP
    // records; a HAR as below (per entry, or one selection of records).
    let format = match &options.format {
        Some(f) => f.clone(),
        None => rea_core::serving::detect_format(capture).to_string(),
    };
    let (evidence, left_out) = if format != "har" {
        rea_core::serving::capture_evidence(capture, Some(&format), options.strict)?
    } else {
        let mut request = InspectRequest::har(capture);
        request.record_ordinals = options.records.clone();
        if options.strict || options.records.is_some() {
            (inspect_web_network_capture(&request)?, Vec::new())
        } else {
            decode_for_serving(&request)?
        }
    };
    let grpc =
        crate::grpc::Catalogue::from_records(&evidence.records, options.descriptor_set.as_deref())?;
    if !grpc.methods.is_empty() {
        progress(&format!(
            "{} recorded gRPC methods served at their paths and as MCP tools",
            grpc.methods.len()
        ));
    }
    let mut evidence = serde_json::to_value(&evidence).map_err(|e| {
        ErrorReport::new(
            "internal",
            Category::Internal,
            format!("the Evidence did not serialize: {e}"),
        )
    })?;
    let pseudonymised = rea_core::secrets::pseudonymise_evidence(&mut evidence, &options.secrets);
    if !options.secrets.keep {
        progress(&format!(
            "pseudonymised {} recorded secret values (--keep-secrets serves them as recorded)",
            pseudonymised.values
        ));
    }
    let records = records_of(&evidence);
    let observed = crate::cors::Observed::of(&records).with_request_origins(&evidence);
    progress(&format!(
        "decoded {} records; deriving the environment manifest",
        records.len()
    ));
    let names: Vec<&str> = options.template_rules.iter().map(String::as_str).collect();
    let rules = TemplateRule::parse_list(&names).map_err(ErrorReport::from)?;
    // The app model reads only the Evidence: it is inferred on a second
    // core while this one derives the manifest and the state, builds the
    // engine and gathers the recorded list instances (the same documents,
    // and the same first error, as one after the other).
    let (engine, mut gathered, app) = std::thread::scope(|scope| {
        let model = scope.spawn(|| rea_derivation::serving_model(&evidence));
        let model = || {
            model
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        };
        let manifest = match environment_manifest(&evidence, &rules, true) {
            Ok(m) => m,
            Err(e) => return Err(ErrorReport::from(e)),
        };
        progress(&format!(
            "{} tools; deriving the environment state",
            manifest.tools.len()
        ));
        let state = match environment_state_with_records(&evidence, &manifest, &records) {
            Ok(s) => s,
            Err(e) => return Err(ErrorReport::from(e)),
        };
        progress("inferring the app model; building the engine");
        let by_ordinal = records.iter().map(|r| (r.ordinal, r.clone())).collect();
        let built = Engine::from_records(by_ordinal, manifest, state).map(|engine| {
            let gathered = rea_derivation::list_instances(&records, &engine);
            (engine, gathered)
        });
        let app = model().map_err(ErrorReport::from)?;
        let (engine, gathered) = built?;
        Ok((engine, gathered, app))
    })?;
    let served: Vec<String> = app
        .model
        .resources
        .iter()
        .map(|r| format!("{} {} ({})", r.addressing, r.collection, r.name))
        .collect();
    progress(&format!(
        "app model: {} resources [{}]; RPC resources are served by the app model, path resources by the state's plans and by the app model where those cannot answer",
        served.len(),
        served.join(", ")
    ));
    let app_malformed = app.model.malformed_body.clone();
    drop(evidence);
    // The list semantics are inferred over the engine that will serve them.
    let lists = rea_derivation::infer_from_instances(&mut gathered, &records, &engine, Some(&app));
    drop(gathered);
    drop(records);
    progress(&format!(
        "{} entities, {} documents, {} write plans; the list semantics inferred",
        engine.state.entities.len(),
        engine.state.documents.len(),
        engine.state.writes.len()
    ));
    let mut engine = engine.with_list_semantics(lists);
    // A create demands only what every recorded create sent and the app does not fill in.
    rea_engine::schemas::loosen_required(&mut engine);
    let origin = engine.manifest.origin.clone();
    let env = Environment::new(
        WithAppModel::new(EngineModel::new(engine), app)
            .recorded_at(&origin)
            .traced(options.model_trace),
        None,
        options.name.as_deref(),
    )
    .with_grpc(grpc)
    .with_session_bounds(options.sessions)
    .with_observed(crate::app_model::with_malformed_body(
        observed,
        app_malformed.as_ref(),
    ));
    if let Some(path) = &options.state {
        progress(&format!(
            "loading the starting World from {}",
            path.display()
        ));
        load_state(&env, path)?;
    }
    // What the derivation freed (on both cores' heaps) goes back.
    crate::memory::give_back_memory();
    Ok((env, left_out))
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
    // The bare tables, a data/get result, or a whole JSON-RPC reply.
    let tables = crate::dataplane::intake(value).map_err(|d| ServeError::State(d).report())?;
    let world = crate::dataplane::world_from_tables(env, serde_json::Value::Object(tables))
        .map_err(|d| ServeError::State(d).report())?;
    env.rebase(&world)
        .map_err(|e| ServeError::State(e.detail).report())
}
