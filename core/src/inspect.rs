//! The inspection operation (`inspect_web_network_capture`) every adapter
//! calls: argument checks before any file access, the stable read, the
//! decoder, record selection, redaction and the Evidence document.

use crate::error::{scrub_text, ErrorReport};
use crate::evidence::{
    Artifact, Capture, Decoder, Evidence, Location, Parameters, Record, Redaction,
    EVIDENCE_VERSION, OPERATION,
};
use crate::har::{self, binary_fields, container, numeric_literals, selection};
use crate::json::NumericLiteral;
use crate::read::{self, Snapshot};
use crate::redact::{Declared, Redactor};
use serde_json::Value;
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The default `capture_timeout_ms`.
pub const DEFAULT_CAPTURE_TIMEOUT_MS: u64 = 30_000;

/// How much the caller wants back inline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Detail {
    /// The whole selected Evidence inline.
    #[default]
    Complete,
    /// Identity and counts; the adapter keeps or writes the complete Evidence.
    Summary,
}

impl Detail {
    pub fn as_str(self) -> &'static str {
        match self {
            Detail::Complete => "complete",
            Detail::Summary => "summary",
        }
    }

    /// Reads `complete` or `summary`.
    pub fn parse(text: &str) -> Result<Detail, ErrorReport> {
        match text {
            "complete" => Ok(Detail::Complete),
            "summary" => Ok(Detail::Summary),
            _ => Err(ErrorReport::input(
                "invalid_argument",
                "detail must be \"complete\" or \"summary\"",
            )
            .detail("argument", "detail")),
        }
    }
}

/// One inspection request, as every adapter resolves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InspectRequest {
    pub capture_path: PathBuf,
    pub format: String,
    /// Zero-based producer ordinals in the caller's order; `None` for every record.
    pub record_ordinals: Option<Vec<u64>>,
    /// Declared sensitive literals; never written anywhere.
    pub sensitive_values: Vec<String>,
    pub detail: Detail,
    pub capture_timeout_ms: u64,
    /// Protobuf and gRPC body choices (used only with `record_ordinals`).
    pub protobuf: crate::protobuf::ProtobufOptions,
}

impl InspectRequest {
    /// A request for every record of a HAR file with the defaults.
    pub fn har(path: impl Into<PathBuf>) -> Self {
        InspectRequest {
            capture_path: path.into(),
            format: "har".to_string(),
            record_ordinals: None,
            sensitive_values: Vec::new(),
            detail: Detail::Complete,
            capture_timeout_ms: DEFAULT_CAPTURE_TIMEOUT_MS,
            protobuf: crate::protobuf::ProtobufOptions::default(),
        }
    }
}

/// Checks the format before anything is read.
pub fn check_format(format: &str) -> Result<(), ErrorReport> {
    match format {
        "har" | "mitmproxy" | "saz" | "qlog" => Ok(()),
        _ => Err(ErrorReport::input(
            "unknown_format",
            "the format must be one of har, mitmproxy, saz or qlog",
        )
        .detail("argument", "format")
        .detail("format", format)),
    }
}

/// Inspects one capture. Errors never contain a declared value.
pub fn inspect_web_network_capture(request: &InspectRequest) -> Result<Evidence, ErrorReport> {
    let declared = Declared::new(&request.sensitive_values);
    inspect_inner(request, declared, har::Mode::Strict)
        .map(|(evidence, _)| evidence)
        .map_err(|e| sanitize_error(e, declared, &request.sensitive_values))
}

/// Decodes a capture for serving and deriving: an entry that fails
/// validation is left out (and listed) instead of refusing the capture;
/// findings outside the entries still refuse it. With nothing left out the
/// Evidence equals `inspect_web_network_capture`'s; otherwise it holds the
/// kept records, in producer order with their original ordinals, as an
/// inspection of that selection would. `record_ordinals` must be `None`.
pub fn decode_for_serving(
    request: &InspectRequest,
) -> Result<(Evidence, Vec<har::LeftOutEntry>), ErrorReport> {
    let declared = Declared::new(&request.sensitive_values);
    inspect_inner(request, declared, har::Mode::PerEntry)
        .map_err(|e| sanitize_error(e, declared, &request.sensitive_values))
}

