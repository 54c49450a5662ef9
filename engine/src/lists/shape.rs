//! Answer shapes a list parameter selects: some apps answer the listed
//! items alone (a bare JSON array) for one value of a parameter, and their
//! usual envelope (`{"rows": [...], "next": ...}`) otherwise. Inferred in
//! `rea-derivation`'s `model::lists::shape`; kept only where every recorded
//! instance shows the shape its value names.

use crate::lists::fields::Step;
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

/// The members a column selection shows: the named ones and the identity
/// (`Columns`), or every member the universe's entities carry but the
/// named ones (`OmitFields`, `omit`).
pub fn columns(
    sem: &EndpointSemantics,
    omit: bool,
    named: Vec<String>,
    universe: &[&Value],
) -> Vec<String> {
    if omit {
        let mut all: Vec<String> = Vec::new();
        for e in universe {
            for k in e.as_object().into_iter().flat_map(|o| o.keys()) {
                if !all.contains(k) && !named.contains(k) {
                    all.push(k.clone());
                }
            }
        }
        return all;
    }
    let mut shown = named;
    if let Some([Step::Member { name: id }]) = sem.identity.as_ref().map(|p| p.0.as_slice()) {
        if !shown.contains(id) {
            shown.insert(0, id.clone());
        }
    }
    shown
}

/// True when some recorded 2xx answer of the endpoint is an envelope
/// without the total member `member`: the app counts only when asked, so
/// an answer whose base shows no total shows none.
pub fn total_on_request(engine: &crate::Engine, sem: &EndpointSemantics, member: &str) -> bool {
    crate::lists::serve::recorded_answers(engine, sem).any(|v| {
        v.as_object().is_some_and(|o| {
            !o.contains_key(member) && crate::codec::at_pointer(&v, &sem.items_pointer).is_some()
        })
    })
}
