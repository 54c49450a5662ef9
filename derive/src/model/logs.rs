//! Log reads: a read on no inferred resource that answers the items earlier
//! writes logged for one owner (a history read by an owner id and an item
//! key, after single-item and batch logging writes). The hypothesis, per read
//! path: the answer is one object with one member holding an array of
//! objects of one member set; one query value is the value of a body member
//! of earlier writes (the owner), every other query value is the value of an
//! item member (a filter); the items are, in write order, the objects of
//! the same-named array of each such write's body and each body that,
//! without the owner member, has exactly the items' members. It is kept
//! when at least one recorded read equals the items so built and none
//! contradicts it (reads of owners no recorded write logged to are the
//! app's earlier data, neither).

use super::exchange::{scalar_text, Exchange};
use serde_json::{Map, Value};
use std::collections::BTreeSet;

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LogRead {
    pub path: String,
    /// The answer's member holding the items.
    pub member: String,
    pub owner_query: String,
    pub owner_body: String,
    /// (query name, item member) pairs that filter the items.
    pub filters: Vec<(String, String)>,
    pub item_members: BTreeSet<String>,
    pub status: u16,
}

impl LogRead {
    /// The items the logged write bodies give for this read's query.
    pub(crate) fn items(
        &self,
        writes: &[Map<String, Value>],
        query: &[(String, String)],
    ) -> Vec<Value> {
        let q = |n: &str| query.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
        let Some(owner) = q(&self.owner_query) else {
            return Vec::new();
        };
        let filters: Vec<(String, Option<String>)> = self
            .filters
            .iter()
            .map(|(n, m)| (m.clone(), q(n)))
            .collect();
        let mut out = Vec::new();
        for body in writes {
            if body.get(&self.owner_body).and_then(scalar_text).as_deref() != Some(owner.as_str()) {
                continue;
            }
            let mut candidates: Vec<Map<String, Value>> = Vec::new();
            if let Some(arr) = body.get(&self.member).and_then(Value::as_array) {
                candidates.extend(arr.iter().filter_map(|v| v.as_object().cloned()));
            } else {
                let mut rest = body.clone();
                rest.remove(&self.owner_body);
                candidates.push(rest);
            }
            for c in candidates {
                let keys: BTreeSet<String> = c.keys().cloned().collect();
                if keys != self.item_members {
                    continue;
                }
                let pass = filters.iter().all(|(m, v)| match v {
                    Some(v) => c.get(m).and_then(scalar_text).as_deref() == Some(v.as_str()),
                    None => true,
                });
                if pass {
                    out.push(Value::Object(c));
                }
            }
        }
        out
    }
}

/// The log reads the recording confirms, among records `on_resource` rejects.
pub(crate) fn infer(
    exchanges: &[Exchange],
    on_resource: &dyn Fn(&Exchange) -> bool,
) -> Vec<LogRead> {
    let mut confirmed: Vec<LogRead> = Vec::new();
    let mut contradicted: BTreeSet<String> = BTreeSet::new();
    for (i, x) in exchanges.iter().enumerate() {
        if x.method != "GET" || !x.is_2xx() || x.query.is_empty() || on_resource(x) {
            continue;
        }
        let Some(answer) = x.answer.as_ref().and_then(Value::as_object) else {
            continue;
        };
        let Some((member, arr)) = answer
            .iter()
            .next()
            .filter(|_| answer.len() == 1)
            .and_then(|(k, v)| v.as_array().map(|a| (k.clone(), a)))
        else {
            continue;
        };
        let items: Vec<&Map<String, Value>> = arr.iter().filter_map(Value::as_object).collect();
        if items.is_empty() || items.len() != arr.len() {
            continue;
        }
        let item_members: BTreeSet<String> = items[0].keys().cloned().collect();
        if items
            .iter()
            .any(|o| o.keys().cloned().collect::<BTreeSet<_>>() != item_members)
        {
            continue;
        }
        let earlier: Vec<Map<String, Value>> = exchanges[..i]
            .iter()
            .filter(|w| !w.is_read() && w.is_2xx())
            .filter_map(|w| w.body.as_ref().and_then(Value::as_object).cloned())
            .collect();
        // Each query value: the owner (a body member of earlier writes) or a
        // filter (an item member every item has with that value).
        let mut owner: Option<(String, String)> = None;
        let mut filters = Vec::new();
        let mut ok = true;
        for (n, v) in &x.query {
            let filter = item_members.iter().find(|m| {
                items
                    .iter()
                    .all(|o| o.get(*m).and_then(scalar_text).as_deref() == Some(v.as_str()))
            });
            if let Some(m) = filter {
                filters.push((n.clone(), m.clone()));
                continue;
            }
            let body_member = earlier.iter().find_map(|b| {
                b.iter()
                    .find(|(_, bv)| scalar_text(bv).as_deref() == Some(v.as_str()))
                    .map(|(k, _)| k.clone())
            });
            match (body_member, &owner) {
                (Some(b), None) => owner = Some((n.clone(), b)),
                _ => ok = false,
            }
        }
        let (Some((owner_query, owner_body)), true) = (owner, ok) else {
            continue;
        };
        let log = LogRead {
            path: x.path(),
            member,
            owner_query,
            owner_body,
            filters,
            item_members,
            status: x.status,
        };
        let built = log.items(&earlier, &x.query);
        if built.is_empty() {
            continue;
        }
        if built == arr.as_slice() {
            if !confirmed.iter().any(|c| c.path == log.path) {
                confirmed.push(log);
            }
        } else {
            contradicted.insert(log.path);
        }
    }
    confirmed.retain(|c| !contradicted.contains(&c.path));
    confirmed
}
