//! Protobuf and gRPC bodies of selected records: a source credential pass
//! over every selected body, then framing, schema-less wire facts and the
//! optional schema interpretation, into the flat `protobuf` facet.
//!
//! # Layout
//! - `framing`: raw, gRPC, gRPC-web and gRPC-web-text frames.
//! - `wire`: one message level's wire facts and candidate readings.
//! - `schema`: `prost-reflect` descriptor loading and field interpretation.
//! - `facet`: the Evidence facet types.
//! - `bodies`: where a HAR record's bodies, content types and codings are.

pub mod bodies;
pub mod facet;
pub mod framing;
pub mod schema;
pub mod wire;

use crate::error::{Category, ErrorReport};
use crate::evidence::{Record, Redaction, RedactionReason, RedactionScope, OUTPUT_BUDGET_BYTES};
use crate::read::hex;
use crate::redact::{Declared, CREDENTIAL_HEADERS};
use bodies::{Body, Mime};
use facet::*;
use framing::Framing;
use prost_reflect::MessageDescriptor;
use sha2::{Digest, Sha256};
use std::path::PathBuf;

/// The wire reader's name in facts.
pub const PARSER_NAME: &str = "rea-protobuf";
/// Schema-driven nesting stops at this many levels (the capture budget).
pub const MAX_NESTING: u32 = 64;
/// Conservative charge per fact against the 96 MiB report budget.
pub const FACT_CHARGE: usize = 512;

/// The caller's protobuf choices.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProtobufOptions {
    pub schema: Option<SchemaOptions>,
    /// Exact binary body pointers to decode as one batch (`None`: every body).
    pub body_pointers: Option<Vec<String>>,
    /// An explicit framing for bodies whose MIME metadata does not decide it.
    pub framing: Option<String>,
    /// The caller's cancellation, polled between bounded work batches.
    pub cancel: Cancel,
}

/// A cancellation the decoding polls between bounded work batches (one
/// body in the credential pass, one frame in field expansion). Options
/// compare equal whatever their cancellation.
#[derive(Clone, Default)]
pub struct Cancel(Option<std::sync::Arc<dyn Fn() -> bool + Send + Sync>>);

impl Cancel {
    /// Cancelled once `cancelled` says so.
    pub fn new(cancelled: impl Fn() -> bool + Send + Sync + 'static) -> Cancel {
        Cancel(Some(std::sync::Arc::new(cancelled)))
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.as_ref().is_some_and(|f| f())
    }
}

impl PartialEq for Cancel {
    fn eq(&self, _: &Cancel) -> bool {
        true
    }
}

impl Eq for Cancel {}

impl std::fmt::Debug for Cancel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Cancel(set)"
        } else {
            "Cancel(none)"
        })
    }
}

/// Why decoding stopped, and whether the source pass had finished: a
/// failure before every selected body was credential-checked must not
/// publish the records as partial Evidence.
#[derive(Debug)]
pub enum Failure {
    /// The credential pass did not finish (cancelled or out of time).
    SourceUnchecked(ErrorReport),
    /// A schema, capacity or cancellation failure after the source pass.
    AfterSourcePass(ErrorReport),
}

fn cancelled_error(stage: &str) -> ErrorReport {
    ErrorReport::new(
        "cancelled",
        Category::Unavailable,
        format!("the inspection was cancelled during {stage}"),
    )
    .detail("stage", stage)
    .guidance("Run the inspection again; nothing was published from the cancelled run.")
}

/// One batch boundary: stops when the caller cancelled or the deadline passed.
fn batch_boundary(
    options: &ProtobufOptions,
    deadline: Option<std::time::Instant>,
    stage: &str,
) -> Result<(), ErrorReport> {
    if options.cancel.is_cancelled() {
        return Err(cancelled_error(stage));
    }
    crate::har::check_deadline(deadline).map_err(|e| e.detail("stage", stage))
}

/// A local compiled descriptor set and an optional message type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaOptions {
    pub descriptor_set_path: PathBuf,
    pub message_type: Option<String>,
}

