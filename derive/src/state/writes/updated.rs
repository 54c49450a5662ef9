//! Explaining an update: members stored as sent (`echo`), members stored
//! differently (`body.fixed` with a `constant` value), and fields changed
//! without being sent (`clock`, `increment`, `slug`), else
//! `unexplained-change`. Increments and slugs must hold for every call.

use super::created::rule;
use super::shapes::{clock_near, slug_separator};
use crate::state::model::{FieldRule, FixedMember, Rule};
use serde_json::{Map, Value};

/// One observed update call: what it sent, the entity before (its last
/// observation, if any) and the entity after (the call's answer or a later
/// read before the next write).
#[derive(Debug, Clone, Copy)]
pub(crate) struct UpdateObservation<'a> {
    pub body: &'a Map<String, Value>,
    pub before: Option<&'a Map<String, Value>>,
    pub after: &'a Map<String, Value>,
    pub request_ms: Option<i64>,
}

/// The explained update: per-field rules and the fixed members.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct UpdateRules {
    pub rules: Vec<FieldRule>,
    pub fixed: Vec<FixedMember>,
}

/// Explains the first call; `others` are the tool's later successful calls
/// with observations, against which increments and slugs are verified.
/// `Err(field)` names the first field no rule explains (`unexplained-change`).
pub(crate) fn explain_update(
    first: &UpdateObservation<'_>,
    others: &[UpdateObservation<'_>],
) -> Result<UpdateRules, String> {
    let mut out = UpdateRules::default();
    for (member, sent) in first.body {
        match first.after.get(member) {
            Some(stored) if stored == sent => {
                let echo = Rule::Echo {
                    member: member.clone(),
                };
                out.rules.push(rule(member, echo))
            }
            Some(stored) => {
                out.fixed.push(FixedMember {
                    member: member.clone(),
                    sent: sent.clone(),
                    value: stored.clone(),
                });
                let constant = Rule::Constant {
                    value: stored.clone(),
                    member: member.clone(),
                };
                out.rules.push(rule(member, constant));
            }
            // Sent but never stored: the member is accepted and dropped.
            None => {
                out.fixed.push(FixedMember {
                    member: member.clone(),
                    sent: sent.clone(),
                    value: Value::Null,
                });
                let dropped = Rule::Dropped {
                    member: member.clone(),
                };
                out.rules.push(rule(member, dropped));
            }
        }
    }
    let Some(before) = first.before else {
        return Ok(out);
    };
    for (field, after) in first.after {
        // A field the earlier observation did not show was not seen to change.
        let Some(was) = before.get(field) else {
            continue;
        };
        if first.body.contains_key(field) || was == after {
            continue;
        }
        let explained =
            unsent_change(field, Some(was), after, first).ok_or_else(|| field.clone())?;
        if !matches!(explained.rule, Rule::Clock { .. })
            && !others.iter().all(|o| holds(&explained, o))
        {
            return Err(field.clone());
        }
        out.rules.push(explained);
    }
    if let Some(field) = before
        .keys()
        .find(|f| !first.after.contains_key(*f) && !first.body.contains_key(*f))
    {
        return Err(field.clone());
    }
    Ok(out)
}

/// A field changed without being sent: a clock, an increment (an integer
/// that grew by exactly one, as a version or counter does) or a slug.
fn unsent_change(
    field: &str,
    before: Option<&Value>,
    after: &Value,
    obs: &UpdateObservation<'_>,
) -> Option<FieldRule> {
    if let Some((_, format)) = obs.request_ms.and_then(|ms| clock_near(after, ms)) {
        return Some(rule(field, Rule::Clock { format }));
    }
    if let (Some(b), Some(a)) = (before.and_then(Value::as_i64), after.as_i64()) {
        if a == b + 1 {
            return Some(rule(field, Rule::Increment { by: 1 }));
        }
    }
    let text = after.as_str()?;
    obs.body.iter().find_map(|(member, v)| {
        let sep = slug_separator(v.as_str()?, text)?;
        let (member, separator) = (member.clone(), sep.to_string());
        Some(rule(field, Rule::Slug { member, separator }))
    })
}

/// True when an increment or slug explanation also explains another call.
fn holds(explained: &FieldRule, obs: &UpdateObservation<'_>) -> bool {
    let field = &explained.field;
    match &explained.rule {
        Rule::Increment { by } => {
            let Some(before) = obs.before else {
                return true;
            };
            match (
                before.get(field).and_then(Value::as_i64),
                obs.after.get(field).and_then(Value::as_i64),
            ) {
                (Some(b), Some(a)) => a.checked_sub(b) == Some(*by),
                _ => false,
            }
        }
        Rule::Slug { member, .. } => {
            match (
                obs.body.get(member).and_then(Value::as_str),
                obs.after.get(field).and_then(Value::as_str),
            ) {
                (Some(text), Some(slug)) => slug_separator(text, slug).is_some(),
                // The member was not sent: the field must stay as it was.
                (None, after) => {
                    obs.before
                        .and_then(|b| b.get(field))
                        .and_then(Value::as_str)
                        == after
                }
                _ => false,
            }
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    const T: i64 = 1_714_564_800_000;

    fn explain(
        body: Value,
        before: Option<Value>,
        after: Value,
        others: &[(Value, Value, Value)],
    ) -> Result<UpdateRules, String> {
        let body = obj(body);
        let before = before.map(obj);
        let after = obj(after);
        type Triple = (Map<String, Value>, Map<String, Value>, Map<String, Value>);
        let others: Vec<Triple> = others
            .iter()
            .map(|(b, x, a)| (obj(b.clone()), obj(x.clone()), obj(a.clone())))
            .collect();
        let other_obs: Vec<UpdateObservation<'_>> = others
            .iter()
            .map(|(b, x, a)| UpdateObservation {
                body: b,
                before: Some(x),
                after: a,
                request_ms: Some(T),
            })
            .collect();
        let first = UpdateObservation {
            body: &body,
            before: before.as_ref(),
            after: &after,
            request_ms: Some(T),
        };
        explain_update(&first, &other_obs)
    }

    #[test]
    fn sent_members_echo() {
        // WRITE-20
        let r = explain(
            json!({"title": "B"}),
            Some(json!({"id": 1, "title": "A"})),
            json!({"id": 1, "title": "B"}),
            &[],
        )
        .unwrap();
        assert_eq!(r.rules.len(), 1);
        assert_eq!(r.rules[0].rule.name(), "echo");
        assert!(r.fixed.is_empty());
    }

    #[test]
    fn members_stored_differently_are_fixed() {
        // WRITE-21
        let r = explain(
            json!({"status": "close"}),
            Some(json!({"id": 1, "status": "open"})),
            json!({"id": 1, "status": "closed"}),
            &[],
        )
        .unwrap();
        assert_eq!(
            r.fixed,
            vec![FixedMember {
                member: "status".into(),
                sent: json!("close"),
                value: json!("closed")
            }]
        );
        assert_eq!(
            r.rules[0].rule,
            Rule::Constant {
                value: json!("closed"),
                member: "status".into()
            }
        );
    }

    #[test]
    fn unsent_changes_need_a_rule() {
        // WRITE-22
        let ok = explain(
            json!({"title": "Hello World"}),
            Some(json!({"id": 1, "title": "A", "updated_at": "2024-05-01T11:00:00Z", "version": 1, "slug": "a"})),
            json!({"id": 1, "title": "Hello World", "updated_at": "2024-05-01T12:00:02Z", "version": 2, "slug": "hello-world"}),
            &[],
        )
        .unwrap();
        let kinds: Vec<&str> = ok.rules.iter().map(|r| r.rule.name()).collect();
        assert_eq!(kinds, ["echo", "clock", "increment", "slug"]);
        let err = explain(
            json!({"title": "B"}),
            Some(json!({"id": 1, "score": 3})),
            json!({"id": 1, "title": "B", "score": 17}),
            &[],
        );
        assert_eq!(err, Err("score".into()));
        let err = explain(
            json!({"title": "B"}),
            Some(json!({"id": 1, "score": 17})),
            json!({"id": 1, "title": "B", "score": 3}),
            &[],
        );
        assert_eq!(err, Err("score".into()));
        let err = explain(
            json!({"title": "B"}),
            Some(json!({"id": 1, "owner": "alice"})),
            json!({"id": 1, "title": "B", "owner": "bob"}),
            &[],
        );
        assert_eq!(err, Err("owner".into()));
        // A field that disappears without being sent is unexplained.
        let err = explain(
            json!({"title": "B"}),
            Some(json!({"id": 1, "tmp": 1})),
            json!({"id": 1, "title": "B"}),
            &[],
        );
        assert_eq!(err, Err("tmp".into()));
        // Without an earlier observation only the sent members are explained.
        assert!(explain(
            json!({"title": "B"}),
            None,
            json!({"id": 1, "title": "B", "score": 99}),
            &[]
        )
        .is_ok());
    }

    #[test]
    fn increments_and_slugs_hold_for_every_call() {
        // WRITE-23
        let second_plus_two = (
            json!({"title": "C"}),
            json!({"id": 2, "version": 5}),
            json!({"id": 2, "title": "C", "version": 7}),
        );
        let second_plus_one = (
            json!({"title": "C"}),
            json!({"id": 2, "version": 5}),
            json!({"id": 2, "title": "C", "version": 6}),
        );
        let first = (
            json!({"title": "B"}),
            Some(json!({"id": 1, "version": 1})),
            json!({"id": 1, "title": "B", "version": 2}),
        );
        assert_eq!(
            explain(
                first.0.clone(),
                first.1.clone(),
                first.2.clone(),
                &[second_plus_two]
            ),
            Err("version".into())
        );
        assert!(explain(first.0, first.1, first.2, &[second_plus_one]).is_ok());
        let slug_first = (
            json!({"title": "Hello World"}),
            Some(json!({"id": 1, "slug": "a"})),
            json!({"id": 1, "title": "Hello World", "slug": "hello-world"}),
        );
        let slug_breaks = (
            json!({"title": "Other Text"}),
            json!({"id": 2, "slug": "x"}),
            json!({"id": 2, "title": "Other Text", "slug": "x"}),
        );
        let slug_holds = (
            json!({"title": "Other Text"}),
            json!({"id": 2, "slug": "x"}),
            json!({"id": 2, "title": "Other Text", "slug": "other-text"}),
        );
        assert_eq!(
            explain(
                slug_first.0.clone(),
                slug_first.1.clone(),
                slug_first.2.clone(),
                &[slug_breaks]
            ),
            Err("slug".into())
        );
        assert!(explain(slug_first.0, slug_first.1, slug_first.2, &[slug_holds]).is_ok());
    }
}
