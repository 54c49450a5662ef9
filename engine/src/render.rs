//! Reads: renders item, list and document views from the World, replays
//! the recordings of `recorded` views, and answers not-found as the
//! recording did.
//!
//! Choices (documented in `docs/environment-state.md`):
//! - A recorded view replays the latest recording of the same request
//!   line (method, path and query); for a request with a JSON body, a
//!   recording with an equal body is preferred. Without one, it answers
//!   404 with `error_code: "not_recorded"`.
//! - Lists are rendered by `lists::serve::read` (the one list renderer).

use crate::codec::{normalize_path, path_segments, percent_decode};
use crate::manifest::Tool;
use crate::records::{Body, Record};
use crate::state::{Entity, ItemPlan, ViewPlan};
use crate::{Answer, AnswerBody, Applied, Engine, Params, World};
use serde_json::{Map, Value};

/// Answers a read call.
pub(crate) fn read(
    engine: &Engine,
    world: &World,
    tool: &Tool,
    params: &Params,
    call: &crate::Call,
) -> Answer {
    if let Some(answer) = crate::lists::serve::read(engine, world, tool, call) {
        return answer;
    }
    match engine.view_of(&tool.name) {
        Some(ViewPlan::Item(plan)) => render_item(engine, world, tool, plan, params, &call.path),
        Some(ViewPlan::Document(plan)) if engine.document_entity(&plan.path).is_some() => {
            document_from_entity(engine, world, tool, plan, call)
        }
        Some(ViewPlan::Document(plan)) => {
            let line = call.line();
            let held = world.documents.get(&line).or_else(|| {
                (normalize_line(&line) == normalize_line(&plan.path))
                    .then(|| world.documents.get(&plan.path))
                    .flatten()
            });
            match (held, engine.record(plan.base_ordinal)) {
                (Some(value), Some(base)) => {
                    let mut answer = engine.recorded_answers.of(base, &tool.name, None);
                    answer.body = AnswerBody::Json(value.clone());
                    answer.rendered = Some(base.ordinal);
                    answer
                }
                _ => replay(engine, tool, call),
            }
        }
        // `lists::serve::read` answers every list view.
        Some(ViewPlan::Recorded(_) | ViewPlan::List(_)) | None => replay(engine, tool, call),
    }
}

/// A document that is also an entity reads from the entity: the
/// document's recorded value with the entity rendered at its place (its
/// recorded members first). Without the entity, not found.
fn document_from_entity(
    engine: &Engine,
    world: &World,
    tool: &Tool,
    plan: &crate::state::DocumentPlan,
    call: &crate::Call,
) -> Answer {
    let Some(held) = engine.document_entity(&plan.path) else {
        return replay(engine, tool, call);
    };
    let Some(entity) = world.entity(&held.type_name, &held.collection, &held.id) else {
        return crate::Refusal::NotFound {
            tool: tool.name.clone(),
            id: held.id.clone(),
        }
        .answer();
    };
    let Some(base) = engine.record(plan.base_ordinal) else {
        return replay(engine, tool, call);
    };
    let type_fields = engine
        .entity_type(&held.type_name)
        .map(|t| t.fields.as_slice())
        .unwrap_or(&[]);
    let mut answer = engine.recorded_answers.of(base, &tool.name, None);
    let mut value = match &answer.body {
        AnswerBody::Json(v) => v.clone(),
        _ => return replay(engine, tool, call),
    };
    let rendered = render_entity(entity, &held.fields, type_fields, &tool.name);
    if !set_pointer(&mut value, &held.pointer, rendered.clone()) {
        if held.pointer.is_empty() {
            value = rendered;
        } else {
            return replay(engine, tool, call);
        }
    }
    answer.body = AnswerBody::Json(value);
    answer.rendered = Some(base.ordinal);
    answer
}

pub(crate) fn normalize_line(line: &str) -> String {
    match line.split_once('?') {
        Some((p, q)) => format!("{}?{q}", normalize_path(p)),
        None => normalize_path(line),
    }
}

