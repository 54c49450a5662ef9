//! The MCP surface (rmcp): one tool per read tool and per served write,
//! answered through `Environment::call`. The handler holds only an
//! `Arc<Environment>`: rmcp's streamable HTTP service may build a handler per
//! request, so nothing stateful lives in it. In front of rmcp, `envelope`
//! answers a POST body that is not one JSON-RPC 2.0 message with the
//! JSON-RPC error its specification names (the envelope is checked by
//! `crate::jsonrpc`, in its MCP dialect).

use crate::environment::{Environment, Reply, Request};
use crate::model::ToolInfo;
use crate::outcome::{body_text, failure, is_failure};

use crate::model::ToolSchemas;
use crate::tools::{description, hints, input_schema, output_schema_of};
use rea_engine::AnswerBody;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{json, Value};
use std::sync::Arc;

/// `DELETE /mcp` (session termination) answers as the MCP specification's
/// clients expect a success: `204 No Content` (rmcp answers `202`, which
/// the official SDK logs as "Session termination failed: 202" on every
/// close). Other answers pass through unchanged.
/// With `--isolate`, an ended session's episode World is dropped.
pub(crate) async fn session_end(
    axum::extract::State(env): axum::extract::State<Arc<Environment>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let delete = request.method() == axum::http::Method::DELETE;
    let session = request
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let mut response = next.run(request).await;
    if delete && response.status().is_success() {
        if let Some(session) = session {
            env.end_episode(&session);
        }
    }
    if delete && response.status() == axum::http::StatusCode::ACCEPTED {
        *response.status_mut() = axum::http::StatusCode::NO_CONTENT;
        *response.body_mut() = axum::body::Body::empty();
        response
            .headers_mut()
            .remove(axum::http::header::CONTENT_LENGTH);
    }
    response
}

/// The body as text: exactly the bytes HTTP serves when they are UTF-8.
fn reply_text(reply: &Reply) -> String {
    match std::str::from_utf8(&reply.bytes) {
        Ok(text) => text.to_string(),
        Err(_) => body_text(&reply.answer),
    }
}

#[derive(Clone)]
pub struct McpSurface {
    env: Arc<Environment>,
}

impl McpSurface {
    pub fn new(env: Arc<Environment>) -> Self {
        McpSurface { env }
    }
}

/// The MCP tool for one served tool.
pub(crate) fn to_mcp_tool(info: &ToolInfo, inferred: &ToolSchemas) -> Tool {
    let h = hints(info);
    let annotations = ToolAnnotations::new()
        .read_only(h.read_only)
        .destructive(h.destructive)
        .idempotent(h.idempotent)
        .open_world(h.open_world);
    let tool = Tool::new(
        info.tool.name.clone(),
        description(info),
        Arc::new(input_schema(info, inferred)),
    )
    .with_title(format!("{} {}", info.tool.method, info.tool.path_template))
    .with_annotations(annotations);
    match output_schema_of(inferred) {
        Some(output) => tool.with_raw_output_schema(Arc::new(output)),
        None => tool,
    }
}

/// The tool result for a reply.
pub(crate) fn to_result(reply: &Reply) -> CallToolResult {
    let answer = &reply.answer;
    let text = reply_text(reply);
    if is_failure(answer) {
        let fail = failure(answer);
        let headline = format!(
            "{}: {}",
            fail["code"].as_str().unwrap_or("error"),
            fail["message"].as_str().unwrap_or("")
        );
        let recorded = format!("HTTP {}\n{}", answer.status, text);
        let mut result = CallToolResult::error(vec![
            ContentBlock::text(headline),
            ContentBlock::text(recorded),
        ]);
        result.structured_content = Some(fail);
        return result;
    }
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    if let AnswerBody::Json(value @ Value::Object(_)) = &answer.body {
        result.structured_content = Some(value.clone());
    }
    let mut meta = rmcp::model::MetaObject::new();
    meta.0
        .insert("rea/status".to_string(), json!(answer.status));
    if let Some(ct) = crate::outcome::content_type(answer) {
        meta.0.insert("rea/content_type".to_string(), json!(ct));
    }
    result.meta = Some(meta);
    result
}

