//! Explaining each field of a created entity by the first rule that fits:
//! `identity`, `echo`, `copy`, `path`, `slug`, `clock`, `sequence`,
//! `unique`, `template`; any other field keeps its `observed` value.

use super::shapes::{
    clock_near, is_token, is_uuid, sequence_value, slug_separator, token_alphabet,
};
use crate::state::model::{FieldRule, Generated, Rule, SequenceScope, ValueKind};
use serde_json::{Map, Value};

/// A copied body string must have at least this many characters.
pub(crate) const COPY_MIN_CHARS: usize = 8;

/// What the created-field rules look at besides the entity itself.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CreateContext<'a> {
    /// The body's entity object (see `body_entity`).
    pub body: &'a Map<String, Value>,
    /// The call's path parameter values, by name, percent-decoded.
    pub path_params: &'a [(String, String)],
    /// When the request started (ms since the epoch), if recorded.
    pub request_ms: Option<i64>,
    /// The type's identity field.
    pub id_field: &'a str,
    /// The entities of the collection the call created into, before it.
    pub collection: &'a [&'a Map<String, Value>],
    /// The entities of the whole type, before the call.
    pub type_entities: &'a [&'a Map<String, Value>],
}

/// Builds a rule.
pub(crate) fn rule(field: &str, rule: Rule) -> FieldRule {
    FieldRule::new(field, rule)
}

/// A JSON string or number, as `value` is.
fn kind_of(value: &Value) -> ValueKind {
    if value.is_string() {
        ValueKind::String
    } else {
        ValueKind::Number
    }
}

/// One rule per field of the created entity, in the entity's field order.
pub(crate) fn explain_created(
    entity: &Map<String, Value>,
    ctx: &CreateContext<'_>,
) -> Vec<FieldRule> {
    let mut rules: Vec<FieldRule> = Vec::with_capacity(entity.len());
    for (field, value) in entity {
        let explained = identity(field, value, ctx)
            .or_else(|| echo(field, value, ctx))
            .or_else(|| copy(field, value, ctx))
            .or_else(|| path(field, value, ctx))
            .or_else(|| slug(field, value, ctx))
            .or_else(|| clock(field, value, ctx))
            .or_else(|| sequence(field, value, ctx))
            .or_else(|| unique(field, value, ctx))
            .or_else(|| template(field, value, entity, &rules))
            .unwrap_or_else(|| {
                rule(
                    field,
                    Rule::Observed {
                        value: value.clone(),
                    },
                )
            });
        rules.push(explained);
    }
    rules
}

fn body_has_value(ctx: &CreateContext<'_>, value: &Value) -> bool {
    ctx.body.values().any(|v| v == value)
}

/// A generated identity: the type's id field, not sent in the body, shaped
/// as a sequence, a UUID or a token.
fn identity(field: &str, value: &Value, ctx: &CreateContext<'_>) -> Option<FieldRule> {
    if field != ctx.id_field || body_has_value(ctx, value) || path_param_for(value, ctx).is_some() {
        return None;
    }
    if sequence_value(value).is_some() {
        let kind = kind_of(value);
        return Some(rule(field, Rule::Identity(Generated::Sequence { kind })));
    }
    let text = value.as_str()?;
    if is_uuid(text) {
        let uppercase = text.chars().any(|c| c.is_ascii_uppercase());
        return Some(rule(field, Rule::Identity(Generated::Uuid { uppercase })));
    }
    is_token(text).then(|| {
        let alphabet = token_alphabet(text).to_string();
        let length = text.chars().count() as u64;
        rule(field, Rule::Identity(Generated::Token { alphabet, length }))
    })
}

fn echo(field: &str, value: &Value, ctx: &CreateContext<'_>) -> Option<FieldRule> {
    (ctx.body.get(field) == Some(value)).then(|| {
        let member = field.to_string();
        rule(field, Rule::Echo { member })
    })
}

fn copy(field: &str, value: &Value, ctx: &CreateContext<'_>) -> Option<FieldRule> {
    let text = value.as_str()?;
    if text.chars().count() < COPY_MIN_CHARS {
        return None;
    }
    let member = ctx
        .body
        .iter()
        .find(|(_, v)| v.as_str() == Some(text))
        .map(|(k, _)| k)?;
    let member = member.clone();
    Some(rule(field, Rule::Copy { member }))
}

fn path_param_for<'a>(value: &Value, ctx: &CreateContext<'a>) -> Option<(&'a str, ValueKind)> {
    ctx.path_params.iter().find_map(|(name, raw)| match value {
        Value::String(s) if s == raw => Some((name.as_str(), ValueKind::String)),
        Value::Number(n)
            if sequence_value(&Value::String(raw.clone()))
                .map(Value::from)
                .as_ref()
                == Some(&Value::Number(n.clone())) =>
        {
            Some((name.as_str(), ValueKind::Number))
        }
        _ => None,
    })
}

