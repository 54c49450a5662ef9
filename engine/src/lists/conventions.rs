//! The list-query conventions: filters, sorting, limits and continuation
//! tokens the recording never saw, applied to a list rendered from the
//! World where no inferred list semantics have evidence (the replay check
//! asks `understands`), plus the default render order a write plan's
//! `insert` rule names (docs/serving.md, "Beyond the recording"). Values
//! compare and match as the list evaluator's do (`lists::fields`).

use crate::codec::{normalize_path, query_decode};
use crate::lists::fields::{self, Collation};
use crate::state::{Entity, InsertPosition, PlanStatus, SortOrder};
use crate::{Call, Engine};
use base64::Engine as _;
use serde_json::Value;
use std::cmp::Ordering;

/// Query names read as a page size.
pub(crate) const LIMIT_NAMES: &[&str] = &[
    "_limit",
    "limit",
    "per_page",
    "perpage",
    "page_size",
    "pagesize",
    "size",
];
/// Query names read as a number of entities to skip.
pub(crate) const OFFSET_NAMES: &[&str] = &["offset", "_offset", "start", "_start"];
/// Query names read as sort keys (comma lists, leading `-` = descending).
pub(crate) const SORT_NAMES: &[&str] = &["_sort", "sort", "order_by"];
/// The continuation-token name used when the recording shows none.
pub(crate) const DEFAULT_TOKEN: &str = "_token";
/// A filter's operator: equality, or the one a name prefix spells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FilterOp {
    Eq,
    /// `not_`: differs.
    Not,
    /// `in_`: one of a comma list.
    In,
    /// `min_`/`max_`: inclusive bounds.
    Min,
    Max,
    /// `gt_`/`lt_`: exclusive bounds.
    Gt,
    Lt,
}

/// Filter name prefixes and their operators.
const PREFIXES: &[(&str, FilterOp)] = &[
    ("not_", FilterOp::Not),
    ("in_", FilterOp::In),
    ("min_", FilterOp::Min),
    ("max_", FilterOp::Max),
    ("gt_", FilterOp::Gt),
    ("lt_", FilterOp::Lt),
];

/// One filter on an entity field.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Filter {
    pub field: String,
    pub op: FilterOp,
    pub text: String,
}

/// A list query, parsed against the type's fields.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct ListQuery {
    pub filters: Vec<Filter>,
    /// Sort keys: field and descending flag.
    pub sort: Vec<(String, bool)>,
    pub limit: Option<usize>,
    /// The offset a continuation token carried.
    pub offset: usize,
    /// The raw `name=value` pairs other than the token, in request order.
    pub kept: Vec<String>,
    /// False when some name is none of the above (the line then renders
    /// unfiltered, as `engine::query` does for the replay check).
    pub understood: bool,
}

/// Parses a raw query string. A name that is neither paging, sorting, the
/// token nor (after an optional filter prefix) a field of `fields` makes
/// the query not understood.
pub(crate) fn parse(query: &str, fields: &[String], token_name: &str) -> ListQuery {
    let mut q = ListQuery {
        understood: true,
        ..ListQuery::default()
    };
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (raw_name, raw_value) = pair.split_once('=').unwrap_or((pair, ""));
        let name = query_decode(raw_name);
        let value = query_decode(raw_value);
        if name == token_name {
            q.offset = read_token(&value).unwrap_or(0);
            continue;
        }
        q.kept.push(pair.to_string());
        if LIMIT_NAMES.contains(&name.as_str()) {
            match value.trim().parse::<usize>() {
                Ok(n) => q.limit = Some(n),
                Err(_) => q.understood = false,
            }
        } else if OFFSET_NAMES.contains(&name.as_str()) {
            match value.trim().parse::<usize>() {
                Ok(n) => q.offset = n,
                Err(_) => q.understood = false,
            }
        } else if SORT_NAMES.contains(&name.as_str()) {
            for key in value.split(',').map(str::trim).filter(|k| !k.is_empty()) {
                match key.strip_prefix('-') {
                    Some(f) => q.sort.push((f.to_string(), true)),
                    None => q
                        .sort
                        .push((key.strip_prefix('+').unwrap_or(key).to_string(), false)),
                }
            }
        } else if fields.contains(&name) {
            q.filters.push(Filter {
                field: name,
                op: FilterOp::Eq,
                text: value,
            });
        } else if let Some((op, field)) = PREFIXES
            .iter()
            .find_map(|(p, op)| name.strip_prefix(p).map(|f| (*op, f)))
            .filter(|(_, f)| fields.iter().any(|x| x == f))
        {
            q.filters.push(Filter {
                field: field.to_string(),
                op,
                text: value,
            });
        } else {
            q.understood = false;
        }
    }
    q
}

/// Our own opaque continuation token for `offset`.
pub(crate) fn make_token(offset: usize) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{{\"offset\":{offset}}}"))
}

