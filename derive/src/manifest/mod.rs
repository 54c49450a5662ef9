//! The environment manifest view: one tool per kept endpoint group on the
//! primary origin, with names, templates, parameters, query names and
//! request-body shapes; every other group listed as excluded.
//!
//! - `model`: the document types (shared with the state and serve work).
//! - `origin`: primary origin, kept vs excluded groups, environment name.
//! - `naming`: tool names.
//! - `body`: request-body shapes.

pub(crate) mod body;
pub(crate) mod model;
pub(crate) mod naming;
pub(crate) mod origin;

pub use model::{ExcludedGroup, Manifest, Param, QueryParameterName, RecordPointer, Tool};

use crate::budget::{escaped_size, Budget, PROJECTION_BUDGET, SLOT};
use crate::error::DeriveError;
use crate::surface::group::{Group, Grouping, Seg};
use crate::surface::records;
use crate::surface::{grouping_of, view_limitations};
use crate::template_rules::{self, Route, TSeg, TemplateRule};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// What a capture cannot establish; every manifest states it.
pub const UNKNOWNS: [&str; 3] = [
    "The authorization model is not established by a capture.",
    "Response semantics are not established by a capture.",
    "State transitions are not established by a capture.",
];

/// The environment manifest of retained (or file) Evidence. `rules` may be
/// in any order; each rule at most once.
pub fn environment_manifest(
    evidence: &Value,
    rules: &[TemplateRule],
    include_query_names: bool,
) -> Result<Manifest, DeriveError> {
    manifest_budgeted(
        evidence,
        rules,
        include_query_names,
        false,
        &mut Budget::new(PROJECTION_BUDGET),
    )
}

/// The same for Evidence given inline (its envelope is admitted as text).
pub fn environment_manifest_inline(
    evidence: &Value,
    rules: &[TemplateRule],
    include_query_names: bool,
) -> Result<Manifest, DeriveError> {
    manifest_budgeted(
        evidence,
        rules,
        include_query_names,
        true,
        &mut Budget::new(PROJECTION_BUDGET),
    )
}

pub(crate) fn manifest_budgeted(
    evidence: &Value,
    rules: &[TemplateRule],
    include_query_names: bool,
    inline: bool,
    budget: &mut Budget,
) -> Result<Manifest, DeriveError> {
    let names: Vec<&str> = rules.iter().map(|r| r.name()).collect();
    let rules = TemplateRule::parse_list(&names)?;
    let grouping = grouping_of(evidence, include_query_names, inline, budget)?;
    let records = evidence
        .get("records")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    build(&grouping, records, &rules, budget)
}

fn json_like_count(group: &Group, records: &[Value]) -> u64 {
    group
        .record_indexes
        .iter()
        .filter(|&&i| {
            records::read(&records[i])
                .1
                .ok()
                .and_then(|s| s.mime)
                .is_some_and(|m| origin::is_json_like(&m))
        })
        .count() as u64
}

