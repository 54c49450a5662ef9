//! The inspection MCP surface (`rea inspect-mcp`): the two inspection
//! operations as MCP tools, with strict argument checks before any file
//! access and a bounded per-process store of Evidence kept for
//! `detail: "summary"` and read back as a `retained-evidence` source.

use rea_core::inspect::{check_format, DEFAULT_CAPTURE_TIMEOUT_MS};
use rea_core::{inspect_web_network_capture, Category, Detail, ErrorReport, InspectRequest};
use rea_derivation::analysis::analysis_view;
use rea_derivation::protobuf_view::{protobuf_page_cached, ViewCache};
use rea_derivation::source::{evidence_from_file, evidence_inline, Source};
use rea_derivation::view::{parse_view, ViewRequest};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Map, Value};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// The inspection tool's name.
pub const INSPECT_TOOL: &str = "inspect_web_network_capture";
/// The derived-view tool's name.
pub const VIEW_TOOL: &str = "inspect_analysis_view";
/// How many retained Evidence documents one server keeps (oldest dropped).
pub const RETAINED_LIMIT: usize = 16;

const INSPECT_ARGS: [&str; 7] = [
    "capture_path",
    "format",
    "record_ordinals",
    "sensitive_values",
    "detail",
    "capture_timeout_ms",
    "protobuf",
];
const VIEW_ARGS: [&str; 2] = ["source", "view"];

/// One retained Evidence document and the view cache that lives with it.
type Kept = (Arc<Value>, Arc<Mutex<ViewCache>>);

/// Evidence kept for `retained-evidence` sources, newest last.
#[derive(Default)]
struct Retained {
    entries: VecDeque<(String, Kept)>,
}

impl Retained {
    fn insert(&mut self, evidence: Value) -> String {
        let id = format!("ev_{}", &uuid::Uuid::new_v4().simple().to_string()[..12]);
        while self.entries.len() >= RETAINED_LIMIT {
            self.entries.pop_front();
        }
        self.entries
            .push_back((id.clone(), (Arc::new(evidence), Arc::default())));
        id
    }

    fn get(&self, id: &str) -> Option<Kept> {
        self.entries
            .iter()
            .find(|(k, _)| k == id)
            .map(|(_, v)| v.clone())
    }
}

/// A view's parent: the Evidence, whether it came inline, and the cache of
/// a retained parent.
type Loaded = (Arc<Value>, bool, Option<Arc<Mutex<ViewCache>>>);

/// The MCP handler; clones share one store.
#[derive(Clone, Default)]
pub struct InspectSurface {
    retained: Arc<Mutex<Retained>>,
}

impl InspectSurface {
    pub fn new() -> Self {
        InspectSurface::default()
    }

    fn retain(&self, evidence: Value) -> String {
        match self.retained.lock() {
            Ok(mut r) => r.insert(evidence),
            Err(poisoned) => poisoned.into_inner().insert(evidence),
        }
    }

    fn lookup(&self, id: &str) -> Option<Kept> {
        match self.retained.lock() {
            Ok(r) => r.get(id),
            Err(poisoned) => poisoned.into_inner().get(id),
        }
    }

    /// Answers one `inspect_web_network_capture` call (blocking).
    pub fn inspect(&self, arguments: &JsonObject) -> Result<Value, ErrorReport> {
        self.inspect_cancellable(arguments, rea_core::protobuf::Cancel::default())
    }

    /// `inspect`, stopping protobuf work between batches once `cancel` says so.
    pub fn inspect_cancellable(
        &self,
        arguments: &JsonObject,
        cancel: rea_core::protobuf::Cancel,
    ) -> Result<Value, ErrorReport> {
        let declared = declared_values(arguments);
        self.inspect_inner(arguments, cancel)
            .map_err(|e| e.scrub(&declared))
    }

    fn inspect_inner(
        &self,
        arguments: &JsonObject,
        cancel: rea_core::protobuf::Cancel,
    ) -> Result<Value, ErrorReport> {
        let (mut request, detail) = resolve_inspect(arguments)?;
        request.protobuf.cancel = cancel;
        let evidence = inspect_web_network_capture(&request)?;
        match detail {
            Detail::Complete => serde_json::to_value(&evidence).map_err(output_error),
            Detail::Summary => {
                let value = serde_json::to_value(&evidence).map_err(output_error)?;
                let mut summary = evidence.summary();
                let id = self.retain(value);
                summary["normalized_result"] = json!({ "parent_evidence_id": id });
                Ok(summary)
            }
        }
    }

