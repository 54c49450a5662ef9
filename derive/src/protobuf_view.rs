//! The `protobuf` view: pages over the body, frame and field facts of a
//! parent's `protobuf` facet, with intersecting filters, column selection
//! (identity, offset basis and body status always kept) and the parent's
//! `protobuf_coverage`. It never decodes again or opens a file.
//!
//! A retained (authenticated, immutable) parent may carry a `ViewCache`:
//! its validation is done once, and the most recent field filter keeps the
//! indices of the rows it selected (references to existing facts). A filter
//! whose selector lists hold more values than the parent has field facts is
//! scanned uncached, with the same rows. Inline parents get no cache and
//! are validated on every request.

use crate::budget::{clone_charge, inline_charge, Budget, PROJECTION_BUDGET};
use crate::error::{DeriveError, Refusal};
use crate::source::validate_evidence;
use serde_json::{json, Map, Value};

/// The default page size.
pub const DEFAULT_LIMIT: usize = 16;
/// Field columns a default page leaves out.
pub const OMITTED_BY_DEFAULT: [&str; 3] = ["text", "schema_value", "enum_aliases"];
/// Columns every field row keeps whatever is selected.
pub const KEPT: [&str; 6] = [
    "record_ordinal",
    "body_pointer",
    "field_id",
    "frame_index",
    "offset_basis",
    "body_status",
];
/// Every field column.
pub const FIELD_COLUMNS: [&str; 21] = [
    "record_ordinal",
    "body_pointer",
    "field_id",
    "frame_index",
    "parent_field_id",
    "depth",
    "offset",
    "number",
    "wire_type",
    "value_offset",
    "value_length",
    "value",
    "candidates",
    "text",
    "schema_name",
    "schema_type",
    "schema_value",
    "schema_status",
    "schema_error",
    "enum_aliases",
    "offset_basis",
];

/// `{"kind":"protobuf","collection":"fields","record_ordinals":[3],...}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtobufView {
    /// `bodies`, `frames` or `fields`.
    pub collection: String,
    pub record_ordinals: Option<Vec<u64>>,
    pub frame_indices: Option<Vec<u64>>,
    pub field_numbers: Option<Vec<u64>>,
    pub field_ids: Option<Vec<u64>>,
    pub schema_names: Option<Vec<String>>,
    /// Selected field columns (`None`: the default set).
    pub fields: Option<Vec<String>>,
    pub offset: usize,
    pub limit: usize,
}

fn numbers(obj: &Map<String, Value>, key: &str) -> Result<Option<Vec<u64>>, DeriveError> {
    match obj.get(key) {
        None => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(Value::as_u64)
            .collect::<Option<Vec<u64>>>()
            .map(Some)
            .ok_or_else(|| {
                DeriveError::invalid_request(
                    &format!("/{key}"),
                    format!("{key} must be an array of non-negative integers"),
                )
            }),
        Some(_) => Err(DeriveError::invalid_request(
            &format!("/{key}"),
            format!("{key} must be an array of non-negative integers"),
        )),
    }
}

fn strings(obj: &Map<String, Value>, key: &str) -> Result<Option<Vec<String>>, DeriveError> {
    match obj.get(key) {
        None => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect::<Option<Vec<String>>>()
            .map(Some)
            .ok_or_else(|| {
                DeriveError::invalid_request(
                    &format!("/{key}"),
                    format!("{key} must be an array of strings"),
                )
            }),
        Some(_) => Err(DeriveError::invalid_request(
            &format!("/{key}"),
            format!("{key} must be an array of strings"),
        )),
    }
}

