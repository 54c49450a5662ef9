//! The `qlog` facet's facts, derived once from every recorded event before
//! selection: STREAM frame contributions per trace, stream ID and
//! direction, their exact ranges and byte totals (decimal strings), FIN
//! final sizes, `recovery:packet_lost` declarations, HTTP frame metadata and
//! the ordinals whose interpretable metadata was omitted or redacted.

use super::integer::{self, IntProblem, QUIC_INT_MAX};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Which endpoint action a packet event reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    Sent,
    Received,
}

impl Direction {
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Sent => "sent",
            Direction::Received => "received",
        }
    }
}

/// One STREAM frame's reported range.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contribution {
    pub ordinal: u64,
    /// Pointer of the frame, or `null` when it would reveal a declared value.
    pub pointer: Option<String>,
    pub offset: String,
    pub length: String,
    /// `offset + length`.
    pub end: String,
    /// The reported FIN bit; `null` when the frame does not report it.
    pub fin: Option<bool>,
}

/// One byte range: `covered` (the union of contributions) or `repeated`
/// (covered by more than one contribution; not proof of retransmission).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ByteRange {
    pub kind: String,
    pub start: String,
    pub end: String,
    pub length: String,
}

/// One distinct FIN final size and the ordinals reporting it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinalSize {
    pub final_size: String,
    pub ordinals: Vec<u64>,
}

/// One stream, scoped by trace, stream ID and direction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stream {
    pub stream_id: String,
    pub direction: Direction,
    /// The HTTP/3 stream type an `http:stream_type_set` event reported, if any.
    pub stream_type: Option<String>,
    pub frame_count: u64,
    /// Sum of contribution lengths, overlaps included; `null` when excluded.
    pub frame_length_sum: Option<String>,
    /// Length of the union of contributions; `null` when excluded.
    pub unique_bytes: Option<String>,
    /// `frame_length_sum - unique_bytes`; `null` when excluded.
    pub repeated_bytes: Option<String>,
    pub contributions: Vec<Contribution>,
    pub ranges: Vec<ByteRange>,
    pub final_sizes: Vec<FinalSize>,
}

/// One endpoint's `recovery:packet_lost` report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LossDeclaration {
    pub ordinal: u64,
    pub pointer: Option<String>,
    /// Decimal packet number, `null` when unknown.
    pub packet_number: Option<String>,
    pub packet_type: Option<String>,
    pub trigger: Option<String>,
    /// Always `endpoint-report`: not proof of network loss.
    pub basis: String,
}

/// An event whose interpretable metadata was omitted or redacted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IncompleteRecord {
    pub ordinal: u64,
    pub pointer: Option<String>,
    pub reasons: Vec<String>,
}

/// HTTP/3 frame metadata of one trace: counts and DATA frame lengths, never bodies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HttpFacts {
    pub frames_created: u64,
    pub frames_parsed: u64,
    pub headers_frames: u64,
    pub data_frames: u64,
    /// Sum of reported DATA frame lengths (metadata); `null` when excluded.
    pub data_frame_length_sum: Option<String>,
    /// Always `not-reported`: qlog carries no body bytes, hash or timing causality.
    pub body_bytes: String,
}

/// The facts of one trace (one connection observation in this artifact).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceFacts {
    pub trace_index: u64,
    pub pointer: Option<String>,
    pub event_count: u64,
    /// Ordinal of the trace's first event (`null` without events).
    pub first_ordinal: Option<u64>,
    /// The reported `common_fields.ODCID`, not claimed globally unique.
    pub odcid: Option<String>,
    pub vantage_point_type: Option<String>,
    pub streams: Vec<Stream>,
    pub loss_declarations: Vec<LossDeclaration>,
    pub incomplete_records: Vec<IncompleteRecord>,
    pub http: HttpFacts,
}

/// An invalid interpreted QUIC integer: where, why and its spelling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadInteger {
    pub pointer: String,
    pub reason: &'static str,
    pub lexeme: String,
}

/// The numeric lexemes of one event, by absolute pointer.
pub type Lexemes<'a> = HashMap<&'a str, &'a str>;

/// Where an event is: its trace and its index there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct At {
    pub trace: usize,
    pub index: usize,
}

