//! The list-query conventions, as hypotheses of meaning: the library's
//! paging, sorting and continuation-token names, the type's field names
//! (equality) and the operator prefixes `lists::operators` offers,
//! and the default order a served write plan's `insert` rule names, built
//! into the same `EndpointSemantics` the inference produces (every
//! parameter `status: "convention"`) for a list the recording gave no
//! confirmed semantics. `lists::eval::evaluate` is the one evaluator: the
//! server renders such a list through it (`lists::serve`), and the replay
//! check asks it whether a query is understood (`understands`), so both
//! read one query the same way (docs/serving.md, "List queries").

use crate::codec::{normalize_path, query_decode};
use crate::lists::eval::{evaluate, query_params, Page};
use crate::lists::fields::{Collation, FieldPath};
use crate::lists::semantics::{
    Carrier, EndpointSemantics, Meaning, Op, ParamMeaning, SortKey, Spelling, TokenFormat,
};
use crate::state::{Entity, InsertPosition, PlanStatus, SortOrder};
use crate::{Call, Engine, World};
use serde_json::Value;
use std::collections::HashMap;

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
/// The decoded text of the conventions' continuation token: a base64
/// JSON offset (`TokenFormat::Base64Offset`, unpadded).
pub(crate) const TOKEN_TEMPLATE: &str = "{\"offset\":{offset}}";

