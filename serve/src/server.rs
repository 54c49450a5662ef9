//! Assembling the listener: `app(env, config)` builds the router (the guard
//! in front of everything, then the card, data plane, MCP at `/mcp`, the
//! recorded API as fallback, each with its own body limit); `run` serves it
//! on a listener the caller owns, one hyper HTTP/1.1 connection per task
//! under the connection limits (`Limits`), until the shutdown future
//! resolves; `run_stdio` serves MCP over stdin/stdout.

use crate::cors::{Cors, CorsSetting};
use crate::dataplane::{self, DataPlaneConfig, Plane};
use crate::environment::Environment;
use crate::error::ServeError;
use crate::guard::{self, Guard};
use crate::http;
use crate::mcp::McpSurface;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::ServiceExt;
use std::future::Future;
use std::net::IpAddr;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt as _;

/// Connection limits and timeouts of the HTTP listener, and the largest
/// request body per surface. `Limits::default()` are the defaults the CLI
/// flags document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// A client must send a request's whole header within this; it also
    /// bounds how long a kept-alive connection may wait for its next request.
    pub header_read_timeout: Duration,
    /// A connection on which no byte moved either way for this long is
    /// closed (a stalled body, a dead peer; MCP event streams send a
    /// keep-alive every 15 s).
    pub idle_timeout: Duration,
    /// Connections served at once; more clients wait in the listen backlog.
    pub max_connections: usize,
    /// Largest request body on the app's paths.
    pub app_body_bytes: usize,
    /// Largest request body on `/agentenv` (`data/add` payloads).
    pub data_plane_body_bytes: usize,
    /// Largest request body on `/mcp`.
    pub mcp_body_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            max_connections: 512,
            app_body_bytes: 16 * 1024 * 1024,
            data_plane_body_bytes: 64 * 1024 * 1024,
            mcp_body_bytes: 16 * 1024 * 1024,
        }
    }
}

/// How the listener is exposed.
#[derive(Debug, Clone, Default)]
pub struct ServeConfig {
    /// The host the listener is bound to (decides the DNS-rebinding checks).
    pub host: String,
    pub port: u16,
    /// The only directory `data/add` may read `file://` URIs from.
    pub data_root: Option<PathBuf>,
    /// Connection limits, timeouts and body limits.
    pub limits: Limits,
    /// CORS on the app's paths (`--cors`).
    pub cors: CorsSetting,
}

impl ServeConfig {
    /// Whether `host` names a loopback interface.
    pub fn is_loopback(&self) -> bool {
        is_loopback_host(&self.host)
    }
}

/// Whether a host name or address is loopback.
pub(crate) fn is_loopback_host(host: &str) -> bool {
    let h = host.trim_start_matches('[').trim_end_matches(']');
    // The names every loopback client sends, without parsing an address.
    if h == "127.0.0.1" || h == "::1" {
        return true;
    }
    h.eq_ignore_ascii_case("localhost")
        || h.parse::<IpAddr>()
            .map(|ip| ip.is_loopback())
            .unwrap_or(false)
}

fn mcp_config(config: &ServeConfig, ct: CancellationToken) -> StreamableHttpServerConfig {
    let base = StreamableHttpServerConfig::default()
        .with_cancellation_token(ct)
        .with_max_request_body_bytes(config.limits.mcp_body_bytes);
    if config.is_loopback() {
        // DNS rebinding: only loopback Host headers (rmcp's default list) and,
        // when a browser sends an Origin, only loopback origins.
        base.with_allowed_hosts(["localhost", "127.0.0.1", "::1"])
            .with_allowed_origins([
                "http://localhost:*",
                "http://127.0.0.1:*",
                "http://[::1]:*",
                "https://localhost:*",
                "https://127.0.0.1:*",
                "https://[::1]:*",
            ])
    } else {
        let h = config.host.trim_start_matches('[').trim_end_matches(']');
        let unspecified = h
            .parse::<IpAddr>()
            .map(|ip| ip.is_unspecified())
            .unwrap_or(false);
        if unspecified {
            // Bound to every interface (e.g. in a container): any Host.
            base.disable_allowed_hosts()
        } else {
            base.with_allowed_hosts([
                h.to_string(),
                "localhost".into(),
                "127.0.0.1".into(),
                "::1".into(),
            ])
        }
    }
}