impl ProtobufOptions {
    /// Reads MCP's `protobuf: {schema: {descriptor_set_path, message_type},
    /// body_pointers, framing}`; unknown members are refused.
    pub fn from_json(value: &serde_json::Value) -> Result<ProtobufOptions, ErrorReport> {
        use serde_json::Value;
        let bad = |what: &str| {
            ErrorReport::input("invalid_argument", format!("protobuf.{what}"))
                .detail("argument", "protobuf")
        };
        let Value::Object(o) = value else {
            return Err(bad("must be an object"));
        };
        if let Some(k) = o
            .keys()
            .find(|k| !["schema", "body_pointers", "framing"].contains(&k.as_str()))
        {
            return Err(bad(&format!("{k} is not a known member")));
        }
        let schema = match o.get("schema") {
            None => None,
            Some(Value::Object(s)) => {
                if let Some(k) = s
                    .keys()
                    .find(|k| !["descriptor_set_path", "message_type"].contains(&k.as_str()))
                {
                    return Err(bad(&format!("schema.{k} is not a known member")));
                }
                let path = s
                    .get("descriptor_set_path")
                    .and_then(Value::as_str)
                    .filter(|p| !p.is_empty())
                    .ok_or_else(|| bad("schema.descriptor_set_path must be a non-empty string"))?;
                let message_type = match s.get("message_type") {
                    None => None,
                    Some(Value::String(m)) if !m.is_empty() => Some(m.clone()),
                    Some(_) => return Err(bad("schema.message_type must be a non-empty string")),
                };
                Some(SchemaOptions {
                    descriptor_set_path: PathBuf::from(path),
                    message_type,
                })
            }
            Some(_) => return Err(bad("schema must be an object")),
        };
        let body_pointers = match o.get("body_pointers") {
            None => None,
            Some(Value::Array(items)) => Some(
                items
                    .iter()
                    .map(|v| v.as_str().map(str::to_string))
                    .collect::<Option<Vec<String>>>()
                    .ok_or_else(|| bad("body_pointers must be an array of strings"))?,
            ),
            Some(_) => return Err(bad("body_pointers must be an array of strings")),
        };
        let framing = match o.get("framing") {
            None => None,
            Some(Value::String(f)) => Some(f.clone()),
            Some(_) => return Err(bad("framing must be a string")),
        };
        let options = ProtobufOptions {
            schema,
            body_pointers,
            framing,
            cancel: Cancel::default(),
        };
        check_options(&options)?;
        Ok(options)
    }
}

/// Checks the choices before any file is read.
pub fn check_options(options: &ProtobufOptions) -> Result<Option<Framing>, ErrorReport> {
    match &options.framing {
        None => Ok(None),
        Some(text) => Framing::parse(text).map(Some).ok_or_else(|| {
            ErrorReport::input(
                "invalid_argument",
                "protobuf framing must be raw, grpc, grpc-web or grpc-web-text",
            )
            .detail("argument", "protobuf_framing")
        }),
    }
}

/// The decoder's result once its Evidence is built: the Evidence, or the
/// protobuf failure that came after the source credential pass, carrying the
/// sanitized Evidence as `partial_evidence` (the source survives a later
/// schema or capacity failure).
pub(crate) fn evidence_or_failure(
    evidence: crate::evidence::Evidence,
    failure: Option<ErrorReport>,
) -> Result<crate::evidence::Evidence, ErrorReport> {
    match failure {
        Some(e) => Err(match serde_json::to_value(&evidence) {
            Ok(partial) => e.detail("partial_evidence", partial),
            Err(_) => e,
        }),
        None => Ok(evidence),
    }
}

