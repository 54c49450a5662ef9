//! Write plans: which tools may change state, the effect each has, and the
//! plan built from its first successful call (created-field rules, update
//! rules, required members, insert placement, write clock). The replay
//! check (`state::check`) then decides which plans are `served`.
//!
//! # Layout
//! - `classify`: state-changing requests, query `POST`s, effects.
//! - `shapes`: UUID, token, sequence, slug and clock shapes and formats.
//! - `created`, `updated`: the field rules of creates and updates.
//! - `insert`: insert placement and `write_clock`.
//! - `input`: the decoded timeline the write side reads.
//! - `observe`: where a type's entities show in responses.
//! - `build`: one plan per write tool.
//! - `replay_gen`: the check's generator of recorded values.

pub(crate) mod build;
pub(crate) mod classify;
pub(crate) mod created;
pub(crate) mod input;
pub(crate) mod insert;
#[cfg(test)]
mod kinto;
pub(crate) mod observe;
pub(crate) mod replay_gen;
pub(crate) mod shapes;
#[cfg(test)]
pub(crate) mod testkit;
#[cfg(test)]
mod tests;
pub(crate) mod updated;

use crate::budget::Budget;
use crate::engine::Engine;
use crate::error::DeriveError;
use crate::manifest::Manifest;
use crate::state::records::{Body as RecordBody, Record};
use crate::state::usable::usable_body;
use crate::state::{State, WritePlan};
use input::{Body, TimelineRecord};
use std::collections::HashMap;

/// The decoded timeline: the state's `timeline` ordinals in order, each
/// with its tool and its bodies put through the usability test.
///
/// Only records for which `needs_bodies(path)` holds have their bodies
/// read; the others keep `Body::Absent` (the write side never looks at
/// them: they are neither writes to a modelled target nor reads of one).
pub(crate) fn timeline_of(
    manifest: &Manifest,
    records: &HashMap<u64, Record>,
    timeline: &[u64],
    needs_bodies: &dyn Fn(&str) -> bool,
) -> Vec<TimelineRecord> {
    let mut tool_of: HashMap<u64, &str> = HashMap::new();
    for tool in &manifest.tools {
        for &o in &tool.record_ordinals {
            tool_of.entry(o).or_insert(tool.name.as_str());
        }
    }
    timeline
        .iter()
        .filter_map(|o| records.get(o))
        .map(|r| {
            let wanted = r.path.as_deref().is_some_and(needs_bodies);
            let request_body = match r.request_text.as_deref().filter(|_| wanted) {
                None | Some("") => Body::Absent,
                Some(text) => usable_body(r.request_content_type.as_deref(), Some(text))
                    .map(Body::Json)
                    .unwrap_or(Body::Unusable),
            };
            let response_body = match &r.response_body {
                _ if !wanted => Body::Absent,
                RecordBody::None => Body::Absent,
                RecordBody::Text(t) if t.is_empty() => Body::Absent,
                RecordBody::Text(t) => usable_body(r.response_content_type.as_deref(), Some(t))
                    .map(Body::Json)
                    .unwrap_or(Body::Unusable),
                RecordBody::Bytes(_) => Body::Unusable,
            };
            TimelineRecord {
                ordinal: r.ordinal,
                method: r.method.clone(),
                path: r.path.clone(),
                query: r.query.clone(),
                status: r.status,
                start_ms: r.started_ms.map(|ms| ms.floor() as i64),
                time_ms: r.time_ms,
                tool: tool_of.get(&r.ordinal).map(|s| s.to_string()),
                request_content_type: r.request_content_type.as_deref().map(|c| {
                    c.split(';')
                        .next()
                        .unwrap_or("")
                        .trim()
                        .to_ascii_lowercase()
                }),
                request_body,
                response_body,
            }
        })
        .collect()
}

