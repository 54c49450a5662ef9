//! Builds one write plan per state-changing tool from its first successful
//! call: the effect, the build reason (`no-state-target`, `no-call`,
//! `body-unusable`, `no-observation`, `unexplained-change`), the field
//! rules, required members, `body.fixed`, `insert` and the answer.

use super::classify::{classify_effect, is_write_tool, may_change_state, Effect};
use super::created::{explain_created, CreateContext};
use super::input::{
    body_entity, id_text, normalize_path, parent_path, path_params, TimelineRecord,
};
use super::insert::choose_insert;
use super::observe::{path_names_entity, LastSeen, TypeShape};
use super::shapes::clock_near;
use super::updated::{explain_update, UpdateObservation};
use crate::manifest::Tool;
use crate::state::model::{
    Document, Entity, EntityType, FieldRule, Insert, InsertPosition, PlanStatus, Rule, Unserved,
    ValueKind, ViewPlan, WriteAnswer, WritePlan,
};
use serde_json::{Map, Value};

/// An update call's body, entity before, entity after and start time.
type OwnedObservation = (
    Map<String, Value>,
    Option<Map<String, Value>>,
    Map<String, Value>,
    Option<i64>,
);

/// What the plan builder reads.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BuildInput<'a> {
    pub tools: &'a [Tool],
    pub types: &'a [EntityType],
    /// The initial entities, in state order.
    pub entities: &'a [Entity],
    pub documents: &'a [Document],
    pub views: &'a [ViewPlan],
    /// Primary-origin records in timeline order.
    pub timeline: &'a [TimelineRecord],
}

/// A built plan and what the replay check needs besides it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Built {
    pub plan: WritePlan,
    /// True when the plan answers with the entity but no initial entity
    /// holds every field that answer takes from the stored entity.
    pub incomplete_entities: bool,
}

/// One successful call of a write tool, with what the timeline shows around it.
#[derive(Debug, Clone, Default)]
struct CallObs {
    index: usize,
    body: Option<Map<String, Value>>,
    before: Option<Map<String, Value>>,
    after: Option<Map<String, Value>>,
    /// The pointer of the entity in the call's own answer, if it shows one.
    answer_pointer: Option<String>,
    answer_entity: Option<Map<String, Value>>,
    /// For deletes: a later read showed the entity gone.
    absence_seen: bool,
    /// Entities of the collection and of the type just before the call.
    collection: Vec<Map<String, Value>>,
    type_entities: Vec<Map<String, Value>>,
}

/// Builds the plans of every write tool, in tool order.
pub(crate) fn build_plans(input: &BuildInput<'_>) -> Vec<Built> {
    let shapes = TypeShape::all(input.types, input.views);
    let collections: Vec<&str> = input
        .types
        .iter()
        .map(|t| t.collection_template.as_str())
        .collect();
    let documents: Vec<&str> = input.documents.iter().map(|d| d.path.as_str()).collect();
    input
        .tools
        .iter()
        .filter(|t| is_write_tool(&t.method, &t.path_template))
        .map(|tool| {
            let (effect, target) =
                classify_effect(&tool.method, &tool.path_template, &collections, &documents);
            let mut plan = empty_plan(tool, effect);
            match (effect, target) {
                (Effect::None, _) | (_, None) => {
                    plan.reason = Some(Unserved::NoStateTarget);
                    Built {
                        plan,
                        incomplete_entities: false,
                    }
                }
                (Effect::Document, Some(i)) => {
                    plan.document_path = Some(input.documents[i].path.clone());
                    build_document(input, tool, plan, &input.documents[i])
                }
                (_, Some(i)) => {
                    plan.type_name = Some(input.types[i].name.clone());
                    build_entity_plan(input, tool, plan, effect, &shapes[i])
                }
            }
        })
        .collect()
}

fn empty_plan(tool: &Tool, effect: Effect) -> WritePlan {
    WritePlan {
        tool: tool.name.clone(),
        method: tool.method.clone(),
        effect,
        type_name: None,
        document_path: None,
        status: PlanStatus::Unserved,
        reason: None,
        contradicted_by: Vec::new(),
        checked_record_ordinals: Vec::new(),
        example_ordinal: None,
        required_members: Vec::new(),
        body_fixed: Vec::new(),
        field_rules: Vec::new(),
        insert: None,
        answer: None,
    }
}

