//! The state accumulator's budget: the manifest's admission, every record
//! line, each body (as temporary bytes before it is parsed) and every value
//! the state keeps are charged against one 96 MiB representation budget.

use rea_core::{Category, ErrorReport};
use serde_json::Value;

/// The projection representation budget, in bytes.
pub const STATE_BUDGET: usize = 96 * 1024 * 1024;

/// A byte accumulator that refuses to grow past its limit.
#[derive(Debug, Clone)]
pub struct Budget {
    limit: usize,
    used: usize,
    peak: usize,
}

impl Budget {
    pub fn new(limit: usize) -> Budget {
        Budget { limit, used: 0, peak: 0 }
    }

    /// Charges `bytes` for `what`; fails with `resource_constraint` past the limit.
    pub fn charge(&mut self, bytes: usize, what: &str) -> Result<(), ErrorReport> {
        self.used = self.used.saturating_add(bytes);
        self.peak = self.peak.max(self.used);
        if self.used > self.limit {
            return Err(ErrorReport::new(
                "resource_constraint",
                Category::ResourceConstraint,
                format!("the environment state needs more than its {} byte budget ({what})", self.limit),
            )
            .detail("budget_bytes", self.limit as u64)
            .detail("stage", what)
            .guidance("Select fewer records, or split the capture."));
        }
        Ok(())
    }

    /// Releases temporary bytes charged earlier.
    pub fn release(&mut self, bytes: usize) {
        self.used = self.used.saturating_sub(bytes);
    }

    pub fn used(&self) -> usize {
        self.used
    }

    pub fn peak(&self) -> usize {
        self.peak
    }
}

/// An estimate of the bytes a kept JSON value occupies.
pub fn value_size(value: &Value) -> usize {
    match value {
        Value::Null | Value::Bool(_) => 8,
        Value::Number(_) => 16,
        Value::String(s) => 24 + s.len(),
        Value::Array(items) => 24 + items.iter().map(value_size).sum::<usize>(),
        Value::Object(map) => 48 + map.iter().map(|(k, v)| 24 + k.len() + value_size(v)).sum::<usize>(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_past_the_limit_and_releases() {
        let mut b = Budget::new(100);
        assert!(b.charge(60, "a").is_ok());
        b.release(60);
        assert!(b.charge(100, "b").is_ok());
        let err = b.charge(1, "c").unwrap_err();
        assert_eq!(err.code, "resource_constraint");
        assert_eq!(err.category, Category::ResourceConstraint);
        assert_eq!(b.peak(), 101);
    }
}
