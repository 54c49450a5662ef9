//! The environment manifest view.

pub mod model;

pub use model::{ExcludedGroup, Manifest, Param, QueryParameterName, RecordPointer, Tool};
