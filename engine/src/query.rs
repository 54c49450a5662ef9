//! Query semantics for list request lines a plan never recorded: equality
//! filters on fields the type has, sorting and paging by common parameter
//! names. A recorded line always renders its recorded membership instead.
//!
//! - `limit`, `_limit`, `per_page`, `perpage`, `page_size`, `pagesize`,
//!   `size`: at most that many entities;
//! - `offset`, `_offset`, `start`, `_start`: skip that many;
//! - `sort`, `_sort`, `order_by`: comma-separated fields, `-` for descending;
//! - any other name that is a field of the type: keep entities whose field,
//!   spelled as a query value (`true`, `12.5`, `text`), equals the value.
//!
//! A line with any other parameter is not understood: `plan` answers `None`
//! and the engine renders the collection as it renders an unfiltered line.

use crate::route::percent_decode;
use crate::state::Entity;
use serde_json::Value;
use std::cmp::Ordering;

const LIMITS: &[&str] = &[
    "limit",
    "_limit",
    "per_page",
    "perpage",
    "page_size",
    "pagesize",
    "size",
];
const OFFSETS: &[&str] = &["offset", "_offset", "start", "_start"];
const SORTS: &[&str] = &["sort", "_sort", "order_by"];

/// What an unrecorded query asks of a list.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ListQuery {
    pub filters: Vec<(String, String)>,
    pub sort: Vec<(String, bool)>,
    pub offset: usize,
    pub limit: Option<usize>,
}

/// Reads a raw query against the type's known fields; `None` when some
/// parameter is not understood.
pub fn plan(query: &str, fields: &[String]) -> Option<ListQuery> {
    let mut q = ListQuery::default();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let name = percent_decode(&name.replace('+', " "));
        let value = percent_decode(&value.replace('+', " "));
        if LIMITS.contains(&name.as_str()) {
            q.limit = Some(value.parse().ok()?);
        } else if OFFSETS.contains(&name.as_str()) {
            q.offset = value.parse().ok()?;
        } else if SORTS.contains(&name.as_str()) {
            for key in value.split(',').filter(|k| !k.is_empty()) {
                match key.strip_prefix('-') {
                    Some(f) => q.sort.push((f.to_string(), true)),
                    None => q
                        .sort
                        .push((key.trim_start_matches('+').to_string(), false)),
                }
            }
        } else if fields.contains(&name) {
            q.filters.push((name, value));
        } else {
            return None;
        }
    }
    Some(q)
}

/// A scalar as a query string would spell it.
fn spelled(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null => Some("null".to_string()),
        _ => None,
    }
}

fn compare(a: Option<&Value>, b: Option<&Value>) -> Ordering {
    match (a, b) {
        (Some(Value::Number(x)), Some(Value::Number(y))) => x
            .as_f64()
            .unwrap_or(0.0)
            .total_cmp(&y.as_f64().unwrap_or(0.0)),
        (Some(Value::String(x)), Some(Value::String(y))) => x.cmp(y),
        (Some(Value::Bool(x)), Some(Value::Bool(y))) => x.cmp(y),
        (None | Some(Value::Null), None | Some(Value::Null)) => Ordering::Equal,
        (None | Some(Value::Null), _) => Ordering::Greater,
        (_, None | Some(Value::Null)) => Ordering::Less,
        (Some(x), Some(y)) => rank(x).cmp(&rank(y)),
    }
}

fn rank(v: &Value) -> u8 {
    match v {
        Value::Bool(_) => 0,
        Value::Number(_) => 1,
        Value::String(_) => 2,
        Value::Array(_) => 3,
        Value::Object(_) => 4,
        Value::Null => 5,
    }
}

/// Applies the query to entities in state order (stable: ties keep it).
pub fn apply<'a>(q: &ListQuery, entities: Vec<&'a Entity>) -> Vec<&'a Entity> {
    let mut out: Vec<&Entity> = entities
        .into_iter()
        .filter(|e| {
            q.filters
                .iter()
                .all(|(f, v)| e.fields.get(f).and_then(spelled).as_deref() == Some(v.as_str()))
        })
        .collect();
    if !q.sort.is_empty() {
        out.sort_by(|a, b| {
            for (field, desc) in &q.sort {
                let o = compare(a.fields.get(field), b.fields.get(field));
                let o = if *desc { o.reverse() } else { o };
                if o != Ordering::Equal {
                    return o;
                }
            }
            Ordering::Equal
        });
    }
    let out: Vec<&Entity> = out.into_iter().skip(q.offset).collect();
    match q.limit {
        Some(n) => out.into_iter().take(n).collect(),
        None => out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use indexmap::IndexMap;
    use serde_json::json;

    fn e(id: u64, status: &str, total: f64, paid: bool) -> Entity {
        let fields = json!({"id": id, "status": status, "total": total, "paid": paid});
        Entity {
            type_name: "orders".into(),
            collection: "/o".into(),
            id: json!(id),
            fields: fields.as_object().unwrap().clone(),
            view_fields: IndexMap::new(),
            record_ordinals: vec![],
        }
    }

    #[test]
    fn filters_sorts_and_pages() {
        let all = [
            e(1, "paid", 5.0, true),
            e(2, "open", 9.5, false),
            e(3, "open", 1.0, false),
            e(4, "paid", 7.0, true),
        ];
        let fields: Vec<String> = ["id", "status", "total", "paid"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let ids = |q: &str| -> Vec<Value> {
            let plan = plan(q, &fields).expect("understood");
            apply(&plan, all.iter().collect())
                .iter()
                .map(|e| e.id.clone())
                .collect()
        };
        assert_eq!(ids("paid=false"), vec![json!(2), json!(3)]);
        assert_eq!(
            ids("_sort=-total&_limit=3"),
            vec![json!(2), json!(4), json!(1)]
        );
        assert_eq!(ids("status=paid&_sort=total"), vec![json!(1), json!(4)]);
        assert_eq!(ids("limit=2&offset=1"), vec![json!(2), json!(3)]);
        assert_eq!(ids("total=9.5"), vec![json!(2)]);
        assert_eq!(plan("weird=1", &fields), None);
        assert_eq!(plan("_limit=x", &fields), None);
    }
}
