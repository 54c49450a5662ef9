//! SAZ records and their Evidence: the caller's selection, transport
//! credential and declared-value exclusion over the decoded sessions and
//! their byte sidecars, record locations as archive member names, and the
//! Evidence envelope.
//!
//! Pointers address the decoded session document `{"sessions": [...]}`
//! (a ZIP has no JSON pointers of its own): record `N` is `/sessions/N`, and
//! a reported field's pointer is the record's base plus its path in
//! `reported`.

use super::{Decoded, Session, DECODER_NAME, RECORDS_POINTER, SAZ_PROFILE};
use crate::error::{scrub_text, ErrorReport};
use crate::evidence::{
    BinaryField, Capture, Decoder, Evidence, Location, Record, Redaction, RedactionReason,
    RedactionScope, EVIDENCE_VERSION, OPERATION,
};
use crate::har::selection;
use crate::inspect::InspectRequest;
use crate::read::{hex, Snapshot};
use crate::redact::{Declared, Redactor, CREDENTIAL_HEADERS};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::time::Instant;

/// Decodes the snapshot and builds the selected Evidence.
pub fn inspect(
    request: &InspectRequest,
    declared: Declared<'_>,
    snapshot: &Snapshot,
    deadline: Option<Instant>,
) -> Result<Evidence, ErrorReport> {
    let Decoded {
        container,
        sessions,
    } = super::decode(&snapshot.bytes, deadline)?;
    let total = sessions.len() as u64;
    if let Some(ordinals) = &request.record_ordinals {
        selection::check_range(ordinals, total)?;
    }
    let order: Vec<u64> = match &request.record_ordinals {
        Some(ordinals) => ordinals.clone(),
        None => (0..total).collect(),
    };
    let mut sessions: Vec<Option<Session>> = sessions.into_iter().map(Some).collect();
    let mut notes = Notes::default();
    let mut records = Vec::with_capacity(order.len());
    let mut redactions = Vec::new();
    for &ordinal in &order {
        super::check_deadline(deadline)?;
        let Some(session) = sessions.get_mut(ordinal as usize).and_then(Option::take) else {
            continue;
        };
        let (record, found) = build_record(ordinal, session, declared, &mut notes);
        records.push(record);
        redactions.extend(found);
    }
    let mut container = container;
    let mut redactor = Redactor::new(declared, None);
    redactor.sensitive(&mut container, &mut String::new(), &HashMap::new());
    let mut all_redactions = redactor.redactions;
    all_redactions.extend(redactions);

    let (artifact, subject) =
        crate::inspect::artifact(request, snapshot, declared, &mut notes.explanations);
    let retained = records.len() as u64;
    let values = &request.sensitive_values;
    let mut limitations = limitations(retained, total, request.capture_timeout_ms);
    // Selected sessions only: their protobuf and gRPC bodies (exact stored
    // bytes; any HTTP coding leaves them opaque).
    let (protobuf, protobuf_failure) = crate::protobuf::selected_facet(
        request,
        &mut records,
        &mut all_redactions,
        &mut limitations,
        declared,
        snapshot.bytes.len(),
        deadline,
    )?;
    let evidence = Evidence {
        evidence_version: EVIDENCE_VERSION.to_string(),
        operation: OPERATION.to_string(),
        subject,
        basis: "observed".to_string(),
        parameters: crate::inspect::parameters(request),
        artifact,
        capture: Capture {
            format: "saz".to_string(),
            decoder: Decoder {
                name: DECODER_NAME.to_string(),
                version: env!("CARGO_PKG_VERSION").to_string(),
                profile: SAZ_PROFILE.to_string(),
                producer_profile: None,
            },
            container,
            records_pointer: RECORDS_POINTER.to_string(),
            total_records: total,
            retained_records: retained,
            numeric_literals: Vec::new(),
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
    crate::protobuf::evidence_or_failure(evidence, protobuf_failure)
}

/// Free-text notes gathered while excluding declared values.
#[derive(Default)]
struct Notes {
    explanations: Vec<String>,
    hidden_locations: usize,
    hidden_fields: usize,
    hidden_digests: usize,
}

impl Notes {
    fn finish(mut self) -> Vec<String> {
        let counted = [
            (self.hidden_locations, "record location(s) are {\"kind\":\"unknown\"} because a member name would reveal a declared sensitive value"),
            (self.hidden_fields, "byte descriptor(s) were omitted because their pointer would reveal a declared sensitive value"),
            (self.hidden_digests, "byte descriptor digest(s) are null because the digest contains a declared sensitive value"),
        ];
        for (count, text) in counted {
            if count > 0 {
                self.explanations.push(format!("{count} {text}."));
            }
        }
        self.explanations
    }
}

fn is_credential_header(name: &str) -> bool {
    CREDENTIAL_HEADERS
        .iter()
        .any(|c| name.eq_ignore_ascii_case(c))
}

/// Sets the reported value at a record-relative pointer to `null`.
fn null_at(reported: &mut Value, relative: &str) {
    if let Some(slot) = reported.pointer_mut(relative) {
        *slot = Value::Null;
    }
}

fn build_record(
    ordinal: u64,
    session: Session,
    declared: Declared<'_>,
    notes: &mut Notes,
) -> (Record, Vec<Redaction>) {
    let Session {
        members,
        mut reported,
        sidecars,
    } = session;
    let base = format!("{RECORDS_POINTER}/{ordinal}");
    let mut redactor = Redactor::new(declared, Some(ordinal));
    // Credential header values that are not UTF-8 have no display value
    // for `transport` to null; exclude their byte sidecars here.
    for sidecar in &sidecars {
        if let Some(header) = header_of(&reported, &sidecar.pointer) {
            if is_credential_header(header) {
                redactor.exclude(
                    &format!("{base}{}", sidecar.pointer),
                    RedactionScope::Value,
                    RedactionReason::TransportCredential,
                );
            }
        }
    }
    redactor.transport(&mut reported, &base);
    if !declared.is_empty() {
        for sidecar in &sidecars {
            let pointer = format!("{base}{}", sidecar.pointer);
            if redactor.covers(&pointer) {
                continue;
            }
            let encoded = STANDARD.encode(&sidecar.bytes);
            if declared.in_bytes(&sidecar.bytes) || declared.in_text(&encoded) {
                null_at(&mut reported, &sidecar.pointer);
                redactor.exclude(
                    &pointer,
                    RedactionScope::Value,
                    RedactionReason::SensitiveValue,
                );
            }
        }
        let mut pointer = base.clone();
        redactor.sensitive(&mut reported, &mut pointer, &HashMap::new());
    }
    let mut binary_fields = Vec::with_capacity(sidecars.len());
    for sidecar in sidecars {
        let pointer = format!("{base}{}", sidecar.pointer);
        if redactor.covers(&pointer) {
            continue;
        }
        if declared.in_text(&pointer) {
            notes.hidden_fields += 1;
            continue;
        }
        let mut sha256 = Some(hex(&Sha256::digest(&sidecar.bytes)));
        if sha256.as_deref().is_some_and(|d| declared.in_digest(d)) {
            sha256 = None;
            notes.hidden_digests += 1;
        }
        binary_fields.push(BinaryField {
            pointer,
            encoding: None,
            establishes_body_bytes: sidecar.body,
            size: sidecar.bytes.len() as u64,
            sha256,
            base64: Some(STANDARD.encode(&sidecar.bytes)),
        });
    }
    let location = if members.iter().any(|m| declared.in_text(m)) {
        notes.hidden_locations += 1;
        Location::Unknown
    } else {
        Location::ArchiveMembers { members }
    };
    let record = Record {
        ordinal,
        location,
        reported,
        numeric_literals: Vec::new(),
        binary_fields,
    };
    (record, redactor.redactions)
}

/// The header name a `/<side>/headers/<i>/value` sidecar belongs to.
fn header_of<'a>(reported: &'a Value, relative: &str) -> Option<&'a str> {
    let parent = relative.strip_suffix("/value")?;
    if !parent.contains("/headers/") {
        return None;
    }
    reported.pointer(parent)?.get("name")?.as_str()
}

fn limitations(retained: u64, total: u64, timeout_ms: u64) -> Vec<String> {
    let mut out = vec![
        "This Evidence reports what the producer recorded; it does not establish runtime attribution, execution or deployment authenticity.".to_string(),
        "SAZ bodies are the bytes stored in the archive members: they are not de-chunked or decompressed. _w.txt and _g.txt members are opaque bytes that are not parsed into messages. A missing member is null; it is not an empty body.".to_string(),
        format!(
            "Decoded in-process under fixed budgets: 32 MiB input, {} archive members, {} MiB per inflated member and {} MiB inflated in all, a {}:1 compression ratio above {} KiB, 64 nesting levels, 96 MiB output, and a capture_timeout_ms of {timeout_ms}; no memory limit is claimed for the process as a whole.",
            super::archive::MAX_MEMBERS,
            super::archive::MAX_MEMBER_BYTES >> 20,
            super::archive::MAX_TOTAL_BYTES >> 20,
            super::archive::MAX_RATIO,
            super::archive::RATIO_FLOOR_BYTES >> 10,
        ),
    ];
    if retained < total {
        out.push(format!(
            "This Evidence holds {retained} of the capture's {total} records; it says nothing about the records that were not selected."
        ));
    }
    out
}
