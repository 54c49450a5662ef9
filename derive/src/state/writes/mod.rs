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

pub mod build;
pub mod classify;
pub mod created;
pub mod input;
pub mod insert;
pub mod observe;
pub mod replay_gen;
pub mod shapes;
#[cfg(test)]
pub(crate) mod testkit;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod kinto;
pub mod updated;

use crate::engine::Engine;
use crate::manifest::Manifest;
use crate::state::records::{Body as RecordBody, Record};
use crate::state::usable::usable_body;
use crate::state::{State, WritePlan};
use input::{Body, TimelineRecord};
use rea_core::ErrorReport;
use std::collections::HashMap;

/// The decoded timeline: the state's `timeline` ordinals in order, each
/// with its tool and its bodies put through the usability test.
pub fn timeline_of(manifest: &Manifest, records: &HashMap<u64, Record>, timeline: &[u64]) -> Vec<TimelineRecord> {
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
            let request_body = match r.request_text.as_deref() {
                None | Some("") => Body::Absent,
                Some(text) => usable_body(r.request_content_type.as_deref(), Some(text)).map(Body::Json).unwrap_or(Body::Unusable),
            };
            let response_body = match &r.response_body {
                RecordBody::None => Body::Absent,
                RecordBody::Text(t) if t.is_empty() => Body::Absent,
                RecordBody::Text(t) => usable_body(r.response_content_type.as_deref(), Some(t)).map(Body::Json).unwrap_or(Body::Unusable),
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
                request_content_type: r
                    .request_content_type
                    .as_deref()
                    .map(|c| c.split(';').next().unwrap_or("").trim().to_ascii_lowercase()),
                request_body,
                response_body,
            }
        })
        .collect()
}

/// Builds every write plan of `state` and runs the replay check: the final
/// plans, in tool order, with `status`, `reason` and the checked ordinals.
pub fn derive_writes(manifest: &Manifest, records: &[Record], state: &State) -> Result<Vec<WritePlan>, ErrorReport> {
    let records: HashMap<u64, Record> = records.iter().map(|r| (r.ordinal, r.clone())).collect();
    let timeline = timeline_of(manifest, &records, &state.timeline);
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
    let engine = Engine::from_records(records, manifest.clone(), candidate)?;
    Ok(crate::state::check::check(&engine, &timeline, &built))
}
