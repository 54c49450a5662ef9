//! `rea inspect-web-network-capture PATH FORMAT`: resolves the flags into
//! an `InspectRequest`, runs the inspection and prints the Evidence, its
//! summary, or a short human report.

use rea_core::error::scrub_text;
use rea_core::evidence::Evidence;
use rea_core::inspect::{check_format, DEFAULT_CAPTURE_TIMEOUT_MS};
use rea_core::recorded_url;
use rea_core::{inspect_web_network_capture, Category, Detail, ErrorReport, InspectRequest};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The command's flags, as written on the command line.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// The capture file.
    capture_path: PathBuf,
    /// The capture format: har or qlog (mitmproxy and saz are not decoded yet).
    format: String,
    /// Select a record by zero-based producer ordinal; repeat to keep an order.
    #[arg(long = "record", value_name = "N", allow_hyphen_values = true)]
    records: Vec<String>,
    /// Exclude every field containing this literal; repeatable; never written anywhere.
    #[arg(long = "sensitive-value", value_name = "V", allow_hyphen_values = true)]
    sensitive_values: Vec<String>,
    /// `complete` (default) prints the Evidence; `summary` prints identity and counts and needs --evidence_output.
    #[arg(long, value_name = "complete|summary", default_value = "complete")]
    detail: String,
    /// Write the complete selected Evidence to this file.
    #[arg(long = "evidence_output", alias = "evidence-output", value_name = "F")]
    evidence_output: Option<PathBuf>,
    /// Stop the inspection after this many milliseconds (default 30000); budgets stay fixed.
    #[arg(
        long = "capture_timeout_ms",
        alias = "capture-timeout-ms",
        value_name = "MS",
        allow_hyphen_values = true
    )]
    capture_timeout_ms: Option<String>,
    /// Print JSON (the Evidence, the summary, or the error on stderr).
    #[arg(long)]
    json: bool,
    /// A local compiled FileDescriptorSet (protoc --include_imports) for the selected records' protobuf bodies.
    #[arg(long = "protobuf-schema", value_name = "FILE")]
    protobuf_schema: Option<PathBuf>,
    /// The fully qualified message type to read bodies as (default: the method a gRPC path names).
    #[arg(long = "protobuf-message", value_name = "TYPE")]
    protobuf_message: Option<String>,
    /// Decode only this exact binary body pointer; repeatable (one batch).
    #[arg(long = "protobuf-body-pointer", value_name = "POINTER")]
    protobuf_body_pointers: Vec<String>,
    /// raw, grpc, grpc-web or grpc-web-text, when MIME metadata does not decide it.
    #[arg(long = "protobuf-framing", value_name = "FRAMING")]
    protobuf_framing: Option<String>,
}

/// Runs the command and returns the exit code.
pub(crate) fn run(args: Args) -> u8 {
    let json = args.json;
    let declared = args.sensitive_values.clone();
    match execute(args) {
        Ok(()) => 0,
        Err(e) => super::output::fail(&e.scrub(&declared), json),
    }
}

/// Writes bytes to stdout followed by a newline.
fn print_bytes(bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(bytes)?;
    stdout.write_all(b"\n")?;
    stdout.flush()
}

fn resolve(args: &Args) -> Result<(InspectRequest, Detail), ErrorReport> {
    check_format(&args.format)?;
    let detail = Detail::parse(&args.detail)?;
    if detail == Detail::Summary && args.evidence_output.is_none() {
        return Err(ErrorReport::input(
            "evidence_output_required",
            "--detail summary writes the complete Evidence to a file: add --evidence_output F",
        )
        .detail("argument", "evidence_output"));
    }
    let mut ordinals = Vec::with_capacity(args.records.len());
    for text in &args.records {
        let ordinal = text
            .parse::<u64>()
            .ok()
            .filter(|_| text.bytes().all(|b| b.is_ascii_digit()));
        match ordinal {
            Some(n) => ordinals.push(n),
            None => {
                return Err(ErrorReport::input(
                    "invalid_record_ordinal",
                    format!("--record takes a zero-based record ordinal, not {text:?}"),
                )
                .detail("argument", "record"))
            }
        }
    }
    let capture_timeout_ms = match &args.capture_timeout_ms {
        None => DEFAULT_CAPTURE_TIMEOUT_MS,
        Some(text) => text
            .parse::<u64>()
            .ok()
            .filter(|&ms| ms > 0)
            .ok_or_else(|| {
                ErrorReport::input(
                    "invalid_argument",
                    "--capture_timeout_ms takes a positive number of milliseconds",
                )
                .detail("argument", "capture_timeout_ms")
            })?,
    };
    if args.protobuf_message.is_some() && args.protobuf_schema.is_none() {
        return Err(ErrorReport::input(
            "invalid_argument",
            "--protobuf-message needs --protobuf-schema FILE",
        )
        .detail("argument", "protobuf_message"));
    }
    let protobuf = rea_core::protobuf::ProtobufOptions {
        schema: args
            .protobuf_schema
            .clone()
            .map(|path| rea_core::protobuf::SchemaOptions {
                descriptor_set_path: path,
                message_type: args.protobuf_message.clone(),
            }),
        body_pointers: (!args.protobuf_body_pointers.is_empty())
            .then(|| args.protobuf_body_pointers.clone()),
        framing: args.protobuf_framing.clone(),
        cancel: Default::default(),
    };
    rea_core::protobuf::check_options(&protobuf)?;
    let request = InspectRequest {
        capture_path: args.capture_path.clone(),
        format: args.format.clone(),
        record_ordinals: (!args.records.is_empty()).then_some(ordinals),
        sensitive_values: args.sensitive_values.clone(),
        detail,
        capture_timeout_ms,
        protobuf,
    };
    Ok((request, detail))
}

