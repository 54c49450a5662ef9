//! MCP session bounds: rmcp's local session manager with a maximum number
//! of open sessions (a new session beyond it is refused with a clear
//! message; closing one or letting one idle out makes room) and the idle
//! timeout after which a session is closed.

use futures_core::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, SessionConfig,
};
use rmcp::transport::streamable_http_server::session::{
    RestoreOutcome, ServerSseMessage, SessionId, SessionManager,
};
use std::sync::Arc;
use std::time::Duration;

/// Open MCP sessions kept at most by default.
pub const DEFAULT_MAX_SESSIONS: usize = 1024;
/// Idle time after which an MCP session is closed by default.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(300);

/// How many MCP sessions may be open, and for how long one may idle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionBounds {
    pub max_sessions: usize,
    pub idle_timeout: Duration,
}

impl Default for SessionBounds {
    fn default() -> Self {
        SessionBounds {
            max_sessions: DEFAULT_MAX_SESSIONS,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
        }
    }
}

/// Why a session was refused or failed.
#[derive(Debug)]
pub enum BoundedError {
    /// Every allowed session is open.
    Full(usize),
    Inner(LocalSessionManagerError),
}

impl std::fmt::Display for BoundedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BoundedError::Full(max) => write!(
                f,
                "the server holds its maximum of {max} open MCP sessions; close one \
                 (DELETE /mcp with its Mcp-Session-Id), wait for an idle one to time out, \
                 or start the server with a larger --max-sessions"
            ),
            BoundedError::Inner(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for BoundedError {}

impl From<LocalSessionManagerError> for BoundedError {
    fn from(e: LocalSessionManagerError) -> Self {
        BoundedError::Inner(e)
    }
}

/// The local session manager, bounded.
#[derive(Debug)]
pub struct BoundedSessions {
    inner: LocalSessionManager,
    max: usize,
    /// Held from the count to the insert, so concurrent creates cannot
    /// overshoot the bound.
    gate: tokio::sync::Mutex<()>,
}

impl BoundedSessions {
    pub fn new(bounds: SessionBounds) -> BoundedSessions {
        let mut inner = LocalSessionManager::default();
        let mut config = SessionConfig::default();
        config.keep_alive = Some(bounds.idle_timeout);
        inner.session_config = config;
        BoundedSessions {
            inner,
            max: bounds.max_sessions.max(1),
            gate: tokio::sync::Mutex::new(()),
        }
    }

    /// Open sessions.
    pub async fn open(&self) -> usize {
        self.inner.sessions.read().await.len()
    }

    /// Refuses when every allowed session is open (an ended session's
    /// worker removes it from the manager, so only live ones count).
    async fn room(&self) -> Result<(), BoundedError> {
        if self.open().await < self.max {
            Ok(())
        } else {
            Err(BoundedError::Full(self.max))
        }
    }
}

impl SessionManager for BoundedSessions {
    type Error = BoundedError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let _gate = self.gate.lock().await;
        self.room().await?;
        Ok(self.inner.create_session().await?)
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.resume(id, last_event_id).await?)
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        let _gate = self.gate.lock().await;
        self.room().await?;
        Ok(self.inner.restore_session(id).await?)
    }

    fn event_store(
        &self,
    ) -> Option<Arc<dyn rmcp::transport::streamable_http_server::session::EventStore>> {
        self.inner.event_store()
    }
}
