//! `body_shape`: top-level keys of a JSON request body and their JSON type
//! names, read from a tool's earliest record. Values and nested structure
//! are never kept.

use crate::budget::{escaped_size, Budget};
use crate::error::DeriveError;
use crate::surface::records::mime_essence;
use indexmap::IndexMap;
use serde_json::Value;

/// JSON type name of a value.
pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// `application/json` or `application/*+json`.
pub(crate) fn is_json_request_type(essence: &str) -> bool {
    essence == "application/json"
        || essence
            .strip_prefix("application/")
            .is_some_and(|sub| sub.ends_with("+json"))
}

/// The body shape of one HAR entry's request, when it carries a JSON object.
pub(crate) fn shape(
    entry: &Value,
    budget: &mut Budget,
) -> Result<Option<IndexMap<String, String>>, DeriveError> {
    let Some(post) = entry.get("request").and_then(|r| r.get("postData")) else {
        return Ok(None);
    };
    let Some(essence) = post
        .get("mimeType")
        .and_then(Value::as_str)
        .and_then(mime_essence)
    else {
        return Ok(None);
    };
    if !is_json_request_type(&essence) {
        return Ok(None);
    }
    let Some(text) = post.get("text").and_then(Value::as_str) else {
        return Ok(None);
    };
    // The recorded body is temporary work: charged before parsing.
    let temp = escaped_size(text) * 2;
    budget.charge(temp)?;
    let parsed = serde_json::from_str::<Value>(text);
    budget.release(temp);
    let Ok(Value::Object(map)) = parsed else {
        return Ok(None);
    };
    let mut out = IndexMap::with_capacity(map.len());
    for (key, value) in &map {
        budget.charge_text(key)?;
        out.insert(key.clone(), type_name(value).to_string());
    }
    Ok(Some(out))
}