fn build(
    grouping: &Grouping,
    records: &[Value],
    rules: &[TemplateRule],
    budget: &mut Budget,
) -> Result<Manifest, DeriveError> {
    let counts: Vec<u64> = grouping
        .groups
        .iter()
        .map(|g| json_like_count(g, records))
        .collect();
    let primary = origin::primary_origin(&grouping.groups, &counts).unwrap_or_default();
    let mut routes = Vec::new();
    let mut excluded = Vec::new();
    let mut templated_excluded = 0usize;
    for (gi, group) in grouping.groups.iter().enumerate() {
        let reason = if group.origin != primary {
            Some("other-origin")
        } else if !origin::is_kept(group) {
            Some(origin::exclusion_reason(group))
        } else {
            None
        };
        match reason {
            Some(reason) => {
                budget.charge(
                    SLOT * 6 + escaped_size(&group.template) + escaped_size(&group.origin),
                )?;
                budget.charge(16 * group.ordinals.len() as u64)?;
                templated_excluded += usize::from(group.is_templated());
                excluded.push(ExcludedGroup {
                    method: group.method.clone(),
                    origin: group.origin.clone(),
                    path_template: group.template.clone(),
                    reason: reason.to_string(),
                    record_ordinals: group.ordinals.clone(),
                });
            }
            None => routes.push(route_of(gi, group)),
        }
    }
    let (routes, skipped_long) = template_rules::apply(routes, rules);
    let mut tools = Vec::with_capacity(routes.len());
    for route in &routes {
        tools.push(tool_of(route, grouping, records, budget)?);
    }
    let mut order: Vec<usize> = (0..tools.len()).collect();
    order.sort_by(|&a, &b| {
        (
            &tools[a].0.path_template,
            &tools[a].0.method,
            &routes[a].segs.len(),
        )
            .cmp(&(
                &tools[b].0.path_template,
                &tools[b].0.method,
                &routes[b].segs.len(),
            ))
    });
    let bases: Vec<String> = order.iter().map(|&i| tools[i].1.clone()).collect();
    let final_names = naming::unique_names(&bases);
    let mut sorted_tools: Vec<Tool> = Vec::with_capacity(tools.len());
    for (slot, &i) in order.iter().enumerate() {
        let mut tool = tools[i].0.clone();
        budget.charge_text(&final_names[slot])?;
        tool.name = final_names[slot].clone();
        sorted_tools.push(tool);
    }
    let record_pointers = pointers(&sorted_tools, grouping, records, budget)?;
    let templated_tools = sorted_tools.iter().filter(|t| !t.params.is_empty()).count();
    let templated_groups = templated_tools + templated_excluded;
    let mut limitations = view_limitations(grouping);
    if skipped_long {
        limitations.push(format!(
            "Routes longer than {} segments keep their grouped templates: the comparison rules do not examine them.",
            template_rules::MAX_COMPARED_SEGMENTS
        ));
    }
    for text in &limitations {
        budget.charge_text(text)?;
    }
    Ok(Manifest {
        view: "environment-manifest".into(),
        basis: if templated_groups > 0 {
            "inferred"
        } else {
            "derived"
        }
        .into(),
        name: origin::environment_name(&primary),
        origin: primary,
        template_rules: rules.iter().map(|r| r.name().to_string()).collect(),
        tools: sorted_tools,
        excluded,
        records: record_pointers,
        templated_groups,
        unknowns: UNKNOWNS.iter().map(|s| s.to_string()).collect(),
        limitations,
    })
}

fn route_of(gi: usize, group: &Group) -> Route {
    let segs = group
        .segs
        .iter()
        .enumerate()
        .map(|(i, s)| match s {
            Seg::Lit(l) => TSeg::Lit(l.clone()),
            Seg::Fmt(rule) => TSeg::Fmt {
                rule: *rule,
                observed: group.observed.get(&i).cloned().unwrap_or_default(),
            },
        })
        .collect();
    Route {
        method: group.method.clone(),
        origin: group.origin.clone(),
        segs,
        groups: vec![gi],
    }
}

