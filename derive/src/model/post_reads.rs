//! Reads sent with a body (search, query, `_find`, GraphQL-style POSTs): a
//! route whose answers list a resource's entities and whose bodies only
//! narrow them. Answered from the World where the list semantics understand
//! the body, else from the recording of the same body.

use super::exchange::{sorted, Exchange};
use super::resources::Resource;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// One POST-read route.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PostRead {
    pub resource: String,
    pub method: String,
    pub route: String,
    /// The pointer of the listed entities in the answer.
    pub list_envelope: Option<String>,
    /// Every body member a recorded call used.
    pub body_members: Vec<String>,
    /// Distinct bodies recorded.
    pub distinct_bodies: usize,
    /// `recording-by-body` until the list semantics take the route over.
    pub answered_from: String,
    pub supported_by: Vec<u64>,
    /// Calls with a body sent before whose answer was the same.
    pub repeated_identically: Vec<u64>,
}

pub(crate) fn infer(exchanges: &[Exchange], resources: &[Resource]) -> Vec<PostRead> {
    let by_ord: BTreeMap<u64, &Exchange> = exchanges.iter().map(|x| (x.ordinal, x)).collect();
    let mut out = Vec::new();
    for r in resources {
        for op in r.operations.iter().filter(|o| o.role == "query") {
            let mut members = BTreeSet::new();
            let mut bodies: BTreeMap<String, Option<Value>> = BTreeMap::new();
            let mut repeated = Vec::new();
            let mut env = None;
            for o in &op.ordinals {
                let Some(x) = by_ord.get(o) else { continue };
                if let Some(b) = x.body.as_ref().and_then(Value::as_object) {
                    members.extend(b.keys().cloned());
                }
                if env.is_none() {
                    env = x
                        .answer
                        .as_ref()
                        .and_then(super::exchange::list_of)
                        .map(|(p, _)| p);
                }
                let key = x.body.as_ref().map(Value::to_string).unwrap_or_default();
                match bodies.get(&key) {
                    Some(prev) if *prev == x.answer => repeated.push(x.ordinal),
                    _ => {
                        bodies.insert(key, x.answer.clone());
                    }
                }
            }
            out.push(PostRead {
                resource: r.name.clone(),
                method: op.method.clone(),
                route: op.route.clone(),
                list_envelope: env,
                body_members: members.into_iter().collect(),
                distinct_bodies: bodies.len(),
                answered_from: "recording-by-body".into(),
                supported_by: op.ordinals.clone(),
                repeated_identically: sorted(repeated),
            });
        }
    }
    out
}
