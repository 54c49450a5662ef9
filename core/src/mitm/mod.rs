//! The native mitmproxy flow decoder (`.mitm`, mitmproxy 12.2.3): the
//! whole file read as tnetstrings, every flow's state version checked,
//! then each selected flow state reported unchanged (no migration, no
//! conversion to HAR, nothing synthesized) as an Evidence record located
//! by its byte range. Why a native reader rather than `mitmdump`:
//! `docs/mitmproxy.md`.
//!
//! # Layout
//! - `tnetstring`: the tnetstring reader (upstream semantics) and the bare scan.
//! - `profile`: the state-version (profile) check.
//! - `record`: one flow state as reported JSON with its sidecars and exclusions.
//! - `http`: the flows as HAR-shaped HTTP records, for serving (beyond the spec).

pub mod http;
pub mod profile;
pub mod record;
pub mod tnetstring;

use crate::error::{scrub_text, ErrorReport};
use crate::evidence::{
    Capture, Decoder, Evidence, Location, Parameters, Record, EVIDENCE_VERSION, OPERATION,
};
use crate::har::{check_deadline, selection};
use crate::inspect::InspectRequest;
use crate::read;
use crate::redact::Declared;
use profile::{StateVersion, MITMPROXY_VERSION};
use serde_json::Value;
use std::time::Instant;
use tnetstring::{ErrorKind, Item};

/// The decoder's name in Evidence.
pub const DECODER_NAME: &str = "rea-mitmproxy-tnetstring";
/// The profile it decodes.
pub const MITMPROXY_PROFILE: &str = "mitmproxy-12.2.3";
/// The records are the file's top-level tnetstrings: the root sequence.
pub const RECORDS_POINTER: &str = "";
/// What every mitmproxy Evidence document's `basis` says (EVD-17).
pub const BASIS: &str = "upstream-assembled-messages";

/// One decoded flow file: every top-level flow state, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    pub flows: Vec<Item>,
    pub versions: Vec<StateVersion>,
}

/// Reads and checks a whole flow file before any record is selected.
pub fn decode(bytes: &[u8]) -> Result<Decoded, ErrorReport> {
    let flows = tnetstring::read_all(bytes).map_err(tnetstring_error)?;
    let versions = flows
        .iter()
        .enumerate()
        .map(|(i, item)| profile::check(item, i))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Decoded { flows, versions })
}

/// The error contract of each tnetstring failure.
pub fn tnetstring_error(e: tnetstring::Error) -> ErrorReport {
    let (code, guidance) = match e.kind {
        ErrorKind::TooDeep => (
            "nesting_too_deep",
            "The nesting budget has no override; remove the deep structure or use another decoder.",
        ),
        ErrorKind::LengthPastContainer => (
            "mitmproxy_wrong_length_prefix",
            "A length prefix inside a flow disagrees with its enclosing structure; the file is corrupt. Copy the file mitmproxy wrote again.",
        ),
        ErrorKind::LengthPastEnd => (
            "mitmproxy_truncated",
            "The file ends inside a flow or a length prefix is wrong; copy the complete file mitmproxy wrote (stop mitmdump before copying).",
        ),
        _ => (
            "mitmproxy_invalid_tnetstring",
            "The file is not a mitmproxy flow file; pass a file written by `mitmdump -w` or mitmweb's Save.",
        ),
    };
    let mut report = ErrorReport::input(
        code,
        format!("the capture is not a readable mitmproxy flow file: {e}"),
    )
    .detail("offset", e.offset as u64)
    .guidance(guidance);
    if e.kind == ErrorKind::TooDeep {
        report = report.detail("budget_levels", tnetstring::MAX_DEPTH as u64);
    }
    report
}

