//! `rea environment-model CAPTURE [--json]`: decodes a capture (HAR or mitmproxy), infers
//! the app model (resources, write semantics, preconditions, validation,
//! errors, POST reads) and prints it (JSON) or a readable summary.

use super::output::{fail, print_document};
use rea_core::ErrorReport;
use rea_derivation::{environment_model, AppModel as Model};
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
    /// Print the model document as JSON (errors as JSON on stderr).
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
    let (evidence, left_out) = super::decode::evidence_for_serving_with(
        &args.capture_path,
        args.format.as_deref(),
        args.strict,
        &args.secrets.policy(),
    )?;
    super::decode::warn_left_out(&left_out, args.json);
    let model = environment_model(&evidence).map_err(|e| e.to_report())?;
    print_document(&model, args.json, true, "model", summary)
}

/// Resources with their routes, write semantics, conditions, rules, errors.
pub(crate) fn summary(m: &Model) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} ({}): {} records",
        m.name,
        m.origin,
        m.records.len()
    );
    let _ = writeln!(out, "resources:");
    for r in &m.resources {
        let keys: Vec<String> = r
            .keys
            .iter()
            .map(|k| format!("{}:{}→{}", k.location, k.name, k.entity_member))
            .collect();
        let _ = writeln!(
            out,
            "  {} [{}] {} {} keys {}",
            r.name,
            r.addressing,
            r.collection,
            r.item.as_deref().unwrap_or("-"),
            if keys.is_empty() {
                "-".into()
            } else {
                keys.join(", ")
            }
        );
        for o in &r.operations {
            let _ = writeln!(
                out,
                "    {} {} {} ({})",
                o.method, o.route, o.role, o.key_in
            );
        }
        for o in &r.inferred_operations {
            let _ = writeln!(
                out,
                "    {} {} {} (from sibling {})",
                o.method, o.route, o.role, o.from
            );
        }
    }
    let _ = writeln!(out, "writes:");
    for w in &m.writes {
        let _ = writeln!(
            out,
            "  {} {}: {} (answer {} {:?})",
            w.method, w.route, w.semantics, w.answer.body, w.answer.statuses
        );
    }
    let _ = writeln!(out, "conditions:");
    for v in &m.conditions.validators {
        let _ = writeln!(
            out,
            "  {} validator {} = {}",
            v.resource,
            v.header,
            v.member.as_deref().unwrap_or("-")
        );
    }
    for p in &m.conditions.preconditions {
        let _ = writeln!(
            out,
            "  {} {} {}: current {:?}, stale → {:?}",
            p.method, p.route, p.header, p.current_statuses, p.stale_status
        );
    }
    let _ = writeln!(out, "validation:");
    for r in &m.validation {
        let _ = writeln!(
            out,
            "  {} {}: {} {} → {}",
            r.method,
            r.route,
            r.kind,
            r.member.as_deref().unwrap_or("-"),
            r.status
        );
    }
    let _ = writeln!(out, "errors: shared members {:?}", m.errors.shared_members);
    for a in &m.errors.absence {
        let _ = writeln!(
            out,
            "  absence {}: {} (#{})",
            a.collection, a.basis, a.template_ordinal
        );
    }
    let _ = writeln!(out, "post reads:");
    for p in &m.post_reads {
        let _ = writeln!(
            out,
            "  {} {} ({} bodies)",
            p.method, p.route, p.distinct_bodies
        );
    }
    if let Some(d) = &m.document_store {
        let _ = writeln!(
            out,
            "document store: {} key {} revision {}; revision from {:?}",
            d.collections.join(" "),
            d.key_member,
            d.revision_member,
            d.revision_sources
        );
        for r in &d.rejected_sources {
            let _ = writeln!(out, "  rejected {} (#{:?})", r.source, r.contradicted_by);
        }
        for r in &d.rows {
            let _ = writeln!(out, "  rows {} {:?} {:?}", r.literal, r.params, r.numbers);
        }
        for s in &d.searches {
            let _ = writeln!(
                out,
                "  search {} operators {:?} sortable {:?}",
                s.literal, s.operators, s.sortable
            );
        }
        for (kind, e) in &d.evidence {
            let _ = writeln!(
                out,
                "  {kind}: {} supported, {} contradicted",
                e.supported_by.len(),
                e.contradicted_by.len()
            );
        }
    }
    for l in &m.limitations {
        let _ = writeln!(out, "limitation: {l}");
    }
    out.trim_end().to_string()
}
