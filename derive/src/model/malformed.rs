//! The app's answer to a request body that does not parse as JSON: kept
//! when every recorded request whose body claimed a JSON media type but did
//! not parse got the same refusal (status, content type, body), and none of
//! them was accepted. rea refuses such a body before any model sees it; with
//! this answer in the model it refuses it the way the app did.

use crate::state::records::{Body, Record};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The app's refusal of a malformed JSON body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MalformedBody {
    pub status: u16,
    /// The answer's content type as recorded.
    pub content_type: Option<String>,
    /// The answer's body text as recorded (empty for none).
    pub body: String,
    /// The request media types (lower case, no parameters) the malformed
    /// bodies were sent as: only a body sent as one of them gets this answer.
    pub media_types: Vec<String>,
    /// The records of malformed bodies this answer was recorded for.
    pub supported_by: Vec<u64>,
    /// Every record whose request body claimed JSON and did not parse
    /// (each must have answered exactly this).
    pub checked_against: Vec<u64>,
}

/// The media type of a content type: lower case, without parameters.
pub fn media_type(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// True when a media type names JSON (`application/json`, `…+json`).
fn claims_json(media: &str) -> bool {
    media == "application/json" || media.ends_with("+json")
}

/// True when a body is neither blank nor JSON.
pub(crate) fn is_malformed(body: &[u8]) -> bool {
    !body.iter().all(u8::is_ascii_whitespace) && serde_json::from_slice::<Value>(body).is_err()
}

/// True when a record sent a malformed body as JSON (the records `infer`
/// reads; the others need not be kept).
pub(crate) fn sent_malformed(r: &Record) -> bool {
    r.request_content_type
        .as_deref()
        .is_some_and(|ct| claims_json(&media_type(ct)))
        && is_malformed(r.request_text.as_deref().unwrap_or("").as_bytes())
}

/// The malformed-body answer the records confirm, if any.
pub(crate) fn infer(records: &[Record]) -> Option<MalformedBody> {
    let mut found: Option<MalformedBody> = None;
    let mut checked = Vec::new();
    for r in records {
        let Some(media) = r.request_content_type.as_deref().map(media_type) else {
            continue;
        };
        let text = r.request_text.as_deref().unwrap_or("");
        if !claims_json(&media) || !is_malformed(text.as_bytes()) {
            continue;
        }
        checked.push(r.ordinal);
        let Some(status) = r.status else {
            continue;
        };
        if !(400..500).contains(&status) {
            // The app accepted (or failed on) a body rea cannot read.
            return None;
        }
        let body = match &r.response_body {
            Body::None => String::new(),
            Body::Text(t) => t.clone(),
            Body::Bytes(_) => return None,
        };
        match &mut found {
            None => {
                found = Some(MalformedBody {
                    status,
                    content_type: r.response_content_type.clone(),
                    body,
                    media_types: vec![media],
                    supported_by: vec![r.ordinal],
                    checked_against: Vec::new(),
                })
            }
            Some(f) => {
                if f.status != status || f.content_type != r.response_content_type || f.body != body
                {
                    // Two different answers: the app's refusal depends on
                    // more than the body not parsing.
                    return None;
                }
                if !f.media_types.contains(&media) {
                    f.media_types.push(media);
                }
                f.supported_by.push(r.ordinal);
            }
        }
    }
    found.map(|mut f| {
        f.media_types.sort();
        f.checked_against = checked;
        f
    })
}

impl MalformedBody {
    /// Whether a body sent with `content_type` gets this answer.
    pub fn answers(&self, content_type: Option<&str>) -> bool {
        content_type.is_some_and(|ct| self.media_types.contains(&media_type(ct)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(ordinal: u64, sent: &str, status: u16, answer: &str) -> Record {
        Record {
            ordinal,
            method: "POST".into(),
            origin: None,
            path: Some("/things".into()),
            query: None,
            started_ms: None,
            time_ms: None,
            status: Some(status),
            request_content_type: Some("application/json; charset=utf-8".into()),
            request_text: Some(sent.into()),
            response_content_type: Some("text/html".into()),
            response_headers: Vec::new(),
            response_body: Body::Text(answer.into()),
            url_redacted: false,
        }
    }

    #[test]
    fn one_refusal_of_every_malformed_body_is_kept() {
        let records = [
            record(1, r#"{"a": 1}"#, 201, "{}"),
            record(2, r#"{"a": "#, 400, "<pre>Bad Request</pre>"),
            record(3, "not json", 400, "<pre>Bad Request</pre>"),
        ];
        let m = infer(&records).unwrap();
        assert_eq!((m.status, m.body.as_str()), (400, "<pre>Bad Request</pre>"));
        assert_eq!(m.supported_by, [2, 3]);
        assert_eq!(m.checked_against, [2, 3]);
        assert_eq!(m.media_types, ["application/json"]);
        assert!(m.answers(Some("application/json")));
        assert!(!m.answers(Some("text/plain")));
        assert!(!m.answers(None));
    }

    #[test]
    fn an_accepted_or_differently_refused_malformed_body_contradicts_it() {
        let accepted = [
            record(1, "{oops", 400, "bad"),
            record(2, "{oops", 201, "{}"),
        ];
        assert_eq!(infer(&accepted), None);
        let different = [record(1, "{oops", 400, "bad"), record(2, "{", 400, "worse")];
        assert_eq!(infer(&different), None);
        assert_eq!(infer(&[record(1, r#"{"a":1}"#, 400, "x")]), None);
    }
}
