//! rea-serve: the served environment and its adapters. Modules are
//! private; what other crates use is re-exported here (`inspect_mcp` stays
//! public for the CLI's `inspect-mcp`).
//!
//! # Layout
//! - `model`: the port to the engine (`Model`), implemented by `engine_model`.
//! - `app_model`: the inferred app model in front of the engine (`WithAppModel`).
//! - `environment`: `Environment`, the immutable model plus one locked World;
//!   `Environment::call` is the one entry every adapter uses.
//! - `episodes`: isolated episode Worlds (`--isolate`).
//! - `generator`: clocks, UUIDs and tokens for served writes.
//! - `outcome`: how an answer reads at the edges (bytes, content type, failure object).
//! - `tools`: tool descriptors (input schema, description, hints).
//! - `mcp`: the MCP surface (rmcp), streamable HTTP at `/mcp` and stdio.
//! - `inspect_mcp`: the inspection tools over MCP stdio (`rea inspect-mcp`).
//! - `http`: the recorded API at its own paths (fallback handler).
//! - `dataplane`: the AgentEnv card and JSON-RPC data plane.
//! - `grpc`: the recorded gRPC / gRPC-web methods at their paths and as MCP tools.
//! - `server`: `app(env, config) -> Router` and `run(listener, ...)` (connection limits).
//! - `guard`: Host/Origin/content-type checks in front of every surface.
//! - `cors`: CORS on the app's paths, preflights, what the recording showed.
//! - `openapi`: the OpenAPI 3.1 export (`/_rea/openapi.json`, `rea environment-openapi`).
//! - `start`: `Environment::from_capture(path, options)`, the one start-up.
//! - `check`: `environment-check`, the fidelity rules replayed in-process.
//! - `admin`: the journal, coverage, health and the live page under `/_rea`.

pub mod admin;
pub mod app_model;
pub mod check;
pub mod cors;
mod dataplane;
mod docstore_tools;
mod engine_model;
mod environment;
mod episodes;
mod error;
mod generator;
mod grpc;
mod guard;
mod http;
pub mod inspect_mcp;
mod jsonrpc;
mod mcp;
mod memory;
mod model;
mod openapi;
mod outcome;
mod relations;
mod server;
pub mod sessions;
mod start;
mod tools;

pub use cors::CorsSetting;
pub use dataplane::DataPlaneConfig;
pub use engine_model::EngineModel;
pub use environment::{Environment, Reply, Request};
pub use episodes::EPISODE_HEADER;
pub use error::ServeError;
pub use generator::SystemGenerator;
pub use mcp::McpSurface;
pub use memory::{give_back_if_retired, on_give_back, on_retired_wake};
pub use model::{ImportError, Model, ToolInfo, ToolKind, ToolSchemas};
pub use openapi::{document as openapi_document, OPENAPI_PATH, OPENAPI_VERSION};
pub use server::{app, run, run_stdio, Limits, ServeConfig};
pub use sessions::SessionBounds;
pub use start::StartOptions;

#[cfg(test)]
mod testing;
#[cfg(test)]
mod tests;