/// Builds every write plan of `state` and runs the replay check: the final
/// plans, in tool order, with `status`, `reason` and the checked ordinals.
///
/// Fails only when the state names a tool the manifest lacks (the two were
/// derived with different template rules).
#[cfg(test)]
pub(crate) fn derive_writes(
    manifest: &Manifest,
    records: &[Record],
    state: &State,
) -> Result<Vec<WritePlan>, DeriveError> {
    derive_writes_budgeted(
        manifest,
        records,
        state,
        &mut Budget::new(crate::budget::PROJECTION_BUDGET),
    )
}

/// `derive_writes` within the state's budget: the engine's copy of the
/// records and every body read are charged as temporary bytes (given back
/// when the check ends) and the plans kept at their JSON size.
pub(crate) fn derive_writes_budgeted(
    manifest: &Manifest,
    records: &[Record],
    state: &State,
    budget: &mut Budget,
) -> Result<Vec<WritePlan>, DeriveError> {
    // When no write tool has a state target, every plan is `none`: the
    // bodies need not be read and there is nothing to replay.
    let collections: Vec<&str> = state
        .types
        .iter()
        .map(|t| t.collection_template.as_str())
        .collect();
    let documents: Vec<&str> = state.documents.iter().map(|d| d.path.as_str()).collect();
    let any_target = manifest.tools.iter().any(|t| {
        classify::is_write_tool(&t.method, &t.path_template)
            && classify::classify_effect(&t.method, &t.path_template, &collections, &documents)
                .1
                .is_some()
    });
    if !any_target {
        let input = build::BuildInput {
            tools: &manifest.tools,
            types: &state.types,
            entities: &state.entities,
            documents: &state.documents,
            views: &state.views,
            timeline: &[],
        };
        return Ok(build::build_plans(&input)
            .into_iter()
            .map(|b| b.plan)
            .collect());
    }
    let records: HashMap<u64, Record> = records.iter().map(|r| (r.ordinal, r.clone())).collect();
    // Bodies matter only under a write tool's target: a collection
    // template, an item of one, or a document path.
    let targets: Vec<(&str, bool)> = manifest
        .tools
        .iter()
        .filter(|t| classify::is_write_tool(&t.method, &t.path_template))
        .filter_map(|t| {
            match classify::classify_effect(&t.method, &t.path_template, &collections, &documents) {
                (classify::Effect::Document, Some(i)) => Some((documents[i], false)),
                (_, Some(i)) => Some((collections[i], true)),
                _ => None,
            }
        })
        .collect();
    let needs_bodies = |path: &str| {
        targets.iter().any(|(template, collection)| {
            let path_only = path.split('?').next().unwrap_or("");
            let template = template.split('?').next().unwrap_or("");
            classify::template_matches_path(template, path_only)
                || (*collection && {
                    let parent = input::parent_path(path_only);
                    classify::template_matches_path(template, &parent)
                })
        })
    };
    let temporary: u64 = records
        .values()
        .filter(|r| r.path.as_deref().is_some_and(needs_bodies))
        .map(|r| {
            2 * (r.request_text.as_ref().map_or(0, String::len) + r.response_body.len()) as u64
        })
        .sum::<u64>()
        + records.len() as u64 * 256;
    budget.charge(temporary)?;
    let timeline = timeline_of(manifest, &records, &state.timeline, &needs_bodies);
    let input = build::BuildInput {
        tools: &manifest.tools,
        types: &state.types,
        entities: &state.entities,
        documents: &state.documents,
        views: &state.views,
        timeline: &timeline,
    };
    let built = build::build_plans(&input);
    let mut candidate = state.clone();
    candidate.writes = built.iter().map(|b| b.plan.clone()).collect();
    let engine = Engine::from_records(records, manifest.clone(), candidate)
        .map_err(|e| DeriveError::invalid_request("/view/template_rules", e.message))?;
    let plans = crate::state::check::check(&engine, &timeline, &built);
    budget.release(temporary);
    budget.charge(serde_json::to_string(&plans).map_or(0, |t| t.len() as u64))?;
    Ok(plans)
}