fn path(field: &str, value: &Value, ctx: &CreateContext<'_>) -> Option<FieldRule> {
    let (param, kind) = path_param_for(value, ctx)?;
    let param = param.to_string();
    Some(rule(field, Rule::Path { param, kind }))
}

fn slug(field: &str, value: &Value, ctx: &CreateContext<'_>) -> Option<FieldRule> {
    let text = value.as_str()?;
    ctx.body.iter().find_map(|(member, v)| {
        let sep = slug_separator(v.as_str()?, text)?;
        let (member, separator) = (member.clone(), sep.to_string());
        Some(rule(field, Rule::Slug { member, separator }))
    })
}

fn clock(field: &str, value: &Value, ctx: &CreateContext<'_>) -> Option<FieldRule> {
    let (_, format) = clock_near(value, ctx.request_ms?)?;
    Some(rule(field, Rule::Clock { format }))
}

/// One past the largest value of the field in the collection, else in the type.
fn sequence(field: &str, value: &Value, ctx: &CreateContext<'_>) -> Option<FieldRule> {
    let n = sequence_value(value)?;
    let max_of = |entities: &[&Map<String, Value>]| {
        entities
            .iter()
            .filter_map(|e| e.get(field).and_then(sequence_value))
            .max()
    };
    let scope = if max_of(ctx.collection).map(|m| m + 1) == Some(n) {
        SequenceScope::Collection
    } else if max_of(ctx.type_entities).map(|m| m + 1) == Some(n) {
        SequenceScope::Type
    } else {
        return None;
    };
    let kind = kind_of(value);
    Some(rule(field, Rule::Sequence { scope, kind }))
}

/// A fresh UUID: UUID-shaped and equal to nothing the body sent or the
/// collection already holds.
fn unique(field: &str, value: &Value, ctx: &CreateContext<'_>) -> Option<FieldRule> {
    let text = value.as_str()?;
    if !is_uuid(text) || body_has_value(ctx, value) {
        return None;
    }
    let seen = ctx
        .type_entities
        .iter()
        .any(|e| e.values().any(|v| v == value));
    let uppercase = text.chars().any(|c| c.is_ascii_uppercase());
    (!seen).then(|| rule(field, Rule::Unique { uppercase }))
}

