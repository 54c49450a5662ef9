//! gRPC and gRPC-web at the recorded method paths: the request's transport
//! from its content type, its messages unframed, and the recorded answer
//! framed as recorded (the recorded body bytes when the caller uses the
//! recorded transport, else the recorded messages re-framed for the
//! caller's), with `grpc-status` as HTTP/2 trailers (native gRPC) or a
//! trailer frame (gRPC-web). rea's own refusals are gRPC statuses too.

use super::{inflate, Catalogue, Framed, Outcome, Recorded, Transport};
use crate::environment::Environment;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, Uri};
use axum::response::Response;
use axum::routing::post;
use axum::Router;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use http_body::Frame;
use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// gRPC status codes rea answers with on its own.
const UNIMPLEMENTED: u32 = 12;
const INVALID_ARGUMENT: u32 = 3;
const UNKNOWN: u32 = 2;
const OK: u32 = 0;

/// Response headers never replayed: connection-specific (forbidden in
/// HTTP/2), recomputed, or carried in the trailers instead.
const DROPPED: [&str; 8] = [
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "date",
    "upgrade",
    "proxy-connection",
    "te",
];

/// The routes of every recorded method path (POST, as gRPC calls are).
pub(crate) fn router(env: &Environment) -> Router<Arc<Environment>> {
    let mut router = Router::new();
    for m in &env.grpc().methods {
        // axum reads `{` and `*` as captures; such paths are not served.
        if !m.path.contains(['{', '}', '*']) {
            router = router.route(&m.path, post(handler));
        }
    }
    router
}

/// A body of data frames then one trailers frame.
struct GrpcBody {
    data: VecDeque<Bytes>,
    trailers: Option<HeaderMap>,
}

impl http_body::Body for GrpcBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        if let Some(chunk) = this.data.pop_front() {
            return Poll::Ready(Some(Ok(Frame::data(chunk))));
        }
        Poll::Ready(this.trailers.take().map(|t| Ok(Frame::trailers(t))))
    }

    fn is_end_stream(&self) -> bool {
        self.data.is_empty() && self.trailers.is_none()
    }
}

fn frame(flags: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(5 + payload.len());
    out.push(flags);
    out.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    out.extend_from_slice(payload);
    out
}

fn header_map(pairs: &[(String, String)]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (n, v) in pairs {
        if let (Ok(n), Ok(v)) = (
            HeaderName::from_bytes(n.to_ascii_lowercase().as_bytes()),
            HeaderValue::from_str(v),
        ) {
            map.append(n, v);
        }
    }
    map
}

/// The grpc-status and message rea sends for a recorded answer: the
/// recorded trailers, else (nothing recorded) OK when the answer carried
/// messages with HTTP 200, else UNKNOWN saying the status was not recorded.
fn status_trailers(answer: &Recorded) -> Vec<(String, String)> {
    if answer.grpc_status().is_some() {
        return answer.trailers.clone();
    }
    let mut out = answer.trailers.clone();
    if answer.status == 200 && !answer.messages.is_empty() {
        out.insert(0, ("grpc-status".into(), OK.to_string()));
    } else {
        out.insert(0, ("grpc-status".into(), UNKNOWN.to_string()));
        out.insert(
            1,
            (
                "grpc-message".into(),
                "rea: the recording kept no grpc-status for this call".into(),
            ),
        );
    }
    out
}

fn content_type(transport: Transport) -> &'static str {
    match transport {
        Transport::Grpc => "application/grpc",
        Transport::Web => "application/grpc-web+proto",
        Transport::WebText => "application/grpc-web-text+proto",
    }
}

/// rea's own gRPC status answer (trailers-only).
fn refusal(transport: Transport, code: u32, message: &str) -> Response {
    let trailers = vec![
        ("grpc-status".to_string(), code.to_string()),
        (
            "grpc-message".to_string(),
            percent_encoding::utf8_percent_encode(message, percent_encoding::CONTROLS).to_string(),
        ),
    ];
    respond(
        transport,
        200,
        vec![("content-type".into(), content_type(transport).into())],
        Vec::new(),
        trailers,
    )
}

/// A response over `transport`: the headers, the message frames, and the
/// trailers (HTTP/2 trailers for native gRPC, a terminal trailer frame for
/// gRPC-web, base64 chunks for gRPC-web-text).
fn respond(
    transport: Transport,
    status: u16,
    headers: Vec<(String, String)>,
    frames: Vec<Vec<u8>>,
    trailers: Vec<(String, String)>,
) -> Response {
    let data: VecDeque<Bytes> = match transport {
        Transport::Grpc => frames.into_iter().map(Bytes::from).collect(),
        Transport::Web | Transport::WebText => {
            let block: String = trailers
                .iter()
                .map(|(n, v)| format!("{n}: {v}\r\n"))
                .collect();
            let mut all = frames;
            all.push(frame(0x80, block.as_bytes()));
            all.into_iter()
                .map(|f| {
                    if transport == Transport::WebText {
                        Bytes::from(STANDARD.encode(f))
                    } else {
                        Bytes::from(f)
                    }
                })
                .collect()
        }
    };
    // An empty trailer block is not sent: the last data frame ends the stream.
    let trailers =
        (transport == Transport::Grpc && !trailers.is_empty()).then(|| header_map(&trailers));
    let mut response = Response::new(Body::new(GrpcBody { data, trailers }));
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    *response.headers_mut() = header_map(&headers);
    response
}

