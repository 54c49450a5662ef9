//! JSON Schemas inferred from the recording, the one place the MCP tool
//! schemas and the OpenAPI export read them from: `infer` (instances → a
//! schema: JSON types, members required by presence in every instance,
//! formats, enums where few values), `request_body` (what a served write
//! demands: its plan's required members, at the entity pointer) and
//! `recorded_answers` (a tool's recorded JSON answers, by status).
//! `loosen_required` narrows a create's required members to those every
//! recorded call sent and the app does not fill in.

use crate::records::{Body, Record};
use crate::state::{Effect, FieldRule, PlanStatus, Rule, WritePlan};
use crate::Engine;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// How far `infer` goes.
#[derive(Debug, Clone, Copy)]
pub struct Infer {
    /// Members are `required` (present in every instance) only in objects
    /// nested less deeply than this (0: nowhere).
    pub required_depth: usize,
    /// Strings with few distinct values become an `enum`.
    pub enums: bool,
    /// Scalars carry their first recorded value as `examples`.
    pub examples: bool,
    /// Values nested this deeply or deeper are described (members,
    /// items, observed types as a `description`) but not constrained: a
    /// served entity's members follow the World, which writes change,
    /// not the recording. `usize::MAX`: constrain everywhere.
    pub types_depth: usize,
}

impl Infer {
    /// For what a caller sends: typed everywhere, enums, examples, nothing
    /// required (the caller of `infer` decides that).
    pub const REQUEST: Infer = Infer {
        required_depth: 0,
        enums: true,
        examples: true,
        types_depth: usize::MAX,
    };
    /// For what the application answers: the envelope's members required
    /// and typed, what they hold described only.
    pub const ANSWER: Infer = Infer {
        required_depth: 1,
        enums: false,
        examples: false,
        types_depth: 1,
    };
}

/// Instances examined per schema, and nesting followed, at most.
const MAX_INSTANCES: usize = 256;
const MAX_DEPTH: usize = 12;
/// An enum needs at least this many instances and at most this many values.
const ENUM_MIN_INSTANCES: usize = 3;
const ENUM_MAX_VALUES: usize = 4;

/// A JSON Schema describing every value in `instances`.
pub fn infer(instances: &[&Value], how: Infer) -> Value {
    infer_at(instances, how, 0)
}

fn infer_at(instances: &[&Value], how: Infer, depth: usize) -> Value {
    let instances = &instances[..instances.len().min(MAX_INSTANCES)];
    if instances.is_empty() || depth > MAX_DEPTH {
        return json!({});
    }
    let mut types: Vec<&'static str> = Vec::new();
    let mut push = |t: &'static str| {
        if !types.contains(&t) {
            types.push(t);
        }
    };
    for v in instances {
        push(json_type(v));
    }
    if types.contains(&"number") {
        types.retain(|t| *t != "integer");
    }
    let mut schema = Map::new();
    let typed = depth < how.types_depth;
    let type_value = if types.len() == 1 {
        json!(types[0])
    } else {
        json!(types)
    };
    if typed {
        schema.insert("type".into(), type_value);
    } else {
        schema.insert(
            "description".into(),
            json!(format!("recorded as {}", types.join(" or "))),
        );
    }
    let objects: Vec<&Map<String, Value>> =
        instances.iter().filter_map(|v| v.as_object()).collect();
    if !objects.is_empty() {
        let mut members: Vec<&String> = Vec::new();
        for o in &objects {
            for k in o.keys() {
                if !members.contains(&k) {
                    members.push(k);
                }
            }
        }
        let mut properties = Map::new();
        let mut required = Vec::new();
        for k in members {
            let values: Vec<&Value> = objects.iter().filter_map(|o| o.get(k)).collect();
            if values.len() == objects.len() && depth < how.required_depth {
                required.push(Value::String(k.clone()));
            }
            properties.insert(k.clone(), infer_at(&values, how, depth + 1));
        }
        schema.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            schema.insert("required".into(), Value::Array(required));
        }
    }
    let items: Vec<&Value> = instances
        .iter()
        .filter_map(|v| v.as_array())
        .flatten()
        .collect();
    if types.contains(&"array") && !items.is_empty() {
        schema.insert("items".into(), infer_at(&items, how, depth + 1));
    }
    if how.examples {
        if let Some(first) = instances
            .iter()
            .find(|v| !v.is_null() && !v.is_object() && !v.is_array())
        {
            schema.insert("examples".into(), json!([first]));
        }
    }
    let strings: Vec<&str> = instances.iter().filter_map(|v| v.as_str()).collect();
    if types == ["string"] && typed {
        if let Some(format) = string_format(&strings) {
            schema.insert("format".into(), json!(format));
        } else if how.enums {
            let mut distinct: Vec<&str> = Vec::new();
            for s in &strings {
                if !distinct.contains(s) {
                    distinct.push(s);
                }
            }
            if strings.len() >= ENUM_MIN_INSTANCES
                && distinct.len() <= ENUM_MAX_VALUES
                && distinct.len() < strings.len()
            {
                schema.insert("enum".into(), json!(distinct));
            }
        }
    }
    Value::Object(schema)
}

