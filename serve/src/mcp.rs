//! The MCP surface (rmcp): one tool per read tool and per served write,
//! answered through `Environment::call`. The handler holds only an
//! `Arc<Environment>`: rmcp's streamable HTTP service may build a handler per
//! request, so nothing stateful lives in it.

use crate::environment::{Environment, Reply, Request};
use crate::model::ToolInfo;
use crate::outcome::{body_text, failure, is_failure};

use crate::tools::{description, hints, input_schema};
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
pub(crate) fn to_mcp_tool(info: &ToolInfo) -> Tool {
    let h = hints(info);
    let annotations = ToolAnnotations::new()
        .read_only(h.read_only)
        .destructive(h.destructive)
        .idempotent(h.idempotent)
        .open_world(h.open_world);
    Tool::new(
        info.tool.name.clone(),
        description(info),
        Arc::new(input_schema(info)),
    )
    .with_title(format!("{} {}", info.tool.method, info.tool.path_template))
    .with_annotations(annotations)
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
        self.env.tool(name).map(to_mcp_tool)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.env.tools().map(to_mcp_tool).collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let started = std::time::Instant::now();
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
            let reply = env.call(&request);
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
