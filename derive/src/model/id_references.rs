//! References set by id: a write that sends `<name>_id: v` (`status_id: 2`)
//! where the app's entity shows the reference as a nested object `<name>`
//! (`"status": {"id": 2, "name": "In Progress", …}`) — Rails-style APIs.
//! Kept per member name when the write's answer, or the next read of the
//! written item, shows `<name>.id` equal to the sent value; dropped when one
//! shows another id. Served: the object is taken from an entity the World
//! holds with that reference (`<name>.id == v`), and the sent `<name>_id`
//! is not shown (the app shows the object instead).

use super::exchange::{entity_of, scalar_text, Exchange};
use super::presence::sent_members;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// One member name whose sent id sets a nested reference object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IdReference {
    /// The sent member (`status_id`).
    pub sent: String,
    /// The object member it sets (`status`).
    pub object: String,
    /// Writes (and the answers or reads after them) that showed the object
    /// with the sent id.
    pub supported_by: Vec<u64>,
    /// Those that showed another id.
    pub contradicted_by: Vec<u64>,
}

/// `status_id` → `status`; `statusId` → `status`.
fn stem(member: &str) -> Option<&str> {
    member
        .strip_suffix("_id")
        .or_else(|| member.strip_suffix("Id"))
        .filter(|s| !s.is_empty())
}

/// The entity that shows a write's effect: its answer's, else the next 2xx
/// read of the same path before any other write to it.
fn shown_after(exchanges: &[Exchange], at: usize) -> Option<(u64, &Map<String, Value>)> {
    let w = &exchanges[at];
    if let Some((_, e)) = w.answer.as_ref().and_then(entity_of) {
        return Some((w.ordinal, e));
    }
    for x in &exchanges[at + 1..] {
        if x.segments != w.segments {
            continue;
        }
        if !x.is_read() {
            return None;
        }
        if x.is_2xx() && x.method == "GET" {
            return x
                .answer
                .as_ref()
                .and_then(entity_of)
                .map(|(_, e)| (x.ordinal, e));
        }
    }
    None
}

/// The member names the recording shows setting a reference by id.
pub(crate) fn infer(exchanges: &[Exchange]) -> Vec<IdReference> {
    let mut found: BTreeMap<String, (Vec<u64>, Vec<u64>)> = BTreeMap::new();
    for (i, x) in exchanges.iter().enumerate() {
        if x.is_read() || !x.is_2xx() {
            continue;
        }
        let Some(sent) = x.body.as_ref().and_then(sent_members) else {
            continue;
        };
        let Some((shown_at, entity)) = shown_after(exchanges, i) else {
            continue;
        };
        for (k, v) in sent {
            let (Some(name), Some(text)) = (stem(k), scalar_text(v)) else {
                continue;
            };
            let Some(obj) = entity.get(name).and_then(Value::as_object) else {
                continue;
            };
            let Some(id) = obj.get("id").and_then(scalar_text) else {
                continue;
            };
            let slot = found.entry(k.clone()).or_default();
            let list = if id == text { &mut slot.0 } else { &mut slot.1 };
            list.push(x.ordinal);
            if shown_at != x.ordinal {
                list.push(shown_at);
            }
        }
    }
    found
        .into_iter()
        .filter(|(_, (s, _))| !s.is_empty())
        .map(|(sent, (s, c))| IdReference {
            object: stem(&sent).unwrap_or_default().to_string(),
            sent,
            supported_by: super::exchange::sorted(s),
            contradicted_by: super::exchange::sorted(c),
        })
        .collect()
}

/// True when the recording confirms that `member` sets a reference object
/// (and never contradicted it).
pub(crate) fn confirmed(refs: &[IdReference], member: &str) -> bool {
    refs.iter()
        .any(|r| r.sent == member && r.contradicted_by.is_empty())
}

/// Whether a sent member sets a reference object: confirmed for its name,
/// or (convention) another name is confirmed, none contradicted, and the
/// entity shows the object. `None` when it does not apply.
fn applies(refs: &[IdReference], member: &str, entity: &Map<String, Value>) -> Option<bool> {
    let name = stem(member)?;
    if refs
        .iter()
        .any(|r| r.sent == member && !r.contradicted_by.is_empty())
    {
        return None;
    }
    if refs.iter().any(|r| r.sent == member) {
        return Some(false);
    }
    let kind_confirmed = refs.iter().any(|r| r.contradicted_by.is_empty());
    let shows_object = entity
        .get(name)
        .and_then(Value::as_object)
        .is_some_and(|o| o.contains_key("id"));
    (kind_confirmed && shows_object).then_some(true)
}

/// Sets the reference objects the sent ids name, from `lookup(object
/// member, id text)` (an object the World holds). True when a reference was
/// set by convention only.
pub(crate) fn apply(
    refs: &[IdReference],
    sent: &Map<String, Value>,
    entity: &mut Map<String, Value>,
    lookup: &dyn Fn(&str, &str) -> Option<Value>,
) -> bool {
    let mut convention = false;
    if refs.iter().all(|r| !r.contradicted_by.is_empty()) {
        return false;
    }
    for (k, v) in sent {
        let Some(text) = scalar_text(v) else { continue };
        let Some(by_convention) = applies(refs, k, entity) else {
            continue;
        };
        let name = stem(k).unwrap_or_default();
        // No object the World holds: an object that shows nothing but its
        // id (`"issue": {"id": 1}`) is spelled from the sent id alone.
        let bare = || {
            let old = entity.get(name)?.as_object()?;
            (old.len() == 1).then_some(())?;
            let id = match old.get("id")? {
                Value::Number(_) => Value::from(text.parse::<u64>().ok()?),
                _ => Value::String(text.clone()),
            };
            Some(Value::Object(Map::from_iter([("id".to_string(), id)])))
        };
        if let Some(obj) = lookup(name, &text).or_else(bare) {
            entity.insert(name.to_string(), obj);
            entity.remove(k);
            convention |= by_convention;
        }
    }
    convention
}

/// The first object a World entity holds under `name` (top level) with
/// that id.
pub(crate) fn find_object<'a>(
    entities: impl Iterator<Item = &'a Map<String, Value>>,
    name: &str,
    id: &str,
) -> Option<Value> {
    entities
        .filter_map(|e| e.get(name))
        .find(|o| o.get("id").and_then(scalar_text).as_deref() == Some(id))
        .cloned()
}
