//! The environment state view.

pub mod writes;
