//! Serve-time generalizations beyond the recorded request lines (see
//! docs/serving.md, "Beyond the recording"): sibling collections answer
//! item reads and writes the recording only showed for a sibling type, and
//! not-found answers take the recorded not-found shape of the type's family.

use crate::render::{
    answer_from_record, parent_collection, recorded_not_found, render_entity, set_pointer,
};
use crate::route::{compile, normalize_path, path_segments, percent_decode, Segment};
use crate::state::{EntityType, ViewPlan, WritePlan};
use crate::{apply, Answer, AnswerBody, Applied, Call, Engine, Generator, Params, World};
use serde_json::Value;

/// Answers one call: the family path for item lines no tool covers, else
/// the engine's own answer; a not-found answer rea made up itself takes
/// the family's recorded not-found shape.
pub fn call(engine: &Engine, world: &mut World, call: &Call, gen: &mut dyn Generator) -> Answer {
    let target = item_target(engine, &call.path);
    let mut answer = match &target {
        Some((t, collection, id)) if !covered(engine, call, t) => {
            match sibling_answer(engine, world, call, t, collection, id, gen) {
                Some(a) => a,
                None => engine.call_direct(world, call, gen),
            }
        }
        _ => engine.call_direct(world, call, gen),
    };
    if let Some((t, _, id)) = &target {
        if answer.status == 404
            && matches!(
                answer.error_code.as_deref(),
                Some("not_found" | "not_recorded")
            )
            && answer.applied != Applied::Yes
        {
            if let Some(found) = family_not_found(engine, t, id, answer.tool.as_deref()) {
                answer = found;
            }
        }
    }
    answer
}

/// The type, collection path and identity of an item path
/// (`<collection of a type>/<id>`).
fn item_target<'e>(engine: &'e Engine, path: &str) -> Option<(&'e EntityType, String, String)> {
    let segs = path_segments(path);
    let (last, parent) = segs.split_last()?;
    let t = engine
        .state
        .types
        .iter()
        .find(|t| template_matches(&compile(&t.collection_template), parent))?;
    Some((t, parent_collection(path), percent_decode(last)))
}

fn template_matches(template: &[Segment], segs: &[&str]) -> bool {
    template.len() == segs.len()
        && template.iter().zip(segs).all(|(t, s)| match t {
            Segment::Literal(l) => l == s,
            Segment::Param(_) => true,
        })
}

/// True when a routed tool answers this line for type `t` by itself: an
/// item view or served write of `t`, any unserved write plan (it answers
/// its reason), a document at this very path, or a recording of this very
/// line.
fn covered(engine: &Engine, call: &Call, t: &EntityType) -> bool {
    let Some((tool, _)) = engine.route(&call.method, &call.path) else {
        return false;
    };
    if let Some(plan) = engine.write_of(&tool.name) {
        // A plan the replay check did not confirm answers its own reason:
        // a sibling's plan never overrides that evidence.
        return plan.status != "served" || plan.type_name.as_deref() == Some(t.name.as_str());
    }
    match engine.view_of(&tool.name) {
        Some(ViewPlan::Item(p)) => p.type_name == t.name,
        Some(ViewPlan::List(_)) => true,
        Some(ViewPlan::Document(p)) => normalize_path(&p.path) == normalize_path(&call.line()),
        Some(ViewPlan::Recorded(_)) | None => {
            let line = normalize_path(&call.path);
            tool.record_ordinals
                .iter()
                .filter_map(|&o| engine.record(o))
                .any(|r| {
                    r.method.eq_ignore_ascii_case(&call.method)
                        && r.path.as_deref().map(normalize_path).as_deref() == Some(line.as_str())
                        && r.query == call.query
                })
        }
    }
}

/// The types whose collection template differs from `t`'s in exactly one
/// literal segment (same length, same parent), in state order.
pub fn family<'e>(engine: &'e Engine, t: &EntityType) -> Vec<&'e EntityType> {
    let own = compile(&t.collection_template);
    engine
        .state
        .types
        .iter()
        .filter(|s| s.name != t.name)
        .filter(|s| {
            let other = compile(&s.collection_template);
            other.len() == own.len()
                && other
                    .iter()
                    .zip(&own)
                    .filter(|(a, b)| a != b)
                    .map(|pair| matches!(pair, (Segment::Literal(_), Segment::Literal(_))))
                    .collect::<Vec<_>>()
                    == [true]
        })
        .collect()
}