/// The protobuf facet of the selected records, for every decoder's
/// Evidence: none without a selection (whole-capture inspection does no
/// protobuf work); a failure after the source credential pass leaves a
/// partial Evidence without protobuf facts (its error is returned beside);
/// a failure before it is the inspection's error, since bodies not yet
/// credential-checked are never published.
pub(crate) fn selected_facet(
    request: &crate::inspect::InspectRequest,
    records: &mut [Record],
    redactions: &mut Vec<Redaction>,
    limitations: &mut Vec<String>,
    declared: Declared<'_>,
    base_charge: usize,
    deadline: Option<std::time::Instant>,
) -> Result<(Option<ProtobufFacet>, Option<ErrorReport>), ErrorReport> {
    if request.record_ordinals.is_none() {
        return Ok((None, None));
    }
    match decode_selected(
        records,
        redactions,
        limitations,
        &request.protobuf,
        declared,
        base_charge,
        deadline,
    ) {
        Ok(facet) => Ok((Some(facet), None)),
        Err(Failure::SourceUnchecked(e)) => Err(e),
        Err(Failure::AfterSourcePass(e)) => {
            limitations.push("Protobuf decoding failed after the source credential pass; this partial Evidence holds the sanitized source records without protobuf facts.".to_string());
            Ok((None, Some(e)))
        }
    }
}

/// Decodes the protobuf bodies of the selected (already redacted) records.
/// `base_charge` is the decoder's original reply size, charged first.
/// Cancellation and the `deadline` are checked between bounded batches.
pub fn decode_selected(
    records: &mut [Record],
    redactions: &mut Vec<Redaction>,
    limitations: &mut Vec<String>,
    options: &ProtobufOptions,
    declared: Declared<'_>,
    base_charge: usize,
    deadline: Option<std::time::Instant>,
) -> Result<ProtobufFacet, Failure> {
    let override_framing = check_options(options).map_err(Failure::SourceUnchecked)?;
    decode_checked(
        records,
        redactions,
        limitations,
        options,
        declared,
        base_charge,
        deadline,
        override_framing,
    )
}

#[allow(clippy::too_many_arguments)]
fn decode_checked(
    records: &mut [Record],
    redactions: &mut Vec<Redaction>,
    limitations: &mut Vec<String>,
    options: &ProtobufOptions,
    declared: Declared<'_>,
    base_charge: usize,
    deadline: Option<std::time::Instant>,
    override_framing: Option<Framing>,
) -> Result<ProtobufFacet, Failure> {
    let after = Failure::AfterSourcePass;
    let mut found: Vec<Body> = Vec::new();
    for record in records.iter() {
        found.extend(
            bodies::locate(record)
                .into_iter()
                .filter(|b| override_framing.is_some() || b.is_candidate()),
        );
    }
    if let Some(pointers) = &options.body_pointers {
        for p in pointers {
            if !found.iter().any(|b| &b.pointer == p) {
                limitations.push(format!("Body pointer {p} names no format-owned body coordinate of the selected records; it was not decoded."));
            }
        }
        found.retain(|b| pointers.contains(&b.pointer));
    }
    // 1. The source credential pass, over every selected body, before any
    // descriptor is read or any field expanded.
    for body in found.iter_mut() {
        batch_boundary(options, deadline, "the source credential pass")
            .map_err(Failure::SourceUnchecked)?;
        credential_pass(body, records, redactions, declared, override_framing)
            .map_err(Failure::SourceUnchecked)?;
    }
    // 2. The descriptor.
    let schema = match &options.schema {
        None => None,
        Some(s) => Some(load_schema(s).map_err(after)?),
    };
    // 3. Frames and fields.
    let mut facet = ProtobufFacet {
        parser: Parser {
            name: PARSER_NAME.into(),
            version: env!("CARGO_PKG_VERSION").into(),
        },
        protobuf_coverage: Coverage {
            selected_records: records.len() as u64,
            inspected_records: 0,
            selected_bodies: found.len() as u64,
            interpreted_bodies: 0,
            status: "complete".into(),
        },
        descriptor: schema.as_ref().map(|(id, _, _)| id.clone()),
        bodies: Vec::new(),
        frames: Vec::new(),
        fields: Vec::new(),
    };
    let mut charged = base_charge;
    let mut inspected: Vec<u64> = Vec::new();
    for body in found {
        let ordinal = body.record_ordinal;
        let message = schema
            .as_ref()
            .and_then(|(_, pool, explicit)| match explicit {
                Some(m) => Some((m.clone(), "message-type")),
                None => body
                    .grpc_path
                    .as_deref()
                    .and_then(|p| schema::by_grpc_path(pool, p, body.direction == "response"))
                    .map(|m| (m, "grpc-path")),
            });
        let fact = decode_body(
            &body,
            override_framing,
            message,
            &mut facet,
            &mut charged,
            &mut || batch_boundary(options, deadline, "field expansion"),
        )
        .map_err(after)?;
        if fact.status == "uninterpreted" {
            limitations.push(format!(
                "Record {ordinal}'s body {} is uninterpreted: {}.",
                fact.pointer,
                fact.reason
                    .as_deref()
                    .unwrap_or("its metadata is not usable")
            ));
            facet.protobuf_coverage.status = "partial".into();
        } else if !inspected.contains(&ordinal) {
            inspected.push(ordinal);
        }
        if matches!(fact.status.as_str(), "decoded" | "malformed") {
            facet.protobuf_coverage.interpreted_bodies += 1;
        }
        facet.bodies.push(fact);
    }
    facet.protobuf_coverage.inspected_records = inspected.len() as u64;
    if facet.protobuf_coverage.inspected_records < facet.protobuf_coverage.selected_records
        && !found_all(records, &facet)
    {
        facet.protobuf_coverage.status = "partial".into();
    }
    Ok(facet)
}

