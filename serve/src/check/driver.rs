//! Sends scored requests through the real serving path in-process: the
//! axum `Router` of `rea_serve::app`, one `oneshot` per request, no sockets.

use super::replay::{Answer, Outgoing};
use crate::{app, Environment, ServeConfig};
use axum::body::Body;
use axum::http::{HeaderName, HeaderValue, Request};
use axum::Router;
use std::cell::Cell;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

/// The least time between two requests. A client over loopback (the
/// harness's httpx) never gets two answers within a millisecond; without
/// pacing, writes in-process can share one millisecond of the fake's clock
/// and tie where the recording (and fidelity.py) never sees a tie.
const SPACING: Duration = Duration::from_millis(2);

/// The loopback address the requests claim to be for (`Host`).
const HOST: &str = "127.0.0.1";
const PORT: u16 = 18765;

/// The serving path of one Environment, driven from a private runtime.
pub(crate) struct InProcess {
    runtime: tokio::runtime::Runtime,
    router: Router,
    stop: CancellationToken,
    last: Cell<Option<Instant>>,
    /// The Environment served, and per request sent how its list read
    /// was answered (`Environment::list_basis`).
    env: Arc<Environment>,
    bases: std::cell::RefCell<Vec<Option<&'static str>>>,
}

impl InProcess {
    pub(crate) fn new(env: Environment) -> Result<InProcess, String> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the runtime: {e}"))?;
        let config = ServeConfig {
            host: HOST.to_string(),
            port: PORT,
            data_root: None,
            ..ServeConfig::default()
        };
        let stop = CancellationToken::new();
        let env = Arc::new(env);
        let router = {
            let _guard = runtime.enter();
            app(env.clone(), &config, stop.child_token())
        };
        Ok(InProcess {
            runtime,
            router,
            stop,
            last: Cell::new(None),
            env,
            bases: std::cell::RefCell::new(Vec::new()),
        })
    }

    /// Per request sent, in order: how its list read was answered.
    pub(crate) fn list_bases(&self) -> Vec<Option<&'static str>> {
        self.bases.borrow().clone()
    }

    /// Sends one request and collects the whole answer.
    pub(crate) fn send(&self, out: &Outgoing) -> Result<Answer, String> {
        let basis = if out.method.eq_ignore_ascii_case("GET") {
            let target = request_target(&out.path_qs);
            let (path, query) = match target.split_once('?') {
                Some((p, q)) => (p.to_string(), Some(q)),
                None => (target.clone(), None),
            };
            self.env
                .list_basis(&crate::Request::Http(rea_engine::Call::new(
                    "GET", &path, query,
                )))
        } else {
            None
        };
        self.bases.borrow_mut().push(basis);
        let mut builder = Request::builder()
            .method(out.method.as_str())
            .uri(request_target(&out.path_qs))
            .header("host", format!("{HOST}:{PORT}"));
        for (k, v) in &out.headers {
            let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(k.as_bytes()),
                HeaderValue::from_bytes(v.as_bytes()),
            ) else {
                continue;
            };
            builder = builder.header(name, value);
        }
        if !out
            .headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("accept"))
        {
            builder = builder.header("accept", "*/*");
        }
        if let Some(body) = &out.body {
            builder = builder.header("content-length", body.len());
        }
        let request = builder
            .body(Body::from(out.body.clone().unwrap_or_default()))
            .map_err(|e| format!("the request could not be built: {e}"))?;
        if let Some(wait) = self
            .last
            .get()
            .and_then(|t| SPACING.checked_sub(t.elapsed()))
        {
            std::thread::sleep(wait);
        }
        self.last.set(Some(Instant::now()));
        let router = self.router.clone();
        self.runtime.block_on(async move {
            let response = router
                .oneshot(request)
                .await
                .map_err(|e| format!("the server failed: {e}"))?;
            let status = response.status().as_u16();
            let headers = response
                .headers()
                .iter()
                .map(|(k, v)| {
                    (
                        k.as_str().to_string(),
                        String::from_utf8_lossy(v.as_bytes()).into_owned(),
                    )
                })
                .collect();
            let body = axum::body::to_bytes(response.into_body(), usize::MAX)
                .await
                .map_err(|e| format!("the answer body could not be read: {e}"))?;
            Ok(Answer {
                status,
                headers,
                body: body.to_vec(),
            })
        })
    }
}

impl Drop for InProcess {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// A path+query as an HTTP client puts it on the wire: bytes a URI cannot
/// hold (spaces, non-ASCII, quotes…) percent-encoded, the rest as is.
fn request_target(path_qs: &str) -> String {
    let mut out = String::with_capacity(path_qs.len());
    for b in path_qs.bytes() {
        let keep = b.is_ascii_alphanumeric() || b"-._~:/?#[]@!$&'()*+,;=%".contains(&b);
        if keep {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    if out.starts_with('/') {
        out
    } else {
        format!("/{out}")
    }
}

#[cfg(test)]
mod tests {
    use super::request_target;

    #[test]
    fn request_targets_encode_what_a_uri_cannot_hold() {
        assert_eq!(request_target("/a b?q=é"), "/a%20b?q=%C3%A9");
        assert_eq!(request_target("/x?a=1&b=%27"), "/x?a=1&b=%27");
    }
}
