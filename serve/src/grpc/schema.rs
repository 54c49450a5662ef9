//! The JSON Schema of a message's protobuf JSON mapping (the input schema
//! of a gRPC method's tool): fields by their JSON names, 64-bit integers
//! as decimal strings or integers, `bytes` as base64, enums by name or
//! number, maps as objects, well-known types by their JSON forms. Nested
//! messages deeper than `MAX_DEPTH` (or recursive ones) are any object.

use prost_reflect::{FieldDescriptor, Kind, MessageDescriptor};
use serde_json::{json, Map, Value};

const MAX_DEPTH: usize = 8;

/// The schema of `desc`'s JSON mapping.
pub(crate) fn message_schema(desc: &MessageDescriptor) -> Value {
    message(desc, 0)
}

fn well_known(name: &str) -> Option<Value> {
    Some(match name {
        "google.protobuf.Timestamp" => json!({"type": "string", "format": "date-time"}),
        "google.protobuf.Duration" => {
            json!({"type": "string", "pattern": "^-?[0-9]+(\\.[0-9]+)?s$"})
        }
        "google.protobuf.FieldMask" => json!({"type": "string"}),
        "google.protobuf.Struct" => json!({"type": "object"}),
        "google.protobuf.Value" => json!({}),
        "google.protobuf.ListValue" => json!({"type": "array"}),
        "google.protobuf.Empty" => json!({"type": "object", "additionalProperties": false}),
        "google.protobuf.Any" => {
            json!({"type": "object", "properties": {"@type": {"type": "string"}}})
        }
        "google.protobuf.StringValue" | "google.protobuf.BytesValue" => json!({"type": "string"}),
        "google.protobuf.BoolValue" => json!({"type": "boolean"}),
        "google.protobuf.DoubleValue" | "google.protobuf.FloatValue" => json!({"type": "number"}),
        "google.protobuf.Int32Value" | "google.protobuf.UInt32Value" => json!({"type": "integer"}),
        "google.protobuf.Int64Value" | "google.protobuf.UInt64Value" => {
            json!({"type": ["string", "integer"]})
        }
        _ => return None,
    })
}

fn message(desc: &MessageDescriptor, depth: usize) -> Value {
    if let Some(s) = well_known(desc.full_name()) {
        return s;
    }
    if depth >= MAX_DEPTH {
        return json!({"type": "object"});
    }
    let mut properties = Map::new();
    for field in desc.fields() {
        properties.insert(field.json_name().to_string(), field_schema(&field, depth));
    }
    json!({
        "type": "object",
        "title": desc.full_name(),
        "properties": properties,
    })
}

fn field_schema(field: &FieldDescriptor, depth: usize) -> Value {
    if field.is_map() {
        if let Kind::Message(entry) = field.kind() {
            let value = entry.map_entry_value_field().kind();
            return json!({"type": "object", "additionalProperties": kind_schema(&value, depth + 1)});
        }
    }
    let one = kind_schema(&field.kind(), depth + 1);
    if field.is_list() {
        json!({"type": "array", "items": one})
    } else {
        one
    }
}

fn kind_schema(kind: &Kind, depth: usize) -> Value {
    match kind {
        Kind::Double | Kind::Float => json!({"type": ["number", "string"]}),
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 | Kind::Uint32 | Kind::Fixed32 => {
            json!({"type": "integer"})
        }
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 | Kind::Uint64 | Kind::Fixed64 => {
            json!({"type": ["string", "integer"], "description": "64-bit integer (protobuf JSON: a decimal string)"})
        }
        Kind::Bool => json!({"type": "boolean"}),
        Kind::String => json!({"type": "string"}),
        Kind::Bytes => json!({"type": "string", "contentEncoding": "base64"}),
        Kind::Enum(e) => {
            let names: Vec<Value> = e.values().map(|v| json!(v.name())).collect();
            json!({"anyOf": [{"type": "string", "enum": names}, {"type": "integer"}]})
        }
        Kind::Message(m) => message(m, depth),
    }
}
