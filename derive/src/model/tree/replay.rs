//! The replay check of the tree: the whole recording played in order
//! through `serve` from the World at its start; per answer kind, the records
//! whose recorded answer it reproduced and those it did not. Clock values
//! (RFC 3339 strings) compare by shape; a listing whose children include
//! entities created during the recording compares as a set (the app's order
//! of new names is not in the recording: the World appends them).

use super::serve::TreeWorld;
use super::{Evidence, TreeStore};
use crate::model::exchange::Exchange;
use serde_json::Value;
use std::collections::BTreeMap;

fn is_clock(v: &Value) -> bool {
    v.as_str()
        .is_some_and(|s| chrono::DateTime::parse_from_rfc3339(s).is_ok())
}

/// Equal, clock values by shape, and arrays as sets when `unordered`.
fn same(a: &Value, b: &Value, unordered: bool) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same(v, w, unordered)))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len()
                && if unordered {
                    x.iter().all(|v| y.iter().any(|w| same(v, w, false)))
                } else {
                    x.iter().zip(y).all(|(v, w)| same(v, w, false))
                }
        }
        _ if is_clock(a) && is_clock(b) => true,
        _ => a == b,
    }
}

/// Replays the recording; the evidence per answer kind.
pub(crate) fn evidence(tree: &TreeStore, exchanges: &[Exchange]) -> BTreeMap<String, Evidence> {
    let initial = tree.initial_world(exchanges);
    let mut world: TreeWorld = initial.clone();
    let mut out: BTreeMap<String, Evidence> = BTreeMap::new();
    for x in exchanges {
        // Conditional reads are the validators' (their 304 is not the tree's).
        if x.request_header("if-none-match").is_some()
            || x.request_header("if-modified-since").is_some()
        {
            continue;
        }
        let grown = x.method == "GET" && tree.grown(&world, &initial, &x.segments);
        let Some(reply) = tree.served(
            &mut world,
            &x.method,
            &x.segments,
            &x.query,
            x.body.as_ref(),
            0,
        ) else {
            continue;
        };
        let fits = reply.status == x.status
            && match (&reply.body, reply.text) {
                (None, _) => x.answer_empty,
                (Some(Value::String(t)), true) => x.answer_text.as_deref() == Some(t.as_str()),
                (Some(b), _) => x.answer.as_ref().is_some_and(|a| same(b, a, grown)),
            };
        let e = out.entry(reply.kind.to_string()).or_default();
        if fits {
            e.supported_by.push(x.ordinal);
        } else {
            e.contradicted_by.push(x.ordinal);
        }
    }
    out
}
