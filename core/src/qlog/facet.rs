//! The typed `qlog` facet of qlog Evidence: profile, clock basis, scope and
//! the per-trace facts, plus the pass that keeps declared sensitive values
//! out of derived totals, ranges and pointers (an excluded fact is omitted
//! and its ordinals are listed as incomplete records).

use super::facts::{IncompleteRecord, TraceFacts};
use crate::redact::Declared;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

/// The facet's scope: facts cite every recorded event, selected or not.
pub const SCOPE: &str = "all-recorded-events-before-selection";
/// The interpretation profile chosen by selecting `qlog`.
pub const PROFILE: &str = "aioquic-1.5.0-json-qlog-0.3";
/// The clock the profile assumes.
pub const CLOCK_BASIS: &str = "unix-epoch-milliseconds";

/// The interpretation profile (chosen by the caller, not reported by the file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Profile {
    pub name: String,
    pub qlog_format: String,
    pub qlog_version: String,
    pub clock_basis: String,
    /// Always `false`: the file neither reports nor authenticates an aioquic version.
    pub producer_version_established: bool,
}

/// How event `time` values are read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clock {
    pub basis: String,
    /// Where the basis comes from.
    pub source: String,
    /// Whether the file itself states the basis (`false`: assumed by the profile).
    pub reported_by_file: bool,
}

/// The `qlog` facet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QlogFacet {
    pub scope: String,
    pub profile: Profile,
    pub clock: Clock,
    /// Events in the whole file (all traces).
    pub event_count: u64,
    pub body_bytes: String,
    pub traces: Vec<TraceFacts>,
}

impl QlogFacet {
    pub fn new(traces: Vec<TraceFacts>, event_count: u64) -> Self {
        QlogFacet {
            scope: SCOPE.into(),
            profile: Profile {
                name: PROFILE.into(),
                qlog_format: "JSON".into(),
                qlog_version: "0.3".into(),
                clock_basis: CLOCK_BASIS.into(),
                producer_version_established: false,
            },
            clock: Clock {
                basis: CLOCK_BASIS.into(),
                source: "assumed by the aioquic 1.5.0 profile (QuicLoggerTrace log_event/encode_time); decimal spelling establishes no precision or monotonicity".into(),
                reported_by_file: false,
            },
            event_count,
            body_bytes: "not-reported".into(),
            traces,
        }
    }

    /// Retained-fact counts, for `detail: "summary"`.
    pub fn counts(&self) -> Value {
        let sum = |f: &dyn Fn(&TraceFacts) -> usize| self.traces.iter().map(f).sum::<usize>();
        json!({
            "scope": self.scope,
            "profile": self.profile.name,
            "clock_basis": self.clock.basis,
            "event_count": self.event_count,
            "trace_count": self.traces.len(),
            "stream_count": sum(&|t| t.streams.len()),
            "contribution_count": sum(&|t| t.streams.iter().map(|s| s.contributions.len()).sum()),
            "loss_declaration_count": sum(&|t| t.loss_declarations.len()),
            "incomplete_record_count": sum(&|t| t.incomplete_records.len()),
        })
    }

    /// Omits every derived fact, pointer and ODCID that would show a
    /// declared value; the ordinals behind an omitted fact become incomplete
    /// records. Returns how many facts were omitted.
    pub fn exclude_declared(&mut self, declared: Declared<'_>) -> usize {
        if declared.is_empty() {
            return 0;
        }
        let mut omitted = 0;
        for trace in &mut self.traces {
            omitted += exclude_trace(trace, declared);
        }
        omitted
    }
}

fn hide(slot: &mut Option<String>, declared: Declared<'_>) -> bool {
    if slot.as_deref().is_some_and(|t| declared.in_text(t)) {
        *slot = None;
        return true;
    }
    false
}

