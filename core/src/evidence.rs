//! The Evidence document (`docs/evidence.md`): the types every stage reads
//! and writes, its serialization under the 96 MiB output budget, and the
//! summary an adapter prints for `detail: "summary"`.

use crate::error::{Category, ErrorReport};
use crate::json::NumericLiteral;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::io;

/// The version string of this contract.
pub const EVIDENCE_VERSION: &str = "rea.evidence/1";
/// The operation that produces inspection Evidence.
pub const OPERATION: &str = "inspect_web_network_capture";
/// The largest serialized Evidence (or other decoder reply) rea produces: 96 MiB.
pub const OUTPUT_BUDGET_BYTES: usize = 96 * 1024 * 1024;

/// One inspection's Evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    pub evidence_version: String,
    pub operation: String,
    /// `sha256:<hex>` of the artifact, or `null` when the digest is declared sensitive.
    pub subject: Option<String>,
    pub basis: String,
    pub parameters: Parameters,
    pub artifact: Artifact,
    pub capture: Capture,
    pub records: Vec<Record>,
    pub redactions: Vec<Redaction>,
    pub limitations: Vec<String>,
    pub explanations: Vec<String>,
    /// The typed qlog facet: present exactly for `qlog` Evidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qlog: Option<crate::qlog::facet::QlogFacet>,
    /// The typed protobuf facet: present exactly when selected records were
    /// inspected for protobuf and gRPC bodies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protobuf: Option<crate::protobuf::facet::ProtobufFacet>,
}

/// The request, without declared sensitive values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Parameters {
    pub format: String,
    /// The caller's selection in its order, or `null` for every record.
    pub record_ordinals: Option<Vec<u64>>,
    /// `complete` or `summary`.
    pub detail: String,
    pub sensitive_value_count: usize,
}

/// The file the caller named and the snapshot that was decoded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Artifact {
    /// The path as given; empty when it contains a declared value.
    pub path: String,
    /// Lowercase hex SHA-256 of the snapshot; `null` when it contains a declared value.
    pub sha256: Option<String>,
    pub size: u64,
}

/// How the capture was decoded and what surrounds its records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Capture {
    pub format: String,
    pub decoder: Decoder,
    /// The document with its record collection replaced by `null`.
    pub container: Value,
    /// Where the records were, e.g. `/log/entries`.
    pub records_pointer: String,
    pub total_records: u64,
    pub retained_records: u64,
    /// Numeric sidecars of the container (outside the records).
    #[serde(default)]
    pub numeric_literals: Vec<NumericLiteral>,
}

/// The decoder's identity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decoder {
    pub name: String,
    pub version: String,
    /// The format profile, e.g. `har-1.2`.
    pub profile: String,
    /// The producer compatibility profile used for validation, if any
    /// (a declaration in the file, not proof of its origin).
    pub producer_profile: Option<String>,
}

/// One retained record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Zero-based producer ordinal.
    pub ordinal: u64,
    pub location: Location,
    /// The producer's record as written, with excluded values and unsafe numbers `null`.
    pub reported: Value,
    pub numeric_literals: Vec<NumericLiteral>,
    pub binary_fields: Vec<BinaryField>,
}

/// Where a record is in the capture.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Location {
    JsonPointer {
        pointer: String,
    },
    /// The archive members a SAZ record was read from, in ZIP directory order.
    ArchiveMembers {
        members: Vec<String>,
    },
    /// The coordinate would reveal a declared value.
    Unknown,
    /// A byte span of the file (a native mitmproxy flow's tnetstring).
    ByteRange {
        offset: u64,
        length: u64,
    },
}

/// The bytes of one body text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BinaryField {
    /// Absolute pointer of the text field.
    pub pointer: String,
    /// The producer's `encoding`, if any.
    pub encoding: Option<String>,
    /// True only for valid `base64` content: the described bytes are the body's.
    pub establishes_body_bytes: bool,
    pub size: u64,
    /// Lowercase hex SHA-256 of the described bytes; `null` when it contains a declared value.
    pub sha256: Option<String>,
    /// The exact bytes in standard base64, for native captures whose bytes
    /// are not in `reported` (absent for HAR, whose text is in `reported`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base64: Option<String>,
}