/// The collection path of an item path: the path minus its last segment.
pub(crate) fn parent_collection(path: &str) -> String {
    // One pass, the text of `normalize_path(&segments[..n - 1].join("/"))`.
    let mut out = String::with_capacity(path.len());
    let mut last = 0;
    for s in path.split('/').filter(|s| !s.is_empty()) {
        last = out.len();
        out.push('/');
        out.push_str(s);
    }
    out.truncate(last);
    if out.is_empty() {
        out.push('/');
    }
    out
}

/// Renders one entity with a view's fields: the view's fields the entity
/// holds, in the view's order (a view's own differing values from
/// `view_fields`), then fields no view of the type ever showed (written or
/// loaded since), in the entity's order.
pub(crate) fn render_entity(
    entity: &Entity,
    view_fields: &[String],
    type_fields: &[String],
    tool: &str,
) -> Value {
    let own = entity.view_fields.get(tool);
    let mut out = Map::new();
    for f in view_fields {
        if let Some(v) = entity.fields.get(f) {
            let v = own.and_then(|o| o.get(f)).unwrap_or(v);
            out.insert(f.clone(), v.clone());
        }
    }
    for (k, v) in &entity.fields {
        if !view_fields.contains(k) && !type_fields.contains(k) {
            out.insert(k.clone(), v.clone());
        }
    }
    Value::Object(out)
}

fn render_item(
    engine: &Engine,
    world: &World,
    tool: &Tool,
    plan: &ItemPlan,
    params: &Params,
    path: &str,
) -> Answer {
    let id = params.values().last().cloned().unwrap_or_else(|| {
        path_segments(path)
            .last()
            .map(|s| percent_decode(s))
            .unwrap_or_default()
    });
    let collection = parent_collection(path);
    let type_fields = engine
        .entity_type(&plan.type_name)
        .map(|t| t.fields.as_slice())
        .unwrap_or(&[]);
    let Some(entity) = world.entity(&plan.type_name, &collection, &id) else {
        return not_found(engine, tool, plan.not_found_ordinal, &id);
    };
    let Some(base) = engine.record(plan.envelope_ordinal) else {
        return crate::Refusal::Internal {
            tool: Some(tool.name.clone()),
            message: "the item view's envelope recording is missing".to_string(),
        }
        .answer();
    };
    let rendered = render_entity(entity, &plan.fields, type_fields, &tool.name);
    let recorded = engine
        .recorded_answers
        .with_value(base, &tool.name, &plan.pointer, rendered);
    let mut answer = match recorded {
        Ok(answer) => answer,
        // No JSON value at the pointer in the recorded answer.
        Err(rendered) => {
            let mut answer = engine.recorded_answers.of(base, &tool.name, None);
            let mut envelope = match &answer.body {
                AnswerBody::Json(v) => v.clone(),
                _ => Value::Null,
            };
            if !set_pointer(&mut envelope, &plan.pointer, rendered) {
                return crate::Refusal::Internal {
                    tool: Some(tool.name.clone()),
                    message: "the item view's envelope has no entity at its pointer".to_string(),
                }
                .answer();
            }
            answer.body = AnswerBody::Json(envelope);
            answer
        }
    };
    answer.rendered = Some(base.ordinal);
    answer
}

/// The not-found answer for `id`: the recorded not-found (its recorded
/// identity replaced by the requested one), else a 404 JSON error.
fn not_found(engine: &Engine, tool: &Tool, ordinal: Option<u64>, id: &str) -> Answer {
    if let Some(rec) = ordinal.and_then(|o| engine.record(o)) {
        return recorded_not_found(rec, &tool.name, id);
    }
    crate::Refusal::NotFound {
        tool: tool.name.clone(),
        id: id.to_string(),
    }
    .answer()
}

