//! gRPC and gRPC-web serving (beyond the spec): the recorded calls of a
//! capture by method path (`Catalogue`), and the one lookup every adapter
//! uses (`Catalogue::answer`): the recorded call of the same method whose
//! request messages equal the caller's (under the `--descriptor-set` when
//! one is given, else byte for byte). `http` serves the answer framed as
//! recorded at the method's own path; `mcp` offers each method as a tool.
//!
//! Not modelled: gRPC calls never change the World (the answer is the
//! recording's, whatever came before); a request stream is read whole
//! before the answer (bidirectional interleaving is not replayed); request
//! messages are compared after `gzip` decompression only; plain
//! `application/x-protobuf` exchanges are not served here.

pub(crate) mod http;
pub(crate) mod mcp;
mod schema;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use prost::Message as _;
use prost_reflect::{DescriptorPool, DynamicMessage, MessageDescriptor, MethodDescriptor};
use rea_core::evidence::Record;
use rea_core::protobuf::framing::{self, Framing};
use rea_core::{Category, ErrorReport};
use serde_json::Value;
use std::io::Read;
use std::path::Path;

/// The largest descriptor set read.
const MAX_DESCRIPTOR_BYTES: u64 = 32 * 1024 * 1024;
/// The largest decompressed message accepted or served.
const MAX_MESSAGE_BYTES: u64 = 16 * 1024 * 1024;

/// How a call travels: native gRPC (HTTP/2, trailers), gRPC-web (binary
/// frames, a trailer frame) or gRPC-web-text (base64 chunks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Transport {
    Grpc,
    Web,
    WebText,
}

impl Transport {
    /// The transport a content type names (`application/grpc+proto`, …).
    pub(crate) fn from_content_type(value: &str) -> Option<Transport> {
        let essence = value.split(';').next()?.trim().to_ascii_lowercase();
        match Framing::from_content_type(&essence)? {
            Framing::Grpc => Some(Transport::Grpc),
            Framing::GrpcWeb => Some(Transport::Web),
            Framing::GrpcWebText => Some(Transport::WebText),
            Framing::Raw => None,
        }
    }

    fn framing(self) -> Framing {
        match self {
            Transport::Grpc => Framing::Grpc,
            Transport::Web => Framing::GrpcWeb,
            Transport::WebText => Framing::GrpcWebText,
        }
    }
}

/// One gRPC message as framed: its compressed flag and payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Framed {
    pub(crate) compressed: bool,
    pub(crate) payload: Vec<u8>,
}

/// The answer of one recorded call.
#[derive(Debug, Clone)]
pub(crate) struct Recorded {
    pub(crate) ordinal: u64,
    pub(crate) transport: Transport,
    /// HTTP status as recorded.
    pub(crate) status: u16,
    /// Response headers as recorded (name, value).
    pub(crate) headers: Vec<(String, String)>,
    /// The body bytes as recorded (the base64 text for gRPC-web-text).
    pub(crate) body: Vec<u8>,
    /// Its data frames.
    pub(crate) messages: Vec<Framed>,
    /// `grpc-status`, `grpc-message` and trailing metadata as recorded
    /// (HTTP/2 trailers, the gRPC-web trailer frame or trailers-only headers).
    pub(crate) trailers: Vec<(String, String)>,
}

impl Recorded {
    /// The recorded `grpc-status`, if the recording kept one.
    pub(crate) fn grpc_status(&self) -> Option<u32> {
        self.trailers
            .iter()
            .chain(&self.headers)
            .find(|(n, _)| n.eq_ignore_ascii_case("grpc-status"))
            .and_then(|(_, v)| v.trim().parse().ok())
    }

    pub(crate) fn grpc_encoding(&self) -> Option<&str> {
        header(&self.headers, "grpc-encoding")
    }
}

