//! Serve-time generalizations beyond the recorded request lines (see
//! docs/serving.md, "Beyond the recording"): sibling collections answer
//! item reads and writes the recording only showed for a sibling type, and
//! not-found answers take the recorded not-found shape of the type's family.

use crate::codec::{normalize_path, path_segments, percent_decode};
use crate::dispatch::Routed;
use crate::manifest::Tool;
use crate::refusal::Refusal;
use crate::render::{
    answer_from_record, parent_collection, recorded_not_found, render_entity, set_pointer,
};
use crate::route::Segment;
use crate::state::{Effect, EntityType, ItemPlan, PlanStatus, Rule, ViewPlan, WritePlan};
use crate::{apply, Answer, AnswerBody, Applied, Call, Engine, Generator, Params, World};
use serde_json::Value;

/// The entity type, collection path and identity of an item path
/// (`<collection of a type>/<id>`).
#[derive(Debug, Clone, PartialEq)]
pub struct ItemTarget<'e> {
    pub entity: &'e EntityType,
    pub collection: String,
    pub id: String,
}

/// The item target of a path: the first type whose (compiled) collection
/// template matches the path minus its last segment.
pub(crate) fn item_target<'e>(engine: &'e Engine, path: &str) -> Option<ItemTarget<'e>> {
    let segs = path_segments(path);
    let (last, parent) = segs.split_last()?;
    let i = engine
        .type_templates
        .iter()
        .position(|template| crate::route::fits(template, parent))?;
    Some(ItemTarget {
        entity: &engine.state.types[i],
        collection: parent_collection(path),
        id: percent_decode(last),
    })
}

/// True when the routed `tool` answers this line for type `t` by itself:
/// an item view or served write of `t`, any unserved write plan (it
/// answers its reason), a document at this very path, or a recording of
/// this very line.
pub(crate) fn covered(engine: &Engine, call: &Call, tool: &Tool, t: &EntityType) -> bool {
    if let Some(plan) = engine.write_of(&tool.name) {
        // A plan the replay check did not confirm answers its own reason:
        // a sibling's plan never overrides that evidence.
        return plan.status != PlanStatus::Served
            || plan.type_name.as_deref() == Some(t.name.as_str());
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

/// Step 2 of dispatch: a not-found answer rea made up itself, for an item
/// path of a type, takes the family's recorded not-found shape.
pub(crate) fn not_found_in_family(engine: &Engine, routed: &Routed<'_>, answer: Answer) -> Answer {
    let Some(target) = &routed.item else {
        return answer;
    };
    if answer.status == 404
        && matches!(
            answer.error_code.as_deref(),
            Some("not_found" | "not_recorded")
        )
        && answer.applied != Applied::Yes
    {
        if let Some(found) =
            family_not_found(engine, target.entity, &target.id, answer.tool.as_deref())
        {
            return found;
        }
    }
    answer
}

/// The types whose collection template differs from `t`'s in exactly one
/// literal segment (same length, same parent), in state order.
pub(crate) fn family<'e>(engine: &'e Engine, t: &EntityType) -> Vec<&'e EntityType> {
    let Some(own) = engine.type_index(&t.name) else {
        return Vec::new();
    };
    engine.families[own]
        .iter()
        .map(|&i| &engine.state.types[i])
        .collect()
}

/// The family of every type (by index): the types whose collection
/// template differs in exactly one literal segment. Computed at start-up.
pub(crate) fn families(templates: &[Vec<Segment>]) -> Vec<Vec<usize>> {
    templates
        .iter()
        .enumerate()
        .map(|(i, own)| {
            templates
                .iter()
                .enumerate()
                .filter(|&(j, other)| {
                    j != i
                        && other.len() == own.len()
                        && other
                            .iter()
                            .zip(own)
                            .filter(|(a, b)| a != b)
                            .map(|pair| matches!(pair, (Segment::Literal(_), Segment::Literal(_))))
                            .collect::<Vec<_>>()
                            == [true]
                })
                .map(|(j, _)| j)
                .collect()
        })
        .collect()
}

