//! List semantics as the engine serves them: the document (`semantics`),
//! field paths and comparison (`fields`), filter expressions
//! (`filter_lang`) and the one evaluator (`eval`) that inference (in
//! `rea-derivation`'s `model::lists`) and serving (`render`) share.

pub mod eval;
pub mod fields;
pub mod filter_lang;
pub mod page_links;
pub mod schema;
pub mod semantics;
pub mod serve;

pub use eval::{evaluate, NotUnderstood, Page};
pub use semantics::{EndpointSemantics, ListSemantics, Meaning, ParamMeaning};
