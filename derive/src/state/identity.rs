//! Identity: where an item response holds its entity and which field names
//! it (`path-parameter`), where a list response holds its list, and which
//! field identifies listed items (`field-name`).

use crate::engine::id_matches;
use serde_json::{Map, Value};

/// Identity names, in the order they are tried.
pub(crate) const IDENTITY_NAMES: &[&str] = &[
    "id", "uid", "uuid", "_id", "ID", "UID", "Id", "guid", "key", "slug", "name",
];

/// True for a field name ending in `Id` or `_id`.
pub(crate) fn is_suffix_name(name: &str) -> bool {
    (name.ends_with("Id") && name.len() > 2) || (name.ends_with("_id") && name.len() > 3)
}

fn is_id_value(v: &Value) -> bool {
    matches!(v, Value::String(_) | Value::Number(_))
}

/// Where an item response holds the entity named by `requested`: the
/// `(pointer, field)` pairs that qualify, in preference order: the root,
/// then each object member in its order, then (failing both) a
/// one-element array at the root or in one member, whose field must be an
/// identity name. Fields are tried in identity-name order, then key order.
pub(crate) fn item_candidates(response: &Value, requested: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let push_object = |pointer: String,
                       obj: &Map<String, Value>,
                       identity_only: bool,
                       out: &mut Vec<(String, String)>| {
        for field in matching_fields(obj, requested, identity_only) {
            out.push((pointer.clone(), field));
        }
    };
    if let Value::Object(root) = response {
        push_object(String::new(), root, false, &mut out);
        for (k, v) in root {
            if let Value::Object(obj) = v {
                push_object(format!("/{}", escape(k)), obj, false, &mut out);
            }
        }
    }
    if !out.is_empty() {
        return out;
    }
    match response {
        Value::Array(items) if items.len() == 1 => {
            if let Value::Object(obj) = &items[0] {
                push_object("/0".to_string(), obj, true, &mut out);
            }
        }
        Value::Object(root) => {
            for (k, v) in root {
                if let Value::Array(items) = v {
                    if let [Value::Object(obj)] = items.as_slice() {
                        push_object(format!("/{}/0", escape(k)), obj, true, &mut out);
                    }
                }
            }
        }
        _ => {}
    }
    out
}

fn matching_fields(obj: &Map<String, Value>, requested: &str, identity_only: bool) -> Vec<String> {
    let mut fields: Vec<String> = IDENTITY_NAMES
        .iter()
        .filter(|n| obj.get(**n).is_some_and(|v| id_matches(v, requested)))
        .map(|n| n.to_string())
        .collect();
    if !identity_only {
        for (k, v) in obj {
            if !fields.contains(k) && id_matches(v, requested) {
                fields.push(k.clone());
            }
        }
    }
    fields
}

/// Escapes a member name for a JSON pointer.
pub(crate) fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// The `(pointer, field)` every response holds its requested value at, in
/// preference order of the first response; `None` when none is shared.
pub(crate) fn prove_item(responses: &[(&Value, &str)]) -> Option<(String, String)> {
    let mut iter = responses.iter();
    let (first, requested) = iter.next()?;
    let mut shared = item_candidates(first, requested);
    for (response, requested) in iter {
        let here = item_candidates(response, requested);
        shared.retain(|c| here.contains(c));
    }
    shared.into_iter().next()
}

/// The array candidates of one response: `""` for a root array, else each
/// member holding an array of objects (or an empty array) when the root
/// object is not itself an entity (it carries no identity name).
pub(crate) fn list_candidates(response: &Value) -> Vec<String> {
    match response {
        Value::Array(_) => vec![String::new()],
        Value::Object(root) => {
            if IDENTITY_NAMES
                .iter()
                .any(|n| root.get(*n).is_some_and(is_id_value))
            {
                return Vec::new();
            }
            root.iter()
                .filter(
                    |(_, v)| matches!(v, Value::Array(items) if items.iter().all(Value::is_object)),
                )
                .map(|(k, _)| format!("/{}", escape(k)))
                .collect()
        }
        _ => Vec::new(),
    }
}

/// The objects of the array at `pointer` (`None` when it is no array of objects).
pub(crate) fn list_at<'a>(
    response: &'a Value,
    pointer: &str,
) -> Option<Vec<&'a Map<String, Value>>> {
    let items = response.pointer(pointer)?.as_array()?;
    items.iter().map(Value::as_object).collect()
}

/// The first identity name every listed item carries as a string or
/// number, distinct within each list. Empty lists constrain nothing.
pub(crate) fn identity_name_field(lists: &[Vec<&Map<String, Value>>]) -> Option<String> {
    if lists.iter().all(Vec::is_empty) {
        return None;
    }
    IDENTITY_NAMES
        .iter()
        .find(|n| identifies(lists, n))
        .map(|n| n.to_string())
}

/// The first key of the first listed item ending in `Id` or `_id` that
/// every item carries as a distinct string or number, and that at least
/// one list shows with two or more distinct values.
pub(crate) fn suffix_field(lists: &[Vec<&Map<String, Value>>]) -> Option<String> {
    let first = lists.iter().find_map(|l| l.first())?;
    first
        .keys()
        .filter(|k| is_suffix_name(k))
        .find(|k| identifies(lists, k) && lists.iter().any(|l| l.len() >= 2))
        .cloned()
}

/// True when every item of every list carries `field` as a string or
/// number, distinct within its list.
pub(crate) fn identifies(lists: &[Vec<&Map<String, Value>>], field: &str) -> bool {
    lists.iter().all(|list| {
        let mut seen: Vec<&Value> = Vec::with_capacity(list.len());
        list.iter().all(|item| match item.get(field) {
            Some(v) if is_id_value(v) => {
                if seen.contains(&v) {
                    false
                } else {
                    seen.push(v);
                    true
                }
            }
            _ => false,
        })
    })
}

