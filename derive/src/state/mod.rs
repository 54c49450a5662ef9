//! The environment state view: the initial state the capture's reads
//! observed (types, entities, documents), a render plan per read tool and a
//! write plan per state-changing tool.

pub mod check;
pub mod model;
pub mod writes;

pub use model::{
    Document, DocumentPlan, Entity, EntityType, FieldRule, FixedMember, Insert, ItemPlan, ListLine,
    ListPlan, RecordedPlan, State, StateWrite, ViewPlan, WriteAnswer, WritePlan,
};
pub use model::{Generated, Rule, SequenceScope, Unserved, ValueKind};
pub mod derive;
pub mod entities;
pub mod identity;
pub mod records;
pub mod timeline;
pub mod usable;
pub mod views;

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
