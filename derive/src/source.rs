//! Loading and admitting parent Evidence: the view's `source` member,
//! parsing Evidence bytes (an `evidence-file` or inline text) with located
//! content issues, and the parent refusals every derived view shares.
//!
//! Pure: the caller reads the file; this module only sees its bytes.

use crate::error::{ContentIssue, DeriveError, Refusal};
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::sync::OnceLock;

/// Where a view's parent Evidence comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `{"kind":"evidence-file","path":PATH}`: Evidence JSON stored in a file.
    EvidenceFile { path: String },
    /// The Evidence document given inline (CLI: `--source-file -`).
    Inline,
}

impl Source {
    /// Parses the spec's `source` object.
    pub fn from_json(value: &Value) -> Result<Source, DeriveError> {
        let obj = value
            .as_object()
            .ok_or_else(|| DeriveError::invalid_request("/source", "source must be an object"))?;
        for key in obj.keys() {
            if key != "kind" && key != "path" {
                return Err(DeriveError::invalid_request(
                    &format!("/source/{}", crate::pointer_token(key)),
                    format!("unknown source member `{key}`"),
                ));
            }
        }
        match obj.get("kind").and_then(Value::as_str) {
            Some("evidence-file") => match obj.get("path").and_then(Value::as_str) {
                Some(p) if !p.is_empty() => Ok(Source::EvidenceFile {
                    path: p.to_string(),
                }),
                _ => Err(DeriveError::invalid_request(
                    "/source/path",
                    "evidence-file needs a non-empty path",
                )),
            },
            Some(other) => Err(DeriveError::invalid_request(
                "/source/kind",
                format!("unsupported source kind `{other}` (this command accepts `evidence-file`)"),
            )),
            None => Err(DeriveError::invalid_request(
                "/source/kind",
                "source kind is required",
            )),
        }
    }
}

/// Parses Evidence bytes read from the file `path`; every problem is an
/// `EvidenceFileError` whose issue pointers are relative to the file's root.
pub fn evidence_from_file(path: &str, bytes: &[u8]) -> Result<Value, DeriveError> {
    parse_evidence(bytes).map_err(|issues| DeriveError::EvidenceFile {
        path: path.to_string(),
        issues,
    })
}

/// Parses inline Evidence text.
pub fn evidence_inline(bytes: &[u8]) -> Result<Value, DeriveError> {
    parse_evidence(bytes).map_err(|issues| DeriveError::InvalidEvidence { issues })
}

fn parse_evidence(bytes: &[u8]) -> Result<Value, Vec<ContentIssue>> {
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| vec![ContentIssue::new("", format!("not JSON: {e}"))])?;
    let issues = validate_evidence(&value);
    if issues.is_empty() {
        Ok(value)
    } else {
        Err(issues)
    }
}

/// The Evidence schema every inspection Evidence must satisfy.
const EVIDENCE_SCHEMA: &str = include_str!("../../manifests/evidence.schema.json");

/// At most this many issues are reported for one document.
const MAX_ISSUES: usize = 100;

fn evidence_validator() -> Option<&'static jsonschema::Validator> {
    static VALIDATOR: OnceLock<Option<jsonschema::Validator>> = OnceLock::new();
    VALIDATOR
        .get_or_init(|| {
            let mut schema: Value = serde_json::from_str(EVIDENCE_SCHEMA).ok()?;
            // A parent without `sensitive_value_count` is refused by the
            // projections with the typed `sensitive_values_unretained`
            // reason, not as invalid Evidence: the count is checked there.
            if let Some(required) = schema
                .pointer_mut("/properties/parameters/required")
                .and_then(Value::as_array_mut)
            {
                required.retain(|v| v != "sensitive_value_count");
            }
            jsonschema::validator_for(&schema).ok()
        })
        .as_ref()
}

