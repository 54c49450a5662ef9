//! Schema interpretation under a caller-supplied compiled
//! `FileDescriptorSet`, read with `prost-reflect` (imports required): the
//! descriptor identity, message resolution from a gRPC path, and one
//! field's interpretation beside its unchanged wire facts.

use super::wire::{WireField, WireType};
use crate::error::{Category, ErrorReport};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use prost_reflect::{DescriptorPool, FieldDescriptor, Kind, MessageDescriptor};
use serde_json::{json, Value};

/// The interpreter's name and version in body facts.
pub const INTERPRETER: &str = "prost-reflect";
pub const INTERPRETER_VERSION: &str = "0.16";
/// The largest descriptor set read (the capture input budget).
pub const MAX_DESCRIPTOR_BYTES: usize = 32 * 1024 * 1024;

/// Builds the pool; a set without its imports is refused.
pub fn load(bytes: &[u8]) -> Result<DescriptorPool, ErrorReport> {
    let invalid = |why: String| {
        ErrorReport::input(
            "protobuf_schema_invalid",
            format!("the descriptor set is not a complete compiled FileDescriptorSet: {why}"),
        )
        .detail("argument", "protobuf_schema")
        .guidance("Compile it with protoc --include_imports --descriptor_set_out=FILE; every import must be inside the set. rea never fetches schemas.")
    };
    // prost-reflect 0.16 can panic while describing an error in a malformed
    // set (an out-of-bounds file index; fuzz finding). Such a set is refused
    // like any other invalid one.
    match std::panic::catch_unwind(|| DescriptorPool::decode(bytes)) {
        Ok(decoded) => decoded.map_err(|e| invalid(e.to_string())),
        Err(_) => Err(invalid("its references are inconsistent".to_string())),
    }
}

/// The caller's fully qualified message type.
pub fn message(pool: &DescriptorPool, name: &str) -> Result<MessageDescriptor, ErrorReport> {
    pool.get_message_by_name(name.trim_start_matches('.'))
        .ok_or_else(|| {
            ErrorReport::input(
                "protobuf_message_type_unknown",
                format!("the descriptor set defines no message type {name:?}"),
            )
            .detail("argument", "protobuf_message")
            .guidance("Give the fully qualified name, e.g. package.Message, of a message in the supplied set.")
        })
}

/// The method a gRPC path `/package.Service/Method` names: its input type
/// for requests, output type for responses.
pub fn by_grpc_path(
    pool: &DescriptorPool,
    path: &str,
    response: bool,
) -> Option<MessageDescriptor> {
    let rest = path.strip_prefix('/')?;
    let (service, method) = rest.split_once('/')?;
    let service = pool.get_service_by_name(service)?;
    let method = service.methods().find(|m| m.name() == method)?;
    Some(if response {
        method.output()
    } else {
        method.input()
    })
}

/// One field read through the schema.
#[derive(Debug, Clone, Default)]
pub struct Reading {
    pub name: Option<String>,
    pub type_name: Option<String>,
    pub value: Option<Value>,
    pub status: &'static str,
    pub error: Option<String>,
    pub aliases: Option<Vec<String>>,
    /// The nested message type to expand, for message fields.
    pub nested: Option<MessageDescriptor>,
}

fn kind_name(kind: &Kind) -> String {
    match kind {
        Kind::Double => "double".into(),
        Kind::Float => "float".into(),
        Kind::Int32 => "int32".into(),
        Kind::Int64 => "int64".into(),
        Kind::Uint32 => "uint32".into(),
        Kind::Uint64 => "uint64".into(),
        Kind::Sint32 => "sint32".into(),
        Kind::Sint64 => "sint64".into(),
        Kind::Fixed32 => "fixed32".into(),
        Kind::Fixed64 => "fixed64".into(),
        Kind::Sfixed32 => "sfixed32".into(),
        Kind::Sfixed64 => "sfixed64".into(),
        Kind::Bool => "bool".into(),
        Kind::String => "string".into(),
        Kind::Bytes => "bytes".into(),
        Kind::Message(m) => m.full_name().to_string(),
        Kind::Enum(e) => e.full_name().to_string(),
    }
}

fn scalar_wire(kind: &Kind) -> Option<WireType> {
    match kind {
        Kind::Double | Kind::Fixed64 | Kind::Sfixed64 => Some(WireType::Fixed64),
        Kind::Float | Kind::Fixed32 | Kind::Sfixed32 => Some(WireType::Fixed32),
        Kind::String | Kind::Bytes | Kind::Message(_) => None,
        _ => Some(WireType::Varint),
    }
}

fn float(v: f64) -> Value {
    if v.is_finite() {
        json!(v)
    } else if v.is_nan() {
        json!("NaN")
    } else if v > 0.0 {
        json!("Infinity")
    } else {
        json!("-Infinity")
    }
}

