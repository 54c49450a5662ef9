//! Each recorded gRPC method as an MCP tool. With a descriptor set the
//! input is the request message in protobuf JSON (client-streaming methods:
//! `{"requests": [...]}`) and the answer's messages are JSON too; without
//! one the messages are base64 (`request_base64` / `requests_base64`).
//! The answer is the recorded call with the same request messages
//! (`Catalogue::answer`), as `{record_ordinal, grpc_status, grpc_message,
//! headers, trailers, messages, messages_base64}`.

use super::schema::message_schema;
use super::{inflate, Catalogue, Method, Outcome, Recorded};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use rmcp::model::{CallToolResult, ContentBlock, Tool, ToolAnnotations};
use serde_json::{json, Map, Value};
use std::sync::Arc;

fn client_streaming(m: &Method) -> bool {
    m.descriptor
        .as_ref()
        .is_some_and(|d| d.is_client_streaming())
}

fn input_schema(m: &Method) -> Map<String, Value> {
    let schema = match &m.descriptor {
        Some(d) if d.is_client_streaming() => json!({
            "type": "object",
            "properties": {"requests": {"type": "array", "items": message_schema(&d.input())}},
            "required": ["requests"],
        }),
        Some(d) => message_schema(&d.input()),
        None => json!({
            "type": "object",
            "properties": {
                "request_base64": {"type": "string", "contentEncoding": "base64", "description": "the request message's bytes"},
                "requests_base64": {"type": "array", "items": {"type": "string", "contentEncoding": "base64"}, "description": "every request message of a client-streaming call"},
            },
        }),
    };
    match schema {
        Value::Object(mut o) => {
            o.entry("type").or_insert(json!("object"));
            o
        }
        _ => Map::new(),
    }
}

/// The MCP tools of the recorded gRPC methods.
pub(crate) fn tools(catalogue: &Catalogue) -> Vec<Tool> {
    catalogue.methods.iter().map(tool).collect()
}

pub(crate) fn tool(m: &Method) -> Tool {
    let kind = match &m.descriptor {
        Some(d) => format!(
            "{}{} {} -> {}{}",
            if d.is_client_streaming() {
                "stream "
            } else {
                ""
            },
            d.input().full_name(),
            "",
            if d.is_server_streaming() {
                "stream "
            } else {
                ""
            },
            d.output().full_name()
        ),
        None => "request and answer messages as base64 (no --descriptor-set given)".into(),
    };
    let description = format!(
        "The gRPC method {} as recorded ({}; records {:?}). Answers with the recorded call whose request messages equal these; a request never recorded is refused.",
        m.path,
        kind.replace("  ", " "),
        m.ordinals()
    );
    Tool::new(m.tool.clone(), description, Arc::new(input_schema(m)))
        .with_title(format!("gRPC {}", m.path))
        .with_annotations(
            ToolAnnotations::new()
                .read_only(false)
                .destructive(false)
                .idempotent(true)
                .open_world(false),
        )
}

fn failure(code: &str, message: String) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(format!("{code}: {message}"))]);
    result.structured_content = Some(json!({
        "code": code,
        "message": message,
        "retryable": false,
        "applied": "no",
        "hint": "Call with a request message the capture recorded for this method.",
    }));
    result
}

/// The request messages the arguments give.
fn requests(
    catalogue: &Catalogue,
    m: &Method,
    arguments: &Map<String, Value>,
) -> Result<Vec<Vec<u8>>, String> {
    let _ = catalogue;
    match &m.descriptor {
        Some(d) => {
            let input = d.input();
            if client_streaming(m) {
                let list = arguments
                    .get("requests")
                    .and_then(Value::as_array)
                    .ok_or("a client-streaming method takes {\"requests\": [message, ...]}")?;
                list.iter()
                    .map(|v| Catalogue::from_json(&input, v))
                    .collect()
            } else {
                Ok(vec![Catalogue::from_json(
                    &input,
                    &Value::Object(arguments.clone()),
                )?])
            }
        }
        None => {
            let decode = |v: &Value| -> Result<Vec<u8>, String> {
                let text = v.as_str().ok_or("a base64 message must be a string")?;
                STANDARD
                    .decode(text)
                    .map_err(|e| format!("a request message is not base64: {e}"))
            };
            if let Some(one) = arguments.get("request_base64") {
                Ok(vec![decode(one)?])
            } else if let Some(Value::Array(all)) = arguments.get("requests_base64") {
                all.iter().map(decode).collect()
            } else {
                Err("without --descriptor-set, give request_base64 (or requests_base64 for a stream)".into())
            }
        }
    }
}

fn object(pairs: &[(String, String)]) -> Value {
    let mut out = Map::new();
    for (n, v) in pairs {
        out.entry(n.to_ascii_lowercase())
            .or_insert_with(|| json!(v));
    }
    Value::Object(out)
}

fn answer_value(m: &Method, answer: &Recorded) -> Value {
    let encoding = answer.grpc_encoding();
    let payloads: Vec<Option<Vec<u8>>> = answer
        .messages
        .iter()
        .map(|f| inflate(f, encoding))
        .collect();
    let base64: Vec<Value> = payloads
        .iter()
        .map(|p| {
            p.as_ref()
                .map_or(Value::Null, |b| json!(STANDARD.encode(b)))
        })
        .collect();
    let mut out = json!({
        "record_ordinal": answer.ordinal,
        "grpc_status": answer.grpc_status(),
        "grpc_message": answer.trailers.iter().chain(&answer.headers)
            .find(|(n, _)| n.eq_ignore_ascii_case("grpc-message")).map(|(_, v)| {
                percent_encoding::percent_decode_str(v).decode_utf8_lossy().into_owned()
            }),
        "headers": object(&answer.headers),
        "trailers": object(&answer.trailers),
        "messages_base64": base64,
    });
    if let Some(d) = &m.descriptor {
        let output = d.output();
        let messages: Vec<Value> = payloads
            .iter()
            .map(|p| {
                p.as_ref()
                    .and_then(|b| Catalogue::to_json(&output, b))
                    .unwrap_or(Value::Null)
            })
            .collect();
        out["messages"] = json!(messages);
    }
    out
}

/// Calls the tool of `m` with `arguments`.
pub(crate) fn call(
    catalogue: &Catalogue,
    m: &Method,
    arguments: &Map<String, Value>,
) -> CallToolResult {
    let asked = match requests(catalogue, m, arguments) {
        Ok(r) => r,
        Err(e) => return failure("invalid_arguments", e),
    };
    match catalogue.answer(m, &asked, None) {
        Outcome::Answer(answer) => {
            let value = answer_value(m, answer);
            let text = serde_json::to_string(&value).unwrap_or_default();
            let status = answer.grpc_status();
            let ok = status.map_or(answer.status == 200 && !answer.messages.is_empty(), |s| {
                s == 0
            });
            let mut result = if ok {
                CallToolResult::success(vec![ContentBlock::text(text)])
            } else {
                CallToolResult::error(vec![ContentBlock::text(text)])
            };
            result.structured_content = Some(value);
            result
        }
        Outcome::NotRecorded => failure(
            "not_recorded",
            format!(
                "no recorded call of {} has these request messages (recorded: records {:?})",
                m.path,
                m.ordinals()
            ),
        ),
        Outcome::Invalid(e) => failure("invalid_arguments", e),
    }
}
