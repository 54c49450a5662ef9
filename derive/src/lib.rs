//! rea-derivation: pure derived views over decoded Evidence.
//!
//! # Layout
//! - `error`: the crate's one error type, mapped onto the error contract.
//! - `budget`: the 96 MiB projection representation budget.
//! - `source`: the view `source`, Evidence parsing and parent refusals.
//! - `view`: parsing view requests (`api-surface`, `environment-manifest`, `capture`).
//! - `surface`: the api-surface view (grouping, format rules, query names).
//! - `template_rules`: the five opt-in template rules.
//! - `manifest`: the environment manifest (tools, params, names).
//! - `capture_view`: paged record views over the parent Evidence.
//! - `protobuf_view`: the `protobuf` pages (bodies, frames, fields) of a parent.
//! - `qlog_view`: the focused qlog facet pages over a qlog parent.
//! - `analysis`: one entry point answering any parsed view request.
//! - `state`: the environment state (entities, documents, view and write plans).
//! - `engine`: re-export of `rea-engine` (routing, rendering and applying calls against a World).
//!
//! Modules other crates name in paths (`analysis`, `manifest`,
//! `protobuf_view`, `source`, `state`, `view`) are public and re-export
//! what those crates use; the app model (`model`) is private, its surface
//! re-exported at the crate root; the rest of the crate is private, so
//! `unreachable_pub` names whatever is `pub` without being used outside.
#![warn(unreachable_pub)]

pub mod analysis;
mod budget;
mod capture_view;
mod error;
pub mod manifest;
// The app model: its own document and serving model, private; what other
// crates use is re-exported below.
mod model;
pub mod protobuf_view;
mod qlog_view;
pub mod source;
pub mod state;
mod surface;
mod template_rules;
pub mod view;

/// The engine (routing, rendering, applying writes, the World) lives in
/// `rea-engine`; the replay check drives it.
pub use rea_engine as engine;

#[cfg(test)]
pub(crate) mod testkit;

pub use error::DeriveError;
// The app model's surface (its modules stay private): the document, the
// serving model over its own World, list semantics and relations.
pub use manifest::environment_manifest;
pub use model::lists::infer_with_engine as infer_list_semantics;
pub use model::lists::{infer_from_instances, list_instances, ListInstances};
pub use model::relations;
pub use model::serving::PatchRoutes;
pub use model::serving::{serving_model, Held, ModelWorld, Served, ServingModel, ViewChange};
pub use model::tree::hook::TEXT_BASIS as TREE_TEXT_BASIS;
pub use model::{environment_model, malformed_media_type, MalformedBody, Model as AppModel};
pub use surface::api_surface;
pub use template_rules::TemplateRule;

pub(crate) use rea_engine::codec::pointer_token;

#[cfg(test)]
mod schema_tests;
