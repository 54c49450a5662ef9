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

/// Objects seen at one place: per shape (its members and the members that
/// are non-empty arrays, each sorted), the ordinals of the objects of it.
type Seen<'a> = BTreeMap<String, BTreeMap<(Vec<&'a str>, Vec<&'a str>), Vec<u64>>>;

/// Infers the rule from every 2xx JSON answer.
pub(crate) fn infer(exchanges: &[Exchange]) -> EmptyLists {
    let mut seen: Seen = BTreeMap::new();
    let mut checked = Vec::new();
    let mut contradicted = Vec::new();
    for x in exchanges.iter().filter(|x| x.is_2xx()) {
        let Some(answer) = &x.answer else { continue };
        checked.push(x.ordinal);
        let mut empty = false;
        walk(answer, "", x.ordinal, &mut seen, &mut empty, 0);
        if empty {
            contradicted.push(x.ordinal);
        }
    }
    let mut members = BTreeSet::new();
    let mut supported = Vec::new();
    // The answer's top level differs by route, and so do the items of a
    // root array (a route's entities): only nested places count.
    for (place, objects) in seen.iter().filter(|(p, _)| !p.is_empty() && *p != "/*") {
        let lists: BTreeSet<&str> = objects
            .keys()
            .flat_map(|(_, l)| l.iter().copied())
            .collect();
        for m in lists {
            for (_, ords) in objects
                .iter()
                .filter(|((has, _), _)| has.binary_search(&m).is_err())
            {
                members.insert(format!("{place} {m}"));
                supported.extend(ords.iter().copied());
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

fn walk<'a>(v: &'a Value, at: &str, ord: u64, seen: &mut Seen<'a>, empty: &mut bool, depth: usize) {
    if depth > 8 {
        return;
    }
    match v {
        Value::Object(map) => {
            let mut has: Vec<&str> = map.keys().map(String::as_str).collect();
            has.sort_unstable();
            let mut lists: Vec<&str> = map
                .iter()
                .filter(|(_, v)| v.as_array().is_some_and(|a| !a.is_empty()))
                .map(|(k, _)| k.as_str())
                .collect();
            lists.sort_unstable();
            if map
                .values()
                .any(|v| v.as_array().is_some_and(Vec::is_empty))
            {
                *empty = true;
            }
            let shapes = match seen.get_mut(at) {
                Some(shapes) => shapes,
                None => seen.entry(at.to_string()).or_default(),
            };
            shapes.entry((has, lists)).or_default().push(ord);
            // Scalars hold no objects: only containers are walked.
            for (k, child) in map.iter().filter(|(_, c)| c.is_object() || c.is_array()) {
                walk(
                    child,
                    &format!("{at}/{}", token(k)),
                    ord,
                    seen,
                    empty,
                    depth + 1,
                );
            }
        }
        Value::Array(items) => {
            let inner = format!("{at}/*");
            for item in items.iter().filter(|c| c.is_object() || c.is_array()) {
                walk(item, &inner, ord, seen, empty, depth + 1);
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
