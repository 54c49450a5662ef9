//! The body usability test, owned by `rea-engine` and re-exported here.

pub use rea_engine::usable::*;
