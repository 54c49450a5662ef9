//! Representations an item read's query selects: a query (`?_shape=array`)
//! whose recorded 2xx item reads answered the entity somewhere else than
//! the plain read does — inside a one-element array (`[entity]`), or at a
//! member of an envelope every such read shares (`{"rows": [entity], …}`).
//! Kept per resource and exact query (names and values, the key aside) when
//! every recorded 2xx item read with that query shows the entity, holding
//! the path's id, at the same place; an envelope's other members must be
//! the same in two or more reads of different ids (a member that follows
//! the id or the clock cannot be repeated). Served: the model's item read
//! with that query places the entity (in the read shape) there.

use super::exchange::{scalar_text, Exchange};
use super::resources::Resource;
use super::routes::Templates;
use super::snapshots::target_of;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// One representation of a resource's item reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Representation {
    /// The resource (its name and collection template).
    pub resource: String,
    pub collection: String,
    /// The query pairs that select it, sorted.
    pub query: Vec<(String, String)>,
    /// Pointer of the entity in the answer (`/0`: a one-element array).
    pub pointer: String,
    /// The answer around the entity (the entity replaced by `null`).
    pub template: Value,
    pub supported_by: Vec<u64>,
}

/// Where in an answer the entity holding `id` under an id-like member sits,
/// outside the answer's root: a one-element root array, or a one-element
/// array or an object under a root member.
fn place_of(answer: &Value, id: &str) -> Option<String> {
    let holds = |v: &Value| {
        v.as_object().is_some_and(|o| {
            o.iter()
                .any(|(k, v)| super::exchange::id_like(k) && scalar_text(v).as_deref() == Some(id))
        })
    };
    let one = |v: &Value| {
        v.as_array()
            .filter(|a| a.len() == 1 && holds(&a[0]))
            .is_some()
    };
    if one(answer) {
        return Some("/0".into());
    }
    let root = answer.as_object()?;
    if holds(answer) {
        return None;
    }
    root.iter().find_map(|(k, v)| {
        let k = super::exchange::token(k);
        if one(v) {
            Some(format!("/{k}/0"))
        } else {
            holds(v).then(|| format!("/{k}"))
        }
    })
}

fn without(answer: &Value, pointer: &str) -> Value {
    let mut t = answer.clone();
    if let Some(slot) = t.pointer_mut(pointer) {
        *slot = Value::Null;
    }
    t
}

/// The representations the recording shows.
pub(crate) fn infer(
    exchanges: &[Exchange],
    resources: &[Resource],
    templates: &Templates,
) -> Vec<Representation> {
    // (resource, sorted query) → [(ordinal, id, place, template)]
    type Seen = Vec<(u64, String, Option<String>, Value)>;
    let mut groups: BTreeMap<(usize, Vec<(String, String)>), Seen> = BTreeMap::new();
    for x in exchanges.iter().filter(|x| x.method == "GET" && x.is_2xx()) {
        if x.query.is_empty() {
            continue;
        }
        let Some(t) = target_of(x, resources, templates) else {
            continue;
        };
        let r = &resources[t.resource];
        if t.role != "read" || r.addressing != "path" {
            continue;
        }
        let (Some(id), Some(answer)) = (t.id.clone(), x.answer.as_ref()) else {
            continue;
        };
        let mut q = x.query.clone();
        q.sort();
        let place = place_of(answer, &id).filter(|p| Some(p) != r.item_envelope.as_ref());
        let template = place
            .as_deref()
            .map(|p| without(answer, p))
            .unwrap_or(Value::Null);
        groups
            .entry((t.resource, q))
            .or_default()
            .push((x.ordinal, id, place, template));
    }
    let mut out = Vec::new();
    for ((index, query), seen) in groups {
        let Some(pointer) = seen[0].2.clone() else {
            continue;
        };
        if seen
            .iter()
            .any(|s| s.2.as_deref() != Some(pointer.as_str()))
        {
            continue;
        }
        let template = seen[0].3.clone();
        // Beyond a bare one-element array, the envelope must repeat across
        // reads of different ids.
        if pointer != "/0" {
            let ids: std::collections::BTreeSet<&str> = seen.iter().map(|s| s.1.as_str()).collect();
            if ids.len() < 2 || seen.iter().any(|s| s.3 != template) {
                continue;
            }
        }
        let r = &resources[index];
        out.push(Representation {
            resource: r.name.clone(),
            collection: r.collection.clone(),
            query,
            pointer,
            template,
            supported_by: seen.iter().map(|s| s.0).collect(),
        });
    }
    out
}

/// The answer of an item read of resource `r` with query `pairs` when a
/// representation selects it: the entity placed in the template.
pub(crate) fn render(
    reps: &[Representation],
    r: &Resource,
    pairs: &[(String, String)],
    entity: Map<String, Value>,
) -> Option<Value> {
    let mut q = pairs.to_vec();
    q.sort();
    let rep = reps
        .iter()
        .find(|p| p.collection == r.collection && p.resource == r.name && p.query == q)?;
    let mut out = rep.template.clone();
    *out.pointer_mut(&rep.pointer)? = Value::Object(entity);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn places() {
        assert_eq!(
            place_of(&json!([{"id": 3, "t": "x"}]), "3").as_deref(),
            Some("/0")
        );
        assert_eq!(
            place_of(&json!({"ok": true, "rows": [{"id": 3}]}), "3").as_deref(),
            Some("/rows/0")
        );
        assert_eq!(
            place_of(&json!({"data": {"id": 3}}), "3").as_deref(),
            Some("/data")
        );
        // The entity at the root, a list of two, another id: no place.
        assert_eq!(place_of(&json!({"id": 3}), "3"), None);
        assert_eq!(place_of(&json!([{"id": 3}, {"id": 4}]), "3"), None);
        assert_eq!(place_of(&json!([{"id": 4}]), "3"), None);
    }
}