/// The recorded order of a type's lists: the sort key a served write
/// plan's `insert` rule names (`sorted` by a field), if any.
pub(crate) fn default_order(engine: &Engine, type_name: &str) -> Option<SortKey> {
    engine.state.writes.iter().find_map(|w| {
        let insert = w.insert.as_ref()?;
        (w.status == PlanStatus::Served && w.type_name.as_deref() == Some(type_name))
            .then_some(())?;
        (insert.position == InsertPosition::Sorted).then_some(())?;
        Some(SortKey {
            field: FieldPath::member(insert.field.as_deref()?),
            descending: insert.order == Some(SortOrder::Descending),
        })
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

/// The conventions of a list tool over entity type `type_name`, as endpoint
/// semantics: every parameter a `convention` hypothesis, the default order
/// the type's insert rule names, the next page in the recorded paging
/// header (with `paging`'s origin) and the conventions' offset token.
pub(crate) fn semantics(
    engine: &Engine,
    tool: &crate::manifest::Tool,
    type_name: &str,
) -> (EndpointSemantics, Option<Paging>) {
    let paging = paging_of(engine, &tool.record_ordinals);
    let token = paging.as_ref().map_or(DEFAULT_TOKEN, |p| p.token.as_str());
    let fields: &[String] = engine
        .entity_type(type_name)
        .map(|t| t.fields.as_slice())
        .unwrap_or(&[]);
    let mut sem = hypotheses(fields, token, default_order(engine, type_name));
    sem.tool.clone_from(&tool.name);
    sem.method.clone_from(&tool.method);
    sem.path_template.clone_from(&tool.path_template);
    sem.spelling.next_header = paging.as_ref().map(|p| p.header.clone());
    (sem, paging)
}

/// The conventions' semantics of a tool with a list view, if it has one.
pub(crate) fn of_tool(engine: &Engine, tool: &str) -> Option<EndpointSemantics> {
    let Some(crate::state::ViewPlan::List(plan)) = engine.view_of(tool) else {
        return None;
    };
    let tool = engine.tool(tool)?;
    Some(semantics(engine, tool, &plan.type_name).0)
}

/// The convention hypotheses over a type's `fields`, with the token name
/// and the default order: no tool, no paging header.
fn hypotheses(fields: &[String], token: &str, order: Option<SortKey>) -> EndpointSemantics {
    let param = |name: &str, meaning: Meaning| ParamMeaning {
        name: name.to_string(),
        meaning,
        basis: "convention".into(),
        status: "convention".into(),
        observed: Vec::new(),
        confirmed_by: Vec::new(),
        contradicted_by: Vec::new(),
    };
    // In precedence order: the first parameter of a name is its meaning.
    let mut params = vec![param(token, Meaning::Cursor)];
    params.extend(LIMIT_NAMES.iter().map(|n| param(n, Meaning::PageSize)));
    params.extend(OFFSET_NAMES.iter().map(|n| param(n, Meaning::Offset)));
    params.extend(SORT_NAMES.iter().map(|n| param(n, Meaning::Sort)));
    let filter = |f: &str, op: Op| Meaning::Filter {
        field: FieldPath::member(f),
        op,
    };
    params.extend(fields.iter().map(|f| param(f, filter(f, Op::Eq))));
    // `in_` is equality with any value of a comma list, as every filter
    // reads comma lists.
    for p in crate::lists::operators::offered() {
        params.extend(
            fields
                .iter()
                .map(|f| param(&format!("{}{f}", p.prefix), filter(f, p.op))),
        );
    }
    EndpointSemantics {
        tool: String::new(),
        method: "GET".into(),
        path_template: String::new(),
        carrier: Carrier::Query,
        items_pointer: String::new(),
        identity: None,
        universe: "state".into(),
        collation: Collation::Binary,
        default_order: order.into_iter().collect(),
        default_order_evidence: Vec::new(),
        default_page_size: None,
        default_filters: Vec::new(),
        field_name_filters: false,
        lent_operators: Vec::new(),
        params,
        item_fields: Vec::new(),
        base_ordinal: None,
        answers: Vec::new(),
        unexplained: Vec::new(),
        adopted: Vec::new(),
        spelling: Spelling {
            token: Some(TokenFormat::Base64Offset {
                template: TOKEN_TEMPLATE.into(),
                padded: false,
            }),
            ..Spelling::default()
        },
        instances: Vec::new(),
    }
}

/// The entities as the evaluator reads them (their fields, as objects).
pub(crate) fn universe(entities: &[&Entity]) -> Vec<Value> {
    entities
        .iter()
        .map(|e| Value::Object(e.fields.clone()))
        .collect()
}

/// The conventions' page of `entities` for `query` (`""`: the default
/// order alone), or `None` when the conventions do not understand it.
pub(crate) fn page(sem: &EndpointSemantics, query: &str, universe: &[Value]) -> Option<Page> {
    let refs: Vec<&Value> = universe.iter().collect();
    evaluate(sem, &query_params(query), &refs, &HashMap::new()).ok()
}

/// True when the list conventions of `tool` understand the call's query
/// over the collection `world` holds now: the evaluator the server renders
/// the list with (what the replay check checks).
pub fn understands(
    engine: &Engine,
    world: &World,
    tool: &crate::manifest::Tool,
    type_name: &str,
    call: &Call,
) -> bool {
    let (sem, _) = semantics(engine, tool, type_name);
    let held = world.list(type_name, &normalize_path(&call.path));
    let entities: Vec<&Entity> = held.iter().collect();
    page(
        &sem,
        call.query.as_deref().unwrap_or(""),
        &universe(&entities),
    )
    .is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lists::eval::read_app_token;
    use crate::lists::semantics::SortKey;
    use serde_json::json;

    fn sem(fields: &[&str]) -> EndpointSemantics {
        let fields: Vec<String> = fields.iter().map(|f| f.to_string()).collect();
        let order = SortKey {
            field: FieldPath::member("id"),
            descending: false,
        };
        hypotheses(&fields, DEFAULT_TOKEN, Some(order))
    }

    /// The conventions, read by the one evaluator: field equality (typed),
    /// prefixed comparisons, sorting, limits, offsets and their own token.
    #[test]
    fn conventions_filter_sort_and_page_through_the_evaluator() {
        let all = [
            json!({"id": 1, "status": "paid", "total": 5.0, "paid": true}),
            json!({"id": 2, "status": "open", "total": 9.5, "paid": false}),
            json!({"id": 3, "status": "open", "total": 1.0, "paid": false}),
            json!({"id": 4, "status": "paid", "total": 7.0, "paid": true}),
        ];
        let sem = sem(&["id", "status", "total", "paid"]);
        let ids = |q: &str| -> Vec<Value> {
            let page = page(&sem, q, &all).unwrap_or_else(|| panic!("{q}"));
            page.indices.iter().map(|&i| all[i]["id"].clone()).collect()
        };
        assert_eq!(ids(""), vec![json!(1), json!(2), json!(3), json!(4)]);
        assert_eq!(ids("paid=false"), vec![json!(2), json!(3)]);
        assert_eq!(
            ids("_sort=-total&_limit=3"),
            vec![json!(2), json!(4), json!(1)]
        );
        assert_eq!(ids("status=paid&_sort=total"), vec![json!(1), json!(4)]);
        assert_eq!(ids("limit=2&offset=1"), vec![json!(2), json!(3)]);
        assert_eq!(ids("total=9.5"), vec![json!(2)]);
        assert_eq!(ids("min_total=5&lt_total=9"), vec![json!(1), json!(4)]);
        assert_eq!(ids("in_id=1,3"), vec![json!(1), json!(3)]);
        assert_eq!(ids("not_status=paid"), vec![json!(2), json!(3)]);
        let token = crate::lists::eval::app_token(TOKEN_TEMPLATE, false, 3);
        assert_eq!(read_app_token(TOKEN_TEMPLATE, &token), Some(3));
        assert_eq!(ids(&format!("_limit=2&_token={token}")), vec![json!(4)]);
        assert!(page(&sem, "weird=1", &all).is_none());
        assert!(page(&sem, "_limit=x", &all).is_none());
        assert!(page(&sem, "_token=not-ours", &all).is_none());
    }
}
