//! Required members answered in the app's keyed error shape: a refused
//! create whose answer is an object keyed by exactly the members it lacked
//! (each a member every accepted create of the route sent), every key with
//! the same message (`{"title": ["This field is required."], "project":
//! […]}`, as DRF and Rails answer), is a per-member template. A create that
//! lacks some of those members is answered with one such entry per missing
//! member, in the recorded answer's order. The rule comes from
//! `validation` (kind `required`); this module only serves it.

use super::validation::Rule;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The recorded refusals by ordinal (status and answer).
pub(crate) type Refusals = BTreeMap<u64, (u16, Option<Value>)>;

/// The keyed template of a recorded answer: its member names in order and
/// the one message they all carry.
fn keyed_template(answer: &Value) -> Option<(Vec<&String>, &Value)> {
    let o = answer.as_object().filter(|o| !o.is_empty())?;
    let message = o.values().next()?;
    o.values()
        .all(|v| v == message)
        .then(|| (o.keys().collect(), message))
}

/// The app's answer to a `method` on `route` whose body `sent` lacks
/// members a `required` rule with a keyed answer names; `None` when it
/// lacks none of them.
pub(crate) fn refusal(
    rules: &[Rule],
    refusals: &Refusals,
    method: &str,
    route: &str,
    sent: &Map<String, Value>,
) -> Option<(u16, Value)> {
    rules
        .iter()
        .filter(|r| r.kind == "required" && r.method == method && r.route == route)
        .find_map(|rule| {
            let (status, answer) = refusals.get(&rule.answer_ordinal)?;
            let (members, message) = keyed_template(answer.as_ref()?)?;
            let missing: Map<String, Value> = members
                .into_iter()
                .filter(|m| !sent.contains_key(*m))
                .map(|m| (m.clone(), message.clone()))
                .collect();
            (!missing.is_empty()).then(|| (*status, Value::Object(missing)))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rule() -> Rule {
        Rule {
            resource: "tasks".into(),
            method: "POST".into(),
            route: "/api/tasks".into(),
            kind: "required".into(),
            member: Some("project".into()),
            status: 400,
            answer_ordinal: 7,
            checked_against: vec![3],
            conflicts_with: None,
        }
    }

    #[test]
    fn each_missing_member_gets_the_message_in_the_recorded_order() {
        let msg = json!(["This field is required."]);
        let mut refusals = Refusals::new();
        refusals.insert(7, (400, Some(json!({"title": msg, "project": msg}))));
        let sent = json!({"title": "x"});
        let (status, body) = refusal(
            &[rule()],
            &refusals,
            "POST",
            "/api/tasks",
            sent.as_object().unwrap(),
        )
        .expect("refused");
        assert_eq!(status, 400);
        assert_eq!(body, json!({"project": ["This field is required."]}));
        let full = json!({"title": "x", "project": 1});
        assert!(refusal(
            &[rule()],
            &refusals,
            "POST",
            "/api/tasks",
            full.as_object().unwrap()
        )
        .is_none());
    }

    #[test]
    fn an_answer_with_differing_messages_is_no_template() {
        let mut refusals = Refusals::new();
        refusals.insert(7, (400, Some(json!({"title": ["a"], "project": ["b"]}))));
        let sent = json!({});
        assert!(refusal(
            &[rule()],
            &refusals,
            "POST",
            "/api/tasks",
            sent.as_object().unwrap()
        )
        .is_none());
    }
}
