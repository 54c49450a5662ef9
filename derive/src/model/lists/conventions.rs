//! The library of common list conventions: parameter names frameworks use
//! for paging, sorting, field selection, search and filter expressions, and
//! the operator spellings of comparison filters. Every entry is only a
//! hypothesis; inference keeps it when the recording confirms it.

use crate::model::lists::semantics::Op;
use serde_json::Value;

/// A role a parameter name conventionally plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    PageSize,
    PageNumber,
    Offset,
    End,
    Cursor,
    Sort,
    SortDescending,
    Columns,
    OmitFields,
    Direction,
    Fields,
    Search,
    FilterLanguage,
}

const TABLE: &[(Role, &[&str])] = &[
    (
        Role::PageSize,
        &[
            "limit",
            "_limit",
            "per_page",
            "perpage",
            "page_size",
            "pagesize",
            "size",
            "max_results",
            "maxresults",
            "top",
            "$top",
            "first",
            "take",
            "count",
            "_count",
            "page[size]",
            "page[limit]",
            "_size",
        ],
    ),
    (
        Role::PageNumber,
        &[
            "page",
            "_page",
            "page_number",
            "pagenumber",
            "pageno",
            "page[number]",
        ],
    ),
    (
        Role::Offset,
        &[
            "offset",
            "_offset",
            "start",
            "_start",
            "skip",
            "$skip",
            "page[offset]",
        ],
    ),
    (Role::End, &["_end"]),
    (
        Role::Cursor,
        &[
            "_token",
            "token",
            "page_token",
            "pagetoken",
            "next_page_token",
            "cursor",
            "next",
            "after",
            "continuation",
            "continuation_token",
            "starting_after",
            "marker",
            "page[cursor]",
            "_since_token",
        ],
    ),
    (
        Role::Sort,
        &[
            "sort", "_sort", "order_by", "orderby", "sort_by", "sortby", "ordering", "$orderby",
            "order",
        ],
    ),
    (Role::Columns, &["_col", "_cols", "col", "cols"]),
    (
        Role::OmitFields,
        &["_nocol", "nocol", "_omit", "omit", "exclude_fields"],
    ),
    (
        Role::SortDescending,
        &["_sort_desc", "sort_desc", "sortdesc", "order_desc"],
    ),
    (
        Role::Direction,
        &[
            "order",
            "_order",
            "dir",
            "direction",
            "sort_order",
            "sortorder",
            "sort_dir",
            "sortdir",
        ],
    ),
    (
        Role::Fields,
        &["_fields", "fields", "select", "$select", "only", "_only"],
    ),
    (
        Role::Search,
        &[
            "search", "q", "query", "s", "$search", "term", "keyword", "keywords",
        ],
    ),
    (
        Role::FilterLanguage,
        &["filter", "filter_string", "$filter", "where", "filters"],
    ),
];

/// The conventional roles of a name (lower-cased), in table order.
pub(crate) fn roles(name: &str) -> Vec<Role> {
    let lower = name.to_ascii_lowercase();
    TABLE
        .iter()
        .filter(|(_, names)| names.contains(&lower.as_str()))
        .map(|(r, _)| *r)
        .collect()
}

/// The names the library gives a role, in table order.
pub(crate) fn names(role: Role) -> Vec<&'static str> {
    TABLE
        .iter()
        .filter(|(r, _)| *r == role)
        .flat_map(|(_, names)| names.iter().copied())
        .collect()
}

/// True for a sort direction value (`asc`, `desc`).
pub(crate) fn is_direction(v: &Value) -> bool {
    v.as_str().is_some_and(|s| {
        matches!(
            s.to_ascii_lowercase().as_str(),
            "asc" | "desc" | "ascending" | "descending"
        )
    })
}

/// Member-name parts that mark a time (default orders usually follow one).
pub(crate) const TIME_WORDS: &[&str] = &["date", "time", "created", "modified", "updated", "_at"];

/// Body members naming the next page's token.
pub(crate) const NEXT_MEMBER_WORDS: &[&str] = &[
    "next_page_token",
    "nextpagetoken",
    "next_token",
    "cursor",
    "continuation",
    "next",
];

