//! The timeline (primary-origin records by start time, or record order when
//! any start time is missing), which requests may change state, and the
//! roots whose first write ends a type's initial state.

use crate::engine::{compile, path_segments, Segment};
use crate::manifest::Tool;
use crate::state::records::Record;
use std::collections::HashMap;

/// Path segments that make a `POST` a query of state rather than a write.
/// The list is closed; a segment matches when it equals one of these
/// words exactly, ignoring ASCII case (`Search` matches, `searches` and
/// `_search` do not).
pub(crate) const QUERY_SEGMENTS: &[&str] =
    &["search", "query", "list", "find", "fuzzy", "count", "stats"];

/// True when a path segment names a query.
pub(crate) fn is_query_segment(segment: &str) -> bool {
    QUERY_SEGMENTS
        .iter()
        .any(|q| q.eq_ignore_ascii_case(segment))
}

/// True for a `POST` whose path has a query segment.
pub(crate) fn is_query_post(method: &str, path: &str) -> bool {
    method.eq_ignore_ascii_case("POST") && path_segments(path).into_iter().any(is_query_segment)
}

/// True for a method that may change state.
pub(crate) fn is_mutating_method(method: &str) -> bool {
    matches!(
        method.to_ascii_uppercase().as_str(),
        "POST" | "PUT" | "PATCH" | "DELETE"
    )
}

/// True when a tool's requests may change state (a write tool): a
/// mutating method that is not a query `POST`.
pub(crate) fn is_write_tool(tool: &Tool) -> bool {
    is_mutating_method(&tool.method) && !is_query_post(&tool.method, &tool.path_template)
}

/// True when a recorded request may change state: a mutating method, a
/// 2xx or 3xx status or none, and not a query `POST`.
pub(crate) fn is_state_write(rec: &Record) -> bool {
    if !is_mutating_method(&rec.method) {
        return false;
    }
    if !matches!(rec.status, None | Some(200..=399)) {
        return false;
    }
    match &rec.path {
        Some(p) => !is_query_post(&rec.method, p),
        None => rec.url_redacted,
    }
}

/// A `v1`-style version segment: `v` followed by a digit, then letters or digits
/// (`v1`, `v2beta1`).
pub(crate) fn is_version_segment(segment: &str) -> bool {
    let mut chars = segment.chars();
    chars.next() == Some('v')
        && chars.next().is_some_and(|c| c.is_ascii_digit())
        && chars.all(|c| c.is_ascii_alphanumeric())
}

/// The primary-origin timeline.
#[derive(Debug, Clone)]
pub(crate) struct Timeline {
    /// Indexes into the records slice, in timeline order.
    pub order: Vec<usize>,
    /// True when ordered by start time.
    pub by_start_time: bool,
    /// Position of each record ordinal in `order`.
    pub position: HashMap<u64, usize>,
}

impl Timeline {
    /// Orders the records on `origin` (and those whose URL was redacted).
    pub(crate) fn new(records: &[Record], origin: &str) -> Timeline {
        let mut order: Vec<usize> = records
            .iter()
            .enumerate()
            .filter(|(_, r)| r.origin.as_deref() == Some(origin) || r.url_redacted)
            .map(|(i, _)| i)
            .collect();
        let by_start_time = order.iter().all(|&i| records[i].started_ms.is_some());
        if by_start_time {
            order.sort_by(|&a, &b| {
                let (x, y) = (
                    records[a].started_ms.unwrap_or(0.0),
                    records[b].started_ms.unwrap_or(0.0),
                );
                x.total_cmp(&y)
            });
        }
        let position = order
            .iter()
            .enumerate()
            .map(|(p, &i)| (records[i].ordinal, p))
            .collect();
        Timeline {
            order,
            by_start_time,
            position,
        }
    }
}

/// Roots: per first path segment, the API base (the literal segments every
/// tool sharing that first segment has).
#[derive(Debug, Clone, Default)]
pub(crate) struct Roots {
    bases: HashMap<String, Vec<String>>,
}

impl Roots {
    pub(crate) fn new(tools: &[Tool]) -> Roots {
        let mut bases: HashMap<String, Vec<String>> = HashMap::new();
        for t in tools {
            let literals: Vec<String> = compile(&t.path_template)
                .into_iter()
                .map_while(|s| match s {
                    Segment::Literal(l) => Some(l),
                    Segment::Param(_) => None,
                })
                .collect();
            let Some(first) = literals.first().cloned() else {
                continue;
            };
            match bases.get_mut(&first) {
                None => {
                    bases.insert(first, literals);
                }
                Some(base) => {
                    let common = base
                        .iter()
                        .zip(&literals)
                        .take_while(|(a, b)| a == b)
                        .count();
                    base.truncate(common);
                }
            }
        }
        Roots { bases }
    }

