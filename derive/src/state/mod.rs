//! The environment state view: the initial state the capture's reads
//! observed (types, entities, documents), a render plan per read tool and a
//! write plan per state-changing tool.

pub(crate) mod check;
pub(crate) mod model;
pub(crate) mod writes;

pub use model::{
    Document, DocumentPlan, Entity, EntityType, FieldRule, FixedMember, Insert, ItemPlan, ListLine,
    ListPlan, RecordedPlan, State, StateWrite, ViewPlan, WriteAnswer, WritePlan,
};
pub use model::{
    Generated, IdBasis, Replays, Rule, SequenceScope, TimelineOrder, Unserved, ValueKind,
};
pub(crate) mod derive;
pub(crate) mod entities;
pub(crate) mod identity;
pub(crate) mod records;
pub(crate) mod timeline;
pub(crate) mod usable;
pub(crate) mod views;

pub use derive::{
    environment_state, environment_state_budgeted, environment_state_for, environment_state_view,
    environment_state_with_records,
};

#[cfg(test)]
mod engine_tests;
#[cfg(test)]
pub(crate) mod kinto_tests;
#[cfg(test)]
mod rules_tests;