/// True when a tool's template is `<type's collection template>/{param}`.
fn item_tool_of(engine: &Engine, tool: &str, s: &EntityType) -> bool {
    let (Some(tool), Some(t)) = (engine.tool_index(tool), engine.type_index(&s.name)) else {
        return false;
    };
    let segs = engine.router.segments(tool);
    let own = &engine.type_templates[t];
    segs.len() == own.len() + 1
        && segs[..own.len()] == own[..]
        && matches!(segs.last(), Some(Segment::Param(_)))
}

/// The item view plan of the first family sibling that has one.
pub(crate) fn sibling_view<'e>(engine: &'e Engine, t: &EntityType) -> Option<&'e ItemPlan> {
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
pub(crate) fn sibling_write<'e>(
    engine: &'e Engine,
    t: &EntityType,
    method: &str,
) -> Option<&'e WritePlan> {
    family(engine, t).into_iter().find_map(|s| {
        engine.state.writes.iter().find(|w| {
            w.status == PlanStatus::Served
                && w.method.eq_ignore_ascii_case(method)
                && matches!(w.effect, Effect::Update | Effect::Delete)
                && w.type_name.as_deref() == Some(s.name.as_str())
                && item_tool_of(engine, &w.tool, s)
        })
    })
}

/// A family sibling's item view renders an entity of `target`'s type.
pub(crate) fn sibling_read(
    engine: &Engine,
    world: &World,
    plan: &ItemPlan,
    target: &ItemTarget<'_>,
) -> Answer {
    let t = target.entity;
    let Some(entity) = world.entity(&t.name, &target.collection, &target.id) else {
        return family_not_found(engine, t, &target.id, Some(&plan.tool)).unwrap_or_else(|| {
            Refusal::NotFound {
                tool: plan.tool.clone(),
                id: target.id.clone(),
            }
            .answer()
        });
    };
    let internal = |message: &str| {
        Refusal::Internal {
            tool: Some(plan.tool.clone()),
            message: message.to_string(),
        }
        .answer()
    };
    let Some(base) = engine.record(plan.envelope_ordinal) else {
        return internal("the sibling item view's envelope recording is missing");
    };
    let mut answer = answer_from_record(base, &plan.tool);
    let AnswerBody::Json(mut envelope) = answer.body.clone() else {
        return internal("the sibling item view's envelope is not JSON");
    };
    let rendered = render_entity(entity, &t.fields, &t.fields, &plan.tool);
    if !set_pointer(&mut envelope, &plan.pointer, rendered) {
        return internal("the sibling item view's envelope has no entity at its pointer");
    }
    answer.body = AnswerBody::Json(envelope);
    answer.rendered = Some(base.ordinal);
    answer
}

/// A family sibling's served update/delete plan, adapted to `target`'s
/// type (its field rules for fields the type has, its required members
/// read as that type's: `sibling_required`), applies to an entity of that
/// type. The plan means what it means on its own route: the same
/// `apply_write` runs, refusing the same bodies (a replace that lacks a
/// member is refused here as there) and storing members as the call's
/// patch meaning says.
pub(crate) fn sibling_write_answer(
    engine: &Engine,
    world: &mut World,
    routed: &Routed<'_>,
    plan: &WritePlan,
    target: &ItemTarget<'_>,
    gen: &mut dyn Generator,
) -> Answer {
    let t = target.entity;
    let sibling_fields = engine
        .entity_type(plan.type_name.as_deref().unwrap_or(""))
        .map(|s| s.fields.clone())
        .unwrap_or_default();
    let required = sibling_required(engine, plan, &sibling_fields, t);
    let adapted = WritePlan {
        type_name: Some(t.name.clone()),
        required_members: required,
        body_fixed: Vec::new(),
        field_rules: plan
            .field_rules
            .iter()
            .filter(|r| {
                !sibling_fields.contains(&r.field)
                    || t.fields.contains(&r.field)
                        && matches!(
                            r.rule,
                            Rule::Clock { .. }
                                | Rule::Entity
                                | Rule::Observed { .. }
                                | Rule::Increment { .. }
                        )
            })
            .cloned()
            .collect(),
        ..plan.clone()
    };
    let mut params = Params::new();
    params.insert("id".to_string(), target.id.clone());
    apply::apply_write_with(
        engine,
        &adapted,
        world,
        &routed.call,
        &params,
        gen,
        routed.patch,
    )
}