impl At {
    /// `/traces/T/events/E`.
    pub fn pointer(self) -> String {
        format!("/traces/{}/events/{}", self.trace, self.index)
    }
}

/// One contribution with its numeric start and end.
type Framed = (u64, u64, Contribution);

/// Accumulates one trace's facts event by event.
#[derive(Default)]
pub struct TraceBuilder {
    trace_index: u64,
    event_count: u64,
    first_ordinal: Option<u64>,
    frames: BTreeMap<(u64, Direction), Vec<Framed>>,
    stream_types: HashMap<u64, String>,
    losses: Vec<LossDeclaration>,
    incomplete: BTreeMap<u64, (String, BTreeSet<String>)>,
    http: HttpFacts,
    data_length_sum: u128,
}

fn int_at(
    object: &Value,
    member: &str,
    pointer: &str,
    lexemes: &Lexemes<'_>,
) -> Result<Option<u64>, BadInteger> {
    let value = object.get(member);
    // Most events have no numeric sidecars: no pointer is built for them.
    let lexeme = if lexemes.is_empty() {
        None
    } else {
        lexemes.get(format!("{pointer}/{member}").as_str()).copied()
    };
    integer::read(value, lexeme).map_err(|problem: IntProblem| BadInteger {
        reason: problem.reason(),
        lexeme: lexeme
            .map(str::to_string)
            .or_else(|| value.map(|v| v.to_string()))
            .unwrap_or_default(),
        pointer: format!("{pointer}/{member}"),
    })
}

fn text(object: &Value, member: &str) -> Option<String> {
    object
        .get(member)
        .and_then(Value::as_str)
        .map(str::to_string)
}

impl TraceBuilder {
    pub fn new(trace_index: u64) -> Self {
        TraceBuilder {
            trace_index,
            http: HttpFacts {
                body_bytes: "not-reported".into(),
                ..HttpFacts::default()
            },
            ..TraceBuilder::default()
        }
    }

    fn incomplete(&mut self, ordinal: u64, pointer: &str, reason: &str) {
        self.incomplete
            .entry(ordinal)
            .or_insert_with(|| (pointer.to_string(), BTreeSet::new()))
            .1
            .insert(reason.to_string());
    }

