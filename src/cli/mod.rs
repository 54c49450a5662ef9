//! Helpers every command shares: printing errors in the contract's shape
//! (one JSON object on stderr with `--json`, one readable line otherwise)
//! and writing replies.

pub(crate) mod inspect;
pub(crate) mod pipeline;
pub(crate) mod serve;

use rea_core::error::scrub_text;
use rea_core::ErrorReport;
use std::io::Write;

/// Prints an error and returns the exit code of its category.
pub(crate) fn fail(error: &ErrorReport, json: bool) -> i32 {
    let mut stderr = std::io::stderr().lock();
    if json {
        let _ = writeln!(stderr, "{}", error.to_json());
    } else {
        let _ = writeln!(stderr, "rea: {}", error.to_string().replace('\n', " "));
    }
    error.category.exit_code()
}

/// Writes bytes to stdout followed by a newline.
pub(crate) fn print_bytes(bytes: &[u8]) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(bytes)?;
    stdout.write_all(b"\n")?;
    stdout.flush()
}

/// The literals declared with `--sensitive-value`, read from the raw
/// arguments, so that even argument errors never repeat them.
pub(crate) fn declared_in_args() -> Vec<String> {
    let args: Vec<String> = std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        if let Some(v) = args[i].strip_prefix("--sensitive-value=") {
            out.push(v.to_string());
        } else if args[i] == "--sensitive-value" {
            if let Some(v) = args.get(i + 1) {
                out.push(v.clone());
                i += 1;
            }
        }
        i += 1;
    }
    out.retain(|v| !v.is_empty());
    out
}

/// Handles a clap parse failure: help and version print normally, every
/// other failure is an `invalid_argument` input error.
pub(crate) fn usage_error(e: clap::Error) -> i32 {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand) {
        let _ = e.print();
        return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand { 2 } else { 0 };
    }
    let json = std::env::args().any(|a| a == "--json");
    let rendered = e.render().to_string();
    let first = rendered.lines().next().unwrap_or("invalid arguments").trim_start_matches("error: ").to_string();
    let declared = declared_in_args();
    let report = ErrorReport::input("invalid_argument", scrub_text(&first, &declared))
        .guidance("Run `rea --help` or `rea <command> --help` for the accepted arguments.");
    fail(&report, json)
}