/// The recorded answer over the caller's transport.
fn replay(answer: &Recorded, transport: Transport) -> Response {
    let headers: Vec<(String, String)> = answer
        .headers
        .iter()
        .filter(|(n, _)| !DROPPED.iter().any(|d| n.eq_ignore_ascii_case(d)))
        .filter(|(n, _)| transport == answer.transport || !n.eq_ignore_ascii_case("content-type"))
        .cloned()
        .chain((transport != answer.transport).then(|| {
            (
                "content-type".to_string(),
                content_type(transport).to_string(),
            )
        }))
        .collect();
    if transport == answer.transport && transport != Transport::Grpc {
        // gRPC-web: the recorded body is the frames and the trailer frame.
        let mut response = Response::new(Body::from(answer.body.clone()));
        *response.status_mut() = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::OK);
        *response.headers_mut() = header_map(&headers);
        return response;
    }
    let frames: Vec<Vec<u8>> =
        if transport == answer.transport {
            answer
                .messages
                .iter()
                .map(|m| frame(u8::from(m.compressed), &m.payload))
                .collect()
        } else {
            // Re-framed for another transport: uncompressed, so no
            // grpc-encoding header is needed.
            let encoding = answer.grpc_encoding();
            let mut out = Vec::new();
            for m in &answer.messages {
                match inflate(m, encoding) {
                    Some(p) => out.push(frame(0, &p)),
                    None => return refusal(
                        transport,
                        UNIMPLEMENTED,
                        "rea: the recorded answer is compressed with a coding rea cannot re-frame",
                    ),
                }
            }
            out
        };
    let headers = if transport == answer.transport {
        headers
    } else {
        headers
            .into_iter()
            .filter(|(n, _)| !n.eq_ignore_ascii_case("grpc-encoding"))
            .collect()
    };
    // A trailers-only recording keeps grpc-status in its headers; the
    // trailers then repeat nothing.
    let in_headers = headers
        .iter()
        .any(|(n, _)| n.eq_ignore_ascii_case("grpc-status"));
    let trailers = if in_headers && transport == Transport::Grpc {
        answer.trailers.clone()
    } else {
        status_trailers(answer)
    };
    let headers = if transport == Transport::Grpc {
        headers
    } else {
        headers
            .into_iter()
            .filter(|(n, _)| !n.eq_ignore_ascii_case("grpc-status"))
            .collect()
    };
    respond(transport, answer.status, headers, frames, trailers)
}

/// The request's messages, uncompressed.
fn request_messages(
    body: &[u8],
    transport: Transport,
    headers: &HeaderMap,
) -> Result<Vec<Vec<u8>>, String> {
    let (messages, _) = super::split(body, transport)
        .ok_or_else(|| "the request body is not framed as its content type says".to_string())?;
    let encoding = headers.get("grpc-encoding").and_then(|v| v.to_str().ok());
    messages
        .iter()
        .map(|m: &Framed| {
            inflate(m, encoding)
                .ok_or_else(|| "a request message is compressed with an unknown coding".into())
        })
        .collect()
}

/// One gRPC or gRPC-web call at a recorded method path.
async fn handler(
    State(env): State<Arc<Environment>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let catalogue: &Catalogue = env.grpc();
    let transport = headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(Transport::from_content_type);
    let Some(transport) = transport else {
        let mut response = Response::new(Body::from(
            "rea: a gRPC method path takes application/grpc, application/grpc-web or application/grpc-web-text",
        ));
        *response.status_mut() = StatusCode::UNSUPPORTED_MEDIA_TYPE;
        return response;
    };
    let Some(method) = catalogue.method(uri.path()) else {
        return refusal(
            transport,
            UNIMPLEMENTED,
            "rea: no recorded method at this path",
        );
    };
    let requests = match request_messages(&body, transport, &headers) {
        Ok(r) => r,
        Err(e) => return refusal(transport, INVALID_ARGUMENT, &format!("rea: {e}")),
    };
    match catalogue.answer(method, &requests, Some(transport)) {
        Outcome::Answer(answer) => replay(answer, transport),
        Outcome::NotRecorded => refusal(
            transport,
            UNIMPLEMENTED,
            &format!(
                "rea: no recorded call of {} has these request messages (recorded: records {:?})",
                method.path,
                method.ordinals()
            ),
        ),
        Outcome::Invalid(e) => refusal(transport, INVALID_ARGUMENT, &format!("rea: {e}")),
    }
}
