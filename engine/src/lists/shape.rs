//! Answer shapes a list parameter selects: some apps answer the listed
//! items alone (a bare JSON array) for one value of a parameter, and their
//! usual envelope (`{"rows": [...], "next": ...}`) otherwise. Inferred in
//! `rea-derivation`'s `model::lists::shape`; kept only where every recorded
//! instance shows the shape its value names.

use crate::lists::semantics::{EndpointSemantics, Meaning};
use serde_json::Value;

/// True when one of the request's parameters selects the bare items.
pub fn bare(sem: &EndpointSemantics, params: &[(String, Value)]) -> bool {
    params.iter().any(|(name, value)| {
        let Some(Meaning::BareItems { values }) = sem.meaning(name) else {
            return false;
        };
        let text = match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        values.contains(&text)
    })
}

/// The answer body: the items alone when the request selects them, else
/// `envelope` as rendered.
pub fn shaped(
    sem: &EndpointSemantics,
    params: &[(String, Value)],
    envelope: Value,
    items: &[Value],
) -> Value {
    if bare(sem, params) && !sem.items_pointer.is_empty() {
        Value::Array(items.to_vec())
    } else {
        envelope
    }
}