/// Body members holding the number of matches.
pub(crate) const TOTAL_MEMBERS: &[&str] = &[
    "total",
    "total_count",
    "totalcount",
    "count",
    "total_results",
    "totalresults",
    "total_items",
    "totalitems",
    "hits",
    "item_count",
];

const SUFFIXES: &[(&str, Op)] = &[
    ("__gte", Op::Gte),
    ("__gt", Op::Gt),
    ("__lte", Op::Lte),
    ("__lt", Op::Lt),
    ("__ne", Op::Ne),
    ("__contains", Op::Like),
    ("__in", Op::Eq),
    ("_gte", Op::Gte),
    ("_gt", Op::Gt),
    ("_lte", Op::Lte),
    ("_lt", Op::Lt),
    ("_ne", Op::Ne),
    ("_like", Op::Like),
    ("[gte]", Op::Gte),
    ("[gt]", Op::Gt),
    ("[lte]", Op::Lte),
    ("[lt]", Op::Lt),
    ("[ne]", Op::Ne),
    ("_min", Op::Gte),
    ("_max", Op::Lte),
];

/// Spellings that go together: a kept one lends the others of its family
/// (`_gte` kept: `_gt`, `_lte`, `_lt`, `_ne`, `_like`). (affix, prefix?)
const FAMILIES: &[&[&str]] = &[
    &[
        "__gte",
        "__gt",
        "__lte",
        "__lt",
        "__ne",
        "__contains",
        "__in",
    ],
    &["_gte", "_gt", "_lte", "_lt", "_ne", "_like"],
    &["[gte]", "[gt]", "[lte]", "[lt]", "[ne]"],
    &["_min", "_max"],
    &["min_", "max_"],
    &["gt_", "lt_", "gte_", "lte_", "not_"],
];

/// One spelling of a family: the affix, whether it is a prefix, its operator.
pub(crate) type Affix = (&'static str, bool, Op);

/// The family of the operator spelling of `name` (its field name and
/// every affix of the family with its operator and whether it is a
/// prefix), when the name spells one.
pub(crate) fn operator_family(name: &str) -> Option<(&str, Vec<Affix>)> {
    let (field, _) = operator_spelling(name)?;
    let affix = name
        .strip_prefix(field)
        .or_else(|| name.strip_suffix(field))?;
    let family = FAMILIES.iter().find(|f| f.contains(&affix))?;
    let op_of = |a: &str| {
        SUFFIXES
            .iter()
            .copied()
            .chain(prefixes())
            .find(|(s, _)| *s == a)
            .map(|(_, op)| op)
    };
    Some((
        field,
        family
            .iter()
            .filter_map(|a| Some((*a, a.ends_with('_'), op_of(a)?)))
            .collect(),
    ))
}

/// A name spelled as a field plus an operator (`price_gte`, `age__lt`,
/// `price[gt]`, `min_price`, `not_status`): the field name and operator.
pub(crate) fn operator_spelling(name: &str) -> Option<(&str, Op)> {
    for (s, op) in SUFFIXES {
        if let Some(f) = name.strip_suffix(s).filter(|f| !f.is_empty()) {
            return Some((f, *op));
        }
    }
    for (p, op) in prefixes() {
        if let Some(f) = name.strip_prefix(p).filter(|f| !f.is_empty()) {
            return Some((f, op));
        }
    }
    None
}

/// The operator prefixes a recorded name is read by (the engine's one
/// table, `rea_engine::lists::operators`).
fn prefixes() -> impl Iterator<Item = (&'static str, Op)> {
    rea_engine::lists::operators::read().map(|p| (p.prefix, p.op))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operator_spellings() {
        assert_eq!(operator_spelling("price_gte"), Some(("price", Op::Gte)));
        assert_eq!(operator_spelling("age__lt"), Some(("age", Op::Lt)));
        assert_eq!(operator_spelling("price[gt]"), Some(("price", Op::Gt)));
        assert_eq!(operator_spelling("min_total"), Some(("total", Op::Gte)));
        assert_eq!(operator_spelling("not_status"), Some(("status", Op::Ne)));
        assert_eq!(operator_spelling("status"), None);
        assert_eq!(roles("order"), vec![Role::Sort, Role::Direction]);
    }
}
