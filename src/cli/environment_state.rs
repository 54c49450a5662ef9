//! `rea environment-state CAPTURE [--template-rule R]... [--json]`: decodes
//! a HAR capture, derives the environment state with the given template
//! rules and prints it (JSON) or a readable summary.

use super::output::{fail, print_document};
use rea_core::ErrorReport;
use rea_derivation::state::{environment_state, State, ViewPlan};
use rea_derivation::TemplateRule;
use std::fmt::Write as _;
use std::path::PathBuf;

/// The command's flags.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// The capture file (HAR, a native mitmproxy `.mitm`, or a `.saz` session archive).
    capture_path: PathBuf,
    /// The capture's format (`har`, `mitmproxy` or `saz`); detected by content when omitted.
    #[arg(long)]
    format: Option<String>,
    /// An opt-in template rule (after-uid-literal, opaque-token,
    /// sibling-pair-variance, sibling-variance, prefix-variance); repeatable;
    /// `none` for none. Default: all five, as `environment-serve` uses.
    #[arg(long = "template-rule", value_name = "R")]
    template_rules: Vec<String>,
    /// Print the state document as JSON (errors as JSON on stderr).
    #[arg(long)]
    json: bool,
    /// Refuse the capture when any entry fails validation, as inspection
    /// does (default: leave such entries out and list them on stderr).
    #[arg(long)]
    strict: bool,
    #[command(flatten)]
    secrets: super::secrets::SecretArgs,
}

/// Runs the command and returns the exit code.
pub(crate) fn run(args: Args) -> u8 {
    match execute(&args) {
        Ok(()) => 0,
        Err(e) => fail(&e, args.json),
    }
}

fn execute(args: &Args) -> Result<(), ErrorReport> {
    let given = crate::cli::pipeline::rules_or_default(&args.template_rules);
    let names: Vec<&str> = given.iter().map(String::as_str).collect();
    let rules = TemplateRule::parse_list(&names).map_err(|e| e.to_report())?;
    let (evidence, left_out) = super::decode::evidence_for_serving_with(
        &args.capture_path,
        args.format.as_deref(),
        args.strict,
        &args.secrets.policy(),
    )?;
    super::decode::warn_left_out(&left_out, args.json);
    let state = environment_state(&evidence, &rules).map_err(|e| e.to_report())?;
    print_document(&state, args.json, false, "state", summary)
}

/// Types with entity counts, view plans, write plans with verdicts.
pub(crate) fn summary(state: &State) -> String {
    let mut out = String::new();
    let rules = if state.template_rules.is_empty() {
        "none".to_string()
    } else {
        state.template_rules.join(", ")
    };
    let _ = writeln!(
        out,
        "{} ({}), template rules: {rules}",
        state.name, state.origin
    );
    let _ = writeln!(
        out,
        "timeline: {} records by {}, {} state-changing",
        state.timeline.len(),
        state.timeline_order,
        state.state_writes.len()
    );
    let _ = writeln!(out, "types:");
    if state.types.is_empty() {
        let _ = writeln!(out, "  -");
    }
    for t in &state.types {
        let count = state
            .entities
            .iter()
            .filter(|e| e.type_name == t.name)
            .count();
        let _ = writeln!(
            out,
            "  {}: {count} entities at {} (id {} by {}){}",
            t.name,
            t.collection_template,
            t.id_field,
            t.id_basis,
            if t.volatile_fields.is_empty() {
                String::new()
            } else {
                format!(", volatile {}", t.volatile_fields.join(", "))
            }
        );
    }
    let _ = writeln!(out, "documents: {}", state.documents.len());
    let _ = writeln!(out, "views:");
    for v in &state.views {
        let detail = match v {
            ViewPlan::Item(p) => format!("item of {} at {:?}", p.type_name, p.pointer),
            ViewPlan::List(p) => format!(
                "list of {} at {:?}, membership {}",
                p.type_name, p.pointer, p.membership
            ),
            ViewPlan::Document(p) => format!("document {}", p.path),
            ViewPlan::Recorded(p) => format!("recorded ({})", p.reason),
        };
        let _ = writeln!(out, "  {}: {detail}", v.tool());
    }
    let _ = writeln!(out, "writes:");
    if state.writes.is_empty() {
        let _ = writeln!(out, "  -");
    }
    for w in &state.writes {
        let reason = w.reason.map(|r| format!(" ({r})")).unwrap_or_default();
        let _ = writeln!(out, "  {}: {} {}{reason}", w.tool, w.effect, w.status);
    }
    out.trim_end().to_string()
}
