//! One render plan per read tool: item, list, document or recorded (with its
//! reason). Item and list plans are kept only when the engine, rendering
//! from the initial state, reproduces the latest initial recording of each
//! of the tool's request lines.

use crate::budget::Budget;
use crate::engine::normalize_path;
use crate::engine::{AnswerBody, Call, Engine, World};
use crate::error::DeriveError;
use crate::state::derive::kept_charge;
use crate::state::derive::Ctx;
use crate::state::identity::list_at;
use crate::state::model::{Membership, Replays};
use crate::state::usable::BODY_LIMIT;
use crate::state::writes::replay_gen::RecordedGenerator;
use crate::state::{
    Document, DocumentPlan, EntityType, ItemPlan, ListLine, ListPlan, RecordedPlan, State, ViewPlan,
};
use indexmap::IndexMap;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// How a read tool is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ToolKind {
    /// A `GET` whose template ends in a parameter.
    Item,
    /// Any other `GET`.
    List,
    /// A query `POST` (`search`, `query`, …).
    QueryPost,
    /// A `HEAD`, `OPTIONS` or other non-mutating, non-`GET` method.
    OtherMethod,
}

/// One initial, usable response of a read tool.
#[derive(Debug, Clone)]
pub(crate) struct Obs {
    pub(crate) ordinal: u64,
    pub(crate) pos: usize,
    pub(crate) line: String,
    pub(crate) path: String,
    pub(crate) collection: String,
    /// The last path segment, percent-decoded (an item's requested identity).
    pub(crate) requested: String,
    pub(crate) value: Value,
}

/// A read tool with its initial responses.
#[derive(Debug, Clone)]
pub(crate) struct ReadTool {
    pub(crate) index: usize,
    pub(crate) kind: ToolKind,
    pub(crate) collection_template: String,
    /// Every recording of the tool, in timeline order.
    pub(crate) ordinals: Vec<u64>,
    pub(crate) initial: Vec<Obs>,
    /// Some initial response failed the usable-body test.
    pub(crate) unusable: bool,
}

/// Query parameters that only page through a list.
pub(crate) const PAGING_PARAMETERS: &[&str] = &[
    "limit",
    "offset",
    "page",
    "per_page",
    "perpage",
    "page_size",
    "pagesize",
    "size",
    "start",
    "_start",
    "_end",
];

/// Envelope members that give a list's item total.
pub(crate) const ITEM_TOTAL_MEMBERS: &[&str] = &[
    "total",
    "count",
    "totalCount",
    "item_count",
    "totalcount",
    "itemcount",
];

fn recorded(tool: &str, reason: Replays, r: &ReadTool) -> ViewPlan {
    ViewPlan::Recorded(RecordedPlan {
        tool: tool.to_string(),
        reason,
        record_ordinals: r.ordinals.clone(),
    })
}

/// The latest initial response of each request line, in first-line order.
fn latest_per_line(initial: &[Obs]) -> Vec<&Obs> {
    let mut by_line: IndexMap<&str, &Obs> = IndexMap::new();
    for o in initial {
        match by_line.get(o.line.as_str()) {
            Some(prev) if prev.pos > o.pos => {}
            _ => {
                by_line.insert(o.line.as_str(), o);
            }
        }
    }
    by_line.into_values().collect()
}

fn query_names(line: &str) -> Vec<String> {
    let Some((_, q)) = line.split_once('?') else {
        return Vec::new();
    };
    q.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| crate::engine::percent_decode(p.split('=').next().unwrap_or("")))
        .collect()
}

fn is_digit_string(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => n.as_u64(),
        Value::String(s) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => {
            s.parse().ok()
        }
        _ => None,
    }
}

/// True when an envelope marks more pages: `has_more`/`hasMore` true, or a
/// `next…` member (`next`, `next_page_token`, `nextCursor`, …) set.
fn marks_next_page(envelope: &Value) -> bool {
    let Some(obj) = envelope.as_object() else {
        return false;
    };
    obj.iter().any(|(k, v)| {
        let key: String = k
            .chars()
            .filter(|c| *c != '_')
            .collect::<String>()
            .to_ascii_lowercase();
        let set = !matches!(v, Value::Null | Value::Bool(false)) && v.as_str() != Some("");
        set && (key == "hasmore" || key.starts_with("next"))
    })
}

