//! TEMPORARY stand-in for `crate::har_schema` (owned by the schema work)
//! until that module is merged: the same signature, checking only the
//! HAR skeleton. It is removed at the merge.

use serde_json::Value;

/// One schema finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SchemaIssue {
    pub(crate) pointer: String,
    pub(crate) keyword: String,
    pub(crate) message: String,
}

/// A producer compatibility profile recognised from `log.creator`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProducerProfile {
    MitmproxySaveHar,
    Playwright,
}

impl ProducerProfile {
    pub(crate) fn id(&self) -> &'static str {
        match self {
            ProducerProfile::MitmproxySaveHar => "mitmproxy-12.2.3-savehar",
            ProducerProfile::Playwright => "playwright-1.58.2",
        }
    }
}

pub(crate) fn validate_har(doc: &Value) -> Result<Option<ProducerProfile>, Vec<SchemaIssue>> {
    let mut issues = Vec::new();
    let issue = |pointer: &str, keyword: &str, message: &str| SchemaIssue {
        pointer: pointer.to_string(),
        keyword: keyword.to_string(),
        message: message.to_string(),
    };
    let Some(log) = doc.get("log").and_then(Value::as_object) else {
        return Err(vec![issue("", "required", "\"log\" is a required property")]);
    };
    for member in ["version", "creator", "entries"] {
        if !log.contains_key(member) {
            issues.push(issue("/log", "required", &format!("\"{member}\" is a required property")));
        }
    }
    if let Some(entries) = log.get("entries").and_then(Value::as_array) {
        for (i, entry) in entries.iter().enumerate() {
            for member in ["startedDateTime", "time", "request", "response", "cache", "timings"] {
                if entry.get(member).is_none_or(Value::is_null) {
                    issues.push(issue(&format!("/log/entries/{i}"), "required", &format!("\"{member}\" is a required property")));
                }
            }
            if entry.pointer("/request/method").is_none() {
                issues.push(issue(&format!("/log/entries/{i}/request"), "required", "\"method\" is a required property"));
            }
            for field in ["bodySize", "headersSize"] {
                if entry.pointer(&format!("/request/{field}")).is_some_and(Value::is_null) {
                    issues.push(issue(&format!("/log/entries/{i}/request/{field}"), "type", "null is not of type \"integer\""));
                }
            }
        }
    }
    if !issues.is_empty() {
        return Err(issues);
    }
    let creator = log.get("creator");
    let name = creator.and_then(|c| c.get("name")).and_then(Value::as_str);
    let version = creator.and_then(|c| c.get("version")).and_then(Value::as_str);
    Ok(match (name, version) {
        (Some("mitmproxy"), Some("12.2.3")) => Some(ProducerProfile::MitmproxySaveHar),
        (Some("Playwright"), Some("1.58.2")) => Some(ProducerProfile::Playwright),
        _ => None,
    })
}
