//! CORS on the app's paths: the policy (`--cors ORIGIN|*|off`, by default
//! what the recording's own `Access-Control-*` answers showed, else off),
//! the headers an allowed cross-origin answer carries, and preflights. Also
//! keeps the other HTTP-level behaviour the recording showed (a `405`
//! answer), read once at start-up (`Observed::of`).

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, Method, Response, StatusCode};
use rea_engine::records::{Body as RecordedBody, Record};

/// The methods a preflight or a `405` may name.
pub(crate) const METHODS: [&str; 6] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];

/// How long a browser may cache a preflight answer, in seconds.
const PREFLIGHT_MAX_AGE: &str = "600";

/// The `--cors` setting.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum CorsSetting {
    /// As the recording's own `Access-Control-Allow-Origin` answers showed
    /// (`*`, or the origins it named); off when it showed none.
    #[default]
    Recorded,
    /// No cross-origin access to the app's paths.
    Off,
    /// Any origin (`*`).
    Any,
    /// Exactly these origins (`scheme://host[:port]`).
    Origins(Vec<String>),
}

impl CorsSetting {
    /// `--cors` values: `*`, `off`, `recorded`, or origins (repeatable).
    pub fn parse(values: &[String]) -> Result<CorsSetting, String> {
        if values.is_empty() {
            return Ok(CorsSetting::Recorded);
        }
        let mut origins = Vec::new();
        for v in values {
            let v = v.trim();
            match v {
                "*" | "off" | "recorded" if values.len() > 1 => {
                    return Err(format!(
                        "--cors {v} cannot be combined with other --cors values"
                    ))
                }
                "*" => return Ok(CorsSetting::Any),
                "off" => return Ok(CorsSetting::Off),
                "recorded" => return Ok(CorsSetting::Recorded),
                _ => origins.push(normalize_origin(v).ok_or_else(|| {
                    format!("--cors {v}: an origin is scheme://host[:port], `*` or `off`")
                })?),
            }
        }
        Ok(CorsSetting::Origins(origins))
    }
}

/// `scheme://host[:port]` in its serialized form (lower case, default port
/// dropped), or `None` when `text` is not an origin.
pub(crate) fn normalize_origin(text: &str) -> Option<String> {
    let url = url::Url::parse(text).ok()?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return None;
    }
    let rest = &text[url.scheme().len() + 3..];
    if rest.contains('/') && !rest.ends_with('/') || url.query().is_some() {
        return None;
    }
    let origin = url.origin().ascii_serialization();
    (origin != "null").then_some(origin)
}

/// What the recording showed of HTTP-level behaviour.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Observed {
    /// `Access-Control-Allow-Origin` values the app answered with.
    pub allow_origins: Vec<String>,
    /// Whether it answered `Access-Control-Allow-Credentials: true`.
    pub allow_credentials: bool,
    /// The header names it exposed (`Access-Control-Expose-Headers`).
    pub expose_headers: Vec<String>,
    /// The request headers it allowed (`Access-Control-Allow-Headers`).
    pub allow_headers: Vec<String>,
    /// A recorded `405` answer: content type and body.
    pub method_not_allowed: Option<(Option<String>, Vec<u8>)>,
    /// The app's answer to a malformed JSON body, with the request media
    /// types it answers (the app model's `malformed_body`).
    pub malformed_body: Option<(Vec<String>, rea_engine::Answer)>,
    /// The app's own origins: those of the recorded request URLs and of the
    /// pages that sent them (recorded `Origin` headers). A replayed session
    /// sends them; they are the app's, not a foreign site's.
    pub app_origins: Vec<String>,
}

fn push_tokens(into: &mut Vec<String>, value: &str) {
    for token in value.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        if !into.iter().any(|t| t.eq_ignore_ascii_case(token)) {
            into.push(token.to_string());
        }
    }
}

