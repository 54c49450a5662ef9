//! Verb analogies between a parent resource and its dependents (RPC): what
//! one verb (`delete`) does to a dependent, lent across the pair when the
//! recording shows it on one side only. Two directions:
//! - `dependents`: a dependent's own verb changed a text member (a run's
//!   `delete` set `/info/lifecycle_stage` to `deleted`, as the next read of
//!   the run showed), and the parent's write of the same verb left the
//!   parent's member of the same name at that value (the experiment read
//!   after `experiments/delete` is `deleted`): the parent's verb is lent the
//!   change on its dependents (those whose member named like the parent's
//!   key holds it). A dependent read after the parent's verb that does not
//!   show it contradicts the analogy.
//! - `own`: a confirmed cascade of a parent's verb on its dependents, and a
//!   dependent verb of the same name the recording never showed changing the
//!   dependent: that verb is lent the same change on the entity itself.
//!
//! The recording never confirms the lent change itself, so every answer
//! that applies one is a convention.

use super::cascades::Cascade;
use super::exchange::{scalar_text, sorted, token, Exchange};
use super::resources::Resource;
use super::routes::Templates;
use super::snapshots::{entity_at, target_of, Snapshots, Target};
use super::writes::{clock_like, WriteSemantics};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// One lent change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analogy {
    /// `dependents` or `own`.
    pub direction: String,
    /// The write that gets the change (method and route) and its resource.
    pub resource: String,
    pub collection: String,
    pub method: String,
    pub route: String,
    /// The resource whose entities change, and (`dependents`) the member
    /// holding the parent's key.
    pub changes: String,
    pub reference: Option<String>,
    pub pointer: String,
    pub value: Value,
    /// The recorded changes it is lent from.
    pub supported_by: Vec<u64>,
    pub contradicted_by: Vec<u64>,
}

/// A change of an entity's member: (pointer, value, write ordinal, read ordinal).
type Change = (String, Value, u64, u64);
/// An entity as a read after a write showed it, and the read's ordinal.
type Shown = (Map<String, Value>, u64);

fn verb(route: &str) -> &str {
    route.rsplit('/').next().unwrap_or("")
}

/// Text members that changed from one text to another (clocks left out).
fn changed(a: &Value, b: &Value, at: String, out: &mut Vec<(String, Value)>, depth: usize) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) if depth < 3 => {
            for (k, v) in y.iter().filter(|(k, _)| !clock_like(k)) {
                if let Some(u) = x.get(k) {
                    changed(u, v, format!("{at}/{}", token(k)), out, depth + 1);
                }
            }
        }
        (Value::String(u), Value::String(v)) if u != v => out.push((at, b.clone())),
        _ => {}
    }
}

/// The pointer (depth ≤ 2) of a member named `name`.
fn named(e: &Map<String, Value>, name: &str) -> Option<String> {
    if e.contains_key(name) {
        return Some(format!("/{}", token(name)));
    }
    e.iter().find_map(|(k, v)| {
        v.as_object()
            .filter(|o| o.contains_key(name))
            .map(|_| format!("/{}/{}", token(k), token(name)))
    })
}

/// The entity a 2xx answer shows for `t`'s entity (item answers, or the
/// list item holding its key).
fn shown(x: &Exchange, t: &Target, r: &Resource, id: &str) -> Option<Map<String, Value>> {
    let answer = x.answer.as_ref()?;
    if matches!(t.role.as_str(), "list" | "query") {
        let (_, items) = super::exchange::list_of(answer)?;
        let ptr = &r.keys.first()?.entity_member;
        return items
            .iter()
            .find(|i| i.pointer(ptr).and_then(scalar_text).as_deref() == Some(id))
            .and_then(|i| i.as_object().cloned());
    }
    entity_at(answer, r)
}

