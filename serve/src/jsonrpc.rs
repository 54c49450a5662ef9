//! The JSON-RPC 2.0 envelope, checked in one place: reading a body (JSON
//! with no member named twice), each message's `jsonrpc`, `id` and `method`,
//! and the error reply's text. The data plane (`/agentenv`) and the MCP
//! front (`/mcp`, before rmcp) both call it, each with its `Dialect`: the
//! data plane takes batches and any JSON-RPC id (echoed as written, `1e400`
//! included); MCP takes one message whose id is a string or an exact integer.

use rea_core::json::{JsonErrorKind, NumericLiteral, Parsed};
use serde_json::{json, Map, Value};

pub(crate) const PARSE_ERROR: i64 = -32700;
pub(crate) const INVALID_REQUEST: i64 = -32600;
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
pub(crate) const INVALID_PARAMS: i64 = -32602;
pub(crate) const INTERNAL_ERROR: i64 = -32603;

/// How one surface spells and bounds the envelope.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Dialect {
    /// The `message` of a -32700 answer.
    pub parse_error: &'static str,
    /// The `message` of a -32600 answer.
    pub invalid_request: &'static str,
    /// Whether `"id": null` is an id (else it is refused).
    pub null_id: bool,
    /// Whether a non-integer or inexact number is an id (echoed as written).
    pub any_number_id: bool,
    /// The detail naming the ids the surface takes.
    pub id_rule: &'static str,
    /// Whether a wrong id is named before a wrong `jsonrpc`.
    pub id_first: bool,
    /// Whether a message with an id, a `result` or `error` and no `method`
    /// (a client's answer to a server request) is taken.
    pub client_answers: bool,
    /// The detail when `method` is missing.
    pub method_missing: &'static str,
    /// The detail when a message is not a JSON object.
    pub not_an_object: &'static str,
}

/// The data plane's envelope (`/agentenv`).
pub(crate) const DATA_PLANE: Dialect = Dialect {
    parse_error: "parse error",
    invalid_request: "invalid request",
    null_id: true,
    any_number_id: true,
    id_rule: "`id` must be a string, a number or null",
    id_first: true,
    client_answers: false,
    method_missing: "`method` must be a string",
    not_an_object: "a request must be a JSON object",
};

/// MCP's envelope (`/mcp`), with the specification's spellings.
pub(crate) const MCP: Dialect = Dialect {
    parse_error: "Parse error",
    invalid_request: "Invalid Request",
    null_id: false,
    any_number_id: false,
    id_rule: "`id` must be a string or an integer",
    id_first: false,
    client_answers: true,
    method_missing: "`method` is required",
    not_an_object: "the body must be one JSON-RPC message object (MCP takes no batches)",
};

/// Why a body is not JSON a JSON-RPC surface reads.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Unreadable {
    /// A member is named twice (at `pointer`).
    DuplicateKey { pointer: String, message: String },
    /// Not JSON at all.
    NotJson { message: String },
}

/// Reads a body as JSON, refusing a member named twice (as the HAR reader
/// does), with each number's spelling kept beside the value.
pub(crate) fn read(body: &[u8]) -> Result<Parsed, Unreadable> {
    rea_core::json::parse(body).map_err(|e| {
        if e.kind == JsonErrorKind::DuplicateKey {
            Unreadable::DuplicateKey {
                pointer: e.pointer.clone(),
                message: e.to_string(),
            }
        } else {
            Unreadable::NotJson {
                message: e.to_string(),
            }
        }
    })
}

/// A message whose envelope holds: its id as JSON text (`None` for a
/// notification), its method (`None` for a client's answer to a server
/// request) and the message's members.
#[derive(Debug)]
pub(crate) struct Envelope<'m> {
    pub id: Option<String>,
    pub method: Option<&'m str>,
    pub members: &'m Map<String, Value>,
}

/// A message refused: the id to answer with (JSON text, `null` when the
/// message's own could not be read) and the detail.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Refused {
    pub id: String,
    pub detail: String,
}

/// Checks one message's envelope: an object, with `"jsonrpc": "2.0"`, an
/// id the dialect takes (or none) and a string `method` (or, with an id,
/// none and a `result` or `error`). `at` is the message's JSON pointer in
/// the body (`""`, or `/<i>` in a batch), `literals` the body's number
/// spellings.
pub(crate) fn check<'m>(
    message: &'m Value,
    at: &str,
    literals: &[NumericLiteral],
    dialect: &Dialect,
) -> Result<Envelope<'m>, Refused> {
    let refuse = |id: &str, detail: &str| Refused {
        id: id.to_string(),
        detail: detail.to_string(),
    };
    let Value::Object(members) = message else {
        return Err(refuse("null", dialect.not_an_object));
    };
    let id_at = format!("{at}/id");
    let written = literals
        .iter()
        .find(|l| l.pointer == id_at)
        .map(|l| l.lexeme.clone());
    let id = match members.get("id") {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(Value::String(s.clone()).to_string())),
        // A number no double holds reads as `null`: echoed as written.
        Some(Value::Null) if dialect.null_id => Ok(Some(written.unwrap_or_else(|| "null".into()))),
        Some(v @ Value::Number(n))
            if dialect.any_number_id || (written.is_none() && (n.is_i64() || n.is_u64())) =>
        {
            Ok(Some(written.unwrap_or_else(|| v.to_string())))
        }
        Some(_) => Err(()),
    };
    let echo = match &id {
        Ok(Some(id)) => id.clone(),
        _ => "null".to_string(),
    };
    let echo = echo.as_str();
    let version = members.get("jsonrpc") == Some(&json!("2.0"));
    match (&id, version) {
        (Err(()), _) if dialect.id_first => return Err(refuse("null", dialect.id_rule)),
        (_, false) => return Err(refuse(echo, "`jsonrpc` must be \"2.0\"")),
        (Err(()), true) => return Err(refuse("null", dialect.id_rule)),
        _ => {}
    }
    let id = id.unwrap_or_default();
    let method = match members.get("method") {
        Some(Value::String(m)) => Some(m.as_str()),
        Some(_) => return Err(refuse(echo, "`method` must be a string")),
        // A client's answer to a server request.
        None if dialect.client_answers
            && id.is_some()
            && (members.contains_key("result") || members.contains_key("error")) =>
        {
            None
        }
        None => return Err(refuse(echo, dialect.method_missing)),
    };
    Ok(Envelope {
        id,
        method,
        members,
    })
}