fn inspect_inner(
    request: &InspectRequest,
    declared: Declared<'_>,
    mode: har::Mode,
) -> Result<(Evidence, Vec<har::LeftOutEntry>), ErrorReport> {
    check_format(&request.format)?;
    if request.sensitive_values.iter().any(String::is_empty) {
        return Err(ErrorReport::input(
            "invalid_argument",
            "a declared sensitive value must not be empty",
        )
        .detail("argument", "sensitive_value"));
    }
    if request.capture_timeout_ms == 0 {
        return Err(ErrorReport::input(
            "invalid_argument",
            "capture_timeout_ms must be a positive number of milliseconds",
        )
        .detail("argument", "capture_timeout_ms"));
    }
    if let Some(ordinals) = &request.record_ordinals {
        selection::check_duplicates(ordinals)?;
    }
    crate::protobuf::check_options(&request.protobuf)?;
    let deadline = Instant::now().checked_add(Duration::from_millis(request.capture_timeout_ms));
    if request.format == "mitmproxy" {
        return crate::mitm::inspect(request, declared, deadline).map(|e| (e, Vec::new()));
    }

    let snapshot = read::read_stable(&request.capture_path)?;
    har::check_deadline(deadline)?;
    if request.format == "saz" {
        return crate::saz::evidence::inspect(request, declared, &snapshot, deadline)
            .map(|e| (e, Vec::new()));
    }
    if request.format == "qlog" {
        return crate::qlog::evidence::inspect(request, snapshot, declared, deadline)
            .map(|e| (e, Vec::new()));
    }
    let (decoded, left_out) = har::decode_with(&snapshot.bytes, deadline, mode)?;
    let (container_doc, entries) = container::split(decoded.doc);
    let total = entries.len() as u64;
    if let Some(ordinals) = &request.record_ordinals {
        selection::check_range(ordinals, total)?;
    }
    let (container_literals, per_record) =
        numeric_literals::split_by_record(decoded.numeric_literals, entries.len());
    let mut notes = Notes::default();

    let order: Vec<u64> = match &request.record_ordinals {
        Some(ordinals) => ordinals.clone(),
        None => (0..total)
            .filter(|o| left_out.binary_search_by_key(o, |l| l.ordinal).is_err())
            .collect(),
    };
    let mut entries: Vec<Option<Value>> = entries.into_iter().map(Some).collect();
    let mut per_record: Vec<Option<Vec<NumericLiteral>>> =
        per_record.into_iter().map(Some).collect();
    let mut records = Vec::with_capacity(order.len());
    let mut redactions: Vec<Redaction> = Vec::new();
    for &ordinal in &order {
        har::check_deadline(deadline)?;
        let n = ordinal as usize;
        let entry = entries
            .get_mut(n)
            .and_then(Option::take)
            .unwrap_or(Value::Null);
        let literals = per_record
            .get_mut(n)
            .and_then(Option::take)
            .unwrap_or_default();
        let (record, found) = build_record(ordinal, entry, literals, declared, &mut notes);
        records.push(record);
        redactions.extend(found);
    }

    let (container_value, container_literals, container_redactions) =
        redact_container(container_doc, container_literals, declared, &mut notes);
    let mut all_redactions = container_redactions;
    all_redactions.extend(redactions);

    let (artifact, subject) =
        crate::inspect::artifact(request, &snapshot, declared, &mut notes.explanations);

    let retained = records.len() as u64;
    if !left_out.is_empty() {
        let pointers: Vec<&str> = left_out.iter().map(|l| l.pointer.as_str()).collect();
        notes.explanations.push(format!(
            "{} entries failed validation and were left out: {}.",
            left_out.len(),
            pointers.join(", ")
        ));
    }
    let mut limitations = limitations(
        decoded.producer_profile.is_some(),
        retained,
        total,
        request.capture_timeout_ms,
    );
    // Selected records only: whole-capture inspection does no protobuf work.
    let (protobuf, protobuf_failure) = crate::protobuf::selected_facet(
        request,
        &mut records,
        &mut all_redactions,
        &mut limitations,
        declared,
        snapshot.bytes.len(),
        deadline,
    )?;
    let values = &request.sensitive_values;
    let evidence = Evidence {
        evidence_version: EVIDENCE_VERSION.to_string(),
        operation: OPERATION.to_string(),
        subject,
        basis: "observed".to_string(),
        parameters: crate::inspect::parameters(request),
        artifact,
        capture: Capture {
            format: "har".to_string(),
            decoder: Decoder {
                name: har::DECODER_NAME.to_string(),
                version: env!("CARGO_PKG_VERSION").to_string(),
                profile: har::HAR_PROFILE.to_string(),
                producer_profile: decoded.producer_profile.map(str::to_string),
            },
            container: container_value,
            records_pointer: har::RECORDS_POINTER.to_string(),
            total_records: total,
            retained_records: retained,
            numeric_literals: container_literals,
        },
        records,
        redactions: all_redactions,
        limitations: limitations.iter().map(|t| scrub_text(t, values)).collect(),
        explanations: notes
            .finish()
            .iter()
            .map(|t| scrub_text(t, values))
            .collect(),
        qlog: None,
        protobuf,
    };
    crate::protobuf::evidence_or_failure(evidence, protobuf_failure).map(|e| (e, left_out))
}

