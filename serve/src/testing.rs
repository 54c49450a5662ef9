//! A small in-memory model for the adapters' unit tests: one `notes`
//! collection with list, item, create and delete, a recorded read and a
//! write whose plan is not served.

use crate::model::{ImportError, Model, ToolInfo, ToolKind};
use indexmap::IndexMap;
use rea_engine::manifest::{Param, Tool};
use rea_engine::{Answer, AnswerBody, Applied, Call, Generator, Refusal, Request};
use serde_json::{json, Map, Value};

pub(crate) struct Notes {
    tools: Vec<ToolInfo>,
}

fn tool(
    name: &str,
    method: &str,
    template: &str,
    kind: ToolKind,
    plan: &str,
    served: bool,
) -> ToolInfo {
    let params = if template.ends_with("{note_id}") {
        vec![Param {
            name: "note_id".into(),
            segment_index: 2,
            rule: "numeric".into(),
            observed: vec!["1".into()],
            basis: "derived".into(),
        }]
    } else {
        vec![]
    };
    ToolInfo {
        tool: Tool {
            name: name.into(),
            method: method.into(),
            path_template: template.into(),
            api_surface_template: template.into(),
            params,
            query_parameter_names: vec![],
            body_shape: (method == "POST")
                .then(|| IndexMap::from([("text".to_string(), "string".to_string())])),
            statuses: vec![200],
            content_types: vec!["application/json".into()],
            record_ordinals: vec![0],
        },
        kind,
        plan: plan.into(),
        reason: (!served).then(|| "unconfirmed".to_string()),
        served,
        list_arguments: serde_json::Map::new(),
        list_in_body: false,
    }
}

impl Notes {
    pub(crate) fn new() -> Self {
        Notes {
            tools: vec![
                tool(
                    "list_notes",
                    "GET",
                    "/v1/notes",
                    ToolKind::Read,
                    "list",
                    true,
                ),
                tool(
                    "get_note",
                    "GET",
                    "/v1/notes/{note_id}",
                    ToolKind::Read,
                    "item",
                    true,
                ),
                tool(
                    "create_note",
                    "POST",
                    "/v1/notes",
                    ToolKind::Write,
                    "create",
                    true,
                ),
                tool(
                    "delete_note",
                    "DELETE",
                    "/v1/notes/{note_id}",
                    ToolKind::Write,
                    "delete",
                    true,
                ),
                tool(
                    "patch_note",
                    "PATCH",
                    "/v1/notes/{note_id}",
                    ToolKind::Write,
                    "update",
                    false,
                ),
            ],
        }
    }
}

fn json_answer(status: u16, body: Value, applied: Applied) -> Answer {
    Answer {
        status,
        content_type: Some("application/json".into()),
        headers: vec![
            ("ETag".into(), "\"1\"".into()),
            ("Set-Cookie".into(), "s=1".into()),
        ],
        body: AnswerBody::Json(body),
        tool: None,
        applied,
        error_code: None,
        rendered: None,
    }
}

impl Model for Notes {
    type World = Vec<Value>;

    fn name(&self) -> &str {
        "notes-test"
    }
    fn tools(&self) -> &[ToolInfo] {
        &self.tools
    }
    fn initial_world(&self) -> Vec<Value> {
        vec![json!({"id": 1, "text": "first"})]
    }
    fn export(&self, world: &Vec<Value>) -> Value {
        json!({"collections": {"notes": world.clone()}, "documents": {"/v1/": {"version": "1"}}})
    }
    fn import(&self, value: &Value) -> Result<Vec<Value>, ImportError> {
        let rows = value
            .pointer("/collections/notes")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut seen = std::collections::BTreeSet::new();
        for (i, row) in rows.iter().enumerate() {
            if !seen.insert(row["id"].to_string()) {
                return Err(ImportError {
                    detail: format!("notes[{i}].id: duplicate id {}", row["id"]),
                });
            }
        }
        Ok(rows)
    }
    fn tables(&self) -> IndexMap<String, Value> {
        IndexMap::from([(
            "notes".to_string(),
            json!({"type": "object", "properties": {"id": {"type": "integer"}, "text": {"type": "string"}}, "required": ["id"]}),
        )])
    }
    fn answer(&self, world: &mut Vec<Value>, request: &Request, g: &mut dyn Generator) -> Answer {
        let (tool, call) = match request {
            Request::Tool { name, arguments } => {
                if !self.tools.iter().any(|t| &t.tool.name == name) {
                    return Refusal::UnknownTool { name: name.clone() }.answer();
                }
                match self.tool_call(name, arguments) {
                    Ok(call) => (name.clone(), call),
                    Err(answer) => return *answer,
                }
            }
            Request::Http(call) => match self.route(&call.method, &call.path) {
                Some(tool) => (tool, call.clone()),
                None => {
                    return Refusal::NoMatchingTool {
                        method: call.method.clone(),
                        line: call.line(),
                    }
                    .answer()
                }
            },
        };
        let info = self
            .tools
            .iter()
            .find(|t| t.tool.name == tool)
            .expect("routed");
        if !info.served {
            return Refusal::NotServed {
                tool: tool.clone(),
                method: info.tool.method.clone(),
                template: info.tool.path_template.clone(),
                reason: info.reason.clone().unwrap_or_default(),
            }
            .answer();
        }
        self.call(world, &call, g)
    }
}

