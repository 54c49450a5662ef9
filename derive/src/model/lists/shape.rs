//! Answer shapes a list parameter selects (`rea_engine::lists::shape`):
//! an app that answers its list in an envelope (`{"rows": [...], ...}`)
//! and, for some value of one parameter, the listed items alone (a bare
//! array). A hypothesis from the data only: it is offered when the
//! parameter's values split the recorded answers exactly, every answer
//! with one of the values bare and every other answer (other values, or
//! no such parameter) the envelope. The items of either shape are then
//! checked like any other instance's.

use crate::model::lists::instances::Endpoint;
use crate::model::lists::semantics::Meaning;
use serde_json::Value;

/// The answer is the listed items alone: a bare array of objects, where
/// the endpoint's list sits in a member of an envelope.
pub(crate) fn is_bare(ep: &Endpoint, body: &Value) -> bool {
    !ep.items_pointer.is_empty()
        && body
            .as_array()
            .is_some_and(|a| a.iter().all(Value::is_object))
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `BareItems` for parameter `name`, when its values split the endpoint's
/// recorded answers into bare and envelope exactly (some of each shape).
pub(crate) fn candidate(name: &str, ep: &Endpoint) -> Option<Meaning> {
    if ep.items_pointer.is_empty() {
        return None;
    }
    let mut bare_values: Vec<String> = Vec::new();
    let mut envelope_values: Vec<String> = Vec::new();
    let mut envelopes = 0usize;
    for i in &ep.instances {
        let bare = is_bare(ep, &i.body);
        let envelope = i
            .body
            .pointer(&ep.items_pointer)
            .is_some_and(Value::is_array);
        let values: Vec<String> = i
            .params
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| text(v))
            .collect();
        match (bare, envelope) {
            (true, _) => {
                // A bare answer names its shape with exactly one value.
                let [v] = values.as_slice() else { return None };
                if !bare_values.contains(v) {
                    bare_values.push(v.clone());
                }
            }
            (false, true) => {
                envelopes += 1;
                for v in values {
                    if !envelope_values.contains(&v) {
                        envelope_values.push(v);
                    }
                }
            }
            (false, false) => return None,
        }
    }
    if bare_values.is_empty()
        || envelopes == 0
        || bare_values.iter().any(|v| envelope_values.contains(v))
    {
        return None;
    }
    bare_values.sort();
    Some(Meaning::BareItems {
        values: bare_values,
    })
}

/// The listed items of a bare answer, moved out of it (an empty array is
/// left, still bare); `None` for any other answer.
pub(crate) fn take_bare_items(ep_pointer: &str, body: &mut Value) -> Option<Vec<Value>> {
    if ep_pointer.is_empty() {
        return None;
    }
    body.as_array_mut()
        .filter(|a| a.iter().all(Value::is_object))
        .map(std::mem::take)
}

/// The items pointer once an answer `body` is seen, given the pointer the
/// answers before it gave (`Some("")`: a bare array): an envelope's single
/// member holding an array replaces the root, any other answer keeps it.
pub(crate) fn envelope_pointer(body: &Value, before: Option<String>) -> Option<String> {
    let before = before?;
    let obj = body.as_object()?;
    let members: Vec<&String> = obj
        .iter()
        .filter(|(_, v)| v.as_array().is_some_and(|a| a.iter().all(Value::is_object)))
        .map(|(k, _)| k)
        .collect();
    match members.as_slice() {
        [m] if before.is_empty() => Some(format!("/{}", crate::pointer_token(m))),
        _ => Some(before),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_envelope_after_a_bare_answer_names_the_member() {
        let envelope = json!({"ok": true, "next": null, "rows": [{"id": 1}]});
        assert_eq!(
            envelope_pointer(&envelope, Some(String::new())).as_deref(),
            Some("/rows")
        );
        // A pointer already a member stays; nothing before gives nothing.
        assert_eq!(
            envelope_pointer(&envelope, Some("/items".into())).as_deref(),
            Some("/items")
        );
        assert_eq!(envelope_pointer(&envelope, None), None);
        let mut bare = json!([{"id": 1}]);
        assert_eq!(
            take_bare_items("/rows", &mut bare),
            Some(vec![json!({"id": 1})])
        );
        assert_eq!(bare, json!([]));
        let mut root = json!([{"id": 1}]);
        assert_eq!(take_bare_items("", &mut root), None);
        assert_eq!(take_bare_items("/rows", &mut json!([1, {"id": 1}])), None);
    }
}