/// One recorded call: the request messages (when the recording establishes
/// their bytes) and the answer.
#[derive(Debug, Clone)]
struct Call {
    request: Option<Vec<Vec<u8>>>,
    answer: Recorded,
}

/// One recorded method and its calls, in recording order.
#[derive(Debug)]
pub(crate) struct Method {
    /// `/package.Service/Method`.
    pub(crate) path: String,
    /// The MCP tool name.
    pub(crate) tool: String,
    pub(crate) descriptor: Option<MethodDescriptor>,
    calls: Vec<Call>,
}

impl Method {
    /// The recorded calls' ordinals.
    pub(crate) fn ordinals(&self) -> Vec<u64> {
        self.calls.iter().map(|c| c.answer.ordinal).collect()
    }
}

/// What a call asks and how it is answered.
#[derive(Debug)]
pub(crate) enum Outcome<'a> {
    Answer(&'a Recorded),
    /// No recorded call of the method has these request messages.
    NotRecorded,
    /// The request is not well framed, or not a message of the input type.
    Invalid(String),
}

/// The gRPC methods of a capture.
#[derive(Debug, Default)]
pub(crate) struct Catalogue {
    pub(crate) methods: Vec<Method>,
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn pairs(list: Option<&Value>) -> Vec<(String, String)> {
    list.and_then(Value::as_array)
        .map(|hs| {
            hs.iter()
                .filter_map(|h| {
                    Some((
                        h.get("name")?.as_str()?.to_string(),
                        h.get("value")?.as_str()?.to_string(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The bytes a HAR-shaped body member holds: base64 decoded, else the text.
fn body_bytes(content: Option<&Value>) -> Option<Vec<u8>> {
    let content = content?;
    let text = content.get("text")?.as_str()?;
    if content.get("encoding").and_then(Value::as_str) == Some("base64") {
        STANDARD.decode(text).ok()
    } else {
        Some(text.as_bytes().to_vec())
    }
}

/// The decoded frames of a body under a transport; `None` when it is not
/// well framed.
fn split(body: &[u8], transport: Transport) -> Option<(Vec<Framed>, Option<Vec<u8>>)> {
    let decoded;
    let bytes = if transport == Transport::WebText {
        decoded = framing::decode_text(body).ok()?;
        &decoded[..]
    } else {
        body
    };
    let (frames, error) = framing::frames(bytes, transport.framing());
    if error.is_some() {
        return None;
    }
    let mut messages = Vec::new();
    let mut trailer = None;
    for f in frames {
        let start = f.payload_offset as usize;
        let payload = bytes
            .get(start..start + f.payload_length as usize)?
            .to_vec();
        if f.kind == "trailer" {
            trailer = Some(payload);
        } else {
            messages.push(Framed {
                compressed: f.compressed,
                payload,
            });
        }
    }
    Some((messages, trailer))
}

/// The `name: value` lines of a gRPC-web trailer frame (lines that are not
/// of that shape are left out).
fn trailer_lines(block: &[u8]) -> Vec<(String, String)> {
    String::from_utf8_lossy(block)
        .split("\r\n")
        .filter_map(|line| {
            let (n, v) = line.split_once(':')?;
            let n = n.trim();
            let valid = !n.is_empty()
                && n.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
            valid.then(|| (n.to_ascii_lowercase(), v.trim().to_string()))
        })
        .collect()
}

/// A message's payload with its gRPC compression removed (gzip, deflate or
/// identity); `None` for another coding or a payload that does not inflate.
pub(crate) fn inflate(message: &Framed, encoding: Option<&str>) -> Option<Vec<u8>> {
    if !message.compressed {
        return Some(message.payload.clone());
    }
    let mut out = Vec::new();
    let read = match encoding.map(|e| e.trim().to_ascii_lowercase()).as_deref() {
        Some("gzip") => flate2::read::GzDecoder::new(&message.payload[..])
            .take(MAX_MESSAGE_BYTES)
            .read_to_end(&mut out),
        Some("deflate") => flate2::read::ZlibDecoder::new(&message.payload[..])
            .take(MAX_MESSAGE_BYTES)
            .read_to_end(&mut out),
        _ => return None,
    };
    read.ok().map(|_| out)
}

/// The tool name of a method path: `grpc_Service_Method`, or with the
/// package when two services share a name; only `[A-Za-z0-9_]`, at most 64.
fn tool_names(paths: &[String]) -> Vec<String> {
    let clean = |s: &str| -> String {
        s.chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect()
    };
    let short: Vec<String> = paths
        .iter()
        .map(|p| {
            let rest = p.trim_start_matches('/');
            let (service, method) = rest.split_once('/').unwrap_or(("", rest));
            let service = service.rsplit('.').next().unwrap_or(service);
            format!("grpc_{}_{}", clean(service), clean(method))
        })
        .collect();
    short
        .iter()
        .zip(paths)
        .map(|(s, p)| {
            let name = if short.iter().filter(|o| *o == s).count() > 1 {
                format!("grpc_{}", clean(p.trim_start_matches('/')))
            } else {
                s.clone()
            };
            name.chars().take(64).collect()
        })
        .collect()
}

impl Catalogue {
    /// The gRPC calls among `records` (requests whose content type is
    /// gRPC, gRPC-web or gRPC-web-text at a `/Service/Method` path), with
    /// the compiled descriptor set at `descriptor` when given.
    pub(crate) fn from_records(
        records: &[Record],
        descriptor: Option<&Path>,
    ) -> Result<Catalogue, ErrorReport> {
        let pool = descriptor.map(read_pool).transpose()?;
        let mut methods: Vec<Method> = Vec::new();
        for record in records {
            let Some((path, call)) = recorded_call(record) else {
                continue;
            };
            match methods.iter_mut().find(|m| m.path == path) {
                Some(m) => m.calls.push(call),
                None => methods.push(Method {
                    descriptor: pool.as_ref().and_then(|p| method_of(p, &path)),
                    path,
                    tool: String::new(),
                    calls: vec![call],
                }),
            }
        }
        let paths: Vec<String> = methods.iter().map(|m| m.path.clone()).collect();
        for (m, name) in methods.iter_mut().zip(tool_names(&paths)) {
            m.tool = name;
        }
        Ok(Catalogue { methods })
    }

    pub(crate) fn method(&self, path: &str) -> Option<&Method> {
        self.methods.iter().find(|m| m.path == path)
    }

    pub(crate) fn by_tool(&self, tool: &str) -> Option<&Method> {
        self.methods.iter().find(|m| m.tool == tool)
    }

    /// The recorded answer to `requests` (the caller's request messages,
    /// uncompressed) on `method`: the first recorded call over `transport`
    /// with the same messages, else the first over any transport.
    pub(crate) fn answer<'a>(
        &self,
        method: &'a Method,
        requests: &[Vec<u8>],
        transport: Option<Transport>,
    ) -> Outcome<'a> {
        let input = method.descriptor.as_ref().map(MethodDescriptor::input);
        let asked = match &input {
            Some(desc) => match requests
                .iter()
                .map(|b| DynamicMessage::decode(desc.clone(), &b[..]))
                .collect::<Result<Vec<_>, _>>()
            {
                Ok(m) => Some(m),
                Err(e) => {
                    return Outcome::Invalid(format!(
                        "a request message is not a {}: {e}",
                        desc.full_name()
                    ))
                }
            },
            None => None,
        };
        let same = |call: &Call| -> bool {
            let Some(recorded) = &call.request else {
                return false;
            };
            if recorded.len() != requests.len() {
                return false;
            }
            match (&asked, &input) {
                (Some(asked), Some(desc)) => recorded.iter().zip(asked).all(|(r, a)| {
                    DynamicMessage::decode(desc.clone(), &r[..]).is_ok_and(|r| &r == a)
                }),
                _ => recorded.iter().zip(requests).all(|(r, a)| r == a),
            }
        };
        let preferred = method
            .calls
            .iter()
            .filter(|c| Some(c.answer.transport) == transport)
            .chain(method.calls.iter())
            .find(|c| same(c));
        match preferred {
            Some(call) => Outcome::Answer(&call.answer),
            None => Outcome::NotRecorded,
        }
    }

    /// A message as JSON under `desc`, when it decodes.
    pub(crate) fn to_json(desc: &MessageDescriptor, bytes: &[u8]) -> Option<Value> {
        let message = DynamicMessage::decode(desc.clone(), bytes).ok()?;
        serde_json::to_value(&message).ok()
    }

    /// A JSON value as a message of `desc`, encoded.
    pub(crate) fn from_json(desc: &MessageDescriptor, value: &Value) -> Result<Vec<u8>, String> {
        let message = DynamicMessage::deserialize(desc.clone(), value)
            .map_err(|e| format!("not a {} in protobuf JSON: {e}", desc.full_name()))?;
        Ok(message.encode_to_vec())
    }
}

fn read_pool(path: &Path) -> Result<DescriptorPool, ErrorReport> {
    let unreadable = |e: String| {
        ErrorReport::new(
            "descriptor_set_unreadable",
            Category::Unavailable,
            format!("cannot read --descriptor-set {}: {e}", path.display()),
        )
        .detail("argument", "descriptor_set")
    };
    let size = std::fs::metadata(path)
        .map_err(|e| unreadable(e.to_string()))?
        .len();
    if size > MAX_DESCRIPTOR_BYTES {
        return Err(unreadable(format!(
            "it is {size} bytes, more than {MAX_DESCRIPTOR_BYTES}"
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| unreadable(e.to_string()))?;
    rea_core::protobuf::schema::load(&bytes).map_err(|e| e.detail("argument", "descriptor_set"))
}

fn method_of(pool: &DescriptorPool, path: &str) -> Option<MethodDescriptor> {
    let (service, method) = path.strip_prefix('/')?.split_once('/')?;
    pool.get_service_by_name(service)?
        .methods()
        .find(|m| m.name() == method)
}

/// The method path and the call of one record, when it is a gRPC call.
fn recorded_call(record: &Record) -> Option<(String, Call)> {
    let entry = &record.reported;
    let request = entry.get("request")?;
    let request_headers = pairs(request.get("headers"));
    let transport = header(&request_headers, "content-type")
        .or_else(|| {
            request
                .pointer("/postData/mimeType")
                .and_then(Value::as_str)
        })
        .and_then(Transport::from_content_type)?;
    let url = url::Url::parse(request.get("url")?.as_str()?).ok()?;
    let path = url.path().to_string();
    let (service, method) = path.strip_prefix('/')?.split_once('/')?;
    if service.is_empty() || method.is_empty() || method.contains('/') {
        return None;
    }
    let response = entry.get("response")?;
    let status = response.get("status")?.as_u64()? as u16;
    let headers = pairs(response.get("headers"));
    let body = body_bytes(response.get("content")).unwrap_or_default();
    let (messages, trailer) = split(&body, transport)?;
    let mut trailers = pairs(response.get("_trailers"));
    if let Some(block) = trailer {
        trailers.extend(trailer_lines(&block));
    }
    let encoding = header(&request_headers, "grpc-encoding");
    let request_messages = body_bytes(request.get("postData"))
        .and_then(|b| split(&b, transport))
        .and_then(|(ms, _)| ms.iter().map(|m| inflate(m, encoding)).collect());
    Some((
        path,
        Call {
            request: request_messages,
            answer: Recorded {
                ordinal: record.ordinal,
                transport,
                status,
                headers,
                body,
                messages,
                trailers,
            },
        },
    ))
}

#[cfg(test)]
mod tests;
