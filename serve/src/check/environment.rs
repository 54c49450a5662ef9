//! The one place `environment-check` builds the served Environment: the
//! same start-up as `rea environment-serve` (`Environment::from_capture`
//! with every opt-in template rule), optionally from selected records.

use crate::{Environment, StartOptions};
use rea_core::ErrorReport;
use std::path::Path;

/// Builds the Environment `environment-serve` would serve for `capture`,
/// from every record or only from `records` (zero-based entry ordinals).
pub fn build_environment(
    capture: &Path,
    records: Option<Vec<u64>>,
) -> Result<Environment, ErrorReport> {
    let options = StartOptions {
        records,
        ..StartOptions::all_rules()
    };
    Environment::from_capture(capture, &options).map_err(|e| e.report())
}