/// The whole router: the guard, then card, data plane, MCP and the
/// recorded API.
pub fn app(env: Arc<Environment>, config: &ServeConfig, ct: CancellationToken) -> Router {
    let admin = crate::admin::router(env.clone(), ct.clone());
    let surface = McpSurface::new(env.clone());
    let mcp = StreamableHttpService::new(
        move || Ok(surface.clone()),
        crate::sessions::BoundedSessions::new(env.session_bounds()).into(),
        mcp_config(config, ct),
    );
    let mcp = Router::new()
        .nest_service("/mcp", mcp)
        .layer(axum::middleware::from_fn_with_state(
            env.clone(),
            crate::mcp::session_end,
        ))
        .layer(axum::middleware::from_fn_with_state(
            config.limits.mcp_body_bytes,
            crate::mcp::envelope,
        ));
    let plane = Plane {
        env: env.clone(),
        config: Arc::new(DataPlaneConfig {
            data_root: config.data_root.clone(),
        }),
    };
    let data_plane = Router::new()
        .route("/.well-known/agent-env.json", get(dataplane::card_handler))
        .route("/agentenv", post(dataplane::rpc_handler))
        .route(
            "/episodes/{episode}/agentenv",
            post(dataplane::episode_rpc_handler),
        )
        .with_state(plane)
        .layer(DefaultBodyLimit::max(config.limits.data_plane_body_bytes));
    let guard = guard_of(&env, config);
    Router::new()
        .merge(mcp)
        .merge(data_plane)
        .merge(admin)
        .merge(crate::grpc::http::router(&env))
        .fallback(http::fallback)
        .with_state(env)
        .layer(DefaultBodyLimit::max(config.limits.app_body_bytes))
        .layer(axum::middleware::from_fn_with_state(guard, guard::check))
        .layer(axum::middleware::from_fn(crate::admin::log_layer))
}

/// The guard every surface passes.
fn guard_of(env: &Arc<Environment>, config: &ServeConfig) -> Arc<Guard> {
    let cors = Cors::new(&config.cors, env.observed());
    Arc::new(Guard::new(&config.host, cors, env.clone()))
}

/// What a connection serves: requests at the app's own paths go straight to
/// the guard's rules and the HTTP adapter (`http::answer`, no router and no
/// per-request middleware services); everything else goes through `app`'s
/// router. Both answer the same: the router's layers are the same guard
/// (`guard::admit`), the same fallback and the same log line.
struct Front {
    router: Router,
    env: Arc<Environment>,
    guard: Arc<Guard>,
    /// Paths a route of the router owns at the app's surface (gRPC methods).
    routed: std::collections::HashSet<String>,
    /// Largest request body on the app's paths.
    app_body_bytes: usize,
}

impl Front {
    fn new(env: Arc<Environment>, config: &ServeConfig, ct: CancellationToken) -> Front {
        let routed = env.grpc().methods.iter().map(|m| m.path.clone()).collect();
        Front {
            router: app(env.clone(), config, ct),
            guard: guard_of(&env, config),
            env,
            routed,
            app_body_bytes: config.limits.app_body_bytes,
        }
    }

    /// Whether `request` takes the direct path, and whether it has a body to
    /// read: an app path no route owns, with no body or one whose declared
    /// length is within the body limit (anything else gets the router's own
    /// answers, the body limit's refusal included).
    fn direct(&self, request: &hyper::Request<hyper::body::Incoming>) -> Option<bool> {
        let path = request.uri().path();
        if guard::Surface::of(path, self.env.ops().prefix()) != guard::Surface::App
            || self.routed.contains(path)
        {
            return None;
        }
        if http_body::Body::size_hint(request.body()).exact() == Some(0) {
            return Some(false);
        }
        let declared = request
            .headers()
            .get(axum::http::header::CONTENT_LENGTH)?
            .to_str()
            .ok()?
            .parse::<usize>()
            .ok()?;
        (declared <= self.app_body_bytes).then_some(true)
    }

