//! The decoded timeline the write side reads: one entry per primary-origin
//! record in timeline order, with its bodies already put through the
//! usability test. The state builder fills it once; the plan builder and
//! the replay check only read it.

pub(crate) use rea_engine::codec::{
    at_pointer, body_entity, id_text, normalize_path, object_at, parent_path, path_params,
    percent_decode,
};
use serde_json::Value;

/// A request or response body after the usability test.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) enum Body {
    /// No body was recorded (or it was empty).
    #[default]
    Absent,
    /// A body that fails the usability test (content type, UTF-8, size,
    /// unsafe numbers, `__proto__`).
    Unusable,
    /// A usable JSON body.
    Json(Value),
}

impl Body {
    /// The JSON value, when usable.
    pub(crate) fn json(&self) -> Option<&Value> {
        match self {
            Body::Json(v) => Some(v),
            _ => None,
        }
    }
}

/// One timeline record.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct TimelineRecord {
    pub ordinal: u64,
    pub method: String,
    /// Raw recorded path; `None` when a scenario redacted the URL.
    pub path: Option<String>,
    /// Raw query without `?`.
    pub query: Option<String>,
    /// `None` for an unanswered request (HAR status 0).
    pub status: Option<u16>,
    /// Start time, ms since the epoch.
    pub start_ms: Option<i64>,
    /// Duration in ms (HAR `time`).
    pub time_ms: Option<f64>,
    /// The manifest tool holding the record.
    pub tool: Option<String>,
    /// Request `Content-Type`, lowercased, without parameters.
    pub request_content_type: Option<String>,
    pub request_body: Body,
    pub response_body: Body,
}

impl TimelineRecord {
    /// True for a 2xx answer.
    pub(crate) fn succeeded(&self) -> bool {
        self.status.is_some_and(|s| (200..300).contains(&s))
    }

    /// True for an answer that agrees with absence: 400, 404, 410 or a `null` body.
    pub(crate) fn shows_absence(&self) -> bool {
        matches!(self.status, Some(400 | 404 | 410))
            || (self.succeeded() && self.response_body.json() == Some(&Value::Null))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bodies_wrapping_the_entity_line_up_with_the_response() {
        let body = json!({"data": {"title": "A"}});
        assert_eq!(body_entity(&body, Some("/data")).unwrap()["title"], "A");
        // A body without the wrapper is its own entity.
        let flat = json!({"title": "A"});
        assert_eq!(body_entity(&flat, Some("/data")).unwrap()["title"], "A");
        assert!(body_entity(&json!([1]), Some("")).is_none());
        // A wrapper that is not an object falls back to the root.
        let arr = json!({"data": [1, 2]});
        assert!(body_entity(&arr, Some("/data"))
            .unwrap()
            .contains_key("data"));
    }

    #[test]
    fn paths_and_params() {
        assert_eq!(
            path_params("/v1/{b}/x/{id}", "/v1/shop/x/a%20b"),
            Some(vec![
                ("b".into(), "shop".into()),
                ("id".into(), "a b".into())
            ])
        );
        assert_eq!(path_params("/v1/{b}", "/v2/shop"), None);
        assert_eq!(
            path_params("/v1/{b}", "/v1/shop/"),
            Some(vec![("b".into(), "shop".into())])
        );
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz%41"), "%zzA");
        assert_eq!(parent_path("/a/b/c/"), "/a/b");
        assert_eq!(normalize_path("/a//b/"), "/a/b");
        assert_eq!(id_text(&json!(7)).as_deref(), Some("7"));
    }

    #[test]
    fn absence_answers() {
        let mut r = TimelineRecord {
            status: Some(404),
            ..Default::default()
        };
        assert!(r.shows_absence());
        r.status = Some(410);
        assert!(r.shows_absence());
        r.status = Some(200);
        assert!(!r.shows_absence());
        r.response_body = Body::Json(Value::Null);
        assert!(r.shows_absence());
        r.status = Some(500);
        assert!(!r.shows_absence());
    }
}
