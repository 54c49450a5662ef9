//! Groups the document's numeric sidecars by the record they belong to.

use crate::json::NumericLiteral;

/// Splits sidecars into the container's and one list per record.
pub fn split_by_record(
    literals: Vec<NumericLiteral>,
    records: usize,
) -> (Vec<NumericLiteral>, Vec<Vec<NumericLiteral>>) {
    let mut container = Vec::new();
    let mut per_record = vec![Vec::new(); records];
    for literal in literals {
        match record_of(&literal.pointer).filter(|&n| n < records) {
            Some(n) => per_record[n].push(literal),
            None => container.push(literal),
        }
    }
    (container, per_record)
}

/// The record ordinal a pointer lies under (`/log/entries/N/...`).
pub fn record_of(pointer: &str) -> Option<usize> {
    let rest = pointer.strip_prefix("/log/entries/")?;
    let digits = rest.split('/').next()?;
    if digits.is_empty() || (digits.len() > 1 && digits.starts_with('0')) {
        return None;
    }
    digits.parse().ok()
}
