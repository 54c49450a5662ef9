//! Page links in the body envelope: a list answer whose next member (and a
//! previous member) holds the absolute URL of the neighbouring page — the
//! request's own URL with the page-number parameter set, its query pairs
//! in the request's order with the page appended, or sorted by name; the
//! first page's link without the parameter, when the app spells it so;
//! `null` at either end, when the app keeps the member there. One function
//! (`link`) spells a link, for the inference that checks the hypothesis
//! against the recording and for the renderer that serves it.

use crate::lists::eval::Page;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How an app spells its page links (the `page-link` token format).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageLink {
    /// The origin the recorded links name (`http://host:port`).
    pub origin: String,
    /// The page-number parameter the links set.
    pub param: String,
    /// True: the query pairs sorted by name; false: in the request's order,
    /// the page appended last.
    pub sorted: bool,
    /// What decided `sorted`: `recorded` (a recorded link tells the two
    /// orders apart), `sibling` (another list endpoint of the app decided
    /// it) or `either` (every recorded link fits both; the request's order
    /// is taken).
    pub order_basis: String,
    /// The member holding the previous page's link, when the app has one.
    pub previous: Option<String>,
    /// True when the link to page 1 leaves the page parameter out.
    pub first_bare: bool,
    /// True when the app keeps the members as `null` where no such page is
    /// (else it leaves them out).
    pub null_at_end: bool,
}

/// The decoded query pairs of a raw query string.
pub fn pairs(query: Option<&str>) -> Vec<(String, String)> {
    url::form_urlencoded::parse(query.unwrap_or("").as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// The link to `page` of the list at `path` asked with `query` pairs.
pub fn link(spec: &PageLink, path: &str, query: &[(String, String)], page: usize) -> String {
    let mut kept: Vec<(String, String)> = query
        .iter()
        .filter(|(k, _)| *k != spec.param)
        .cloned()
        .collect();
    if !(page == 1 && spec.first_bare) {
        kept.push((spec.param.clone(), page.to_string()));
    }
    if spec.sorted {
        kept.sort_by(|a, b| a.0.cmp(&b.0));
    }
    let q = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(kept.iter())
        .finish();
    if q.is_empty() {
        format!("{}{path}", spec.origin)
    } else {
        format!("{}{path}?{q}", spec.origin)
    }
}

/// The page number a page of `size` items starting at `offset` has.
pub fn page_number(offset: usize, size: usize) -> usize {
    offset / size.max(1) + 1
}

/// Sets the envelope's next and previous members to the neighbouring
/// pages' links of `page`, as the app spells them.
pub fn apply(
    spec: &PageLink,
    next_member: &str,
    path: &str,
    query: Option<&str>,
    page: &Page,
    envelope: &mut Value,
) {
    let Some(o) = envelope.as_object_mut() else {
        return;
    };
    let q = pairs(query);
    let size = page.size.filter(|s| *s > 0);
    let current = size.map_or(1, |z| page_number(page.offset, z));
    let next = size
        .filter(|_| page.next_offset.is_some())
        .map(|_| link(spec, path, &q, current + 1));
    let prev = size
        .filter(|_| current > 1)
        .map(|_| link(spec, path, &q, current - 1));
    let mut set = |member: &str, value: Option<String>| match value {
        Some(v) => {
            o.insert(member.to_string(), Value::String(v));
        }
        None if spec.null_at_end => {
            o.insert(member.to_string(), Value::Null);
        }
        None => {
            o.remove(member);
        }
    };
    set(next_member, next);
    if let Some(p) = &spec.previous {
        set(p, prev);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(sorted: bool, first_bare: bool) -> PageLink {
        PageLink {
            origin: "http://127.0.0.1:8000".into(),
            param: "page".into(),
            sorted,
            order_basis: "recorded".into(),
            previous: Some("previous".into()),
            first_bare,
            null_at_end: true,
        }
    }

    #[test]
    fn a_link_sets_the_page_and_sorts_or_appends() {
        let q = pairs(Some("status=todo&page=2&ordering=-priority"));
        assert_eq!(
            link(&spec(true, true), "/api/tasks/", &q, 3),
            "http://127.0.0.1:8000/api/tasks/?ordering=-priority&page=3&status=todo"
        );
        assert_eq!(
            link(&spec(false, true), "/api/tasks/", &q, 3),
            "http://127.0.0.1:8000/api/tasks/?status=todo&ordering=-priority&page=3"
        );
    }

    #[test]
    fn the_first_page_drops_the_parameter_when_the_app_does() {
        let q = pairs(Some("page=2"));
        assert_eq!(
            link(&spec(true, true), "/api/x/", &q, 1),
            "http://127.0.0.1:8000/api/x/"
        );
        assert_eq!(
            link(&spec(true, false), "/api/x/", &q, 1),
            "http://127.0.0.1:8000/api/x/?page=1"
        );
    }

    #[test]
    fn the_ends_are_null_and_the_middle_links_both_ways() {
        let page = |offset, next: Option<usize>| Page {
            indices: vec![],
            total: 25,
            offset,
            size: Some(10),
            next_offset: next,
            fields: None,
            sort: vec![],
            ranked: vec![],
            requested: offset,
        };
        let mut env = serde_json::json!({"count": 25, "next": "x", "previous": "y"});
        apply(
            &spec(true, true),
            "next",
            "/a/",
            None,
            &page(0, Some(10)),
            &mut env,
        );
        assert_eq!(env["next"], "http://127.0.0.1:8000/a/?page=2");
        assert_eq!(env["previous"], Value::Null);
        apply(
            &spec(true, true),
            "next",
            "/a/",
            Some("page=2"),
            &page(10, Some(20)),
            &mut env,
        );
        assert_eq!(env["next"], "http://127.0.0.1:8000/a/?page=3");
        assert_eq!(env["previous"], "http://127.0.0.1:8000/a/");
        apply(
            &spec(true, true),
            "next",
            "/a/",
            Some("page=3"),
            &page(20, None),
            &mut env,
        );
        assert_eq!(env["next"], Value::Null);
        assert_eq!(env["previous"], "http://127.0.0.1:8000/a/?page=2");
    }
}
