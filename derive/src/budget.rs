//! The projection representation budget: a conservative accumulator that
//! is charged before anything is retained, so an over-budget projection
//! fails with `resource_constraint` and never yields a partial view.

use crate::error::DeriveError;
use serde_json::Value;

/// The fixed budget of every public projection: 96 MiB.
pub(crate) const PROJECTION_BUDGET: u64 = 96 * 1024 * 1024;

/// Fixed charge for one retained JSON value, map entry or set slot.
pub(crate) const SLOT: u64 = 32;

/// Counts representation bytes against a limit.
#[derive(Debug, Clone)]
pub struct Budget {
    limit: u64,
    used: u64,
}

impl Budget {
    /// A budget of `limit` bytes (tests use small ones; the public views
    /// always use [`PROJECTION_BUDGET`]).
    pub fn new(limit: u64) -> Self {
        Budget { limit, used: 0 }
    }

    pub fn used(&self) -> u64 {
        self.used
    }

    /// Reserves `bytes`, or fails without reserving anything.
    pub fn charge(&mut self, bytes: u64) -> Result<(), DeriveError> {
        let needed = self.used.saturating_add(bytes);
        if needed > self.limit {
            return Err(DeriveError::ResourceConstraint {
                needed,
                limit: self.limit,
            });
        }
        self.used = needed;
        Ok(())
    }

    /// Charges one retained string at its worst-case JSON-escaped size.
    pub fn charge_text(&mut self, text: &str) -> Result<(), DeriveError> {
        self.charge(escaped_size(text) + SLOT)
    }

    /// Gives back a temporary reservation.
    pub fn release(&mut self, bytes: u64) {
        self.used = self.used.saturating_sub(bytes);
    }
}

/// Worst-case JSON-escaped size of a string: every byte could become a
/// six-byte `\u00XX` escape, plus the quotes.
pub(crate) fn escaped_size(text: &str) -> u64 {
    (text.len() as u64).saturating_mul(6).saturating_add(2)
}

/// The charge for holding a parsed copy of a document whose strings are
/// shared: one slot per value, strings not charged per character. This is
/// the capture clone of a retained (file) source.
pub(crate) fn clone_charge(value: &Value) -> u64 {
    let mut total = 0u64;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        total = total.saturating_add(SLOT);
        match v {
            Value::Array(items) => stack.extend(items.iter()),
            Value::Object(map) => {
                total = total.saturating_add(SLOT.saturating_mul(map.len() as u64));
                stack.extend(map.values());
            }
            _ => {}
        }
    }
    total
}

/// The charge for admitting an inline envelope as text: every string and
/// key at its worst-case escaped size plus one slot per value.
pub(crate) fn inline_charge(value: &Value) -> u64 {
    let mut total = 0u64;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        total = total.saturating_add(SLOT);
        match v {
            Value::String(s) => total = total.saturating_add(escaped_size(s)),
            Value::Array(items) => stack.extend(items.iter()),
            Value::Object(map) => {
                for (k, item) in map {
                    total = total.saturating_add(escaped_size(k));
                    stack.push(item);
                }
            }
            _ => {}
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charging_past_the_limit_fails_and_reserves_nothing() {
        let mut b = Budget::new(100);
        b.charge(60).unwrap();
        let err = b.charge(41).unwrap_err();
        assert!(matches!(
            err,
            DeriveError::ResourceConstraint {
                needed: 101,
                limit: 100
            }
        ));
        assert_eq!(b.used(), 60);
        b.release(60);
        assert_eq!(b.used(), 0);
    }

    #[test]
    fn control_characters_are_charged_at_escaped_size() {
        assert_eq!(escaped_size("\u{1}\u{2}"), 14);
        let inline = inline_charge(&serde_json::json!({"a": "\u{1}"}));
        assert!(inline >= escaped_size("\u{1}") + escaped_size("a"));
    }
}
