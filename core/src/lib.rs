//! rea-core: reading captures safely and decoding them into Evidence.
//!
//! # Layout
//! - `error`: the error contract (code, category, message, retryable, details).
//! - `recorded_url`: the one parser of recorded request URLs.
//! - `har_schema`: HAR 1.2 validation under the unchanged har-schema 2.0.0
//!   schemas, with the two producer profiles.

pub mod error;
pub mod har_schema;
pub mod recorded_url;

pub use error::{Category, ErrorReport};