    /// Answers one `inspect_analysis_view` call (blocking).
    pub fn view(&self, arguments: &JsonObject) -> Result<Value, ErrorReport> {
        check_names(arguments, &VIEW_ARGS)?;
        let source = arguments.get("source").ok_or_else(|| missing("source"))?;
        let view_json = arguments.get("view").ok_or_else(|| missing("view"))?;
        let view = parse_view(view_json)?;
        let (evidence, inline, cache) = self.load_source(source)?;
        // A retained parent's protobuf pages reuse its validation and its
        // most recent field filter.
        if let (ViewRequest::Protobuf(v), Some(cache)) = (&view, cache) {
            let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
            return Ok(protobuf_page_cached(&evidence, v, &mut cache)?);
        }
        Ok(analysis_view(&evidence, &view, inline)?)
    }

    fn load_source(&self, source: &Value) -> Result<Loaded, ErrorReport> {
        let kind = source.get("kind").and_then(Value::as_str);
        match kind {
            Some("retained-evidence") => {
                let obj = source
                    .as_object()
                    .ok_or_else(|| bad_source("source must be an object"))?;
                only_members(obj, &["kind", "evidence_id"])?;
                let id = obj
                    .get("evidence_id")
                    .and_then(Value::as_str)
                    .ok_or_else(|| bad_source("retained-evidence needs a string evidence_id"))?;
                let evidence = self.lookup(id).ok_or_else(|| {
                    ErrorReport::input(
                        "evidence_not_retained",
                        "no Evidence with this id is retained by this server",
                    )
                    .detail("evidence_id", id)
                    .guidance(format!(
                        "Run inspect_web_network_capture with detail \"summary\" again; this server keeps the {RETAINED_LIMIT} most recent Evidence documents."
                    ))
                })?;
                Ok((evidence.0, false, Some(evidence.1)))
            }
            Some("inline") => {
                let obj = source
                    .as_object()
                    .ok_or_else(|| bad_source("source must be an object"))?;
                only_members(obj, &["kind", "evidence"])?;
                let evidence = obj
                    .get("evidence")
                    .ok_or_else(|| bad_source("inline needs the evidence object"))?;
                let bytes = serde_json::to_vec(evidence).map_err(output_error)?;
                Ok((Arc::new(evidence_inline(&bytes)?), true, None))
            }
            _ => {
                let Source::EvidenceFile { path } = Source::from_json(source)? else {
                    return Err(bad_source("unsupported source kind"));
                };
                let bytes = std::fs::read(&path).map_err(|e| {
                    ErrorReport::new(
                        "EvidenceFileError",
                        Category::Unavailable,
                        format!("Could not read the Evidence file: {e}"),
                    )
                    .detail("path", path.as_str())
                    .detail("content_issues", json!([]))
                })?;
                Ok((Arc::new(evidence_from_file(&path, &bytes)?), false, None))
            }
        }
    }
}

/// Every string inside `sensitive_values`, whatever else is wrong, so that
/// even argument errors never repeat a declared literal.
fn declared_values(arguments: &JsonObject) -> Vec<String> {
    arguments
        .get("sensitive_values")
        .and_then(Value::as_array)
        .map(|values| {
            values
                .iter()
                .filter_map(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn check_names(arguments: &JsonObject, allowed: &[&str]) -> Result<(), ErrorReport> {
    match arguments.keys().find(|k| !allowed.contains(&k.as_str())) {
        None => Ok(()),
        Some(name) => Err(ErrorReport::input(
            "invalid_argument",
            format!("unknown argument `{name}`"),
        )
        .detail("argument", name.as_str())
        .detail("accepted", json!(allowed))),
    }
}

fn only_members(obj: &Map<String, Value>, allowed: &[&str]) -> Result<(), ErrorReport> {
    match obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        None => Ok(()),
        Some(name) => Err(ErrorReport::input(
            "invalid_request",
            format!("unknown source member `{name}`"),
        )
        .detail(
            "pointer",
            format!("/source/{}", name.replace('~', "~0").replace('/', "~1")),
        )),
    }
}

fn bad_source(message: &str) -> ErrorReport {
    ErrorReport::input("invalid_request", message).detail("pointer", "/source")
}

fn missing(name: &str) -> ErrorReport {
    ErrorReport::input(
        "invalid_argument",
        format!("the argument `{name}` is required"),
    )
    .detail("argument", name)
}

fn wrong_type(name: &str, expected: &str) -> ErrorReport {
    ErrorReport::input("invalid_argument", format!("`{name}` must be {expected}"))
        .detail("argument", name)
}

fn output_error(e: serde_json::Error) -> ErrorReport {
    ErrorReport::new(
        "output_write_failed",
        Category::Output,
        format!("could not serialize the reply: {e}"),
    )
}

/// Checks the raw arguments (names, then types) and builds the request;
/// nothing here touches the filesystem.
fn resolve_inspect(arguments: &JsonObject) -> Result<(InspectRequest, Detail), ErrorReport> {
    check_names(arguments, &INSPECT_ARGS)?;
    let string = |name: &str| -> Result<Option<String>, ErrorReport> {
        match arguments.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(wrong_type(name, "a string")),
        }
    };
    let capture_path = string("capture_path")?
        .filter(|p| !p.is_empty())
        .ok_or_else(|| missing("capture_path"))?;
    let format = string("format")?.ok_or_else(|| missing("format"))?;
    let record_ordinals = match arguments.get("record_ordinals") {
        None => None,
        Some(Value::Array(items)) => Some(
            items
                .iter()
                .map(|v| {
                    v.as_u64().ok_or_else(|| {
                        wrong_type("record_ordinals", "an array of non-negative integers")
                    })
                })
                .collect::<Result<Vec<u64>, _>>()?,
        ),
        Some(_) => {
            return Err(wrong_type(
                "record_ordinals",
                "an array of non-negative integers",
            ))
        }
    };
    let sensitive_values = match arguments.get("sensitive_values") {
        None => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| wrong_type("sensitive_values", "an array of strings"))
            })
            .collect::<Result<Vec<String>, _>>()?,
        Some(_) => return Err(wrong_type("sensitive_values", "an array of strings")),
    };
    let detail = match string("detail")? {
        None => Detail::Complete,
        Some(text) => Detail::parse(&text)?,
    };
    let capture_timeout_ms = match arguments.get("capture_timeout_ms") {
        None => DEFAULT_CAPTURE_TIMEOUT_MS,
        Some(v) => v
            .as_u64()
            .filter(|&ms| ms > 0)
            .ok_or_else(|| wrong_type("capture_timeout_ms", "a positive integer"))?,
    };
    let protobuf = match arguments.get("protobuf") {
        None => rea_core::protobuf::ProtobufOptions::default(),
        Some(v) => rea_core::protobuf::ProtobufOptions::from_json(v)?,
    };
    check_format(&format)?;
    let request = InspectRequest {
        capture_path: capture_path.into(),
        format,
        record_ordinals,
        sensitive_values,
        detail,
        capture_timeout_ms,
        protobuf,
    };
    Ok((request, detail))
}

