//! Ids an update draws: a 2xx update whose answer shows, nested in the
//! entity, an integer `id` the entity did not show before (a revision the
//! write made: `_links.predecessor-version[0].id`), with the counts beside
//! it that went up by one (`version-history[0].count`). The id comes from
//! the collection's id sequence (`sequences`: an update before the first
//! create moves where the counter stood), and a served update of such a
//! route draws the next id and shows it the way the recorded answer did.

use super::exchange::Exchange;
use super::resources::Resource;
use super::routes::Templates;
use super::snapshots::{entity_at, target_of, Snapshots};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// What one route's recorded updates drew.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Draw {
    /// The pointer of the member holding the drawn id's object (`/_links/predecessor-version`).
    pub container: String,
    /// That member as the first recorded answer showed it.
    pub example: Value,
    /// The id it drew.
    pub drawn: u64,
    /// The entity of that answer (its links are what the hrefs follow).
    pub entity: Map<String, Value>,
    /// Integer members beside it that the write raised by one.
    pub increments: Vec<String>,
    /// The records that drew an id.
    pub supported_by: Vec<u64>,
}

fn leaves(v: &Value, at: &str, out: &mut Vec<(String, Value)>) {
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                leaves(c, &format!("{at}/{}", super::exchange::token(k)), out);
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                leaves(c, &format!("{at}/{i}"), out);
            }
        }
        other => out.push((at.to_string(), other.clone())),
    }
}

/// The id an update's answer (`after`) shows nested that the entity
/// (`before`) did not: (its container pointer, the id, the pointers of the
/// integers beside it raised by one). `None` when it shows none.
pub(crate) fn drawn(
    before: Option<&Map<String, Value>>,
    after: &Map<String, Value>,
) -> Option<(String, u64, Vec<String>)> {
    let before = Value::Object(before?.clone());
    let after_v = Value::Object(after.clone());
    let mut found = Vec::new();
    leaves(&after_v, "", &mut found);
    let (pointer, id) = found.iter().find_map(|(p, v)| {
        let depth = p.matches('/').count();
        let n = v.as_u64().filter(|n| *n > 0)?;
        let was = before.pointer(p).and_then(Value::as_u64);
        (p.ends_with("/id") && depth >= 3 && was.is_none_or(|w| w < n)).then(|| (p.clone(), n))
    })?;
    let mut container = pointer.trim_end_matches("/id").to_string();
    if let Some((head, last)) = container.rsplit_once('/') {
        if last.parse::<usize>().is_ok() {
            container = head.to_string();
        }
    }
    let top = container
        .split('/')
        .nth(1)
        .map(|t| format!("/{t}/"))
        .unwrap_or_default();
    let increments = found
        .iter()
        .filter(|(p, _)| p.starts_with(&top) && !p.starts_with(&container))
        .filter(|(p, v)| {
            let (Some(a), Some(b)) = (v.as_u64(), before.pointer(p).and_then(Value::as_u64)) else {
                return false;
            };
            a == b + 1
        })
        .map(|(p, _)| p.clone())
        .collect();
    Some((container, id, increments))
}

/// The draws of every update route, by (method, route template).
pub(crate) fn infer(
    exchanges: &[Exchange],
    resources: &[Resource],
    templates: &Templates,
) -> BTreeMap<(String, String), Draw> {
    let mut out: BTreeMap<(String, String), Draw> = BTreeMap::new();
    let mut snapshots = Snapshots::default();
    for x in exchanges {
        let Some(t) = target_of(x, resources, templates) else {
            continue;
        };
        let r = &resources[t.resource];
        if x.is_2xx() && t.role == "update" && r.addressing == "path" {
            let after = x.answer.as_ref().and_then(|a| entity_at(a, r));
            let before = snapshots.get(&t).map(|s| s.0.clone());
            if let Some((after, (container, id, increments))) = after
                .as_ref()
                .and_then(|a| drawn(before.as_ref(), a).map(|d| (a, d)))
            {
                let key = (x.method.clone(), t.route.clone());
                match out.get_mut(&key) {
                    Some(d) => d.supported_by.push(x.ordinal),
                    None => {
                        let example = Value::Object(after.clone())
                            .pointer(&container)
                            .cloned()
                            .unwrap_or(Value::Null);
                        out.insert(
                            key,
                            Draw {
                                container,
                                example,
                                drawn: id,
                                entity: after.clone(),
                                increments,
                                supported_by: vec![x.ordinal],
                            },
                        );
                    }
                }
            }
        }
        snapshots.learn(x, &t, r);
    }
    out
}

