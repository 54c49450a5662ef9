//! rea-serve: the served environment and its adapters.
//!
//! # Layout
//! - `model`: the port to the engine (`Model`), implemented by `engine_model`.
//! - `environment`: `Environment`, the immutable model plus one locked World;
//!   `Environment::call` is the one entry every adapter uses.
//! - `generator`: clocks, UUIDs and tokens for served writes.
//! - `outcome`: how an answer reads at the edges (bytes, content type, failure object).
//! - `tools`: tool descriptors (input schema, description, hints).
//! - `mcp`: the MCP surface (rmcp), streamable HTTP at `/mcp` and stdio.
//! - `inspect_mcp`: the inspection tools over MCP stdio (`rea inspect-mcp`).
//! - `http`: the recorded API at its own paths (fallback handler).
//! - `dataplane`: the AgentEnv card and JSON-RPC data plane.
//! - `server`: `app(env, config) -> Router` and `run(listener, ...)`.
//! - `start`: `Environment::from_capture(path, options)`, the one start-up.

pub mod dataplane;
pub mod engine_model;
pub mod environment;
pub mod error;
pub mod generator;
pub mod http;
pub mod inspect_mcp;
pub mod mcp;
pub mod model;
pub mod outcome;
pub mod server;
pub mod start;
pub mod tools;

pub use environment::{Environment, Request};
pub use error::ServeError;
pub use model::{ImportError, Model, ToolInfo, ToolKind};
pub use server::{app, run, run_stdio, ServeConfig};
pub use start::StartOptions;

#[cfg(test)]
mod testing;
#[cfg(test)]
mod tests;
