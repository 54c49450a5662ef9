//! The start-up path of `environment-serve`: the CLI's options handed to
//! `rea_serve::Environment::from_capture`, with progress on stderr.

use rea_core::ErrorReport;
use rea_serve::{Environment, StartOptions};
use std::path::Path;

/// Builds the served environment, reporting each stage through `progress`.
/// `name` is what the process environment says (`ENVIRONMENT_NAME`).
pub(crate) fn build(
    capture: &Path,
    format: Option<&str>,
    rules: &[String],
    state: Option<&Path>,
    name: Option<String>,
    progress: &mut dyn FnMut(&str),
) -> Result<Environment, ErrorReport> {
    let options = StartOptions {
        template_rules: rules.to_vec(),
        state: state.map(Path::to_path_buf),
        name,
        format: format.map(str::to_string),
    };
    Environment::from_capture_with_progress(capture, &options, progress).map_err(|e| e.report())
}