/// A reply with `id` written as given (a JSON value's text) and `error`.
pub(crate) fn error_reply(id: &str, error: &Value) -> String {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\":{}}}",
        serde_json::to_string(error).unwrap_or_else(|_| "{}".into())
    )
}

/// The error object `{code, message, data?}`.
pub(crate) fn error(code: i64, message: &str, data: Option<Value>) -> Value {
    let mut error = json!({"code": code, "message": message});
    if let Some(data) = data {
        error["data"] = data;
    }
    error
}

/// A reply with `id` and `result`.
pub(crate) fn result_reply(id: &str, result: &Value) -> String {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{}}}",
        serde_json::to_string(result).unwrap_or_else(|_| "{}".into())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checked(body: &str, dialect: &Dialect) -> Result<(Option<String>, Option<String>), Refused> {
        let parsed = read(body.as_bytes()).unwrap();
        check(&parsed.value, "", &parsed.numeric_literals, dialect)
            .map(|e| (e.id, e.method.map(str::to_string)))
    }

    #[test]
    fn each_dialect_takes_its_ids() {
        let ok = |id: &str| Ok((Some(id.to_string()), Some("m".to_string())));
        let body = |id: &str| format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"m"}}"#);
        assert_eq!(checked(&body("\"a\""), &MCP), ok("\"a\""));
        assert_eq!(checked(&body("7"), &MCP), ok("7"));
        assert_eq!(checked(&body("1e400"), &DATA_PLANE), ok("1e400"));
        assert_eq!(checked(&body("null"), &DATA_PLANE), ok("null"));
        for bad in ["1e400", "1.5", "null", "[1]"] {
            let refused = checked(&body(bad), &MCP).unwrap_err();
            assert_eq!(
                (refused.id.as_str(), refused.detail.as_str()),
                ("null", MCP.id_rule)
            );
        }
        assert!(checked(&body("{}"), &DATA_PLANE).is_err());
    }

    #[test]
    fn the_version_method_and_answers() {
        let refused = checked(r#"{"jsonrpc":"1.0","id":3,"method":"m"}"#, &MCP).unwrap_err();
        assert_eq!(refused.id, "3");
        assert!(refused.detail.contains("jsonrpc"));
        // A wrong id and a wrong version: each dialect names its first.
        let both = r#"{"jsonrpc":"1.0","id":[],"method":"m"}"#;
        assert_eq!(
            checked(both, &DATA_PLANE).unwrap_err().detail,
            DATA_PLANE.id_rule
        );
        assert!(checked(both, &MCP).unwrap_err().detail.contains("jsonrpc"));
        let answer = r#"{"jsonrpc":"2.0","id":3,"result":{}}"#;
        assert_eq!(checked(answer, &MCP), Ok((Some("3".into()), None)));
        let refused = checked(r#"{"jsonrpc":"2.0","id":3}"#, &MCP).unwrap_err();
        assert_eq!(refused.detail, "`method` is required");
        let refused = checked(r#"{"jsonrpc":"2.0","method":4}"#, &DATA_PLANE).unwrap_err();
        assert_eq!(
            (refused.id.as_str(), refused.detail.as_str()),
            ("null", "`method` must be a string")
        );
        assert!(matches!(
            read(b"{\"a\":1,\"a\":2}"),
            Err(Unreadable::DuplicateKey { .. })
        ));
        assert!(matches!(read(b"{nope"), Err(Unreadable::NotJson { .. })));
    }

    #[test]
    fn replies_are_written_with_the_id_as_given() {
        let e = error(
            INVALID_REQUEST,
            "invalid request",
            Some(json!({"detail": "d"})),
        );
        assert_eq!(
            error_reply("1e400", &e),
            r#"{"jsonrpc":"2.0","id":1e400,"error":{"code":-32600,"message":"invalid request","data":{"detail":"d"}}}"#
        );
        assert_eq!(
            result_reply("\"x\"", &json!({})),
            r#"{"jsonrpc":"2.0","id":"x","result":{}}"#
        );
    }
}
