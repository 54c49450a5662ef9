//! Keyed arrays: an array of objects inside an entity (a run's metrics, a
//! model's aliases, an experiment's tags) that holds one item per value of
//! one item member, its key. A write that sends an item whose key the array
//! already holds (or sends that key twice) replaces the item instead of
//! adding one. Candidates are the members every recorded item has, whose
//! values are distinct within every recorded array; a candidate is
//! **confirmed** when a read after such a write shows one item for the key,
//! the last one sent, and contradicted when it shows several. When no write
//! confirms one, the first uncontradicted candidate (in item order) is kept
//! as a convention.

use super::exchange::{list_of, scalar_text, sorted, token, Exchange};
use super::resources::Resource;
use super::routes::Templates;
use super::snapshots::{entity_ref, target_of, EntityKey};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// One array of objects in a resource's entities.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeyedArray {
    pub resource: String,
    pub collection: String,
    /// The array's pointer in the entity.
    pub pointer: String,
    /// The members every recorded item has, in item order.
    pub item_members: Vec<String>,
    /// Members only some items have.
    pub optional_members: Vec<String>,
    /// The member naming an item (arrays with none are not listed).
    pub key: Option<String>,
    /// `confirmed` (a read after a repeated key showed one item) or
    /// `convention` (only distinct within every recorded array).
    pub basis: String,
    /// Writes sending a repeated key and the reads showing one item for it.
    pub supported_by: Vec<u64>,
    /// The answers whose arrays were read.
    pub checked_against: Vec<u64>,
    /// Reads showing several items for one key, or an array repeating one.
    pub contradicted_by: Vec<u64>,
}

#[derive(Default)]
struct Acc {
    /// Item member sets, in first-seen order of members.
    order: Vec<String>,
    every: Option<BTreeSet<String>>,
    any: BTreeSet<String>,
    checked: Vec<u64>,
    /// Some recorded array held two items or more.
    several: bool,
    /// Per candidate: supporting and contradicting ordinals.
    support: BTreeMap<String, Vec<u64>>,
    against: BTreeMap<String, Vec<u64>>,
}

