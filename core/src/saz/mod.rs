//! The Fiddler Session Archive Zip (`.saz`) decoder: the bounded ZIP read,
//! session pairing by member-name stem with ordinals by each session's
//! first member in ZIP directory order, raw HTTP messages, XML metadata and
//! opaque `_w.txt`/`_g.txt` bytes, all over the whole archive before any
//! record is selected.
//!
//! # Layout
//! - `archive`: the ZIP read under the member, size and ratio budgets.
//! - `message`: one `_c.txt`/`_s.txt` HTTP message (head and exact body).
//! - `metadata`: one `_m.xml` member as an XML node tree.
//! - `evidence`: records, sidecars, redaction and the Evidence document.
//! - `http`: HAR-shaped HTTP records of the sessions, for serving.

pub mod archive;
pub mod evidence;
pub mod http;
pub mod message;
pub mod metadata;

use crate::error::ErrorReport;
use message::Side;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::time::Instant;

pub use crate::har::check_deadline;

/// The decoder's name in Evidence.
pub const DECODER_NAME: &str = "rea-saz";
/// The archive profile rea decodes.
pub const SAZ_PROFILE: &str = "saz";
/// Where SAZ records are in the decoded session document.
pub const RECORDS_POINTER: &str = "/sessions";

/// Exact bytes behind one reported field, pointer relative to its record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sidecar {
    pub pointer: String,
    pub bytes: Vec<u8>,
    /// True for request and response bodies.
    pub body: bool,
}

/// One session: its members, its reported fields and their bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    /// Member names in ZIP directory order.
    pub members: Vec<String>,
    pub reported: Value,
    pub sidecars: Vec<Sidecar>,
}

/// A whole decoded archive.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// Archive metadata, with `sessions` `null`.
    pub container: Value,
    /// In ordinal order.
    pub sessions: Vec<Session>,
}

/// The role of a session member, from its name suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Request,
    Response,
    Metadata,
    WebSocket,
    Grpc,
}

impl Role {
    fn key(self) -> &'static str {
        match self {
            Role::Request => "request",
            Role::Response => "response",
            Role::Metadata => "metadata",
            Role::WebSocket => "webSocketMessages",
            Role::Grpc => "grpcMessages",
        }
    }
}

/// `raw/<stem>_c.txt` and friends: the stem and the role.
fn session_member(name: &str) -> Option<(&str, Role)> {
    let rest = name.strip_prefix("raw/")?;
    let (stem, role) = [
        ("_c.txt", Role::Request),
        ("_s.txt", Role::Response),
        ("_m.xml", Role::Metadata),
        ("_w.txt", Role::WebSocket),
        ("_g.txt", Role::Grpc),
    ]
    .into_iter()
    .find_map(|(suffix, role)| rest.strip_suffix(suffix).map(|stem| (stem, role)))?;
    (!stem.is_empty() && !stem.contains('/')).then_some((stem, role))
}

/// The exact UTF-8 display of bytes, or `null` when they are not UTF-8.
pub fn display(bytes: &[u8]) -> Value {
    match std::str::from_utf8(bytes) {
        Ok(text) => Value::String(text.to_string()),
        Err(_) => Value::Null,
    }
}

/// The error for an unreadable or inconsistent archive.
pub fn archive_error(message: String, member: Option<&str>) -> ErrorReport {
    let e = ErrorReport::input("saz_archive_invalid", message).guidance(
        "Check that the file is a complete Session Archive Zip (a truncated or damaged file fails here); save it again from Fiddler.",
    );
    match member {
        Some(m) => e.detail("member", m),
        None => e,
    }
}

/// One session while its members are read.
#[derive(Default)]
struct Pending {
    members: Vec<String>,
    found: Map<String, Value>,
    sidecars: Vec<Sidecar>,
}

/// Reads and decodes a whole SAZ archive.
pub fn decode(bytes: &[u8], deadline: Option<Instant>) -> Result<Decoded, ErrorReport> {
    let archive = archive::read(bytes, deadline)?;
    // Sessions in the order of their first member; `index` maps a stem to its slot.
    let mut pending: Vec<Pending> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut other = Vec::new();
    for member in archive.members {
        check_deadline(deadline)?;
        let role = (!member.directory)
            .then(|| session_member(&member.name))
            .flatten();
        let Some((stem, role)) = role else {
            other.push(json!({
                "name": member.name,
                "directory": member.directory,
                "size": member.bytes.len(),
            }));
            continue;
        };
        let slot = *index.entry(stem.to_string()).or_insert_with(|| {
            pending.push(Pending::default());
            pending.len() - 1
        });
        let (value, sidecars) = match role {
            Role::Request | Role::Response => {
                let side = if role == Role::Request {
                    Side::Request
                } else {
                    Side::Response
                };
                let m = message::parse(side, &member.name, member.bytes)?;
                (m.value, m.sidecars)
            }
            Role::Metadata => (metadata::parse(&member.name, &member.bytes)?, Vec::new()),
            Role::WebSocket | Role::Grpc => {
                let shown = display(&member.bytes);
                let sidecar = Sidecar {
                    pointer: format!("/{}", role.key()),
                    bytes: member.bytes,
                    body: false,
                };
                (shown, vec![sidecar])
            }
        };
        let session = &mut pending[slot];
        session.members.push(member.name);
        session.found.insert(role.key().to_string(), value);
        session.sidecars.extend(sidecars);
    }
    let sessions = pending
        .into_iter()
        .map(|mut p| {
            let reported: Map<String, Value> = [
                Role::Request,
                Role::Response,
                Role::Metadata,
                Role::WebSocket,
                Role::Grpc,
            ]
            .into_iter()
            .map(|role| {
                let value = p.found.remove(role.key()).unwrap_or(Value::Null);
                (role.key().to_string(), value)
            })
            .collect();
            Session {
                members: p.members,
                reported: Value::Object(reported),
                sidecars: p.sidecars,
            }
        })
        .collect();
    let container = json!({
        "comment": display(&archive.comment),
        "other_members": other,
        "sessions": null,
    });
    Ok(Decoded {
        container,
        sessions,
    })
}

#[cfg(test)]
mod tests;