/// Parses a `protobuf` view object (its `kind` already read).
pub(crate) fn parse(obj: &Map<String, Value>) -> Result<ProtobufView, DeriveError> {
    crate::view::allow(
        obj,
        &[
            "kind",
            "collection",
            "record_ordinals",
            "frame_indices",
            "field_numbers",
            "field_ids",
            "schema_names",
            "fields",
            "offset",
            "limit",
        ],
    )?;
    let collection = match obj.get("collection").and_then(Value::as_str) {
        Some(c @ ("bodies" | "frames" | "fields")) => c.to_string(),
        _ => {
            return Err(DeriveError::invalid_request(
                "/collection",
                "collection must be bodies, frames or fields",
            ))
        }
    };
    let field_only = ["field_numbers", "field_ids", "schema_names", "fields"];
    for key in field_only {
        if collection != "fields" && obj.contains_key(key) {
            return Err(DeriveError::invalid_request(
                &format!("/{key}"),
                format!("{key} applies to the fields collection only"),
            ));
        }
    }
    if collection == "bodies" && obj.contains_key("frame_indices") {
        return Err(DeriveError::invalid_request(
            "/frame_indices",
            "frame_indices applies to the frames and fields collections",
        ));
    }
    let fields = strings(obj, "fields")?;
    if let Some(columns) = &fields {
        if let Some(bad) = columns
            .iter()
            .find(|c| !FIELD_COLUMNS.contains(&c.as_str()) && c.as_str() != "body_status")
        {
            return Err(DeriveError::invalid_request(
                "/fields",
                format!("unknown field column `{bad}`"),
            ));
        }
    }
    Ok(ProtobufView {
        collection,
        record_ordinals: numbers(obj, "record_ordinals")?,
        frame_indices: numbers(obj, "frame_indices")?,
        field_numbers: numbers(obj, "field_numbers")?,
        field_ids: numbers(obj, "field_ids")?,
        schema_names: strings(obj, "schema_names")?,
        fields,
        offset: crate::view::index(obj, "offset", 0)?,
        limit: crate::view::limit(obj, DEFAULT_LIMIT)?,
    })
}

/// One page of a protobuf collection.
pub fn protobuf_page(evidence: &Value, view: &ProtobufView) -> Result<Value, DeriveError> {
    protobuf_page_budgeted(evidence, view, &mut Budget::new(PROJECTION_BUDGET), None)
}

/// What a retained parent caches for its protobuf pages; it lives with the
/// retained Evidence and holds no copy of a fact.
#[derive(Debug, Default, Clone)]
pub struct ViewCache {
    validated: bool,
    /// The most recent field filter (its selector text) and the indices of
    /// the field facts it selected.
    filter: Option<(String, Vec<usize>)>,
    /// Pages answered from the cached filter, and uncached scans of
    /// selections larger than the retained field count.
    pub filter_hits: u64,
    pub uncached_scans: u64,
}

/// One page of a retained parent's protobuf collection, reusing `cache`.
pub fn protobuf_page_cached(
    evidence: &Value,
    view: &ProtobufView,
    cache: &mut ViewCache,
) -> Result<Value, DeriveError> {
    protobuf_page_budgeted(
        evidence,
        view,
        &mut Budget::new(PROJECTION_BUDGET),
        Some(cache),
    )
}

/// The selector text of a field filter and its size in selector values.
fn selector(view: &ProtobufView) -> (String, usize) {
    let size = [
        &view.record_ordinals,
        &view.frame_indices,
        &view.field_numbers,
        &view.field_ids,
    ]
    .iter()
    .map(|l| l.as_ref().map_or(0, Vec::len))
    .sum::<usize>()
        + view.schema_names.as_ref().map_or(0, Vec::len);
    let text = json!([
        view.record_ordinals,
        view.frame_indices,
        view.field_numbers,
        view.field_ids,
        view.schema_names
    ])
    .to_string();
    (text, size)
}

/// The row passes every filter of the view (filters intersect).
fn keeps(view: &ProtobufView, row: &Value) -> bool {
    keeps_u64(&view.record_ordinals, row, "record_ordinal")
        && keeps_u64(&view.frame_indices, row, "frame_index")
        && keeps_u64(&view.field_numbers, row, "number")
        && keeps_u64(&view.field_ids, row, "field_id")
        && view.schema_names.as_ref().is_none_or(|names| {
            row.get("schema_name")
                .and_then(Value::as_str)
                .is_some_and(|n| names.iter().any(|x| x == n))
        })
}

fn keeps_u64(filter: &Option<Vec<u64>>, row: &Value, key: &str) -> bool {
    filter.as_ref().is_none_or(|list| {
        row.get(key)
            .and_then(Value::as_u64)
            .is_some_and(|v| list.contains(&v))
    })
}