    /// The root of a path: its API base, then any version segments, then one
    /// more segment (fewer when the path is shorter).
    pub(crate) fn root_of(&self, path: &str) -> String {
        let segs = path_segments(path);
        let Some(first) = segs.first() else {
            return "/".to_string();
        };
        let base_len = self
            .bases
            .get(*first)
            .map(|b| b.iter().zip(&segs).take_while(|(a, b)| a == *b).count())
            .unwrap_or(1)
            .max(1);
        let mut end = base_len.min(segs.len());
        while end < segs.len() && is_version_segment(segs[end]) {
            end += 1;
        }
        end = (end + 1).min(segs.len());
        format!("/{}", segs[..end].join("/"))
    }
}

/// True when one root is at or under the other (segment-wise prefix), so a
/// write under one may change what the other holds.
pub(crate) fn roots_related(a: &str, b: &str) -> bool {
    let x = path_segments(a);
    let y = path_segments(b);
    let n = x.len().min(y.len());
    x[..n] == y[..n]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(method: &str, template: &str) -> Tool {
        Tool {
            name: template.into(),
            method: method.into(),
            path_template: template.into(),
            api_surface_template: template.into(),
            params: vec![],
            query_parameter_names: vec![],
            body_shape: None,
            statuses: vec![],
            content_types: vec![],
            record_ordinals: vec![],
        }
    }

    #[test]
    fn query_segments_are_whole_and_case_insensitive() {
        assert!(is_query_post("POST", "/api/items/search"));
        assert!(is_query_post("post", "/api/items/Search/"));
        assert!(!is_query_post("POST", "/api/items/searches"));
        assert!(!is_query_post("POST", "/api/items/_search"));
        assert!(!is_query_post("POST", "/api/research"));
        assert!(!is_query_post("GET", "/api/items/search"));
        for w in QUERY_SEGMENTS {
            assert!(is_query_post("POST", &format!("/x/{w}")));
        }
    }

    #[test]
    fn roots_use_the_api_base_versions_and_one_more_segment() {
        let tools = vec![
            tool("GET", "/api/v1/books"),
            tool("GET", "/api/v1/authors/{id}"),
            tool("GET", "/other/x"),
        ];
        let roots = Roots::new(&tools);
        assert_eq!(roots.root_of("/api/v1/books/7/pages"), "/api/v1/books");
        assert_eq!(roots.root_of("/api/v1/authors"), "/api/v1/authors");
        assert!(!roots_related(
            &roots.root_of("/api/v1/books"),
            &roots.root_of("/api/v1/authors/3")
        ));
        let kinto = vec![
            tool("GET", "/v1/"),
            tool("GET", "/v1/buckets/shop"),
            tool("POST", "/v1/buckets/shop/collections/products/records"),
        ];
        let roots = Roots::new(&kinto);
        assert_eq!(
            roots.root_of("/v1/buckets/shop/collections/orders/records"),
            "/v1/buckets"
        );
        assert_eq!(roots.root_of("/v1/"), "/v1");
        let api = vec![tool("GET", "/api/items"), tool("GET", "/api/settings")];
        let roots = Roots::new(&api);
        assert_eq!(roots.root_of("/api/v2/items/3"), "/api/v2/items");
        assert!(roots_related("/api/items", "/api/items/3"));
    }

    #[test]
    fn version_segments() {
        assert!(is_version_segment("v1"));
        assert!(is_version_segment("v2beta1"));
        assert!(!is_version_segment("v"));
        assert!(!is_version_segment("vx1"));
        assert!(!is_version_segment("V1"));
    }

    #[test]
    fn writes_by_method_and_status() {
        let mut r = Record::from_entry(
            0,
            &serde_json::json!({"request":{"method":"PUT","url":"http://h/api/items/1"},"response":{"status":204}}),
        );
        assert!(is_state_write(&r));
        r.status = Some(422);
        assert!(!is_state_write(&r));
        r.status = None;
        assert!(is_state_write(&r));
        r.status = Some(302);
        assert!(is_state_write(&r));
        r.method = "GET".into();
        assert!(!is_state_write(&r));
        r.method = "POST".into();
        r.path = Some("/api/items/search".into());
        assert!(!is_state_write(&r));
    }
}
