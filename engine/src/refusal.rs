//! rea's own answers: every refusal the engine makes itself (not a replayed
//! recording), with its HTTP-shaped status and its stable code. Adapters map
//! them onward (HTTP status and JSON body, MCP tool error, JSON-RPC error);
//! the engine never decides a transport's spelling.

use crate::{Answer, AnswerBody, Applied};
use serde_json::{json, Map, Value};
use std::fmt;

/// One refusal of rea's own.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Refusal {
    /// No tool matches the request line.
    NoMatchingTool { method: String, line: String },
    /// No tool has this name.
    UnknownTool { name: String },
    /// The tool is recorded but its write plan is not served.
    NotServed {
        tool: String,
        method: String,
        template: String,
        reason: String,
    },
    /// A recorded read never saw this request line.
    NotRecorded {
        tool: String,
        method: String,
        line: String,
    },
    /// The World holds no entity with this identity.
    NotFound { tool: String, id: String },
    /// A create names an identity the World already holds.
    AlreadyExists { tool: String, id: Value },
    /// Tool arguments that do not fit the tool's input schema.
    InvalidArguments {
        tool: String,
        argument: Option<String>,
        message: String,
    },
    /// A request body that is not JSON.
    BodyNotJson { message: String },
    /// A write body (or its entity) that is not a JSON object, or lacks
    /// what the plan requires.
    InvalidBody {
        tool: String,
        code: &'static str,
        message: String,
        extra: Map<String, Value>,
    },
    /// rea failed to build an answer it should have built.
    Internal {
        tool: Option<String>,
        message: String,
    },
}

impl Refusal {
    /// The HTTP-shaped status of the refusal.
    pub fn status(&self) -> u16 {
        match self {
            Refusal::NoMatchingTool { .. }
            | Refusal::UnknownTool { .. }
            | Refusal::NotRecorded { .. }
            | Refusal::NotFound { .. } => 404,
            Refusal::NotServed { .. } => 501,
            Refusal::AlreadyExists { .. } => 409,
            Refusal::InvalidArguments { .. }
            | Refusal::BodyNotJson { .. }
            | Refusal::InvalidBody { .. } => 400,
            Refusal::Internal { .. } => 500,
        }
    }

    /// The stable code, e.g. `no_matching_tool`.
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::NoMatchingTool { .. } => "no_matching_tool",
            Refusal::UnknownTool { .. } => "unknown_tool",
            Refusal::NotServed { .. } => "write_not_served",
            Refusal::NotRecorded { .. } => "not_recorded",
            Refusal::NotFound { .. } => "not_found",
            Refusal::AlreadyExists { .. } => "already_exists",
            Refusal::InvalidArguments { .. } => "invalid_arguments",
            Refusal::BodyNotJson { .. } => "body_not_json",
            Refusal::InvalidBody { code, .. } => code,
            Refusal::Internal { .. } => "internal",
        }
    }

    /// The tool the refusal is about, if any.
    pub fn tool(&self) -> Option<&str> {
        match self {
            Refusal::NotServed { tool, .. }
            | Refusal::NotRecorded { tool, .. }
            | Refusal::NotFound { tool, .. }
            | Refusal::AlreadyExists { tool, .. }
            | Refusal::InvalidArguments { tool, .. }
            | Refusal::InvalidBody { tool, .. } => Some(tool),
            Refusal::Internal { tool, .. } => tool.as_deref(),
            _ => None,
        }
    }

    /// Members added to the JSON body beside `error` and `message`.
    fn extra(&self) -> Map<String, Value> {
        let mut out = Map::new();
        match self {
            Refusal::NotServed { reason, .. } => {
                out.insert("reason".into(), json!(reason));
            }
            Refusal::InvalidArguments {
                tool,
                argument: Some(a),
                ..
            } => {
                out.insert("tool".into(), json!(tool));
                out.insert("argument".into(), json!(a));
            }
            Refusal::InvalidArguments { tool, .. } => {
                out.insert("tool".into(), json!(tool));
            }
            Refusal::InvalidBody { extra, .. } => out.extend(extra.clone()),
            Refusal::AlreadyExists { id, .. } => {
                out.insert("id".into(), id.clone());
            }
            _ => {}
        }
        out
    }

    /// The refusal as an answer: its status and a JSON body
    /// `{"error": code, "message": ..., ...}`.
    pub fn answer(&self) -> Answer {
        let mut body = Map::new();
        body.insert("error".into(), json!(self.code()));
        body.insert("message".into(), json!(self.to_string()));
        body.extend(self.extra());
        Answer {
            status: self.status(),
            content_type: Some("application/json".to_string()),
            headers: Vec::new(),
            body: AnswerBody::Json(Value::Object(body)),
            tool: self.tool().map(str::to_string),
            applied: Applied::No,
            error_code: Some(self.code().to_string()),
            rendered: None,
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::NoMatchingTool { method, line } => {
                write!(f, "no recorded tool matches {method} {line}")
            }
            Refusal::UnknownTool { name } => write!(f, "no tool is named {name}"),
            Refusal::NotServed {
                method,
                template,
                reason,
                ..
            } => write!(
                f,
                "{method} {template} is recorded but its write plan is not served (reason: {reason}); nothing was changed"
            ),
            Refusal::NotRecorded { tool, method, line } => {
                write!(f, "`{tool}` has no recording of {method} {line}")
            }
            Refusal::NotFound { id, .. } => write!(f, "no entity `{id}` is held"),
            Refusal::AlreadyExists { .. } => {
                f.write_str("an entity with this identity already exists in the collection")
            }
            Refusal::InvalidArguments { message, .. }
            | Refusal::BodyNotJson { message }
            | Refusal::InvalidBody { message, .. }
            | Refusal::Internal { message, .. } => f.write_str(message),
        }
    }
}

impl std::error::Error for Refusal {}

impl From<Refusal> for Answer {
    fn from(refusal: Refusal) -> Answer {
        refusal.answer()
    }
}
