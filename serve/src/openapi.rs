//! The OpenAPI 3.1 export of a served environment (`rea
//! environment-openapi`, `GET /_rea/openapi.json`): one operation per
//! offered tool at its path template, with its path and query parameters,
//! its request body and its recorded answers by status as JSON Schemas
//! inferred from the recording (`rea_engine::schemas`: members required by
//! presence in every instance, formats, enums where few values), recorded
//! examples with credential-like members redacted, and the entity tables
//! as components. Deterministic: the same environment gives the same bytes.

use crate::environment::Environment;
use crate::model::{ToolInfo, ToolKind, ToolSchemas};
use crate::tools::description;
use serde_json::{json, Map, Value};

/// The OpenAPI version written.
pub const OPENAPI_VERSION: &str = "3.1.0";
/// The component holding rea's own refusal (`{"error", "message"}`).
const REFUSAL: &str = "rea_refusal";
/// The statuses rea's own refusals answer with besides the application's
/// answers of the same status (`rea_engine::Refusal::status`).
const REFUSAL_STATUSES: [u16; 3] = [400, 404, 409];
/// What replaces a credential-like member's value in an example.
const REDACTED: &str = "[redacted]";
/// Member names whose values are never shown in an example.
const CREDENTIAL_LIKE: [&str; 10] = [
    "password",
    "passwd",
    "secret",
    "token",
    "api_key",
    "apikey",
    "authorization",
    "cookie",
    "session",
    "csrf",
];

/// The OpenAPI document describing every operation `env` serves.
pub fn document(env: &Environment) -> Value {
    let mut paths: Map<String, Value> = Map::new();
    for info in env.tools() {
        let Some(method) = openapi_method(&info.tool.method) else {
            continue;
        };
        let entry = paths
            .entry(info.tool.path_template.clone())
            .or_insert_with(|| json!({}));
        entry[method] = operation(info, env.tool_schemas(&info.tool.name));
    }
    let tables: Map<String, Value> = env
        .tables()
        .into_iter()
        .map(|(name, mut schema)| {
            if let Value::Object(o) = &mut schema {
                // The dialect is the document's (`jsonSchemaDialect`).
                o.remove("$schema");
            }
            (component_name(&name), schema)
        })
        .collect();
    let mut tables = tables;
    tables.insert(
        REFUSAL.into(),
        json!({
            "description": "rea's own refusal: a request the recording gives no answer for (no such item, not recorded, a body the write cannot take)",
            "type": "object",
            "required": ["error", "message"],
            "properties": {"error": {"type": "string"}, "message": {"type": "string"}},
        }),
    );
    json!({
        "openapi": OPENAPI_VERSION,
        "jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
        "info": {
            "title": env.name(),
            "version": env!("CARGO_PKG_VERSION"),
            "description": format!(
                "The API of {} as rea serves it from a recorded capture: every operation the recording shows and rea serves, with request and response schemas inferred from the recorded traffic. Statuses the recording did not show come under `default`.",
                env.name()
            ),
        },
        "paths": paths,
        "components": {"schemas": tables},
    })
}

/// The path the document is served at (under the default admin prefix).
pub const OPENAPI_PATH: &str = "/_rea/openapi.json";

/// The document's path below the admin prefix (which `--admin-prefix`, or
/// an app that uses `/_rea/` itself, moves).
pub(crate) const OPENAPI_FILE: &str = "/openapi.json";

/// `GET {admin prefix}/openapi.json`.
pub(crate) fn response(env: &Environment) -> axum::response::Response {
    use axum::response::IntoResponse;
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        serde_json::to_vec_pretty(&document(env)).unwrap_or_default(),
    )
        .into_response()
}

/// OpenAPI's name for an HTTP method, for the methods it describes.
fn openapi_method(method: &str) -> Option<&'static str> {
    Some(match method.to_ascii_uppercase().as_str() {
        "GET" => "get",
        "PUT" => "put",
        "POST" => "post",
        "DELETE" => "delete",
        "OPTIONS" => "options",
        "HEAD" => "head",
        "PATCH" => "patch",
        "TRACE" => "trace",
        _ => return None,
    })
}

/// Component names match `^[a-zA-Z0-9._-]+$`.
fn component_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The `{name}` placeholders of a path template, in order.
fn placeholders(template: &str) -> Vec<String> {
    template
        .split('/')
        .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
        .map(str::to_string)
        .collect()
}

