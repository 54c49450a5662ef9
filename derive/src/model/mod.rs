//! rea's own app model, inferred from the whole recording beyond the spec's documents.

pub mod lists;
