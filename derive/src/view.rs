//! Parsing the `view` member of an analysis-view request into a typed
//! request. Unknown members and kinds are `invalid_request`.
//!
//! Extension point: a new kind (the state work adds `environment-state`)
//! adds one `ViewRequest` variant and one arm in [`parse_view`].

use crate::error::DeriveError;
use crate::template_rules::TemplateRule;
use serde_json::{Map, Value};

/// `{"kind":"api-surface","offset":0,"limit":50,"include_query_parameter_names":false}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiSurfaceView {
    pub offset: usize,
    pub limit: usize,
    pub include_query_parameter_names: bool,
}

impl Default for ApiSurfaceView {
    fn default() -> Self {
        ApiSurfaceView {
            offset: 0,
            limit: 50,
            include_query_parameter_names: false,
        }
    }
}

/// `{"kind":"environment-manifest","template_rules":[...],"include_query_parameter_names":false}`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ManifestView {
    /// The listed rules in their fixed application order.
    pub template_rules: Vec<TemplateRule>,
    pub include_query_parameter_names: bool,
}

/// `{"kind":"environment-state","template_rules":[...]}`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StateView {
    /// The rules of the manifest the state accompanies, in their fixed order.
    pub template_rules: Vec<TemplateRule>,
}

/// How much of each record a capture page shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    Preview,
    Complete,
}

/// `{"kind":"capture","detail":"preview","offset":0,"limit":20}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureView {
    pub detail: Detail,
    pub offset: usize,
    pub limit: usize,
}

impl Default for CaptureView {
    fn default() -> Self {
        CaptureView {
            detail: Detail::Preview,
            offset: 0,
            limit: 20,
        }
    }
}

/// A parsed view request.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ViewRequest {
    ApiSurface(ApiSurfaceView),
    EnvironmentManifest(ManifestView),
    Capture(CaptureView),
    EnvironmentState(StateView),
    Qlog(crate::qlog_view::QlogView),
}

/// The largest page a paged view serves.
pub const MAX_LIMIT: usize = 10_000;

/// Parses a view request object.
pub fn parse_view(value: &Value) -> Result<ViewRequest, DeriveError> {
    let obj = value
        .as_object()
        .ok_or_else(|| DeriveError::invalid_request("", "view must be an object"))?;
    let kind = match obj.get("kind") {
        Some(Value::String(k)) => k.as_str(),
        Some(_) => {
            return Err(DeriveError::invalid_request(
                "/kind",
                "kind must be a string",
            ))
        }
        None => return Err(DeriveError::invalid_request("/kind", "kind is required")),
    };
    match kind {
        "api-surface" => {
            allow(
                obj,
                &["kind", "offset", "limit", "include_query_parameter_names"],
            )?;
            Ok(ViewRequest::ApiSurface(ApiSurfaceView {
                offset: index(obj, "offset", 0)?,
                limit: limit(obj, 50)?,
                include_query_parameter_names: flag(obj, "include_query_parameter_names")?,
            }))
        }
        "environment-manifest" => {
            allow(
                obj,
                &["kind", "template_rules", "include_query_parameter_names"],
            )?;
            Ok(ViewRequest::EnvironmentManifest(ManifestView {
                template_rules: rules(obj)?,
                include_query_parameter_names: flag(obj, "include_query_parameter_names")?,
            }))
        }
        "capture" => {
            allow(obj, &["kind", "detail", "offset", "limit"])?;
            let detail = match obj.get("detail") {
                None => Detail::Preview,
                Some(Value::String(d)) if d == "preview" => Detail::Preview,
                Some(Value::String(d)) if d == "complete" => Detail::Complete,
                Some(_) => {
                    return Err(DeriveError::invalid_request(
                        "/detail",
                        "detail must be \"preview\" or \"complete\"",
                    ))
                }
            };
            Ok(ViewRequest::Capture(CaptureView {
                detail,
                offset: index(obj, "offset", 0)?,
                limit: limit(obj, 20)?,
            }))
        }
        "environment-state" => {
            allow(obj, &["kind", "template_rules"])?;
            Ok(ViewRequest::EnvironmentState(StateView {
                template_rules: rules(obj)?,
            }))
        }
        "qlog" => Ok(ViewRequest::Qlog(crate::qlog_view::parse(obj)?)),
        other => Err(DeriveError::invalid_request(
            "/kind",
            format!("unknown view kind `{other}`"),
        )),
    }
}