/// The arrays of objects (depth ≤ 3) of an entity, by pointer.
pub(crate) fn arrays(e: &Map<String, Value>) -> Vec<(String, Vec<&Map<String, Value>>)> {
    let mut out = Vec::new();
    let mut stack: Vec<(String, &Map<String, Value>, usize)> = vec![(String::new(), e, 0)];
    while let Some((at, m, depth)) = stack.pop() {
        for (k, v) in m {
            let p = format!("{at}/{}", token(k));
            match v {
                Value::Object(o) if depth < 2 => stack.push((p, o, depth + 1)),
                Value::Array(items) if !items.is_empty() => {
                    let objs: Vec<&Map<String, Value>> =
                        items.iter().filter_map(Value::as_object).collect();
                    if objs.len() == items.len() {
                        out.push((p, objs));
                    }
                }
                _ => {}
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The entities an answer shows for its target's role.
pub(crate) fn entities<'a>(
    x: &'a Exchange,
    role: &str,
    r: &Resource,
) -> Vec<&'a Map<String, Value>> {
    let Some(answer) = &x.answer else {
        return Vec::new();
    };
    match role {
        "list" | "query" => list_of(answer)
            .map(|(_, items)| items.iter().filter_map(Value::as_object).collect())
            .unwrap_or_default(),
        "read" | "create" => entity_ref(answer, r).into_iter().collect(),
        _ => Vec::new(),
    }
}

/// The items a write body sends to the array at `pointer` (leaf `leaf`):
/// the body's array of that name, else the body without the resource's
/// keys when it has an item's members.
fn sent_items(
    body: &Map<String, Value>,
    leaf: &str,
    every: &BTreeSet<String>,
    any: &BTreeSet<String>,
    keys: &[&str],
) -> Vec<Map<String, Value>> {
    if let Some(Value::Array(items)) = body.get(leaf) {
        return items
            .iter()
            .filter_map(|i| i.as_object().cloned())
            .collect();
    }
    let rest: Map<String, Value> = body
        .iter()
        .filter(|(k, _)| !keys.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let names: BTreeSet<String> = rest.keys().cloned().collect();
    if !rest.is_empty() && every.is_subset(&names) && names.is_subset(any) {
        vec![rest]
    } else {
        Vec::new()
    }
}

/// One entity's array: (entity, pointer).
type Slot = (EntityKey, String);
/// An item a write sent: (write ordinal, item).
type Sent = (u64, Map<String, Value>);

fn value_of(item: &Map<String, Value>, k: &str) -> Option<String> {
    item.get(k).and_then(scalar_text)
}

/// Infers the keyed arrays of every resource.
pub(crate) fn infer(
    exchanges: &[Exchange],
    resources: &[Resource],
    templates: &Templates,
) -> Vec<KeyedArray> {
    let targets: Vec<_> = exchanges
        .iter()
        .map(|x| target_of(x, resources, templates))
        .collect();
    let mut accs: BTreeMap<(usize, String), Acc> = BTreeMap::new();
    // Pass 1: the arrays every 2xx answer shows.
    for (x, t) in exchanges.iter().zip(&targets) {
        let Some(t) = t else { continue };
        if !x.is_2xx() {
            continue;
        }
        for e in entities(x, &t.role, &resources[t.resource]) {
            for (p, items) in arrays(e) {
                let acc = accs.entry((t.resource, p)).or_default();
                acc.checked.push(x.ordinal);
                for item in &items {
                    let names: BTreeSet<String> = item.keys().cloned().collect();
                    for k in item.keys() {
                        if !acc.order.contains(k) {
                            acc.order.push(k.clone());
                        }
                    }
                    acc.any.extend(names.iter().cloned());
                    acc.every = Some(match acc.every.take() {
                        Some(e) => e.intersection(&names).cloned().collect(),
                        None => names,
                    });
                }
                acc.several |= items.len() > 1;
                // A candidate repeated within one array, or not a text or
                // number on every item, is contradicted.
                for k in acc.order.clone() {
                    let values: Vec<String> =
                        items.iter().filter_map(|i| value_of(i, &k)).collect();
                    let distinct: BTreeSet<&String> = values.iter().collect();
                    if distinct.len() < values.len() || values.len() < items.len() {
                        acc.against.entry(k).or_default().push(x.ordinal);
                    }
                }
            }
        }
    }
    // Pass 2: writes sending a key the array held (or twice), then a read.
    let mut last: BTreeMap<Slot, Vec<&Map<String, Value>>> = BTreeMap::new();
    let mut pending: BTreeMap<Slot, Vec<Sent>> = BTreeMap::new();
    for (x, t) in exchanges.iter().zip(&targets) {
        let Some(t) = t else { continue };
        let Some(id) = &t.id else { continue };
        if !x.is_2xx() {
            continue;
        }
        let r = &resources[t.resource];
        let ekey: EntityKey = (t.resource, t.scope.clone(), id.clone());
        let keys: Vec<&str> = r.keys.iter().map(|k| k.name.as_str()).collect();
        if !x.is_read() && matches!(t.role.as_str(), "action" | "update") {
            let Some(body) = x.body.as_ref().and_then(Value::as_object) else {
                continue;
            };
            for ((ri, p), acc) in accs.iter().filter(|((ri, _), _)| *ri == t.resource) {
                let leaf = p.rsplit('/').next().unwrap_or("");
                let every = acc.every.clone().unwrap_or_default();
                for item in sent_items(body, leaf, &every, &acc.any, &keys) {
                    pending
                        .entry(((*ri, ekey.1.clone(), ekey.2.clone()), p.clone()))
                        .or_default()
                        .push((x.ordinal, item));
                }
            }
            continue;
        }
        for e in entities(x, &t.role, r) {
            let shown: BTreeMap<String, Vec<&Map<String, Value>>> = arrays(e).into_iter().collect();
            for ((_, p), acc) in accs.iter_mut().filter(|((ri, _), _)| *ri == t.resource) {
                let slot = (ekey.clone(), p.clone());
                let items = shown.get(p).cloned().unwrap_or_default();
                if let Some(sent) = pending.remove(&slot) {
                    let prior = last.get(&slot).cloned().unwrap_or_default();
                    for k in acc.order.clone() {
                        let mut values: Vec<String> =
                            sent.iter().filter_map(|(_, i)| value_of(i, &k)).collect();
                        values.sort();
                        values.dedup();
                        for v in values {
                            let of_v: Vec<&Sent> = sent
                                .iter()
                                .filter(|(_, i)| value_of(i, &k).as_deref() == Some(v.as_str()))
                                .collect();
                            let held = prior
                                .iter()
                                .any(|i| value_of(i, &k).as_deref() == Some(v.as_str()));
                            if of_v.len() < 2 && !held {
                                continue;
                            }
                            let now: Vec<&Map<String, Value>> = items
                                .iter()
                                .copied()
                                .filter(|i| value_of(i, &k).as_deref() == Some(v.as_str()))
                                .collect();
                            let Some((ord, last_sent)) = of_v.last() else {
                                continue;
                            };
                            let shows_last = now.len() == 1
                                && last_sent.iter().all(|(m, sv)| now[0].get(m) == Some(sv));
                            if shows_last {
                                let s = acc.support.entry(k.clone()).or_default();
                                s.push(*ord);
                                s.push(x.ordinal);
                            } else if now.len() > 1 {
                                acc.against.entry(k.clone()).or_default().push(x.ordinal);
                            }
                        }
                    }
                }
                last.insert(slot, items);
            }
        }
    }
    let mut out = Vec::new();
    for ((ri, pointer), acc) in accs {
        let r = &resources[ri];
        let every = acc.every.clone().unwrap_or_default();
        let item_members: Vec<String> = acc
            .order
            .iter()
            .filter(|m| every.contains(*m))
            .cloned()
            .collect();
        let optional_members: Vec<String> = acc
            .order
            .iter()
            .filter(|m| !every.contains(*m))
            .cloned()
            .collect();
        let open = |k: &&String| !acc.against.contains_key(*k);
        let confirmed = item_members
            .iter()
            .filter(open)
            .find(|k| acc.support.contains_key(*k));
        // Distinct values say something only where an array held several.
        let (key, basis) = match confirmed {
            Some(k) => (Some(k.clone()), "confirmed"),
            None if acc.several => (item_members.iter().find(open).cloned(), "convention"),
            None => (None, "convention"),
        };
        if key.is_none() {
            continue;
        }
        let supported_by = key
            .as_ref()
            .and_then(|k| acc.support.get(k))
            .cloned()
            .unwrap_or_default();
        let contradicted_by: Vec<u64> = acc.against.values().flatten().copied().collect();
        out.push(KeyedArray {
            resource: r.name.clone(),
            collection: r.collection.clone(),
            pointer,
            item_members,
            optional_members,
            key,
            basis: basis.into(),
            supported_by: sorted(supported_by),
            checked_against: sorted(acc.checked),
            contradicted_by: sorted(contradicted_by),
        });
    }
    out
}

/// True when every item `sent` to an array landed in `items` once its
/// repeats are folded by some item member: the last item sent for each
/// value of that member is there, and some value was sent twice (a write
/// that sent one metric four times shows its last value only).
pub(crate) fn lands(sent: &[Value], items: &[Value]) -> bool {
    let Some(first) = sent.first().and_then(Value::as_object) else {
        return false;
    };
    first.keys().any(|k| {
        let mut by_value: BTreeMap<String, &Value> = BTreeMap::new();
        let mut repeated = false;
        for s in sent {
            let Some(v) = s.get(k).and_then(scalar_text) else {
                return false;
            };
            repeated |= by_value.insert(v, s).is_some();
        }
        repeated && by_value.values().all(|s| items.contains(s))
    })
}

/// Puts `item` in the array at `pointer` of `target`: it replaces the item
/// with the same `key` value when there is one (then true), else it is
/// appended.
pub(crate) fn upsert(
    target: &mut Value,
    pointer: &str,
    item: &Map<String, Value>,
    key: Option<&str>,
) -> bool {
    if target.pointer(pointer).is_none() {
        let mut cur = &mut *target;
        for t in pointer.split('/').skip(1) {
            let t = t.replace("~1", "/").replace("~0", "~");
            if !cur.is_object() {
                *cur = Value::Object(Map::new());
            }
            let Value::Object(m) = cur else { return false };
            cur = m.entry(t).or_insert(Value::Null);
        }
        *cur = Value::Array(Vec::new());
    }
    let Some(Value::Array(items)) = target.pointer_mut(pointer) else {
        return false;
    };
    let same = key.and_then(|k| {
        let v = item.get(k)?;
        items.iter().position(|i| i.get(k) == Some(v))
    });
    match same.and_then(|p| items.get_mut(p)) {
        Some(Value::Object(old)) => {
            for (k, v) in item {
                old.insert(k.clone(), v.clone());
            }
            true
        }
        _ => {
            items.push(Value::Object(item.clone()));
            false
        }
    }
}