/// A string built around a value generated for an earlier field
/// (`identity` or `unique`): `prefix` + generated + `suffix`.
fn template(
    field: &str,
    value: &Value,
    entity: &Map<String, Value>,
    rules: &[FieldRule],
) -> Option<FieldRule> {
    let text = value.as_str()?;
    rules.iter().filter(|r| r.rule.generated()).find_map(|r| {
        let generated = match entity.get(&r.field)? {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            _ => return None,
        };
        if generated.is_empty() || generated == text {
            return None;
        }
        let at = text.find(&generated)?;
        Some(rule(
            field,
            Rule::Template {
                source: r.field.clone(),
                prefix: text[..at].to_string(),
                suffix: text[at + generated.len()..].to_string(),
            },
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    fn explain(entity: Value, body: Value, existing: &[Value]) -> Vec<(String, String, Value)> {
        let body = obj(body);
        let entities: Vec<Map<String, Value>> = existing.iter().map(|e| obj(e.clone())).collect();
        let refs: Vec<&Map<String, Value>> = entities.iter().collect();
        let params = vec![("board_id".to_string(), "9".to_string())];
        let ctx = CreateContext {
            body: &body,
            path_params: &params,
            // 2024-05-01T12:00:00Z
            request_ms: Some(1_714_564_800_000),
            id_field: "id",
            collection: &refs,
            type_entities: &refs,
        };
        explain_created(&obj(entity), &ctx)
            .into_iter()
            .map(|r| spelled(&r))
            .collect()
    }

    /// A rule as the state document spells it: field, name, parameters.
    fn spelled(r: &FieldRule) -> (String, String, Value) {
        let v = serde_json::to_value(r).unwrap();
        let with = v.get("with").cloned().unwrap_or_else(|| json!({}));
        (
            r.field.clone(),
            v["rule"].as_str().unwrap().to_string(),
            with,
        )
    }

    fn rule_of(rules: &[(String, String, Value)], field: &str) -> (String, Value) {
        let r = rules.iter().find(|r| r.0 == field).unwrap();
        (r.1.clone(), r.2.clone())
    }

    #[test]
    fn identity_by_shape() {
        // WRITE-11
        let r = explain(json!({"id": 43}), json!({}), &[json!({"id": 42})]);
        assert_eq!(
            rule_of(&r, "id"),
            (
                "identity".into(),
                json!({"generator": "sequence", "as": "number"})
            )
        );
        let r = explain(
            json!({"id": "550e8400-e29b-41d4-a716-446655440000"}),
            json!({}),
            &[],
        );
        assert_eq!(rule_of(&r, "id").1["generator"], "uuid");
        let r = explain(json!({"id": "a8Xk2Pq9Zt"}), json!({}), &[]);
        assert_eq!(rule_of(&r, "id").1["generator"], "token");
        assert_eq!(rule_of(&r, "id").1["length"], 10);
        // An id the body sent is an echo, not generated.
        let r = explain(json!({"id": "ord-100"}), json!({"id": "ord-100"}), &[]);
        assert_eq!(rule_of(&r, "id").0, "echo");
        // Only the identity field is an identity.
        let r = explain(json!({"code": "a8Xk2Pq9Zt"}), json!({}), &[]);
        assert_eq!(rule_of(&r, "code").0, "observed");
    }

    #[test]
    fn echo_copy_path_slug() {
        // WRITE-12, WRITE-13, WRITE-14, WRITE-15
        let body = json!({"title": "Hello World", "short": "abc", "n": 3});
        let entity = json!({
            "title": "Hello World", "n": 3, "label": "Hello World", "tiny": "abc",
            "board_id": 9, "board": "9", "slug": "hello-world"
        });
        let r = explain(entity, body, &[]);
        assert_eq!(
            rule_of(&r, "title"),
            ("echo".into(), json!({"member": "title"}))
        );
        assert_eq!(rule_of(&r, "n").0, "echo");
        assert_eq!(
            rule_of(&r, "label"),
            ("copy".into(), json!({"member": "title"}))
        );
        // Fewer than 8 characters: not a copy.
        assert_eq!(rule_of(&r, "tiny").0, "observed");
        assert_eq!(
            rule_of(&r, "board_id"),
            ("path".into(), json!({"param": "board_id", "as": "number"}))
        );
        assert_eq!(
            rule_of(&r, "board"),
            ("path".into(), json!({"param": "board_id", "as": "string"}))
        );
        assert_eq!(
            rule_of(&r, "slug"),
            ("slug".into(), json!({"member": "title", "separator": "-"}))
        );
    }

    #[test]
    fn clock_sequence_unique_template() {
        // WRITE-16, WRITE-17, WRITE-18, WRITE-19, WRITE-10
        let entity = json!({
            "id": 43,
            "created_at": "2024-05-01T12:00:01Z",
            "stale_at": "2024-05-01T12:11:00Z",
            "position": 6,
            "rank": 2,
            "request_id": "7d444840-9dc0-11d1-b245-5ffdce74fad2",
            "url": "/items/43",
            "status": "draft"
        });
        let existing = [json!({"id": 42, "position": 5, "request_id": "x"})];
        let r = explain(entity, json!({}), &existing);
        assert_eq!(rule_of(&r, "id").0, "identity");
        assert_eq!(
            rule_of(&r, "created_at"),
            (
                "clock".into(),
                json!({"format": {"kind": "date-time", "separator": "T", "digits": 0, "zone": "Z"}})
            )
        );
        assert_eq!(rule_of(&r, "stale_at").0, "observed");
        assert_eq!(
            rule_of(&r, "position"),
            (
                "sequence".into(),
                json!({"scope": "collection", "as": "number"})
            )
        );
        assert_eq!(rule_of(&r, "rank").0, "observed");
        assert_eq!(rule_of(&r, "request_id").0, "unique");
        assert_eq!(
            rule_of(&r, "url"),
            (
                "template".into(),
                json!({"source": "id", "prefix": "/items/", "suffix": ""})
            )
        );
        assert_eq!(
            rule_of(&r, "status"),
            ("observed".into(), json!({"value": "draft"}))
        );
    }

    #[test]
    fn earlier_rules_win() {
        // A body-sent UUID is an echo, never unique; a clock-shaped body
        // member is an echo, never a clock.
        let uuid = "7d444840-9dc0-11d1-b245-5ffdce74fad2";
        let r = explain(
            json!({"ref": uuid, "at": 1714564800000i64}),
            json!({"ref": uuid, "at": 1714564800000i64}),
            &[],
        );
        assert_eq!(rule_of(&r, "ref").0, "echo");
        assert_eq!(rule_of(&r, "at").0, "echo");
        // A UUID the collection already holds is not unique.
        let r = explain(json!({"ref": uuid}), json!({}), &[json!({"other": uuid})]);
        assert_eq!(rule_of(&r, "ref").0, "observed");
        // Sequence over the type when the collection has no such field.
        let body = obj(json!({}));
        let col: Vec<&Map<String, Value>> = vec![];
        let other = obj(json!({"n": 9}));
        let ty = vec![&other];
        let ctx = CreateContext {
            body: &body,
            path_params: &[],
            request_ms: None,
            id_field: "id",
            collection: &col,
            type_entities: &ty,
        };
        let rules = explain_created(&obj(json!({"n": 10, "t": 1714564800000i64})), &ctx);
        assert_eq!(
            rules[0].rule,
            Rule::Sequence {
                scope: SequenceScope::Type,
                kind: ValueKind::Number
            }
        );
        // Without a request time nothing is a clock.
        assert_eq!(rules[1].rule.name(), "observed");
    }
}