/// Records with no protobuf body at all do not make coverage partial.
fn found_all(records: &[Record], facet: &ProtobufFacet) -> bool {
    records.iter().all(|r| {
        let has = facet.bodies.iter().any(|b| b.record_ordinal == r.ordinal);
        let uninterpreted = facet
            .bodies
            .iter()
            .any(|b| b.record_ordinal == r.ordinal && b.status == "uninterpreted");
        !has || !uninterpreted
    })
}

type Loaded = (
    DescriptorIdentity,
    prost_reflect::DescriptorPool,
    Option<MessageDescriptor>,
);

fn load_schema(options: &SchemaOptions) -> Result<Loaded, ErrorReport> {
    let bytes = std::fs::read(&options.descriptor_set_path).map_err(|e| schema::unreadable(&e))?;
    if bytes.len() > schema::MAX_DESCRIPTOR_BYTES {
        return Err(ErrorReport::new(
            "protobuf_schema_too_large",
            Category::ResourceConstraint,
            "the descriptor set is larger than the 32 MiB input budget",
        )
        .detail("argument", "protobuf_schema"));
    }
    let pool = schema::load(&bytes)?;
    let explicit = match &options.message_type {
        Some(name) => Some(schema::message(&pool, name)?),
        None => None,
    };
    let identity = DescriptorIdentity {
        sha256: hex(&Sha256::digest(&bytes)),
        size: bytes.len() as u64,
        message_type: options.message_type.clone(),
        interpreter: schema::INTERPRETER.into(),
        interpreter_version: schema::INTERPRETER_VERSION.into(),
        interpretation: "supplied-descriptor".into(),
    };
    Ok((identity, pool, explicit))
}

/// The framing the body's transport declares, for exclusions.
fn declared_framing(body: &Body) -> Option<Framing> {
    match &body.mime {
        Mime::One(essence) => Framing::from_content_type(essence),
        _ => None,
    }
}

/// Every framing the body's MIME metadata names (conflicting ones too).
fn named_framings(body: &Body) -> Vec<Framing> {
    match &body.mime {
        Mime::One(e) => Framing::from_content_type(e).into_iter().collect(),
        Mime::Conflicting(all) => all
            .iter()
            .filter_map(|e| Framing::from_content_type(e))
            .collect(),
        Mime::None | Mime::Excluded => Vec::new(),
    }
}