impl Notes {
    fn route(&self, method: &str, path: &str) -> Option<String> {
        let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        match (method, segs.as_slice()) {
            ("GET", ["v1", "notes"]) => Some("list_notes".into()),
            ("POST", ["v1", "notes"]) => Some("create_note".into()),
            ("GET", ["v1", "notes", _]) => Some("get_note".into()),
            ("DELETE", ["v1", "notes", _]) => Some("delete_note".into()),
            ("PATCH", ["v1", "notes", _]) => Some("patch_note".into()),
            _ => None,
        }
    }
    fn tool_call(&self, tool: &str, arguments: &Map<String, Value>) -> Result<Call, Box<Answer>> {
        let info = self
            .tools
            .iter()
            .find(|t| t.tool.name == tool)
            .expect("known tool");
        let mut path = info.tool.path_template.clone();
        if path.contains("{note_id}") {
            let Some(id) = arguments.get("note_id") else {
                return Err(Box::new(json_answer(
                    400,
                    json!({"message": "note_id is required"}),
                    Applied::No,
                )));
            };
            let id = match id {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            path = path.replace("{note_id}", &id);
        }
        Ok(Call {
            method: info.tool.method.clone(),
            path,
            query: None,
            headers: Vec::new(),
            body: arguments.get("body").cloned(),
        })
    }
    fn call(&self, world: &mut Vec<Value>, call: &Call, _g: &mut dyn Generator) -> Answer {
        let segs: Vec<&str> = call.path.split('/').filter(|s| !s.is_empty()).collect();
        let find = |world: &Vec<Value>, id: &str| {
            world
                .iter()
                .position(|n| n["id"].as_i64().map(|v| v.to_string()).as_deref() == Some(id))
        };
        match (call.method.as_str(), segs.as_slice()) {
            ("GET", ["v1", "notes"]) => {
                json_answer(200, json!({"data": world.clone()}), Applied::No)
            }
            ("GET", ["v1", "notes", id]) => match find(world, id) {
                Some(i) => json_answer(200, json!({"data": world[i].clone()}), Applied::No),
                None => json_answer(404, json!({"message": "note not found"}), Applied::No),
            },
            ("POST", ["v1", "notes"]) => {
                let next = world
                    .iter()
                    .filter_map(|n| n["id"].as_i64())
                    .max()
                    .unwrap_or(0)
                    + 1;
                let text = call
                    .body
                    .as_ref()
                    .and_then(|b| b.get("text"))
                    .cloned()
                    .unwrap_or(Value::Null);
                let note = json!({"id": next, "text": text});
                world.push(note.clone());
                json_answer(201, json!({"data": note}), Applied::Yes)
            }
            ("DELETE", ["v1", "notes", id]) => match find(world, id) {
                Some(i) => {
                    let gone = world.remove(i);
                    json_answer(
                        200,
                        json!({"data": {"id": gone["id"], "deleted": true}}),
                        Applied::Yes,
                    )
                }
                None => json_answer(404, json!({"message": "note not found"}), Applied::No),
            },
            _ => json_answer(500, json!({"message": "unrouted"}), Applied::No),
        }
    }
}
