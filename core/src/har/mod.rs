//! The HAR 1.2 decoder: lossless JSON reading, the HAR version check,
//! schema validation (with producer profiles) and canonical base64, all
//! over the whole capture before any record is selected.
//!
//! # Layout
//! - `container`: splits the document into container metadata and entries.
//! - `numeric_literals`: groups numeric sidecars by record.
//! - `binary_fields`: canonical base64 checks and body byte descriptors.
//! - `selection`: the caller's record ordinals.

pub mod binary_fields;
pub mod container;
pub mod numeric_literals;
pub mod selection;

use crate::error::{Category, ErrorReport};
use crate::har_schema;
use crate::json::{self, JsonErrorKind, NumericLiteral};
use serde_json::{json, Value};
use std::time::Instant;

/// The decoder's name in Evidence.
pub const DECODER_NAME: &str = "rea-har";
/// The only HAR profile rea decodes.
pub const HAR_PROFILE: &str = "har-1.2";
/// Where HAR records are.
pub const RECORDS_POINTER: &str = "/log/entries";
/// At most this many validation issues are listed in an error's details.
pub const MAX_LISTED_ISSUES: usize = 50;

/// One validated HAR document.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// The document, unsafe numbers `null`.
    pub doc: Value,
    /// Every numeric sidecar, in document order.
    pub numeric_literals: Vec<NumericLiteral>,
    /// The producer compatibility profile used for validation.
    pub producer_profile: Option<&'static str>,
}

/// One validation finding (schema or canonical base64).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    pub pointer: String,
    pub keyword: String,
    pub message: String,
}

/// Reads and validates a whole HAR capture.
pub fn decode(bytes: &[u8], deadline: Option<Instant>) -> Result<Decoded, ErrorReport> {
    let parsed = json::parse_with(bytes, json::Options { deadline }).map_err(json_error)?;
    check_deadline(deadline)?;
    check_version(&parsed.value)?;
    let mut issues: Vec<Issue> = Vec::new();
    let profile = match har_schema::validate_har(&parsed.value) {
        Ok(profile) => profile,
        Err(found) => {
            issues.extend(found.into_iter().map(|i| Issue {
                pointer: i.pointer,
                keyword: i.keyword,
                message: i.message,
            }));
            None
        }
    };
    check_deadline(deadline)?;
    issues.extend(binary_fields::base64_issues(&parsed.value));
    if !issues.is_empty() {
        return Err(validation_error(issues));
    }
    Ok(Decoded {
        doc: parsed.value,
        numeric_literals: parsed.numeric_literals,
        producer_profile: profile.map(|p| p.id()),
    })
}

/// The error for a passed `capture_timeout_ms`.
pub fn timeout_error() -> ErrorReport {
    ErrorReport::new(
        "capture_timeout",
        Category::ResourceConstraint,
        "the inspection did not finish within capture_timeout_ms",
    )
    .guidance("Inspect a smaller capture exported by its producer (keep the original for provenance), or allow a longer capture_timeout_ms; budgets stay fixed.")
}

/// Fails once the deadline has passed.
pub fn check_deadline(deadline: Option<Instant>) -> Result<(), ErrorReport> {
    match deadline {
        Some(d) if Instant::now() >= d => Err(timeout_error()),
        _ => Ok(()),
    }
}

fn json_error(e: json::JsonError) -> ErrorReport {
    let located = |r: ErrorReport| {
        r.detail("offset", e.offset as u64)
            .detail("line", e.line as u64)
            .detail("column", e.column as u64)
            .detail("pointer", e.pointer.clone())
    };
    match e.kind {
        JsonErrorKind::InvalidUtf8 => located(ErrorReport::input(
            "invalid_utf8",
            format!("the capture is not valid UTF-8 JSON: {e}"),
        ))
        .guidance("HAR files are UTF-8 JSON; export the capture again from its producer."),
        JsonErrorKind::DuplicateKey => located(ErrorReport::input(
            "duplicate_key",
            format!("the capture has an object that names the same member twice: {e}"),
        ))
        .guidance("rea refuses ambiguous JSON; fix the producer's output."),
        JsonErrorKind::TooDeep => located(ErrorReport::input(
            "nesting_too_deep",
            format!(
                "the capture nests deeper than the {}-level budget: {e}",
                json::MAX_DEPTH
            ),
        ))
        .detail("budget_levels", json::MAX_DEPTH as u64)
        .guidance(
            "The nesting budget has no override; remove the deep structure or use another decoder.",
        ),
        JsonErrorKind::Timeout => timeout_error(),
        _ => located(ErrorReport::input(
            "invalid_json",
            format!("the capture is not valid JSON: {e}"),
        ))
        .guidance("Check that the file is complete JSON (a truncated export fails here)."),
    }
}

fn check_version(doc: &Value) -> Result<(), ErrorReport> {
    match doc.pointer("/log/version").and_then(Value::as_str) {
        Some(version) if version != "1.2" => Err(ErrorReport::new(
            "har_version_unsupported",
            Category::Unsupported,
            "only HAR 1.2 captures are supported",
        )
        .detail("pointer", "/log/version")
        .detail("version", version)
        .guidance("Export the capture as HAR 1.2.")),
        _ => Ok(()),
    }
}

fn validation_error(issues: Vec<Issue>) -> ErrorReport {
    let count = issues.len();
    let listed: Vec<Value> = issues
        .into_iter()
        .take(MAX_LISTED_ISSUES)
        .map(|i| json!({"pointer": i.pointer, "keyword": i.keyword, "message": i.message}))
        .collect();
    ErrorReport::input(
        "har_validation_failed",
        format!("the capture is not valid HAR 1.2: {count} problem(s), listed in details.issues"),
    )
    .detail("issue_count", count as u64)
    .detail("issues", Value::Array(listed))
    .guidance("Fix or re-export the capture; every entry is validated, selected or not.")
}

#[cfg(test)]
mod tests;
