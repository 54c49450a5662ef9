//! The environment manifest document types, owned by `rea-engine` (the
//! engine routes by them) and re-exported here for the manifest view.

pub use rea_engine::manifest::{
    ExcludedGroup, Manifest, Param, QueryParameterName, RecordPointer, Tool,
};
