//! Splits a HAR document into its container metadata (with `log.entries`
//! replaced by `null`) and its entries.

use serde_json::Value;

/// Takes the entries out of the document, leaving `null` in their place.
pub fn split(mut doc: Value) -> (Value, Vec<Value>) {
    let entries = match doc.pointer_mut("/log/entries") {
        Some(slot) => match std::mem::take(slot) {
            Value::Array(items) => items,
            _ => Vec::new(),
        },
        None => Vec::new(),
    };
    (doc, entries)
}