    /// Reads one event (already structurally checked) at `pointer`.
    pub fn event(
        &mut self,
        ordinal: u64,
        at: At,
        event: &Value,
        lexemes: &Lexemes<'_>,
    ) -> Result<(), BadInteger> {
        self.event_count += 1;
        self.first_ordinal.get_or_insert(ordinal);
        let Some(name) = event.get("name").and_then(Value::as_str) else {
            // Every original event has a string name: only a redaction removes it.
            self.incomplete(ordinal, &at.pointer(), "event name omitted or redacted");
            return Ok(());
        };
        let data = event.get("data").unwrap_or(&Value::Null);
        if let "transport:packet_sent" | "transport:packet_received" = name {
            let direction = if name.ends_with("sent") {
                Direction::Sent
            } else {
                Direction::Received
            };
            // Pointers are built only for frames that are read.
            return self.packet(ordinal, at, data, direction, lexemes);
        }
        let pointer = &at.pointer();
        let data_pointer = format!("{pointer}/data");
        match name {
            "recovery:packet_lost" => self.loss(ordinal, pointer, &data_pointer, data, lexemes),
            "http:frame_created" | "http:frame_parsed" => {
                self.http_frame(ordinal, pointer, &data_pointer, data, name, lexemes)
            }
            "http:stream_type_set" => {
                let id = int_at(data, "stream_id", &data_pointer, lexemes)?;
                match (id, text(data, "new")) {
                    (Some(id), Some(kind)) => {
                        self.stream_types.insert(id, kind);
                    }
                    _ => self.incomplete(
                        ordinal,
                        pointer,
                        "stream type without stream_id or new type",
                    ),
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn packet(
        &mut self,
        ordinal: u64,
        at: At,
        data: &Value,
        direction: Direction,
        lexemes: &Lexemes<'_>,
    ) -> Result<(), BadInteger> {
        let Some(frames) = data.get("frames") else {
            return Ok(());
        };
        let Some(frames) = frames.as_array() else {
            self.incomplete(ordinal, &at.pointer(), "frames is not a list");
            return Ok(());
        };
        for (i, frame) in frames.iter().enumerate() {
            match frame.get("frame_type").and_then(Value::as_str) {
                Some("stream") => {}
                Some(_) => continue,
                None => {
                    self.incomplete(ordinal, &at.pointer(), "frame type omitted or redacted");
                    continue;
                }
            }
            let pointer = &at.pointer();
            let fp = format!("{pointer}/data/frames/{i}");
            let id = int_at(frame, "stream_id", &fp, lexemes)?;
            let offset = int_at(frame, "offset", &fp, lexemes)?;
            let length = int_at(frame, "length", &fp, lexemes)?;
            if let (Some(offset), Some(length)) = (offset, length) {
                if u128::from(offset) + u128::from(length) > u128::from(QUIC_INT_MAX) {
                    return Err(BadInteger {
                        pointer: format!("{fp}/length"),
                        reason: "offset-plus-length-above-2^62-1",
                        lexeme: length.to_string(),
                    });
                }
            }
            let fin = match frame.get("fin") {
                Some(Value::Bool(b)) => Some(*b),
                _ => None,
            };
            let (Some(id), Some(offset), Some(length)) = (id, offset, length) else {
                for (member, known) in [
                    ("stream_id", id.is_some()),
                    ("offset", offset.is_some()),
                    ("length", length.is_some()),
                ] {
                    if !known {
                        self.incomplete(
                            ordinal,
                            pointer,
                            &format!("STREAM frame {member} omitted or redacted"),
                        );
                    }
                }
                continue;
            };
            if fin.is_none() {
                self.incomplete(ordinal, pointer, "STREAM frame fin omitted or redacted");
            }
            let end = offset + length;
            let contribution = Contribution {
                ordinal,
                pointer: Some(fp),
                offset: offset.to_string(),
                length: length.to_string(),
                end: end.to_string(),
                fin,
            };
            self.frames
                .entry((id, direction))
                .or_default()
                .push((offset, end, contribution));
        }
        Ok(())
    }

    fn loss(
        &mut self,
        ordinal: u64,
        pointer: &str,
        data_pointer: &str,
        data: &Value,
        lexemes: &Lexemes<'_>,
    ) -> Result<(), BadInteger> {
        // aioquic 1.5.0 writes `packet_number`/`type` in data; qlog 0.3
        // drafts put them in `header`. Either is read; neither is invented.
        let header = data.get("header").filter(|h| h.is_object());
        let number = match header {
            Some(h) if h.get("packet_number").is_some() => int_at(
                h,
                "packet_number",
                &format!("{data_pointer}/header"),
                lexemes,
            )?,
            _ => int_at(data, "packet_number", data_pointer, lexemes)?,
        };
        let packet_type =
            text(data, "type").or_else(|| header.and_then(|h| text(h, "packet_type")));
        if number.is_none() {
            self.incomplete(ordinal, pointer, "lost packet number omitted or redacted");
        }
        self.losses.push(LossDeclaration {
            ordinal,
            pointer: Some(pointer.to_string()),
            packet_number: number.map(|n| n.to_string()),
            packet_type,
            trigger: text(data, "trigger"),
            basis: "endpoint-report".into(),
        });
        Ok(())
    }

    fn http_frame(
        &mut self,
        ordinal: u64,
        pointer: &str,
        data_pointer: &str,
        data: &Value,
        name: &str,
        lexemes: &Lexemes<'_>,
    ) -> Result<(), BadInteger> {
        if name == "http:frame_created" {
            self.http.frames_created += 1;
        } else {
            self.http.frames_parsed += 1;
        }
        int_at(data, "stream_id", data_pointer, lexemes)?;
        let length = int_at(data, "length", data_pointer, lexemes)?;
        let frame_type = data
            .get("frame")
            .and_then(|f| f.get("frame_type"))
            .and_then(Value::as_str);
        match frame_type {
            Some("headers") => self.http.headers_frames += 1,
            Some("data") => {
                self.http.data_frames += 1;
                match length {
                    Some(n) => self.data_length_sum += u128::from(n),
                    None => self.incomplete(
                        ordinal,
                        pointer,
                        "HTTP DATA frame length omitted or redacted",
                    ),
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The finished facts of this trace.
    pub fn finish(self, odcid: Option<String>, vantage_point_type: Option<String>) -> TraceFacts {
        let mut streams: Vec<Stream> = self
            .frames
            .into_iter()
            .map(|((id, direction), frames)| stream(id, direction, frames, &self.stream_types))
            .collect();
        // Streams named only by `http:stream_type_set` still exist as types
        // on the streams that carried frames; nothing is invented for others.
        streams.sort_by(|a, b| {
            let key = |s: &Stream| (s.stream_id.parse::<u64>().unwrap_or(u64::MAX), s.direction);
            key(a).cmp(&key(b))
        });
        let incomplete_records = self
            .incomplete
            .into_iter()
            .map(|(ordinal, (pointer, reasons))| IncompleteRecord {
                ordinal,
                pointer: Some(pointer),
                reasons: reasons.into_iter().collect(),
            })
            .collect();
        let mut http = self.http;
        http.data_frame_length_sum = Some(self.data_length_sum.to_string());
        TraceFacts {
            trace_index: self.trace_index,
            pointer: Some(format!("/traces/{}", self.trace_index)),
            event_count: self.event_count,
            first_ordinal: self.first_ordinal,
            odcid,
            vantage_point_type,
            streams,
            loss_declarations: self.losses,
            incomplete_records,
            http,
        }
    }
}

fn stream(
    id: u64,
    direction: Direction,
    frames: Vec<Framed>,
    types: &HashMap<u64, String>,
) -> Stream {
    let frame_length_sum: u128 = frames.iter().map(|(s, e, _)| u128::from(e - s)).sum();
    // Sweep the interval boundaries: depth ≥ 1 is covered, ≥ 2 repeated.
    let mut edges: Vec<(u64, i64)> = Vec::with_capacity(frames.len() * 2);
    for (s, e, _) in &frames {
        if s < e {
            edges.push((*s, 1));
            edges.push((*e, -1));
        }
    }
    edges.sort_unstable();
    let mut covered: Vec<(u64, u64)> = Vec::new();
    let mut repeated: Vec<(u64, u64)> = Vec::new();
    let mut depth: i64 = 0;
    let mut i = 0;
    while i < edges.len() {
        let at = edges[i].0;
        let before = depth;
        while i < edges.len() && edges[i].0 == at {
            depth += edges[i].1;
            i += 1;
        }
        for (list, threshold) in [(&mut covered, 1), (&mut repeated, 2)] {
            if before < threshold && depth >= threshold {
                list.push((at, at));
            } else if before >= threshold && depth < threshold {
                if let Some(last) = list.last_mut() {
                    last.1 = at;
                }
            }
        }
    }
    let unique: u128 = covered.iter().map(|(s, e)| u128::from(e - s)).sum();
    let range = |kind: &str, (s, e): (u64, u64)| ByteRange {
        kind: kind.to_string(),
        start: s.to_string(),
        end: e.to_string(),
        length: (e - s).to_string(),
    };
    let mut ranges: Vec<ByteRange> = covered.into_iter().map(|r| range("covered", r)).collect();
    ranges.extend(repeated.into_iter().map(|r| range("repeated", r)));
    let mut finals: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for (_, end, c) in &frames {
        if c.fin == Some(true) {
            let ordinals = finals.entry(*end).or_default();
            if ordinals.last() != Some(&c.ordinal) {
                ordinals.push(c.ordinal);
            }
        }
    }
    Stream {
        stream_id: id.to_string(),
        direction,
        stream_type: types.get(&id).cloned(),
        frame_count: frames.len() as u64,
        frame_length_sum: Some(frame_length_sum.to_string()),
        unique_bytes: Some(unique.to_string()),
        repeated_bytes: Some((frame_length_sum - unique).to_string()),
        contributions: frames.into_iter().map(|(_, _, c)| c).collect(),
        ranges,
        final_sizes: finals
            .into_iter()
            .map(|(size, ordinals)| FinalSize {
                final_size: size.to_string(),
                ordinals,
            })
            .collect(),
    }
}

impl Default for HttpFacts {
    fn default() -> Self {
        HttpFacts {
            frames_created: 0,
            frames_parsed: 0,
            headers_frames: 0,
            data_frames: 0,
            data_frame_length_sum: None,
            body_bytes: "not-reported".into(),
        }
    }
}
