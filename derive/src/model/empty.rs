//! Empty results: whether the app leaves a list member out of an answer when
//! the list would be empty (proto3 JSON omits empty repeated members, so an
//! empty history reads `{}`). The hypothesis is confirmed when some recorded
//! answer shows an object without a member that other objects at the same
//! place (the same pointer, array positions alike) hold as a non-empty array,
//! and no recorded answer holds an empty array as a member value anywhere (an
//! app that writes `[]` contradicts it). Served: a log read that finds no
//! items for an owner the World knows answers without the member, and a
//! read the model renders drops the empty arrays its entity holds.

use super::exchange::{sorted, token, Exchange};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The empty-list inference.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EmptyLists {
    /// `omitted` (confirmed), `shown` (an answer holds `[]`) or `unknown`
    /// (the recording shows neither).
    pub rule: String,
    /// Where a member absent from some objects is a non-empty array in
    /// others: `POINTER member` (positions as `*`).
    pub members: Vec<String>,
    /// The answers showing an object without such a member.
    pub supported_by: Vec<u64>,
    /// Every 2xx JSON answer read.
    pub checked_against: Vec<u64>,
    /// Answers holding an empty array as a member value.
    pub contradicted_by: Vec<u64>,
}

impl EmptyLists {
    /// True when the recording confirms that empty list members are omitted.
    pub fn omitted(&self) -> bool {
        self.rule == "omitted"
    }
}

/// Objects seen at one place: per object, its ordinal, its members and the
/// members that are non-empty arrays.
type Seen = BTreeMap<String, Vec<(u64, BTreeSet<String>, BTreeSet<String>)>>;

/// Infers the rule from every 2xx JSON answer.
pub(crate) fn infer(exchanges: &[Exchange]) -> EmptyLists {
    let mut seen: Seen = BTreeMap::new();
    let mut checked = Vec::new();
    let mut contradicted = Vec::new();
    for x in exchanges.iter().filter(|x| x.is_2xx()) {
        let Some(answer) = &x.answer else { continue };
        checked.push(x.ordinal);
        let mut empty = false;
        walk(answer, String::new(), x.ordinal, &mut seen, &mut empty, 0);
        if empty {
            contradicted.push(x.ordinal);
        }
    }
    let mut members = BTreeSet::new();
    let mut supported = Vec::new();
    // The answer's top level differs by route, and so do the items of a
    // root array (a route's entities): only nested places count.
    for (place, objects) in seen.iter().filter(|(p, _)| !p.is_empty() && *p != "/*") {
        let lists: BTreeSet<&String> = objects.iter().flat_map(|(_, _, l)| l.iter()).collect();
        for m in lists {
            for (ord, _, _) in objects.iter().filter(|(_, has, _)| !has.contains(m)) {
                members.insert(format!("{place} {m}"));
                supported.push(*ord);
            }
        }
    }
    let rule = if !contradicted.is_empty() {
        "shown"
    } else if supported.is_empty() {
        "unknown"
    } else {
        "omitted"
    };
    EmptyLists {
        rule: rule.into(),
        members: members.into_iter().collect(),
        supported_by: sorted(supported),
        checked_against: sorted(checked),
        contradicted_by: sorted(contradicted),
    }
}

fn walk(v: &Value, at: String, ord: u64, seen: &mut Seen, empty: &mut bool, depth: usize) {
    if depth > 8 {
        return;
    }
    match v {
        Value::Object(map) => {
            let has: BTreeSet<String> = map.keys().cloned().collect();
            let lists: BTreeSet<String> = map
                .iter()
                .filter(|(_, v)| v.as_array().is_some_and(|a| !a.is_empty()))
                .map(|(k, _)| k.clone())
                .collect();
            if map
                .values()
                .any(|v| v.as_array().is_some_and(Vec::is_empty))
            {
                *empty = true;
            }
            seen.entry(at.clone()).or_default().push((ord, has, lists));
            for (k, child) in map {
                walk(
                    child,
                    format!("{at}/{}", token(k)),
                    ord,
                    seen,
                    empty,
                    depth + 1,
                );
            }
        }
        Value::Array(items) => {
            for item in items {
                walk(item, format!("{at}/*"), ord, seen, empty, depth + 1);
            }
        }
        _ => {}
    }
}

/// Removes every empty-array member of the objects in `v`, at any depth.
pub(crate) fn strip(v: &mut Value) {
    match v {
        Value::Object(map) => {
            map.retain(|_, c| !c.as_array().is_some_and(Vec::is_empty));
            map.values_mut().for_each(strip);
        }
        Value::Array(items) => items.iter_mut().for_each(strip),
        _ => {}
    }
}
