//! The typed `protobuf` facet of Evidence: flat body, frame and field
//! facts plus `protobuf_coverage`, the descriptor identity and the parser.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Every protobuf fact of one inspection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProtobufFacet {
    pub parser: Parser,
    pub protobuf_coverage: Coverage,
    /// The supplied descriptor, when a schema was given.
    pub descriptor: Option<DescriptorIdentity>,
    pub bodies: Vec<BodyFact>,
    pub frames: Vec<FrameFact>,
    pub fields: Vec<FieldFact>,
}

/// The wire reader and the schema interpreter that produced the facts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Parser {
    pub name: String,
    pub version: String,
}

/// How much of the selection was decoded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coverage {
    pub selected_records: u64,
    pub inspected_records: u64,
    pub selected_bodies: u64,
    pub interpreted_bodies: u64,
    /// `complete` or `partial`: partial facts never establish absence.
    pub status: String,
}

/// The descriptor set a schema interpretation used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DescriptorIdentity {
    /// Lowercase hex SHA-256 of the descriptor set file.
    pub sha256: String,
    pub size: u64,
    /// The caller's `message_type`, if given.
    pub message_type: Option<String>,
    pub interpreter: String,
    pub interpreter_version: String,
    /// Always `supplied-descriptor`: not the sender's actual schema.
    pub interpretation: String,
}

/// One selected body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BodyFact {
    pub record_ordinal: u64,
    /// The body's binary sidecar pointer (the source).
    pub pointer: String,
    /// `request` or `response`.
    pub direction: String,
    pub content_type: Option<String>,
    pub framing: Option<String>,
    /// `content-type` or `override`.
    pub framing_source: Option<String>,
    pub offset_basis: String,
    /// `decoded`, `malformed`, `unknown`, `excluded` or `uninterpreted`.
    pub status: String,
    pub reason: Option<String>,
    /// Size of the bytes offsets count in.
    pub size: u64,
    pub grpc_path: Option<String>,
    pub message_type: Option<String>,
    /// `message-type` (the caller's) or `grpc-path` (resolved method).
    pub message_source: Option<String>,
    pub error: Option<ErrorFact>,
    pub frame_count: u64,
    pub field_count: u64,
}

/// A malformed prefix's end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorFact {
    pub kind: String,
    pub offset: u64,
    pub message: String,
}

/// One frame of a body (raw bodies have one `raw` frame).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrameFact {
    pub record_ordinal: u64,
    pub body_pointer: String,
    pub frame_index: u64,
    pub offset: u64,
    pub flags: u8,
    /// `data`, `trailer` or `raw`.
    pub kind: String,
    pub compressed: bool,
    pub payload_offset: u64,
    pub payload_length: u64,
    /// `decoded`, `malformed`, `unknown` (compressed) or `trailer`.
    pub status: String,
    /// A trailer frame's text, when it is UTF-8 and not excluded.
    pub trailer: Option<String>,
    pub error: Option<ErrorFact>,
}

/// One field occurrence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldFact {
    pub record_ordinal: u64,
    pub body_pointer: String,
    /// Body-scoped: the tag's byte offset in the offset basis.
    pub field_id: u64,
    pub frame_index: u64,
    /// The enclosing schema-driven message field, if any.
    pub parent_field_id: Option<u64>,
    pub depth: u32,
    pub offset: u64,
    pub number: u32,
    pub wire_type: String,
    pub value_offset: u64,
    pub value_length: u64,
    /// Exact unsigned decimal of a varint or fixed-width value.
    pub value: Option<String>,
    /// Candidate readings of a length-delimited value (none chosen).
    pub candidates: Option<CandidatesFact>,
    /// The UTF-8 text candidate.
    pub text: Option<String>,
    pub schema_name: Option<String>,
    pub schema_type: Option<String>,
    pub schema_value: Option<Value>,
    /// `ok`, `unknown-field`, `wire-type-mismatch`, `invalid-message`,
    /// `invalid-string` or `nesting-too-deep`.
    pub schema_status: Option<String>,
    pub schema_error: Option<String>,
    /// Every name of the enum value's number, when it has more than one.
    pub enum_aliases: Option<Vec<String>>,
}

/// Candidate readings of one length-delimited value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CandidatesFact {
    pub text: bool,
    /// The value's range when it scans as one message level (not expanded).
    pub nested_message: Option<Range>,
    pub packed_varints: Option<u64>,
    pub packed_fixed32: Option<u64>,
    pub packed_fixed64: Option<u64>,
}

/// A byte range in the body's offset basis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Range {
    pub offset: u64,
    pub length: u64,
}

impl ProtobufFacet {
    /// Counts for capture previews and summaries.
    pub fn counts(&self) -> Value {
        serde_json::json!({
            "bodies": self.bodies.len(),
            "frames": self.frames.len(),
            "fields": self.fields.len(),
            "protobuf_coverage": self.protobuf_coverage,
        })
    }
}
