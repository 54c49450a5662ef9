//! One module per command, plus what commands share: printing results and
//! errors in the contract's shape (`output`), and turning argument errors
//! into the same contract.

pub(crate) mod analysis_view;
pub(crate) mod check;
pub(crate) mod decode;
pub(crate) mod environment_manifest;
pub(crate) mod environment_model;
pub(crate) mod environment_openapi;
pub(crate) mod environment_state;
pub(crate) mod inspect;
pub(crate) mod inspect_mcp;
pub(crate) mod logging;
pub(crate) mod output;
pub(crate) mod pipeline;
pub(crate) mod secrets;
pub(crate) mod serve;

use rea_core::error::scrub_text;
use rea_core::ErrorReport;

/// The literals declared with `--sensitive-value`, read from the raw
/// arguments, so that even argument errors never repeat them.
pub(crate) fn declared_in_args() -> Vec<String> {
    let args: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
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

/// Handles a clap parse failure: help and version print normally; every
/// other failure is an `invalid_argument` input error (JSON on stderr when
/// `--json` is among the arguments).
pub(crate) fn usage_error(e: clap::Error) -> u8 {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            return 0;
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            return 2;
        }
        _ => {}
    }
    let json = std::env::args().any(|a| a == "--json");
    let rendered = e.render().to_string();
    let first = rendered
        .lines()
        .next()
        .unwrap_or("invalid arguments")
        .trim_start_matches("error: ")
        .to_string();
    let report = ErrorReport::input("invalid_argument", scrub_text(&first, &declared_in_args()))
        .guidance("Run `rea --help` or `rea <command> --help` for the accepted arguments.");
    output::fail(&report, json)
}