fn credential_pass(
    body: &mut Body,
    records: &mut [Record],
    redactions: &mut Vec<Redaction>,
    declared: Declared<'_>,
    override_framing: Option<Framing>,
) -> Result<(), ErrorReport> {
    let Some(bytes) = body.bytes.as_ref() else {
        return Ok(());
    };
    let transport = declared_framing(body);
    let mut named = named_framings(body);
    named.extend(override_framing);
    // A trailer-bearing transport, or metadata that cannot rule one out.
    let may_carry_trailers = matches!(body.mime, Mime::Excluded)
        || named
            .iter()
            .any(|f| matches!(f, Framing::GrpcWeb | Framing::GrpcWebText));
    if body.coding_unresolved && may_carry_trailers && !bytes.is_empty() {
        return Err(ErrorReport::new(
            "protobuf_credential_check_incomplete",
            Category::Unavailable,
            format!(
                "record {}'s body {} may carry gRPC-web trailer credentials under an HTTP coding rea cannot remove, so its credential check cannot complete",
                body.record_ordinal, body.pointer
            ),
        )
        .detail("record_ordinal", body.record_ordinal)
        .detail("body_pointer", body.pointer.clone())
        .guidance("Select other records or body_pointers, or inspect a capture whose producer removed the coding; no unchecked body is published."));
    }
    let mut reason = None;
    let text_layer = [transport, override_framing].contains(&Some(Framing::GrpcWebText))
        || named.contains(&Framing::GrpcWebText);
    let decoded = if text_layer {
        framing::decode_text(bytes).ok()
    } else {
        None
    };
    if decoded.as_ref().is_some_and(|d| declared.in_bytes(d)) {
        reason = Some(RedactionReason::SensitiveValue);
    }
    let web = named
        .iter()
        .any(|f| matches!(f, Framing::GrpcWeb | Framing::GrpcWebText));
    if reason.is_none() && web {
        let wire = decoded.as_deref().unwrap_or(bytes);
        let (frames, _) = framing::frames(wire, Framing::GrpcWeb);
        let leaked = frames.iter().filter(|f| f.kind == "trailer").any(|f| {
            let start = f.payload_offset as usize;
            let payload = &wire[start..start + f.payload_length as usize];
            trailer_has_credential(payload)
        });
        if leaked {
            reason = Some(RedactionReason::TransportCredential);
        }
    }
    if let Some(reason) = reason {
        exclude(body, records, redactions, reason);
    }
    Ok(())
}

/// A trailer block names a transport credential header.
pub fn trailer_has_credential(payload: &[u8]) -> bool {
    payload.split(|&b| b == b'\n').any(|line| {
        let name = line.split(|&b| b == b':').next().unwrap_or_default();
        let name = String::from_utf8_lossy(name).trim().to_ascii_lowercase();
        CREDENTIAL_HEADERS.contains(&name.as_str())
    })
}

fn exclude(
    body: &mut Body,
    records: &mut [Record],
    redactions: &mut Vec<Redaction>,
    reason: RedactionReason,
) {
    body.bytes = None;
    body.excluded = true;
    if let Some(record) = records
        .iter_mut()
        .find(|r| r.ordinal == body.record_ordinal)
    {
        record.binary_fields.retain(|f| f.pointer != body.pointer);
        let relative = &body.pointer[body.record_base.len()..];
        if let Some(v) = record.reported.pointer_mut(relative) {
            *v = serde_json::Value::Null;
        }
        let parent = relative.rsplit_once('/').map_or("", |p| p.0).to_string();
        if let Some(serde_json::Value::Object(o)) = record.reported.pointer_mut(&parent) {
            if let Some(e) = o.get_mut("encoding") {
                *e = serde_json::Value::Null;
            }
        }
    }
    redactions.push(Redaction {
        pointer: body.pointer.clone(),
        record_ordinal: Some(body.record_ordinal),
        scope: RedactionScope::Field,
        reason,
    });
}

fn charge(charged: &mut usize, amount: usize) -> Result<(), ErrorReport> {
    *charged += amount;
    if *charged > OUTPUT_BUDGET_BYTES {
        return Err(ErrorReport::new(
            "protobuf_capacity_exceeded",
            Category::ResourceConstraint,
            format!("protobuf facts would pass the {OUTPUT_BUDGET_BYTES} byte report budget"),
        )
        .detail("budget_bytes", OUTPUT_BUDGET_BYTES as u64)
        .guidance("Select fewer records or body pointers, or decode without a schema; the budget has no override."));
    }
    Ok(())
}