fn schema(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

/// The two tools, with strict input schemas.
pub fn tools() -> Vec<Tool> {
    let read_only = ToolAnnotations::new()
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(false);
    let inspect = Tool::new(
        INSPECT_TOOL,
        "Decode a recorded web capture (HAR) into Evidence: records with their original locations, sidecars and redactions. detail \"summary\" keeps the complete Evidence in this server and answers identity and counts with normalized_result.parent_evidence_id.",
        schema(json!({
            "type": "object",
            "properties": {
                "capture_path": {"type": "string", "minLength": 1, "description": "The capture file."},
                "format": {"type": "string", "enum": ["har", "mitmproxy", "saz", "qlog"]},
                "record_ordinals": {"type": "array", "items": {"type": "integer", "minimum": 0}, "description": "Zero-based producer ordinals, answered in this order."},
                "sensitive_values": {"type": "array", "items": {"type": "string", "minLength": 1}, "description": "Literals whose fields are excluded; never repeated."},
                "detail": {"type": "string", "enum": ["complete", "summary"], "default": "complete"},
                "capture_timeout_ms": {"type": "integer", "minimum": 1, "default": DEFAULT_CAPTURE_TIMEOUT_MS},
                "protobuf": {"type": "object", "description": "Protobuf/gRPC body decoding of the selected records: schema {descriptor_set_path, message_type}, body_pointers, framing (raw, grpc, grpc-web, grpc-web-text).", "properties": {
                    "schema": {"type": "object", "properties": {"descriptor_set_path": {"type": "string", "minLength": 1}, "message_type": {"type": "string", "minLength": 1}}, "required": ["descriptor_set_path"], "additionalProperties": false},
                    "body_pointers": {"type": "array", "items": {"type": "string"}},
                    "framing": {"type": "string", "enum": ["raw", "grpc", "grpc-web", "grpc-web-text"]}
                }, "additionalProperties": false}
            },
            "required": ["capture_path", "format"],
            "additionalProperties": false
        })),
    )
    .with_title("Inspect a web network capture")
    .with_annotations(read_only.clone());
    let view = Tool::new(
        VIEW_TOOL,
        "Answer a derived view (api-surface, environment-manifest, environment-state, capture, qlog, protobuf) over inspection Evidence: retained in this server, stored in a file, or given inline.",
        schema(json!({
            "type": "object",
            "properties": {
                "source": {
                    "oneOf": [
                        {"type": "object", "properties": {"kind": {"const": "retained-evidence"}, "evidence_id": {"type": "string"}}, "required": ["kind", "evidence_id"], "additionalProperties": false},
                        {"type": "object", "properties": {"kind": {"const": "evidence-file"}, "path": {"type": "string", "minLength": 1}}, "required": ["kind", "path"], "additionalProperties": false},
                        {"type": "object", "properties": {"kind": {"const": "inline"}, "evidence": {"type": "object"}}, "required": ["kind", "evidence"], "additionalProperties": false}
                    ]
                },
                "view": {"type": "object", "description": "The view, as `rea inspect-analysis-view --view` takes it, e.g. {\"kind\":\"capture\",\"detail\":\"preview\",\"offset\":0,\"limit\":20}."}
            },
            "required": ["source", "view"],
            "additionalProperties": false
        })),
    )
    .with_title("Answer a derived analysis view")
    .with_annotations(read_only);
    vec![inspect, view]
}

/// The tool result for a reply: the document as structured content, or the
/// error contract (text `<code>: <message>`, the report as structured content).
pub fn to_result(reply: Result<Value, ErrorReport>) -> CallToolResult {
    match reply {
        Ok(value) => CallToolResult::structured(value),
        Err(report) => {
            let mut result = CallToolResult::error(vec![ContentBlock::text(format!(
                "{}: {}",
                report.code, report.message
            ))]);
            result.structured_content = Some(report.to_json());
            result
        }
    }
}

impl ServerHandler for InspectSurface {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("rea", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Inspect recorded web captures. Call inspect_web_network_capture with detail \"summary\", then page through the retained Evidence with inspect_analysis_view.",
            )
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools().into_iter().find(|t| t.name == name)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        // A cancelled request (notifications/cancelled) stops protobuf work
        // at its next batch boundary.
        let ct = context.ct.clone();
        let cancel = rea_core::protobuf::Cancel::new(move || ct.is_cancelled());
        if name != INSPECT_TOOL && name != VIEW_TOOL {
            return Err(ErrorData::invalid_params(
                format!("no tool named {name}"),
                None,
            ));
        }
        let arguments = request.arguments.unwrap_or_default();
        let surface = self.clone();
        let reply = tokio::task::spawn_blocking(move || {
            if name == INSPECT_TOOL {
                surface.inspect_cancellable(&arguments, cancel)
            } else {
                surface.view(&arguments)
            }
        })
        .await
        .map_err(|e| ErrorData::internal_error(format!("the call failed: {e}"), None))?;
        Ok(to_result(reply).into())
    }
}