/// `inspect_web_network_capture` for `format: "mitmproxy"`; the request's
/// arguments are already checked.
pub fn inspect(
    request: &InspectRequest,
    declared: Declared<'_>,
    deadline: Option<Instant>,
) -> Result<Evidence, ErrorReport> {
    let snapshot = read::read_stable(&request.capture_path)?;
    check_deadline(deadline)?;
    let decoded = decode(&snapshot.bytes)?;
    check_deadline(deadline)?;
    let total = decoded.flows.len() as u64;
    if let Some(ordinals) = &request.record_ordinals {
        selection::check_range(ordinals, total)?;
    }
    let order: Vec<u64> = match &request.record_ordinals {
        Some(ordinals) => ordinals.clone(),
        None => (0..total).collect(),
    };
    let mut explanations = Vec::new();
    let mut hidden = record::Hidden::default();
    let mut hidden_locations = 0;
    let mut records = Vec::with_capacity(order.len());
    let mut redactions = Vec::new();
    for &ordinal in &order {
        check_deadline(deadline)?;
        let item = &decoded.flows[ordinal as usize];
        let base = format!("{RECORDS_POINTER}/{ordinal}");
        let converted = record::convert(&item.value, &base, ordinal, declared).map_err(|u| {
            ErrorReport::input(
                "mitmproxy_unrepresentable_flow",
                format!("flow {ordinal} cannot be reported as JSON: {}", u.why),
            )
            .detail("record_ordinal", ordinal)
            .detail("pointer", u.pointer)
            .guidance("rea refuses flow states whose dictionary keys JSON cannot name unambiguously; nothing is renamed.")
        })?;
        hidden.literals += converted.hidden.literals;
        hidden.fields += converted.hidden.fields;
        hidden.digests += converted.hidden.digests;
        let offset = item.offset as u64;
        let length = item.length as u64;
        let location =
            if declared.in_text(&offset.to_string()) || declared.in_text(&length.to_string()) {
                hidden_locations += 1;
                Location::Unknown
            } else {
                Location::ByteRange { offset, length }
            };
        records.push(Record {
            ordinal,
            location,
            reported: converted.reported,
            numeric_literals: converted.numeric_literals,
            binary_fields: converted.binary_fields,
        });
        redactions.extend(converted.redactions);
    }
    for (count, text) in [
        (hidden_locations, "record location(s) are {\"kind\":\"unknown\"} because their byte range would reveal a declared sensitive value"),
        (hidden.literals, "numeric sidecar(s) were omitted because their pointer would reveal a declared sensitive value"),
        (hidden.fields, "byte sidecar(s) were omitted because their pointer would reveal a declared sensitive value"),
        (hidden.digests, "byte sidecar digest(s) are null because the digest contains a declared sensitive value"),
    ] {
        if count > 0 {
            explanations.push(format!("{count} {text}."));
        }
    }
    let (artifact, subject) =
        crate::inspect::artifact(request, &snapshot, declared, &mut explanations);
    let retained = records.len() as u64;
    let values = &request.sensitive_values;
    let mut limitations = limitations(retained, total, request.capture_timeout_ms);
    // Selected flows only: their protobuf and gRPC bodies (the flows' own
    // bytes; a content coding leaves them opaque).
    let (protobuf, protobuf_failure) = crate::protobuf::selected_facet(
        request,
        &mut records,
        &mut redactions,
        &mut limitations,
        declared,
        snapshot.bytes.len(),
        deadline,
    )?;
    let evidence = Evidence {
        evidence_version: EVIDENCE_VERSION.to_string(),
        operation: OPERATION.to_string(),
        subject,
        basis: BASIS.to_string(),
        parameters: Parameters {
            format: request.format.clone(),
            record_ordinals: request.record_ordinals.clone(),
            detail: request.detail.as_str().to_string(),
            sensitive_value_count: values.len(),
        },
        artifact,
        capture: Capture {
            format: "mitmproxy".to_string(),
            decoder: Decoder {
                name: DECODER_NAME.to_string(),
                version: env!("CARGO_PKG_VERSION").to_string(),
                profile: MITMPROXY_PROFILE.to_string(),
                producer_profile: None,
            },
            container: Value::Null,
            records_pointer: RECORDS_POINTER.to_string(),
            total_records: total,
            retained_records: retained,
            numeric_literals: Vec::new(),
        },
        records,
        redactions,
        limitations: limitations.iter().map(|t| scrub_text(t, values)).collect(),
        explanations: explanations.iter().map(|t| scrub_text(t, values)).collect(),
        qlog: None,
        protobuf,
    };
    crate::protobuf::evidence_or_failure(evidence, protobuf_failure)
}

fn limitations(retained: u64, total: u64, timeout_ms: u64) -> Vec<String> {
    let mut out = vec![
        "This Evidence reports what the producer recorded; it does not establish runtime attribution, execution or deployment authenticity.".to_string(),
        "Mitmproxy messages are upstream-assembled messages, not recovered wire fragments.".to_string(),
        format!("Flow states are reported at their own state version with mitmproxy {MITMPROXY_VERSION}'s tnetstring semantics; no FlowReader migration or HAR conversion is applied, and no connection, timestamp or content is synthesized."),
        "Native dictionaries with duplicate keys follow the upstream decoder's last-value rule; the discarded duplicates and the original spelling of parsed native floats are not recovered.".to_string(),
        "Native text is reported as JSON strings; native bytes as their exact UTF-8 display only when valid, with a byte sidecar (size, SHA-256, and base64 when there is no display) establishing the actual bytes. Member names come from text or UTF-8 byte keys; the key's type is not kept.".to_string(),
        format!(
            "Decoded in-process by rea's native tnetstring reader (no mitmdump process) under fixed budgets: 32 MiB input, 64 nesting levels, 96 MiB output, and a capture_timeout_ms of {timeout_ms}; no memory limit is claimed for the process as a whole."
        ),
    ];
    if retained < total {
        out.push(format!(
            "This Evidence holds {retained} of the capture's {total} records; it says nothing about the records that were not selected."
        ));
    }
    out
}

/// Whether bytes look like a native flow file rather than JSON (HAR): a
/// tnetstring length prefix first. Used by content detection for serving.
pub fn looks_native(bytes: &[u8]) -> bool {
    let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    digits > 0 && bytes.get(digits) == Some(&b':')
}

#[cfg(test)]
mod tests;
