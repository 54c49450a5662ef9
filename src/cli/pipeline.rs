//! The start-up path of `environment-serve`: the CLI's options handed to
//! `rea_serve::Environment::from_capture`, with progress on stderr.

use rea_core::har::LeftOutEntry;
use rea_core::ErrorReport;
use rea_serve::{Environment, StartOptions};
use std::path::Path;

/// The template rules every derived-document command (`environment-manifest`,
/// `environment-state`, `environment-serve`, `environment-openapi`,
/// `environment-check`) uses by default: all five opt-in rules, so the state
/// a user inspects is the state that is served. `--template-rule none`
/// selects none; any other list is taken as given (and checked by
/// `TemplateRule::parse_list`). `inspect-analysis-view` keeps the spec's
/// default (no opt-in rule unless listed).
pub(crate) fn rules_or_default(given: &[String]) -> Vec<String> {
    if given.is_empty() {
        return rea_derivation::TemplateRule::ALL
            .iter()
            .map(|r| r.name().to_string())
            .collect();
    }
    if given.len() == 1 && given[0] == "none" {
        return Vec::new();
    }
    given.to_vec()
}

/// Builds the served environment, reporting each stage through `progress`.
/// `name` is what the process environment says (`ENVIRONMENT_NAME`).
/// Entries that fail validation are left out and returned (none with
/// `strict`, which refuses the capture instead).
#[allow(clippy::too_many_arguments)]
pub(crate) fn build(
    capture: &Path,
    format: Option<&str>,
    rules: &[String],
    state: Option<&Path>,
    name: Option<String>,
    strict: bool,
    descriptor_set: Option<&Path>,
    secrets: &rea_core::secrets::SecretPolicy,
    progress: &mut dyn FnMut(&str),
) -> Result<(Environment, Vec<LeftOutEntry>), ErrorReport> {
    let options = StartOptions {
        template_rules: rules.to_vec(),
        state: state.map(Path::to_path_buf),
        name,
        format: format.map(str::to_string),
        strict,
        records: None,
        descriptor_set: descriptor_set.map(Path::to_path_buf),
        secrets: secrets.clone(),
        sessions: Default::default(),
        model_trace: std::env::var_os("REA_MODEL_TRACE").is_some(),
    };
    let (env, left_out) =
        Environment::start(capture, &options, progress).map_err(|e| e.report())?;
    for line in crate::cli::decode::left_out_lines(&left_out) {
        progress(&line);
    }
    Ok((env, left_out))
}