fn decode_body(
    body: &Body,
    override_framing: Option<Framing>,
    message: Option<(MessageDescriptor, &'static str)>,
    facet: &mut ProtobufFacet,
    charged: &mut usize,
    boundary: &mut dyn FnMut() -> Result<(), ErrorReport>,
) -> Result<BodyFact, ErrorReport> {
    boundary()?;
    charge(charged, FACT_CHARGE)?;
    let (content_type, mime_framing, mime_problem) = match &body.mime {
        Mime::One(e) => (Some(e.clone()), Framing::from_content_type(e), None),
        Mime::None => (None, None, None),
        Mime::Excluded => (None, None, Some("its content-type metadata is excluded")),
        Mime::Conflicting(_) => (None, None, Some("its content-type metadata conflicts")),
    };
    let (framing, source) = match (override_framing, mime_framing) {
        (Some(f), _) => (Some(f), Some("override")),
        (None, Some(f)) => (Some(f), Some("content-type")),
        (None, None) => (None, None),
    };
    let mut fact = BodyFact {
        record_ordinal: body.record_ordinal,
        pointer: body.pointer.clone(),
        direction: body.direction.into(),
        content_type,
        framing: framing.map(|f| f.as_str().into()),
        framing_source: source.map(Into::into),
        offset_basis: framing.unwrap_or(Framing::Raw).offset_basis().into(),
        status: "decoded".into(),
        reason: None,
        size: 0,
        grpc_path: body.grpc_path.clone(),
        message_type: message.as_ref().map(|(m, _)| m.full_name().to_string()),
        message_source: message.as_ref().map(|(_, s)| (*s).to_string()),
        error: None,
        frame_count: 0,
        field_count: 0,
    };
    let set = |fact: &mut BodyFact, status: &str, reason: &str| {
        fact.status = status.into();
        fact.reason = Some(reason.into());
    };
    if body.excluded {
        set(
            &mut fact,
            "excluded",
            "the body is excluded from the source Evidence",
        );
        return Ok(fact);
    }
    let Some(framing) = framing else {
        set(
            &mut fact,
            "uninterpreted",
            mime_problem.unwrap_or("no framing is known"),
        );
        return Ok(fact);
    };
    if let Some(coding) = &body.coding_problem {
        set(&mut fact, "unknown", coding);
        return Ok(fact);
    }
    let Some(raw) = body.bytes.as_deref() else {
        set(
            &mut fact,
            "unknown",
            body.bytes_problem
                .unwrap_or("the recording does not establish the body bytes"),
        );
        return Ok(fact);
    };
    let decoded;
    let bytes: &[u8] = if framing == Framing::GrpcWebText {
        match framing::decode_text(raw) {
            Ok(d) => {
                decoded = d;
                &decoded
            }
            Err(at) => {
                fact.status = "malformed".into();
                fact.size = raw.len() as u64;
                fact.error = Some(error_fact(
                    "invalid-base64-chunk",
                    at,
                    format!("a grpc-web-text chunk is not padded base64 (text offset {at})"),
                ));
                return Ok(fact);
            }
        }
    } else {
        raw
    };
    fact.size = bytes.len() as u64;
    let (frames, frame_error) = framing::frames(bytes, framing);
    let mut field_count = 0u64;
    for frame in &frames {
        boundary()?;
        charge(charged, FACT_CHARGE)?;
        let payload = &bytes
            [frame.payload_offset as usize..(frame.payload_offset + frame.payload_length) as usize];
        let mut ff = FrameFact {
            record_ordinal: body.record_ordinal,
            body_pointer: body.pointer.clone(),
            frame_index: frame.index,
            offset: frame.offset,
            flags: frame.flags,
            kind: frame.kind.into(),
            compressed: frame.compressed,
            payload_offset: frame.payload_offset,
            payload_length: frame.payload_length,
            status: "decoded".into(),
            trailer: None,
            error: None,
        };
        if frame.kind == "trailer" {
            ff.status = "trailer".into();
            ff.trailer = std::str::from_utf8(payload).ok().map(str::to_string);
            charge(charged, payload.len() * 2)?;
        } else if frame.compressed {
            ff.status = "unknown".into();
        } else {
            let mut ctx = Ctx {
                ordinal: body.record_ordinal,
                pointer: &body.pointer,
                frame_index: frame.index,
                whole: bytes,
                out: &mut facet.fields,
                charged,
                level_error: None,
            };
            let scan = emit_level(
                &mut ctx,
                wire::scan(payload, frame.payload_offset),
                message.as_ref().map(|m| &m.0),
                None,
                0,
            )?;
            field_count += scan;
            if let Some(e) = ctx.level_error.take() {
                ff.status = "malformed".into();
                fact.status = "malformed".into();
                fact.error
                    .get_or_insert_with(|| error_fact(e.kind, e.offset, e.message()));
                ff.error = Some(error_fact(e.kind, e.offset, e.message()));
            }
        }
        facet.frames.push(ff);
    }
    if let Some(e) = frame_error {
        fact.status = "malformed".into();
        fact.error = Some(error_fact(e.kind, e.offset, e.message()));
    }
    let data: Vec<&framing::Frame> = frames.iter().filter(|f| f.kind != "trailer").collect();
    if fact.status == "decoded" && !data.is_empty() && data.iter().all(|f| f.compressed) {
        set(
            &mut fact,
            "unknown",
            "every data frame is compressed (grpc-encoding); compressed frames are not decoded",
        );
    }
    fact.frame_count = frames.len() as u64;
    fact.field_count = field_count;
    Ok(fact)
}

/// A conservative size of one interpreted value (strings twice over).
fn value_charge(v: &serde_json::Value) -> usize {
    match v {
        serde_json::Value::String(t) => t.len() * 2 + 16,
        serde_json::Value::Array(items) => items.iter().map(value_charge).sum::<usize>() + 16,
        serde_json::Value::Object(o) => o.values().map(value_charge).sum::<usize>() + 64,
        _ => 32,
    }
}

fn error_fact(kind: &str, offset: u64, message: String) -> ErrorFact {
    ErrorFact {
        kind: kind.into(),
        offset,
        message,
    }
}

struct Ctx<'a> {
    ordinal: u64,
    pointer: &'a str,
    frame_index: u64,
    whole: &'a [u8],
    out: &'a mut Vec<FieldFact>,
    charged: &'a mut usize,
    level_error: Option<wire::WireError>,
}

