//! Decoding a capture file into the Evidence JSON every derived command reads.

use rea_core::{inspect_web_network_capture, Category, ErrorReport, InspectRequest};
use serde_json::Value;
use std::path::Path;

/// Inspects a HAR capture with default options and returns its Evidence as JSON.
pub(crate) fn evidence_of(capture: &Path) -> Result<Value, ErrorReport> {
    let evidence = inspect_web_network_capture(&InspectRequest::har(capture))?;
    serde_json::to_value(&evidence).map_err(|e| {
        ErrorReport::new(
            "internal",
            Category::Internal,
            format!("the Evidence did not serialize: {e}"),
        )
    })
}
