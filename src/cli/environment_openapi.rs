//! `rea environment-openapi CAPTURE [--json|--yaml]`: builds the environment
//! as `environment-serve` would (same template rules by default) and prints
//! its OpenAPI 3.1 document, also served at `/_rea/openapi.json`.

use super::output::{fail, print_text};
use rea_core::ErrorReport;
use std::path::PathBuf;

#[derive(clap::Args)]
pub(crate) struct Args {
    /// The capture (a HAR file, a native mitmproxy `.mitm`, or a `.saz` session archive).
    capture: PathBuf,
    /// The capture's format (`har`, `mitmproxy` or `saz`); detected by content when omitted.
    #[arg(long)]
    format: Option<String>,
    /// An opt-in template rule (repeatable); `none` for none. Default: all
    /// five, as `environment-serve` uses.
    #[arg(long = "template-rule", value_name = "RULE")]
    template_rules: Vec<String>,
    /// Print JSON (the default; errors as JSON on stderr).
    #[arg(long, conflicts_with = "yaml")]
    json: bool,
    /// Print YAML.
    #[arg(long)]
    yaml: bool,
    /// Refuse the capture when any entry fails validation.
    #[arg(long)]
    strict: bool,
}

pub(crate) fn run(args: &Args) -> u8 {
    match render(args) {
        Ok(text) => print_text(&text),
        Err(report) => fail(&report, args.json),
    }
}

fn render(args: &Args) -> Result<String, ErrorReport> {
    let rules = crate::cli::pipeline::rules_or_default(&args.template_rules);
    let (env, left_out) = crate::cli::pipeline::build(
        &args.capture,
        args.format.as_deref(),
        &rules,
        None,
        None,
        args.strict,
        None,
        &rea_core::secrets::SecretPolicy::default(),
        &mut |_| {},
    )?;
    crate::cli::decode::warn_left_out(&left_out, args.json);
    let doc = rea_serve::openapi_document(&env);
    let output = |e: String| ErrorReport::new("output_error", rea_core::Category::Output, e);
    if args.yaml {
        serde_norway::to_string(&doc).map_err(|e| output(e.to_string()))
    } else {
        serde_json::to_string_pretty(&doc)
            .map(|t| t + "\n")
            .map_err(|e| output(e.to_string()))
    }
}