/// Builds one tool (its name not yet unique) from a route.
fn tool_of(
    route: &Route,
    grouping: &Grouping,
    records: &[Value],
    budget: &mut Budget,
) -> Result<(Tool, String), DeriveError> {
    let groups: Vec<&Group> = route.groups.iter().map(|&g| &grouping.groups[g]).collect();
    // (record index, ordinal) in parent order.
    let mut cited: Vec<(usize, u64)> = groups
        .iter()
        .flat_map(|g| {
            g.record_indexes
                .iter()
                .copied()
                .zip(g.ordinals.iter().copied())
        })
        .collect();
    cited.sort_unstable();
    let position: BTreeMap<u64, usize> = cited.iter().map(|&(i, o)| (o, i)).collect();
    let earliest = cited.iter().map(|&(i, o)| (o, i)).min();
    let earliest_group = groups
        .iter()
        .find(|g| earliest.is_some_and(|(o, _)| g.ordinals.contains(&o)))
        .map(|g| g.template.clone())
        .unwrap_or_default();

    // Parameters, names made unique within the route.
    let mut params = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut segs = route.segs.clone();
    for (i, seg) in segs.iter_mut().enumerate() {
        let (base, rule, observed) = match seg {
            TSeg::Lit(_) => continue,
            TSeg::Fmt { rule, observed } => {
                (rule.param_name().to_string(), rule.name(), observed.clone())
            }
            TSeg::Param {
                name,
                rule,
                observed,
            } => (name.clone(), *rule, observed.clone()),
        };
        let count = seen.entry(base.clone()).or_insert(0);
        *count += 1;
        let name = if *count == 1 {
            base
        } else {
            format!("{base}_{count}")
        };
        if let TSeg::Param { name: spelled, .. } = seg {
            spelled.clone_from(&name);
        }
        for value in &observed {
            budget.charge_text(value)?;
        }
        budget.charge(SLOT * 4 + escaped_size(&name))?;
        params.push(Param {
            name,
            segment_index: i,
            rule: rule.to_string(),
            observed: observed.into_iter().collect(),
            basis: "inferred".into(),
        });
    }
    let shown = Route {
        segs,
        ..route.clone()
    };
    let path_template = shown.template();
    budget.charge(SLOT * 12 + escaped_size(&path_template) * 2 + escaped_size(&earliest_group))?;

    let mut query: BTreeMap<String, BTreeSet<(usize, u64)>> = BTreeMap::new();
    for g in &groups {
        for (name, ordinals) in &g.query {
            let set = query.entry(name.clone()).or_default();
            for o in ordinals {
                set.insert((position.get(o).copied().unwrap_or(usize::MAX), *o));
            }
        }
    }
    let mut query_parameter_names = Vec::with_capacity(query.len());
    for (name, ordinals) in query {
        budget.charge(escaped_size(&name) + SLOT + 16 * ordinals.len() as u64)?;
        query_parameter_names.push(QueryParameterName {
            name,
            record_ordinals: ordinals.into_iter().map(|(_, o)| o).collect(),
        });
    }

    let body_shape = match (route.method.as_str(), earliest) {
        ("POST" | "PUT" | "PATCH", Some((_, index))) => match records[index].get("reported") {
            Some(entry) => body::shape(entry, budget)?,
            None => None,
        },
        _ => None,
    };
    let statuses: BTreeSet<u16> = groups
        .iter()
        .flat_map(|g| g.statuses.iter().copied())
        .collect();
    let content_types: BTreeSet<String> = groups
        .iter()
        .flat_map(|g| g.mimes.iter().cloned())
        .collect();
    budget
        .charge(16 * cited.len() as u64 + SLOT * (statuses.len() + content_types.len()) as u64)?;
    let param_names: Vec<String> = params.iter().map(|p| p.name.clone()).collect();
    let base = naming::base_name(&route.method, &shown.segs, &param_names);
    Ok((
        Tool {
            name: String::new(),
            method: route.method.clone(),
            path_template,
            api_surface_template: earliest_group,
            params,
            query_parameter_names,
            body_shape,
            statuses: statuses.into_iter().collect(),
            content_types: content_types.into_iter().collect(),
            record_ordinals: cited.iter().map(|&(_, o)| o).collect(),
        },
        base,
    ))
}

/// One pointer per cited record, in ordinal order.
fn pointers(
    tools: &[Tool],
    grouping: &Grouping,
    records: &[Value],
    budget: &mut Budget,
) -> Result<Vec<RecordPointer>, DeriveError> {
    let cited: BTreeSet<u64> = tools
        .iter()
        .flat_map(|t| t.record_ordinals.iter().copied())
        .collect();
    let mut by_ordinal: BTreeMap<u64, usize> = BTreeMap::new();
    for g in &grouping.groups {
        for (&o, &i) in g.ordinals.iter().zip(&g.record_indexes) {
            if cited.contains(&o) {
                by_ordinal.insert(o, i);
            }
        }
    }
    let mut out = Vec::with_capacity(by_ordinal.len());
    for (ordinal, index) in by_ordinal {
        let (_, read) = records::read(&records[index]);
        let Ok(sample) = read else { continue };
        budget.charge(
            SLOT * 6
                + escaped_size(sample.url.path)
                + sample.mime.as_deref().map_or(0, escaped_size),
        )?;
        out.push(RecordPointer {
            ordinal,
            method: sample.method.to_string(),
            path: sample.url.path.to_string(),
            status: sample.status,
            content_type: sample.mime,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