/// The format every string has, when one does.
fn string_format(strings: &[&str]) -> Option<&'static str> {
    if strings.is_empty() {
        return None;
    }
    let all = |f: fn(&str) -> bool| strings.iter().all(|s| f(s));
    if all(|s| chrono::DateTime::parse_from_rfc3339(s).is_ok()) {
        Some("date-time")
    } else if all(|s| s.len() == 10 && chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").is_ok()) {
        Some("date")
    } else if all(is_uuid) {
        Some("uuid")
    } else if all(|s| {
        (s.starts_with("http://") || s.starts_with("https://")) && url::Url::parse(s).is_ok()
    }) {
        Some("uri")
    } else {
        None
    }
}

/// The hyphenated 8-4-4-4-12 hex form.
fn is_uuid(s: &str) -> bool {
    s.len() == 36
        && s.char_indices().all(|(i, c)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                c == '-'
            } else {
                c.is_ascii_hexdigit()
            }
        })
}

/// The JSON request bodies a tool's successful recorded calls sent.
pub fn recorded_request_bodies(engine: &Engine, tool: &str) -> Vec<Value> {
    tool_records(engine, tool)
        .filter(|r| r.status.is_some_and(|s| (200..300).contains(&s)))
        .filter_map(|r| serde_json::from_str(r.request_text.as_deref()?).ok())
        .collect()
}

/// A tool's recorded JSON answers by status, in record order (at most
/// `MAX_INSTANCES` per status: what `infer` examines).
pub fn recorded_answers(engine: &Engine, tool: &str) -> BTreeMap<u16, Vec<Value>> {
    let texts: Vec<(u16, &str)> = tool_records(engine, tool)
        .filter_map(|r| match (r.status, &r.response_body) {
            (Some(status), Body::Text(text)) => Some((status, text.as_str())),
            _ => None,
        })
        .collect();
    // The texts the answers will most likely come from (the first
    // `MAX_INSTANCES` of each status) are parsed up front, together; a text
    // that is no JSON makes room for the next of its status, parsed then.
    let mut per_status: BTreeMap<u16, usize> = BTreeMap::new();
    let likely: Vec<usize> = (0..texts.len())
        .filter(|&i| {
            let n = per_status.entry(texts[i].0).or_default();
            *n += 1;
            *n <= MAX_INSTANCES
        })
        .collect();
    let likely_texts: Vec<&str> = likely.iter().map(|&i| texts[i].1).collect();
    let mut parsed: BTreeMap<usize, Option<Value>> =
        likely.into_iter().zip(parse_all(&likely_texts)).collect();
    let mut out: BTreeMap<u16, Vec<Value>> = BTreeMap::new();
    for (i, (status, text)) in texts.iter().enumerate() {
        let held = out.entry(*status).or_default();
        if held.len() >= MAX_INSTANCES {
            continue;
        }
        let value = match parsed.remove(&i) {
            Some(value) => value,
            None => serde_json::from_str::<Value>(text).ok(),
        };
        held.extend(value);
    }
    out
}

/// Texts this large in all are parsed on two threads.
const PARALLEL_PARSE_BYTES: usize = 1 << 20;

/// Each text parsed as JSON (`None` where it is none), in order: on two
/// threads, each given about half the bytes, when there are many bytes.
fn parse_all(texts: &[&str]) -> Vec<Option<Value>> {
    let parse = |part: &[&str]| -> Vec<Option<Value>> {
        part.iter()
            .map(|t| serde_json::from_str::<Value>(t).ok())
            .collect()
    };
    let total: usize = texts.iter().map(|t| t.len()).sum();
    if total < PARALLEL_PARSE_BYTES || texts.len() < 2 {
        return parse(texts);
    }
    let mut seen = 0;
    let split = texts
        .iter()
        .position(|t| {
            seen += t.len();
            seen * 2 >= total
        })
        .map_or(texts.len() / 2, |i| (i + 1).min(texts.len() - 1));
    let (first, second) = texts.split_at(split);
    std::thread::scope(|scope| {
        let later = scope.spawn(|| parse(second));
        let mut out = parse(first);
        out.extend(
            later
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        );
        out
    })
}