/// True when a tool's template is `<type's collection template>/{param}`.
fn item_tool_of(engine: &Engine, tool: &str, s: &EntityType) -> bool {
    let Some(tool) = engine.tool(tool) else {
        return false;
    };
    let segs = compile(&tool.path_template);
    let own = compile(&s.collection_template);
    segs.len() == own.len() + 1
        && segs[..own.len()] == own[..]
        && matches!(segs.last(), Some(Segment::Param(_)))
}

/// The item view plan of the first family sibling that has one.
fn sibling_view<'e>(engine: &'e Engine, t: &EntityType) -> Option<&'e crate::state::ItemPlan> {
    family(engine, t).into_iter().find_map(|s| {
        engine.state.views.iter().find_map(|v| match v {
            ViewPlan::Item(p) if p.type_name == s.name && item_tool_of(engine, &p.tool, s) => {
                Some(p)
            }
            _ => None,
        })
    })
}

/// The served update/delete plan for `method` of the first family sibling
/// that has one at `<collection>/{param}`.
fn sibling_write<'e>(engine: &'e Engine, t: &EntityType, method: &str) -> Option<&'e WritePlan> {
    family(engine, t).into_iter().find_map(|s| {
        engine.state.writes.iter().find(|w| {
            w.status == "served"
                && w.method.eq_ignore_ascii_case(method)
                && matches!(w.effect.as_str(), "update" | "delete")
                && w.type_name.as_deref() == Some(s.name.as_str())
                && item_tool_of(engine, &w.tool, s)
        })
    })
}

/// The sibling tool that answers `method path` when no tool covers it
/// (what the server reports as the answering tool), if any.
pub fn sibling_tool(engine: &Engine, method: &str, path: &str) -> Option<String> {
    let (t, _, _) = item_target(engine, path)?;
    let call = Call {
        method: method.to_string(),
        path: path.to_string(),
        query: None,
        body: None,
    };
    if covered(engine, &call, t) {
        return None;
    }
    if method.eq_ignore_ascii_case("GET") {
        sibling_view(engine, t).map(|p| p.tool.clone())
    } else {
        sibling_write(engine, t, method).map(|w| w.tool.clone())
    }
}

fn sibling_answer(
    engine: &Engine,
    world: &mut World,
    call: &Call,
    t: &EntityType,
    collection: &str,
    id: &str,
    gen: &mut dyn Generator,
) -> Option<Answer> {
    if call.method.eq_ignore_ascii_case("GET") {
        let plan = sibling_view(engine, t)?;
        let Some(entity) = world.entity(&t.name, collection, id) else {
            return family_not_found(engine, t, id, Some(&plan.tool));
        };
        let base = engine.record(plan.envelope_ordinal)?;
        let mut answer = answer_from_record(base, &plan.tool);
        let AnswerBody::Json(mut envelope) = answer.body.clone() else {
            return None;
        };
        let rendered = render_entity(entity, &t.fields, &t.fields, &plan.tool);
        if !set_pointer(&mut envelope, &plan.pointer, rendered) {
            return None;
        }
        answer.body = AnswerBody::Json(envelope);
        return Some(answer);
    }
    let plan = sibling_write(engine, t, &call.method)?;
    let sibling_fields = engine
        .entity_type(plan.type_name.as_deref().unwrap_or(""))
        .map(|s| s.fields.clone())
        .unwrap_or_default();
    let adapted = WritePlan {
        type_name: Some(t.name.clone()),
        required_members: Vec::new(),
        body_fixed: Vec::new(),
        field_rules: plan
            .field_rules
            .iter()
            .filter(|r| {
                !sibling_fields.contains(&r.field)
                    || t.fields.contains(&r.field)
                        && matches!(
                            r.rule.as_str(),
                            "clock" | "entity" | "observed" | "increment"
                        )
            })
            .cloned()
            .collect(),
        ..plan.clone()
    };
    let mut params = Params::new();
    params.insert("id".to_string(), id.to_string());
    let replaces = call.method.eq_ignore_ascii_case("PUT") && adapted.effect == "update";
    let mut trial = world.clone();
    if replaces {
        if let (Some(entity), Some(Value::Object(sent))) = (
            trial.entity_mut(&t.name, collection, id),
            call.body
                .as_ref()
                .and_then(|b| sent_entity(engine, plan, b)),
        ) {
            let keep: Vec<&String> = adapted.field_rules.iter().map(|r| &r.field).collect();
            entity
                .fields
                .retain(|k, _| k == &t.id_field || sent.contains_key(k) || keep.contains(&k));
        }
    }
    let pointer = adapted.answer.as_ref().and_then(|a| a.pointer.clone());
    if let (Some(p), Some(body)) = (pointer.as_deref(), call.body.as_ref()) {
        if body.pointer(p).is_some_and(|v| !v.is_object()) {
            return Some(Answer::error(
                400,
                "body_not_object",
                "the request body's entity must be a JSON object",
                Some(&adapted.tool),
                None,
            ));
        }
    }
    let before = world
        .entity(&t.name, collection, id)
        .map(|e| e.fields.clone());
    let mut answer = apply::apply_write(engine, &adapted, &mut trial, call, &params, gen);
    if answer.applied != Applied::Yes {
        return Some(answer);
    }
    let sent = call
        .body
        .as_ref()
        .and_then(|b| sent_entity(engine, plan, b));
    if let (true, Some(before), Some(Value::Object(sent))) = (
        call.method.eq_ignore_ascii_case("PATCH") && adapted.effect == "update",
        before,
        sent,
    ) {
        merge_patch_result(
            &mut trial,
            &mut answer,
            t,
            collection,
            id,
            before,
            &sent,
            pointer.as_deref(),
        );
    }
    *world = trial;
    Some(answer)
}

