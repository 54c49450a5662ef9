//! The record model the state reads, owned by `rea-engine` (the engine
//! replays it) and re-exported here.

pub(crate) use rea_engine::records::*;