/// The offset a token of ours carries.
pub(crate) fn read_token(token: &str) -> Option<usize> {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(token.trim_end_matches('='))
        .ok()?;
    let value: Value = serde_json::from_slice(&bytes).ok()?;
    value.get("offset")?.as_u64().map(|n| n as usize)
}

/// True when a field value equals the query text, coerced to the value's
/// type (the one equality of list queries, `fields::equals`).
pub(crate) fn value_matches(value: Option<&Value>, text: &str) -> bool {
    fields::equals(value, &Value::String(text.to_string()))
}

fn keep(entity: &Entity, f: &Filter) -> bool {
    let v = entity.fields.get(&f.field);
    let cmp = || {
        v.map(|v| {
            let wanted = fields::coerce(&Value::String(f.text.clone()), Some(v));
            compare(Some(v), Some(&wanted))
        })
    };
    match f.op {
        FilterOp::Eq => value_matches(v, &f.text),
        FilterOp::Not => !value_matches(v, &f.text),
        FilterOp::In => f.text.split(',').any(|t| value_matches(v, t)),
        FilterOp::Min => cmp().is_some_and(|o| o != Ordering::Less),
        FilterOp::Max => cmp().is_some_and(|o| o != Ordering::Greater),
        FilterOp::Gt => cmp() == Some(Ordering::Greater),
        FilterOp::Lt => cmp() == Some(Ordering::Less),
    }
}

/// The one total order of list values (`fields::compare`, binary
/// collation): absent/null, booleans, numbers, strings, then arrays and
/// objects.
pub(crate) fn compare(a: Option<&Value>, b: Option<&Value>) -> Ordering {
    fields::compare(a, b, Collation::Binary)
}

/// Stable sort by keys (field, descending).
pub(crate) fn sort_by(entities: &mut [&Entity], keys: &[(String, bool)]) {
    entities.sort_by(|a, b| {
        keys.iter()
            .map(|(f, desc)| {
                let o = compare(a.fields.get(f), b.fields.get(f));
                if *desc {
                    o.reverse()
                } else {
                    o
                }
            })
            .find(|o| *o != Ordering::Equal)
            .unwrap_or(Ordering::Equal)
    });
}

/// Filters, sorts and pages `entities`; returns the page, the offset of
/// the next page when more remain, and how many the filters kept.
pub(crate) fn apply<'a>(
    q: &ListQuery,
    entities: Vec<&'a Entity>,
) -> (Vec<&'a Entity>, Option<usize>, usize) {
    let mut kept: Vec<&Entity> = entities
        .into_iter()
        .filter(|e| q.filters.iter().all(|f| keep(e, f)))
        .collect();
    sort_by(&mut kept, &q.sort);
    let total = kept.len();
    let start = q.offset.min(total);
    let end = q.limit.map_or(total, |l| (start + l).min(total));
    let page = kept[start..end].to_vec();
    (page, (end < total).then_some(end), total)
}

/// The recorded order of a type's lists: the sort key a served write
/// plan's `insert` rule names (`sorted` by a field), if any.
pub(crate) fn default_order(engine: &Engine, type_name: &str) -> Option<(String, bool)> {
    engine.state.writes.iter().find_map(|w| {
        let insert = w.insert.as_ref()?;
        (w.status == PlanStatus::Served && w.type_name.as_deref() == Some(type_name))
            .then_some(())?;
        (insert.position == InsertPosition::Sorted).then_some(())?;
        Some((
            insert.field.clone()?,
            insert.order == Some(SortOrder::Descending),
        ))
    })
}

/// How the recording paged a list: the response header naming the next
/// page, the origin its URLs carried and the token's query name.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Paging {
    pub header: String,
    pub origin: String,
    pub token: String,
}

/// Learns the paging header from the list tool's recordings: a response
/// header whose value is a URL (absolute or `/`-rooted) to the same path
/// whose query holds every request query pair plus exactly one new name.
pub(crate) fn paging_of(engine: &Engine, ordinals: &[u64]) -> Option<Paging> {
    for rec in ordinals.iter().filter_map(|&o| engine.record(o)) {
        let Some(path) = rec.path.as_deref() else {
            continue;
        };
        let asked: Vec<&str> = rec
            .query
            .as_deref()
            .unwrap_or("")
            .split('&')
            .filter(|p| !p.is_empty())
            .collect();
        for (name, value) in &rec.response_headers {
            let (origin, target_path, target_query) = if value.starts_with('/') {
                let (p, q) = value.split_once('?').unwrap_or((value, ""));
                (String::new(), p.to_string(), q.to_string())
            } else {
                match rea_core::recorded_url::parse(value) {
                    Ok(u) => (
                        u.origin.clone(),
                        u.path.to_string(),
                        u.query.unwrap_or("").to_string(),
                    ),
                    Err(_) => continue,
                }
            };
            if normalize_path(&target_path) != normalize_path(path) {
                continue;
            }
            let pairs: Vec<&str> = target_query.split('&').filter(|p| !p.is_empty()).collect();
            let new: Vec<&str> = pairs
                .iter()
                .filter(|p| !asked.contains(p))
                .map(|p| p.split_once('=').map_or(*p, |(n, _)| n))
                .collect();
            if asked.iter().all(|a| pairs.contains(a)) && new.len() == 1 {
                return Some(Paging {
                    header: name.clone(),
                    origin,
                    token: query_decode(new[0]),
                });
            }
        }
    }
    None
}

