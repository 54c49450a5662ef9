//! The MCP surface (rmcp): one tool per read tool and per served write,
//! answered through `Environment::call`. The handler holds only an
//! `Arc<Environment>`: rmcp's streamable HTTP service may build a handler per
//! request, so nothing stateful lives in it.

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
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.env
                .tools()
                .map(|t| to_mcp_tool(t, self.env.tool_schemas(&t.tool.name)))
                .collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // Over streamable HTTP, with `--isolate`: the session's (or the
        // named) episode. Over stdio there is one session and one World.
        let episode = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| crate::episodes::of_mcp_request(&parts.headers));
        if self.env.tool(&request.name).is_none() {
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
        let reply = tokio::task::spawn_blocking(move || env.call_in(episode.as_deref(), &request))
            .await
            .map_err(|e| ErrorData::internal_error(format!("the call failed: {e}"), None))?;
        Ok(to_result(&reply).into())
    }
}
