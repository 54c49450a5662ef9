//! Validation rules the recording shows: a refused write (4xx) explained
//! by a member every accepted call of the route sent and this one lacks
//! (`required`), by a value an earlier accepted write already holds
//! (`unique`, with its conflict answer), or by a value the answer names the
//! member of (`invalid-value`).

use super::exchange::{all_texts, scalar_text, sorted, Exchange};
use super::resources::Resource;
use super::routes::Templates;
use super::snapshots::{target_of, Snapshots, Target};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeSet;

/// One rule with the refusal that shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rule {
    pub resource: String,
    pub method: String,
    pub route: String,
    /// `required`, `unique`, `invalid-value` or `unexplained`.
    pub kind: String,
    /// The member path (`metrics[].value`), when the rule names one.
    pub member: Option<String>,
    pub status: u16,
    /// The refusal whose answer is the template.
    pub answer_ordinal: u64,
    /// The accepted calls the rule was checked against.
    pub checked_against: Vec<u64>,
    /// For `unique`: the accepted write that holds the value.
    pub conflicts_with: Option<u64>,
}

/// Member paths of a body: `a`, `a.b`, `list[].c`.
fn member_paths(v: &Value, at: &str, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(map) => {
            for (k, c) in map {
                let p = if at.is_empty() {
                    k.clone()
                } else {
                    format!("{at}.{k}")
                };
                out.insert(p.clone());
                member_paths(c, &p, out);
            }
        }
        Value::Array(items) => {
            for c in items {
                member_paths(c, &format!("{at}[]"), out);
            }
        }
        _ => {}
    }
}

fn leaf_name(path: &str) -> &str {
    path.rsplit(['.', ']']).next().unwrap_or(path)
}

pub(crate) fn infer(
    exchanges: &[Exchange],
    resources: &[Resource],
    templates: &Templates,
) -> Vec<Rule> {
    let targets: Vec<Option<Target>> = exchanges
        .iter()
        .map(|x| target_of(x, resources, templates))
        .collect();
    let mut out = Vec::new();
    let mut snaps = Snapshots::default();
    for (i, x) in exchanges.iter().enumerate() {
        if i > 0 {
            if let Some(t) = &targets[i - 1] {
                snaps.learn(&exchanges[i - 1], t, &resources[t.resource]);
            }
        }
        // 412 and 304 are preconditions (`conditions`), not validation.
        if x.is_read() || !(400..500).contains(&x.status) || x.status == 412 {
            continue;
        }
        let Some(t) = &targets[i] else { continue };
        let Some(body) = &x.body else { continue };
        let accepted: Vec<usize> = (0..exchanges.len())
            .filter(|&j| {
                let y = &exchanges[j];
                y.is_2xx()
                    && y.method == x.method
                    && targets[j].as_ref().is_some_and(|o| o.route == t.route)
            })
            .collect();
        let mut texts = Vec::new();
        if let Some(a) = &x.answer {
            all_texts(a, 200, &mut texts);
        }
        let mentions = |name: &str| texts.iter().any(|s| s.contains(name));
        let mut sent = BTreeSet::new();
        member_paths(body, "", &mut sent);
        let rule =
            |kind: &str, member: Option<String>, checked: Vec<u64>, conflicts: Option<u64>| Rule {
                resource: resources[t.resource].name.clone(),
                method: x.method.clone(),
                route: t.route.clone(),
                kind: kind.into(),
                member,
                status: x.status,
                answer_ordinal: x.ordinal,
                checked_against: sorted(checked),
                conflicts_with: conflicts,
            };
        // unique: an earlier accepted call sent the same value.
        let mut found = None;
        if let Some(o) = body.as_object() {
            'outer: for &j in accepted.iter().filter(|&&j| j < i).rev() {
                let Some(prev) = exchanges[j].body.as_ref().and_then(Value::as_object) else {
                    continue;
                };
                for (k, v) in o {
                    let is_key = resources[t.resource].keys.iter().any(|key| &key.name == k);
                    if scalar_text(v).is_some() && prev.get(k) == Some(v) && !is_key {
                        let ord = exchanges[j].ordinal;
                        found = Some(rule("unique", Some(k.clone()), vec![ord], Some(ord)));
                        break 'outer;
                    }
                }
            }
            // ... or an entity already known holds it as its key.
            if found.is_none() && t.role == "create" {
                let r = &resources[t.resource];
                'keys: for key in &r.keys {
                    let Some(v) = o.get(&key.name).and_then(scalar_text) else {
                        continue;
                    };
                    if let Some((_, ord)) = snaps.any_scope(t.resource, &v) {
                        found = Some(rule(
                            "unique",
                            Some(key.name.clone()),
                            vec![*ord],
                            Some(*ord),
                        ));
                        break 'keys;
                    }
                }
            }
        }
        if found.is_none() && !accepted.is_empty() {
            // required: sent by every accepted call, missing here.
            let mut common: Option<BTreeSet<String>> = None;
            for &j in &accepted {
                let mut s = BTreeSet::new();
                if let Some(b) = &exchanges[j].body {
                    member_paths(b, "", &mut s);
                }
                common = Some(match common {
                    None => s,
                    Some(c) => c.intersection(&s).cloned().collect(),
                });
            }
            let missing: Vec<String> = common
                .unwrap_or_default()
                .into_iter()
                .filter(|m| !sent.contains(m))
                .filter(|m| {
                    // Only members whose parent was sent (a missing member, not a missing branch).
                    let parent = m.rsplit_once(['.']).map(|(p, _)| p.to_string());
                    let parent = parent.or_else(|| m.strip_suffix("[]").map(str::to_string));
                    parent.is_none_or(|p| {
                        sent.contains(&p) || sent.contains(p.trim_end_matches("[]"))
                    })
                })
                .collect();
            // An answer keyed by exactly the missing members names them.
            let keyed = x
                .answer
                .as_ref()
                .and_then(Value::as_object)
                .filter(|o| !o.is_empty() && o.keys().all(|k| missing.contains(k)));
            let named: Vec<&String> = match keyed {
                Some(o) => missing.iter().filter(|m| o.contains_key(*m)).collect(),
                None => missing.iter().filter(|m| mentions(leaf_name(m))).collect(),
            };
            if let Some(m) = named.first().copied() {
                found = Some(rule(
                    "required",
                    Some(m.clone()),
                    accepted.iter().map(|&j| exchanges[j].ordinal).collect(),
                    None,
                ));
            }
        }
        if found.is_none() {
            if let Some(o) = body.as_object() {
                let hit = o.iter().find(|(k, v)| {
                    mentions(k)
                        && !accepted.iter().any(|&j| {
                            exchanges[j].body.as_ref().and_then(|b| b.get(*k)) == Some(*v)
                        })
                });
                if let Some((k, _)) = hit {
                    found = Some(rule(
                        "invalid-value",
                        Some(k.clone()),
                        accepted.iter().map(|&j| exchanges[j].ordinal).collect(),
                        None,
                    ));
                }
            }
        }
        out.push(found.unwrap_or_else(|| rule("unexplained", None, Vec::new(), None)));
    }
    out
}