/// Shows the id `n` an update of `entity` drew, as the recorded draw
/// showed its own: the container re-rendered with `n`, its links following
/// the entity's own (the href that continued one of the recorded entity's
/// hrefs continues this entity's), and the counts beside it raised.
pub(crate) fn show(d: &Draw, entity: &mut Map<String, Value>, n: u64) {
    let mut v = d.example.clone();
    let recorded = Value::Object(d.entity.clone());
    let now = Value::Object(entity.clone());
    let mut rec_leaves = Vec::new();
    leaves(&recorded, "", &mut rec_leaves);
    rewrite(&mut v, d.drawn, n, &rec_leaves, &now, &d.container);
    let mut whole = Value::Object(std::mem::take(entity));
    for p in &d.increments {
        if let Some(slot) = whole.pointer_mut(p) {
            if let Some(c) = slot.as_u64() {
                *slot = Value::from(c + 1);
            }
        }
    }
    set(&mut whole, &d.container, v);
    *entity = match whole {
        Value::Object(o) => o,
        _ => Map::new(),
    };
}

fn rewrite(
    v: &mut Value,
    old: u64,
    new: u64,
    rec_leaves: &[(String, Value)],
    now: &Value,
    container: &str,
) {
    match v {
        Value::Object(m) => m
            .values_mut()
            .for_each(|c| rewrite(c, old, new, rec_leaves, now, container)),
        Value::Array(a) => a
            .iter_mut()
            .for_each(|c| rewrite(c, old, new, rec_leaves, now, container)),
        Value::Number(x) if x.as_u64() == Some(old) => *v = Value::from(new),
        Value::String(s) => {
            // The longest recorded text (outside the container) this one
            // continues, as this entity spells it now.
            let base = rec_leaves
                .iter()
                .filter(|(p, _)| !p.starts_with(container))
                .filter_map(|(p, l)| Some((p, l.as_str()?)))
                .filter(|(_, l)| l.len() >= 8 && s.starts_with(l) && s.len() > l.len())
                .max_by_key(|(_, l)| l.len());
            if let Some((p, l)) = base {
                if let Some(cur) = now.pointer(p).and_then(Value::as_str) {
                    let rest = s[l.len()..].replace(&old.to_string(), &new.to_string());
                    *s = format!("{cur}{rest}");
                }
            }
        }
        _ => {}
    }
}

/// Sets `v` at `pointer` in `target`, creating the objects on the way.
fn set(target: &mut Value, pointer: &str, v: Value) {
    let tokens: Vec<String> = pointer
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect();
    let mut cur = target;
    for (i, t) in tokens.iter().enumerate() {
        let Value::Object(m) = cur else { return };
        if i + 1 == tokens.len() {
            m.insert(t.clone(), v);
            return;
        }
        cur = m
            .entry(t.clone())
            .or_insert_with(|| Value::Object(Map::new()));
    }
}

#[cfg(test)]
mod tests {
    use super::drawn;
    use serde_json::json;

    #[test]
    fn a_new_nested_id_and_the_counts_it_raised() {
        let before = json!({"id": 26, "_links": {"version-history": [{"count": 0, "href": "h/26/revisions"}]}});
        let after = json!({"id": 26, "_links": {
            "version-history": [{"count": 1, "href": "h/26/revisions"}],
            "predecessor-version": [{"id": 27, "href": "h/26/revisions/27"}]}});
        let (container, id, inc) = drawn(before.as_object(), after.as_object().unwrap()).unwrap();
        assert_eq!(container, "/_links/predecessor-version");
        assert_eq!(id, 27);
        assert_eq!(inc, vec!["/_links/version-history/0/count".to_string()]);
        // The entity's own id, or a nested id it showed before, is no draw.
        assert!(drawn(after.as_object(), after.as_object().unwrap()).is_none());
        assert!(drawn(None, after.as_object().unwrap()).is_none());
    }
}
