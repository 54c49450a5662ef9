//! Cross-site and DNS-rebinding protection, in front of every surface (the
//! app's paths, `/agentenv` and the card, `/mcp`, `/_rea/`): a loopback
//! listener answers only loopback `Host` headers; a browser `Origin` that is
//! neither the server's own nor on loopback is refused, unless CORS allows
//! it on the app's paths (where this layer also answers preflights and adds
//! the CORS headers) or it is one of the app's own recorded origins (on the
//! app's paths only); `POST /agentenv` must say `application/json`.
//! docs/security.md describes the rules.

use crate::cors::{is_preflight, Cors, METHODS};
use crate::environment::Environment;
use crate::server::is_loopback_host;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use std::sync::Arc;

/// Which surface a path belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Surface {
    /// The recorded API at its own paths.
    App,
    /// `/agentenv` and `/.well-known/agent-env.json`.
    DataPlane,
    /// `/mcp`.
    Mcp,
    /// `/_rea/…`, rea's own pages.
    Admin,
}

impl Surface {
    /// The surface `path` reaches; `admin` is the admin prefix in use
    /// (`/_rea` unless `--admin-prefix` or the app moved it).
    pub(crate) fn of(path: &str, admin: &str) -> Surface {
        let under = |root: &str| {
            path.strip_prefix(root)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        };
        // An isolated episode's data plane (`--isolate`).
        let episode_plane = path
            .strip_prefix("/episodes/")
            .and_then(|rest| rest.strip_suffix("/agentenv"))
            .is_some_and(|name| !name.is_empty() && !name.contains('/'));
        if path == "/agentenv" || path == "/.well-known/agent-env.json" || episode_plane {
            Surface::DataPlane
        } else if under("/mcp") {
            Surface::Mcp
        } else if under(admin) {
            Surface::Admin
        } else {
            Surface::App
        }
    }

    /// JSON-RPC surfaces answer refusals as JSON-RPC errors without an id.
    fn speaks_json_rpc(self) -> bool {
        matches!(self, Surface::DataPlane | Surface::Mcp)
    }
}

/// What the guard decides with.
pub(crate) struct Guard {
    /// The bound host is loopback: only loopback `Host` headers.
    loopback: bool,
    /// The bound host (no brackets), for a non-loopback, specified address.
    bound: String,
    /// Bound to every interface: any `Host`.
    any_host: bool,
    pub(crate) cors: Cors,
    env: Arc<Environment>,
}

impl Guard {
    pub(crate) fn new(host: &str, cors: Cors, env: Arc<Environment>) -> Guard {
        let bound = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string();
        let any_host = bound
            .parse::<std::net::IpAddr>()
            .map(|ip| ip.is_unspecified())
            .unwrap_or(false);
        Guard {
            loopback: is_loopback_host(&bound),
            bound,
            any_host,
            cors,
            env,
        }
    }

    /// Whether a `Host` header may reach the server.
    pub(crate) fn host_allowed(&self, host: &str) -> bool {
        if self.any_host {
            return true;
        }
        let Some(name) = host_name(host) else {
            return false;
        };
        is_loopback_host(name) || (!self.loopback && name.eq_ignore_ascii_case(&self.bound))
    }
}

/// The host name of a `Host` header value (`[::1]:8080` → `[::1]`).
fn host_name(host: &str) -> Option<&str> {
    let host = host.trim();
    if host.is_empty() {
        return None;
    }
    if host.starts_with('[') {
        let end = host.find(']')?;
        return Some(&host[..=end]);
    }
    Some(host.rsplit_once(':').map_or(host, |(name, _)| name))
}

/// Whether `origin` is the server's own (same scheme-less authority as the
/// `Host` the request was sent to) or a page on loopback.
pub(crate) fn origin_trusted(origin: &str, host: Option<&str>) -> bool {
    let Ok(url) = url::Url::parse(origin) else {
        return false;
    };
    if !matches!(url.scheme(), "http" | "https") {
        return false;
    }
    let Some(name) = url.host_str() else {
        return false;
    };
    if is_loopback_host(name) {
        return true;
    }
    let Some(host) = host else {
        return false;
    };
    let Ok(sent) = url::Url::parse(&format!("{}://{host}", url.scheme())) else {
        return false;
    };
    sent.host_str()
        .is_some_and(|h| h.eq_ignore_ascii_case(name))
        && sent.port_or_known_default() == url.port_or_known_default()
}

fn header_text(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// A refusal in the surface's own shape.
fn refuse(surface: Surface, status: StatusCode, code: &str, message: String) -> Response {
    let body = if surface.speaks_json_rpc() {
        json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": {"code": -32600, "message": "invalid request", "data": {"code": code, "detail": message}}
        })
    } else {
        json!({"error": code, "message": message})
    };
    let mut response = (status, body.to_string()).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// The middleware: every request passes here first.
