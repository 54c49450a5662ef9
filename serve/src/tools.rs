//! Tool descriptors shared by MCP `tools/list` and the environment card:
//! input schema (path params required, observed query names optional, a
//! `body` object for writes), a description a model can act on, and hints.

use crate::model::{ToolInfo, ToolKind};
use serde_json::{json, Map, Value};

/// The JSON Schema of a tool's arguments.
pub(crate) fn input_schema(info: &ToolInfo) -> Map<String, Value> {
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
    if info.kind == ToolKind::Write && !matches!(tool.method.as_str(), "DELETE") {
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
pub(crate) fn card_entry(info: &ToolInfo) -> Value {
    json!({
        "name": info.tool.name,
        "description": description(info),
        "inputSchema": Value::Object(input_schema(info)),
    })
}