/// Validates an Evidence document: first the members every view relies on
/// (with readable messages), then, for inspection Evidence, the whole
/// `manifests/evidence.schema.json`. Pointers are relative to the root.
pub fn validate_evidence(value: &Value) -> Vec<ContentIssue> {
    let issues = validate_structure(value);
    if !issues.is_empty() {
        return issues;
    }
    match value.get("operation").and_then(Value::as_str) {
        // Refused as a typed unsupported parent by `admit_parent`.
        Some("capture_browser_scenario") => Vec::new(),
        _ => match evidence_validator() {
            Some(validator) => validator
                .iter_errors(value)
                .take(MAX_ISSUES)
                .map(|e| ContentIssue::new(e.instance_path().to_string(), short(&e.to_string())))
                .collect(),
            None => vec![ContentIssue::new(
                "",
                "the Evidence schema could not be compiled",
            )],
        },
    }
}

/// Cuts a validator message (which may quote a large value) to a readable size.
fn short(message: &str) -> String {
    const MAX: usize = 300;
    if message.len() <= MAX {
        return message.to_string();
    }
    let mut end = MAX;
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &message[..end])
}

fn validate_structure(value: &Value) -> Vec<ContentIssue> {
    let mut issues = Vec::new();
    let Some(root) = value.as_object() else {
        return vec![ContentIssue::new("", "Evidence must be a JSON object")];
    };
    match root.get("evidence_version").and_then(Value::as_str) {
        Some("rea.evidence/1") => {}
        _ => issues.push(ContentIssue::new(
            "/evidence_version",
            "must be \"rea.evidence/1\"",
        )),
    }
    if !root.get("operation").is_some_and(Value::is_string) {
        issues.push(ContentIssue::new("/operation", "must be a string"));
    }
    if !root.get("parameters").is_some_and(Value::is_object) {
        issues.push(ContentIssue::new("/parameters", "must be an object"));
    }
    match root.get("capture").and_then(Value::as_object) {
        Some(capture) => {
            if !capture.get("format").is_some_and(Value::is_string) {
                issues.push(ContentIssue::new("/capture/format", "must be a string"));
            }
            if capture
                .get("total_records")
                .and_then(Value::as_u64)
                .is_none()
            {
                issues.push(ContentIssue::new(
                    "/capture/total_records",
                    "must be a non-negative integer",
                ));
            }
        }
        None => issues.push(ContentIssue::new("/capture", "must be an object")),
    }
    match root.get("records").and_then(Value::as_array) {
        Some(records) => {
            for (i, record) in records.iter().enumerate() {
                validate_record(i, record, &mut issues);
            }
        }
        None => issues.push(ContentIssue::new("/records", "must be an array")),
    }
    for member in ["limitations", "explanations", "redactions"] {
        if root.get(member).is_some_and(|v| !v.is_array()) {
            issues.push(ContentIssue::new(format!("/{member}"), "must be an array"));
        }
    }
    issues
}

fn validate_record(i: usize, record: &Value, issues: &mut Vec<ContentIssue>) {
    let base = format!("/records/{i}");
    let Some(rec) = record.as_object() else {
        issues.push(ContentIssue::new(base, "record must be an object"));
        return;
    };
    if rec.get("ordinal").and_then(Value::as_u64).is_none() {
        issues.push(ContentIssue::new(
            format!("{base}/ordinal"),
            "must be a non-negative integer",
        ));
    }
    if !rec.get("location").is_some_and(Value::is_object) {
        issues.push(ContentIssue::new(
            format!("{base}/location"),
            "must be an object",
        ));
    }
    match rec.get("reported") {
        Some(Value::Object(_)) | Some(Value::Null) => {}
        _ => issues.push(ContentIssue::new(
            format!("{base}/reported"),
            "must be an object or null",
        )),
    }
    for sidecar in ["numeric_literals", "binary_fields"] {
        if rec.get(sidecar).is_some_and(|v| !v.is_array()) {
            issues.push(ContentIssue::new(
                format!("{base}/{sidecar}"),
                "must be an array",
            ));
        }
    }
}