pub(crate) async fn check(
    State(guard): State<Arc<Guard>>,
    request: Request,
    next: Next,
) -> Response {
    let cross_origin = match admit(&guard, request.method(), request.uri(), request.headers()) {
        Admit::Refused(response) => return response,
        Admit::Pass { cross_origin } => cross_origin,
    };
    let response: Response<Body> = next.run(request).await;
    finish(&guard, cross_origin.as_deref(), response)
}

/// What the guard decided for one request.
pub(crate) enum Admit {
    /// Answered here: a refusal or a CORS preflight.
    Refused(Response),
    /// Served; a CORS-allowed origin gets its headers on the response.
    Pass { cross_origin: Option<String> },
}

/// The guard's decision for a request line and its headers (the one rule
/// set: the middleware and the server's direct path to the app's paths
/// both ask it).
pub(crate) fn admit(
    guard: &Guard,
    method: &Method,
    uri: &axum::http::Uri,
    headers: &HeaderMap,
) -> Admit {
    let surface = Surface::of(uri.path(), guard.env.ops().prefix());
    let [host_value, origin, fetch_site] = checked_headers(headers);
    let host = host_value.and_then(|v| v.to_str().ok());
    if let Some(host) = host {
        if !guard.host_allowed(host) {
            return Admit::Refused(refuse(
                surface,
                StatusCode::FORBIDDEN,
                "host_not_allowed",
                format!("the Host header {host:?} does not name this server; a server bound to loopback answers only loopback host names (DNS rebinding protection)"),
            ));
        }
    } else if host_value.is_some() {
        return Admit::Refused(refuse(
            surface,
            StatusCode::BAD_REQUEST,
            "host_not_allowed",
            "the Host header is not visible ASCII".to_string(),
        ));
    }
    let mut cross_origin = None;
    if let Some(value) = origin {
        let origin = value.to_str().unwrap_or("null");
        let cors_allowed = surface == Surface::App && guard.cors.allows(origin);
        let app_origin = surface == Surface::App && guard.env.observed().is_app_origin(origin);
        if !cors_allowed && !app_origin && !origin_trusted(origin, host) {
            return Admit::Refused(refuse(
                surface,
                StatusCode::FORBIDDEN,
                "origin_not_allowed",
                format!("requests from the page origin {origin:?} are refused: it is not this server's own origin nor on loopback{}", if surface == Surface::App { ", and CORS (--cors) does not allow it" } else { "" }),
            ));
        }
        if cors_allowed {
            cross_origin = Some(origin.to_string());
        }
    } else if cross_site_without_origin(method, fetch_site, headers)
        && !(surface == Surface::App && guard.cors.allows_any())
    {
        // An `<img>`, `<script>` or prefetch from another site: no Origin,
        // but the browser says where it came from.
        return Admit::Refused(refuse(
            surface,
            StatusCode::FORBIDDEN,
            "origin_not_allowed",
            "a cross-site request from a web page (Sec-Fetch-Site: cross-site) is refused; only a top-level GET navigation may come from another site".to_string(),
        ));
    }
    if surface == Surface::DataPlane
        && method == Method::POST
        && !is_json(header_text(headers, header::CONTENT_TYPE))
    {
        return Admit::Refused(refuse(
            surface,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "content_type_not_json",
            format!(
                "POST /agentenv needs Content-Type: application/json (got {})",
                header_text(headers, header::CONTENT_TYPE).unwrap_or("none")
            ),
        ));
    }
    if let Some(origin) = &cross_origin {
        if is_preflight(method, headers) {
            let path = uri.path();
            let allowed: Vec<&str> = METHODS
                .into_iter()
                .filter(|m| {
                    guard.env.routes(m, path) || (*m == "HEAD" && guard.env.routes("GET", path))
                })
                .collect();
            let asked = header_text(headers, header::ACCESS_CONTROL_REQUEST_HEADERS);
            return Admit::Refused(guard.cors.preflight(origin, &allowed, asked));
        }
    }
    Admit::Pass { cross_origin }
}

/// The served response, with the CORS headers of an allowed origin.
pub(crate) fn finish(
    guard: &Guard,
    cross_origin: Option<&str>,
    mut response: Response,
) -> Response {
    if let Some(origin) = cross_origin {
        guard.cors.decorate(origin, response.headers_mut());
    }
    response
}

/// Header names looked up on every request (named once, not parsed each time).
const SEC_FETCH_SITE: header::HeaderName = header::HeaderName::from_static("sec-fetch-site");
const SEC_FETCH_MODE: header::HeaderName = header::HeaderName::from_static("sec-fetch-mode");

