//! The absence answer of an RPC-style read keyed by a query value
//! (`/api.php?action=query&prop=revisions&titles=Plum` answering
//! `{"title": "Plum", "missing": true}`). Among recorded 2xx reads of one
//! path with the same parameter names, the absence is the read whose object
//! holding the key value carries a `true` boolean member that the objects
//! holding the key in the group's other reads lack, and fewer members than
//! they have. A read the spec's plans cannot answer, with those names, the
//! same other values, and a key value no recorded answer names under the
//! member holding it (nor with a character no named key holds: `A|B` asks
//! for two), gets that answer with its own key value.

use super::exchange::{sorted, Exchange};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// One inferred absence answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RpcAbsence {
    pub path: String,
    /// The query names of the reads (sorted).
    pub names: Vec<String>,
    /// The parameter naming the item, and the answer member echoing it.
    pub key: String,
    pub key_member: String,
    /// The boolean member that marks the absence.
    pub flag: String,
    /// The other parameters' values, as the absent read sent them (sorted).
    pub others: Vec<(String, String)>,
    /// The answer with the key value replaced by `{key}`.
    pub template: Value,
    pub template_ordinal: u64,
    /// The group's reads of present items it was told apart from.
    pub checked_against: Vec<u64>,
    /// Key values the recording's answers name (present at some time).
    pub named: Vec<String>,
}

/// The object (at any depth) holding `value` as a member; (member, object).
fn holder<'a>(v: &'a Value, value: &str) -> Option<(String, &'a Map<String, Value>)> {
    match v {
        Value::Object(map) => {
            if let Some((k, _)) = map.iter().find(|(_, c)| c.as_str() == Some(value)) {
                return Some((k.clone(), map));
            }
            map.values().find_map(|c| holder(c, value))
        }
        Value::Array(items) => items.iter().find_map(|c| holder(c, value)),
        _ => None,
    }
}

fn replaced(v: &Value, from: &str, to: &str) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, c)| (k.clone(), replaced(c, from, to)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(|c| replaced(c, from, to)).collect()),
        Value::String(s) if s == from => Value::String(to.to_string()),
        other => other.clone(),
    }
}

fn names_of(x: &Exchange) -> Vec<String> {
    let set: BTreeSet<&String> = x.query.iter().map(|(n, _)| n).collect();
    set.into_iter().cloned().collect()
}

/// Values of `member` at any depth of every 2xx answer.
fn named(exchanges: &[Exchange], member: &str) -> Vec<String> {
    fn walk(v: &Value, member: &str, out: &mut BTreeSet<String>) {
        match v {
            Value::Object(map) => map.iter().for_each(|(k, c)| match c {
                Value::String(s) if k == member => {
                    out.insert(s.clone());
                }
                _ => walk(c, member, out),
            }),
            Value::Array(items) => items.iter().for_each(|c| walk(c, member, out)),
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    for x in exchanges.iter().filter(|x| x.is_2xx()) {
        if let Some(a) = &x.answer {
            walk(a, member, &mut out);
        }
    }
    out.into_iter().collect()
}

/// Infers the absence answers of query-keyed reads.
pub(crate) fn infer(exchanges: &[Exchange]) -> Vec<RpcAbsence> {
    let mut groups: BTreeMap<(String, Vec<String>), Vec<&Exchange>> = BTreeMap::new();
    for x in exchanges
        .iter()
        .filter(|x| x.method == "GET" && x.is_2xx() && !x.query.is_empty() && x.answer.is_some())
    {
        groups.entry((x.path(), names_of(x))).or_default().push(x);
    }
    let mut out: Vec<RpcAbsence> = Vec::new();
    for ((path, names), reads) in groups {
        if reads.len() < 2 {
            continue;
        }
        for r in &reads {
            let answer = r.answer.as_ref().expect("filtered");
            for (key, value) in &r.query {
                if value.chars().count() < 2 {
                    continue;
                }
                let Some((member, obj)) = holder(answer, value) else {
                    continue;
                };
                // The other reads' objects holding their own key value.
                let present: Vec<(u64, &Map<String, Value>)> = reads
                    .iter()
                    .filter(|o| o.ordinal != r.ordinal)
                    .filter_map(|o| {
                        let v = o.query_value(key)?;
                        let (m, h) = holder(o.answer.as_ref()?, v)?;
                        (m == member).then_some((o.ordinal, h))
                    })
                    .collect();
                let flag = obj.iter().find(|(k, v)| {
                    **v == Value::Bool(true)
                        && !present.is_empty()
                        && present
                            .iter()
                            .all(|(_, h)| !h.contains_key(*k) && h.len() > obj.len())
                });
                let Some((flag, _)) = flag else { continue };
                if out
                    .iter()
                    .any(|a| a.path == path && a.names == names && a.key == *key)
                {
                    continue;
                }
                let mut others: Vec<(String, String)> =
                    r.query.iter().filter(|(n, _)| n != key).cloned().collect();
                others.sort();
                out.push(RpcAbsence {
                    path: path.clone(),
                    names: names.clone(),
                    key: key.clone(),
                    key_member: member.clone(),
                    flag: flag.clone(),
                    others,
                    template: replaced(answer, value, "{key}"),
                    template_ordinal: r.ordinal,
                    checked_against: sorted(present.iter().map(|(o, _)| *o).collect()),
                    named: named(exchanges, &member),
                });
            }
        }
    }
    out
}

/// The absence answer for a read, when one applies.
pub(crate) fn answer(
    absences: &[RpcAbsence],
    path: &str,
    query: &[(String, String)],
) -> Option<Value> {
    let set: BTreeSet<&String> = query.iter().map(|(n, _)| n).collect();
    let names: Vec<String> = set.into_iter().cloned().collect();
    let a = absences
        .iter()
        .find(|a| a.path == path && a.names == names)?;
    let value = query.iter().find(|(n, _)| *n == a.key).map(|(_, v)| v)?;
    let mut others: Vec<(String, String)> =
        query.iter().filter(|(n, _)| *n != a.key).cloned().collect();
    others.sort();
    if others != a.others || a.named.iter().any(|n| n == value) {
        return None;
    }
    // A character no named key holds (a list separator): not one key.
    let known: BTreeSet<char> = a.named.iter().flat_map(|n| n.chars()).collect();
    if value
        .chars()
        .any(|c| !c.is_alphanumeric() && !known.contains(&c))
    {
        return None;
    }
    Some(replaced(&a.template, "{key}", value))
}
