//! Decoding a capture file into the Evidence JSON every derived command reads.

use rea_core::har::LeftOutEntry;
use rea_core::{Category, ErrorReport};
use serde_json::{json, Value};
use std::io::Write;
use std::path::Path;

/// The Evidence the derived commands and serving start from: a HAR per
/// entry (an entry that fails validation is left out and listed), or, with
/// `strict`, refusing the capture as inspection does; or the HTTP records of
/// a native mitmproxy file. `format` overrides detection by content.
pub(crate) fn evidence_for_serving(
    capture: &Path,
    format: Option<&str>,
    strict: bool,
) -> Result<(Value, Vec<LeftOutEntry>), ErrorReport> {
    let (evidence, left_out) = rea_core::serving::capture_evidence(capture, format, strict)?;
    Ok((to_json(&evidence)?, left_out))
}

/// `evidence_for_serving` with recorded secrets pseudonymised as `policy`
/// says (the serving commands: environment-state, -model).
pub(crate) fn evidence_for_serving_with(
    capture: &Path,
    format: Option<&str>,
    strict: bool,
    policy: &rea_core::secrets::SecretPolicy,
) -> Result<(Value, Vec<LeftOutEntry>), ErrorReport> {
    let (mut evidence, left_out) = evidence_for_serving(capture, format, strict)?;
    rea_core::secrets::pseudonymise_evidence(&mut evidence, policy);
    Ok((evidence, left_out))
}

fn to_json(evidence: &rea_core::Evidence) -> Result<Value, ErrorReport> {
    serde_json::to_value(evidence).map_err(|e| {
        ErrorReport::new(
            "internal",
            Category::Internal,
            format!("the Evidence did not serialize: {e}"),
        )
    })
}

/// The left-out entries as one line each: `left out /log/entries/3: reason`.
pub(crate) fn left_out_lines(left_out: &[LeftOutEntry]) -> Vec<String> {
    let mut lines = Vec::new();
    if !left_out.is_empty() {
        lines.push(format!(
            "{} entries were left out, each with its reason (for a HAR entry that fails validation, --strict refuses the capture instead):",
            left_out.len()
        ));
    }
    lines.extend(
        left_out
            .iter()
            .map(|l| format!("  left out {}: {}", l.pointer, l.reason())),
    );
    lines
}

/// The left-out entries as JSON: `{"left_out_entries": [...]}`.
pub(crate) fn left_out_json(left_out: &[LeftOutEntry]) -> Value {
    json!({"left_out_entries": left_out.iter().map(LeftOutEntry::to_json).collect::<Vec<_>>()})
}

/// Tells the user on stderr which entries were left out: readable lines, or
/// one JSON object (`{"warning": "entries_left_out", ...}`) with `--json`.
pub(crate) fn warn_left_out(left_out: &[LeftOutEntry], json: bool) {
    if left_out.is_empty() {
        return;
    }
    let mut err = std::io::stderr().lock();
    if json {
        let mut value = left_out_json(left_out);
        value["warning"] = json!("entries_left_out");
        let _ = writeln!(err, "{value}");
    } else {
        for line in left_out_lines(left_out) {
            let _ = writeln!(err, "{line}");
        }
    }
}