/// A parent Evidence admitted for projection.
#[derive(Debug)]
pub(crate) struct Parent<'a> {
    pub(crate) records: &'a [Value],
    pub(crate) total_records: u64,
    /// Limitations of the envelope and capture, carried onto the view.
    pub(crate) limitations: Vec<String>,
    /// True when the parent holds only some of the capture's records.
    pub(crate) subset: bool,
}

/// Applies the refusals shared by every derived view and checks the
/// portable ordinal invariants.
pub(crate) fn admit_parent(evidence: &Value) -> Result<Parent<'_>, DeriveError> {
    let issues = validate_evidence(evidence);
    if !issues.is_empty() {
        return Err(DeriveError::InvalidEvidence { issues });
    }
    static EMPTY: OnceLock<Map<String, Value>> = OnceLock::new();
    let empty = EMPTY.get_or_init(Map::new);
    let root = evidence.as_object().unwrap_or(empty);
    let operation = root.get("operation").and_then(Value::as_str).unwrap_or("");
    if operation == "capture_browser_scenario" {
        return Err(DeriveError::Unsupported {
            refusal: Refusal::BrowserScenario,
            detail: "rea has no browser-scenario producer; pass HAR inspection Evidence".into(),
        });
    }
    let capture = root
        .get("capture")
        .and_then(Value::as_object)
        .unwrap_or(empty);
    let format = capture.get("format").and_then(Value::as_str).unwrap_or("");
    if format != "har" {
        return Err(DeriveError::Unsupported {
            refusal: Refusal::NonHarCapture,
            detail:
                "only HAR Evidence can be projected; native mitmproxy, SAZ and qlog parents cannot"
                    .into(),
        });
    }
    let params = root
        .get("parameters")
        .and_then(Value::as_object)
        .unwrap_or(empty);
    match params.get("sensitive_value_count").and_then(Value::as_u64) {
        Some(0) => {}
        _ => {
            return Err(DeriveError::Unsupported {
                refusal: Refusal::SensitiveValuesUnretained,
                detail: "the parent was inspected with declared sensitive values, or does not record their count"
                    .into(),
            })
        }
    }
    let total_records = capture
        .get("total_records")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let records = root
        .get("records")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let mut seen = HashSet::with_capacity(records.len());
    for (i, record) in records.iter().enumerate() {
        let ordinal = record.get("ordinal").and_then(Value::as_u64).unwrap_or(0);
        if ordinal >= total_records {
            return Err(DeriveError::invalid_evidence(
                &format!("/records/{i}/ordinal"),
                format!(
                    "ordinal {ordinal} is outside the declared total of {total_records} records"
                ),
            ));
        }
        if !seen.insert(ordinal) {
            return Err(DeriveError::invalid_evidence(
                &format!("/records/{i}/ordinal"),
                format!("ordinal {ordinal} appears twice"),
            ));
        }
    }
    let mut limitations = Vec::new();
    for list in [root.get("limitations"), capture.get("limitations")] {
        if let Some(items) = list.and_then(Value::as_array) {
            for text in items.iter().filter_map(Value::as_str) {
                if !limitations.iter().any(|l: &String| l == text) {
                    limitations.push(text.to_string());
                }
            }
        }
    }
    let selected = params.get("record_ordinals").is_some_and(|v| !v.is_null());
    let subset = selected || (records.len() as u64) < total_records;
    Ok(Parent {
        records,
        total_records,
        limitations,
        subset,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::{evidence, har_entry};
    use serde_json::json;

    #[test]
    fn file_issues_point_into_the_file() {
        let mut ev = evidence(vec![har_entry(
            "GET",
            "http://a.example/x",
            200,
            "application/json",
        )]);
        ev["records"][0]["ordinal"] = json!("zero");
        let bytes = serde_json::to_vec(&ev).unwrap();
        let err = evidence_from_file("/abs/ev.json", &bytes).unwrap_err();
        let report = err.to_report();
        assert_eq!(report.code, "EvidenceFileError");
        assert_eq!(report.details["path"], "/abs/ev.json");
        assert_eq!(
            report.details["content_issues"][0]["pointer"],
            "/records/0/ordinal"
        );
    }

    #[test]
    fn schema_issues_point_into_the_file() {
        let mut ev = evidence(vec![har_entry(
            "GET",
            "http://a.example/x",
            200,
            "application/json",
        )]);
        ev["records"][0]["location"] = json!({"kind": "byte-range"});
        ev["redactions"] =
            json!([{"pointer": "/log", "record_ordinal": null, "scope": "x", "reason": "y"}]);
        let bytes = serde_json::to_vec(&ev).unwrap();
        let err = evidence_from_file("/abs/ev.json", &bytes)
            .unwrap_err()
            .to_report();
        let pointers: Vec<&str> = err.details["content_issues"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|i| i["pointer"].as_str())
            .collect();
        assert!(pointers.contains(&"/records/0/location"), "{pointers:?}");
        assert!(
            pointers.iter().any(|p| p.starts_with("/redactions/0")),
            "{pointers:?}"
        );
        // The decoder's own shape passes.
        let ok = evidence(vec![har_entry(
            "GET",
            "http://a.example/x",
            200,
            "application/json",
        )]);
        assert!(
            validate_evidence(&ok).is_empty(),
            "{:?}",
            validate_evidence(&ok)
        );
    }

    #[test]
    fn refusals_are_typed() {
        let mut ev = evidence(vec![]);
        ev["parameters"]["sensitive_value_count"] = json!(1);
        let r = admit_parent(&ev).unwrap_err().to_report();
        assert_eq!(r.details["reason"], "sensitive_values_unretained");
        assert_eq!(r.category, rea_core::Category::Unsupported);

        let mut ev = evidence(vec![]);
        ev["parameters"]
            .as_object_mut()
            .unwrap()
            .remove("sensitive_value_count");
        let r = admit_parent(&ev).unwrap_err().to_report();
        assert_eq!(r.details["reason"], "sensitive_values_unretained");

        let mut ev = evidence(vec![]);
        ev["capture"]["format"] = json!("saz");
        let r = admit_parent(&ev).unwrap_err().to_report();
        assert_eq!(r.details["reason"], "non_har_capture");

        let mut ev = evidence(vec![]);
        ev["operation"] = json!("capture_browser_scenario");
        let r = admit_parent(&ev).unwrap_err().to_report();
        assert_eq!(r.category, rea_core::Category::Unsupported);
    }

    #[test]
    fn ordinals_must_be_unique_and_within_total() {
        let e = har_entry("GET", "http://a.example/x", 200, "application/json");
        let mut ev = evidence(vec![e.clone(), e.clone()]);
        ev["records"][1]["ordinal"] = json!(0);
        assert!(matches!(
            admit_parent(&ev),
            Err(DeriveError::InvalidEvidence { .. })
        ));
        let mut ev = evidence(vec![e.clone()]);
        ev["records"][0]["ordinal"] = json!(1);
        assert!(matches!(
            admit_parent(&ev),
            Err(DeriveError::InvalidEvidence { .. })
        ));
        let mut ev = evidence(vec![e.clone(), e]);
        ev["capture"]["total_records"] = json!(5);
        ev["records"][0]["ordinal"] = json!(4);
        ev["records"][1]["ordinal"] = json!(1);
        let parent = admit_parent(&ev).unwrap();
        assert!(parent.subset);
    }

    #[test]
    fn source_object_is_strict() {
        assert_eq!(
            Source::from_json(&json!({"kind":"evidence-file","path":"/abs/capture.json"})).unwrap(),
            Source::EvidenceFile {
                path: "/abs/capture.json".into()
            }
        );
        assert!(Source::from_json(&json!({"kind":"evidence-file","path":"/a","x":1})).is_err());
        assert!(
            Source::from_json(&json!({"kind":"retained-evidence","evidence_id":"ev_1"})).is_err()
        );
    }
}
