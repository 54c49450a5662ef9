//! The HAR decoder (HAR 1.2, and 1.1 read under the 1.2 schemas): lossless
//! JSON reading, the HAR version check, schema validation (with producer
//! profiles) and canonical base64, all over the whole capture before any
//! record is selected; strict, or per entry for serving.
//!
//! # Layout
//! - `container`: splits the document into container metadata and entries.
//! - `numeric_literals`: groups numeric sidecars by record.
//! - `binary_fields`: canonical base64 checks and body byte descriptors.
//! - `selection`: the caller's record ordinals.
//! - `sniff`: naming the format of a file that is not a HAR at all.

pub mod binary_fields;
pub mod container;
pub mod numeric_literals;
pub mod selection;
pub mod sniff;

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

/// One entry left out of a per-entry decode, with why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOutEntry {
    /// The entry's zero-based producer ordinal.
    pub ordinal: u64,
    /// `/log/entries/<ordinal>`.
    pub pointer: String,
    /// Every validation finding located in the entry, in document order.
    pub issues: Vec<Issue>,
}

impl LeftOutEntry {
    /// The first finding as one line: `pointer: message`.
    pub fn reason(&self) -> String {
        match self.issues.first() {
            Some(first) if self.issues.len() > 1 => format!(
                "{}: {} (and {} more)",
                first.pointer,
                first.message,
                self.issues.len() - 1
            ),
            Some(first) => format!("{}: {}", first.pointer, first.message),
            None => "failed validation".to_string(),
        }
    }

    /// The entry and its findings as JSON.
    pub fn to_json(&self) -> Value {
        json!({
            "ordinal": self.ordinal,
            "pointer": self.pointer,
            "reason": self.reason(),
            "issues": self.issues.iter().take(MAX_LISTED_ISSUES).map(Issue::to_json).collect::<Vec<_>>(),
        })
    }
}

impl Issue {
    fn to_json(&self) -> Value {
        json!({"pointer": self.pointer, "keyword": self.keyword, "message": self.message})
    }
}

/// How a decode treats an entry that fails validation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Any finding refuses the whole capture (inspection, `--strict`).
    #[default]
    Strict,
    /// Findings located inside one entry leave that entry out and keep the
    /// rest; findings outside the entries still refuse the capture.
    PerEntry,
}

/// Reads and validates a whole HAR capture.
pub fn decode(bytes: &[u8], deadline: Option<Instant>) -> Result<Decoded, ErrorReport> {
    decode_with(bytes, deadline, Mode::Strict).map(|(decoded, _)| decoded)
}

/// Reads and validates a whole HAR capture in `mode`. The document keeps
/// every entry; the entries listed as left out (only in `Mode::PerEntry`)
/// failed validation and must not be used.
pub fn decode_with(
    bytes: &[u8],
    deadline: Option<Instant>,
    mode: Mode,
) -> Result<(Decoded, Vec<LeftOutEntry>), ErrorReport> {
    let parsed = match json::parse_with(bytes, json::Options { deadline }) {
        Ok(parsed) => parsed,
        Err(e) => return Err(sniff::not_a_har(bytes).unwrap_or_else(|| json_error(e))),
    };
    check_deadline(deadline)?;
    check_version(&parsed.value)?;
    let mut issues: Vec<Issue> = Vec::new();
    let profile = har_schema::ProducerProfile::detect(&parsed.value);
    if let Err(found) = har_schema::validate_har(&parsed.value) {
        issues.extend(found.into_iter().map(|i| Issue {
            pointer: i.pointer,
            keyword: i.keyword,
            message: i.message,
        }));
    }
    issues.extend(unsafe_relaxed_numbers(&parsed));
    check_deadline(deadline)?;
    issues.extend(binary_fields::base64_issues(&parsed.value));
    let left_out = if issues.is_empty() {
        Vec::new()
    } else if mode == Mode::Strict {
        return Err(validation_error(issues));
    } else {
        per_entry(issues)?
    };
    Ok((
        Decoded {
            doc: parsed.value,
            numeric_literals: parsed.numeric_literals,
            producer_profile: profile.map(|p| p.id()),
        },
        left_out,
    ))
}

/// Groups findings by entry; any finding outside the entries refuses.
fn per_entry(mut issues: Vec<Issue>) -> Result<Vec<LeftOutEntry>, ErrorReport> {
    if issues.iter().any(|i| entry_ordinal(&i.pointer).is_none()) {
        return Err(validation_error(issues));
    }
    issues.sort_by_key(|i| entry_ordinal(&i.pointer));
    let mut out: Vec<LeftOutEntry> = Vec::new();
    for issue in issues {
        let ordinal = entry_ordinal(&issue.pointer).unwrap_or(0);
        match out.last_mut() {
            Some(last) if last.ordinal == ordinal => last.issues.push(issue),
            _ => out.push(LeftOutEntry {
                ordinal,
                pointer: format!("{RECORDS_POINTER}/{ordinal}"),
                issues: vec![issue],
            }),
        }
    }
    Ok(out)
}

