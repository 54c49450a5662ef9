//! The one error type of rea-derivation and its mapping onto the shared
//! error contract (`rea_core::ErrorReport`).

use rea_core::{Category, ErrorReport};
use serde_json::{json, Value};
use std::fmt;

/// One located problem inside an Evidence document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContentIssue {
    /// JSON pointer relative to the Evidence document's root.
    pub pointer: String,
    pub message: String,
}

impl ContentIssue {
    pub fn new(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        ContentIssue {
            pointer: pointer.into(),
            message: message.into(),
        }
    }
}

/// Why a parent Evidence cannot be projected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// The parent is not HAR Evidence (native mitmproxy, SAZ, qlog, ...).
    NonHarCapture,
    /// The parent was inspected with declared sensitive values, or does not
    /// record how many it had.
    SensitiveValuesUnretained,
    /// A `capture_browser_scenario` parent (rea has no such producer).
    BrowserScenario,
    /// A qlog view over a parent that is not qlog Evidence.
    NonQlogCapture,
}

impl Refusal {
    /// The canonical reason token reported in `details.reason`.
    pub fn reason(self) -> &'static str {
        match self {
            Refusal::NonHarCapture => "non_har_capture",
            Refusal::SensitiveValuesUnretained => "sensitive_values_unretained",
            Refusal::BrowserScenario => "capture_browser_scenario_unsupported",
            Refusal::NonQlogCapture => "non_qlog_capture",
        }
    }
}

/// Every failure of a derived view.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum DeriveError {
    /// The view request itself is malformed (unknown member or kind, a
    /// repeated template rule, a bad offset or limit).
    InvalidRequest { message: String, pointer: String },
    /// The Evidence read from a file is not a valid Evidence document.
    EvidenceFile {
        path: String,
        issues: Vec<ContentIssue>,
    },
    /// Inline Evidence is not a valid Evidence document.
    InvalidEvidence { issues: Vec<ContentIssue> },
    /// The parent is valid Evidence of a kind the view refuses.
    Unsupported { refusal: Refusal, detail: String },
    /// The projection representation budget would be exceeded.
    ResourceConstraint { needed: u64, limit: u64 },
}

impl DeriveError {
    pub(crate) fn invalid_request(pointer: &str, message: impl Into<String>) -> Self {
        DeriveError::InvalidRequest {
            message: message.into(),
            pointer: pointer.to_string(),
        }
    }

    pub(crate) fn invalid_evidence(pointer: &str, message: impl Into<String>) -> Self {
        DeriveError::InvalidEvidence {
            issues: vec![ContentIssue::new(pointer, message)],
        }
    }

    /// The error contract object for this failure.
    pub fn to_report(&self) -> ErrorReport {
        match self {
            DeriveError::InvalidRequest { message, pointer } => {
                ErrorReport::input("invalid_request", format!("The view request is invalid: {message}"))
                    .detail("pointer", pointer.as_str())
                    .guidance("Fix the view JSON; docs/api-surface.md lists the accepted members.")
            }
            DeriveError::EvidenceFile { path, issues } => ErrorReport::input(
                "EvidenceFileError",
                format!("The Evidence file is not a valid Evidence document ({} issue(s)).", issues.len()),
            )
            .detail("path", path.as_str())
            .detail("content_issues", issues_json(issues))
            .guidance("Pass the JSON written by `rea inspect-web-network-capture --json`."),
            DeriveError::InvalidEvidence { issues } => ErrorReport::input(
                "invalid_evidence",
                format!("The inline Evidence is not a valid Evidence document ({} issue(s)).", issues.len()),
            )
            .detail("content_issues", issues_json(issues))
            .guidance("Pass the JSON written by `rea inspect-web-network-capture --json`."),
            DeriveError::Unsupported { refusal, detail } => ErrorReport::new(
                "unsupported_parent",
                Category::Unsupported,
                format!("This view does not project this parent Evidence: {detail}"),
            )
            .detail("reason", refusal.reason()),
            DeriveError::ResourceConstraint { needed, limit } => ErrorReport::new(
                "resource_constraint",
                Category::ResourceConstraint,
                "The projection would exceed its representation budget; no partial view was produced.",
            )
            .detail("budget_bytes", *limit)
            .detail("needed_bytes", *needed)
            .guidance("Inspect a subset of the records, or name the Evidence with --source-file rather than inline."),
        }
    }
}

fn issues_json(issues: &[ContentIssue]) -> Value {
    Value::Array(
        issues
            .iter()
            .map(|i| json!({"pointer": i.pointer, "message": i.message}))
            .collect(),
    )
}

impl fmt::Display for DeriveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.to_report().fmt(f)
    }
}

impl std::error::Error for DeriveError {}

impl From<DeriveError> for ErrorReport {
    fn from(e: DeriveError) -> Self {
        e.to_report()
    }
}
