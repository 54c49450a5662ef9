//! The environment state document types, owned by `rea-engine` (the engine
//! renders and applies them) and re-exported here for the state view.

pub use rea_engine::state::*;
