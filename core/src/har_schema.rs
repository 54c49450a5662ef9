//! HAR 1.2 schema validation: the unchanged `har-schema@2.0.0` draft-06
//! schemas (embedded from `manifests/har-schema/`), checked with the formats
//! ajv-formats 3.0.1 defines, and the producer profiles that relax known
//! producer quirks in the validation copy only.
//!
//! The verdicts equal the reference validator's (ajv 8.20.0 + ajv-formats
//! 3.0.1 on the same schemas); `tests/ajv_differential.rs` proves it on every
//! fixture and on hostile variants. See `docs/har-validation.md`.

mod formats;
mod profile;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{Draft, PatternOptions, Retrieve, Uri, Validator};
use serde::Serialize;
use serde_json::Value;
use std::borrow::Cow;
use std::sync::OnceLock;

pub use profile::{numeric_version, validation_copy, ProducerProfile, Quirk, VersionRange};

/// One reason a HAR document is not valid under the schemas.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SchemaIssue {
    /// JSON pointer (RFC 6901) of the offending value in the document.
    pub pointer: String,
    /// The schema keyword that failed (`type`, `required`, `format`, ...).
    pub keyword: String,
    /// What is wrong, in words. Never repeats the offending value.
    pub message: String,
}

/// Validates a parsed HAR document.
///
/// `doc` is the parsed HAR with unsafe numbers already replaced by null (a
/// null in a standard numeric field then fails its `type`). Answers the
/// producer profile the document declares (by `log.creator` name, exactly,
/// and a version range), or every schema issue in document order. The
/// profile's relaxations apply to its validation copy only (`doc` is never
/// changed); only the entries that fail as written are copied.
pub fn validate_har(doc: &Value) -> Result<Option<ProducerProfile>, Vec<SchemaIssue>> {
    let validator = har_validator();
    let profile = ProducerProfile::detect(doc);
    if validator.is_valid(doc) {
        return Ok(profile);
    }
    let quirks = profile::declared_quirks(doc);
    let issues = if quirks.is_empty() {
        collect_issues(validator, doc)
    } else {
        relaxed_issues(doc, &quirks)
    };
    if issues.is_empty() {
        Ok(profile)
    } else {
        Err(issues)
    }
}

/// The issues of `validation_copy(doc)`, computed without copying the
/// whole document: har-schema has no constraint across entries, so each
/// entry that fails as written is relaxed and validated on its own (as
/// `entry.json`), and the rest of the document, when it fails, is relaxed
/// and validated with its entries left empty.
fn relaxed_issues(doc: &Value, quirks: &[profile::Quirk]) -> Vec<SchemaIssue> {
    let entries = doc
        .get("log")
        .and_then(|log| log.get("entries"))
        .and_then(Value::as_array);
    let mut out = Vec::new();
    let entry_validator = entry_validator();
    for (index, entry) in entries.into_iter().flatten().enumerate() {
        if entry_validator.is_valid(entry) {
            continue;
        }
        let mut entry = entry.clone();
        profile::relax_one_entry(quirks, &mut entry);
        if entry_validator.is_valid(&entry) {
            continue;
        }
        let prefix = format!("/log/entries/{index}");
        out.extend(
            collect_issues(entry_validator, &entry)
                .into_iter()
                .map(|issue| SchemaIssue {
                    pointer: format!("{prefix}{}", issue.pointer),
                    ..issue
                }),
        );
    }
    let mut shell = without_entries(doc);
    let validator = har_validator();
    if !validator.is_valid(&shell) {
        profile::relax_container(quirks, &mut shell);
        if !validator.is_valid(&shell) {
            out.extend(collect_issues(validator, &shell));
        }
    }
    let mut keyed: Vec<(Vec<usize>, SchemaIssue)> = out
        .into_iter()
        .map(|issue| (document_position(doc, &issue.pointer), issue))
        .collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    keyed.into_iter().map(|(_, issue)| issue).collect()
}

