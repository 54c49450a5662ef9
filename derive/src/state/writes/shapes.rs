//! Value shapes (uuids, tokens, sequences, slugs, clocks), owned by
//! `rea-engine` (writes generate them) and re-exported for plan building.

pub(crate) use rea_engine::shapes::*;
