//! How a `PATCH` reads a sent `null`, from evidence: a recorded `PATCH`
//! whose body sent a member as `null` and whose answer (or the next read)
//! no longer held the member (`removes`, RFC 7396's reading) or held it as
//! `null` (`stores`). A `PATCH` route with no such write takes the reading
//! the app's other `PATCH` routes all recorded (`basis: "another-route"`);
//! with none anywhere the reading is not decided and `null_member` is
//! absent (the served meaning is then the route's merge-patch hypothesis,
//! when it is one, which removes: docs/environment-model.md says so). A
//! `PUT`'s `null` is no evidence: a replace stores whatever it is sent.

use super::writes::WriteSemantics;
use serde::{Deserialize, Serialize};

/// The null reading of one update route, with what decided it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NullReading {
    /// `removes`, `stores`, or `mixed` (the route's own writes disagree).
    pub reading: String,
    /// `recorded` (this route's writes) or `another-route`.
    pub basis: String,
    /// The recorded writes that sent the `null`s.
    pub decided_by: Vec<u64>,
}

/// The reading a route's own writes recorded (`removed`: ordinals whose
/// sent `null` left no member; `kept`: ordinals that kept it as `null`).
pub(crate) fn recorded(removed: &[u64], kept: &[u64]) -> Option<NullReading> {
    let reading = match (removed.is_empty(), kept.is_empty()) {
        (true, true) => return None,
        (false, true) => "removes",
        (true, false) => "stores",
        (false, false) => "mixed",
    };
    let mut decided_by: Vec<u64> = removed.iter().chain(kept).copied().collect();
    decided_by.sort_unstable();
    decided_by.dedup();
    Some(NullReading {
        reading: reading.to_string(),
        basis: "recorded".to_string(),
        decided_by,
    })
}

/// `PATCH` routes without a recorded reading take the one every `PATCH`
/// route that recorded one agrees on (none when they disagree).
pub(crate) fn lend(writes: &mut [WriteSemantics]) {
    let own: Vec<&NullReading> = writes
        .iter()
        .filter(|w| w.role == "update" && w.method == "PATCH")
        .filter_map(|w| w.null_member.as_ref())
        .collect();
    let Some(first) = own.first() else { return };
    if first.reading == "mixed" || own.iter().any(|r| r.reading != first.reading) {
        return;
    }
    let mut decided_by: Vec<u64> = own.iter().flat_map(|r| r.decided_by.clone()).collect();
    decided_by.sort_unstable();
    let lent = NullReading {
        reading: first.reading.clone(),
        basis: "another-route".to_string(),
        decided_by,
    };
    for w in writes
        .iter_mut()
        .filter(|w| w.role == "update" && w.method == "PATCH" && w.null_member.is_none())
    {
        w.null_member = Some(lent.clone());
    }
}

/// True when the evidence says a sent `null` is stored on this route.
pub(crate) fn stores(w: &WriteSemantics) -> bool {
    w.null_member
        .as_ref()
        .is_some_and(|r| r.reading == "stores")
}

/// True when `body` sends a member as `null` (in an object, at any depth;
/// an array is a value, replaced whole under every reading).
pub(crate) fn sends_null(body: &serde_json::Value) -> bool {
    match body {
        serde_json::Value::Object(o) => o.values().any(|v| v.is_null() || sends_null(v)),
        _ => false,
    }
}