/// A scalar's value from its exact unsigned wire value. 64-bit integers
/// are decimal strings (exact); 32-bit ones are JSON numbers.
fn scalar(kind: &Kind, raw: u64) -> (Value, Option<Vec<String>>) {
    let zigzag = |v: u64| ((v >> 1) as i64) ^ -((v & 1) as i64);
    let v = match kind {
        Kind::Double => float(f64::from_bits(raw)),
        Kind::Float => float(f64::from(f32::from_bits(raw as u32))),
        Kind::Int32 | Kind::Sfixed32 => json!(raw as u32 as i32),
        Kind::Uint32 | Kind::Fixed32 => json!(raw as u32),
        Kind::Sint32 => json!(zigzag(raw) as i32),
        Kind::Int64 | Kind::Sfixed64 => json!((raw as i64).to_string()),
        Kind::Uint64 | Kind::Fixed64 => json!(raw.to_string()),
        Kind::Sint64 => json!(zigzag(raw).to_string()),
        Kind::Bool => json!(raw != 0),
        Kind::Enum(e) => {
            let number = raw as u32 as i32;
            // Declaration order, whatever order the pool iterates in.
            let names: Vec<String> = e
                .enum_descriptor_proto()
                .value
                .iter()
                .filter(|v| v.number() == number)
                .map(|v| v.name().to_string())
                .collect();
            let shown = json!({"number": number, "name": names.first()});
            return (shown, (names.len() > 1).then_some(names));
        }
        _ => Value::Null,
    };
    (v, None)
}

/// Reads packed scalars from `value`; `None` when they do not fill it exactly.
fn packed(kind: &Kind, wire: WireType, value: &[u8]) -> Option<Vec<Value>> {
    let mut out = Vec::new();
    let mut at = 0usize;
    while at < value.len() {
        let raw = match wire {
            WireType::Varint => {
                let (v, next) = super::wire::read_varint(value, at).ok()?;
                at = next;
                v
            }
            _ => {
                let width = if wire == WireType::Fixed64 { 8 } else { 4 };
                let chunk = value.get(at..at + width)?;
                let mut le = [0u8; 8];
                le[..width].copy_from_slice(chunk);
                at += width;
                u64::from_le_bytes(le)
            }
        };
        out.push(scalar(kind, raw).0);
    }
    Some(out)
}

/// Interprets one wire field (`value` is its value bytes for
/// length-delimited fields) under `message`.
pub fn read(message: &MessageDescriptor, field: &WireField, value: &[u8]) -> Reading {
    let Some(fd) = message.get_field(field.number) else {
        return Reading {
            status: "unknown-field",
            error: Some(format!(
                "{} declares no field {}",
                message.full_name(),
                field.number
            )),
            ..Reading::default()
        };
    };
    read_field(&fd, field, value)
}

fn read_field(fd: &FieldDescriptor, field: &WireField, value: &[u8]) -> Reading {
    let kind = fd.kind();
    let mut reading = Reading {
        name: Some(fd.name().to_string()),
        type_name: Some(kind_name(&kind)),
        status: "ok",
        ..Reading::default()
    };
    if fd.is_group() {
        if !matches!(field.wire_type, WireType::StartGroup | WireType::EndGroup) {
            return mismatch(reading, "group", field.wire_type);
        }
        // A start-group tag opens the group's message: its fields follow.
        if let (WireType::StartGroup, Kind::Message(m)) = (field.wire_type, kind) {
            reading.nested = Some(m);
        }
        return reading;
    }
    let expected = scalar_wire(&kind);
    match (expected, field.wire_type) {
        (Some(w), got) if w == got => {
            let (v, aliases) = scalar(&kind, field.raw.unwrap_or(0));
            reading.value = Some(v);
            reading.aliases = aliases;
        }
        (Some(w), WireType::Len) if fd.is_list() => match packed(&kind, w, value) {
            Some(values) => reading.value = Some(Value::Array(values)),
            None => {
                reading.status = "wire-type-mismatch";
                reading.error = Some(format!(
                    "the packed {} values do not fill the {}-byte value exactly",
                    kind_name(&kind),
                    value.len()
                ));
            }
        },
        (None, WireType::Len) => match kind {
            Kind::String => match std::str::from_utf8(value) {
                Ok(text) => reading.value = Some(json!(text)),
                Err(e) => {
                    reading.status = "invalid-string";
                    reading.error = Some(format!("the string is not valid UTF-8: {e}"));
                }
            },
            Kind::Bytes => reading.value = Some(json!(STANDARD.encode(value))),
            Kind::Message(m) => reading.nested = Some(m),
            _ => {}
        },
        (_, got) => {
            let want = expected.map_or("length-delimited", WireType::as_str);
            return mismatch(reading, want, got);
        }
    }
    reading
}

fn mismatch(mut reading: Reading, want: &str, got: WireType) -> Reading {
    reading.status = "wire-type-mismatch";
    reading.error = Some(format!(
        "the schema declares {} ({want}) but the wire has {}",
        reading.type_name.as_deref().unwrap_or("a field"),
        got.as_str()
    ));
    reading
}

/// The error for a descriptor set that cannot be read from disk.
pub fn unreadable(e: &std::io::Error) -> ErrorReport {
    ErrorReport::new(
        "protobuf_schema_unreadable",
        Category::Unavailable,
        format!("could not read the descriptor set: {e}"),
    )
    .detail("argument", "protobuf_schema")
    .guidance("Name a local compiled FileDescriptorSet file (protoc --include_imports --descriptor_set_out=FILE).")
}