fn next_write(timeline: &[TimelineRecord], after: usize) -> usize {
    timeline
        .iter()
        .enumerate()
        .skip(after + 1)
        .find(|(_, r)| {
            r.path.is_none()
                || may_change_state(&r.method, r.path.as_deref().unwrap_or(""), r.status)
        })
        .map(|(i, _)| i)
        .unwrap_or(timeline.len())
}

/// Observes every successful call of `tool` along the timeline.
fn observe_calls(
    input: &BuildInput<'_>,
    tool: &Tool,
    effect: Effect,
    shape: &TypeShape<'_>,
) -> Vec<CallObs> {
    let mut seen = LastSeen::default();
    let t = shape.entity_type;
    for e in input.entities.iter().filter(|e| e.type_name == t.name) {
        seen.replace(&e.collection, &e.fields, &t.id_field);
    }
    let id_field = t.id_field.as_str();
    let mut out = Vec::new();
    // Nothing after the tool's last successful call is needed (later reads
    // are looked up directly).
    let last_call = input
        .timeline
        .iter()
        .rposition(|r| r.tool.as_deref() == Some(tool.name.as_str()) && r.succeeded());
    let Some(last_call) = last_call else {
        return out;
    };
    for (i, rec) in input.timeline.iter().enumerate().take(last_call + 1) {
        let is_call = rec.tool.as_deref() == Some(tool.name.as_str()) && rec.succeeded();
        if let (true, Some(path)) = (is_call, rec.path.as_deref()) {
            let mut obs = CallObs {
                index: i,
                ..CallObs::default()
            };
            let answer = rec.response_body.json().and_then(|v| shape.entity_in(v));
            // The body's entity sits where the item view's entity does,
            // else where this call's answer shows it.
            let pointer = shape
                .item_pointer
                .clone()
                .or_else(|| answer.as_ref().map(|(p, _)| p.clone()));
            obs.body = rec
                .request_body
                .json()
                .and_then(|b| body_entity(b, pointer.as_deref()))
                .cloned();
            let end = next_write(input.timeline, i);
            let later = &input.timeline[i + 1..end];
            if effect == Effect::Create && out.is_empty() {
                // Sequence and unique rules look at the whole type, for the example only.
                let mut all_collections: Vec<String> = seen.order.keys().cloned().collect();
                all_collections.sort();
                obs.type_entities = seen.all(&all_collections).into_iter().cloned().collect();
            }
            match effect {
                Effect::Create => {
                    let collection = normalize_path(path);
                    if out.is_empty() {
                        obs.collection =
                            seen.collection(&collection).into_iter().cloned().collect();
                    }
                    if let Some((pointer, entity)) = answer {
                        obs.answer_pointer = Some(pointer);
                        obs.answer_entity = Some(entity.clone());
                        obs.after = Some(entity.clone());
                    } else {
                        obs.after = later
                            .iter()
                            .find_map(|r| new_entity_in(shape, r, &collection, &seen));
                    }
                }
                Effect::Update | Effect::Delete => {
                    let collection = parent_path(path);
                    let id = path
                        .split('/')
                        .rfind(|s| !s.is_empty())
                        .map(super::input::percent_decode)
                        .unwrap_or_default();
                    obs.before = seen.get(&collection, &id).cloned();
                    if let Some((pointer, entity)) =
                        answer.filter(|(_, e)| path_names_entity(path, e, id_field))
                    {
                        obs.answer_pointer = Some(pointer);
                        obs.answer_entity = Some(entity.clone());
                        if effect == Effect::Update {
                            obs.after = Some(entity.clone());
                        }
                    }
                    if effect == Effect::Update && obs.after.is_none() {
                        obs.after = later
                            .iter()
                            .find_map(|r| entity_read(shape, r, &collection, &id));
                    }
                    if effect == Effect::Delete {
                        obs.absence_seen = later
                            .iter()
                            .any(|r| absence_read(shape, r, &collection, &id));
                    }
                }
                Effect::Document | Effect::None => {}
            }
            out.push(obs);
        }
        seen.observe(shape, rec);
    }
    out
}

