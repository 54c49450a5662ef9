//! rea-core: reading captures safely and decoding them into Evidence.
//!
//! # Layout
//! - `error`: the error contract (code, category, message, retryable, details).

pub mod error;

pub use error::{Category, ErrorReport};