/// Re-reads a PATCH as a JSON merge patch (RFC 7396) of the entity held
/// before: nested objects merge, `null` removes a member. Fields the
/// plan's rules generated (e.g. a clock) keep the value the write gave them.
#[allow(clippy::too_many_arguments)]
fn merge_patch_result(
    world: &mut World,
    answer: &mut Answer,
    t: &EntityType,
    collection: &str,
    id: &str,
    before: serde_json::Map<String, Value>,
    sent: &serde_json::Map<String, Value>,
    pointer: Option<&str>,
) {
    let Some(entity) = world.entity_mut(&t.name, collection, id) else {
        return;
    };
    let mut merged = Value::Object(before.clone());
    merge_patch(&mut merged, &Value::Object(sent.clone()));
    let Value::Object(mut merged) = merged else {
        return;
    };
    for (k, v) in &entity.fields {
        if !sent.contains_key(k) && before.get(k) != Some(v) {
            merged.insert(k.clone(), v.clone());
        }
    }
    entity.fields = merged.clone();
    if let (Some(p), AnswerBody::Json(body)) = (pointer, &mut answer.body) {
        if let Some(Value::Object(shown)) = body.pointer_mut(p) {
            let keys: Vec<String> = shown.keys().cloned().collect();
            for k in keys {
                if !merged.contains_key(&k) && (before.contains_key(&k) || sent.contains_key(&k)) {
                    shown.remove(&k);
                }
            }
            for (k, v) in &merged {
                shown.insert(k.clone(), v.clone());
            }
        }
    }
}

/// RFC 7396 JSON merge patch.
pub fn merge_patch(target: &mut Value, patch: &Value) {
    let Value::Object(patch) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(serde_json::Map::new());
    }
    if let Value::Object(map) = target {
        for (k, v) in patch {
            if v.is_null() {
                map.remove(k);
            } else {
                merge_patch(map.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
    }
}

/// The entity object a write body carries (at the sibling answer's pointer).
fn sent_entity(_engine: &Engine, plan: &WritePlan, body: &Value) -> Option<Value> {
    let pointer = plan.answer.as_ref().and_then(|a| a.pointer.as_deref());
    crate::codec::body_entity(body, pointer).map(|m| Value::Object(m.clone()))
}

/// The recorded not-found answer of the type or its family (an item
/// view's not-found recording, else any 404/410 recording of an item path
/// of the family), every string equal to the recorded identity replaced by
/// `id`.
pub fn family_not_found(
    engine: &Engine,
    t: &EntityType,
    id: &str,
    tool: Option<&str>,
) -> Option<Answer> {
    let mut types = vec![t];
    types.extend(family(engine, t));
    let from_views = types.iter().find_map(|s| {
        engine.state.views.iter().find_map(|v| match v {
            ViewPlan::Item(p) if p.type_name == s.name => {
                p.not_found_ordinal.and_then(|o| engine.record(o))
            }
            _ => None,
        })
    });
    let rec = from_views.or_else(|| {
        types.iter().find_map(|s| {
            let template = compile(&s.collection_template);
            engine
                .manifest
                .tools
                .iter()
                .flat_map(|tool| tool.record_ordinals.iter())
                .filter_map(|&o| engine.record(o))
                .find(|r| {
                    matches!(r.status, Some(404 | 410))
                        && r.path.as_deref().is_some_and(|p| {
                            let segs = path_segments(p);
                            segs.split_last()
                                .is_some_and(|(_, parent)| template_matches(&template, parent))
                        })
                })
        })
    })?;
    let mut answer = recorded_not_found(rec, tool.unwrap_or(""), id);
    answer.tool = tool.map(str::to_string);
    Some(answer)
}