/// Infers the analogies over the writes (and their confirmed cascades).
pub(crate) fn infer(
    exchanges: &[Exchange],
    resources: &[Resource],
    templates: &Templates,
    writes: &[WriteSemantics],
) -> Vec<Analogy> {
    let rpc = |i: usize| resources[i].addressing == "rpc";
    let targets: Vec<Option<Target>> = exchanges
        .iter()
        .map(|x| target_of(x, resources, templates))
        .collect();
    // Observed: (resource, verb) → changes of its own entity / members shown after.
    let mut own: BTreeMap<(usize, String), Vec<Change>> = BTreeMap::new();
    let mut after: BTreeMap<(usize, String), Vec<Shown>> = BTreeMap::new();
    let mut snaps = Snapshots::default();
    for (i, x) in exchanges.iter().enumerate() {
        let Some(t) = &targets[i] else { continue };
        if x.is_2xx() && !x.is_read() && t.role == "action" && rpc(t.resource) {
            if let Some(id) = &t.id {
                let r = &resources[t.resource];
                let prior = snaps.get(t).map(|(m, _)| m.clone());
                // The next exchange showing this entity, with no other
                // write to it in between.
                for (j, n) in exchanges.iter().enumerate().skip(i + 1) {
                    let Some(nt) = &targets[j] else { continue };
                    if nt.resource != t.resource {
                        continue;
                    }
                    if !n.is_read() && nt.role != "query" && nt.id.as_ref() == Some(id) {
                        break;
                    }
                    if !n.is_2xx() || (!n.is_read() && nt.role != "query") {
                        continue;
                    }
                    if nt.id.as_ref().is_some_and(|o| o != id) {
                        continue;
                    }
                    let Some(e) = shown(n, nt, r, id) else {
                        continue;
                    };
                    let v = verb(&t.route).to_string();
                    if let Some(p) = &prior {
                        let mut out = Vec::new();
                        changed(
                            &Value::Object(p.clone()),
                            &Value::Object(e.clone()),
                            String::new(),
                            &mut out,
                            0,
                        );
                        for (ptr, val) in out {
                            own.entry((t.resource, v.clone()))
                                .or_default()
                                .push((ptr, val, x.ordinal, n.ordinal));
                        }
                    }
                    after
                        .entry((t.resource, v))
                        .or_default()
                        .push((e, n.ordinal));
                    break;
                }
            }
        }
        if let Some(r) = resources.get(t.resource) {
            snaps.learn(x, t, r);
        }
    }
    let mut out = Vec::new();
    // `dependents`: a dependent's own verb change, lent to the parent's verb.
    for ((di, v), seen) in &own {
        for pw in writes
            .iter()
            .filter(|w| w.role == "action" && verb(&w.route) == v)
        {
            let Some(pi) = resources
                .iter()
                .position(|r| r.name == pw.resource && r.collection == pw.collection)
            else {
                continue;
            };
            if pi == *di || !pw.cascades.is_empty() {
                continue;
            }
            let Some(pkey) = resources[pi].keys.iter().find(|k| k.location == "body") else {
                continue;
            };
            let reference = snaps
                .of_resource(*di)
                .find_map(|(_, (e, _))| named(e, &pkey.name));
            let Some(reference) = reference else { continue };
            for (ptr, val, w_ord, r_ord) in seen {
                let leaf = ptr.rsplit('/').next().unwrap_or("");
                // The parent shows its member of that name at the value after its verb.
                let parent_after: Vec<u64> = after
                    .get(&(pi, v.clone()))
                    .into_iter()
                    .flatten()
                    .filter(|(e, _)| {
                        named(e, leaf)
                            .and_then(|p| Value::Object(e.clone()).pointer(&p).cloned())
                            .as_ref()
                            == Some(val)
                    })
                    .map(|(_, o)| *o)
                    .collect();
                if parent_after.is_empty()
                    || out
                        .iter()
                        .any(|a: &Analogy| a.route == pw.route && a.pointer == *ptr)
                {
                    continue;
                }
                let contradicted = contradictions(
                    exchanges, &targets, resources, pw, *di, &reference, ptr, val,
                );
                let mut support = vec![*w_ord, *r_ord];
                support.extend(pw.supported_by.iter().copied());
                support.extend(parent_after);
                out.push(Analogy {
                    direction: "dependents".into(),
                    resource: pw.resource.clone(),
                    collection: pw.collection.clone(),
                    method: pw.method.clone(),
                    route: pw.route.clone(),
                    changes: resources[*di].name.clone(),
                    reference: Some(reference.clone()),
                    pointer: ptr.clone(),
                    value: val.clone(),
                    supported_by: sorted(support),
                    contradicted_by: sorted(contradicted),
                });
            }
        }
    }
    // `own`: a parent's confirmed cascade, lent to the dependent's verb.
    for pw in writes.iter().filter(|w| w.role == "action") {
        let v = verb(&pw.route);
        for c in pw
            .cascades
            .iter()
            .filter(|c: &&Cascade| c.contradicted_by.is_empty())
        {
            let Some(di) = resources
                .iter()
                .position(|r| r.name == c.resource && r.collection == c.collection)
            else {
                continue;
            };
            if !rpc(di) || own.contains_key(&(di, v.to_string())) {
                continue;
            }
            let route = format!("{}/{v}", resources[di].collection);
            out.push(Analogy {
                direction: "own".into(),
                resource: c.resource.clone(),
                collection: c.collection.clone(),
                method: pw.method.clone(),
                route,
                changes: c.resource.clone(),
                reference: None,
                pointer: c.pointer.clone(),
                value: c.value.clone(),
                supported_by: c.supported_by.clone(),
                contradicted_by: Vec::new(),
            });
        }
    }
    out
}

/// Dependent reads after the parent's write (before the parent's next
/// write) whose reference holds the parent's key and whose member is not
/// the value.
#[allow(clippy::too_many_arguments)]
fn contradictions(
    exchanges: &[Exchange],
    targets: &[Option<Target>],
    resources: &[Resource],
    pw: &WriteSemantics,
    di: usize,
    reference: &str,
    ptr: &str,
    val: &Value,
) -> Vec<u64> {
    let mut out = Vec::new();
    for (i, x) in exchanges.iter().enumerate() {
        if x.method != pw.method || !x.is_2xx() || !pw.supported_by.contains(&x.ordinal) {
            continue;
        }
        let Some(pid) = targets[i].as_ref().and_then(|t| t.id.clone()) else {
            continue;
        };
        for (j, n) in exchanges.iter().enumerate().skip(i + 1) {
            let Some(nt) = &targets[j] else { continue };
            if !n.is_read() && nt.id.as_deref() == Some(pid.as_str()) {
                break;
            }
            if nt.resource != di || !n.is_read() || !n.is_2xx() {
                continue;
            }
            let Some(e) = n.answer.as_ref().and_then(|a| entity_at(a, &resources[di])) else {
                continue;
            };
            let e = Value::Object(e);
            if e.pointer(reference).and_then(scalar_text).as_deref() == Some(pid.as_str())
                && e.pointer(ptr) != Some(val)
            {
                out.push(n.ordinal);
            }
        }
    }
    out
}
