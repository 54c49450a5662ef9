//! The qlog inspection: from a stable snapshot to Evidence. Every event is
//! checked and redacted, and the facts cover every event, before the
//! caller's selection picks the returned event records.

use super::{decode, exclusions, facts, DECODER_NAME, RECORDS_POINTER};
use crate::error::{scrub_text, ErrorReport};
use crate::evidence::{
    Capture, Decoder, Evidence, Location, Record, Redaction, EVIDENCE_VERSION, OPERATION,
};
use crate::har::selection;
use crate::inspect::{keep_literals, redact_container, InspectRequest, Notes};
use crate::read::Snapshot;
use crate::redact::{Declared, Redactor};
use std::collections::HashMap;
use std::time::Instant;

/// Inspects one qlog snapshot under the aioquic 1.5.0 JSON qlog 0.3 profile.
pub fn inspect(
    request: &InspectRequest,
    snapshot: Snapshot,
    declared: Declared<'_>,
    deadline: Option<Instant>,
) -> Result<Evidence, ErrorReport> {
    let decoded = decode(&snapshot.bytes, deadline)?;
    let total = decoded.events.len() as u64;
    // Every interpreted integer was checked on the original events.
    let mut facet = decoded.facet;
    if let Some(ordinals) = &request.record_ordinals {
        selection::check_range(ordinals, total)?;
    }
    let mut notes = Notes::default();
    let mut events = decoded.events;
    let mut per_event: Vec<Vec<Redaction>> = Vec::with_capacity(events.len());
    for event in &mut events {
        if event.ordinal.is_multiple_of(4096) {
            super::check_deadline(deadline)?;
        }
        let pointer = event.pointer();
        let mut redactor = Redactor::new(declared, Some(event.ordinal));
        exclusions::transport(&mut redactor, &mut event.value, &pointer);
        if !declared.is_empty() {
            let lexemes: HashMap<&str, &str> = event
                .literals
                .iter()
                .map(|l| (l.pointer.as_str(), l.lexeme.as_str()))
                .collect();
            let mut at = pointer.clone();
            redactor.sensitive(&mut event.value, &mut at, &lexemes);
        }
        event.literals = keep_literals(
            std::mem::take(&mut event.literals),
            &redactor,
            declared,
            &mut notes,
        );
        per_event.push(redactor.redactions);
    }
    let (container, container_literals, container_redactions) = redact_container(
        decoded.container,
        decoded.container_literals,
        declared,
        &mut notes,
    );
    if !declared.is_empty() {
        // Facts are rebuilt from what may be shown: a redacted field is
        // unknown, and a derived fact showing a declared value is omitted.
        facet = facts(&container, decoded.traces, &events, deadline)?;
        let omitted = facet.exclude_declared(declared);
        if omitted > 0 {
            notes.explanations.push(format!(
                "{omitted} qlog fact(s) or pointer(s) were omitted because they would show a declared sensitive value; the ordinals behind omitted facts are listed as incomplete records."
            ));
        }
    }

    let order: Vec<u64> = match &request.record_ordinals {
        Some(ordinals) => ordinals.clone(),
        None => (0..total).collect(),
    };
    let mut slots: Vec<Option<(super::Event, Vec<Redaction>)>> =
        events.into_iter().zip(per_event).map(Some).collect();
    let mut records = Vec::with_capacity(order.len());
    let mut redactions = container_redactions;
    for &ordinal in &order {
        let Some((event, found)) = slots.get_mut(ordinal as usize).and_then(Option::take) else {
            continue;
        };
        let pointer = event.pointer();
        let location = if declared.in_text(&pointer) {
            notes.hidden_locations += 1;
            Location::Unknown
        } else {
            Location::JsonPointer { pointer }
        };
        records.push(Record {
            ordinal,
            location,
            reported: event.value,
            numeric_literals: event.literals,
            binary_fields: Vec::new(),
        });
        redactions.extend(found);
    }

    let (artifact, subject) =
        crate::inspect::artifact(request, &snapshot, declared, &mut notes.explanations);
    let retained = records.len() as u64;
    let values = &request.sensitive_values;
    Ok(Evidence {
        evidence_version: EVIDENCE_VERSION.to_string(),
        operation: OPERATION.to_string(),
        subject,
        basis: "observed".to_string(),
        parameters: crate::inspect::parameters(request),
        artifact,
        capture: Capture {
            format: "qlog".to_string(),
            decoder: Decoder {
                name: DECODER_NAME.to_string(),
                version: env!("CARGO_PKG_VERSION").to_string(),
                profile: super::facet::PROFILE.to_string(),
                producer_profile: None,
            },
            container,
            records_pointer: RECORDS_POINTER.to_string(),
            total_records: total,
            retained_records: retained,
            numeric_literals: container_literals,
        },
        records,
        redactions,
        limitations: limitations(retained, total, request.capture_timeout_ms)
            .iter()
            .map(|t| scrub_text(t, values))
            .collect(),
        explanations: notes
            .finish()
            .iter()
            .map(|t| scrub_text(t, values))
            .collect(),
        qlog: Some(facet),
        protobuf: None,
    })
}

fn limitations(retained: u64, total: u64, timeout_ms: u64) -> Vec<String> {
    let mut out = vec![
        "This Evidence reports what an endpoint's qlog recorded; it does not establish runtime attribution, execution, deployment authenticity or live process attribution.".to_string(),
        "Choosing format qlog selected the aioquic 1.5.0 JSON qlog 0.3 interpretation profile; the file neither reports nor authenticates an aioquic version.".to_string(),
        "Event times are read as Unix-epoch milliseconds, the clock of the aioquic 1.5.0 profile (QuicLoggerTrace log_event/encode_time); the file does not state it, and decimal spelling establishes no clock precision or monotonicity.".to_string(),
        "Event ordinals follow trace-then-event source order, not time; a trace index with this artifact identifies one connection observation, and a reported ODCID is not claimed to be globally unique.".to_string(),
        "recovery:packet_lost events are endpoint declarations, not proof of network loss; overlapping STREAM ranges (repeated_bytes) are not proof of retransmission or of equal contents; a FIN final size does not establish complete coverage or a received body.".to_string(),
        "Streams are scoped by trace, stream ID and direction and include control and QPACK streams, so counting streams does not count HTTP requests; an empty incomplete_records list does not establish complete logging or capture.".to_string(),
        "HTTP/3 headers and frame lengths are metadata: body_bytes is not-reported, and no body, hash, timing causality or HAR-style request is reconstructed.".to_string(),
        "No keylog, PCAP, live URL or recorded target named in the file was opened; PCAP parsing and correlation are outside this decoder.".to_string(),
        format!(
            "Decoded in-process under fixed budgets: 32 MiB input, 64 nesting levels, 96 MiB output, and a capture_timeout_ms of {timeout_ms}; no memory limit is claimed for the process as a whole."
        ),
    ];
    if retained < total {
        out.push(format!(
            "This Evidence holds {retained} of the capture's {total} event records; the qlog facts still cover every recorded event."
        ));
    }
    out
}