impl Observed {
    /// Reads the recorded answers once.
    pub fn of(records: &[Record]) -> Observed {
        let mut out = Observed::default();
        for r in records {
            for (name, value) in &r.response_headers {
                let n = name.to_ascii_lowercase();
                match n.as_str() {
                    "access-control-allow-origin" => {
                        let v = value.trim();
                        let v = if v == "*" {
                            Some("*".to_string())
                        } else {
                            normalize_origin(v)
                        };
                        if let Some(v) = v {
                            if !out.allow_origins.contains(&v) {
                                out.allow_origins.push(v);
                            }
                        }
                    }
                    "access-control-allow-credentials" => {
                        out.allow_credentials |= value.trim().eq_ignore_ascii_case("true");
                    }
                    "access-control-expose-headers" => push_tokens(&mut out.expose_headers, value),
                    "access-control-allow-headers" => push_tokens(&mut out.allow_headers, value),
                    _ => {}
                }
            }
            if let Some(o) = r.origin.as_deref().and_then(normalize_origin) {
                if !out.app_origins.contains(&o) {
                    out.app_origins.push(o);
                }
            }
            if r.status == Some(405) && out.method_not_allowed.is_none() {
                let body = match &r.response_body {
                    RecordedBody::None => Vec::new(),
                    RecordedBody::Text(t) => t.as_bytes().to_vec(),
                    RecordedBody::Bytes(b) => b.clone(),
                };
                out.method_not_allowed = Some((r.response_content_type.clone(), body));
            }
        }
        out
    }
}

impl Observed {
    /// Adds the recorded requests' `Origin` headers (Evidence
    /// `records[].reported.request.headers`) to the app's own origins.
    pub fn with_request_origins(mut self, evidence: &serde_json::Value) -> Observed {
        let records = evidence.get("records").and_then(|r| r.as_array());
        for record in records.into_iter().flatten() {
            let headers = record
                .pointer("/reported/request/headers")
                .and_then(|h| h.as_array());
            for h in headers.into_iter().flatten() {
                let named = h
                    .get("name")
                    .and_then(|n| n.as_str())
                    .is_some_and(|n| n.eq_ignore_ascii_case("origin"));
                let origin = h
                    .get("value")
                    .and_then(|v| v.as_str())
                    .and_then(normalize_origin);
                if let (true, Some(o)) = (named, origin) {
                    if !self.app_origins.contains(&o) {
                        self.app_origins.push(o);
                    }
                }
            }
        }
        self
    }

    /// Whether `origin` is one of the app's own (see `app_origins`).
    pub(crate) fn is_app_origin(&self, origin: &str) -> bool {
        normalize_origin(origin).is_some_and(|o| self.app_origins.contains(&o))
    }
}

/// The CORS policy in effect for the app's paths.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Cors {
    any: bool,
    origins: Vec<String>,
    credentials: bool,
    expose: Vec<String>,
    allow_headers: Vec<String>,
}

impl Cors {
    /// The policy for `setting`, reading the recording's when it asks.
    pub(crate) fn new(setting: &CorsSetting, observed: &Observed) -> Cors {
        let mut cors = Cors {
            expose: observed.expose_headers.clone(),
            allow_headers: observed.allow_headers.clone(),
            ..Cors::default()
        };
        match setting {
            CorsSetting::Off => {}
            CorsSetting::Any => cors.any = true,
            CorsSetting::Origins(o) => cors.origins = o.clone(),
            CorsSetting::Recorded => {
                cors.any = observed.allow_origins.iter().any(|o| o == "*");
                cors.origins = observed.allow_origins.clone();
                cors.credentials = observed.allow_credentials;
            }
        }
        cors
    }

    /// Whether every origin may reach the app's paths (`*`).
    pub(crate) fn allows_any(&self) -> bool {
        self.any
    }

    /// Whether cross-origin requests from `origin` may reach the app's paths.
    pub(crate) fn allows(&self, origin: &str) -> bool {
        if self.any {
            return origin != "null";
        }
        normalize_origin(origin).is_some_and(|o| self.origins.contains(&o))
    }

    fn allow_origin_value(&self, origin: &str) -> String {
        if self.any && !self.credentials {
            "*".to_string()
        } else {
            origin.to_string()
        }
    }

