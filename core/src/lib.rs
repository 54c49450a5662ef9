//! rea-core: reading captures safely and decoding them into Evidence.
//!
//! # Layout
//! - `error`: the error contract (code, category, message, retryable, details).
//! - `recorded_url`: the one parser of recorded request URLs.
//! - `json`: the lossless JSON reader and the one number-safety test.
//! - `read`: the stable, bounded, safe read of a capture file.
//! - `har`: the HAR 1.2 decoder (records, sidecars, canonical base64).
//! - `har_schema`: HAR 1.2 validation under the unchanged har-schema 2.0.0
//!   schemas, with the producer profiles.
//! - `mitm`: the native mitmproxy flow decoder (tnetstring, flow states).
//! - `qlog`: the aioquic 1.5.0 JSON qlog 0.3 decoder and its `qlog` facet.
//! - `protobuf`: protobuf, gRPC and gRPC-web bodies of selected records.
//! - `redact`: credential and declared-sensitive-value exclusion.
//! - `secrets`: recorded secrets pseudonymised for serving (not inspection).
//! - `saz`: the Fiddler Session Archive Zip decoder (sessions, sidecars).
//! - `serving`: the capture a derived command starts from (format by content).
//! - `evidence`: the Evidence document types and its output budget.
//! - `inspect`: the inspection operation every adapter calls.

pub mod error;
pub mod evidence;
pub mod har;
pub mod har_schema;
pub mod har_shape;
pub mod inspect;
pub mod json;
pub mod mitm;
pub mod protobuf;
pub mod qlog;
pub mod read;
pub mod recorded_url;
pub mod redact;
pub mod saz;
pub mod secrets;
pub mod serving;

pub use error::{Category, ErrorReport};
pub use evidence::Evidence;
pub use inspect::{inspect_web_network_capture, Detail, InspectRequest};
pub use json::is_safe_number;

/// The per-entry decode serving and the derived commands start from.
pub use inspect::decode_for_serving;