/// The next-page link for a call: its path, its query without the token,
/// and our token for `offset`, behind the recorded origin.
pub(crate) fn next_link(paging: &Paging, call: &Call, kept: &[String], offset: usize) -> String {
    let mut query = kept.join("&");
    if !query.is_empty() {
        query.push('&');
    }
    query.push_str(&format!("{}={}", paging.token, make_token(offset)));
    format!("{}{}?{query}", paging.origin, call.path)
}

/// True when the list query of `tool` is one `shape` applies (what the
/// replay check checks): the same parse, with the tool's paging token.
pub fn understands(
    engine: &Engine,
    tool: &crate::manifest::Tool,
    query: &str,
    fields: &[String],
) -> bool {
    let paging = paging_of(engine, &tool.record_ordinals);
    let token = paging.as_ref().map_or(DEFAULT_TOKEN, |p| p.token.as_str());
    parse(query, fields, token).understood
}

/// What a list render from the World shows: the entities, in order, and
/// the paging header to answer with (name, value), if any.
pub(crate) struct Shaped<'a> {
    pub entities: Vec<&'a Entity>,
    /// How many entities the query kept before paging.
    pub total: usize,
    /// The paging header name the recording used (drop any replayed copy).
    pub paging_header: Option<String>,
    /// The paging header to add.
    pub next: Option<(String, String)>,
}

/// Orders a list rendered from the World by the type's recorded order and,
/// for a request line the plan did not record, applies its query.
/// `recorded_line`: `Some(true)` for a recorded line listing every entity,
/// `Some(false)` for a recorded line with its own membership (left as
/// recorded), `None` for a line the plan never saw.
pub(crate) fn shape<'a>(
    engine: &Engine,
    tool: &crate::manifest::Tool,
    type_name: &str,
    call: &Call,
    recorded_line: Option<bool>,
    mut entities: Vec<&'a Entity>,
) -> Shaped<'a> {
    if recorded_line == Some(false) {
        return Shaped {
            total: entities.len(),
            entities,
            paging_header: None,
            next: None,
        };
    }
    if let Some(key) = default_order(engine, type_name) {
        sort_by(&mut entities, &[key]);
    }
    let query = call.query.as_deref().unwrap_or("");
    if recorded_line.is_some() || query.is_empty() {
        return Shaped {
            total: entities.len(),
            entities,
            paging_header: None,
            next: None,
        };
    }
    let fields = engine
        .entity_type(type_name)
        .map(|t| t.fields.clone())
        .unwrap_or_default();
    let paging = paging_of(engine, &tool.record_ordinals);
    let token = paging.as_ref().map_or(DEFAULT_TOKEN, |p| p.token.as_str());
    let q = parse(query, &fields, token);
    if !q.understood {
        return Shaped {
            total: entities.len(),
            entities,
            paging_header: None,
            next: None,
        };
    }
    let (page, next_offset, total) = apply(&q, entities);
    let next = match (&paging, next_offset) {
        (Some(p), Some(offset)) => Some((p.header.clone(), next_link(p, call, &q.kept, offset))),
        _ => None,
    };
    Shaped {
        entities: page,
        total,
        paging_header: paging.map(|p| p.header),
        next,
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
            let plan = parse(q, &fields, DEFAULT_TOKEN);
            assert!(plan.understood, "{q}");
            apply(&plan, all.iter().collect())
                .0
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
        assert!(!parse("weird=1", &fields, DEFAULT_TOKEN).understood);
        assert!(!parse("_limit=x", &fields, DEFAULT_TOKEN).understood);
    }

    #[test]
    fn query_parts_are_pure() {
        let fields = vec!["a".to_string(), "b".to_string()];
        let q = parse("a=1&_sort=-b,a&_limit=x&zz=3&_token=bad", &fields, "_token");
        assert_eq!(q.filters.len(), 1);
        assert_eq!(
            q.sort,
            vec![("b".to_string(), true), ("a".to_string(), false)]
        );
        assert_eq!(q.limit, None);
        assert_eq!(q.offset, 0);
        assert!(!q.understood);
        let q = parse("limit=2&offset=1&min_a=3", &fields, "_token");
        assert!(q.understood);
        assert_eq!((q.limit, q.offset, q.filters.len()), (Some(2), 1, 1));
        assert_eq!(read_token(&make_token(7)), Some(7));
        assert!(value_matches(Some(&json!(1.0)), "1"));
        assert!(!value_matches(Some(&json!("1")), "01"));
        assert!(value_matches(Some(&json!(false)), "false"));
    }
}