fn exclude_trace(trace: &mut TraceFacts, declared: Declared<'_>) -> usize {
    let mut omitted = 0;
    // Ordinal -> event pointer, for incomplete records made here.
    let mut flagged: BTreeMap<u64, BTreeSet<String>> = BTreeMap::new();
    let event_pointer = |trace_index: u64, ordinal: u64, first: Option<u64>| {
        first.map(|f| format!("/traces/{trace_index}/events/{}", ordinal - f))
    };
    omitted += usize::from(hide(&mut trace.pointer, declared));
    omitted += usize::from(hide(&mut trace.odcid, declared));
    omitted += usize::from(hide(&mut trace.vantage_point_type, declared));
    let reason = "derived fact omitted: it would show a declared sensitive value";
    let mut kept_streams = Vec::with_capacity(trace.streams.len());
    for mut stream in std::mem::take(&mut trace.streams) {
        let ordinals: Vec<u64> = stream.contributions.iter().map(|c| c.ordinal).collect();
        let flag_all = |flagged: &mut BTreeMap<u64, BTreeSet<String>>| {
            for o in &ordinals {
                flagged.entry(*o).or_default().insert(reason.to_string());
            }
        };
        if declared.in_text(&stream.stream_id) {
            omitted += 1;
            flag_all(&mut flagged);
            continue;
        }
        let mut hit = false;
        for slot in [
            &mut stream.frame_length_sum,
            &mut stream.unique_bytes,
            &mut stream.repeated_bytes,
            &mut stream.stream_type,
        ] {
            hit |= hide(slot, declared);
        }
        let before = stream.ranges.len();
        stream.ranges.retain(|r| {
            ![&r.start, &r.end, &r.length]
                .iter()
                .any(|t| declared.in_text(t))
        });
        hit |= stream.ranges.len() != before;
        let before = stream.final_sizes.len();
        stream.final_sizes.retain(|f| {
            let shown = !declared.in_text(&f.final_size);
            if !shown {
                for o in &f.ordinals {
                    flagged.entry(*o).or_default().insert(reason.to_string());
                }
            }
            shown
        });
        omitted += before - stream.final_sizes.len();
        stream.contributions.retain_mut(|c| {
            let shown = ![&c.offset, &c.length, &c.end]
                .iter()
                .any(|t| declared.in_text(t));
            if !shown {
                omitted += 1;
                flagged
                    .entry(c.ordinal)
                    .or_default()
                    .insert(reason.to_string());
            } else if hide(&mut c.pointer, declared) {
                omitted += 1;
            }
            shown
        });
        if hit {
            omitted += 1;
            flag_all(&mut flagged);
        }
        kept_streams.push(stream);
    }
    trace.streams = kept_streams;
    for loss in &mut trace.loss_declarations {
        omitted += usize::from(hide(&mut loss.pointer, declared));
        if hide(&mut loss.packet_number, declared) {
            omitted += 1;
            flagged
                .entry(loss.ordinal)
                .or_default()
                .insert(reason.to_string());
        }
        omitted += usize::from(hide(&mut loss.packet_type, declared));
        omitted += usize::from(hide(&mut loss.trigger, declared));
    }
    omitted += usize::from(hide(&mut trace.http.data_frame_length_sum, declared));
    // Merge the flagged ordinals into the incomplete records, in ordinal order.
    let mut merged: BTreeMap<u64, IncompleteRecord> = std::mem::take(&mut trace.incomplete_records)
        .into_iter()
        .map(|r| (r.ordinal, r))
        .collect();
    for (ordinal, reasons) in flagged {
        let record = merged.entry(ordinal).or_insert_with(|| IncompleteRecord {
            ordinal,
            pointer: event_pointer(trace.trace_index, ordinal, trace.first_ordinal),
            reasons: Vec::new(),
        });
        for r in reasons {
            if !record.reasons.contains(&r) {
                record.reasons.push(r);
            }
        }
        record.reasons.sort();
    }
    for record in merged.values_mut() {
        hide(&mut record.pointer, declared);
    }
    trace.incomplete_records = merged.into_values().collect();
    omitted
}
