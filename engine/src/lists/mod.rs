//! Lists as the engine serves them, through one renderer (`serve::read`):
//! the semantics document (`semantics`), field paths and comparison
//! (`fields`), filter expressions (`filter_lang`), the one evaluator
//! (`eval`) that inference (in `rea-derivation`'s `model::lists`) and
//! serving share, and the query conventions applied where no semantics
//! have evidence (`conventions`: the same semantics, which the replay
//! check asks too), with the operator prefixes of filter names in one
//! table (`operators`).

pub(crate) mod conventions;
pub mod eval;
pub mod fields;
pub mod filter_lang;
pub mod operators;
pub mod page_links;
pub mod schema;
pub mod semantics;
pub mod serve;
pub mod shape;

pub use eval::{evaluate, NotUnderstood, Page};
pub use semantics::{EndpointSemantics, ListSemantics, Meaning, ParamMeaning};
