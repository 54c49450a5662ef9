//! Tool descriptors shared by MCP `tools/list` and the environment card:
//! input schema (path params required, observed query names optional, a
//! `body` object for writes, required when the write reads one, with the
//! members the server demands), the output schema of object answers, a
//! description a model can act on, and hints. `engine_schemas` gathers what
//! the engine infers from the recording (`rea_engine::schemas`).

use crate::model::{RecordedAnswer, ToolInfo, ToolKind, ToolSchemas};
use rea_engine::schemas::{self, Infer};
use rea_engine::Engine;
use serde_json::{json, Map, Value};

/// What the engine's recording shows a tool takes and answers.
pub(crate) fn engine_schemas(engine: &Engine, tool: &str) -> ToolSchemas {
    let answers = schemas::recorded_answers(engine, tool);
    let ok: Vec<&Value> = answers
        .iter()
        .filter(|(status, _)| (200..300).contains(*status))
        .flat_map(|(_, values)| values)
        .collect();
    let all_objects = !ok.is_empty() && ok.iter().all(|v| v.is_object());
    let output = all_objects.then(|| output_schema(&ok));
    let answers = answers
        .iter()
        .filter_map(|(status, values)| {
            let refs: Vec<&Value> = values.iter().collect();
            Some((
                *status,
                RecordedAnswer {
                    schema: schemas::infer(&refs, Infer::ANSWER),
                    example: values.first()?.clone(),
                },
            ))
        })
        .collect();
    ToolSchemas {
        body: schemas::request_body(engine, tool),
        body_required: engine.write_of(tool).is_some_and(schemas::needs_body),
        output,
        request_example: schemas::recorded_request_bodies(engine, tool)
            .into_iter()
            .next(),
        answers,
    }
}

/// The output schema of a tool whose successful answers are objects: the
/// members the recording shows, typed only where they are containers (an
/// envelope's `data`, a list), since a served entity's members follow the
/// World, not the recording. MCP clients check every success against it.
fn output_schema(ok: &[&Value]) -> Value {
    let inferred = schemas::infer(
        ok,
        Infer {
            required_depth: 0,
            ..Infer::ANSWER
        },
    );
    let mut properties = Map::new();
    if let Some(Value::Object(members)) = inferred.get("properties") {
        for (name, schema) in members {
            let container = matches!(schema["type"].as_str(), Some("object" | "array"));
            properties.insert(
                name.clone(),
                if container {
                    json!({"type": schema["type"]})
                } else {
                    json!({})
                },
            );
        }
    }
    json!({"type": "object", "properties": properties})
}

/// The MCP output schema of a tool, when its answers are objects.
pub(crate) fn output_schema_of(schemas: &ToolSchemas) -> Option<Map<String, Value>> {
    match &schemas.output {
        Some(Value::Object(o)) => Some(o.clone()),
        _ => None,
    }
}