fn operation(info: &ToolInfo, schemas: &ToolSchemas) -> Value {
    let tool = &info.tool;
    let mut parameters = Vec::new();
    let names = placeholders(&tool.path_template);
    for name in &names {
        let mut schema = json!({"type": "string", "minLength": 1});
        if let Some(p) = tool.params.iter().find(|p| &p.name == name) {
            if let Some(first) = p.observed.first() {
                schema["examples"] = json!([first]);
            }
        }
        parameters.push(json!({
            "name": name, "in": "path", "required": true, "schema": schema,
        }));
    }
    let mut queries: Vec<(String, Value)> = Vec::new();
    for q in &tool.query_parameter_names {
        if !names.contains(&q.name) {
            queries.push((q.name.clone(), json!({"type": "string"})));
        }
    }
    if !info.list_in_body {
        for (name, schema) in &info.list_arguments {
            if names.contains(name) || name == "body" {
                continue;
            }
            match queries.iter_mut().find(|(n, _)| n == name) {
                Some(slot) => slot.1 = schema.clone(),
                None => queries.push((name.clone(), schema.clone())),
            }
        }
    }
    for (name, schema) in queries {
        let description = schema
            .get("description")
            .cloned()
            .unwrap_or_else(|| json!("a query parameter the recording shows"));
        parameters.push(json!({
            "name": name, "in": "query", "required": false,
            "description": description, "schema": schema,
        }));
    }
    let mut op = json!({
        "operationId": tool.name,
        "summary": format!("{} {}", tool.method, tool.path_template),
        "description": description(info),
        "responses": responses(info, schemas),
    });
    if !parameters.is_empty() {
        op["parameters"] = Value::Array(parameters);
    }
    if info.kind == ToolKind::Write {
        if let Some(body) = &schemas.body {
            let mut media = json!({"schema": body});
            if let Some(example) = &schemas.request_example {
                media["example"] = redact(example);
            }
            op["requestBody"] = json!({
                "required": schemas.body_required,
                "content": {"application/json": media},
            });
        }
    } else if info.list_in_body && !info.list_arguments.is_empty() {
        // A read whose query travels in the body (a POST search).
        let mut media = json!({"schema": {
            "type": "object",
            "properties": Value::Object(info.list_arguments.clone()),
        }});
        if let Some(example) = &schemas.request_example {
            media["example"] = redact(example);
        }
        op["requestBody"] = json!({
            "required": false,
            "content": {"application/json": media},
        });
    }
    op
}

fn responses(info: &ToolInfo, schemas: &ToolSchemas) -> Value {
    let mut out = Map::new();
    let content_type = info
        .tool
        .content_types
        .iter()
        .find(|c| rea_engine::usable::json_like(c))
        .cloned()
        .unwrap_or_else(|| "application/json".to_string());
    for status in &info.tool.statuses {
        let key = status.to_string();
        let mut response = json!({"description": reason(*status)});
        if let Some(recorded) = schemas.answers.get(status) {
            let mut schema = recorded.schema.clone();
            if REFUSAL_STATUSES.contains(status) {
                schema =
                    json!({"anyOf": [schema, {"$ref": format!("#/components/schemas/{REFUSAL}")}]});
            }
            let media = json!({"schema": schema, "example": redact(&recorded.example)});
            response["content"] = json!({ content_type.clone(): media });
        }
        out.insert(key, response);
    }
    out.insert(
        "default".into(),
        json!({"description": "an answer the recording did not show for this operation: rea's own refusal (a JSON object with `error` and `message`) or the application's answer shape for that status"}),
    );
    Value::Object(out)
}

/// A short description of a status.
fn reason(status: u16) -> String {
    axum::http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .map_or_else(|| format!("status {status}"), str::to_string)
}

/// An example with credential-like members' values replaced.
fn redact(value: &Value) -> Value {
    match value {
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| {
                    let lower = k.to_ascii_lowercase();
                    let hidden = CREDENTIAL_LIKE.iter().any(|c| lower.contains(c))
                        && !v.is_object()
                        && !v.is_array()
                        && !v.is_null();
                    (k.clone(), if hidden { json!(REDACTED) } else { redact(v) })
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(redact).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_and_redaction() {
        assert_eq!(placeholders("/v1/{a}/x/{b_id}"), ["a", "b_id"]);
        assert_eq!(
            redact(
                &json!({"user": "u", "Password": "p", "auth": {"api_token": 5}, "list": [{"session_id": "s"}]})
            ),
            json!({"user": "u", "Password": REDACTED, "auth": {"api_token": REDACTED}, "list": [{"session_id": REDACTED}]})
        );
        assert_eq!(component_name("a b/c"), "a_b_c");
    }

    #[test]
    fn the_notes_environment_exports_one_operation_per_tool() {
        let env = Environment::new(crate::testing::Notes::new(), None, None);
        let doc = document(&env);
        assert_eq!(doc["openapi"], OPENAPI_VERSION);
        let offered = env.tools().count();
        let operations: usize = doc["paths"]
            .as_object()
            .unwrap()
            .values()
            .map(|p| p.as_object().unwrap().len())
            .sum();
        assert_eq!(operations, offered);
        assert_eq!(
            doc["components"]["schemas"]["notes"]["required"],
            json!(["id"])
        );
        assert_eq!(document(&env), doc);
    }
}