    async fn serve(
        self: Arc<Self>,
        request: hyper::Request<hyper::body::Incoming>,
    ) -> Result<axum::response::Response, std::convert::Infallible> {
        let Some(has_body) = self.direct(&request) else {
            let request = request.map(axum::body::Body::new);
            return self.router.clone().oneshot(request).await;
        };
        let started = Instant::now();
        let (mut parts, body) = request.into_parts();
        let response = match guard::admit(&self.guard, &parts.method, &parts.uri, &parts.headers) {
            guard::Admit::Refused(response) => response,
            guard::Admit::Pass { cross_origin } => {
                let body = if has_body {
                    match http_body_util::BodyExt::collect(body).await {
                        Ok(collected) => collected.to_bytes(),
                        // As the router's body extractor answers it.
                        Err(e) => {
                            return Ok(axum::response::IntoResponse::into_response((
                                axum::http::StatusCode::BAD_REQUEST,
                                format!("Failed to buffer the request body: {e}"),
                            )))
                        }
                    }
                } else {
                    axum::body::Bytes::new()
                };
                let headers = std::mem::take(&mut parts.headers);
                // Journaled, and its line logged, by the adapter.
                let response = http::respond(
                    &self.env,
                    &parts.method,
                    &parts.uri,
                    headers,
                    &body,
                    started,
                );
                return Ok(guard::finish(
                    &self.guard,
                    cross_origin.as_deref(),
                    response,
                ));
            }
        };
        crate::admin::log_unjournaled(&parts.method, parts.uri.path(), &response, started);
        Ok(response)
    }
}

/// Serves `app` on `listener` until `shutdown` resolves, then lets open
/// requests finish (at most `SHUTDOWN_GRACE`).
pub async fn run(
    listener: TcpListener,
    env: Arc<Environment>,
    config: &ServeConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let ct = CancellationToken::new();
    env.ops().set_ready();
    let front = Arc::new(Front::new(env, config, ct.child_token()));
    let stop = ct.clone();
    tokio::spawn(async move {
        shutdown.await;
        // Ends open MCP sessions and their event streams too.
        stop.cancel();
    });
    let limits = config.limits.clone();
    let max = limits.max_connections.clamp(1, Semaphore::MAX_PERMITS) as u32;
    let permits = Arc::new(Semaphore::new(max as usize));
    // HTTP/1.1, and HTTP/2 with prior knowledge (h2c: native gRPC clients).
    let mut http = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
    // The header-read timeout is the connection watcher's
    // (`serve_connection`): hyper's own timer was set and cleared on every
    // request.
    http.http1()
        .timer(TokioTimer::new())
        .header_read_timeout(None)
        .keep_alive(true);
    http.http2().timer(TokioTimer::new());
    loop {
        let permit = tokio::select! {
            p = permits.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
            _ = ct.cancelled() => break,
        };
        let (stream, _peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of descriptors or a connection reset before accept:
                    // wait a moment rather than spin.
                    if !is_connection_error(&e) {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    continue;
                }
            },
            _ = ct.cancelled() => break,
        };
        let _ = stream.set_nodelay(true);
        let front = front.clone();
        let http = http.clone();
        let stop = ct.clone();
        let idle = limits.idle_timeout;
        let first = limits.header_read_timeout;
        tokio::spawn(async move {
            serve_connection(stream, front, http, (first, idle), stop).await;
            drop(permit);
        });
    }
    // Wait for open connections to finish, bounded.
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, permits.acquire_many(max)).await;
    Ok(())
}

/// How long `run` waits for open connections after shutdown.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

fn is_connection_error(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::ConnectionRefused
            | std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::ConnectionReset
    )
}

/// One connection: HTTP/1.1 with upgrades, closed when idle for `idle` or
/// when an HTTP/1 request's header takes longer than `head`, shut down
/// gracefully when `stop` is cancelled.
async fn serve_connection(
    stream: TcpStream,
    front: Arc<Front>,
    http: hyper_util::server::conn::auto::Builder<TokioExecutor>,
    (head, idle): (Duration, Duration),
    stop: CancellationToken,
) {
    let activity = Arc::new(Activity::new());
    let io = Watched {
        io: stream,
        activity: activity.clone(),
        preface: 0,
    };
    let watched = activity.clone();
    let service =
        hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
            let open = Open::new(watched.clone());
            let served = front.clone().serve(request);
            async move {
                let response = served.await?;
                if response.status() == axum::http::StatusCode::SWITCHING_PROTOCOLS {
                    open.0.exempt.store(true, Ordering::Relaxed);
                }
                Ok::<_, std::convert::Infallible>(
                    response.map(|body| Tracked { body, _open: open }),
                )
            }
        });
    let conn = http.serve_connection_with_upgrades(TokioIo::new(io), service);
    let mut conn = std::pin::pin!(conn);
    let mut stopping = false;
    loop {
        let Some(wake) = activity.next_check(coarse_ms(), head, idle) else {
            // Dropping the connection closes the socket.
            return;
        };
        tokio::select! {
            _ = conn.as_mut() => return,
            _ = stop.cancelled(), if !stopping => {
                stopping = true;
                conn.as_mut().graceful_shutdown();
            }
            _ = tokio::time::sleep(wake) => {}
        }
    }
}

