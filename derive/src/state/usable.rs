//! The body usability test, owned by `rea-engine` and re-exported here.

pub(crate) use rea_engine::usable::*;