fn tool_records<'a>(engine: &'a Engine, tool: &str) -> impl Iterator<Item = &'a Record> + 'a {
    engine
        .tool(tool)
        .map(|t| t.record_ordinals.clone())
        .unwrap_or_default()
        .into_iter()
        .filter_map(move |o| engine.record(o))
}

/// Whether a served write of this plan reads a JSON body (and refuses a
/// call without one).
pub fn needs_body(plan: &WritePlan) -> bool {
    plan.status == PlanStatus::Served
        && matches!(
            plan.effect,
            Effect::Create | Effect::Update | Effect::Document
        )
}

/// The JSON Schema of the body a served write demands: the entity at its
/// body pointer requires exactly the plan's required members (what the
/// engine refuses a call without), the members on the way to it are
/// required, and every member the recorded calls sent is described.
pub fn request_body(engine: &Engine, tool: &str) -> Option<Value> {
    let plan = engine.write_of(tool).filter(|p| needs_body(p))?;
    let bodies = recorded_request_bodies(engine, tool);
    let refs: Vec<&Value> = bodies.iter().collect();
    let mut schema = infer(&refs, Infer::REQUEST);
    if !schema.is_object() || schema.get("type").is_none() {
        schema = json!({"type": "object"});
    }
    schema["type"] = json!("object");
    let pointer = crate::apply::body_pointer(engine, plan).unwrap_or_default();
    let mut at = &mut schema;
    for member in pointer.split('/').skip(1) {
        let member = member.replace("~1", "/").replace("~0", "~");
        if member.parse::<usize>().is_ok() {
            break;
        }
        at["type"] = json!("object");
        let required = at["required"].as_array().cloned().unwrap_or_default();
        if !required.contains(&json!(member)) {
            let mut r = required;
            r.push(json!(member));
            at["required"] = Value::Array(r);
        }
        if !at["properties"].is_object() {
            at["properties"] = json!({});
        }
        let next = &mut at["properties"][member.as_str()];
        if !next.is_object() {
            *next = json!({"type": "object"});
        }
        at = next;
    }
    at["type"] = json!("object");
    for fixed in &plan.body_fixed {
        if !at["properties"].is_object() {
            at["properties"] = json!({});
        }
        at["properties"][fixed.member.as_str()] = json!({"const": fixed.sent});
    }
    if !plan.required_members.is_empty() {
        at["required"] = json!(plan.required_members);
        if !at["properties"].is_object() {
            at["properties"] = json!({});
        }
        for m in &plan.required_members {
            if at["properties"].get(m).is_none() {
                at["properties"][m.as_str()] = json!({});
            }
        }
    }
    Some(schema)
}

/// The rules under which the app, not the caller, gives a created field
/// its value.
/// A rule whose value the app fills in (the call need not send it).
fn filled_by_the_app(rule: &Rule) -> bool {
    matches!(
        rule,
        Rule::Identity(_)
            | Rule::Clock { .. }
            | Rule::Sequence { .. }
            | Rule::Unique { .. }
            | Rule::Template { .. }
    )
}

/// Narrows each served create's `required_members` to the members every
/// recorded successful call of the tool sent, leaving out those the app
/// fills in (a field of that name the plan generates). The spec's state
/// document keeps "every member the first call sent"; this is what the
/// served environment demands.
pub fn loosen_required(engine: &mut Engine) {
    let mut narrowed: Vec<(usize, Vec<String>)> = Vec::new();
    for (i, plan) in engine.state.writes.iter().enumerate() {
        if plan.effect != Effect::Create || plan.required_members.is_empty() {
            continue;
        }
        let pointer = crate::apply::body_pointer(engine, plan).unwrap_or_default();
        let bodies = recorded_request_bodies(engine, &plan.tool);
        let entities: Vec<&Map<String, Value>> = bodies
            .iter()
            .filter_map(|b| crate::codec::at_pointer(b, &pointer).and_then(Value::as_object))
            .collect();
        let keep = served_required(&plan.required_members, &entities, &plan.field_rules);
        if keep != plan.required_members {
            narrowed.push((i, keep));
        }
    }
    for (i, keep) in narrowed {
        engine.state.writes[i].required_members = keep;
    }
}

