//! The sibling-comparison rules: `sibling-pair-variance` (two adjacent
//! literals after a plural) and `sibling-variance` (one literal at index 2
//! or later, plus folding literal siblings into an existing parameter).

use super::route::{merge_equal, Route, SegKey, TSeg};
use super::words::{is_stop_word, is_version, singular};
use super::{TemplateRule, MAX_COMPARED_SEGMENTS};
use std::collections::{BTreeMap, BTreeSet};

fn comparable(route: &Route) -> bool {
    route.segs.len() <= MAX_COMPARED_SEGMENTS
}

fn qualifies(lit: &str) -> bool {
    !lit.is_empty() && !is_stop_word(lit) && !is_version(lit)
}

/// The key of a route with positions `skip` blanked out.
fn scope_key(route: &Route, skip: &[usize]) -> (String, String, Vec<Option<SegKey>>) {
    let keys = route
        .segs
        .iter()
        .enumerate()
        .map(|(i, s)| (!skip.contains(&i)).then(|| s.key()))
        .collect();
    (route.origin.clone(), route.method.clone(), keys)
}

/// `/repos/alice/web/issues`, `/repos/bob/cli/issues`,
/// `/repos/carol/docs/issues` → `/repos/{repo_namespace}/{repo_name}/issues`.
pub(crate) fn pair_variance(routes: &mut Vec<Route>) {
    let longest = routes.iter().map(|r| r.segs.len()).max().unwrap_or(0);
    for i in 2..longest.saturating_sub(2) {
        let mut buckets: BTreeMap<_, Vec<usize>> = BTreeMap::new();
        for (r, route) in routes.iter().enumerate() {
            if !comparable(route) || route.segs.len() < i + 3 {
                continue;
            }
            let plural = route.segs[i - 1].literal().and_then(singular);
            let (Some(_), Some(a), Some(b), Some(_)) = (
                plural,
                route.segs[i].literal(),
                route.segs[i + 1].literal(),
                route.segs[i + 2].literal(),
            ) else {
                continue;
            };
            if qualifies(a) && qualifies(b) {
                buckets
                    .entry(scope_key(route, &[i, i + 1]))
                    .or_default()
                    .push(r);
            }
        }
        let mut changed = false;
        for members in buckets.values() {
            let pairs: BTreeSet<(&str, &str)> = members
                .iter()
                .filter_map(|&r| {
                    Some((
                        routes[r].segs[i].literal()?,
                        routes[r].segs[i + 1].literal()?,
                    ))
                })
                .collect();
            let firsts: BTreeSet<&str> = pairs.iter().map(|p| p.0).collect();
            let seconds: BTreeSet<&str> = pairs.iter().map(|p| p.1).collect();
            if pairs.len() < 3 || firsts.len() < 2 || seconds.len() < 2 {
                continue;
            }
            let members = members.clone();
            let Some(base) = routes[members[0]].segs[i - 1].literal().and_then(singular) else {
                continue;
            };
            let (ns, name) = (format!("{base}_namespace"), format!("{base}_name"));
            for r in members {
                let route = &mut routes[r];
                let (Some(a), Some(b)) = (route.segs[i].literal(), route.segs[i + 1].literal())
                else {
                    continue;
                };
                let (a, b) = (a.to_string(), b.to_string());
                route.segs[i] = TSeg::param(&ns, "sibling-pair-variance", &a);
                route.segs[i + 1] = TSeg::param(&name, "sibling-pair-variance", &b);
                changed = true;
            }
        }
        if changed {
            *routes = merge_equal(std::mem::take(routes));
        }
    }
}

/// Identifier-like: a digit or `:`, or three or more hyphen-joined names
/// under a plural literal.
fn identifier_like(lit: &str, under_plural: bool) -> bool {
    if lit.bytes().any(|b| b.is_ascii_digit() || b == b':') {
        return true;
    }
    under_plural && lit.split('-').filter(|p| !p.is_empty()).count() >= 3 && !lit.contains("--")
}

/// The parameter name for position `i`: singular of the previous literal
/// plus `_id` (the literal itself when it is not a plural), else `id`.
fn param_name(route: &Route, i: usize) -> String {
    match route.segs[i - 1].literal() {
        Some(prev) => {
            let base = singular(prev).unwrap_or_else(|| prev.to_string());
            let clean = crate::manifest::naming::sanitize(&base);
            if clean.is_empty() {
                "id".to_string()
            } else {
                format!("{clean}_id")
            }
        }
        None => "id".to_string(),
    }
}

/// Runs `sibling-variance` to a fixed point (bounded by the route count).
pub(crate) fn variance(routes: &mut Vec<Route>) {
    for _ in 0..=routes.len() {
        if !variance_pass(routes) {
            break;
        }
        *routes = merge_equal(std::mem::take(routes));
    }
}

fn variance_pass(routes: &mut [Route]) -> bool {
    let longest = routes.iter().map(|r| r.segs.len()).max().unwrap_or(0);
    let mut changed = false;
    for i in 2..longest {
        let mut buckets: BTreeMap<_, Vec<usize>> = BTreeMap::new();
        for (r, route) in routes.iter().enumerate() {
            if !comparable(route) || route.segs.len() <= i {
                continue;
            }
            if matches!(route.segs[i], TSeg::Lit(_) | TSeg::Param { .. }) {
                buckets.entry(scope_key(route, &[i])).or_default().push(r);
            }
        }
        for members in buckets.values().filter(|m| m.len() >= 2) {
            // Existing opt-in parameters at this position, earliest rule first.
            let mut params: Vec<(usize, String, &'static str)> = members
                .iter()
                .filter_map(|&r| match &routes[r].segs[i] {
                    TSeg::Param { name, rule, .. } => {
                        Some((TemplateRule::rank_of_label(rule), name.clone(), *rule))
                    }
                    _ => None,
                })
                .collect();
            params.sort();
            params.dedup();
            let literals: Vec<usize> = members
                .iter()
                .copied()
                .filter(|&r| routes[r].segs[i].literal().is_some_and(qualifies))
                .collect();
            let sibling_rank = TemplateRule::rank_of_label("sibling-variance");
            if let Some((_, name, rule)) = params.iter().find(|p| p.0 < sibling_rank).cloned() {
                // Literal siblings fold into an earlier rule's parameter.
                for r in literals {
                    let lit = routes[r].segs[i].literal().unwrap_or_default().to_string();
                    routes[r].segs[i] = TSeg::param(&name, rule, &lit);
                    changed = true;
                }
                continue;
            }
            let under_plural =
                |r: usize| routes[r].segs[i - 1].literal().and_then(singular).is_some();
            let ids: Vec<usize> = literals
                .into_iter()
                .filter(|&r| {
                    identifier_like(routes[r].segs[i].literal().unwrap_or(""), under_plural(r))
                })
                .collect();
            let distinct: BTreeSet<&str> = ids
                .iter()
                .filter_map(|&r| routes[r].segs[i].literal())
                .collect();
            let existing = params
                .iter()
                .find(|p| p.2 == "sibling-variance")
                .map(|p| p.1.clone());
            if ids.is_empty() || (existing.is_none() && distinct.len() < 2) {
                continue;
            }
            let name = existing.unwrap_or_else(|| param_name(&routes[ids[0]], i));
            for r in ids {
                let lit = routes[r].segs[i].literal().unwrap_or_default().to_string();
                routes[r].segs[i] = TSeg::param(&name, "sibling-variance", &lit);
                changed = true;
            }
        }
    }
    changed
}
