//! `rea environment-manifest CAPTURE [--template-rule R]... [--query-parameter-names] [--json]`:
//! decodes a capture and derives its environment manifest in one go.

use super::output::{fail, print_json, print_text};
use rea_core::ErrorReport;
use rea_derivation::manifest::Manifest;
use rea_derivation::TemplateRule;
use std::path::PathBuf;

#[derive(clap::Args)]
pub(crate) struct Args {
    /// The capture file (HAR, a native mitmproxy `.mitm`, or a `.saz` session archive).
    capture: PathBuf,
    /// The capture's format (`har`, `mitmproxy` or `saz`); detected by content when omitted.
    #[arg(long)]
    format: Option<String>,
    /// An opt-in template rule; repeat for several (`after-uid-literal`,
    /// `opaque-token`, `sibling-pair-variance`, `sibling-variance`, `prefix-variance`);
    /// `none` for none. Default: all five, as `environment-serve` uses.
    #[arg(long = "template-rule", value_name = "RULE")]
    template_rules: Vec<String>,
    /// Include each tool's observed query parameter names.
    #[arg(long)]
    query_parameter_names: bool,
    /// Print the manifest JSON instead of a table of tools.
    #[arg(long)]
    json: bool,
    /// Refuse the capture when any entry fails validation, as inspection
    /// does (default: leave such entries out and list them on stderr).
    #[arg(long)]
    strict: bool,
}

pub(crate) fn run(args: &Args) -> u8 {
    match derive(args) {
        Ok(manifest) => {
            if args.json {
                match serde_json::to_value(&manifest) {
                    Ok(value) => print_json(&value, true),
                    Err(e) => fail(
                        &ErrorReport::new(
                            "output_error",
                            rea_core::Category::Output,
                            e.to_string(),
                        ),
                        true,
                    ),
                }
            } else {
                print_text(&table(&manifest))
            }
        }
        Err(report) => fail(&report, args.json),
    }
}

fn derive(args: &Args) -> Result<Manifest, ErrorReport> {
    let given = crate::cli::pipeline::rules_or_default(&args.template_rules);
    let names: Vec<&str> = given.iter().map(String::as_str).collect();
    let rules = TemplateRule::parse_list(&names)?;
    let (evidence, left_out) = crate::cli::decode::evidence_for_serving(
        &args.capture,
        args.format.as_deref(),
        args.strict,
    )?;
    crate::cli::decode::warn_left_out(&left_out, args.json);
    Ok(rea_derivation::environment_manifest(
        &evidence,
        &rules,
        args.query_parameter_names,
    )?)
}

/// A readable table: one line per tool, then the excluded groups.
pub(crate) fn table(m: &Manifest) -> String {
    let mut out = format!(
        "environment {} ({})  basis: {}\n",
        m.name, m.origin, m.basis
    );
    if !m.template_rules.is_empty() {
        out.push_str(&format!(
            "template rules: {}\n",
            m.template_rules.join(", ")
        ));
    }
    let width = m
        .tools
        .iter()
        .map(|t| t.name.len())
        .max()
        .unwrap_or(4)
        .max(4);
    out.push_str(&format!(
        "\n{:<width$}  {:<7}  {:<}  records\n",
        "tool", "method", "path"
    ));
    for t in &m.tools {
        out.push_str(&format!(
            "{:<width$}  {:<7}  {}  {}\n",
            t.name,
            t.method,
            t.path_template,
            t.record_ordinals.len()
        ));
    }
    if !m.excluded.is_empty() {
        out.push_str(&format!("\nexcluded ({}):\n", m.excluded.len()));
        for e in &m.excluded {
            out.push_str(&format!(
                "  {:<7} {}{}  {}\n",
                e.method, e.origin, e.path_template, e.reason
            ));
        }
    }
    for l in &m.limitations {
        out.push_str(&format!("\nlimitation: {l}\n"));
    }
    out
}