/// Replays a recorded not-found answer for another identity: every string
/// equal to the recorded request's last path segment becomes `id`.
pub(crate) fn recorded_not_found(rec: &Record, tool: &str, id: &str) -> Answer {
    let mut answer = answer_from_record(rec, tool);
    let recorded_id = rec
        .path
        .as_deref()
        .and_then(|p| path_segments(p).last().map(|s| percent_decode(s)));
    if let (AnswerBody::Json(body), Some(from)) = (&mut answer.body, recorded_id) {
        replace_strings(body, &from, id);
    }
    answer.error_code = Some("not_found".into());
    answer
}

fn replace_strings(value: &mut Value, from: &str, to: &str) {
    match value {
        Value::String(s) if s == from => *s = to.to_string(),
        Value::Array(items) => items.iter_mut().for_each(|v| replace_strings(v, from, to)),
        Value::Object(map) => map.values_mut().for_each(|v| replace_strings(v, from, to)),
        _ => {}
    }
}

/// Replays the latest recording of the same request line (an equal JSON
/// body preferred), else answers `not_recorded`.
pub(crate) fn replay(engine: &Engine, tool: &Tool, call: &crate::Call) -> Answer {
    let line = normalize_line(&call.line());
    let same_line: Vec<&Record> = tool
        .record_ordinals
        .iter()
        .filter_map(|&o| engine.record(o))
        .filter(|r| {
            r.method.eq_ignore_ascii_case(&call.method)
                && r.line().is_some_and(|l| normalize_line(&l) == line)
                && crate::answer_headers::precondition_fits(r.status, call)
        })
        .collect();
    let with_body = call.body.as_ref().and_then(|b| {
        same_line.iter().rev().find(|r| {
            r.request_text
                .as_deref()
                .and_then(|t| serde_json::from_str::<Value>(t).ok())
                .as_ref()
                == Some(b)
        })
    });
    match with_body.or(same_line.last()) {
        Some(rec) => answer_from_record(rec, &tool.name),
        None => crate::Refusal::NotRecorded {
            tool: tool.name.clone(),
            method: call.method.clone(),
            line: call.line(),
        }
        .answer(),
    }
}

/// A recording as an answer (status, content type, replayable headers, body).
pub(crate) fn answer_from_record(rec: &Record, tool: &str) -> Answer {
    let headers = rec
        .response_headers
        .iter()
        .filter(|(n, _)| crate::answer_headers::replayable(n))
        .cloned()
        .collect();
    let json_like = rec
        .response_content_type
        .as_deref()
        .is_some_and(crate::usable::json_like);
    let body = match &rec.response_body {
        Body::None => AnswerBody::Empty,
        Body::Text(t) if t.is_empty() => AnswerBody::Empty,
        Body::Text(t) => match json_like
            .then(|| serde_json::from_str::<Value>(t).ok())
            .flatten()
        {
            Some(v) => AnswerBody::Json(v),
            None => AnswerBody::Text(t.clone()),
        },
        Body::Bytes(b) => AnswerBody::Bytes(b.clone()),
    };
    Answer {
        status: rec.status.unwrap_or(502),
        content_type: rec.response_content_type.clone(),
        headers,
        body,
        tool: Some(tool.to_string()),
        applied: Applied::No,
        error_code: None,
        rendered: None,
    }
}

/// Replaces the value at a JSON pointer; false when the pointer names nothing.
pub(crate) fn set_pointer(target: &mut Value, pointer: &str, value: Value) -> bool {
    match crate::codec::at_pointer_mut(target, pointer) {
        Some(slot) => {
            *slot = value;
            true
        }
        None => false,
    }
}

#[cfg(test)]
mod parent_collection_tests {
    use super::*;

    /// The one-pass parent is the text of the segments' join, normalized.
    #[test]
    fn parent_collection_is_the_joined_parent() {
        for path in [
            "",
            "/",
            "//",
            "/a",
            "a",
            "/a/",
            "/a/b",
            "a//b/",
            "/v1/buckets/x/records/p-1",
            "/a/b/c/",
            "///a///b///",
        ] {
            let segs = path_segments(path);
            let n = segs.len().saturating_sub(1);
            assert_eq!(
                parent_collection(path),
                normalize_path(&segs[..n].join("/")),
                "{path:?}"
            );
        }
    }
}