/// What a connection's watcher reads, written as its bytes and exchanges
/// move (times are `coarse_ms`).
struct Activity {
    /// When a byte last moved either way.
    last: AtomicU64,
    /// Set once the peer has sent a byte.
    read_any: AtomicBool,
    /// HTTP/2 (its preface was read) or upgraded (a `101` was answered):
    /// no request header is awaited between exchanges.
    exempt: AtomicBool,
    /// Requests whose answer is not yet sent in full.
    open: AtomicUsize,
    /// When the last exchange ended (at first: when the connection opened).
    ended: AtomicU64,
}

impl Activity {
    fn new() -> Activity {
        let now = coarse_ms();
        Activity {
            last: AtomicU64::new(now),
            read_any: AtomicBool::new(false),
            exempt: AtomicBool::new(false),
            open: AtomicUsize::new(0),
            ended: AtomicU64::new(now),
        }
    }

    /// How long the watcher may sleep at `now`; `None`: close the
    /// connection. It closes one quiet for `idle`, and one awaiting a
    /// request header for `head`: from its opening to its first byte, from
    /// that byte to its first request, and on HTTP/1 from the end of each
    /// exchange to the next request (the span hyper's header-read timer
    /// covered; an open exchange, an event stream say, is never cut by it).
    fn next_check(&self, now: u64, head: Duration, idle: Duration) -> Option<Duration> {
        let since =
            |at: &AtomicU64| Duration::from_millis(now.saturating_sub(at.load(Ordering::Relaxed)));
        let quiet = since(&self.last);
        if quiet >= idle {
            return None;
        }
        let mut wake = idle - quiet;
        if !self.exempt.load(Ordering::Relaxed) {
            if self.open.load(Ordering::Relaxed) == 0 {
                let waited = since(&self.ended);
                if waited >= head {
                    return None;
                }
                wake = wake.min(head - waited);
            } else {
                // An exchange may end while the watcher sleeps.
                wake = wake.min(head);
            }
        }
        Some(wake)
    }
}

/// One request's exchange, open until its answer's body is dropped (sent in
/// full, or the connection gone).
struct Open(Arc<Activity>);

impl Open {
    fn new(activity: Arc<Activity>) -> Open {
        activity.open.fetch_add(1, Ordering::Relaxed);
        Open(activity)
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.0.ended.store(coarse_ms(), Ordering::Relaxed);
        self.0.open.fetch_sub(1, Ordering::Relaxed);
    }
}

/// An answer's body, holding its exchange open.
struct Tracked {
    body: axum::body::Body,
    _open: Open,
}

impl http_body::Body for Tracked {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// A socket that notes when a byte last moved (for the idle timeout) and
/// whether the peer opened with HTTP/2's preface.
struct Watched {
    io: TcpStream,
    activity: Arc<Activity>,
    /// Bytes of HTTP/2's preface the peer's first bytes matched so far;
    /// `PREFACE.len()` once they all did, `u8::MAX` once one did not.
    preface: u8,
}

/// What an HTTP/2 client sends first (prior knowledge, as hyper-util's
/// protocol sniffing reads it).
const PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

impl Watched {
    fn touch(&self) {
        self.activity.last.store(coarse_ms(), Ordering::Relaxed);
    }

    /// Follows the preface through the connection's first bytes.
    fn sniff(&mut self, read: &[u8]) {
        let at = usize::from(self.preface);
        let want = &PREFACE[at..];
        let n = want.len().min(read.len());
        if read[..n] != want[..n] {
            self.preface = u8::MAX;
            return;
        }
        self.preface += n as u8;
        if usize::from(self.preface) == PREFACE.len() {
            self.activity.exempt.store(true, Ordering::Relaxed);
        }
    }
}

/// Milliseconds on a monotonic clock read at every socket read and write:
/// the kernel's coarse clock (a few ms of resolution, far below any idle
/// timeout, and no time-stamp counter read) where there is one.
fn coarse_ms() -> u64 {
    #[cfg(target_os = "linux")]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `clock_gettime` writes only the `timespec` it is given.
        if unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_COARSE, &mut ts) } == 0 {
            return ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000;
        }
    }
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_millis() as u64
}

