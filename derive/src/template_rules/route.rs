//! A tool's route while the opt-in rules rewrite it: segments that are
//! literals, format-rule placeholders or named parameters, each
//! placeholder with its observed literals; routes that become equal merge.

use crate::surface::format_rules::FormatRule;
use std::collections::{BTreeMap, BTreeSet};

/// One route segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TSeg {
    Lit(String),
    Fmt {
        rule: FormatRule,
        observed: BTreeSet<String>,
    },
    /// An opt-in parameter; `rule` is its label (e.g. `sibling-variance`).
    Param {
        name: String,
        rule: &'static str,
        observed: BTreeSet<String>,
    },
}

/// How a segment compares: literal text, format rule or parameter name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum SegKey {
    Lit(String),
    Fmt(FormatRule),
    Param(String),
}

impl TSeg {
    pub(crate) fn key(&self) -> SegKey {
        match self {
            TSeg::Lit(s) => SegKey::Lit(s.clone()),
            TSeg::Fmt { rule, .. } => SegKey::Fmt(*rule),
            TSeg::Param { name, .. } => SegKey::Param(name.clone()),
        }
    }

    pub(crate) fn literal(&self) -> Option<&str> {
        match self {
            TSeg::Lit(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn param(name: &str, rule: &'static str, literal: &str) -> TSeg {
        TSeg::Param {
            name: name.to_string(),
            rule,
            observed: BTreeSet::from([literal.to_string()]),
        }
    }

    fn absorb(&mut self, other: &TSeg) {
        match (self, other) {
            (TSeg::Fmt { observed, .. }, TSeg::Fmt { observed: more, .. }) => {
                observed.extend(more.iter().cloned())
            }
            (
                TSeg::Param { rule, observed, .. },
                TSeg::Param {
                    rule: other_rule,
                    observed: more,
                    ..
                },
            ) => {
                observed.extend(more.iter().cloned());
                // A merged tool's own rule wins over the shared label.
                if *rule == "prefix-variance" && *other_rule != "prefix-variance" {
                    *rule = other_rule;
                }
            }
            _ => {}
        }
    }
}

/// One candidate tool: a method and origin, its segments, and the
/// api-surface groups (indexes into the grouping) it serves.
#[derive(Debug, Clone)]
pub(crate) struct Route {
    pub(crate) method: String,
    pub(crate) origin: String,
    pub(crate) segs: Vec<TSeg>,
    pub(crate) groups: Vec<usize>,
}

impl Route {
    pub(crate) fn keys(&self) -> Vec<SegKey> {
        self.segs.iter().map(TSeg::key).collect()
    }

    /// The path template: literals as recorded, format placeholders in
    /// their api-surface spelling, parameters as `{name}`.
    pub(crate) fn template(&self) -> String {
        let mut out = String::new();
        for s in &self.segs {
            out.push('/');
            match s {
                TSeg::Lit(l) => out.push_str(l),
                TSeg::Fmt { rule, .. } => out.push_str(rule.placeholder()),
                TSeg::Param { name, .. } => {
                    out.push('{');
                    out.push_str(name);
                    out.push('}');
                }
            }
        }
        if out.is_empty() {
            out.push('/');
        }
        out
    }
}

/// Merges routes equal in method, origin and segment keys, keeping the
/// first-seen order.
pub(crate) fn merge_equal(routes: Vec<Route>) -> Vec<Route> {
    let mut index: BTreeMap<(String, String, Vec<SegKey>), usize> = BTreeMap::new();
    let mut out: Vec<Route> = Vec::with_capacity(routes.len());
    for route in routes {
        let key = (route.origin.clone(), route.method.clone(), route.keys());
        match index.get(&key) {
            Some(&i) => {
                let target = &mut out[i];
                for (seg, other) in target.segs.iter_mut().zip(route.segs.iter()) {
                    seg.absorb(other);
                }
                target.groups.extend(route.groups);
                target.groups.sort_unstable();
                target.groups.dedup();
            }
            None => {
                index.insert(key, out.len());
                out.push(route);
            }
        }
    }
    out
}