/// The entry ordinal a pointer lies in (`/log/entries/3/...` → 3).
fn entry_ordinal(pointer: &str) -> Option<u64> {
    let rest = pointer.strip_prefix(RECORDS_POINTER)?.strip_prefix('/')?;
    rest.split('/').next()?.parse().ok()
}

/// A producer profile turns some `null`s into "unknown" in the validation
/// copy; a `null` that stands for an unsafe number (EVD-09) is never one of
/// them, so each unsafe number at a relaxed pointer is a finding.
fn unsafe_relaxed_numbers(parsed: &json::Parsed) -> Vec<Issue> {
    let Some(profile) = har_schema::ProducerProfile::detect(&parsed.value) else {
        return Vec::new();
    };
    if !parsed.numeric_literals.iter().any(|l| !l.safe) {
        return Vec::new();
    }
    let relaxed = profile.relaxed_pointers(&parsed.value);
    parsed
        .numeric_literals
        .iter()
        .filter(|l| !l.safe && relaxed.binary_search(&l.pointer).is_ok())
        .map(|l| Issue {
            pointer: l.pointer.clone(),
            keyword: "type".to_string(),
            message: "expected a number a double holds, found an unsafe number".to_string(),
        })
        .collect()
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
    json_error_with(
        e,
        &JsonTexts {
            subject: "the capture",
            utf8_guidance: "HAR files are UTF-8 JSON; export the capture again from its producer.",
            duplicate_guidance: "rea refuses ambiguous JSON; fix the producer's output.",
            invalid_guidance:
                "Check that the file is complete JSON (a truncated export fails here).",
        },
    )
}

/// What a JSON reading error says about one kind of file: its name in the
/// messages and the guidance for each fault.
pub(crate) struct JsonTexts {
    pub(crate) subject: &'static str,
    pub(crate) utf8_guidance: &'static str,
    pub(crate) duplicate_guidance: &'static str,
    pub(crate) invalid_guidance: &'static str,
}

/// The error contract for a JSON reading error, located (offset, line,
/// column, pointer), for every decoder that reads a JSON file.
pub(crate) fn json_error_with(e: json::JsonError, t: &JsonTexts) -> ErrorReport {
    let located = |r: ErrorReport| {
        r.detail("offset", e.offset as u64)
            .detail("line", e.line as u64)
            .detail("column", e.column as u64)
            .detail("pointer", e.pointer.clone())
    };
    let subject = t.subject;
    match e.kind {
        JsonErrorKind::InvalidUtf8 => located(ErrorReport::input(
            "invalid_utf8",
            format!("{subject} is not valid UTF-8 JSON: {e}"),
        ))
        .guidance(t.utf8_guidance),
        JsonErrorKind::DuplicateKey => located(ErrorReport::input(
            "duplicate_key",
            format!("{subject} has an object that names the same member twice: {e}"),
        ))
        .guidance(t.duplicate_guidance),
        JsonErrorKind::TooDeep => located(ErrorReport::input(
            "nesting_too_deep",
            format!(
                "{subject} nests deeper than the {}-level budget: {e}",
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
            format!("{subject} is not valid JSON: {e}"),
        ))
        .guidance(t.invalid_guidance),
    }
}

/// The HAR versions rea reads. HAR 1.1 differs from 1.2 only by members
/// 1.2 added, all optional (`docs/har-validation.md`), so both are checked
/// against the HAR 1.2 schemas. An empty version is 1.1, as the HAR 1.2
/// spec says ("If empty, string 1.1 is assumed").
pub const READ_VERSIONS: [&str; 3] = ["1.1", "1.2", ""];

fn check_version(doc: &Value) -> Result<(), ErrorReport> {
    match doc.pointer("/log/version").and_then(Value::as_str) {
        Some(version) if !READ_VERSIONS.contains(&version) => Err(ErrorReport::new(
            "har_version_unsupported",
            Category::Unsupported,
            format!("HAR {version} is not supported; rea reads HAR 1.1 and 1.2"),
        )
        .detail("pointer", "/log/version")
        .detail("version", version)
        .guidance("Export the capture as HAR 1.2 from its producer.")),
        _ => Ok(()),
    }
}

fn validation_error(issues: Vec<Issue>) -> ErrorReport {
    let count = issues.len();
    let listed: Vec<Value> = issues
        .iter()
        .take(MAX_LISTED_ISSUES)
        .map(Issue::to_json)
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