impl AsyncRead for Watched {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let poll = Pin::new(&mut this.io).poll_read(cx, buf);
        if matches!(poll, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            this.touch();
            if usize::from(this.preface) < PREFACE.len() {
                this.sniff(&buf.filled()[before..]);
            }
            if !this.activity.read_any.load(Ordering::Relaxed) {
                // The first request's header is timed from its first byte.
                this.activity.ended.store(coarse_ms(), Ordering::Relaxed);
                this.activity.read_any.store(true, Ordering::Relaxed);
            }
        }
        poll
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.io).poll_write(cx, data);
        if matches!(poll, Poll::Ready(Ok(n)) if n > 0) {
            this.touch();
        }
        poll
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.io).poll_write_vectored(cx, bufs);
        if matches!(poll, Poll::Ready(Ok(n)) if n > 0) {
            this.touch();
        }
        poll
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

/// Serves MCP over stdin/stdout until the client closes or `shutdown` resolves.
pub async fn run_stdio(
    env: Arc<Environment>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let ct = CancellationToken::new();
    let service = McpSurface::new(env)
        .serve_with_ct(rmcp::transport::stdio(), ct.clone())
        .await
        .map_err(|e| ServeError::Mcp(e.to_string()))?;
    let stop = ct.clone();
    tokio::spawn(async move {
        shutdown.await;
        stop.cancel();
    });
    service
        .waiting()
        .await
        .map_err(|e| ServeError::Mcp(e.to_string()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: Duration = Duration::from_secs(10);
    const IDLE: Duration = Duration::from_secs(60);

    fn activity_at(now: u64) -> Activity {
        let a = Activity::new();
        a.last.store(now, Ordering::Relaxed);
        a.ended.store(now, Ordering::Relaxed);
        a
    }

    /// Between exchanges a request header is awaited for the header-read
    /// timeout; an open exchange (an event stream) is cut only when idle.
    #[test]
    fn the_watcher_times_headers_between_exchanges_only() {
        let a = activity_at(1_000);
        assert_eq!(a.next_check(1_000, HEAD, IDLE), Some(HEAD));
        assert_eq!(
            a.next_check(4_000, HEAD, IDLE),
            Some(Duration::from_secs(7))
        );
        assert_eq!(a.next_check(11_000, HEAD, IDLE), None);
        let open = Open::new(Arc::new(activity_at(1_000)));
        let a = &open.0;
        // Open for longer than the header timeout, bytes moving: kept.
        a.last.store(50_000, Ordering::Relaxed);
        assert_eq!(a.next_check(55_000, HEAD, IDLE), Some(HEAD));
        // Quiet for the idle timeout: closed.
        assert_eq!(a.next_check(110_000, HEAD, IDLE), None);
        let a = open.0.clone();
        drop(open);
        assert_eq!(a.open.load(Ordering::Relaxed), 0);
        let ended = a.ended.load(Ordering::Relaxed);
        a.last.store(ended, Ordering::Relaxed);
        assert_eq!(
            a.next_check(ended + 2_000, HEAD, IDLE),
            Some(Duration::from_secs(8))
        );
        assert_eq!(a.next_check(ended + 10_000, HEAD, IDLE), None);
        // HTTP/2 and upgraded connections await no header.
        a.exempt.store(true, Ordering::Relaxed);
        assert_eq!(
            a.next_check(ended + 10_000, HEAD, IDLE),
            Some(Duration::from_secs(50))
        );
    }

    /// The preface is followed across reads; any other first bytes are HTTP/1.
    #[test]
    fn the_http2_preface_is_sniffed_across_reads() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            for (reads, h2) in [
                (vec![&PREFACE[..3], &PREFACE[3..20], &PREFACE[20..]], true),
                (vec![&PREFACE[..], b"more"], true),
                (vec![&b"PRI * HTTP/1.1\r\n"[..]], false),
                (vec![&b"GET / HTTP/1.1\r\n"[..]], false),
                (vec![&b"P"[..], b"ATCH / HTTP/1.1\r\n"], false),
            ] {
                let client = TcpStream::connect(addr).await.unwrap();
                let (server, _) = listener.accept().await.unwrap();
                let mut watched = Watched {
                    io: client,
                    activity: Arc::new(Activity::new()),
                    preface: 0,
                };
                for read in &reads {
                    watched.sniff(read);
                    if usize::from(watched.preface) >= PREFACE.len() {
                        break;
                    }
                }
                assert_eq!(
                    watched.activity.exempt.load(Ordering::Relaxed),
                    h2,
                    "{reads:?}"
                );
                drop(server);
            }
        });
    }
}
