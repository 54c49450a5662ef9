//! The api-surface view: request lines grouped by method, WHATWG origin and
//! four-format-rule path template, paged over groups.
//!
//! - `format_rules`: the four exact-format segment rules.
//! - `records`: one record's request line, headline and exclusion reason.
//! - `query`: `URLSearchParams`-style query name decoding.
//! - `group`: the budgeted grouping accumulator shared with the manifest.

pub(crate) mod format_rules;
pub(crate) mod group;
pub(crate) mod query;
pub(crate) mod records;

use crate::budget::{clone_charge, inline_charge, Budget, PROJECTION_BUDGET};
use crate::error::DeriveError;
use crate::source::admit_parent;
use crate::view::ApiSurfaceView;
use group::{group, Group, Grouping, Seg};
use serde_json::{json, Map, Value};

/// The api-surface view of retained (or file) Evidence.
pub fn api_surface(evidence: &Value, view: &ApiSurfaceView) -> Result<Value, DeriveError> {
    api_surface_budgeted(evidence, view, false, &mut Budget::new(PROJECTION_BUDGET))
}

/// The api-surface view of Evidence given inline: its whole envelope is
/// admitted as text first.
pub(crate) fn api_surface_inline(
    evidence: &Value,
    view: &ApiSurfaceView,
) -> Result<Value, DeriveError> {
    api_surface_budgeted(evidence, view, true, &mut Budget::new(PROJECTION_BUDGET))
}

pub(crate) fn api_surface_budgeted(
    evidence: &Value,
    view: &ApiSurfaceView,
    inline: bool,
    budget: &mut Budget,
) -> Result<Value, DeriveError> {
    let grouping = grouping_of(evidence, view.include_query_parameter_names, inline, budget)?;
    Ok(render(&grouping, view))
}

/// Admits the parent and groups it: shared by every derived view.
pub(crate) fn grouping_of(
    evidence: &Value,
    include_query: bool,
    inline: bool,
    budget: &mut Budget,
) -> Result<Grouping, DeriveError> {
    if inline {
        budget.charge(inline_charge(evidence))?;
    }
    let parent = admit_parent(evidence)?;
    budget.charge(clone_charge(evidence))?;
    group(&parent, include_query, budget)
}

/// Limitations every view of this grouping carries.
pub(crate) fn view_limitations(grouping: &Grouping) -> Vec<String> {
    let mut out = grouping.limitations.clone();
    if grouping.subset {
        out.push(format!(
            "The parent Evidence retains {} of the capture's {} records; unselected records are not described.",
            grouping.retained, grouping.total
        ));
    }
    if !grouping.exclusions.is_empty() {
        out.push(format!(
            "{} retained record(s) have no usable request line and are listed under records.excluded.",
            grouping.exclusions.len()
        ));
    }
    out
}

fn render(grouping: &Grouping, view: &ApiSurfaceView) -> Value {
    let templated = grouping.templated_groups();
    let total_groups = grouping.groups.len();
    let page: Vec<Value> = grouping
        .groups
        .iter()
        .skip(view.offset)
        .take(view.limit)
        .map(|g| render_group(g, view.include_query_parameter_names))
        .collect();
    let returned = page.len();
    let end = view.offset.saturating_add(returned);
    json!({
        "view": "api-surface",
        "basis": if templated > 0 { "inferred" } else { "derived" },
        "templated_groups": templated,
        "coverage": {
            "offset": view.offset,
            "limit": view.limit,
            "returned": returned,
            "total_groups": total_groups,
            "next_offset": if end < total_groups { json!(end) } else { Value::Null },
            "complete": end >= total_groups,
        },
        "records": {
            "total": grouping.total,
            "retained": grouping.retained,
            "examined": grouping.examined,
            "grouped": grouping.examined - grouping.exclusions.len() as u64,
            "excluded": grouping.exclusions.iter()
                .map(|(o, why)| json!({"ordinal": o, "reason": why.reason()}))
                .collect::<Vec<_>>(),
        },
        "groups": page,
        "limitations": view_limitations(grouping),
    })
}

/// Query names as `[{name, record_ordinals}]`, sorted by code point.
pub(crate) fn query_json(group_query: &std::collections::BTreeMap<String, Vec<u64>>) -> Value {
    Value::Array(
        group_query
            .iter()
            .map(|(n, o)| json!({"name": n, "record_ordinals": o}))
            .collect(),
    )
}

fn render_group(g: &Group, include_query: bool) -> Value {
    let mut out = Map::new();
    out.insert("method".into(), json!(g.method));
    out.insert("origin".into(), json!(g.origin));
    out.insert("path_template".into(), json!(g.template));
    let segments: Vec<Value> = g
        .segs
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match s {
            Seg::Fmt(rule) => Some(json!({
                "index": i,
                "rule": rule.name(),
                "observed": g.observed.get(&i).map(|set| set.iter().collect::<Vec<_>>()).unwrap_or_default(),
                "basis": "inferred",
            })),
            Seg::Lit(_) => None,
        })
        .collect();
    out.insert("templated_segments".into(), Value::Array(segments));
    out.insert("record_ordinals".into(), json!(g.ordinals));
    out.insert("statuses".into(), json!(g.statuses));
    out.insert("unknown_status_records".into(), json!(g.unknown_status));
    out.insert("content_types".into(), json!(g.mimes));
    out.insert("unknown_content_type_records".into(), json!(g.unknown_mime));
    let mut flags = Vec::new();
    if g.ordinals.len() == 1 {
        flags.push("single-sample");
    }
    if g.statuses.len() > 1 {
        flags.push("mixed-statuses");
    }
    if g.mimes.len() > 1 {
        flags.push("mixed-content-types");
    }
    out.insert("flags".into(), json!(flags));
    if include_query {
        out.insert("query_parameter_names".into(), query_json(&g.query));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests;
