//! The document store's row lists and search POSTs as MCP tools: a tool at
//! a row list takes every parameter the store's replay gave a meaning to
//! (not only those its own recording used), and a search POST, which the
//! spec's plans leave unserved, is offered as a read whose `body` holds the
//! selector, fields, sort and limit. The call is answered by the same
//! store as its HTTP form (`app_model`).

use crate::model::{ToolInfo, ToolKind};
use rea_derivation::ServingModel;

/// `tools` with the store's arguments offered where a tool's path is one of
/// its row lists or searches (literal paths only).
pub(crate) fn offer(tools: &[ToolInfo], app: &ServingModel) -> Vec<ToolInfo> {
    tools
        .iter()
        .map(|t| {
            let mut t = t.clone();
            if !t.tool.params.is_empty() {
                return t;
            }
            let Some((arguments, in_body)) =
                app.docstore_arguments(&t.tool.method, &t.tool.path_template)
            else {
                return t;
            };
            for (name, schema) in arguments {
                t.list_arguments.entry(name).or_insert(schema);
            }
            t.list_in_body = in_body;
            if in_body {
                // A search reads: offered, and described as a list.
                t.kind = ToolKind::Read;
                t.plan = "list".to_string();
                t.reason = None;
                t.served = true;
            }
            t
        })
        .collect()
}

/// The HTTP form of a call of a store tool `t` (one `offer` gave store
/// arguments): its literal path, the query arguments in the order given,
/// `body` as the body. `None` for other tools, and for an argument the tool
/// does not take (the engine then refuses the call by its own rules).
pub(crate) fn call(
    t: &ToolInfo,
    app: &ServingModel,
    arguments: &serde_json::Map<String, serde_json::Value>,
) -> Option<rea_engine::Call> {
    use serde_json::Value;
    if !t.tool.params.is_empty() {
        return None;
    }
    app.docstore_arguments(&t.tool.method, &t.tool.path_template)?;
    let mut pairs = Vec::new();
    for (name, value) in arguments {
        if name == "body" {
            continue;
        }
        let observed = t.tool.query_parameter_names.iter().any(|q| q.name == *name);
        if t.list_in_body || !(observed || t.list_arguments.contains_key(name)) {
            return None;
        }
        let text = match value {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            _ => return None,
        };
        pairs.push(format!(
            "{}={}",
            rea_engine::codec::query_encode(name),
            rea_engine::codec::query_encode(&text)
        ));
    }
    Some(rea_engine::Call {
        method: t.tool.method.clone(),
        path: t.tool.path_template.clone(),
        query: (!pairs.is_empty()).then(|| pairs.join("&")),
        headers: Vec::new(),
        body: arguments.get("body").cloned(),
    })
}