/// `doc` with `log.entries` (when an array) replaced by `[]`, copying
/// nothing else of the entries.
fn without_entries(doc: &Value) -> Value {
    let Value::Object(root) = doc else {
        return doc.clone();
    };
    let mut out = serde_json::Map::new();
    for (key, value) in root {
        let copied = match (key.as_str(), value) {
            ("log", Value::Object(log)) => Value::Object(
                log.iter()
                    .map(|(k, v)| {
                        let v = if k == "entries" && v.is_array() {
                            Value::Array(Vec::new())
                        } else {
                            v.clone()
                        };
                        (k.clone(), v)
                    })
                    .collect(),
            ),
            _ => value.clone(),
        };
        out.insert(key.clone(), copied);
    }
    Value::Object(out)
}

/// Validates `doc` against the unchanged schemas, without any producer
/// relaxation: every issue, in document order. `validate_har` equals this
/// applied to `validation_copy(doc)`.
pub fn schema_issues(doc: &Value) -> Vec<SchemaIssue> {
    let validator = har_validator();
    if validator.is_valid(doc) {
        Vec::new()
    } else {
        collect_issues(validator, doc)
    }
}

/// The base URI the schemas' relative `$id`s (`har.json#`, `log.json#`, ...)
/// resolve against. Never fetched: the retriever below answers it offline.
const BASE_URI: &str = "https://har-schema.invalid/2.0.0/";

/// The har-schema 2.0.0 files, by file name.
const SCHEMA_FILES: [(&str, &str); 18] = [
    (
        "afterRequest.json",
        include_str!("../../manifests/har-schema/afterRequest.json"),
    ),
    (
        "beforeRequest.json",
        include_str!("../../manifests/har-schema/beforeRequest.json"),
    ),
    (
        "browser.json",
        include_str!("../../manifests/har-schema/browser.json"),
    ),
    (
        "cache.json",
        include_str!("../../manifests/har-schema/cache.json"),
    ),
    (
        "content.json",
        include_str!("../../manifests/har-schema/content.json"),
    ),
    (
        "cookie.json",
        include_str!("../../manifests/har-schema/cookie.json"),
    ),
    (
        "creator.json",
        include_str!("../../manifests/har-schema/creator.json"),
    ),
    (
        "entry.json",
        include_str!("../../manifests/har-schema/entry.json"),
    ),
    (
        "har.json",
        include_str!("../../manifests/har-schema/har.json"),
    ),
    (
        "header.json",
        include_str!("../../manifests/har-schema/header.json"),
    ),
    (
        "log.json",
        include_str!("../../manifests/har-schema/log.json"),
    ),
    (
        "page.json",
        include_str!("../../manifests/har-schema/page.json"),
    ),
    (
        "pageTimings.json",
        include_str!("../../manifests/har-schema/pageTimings.json"),
    ),
    (
        "postData.json",
        include_str!("../../manifests/har-schema/postData.json"),
    ),
    (
        "query.json",
        include_str!("../../manifests/har-schema/query.json"),
    ),
    (
        "request.json",
        include_str!("../../manifests/har-schema/request.json"),
    ),
    (
        "response.json",
        include_str!("../../manifests/har-schema/response.json"),
    ),
    (
        "timings.json",
        include_str!("../../manifests/har-schema/timings.json"),
    ),
];

fn schema_file(name: &str) -> Option<Value> {
    SCHEMA_FILES
        .iter()
        .find(|(file, _)| *file == name)
        .and_then(|(_, text)| serde_json::from_str(text).ok())
}

/// Answers `$ref`s between the har-schema files from the embedded copies.
struct EmbeddedSchemas;

impl Retrieve for EmbeddedSchemas {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let name = uri
            .as_str()
            .strip_prefix(BASE_URI)
            .map(|rest| rest.trim_end_matches('#'));
        name.and_then(schema_file)
            .ok_or_else(|| format!("not a har-schema 2.0.0 file: {}", uri.as_str()).into())
    }
}