/// The field facts of one unframed message (offsets from 0), with or
/// without a schema, and its top-level wire error. Used by benches and
/// adapters that hold a single message.
pub fn message_fields(
    bytes: &[u8],
    message: Option<&MessageDescriptor>,
) -> Result<(Vec<FieldFact>, Option<wire::WireError>), ErrorReport> {
    let mut out = Vec::new();
    let mut charged = 0usize;
    let mut ctx = Ctx {
        ordinal: 0,
        pointer: "",
        frame_index: 0,
        whole: bytes,
        out: &mut out,
        charged: &mut charged,
        level_error: None,
    };
    emit_level(&mut ctx, wire::scan(bytes, 0), message, None, 0)?;
    let error = ctx.level_error.take();
    Ok((out, error))
}

/// Emits one message level's facts (and, under a schema, its nested
/// messages' facts); returns how many facts were emitted. The top level's
/// wire error is left in `ctx.level_error`; nested ones stay local.
fn emit_level(
    ctx: &mut Ctx<'_>,
    scan: wire::Scan,
    message: Option<&MessageDescriptor>,
    parent: Option<u64>,
    depth: u32,
) -> Result<u64, ErrorReport> {
    let mut count = 0u64;
    // Groups open on this level (the wire scan checked their nesting): the
    // field number, and for a schema-driven group its start-group field id
    // and its message (`None` past the nesting budget).
    type Open = (u32, Option<(u64, Option<MessageDescriptor>)>);
    let mut groups: Vec<Open> = Vec::new();
    for field in &scan.fields {
        charge(ctx.charged, FACT_CHARGE)?;
        // The end-group tag closes its group and belongs to the outer level.
        if field.wire_type == wire::WireType::EndGroup
            && groups.last().is_some_and(|g| g.0 == field.number)
        {
            groups.pop();
        }
        let expanded = groups.iter().filter(|g| g.1.is_some()).count() as u32;
        let (message, parent, depth) = match groups.iter().rev().find_map(|g| g.1.as_ref()) {
            Some((id, m)) => (m.as_ref(), Some(*id), depth + expanded),
            None => (message, parent, depth),
        };
        let start = field.value_offset as usize;
        let value = &ctx.whole[start..start + field.value_length as usize];
        let mut fact = FieldFact {
            record_ordinal: ctx.ordinal,
            body_pointer: ctx.pointer.to_string(),
            field_id: field.offset,
            frame_index: ctx.frame_index,
            parent_field_id: parent,
            depth,
            offset: field.offset,
            number: field.number,
            wire_type: field.wire_type.as_str().into(),
            value_offset: field.value_offset,
            value_length: field.value_length,
            value: field.raw.map(|v| v.to_string()),
            candidates: None,
            text: None,
            schema_name: None,
            schema_type: None,
            schema_value: None,
            schema_status: None,
            schema_error: None,
            enum_aliases: None,
        };
        if field.wire_type == wire::WireType::Len {
            let c = wire::candidates(value);
            fact.candidates = Some(CandidatesFact {
                text: c.text,
                nested_message: c.nested_message.then_some(Range {
                    offset: field.value_offset,
                    length: field.value_length,
                }),
                packed_varints: c.packed_varints,
                packed_fixed32: c.packed_fixed32,
                packed_fixed64: c.packed_fixed64,
            });
            if c.text {
                charge(ctx.charged, value.len() * 2)?;
                fact.text = std::str::from_utf8(value).ok().map(str::to_string);
            }
        }
        let mut nested = None;
        let mut pushed = false;
        if let Some(m) = message {
            let mut reading = schema::read(m, field, value);
            if let Some(v) = &reading.value {
                charge(ctx.charged, value_charge(v))?;
            }
            fact.schema_name = reading.name;
            fact.schema_type = reading.type_name;
            fact.schema_value = reading.value;
            fact.schema_status = Some(reading.status.into());
            fact.schema_error = reading.error;
            fact.enum_aliases = reading.aliases;
            if field.wire_type == wire::WireType::StartGroup {
                let inner = reading.nested.take();
                let open = if inner.is_some() && depth + 1 >= MAX_NESTING {
                    fact.schema_status = Some("nesting-too-deep".into());
                    fact.schema_error = Some(format!(
                        "schema-driven nesting passes the {MAX_NESTING}-level budget; the group's fields are not interpreted"
                    ));
                    Some((field.offset, None))
                } else {
                    inner.map(|m| (field.offset, Some(m)))
                };
                groups.push((field.number, open));
                pushed = true;
            } else if let Some(inner) = reading.nested {
                let inner_scan = wire::scan(value, field.value_offset);
                if let Some(e) = inner_scan.error {
                    fact.schema_status = Some("invalid-message".into());
                    fact.schema_error = Some(format!(
                        "the value is not a valid {} message: {}",
                        inner.full_name(),
                        e.message()
                    ));
                } else if depth + 1 >= MAX_NESTING {
                    fact.schema_status = Some("nesting-too-deep".into());
                    fact.schema_error = Some(format!(
                        "schema-driven nesting passes the {MAX_NESTING}-level budget; inner fields are not expanded"
                    ));
                } else {
                    nested = Some((inner, inner_scan));
                }
            }
        }
        if field.wire_type == wire::WireType::StartGroup && !pushed {
            groups.push((field.number, None));
        }
        ctx.out.push(fact);
        count += 1;
        if let Some((inner, inner_scan)) = nested {
            count += emit_level(ctx, inner_scan, Some(&inner), Some(field.offset), depth + 1)?;
        }
    }
    if parent.is_none() {
        ctx.level_error = scan.error;
    }
    Ok(count)
}

#[cfg(test)]
mod tests;