fn execute(args: Args) -> Result<(), ErrorReport> {
    let (request, detail) = resolve(&args)?;
    let evidence = inspect_web_network_capture(&request)?;
    let bytes = evidence.to_json_bytes()?;
    if let Some(path) = &args.evidence_output {
        std::fs::write(path, &bytes).map_err(|e| {
            ErrorReport::new(
                "output_write_failed",
                Category::Output,
                format!("could not write the Evidence file: {e}"),
            )
            .detail("evidence_output", path.display().to_string())
        })?;
    }
    let printed = match (detail, args.json) {
        (Detail::Complete, true) => print_bytes(&bytes),
        (Detail::Summary, true) => {
            let mut summary = evidence.summary();
            if let Some(path) = &args.evidence_output {
                // Like artifact.path: empty when it spells a declared value.
                let shown = path.display().to_string();
                let hidden = request
                    .sensitive_values
                    .iter()
                    .any(|v| shown.contains(v.as_str()));
                summary["evidence_output"] = if hidden { String::new() } else { shown }.into();
            }
            print_bytes(summary.to_string().as_bytes())
        }
        (_, false) => {
            let text = scrub_text(
                &human_summary(&evidence, args.evidence_output.as_ref()),
                &request.sensitive_values,
            );
            print_bytes(text.as_bytes())
        }
    };
    printed.map_err(|e| {
        ErrorReport::new(
            "output_write_failed",
            Category::Output,
            format!("could not write the reply: {e}"),
        )
    })
}

/// A few lines for people: records, methods, origins, redactions.
fn human_summary(evidence: &Evidence, output: Option<&PathBuf>) -> String {
    let mut methods: BTreeMap<String, usize> = BTreeMap::new();
    let mut origins: BTreeMap<String, usize> = BTreeMap::new();
    // qlog events are not HTTP requests: their facts line is below.
    for record in evidence.records.iter().filter(|_| evidence.qlog.is_none()) {
        let request = &record.reported["request"];
        let method = request["method"]
            .as_str()
            .unwrap_or("(excluded)")
            .to_string();
        *methods.entry(method).or_default() += 1;
        let origin = request["url"]
            .as_str()
            .and_then(|u| recorded_url::parse(u).ok())
            .map_or_else(|| "(no origin)".to_string(), |u| u.origin);
        *origins.entry(origin).or_default() += 1;
    }
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for r in &evidence.redactions {
        let reason = serde_json::to_value(r.reason)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        *reasons.entry(reason).or_default() += 1;
    }
    let list = |m: &BTreeMap<String, usize>| {
        m.iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let digest = evidence
        .artifact
        .sha256
        .as_deref()
        .map_or("(excluded)".to_string(), |d| {
            d[..12.min(d.len())].to_string()
        });
    let mut out = format!(
        "{} ({}, sha256 {}…): {} of {} records\nmethods: {}\norigins: {}\nredactions: {}{}",
        if evidence.artifact.path.is_empty() {
            "(path excluded)"
        } else {
            &evidence.artifact.path
        },
        evidence.capture.format,
        digest,
        evidence.capture.retained_records,
        evidence.capture.total_records,
        if methods.is_empty() {
            "-".to_string()
        } else {
            list(&methods)
        },
        if origins.is_empty() {
            "-".to_string()
        } else {
            list(&origins)
        },
        evidence.redactions.len(),
        if reasons.is_empty() {
            String::new()
        } else {
            format!(" ({})", list(&reasons))
        },
    );
    if let Some(qlog) = &evidence.qlog {
        let counts = qlog.counts();
        out.push_str(&format!(
            "\nqlog facts (every event): {} trace(s), {} stream(s), {} loss declaration(s), {} incomplete record(s)",
            counts["trace_count"], counts["stream_count"], counts["loss_declaration_count"], counts["incomplete_record_count"]
        ));
    }
    if let Some(path) = output {
        out.push_str(&format!("\nevidence written to {}", path.display()));
    }
    out
}