/// The Evidence `parameters` of an inspection request, for every decoder.
pub(crate) fn parameters(request: &InspectRequest) -> Parameters {
    Parameters {
        format: request.format.clone(),
        record_ordinals: request.record_ordinals.clone(),
        detail: request.detail.as_str().to_string(),
        sensitive_value_count: request.sensitive_values.len(),
    }
}

/// The Evidence `artifact` and `subject` of a read capture, for every
/// decoder: the path is empty, and the digest and subject null, when they
/// contain a declared sensitive value (each said in `explanations`).
pub(crate) fn artifact(
    request: &InspectRequest,
    snapshot: &Snapshot,
    declared: Declared<'_>,
    explanations: &mut Vec<String>,
) -> (Artifact, Option<String>) {
    let shown_path = request.capture_path.display().to_string();
    let path = if declared.in_text(&shown_path) {
        explanations.push(
            "artifact.path is empty because the path contains a declared sensitive value.".into(),
        );
        String::new()
    } else {
        shown_path
    };
    let sha256 = if declared.in_digest(&snapshot.sha256) {
        explanations.push(
            "artifact.sha256 and subject are null because the file digest contains a declared sensitive value.".into(),
        );
        None
    } else {
        Some(snapshot.sha256.clone())
    };
    let subject = sha256.as_ref().map(|s| format!("sha256:{s}"));
    (
        Artifact {
            path,
            sha256,
            size: snapshot.size,
        },
        subject,
    )
}

/// Free-text notes gathered while excluding declared values.
#[derive(Default)]
pub(crate) struct Notes {
    pub(crate) explanations: Vec<String>,
    pub(crate) hidden_locations: usize,
    hidden_literals: usize,
    hidden_digests: usize,
    hidden_fields: usize,
}

impl Notes {
    pub(crate) fn finish(mut self) -> Vec<String> {
        let counted = [
            (self.hidden_locations, "record location(s) are {\"kind\":\"unknown\"} because their pointer would reveal a declared sensitive value"),
            (self.hidden_literals, "numeric sidecar(s) were omitted because their pointer would reveal a declared sensitive value"),
            (self.hidden_fields, "body descriptor(s) were omitted because their pointer would reveal a declared sensitive value"),
            (self.hidden_digests, "body descriptor digest(s) are null because the digest contains a declared sensitive value"),
        ];
        for (count, text) in counted {
            if count > 0 {
                self.explanations.push(format!("{count} {text}."));
            }
        }
        self.explanations
    }
}