pub(crate) fn allow(obj: &Map<String, Value>, members: &[&str]) -> Result<(), DeriveError> {
    match obj.keys().find(|k| !members.contains(&k.as_str())) {
        Some(k) => Err(DeriveError::invalid_request(
            &format!("/{}", crate::pointer_token(k)),
            format!("unknown view member `{k}`"),
        )),
        None => Ok(()),
    }
}

pub(crate) fn index(
    obj: &Map<String, Value>,
    key: &str,
    default: usize,
) -> Result<usize, DeriveError> {
    match obj.get(key) {
        None => Ok(default),
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| {
                DeriveError::invalid_request(
                    &format!("/{key}"),
                    format!("{key} must be a non-negative integer"),
                )
            }),
    }
}

pub(crate) fn limit(obj: &Map<String, Value>, default: usize) -> Result<usize, DeriveError> {
    let n = index(obj, "limit", default)?;
    if n == 0 || n > MAX_LIMIT {
        return Err(DeriveError::invalid_request(
            "/limit",
            format!("limit must be between 1 and {MAX_LIMIT}"),
        ));
    }
    Ok(n)
}

fn flag(obj: &Map<String, Value>, key: &str) -> Result<bool, DeriveError> {
    match obj.get(key) {
        None => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(DeriveError::invalid_request(
            &format!("/{key}"),
            format!("{key} must be a boolean"),
        )),
    }
}

fn rules(obj: &Map<String, Value>) -> Result<Vec<TemplateRule>, DeriveError> {
    let Some(list) = obj.get("template_rules") else {
        return Ok(Vec::new());
    };
    let items = list.as_array().ok_or_else(|| {
        DeriveError::invalid_request("/template_rules", "template_rules must be an array")
    })?;
    let mut names = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let name = item.as_str().ok_or_else(|| {
            DeriveError::invalid_request(
                &format!("/template_rules/{i}"),
                "a template rule must be a string",
            )
        })?;
        names.push(name);
    }
    TemplateRule::parse_list(&names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_and_strictness() {
        assert_eq!(
            parse_view(&json!({"kind":"api-surface"})).unwrap(),
            ViewRequest::ApiSurface(ApiSurfaceView::default())
        );
        assert!(parse_view(&json!({"kind":"api-surface","extra":1})).is_err());
        assert!(parse_view(&json!({"kind":"nope"})).is_err());
        assert!(parse_view(&json!({"kind":"api-surface","limit":0})).is_err());
        assert!(parse_view(&json!({"kind":"capture","detail":"full"})).is_err());
        assert_eq!(
            parse_view(&json!({"kind":"capture"})).unwrap(),
            ViewRequest::Capture(CaptureView {
                detail: Detail::Preview,
                offset: 0,
                limit: 20
            })
        );
    }

    #[test]
    fn repeated_rule_is_invalid_request_and_order_is_fixed() {
        let err = parse_view(&json!({"kind":"environment-manifest","template_rules":["opaque-token","opaque-token"]}))
            .unwrap_err();
        assert_eq!(err.to_report().code, "invalid_request");
        let a = parse_view(
            &json!({"kind":"environment-manifest","template_rules":["sibling-variance","opaque-token"]}),
        );
        let b = parse_view(
            &json!({"kind":"environment-manifest","template_rules":["opaque-token","sibling-variance"]}),
        );
        assert_eq!(a.unwrap(), b.unwrap());
        assert!(
            parse_view(&json!({"kind":"environment-manifest","template_rules":["bogus"]})).is_err()
        );
    }
}
