//! The environment manifest document: one tool per kept endpoint group.
//! Field names follow the spec's "Environment manifest" section.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

/// The environment manifest view (`{"kind":"environment-manifest"}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always `"environment-manifest"`.
    pub view: String,
    /// `"inferred"` when `templated_groups` is nonzero, else `"derived"`.
    pub basis: String,
    /// The primary origin, e.g. `http://127.0.0.1:37713`.
    pub origin: String,
    /// The primary host with its port, `.` and `:` replaced by `-`.
    pub name: String,
    /// The opt-in template rules in effect, in their fixed order.
    pub template_rules: Vec<String>,
    pub tools: Vec<Tool>,
    pub excluded: Vec<ExcludedGroup>,
    /// One pointer per record a tool cites, in ordinal order.
    pub records: Vec<RecordPointer>,
    pub templated_groups: usize,
    pub unknowns: Vec<String>,
    pub limitations: Vec<String>,
}

/// One served endpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    pub name: String,
    pub method: String,
    /// Path template with named placeholders, e.g. `/v1/buckets/{bucket_id}`.
    pub path_template: String,
    /// The four-format-rule template of the tool's earliest record.
    pub api_surface_template: String,
    pub params: Vec<Param>,
    pub query_parameter_names: Vec<QueryParameterName>,
    /// Top-level request-body keys and their JSON type names, for POST/PUT/PATCH.
    pub body_shape: Option<IndexMap<String, String>>,
    pub statuses: Vec<u16>,
    pub content_types: Vec<String>,
    pub record_ordinals: Vec<u64>,
}

/// One templated path segment of a tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Param {
    /// Placeholder name as spelled in `path_template` (without braces).
    pub name: String,
    /// Zero-based segment index after the leading slash.
    pub segment_index: usize,
    /// The rule that templated it: `numeric`, `uuid`, `hex`, `iso-date`,
    /// `after-uid-literal`, `opaque-token`, `sibling-pair-variance`,
    /// `sibling-variance` or `prefix-variance`.
    pub rule: String,
    /// Literals observed at this position, sorted, distinct.
    pub observed: Vec<String>,
    pub basis: String,
}

/// `{name, record_ordinals}`, as in the api-surface view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryParameterName {
    pub name: String,
    pub record_ordinals: Vec<u64>,
}

/// A group on the capture that is not served, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExcludedGroup {
    pub method: String,
    pub origin: String,
    pub path_template: String,
    /// `other-origin`, `ui-page-or-asset` or `non-json`.
    pub reason: String,
    pub record_ordinals: Vec<u64>,
}

/// `{ordinal, method, path, status, content_type}`: never a header, cookie or body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordPointer {
    pub ordinal: u64,
    pub method: String,
    pub path: String,
    pub status: Option<u16>,
    pub content_type: Option<String>,
}
