//! The entity values the recording showed so far, per resource and id, as
//! the write and condition inferences walk the timeline: every item answer,
//! list element and write answer about an identified entity.

use super::exchange::{entity_of, join, list_of, scalar_text, Exchange};
use super::resources::Resource;
use super::routes::Templates;
use rea_engine::codec::member_at;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Where an exchange lands: its resource and the id it names.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Target {
    pub resource: usize,
    /// The concrete collection (path resources) or `""` (RPC).
    pub scope: String,
    /// The id the request names, if any.
    pub id: Option<String>,
    pub route: String,
    pub role: String,
}

/// Finds the resource operation that holds an exchange.
pub(crate) fn target_of(
    x: &Exchange,
    resources: &[Resource],
    templates: &Templates,
) -> Option<Target> {
    for (i, r) in resources.iter().enumerate() {
        for op in &r.operations {
            // The ordinals are sorted (`resources::infer`).
            if op.ordinals.binary_search(&x.ordinal).is_err() {
                continue;
            }
            let n = x.segments.len();
            let (scope, id) = if r.addressing == "path" {
                if op.key_in == "segment" && n > 0 {
                    let parent = join(&templates.template_of(&x.segments[..n - 1]));
                    (
                        join(&x.segments[..n - 1]),
                        templates
                            .core(&parent, &x.segments[n - 1])
                            .map(str::to_string),
                    )
                } else {
                    (x.path(), None)
                }
            } else if let Some(q) = op.key_in.strip_prefix("query:") {
                (String::new(), x.query_value(q).map(str::to_string))
            } else if let Some(b) = op.key_in.strip_prefix("body:") {
                (
                    String::new(),
                    x.body.as_ref().and_then(|v| v.get(b)).and_then(scalar_text),
                )
            } else {
                (String::new(), None)
            };
            return Some(Target {
                resource: i,
                scope,
                id,
                route: op.route.clone(),
                role: op.role.clone(),
            });
        }
    }
    None
}

/// (resource index, scope, id).
pub(crate) type EntityKey = (usize, String, String);

/// An entity's latest values and the ordinal of the answer that showed them last.
pub(crate) type Snapshot = (Map<String, Value>, u64);

/// Latest entity values, per resource (by index), scope and id: looked up
/// by borrowed scope and id, so a value seen again allocates no key.
#[derive(Default)]
pub(crate) struct Snapshots {
    by_resource: Vec<BTreeMap<String, BTreeMap<String, Snapshot>>>,
}

impl Snapshots {
    /// Learns what a 2xx exchange's answer shows.
    pub(crate) fn learn(&mut self, x: &Exchange, t: &Target, r: &Resource) {
        if !x.is_2xx() {
            return;
        }
        let Some(answer) = &x.answer else { return };
        let key_ptr = r
            .keys
            .first()
            .map(|k| k.entity_member.as_str())
            .unwrap_or("/id");
        match t.role.as_str() {
            "list" | "query" => {
                if let Some((_, items)) = list_of(answer) {
                    for item in items {
                        if let (Some(o), Some(id)) = (
                            item.as_object(),
                            item.pointer(key_ptr).and_then(scalar_text),
                        ) {
                            self.merge(t.resource, &t.scope, &id, o, x.ordinal);
                        }
                    }
                }
            }
            _ => {
                if let Some(entity) = entity_ref(answer, r) {
                    let id = member_at(entity, key_ptr)
                        .and_then(scalar_text)
                        .or_else(|| t.id.clone());
                    match id {
                        // A `PUT`'s answer shows the whole entity it put: a
                        // member it omits is gone.
                        Some(id) if x.method.eq_ignore_ascii_case("PUT") => {
                            *self.slot(t.resource, &t.scope, &id, x.ordinal) =
                                (entity.clone(), x.ordinal);
                        }
                        Some(id) => self.merge(t.resource, &t.scope, &id, entity, x.ordinal),
                        None => {}
                    }
                }
            }
        }
    }

    /// The snapshot of (resource, scope, id), made empty (as of `ordinal`)
    /// when there is none yet.
    fn slot(&mut self, resource: usize, scope: &str, id: &str, ordinal: u64) -> &mut Snapshot {
        if self.by_resource.len() <= resource {
            self.by_resource.resize_with(resource + 1, BTreeMap::new);
        }
        let scopes = &mut self.by_resource[resource];
        if !scopes.contains_key(scope) {
            scopes.insert(scope.to_string(), BTreeMap::new());
        }
        let ids = scopes.get_mut(scope).expect("inserted above");
        if !ids.contains_key(id) {
            ids.insert(id.to_string(), (Map::new(), ordinal));
        }
        ids.get_mut(id).expect("inserted above")
    }

    /// A view may show only some members (`_fields=`): what it shows
    /// overwrites, what it omits stays as last seen.
    fn merge(
        &mut self,
        resource: usize,
        scope: &str,
        id: &str,
        o: &Map<String, Value>,
        ordinal: u64,
    ) {
        let e = self.slot(resource, scope, id, ordinal);
        for (k, v) in o {
            // A member seen again unchanged (a list read many times) is
            // compared, not copied.
            match e.0.get_mut(k) {
                Some(held) if same(held, v) => {}
                Some(held) => *held = v.clone(),
                None => {
                    e.0.insert(k.clone(), v.clone());
                }
            }
        }
        e.1 = ordinal;
    }

    pub(crate) fn get(&self, t: &Target) -> Option<&Snapshot> {
        self.by_resource
            .get(t.resource)?
            .get(&t.scope)?
            .get(t.id.as_deref()?)
    }

    /// The snapshots of `resource`'s entities with their ids, in order of
    /// scope, then id.
    pub(crate) fn of_resource(&self, resource: usize) -> impl Iterator<Item = (&str, &Snapshot)> {
        self.by_resource
            .get(resource)
            .into_iter()
            .flat_map(|scopes| scopes.values())
            .flat_map(|ids| ids.iter().map(|(id, s)| (id.as_str(), s)))
    }

    /// The snapshot of an entity of `resource` with id `id` in any scope
    /// (the first scope in order that holds one).
    pub(crate) fn any_scope(&self, resource: usize, id: &str) -> Option<&Snapshot> {
        self.by_resource
            .get(resource)?
            .values()
            .find_map(|ids| ids.get(id))
    }
}

/// `a == b`, comparing objects member by member in order first (a value
/// seen again is usually spelled the same), by lookup only when that fails.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && (x.iter().zip(y).all(|((k, v), (l, w))| k == l && same(v, w)) || x == y)
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same(v, w))
        }
        _ => a == b,
    }
}

/// The entity of an item-shaped answer, at the resource's item envelope.
pub(crate) fn entity_at(answer: &Value, r: &Resource) -> Option<Map<String, Value>> {
    entity_ref(answer, r).cloned()
}

/// `entity_at`, borrowed.
pub(crate) fn entity_ref<'a>(answer: &'a Value, r: &Resource) -> Option<&'a Map<String, Value>> {
    if let Some(env) = &r.item_envelope {
        if let Some(o) = answer.pointer(env).and_then(Value::as_object) {
            return Some(o);
        }
    }
    entity_of(answer).map(|(_, o)| o)
}