/// The members a sibling's plan requires, read for type `t`. A plan that
/// requires every member it stores as sent (a replace: the whole entity
/// the body carries) requires `t`'s whole entity: the members a create of
/// `t` requires, else `t`'s fields but its identity and those the plan
/// generates. Any other plan requires its required members that `t` has.
fn sibling_required(
    engine: &Engine,
    plan: &WritePlan,
    sibling_fields: &[String],
    t: &EntityType,
) -> Vec<String> {
    let echoed: Vec<&str> = plan
        .field_rules
        .iter()
        .filter_map(|r| match &r.rule {
            Rule::Echo { member } => Some(member.as_str()),
            _ => None,
        })
        .collect();
    let replaces = !plan.required_members.is_empty()
        && echoed
            .iter()
            .all(|m| plan.required_members.iter().any(|r| r == m))
        && plan
            .required_members
            .iter()
            .all(|r| sibling_fields.contains(r));
    if !replaces {
        return plan
            .required_members
            .iter()
            .filter(|m| t.fields.contains(m))
            .cloned()
            .collect();
    }
    let created = engine.state.writes.iter().find(|w| {
        w.effect == Effect::Create
            && w.type_name.as_deref() == Some(t.name.as_str())
            && !w.required_members.is_empty()
    });
    if let Some(create) = created {
        return create.required_members.clone();
    }
    let generated = |f: &String| {
        plan.field_rules
            .iter()
            .any(|r| &r.field == f && !matches!(r.rule, Rule::Echo { .. }))
    };
    t.fields
        .iter()
        .filter(|f| **f != t.id_field && !generated(f))
        .cloned()
        .collect()
}

/// The recorded not-found answer of the type or its family (an item
/// view's not-found recording, else any 404/410 recording of an item path
/// of the family), every string equal to the recorded identity replaced by
/// `id`.
pub(crate) fn family_not_found(
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
            let template = engine
                .type_index(&s.name)
                .map(|i| engine.type_templates[i].as_slice())
                .unwrap_or(&[]);
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
                                .is_some_and(|(_, parent)| crate::route::fits(template, parent))
                        })
                })
        })
    })?;
    let mut answer = recorded_not_found(rec, tool.unwrap_or(""), id);
    answer.tool = tool.map(str::to_string);
    Some(answer)
}

/// The documents the capture also recorded as entities: a document whose
/// path is an item path of a type whose initial entities hold that
/// identity, with the entity's object at the top of the document's value
/// or one member down.
pub(crate) fn entity_documents(
    engine: &Engine,
) -> std::collections::HashMap<String, crate::DocumentEntity> {
    let mut out = std::collections::HashMap::new();
    for doc in &engine.state.documents {
        if doc.path.contains('?') {
            continue;
        }
        let Some(target) = item_target(engine, &doc.path) else {
            continue;
        };
        let t = target.entity;
        let held = engine.state.entities.iter().any(|e| {
            e.type_name == t.name
                && e.collection == target.collection
                && crate::world::id_matches(&e.id, &target.id)
        });
        if !held {
            continue;
        }
        let holds = |v: &Value| {
            v.as_object().is_some_and(|m| {
                m.get(&t.id_field)
                    .is_some_and(|id| crate::world::id_matches(id, &target.id))
            })
        };
        let pointer = if holds(&doc.value) {
            Some(String::new())
        } else {
            doc.value.as_object().and_then(|m| {
                m.iter()
                    .find(|(_, v)| holds(v))
                    .map(|(k, _)| format!("/{}", crate::codec::pointer_token(k)))
            })
        };
        let Some(pointer) = pointer else { continue };
        let fields = crate::codec::at_pointer(&doc.value, &pointer)
            .and_then(Value::as_object)
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        out.insert(
            doc.path.clone(),
            crate::DocumentEntity {
                type_name: t.name.clone(),
                collection: target.collection,
                id: target.id,
                pointer,
                fields,
            },
        );
    }
    out
}
