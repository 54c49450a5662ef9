//! One raw HTTP message of a SAZ session (`_c.txt` request, `_s.txt`
//! response): its start line, its header fields in recorded order
//! (duplicates kept), and its body as the exact stored bytes, which are
//! never de-chunked or decompressed.

use super::{display, Sidecar};
use crate::error::ErrorReport;
use serde_json::{json, Map, Value};

/// The decoded message object and its byte sidecars (pointers relative to the record).
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub value: Value,
    pub sidecars: Vec<Sidecar>,
}

/// Which side of the exchange a member holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Request,
    Response,
}

impl Side {
    fn key(self) -> &'static str {
        match self {
            Side::Request => "request",
            Side::Response => "response",
        }
    }
}

/// Parses one `_c.txt` or `_s.txt` member.
pub fn parse(side: Side, member: &str, mut bytes: Vec<u8>) -> Result<Message, ErrorReport> {
    let fail = |reason: &str| malformed(member, reason);
    let mut lines: Vec<(usize, usize)> = Vec::new();
    let mut at = 0;
    let body_start = loop {
        let Some(nl) = bytes[at..].iter().position(|&b| b == b'\n') else {
            return Err(fail("no blank line ends the message head"));
        };
        let end = at + nl;
        let line_end = if end > at && bytes[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        if line_end == at {
            if lines.is_empty() {
                return Err(fail(
                    "the message starts with a blank line, not a start line",
                ));
            }
            break end + 1;
        }
        lines.push((at, line_end));
        at = end + 1;
    };
    let base = format!("/{}", side.key());
    let text = |(s, e): (usize, usize)| std::str::from_utf8(&bytes[s..e]);
    let start = text(lines[0]).map_err(|_| fail("the start line is not UTF-8"))?;
    let mut value = Map::new();
    match side {
        Side::Request => {
            let mut parts = start.splitn(3, ' ');
            let (Some(method), Some(target), Some(version)) =
                (parts.next(), parts.next(), parts.next())
            else {
                return Err(fail("the request line is not `METHOD target HTTP-version`"));
            };
            if method.is_empty() || target.is_empty() || version.is_empty() || version.contains(' ')
            {
                return Err(fail("the request line is not `METHOD target HTTP-version`"));
            }
            value.insert("method".into(), json!(method));
            value.insert("url".into(), json!(target));
            value.insert("httpVersion".into(), json!(version));
        }
        Side::Response => {
            let (version, rest) = start
                .split_once(' ')
                .ok_or_else(|| fail("the status line is not `HTTP-version status reason`"))?;
            let (code, reason) = match rest.split_once(' ') {
                Some((code, reason)) => (code, Some(reason)),
                None => (rest, None),
            };
            if version.is_empty() || code.len() != 3 || !code.bytes().all(|b| b.is_ascii_digit()) {
                return Err(fail("the status line has no three-digit status code"));
            }
            value.insert("httpVersion".into(), json!(version));
            value.insert("status".into(), json!(code.parse::<u16>().unwrap_or(0)));
            value.insert(
                "statusText".into(),
                reason.map_or(Value::Null, |r| json!(r)),
            );
        }
    }
    let mut sidecars = Vec::new();
    let mut headers = Vec::with_capacity(lines.len() - 1);
    for (i, &(s, e)) in lines[1..].iter().enumerate() {
        let line = &bytes[s..e];
        let colon = line
            .iter()
            .position(|&b| b == b':')
            .ok_or_else(|| fail("a header line has no `:`"))?;
        let name = std::str::from_utf8(&line[..colon])
            .ok()
            .filter(|n| !n.is_empty() && !n.bytes().any(|b| b == b' ' || b == b'\t'))
            .ok_or_else(|| fail("a header name is empty, not UTF-8 or holds whitespace (folded headers are not read)"))?;
        let raw = trim_ows(&line[colon + 1..]);
        let shown = display(raw);
        if shown.is_null() {
            sidecars.push(Sidecar {
                pointer: format!("{base}/headers/{i}/value"),
                bytes: raw.to_vec(),
                body: false,
            });
        }
        headers.push(json!({"name": name, "value": shown}));
    }
    value.insert("headers".into(), Value::Array(headers));
    let body = bytes.split_off(body_start);
    value.insert("body".into(), display(&body));
    sidecars.push(Sidecar {
        pointer: format!("{base}/body"),
        bytes: body,
        body: true,
    });
    Ok(Message {
        value: Value::Object(value),
        sidecars,
    })
}

fn trim_ows(mut bytes: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = bytes {
        bytes = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = bytes {
        bytes = rest;
    }
    bytes
}

fn malformed(member: &str, reason: &str) -> ErrorReport {
    ErrorReport::input(
        "saz_message_malformed",
        format!("the archive member is not an HTTP message: {reason}"),
    )
    .detail("member", member)
    .detail("reason", reason)
    .guidance(
        "Save the session archive again from Fiddler; every session is read, selected or not.",
    )
}
