//! Applies a served write plan to a World for one call (the write side):
//! validates the body (an object with every required member, fixed members
//! at their recorded values), then creates, updates, deletes or rewrites a
//! document per the plan's field rules, and answers as the recording's
//! envelope would with the written entity in it and the recorded status.
//! An entity the World does not hold answers as the recorded not-found did.
//! A write never changes an entity's identity through its body: a body id
//! that differs from the path's answers the app's own recorded refusal of
//! one, else `400 id_mismatch`; a created id must be a string or a number
//! of the kind the type's ids are. Every refusal changes nothing.

use crate::codec::body_entity;
use crate::codec::{path_segments, percent_decode};
use crate::insert::insert_index;
use crate::refusal::Refusal;
use crate::render::{answer_from_record, parent_collection, recorded_not_found};
use crate::shapes::{format_clock, sequence_like, sequence_value, slugify, ClockFormat};
use crate::state::{
    Effect, Entity, Generated, Rule, SequenceScope, ValueKind, ViewPlan, WritePlan,
};
use crate::{Answer, AnswerBody, Applied, Call, Engine, Generator, Params, World};
use serde_json::{json, Map, Value};

/// How an update's sent members reach the held value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchMeaning {
    /// Each sent member is stored as sent (the spec's meaning of a write
    /// plan, which the replay check confirms, and what the engine serves).
    StoredAsSent,
    /// A `PATCH` is an RFC 7396 merge patch (`null` removes a member,
    /// objects merge): what the app model serves on the routes where the
    /// recording fits it (docs/serving.md, "One meaning per write plan").
    MergePatch,
}

/// Applies one write plan to `world` and answers as the recording would,
/// an update's sent members reaching the held value as `meaning` says.
/// Leaves `world` unchanged unless it answers `applied: Yes`.
pub(crate) fn apply_write_with(
    engine: &Engine,
    plan: &WritePlan,
    world: &mut World,
    call: &Call,
    params: &Params,
    gen: &mut dyn Generator,
    meaning: PatchMeaning,
) -> Answer {
    let merge = meaning == PatchMeaning::MergePatch && call.method.eq_ignore_ascii_case("PATCH");
    let pointer = body_pointer(engine, plan);
    let body = match plan.effect {
        Effect::Create | Effect::Update | Effect::Document => {
            match validate(plan, call, pointer.as_deref()) {
                Ok(body) => body,
                Err(answer) => return *answer,
            }
        }
        _ => Map::new(),
    };
    match plan.effect {
        Effect::Create => create(engine, plan, world, call, params, &body, gen),
        Effect::Update => update(engine, plan, world, call, params, &body, gen, merge),
        Effect::Delete => delete(engine, plan, world, call, params, gen),
        Effect::Document => document(engine, plan, world, call, &body, gen, merge),
        Effect::None => Refusal::NotServed {
            tool: plan.tool.clone(),
            method: call.method.clone(),
            template: engine
                .tool(&plan.tool)
                .map_or_else(|| call.path.clone(), |t| t.path_template.clone()),
            reason: "no-state-target".to_string(),
        }
        .answer(),
    }
}

/// Where the entity sits in request bodies: the item view's pointer, else
/// the pointer of the entity in the recorded answer.
pub(crate) fn body_pointer(engine: &Engine, plan: &WritePlan) -> Option<String> {
    let from_view = plan.type_name.as_deref().and_then(|t| {
        engine.state.views.iter().find_map(|v| match v {
            ViewPlan::Item(p) if p.type_name == t => Some(p.pointer.clone()),
            _ => None,
        })
    });
    from_view.or_else(|| plan.answer.as_ref().and_then(|a| a.pointer.clone()))
}

fn refuse(plan: &WritePlan, code: &'static str, message: &str, details: Value) -> Box<Answer> {
    let mut extra = Map::new();
    extra.insert("details".to_string(), details);
    Box::new(
        Refusal::InvalidBody {
            tool: plan.tool.clone(),
            code,
            message: message.to_string(),
            extra,
        }
        .answer(),
    )
}

