//! The serve crate's one error type, mapped onto the error contract.

use rea_core::{Category, ErrorReport};
use std::fmt;

/// A failure to build or run the served environment.
#[derive(Debug)]
#[non_exhaustive]
pub enum ServeError {
    /// The listener or a transport failed.
    Io(std::io::Error),
    /// The `--state` World does not fit the environment's tables.
    State(String),
    /// The MCP stdio session failed to start or ended with an error.
    Mcp(String),
    /// The environment could not be built from the capture (decoding,
    /// derivation or the engine refused it), in the error contract's shape.
    Start(ErrorReport),
}

impl fmt::Display for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServeError::Io(e) => write!(f, "serving failed: {e}"),
            ServeError::State(d) => {
                write!(f, "the --state World does not fit the environment: {d}")
            }
            ServeError::Mcp(d) => write!(f, "the MCP session failed: {d}"),
            ServeError::Start(r) => write!(f, "{}", r.message),
        }
    }
}

impl std::error::Error for ServeError {}

impl From<std::io::Error> for ServeError {
    fn from(e: std::io::Error) -> Self {
        ServeError::Io(e)
    }
}

impl ServeError {
    /// This failure in the error contract's shape.
    pub fn report(&self) -> ErrorReport {
        match self {
            ServeError::Io(e) => ErrorReport::new("serve_io", Category::Unavailable, self.to_string())
                .detail("io_kind", format!("{:?}", e.kind())),
            ServeError::State(d) => ErrorReport::input("invalid_state", self.to_string())
                .detail("detail", d.clone())
                .detail("expected", "the bare tables {collection: [row, ...]}, a data/get result {parts: [{kind: data, data: tables}]}, or a whole JSON-RPC reply {jsonrpc: 2.0, id, result: data/get result}")
                .guidance("give --state a World in the data/get shape (collection -> rows, documents as {path, value}); a saved data/get reply works as it is"),
            ServeError::Mcp(_) => ErrorReport::new("mcp_session", Category::Unavailable, self.to_string()),
            ServeError::Start(r) => r.clone(),
        }
    }
}
