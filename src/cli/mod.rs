//! One module per command, plus the shared way commands print results
//! and errors.

pub(crate) mod analysis_view;
pub(crate) mod output;