/// Chooses a list tool's array pointer from its responses: a pointer every
/// response holds an array of objects at; among several, one an identity
/// name identifies, then one of two or more items a suffix-named field
/// identifies; a single candidate is taken as it is.
pub(crate) fn choose_list_pointer(responses: &[&Value]) -> Option<String> {
    let mut candidates: Vec<String> = Vec::new();
    for r in responses {
        for c in list_candidates(r) {
            if !candidates.contains(&c) {
                candidates.push(c);
            }
        }
    }
    candidates.retain(|c| {
        responses
            .iter()
            .all(|r| list_at(r, c).is_some() && list_candidates(r).contains(c))
    });
    // Arrays that are empty in every response say nothing.
    let nonempty: Vec<String> = candidates
        .iter()
        .filter(|c| {
            responses
                .iter()
                .any(|r| list_at(r, c).is_some_and(|l| !l.is_empty()))
        })
        .cloned()
        .collect();
    let lists_of = |c: &str| -> Vec<Vec<&Map<String, Value>>> {
        responses.iter().filter_map(|r| list_at(r, c)).collect()
    };
    if let Some(c) = nonempty
        .iter()
        .find(|c| identity_name_field(&lists_of(c)).is_some())
    {
        return Some(c.clone());
    }
    if let Some(c) = nonempty
        .iter()
        .find(|c| suffix_field(&lists_of(c)).is_some())
    {
        return Some(c.clone());
    }
    if nonempty.len() == 1 {
        return nonempty.into_iter().next();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn item_at_root_or_member() {
        let r = json!({"id": 7, "name": "x"});
        assert_eq!(prove_item(&[(&r, "7")]), Some((String::new(), "id".into())));
        let r = json!({"data": {"id": "7"}, "meta": {}});
        assert_eq!(
            prove_item(&[(&r, "7")]),
            Some(("/data".into(), "id".into()))
        );
        let r = json!({"name": "x"});
        assert_eq!(prove_item(&[(&r, "7")]), None);
    }

    #[test]
    fn one_element_arrays_need_an_identity_name() {
        let r = json!({"posts": [{"id": 7}]});
        assert_eq!(
            prove_item(&[(&r, "7")]),
            Some(("/posts/0".into(), "id".into()))
        );
        let r = json!({"data": [{"postId": 7}]});
        assert_eq!(prove_item(&[(&r, "7")]), None);
        let r = json!([{"slug": "a"}]);
        assert_eq!(prove_item(&[(&r, "a")]), Some(("/0".into(), "slug".into())));
        let r = json!([{"id": 1}, {"id": 7}]);
        assert_eq!(prove_item(&[(&r, "7")]), None);
    }

    #[test]
    fn every_response_must_agree() {
        let a = json!({"id": 7, "code": "7"});
        let b = json!({"id": 8, "code": "x"});
        assert_eq!(
            prove_item(&[(&a, "7"), (&b, "8")]),
            Some((String::new(), "id".into()))
        );
        let c = json!({"code": "9", "id": 1});
        assert_eq!(
            prove_item(&[(&a, "7"), (&c, "9")]),
            Some((String::new(), "code".into()))
        );
    }

    #[test]
    fn identity_names_in_order() {
        let l = json!([{"slug": "a", "name": "A"}, {"slug": "b", "name": "B"}]);
        let list = list_at(&l, "").unwrap();
        assert_eq!(identity_name_field(&[list]), Some("slug".into()));
        let l = json!([{"id": 1, "name": "A"}, {"id": 1, "name": "B"}]);
        assert_eq!(
            identity_name_field(&[list_at(&l, "").unwrap()]),
            Some("name".into())
        );
    }

    #[test]
    fn suffix_fields_need_two_distinct_values() {
        let l = json!([{"orgId": 1, "user_id": 5}, {"orgId": 1, "user_id": 6}]);
        assert_eq!(
            suffix_field(&[list_at(&l, "").unwrap()]),
            Some("user_id".into())
        );
        let one = json!([{"user_id": 5}]);
        assert_eq!(suffix_field(&[list_at(&one, "").unwrap()]), None);
        assert_eq!(identity_name_field(&[list_at(&one, "").unwrap()]), None);
    }

    #[test]
    fn empty_lists_constrain_nothing() {
        let e = json!([]);
        let l = json!([{"id": 1}, {"id": 2}]);
        assert_eq!(
            identity_name_field(&[list_at(&e, "").unwrap(), list_at(&l, "").unwrap()]),
            Some("id".into())
        );
        assert_eq!(identity_name_field(&[list_at(&e, "").unwrap()]), None);
    }

    #[test]
    fn list_pointer_prefers_identified_arrays() {
        let r = json!({"items": [{"id": 1}, {"id": 2}], "tags": [{"t": "a"}]});
        assert_eq!(choose_list_pointer(&[&r]), Some("/items".into()));
        let r = json!({"tags": [{"t": "a"}], "rows": [{"a_id": 1}, {"a_id": 2}]});
        assert_eq!(choose_list_pointer(&[&r]), Some("/rows".into()));
        let r = json!({"a": [{"t": "a"}], "b": [{"t": "b"}]});
        assert_eq!(choose_list_pointer(&[&r]), None);
        let entity = json!({"id": 1, "children": [{"id": 2}]});
        assert_eq!(choose_list_pointer(&[&entity]), None);
        let e = json!({"data": []});
        let l = json!({"data": [{"id": "a"}]});
        assert_eq!(choose_list_pointer(&[&e, &l]), Some("/data".into()));
    }
}
