//! `prefix-variance`: a literal at a position that another tool templates
//! by an earlier opt-in rule, behind the same preceding segments, shares
//! that parameter when it was observed there or is spelled like its values.

use super::route::{Route, SegKey, TSeg};
use super::words::{is_stop_word, is_version};
use super::{TemplateRule, MAX_COMPARED_SEGMENTS};
use std::collections::{BTreeMap, BTreeSet};

/// Character classes of a literal: digits, lower case, upper case, and
/// each other character by itself.
fn classes(s: &str) -> BTreeSet<String> {
    s.chars()
        .map(|c| {
            if c.is_ascii_digit() {
                "digit".to_string()
            } else if c.is_lowercase() {
                "lower".to_string()
            } else if c.is_uppercase() {
                "upper".to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// A parameter another tool holds at a position, as a candidate.
#[derive(Debug, Clone)]
struct Source {
    rank: usize,
    name: String,
    observed: BTreeSet<String>,
}

/// Does `lit` qualify for a parameter with these observed values?
pub(crate) fn spelled_like(lit: &str, observed: &BTreeSet<String>) -> bool {
    let len = lit.chars().count();
    let mine = classes(lit);
    if lit.bytes().any(|b| b.is_ascii_digit())
        && observed
            .iter()
            .any(|v| v.chars().count() == len && classes(v) == mine)
    {
        return true;
    }
    let lengths: BTreeSet<usize> = observed.iter().map(|v| v.chars().count()).collect();
    if lengths.len() == 1 && lengths.first() == Some(&len) && len >= 8 {
        let theirs: BTreeSet<String> = observed.iter().flat_map(|v| classes(v)).collect();
        return mine.is_subset(&theirs);
    }
    false
}

fn choose<'s>(lit: &str, sources: &'s [Source]) -> Option<&'s Source> {
    sources
        .iter()
        .filter(|s| s.observed.contains(lit))
        .min_by_key(|s| s.rank)
        .or_else(|| {
            sources
                .iter()
                .filter(|s| spelled_like(lit, &s.observed))
                .min_by_key(|s| s.rank)
        })
}

/// Runs `prefix-variance` position by position, shallow first, so deeper
/// routes see the parameters their prefixes just gained.
pub(crate) fn variance(routes: &mut [Route]) {
    let longest = routes.iter().map(|r| r.segs.len()).max().unwrap_or(0);
    let prefix_rank = TemplateRule::rank_of_label("prefix-variance");
    for i in 0..longest.min(MAX_COMPARED_SEGMENTS) {
        // Sources: (prefix keys) → parameters templated at i by an earlier rule.
        let mut sources: BTreeMap<Vec<SegKey>, Vec<(usize, Source)>> = BTreeMap::new();
        for (r, route) in routes.iter().enumerate() {
            if route.segs.len() > MAX_COMPARED_SEGMENTS || route.segs.len() <= i {
                continue;
            }
            if let TSeg::Param {
                name,
                rule,
                observed,
            } = &route.segs[i]
            {
                let rank = TemplateRule::rank_of_label(rule);
                if rank < prefix_rank {
                    let prefix: Vec<SegKey> = route.segs[..i].iter().map(TSeg::key).collect();
                    let list = sources.entry(prefix).or_default();
                    match list
                        .iter_mut()
                        .find(|(_, s)| s.name == *name && s.rank == rank)
                    {
                        Some((_, s)) => s.observed.extend(observed.iter().cloned()),
                        None => list.push((
                            r,
                            Source {
                                rank,
                                name: name.clone(),
                                observed: observed.clone(),
                            },
                        )),
                    }
                }
            }
        }
        if sources.is_empty() {
            continue;
        }
        for (r, route) in routes.iter_mut().enumerate() {
            if route.segs.len() > MAX_COMPARED_SEGMENTS || route.segs.len() <= i {
                continue;
            }
            let Some(lit) = route.segs[i].literal() else {
                continue;
            };
            if lit.is_empty() || is_stop_word(lit) || is_version(lit) {
                continue;
            }
            let prefix: Vec<SegKey> = route.segs[..i].iter().map(TSeg::key).collect();
            let Some(list) = sources.get(&prefix) else {
                continue;
            };
            // Another tool's parameter (a route with a literal here is never a source).
            let candidates: Vec<Source> = list
                .iter()
                .filter(|(owner, _)| *owner != r)
                .map(|(_, s)| s.clone())
                .collect();
            if let Some(source) = choose(lit, &candidates) {
                let lit = lit.to_string();
                route.segs[i] = TSeg::param(&source.name, "prefix-variance", &lit);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(items: &[&str]) -> BTreeSet<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn spelling_rules() {
        assert!(spelled_like("1ABCD23EFGH4K", &set(&["0RZ576QZQA5KG"])));
        assert!(spelled_like("ABCDEFGHIJKLM", &set(&["0RZ576QZQA5KG"])));
        assert!(!spelled_like("abcdefghijklm", &set(&["0RZ576QZQA5KG"])));
        assert!(spelled_like("mnopqrst", &set(&["abcdefgh", "zyxwvuts"])));
        assert!(!spelled_like("mnopqrs", &set(&["abcdefgh", "zyxwvuts"])));
        assert!(!spelled_like("MNOPQRST", &set(&["abcdefgh", "zyxwvuts"])));
        assert!(!spelled_like("abc", &set(&["abcdefgh", "xy"])));
    }
}
