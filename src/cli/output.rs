//! Printing a command's result and its error in the shared contract:
//! `--json` prints the JSON document (errors as the error object on
//! stderr); otherwise readable text. Exit codes follow the error category.

use rea_core::ErrorReport;
use serde_json::Value;
use std::io::Write;

/// Prints `value` on stdout: one line with `json`, indented otherwise.
pub(crate) fn print_json(value: &Value, json: bool) -> u8 {
    let text = if json {
        serde_json::to_string(value)
    } else {
        serde_json::to_string_pretty(value)
    };
    match text {
        Ok(text) => print_text(&(text + "\n")),
        Err(e) => fail(
            &ErrorReport::new("output_error", rea_core::Category::Output, e.to_string()),
            json,
        ),
    }
}

/// Prints a derived document: its JSON with `json` (indented when `pretty`),
/// else its readable `summary`; `what` names it in a serialization error.
pub(crate) fn print_document<T: serde::Serialize>(
    doc: &T,
    json: bool,
    pretty: bool,
    what: &str,
    summary: impl FnOnce(&T) -> String,
) -> Result<(), ErrorReport> {
    let text = if json {
        let text = if pretty {
            serde_json::to_string_pretty(doc)
        } else {
            serde_json::to_string(doc)
        };
        text.map_err(|e| {
            ErrorReport::new(
                "internal",
                rea_core::Category::Internal,
                format!("could not print the {what}: {e}"),
            )
        })?
    } else {
        summary(doc)
    };
    match print_text(&(text + "\n")) {
        0 => Ok(()),
        _ => Err(ErrorReport::new(
            "output_write_failed",
            rea_core::Category::Output,
            "could not write the reply to stdout",
        )),
    }
}

/// Writes text to stdout; a closed pipe is an output failure.
pub(crate) fn print_text(text: &str) -> u8 {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => 0,
        Err(_) => rea_core::Category::Output.exit_code() as u8,
    }
}

/// Prints an error on stderr and returns its exit code.
pub(crate) fn fail(report: &ErrorReport, json: bool) -> u8 {
    let text = if json {
        serde_json::to_string(&report.to_json()).unwrap_or_else(|_| report.to_string())
    } else {
        error_text(report)
    };
    let _ = writeln!(std::io::stderr().lock(), "{text}");
    u8::try_from(report.category.exit_code()).unwrap_or(1)
}

/// How many listed issues text mode prints before counting the rest.
const SHOWN_ISSUES: usize = 5;

/// An error as readable text: code, category and message, the first issues
/// (pointer, then what was expected and what was found), a count of the
/// rest, and the guidance on its own line.
pub(crate) fn error_text(report: &ErrorReport) -> String {
    let mut out = format!(
        "error: {} ({}): {}",
        report.code,
        report.category.as_str(),
        report.message
    );
    if let Some(Value::Array(issues)) = report.details.get("issues") {
        for issue in issues.iter().take(SHOWN_ISSUES) {
            let field = |k: &str| issue.get(k).and_then(Value::as_str).unwrap_or("");
            out.push_str(&format!("\n  {}: {}", field("pointer"), field("message")));
        }
        let total = report
            .details
            .get("issue_count")
            .and_then(Value::as_u64)
            .unwrap_or(issues.len() as u64);
        let shown = issues.len().min(SHOWN_ISSUES) as u64;
        if total > shown {
            out.push_str(&format!(
                "\n  … and {} more (all in `--json` details.issues, up to {})",
                total - shown,
                rea_core::har::MAX_LISTED_ISSUES
            ));
        }
    }
    if let Some(guidance) = &report.guidance {
        out.push_str(&format!("\nhint: {guidance}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_errors_list_the_first_issues_and_count_the_rest() {
        let issues: Vec<Value> = (0..8)
            .map(|i| json!({"pointer": format!("/log/entries/{i}/request"), "keyword": "required", "message": "required member \"method\" is missing"}))
            .collect();
        let report =
            ErrorReport::input("har_validation_failed", "the capture is not valid HAR 1.2")
                .detail("issue_count", 8u64)
                .detail("issues", Value::Array(issues))
                .guidance("Fix or re-export the capture.");
        let text = error_text(&report);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "error: har_validation_failed (input): the capture is not valid HAR 1.2"
        );
        assert_eq!(
            lines[1],
            "  /log/entries/0/request: required member \"method\" is missing"
        );
        assert_eq!(lines.len(), 1 + 5 + 1 + 1);
        assert!(lines[6].contains("and 3 more"), "{}", lines[6]);
        assert_eq!(lines[7], "hint: Fix or re-export the capture.");
    }
}