    fn common(&self, origin: &str, headers: &mut HeaderMap) {
        headers.retain_cors();
        if let Ok(v) = HeaderValue::from_str(&self.allow_origin_value(origin)) {
            headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, v);
        }
        headers.append(header::VARY, HeaderValue::from_static("Origin"));
        if self.credentials {
            headers.insert(
                header::ACCESS_CONTROL_ALLOW_CREDENTIALS,
                HeaderValue::from_static("true"),
            );
        }
    }

    /// Adds the CORS headers to an answer to an allowed cross-origin
    /// request (replacing any replayed `Access-Control-*` ones). Exposed are
    /// the headers the recording exposed, else every served header a
    /// browser hides by default.
    pub(crate) fn decorate(&self, origin: &str, headers: &mut HeaderMap) {
        self.common(origin, headers);
        let expose = if self.expose.is_empty() {
            let mut names: Vec<String> = Vec::new();
            for name in headers.keys() {
                let n = name.as_str();
                if !SAFELISTED.contains(&n) && !n.starts_with("access-control-") && n != "vary" {
                    push_tokens(&mut names, n);
                }
            }
            names
        } else {
            self.expose.clone()
        };
        if !expose.is_empty() {
            if let Ok(v) = HeaderValue::from_str(&expose.join(", ")) {
                headers.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, v);
            }
        }
    }

    /// The answer to an allowed preflight: `204` naming the methods that
    /// reach a tool at the path (`allowed`) and the requested headers.
    pub(crate) fn preflight(
        &self,
        origin: &str,
        allowed: &[&str],
        request_headers: Option<&str>,
    ) -> Response<Body> {
        let mut response = Response::new(Body::empty());
        *response.status_mut() = StatusCode::NO_CONTENT;
        let headers = response.headers_mut();
        self.common(origin, headers);
        if let Ok(v) = HeaderValue::from_str(&allowed.join(", ")) {
            headers.insert(header::ACCESS_CONTROL_ALLOW_METHODS, v);
        }
        let mut allow_headers = self.allow_headers.clone();
        if let Some(asked) = request_headers {
            push_tokens(&mut allow_headers, asked);
        }
        if !allow_headers.is_empty() {
            if let Ok(v) = HeaderValue::from_str(&allow_headers.join(", ")) {
                headers.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, v);
            }
        }
        headers.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from_static(PREFLIGHT_MAX_AGE),
        );
        response
    }
}

/// Response headers a browser shows without `Access-Control-Expose-Headers`
/// (plus framing it never needs).
const SAFELISTED: [&str; 9] = [
    "cache-control",
    "content-language",
    "content-length",
    "content-type",
    "expires",
    "last-modified",
    "pragma",
    "date",
    "connection",
];

/// Whether a request is a CORS preflight.
pub(crate) fn is_preflight(method: &Method, headers: &HeaderMap) -> bool {
    method == Method::OPTIONS
        && headers.contains_key(header::ORIGIN)
        && headers.contains_key(header::ACCESS_CONTROL_REQUEST_METHOD)
}

trait RetainCors {
    fn retain_cors(&mut self);
}

impl RetainCors for HeaderMap {
    /// Drops replayed `Access-Control-*` headers: the policy decides them.
    fn retain_cors(&mut self) {
        let names: Vec<_> = self
            .keys()
            .filter(|n| n.as_str().starts_with("access-control-"))
            .cloned()
            .collect();
        for n in names {
            self.remove(n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_parse() {
        let s =
            |v: &[&str]| CorsSetting::parse(&v.iter().map(|x| x.to_string()).collect::<Vec<_>>());
        assert_eq!(s(&[]), Ok(CorsSetting::Recorded));
        assert_eq!(s(&["*"]), Ok(CorsSetting::Any));
        assert_eq!(s(&["off"]), Ok(CorsSetting::Off));
        assert_eq!(
            s(&["https://App.example:443", "http://localhost:3000/"]),
            Ok(CorsSetting::Origins(vec![
                "https://app.example".into(),
                "http://localhost:3000".into()
            ]))
        );
        assert!(s(&["*", "http://a.example"]).is_err());
        assert!(s(&["ftp://a.example"]).is_err());
        assert!(s(&["http://a.example/path"]).is_err());
    }

    #[test]
    fn the_recorded_policy_follows_the_recorded_answers() {
        let observed = Observed {
            allow_origins: vec!["http://front.example".into()],
            ..Observed::default()
        };
        let cors = Cors::new(&CorsSetting::Recorded, &observed);
        assert!(cors.allows("http://front.example"));
        assert!(!cors.allows("http://evil.example"));
        let off = Cors::new(&CorsSetting::Recorded, &Observed::default());
        assert!(!off.allows("http://front.example"));
        let any = Cors::new(&CorsSetting::Any, &Observed::default());
        assert!(any.allows("http://evil.example"));
        assert!(!any.allows("null"));
    }
}