/// Serves the inspection tools over stdin/stdout until the client closes.
pub async fn run_stdio() -> Result<(), crate::ServeError> {
    let service = InspectSurface::new()
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| crate::ServeError::Mcp(e.to_string()))?;
    service
        .waiting()
        .await
        .map_err(|e| crate::ServeError::Mcp(e.to_string()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_store_keeps_the_most_recent_documents_and_drops_the_oldest() {
        let mut store = Retained::default();
        let ids: Vec<String> = (0..RETAINED_LIMIT + 2)
            .map(|i| store.insert(json!({ "n": i })))
            .collect();
        assert_eq!(store.entries.len(), RETAINED_LIMIT);
        assert!(store.get(&ids[0]).is_none() && store.get(&ids[1]).is_none());
        let last = ids.last().unwrap();
        assert_eq!(store.get(last).unwrap().0["n"], RETAINED_LIMIT + 1);
        for id in &ids {
            assert!(id.len() == 15 && id.starts_with("ev_"), "{id}");
        }
    }

    #[test]
    fn wrong_types_are_refused_with_the_argument_named() {
        let cases = [
            (json!({"capture_path": 1, "format": "har"}), "capture_path"),
            (
                json!({"capture_path": "a.har", "format": "har", "record_ordinals": [-1]}),
                "record_ordinals",
            ),
            (
                json!({"capture_path": "a.har", "format": "har", "sensitive_values": "x"}),
                "sensitive_values",
            ),
            (
                json!({"capture_path": "a.har", "format": "har", "detail": "all"}),
                "detail",
            ),
            (
                json!({"capture_path": "a.har", "format": "har", "capture_timeout_ms": 0}),
                "capture_timeout_ms",
            ),
            (json!({"format": "har"}), "capture_path"),
        ];
        for (args, name) in cases {
            let Value::Object(args) = args else {
                unreachable!()
            };
            let e = resolve_inspect(&args).unwrap_err();
            assert_eq!(e.category, Category::Input, "{e:?}");
            assert_eq!(e.details["argument"], name, "{e:?}");
        }
    }

    #[test]
    fn a_declared_value_is_scrubbed_from_an_unknown_argument_error() {
        let Value::Object(args) = json!({"capture_path": "a.har", "format": "har",
            "sensitive_values": ["hunter2"], "xhunter2x": true})
        else {
            unreachable!()
        };
        let e = InspectSurface::new().inspect(&args).unwrap_err();
        assert!(!e.to_json().to_string().contains("hunter2"), "{e:?}");
    }
}