/// The compiled `har.json` validator, built once.
fn har_validator() -> &'static Validator {
    static VALIDATOR: OnceLock<Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        build_validator(&schema_file("har.json").expect("embedded har.json is JSON"))
    })
}

/// A validator of one entry (`entry.json`), as `har.json` checks each item
/// of `log.entries`, built once.
fn entry_validator() -> &'static Validator {
    static VALIDATOR: OnceLock<Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| build_validator(&serde_json::json!({"$ref": "entry.json#"})))
}

fn build_validator(root: &Value) -> Validator {
    jsonschema::options()
        .with_draft(Draft::Draft6)
        .with_base_uri(BASE_URI)
        .with_retriever(EmbeddedSchemas)
        .should_validate_formats(true)
        .with_pattern_options(PatternOptions::regex())
        .with_format("date-time", formats::date_time)
        .with_format("ipv4", formats::ipv4)
        .with_format("ipv6", formats::ipv6)
        .with_format("uri", formats::uri)
        .build(root)
        .expect("the embedded har-schema 2.0.0 files compile")
}

/// Every error of a full validation, as issues sorted in document order.
fn collect_issues(validator: &Validator, doc: &Value) -> Vec<SchemaIssue> {
    let mut keyed: Vec<(Vec<usize>, SchemaIssue)> = validator
        .iter_errors(doc)
        .map(|error| {
            let pointer = error.instance_path().as_str().to_string();
            let issue = SchemaIssue {
                keyword: error.kind().keyword().to_string(),
                message: describe(error.kind(), error.instance()),
                pointer,
            };
            (document_position(doc, &issue.pointer), issue)
        })
        .collect();
    // Stable: issues at one location keep the schema's keyword order.
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    keyed.into_iter().map(|(_, issue)| issue).collect()
}

/// Where `pointer` lies in `doc`: the index of each step among its siblings,
/// so sorting by it gives document order (a parent before its members).
fn document_position(doc: &Value, pointer: &str) -> Vec<usize> {
    let mut position = Vec::new();
    let mut current = doc;
    for token in pointer.split('/').skip(1) {
        let token: Cow<'_, str> = if token.contains('~') {
            Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
        } else {
            Cow::Borrowed(token)
        };
        let next = match current {
            Value::Object(map) => map
                .iter()
                .enumerate()
                .find(|(_, (key, _))| key.as_str() == token)
                .map(|(index, (_, value))| (index, value)),
            Value::Array(items) => token
                .parse::<usize>()
                .ok()
                .and_then(|index| items.get(index).map(|value| (index, value))),
            _ => None,
        };
        match next {
            Some((index, value)) => {
                position.push(index);
                current = value;
            }
            None => {
                position.push(usize::MAX);
                break;
            }
        }
    }
    position
}

/// A sentence for one failure. It names the expectation and the JSON type
/// found, never the value itself (values may be large or sensitive).
fn describe(kind: &ValidationErrorKind, instance: &Value) -> String {
    let found = json_type(instance);
    match kind {
        ValidationErrorKind::Type { kind } => {
            let expected = match kind {
                TypeKind::Single(single) => single.as_str().to_string(),
                TypeKind::Multiple(set) => set
                    .iter()
                    .map(|t| t.as_str())
                    .collect::<Vec<_>>()
                    .join(" or "),
            };
            format!("expected {expected}, found {found}")
        }
        ValidationErrorKind::Required { property } => match property.as_str() {
            Some(name) => format!("required member \"{}\" is missing", name.escape_debug()),
            None => "a required member is missing".to_string(),
        },
        ValidationErrorKind::Format { format } => format!("not a valid {format} string"),
        ValidationErrorKind::Pattern { .. } => {
            "does not match the pattern the schema requires".to_string()
        }
        ValidationErrorKind::OneOfNotValid { .. } => {
            "matches none of the schema's alternatives (oneOf)".to_string()
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => {
            "matches more than one of the schema's alternatives (oneOf)".to_string()
        }
        other => format!("fails the schema keyword \"{}\"", other.keyword()),
    }
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests;
