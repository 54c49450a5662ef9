//! Assembling the listener: `app(env, config)` builds the router (card, data
//! plane, MCP at `/mcp`, the recorded API as fallback); `run` serves it on a
//! listener the caller owns until the shutdown future resolves; `run_stdio`
//! serves MCP over stdin/stdout.

use crate::dataplane::{self, DataPlaneConfig, Plane};
use crate::environment::Environment;
use crate::error::ServeError;
use crate::http;
use crate::mcp::McpSurface;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use axum::Router;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::ServiceExt;
use std::future::Future;
use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// Largest request body accepted (data/add payloads included).
const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// How the listener is exposed.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// The host the listener is bound to (decides the DNS-rebinding checks).
    pub host: String,
    pub port: u16,
    /// The only directory `data/add` may read `file://` URIs from.
    pub data_root: Option<PathBuf>,
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
    h.eq_ignore_ascii_case("localhost")
        || h.parse::<IpAddr>()
            .map(|ip| ip.is_loopback())
            .unwrap_or(false)
}

fn mcp_config(config: &ServeConfig, ct: CancellationToken) -> StreamableHttpServerConfig {
    let base = StreamableHttpServerConfig::default()
        .with_cancellation_token(ct)
        .with_max_request_body_bytes(MAX_BODY_BYTES);
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

/// The whole router: card, data plane, MCP and the recorded API.
pub fn app(env: Arc<Environment>, config: &ServeConfig, ct: CancellationToken) -> Router {
    let surface = McpSurface::new(env.clone());
    let mcp = StreamableHttpService::new(
        move || Ok(surface.clone()),
        LocalSessionManager::default().into(),
        mcp_config(config, ct),
    );
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
        .with_state(plane);
    let mcp = Router::new()
        .nest_service("/mcp", mcp)
        .layer(axum::middleware::from_fn_with_state(
            env.clone(),
            crate::mcp::session_end,
        ));
    Router::new()
        .merge(mcp)
        .merge(data_plane)
        .fallback(http::fallback)
        .with_state(env)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
}

/// Serves `app` on `listener` until `shutdown` resolves, then lets open
/// requests finish.
pub async fn run(
    listener: TcpListener,
    env: Arc<Environment>,
    config: &ServeConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let ct = CancellationToken::new();
    let router = app(env, config, ct.child_token());
    let stop = ct.clone();
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            shutdown.await;
            // Ends open MCP sessions and their event streams too.
            stop.cancel();
        })
        .await?;
    Ok(())
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
