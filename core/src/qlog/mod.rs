//! The aioquic 1.5.0 JSON qlog 0.3 decoder: the profile check (JSON only;
//! JSON-SEQ, JSONL, columnar events and other versions are unsupported),
//! lossless reading, the event shape check, exact QUIC integers and the
//! facts of the `qlog` facet, all over every event before any selection.
//!
//! # Layout
//! - `integer`: exact QUIC integers (through 2^62 − 1) from lexemes.
//! - `facts`: per-trace stream, loss, HTTP and incomplete-record facts.
//! - `facet`: the typed `qlog` facet and declared-value exclusion of facts.
//! - `exclusions`: transport credential exclusions inside events.
//! - `evidence`: the qlog inspection, from snapshot to Evidence.

pub mod evidence;
pub mod exclusions;
pub mod facet;
pub mod facts;
pub mod integer;

use crate::error::{Category, ErrorReport};
use crate::json::{self, JsonErrorKind, NumericLiteral};
use facet::QlogFacet;
use facts::{BadInteger, Lexemes, TraceBuilder};
use serde_json::Value;
use std::time::Instant;

/// The decoder's name in Evidence.
pub const DECODER_NAME: &str = "rea-qlog";
/// Where the event collections are: each trace's `events` (see each
/// record's own `/traces/T/events/E` location; no single events pointer).
pub const RECORDS_POINTER: &str = "/traces";

/// One recorded event, in trace-then-event source order.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// Global zero-based ordinal.
    pub ordinal: u64,
    pub trace: usize,
    pub index: usize,
    /// The event object as written (unsafe numbers `null`).
    pub value: Value,
    /// Numeric sidecars under this event.
    pub literals: Vec<NumericLiteral>,
}

impl Event {
    /// `/traces/T/events/E`.
    pub fn pointer(&self) -> String {
        self.at().pointer()
    }

    pub fn at(&self) -> facts::At {
        facts::At {
            trace: self.trace,
            index: self.index,
        }
    }
}

/// A decoded qlog document: container metadata and every event.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// The document with each trace's `events` replaced by `null`.
    pub container: Value,
    pub container_literals: Vec<NumericLiteral>,
    pub events: Vec<Event>,
    /// The number of traces.
    pub traces: usize,
    /// The facts of every event as recorded (before any exclusion).
    pub facet: QlogFacet,
}

fn unsupported(reason: &str, message: String) -> ErrorReport {
    ErrorReport::new("qlog_profile_unsupported", Category::Unsupported, message)
        .detail("reason", reason)
        .guidance("rea reads the aioquic 1.5.0 profile: one JSON object with qlog_format \"JSON\", qlog_version \"0.3\" and object events. Write the qlog with aioquic's QuicFileLogger (JSON), or convert it with another tool, keeping the original for provenance.")
}

fn invalid(pointer: &str, reason: &str, message: String) -> ErrorReport {
    ErrorReport::input("qlog_invalid", message)
        .detail("pointer", pointer)
        .detail("reason", reason)
        .guidance("Every event is checked, selected or not; fix or re-export the qlog file.")
}

fn bad_integer(bad: BadInteger) -> ErrorReport {
    ErrorReport::input(
        "qlog_integer_invalid",
        format!(
            "{} is not a QUIC integer (an exact integer from 0 through 2^62 - 1): {}",
            bad.pointer, bad.reason
        ),
    )
    .detail("pointer", bad.pointer)
    .detail("reason", bad.reason)
    .detail("lexeme", bad.lexeme)
    .guidance("Interpreted QUIC fields (stream IDs, offsets, lengths, packet numbers) must be exact nonnegative integers, and offset plus length must fit 2^62 - 1; every event is checked, selected or not.")
}

/// The error for a passed `capture_timeout_ms`.
pub fn check_deadline(deadline: Option<Instant>) -> Result<(), ErrorReport> {
    crate::har::check_deadline(deadline)
}

fn json_error(e: json::JsonError) -> ErrorReport {
    crate::har::json_error_with(
        e,
        &crate::har::JsonTexts {
            subject: "the qlog file",
            utf8_guidance: "qlog JSON files are UTF-8; write the file again from its producer.",
            duplicate_guidance: "rea refuses ambiguous JSON, in every event, selected or not; fix the producer's output.",
            invalid_guidance: "Check that the file is one complete JSON object (a truncated file fails here).",
        },
    )
}

