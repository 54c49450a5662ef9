//! Merging sightings into entities: one entity per identity within one
//! collection path; item views win over list views; differing views keep
//! their values in `view_fields`; values that changed between one tool's
//! reads with no write between are volatile; changes across writes keep
//! the whole type recorded (`fields-differ`, `list-differs`).

use crate::state::{Entity, Replays};
use indexmap::IndexMap;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// One entity object seen in one response.
#[derive(Debug, Clone)]
pub(crate) struct Sighting<'a> {
    pub tool: &'a str,
    pub is_item: bool,
    /// The request line (`path?query`).
    pub line: String,
    /// Timeline position of the response.
    pub pos: usize,
    pub ordinal: u64,
    pub collection: String,
    pub object: &'a Map<String, Value>,
}

/// One list response: the identities it listed, in order.
#[derive(Debug, Clone)]
pub(crate) struct Listing {
    pub line: String,
    pub pos: usize,
    pub ids: Vec<Value>,
}

/// The merged entities of one type and what merging found.
#[derive(Debug, Clone, Default)]
pub(crate) struct Merged {
    /// In state order: collection, then first sighting.
    pub entities: Vec<Entity>,
    pub volatile_fields: Vec<String>,
    /// `fields-differ` or `list-differs` when the type must replay.
    pub recorded_reason: Option<Replays>,
}

/// A stable key for an identity value.
pub(crate) fn id_key(v: &Value) -> String {
    match v {
        Value::String(s) => format!("s:{s}"),
        Value::Number(n) => format!("n:{n}"),
        other => format!("x:{other}"),
    }
}

