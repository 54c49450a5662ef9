//! Write plans: which tools may change state, the effect each has, and the
//! plan built from its first successful call (created-field rules, update
//! rules, required members, insert placement, write clock).

pub mod build;
pub mod classify;
pub mod created;
pub mod input;
pub mod insert;
pub mod observe;
pub mod shapes;
pub mod updated;
