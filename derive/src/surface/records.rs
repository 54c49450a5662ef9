//! Reading one parent record's request line and response headline from
//! its `reported` HAR entry, or the reason it is excluded.

use rea_core::recorded_url::{self, RecordedUrl};
use serde_json::Value;

/// A record with a usable request line.
#[derive(Debug, Clone)]
pub(crate) struct Sample<'a> {
    pub(crate) ordinal: u64,
    pub(crate) method: &'a str,
    pub(crate) url: RecordedUrl<'a>,
    /// `None` when unavailable (missing, null, or HAR's `0`).
    pub(crate) status: Option<u16>,
    /// Lowercase `type/subtype` essence, `None` when unavailable or invalid.
    pub(crate) mime: Option<String>,
}

/// Why a record has no usable request line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Exclusion {
    RequestUnavailable,
    MethodUnavailable,
    UrlRedacted,
    UrlUnparseable,
}

impl Exclusion {
    pub(crate) fn reason(self) -> &'static str {
        match self {
            Exclusion::RequestUnavailable => "request-unavailable",
            Exclusion::MethodUnavailable => "method-unavailable",
            Exclusion::UrlRedacted => "url-redacted",
            Exclusion::UrlUnparseable => "url-unparseable",
        }
    }
}

/// Reads one Evidence record.
pub(crate) fn read(record: &Value) -> (u64, Result<Sample<'_>, Exclusion>) {
    let ordinal = record.get("ordinal").and_then(Value::as_u64).unwrap_or(0);
    (ordinal, sample(ordinal, record))
}

fn sample(ordinal: u64, record: &Value) -> Result<Sample<'_>, Exclusion> {
    let entry = record
        .get("reported")
        .filter(|v| v.is_object())
        .ok_or(Exclusion::RequestUnavailable)?;
    let request = entry
        .get("request")
        .filter(|v| v.is_object())
        .ok_or(Exclusion::RequestUnavailable)?;
    let method = request
        .get("method")
        .and_then(Value::as_str)
        .filter(|m| is_token(m))
        .ok_or(Exclusion::MethodUnavailable)?;
    let raw = match request.get("url") {
        Some(Value::Null) => return Err(Exclusion::UrlRedacted),
        Some(Value::String(s)) => s.as_str(),
        _ => return Err(Exclusion::UrlUnparseable),
    };
    let url = recorded_url::parse(raw).map_err(|_| Exclusion::UrlUnparseable)?;
    let response = entry.get("response");
    let status = response
        .and_then(|r| r.get("status"))
        .and_then(Value::as_u64)
        .filter(|s| (1..=999).contains(s))
        .map(|s| s as u16);
    let mime = response
        .and_then(|r| r.get("content"))
        .and_then(|c| c.get("mimeType"))
        .and_then(Value::as_str)
        .and_then(mime_essence);
    Ok(Sample {
        ordinal,
        method,
        url,
        status,
        mime,
    })
}

/// HTTP token characters (RFC 9110).
pub(crate) fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// The lowercase `type/subtype` of a MIME type, parameters dropped; `None`
/// when the essence is not `token/token`.
pub(crate) fn mime_essence(text: &str) -> Option<String> {
    let essence = text
        .split(';')
        .next()
        .unwrap_or("")
        .trim_matches([' ', '\t']);
    let (ty, sub) = essence.split_once('/')?;
    (is_token(ty) && is_token(sub)).then(|| essence.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::{evidence, har_entry};

    #[test]
    fn mime_essences() {
        assert_eq!(
            mime_essence("Application/JSON; charset=UTF-8").as_deref(),
            Some("application/json")
        );
        assert_eq!(mime_essence("json"), None);
        assert_eq!(mime_essence(""), None);
        assert_eq!(mime_essence("text/"), None);
    }

    #[test]
    fn unavailable_response_fields_stay_unknown() {
        let ev = evidence(vec![har_entry("GET", "http://a.example/x", 0, "")]);
        let (_, s) = read(&ev["records"][0]);
        let s = s.unwrap();
        assert_eq!(s.status, None);
        assert_eq!(s.mime, None);
    }

    #[test]
    fn exclusion_reasons() {
        let mut e = har_entry("GET", "http://a.example/x", 200, "application/json");
        let ev = |e: Value| evidence(vec![e]);
        e["request"]["url"] = Value::Null;
        assert_eq!(
            read(&ev(e.clone())["records"][0]).1.unwrap_err(),
            Exclusion::UrlRedacted
        );
        for bad in [
            "not a url",
            "data:text/plain,hi",
            "https:host/path",
            "https://ho\tst/x",
        ] {
            e["request"]["url"] = bad.into();
            assert_eq!(
                read(&ev(e.clone())["records"][0]).1.unwrap_err(),
                Exclusion::UrlUnparseable,
                "{bad}"
            );
        }
        e["request"]["method"] = Value::Null;
        assert_eq!(
            read(&ev(e.clone())["records"][0]).1.unwrap_err(),
            Exclusion::MethodUnavailable
        );
        e["request"] = Value::Null;
        assert_eq!(
            read(&ev(e)["records"][0]).1.unwrap_err(),
            Exclusion::RequestUnavailable
        );
    }
}