/// One excluded coordinate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Redaction {
    /// Absolute pointer into the capture file.
    pub pointer: String,
    /// The record it belongs to, or `null` for container fields.
    pub record_ordinal: Option<u64>,
    pub scope: RedactionScope,
    pub reason: RedactionReason,
}

/// What part of the coordinate was excluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RedactionScope {
    /// The value is `null`.
    Value,
    /// The URL's `userinfo@` span was removed; the rest is unchanged.
    Userinfo,
    /// The whole field is `null` (no safe span existed).
    Field,
    /// A member whose name holds a declared value was removed; the pointer is its parent.
    PropertyName,
}

/// Why it was excluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RedactionReason {
    TransportCredential,
    SensitiveValue,
}

/// A `Vec` writer that refuses to grow past a budget.
struct Bounded {
    bytes: Vec<u8>,
    budget: usize,
    exceeded: bool,
}

impl io::Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.bytes.len() + buf.len() > self.budget {
            self.exceeded = true;
            return Err(io::Error::other("output budget exceeded"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Serializes any reply under a byte budget; nothing partial is returned.
pub fn to_json_bytes_within<T: Serialize>(
    value: &T,
    budget: usize,
) -> Result<Vec<u8>, ErrorReport> {
    let mut out = Bounded {
        bytes: Vec::new(),
        budget,
        exceeded: false,
    };
    match serde_json::to_writer(&mut out, value) {
        Ok(()) => Ok(out.bytes),
        Err(_) if out.exceeded => Err(ErrorReport::new(
            "output_budget_exceeded",
            Category::Output,
            format!("the reply is larger than the {budget} byte output budget"),
        )
        .detail("budget_bytes", budget as u64)
        .guidance("Select fewer records with --record; the budget has no override.")),
        Err(e) => Err(ErrorReport::new(
            "internal",
            Category::Internal,
            format!("could not serialize the reply: {e}"),
        )),
    }
}

impl Evidence {
    /// The compact JSON of this Evidence, refused when over the 96 MiB output budget.
    pub fn to_json_bytes(&self) -> Result<Vec<u8>, ErrorReport> {
        to_json_bytes_within(self, OUTPUT_BUDGET_BYTES)
    }

    /// Identity and counts, for `detail: "summary"`.
    pub fn summary(&self) -> Value {
        let mut summary = json!({
            "evidence_version": self.evidence_version,
            "operation": self.operation,
            "subject": self.subject,
            "detail": "summary",
            "artifact": self.artifact,
            "format": self.capture.format,
            "decoder": self.capture.decoder,
            "total_records": self.capture.total_records,
            "retained_records": self.capture.retained_records,
            "record_ordinals": self.records.iter().map(|r| r.ordinal).collect::<Vec<_>>(),
            "redaction_count": self.redactions.len(),
            "sensitive_value_count": self.parameters.sensitive_value_count,
        });
        if let Some(qlog) = &self.qlog {
            summary["qlog"] = qlog.counts();
        }
        if let Some(protobuf) = &self.protobuf {
            summary["protobuf"] = protobuf.counts();
        }
        summary
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_over_the_budget_are_output_errors_with_nothing_partial() {
        let big = json!({"text": "x".repeat(1000)});
        let e = to_json_bytes_within(&big, 100).unwrap_err();
        assert_eq!(
            (e.code.as_str(), e.category),
            ("output_budget_exceeded", Category::Output)
        );
        assert_eq!(e.details["budget_bytes"], 100);
        assert_eq!(to_json_bytes_within(&big, 2000).unwrap().len(), 1011);
        assert_eq!(OUTPUT_BUDGET_BYTES, 100_663_296);
    }

    #[test]
    fn locations_use_their_kind_tags() {
        let known = Location::JsonPointer {
            pointer: "/log/entries/0".into(),
        };
        assert_eq!(
            serde_json::to_value(&known).unwrap(),
            json!({"kind": "json-pointer", "pointer": "/log/entries/0"})
        );
        assert_eq!(
            serde_json::to_value(Location::Unknown).unwrap(),
            json!({"kind": "unknown"})
        );
    }
}