/// The JSON Schema of a tool's arguments.
pub(crate) fn input_schema(info: &ToolInfo, inferred: &ToolSchemas) -> Map<String, Value> {
    let tool = &info.tool;
    let mut properties = Map::new();
    let mut required = Vec::new();
    for param in &tool.params {
        let mut prop = json!({
            "type": "string",
            "description": format!(
                "path segment {{{}}} of {}", param.name, tool.path_template
            ),
        });
        let examples: Vec<Value> = param
            .observed
            .iter()
            .take(3)
            .map(|s| Value::String(s.clone()))
            .collect();
        if !examples.is_empty() {
            prop["examples"] = Value::Array(examples);
        }
        properties.insert(param.name.clone(), prop);
        required.push(Value::String(param.name.clone()));
    }
    for query in &tool.query_parameter_names {
        if properties.contains_key(&query.name) || query.name == "body" {
            continue;
        }
        properties.insert(
            query.name.clone(),
            json!({
                "type": ["string", "number", "integer", "boolean"],
                "description": format!("query parameter {} (observed in the recording)", query.name),
            }),
        );
    }
    if !info.list_in_body {
        for (name, schema) in &info.list_arguments {
            if !tool.params.iter().any(|p| p.name == *name) && name != "body" {
                properties.insert(name.clone(), schema.clone());
            }
        }
    } else if !info.list_arguments.is_empty() {
        properties.insert(
            "body".to_string(),
            json!({
                "type": "object",
                "description": "the search request body; the members the inferred list semantics understand are listed",
                "properties": Value::Object(info.list_arguments.clone()),
                "additionalProperties": true,
            }),
        );
    }
    if info.kind == ToolKind::Write && inferred.body.is_some() {
        let mut body = inferred.body.clone().unwrap_or_default();
        body["description"] = json!("the JSON request body; the members it requires are those the environment refuses a call without, the others are the members the recording sent");
        properties.insert("body".to_string(), body);
    } else if info.kind == ToolKind::Write && !matches!(tool.method.as_str(), "DELETE") {
        let mut body_props = Map::new();
        if let Some(shape) = &tool.body_shape {
            for (key, type_name) in shape {
                body_props.insert(key.clone(), type_schema(type_name));
            }
        }
        properties.insert(
            "body".to_string(),
            json!({
                "type": "object",
                "description": "the JSON request body; the members the recording sent are listed",
                "properties": Value::Object(body_props),
                "additionalProperties": true,
            }),
        );
    }
    if info.kind == ToolKind::Write && inferred.body_required && properties.contains_key("body") {
        required.push(json!("body"));
    }
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    schema.insert("additionalProperties".into(), json!(false));
    schema
}

fn type_schema(type_name: &str) -> Value {
    match type_name {
        "string" | "number" | "integer" | "boolean" | "object" | "array" | "null" => {
            json!({ "type": type_name })
        }
        _ => json!({}),
    }
}

/// A description telling a model what the tool does and returns.
pub(crate) fn description(info: &ToolInfo) -> String {
    let tool = &info.tool;
    let line = format!("{} {}", tool.method, tool.path_template);
    let what = match (info.kind, info.plan.as_str()) {
        (ToolKind::Read, "item") => "Reads one item from the environment's current state and returns it as the application does (JSON).".to_string(),
        (ToolKind::Read, "list") => "Lists the items of this collection in the environment's current state, as the application returns them (JSON).".to_string(),
        (ToolKind::Read, "document") => "Returns this resource's current value from the environment's state (JSON).".to_string(),
        (ToolKind::Read, _) => format!(
            "Replays the application's recorded answer for this exact request (it does not follow state changes{}).",
            info.reason
                .as_deref()
                .map(|r| format!("; reason: {r}"))
                .unwrap_or_default()
        ),
        (ToolKind::Write, "create") => "Creates an item in the environment's state from `body` and returns the application's answer, with its generated id and fields.".to_string(),
        (ToolKind::Write, "update") => "Updates the named item in the environment's state with `body` and returns the application's answer.".to_string(),
        (ToolKind::Write, "delete") => "Deletes the named item from the environment's state and returns the application's answer.".to_string(),
        (ToolKind::Write, "document") => "Writes this resource's value in the environment's state and returns the application's answer.".to_string(),
        (ToolKind::Write, _) => "Changes the environment's state as the recorded application did.".to_string(),
    };
    let params = if tool.params.is_empty() {
        String::new()
    } else {
        format!(
            " Path parameters: {}.",
            tool.params
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    format!(
        "{line}. {what}{params} Errors come back as the application answered them (for example 404 for an item the environment does not hold)."
    )
}

/// The MCP behaviour hints, all set explicitly.
pub(crate) struct Hints {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
}

pub(crate) fn hints(info: &ToolInfo) -> Hints {
    let method = info.tool.method.as_str();
    let read_only = info.kind == ToolKind::Read;
    Hints {
        read_only,
        destructive: method == "DELETE",
        idempotent: read_only || matches!(method, "PUT" | "DELETE"),
        open_world: false,
    }
}

/// The card's tool entry.
pub(crate) fn card_entry(info: &ToolInfo, inferred: &ToolSchemas) -> Value {
    let mut entry = json!({
        "name": info.tool.name,
        "description": description(info),
        "inputSchema": Value::Object(input_schema(info, inferred)),
    });
    if let Some(output) = output_schema_of(inferred) {
        entry["outputSchema"] = Value::Object(output);
    }
    entry
}
