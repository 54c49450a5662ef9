//! Cascades: a write to a parent entity that changes its dependents, the
//! entities of another resource with a member holding the parent's key (a
//! run's `experiment_id`), as a later read of a dependent shows. The change
//! is laid on the parent write when that write is the nearest one, before
//! the read and after the dependent was last seen, that names the dependent
//! (its own key) or its parent (the referenced key); a read of a dependent
//! after such a write that does not show the change contradicts it.

use super::exchange::{scalar_text, sorted, token, Exchange};
use super::resources::Resource;
use super::routes::Templates;
use super::snapshots::{target_of, EntityKey, Snapshots, Target};
use super::writes::{clock_like, WriteSemantics};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// One change a parent write makes to its dependents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cascade {
    /// The dependent resource and its collection.
    pub resource: String,
    pub collection: String,
    /// The pointer in the dependent entity holding the parent's key.
    pub reference: String,
    /// The pointer that changed, and its new value (`sets`).
    pub pointer: String,
    pub how: String,
    pub value: Value,
    /// Parent writes and the dependent reads showing the change.
    pub supported_by: Vec<u64>,
    /// Dependent reads after such a write that did not show it.
    pub contradicted_by: Vec<u64>,
}

/// (write resource, route, method) → (dependent resource, reference) →
/// sightings: (write ordinal, read ordinal, changed (pointer, value)).
type Sightings = BTreeMap<(usize, String, String), BTreeMap<(usize, String), Vec<Sighting>>>;

struct Sighting {
    write: u64,
    read: u64,
    changed: Vec<(String, Value)>,
}

/// Lays the cascades the recording shows on the writes they follow.
pub(crate) fn infer(
    exchanges: &[Exchange],
    resources: &[Resource],
    templates: &Templates,
    writes: &mut [WriteSemantics],
) {
    let targets: Vec<Option<Target>> = exchanges
        .iter()
        .map(|x| target_of(x, resources, templates))
        .collect();
    let key_of =
        |t: &Target| -> Option<EntityKey> { Some((t.resource, t.scope.clone(), t.id.clone()?)) };
    // Index of each 2xx write, with its target.
    let is_write = |i: usize| {
        let x = &exchanges[i];
        x.is_2xx()
            && !x.is_read()
            && targets[i]
                .as_ref()
                .is_some_and(|t| t.role != "query" && t.id.is_some())
    };
    let mut snaps = Snapshots::default();
    let mut seen_at: BTreeMap<EntityKey, usize> = BTreeMap::new();
    let mut sightings: Sightings = BTreeMap::new();
    for (i, x) in exchanges.iter().enumerate() {
        let Some(t) = &targets[i] else { continue };
        let r = &resources[t.resource];
        if x.is_read() && x.is_2xx() && t.id.is_some() {
            if let (Some(key), Some((prior, _))) = (key_of(t), snaps.get(t)) {
                let after = x
                    .answer
                    .as_ref()
                    .and_then(|a| super::snapshots::entity_at(a, r));
                if let (Some(after), Some(&from)) = (after, seen_at.get(&key)) {
                    let own: Vec<String> = r.keys.iter().map(|k| k.entity_member.clone()).collect();
                    observe(
                        exchanges,
                        &targets,
                        &is_write,
                        (&key, &own),
                        prior,
                        &after,
                        from,
                        i,
                        &mut sightings,
                    );
                }
            }
        }
        snaps.learn(x, t, r);
        if x.is_2xx() {
            if let Some(key) = key_of(t) {
                seen_at.insert(key, i);
            }
        }
    }
    for ((wr, route, method), by_dependent) in sightings {
        let Some(w) = writes
            .iter_mut()
            .find(|w| w.resource == resources[wr].name && w.route == route && w.method == method)
        else {
            continue;
        };
        for ((dr, reference), seen) in by_dependent {
            let mut changes: BTreeMap<(String, String), (Value, Vec<u64>)> = BTreeMap::new();
            for s in &seen {
                for (p, v) in &s.changed {
                    let e = changes
                        .entry((p.clone(), v.to_string()))
                        .or_insert_with(|| (v.clone(), Vec::new()));
                    e.1.push(s.write);
                    e.1.push(s.read);
                }
            }
            for ((pointer, _), (value, supported)) in changes {
                let contradicted: Vec<u64> = seen
                    .iter()
                    .filter(|s| !s.changed.iter().any(|(p, v)| *p == pointer && *v == value))
                    .map(|s| s.read)
                    .collect();
                w.cascades.push(Cascade {
                    resource: resources[dr].name.clone(),
                    collection: resources[dr].collection.clone(),
                    reference: reference.clone(),
                    pointer,
                    how: "sets".into(),
                    value,
                    supported_by: sorted(supported),
                    contradicted_by: sorted(contradicted),
                });
            }
        }
    }
}

/// One read of a dependent: the nearest write since it was last seen that
/// names it or a parent it references; a parent's write gets the sighting.
#[allow(clippy::too_many_arguments)]
fn observe(
    exchanges: &[Exchange],
    targets: &[Option<Target>],
    is_write: &dyn Fn(usize) -> bool,
    (key, own): (&EntityKey, &[String]),
    prior: &Map<String, Value>,
    after: &Map<String, Value>,
    from: usize,
    read: usize,
    sightings: &mut Sightings,
) {
    let now = Value::Object(after.clone());
    for j in (from + 1..read).rev() {
        if !is_write(j) {
            continue;
        }
        let Some(t) = &targets[j] else { continue };
        let Some(id) = &t.id else { continue };
        if t.resource == key.0 && t.scope == key.1 && *id == key.2 {
            // The dependent's own write explains what changed.
            return;
        }
        if t.resource == key.0 {
            continue;
        }
        let Some(reference) = pointer_of_text(&now, id, String::new(), 0)
            .filter(|p| !own.contains(p) && p.as_str() != "/id")
        else {
            continue;
        };
        let before = Value::Object(prior.clone());
        let mut changed = Vec::new();
        marks(&before, &now, String::new(), &mut changed, 0);
        sightings
            .entry((t.resource, t.route.clone(), exchanges[j].method.clone()))
            .or_default()
            .entry((key.0, reference))
            .or_default()
            .push(Sighting {
                write: exchanges[j].ordinal,
                read: exchanges[read].ordinal,
                changed,
            });
        return;
    }
}

/// Text members that changed from one text to another (states such as
/// `active` → `deleted`), clocks left out.
fn marks(a: &Value, b: &Value, at: String, out: &mut Vec<(String, Value)>, depth: usize) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) if depth < 4 => {
            for (k, v) in y {
                if clock_like(k) {
                    continue;
                }
                if let Some(u) = x.get(k) {
                    marks(u, v, format!("{at}/{}", token(k)), out, depth + 1);
                }
            }
        }
        (Value::String(u), Value::String(v)) if u != v => out.push((at, b.clone())),
        _ => {}
    }
}

/// The pointer of the first scalar whose text is `id` (not the entity's
/// own nested arrays).
fn pointer_of_text(v: &Value, id: &str, at: String, depth: usize) -> Option<String> {
    match v {
        Value::Object(m) if depth < 4 => m
            .iter()
            .find_map(|(k, x)| pointer_of_text(x, id, format!("{at}/{}", token(k)), depth + 1)),
        Value::String(_) | Value::Number(_) => {
            (scalar_text(v).as_deref() == Some(id)).then_some(at)
        }
        _ => None,
    }
}