/// The first `Host`, `Origin` and `Sec-Fetch-Site` values, the headers
/// every request's checks read (`HeaderMap::get` gives the same values).
fn checked_headers(headers: &HeaderMap) -> [Option<&HeaderValue>; 3] {
    crate::http::first_values(
        headers,
        &[header::HOST, header::ORIGIN, SEC_FETCH_SITE],
        |_| true,
    )
}

/// A browser request from another site that carries no `Origin`
/// (`Sec-Fetch-Site: cross-site`, its first value `site`), other than a
/// top-level GET/HEAD navigation.
fn cross_site_without_origin(
    method: &Method,
    site: Option<&HeaderValue>,
    headers: &HeaderMap,
) -> bool {
    let site = site.and_then(|v| v.to_str().ok());
    if !site.is_some_and(|s| s.eq_ignore_ascii_case("cross-site")) {
        return false;
    }
    let mode = headers.get(SEC_FETCH_MODE).and_then(|v| v.to_str().ok());
    let navigation = mode.is_some_and(|m| m.eq_ignore_ascii_case("navigate"))
        && (method == Method::GET || method == Method::HEAD);
    !navigation
}

/// `application/json`, with or without parameters.
fn is_json(content_type: Option<&str>) -> bool {
    content_type.is_some_and(|ct| {
        ct.split(';')
            .next()
            .is_some_and(|e| e.trim().eq_ignore_ascii_case("application/json"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn surfaces_by_path() {
        let of = |p: &str| Surface::of(p, "/_rea");
        assert_eq!(of("/agentenv"), Surface::DataPlane);
        assert_eq!(of("/.well-known/agent-env.json"), Surface::DataPlane);
        assert_eq!(of("/episodes/e1/agentenv"), Surface::DataPlane);
        assert_eq!(of("/episodes/a/b/agentenv"), Surface::App);
        assert_eq!(of("/mcp"), Surface::Mcp);
        assert_eq!(of("/mcp/x"), Surface::Mcp);
        assert_eq!(of("/mcpx"), Surface::App);
        assert_eq!(of("/_rea/"), Surface::Admin);
        assert_eq!(of("/v1/records"), Surface::App);
        assert_eq!(Surface::of("/__rea/requests", "/__rea"), Surface::Admin);
        assert_eq!(Surface::of("/_rea/x", "/__rea"), Surface::App);
    }

    #[test]
    fn origins_are_trusted_when_own_or_on_loopback() {
        assert!(origin_trusted(
            "http://127.0.0.1:3000",
            Some("127.0.0.1:18765")
        ));
        assert!(origin_trusted(
            "http://localhost:5173",
            Some("127.0.0.1:18765")
        ));
        assert!(origin_trusted("http://[::1]:80", None));
        assert!(origin_trusted(
            "http://fake.test:8080",
            Some("fake.test:8080")
        ));
        assert!(origin_trusted("http://fake.test", Some("fake.test:80")));
        assert!(!origin_trusted(
            "http://fake.test:8081",
            Some("fake.test:8080")
        ));
        assert!(!origin_trusted(
            "http://evil.example",
            Some("127.0.0.1:18765")
        ));
        assert!(!origin_trusted("null", Some("127.0.0.1:18765")));
        assert!(!origin_trusted("file://", Some("127.0.0.1:18765")));
    }

    /// The one pass finds the values `HeaderMap::get` finds: the first of
    /// each name, whatever the order, repeats and other headers.
    #[test]
    fn the_checked_headers_are_the_first_of_each_name() {
        let mut headers = HeaderMap::new();
        headers.append("accept", "*/*".parse().unwrap());
        headers.append("sec-fetch-site", "cross-site".parse().unwrap());
        headers.append("host", "127.0.0.1:1".parse().unwrap());
        headers.append("origin", "http://a.test".parse().unwrap());
        headers.append("host", "other".parse().unwrap());
        headers.append("sec-fetch-site", "same-origin".parse().unwrap());
        let [host, origin, fetch_site] = checked_headers(&headers);
        assert_eq!(host, headers.get(header::HOST));
        assert_eq!(origin, headers.get(header::ORIGIN));
        assert_eq!(fetch_site, headers.get(SEC_FETCH_SITE));
        let none = HeaderMap::new();
        let [host, origin, fetch_site] = checked_headers(&none);
        assert!(host.is_none() && origin.is_none() && fetch_site.is_none());
    }

    #[test]
    fn host_names_strip_the_port() {
        assert_eq!(host_name("127.0.0.1:80"), Some("127.0.0.1"));
        assert_eq!(host_name("[::1]:80"), Some("[::1]"));
        assert_eq!(host_name("localhost"), Some("localhost"));
        assert_eq!(host_name(""), None);
    }

    #[test]
    fn content_types() {
        assert!(is_json(Some("application/json; charset=utf-8")));
        assert!(!is_json(Some("text/plain")));
        assert!(!is_json(None));
    }
}
