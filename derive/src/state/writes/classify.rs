//! Which recorded requests may change state, and which effect a write tool's
//! template has on the state (create, update, delete, document or none).

/// The methods that may change state.
pub(crate) const WRITE_METHODS: &[&str] = &["POST", "PUT", "PATCH", "DELETE"];

// One definition of query `POST`s for the whole state: the timeline's
// (a closed segment list, whole segments, ASCII case ignored).
pub(crate) use crate::state::timeline::is_query_post;

/// True when a status (none for an unanswered request) lets a write happen:
/// 2xx, 3xx or absent. A HAR status of 0 means no response and counts as absent.
pub(crate) fn status_may_write(status: Option<u16>) -> bool {
    match status {
        None | Some(0) => true,
        Some(s) => (200..400).contains(&s),
    }
}

/// True when a recorded request may change state: a write method with a
/// 2xx/3xx/absent status that is not a query `POST`.
pub(crate) fn may_change_state(method: &str, path: &str, status: Option<u16>) -> bool {
    WRITE_METHODS.contains(&method) && status_may_write(status) && !is_query_post(method, path)
}

/// True when a tool's requests may change state: a write method that is not
/// a query `POST` (its recorded statuses decide which calls count).
pub(crate) fn is_write_tool(method: &str, path_template: &str) -> bool {
    WRITE_METHODS.contains(&method) && !is_query_post(method, path_template)
}

pub(crate) use crate::state::model::Effect;

/// One segment of a path template: a literal or a parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seg<'a> {
    Lit(&'a str),
    Param,
}

/// Splits a template into non-empty segments (a trailing slash names the
/// same collection), `{name}` segments being parameters.
fn segments(template: &str) -> Vec<Seg<'_>> {
    template
        .split('/')
        .filter(|s| !s.is_empty())
        .map(|s| {
            if s.starts_with('{') && s.ends_with('}') && s.len() >= 2 {
                Seg::Param
            } else {
                Seg::Lit(s)
            }
        })
        .collect()
}

/// True when two templates have the same shape: equal literals, parameters
/// at the same positions (parameter names may differ between tools).
pub(crate) fn same_template(a: &str, b: &str) -> bool {
    segments(a) == segments(b)
}

/// True when `template` is `collection` plus exactly one trailing parameter.
pub(crate) fn is_item_of(template: &str, collection: &str) -> bool {
    let t = segments(template);
    let c = segments(collection);
    t.len() == c.len() + 1 && t.last() == Some(&Seg::Param) && t[..c.len()] == c[..]
}

/// True when a template can name this concrete path (parameters match any
/// one non-empty segment).
pub(crate) fn template_matches_path(template: &str, path: &str) -> bool {
    let t = segments(template);
    let p: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    t.len() == p.len()
        && t.iter().zip(&p).all(|(seg, lit)| match seg {
            Seg::Param => true,
            Seg::Lit(l) => l == lit,
        })
}