/// Plans every read tool's view, fills `documents`, and checks item and
/// list plans by rendering them.
pub(crate) fn plan_views(
    ctx: &Ctx<'_>,
    reads: &[ReadTool],
    item_pointers: &HashMap<usize, String>,
    list_pointers: &HashMap<usize, String>,
    state: &mut State,
    budget: &mut Budget,
) -> Result<(), DeriveError> {
    let mut views = Vec::with_capacity(reads.len());
    let mut documents = Vec::new();
    let world = World::from_state(state);
    let not_found_of = |tools: &[usize]| -> Option<u64> {
        tools.iter().find_map(|&i| {
            let mut ords: Vec<u64> = ctx.manifest.tools[i].record_ordinals.clone();
            ords.sort_by_key(|o| ctx.pos(*o).unwrap_or(usize::MAX));
            ords.into_iter().find(|o| {
                ctx.record(*o)
                    .is_some_and(|r| matches!(r.status, Some(404 | 410)))
            })
        })
    };
    for r in reads {
        let tool = &ctx.manifest.tools[r.index];
        let name = tool.name.as_str();
        let ty = state
            .types
            .iter()
            .find(|t| t.collection_template == r.collection_template);
        let plan = match r.kind {
            ToolKind::QueryPost => recorded(name, Replays::QueryBody, r),
            ToolKind::OtherMethod => recorded(name, Replays::BodyUnusable, r),
            _ if r.unusable => recorded(name, Replays::BodyUnusable, r),
            _ if r.initial.is_empty() => recorded(name, Replays::NoInitRecording, r),
            ToolKind::Item => match (ty, item_pointers.get(&r.index)) {
                (
                    Some(EntityType {
                        recorded_reason: Some(reason),
                        ..
                    }),
                    Some(_),
                ) => recorded(name, *reason, r),
                (Some(t), Some(pointer)) => {
                    let lines = latest_per_line(&r.initial);
                    let envelope = |o: &Obs| {
                        let mut v = o.value.clone();
                        if let Some(slot) = v.pointer_mut(pointer) {
                            *slot = Value::Null;
                        }
                        v
                    };
                    let base = lines
                        .iter()
                        .max_by_key(|o| o.pos)
                        .copied()
                        .unwrap_or(&r.initial[0]);
                    let base_envelope = envelope(base);
                    if r.initial.iter().any(|o| envelope(o) != base_envelope) {
                        recorded(name, Replays::EnvelopeVaries, r)
                    } else {
                        let mut fields: Vec<String> = Vec::new();
                        let objects: Vec<&Map<String, Value>> = r
                            .initial
                            .iter()
                            .filter_map(|o| o.value.pointer(pointer).and_then(Value::as_object))
                            .collect();
                        for k in base
                            .value
                            .pointer(pointer)
                            .and_then(Value::as_object)
                            .into_iter()
                            .flat_map(|m| m.keys())
                        {
                            fields.push(k.clone());
                        }
                        for o in &objects {
                            for k in o.keys() {
                                if !fields.contains(k) {
                                    fields.push(k.clone());
                                }
                            }
                        }
                        let required_fields = fields
                            .iter()
                            .filter(|f| objects.iter().all(|o| o.contains_key(*f)))
                            .cloned()
                            .collect();
                        let same_type: Vec<usize> = std::iter::once(r.index)
                            .chain(
                                reads
                                    .iter()
                                    .filter(|x| {
                                        x.kind == ToolKind::Item
                                            && x.collection_template == t.collection_template
                                            && x.index != r.index
                                    })
                                    .map(|x| x.index),
                            )
                            .collect();
                        ViewPlan::Item(ItemPlan {
                            tool: name.to_string(),
                            type_name: t.name.clone(),
                            pointer: pointer.clone(),
                            fields,
                            required_fields,
                            envelope_ordinal: base.ordinal,
                            not_found_ordinal: not_found_of(&same_type),
                            checked_record_ordinals: sorted(lines.iter().map(|o| o.ordinal)),
                        })
                    }
                }
                _ => recorded(name, Replays::NoIdentity, r),
            },
            ToolKind::List => match (ty, list_pointers.get(&r.index)) {
                (
                    Some(EntityType {
                        recorded_reason: Some(reason),
                        ..
                    }),
                    Some(_),
                ) => recorded(name, *reason, r),
                (Some(t), Some(pointer)) => {
                    let lines = latest_per_line(&r.initial);
                    let mut fields: Vec<String> = Vec::new();
                    for o in lines
                        .iter()
                        .rev()
                        .chain(r.initial.iter().collect::<Vec<_>>().iter())
                    {
                        for item in list_at(&o.value, pointer).unwrap_or_default() {
                            for k in item.keys() {
                                if !fields.contains(k) {
                                    fields.push(k.clone());
                                }
                            }
                        }
                    }
                    let counters: Vec<String> = if pointer.is_empty() {
                        Vec::new()
                    } else {
                        let first = &r.initial[0].value;
                        first
                            .as_object()
                            .into_iter()
                            .flat_map(|m| m.keys())
                            .filter(|k| {
                                r.initial.iter().all(|o| {
                                    let n = list_at(&o.value, pointer).map(|l| l.len() as u64);
                                    o.value.get(k.as_str()).and_then(is_digit_string).is_some()
                                        && o.value.get(k.as_str()).and_then(is_digit_string) == n
                                })
                            })
                            .map(|k| format!("/{}", crate::state::identity::escape(k)))
                            .collect()
                    };
                    let mut list_lines = Vec::new();
                    for o in &lines {
                        let listed: Vec<Value> = list_at(&o.value, pointer)
                            .unwrap_or_default()
                            .iter()
                            .filter_map(|i| i.get(&t.id_field).cloned())
                            .collect();
                        let held: Vec<&Value> = world
                            .list(&t.name, &o.collection)
                            .iter()
                            .map(|e| &e.id)
                            .collect();
                        let exact = held.len() == listed.len()
                            && held
                                .iter()
                                .zip(&listed)
                                .all(|(a, b)| crate::engine::same_id(a, b));
                        let paging_only = query_names(&o.line)
                            .iter()
                            .all(|n| PAGING_PARAMETERS.contains(&n.as_str()));
                        let total_differs = o.value.as_object().is_some_and(|m| {
                            ITEM_TOTAL_MEMBERS.iter().any(|k| {
                                m.get(*k)
                                    .and_then(is_digit_string)
                                    .is_some_and(|n| n != listed.len() as u64)
                            })
                        });
                        let all =
                            exact && paging_only && !total_differs && !marks_next_page(&o.value);
                        list_lines.push(ListLine {
                            line: o.line.clone(),
                            base_ordinal: o.ordinal,
                            collection: o.collection.clone(),
                            membership: if all {
                                Membership::All
                            } else {
                                Membership::Recorded
                            },
                            listed,
                        });
                    }
                    let membership = if list_lines.iter().all(|l| l.membership == Membership::All) {
                        Membership::All
                    } else {
                        Membership::Recorded
                    };
                    ViewPlan::List(ListPlan {
                        tool: name.to_string(),
                        type_name: t.name.clone(),
                        pointer: pointer.clone(),
                        fields,
                        membership,
                        counters,
                        lines: list_lines,
                        not_found_ordinal: not_found_of(&[r.index]),
                        checked_record_ordinals: sorted(lines.iter().map(|o| o.ordinal)),
                    })
                }
                _ => {
                    let paths: Vec<String> =
                        dedup(r.initial.iter().map(|o| normalize_path(&o.path)));
                    let lines: Vec<String> = dedup(r.initial.iter().map(|o| o.line.clone()));
                    if paths.len() > 1 {
                        recorded(name, Replays::PathVaries, r)
                    } else if lines.len() > 1 {
                        recorded(name, Replays::QueryVaries, r)
                    } else if r
                        .initial
                        .windows(2)
                        .any(|w| w[0].value != w[1].value && ctx.writes_between(w[0].pos, w[1].pos))
                    {
                        recorded(name, Replays::FieldsDiffer, r)
                    } else {
                        let latest = r
                            .initial
                            .iter()
                            .max_by_key(|o| o.pos)
                            .unwrap_or(&r.initial[0]);
                        let rendered = serde_json::to_string(&latest.value)
                            .map(|s| s.len())
                            .unwrap_or(usize::MAX);
                        if rendered > BODY_LIMIT {
                            recorded(name, Replays::RenderedOversize, r)
                        } else {
                            budget.charge(kept_charge(&latest.value))?;
                            documents.push(Document {
                                path: latest.line.clone(),
                                tool: name.to_string(),
                                value: latest.value.clone(),
                                record_ordinals: sorted(r.initial.iter().map(|o| o.ordinal)),
                            });
                            ViewPlan::Document(DocumentPlan {
                                tool: name.to_string(),
                                path: latest.line.clone(),
                                base_ordinal: latest.ordinal,
                                checked_record_ordinals: vec![latest.ordinal],
                            })
                        }
                    }
                }
            },
        };
        views.push(plan);
    }
    documents.sort_by(|a, b| a.path.cmp(&b.path));
    state.views = views;
    state.documents = documents;
    check_plans(ctx, reads, state)
}

