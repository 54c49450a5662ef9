//! The recorded exchanges the state and the engine read, taken from the
//! Evidence's `records[].reported` HAR entries with the shared URL parser.

use base64::Engine as _;
use rea_core::recorded_url;
use serde_json::Value;

/// One recorded request and response, as the state derivation sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub ordinal: u64,
    pub method: String,
    /// `None` when the URL was redacted or does not parse.
    pub origin: Option<String>,
    /// The raw recorded path (still percent-encoded).
    pub path: Option<String>,
    /// The raw recorded query without `?`.
    pub query: Option<String>,
    /// Start time in milliseconds since the epoch, when recorded.
    pub started_ms: Option<f64>,
    /// Duration in milliseconds (`time`), when recorded and non-negative.
    pub time_ms: Option<f64>,
    /// `None` when the response carries no status (absent, 0 or redacted).
    pub status: Option<u16>,
    pub request_content_type: Option<String>,
    pub request_text: Option<String>,
    pub response_content_type: Option<String>,
    pub response_headers: Vec<(String, String)>,
    pub response_body: Body,
    /// True when the request URL was redacted (`null` in the Evidence).
    pub url_redacted: bool,
}

/// A recorded response body.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// No body text was recorded.
    None,
    /// UTF-8 text (possibly decoded from base64).
    Text(String),
    /// Bytes that are not UTF-8 (decoded from base64).
    Bytes(Vec<u8>),
}

impl Body {
    /// The body's size in bytes.
    pub fn len(&self) -> usize {
        match self {
            Body::None => 0,
            Body::Text(t) => t.len(),
            Body::Bytes(b) => b.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Record {
    /// Reads one Evidence record (`{ordinal, reported, ...}`).
    pub fn from_evidence(record: &Value) -> Option<Record> {
        let ordinal = record.get("ordinal")?.as_u64()?;
        let entry = record.get("reported")?;
        Some(Record::from_entry(ordinal, entry))
    }

    /// Reads one HAR entry.
    pub fn from_entry(ordinal: u64, entry: &Value) -> Record {
        let request = entry.get("request");
        let response = entry.get("response");
        let method = request
            .and_then(|r| r.get("method"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_ascii_uppercase();
        let url_value = request.and_then(|r| r.get("url"));
        let url_redacted = url_value.is_some_and(Value::is_null);
        let url = url_value.and_then(Value::as_str);
        let (origin, path, query) = match url.map(recorded_url::parse) {
            Some(Ok(u)) => (
                Some(u.origin),
                Some(u.path.to_string()),
                u.query.map(str::to_string),
            ),
            _ => (None, None, None),
        };
        let started_ms = entry
            .get("startedDateTime")
            .and_then(Value::as_str)
            .and_then(|s| chrono::DateTime::parse_from_rfc3339(s).ok())
            .map(|t| t.timestamp_micros() as f64 / 1000.0);
        let time_ms = entry
            .get("time")
            .and_then(Value::as_f64)
            .filter(|t| *t >= 0.0);
        let status = response
            .and_then(|r| r.get("status"))
            .and_then(Value::as_u64)
            .filter(|s| (100..=999).contains(s))
            .map(|s| s as u16);
        let post = request.and_then(|r| r.get("postData"));
        let request_content_type = post
            .and_then(|p| p.get("mimeType"))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .or_else(|| header(request, "content-type"));
        let request_text = post
            .and_then(|p| p.get("text"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let content = response.and_then(|r| r.get("content"));
        let response_content_type = content
            .and_then(|c| c.get("mimeType"))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .or_else(|| header(response, "content-type"));
        let response_headers = headers(response);
        let response_body = body_of(content);
        Record {
            ordinal,
            method,
            origin,
            path,
            query,
            started_ms,
            time_ms,
            status,
            request_content_type,
            request_text,
            response_content_type,
            response_headers,
            response_body,
            url_redacted,
        }
    }

    /// `path?query`, the request line's target.
    pub fn line(&self) -> Option<String> {
        let path = self.path.as_ref()?;
        Some(match &self.query {
            Some(q) => format!("{path}?{q}"),
            None => path.clone(),
        })
    }

    /// When the exchange finished, if timed.
    pub fn ended_ms(&self) -> Option<f64> {
        Some(self.started_ms? + self.time_ms.unwrap_or(0.0))
    }

    pub fn is_2xx(&self) -> bool {
        matches!(self.status, Some(200..=299))
    }
}

fn headers(message: Option<&Value>) -> Vec<(String, String)> {
    message
        .and_then(|m| m.get("headers"))
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|h| {
                    let name = h.get("name")?.as_str()?;
                    let value = h.get("value")?.as_str()?;
                    Some((name.to_string(), value.to_string()))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn header(message: Option<&Value>, name: &str) -> Option<String> {
    headers(message)
        .into_iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v)
}

fn body_of(content: Option<&Value>) -> Body {
    let Some(text) = content.and_then(|c| c.get("text")).and_then(Value::as_str) else {
        return Body::None;
    };
    let encoding = content
        .and_then(|c| c.get("encoding"))
        .and_then(Value::as_str);
    if encoding == Some("base64") {
        return match base64::engine::general_purpose::STANDARD.decode(text.trim()) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(s) => Body::Text(s),
                Err(e) => Body::Bytes(e.into_bytes()),
            },
            Err(_) => Body::Text(text.to_string()),
        };
    }
    Body::Text(text.to_string())
}

/// Every record of the Evidence, in its order.
pub fn records_of(evidence: &Value) -> Vec<Record> {
    evidence
        .get("records")
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(Record::from_evidence).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_an_entry() {
        let entry = json!({
            "startedDateTime": "2026-01-01T00:00:00.500Z", "time": 2.5,
            "request": {"method": "post", "url": "http://h.example:81/a//b/?x=1",
                        "postData": {"mimeType": "application/json", "text": "{}"}},
            "response": {"status": 201, "headers": [{"name": "Content-Type", "value": "application/json"}],
                         "content": {"mimeType": "", "text": "e30=", "encoding": "base64"}}
        });
        let r = Record::from_entry(3, &entry);
        assert_eq!(r.method, "POST");
        assert_eq!(r.origin.as_deref(), Some("http://h.example:81"));
        assert_eq!(r.line().as_deref(), Some("/a//b/?x=1"));
        assert_eq!(r.status, Some(201));
        assert_eq!(r.response_content_type.as_deref(), Some("application/json"));
        assert_eq!(r.response_body, Body::Text("{}".into()));
        assert_eq!(r.ended_ms(), Some(1_767_225_600_502.5));
    }

    #[test]
    fn redacted_url_and_missing_status() {
        let entry = json!({"request": {"method": "GET", "url": null}, "response": {"status": 0}});
        let r = Record::from_entry(0, &entry);
        assert_eq!(r.path, None);
        assert!(r.url_redacted);
        assert_eq!(r.status, None);
        assert_eq!(r.started_ms, None);
    }
}