/// Of `required`, the members every entity in `sent` holds and that no
/// field rule says the app fills in.
pub fn served_required(
    required: &[String],
    sent: &[&Map<String, Value>],
    rules: &[FieldRule],
) -> Vec<String> {
    required
        .iter()
        .filter(|m| sent.iter().all(|e| e.contains_key(*m)))
        .filter(|m| {
            !rules
                .iter()
                .any(|r| &r.field == *m && filled_by_the_app(&r.rule))
        })
        .cloned()
        .collect()
}

/// The JSON Schema type name of a value (`integer` for whole numbers).
pub fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_bytes_parse_on_two_threads_in_order_as_one_would() {
        let big = format!("{{\"pad\": \"{}\"}}", "x".repeat(PARALLEL_PARSE_BYTES / 3));
        let texts: Vec<String> = (0..7)
            .map(|i| match i % 3 {
                0 => big.clone(),
                1 => format!("{{\"n\": {i}}}"),
                _ => "not json".to_string(),
            })
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let one: Vec<Option<Value>> = refs.iter().map(|t| serde_json::from_str(t).ok()).collect();
        assert!(refs.iter().map(|t| t.len()).sum::<usize>() >= PARALLEL_PARSE_BYTES);
        assert_eq!(parse_all(&refs), one);
        assert_eq!(parse_all(&refs[..1]), one[..1]);
        assert_eq!(parse_all(&[]), Vec::<Option<Value>>::new());
    }
    use crate::state::Generated;

    #[test]
    fn a_create_requires_what_every_call_sent_and_the_app_does_not_fill() {
        let required: Vec<String> = ["title", "done", "id", "created"]
            .map(String::from)
            .to_vec();
        let a = json!({"title": "a", "done": false, "id": "x1", "created": 1});
        let b = json!({"title": "b", "id": "x2", "created": 2});
        let sent = [a.as_object().unwrap(), b.as_object().unwrap()];
        let echo = |field: &str| {
            FieldRule::new(
                field,
                Rule::Echo {
                    member: field.into(),
                },
            )
        };
        let rules = [
            FieldRule::new("id", Rule::Identity(Generated::Uuid { uppercase: false })),
            echo("title"),
            echo("created"),
        ];
        assert_eq!(
            served_required(&required, &sent, &rules),
            ["title", "created"]
        );
        assert_eq!(
            served_required(&required, &sent[..1], &[]),
            ["title", "done", "id", "created"]
        );
    }

    #[test]
    fn inference_requires_by_presence_and_finds_formats_and_enums() {
        let a = json!({"id": "7a1c0f5e-1b2c-4d3e-8f90-123456789abc", "at": "2024-01-02T03:04:05Z", "kind": "a", "n": 1});
        let b = json!({"id": "0b1c0f5e-1b2c-4d3e-8f90-123456789abc", "at": "2024-01-03T03:04:05Z", "kind": "a", "n": 1.5});
        let c = json!({"id": "1b1c0f5e-1b2c-4d3e-8f90-123456789abc", "at": "2024-01-04T03:04:05Z", "kind": "b", "x": null});
        let s = infer(
            &[&a, &b, &c],
            Infer {
                required_depth: 1,
                ..Infer::REQUEST
            },
        );
        assert_eq!(s["type"], "object");
        assert_eq!(s["required"], json!(["id", "at", "kind"]));
        assert_eq!(s["properties"]["id"]["format"], "uuid");
        assert_eq!(s["properties"]["at"]["format"], "date-time");
        assert_eq!(s["properties"]["kind"]["enum"], json!(["a", "b"]));
        assert_eq!(s["properties"]["n"]["type"], "number");
        assert_eq!(s["properties"]["x"]["type"], "null");
        assert_eq!(s["properties"]["n"]["examples"], json!([1]));
        let lenient = infer(
            &[&a, &b],
            Infer {
                enums: false,
                examples: false,
                ..Infer::REQUEST
            },
        );
        assert!(lenient.get("required").is_none());
        assert!(lenient["properties"]["kind"].get("enum").is_none());
        let list = infer(
            &[&json!([1, 2]), &json!([])],
            Infer {
                enums: false,
                examples: false,
                ..Infer::REQUEST
            },
        );
        assert_eq!(list, json!({"type": "array", "items": {"type": "integer"}}));
        let answer = infer(&[&json!({"data": {"n": 1}})], Infer::ANSWER);
        assert_eq!(answer["required"], json!(["data"]));
        assert_eq!(
            answer["properties"]["data"]["properties"]["n"],
            json!({"description": "recorded as integer"})
        );
        assert_eq!(
            infer(
                &[&json!(1), &json!("x")],
                Infer {
                    enums: false,
                    examples: false,
                    ..Infer::REQUEST
                }
            )["type"],
            json!(["integer", "string"])
        );
    }
}
