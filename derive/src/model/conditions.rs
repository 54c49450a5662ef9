//! Preconditions and revisions: which answer header or entity member is the
//! validator (`ETag` equal to a member such as `last_modified`), and how the
//! app answers `If-Match` / `If-None-Match` / `If-(Un)Modified-Since` when
//! the validator is current and when it is stale (412, 304), checked against
//! the writes between the validator's answer and the conditional request.

use super::exchange::{scalar_text, sorted, Exchange};
use super::resources::Resource;
use super::routes::Templates;
use super::snapshots::{entity_ref, target_of, Target};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The validator the app issues.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Validator {
    pub resource: String,
    /// The answer header (`etag`, `last-modified`).
    pub header: String,
    /// The entity member whose value the header quotes, when every answer agrees.
    pub member: Option<String>,
    pub supported_by: Vec<u64>,
    pub contradicted_by: Vec<u64>,
}

/// One conditional request kind on one route.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Precondition {
    pub resource: String,
    pub method: String,
    pub route: String,
    /// The request header (`if-match`, `if-none-match`, ...).
    pub header: String,
    /// Requests whose validator was current, and how they were answered.
    pub current: Vec<u64>,
    pub current_statuses: Vec<u16>,
    /// Requests whose validator was stale (a write to the entity came after
    /// it was issued), and the answer.
    pub stale: Vec<u64>,
    pub stale_status: Option<u16>,
    /// The recorded answer to a stale request (the template).
    pub stale_answer_ordinal: Option<u64>,
    /// Requests whose outcome the writes do not explain.
    pub contradicted_by: Vec<u64>,
}

/// Both inferences.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Conditions {
    pub validators: Vec<Validator>,
    pub preconditions: Vec<Precondition>,
}

/// Per entity member the answers whose validator quoted it, and the misses.
type ValidatorSightings = (BTreeMap<String, Vec<u64>>, Vec<u64>);

const HEADERS: [&str; 4] = [
    "if-match",
    "if-none-match",
    "if-modified-since",
    "if-unmodified-since",
];

fn unquote(v: &str) -> &str {
    v.trim().trim_start_matches("W/").trim_matches('"')
}

pub(crate) fn infer(
    exchanges: &[Exchange],
    resources: &[Resource],
    templates: &Templates,
) -> Conditions {
    let targets: Vec<Option<Target>> = exchanges
        .iter()
        .map(|x| target_of(x, resources, templates))
        .collect();
    // Validators: an etag header that equals an entity member.
    let mut vals: BTreeMap<(usize, String), ValidatorSightings> = BTreeMap::new();
    for (x, t) in exchanges.iter().zip(&targets) {
        let Some(t) = t else { continue };
        if !x.is_2xx() {
            continue;
        }
        for h in ["etag", "last-modified"] {
            let Some(v) = x.response_header(h) else {
                continue;
            };
            let e = vals.entry((t.resource, h.to_string())).or_default();
            let entity = x
                .answer
                .as_ref()
                .and_then(|a| entity_ref(a, &resources[t.resource]));
            let hit = entity.and_then(|m| {
                m.iter()
                    .find(|(_, mv)| scalar_text(mv).as_deref() == Some(unquote(v)))
                    .map(|(k, _)| k.clone())
            });
            match hit {
                Some(k) => e.0.entry(k).or_default().push(x.ordinal),
                None if entity.is_some() && (t.role == "read" || t.role == "update") => {
                    e.1.push(x.ordinal)
                }
                None => {}
            }
        }
    }
    let validators = vals
        .into_iter()
        .filter(|(_, (m, _))| !m.is_empty())
        .map(|((ri, h), (members, misses))| {
            let (member, ords) = members
                .iter()
                .max_by(|a, b| a.1.len().cmp(&b.1.len()).then(b.0.cmp(a.0)))
                .map(|(k, o)| (k.clone(), o.clone()))
                .expect("non-empty");
            Validator {
                resource: resources[ri].name.clone(),
                header: h,
                member: Some(member),
                supported_by: sorted(ords),
                contradicted_by: sorted(misses),
            }
        })
        .collect();
    // Conditional requests.
    let mut pre: BTreeMap<(usize, String, String, String), Precondition> = BTreeMap::new();
    for (i, x) in exchanges.iter().enumerate() {
        let Some(t) = &targets[i] else { continue };
        for h in HEADERS {
            let Some(v) = x.request_header(h) else {
                continue;
            };
            let v = unquote(v).to_string();
            // Where the validator was issued, and writes to the entity since.
            let issued = (0..i).rev().find(|&j| {
                exchanges[j]
                    .response_header("etag")
                    .or_else(|| exchanges[j].response_header("last-modified"))
                    .is_some_and(|e| unquote(e) == v)
            });
            let stale = issued.is_some_and(|j| {
                (j + 1..i).any(|k| {
                    let w = &exchanges[k];
                    !w.is_read()
                        && w.is_2xx()
                        && targets[k].as_ref().is_some_and(|o| {
                            o.resource == t.resource && o.id == t.id && o.scope == t.scope
                        })
                })
            });
            let p = pre
                .entry((t.resource, t.route.clone(), x.method.clone(), h.to_string()))
                .or_insert_with(|| Precondition {
                    resource: resources[t.resource].name.clone(),
                    method: x.method.clone(),
                    route: t.route.clone(),
                    header: h.to_string(),
                    current: Vec::new(),
                    current_statuses: Vec::new(),
                    stale: Vec::new(),
                    stale_status: None,
                    stale_answer_ordinal: None,
                    contradicted_by: Vec::new(),
                });
            let refused = matches!(x.status, 304 | 412);
            match (stale, refused) {
                (false, false) => {
                    p.current.push(x.ordinal);
                    if !p.current_statuses.contains(&x.status) {
                        p.current_statuses.push(x.status);
                    }
                }
                (true, true) => {
                    p.stale.push(x.ordinal);
                    p.stale_status.get_or_insert(x.status);
                    p.stale_answer_ordinal.get_or_insert(x.ordinal);
                }
                _ if issued.is_none() && !refused => {
                    p.current.push(x.ordinal);
                    if !p.current_statuses.contains(&x.status) {
                        p.current_statuses.push(x.status);
                    }
                }
                _ => p.contradicted_by.push(x.ordinal),
            }
        }
    }
    Conditions {
        validators,
        preconditions: pre
            .into_values()
            .map(|mut p| {
                p.current_statuses.sort_unstable();
                p
            })
            .collect(),
    }
}
