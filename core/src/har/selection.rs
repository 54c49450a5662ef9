//! The caller's record selection: order kept, duplicates and out-of-range
//! ordinals refused.

use crate::error::ErrorReport;

/// Refuses a selection that names an ordinal twice (checked before reading).
pub fn check_duplicates(ordinals: &[u64]) -> Result<(), ErrorReport> {
    for (i, ordinal) in ordinals.iter().enumerate() {
        if ordinals[..i].contains(ordinal) {
            return Err(ErrorReport::input(
                "record_ordinal_duplicate",
                format!("record ordinal {ordinal} is selected more than once"),
            )
            .detail("ordinal", *ordinal)
            .guidance("Name each record once; the order you give is kept."));
        }
    }
    Ok(())
}

/// Refuses ordinals outside the capture (checked after every record is validated).
pub fn check_range(ordinals: &[u64], total: u64) -> Result<(), ErrorReport> {
    if let Some(&ordinal) = ordinals.iter().find(|&&o| o >= total) {
        return Err(ErrorReport::input(
            "record_ordinal_out_of_range",
            format!("record ordinal {ordinal} is outside the capture, which has {total} record(s)"),
        )
        .detail("ordinal", ordinal)
        .detail("total_records", total)
        .guidance(
            "Ordinals are zero-based producer positions; omit the selection to get every record.",
        ));
    }
    Ok(())
}