/// Refuses record-sequence shapes before reading: RFC 7464 JSON-SEQ
/// (a record separator, 0x1E) is unsupported whatever its records hold.
fn check_sequence(bytes: &[u8]) -> Result<(), ErrorReport> {
    let first = bytes
        .iter()
        .skip(if bytes.starts_with(b"\xef\xbb\xbf") {
            3
        } else {
            0
        })
        .find(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'));
    if first == Some(&0x1e) {
        return Err(unsupported(
            "json-seq",
            "the file is a JSON text sequence (JSON-SEQ); only the JSON qlog 0.3 profile is supported".into(),
        ));
    }
    Ok(())
}

/// A syntax failure whose first line alone is a JSON object is JSONL.
fn looks_like_jsonl(bytes: &[u8]) -> bool {
    let Some(end) = bytes.iter().position(|&b| b == b'\n') else {
        return false;
    };
    matches!(json::parse(&bytes[..end]), Ok(p) if p.value.is_object())
        && bytes[end..].iter().any(|b| !b.is_ascii_whitespace())
}

fn check_profile(doc: &Value) -> Result<(), ErrorReport> {
    let Some(obj) = doc.as_object() else {
        return Err(unsupported(
            "not-an-object",
            "the qlog file is not one JSON object".into(),
        ));
    };
    match obj.get("qlog_format") {
        Some(Value::String(f)) if f == "JSON" => {}
        other => {
            let found = other
                .map(Value::to_string)
                .unwrap_or_else(|| "absent".into());
            return Err(unsupported(
                "qlog-format",
                format!("qlog_format is {found}; only \"JSON\" is supported"),
            )
            .detail("pointer", "/qlog_format")
            .detail("found", found));
        }
    }
    match obj.get("qlog_version") {
        Some(Value::String(v)) if v == "0.3" => {}
        other => {
            let found = other
                .map(Value::to_string)
                .unwrap_or_else(|| "absent".into());
            return Err(unsupported(
                "qlog-version",
                format!("qlog_version is {found}; only \"0.3\" is supported"),
            )
            .detail("pointer", "/qlog_version")
            .detail("found", found));
        }
    }
    Ok(())
}

/// `(trace, event)` of a pointer under `/traces/T/events/E`.
fn event_of(pointer: &str) -> Option<(usize, usize)> {
    let rest = pointer.strip_prefix("/traces/")?;
    let mut parts = rest.splitn(4, '/');
    let trace = parts.next()?.parse().ok()?;
    if parts.next()? != "events" {
        return None;
    }
    let event = parts.next()?.parse().ok()?;
    Some((trace, event))
}

fn finite_time(event: &Value, pointer: &str, literals: &[NumericLiteral]) -> bool {
    match event.get("time") {
        Some(Value::Number(_)) => true,
        Some(Value::Null) => {
            let at = format!("{pointer}/time");
            literals
                .iter()
                .find(|l| l.pointer == at)
                .and_then(|l| l.lexeme.parse::<f64>().ok())
                .is_some_and(f64::is_finite)
        }
        _ => false,
    }
}

fn check_event(
    event: &Value,
    pointer: &str,
    literals: &[NumericLiteral],
) -> Result<(), ErrorReport> {
    if event.is_array() {
        return Err(unsupported(
            "columnar-events",
            format!("event {pointer} is an array (columnar event encoding); only object events are supported"),
        )
        .detail("pointer", pointer));
    }
    let Some(obj) = event.as_object() else {
        return Err(invalid(
            pointer,
            "event-not-an-object",
            format!("event {pointer} is not an object"),
        ));
    };
    if !obj.get("name").is_some_and(Value::is_string) {
        return Err(invalid(
            &format!("{pointer}/name"),
            "event-name",
            format!("event {pointer} has no string name"),
        ));
    }
    if !finite_time(event, pointer, literals) {
        return Err(invalid(
            &format!("{pointer}/time"),
            "event-time",
            format!("event {pointer} has no finite numeric time"),
        ));
    }
    if !obj.get("data").is_some_and(Value::is_object) {
        return Err(invalid(
            &format!("{pointer}/data"),
            "event-data",
            format!("event {pointer} has no object data"),
        ));
    }
    Ok(())
}

/// The common case without building a pointer: an object event with a
/// string name, a number time and object data (`check_event` explains any
/// other shape, unsafe-number times included).
fn event_shape_ok(event: &Value) -> bool {
    event.as_object().is_some_and(|obj| {
        obj.get("name").is_some_and(Value::is_string)
            && obj.get("time").is_some_and(Value::is_number)
            && obj.get("data").is_some_and(Value::is_object)
    })
}

/// Reads and checks a whole qlog file: every event, selected or not.
pub fn decode(bytes: &[u8], deadline: Option<Instant>) -> Result<Decoded, ErrorReport> {
    check_sequence(bytes)?;
    let parsed = match json::parse_with(bytes, json::Options { deadline }) {
        Ok(parsed) => parsed,
        Err(e) if e.kind == JsonErrorKind::Syntax && looks_like_jsonl(bytes) => {
            return Err(unsupported(
                "jsonl",
                "the file holds one JSON object per line (JSONL); only the JSON qlog 0.3 profile is supported".into(),
            ))
        }
        Err(e) => return Err(json_error(e)),
    };
    check_deadline(deadline)?;
    let mut doc = parsed.value;
    check_profile(&doc)?;
    let Some(traces) = doc.get_mut("traces").and_then(Value::as_array_mut) else {
        return Err(invalid(
            "/traces",
            "traces",
            "the qlog file has no traces list".into(),
        ));
    };
    let trace_count = traces.len();
    let mut raw_events: Vec<(usize, Vec<Value>)> = Vec::with_capacity(trace_count);
    for (t, trace) in traces.iter_mut().enumerate() {
        let pointer = format!("/traces/{t}");
        let Some(obj) = trace.as_object_mut() else {
            return Err(invalid(
                &pointer,
                "trace-not-an-object",
                format!("trace {pointer} is not an object"),
            ));
        };
        if obj.contains_key("event_fields") {
            return Err(unsupported(
                "columnar-events",
                format!("trace {pointer} declares event_fields (columnar events); only object events are supported"),
            )
            .detail("pointer", format!("{pointer}/event_fields")));
        }
        match obj.get_mut("events").map(std::mem::take) {
            Some(Value::Array(items)) => raw_events.push((t, items)),
            _ => {
                return Err(invalid(
                    &format!("{pointer}/events"),
                    "trace-events",
                    format!("trace {pointer} has no events list"),
                ))
            }
        }
    }
    // Numeric sidecars in document order: those under an event, in event
    // order, are handed to their event as it is built; the rest are the
    // container's. No per-event list is allocated for events without any.
    let sizes: Vec<usize> = raw_events.iter().map(|(_, e)| e.len()).collect();
    let mut container_literals = Vec::new();
    let mut under_events = std::collections::VecDeque::new();
    for literal in parsed.numeric_literals {
        match event_of(&literal.pointer).filter(|&(t, e)| t < trace_count && e < sizes[t]) {
            Some(at) => under_events.push_back((at, literal)),
            None => container_literals.push(literal),
        }
    }
    // One pass checks each event's shape and interprets its facts while
    // it is still in cache.
    let mut facts = Facts::new(trace_count);
    let mut events = Vec::with_capacity(sizes.iter().sum());
    let mut ordinal = 0u64;
    for (t, items) in raw_events {
        for (e, value) in items.into_iter().enumerate() {
            if ordinal.is_multiple_of(4096) {
                check_deadline(deadline)?;
            }
            let mut literals = Vec::new();
            while under_events.front().is_some_and(|(at, _)| *at == (t, e)) {
                if let Some((_, literal)) = under_events.pop_front() {
                    literals.push(literal);
                }
            }
            let event = Event {
                ordinal,
                trace: t,
                index: e,
                value,
                literals,
            };
            if !event_shape_ok(&event.value) {
                check_event(&event.value, &event.pointer(), &event.literals)?;
            }
            facts.add(&event)?;
            events.push(event);
            ordinal += 1;
        }
    }
    let facet = facts.finish(&doc, events.len() as u64);
    Ok(Decoded {
        container: doc,
        container_literals,
        events,
        traces: trace_count,
        facet,
    })
}

/// Derives the facet again from every event (as given, e.g. redacted),
/// failing on any invalid interpreted QUIC integer.
pub fn facts(
    container: &Value,
    traces: usize,
    events: &[Event],
    deadline: Option<Instant>,
) -> Result<QlogFacet, ErrorReport> {
    let mut facts = Facts::new(traces);
    for event in events {
        if event.ordinal.is_multiple_of(4096) {
            check_deadline(deadline)?;
        }
        facts.add(event)?;
    }
    Ok(facts.finish(container, events.len() as u64))
}

/// The facet under construction, one event at a time.
struct Facts {
    builders: Vec<TraceBuilder>,
}

impl Facts {
    fn new(traces: usize) -> Self {
        Facts {
            builders: (0..traces as u64).map(TraceBuilder::new).collect(),
        }
    }

    fn add(&mut self, event: &Event) -> Result<(), ErrorReport> {
        let lexemes: Lexemes<'_> = event
            .literals
            .iter()
            .map(|l| (l.pointer.as_str(), l.lexeme.as_str()))
            .collect();
        self.builders[event.trace]
            .event(event.ordinal, event.at(), &event.value, &lexemes)
            .map_err(bad_integer)
    }

    fn finish(self, container: &Value, event_count: u64) -> QlogFacet {
        let traces = self
            .builders
            .into_iter()
            .enumerate()
            .map(|(t, b)| {
                let trace = container.pointer(&format!("/traces/{t}"));
                let text = |p: &str| {
                    trace
                        .and_then(|v| v.pointer(p))
                        .and_then(Value::as_str)
                        .map(str::to_string)
                };
                b.finish(text("/common_fields/ODCID"), text("/vantage_point/type"))
            })
            .collect();
        QlogFacet::new(traces, event_count)
    }
}

#[cfg(test)]
mod tests;
