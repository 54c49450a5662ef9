//! How an `Answer` reads at the edges: its body bytes and content type, and
//! for a 4xx/5xx the failure object `{code, message, retryable, applied, hint?}`.

use rea_engine::{Answer, AnswerBody, Applied};
use serde_json::{json, Value};

/// The body bytes served for an answer. JSON is written compactly, in the
/// member order the engine produced.
pub(crate) fn body_bytes(answer: &Answer) -> Vec<u8> {
    match &answer.body {
        AnswerBody::Json(value) => serde_json::to_vec(value).unwrap_or_default(),
        AnswerBody::Text(text) => text.as_bytes().to_vec(),
        AnswerBody::Bytes(bytes) => bytes.clone(),
        AnswerBody::Empty => Vec::new(),
    }
}

/// The body as text, for MCP text blocks (binary bodies are described, not dumped).
pub(crate) fn body_text(answer: &Answer) -> String {
    match &answer.body {
        AnswerBody::Json(value) => value.to_string(),
        AnswerBody::Text(text) => text.clone(),
        AnswerBody::Bytes(bytes) => match std::str::from_utf8(bytes) {
            Ok(text) => text.to_string(),
            Err(_) => format!("<{} bytes of binary content>", bytes.len()),
        },
        AnswerBody::Empty => String::new(),
    }
}

/// The content type served: the recorded one, else JSON for a JSON body.
pub(crate) fn content_type(answer: &Answer) -> Option<String> {
    match (&answer.content_type, &answer.body) {
        (Some(ct), _) => Some(ct.clone()),
        (None, AnswerBody::Json(_)) => Some("application/json".to_string()),
        (None, AnswerBody::Text(_)) => Some("text/plain; charset=utf-8".to_string()),
        _ => None,
    }
}

pub(crate) fn applied_str(applied: Applied) -> &'static str {
    match applied {
        Applied::Yes => "yes",
        Applied::No => "no",
        Applied::Unknown => "unknown",
    }
}

/// Whether an answer is a failure (4xx or 5xx).
pub(crate) fn is_failure(answer: &Answer) -> bool {
    answer.status >= 400
}

/// The failure object for a 4xx/5xx answer: a stable code (rea's own, else
/// named after the status), the application's message where its body has
/// one, whether retrying may help, whether the effect happened, and a hint.
pub(crate) fn failure(answer: &Answer) -> Value {
    let code = answer
        .error_code
        .clone()
        .unwrap_or_else(|| status_code_name(answer.status).to_string());
    let message =
        body_message(&answer.body).unwrap_or_else(|| reason_phrase(answer.status).to_string());
    let retryable = matches!(answer.status, 408 | 429 | 502 | 503 | 504);
    let mut out = json!({
        "code": code,
        "message": message,
        "retryable": retryable,
        "applied": applied_str(answer.applied),
    });
    if let Some(hint) = hint(&code, answer.status) {
        out["hint"] = Value::String(hint.to_string());
    }
    out
}

fn body_message(body: &AnswerBody) -> Option<String> {
    let AnswerBody::Json(Value::Object(map)) = body else {
        return None;
    };
    for key in ["message", "error_description", "detail", "error"] {
        match map.get(key) {
            Some(Value::String(s)) if !s.is_empty() => return Some(s.clone()),
            Some(Value::Object(inner)) => {
                if let Some(Value::String(s)) = inner.get("message") {
                    return Some(s.clone());
                }
            }
            _ => {}
        }
    }
    None
}

fn status_code_name(status: u16) -> &'static str {
    match status {
        400 => "bad_request",
        401 => "unauthorized",
        403 => "forbidden",
        404 => "not_found",
        405 => "method_not_allowed",
        406 => "not_acceptable",
        409 => "conflict",
        410 => "gone",
        412 => "precondition_failed",
        413 => "payload_too_large",
        415 => "unsupported_media_type",
        422 => "unprocessable",
        429 => "rate_limited",
        500..=599 => "server_error",
        _ => "http_error",
    }
}

fn reason_phrase(status: u16) -> &'static str {
    axum::http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("error")
}

fn hint(code: &str, status: u16) -> Option<&'static str> {
    match code {
        "write_not_served" => Some(
            "this write was recorded but rea could not confirm how it changes state; use a read tool or another write",
        ),
        "no_matching_tool" | "unknown_tool" => Some("list the tools to see what this environment serves"),
        "not_recorded" => Some(
            "this read replays recordings and the capture never made this exact request; try a recorded request line",
        ),
        "invalid_arguments" => Some("check the tool's inputSchema"),
        _ if status == 404 => Some("the environment does not hold this item; list the collection to see which ids it holds"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: u16, body: AnswerBody) -> Answer {
        Answer {
            status,
            content_type: None,
            headers: vec![],
            body,
            tool: None,
            applied: Applied::No,
            error_code: None,
            rendered: None,
        }
    }

    #[test]
    fn failure_takes_the_applications_message_and_names_the_status() {
        let a = answer(
            404,
            AnswerBody::Json(
                json!({"code": 404, "errno": 110, "error": "Not Found", "message": "record not found"}),
            ),
        );
        let f = failure(&a);
        assert_eq!(f["code"], "not_found");
        assert_eq!(f["message"], "record not found");
        assert_eq!(f["applied"], "no");
        assert_eq!(f["retryable"], false);
        assert!(f["hint"].is_string());
    }

    #[test]
    fn rea_codes_win_and_bodies_without_message_use_the_reason_phrase() {
        let mut a = answer(503, AnswerBody::Empty);
        assert_eq!(failure(&a)["message"], "Service Unavailable");
        assert_eq!(failure(&a)["retryable"], true);
        a.error_code = Some("write_not_served".into());
        assert_eq!(failure(&a)["code"], "write_not_served");
    }

    #[test]
    fn body_bytes_and_content_type_follow_the_body() {
        let a = answer(200, AnswerBody::Json(json!({"b": 1, "a": 2})));
        assert_eq!(body_bytes(&a), br#"{"b":1,"a":2}"#);
        assert_eq!(content_type(&a).as_deref(), Some("application/json"));
        assert_eq!(body_bytes(&answer(204, AnswerBody::Empty)), b"");
        assert_eq!(
            body_text(&answer(200, AnswerBody::Bytes(vec![0xff]))),
            "<1 bytes of binary content>"
        );
    }
}
