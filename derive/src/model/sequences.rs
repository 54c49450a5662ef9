//! Id sequences: which collections draw their new integer ids from one
//! server counter, and where that counter stood when the recording began.
//! The counter is hidden state the recording reveals: the first recorded
//! create of a collection says where it stood (`starts_after` = that id − 1).
//! A sibling collection (same parent) shares it when its own first create
//! continues the counter (`continues-sibling-create`: a tag created after a
//! category takes the category's id + 1), or when a create's id is one past
//! the highest id a sibling held, not its own (`sibling-max`: the first
//! post after pages up to 26 is 27). Later creates of a group check the
//! counter (id = counter + 1); those that skip ids are listed as
//! `contradicted_by` and the counter only moves forward. An update that
//! draws an id (`revisions`: a revision the answer shows nested) moves the
//! counter too and supports it when it is the counter + 1; one drawn
//! just before a group's first create says the counter stood before it.

use super::exchange::{scalar_text, Exchange};
use super::resources::Resource;
use super::routes::{kind_of, Templates};
use super::snapshots::{entity_at, target_of, Snapshots};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One inferred id sequence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sequence {
    /// The collections (resource collection templates) that share it.
    pub collections: Vec<String>,
    /// The counter when the recording began: the next id is one more.
    pub starts_after: u64,
    /// How each collection after the first joined (`first-create`,
    /// `continues-sibling-create`, `sibling-max`), with its records.
    pub members: Vec<SequenceMember>,
    /// Creates whose id was the counter + 1.
    pub supported_by: Vec<u64>,
    /// Creates whose id skipped ahead of the counter.
    pub contradicted_by: Vec<u64>,
}

/// One collection of a sequence and why it is there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SequenceMember {
    pub collection: String,
    pub basis: String,
    pub supported_by: Vec<u64>,
}

struct Group {
    resources: Vec<usize>,
    start: u64,
    counter: u64,
    members: Vec<SequenceMember>,
    supported_by: Vec<u64>,
    contradicted_by: Vec<u64>,
}

fn parent(collection: &str) -> &str {
    collection.rsplit_once('/').map(|(p, _)| p).unwrap_or("")
}

fn key_pointer(r: &Resource) -> String {
    r.keys
        .first()
        .map(|k| k.entity_member.clone())
        .unwrap_or_else(|| "/id".into())
}

/// The highest integer id the snapshots hold for a resource.
fn max_held(snapshots: &Snapshots, resource: usize) -> Option<u64> {
    snapshots
        .of_resource(resource)
        .filter(|(id, _)| kind_of(id) == "integer")
        .filter_map(|(id, _)| id.parse::<u64>().ok())
        .max()
}

/// The sequences the recording's creates show, in order of first create.
pub(crate) fn infer(
    exchanges: &[Exchange],
    resources: &[Resource],
    templates: &Templates,
) -> Vec<Sequence> {
    let mut groups: Vec<Group> = Vec::new();
    let mut group_of: BTreeMap<usize, usize> = BTreeMap::new();
    let mut snapshots = Snapshots::default();
    // Ids updates drew before their collection's group began: (resource, id, record).
    let mut pending: Vec<(usize, u64, u64)> = Vec::new();
    for x in exchanges {
        let Some(t) = target_of(x, resources, templates) else {
            continue;
        };
        let r = &resources[t.resource];
        let created = (x.is_2xx() && t.role == "create")
            .then(|| x.answer.as_ref().and_then(|a| entity_at(a, r)))
            .flatten()
            .and_then(|e| {
                serde_json::Value::Object(e)
                    .pointer(&key_pointer(r))
                    .and_then(scalar_text)
            })
            .filter(|id| kind_of(id) == "integer")
            .and_then(|id| id.parse::<u64>().ok())
            .filter(|id| *id > 0);
        // An update that drew an id (a revision) moves the counter too.
        let drew = (x.is_2xx() && t.role == "update" && r.addressing == "path")
            .then(|| x.answer.as_ref().and_then(|a| entity_at(a, r)))
            .flatten()
            .and_then(|a| super::revisions::drawn(snapshots.get(&t).map(|s| &s.0), &a))
            .map(|(_, id, _)| id);
        if let Some(id) = drew {
            match group_of.get(&t.resource) {
                Some(&g) if id == groups[g].counter + 1 => {
                    groups[g].supported_by.push(x.ordinal);
                    groups[g].counter = id;
                }
                Some(_) => {}
                None => pending.push((t.resource, id, x.ordinal)),
            }
        }
        if let Some(id) = created {
            match group_of.get(&t.resource) {
                Some(&g) => {
                    let group = &mut groups[g];
                    if id == group.counter + 1 {
                        group.supported_by.push(x.ordinal);
                    } else {
                        group.contradicted_by.push(x.ordinal);
                    }
                    group.counter = group.counter.max(id);
                }
                None => {
                    let siblings = |g: &Group| {
                        g.resources
                            .iter()
                            .any(|&o| parent(&resources[o].collection) == parent(&r.collection))
                    };
                    let name = r.collection.clone();
                    if let Some(g) = groups
                        .iter()
                        .position(|g| g.counter + 1 == id && siblings(g))
                    {
                        let group = &mut groups[g];
                        group.resources.push(t.resource);
                        group.members.push(SequenceMember {
                            collection: name,
                            basis: "continues-sibling-create".into(),
                            supported_by: vec![x.ordinal],
                        });
                        group.supported_by.push(x.ordinal);
                        group.counter = id;
                        group_of.insert(t.resource, g);
                    } else {
                        let g = groups.len();
                        let mut group = Group {
                            resources: vec![t.resource],
                            start: id - 1,
                            counter: id,
                            members: vec![SequenceMember {
                                collection: name,
                                basis: "first-create".into(),
                                supported_by: vec![x.ordinal],
                            }],
                            supported_by: vec![x.ordinal],
                            contradicted_by: Vec::new(),
                        };
                        group_of.insert(t.resource, g);
                        // One past a sibling's highest id, not its own.
                        if max_held(&snapshots, t.resource).is_none_or(|m| m + 1 != id) {
                            for (oi, other) in resources.iter().enumerate() {
                                if oi == t.resource
                                    || group_of.contains_key(&oi)
                                    || other.addressing != r.addressing
                                    || parent(&other.collection) != parent(&r.collection)
                                {
                                    continue;
                                }
                                if max_held(&snapshots, oi) == Some(id - 1) {
                                    group.resources.push(oi);
                                    group.members.push(SequenceMember {
                                        collection: other.collection.clone(),
                                        basis: "sibling-max".into(),
                                        supported_by: vec![x.ordinal],
                                    });
                                    group_of.insert(oi, g);
                                }
                            }
                        }
                        // Ids updates of the group drew just before (the
                        // counter stood before them).
                        let mut drawn_before = Vec::new();
                        for &(ri, drawn, ordinal) in pending.iter().rev() {
                            if drawn == group.start && group.resources.contains(&ri) {
                                group.start -= 1;
                                drawn_before.push(ordinal);
                            }
                        }
                        drawn_before.reverse();
                        drawn_before.append(&mut group.supported_by);
                        group.supported_by = drawn_before;
                        groups.push(group);
                    }
                }
            }
        }
        snapshots.learn(x, &t, r);
    }
    groups
        .into_iter()
        .map(|g| Sequence {
            collections: g
                .resources
                .iter()
                .map(|&i| resources[i].collection.clone())
                .collect(),
            starts_after: g.start,
            members: g.members,
            supported_by: g.supported_by,
            contradicted_by: g.contradicted_by,
        })
        .collect()
}