/// Merges sightings (in any order; they are sorted by position) into entities.
/// `writes_between(a, b)` says whether a state write lies strictly between two positions.
pub(crate) fn merge(
    type_name: &str,
    id_field: &str,
    sightings: &[Sighting<'_>],
    listings: &[Listing],
    writes_between: &dyn Fn(usize, usize) -> bool,
) -> Merged {
    let mut order: Vec<usize> = (0..sightings.len()).collect();
    order.sort_by_key(|&i| (sightings[i].pos, i));
    // Group by (collection, identity), remembering first sighting.
    let mut groups: IndexMap<(String, String), Vec<usize>> = IndexMap::new();
    for &i in &order {
        let s = &sightings[i];
        let Some(id) = s
            .object
            .get(id_field)
            .filter(|v| v.is_string() || v.is_number())
        else {
            continue;
        };
        groups
            .entry((s.collection.clone(), id_key(id)))
            .or_default()
            .push(i);
    }
    let mut volatile: BTreeSet<String> = BTreeSet::new();
    let mut fields_differ = false;
    let mut entities = Vec::with_capacity(groups.len());
    for ((collection, _), idx) in &groups {
        let seen: Vec<&Sighting<'_>> = idx.iter().map(|&i| &sightings[i]).collect();
        // Field values: the latest item sighting having the field, else the latest list sighting.
        let mut fields = Map::new();
        let latest_item = seen.iter().rev().find(|s| s.is_item);
        if let Some(li) = latest_item {
            for k in li.object.keys() {
                fields.insert(k.clone(), Value::Null);
            }
        }
        for s in &seen {
            for k in s.object.keys() {
                if !fields.contains_key(k) {
                    fields.insert(k.clone(), Value::Null);
                }
            }
        }
        for (k, slot) in fields.iter_mut() {
            let from_item = seen
                .iter()
                .rev()
                .filter(|s| s.is_item)
                .find_map(|s| s.object.get(k));
            let from_any = seen.iter().rev().find_map(|s| s.object.get(k));
            if let Some(v) = from_item.or(from_any) {
                *slot = v.clone();
            }
        }
        // Per tool: the latest value it showed of each field.
        let mut per_tool: IndexMap<&str, Map<String, Value>> = IndexMap::new();
        for s in &seen {
            let m = per_tool.entry(s.tool).or_default();
            for (k, v) in s.object {
                m.insert(k.clone(), v.clone());
            }
        }
        let mut view_fields: IndexMap<String, Map<String, Value>> = IndexMap::new();
        for (tool, latest) in per_tool {
            let differing: Map<String, Value> = latest
                .into_iter()
                .filter(|(k, v)| fields.get(k) != Some(v))
                .collect();
            if !differing.is_empty() {
                view_fields.insert(tool.to_string(), differing);
            }
        }
        // Changes between sightings.
        for (a_i, a) in seen.iter().enumerate() {
            for b in seen.iter().skip(a_i + 1) {
                if b.pos == a.pos {
                    continue;
                }
                let write = writes_between(a.pos, b.pos);
                let same_tool = a.tool == b.tool;
                if !same_tool && !write {
                    continue;
                }
                // Only consecutive sightings of one tool judge volatility.
                if same_tool && !write {
                    let next_same = seen
                        .iter()
                        .skip(a_i + 1)
                        .find(|s| s.tool == a.tool && s.pos != a.pos);
                    if !next_same.is_some_and(|n| std::ptr::eq(*n, *b)) {
                        continue;
                    }
                }
                for (k, v) in a.object {
                    if let Some(w) = b.object.get(k) {
                        if v != w {
                            if write {
                                fields_differ = true;
                            } else {
                                volatile.insert(k.clone());
                            }
                        }
                    }
                }
                if write && a.line == b.line {
                    let ka: BTreeSet<&String> = a.object.keys().collect();
                    let kb: BTreeSet<&String> = b.object.keys().collect();
                    if ka != kb {
                        fields_differ = true;
                    }
                }
            }
        }
        let id = fields.get(id_field).cloned().unwrap_or(Value::Null);
        let mut ordinals: Vec<u64> = seen.iter().map(|s| s.ordinal).collect();
        ordinals.sort_unstable();
        ordinals.dedup();
        entities.push(Entity {
            type_name: type_name.to_string(),
            collection: collection.clone(),
            id,
            fields,
            view_fields,
            record_ordinals: ordinals,
        });
    }
    // Stable sort by collection keeps first-sighting order within each.
    entities.sort_by(|a, b| a.collection.cmp(&b.collection));
    let mut list_differs = false;
    let mut by_line: IndexMap<&str, Vec<&Listing>> = IndexMap::new();
    for l in listings {
        by_line.entry(l.line.as_str()).or_default().push(l);
    }
    for (_, mut ls) in by_line {
        ls.sort_by_key(|l| l.pos);
        for pair in ls.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            let ka: BTreeSet<String> = a.ids.iter().map(id_key).collect();
            let kb: BTreeSet<String> = b.ids.iter().map(id_key).collect();
            if ka != kb && writes_between(a.pos, b.pos) {
                list_differs = true;
            }
        }
    }
    let recorded_reason = if fields_differ {
        Some(Replays::FieldsDiffer)
    } else if list_differs {
        Some(Replays::ListDiffers)
    } else {
        None
    };
    Merged {
        entities,
        volatile_fields: volatile.into_iter().collect(),
        recorded_reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: &Value) -> &Map<String, Value> {
        v.as_object().unwrap()
    }

    fn sight<'a>(
        tool: &'a str,
        is_item: bool,
        line: &str,
        pos: usize,
        o: &'a Value,
    ) -> Sighting<'a> {
        Sighting {
            tool,
            is_item,
            line: line.into(),
            pos,
            ordinal: pos as u64,
            collection: "/api/items".into(),
            object: obj(o),
        }
    }

    #[test]
    fn item_wins_and_list_keeps_view_fields() {
        let l = json!({"id": 1, "title": "Hello…"});
        let i = json!({"id": 1, "title": "Hello world", "body": "b"});
        let m = merge(
            "items",
            "id",
            &[
                sight("list", false, "/api/items", 0, &l),
                sight("item", true, "/api/items/1", 1, &i),
            ],
            &[],
            &|_, _| false,
        );
        assert_eq!(m.entities.len(), 1);
        let e = &m.entities[0];
        assert_eq!(e.fields["title"], "Hello world");
        assert_eq!(e.fields["body"], "b");
        assert_eq!(e.view_fields["list"]["title"], "Hello…");
        assert!(!e.view_fields.contains_key("item"));
        assert_eq!(e.record_ordinals, vec![0, 1]);
        assert_eq!(m.recorded_reason, None);
    }

    #[test]
    fn volatile_without_write_fields_differ_with_one() {
        let a = json!({"id": 1, "last_seen": 1});
        let b = json!({"id": 1, "last_seen": 2});
        let s = [
            sight("item", true, "/api/items/1", 0, &a),
            sight("item", true, "/api/items/1", 2, &b),
        ];
        let m = merge("items", "id", &s, &[], &|_, _| false);
        assert_eq!(m.volatile_fields, vec!["last_seen".to_string()]);
        assert_eq!(m.entities[0].fields["last_seen"], 2);
        let m = merge("items", "id", &s, &[], &|_, _| true);
        assert_eq!(m.recorded_reason, Some(Replays::FieldsDiffer));
    }

    #[test]
    fn cross_tool_change_counts_only_across_a_write() {
        let a = json!({"id": 1, "n": 1});
        let b = json!({"id": 1, "n": 2});
        let s = [
            sight("list", false, "/api/items", 0, &a),
            sight("item", true, "/api/items/1", 2, &b),
        ];
        assert_eq!(
            merge("items", "id", &s, &[], &|_, _| false).recorded_reason,
            None
        );
        assert_eq!(
            merge("items", "id", &s, &[], &|_, _| true).recorded_reason,
            Some(Replays::FieldsDiffer)
        );
    }

    #[test]
    fn sparse_lines_do_not_erase_fields() {
        let full = json!({"id": 1, "name": "a"});
        let sparse = json!({"id": 1});
        let s = [
            sight("list", false, "/api/items", 0, &full),
            sight("list", false, "/api/items?fields=id", 1, &sparse),
        ];
        let m = merge("items", "id", &s, &[], &|_, _| false);
        assert_eq!(m.entities[0].fields["name"], "a");
        // The same line losing a field across a write keeps the type recorded.
        let s = [
            sight("list", false, "/api/items", 0, &full),
            sight("list", false, "/api/items", 1, &sparse),
        ];
        assert_eq!(
            merge("items", "id", &s, &[], &|_, _| true).recorded_reason,
            Some(Replays::FieldsDiffer)
        );
    }

    #[test]
    fn membership_change_across_a_write() {
        let listings = [
            Listing {
                line: "/api/items".into(),
                pos: 0,
                ids: vec![],
            },
            Listing {
                line: "/api/items".into(),
                pos: 2,
                ids: vec![json!(1)],
            },
        ];
        assert_eq!(
            merge("items", "id", &[], &listings, &|_, _| true).recorded_reason,
            Some(Replays::ListDiffers)
        );
        assert_eq!(
            merge("items", "id", &[], &listings, &|_, _| false).recorded_reason,
            None
        );
        let other_line = [
            listings[0].clone(),
            Listing {
                line: "/api/items?page=2".into(),
                ..listings[1].clone()
            },
        ];
        assert_eq!(
            merge("items", "id", &[], &other_line, &|_, _| true).recorded_reason,
            None
        );
    }

    #[test]
    fn first_sighting_order_within_collection() {
        let two = json!({"id": 2});
        let one = json!({"id": 1});
        let s = [
            sight("list", false, "/api/items", 0, &two),
            sight("list", false, "/api/items", 0, &one),
        ];
        let m = merge("items", "id", &s, &[], &|_, _| false);
        let ids: Vec<&Value> = m.entities.iter().map(|e| &e.id).collect();
        assert_eq!(ids, vec![&json!(2), &json!(1)]);
    }
}