/// A successful `GET` with its path, tool and usable JSON body.
fn successful_read(rec: &TimelineRecord) -> Option<(&str, &str, &Value)> {
    if !rec.succeeded() || rec.method != "GET" {
        return None;
    }
    Some((
        rec.path.as_deref()?,
        rec.tool.as_deref()?,
        rec.response_body.json()?,
    ))
}

/// The entity a later read shows that the collection did not hold before.
fn new_entity_in(
    shape: &TypeShape<'_>,
    rec: &TimelineRecord,
    collection: &str,
    seen: &LastSeen,
) -> Option<Map<String, Value>> {
    let (path, tool, body) = successful_read(rec)?;
    let unseen = |e: &&Map<String, Value>| {
        e.get(shape.id_field())
            .and_then(id_text)
            .is_some_and(|id| seen.get(collection, &id).is_none())
    };
    if let Some(items) = shape.list_in(tool, body) {
        return (normalize_path(path) == collection)
            .then(|| items.into_iter().find(unseen).cloned())
            .flatten();
    }
    if shape.is_item_tool(tool) && parent_path(path) == collection {
        return shape
            .entity_in(body)
            .map(|(_, e)| e)
            .filter(unseen)
            .cloned();
    }
    None
}

/// The entity `id` as a later read shows it.
fn entity_read(
    shape: &TypeShape<'_>,
    rec: &TimelineRecord,
    collection: &str,
    id: &str,
) -> Option<Map<String, Value>> {
    let (path, tool, body) = successful_read(rec)?;
    let is_it =
        |e: &&Map<String, Value>| e.get(shape.id_field()).and_then(id_text).as_deref() == Some(id);
    if shape.is_item_tool(tool) && parent_path(path) == collection {
        return shape.entity_in(body).map(|(_, e)| e).filter(is_it).cloned();
    }
    let items = shape.list_in(tool, body)?;
    (normalize_path(path) == collection && rec.query.is_none())
        .then(|| items.into_iter().find(is_it).cloned())
        .flatten()
}

/// True when a later read shows entity `id` gone.
fn absence_read(shape: &TypeShape<'_>, rec: &TimelineRecord, collection: &str, id: &str) -> bool {
    let (Some(path), Some(tool)) = (rec.path.as_deref(), rec.tool.as_deref()) else {
        return false;
    };
    if rec.method != "GET" {
        return false;
    }
    if shape.is_item_tool(tool) && parent_path(path) == collection {
        let last = path
            .split('/')
            .rfind(|s| !s.is_empty())
            .map(super::input::percent_decode);
        return last.as_deref() == Some(id) && rec.shows_absence();
    }
    match (
        rec.succeeded(),
        rec.response_body
            .json()
            .and_then(|b| shape.list_in(tool, b)),
    ) {
        (true, Some(items)) if normalize_path(path) == collection && rec.query.is_none() => !items
            .iter()
            .any(|e| e.get(shape.id_field()).and_then(id_text).as_deref() == Some(id)),
        _ => false,
    }
}

