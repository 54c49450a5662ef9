//! rea-derivation: pure derived views over decoded Evidence.
//!
//! # Layout
//! - `manifest`: the environment manifest (tools, params, names).
//! - `state`: the environment state (entities, documents, view and write plans).
//! - `engine`: routing, rendering and applying calls against a World.

pub mod engine;
pub mod manifest;
pub mod state;
