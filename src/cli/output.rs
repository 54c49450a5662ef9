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
        format!("error: {report}")
    };
    let _ = writeln!(std::io::stderr().lock(), "{text}");
    u8::try_from(report.category.exit_code()).unwrap_or(1)
}
