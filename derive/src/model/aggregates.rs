//! Aggregate members: an array inside a parent entity that holds copies of
//! the entities of another resource, its dependents, that reference the
//! parent by its key (a registered model's `latest_versions`, copies of its
//! model versions). The copies are recognised by structure: every item has
//! the dependent's key members and only members the dependent's answers or
//! the copies show, and its reference member holds the parent's key in
//! every recorded array. Which dependents the array holds is inferred only
//! when the recording tells: a numbered dependent key (`version`) whose
//! highest copy stands above the number of copies shows that not every
//! dependent is there (`latest-per`), and then the copies are one per value
//! of the dependent's state member — the member its create fills with a
//! default and an action of its own sets (`current_stage`) — the highest
//! numbered of each. Two copies with one state value in one array
//! contradict it. Served: after a dependent is created or changed through
//! the model, its parent's array is recomputed with its new copy.

use super::exchange::{scalar_text, sorted, Exchange};
use super::keyed::{arrays, entities, KeyedArray};
use super::resources::Resource;
use super::routes::Templates;
use super::snapshots::target_of;
use super::writes::WriteSemantics;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// One aggregate member of a parent resource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Aggregate {
    /// The parent resource and the array's pointer in its entity.
    pub resource: String,
    pub collection: String,
    pub pointer: String,
    /// The dependent resource whose entities the items copy.
    pub dependent: String,
    pub dependent_collection: String,
    /// The item member holding the parent's key, and the parent's member.
    pub reference: String,
    pub parent_key: String,
    /// `latest-per`: one copy per value of `per`, the highest `order`.
    pub rule: String,
    pub per: String,
    pub order: String,
    /// The answers whose arrays showed the copies (and the gap).
    pub supported_by: Vec<u64>,
    pub checked_against: Vec<u64>,
    pub contradicted_by: Vec<u64>,
}

fn leaf(pointer: &str) -> &str {
    pointer.trim_start_matches('/')
}

