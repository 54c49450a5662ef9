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
//! - `qlog_view`: the focused qlog facet pages over a qlog parent.
//! - `analysis`: one entry point answering any parsed view request.
//! - `state`: the environment state (entities, documents, view and write plans).
//! - `engine`: re-export of `rea-engine` (routing, rendering and applying calls against a World).

pub mod analysis;
pub mod budget;
pub mod capture_view;
pub mod error;
pub mod manifest;
pub mod model;
pub mod qlog_view;
pub mod source;
pub mod state;
pub mod surface;
pub mod template_rules;
pub mod view;

/// The engine (routing, rendering, applying writes, the World) lives in
/// `rea-engine`; the replay check drives it.
pub use rea_engine as engine;

#[cfg(test)]
pub(crate) mod testkit;

pub use error::DeriveError;
pub use manifest::environment_manifest;
pub use surface::api_surface;
pub use template_rules::TemplateRule;

pub(crate) use rea_engine::codec::pointer_token;

#[cfg(test)]
mod schema_tests;
