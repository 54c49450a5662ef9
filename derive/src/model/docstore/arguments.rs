//! The arguments a document store's row lists and search POSTs take over
//! MCP: per parameter the replay chose a meaning for, its JSON Schema and a
//! description of what it does, so a tool call spells the same request as
//! HTTP (and is answered by the same `serve`).

use super::DocStore;
use serde_json::{json, Map, Value};

/// What a tool of `method` at `path` takes: the row list's query
/// parameters (`false`: query arguments) or the search body's members
/// (`true`: members of `body`), when the path is one of the store's row
/// lists or searches; `None` for any other path.
pub(crate) fn of(store: &DocStore, method: &str, path: &str) -> Option<(Map<String, Value>, bool)> {
    let segments = super::serve::segments_of(path);
    let (last, parent) = segments.split_last()?;
    if !store.collections.contains(&super::join(parent)) {
        return None;
    }
    if method == "GET" {
        let list = store.rows.iter().find(|r| &r.literal == last)?;
        let mut out = Map::new();
        for (name, meaning) in &list.params {
            out.insert(name.clone(), row_parameter(meaning, &list.member));
        }
        return Some((out, false));
    }
    if method != "POST" {
        return None;
    }
    let search = store.searches.iter().find(|s| &s.literal == last)?;
    let operators = if search.operators.is_empty() {
        "equality only".to_string()
    } else {
        search.operators.join(", ")
    };
    let mut out = Map::new();
    out.insert(
        search.selector.clone(),
        json!({
            "type": "object",
            "description": format!(
                "which documents to answer: `{{\"member\": value}}` keeps those whose member equals the value; `{{\"member\": {{\"$op\": value}}}}` compares (operators: {operators}); several members must all hold"
            ),
        }),
    );
    if let Some(f) = &search.fields {
        out.insert(
            f.clone(),
            json!({"type": "array", "items": {"type": "string"}, "description": "the members each answered document shows"}),
        );
    }
    if let Some(s) = &search.sort {
        let sortable = if search.sortable.is_empty() {
            String::new()
        } else {
            format!(" (sortable: {})", search.sortable.join(", "))
        };
        out.insert(
            s.clone(),
            json!({
                "type": "array",
                "items": {"type": "object"},
                "description": format!("sort keys, first decides: `[{{\"member\": \"asc\"}}]` or `\"desc\"`{sortable}"),
            }),
        );
    }
    if let Some(l) = &search.limit {
        out.insert(
            l.clone(),
            json!({"type": "integer", "minimum": 0, "description": "at most this many documents"}),
        );
    }
    Some((out, true))
}

fn row_parameter(meaning: &str, member: &str) -> Value {
    let key = "a document key as a JSON string (`\"key\"`, quotes included)";
    match meaning {
        "include" => json!({
            "type": ["boolean", "string"],
            "enum": [true, false, "true", "false"],
            "description": format!("`true`: each of the `{member}` holds its document"),
        }),
        "descending" => json!({
            "type": ["boolean", "string"],
            "enum": [true, false, "true", "false"],
            "description": "`true`: the rows in descending key order",
        }),
        "limit" => json!({
            "type": ["integer", "string"],
            "description": format!("at most this many `{member}`"),
        }),
        "skip" => json!({
            "type": ["integer", "string"],
            "description": "skip this many rows first",
        }),
        "start" => json!({
            "type": "string",
            "description": format!("start at this key: {key}"),
        }),
        "end" => json!({
            "type": "string",
            "description": format!("end at this key, included: {key}"),
        }),
        other => json!({"description": format!("the row list's `{other}` parameter")}),
    }
}