/// The effect of a write tool: `create` for a `POST` to a collection
/// template, `update` for `PUT`/`PATCH`/`POST` to that template plus one
/// trailing parameter, `delete` for a `DELETE` there, `document` for
/// `PUT`/`PATCH`/`POST` to a document's path, else `none`. Collections are
/// tried before documents; the first collection that fits wins.
pub(crate) fn classify_effect(
    method: &str,
    template: &str,
    collection_templates: &[&str],
    document_paths: &[&str],
) -> (Effect, Option<usize>) {
    for (i, collection) in collection_templates.iter().enumerate() {
        if method == "POST" && same_template(template, collection) {
            return (Effect::Create, Some(i));
        }
        if is_item_of(template, collection) {
            match method {
                "PUT" | "PATCH" | "POST" => return (Effect::Update, Some(i)),
                "DELETE" => return (Effect::Delete, Some(i)),
                _ => {}
            }
        }
    }
    if matches!(method, "PUT" | "PATCH" | "POST") {
        if let Some(i) = document_paths
            .iter()
            .position(|p| template_matches_path(template, p))
        {
            return (Effect::Document, Some(i));
        }
    }
    (Effect::None, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::timeline::QUERY_SEGMENTS;

    #[test]
    fn write_status_counts_2xx_3xx_and_absent() {
        // STATE-05
        assert!(may_change_state("PUT", "/api/items/1", Some(204)));
        assert!(!may_change_state("PUT", "/api/items/1", Some(422)));
        assert!(may_change_state("POST", "/api/items", Some(302)));
        assert!(may_change_state("DELETE", "/api/items/1", None));
        assert!(may_change_state("PATCH", "/api/items/1", Some(0)));
        assert!(!may_change_state("GET", "/api/items", Some(200)));
        assert!(!may_change_state("DELETE", "/api/items/1", Some(404)));
        assert!(!may_change_state("POST", "/api/items", Some(500)));
    }

    #[test]
    fn query_posts_are_not_writes() {
        // STATE-06
        assert!(is_query_post("POST", "/api/items/search"));
        assert!(!may_change_state("POST", "/api/items/search", Some(200)));
        for s in QUERY_SEGMENTS {
            assert!(is_query_post("POST", &format!("/v1/{s}/x")), "{s}");
        }
        assert!(is_query_post("POST", "/api/items/Search"));
        // Whole segments only, and only POST.
        assert!(!is_query_post("POST", "/api/research"));
        assert!(!is_query_post("POST", "/api/searches"));
        assert!(!is_query_post("PUT", "/api/items/search"));
        assert!(may_change_state("PUT", "/api/items/search", Some(200)));
        // The query string is not a path.
        assert!(!is_query_post("POST", "/api/items?mode=search"));
        assert!(!is_write_tool("POST", "/api/{x}/stats"));
        assert!(is_write_tool("POST", "/api/items"));
    }

    #[test]
    fn effects_follow_templates() {
        let cols = ["/api/items", "/api/boards/{board_id}/cards"];
        let docs = ["/api/settings"];
        // WRITE-02
        assert_eq!(
            classify_effect("POST", "/api/items", &cols, &docs),
            (Effect::Create, Some(0))
        );
        assert_eq!(
            classify_effect("POST", "/api/items/", &cols, &docs),
            (Effect::Create, Some(0))
        );
        assert_eq!(
            classify_effect("POST", "/api/boards/{id}/cards", &cols, &docs),
            (Effect::Create, Some(1))
        );
        // WRITE-03
        for m in ["PUT", "PATCH", "POST"] {
            assert_eq!(
                classify_effect(m, "/api/items/{item_id}", &cols, &docs),
                (Effect::Update, Some(0))
            );
        }
        // WRITE-04
        assert_eq!(
            classify_effect("DELETE", "/api/items/{item_id}", &cols, &docs),
            (Effect::Delete, Some(0))
        );
        // A DELETE of the collection itself is not a delete of one entity.
        assert_eq!(
            classify_effect("DELETE", "/api/items", &cols, &docs).0,
            Effect::None
        );
        // WRITE-05
        assert_eq!(
            classify_effect("PUT", "/api/settings", &cols, &docs),
            (Effect::Document, Some(0))
        );
        assert_eq!(
            classify_effect("DELETE", "/api/settings", &cols, &docs).0,
            Effect::None
        );
        // WRITE-06
        assert_eq!(
            classify_effect("POST", "/api/logout", &cols, &docs),
            (Effect::None, None)
        );
        // Two trailing parameters are not an item of the collection.
        assert_eq!(
            classify_effect("PATCH", "/api/items/{a}/{b}", &cols, &docs).0,
            Effect::None
        );
        // A literal trailing segment is not an item.
        assert_eq!(
            classify_effect("POST", "/api/items/archive", &cols, &docs).0,
            Effect::None
        );
    }

    #[test]
    fn template_shapes() {
        assert!(same_template("/a/{x}/b", "/a/{y}/b/"));
        assert!(!same_template("/a/{x}/b", "/a/x/b"));
        assert!(template_matches_path("/a/{x}", "/a/7"));
        assert!(!template_matches_path("/a/{x}", "/a/7/8"));
    }
}