fn build_record(
    ordinal: u64,
    mut entry: Value,
    literals: Vec<NumericLiteral>,
    declared: Declared<'_>,
    notes: &mut Notes,
) -> (Record, Vec<Redaction>) {
    let base = format!("{}/{ordinal}", har::RECORDS_POINTER);
    let mut redactor = Redactor::new(declared, Some(ordinal));
    redactor.transport(&mut entry, &base);
    if !declared.is_empty() {
        redactor.sensitive_bodies(&mut entry, &base);
        let lexemes: HashMap<&str, &str> = literals
            .iter()
            .map(|l| (l.pointer.as_str(), l.lexeme.as_str()))
            .collect();
        let mut pointer = base.clone();
        redactor.sensitive(&mut entry, &mut pointer, &lexemes);
    }
    let numeric_literals = keep_literals(literals, &redactor, declared, notes);
    let mut binary_fields = Vec::new();
    for mut field in binary_fields::describe(&entry, &base) {
        if redactor.covers(&field.pointer) {
            continue;
        }
        if declared.in_text(&field.pointer) {
            notes.hidden_fields += 1;
            continue;
        }
        if field
            .sha256
            .as_deref()
            .is_some_and(|d| declared.in_digest(d))
        {
            field.sha256 = None;
            notes.hidden_digests += 1;
        }
        binary_fields.push(field);
    }
    let location = if declared.in_text(&base) {
        notes.hidden_locations += 1;
        Location::Unknown
    } else {
        Location::JsonPointer { pointer: base }
    };
    let record = Record {
        ordinal,
        location,
        reported: entry,
        numeric_literals,
        binary_fields,
    };
    (record, redactor.redactions)
}

pub(crate) fn keep_literals(
    literals: Vec<NumericLiteral>,
    redactor: &Redactor<'_>,
    declared: Declared<'_>,
    notes: &mut Notes,
) -> Vec<NumericLiteral> {
    if declared.is_empty() && redactor.excluded.is_empty() {
        return literals;
    }
    literals
        .into_iter()
        .filter(|l| {
            if redactor.covers(&l.pointer) || declared.in_text(&l.lexeme) {
                return false;
            }
            if declared.in_text(&l.pointer) {
                notes.hidden_literals += 1;
                return false;
            }
            true
        })
        .collect()
}

pub(crate) fn redact_container(
    mut doc: Value,
    literals: Vec<NumericLiteral>,
    declared: Declared<'_>,
    notes: &mut Notes,
) -> (Value, Vec<NumericLiteral>, Vec<Redaction>) {
    let mut redactor = Redactor::new(declared, None);
    if !declared.is_empty() {
        let lexemes: HashMap<&str, &str> = literals
            .iter()
            .map(|l| (l.pointer.as_str(), l.lexeme.as_str()))
            .collect();
        redactor.sensitive(&mut doc, &mut String::new(), &lexemes);
    }
    let literals = keep_literals(literals, &redactor, declared, notes);
    (doc, literals, redactor.redactions)
}

fn limitations(has_profile: bool, retained: u64, total: u64, timeout_ms: u64) -> Vec<String> {
    let mut out = vec![
        "This Evidence reports what the producer recorded; it does not establish runtime attribution, execution or deployment authenticity.".to_string(),
        "Body text that is not valid base64 content describes the UTF-8 bytes of the recorded text, not the original body bytes; post-data parameters do not rebuild a multipart body.".to_string(),
        format!(
            "Decoded in-process under fixed budgets: 32 MiB input, 64 nesting levels, 96 MiB output, and a capture_timeout_ms of {timeout_ms}; no memory limit is claimed for the process as a whole."
        ),
    ];
    if has_profile {
        out.push("The producer named in log.creator only chose a validation compatibility profile; it does not establish where the file came from.".to_string());
    }
    if retained < total {
        out.push(format!(
            "This Evidence holds {retained} of the capture's {total} records; it says nothing about the records that were not selected."
        ));
    }
    out
}

/// Makes an error safe to show: pointers become their nearest real
/// ancestor that reveals no declared value, then every declared literal is
/// scrubbed from messages and details.
fn sanitize_error(mut e: ErrorReport, declared: Declared<'_>, values: &[String]) -> ErrorReport {
    if declared.is_empty() {
        return e;
    }
    if let Some(Value::String(p)) = e.details.get_mut("pointer") {
        *p = declared.safe_pointer(p);
    }
    if let Some(Value::Array(issues)) = e.details.get_mut("issues") {
        for issue in issues.iter_mut() {
            if let Some(Value::String(p)) = issue.get_mut("pointer") {
                *p = declared.safe_pointer(p);
            }
            if let Some(Value::String(m)) = issue.get_mut("message") {
                *m = scrub_text(m, values);
            }
        }
    }
    e.scrub(values)
}

#[cfg(test)]
mod tests;