impl ServerHandler for McpSurface {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("rea", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "A stateful fake of {} derived from a recorded capture. Read tools answer from the environment's current state; write tools change it.",
                self.env.name()
            ))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.env
            .tool(name)
            .map(|t| to_mcp_tool(t, self.env.tool_schemas(name)))
            .or_else(|| {
                let grpc = self.env.grpc();
                grpc.by_tool(name).map(crate::grpc::mcp::tool)
            })
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut tools: Vec<Tool> = self
            .env
            .tools()
            .map(|t| to_mcp_tool(t, self.env.tool_schemas(&t.tool.name)))
            .collect();
        tools.extend(crate::grpc::mcp::tools(self.env.grpc()));
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let started = std::time::Instant::now();
        if let Some(method) = self.env.grpc().by_tool(&request.name) {
            let arguments = request.arguments.unwrap_or_default();
            let result = crate::grpc::mcp::call(self.env.grpc(), method, &arguments);
            crate::admin::journal_recorded_tool(
                &self.env,
                &request.name,
                &arguments,
                &result,
                started,
            );
            return Ok(result.into());
        }
        // Over streamable HTTP, with `--isolate`: the session's (or the
        // named) episode. Over stdio there is one session and one World.
        let episode = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| crate::episodes::of_mcp_request(&parts.headers));
        if self.env.tool(&request.name).is_none() {
            let arguments = request.arguments.unwrap_or_default();
            crate::admin::journal_tool(&self.env, &request.name, &arguments, None, started);
            return Err(ErrorData::invalid_params(
                format!("no tool named {}", request.name),
                None,
            ));
        }
        let request = Request::Tool {
            name: request.name.to_string(),
            arguments: request.arguments.unwrap_or_default(),
        };
        let env = self.env.clone();
        let reply = tokio::task::spawn_blocking(move || {
            let reply = env.call_in(episode.as_deref(), &request);
            if let Request::Tool { name, arguments } = &request {
                crate::admin::journal_tool(&env, name, arguments, Some(&reply), started);
            }
            reply
        })
        .await
        .map_err(|e| ErrorData::internal_error(format!("the call failed: {e}"), None))?;
        Ok(to_result(&reply).into())
    }
}

/// A JSON-RPC error answer on `/mcp` (`id`, JSON text, is `null` when the
/// request's could not be read).
fn rpc_refusal(
    status: axum::http::StatusCode,
    id: &str,
    code: i64,
    message: &str,
    detail: String,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let error = crate::jsonrpc::error(code, message, Some(json!({ "detail": detail })));
    (
        status,
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        crate::jsonrpc::error_reply(id, &error),
    )
        .into_response()
}

/// Why a POST body is not one JSON-RPC 2.0 message MCP accepts, as the
/// answer to send; `None` when rmcp should take it.
pub(crate) fn protocol_error(bytes: &[u8]) -> Option<axum::response::Response> {
    use crate::jsonrpc::{self, Unreadable, MCP};
    use axum::http::StatusCode;
    let bad = StatusCode::BAD_REQUEST;
    let parsed = match jsonrpc::read(bytes) {
        Ok(p) => p,
        Err(Unreadable::DuplicateKey { pointer, message }) => {
            return Some(rpc_refusal(
                bad,
                "null",
                jsonrpc::INVALID_REQUEST,
                MCP.invalid_request,
                format!("a member is named twice at {pointer} ({message})"),
            ))
        }
        Err(Unreadable::NotJson { message }) => {
            return Some(rpc_refusal(
                bad,
                "null",
                jsonrpc::PARSE_ERROR,
                MCP.parse_error,
                format!("the body is not JSON: {message}"),
            ))
        }
    };
    let envelope = match jsonrpc::check(&parsed.value, "", &parsed.numeric_literals, &MCP) {
        Ok(envelope) => envelope,
        Err(refused) => {
            return Some(rpc_refusal(
                bad,
                &refused.id,
                jsonrpc::INVALID_REQUEST,
                MCP.invalid_request,
                refused.detail,
            ))
        }
    };
    // A client's answer to a server request: rmcp takes it.
    let method = envelope.method?;
    let message = envelope.members;
    let id = envelope.id.as_deref();
    let params_error = match message.get("params") {
        None => None,
        Some(Value::Object(p)) => {
            let arguments = p.get("arguments");
            if method == "tools/call" && arguments.is_some_and(|a| !a.is_object() && !a.is_null()) {
                Some("`params.arguments` must be an object of argument name -> value")
            } else if method == "tools/call" && !p.get("name").is_some_and(Value::is_string) {
                Some("`params.name` must be the tool's name")
            } else {
                None
            }
        }
        Some(_) => Some("`params` must be an object"),
    };
    let detail = params_error?;
    // A notification gets no answer of its own; a request its error, in band.
    let status = if id.is_some() {
        StatusCode::OK
    } else {
        StatusCode::BAD_REQUEST
    };
    Some(rpc_refusal(
        status,
        id.unwrap_or("null"),
        crate::jsonrpc::INVALID_PARAMS,
        "Invalid params",
        detail.to_string(),
    ))
}

/// The middleware in front of rmcp: reads a JSON POST body (at most
/// `limit` bytes) and answers protocol errors itself.
pub(crate) async fn envelope(
    axum::extract::State(limit): axum::extract::State<usize>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let json_body = request
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|ct| ct.split(';').next())
        .is_some_and(|e| e.trim().eq_ignore_ascii_case("application/json"));
    // Other media types and methods: rmcp answers (415, 405, 406, ...).
    if request.method() != axum::http::Method::POST || !json_body {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, limit).await {
        Ok(b) => b,
        Err(_) => {
            return (
                axum::http::StatusCode::PAYLOAD_TOO_LARGE,
                format!("the request body is larger than {limit} bytes"),
            )
                .into_response()
        }
    };
    if let Some(refusal) = protocol_error(&bytes) {
        return refusal;
    }
    next.run(axum::extract::Request::from_parts(
        parts,
        axum::body::Body::from(bytes),
    ))
    .await
}
