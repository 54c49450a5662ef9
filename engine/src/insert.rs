//! Where a created entity goes among its collection (`insert`: sorted by a
//! field, else last), and the value order that placement uses.

use crate::state::{Insert, InsertPosition, SortOrder};
use serde_json::Value;
use std::cmp::Ordering;

/// Compares two values of one field: numbers with numbers, strings with strings.
pub fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64()?.partial_cmp(&y.as_f64()?),
        (Value::String(x), Value::String(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

/// The index at which an entity with `value` in the insert field goes among
/// `existing` (each the entity's value of that field, if any). Entities
/// without a comparable value are passed over; `last` places at the end.
/// `existing` is read lazily and only up to the insertion point, so a new
/// entity that goes first costs no walk over the whole collection.
pub fn insert_index<'a, I>(insert: &Insert, existing: I, value: Option<&Value>) -> usize
where
    I: IntoIterator<Item = Option<&'a Value>>,
    I::IntoIter: ExactSizeIterator,
{
    let mut existing = existing.into_iter();
    let len = existing.len();
    let (Some(value), Some(order)) = (value, insert.order) else {
        return len;
    };
    if insert.position != InsertPosition::Sorted {
        return len;
    }
    let goes_before = |other: &Value| match compare(value, other) {
        Some(Ordering::Less) => order == SortOrder::Ascending,
        Some(Ordering::Greater) => order == SortOrder::Descending,
        _ => false,
    };
    existing
        .position(|e| e.is_some_and(goes_before))
        .unwrap_or(len)
}
