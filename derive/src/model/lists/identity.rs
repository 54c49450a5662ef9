//! The identity of a list's items when several recorded answers list the
//! same entities: `instances::identity_of` asks for distinct values over
//! every listed item at once, which two answers that overlap (the whole
//! list, then a filtered one) never give. Here the path the largest answer
//! shows distinct is kept when every answer shows it distinct within
//! itself, as scalars.

use crate::model::lists::fields::FieldPath;
use crate::model::lists::instances::identity_of;
use serde_json::Value;

/// The identity path over answers listed separately (`groups`), when no
/// path is distinct over all of them at once.
pub(crate) fn per_answer(groups: &[&[Value]]) -> Option<FieldPath> {
    let largest = groups.iter().max_by_key(|g| g.len())?;
    let refs: Vec<&Value> = largest.iter().collect();
    let path = identity_of(&refs)?;
    let distinct = |g: &[Value]| {
        let mut seen: Vec<&Value> = Vec::new();
        g.iter().all(|item| match path.get(item) {
            Some(v @ (Value::String(_) | Value::Number(_))) if !seen.contains(&v) => {
                seen.push(v);
                true
            }
            _ => false,
        })
    };
    groups.iter().all(|g| distinct(g)).then_some(path)
}