pub(crate) fn protobuf_page_budgeted(
    evidence: &Value,
    view: &ProtobufView,
    budget: &mut Budget,
    mut cache: Option<&mut ViewCache>,
) -> Result<Value, DeriveError> {
    if !cache.as_ref().is_some_and(|c| c.validated) {
        let issues = validate_evidence(evidence);
        if !issues.is_empty() {
            return Err(DeriveError::InvalidEvidence { issues });
        }
        if let Some(c) = cache.as_deref_mut() {
            c.validated = true;
        }
    }
    let Some(facet) = evidence.get("protobuf") else {
        return Err(DeriveError::Unsupported {
            refusal: Refusal::NoProtobufFacts,
            detail:
                "protobuf views need Evidence inspected with record_ordinals (its protobuf facet)"
                    .into(),
        });
    };
    budget.charge(clone_charge(facet))?;
    let list = |key: &str| {
        facet
            .get(key)
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    };
    let bodies = list("bodies");
    let body_of = |row: &Value| {
        bodies.iter().find(|b| {
            b.get("record_ordinal") == row.get("record_ordinal")
                && b.get("pointer") == row.get("body_pointer")
        })
    };
    let all = list(&view.collection);
    let scan = || -> Vec<usize> {
        all.iter()
            .enumerate()
            .filter(|(_, row)| keeps(view, row))
            .map(|(i, _)| i)
            .collect()
    };
    let indices: Vec<usize> = match cache {
        Some(c) if view.collection == "fields" => {
            let (text, size) = selector(view);
            if size > all.len() {
                c.uncached_scans += 1;
                scan()
            } else if let Some((_, hit)) = c.filter.as_ref().filter(|(t, _)| *t == text) {
                c.filter_hits += 1;
                hit.clone()
            } else {
                let found = scan();
                c.filter = Some((text, found.clone()));
                found
            }
        }
        _ => scan(),
    };
    let rows: Vec<&Value> = indices.iter().filter_map(|&i| all.get(i)).collect();
    let total = rows.len();
    let mut page = Vec::new();
    for row in rows.into_iter().skip(view.offset).take(view.limit) {
        let shaped = if view.collection == "fields" {
            let body = body_of(row);
            let mut out = Map::new();
            let src = row.as_object().cloned().unwrap_or_default();
            for (k, v) in src {
                let selected = match &view.fields {
                    Some(cols) => cols.iter().any(|c| c == &k),
                    None => !OMITTED_BY_DEFAULT.contains(&k.as_str()),
                };
                if selected || KEPT.contains(&k.as_str()) {
                    out.insert(k, v);
                }
            }
            let pick = |key: &str| {
                body.and_then(|b| b.get(key))
                    .cloned()
                    .unwrap_or(Value::Null)
            };
            out.insert("offset_basis".into(), pick("offset_basis"));
            out.insert("body_status".into(), pick("status"));
            Value::Object(out)
        } else {
            row.clone()
        };
        budget.charge(inline_charge(&shaped))?;
        page.push(shaped);
    }
    let end = view.offset.saturating_add(page.len());
    let coverage = facet
        .get("protobuf_coverage")
        .cloned()
        .unwrap_or(Value::Null);
    let mut limitations = vec![json!(
        "Reaching the last page covers the retained protobuf facts only; it does not establish that the sender sent no other fields."
    )];
    if coverage.get("status").and_then(Value::as_str) != Some("complete") {
        limitations.push(json!(
            "protobuf_coverage is partial: some selected bodies were not interpreted, so a missing row establishes no absence."
        ));
    }
    if facet.get("descriptor").is_some_and(|d| !d.is_null()) {
        limitations.push(json!(
            "schema_* columns interpret the wire under the supplied descriptor; they do not establish the sender's actual schema."
        ));
    }
    Ok(json!({
        "view": "protobuf",
        "collection": view.collection,
        "protobuf_coverage": coverage,
        "descriptor": facet.get("descriptor").cloned().unwrap_or(Value::Null),
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

#[cfg(test)]
mod tests;
