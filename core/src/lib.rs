//! rea-core: reading captures safely and decoding them into Evidence.
//!
//! # Layout
//! - `error`: the error contract (code, category, message, retryable, details).
//! - `recorded_url`: the one parser of recorded request URLs.

pub mod error;
pub mod recorded_url;

pub use error::{Category, ErrorReport};
