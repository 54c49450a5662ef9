//! The mitmproxy profile check: every top-level item must be a flow state
//! (a dictionary) whose state `version` is one mitmproxy 12.2.3 can read
//! (`FLOW_FORMAT_VERSION` 21 and the older versions its `io.compat`
//! converters name). States are reported at their own version, never migrated.

use super::tnetstring::{Item, Native};
use crate::error::{Category, ErrorReport};

/// The mitmproxy release whose flow files rea reads natively.
pub const MITMPROXY_VERSION: &str = "12.2.3";
/// Its upstream source: tag `v12.2.3`.
pub const MITMPROXY_COMMIT: &str = "6c09d56e4c29a92f5ad01b03199977584b8ea14f";
/// mitmproxy 12.2.3's `FLOW_FORMAT_VERSION`.
pub const CURRENT_STATE_VERSION: u64 = 21;
/// The oldest integer state version 12.2.3's converters accept.
pub const OLDEST_INTEGER_STATE_VERSION: u64 = 4;
/// The historical `(major, minor)` versions its converters accept.
pub const LEGACY_STATE_VERSIONS: [(u64, u64); 12] = [
    (0, 11),
    (0, 12),
    (0, 13),
    (0, 14),
    (0, 15),
    (0, 16),
    (0, 17),
    (0, 18),
    (0, 19),
    (1, 0),
    (2, 0),
    (3, 0),
];

/// One flow's state version as reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StateVersion {
    Integer(u64),
    Legacy(u64, u64),
}

/// A member of a flow dictionary by name (text or byte key, as upstream's
/// `flow_data.get(b"version", flow_data.get("version"))`).
pub fn member<'a>(pairs: &'a [(Native, Native)], name: &str) -> Option<&'a Native> {
    let by_bytes = pairs.iter().find_map(|(k, v)| match k {
        Native::Bytes(b) if b == name.as_bytes() => Some(v),
        _ => None,
    });
    by_bytes.or_else(|| {
        pairs.iter().find_map(|(k, v)| match k {
            Native::Str(s) if s == name => Some(v),
            _ => None,
        })
    })
}

/// Checks one top-level item (`ordinal` in file order) and returns its version.
pub fn check(item: &Item, ordinal: usize) -> Result<StateVersion, ErrorReport> {
    let Native::Dict(pairs) = &item.value else {
        return Err(invalid_flow(
            item,
            ordinal,
            "the top-level tnetstring is not a dictionary (flow state)",
        ));
    };
    let Some(version) = member(pairs, "version") else {
        return Err(invalid_flow(item, ordinal, "the flow state has no version"));
    };
    let found = match version {
        Native::Int(text) => text.parse::<u64>().ok().map(StateVersion::Integer),
        Native::List(parts) => match parts.as_slice() {
            [Native::Int(a), Native::Int(b), ..] => match (a.parse(), b.parse()) {
                (Ok(a), Ok(b)) => Some(StateVersion::Legacy(a, b)),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    };
    let readable = match &found {
        Some(StateVersion::Integer(v)) => {
            (OLDEST_INTEGER_STATE_VERSION..=CURRENT_STATE_VERSION).contains(v)
        }
        Some(StateVersion::Legacy(a, b)) => LEGACY_STATE_VERSIONS.contains(&(*a, *b)),
        None => false,
    };
    match found {
        Some(v) if readable => Ok(v),
        _ => Err(unsupported(item, ordinal, version)),
    }
}

fn invalid_flow(item: &Item, ordinal: usize, why: &str) -> ErrorReport {
    ErrorReport::input(
        "mitmproxy_invalid_flow",
        format!("the capture is not a mitmproxy flow file: {why}"),
    )
    .detail("record_ordinal", ordinal as u64)
    .detail("offset", item.offset as u64)
    .guidance("Pass a file written by mitmproxy (`mitmdump -w`, or Save in mitmweb).")
}

fn unsupported(item: &Item, ordinal: usize, version: &Native) -> ErrorReport {
    let shown = match version {
        Native::Int(t) => t.clone(),
        Native::List(parts) => parts
            .iter()
            .map(|p| match p {
                Native::Int(t) => t.clone(),
                _ => "?".to_string(),
            })
            .collect::<Vec<_>>()
            .join("."),
        _ => "a non-integer value".to_string(),
    };
    let newer = matches!(version, Native::Int(t) if t.parse::<u64>().map_or(t.len() > 2 && !t.starts_with('-'), |v| v > CURRENT_STATE_VERSION));
    ErrorReport::new(
        "unsupported_profile",
        Category::Unsupported,
        format!(
            "flow {ordinal} has state version {shown}, which mitmproxy {MITMPROXY_VERSION} (flow format {CURRENT_STATE_VERSION}) cannot read"
        ),
    )
    .detail("record_ordinal", ordinal as u64)
    .detail("offset", item.offset as u64)
    .detail("state_version", shown)
    .detail("supported_profile", format!("mitmproxy-{MITMPROXY_VERSION}"))
    .guidance(if newer {
        "The file comes from a newer mitmproxy; export it as HAR from that mitmproxy and inspect the HAR."
    } else {
        "Only flow files mitmproxy 12.2.3 can read are decoded; re-save the flows with mitmproxy 12.2.3 or export them as HAR."
    })
}
