//! The focused `qlog` views: pages over the already interpreted facts of a
//! qlog parent's `qlog` facet (traces, streams, contributions, ranges,
//! final sizes, loss declarations, incomplete records). They never decode
//! again or open the source; facts cover every recorded event.

use crate::budget::{clone_charge, inline_charge, Budget, PROJECTION_BUDGET};
use crate::error::{DeriveError, Refusal};
use crate::source::validate_evidence;
use serde_json::{json, Map, Value};

/// The facets a `qlog` view pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Facet {
    Traces,
    Streams,
    Contributions,
    Ranges,
    FinalSizes,
    LossDeclarations,
    IncompleteRecords,
}

impl Facet {
    fn parse(name: &str) -> Option<Facet> {
        Some(match name {
            "traces" => Facet::Traces,
            "streams" => Facet::Streams,
            "contributions" => Facet::Contributions,
            "ranges" => Facet::Ranges,
            "final-sizes" => Facet::FinalSizes,
            "loss-declarations" => Facet::LossDeclarations,
            "incomplete-records" => Facet::IncompleteRecords,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Facet::Traces => "traces",
            Facet::Streams => "streams",
            Facet::Contributions => "contributions",
            Facet::Ranges => "ranges",
            Facet::FinalSizes => "final-sizes",
            Facet::LossDeclarations => "loss-declarations",
            Facet::IncompleteRecords => "incomplete-records",
        }
    }

    /// Which selectors the facet needs: none, the trace, or the whole stream.
    fn selectors(self) -> &'static [&'static str] {
        match self {
            Facet::Traces => &[],
            Facet::Streams | Facet::LossDeclarations | Facet::IncompleteRecords => &["trace_index"],
            Facet::Contributions | Facet::Ranges | Facet::FinalSizes => {
                &["trace_index", "stream_id", "direction"]
            }
        }
    }
}

/// `{"kind":"qlog","facet":"streams","trace_index":0,"offset":0,"limit":64}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QlogView {
    pub facet: Facet,
    pub trace_index: Option<u64>,
    pub stream_id: Option<String>,
    pub direction: Option<String>,
    pub offset: usize,
    pub limit: usize,
}

/// The default page size of every qlog facet.
pub(crate) const DEFAULT_LIMIT: usize = 64;

/// Parses a `qlog` view object (its `kind` already read). Every selector
/// the facet needs is required and no other is accepted: the view never
/// chooses a connection or stream by itself.
pub(crate) fn parse(obj: &Map<String, Value>) -> Result<QlogView, DeriveError> {
    crate::view::allow(
        obj,
        &[
            "kind",
            "facet",
            "trace_index",
            "stream_id",
            "direction",
            "offset",
            "limit",
        ],
    )?;
    let facet = match obj.get("facet") {
        Some(Value::String(name)) => Facet::parse(name).ok_or_else(|| {
            DeriveError::invalid_request(
                "/facet",
                format!("unknown qlog facet `{name}` (traces, streams, contributions, ranges, final-sizes, loss-declarations or incomplete-records)"),
            )
        })?,
        Some(_) => return Err(DeriveError::invalid_request("/facet", "facet must be a string")),
        None => return Err(DeriveError::invalid_request("/facet", "facet is required")),
    };
    let needed = facet.selectors();
    for selector in ["trace_index", "stream_id", "direction"] {
        let given = obj.contains_key(selector);
        let wanted = needed.contains(&selector);
        if wanted && !given {
            return Err(DeriveError::invalid_request(
                &format!("/{selector}"),
                format!(
                    "facet `{}` needs {selector}; the view never chooses one",
                    facet.as_str()
                ),
            ));
        }
        if given && !wanted {
            return Err(DeriveError::invalid_request(
                &format!("/{selector}"),
                format!("facet `{}` does not take {selector}", facet.as_str()),
            ));
        }
    }
    let trace_index = match obj.get("trace_index") {
        None => None,
        Some(v) => Some(v.as_u64().ok_or_else(|| {
            DeriveError::invalid_request(
                "/trace_index",
                "trace_index must be a non-negative integer",
            )
        })?),
    };
    let stream_id = match obj.get("stream_id") {
        None => None,
        Some(Value::String(s))
            if !s.is_empty()
                && s.bytes().all(|b| b.is_ascii_digit())
                && (s == "0" || !s.starts_with('0')) =>
        {
            Some(s.clone())
        }
        Some(_) => {
            return Err(DeriveError::invalid_request(
                "/stream_id",
                "stream_id must be a decimal string such as \"0\"",
            ))
        }
    };
    let direction = match obj.get("direction") {
        None => None,
        Some(Value::String(d)) if d == "sent" || d == "received" => Some(d.clone()),
        Some(_) => {
            return Err(DeriveError::invalid_request(
                "/direction",
                "direction must be \"sent\" or \"received\"",
            ))
        }
    };
    Ok(QlogView {
        facet,
        trace_index,
        stream_id,
        direction,
        offset: crate::view::index(obj, "offset", 0)?,
        limit: crate::view::limit(obj, DEFAULT_LIMIT)?,
    })
}

/// One page of a qlog facet.
pub(crate) fn qlog_page(evidence: &Value, view: &QlogView) -> Result<Value, DeriveError> {
    qlog_page_budgeted(evidence, view, &mut Budget::new(PROJECTION_BUDGET))
}