fn sorted(it: impl Iterator<Item = u64>) -> Vec<u64> {
    let mut v: Vec<u64> = it.collect();
    v.sort_unstable();
    v.dedup();
    v
}

fn dedup(it: impl Iterator<Item = String>) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for s in it {
        if !v.contains(&s) {
            v.push(s);
        }
    }
    v
}

/// Renders each item and list plan's request lines with the engine from the
/// initial World and compares them with the latest initial recordings; a
/// plan that does not reproduce them becomes recorded.
fn check_plans(ctx: &Ctx<'_>, reads: &[ReadTool], state: &mut State) -> Result<(), DeriveError> {
    let mut needed: Vec<u64> = Vec::new();
    for v in &state.views {
        match v {
            ViewPlan::Item(p) => {
                needed.push(p.envelope_ordinal);
                needed.extend(p.not_found_ordinal);
            }
            ViewPlan::List(p) => needed.extend(p.lines.iter().map(|l| l.base_ordinal)),
            ViewPlan::Document(p) => needed.push(p.base_ordinal),
            ViewPlan::Recorded(_) => {}
        }
    }
    let records = needed
        .iter()
        .filter_map(|o| ctx.record(*o).map(|r| (*o, r.clone())))
        .collect();
    let engine = Engine::from_records(records, ctx.manifest.clone(), state.clone())
        .map_err(|e| DeriveError::invalid_request("", e.message))?;
    let mut world = engine.initial_world();
    let mut failed: Vec<(usize, Replays)> = Vec::new();
    for (vi, view) in state.views.iter().enumerate() {
        let Some(r) = reads
            .iter()
            .find(|r| ctx.manifest.tools[r.index].name == view.tool())
        else {
            continue;
        };
        let tool = &ctx.manifest.tools[r.index];
        let volatile: Vec<String> = state
            .types
            .iter()
            .find(|t| t.collection_template == r.collection_template)
            .map(|t| t.volatile_fields.clone())
            .unwrap_or_default();
        let (pointer, is_list, reason) = match view {
            ViewPlan::Item(p) => (p.pointer.clone(), false, Replays::FieldsDiffer),
            ViewPlan::List(p) => (p.pointer.clone(), true, Replays::ListDiffers),
            _ => continue,
        };
        for o in latest_per_line(&r.initial) {
            let (path, query) = match o.line.split_once('?') {
                Some((p, q)) => (p.to_string(), Some(q.to_string())),
                None => (o.line.clone(), None),
            };
            let call = Call {
                method: tool.method.clone(),
                path,
                query,
                headers: Vec::new(),
                body: None,
            };
            // The candidate view answers through the engine's own dispatch.
            let Some(routed) = engine.resolve_for_check(&tool.name, call) else {
                failed.push((vi, reason));
                break;
            };
            let answer = engine.dispatch(&mut world, routed, &mut RecordedGenerator::default());
            let AnswerBody::Json(mut rendered) = answer.body else {
                failed.push((vi, reason));
                break;
            };
            let mut recorded_value = o.value.clone();
            strip_volatile(&mut rendered, &pointer, is_list, &volatile);
            strip_volatile(&mut recorded_value, &pointer, is_list, &volatile);
            if rendered != recorded_value
                || answer.status != ctx.record(o.ordinal).and_then(|r| r.status).unwrap_or(0)
            {
                failed.push((vi, reason));
                break;
            }
        }
    }
    for (vi, reason) in failed {
        let tool = state.views[vi].tool().to_string();
        let ordinals = reads
            .iter()
            .find(|r| ctx.manifest.tools[r.index].name == tool)
            .map(|r| r.ordinals.clone())
            .unwrap_or_default();
        state.views[vi] = ViewPlan::Recorded(RecordedPlan {
            tool,
            reason,
            record_ordinals: ordinals,
        });
    }
    Ok(())
}

fn strip_volatile(value: &mut Value, pointer: &str, is_list: bool, volatile: &[String]) {
    if volatile.is_empty() {
        return;
    }
    let Some(target) = value.pointer_mut(pointer) else {
        return;
    };
    let strip = |v: &mut Value| {
        if let Value::Object(m) = v {
            for f in volatile {
                m.shift_remove(f);
            }
        }
    };
    if is_list {
        if let Value::Array(items) = target {
            items.iter_mut().for_each(strip);
        }
    } else {
        strip(target);
    }
}
