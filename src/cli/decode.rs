//! Decoding a capture file into the Evidence JSON every derived command reads.

use rea_core::{Category, ErrorReport};
use serde_json::Value;
use std::path::Path;

/// Decodes a capture (HAR, or a native mitmproxy file; `format` overrides
/// detection by content) with default options; returns its Evidence as JSON.
pub(crate) fn evidence_of(capture: &Path, format: Option<&str>) -> Result<Value, ErrorReport> {
    let evidence = rea_core::serving::capture_evidence(capture, format)?;
    serde_json::to_value(&evidence).map_err(|e| {
        ErrorReport::new(
            "internal",
            Category::Internal,
            format!("the Evidence did not serialize: {e}"),
        )
    })
}