/// The body's entity object, or the 400 answer that refuses the call.
fn validate(
    plan: &WritePlan,
    call: &Call,
    pointer: Option<&str>,
) -> Result<Map<String, Value>, Box<Answer>> {
    let Some(body) = call.body.as_ref() else {
        return Err(refuse(
            plan,
            "body_required",
            "this write needs a JSON object body",
            json!({}),
        ));
    };
    let wrapped_not_object = pointer
        .filter(|p| !p.is_empty())
        .and_then(|p| crate::codec::at_pointer(body, p))
        .is_some_and(|v| !v.is_object());
    let entity = body_entity(body, pointer).filter(|_| !wrapped_not_object);
    let Some(entity) = entity else {
        return Err(refuse(
            plan,
            "body_not_object",
            "the request body must be a JSON object",
            json!({}),
        ));
    };
    let missing: Vec<&String> = plan
        .required_members
        .iter()
        .filter(|m| !entity.contains_key(*m))
        .collect();
    if !missing.is_empty() {
        return Err(refuse(
            plan,
            "missing_required_members",
            &format!(
                "the body lacks required members: {}",
                missing
                    .iter()
                    .map(|m| m.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            json!({ "missing": missing }),
        ));
    }
    for fixed in &plan.body_fixed {
        if let Some(sent) = entity.get(&fixed.member) {
            if sent != &fixed.sent {
                return Err(refuse(
                    plan,
                    "member_value_not_modelled",
                    &format!(
                        "`{}` is modelled only with the value the recording sent",
                        fixed.member
                    ),
                    json!({ "member": fixed.member, "accepted": fixed.sent }),
                ));
            }
        }
    }
    Ok(entity.clone())
}

fn clock_value(format: &ClockFormat, now: i64) -> Value {
    format_clock(now, format)
}

fn slug_value(member: &str, separator: &str, body: &Map<String, Value>) -> Option<Value> {
    let text = body.get(member)?.as_str()?;
    let sep = separator.chars().next().unwrap_or('-');
    Some(Value::String(slugify(text, sep)))
}

fn path_value(param: &str, kind: ValueKind, params: &Params) -> Option<Value> {
    let raw = params.get(param)?;
    Some(match kind {
        ValueKind::Number => sequence_value(&Value::String(raw.clone()))
            .map(Value::from)
            .unwrap_or(Value::String(raw.clone())),
        ValueKind::String => Value::String(raw.clone()),
    })
}

fn uuid_value(uppercase: bool, gen: &mut dyn Generator) -> Value {
    let id = gen.uuid();
    Value::String(if uppercase {
        id.to_ascii_uppercase()
    } else {
        id
    })
}

fn next_in(values: impl Iterator<Item = Option<i64>>) -> i64 {
    values.flatten().max().map(|m| m + 1).unwrap_or(1)
}

fn create(
    engine: &Engine,
    plan: &WritePlan,
    world: &mut World,
    call: &Call,
    params: &Params,
    body: &Map<String, Value>,
    gen: &mut dyn Generator,
) -> Answer {
    let Some(t) = plan
        .type_name
        .as_deref()
        .and_then(|t| engine.entity_type(t))
    else {
        return internal(plan, "the plan names no entity type");
    };
    let collection = crate::normalize_path(&call.path);
    let now = gen.now_ms();
    let held = world.list(&t.name, &collection);
    // Every entity of the type, for type-scoped sequences; gathered only
    // when a rule asks (a walk over the whole type on each create otherwise).
    let type_entities = || -> Vec<&Entity> { world.entities_of_type(&t.name).collect() };
    let mut fields = Map::new();
    for rule in &plan.field_rules {
        let field = rule.field.as_str();
        let value = match &rule.rule {
            Rule::Identity(Generated::Sequence { kind }) => {
                let n = held.max_sequence_id().map_or(1, |m| m + 1);
                Some(match kind {
                    ValueKind::String => Value::String(n.to_string()),
                    ValueKind::Number => Value::from(n),
                })
            }
            Rule::Identity(Generated::Uuid { uppercase }) => Some(uuid_value(*uppercase, gen)),
            Rule::Identity(Generated::Token { alphabet, length }) => {
                let len = (*length).min(1024) as usize;
                Some(Value::String(gen.token(alphabet, len)))
            }
            Rule::Echo { member } | Rule::Copy { member } => body.get(member).cloned(),
            Rule::Path { param, kind } => path_value(param, *kind, params),
            Rule::Slug { member, separator } => slug_value(member, separator, body),
            Rule::Clock { format } => Some(clock_value(format, now)),
            Rule::Sequence { scope, kind } => {
                let pool: Vec<&Entity> = match scope {
                    SequenceScope::Type => type_entities(),
                    SequenceScope::Collection => held.iter().collect(),
                };
                let n = next_in(
                    pool.iter()
                        .map(|e| e.fields.get(field).and_then(sequence_value)),
                );
                let like = match kind {
                    ValueKind::String => Value::String(String::new()),
                    ValueKind::Number => Value::from(0),
                };
                Some(sequence_like(&like, n))
            }
            Rule::Unique { uppercase } => Some(uuid_value(*uppercase, gen)),
            Rule::Template {
                source,
                prefix,
                suffix,
            } => fields.get(source).and_then(|v| {
                let text = match v {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    _ => return None,
                };
                Some(Value::String(format!("{prefix}{text}{suffix}")))
            }),
            Rule::Observed { value } => Some(value.clone()),
            Rule::Constant { .. }
            | Rule::Dropped { .. }
            | Rule::Increment { .. }
            | Rule::Entity
            | Rule::Unexplained => None,
        };
        if let Some(v) = value {
            fields.insert(field.to_string(), v);
        }
    }
    // Members the example did not send are stored as sent.
    for (k, v) in body {
        if !plan.field_rules.iter().any(|r| &r.field == k) {
            fields.insert(k.clone(), v.clone());
        }
    }
    let Some(id) = fields.get(&t.id_field).cloned() else {
        return internal(plan, "the created entity has no identity");
    };
    if let Some(message) = id_kind_problem(&id, world, &t.name) {
        return *refuse(
            plan,
            "invalid_id",
            &format!("`{}` {message}", t.id_field),
            json!({ "member": t.id_field, "sent": id }),
        );
    }
    if held.holds(&id) {
        return Refusal::AlreadyExists {
            tool: plan.tool.clone(),
            id,
        }
        .answer();
    }
    let index = plan.insert.as_ref().map(|insert| {
        let key = insert.field.as_deref().unwrap_or("");
        insert_index(
            insert,
            held.iter().map(|e| e.fields.get(key)),
            fields.get(key),
        )
    });
    let entity = Entity {
        type_name: t.name.clone(),
        collection,
        id,
        fields,
        view_fields: Default::default(),
        record_ordinals: Vec::new(),
    };
    let answer = answer_with(engine, plan, Some(&entity.fields));
    world.insert(entity, index);
    answer
}

/// Whether a sent id names the held entity: the same value, or the same
/// scalar spelled as text (`"5"` for `5`).
fn id_matches(held: &Value, sent: &Value) -> bool {
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    crate::world::same_id(held, sent) || text(sent).is_some_and(|s| text(held) == Some(s))
}

/// Why a new entity's id cannot be held: not a string or a number, or not
/// of the kind every held id of the type is.
fn id_kind_problem(id: &Value, world: &World, type_name: &str) -> Option<&'static str> {
    if !matches!(id, Value::String(_) | Value::Number(_)) {
        return Some("must be a string or a number");
    }
    // The held ids' kinds, from the collections' indexes: building every
    // held entity to read its id parsed every loaded row on the first create.
    let held = world.id_kinds_of_type(type_name);
    let same = match id {
        Value::String(_) => held.string,
        _ => held.number,
    };
    let kinds = [held.string, held.number, held.other];
    (!same && kinds.iter().filter(|k| **k).count() == 1)
        .then_some("must be of the kind the type's other ids are")
}

/// The answer to a body id that differs from the path's: the tool's
/// recorded refusal of such a body (a 4xx to a body whose id differs from
/// its path's), else `400 id_mismatch`.
fn id_refusal(
    engine: &Engine,
    plan: &WritePlan,
    call: &Call,
    id_field: &str,
    held: &Value,
    sent: &Value,
) -> Answer {
    let pointer = body_pointer(engine, plan);
    let recorded = engine
        .tool(&plan.tool)
        .into_iter()
        .flat_map(|t| t.record_ordinals.iter())
        .filter_map(|&o| engine.record(o))
        .find(|r| {
            r.status
                .is_some_and(|s| (400..500).contains(&s) && s != 404 && s != 410)
                && r.method.eq_ignore_ascii_case(&call.method)
                && recorded_id_differs(r, pointer.as_deref(), id_field)
        });
    if let Some(rec) = recorded {
        let mut answer = answer_from_record(rec, &plan.tool);
        answer.applied = Applied::No;
        return answer;
    }
    *refuse(
        plan,
        "id_mismatch",
        &format!("the body's `{id_field}` differs from the path's: a write never changes an entity's identity"),
        json!({ "member": id_field, "path": held, "sent": sent }),
    )
}

/// Whether a recorded request sent a body id other than its path's last segment.
fn recorded_id_differs(
    rec: &crate::records::Record,
    pointer: Option<&str>,
    id_field: &str,
) -> bool {
    let Some(body) = rec
        .request_text
        .as_deref()
        .and_then(|t| serde_json::from_str::<Value>(t).ok())
    else {
        return false;
    };
    let Some(sent) = body_entity(&body, pointer).and_then(|e| e.get(id_field)) else {
        return false;
    };
    let Some(last) = rec
        .path
        .as_deref()
        .and_then(|p| path_segments(p).last().map(|s| percent_decode(s)))
    else {
        return false;
    };
    !id_matches(&Value::String(last.to_string()), sent)
}

fn target(params: &Params, call: &Call) -> (String, String) {
    let id = params.values().last().cloned().unwrap_or_else(|| {
        path_segments(&call.path)
            .last()
            .map(|s| percent_decode(s))
            .unwrap_or_default()
    });
    (parent_collection(&call.path), id)
}

#[allow(clippy::too_many_arguments)]
fn update(
    engine: &Engine,
    plan: &WritePlan,
    world: &mut World,
    call: &Call,
    params: &Params,
    body: &Map<String, Value>,
    gen: &mut dyn Generator,
    merge: bool,
) -> Answer {
    let type_name = plan.type_name.clone().unwrap_or_default();
    let (collection, id) = target(params, call);
    let Some(entity) = world.entity(&type_name, &collection, &id) else {
        return not_found(engine, plan, &id);
    };
    let mut body = std::borrow::Cow::Borrowed(body);
    if let Some(t) = engine.entity_type(&type_name) {
        if let Some(sent) = body.get(&t.id_field) {
            if !id_matches(&entity.id, sent) {
                return id_refusal(engine, plan, call, &t.id_field, &entity.id, sent);
            }
            // The same identity, as sent: the held value (and its kind) stays.
            body.to_mut().remove(&t.id_field);
        }
    }
    let body = body.as_ref();
    // The held entity is taken out of its collection and updated in place
    // (no copy of it); the views' own values are dropped. It goes back at
    // the plan's index, else last, as a new entity would.
    let Some(mut updated) = world.remove(&type_name, &collection, &id) else {
        return not_found(engine, plan, &id);
    };
    updated.view_fields = Default::default();
    let now = gen.now_ms();
    apply_update_rules(plan, &mut updated.fields, body, now, merge);
    let answer = answer_with(engine, plan, Some(&updated.fields));
    let index = plan.insert.as_ref().map(|insert| {
        let key = insert.field.as_deref().unwrap_or("");
        let existing = world
            .list(&type_name, &collection)
            .iter()
            .map(|e| e.fields.get(key));
        insert_index(insert, existing, updated.fields.get(key))
    });
    world.insert(updated, index);
    answer
}

/// Stores an update's body members per the plan (`constant` stores its
/// recorded value, `dropped` nothing, the rest as sent, merged when
/// `merge`), then the unsent changes the plan explains: clocks, increments
/// and slugs. Every route that reaches a plan applies it here.
fn apply_update_rules(
    plan: &WritePlan,
    fields: &mut Map<String, Value>,
    body: &Map<String, Value>,
    now: i64,
    merge: bool,
) {
    for (member, sent) in body {
        let rule = plan.field_rules.iter().find(|r| &r.field == member);
        match rule.map(|r| &r.rule) {
            Some(Rule::Constant { value, .. }) => {
                fields.insert(member.clone(), value.clone());
            }
            Some(Rule::Dropped { .. }) => {}
            _ if merge && sent.is_null() => {
                fields.remove(member);
            }
            _ if merge => {
                merge_patch(fields.entry(member.clone()).or_insert(Value::Null), sent);
            }
            _ => {
                fields.insert(member.clone(), sent.clone());
            }
        }
    }
    for rule in plan
        .field_rules
        .iter()
        .filter(|r| !body.contains_key(&r.field))
    {
        let value = match &rule.rule {
            Rule::Clock { format } => Some(clock_value(format, now)),
            Rule::Increment { by } => fields
                .get(&rule.field)
                .and_then(Value::as_i64)
                .map(|n| Value::from(n.saturating_add(*by))),
            Rule::Slug { member, separator } => slug_value(member, separator, body),
            _ => None,
        };
        if let Some(v) = value {
            fields.insert(rule.field.clone(), v);
        }
    }
}

/// RFC 7396 JSON merge patch of `patch` into `target`.
pub fn merge_patch(target: &mut Value, patch: &Value) {
    let Value::Object(patch) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(Map::new());
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

fn delete(
    engine: &Engine,
    plan: &WritePlan,
    world: &mut World,
    call: &Call,
    params: &Params,
    gen: &mut dyn Generator,
) -> Answer {
    let type_name = plan.type_name.clone().unwrap_or_default();
    let (collection, id) = target(params, call);
    let Some(entity) = world.entity(&type_name, &collection, &id) else {
        return not_found(engine, plan, &id);
    };
    let answer = if plan.field_rules.is_empty() {
        answer_with(engine, plan, None)
    } else {
        let now = gen.now_ms();
        let mut shown = Map::new();
        for rule in &plan.field_rules {
            let value = match &rule.rule {
                Rule::Entity => entity.fields.get(&rule.field).cloned(),
                Rule::Path { param, kind } => path_value(param, *kind, params),
                Rule::Clock { format } => Some(clock_value(format, now)),
                Rule::Observed { value } => Some(value.clone()),
                _ => None,
            };
            if let Some(v) = value {
                shown.insert(rule.field.clone(), v);
            }
        }
        answer_with(engine, plan, Some(&shown))
    };
    world.remove(&type_name, &collection, &id);
    answer
}

fn document(
    engine: &Engine,
    plan: &WritePlan,
    world: &mut World,
    call: &Call,
    body: &Map<String, Value>,
    gen: &mut dyn Generator,
    merge: bool,
) -> Answer {
    let path = plan.document_path.clone().unwrap_or_else(|| call.line());
    let mut value = match world.documents.get(&path) {
        Some(Value::Object(map)) => map.clone(),
        _ => Map::new(),
    };
    let now = gen.now_ms();
    apply_update_rules(plan, &mut value, body, now, merge);
    let mut answer = answer_with(engine, plan, None);
    if matches!(answer.body, AnswerBody::Json(Value::Object(_))) {
        answer.body = AnswerBody::Json(Value::Object(value.clone()));
    }
    world.documents.insert(path, Value::Object(value));
    answer
}

/// Recorded answers by recording ordinal, as `answer_from_record` reads
/// them: each recorded body is parsed once, not on every write or rendered
/// read. Beside each, per answer pointer, the answer with its entity slot
/// emptied and the recorded entity's member order, so a write's or an item
/// read's answer copies only the envelope around its entity, never the
/// recorded entity.
#[derive(Debug, Clone, Default)]
pub(crate) struct RecordedAnswers(
    std::sync::Arc<std::sync::Mutex<std::collections::HashMap<u64, Recorded>>>,
);

#[derive(Debug)]
struct Recorded {
    full: Answer,
    hollow: Vec<Hollow>,
}

impl Recorded {
    /// The index of the hollow answer for `pointer`, made on first use.
    fn hollow_at(&mut self, pointer: &str) -> usize {
        if let Some(i) = self.hollow.iter().position(|h| h.pointer == pointer) {
            return i;
        }
        let h = Hollow::of(&self.full, pointer);
        self.hollow.push(h);
        self.hollow.len() - 1
    }
}

/// A recorded answer without the entity at `pointer`.
#[derive(Debug)]
struct Hollow {
    pointer: String,
    /// `None` when the answer has no JSON value at the pointer (it is
    /// served as recorded).
    answer: Option<Answer>,
    /// The recorded entity's members, in order (empty when not an object).
    order: Vec<String>,
}

impl Hollow {
    fn of(full: &Answer, pointer: &str) -> Hollow {
        let mut answer = full.clone();
        let mut order = Vec::new();
        let emptied = match &mut answer.body {
            AnswerBody::Json(envelope) => {
                crate::codec::at_pointer_mut(envelope, pointer).map(|slot| {
                    if let Some(m) = slot.as_object() {
                        order = m.keys().cloned().collect();
                    }
                    *slot = Value::Null;
                })
            }
            _ => None,
        };
        Hollow {
            pointer: pointer.to_string(),
            answer: emptied.map(|()| answer),
            order,
        }
    }
}

impl RecordedAnswers {
    /// `answer_from_record(rec, tool)`, with `entity` (when given) at
    /// `pointer` in the recorded entity's member order, then the rest.
    pub(crate) fn of(
        &self,
        rec: &crate::records::Record,
        tool: &str,
        at: Option<(&str, &Map<String, Value>)>,
    ) -> Answer {
        let mut held = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let recorded = held.entry(rec.ordinal).or_insert_with(|| Recorded {
            full: answer_from_record(rec, tool),
            hollow: Vec::new(),
        });
        let mut answer = match at {
            None => recorded.full.clone(),
            Some((pointer, entity)) => {
                let i = recorded.hollow_at(pointer);
                let hollow = &recorded.hollow[i];
                match &hollow.answer {
                    None => recorded.full.clone(),
                    Some(a) => {
                        let mut answer = a.clone();
                        let shown = in_order(&hollow.order, entity);
                        if let AnswerBody::Json(envelope) = &mut answer.body {
                            if let Some(slot) = crate::codec::at_pointer_mut(envelope, pointer) {
                                *slot = Value::Object(shown);
                            }
                        }
                        answer
                    }
                }
            }
        };
        drop(held);
        if answer.tool.as_deref() != Some(tool) {
            answer.tool = Some(tool.to_string());
        }
        answer
    }

    /// `answer_from_record(rec, tool)` with `value` at `pointer`, as it is;
    /// `value` back when the recorded answer holds no JSON value there.
    pub(crate) fn with_value(
        &self,
        rec: &crate::records::Record,
        tool: &str,
        pointer: &str,
        value: Value,
    ) -> Result<Answer, Value> {
        let mut held = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let recorded = held.entry(rec.ordinal).or_insert_with(|| Recorded {
            full: answer_from_record(rec, tool),
            hollow: Vec::new(),
        });
        let i = recorded.hollow_at(pointer);
        let Some(hollow) = &recorded.hollow[i].answer else {
            return Err(value);
        };
        let mut answer = hollow.clone();
        drop(held);
        if let AnswerBody::Json(envelope) = &mut answer.body {
            if let Some(slot) = crate::codec::at_pointer_mut(envelope, pointer) {
                *slot = value;
            }
        }
        if answer.tool.as_deref() != Some(tool) {
            answer.tool = Some(tool.to_string());
        }
        Ok(answer)
    }
}

/// `entity`'s members in `order`, then the rest.
fn in_order(order: &[String], entity: &Map<String, Value>) -> Map<String, Value> {
    let mut shown = Map::with_capacity(entity.len());
    for k in order {
        if let Some((k, v)) = entity.get_key_value(k) {
            shown.insert(k.clone(), v.clone());
        }
    }
    if shown.len() < entity.len() {
        for (k, v) in entity {
            if !shown.contains_key(k) {
                shown.insert(k.clone(), v.clone());
            }
        }
    }
    shown
}

/// The example's recorded answer with `entity` at the answer pointer
/// (members in the recorded entity's order, then the rest), `applied: Yes`.
fn answer_with(engine: &Engine, plan: &WritePlan, entity: Option<&Map<String, Value>>) -> Answer {
    let empty = |status: u16| {
        applied(Answer {
            status,
            content_type: None,
            headers: Vec::new(),
            body: AnswerBody::Empty,
            tool: Some(plan.tool.clone()),
            applied: Applied::Yes,
            error_code: None,
            rendered: None,
        })
    };
    let Some(spec) = plan.answer.as_ref() else {
        return empty(200);
    };
    let Some(rec) = engine.record(spec.envelope_ordinal) else {
        return empty(spec.status);
    };
    let at = spec.pointer.as_deref().zip(entity);
    let mut answer = engine.recorded_answers.of(rec, &plan.tool, at);
    answer.status = spec.status;
    answer.rendered = Some(rec.ordinal);
    applied(answer)
}

fn applied(mut answer: Answer) -> Answer {
    answer.applied = Applied::Yes;
    answer
}

/// The not-found answer for a write to an entity the World does not hold:
/// the tool's recorded 404/410 (its recorded identity replaced by the
/// requested one), else the item view's, else a 404 error.
fn not_found(engine: &Engine, plan: &WritePlan, id: &str) -> Answer {
    let tool_record = engine
        .tool(&plan.tool)
        .into_iter()
        .flat_map(|t| t.record_ordinals.iter())
        .filter_map(|&o| engine.record(o))
        .find(|r| matches!(r.status, Some(404 | 410)));
    let view_record = plan.type_name.as_deref().and_then(|t| {
        engine.state.views.iter().find_map(|v| match v {
            ViewPlan::Item(p) if p.type_name == t => {
                p.not_found_ordinal.and_then(|o| engine.record(o))
            }
            _ => None,
        })
    });
    if let Some(rec) = tool_record.or(view_record) {
        return recorded_not_found(rec, &plan.tool, id);
    }
    Refusal::NotFound {
        tool: plan.tool.clone(),
        id: id.to_string(),
    }
    .answer()
}

/// rea failed to build the answer a plan promises.
fn internal(plan: &WritePlan, message: &str) -> Answer {
    Refusal::Internal {
        tool: Some(plan.tool.clone()),
        message: message.to_string(),
    }
    .answer()
}

#[cfg(test)]
mod tests {
    use super::id_kind_problem;
    use crate::state::Entity;
    use crate::World;
    use serde_json::{json, Value};

    fn recorded(ordinal: u64, body: &str) -> crate::records::Record {
        crate::records::Record::from_entry(
            ordinal,
            &json!({
                "request": {"method": "GET", "url": "http://app.test/v1/items/a"},
                "response": {
                    "status": 200,
                    "headers": [{"name": "ETag", "value": "\"1\""}, {"name": "Set-Cookie", "value": "s=1"}],
                    "content": {"mimeType": "application/json", "text": body},
                },
            }),
        )
    }

    /// An answer with a value at a pointer, from the parsed-once recording,
    /// is the recording's answer with the value set there; without a JSON
    /// value at the pointer the value comes back.
    #[test]
    fn recorded_answers_put_a_value_where_the_recording_had_one() {
        let answers = super::RecordedAnswers::default();
        let rec = recorded(7, r#"{"meta": {"n": 1}, "data": {"id": "a", "x": 1}}"#);
        for round in 0..2 {
            let value = json!({"id": "b", "y": round});
            let got = answers
                .with_value(&rec, "get_item", "/data", value.clone())
                .unwrap();
            let mut expected = crate::render::answer_from_record(&rec, "get_item");
            assert!(crate::render::set_pointer(
                match &mut expected.body {
                    crate::AnswerBody::Json(v) => v,
                    _ => unreachable!(),
                },
                "/data",
                value,
            ));
            assert_eq!(got, expected);
        }
        let other_tool = answers.with_value(&rec, "other", "", json!(1)).unwrap();
        assert_eq!(other_tool.tool.as_deref(), Some("other"));
        assert_eq!(other_tool.body, crate::AnswerBody::Json(json!(1)));
        assert_eq!(
            answers.with_value(&rec, "get_item", "/missing/x", json!(2)),
            Err(json!(2))
        );
        let text = recorded(8, "not json");
        assert_eq!(answers.with_value(&text, "t", "", json!(3)), Err(json!(3)));
    }

    fn world_of(ids: &[Value]) -> World {
        let mut world = World::default();
        for (i, id) in ids.iter().enumerate() {
            let collection = if i % 2 == 0 { "/a/items" } else { "/b/items" };
            world.insert(
                Entity {
                    type_name: "items".into(),
                    collection: collection.into(),
                    id: id.clone(),
                    fields: Default::default(),
                    view_fields: Default::default(),
                    record_ordinals: Vec::new(),
                },
                None,
            );
        }
        world
    }

    #[test]
    fn a_created_id_must_be_of_the_kind_every_held_id_is() {
        let strings = world_of(&[json!("a"), json!("b"), json!("c")]);
        assert_eq!(id_kind_problem(&json!("d"), &strings, "items"), None);
        assert!(id_kind_problem(&json!(4), &strings, "items").is_some());
        let numbers = world_of(&[json!(1), json!(2)]);
        assert_eq!(id_kind_problem(&json!(3), &numbers, "items"), None);
        assert!(id_kind_problem(&json!("3"), &numbers, "items").is_some());
        // Held ids of both kinds, none held, or ids neither string nor number.
        let mixed = world_of(&[json!(1), json!("b")]);
        assert!(id_kind_problem(&json!(true), &mixed, "items").is_some());
        assert_eq!(id_kind_problem(&json!("c"), &mixed, "items"), None);
        assert_eq!(id_kind_problem(&json!(3), &mixed, "items"), None);
        assert_eq!(id_kind_problem(&json!(3), &World::default(), "items"), None);
        let others = world_of(&[json!(null)]);
        assert!(id_kind_problem(&json!("x"), &others, "items").is_some());
    }
}