fn build_entity_plan(
    input: &BuildInput<'_>,
    tool: &Tool,
    mut plan: WritePlan,
    effect: Effect,
    shape: &TypeShape<'_>,
) -> Built {
    let calls = observe_calls(input, tool, effect, shape);
    let Some(first) = calls.first() else {
        plan.reason = Some(Unserved::NoCall);
        return Built {
            plan,
            incomplete_entities: false,
        };
    };
    let rec = &input.timeline[first.index];
    plan.example_ordinal = Some(rec.ordinal);
    let empty = Map::new();
    let needs_body = effect != Effect::Delete;
    let Some(body) = first
        .body
        .as_ref()
        .filter(|_| needs_body)
        .or(if needs_body { None } else { Some(&empty) })
    else {
        plan.reason = Some(Unserved::BodyUnusable);
        return Built {
            plan,
            incomplete_entities: false,
        };
    };
    plan.answer = Some(WriteAnswer {
        status: rec.status.unwrap_or(200),
        envelope_ordinal: rec.ordinal,
        pointer: first.answer_pointer.clone(),
    });
    let observed = match effect {
        Effect::Delete => first.answer_entity.is_some() || first.absence_seen,
        _ => first.after.is_some(),
    };
    if !observed {
        plan.reason = Some(Unserved::NoObservation);
        return Built {
            plan,
            incomplete_entities: false,
        };
    }
    let t = shape.entity_type;
    let params = rec
        .path
        .as_deref()
        .and_then(|p| path_params(&tool.path_template, p))
        .unwrap_or_default();
    let collections = initial_collections(input.entities, &t.name);
    let mut incomplete = false;
    match effect {
        Effect::Create => {
            let after = first.after.as_ref().unwrap_or(&empty);
            let col: Vec<&Map<String, Value>> = first.collection.iter().collect();
            let all: Vec<&Map<String, Value>> = first.type_entities.iter().collect();
            let ctx = CreateContext {
                body,
                path_params: &params,
                request_ms: rec.start_ms,
                id_field: &t.id_field,
                collection: &col,
                type_entities: &all,
            };
            plan.field_rules = explain_created(after, &ctx);
            plan.required_members = body.keys().cloned().collect();
            plan.insert = Some(choose_insert(&collections, &plan.field_rules));
        }
        Effect::Update => {
            let obs = |c: &CallObs| -> Option<OwnedObservation> {
                Some((
                    c.body.clone()?,
                    c.before.clone(),
                    c.after.clone()?,
                    input.timeline[c.index].start_ms,
                ))
            };
            let owned: Vec<_> = calls.iter().skip(1).filter_map(obs).collect();
            let others: Vec<UpdateObservation<'_>> = owned
                .iter()
                .map(|(b, x, a, ms)| UpdateObservation {
                    body: b,
                    before: x.as_ref(),
                    after: a,
                    request_ms: *ms,
                })
                .collect();
            let first_obs = UpdateObservation {
                body,
                before: first.before.as_ref(),
                after: first.after.as_ref().unwrap_or(&empty),
                request_ms: rec.start_ms,
            };
            match explain_update(&first_obs, &others) {
                Ok(rules) => {
                    plan.field_rules = rules.rules;
                    plan.body_fixed = rules.fixed;
                }
                Err(field) => {
                    plan.reason = Some(Unserved::UnexplainedChange);
                    plan.field_rules = vec![FieldRule::new(field, Rule::Unexplained)];
                    return Built {
                        plan,
                        incomplete_entities: false,
                    };
                }
            }
            if tool.method == "PUT" {
                plan.required_members = body.keys().cloned().collect();
            }
            plan.insert = reposition(&collections, &plan.field_rules);
            if let Some(answer) = &first.answer_entity {
                let from_entity: Vec<&String> = answer
                    .keys()
                    .filter(|k| {
                        !body.contains_key(*k) && !plan.field_rules.iter().any(|r| &r.field == *k)
                    })
                    .collect();
                incomplete = !holds_all(input.entities, &t.name, &from_entity);
            }
        }
        Effect::Delete => {
            if let Some(answer) = &first.answer_entity {
                plan.field_rules =
                    explain_delete_answer(answer, first.before.as_ref(), &params, rec.start_ms);
                let from_entity: Vec<&String> = plan
                    .field_rules
                    .iter()
                    .filter(|r| r.rule == Rule::Entity)
                    .map(|r| &r.field)
                    .collect();
                incomplete = !holds_all(input.entities, &t.name, &from_entity);
            }
        }
        Effect::Document | Effect::None => {}
    }
    Built {
        plan,
        incomplete_entities: incomplete,
    }
}

/// The initial collections of a type, each its entities in state order.
fn initial_collections<'a>(
    entities: &'a [Entity],
    type_name: &str,
) -> Vec<Vec<&'a Map<String, Value>>> {
    let mut out: Vec<(String, Vec<&Map<String, Value>>)> = Vec::new();
    for e in entities.iter().filter(|e| e.type_name == type_name) {
        match out.iter_mut().find(|(c, _)| c == &e.collection) {
            Some((_, list)) => list.push(&e.fields),
            None => out.push((e.collection.clone(), vec![&e.fields])),
        }
    }
    out.into_iter().map(|(_, l)| l).collect()
}

/// True when some initial entity of the type holds every named field.
fn holds_all(entities: &[Entity], type_name: &str, fields: &[&String]) -> bool {
    fields.is_empty()
        || entities
            .iter()
            .filter(|e| e.type_name == type_name)
            .any(|e| fields.iter().all(|f| e.fields.contains_key(*f)))
}