/// Infers the aggregate members among the keyed arrays.
pub(crate) fn infer(
    exchanges: &[Exchange],
    resources: &[Resource],
    templates: &Templates,
    writes: &[WriteSemantics],
    keyed: &[KeyedArray],
) -> Vec<Aggregate> {
    let targets: Vec<_> = exchanges
        .iter()
        .map(|x| target_of(x, resources, templates))
        .collect();
    let mut out = Vec::new();
    for a in keyed {
        let Some(pi) = resources
            .iter()
            .position(|r| r.name == a.resource && r.collection == a.collection)
        else {
            continue;
        };
        let parent = &resources[pi];
        let every: BTreeSet<&str> = a.item_members.iter().map(String::as_str).collect();
        let any: BTreeSet<&str> = every
            .iter()
            .copied()
            .chain(a.optional_members.iter().map(String::as_str))
            .collect();
        for (di, dep) in resources.iter().enumerate() {
            if di == pi || dep.addressing != parent.addressing {
                continue;
            }
            // Top-level keys of the dependent, every one on every item.
            let dkeys: Vec<&str> = dep
                .keys
                .iter()
                .map(|k| k.entity_member.as_str())
                .filter(|m| m.matches('/').count() == 1)
                .map(leaf)
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            if dkeys.len() < 2 || !dkeys.iter().all(|k| every.contains(k)) {
                continue;
            }
            // The dependent's own answers show only members the copies have.
            let mut shown: BTreeSet<String> = BTreeSet::new();
            for (x, t) in exchanges.iter().zip(&targets) {
                if let Some(t) = t.as_ref().filter(|t| t.resource == di && x.is_2xx()) {
                    for e in entities(x, &t.role, dep) {
                        shown.extend(e.keys().cloned());
                    }
                }
            }
            if shown.is_empty() || !shown.iter().all(|m| any.contains(m.as_str())) {
                continue;
            }
            let Some(pkey) = parent
                .keys
                .iter()
                .map(|k| k.entity_member.clone())
                .find(|m| m.matches('/').count() == 1)
            else {
                continue;
            };
            // The state member: filled with a default on create, set by an action.
            let per = writes
                .iter()
                .filter(|w| w.resource == dep.name && w.collection == dep.collection)
                .flat_map(|w| w.server_filled.iter())
                .filter(|f| f.kind == "default")
                .map(|f| f.member.clone())
                .find(|m| {
                    writes.iter().any(|w| {
                        w.resource == dep.name
                            && w.role == "action"
                            && w.effects
                                .iter()
                                .any(|e| e.how == "sets" && e.pointer == format!("/{m}"))
                    })
                });
            let Some(per) = per else { continue };
            let mut refs: Option<BTreeSet<&str>> = None;
            let mut order: Option<BTreeSet<&str>> = None;
            let (mut support, mut checked, mut against) = (Vec::new(), Vec::new(), Vec::new());
            for (x, t) in exchanges.iter().zip(&targets) {
                let Some(t) = t.as_ref().filter(|t| t.resource == pi && x.is_2xx()) else {
                    continue;
                };
                for e in entities(x, &t.role, parent) {
                    let Some(pk) = rea_engine::codec::member_at(e, &pkey).and_then(scalar_text)
                    else {
                        continue;
                    };
                    let Some((_, items)) = arrays(e).into_iter().find(|(p, _)| *p == a.pointer)
                    else {
                        continue;
                    };
                    checked.push(x.ordinal);
                    // Keys holding the parent's key on every item.
                    let holding: BTreeSet<&str> = dkeys
                        .iter()
                        .copied()
                        .filter(|k| {
                            items
                                .iter()
                                .all(|i| i.get(*k).and_then(scalar_text).as_deref() == Some(&pk))
                        })
                        .collect();
                    refs = Some(match refs.take() {
                        Some(r) => r.intersection(&holding).copied().collect(),
                        None => holding,
                    });
                    let numbered: BTreeSet<&str> = dkeys
                        .iter()
                        .copied()
                        .filter(|k| items.iter().all(|i| number(i, k).is_some()))
                        .collect();
                    order = Some(match order.take() {
                        Some(o) => o.intersection(&numbered).copied().collect(),
                        None => numbered,
                    });
                    let states: Vec<Option<&Value>> = items.iter().map(|i| i.get(&per)).collect();
                    let distinct: BTreeSet<String> =
                        states.iter().map(|s| format!("{s:?}")).collect();
                    if distinct.len() < states.len() {
                        against.push(x.ordinal);
                    }
                    // A gap: the highest number above the count of copies.
                    for k in &dkeys {
                        let max = items.iter().filter_map(|i| number(i, k)).max();
                        if max.is_some_and(|m| m > items.len() as u64) {
                            support.push(x.ordinal);
                        }
                    }
                }
            }
            let refs = refs.unwrap_or_default();
            let order = order.unwrap_or_default();
            let (Some(reference), Some(order)) = (
                refs.iter().next().copied(),
                order.iter().find(|o| !refs.contains(*o)).copied(),
            ) else {
                continue;
            };
            if support.is_empty() {
                continue;
            }
            out.push(Aggregate {
                resource: parent.name.clone(),
                collection: parent.collection.clone(),
                pointer: a.pointer.clone(),
                dependent: dep.name.clone(),
                dependent_collection: dep.collection.clone(),
                reference: format!("/{reference}"),
                parent_key: pkey.clone(),
                rule: "latest-per".into(),
                per: format!("/{per}"),
                order: format!("/{order}"),
                supported_by: sorted(support),
                checked_against: sorted(checked),
                contradicted_by: sorted(against),
            });
        }
    }
    out
}

fn number(item: &Map<String, Value>, k: &str) -> Option<u64> {
    item.get(k).and_then(scalar_text)?.parse().ok()
}

impl Aggregate {
    /// The array's items over every dependent of one parent (`pool`): the
    /// highest numbered of each state, in number order.
    pub(crate) fn latest(&self, pool: &[&Map<String, Value>]) -> Vec<Value> {
        let num = |e: &Map<String, Value>| number(e, leaf(&self.order));
        let mut kept: Vec<&Map<String, Value>> = Vec::new();
        for e in pool.iter().copied().filter(|e| num(e).is_some()) {
            let state = e.get(leaf(&self.per));
            match kept.iter().position(|k| k.get(leaf(&self.per)) == state) {
                Some(p) if num(kept[p]) < num(e) => kept[p] = e,
                Some(_) => {}
                None => kept.push(e),
            }
        }
        kept.sort_by_key(|e| num(e));
        kept.into_iter().map(|e| Value::Object(e.clone())).collect()
    }
}
