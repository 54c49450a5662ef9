//! `rea inspect-analysis-view --source-file EVIDENCE.json --view '<view JSON>' [--json]`:
//! reads inspection Evidence (a file, or `-` for inline Evidence on stdin)
//! and answers one derived view over it.

use super::output::{fail, print_json};
use rea_core::{Category, ErrorReport};
use rea_derivation::analysis::analysis_view;
use rea_derivation::source::{evidence_from_file, evidence_inline, Source};
use rea_derivation::view::parse_view;
use serde_json::{json, Value};
use std::io::Read;
use std::path::PathBuf;

#[derive(clap::Args)]
pub(crate) struct Args {
    /// Evidence JSON written by `rea inspect-web-network-capture --json`;
    /// `-` reads the Evidence inline from stdin.
    #[arg(long, value_name = "EVIDENCE.json")]
    source_file: PathBuf,
    /// The view, e.g. '{"kind":"api-surface","offset":0,"limit":50}'.
    #[arg(long, value_name = "VIEW JSON")]
    view: String,
    /// Print one JSON document (errors as JSON on stderr).
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: &Args) -> u8 {
    match answer(args) {
        Ok(value) => print_json(&value, args.json),
        Err(report) => fail(&report, args.json),
    }
}

fn answer(args: &Args) -> Result<Value, Box<ErrorReport>> {
    let view_json: Value = serde_json::from_str(&args.view).map_err(|e| {
        ErrorReport::input("invalid_request", format!("--view is not JSON: {e}"))
            .detail("pointer", "")
    })?;
    let view = parse_view(&view_json).map_err(boxed)?;
    let inline = args.source_file.as_os_str() == "-";
    let evidence = if inline {
        let mut bytes = Vec::new();
        std::io::stdin().read_to_end(&mut bytes).map_err(|e| {
            ErrorReport::new(
                "stdin_unavailable",
                Category::Unavailable,
                format!("Could not read stdin: {e}"),
            )
        })?;
        evidence_inline(&bytes).map_err(boxed)?
    } else {
        let path = args.source_file.to_string_lossy().into_owned();
        // The spec's source object, checked the same way an MCP request is.
        Source::from_json(&json!({"kind": "evidence-file", "path": path})).map_err(boxed)?;
        let bytes = std::fs::read(&args.source_file).map_err(|e| {
            ErrorReport::new(
                "EvidenceFileError",
                Category::Unavailable,
                format!("Could not read the Evidence file: {e}"),
            )
            .detail("path", path.as_str())
            .detail("content_issues", json!([]))
        })?;
        evidence_from_file(&path, &bytes).map_err(boxed)?
    };
    analysis_view(&evidence, &view, inline).map_err(boxed)
}

fn boxed(e: impl Into<ErrorReport>) -> Box<ErrorReport> {
    Box::new(e.into())
}