/// An update moves its entity when the collection's recorded order follows
/// a clock the update sets (a list sorted by modification time).
fn reposition(collections: &[Vec<&Map<String, Value>>], rules: &[FieldRule]) -> Option<Insert> {
    let clocks: Vec<FieldRule> = rules
        .iter()
        .filter(|r| matches!(r.rule, Rule::Clock { .. }))
        .cloned()
        .collect();
    if clocks.is_empty() {
        return None;
    }
    let insert = choose_insert(collections, &clocks);
    (insert.position == InsertPosition::Sorted).then_some(insert)
}

/// Rules for the entity a delete answers with: a field equal to the stored
/// entity's value is taken from it (`entity`), a path value is `path`, a
/// recent time is `clock`, anything else keeps its `observed` value.
fn explain_delete_answer(
    answer: &Map<String, Value>,
    before: Option<&Map<String, Value>>,
    params: &[(String, String)],
    request_ms: Option<i64>,
) -> Vec<FieldRule> {
    answer
        .iter()
        .map(|(field, value)| {
            let rule = if before.and_then(|b| b.get(field)) == Some(value) {
                Rule::Entity
            } else if let Some((name, _)) = params
                .iter()
                .find(|(_, v)| value.as_str() == Some(v.as_str()))
            {
                Rule::Path {
                    param: name.clone(),
                    kind: ValueKind::String,
                }
            } else if let Some((_, format)) = request_ms.and_then(|ms| clock_near(value, ms)) {
                Rule::Clock { format }
            } else {
                Rule::Observed {
                    value: value.clone(),
                }
            };
            FieldRule::new(field, rule)
        })
        .collect()
}

fn build_document(
    input: &BuildInput<'_>,
    tool: &Tool,
    mut plan: WritePlan,
    document: &Document,
) -> Built {
    let doc_path = normalize_path(document.path.split('?').next().unwrap_or(""));
    let mut current: Option<Value> = None;
    let mut first: Option<usize> = None;
    for (i, rec) in input.timeline.iter().enumerate() {
        let path = rec.path.as_deref().map(normalize_path);
        if rec.tool.as_deref() == Some(tool.name.as_str())
            && rec.succeeded()
            && path.as_deref() == Some(doc_path.as_str())
        {
            first = Some(i);
            break;
        }
        if rec.method == "GET" && rec.succeeded() && path.as_deref() == Some(doc_path.as_str()) {
            current = rec.response_body.json().cloned();
        }
    }
    let current = current.unwrap_or_else(|| document.value.clone());
    let Some(i) = first else {
        plan.reason = Some(Unserved::NoCall);
        return Built {
            plan,
            incomplete_entities: false,
        };
    };
    let rec = &input.timeline[i];
    plan.example_ordinal = Some(rec.ordinal);
    let Some(body) = rec.request_body.json().and_then(Value::as_object) else {
        plan.reason = Some(Unserved::BodyUnusable);
        return Built {
            plan,
            incomplete_entities: false,
        };
    };
    plan.answer = Some(WriteAnswer {
        status: rec.status.unwrap_or(200),
        envelope_ordinal: rec.ordinal,
        pointer: None,
    });
    let end = next_write(input.timeline, i);
    let after = rec
        .response_body
        .json()
        .and_then(Value::as_object)
        .cloned()
        .or_else(|| {
            input.timeline[i + 1..end].iter().find_map(|r| {
                (r.method == "GET"
                    && r.succeeded()
                    && r.path.as_deref().map(normalize_path).as_deref() == Some(doc_path.as_str()))
                .then(|| r.response_body.json().and_then(Value::as_object).cloned())
                .flatten()
            })
        });
    let Some(after) = after else {
        plan.reason = Some(Unserved::NoObservation);
        return Built {
            plan,
            incomplete_entities: false,
        };
    };
    let first_obs = UpdateObservation {
        body,
        before: current.as_object(),
        after: &after,
        request_ms: rec.start_ms,
    };
    match explain_update(&first_obs, &[]) {
        Ok(rules) => {
            plan.field_rules = rules.rules;
            plan.body_fixed = rules.fixed;
        }
        Err(field) => {
            plan.reason = Some(Unserved::UnexplainedChange);
            plan.field_rules = vec![FieldRule::new(field, Rule::Unexplained)];
        }
    }
    plan.required_members = body.keys().cloned().collect();
    Built {
        plan,
        incomplete_entities: false,
    }
}