pub(crate) fn qlog_page_budgeted(
    evidence: &Value,
    view: &QlogView,
    budget: &mut Budget,
) -> Result<Value, DeriveError> {
    let issues = validate_evidence(evidence);
    if !issues.is_empty() {
        return Err(DeriveError::InvalidEvidence { issues });
    }
    let Some(facet) = evidence
        .get("qlog")
        .filter(|_| evidence.pointer("/capture/format").and_then(Value::as_str) == Some("qlog"))
    else {
        return Err(DeriveError::Unsupported {
            refusal: Refusal::NonQlogCapture,
            detail: "qlog views need qlog Evidence with its qlog facet".into(),
        });
    };
    budget.charge(clone_charge(facet))?;
    let traces = facet
        .get("traces")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let rows: Vec<Value> = match view.facet {
        Facet::Traces => traces.iter().map(trace_row).collect(),
        _ => {
            let index = view.trace_index.unwrap_or(0);
            let trace = traces
                .iter()
                .find(|t| t.get("trace_index").and_then(Value::as_u64) == Some(index))
                .ok_or_else(|| {
                    DeriveError::invalid_request(
                        "/trace_index",
                        format!("the parent has no trace {index} (it has {})", traces.len()),
                    )
                })?;
            let list = |key: &str| -> Vec<Value> {
                trace
                    .get(key)
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default()
            };
            match view.facet {
                Facet::Streams => list("streams").iter().map(stream_row).collect(),
                Facet::LossDeclarations => list("loss_declarations"),
                Facet::IncompleteRecords => list("incomplete_records"),
                _ => {
                    let (id, direction) = (
                        view.stream_id.as_deref().unwrap_or(""),
                        view.direction.as_deref().unwrap_or(""),
                    );
                    let streams = list("streams");
                    let stream = streams
                        .iter()
                        .find(|s| {
                            s.get("stream_id").and_then(Value::as_str) == Some(id)
                                && s.get("direction").and_then(Value::as_str) == Some(direction)
                        })
                        .ok_or_else(|| {
                            DeriveError::invalid_request(
                                "/stream_id",
                                format!("trace {index} has no retained stream {id} {direction}"),
                            )
                        })?;
                    let key = match view.facet {
                        Facet::Contributions => "contributions",
                        Facet::Ranges => "ranges",
                        _ => "final_sizes",
                    };
                    stream
                        .get(key)
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default()
                }
            }
        }
    };
    let total = rows.len();
    let mut page = Vec::new();
    for row in rows.into_iter().skip(view.offset).take(view.limit) {
        budget.charge(inline_charge(&row))?;
        page.push(row);
    }
    let end = view.offset.saturating_add(page.len());
    let mut selectors = Map::new();
    if let Some(t) = view.trace_index {
        selectors.insert("trace_index".into(), json!(t));
    }
    if let Some(s) = &view.stream_id {
        selectors.insert("stream_id".into(), json!(s));
    }
    if let Some(d) = &view.direction {
        selectors.insert("direction".into(), json!(d));
    }
    let mut limitations = vec![json!(
        "Reaching the last page of this facet does not prove complete logging or complete network coverage."
    )];
    let parent_selection = evidence
        .pointer("/parameters/record_ordinals")
        .cloned()
        .unwrap_or(Value::Null);
    if !parent_selection.is_null() {
        limitations.push(json!(
            "The parent selected some event records; these facts still cover every recorded event of the capture."
        ));
    }
    Ok(json!({
        "view": "qlog",
        "facet": view.facet.as_str(),
        "selectors": selectors,
        "scope": facet.get("scope").cloned().unwrap_or(Value::Null),
        "parent_record_ordinals": parent_selection,
        "total_rows": total,
        "coverage": {
            "offset": view.offset,
            "limit": view.limit,
            "returned": page.len(),
            "total_rows": total,
            "next_offset": if end < total { json!(end) } else { Value::Null },
            "exhausted": end >= total,
        },
        "rows": page,
        "limitations": limitations,
    }))
}

fn count(value: &Value, key: &str) -> usize {
    value.get(key).and_then(Value::as_array).map_or(0, Vec::len)
}

/// A trace without its nested lists, with their counts.
fn trace_row(trace: &Value) -> Value {
    let mut row = trace.as_object().cloned().unwrap_or_default();
    for key in ["streams", "loss_declarations", "incomplete_records"] {
        row.remove(key);
    }
    row.insert("stream_count".into(), json!(count(trace, "streams")));
    row.insert(
        "loss_declaration_count".into(),
        json!(count(trace, "loss_declarations")),
    );
    row.insert(
        "incomplete_record_count".into(),
        json!(count(trace, "incomplete_records")),
    );
    Value::Object(row)
}

/// A stream with its exact totals, without its lists, with their counts.
fn stream_row(stream: &Value) -> Value {
    let mut row = stream.as_object().cloned().unwrap_or_default();
    for key in ["contributions", "ranges", "final_sizes"] {
        row.remove(key);
    }
    let ranges = stream.get("ranges").and_then(Value::as_array);
    let of_kind = |kind: &str| {
        ranges.map_or(0, |r| {
            r.iter()
                .filter(|x| x.get("kind").and_then(Value::as_str) == Some(kind))
                .count()
        })
    };
    row.insert(
        "contribution_count".into(),
        json!(count(stream, "contributions")),
    );
    row.insert("covered_range_count".into(), json!(of_kind("covered")));
    row.insert("repeated_range_count".into(), json!(of_kind("repeated")));
    row.insert(
        "final_size_count".into(),
        json!(count(stream, "final_sizes")),
    );
    Value::Object(row)
}

#[cfg(test)]
mod tests;
