//! The one grouping accumulator: request lines keyed by method, WHATWG
//! origin and four-rule path template, with observed literals, statuses,
//! MIME essences, ordinals, exclusions and (opt-in) query names. Every
//! retained value is charged to the budget before it is stored.

use super::format_rules::{classify, FormatRule};
use super::query;
use super::records::{self, Exclusion, Sample};
use crate::budget::{escaped_size, Budget, SLOT};
use crate::error::DeriveError;
use crate::source::Parent;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// One segment of a four-rule path template.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Seg {
    Lit(String),
    Fmt(FormatRule),
}

impl Seg {
    pub(crate) fn spelling(&self) -> &str {
        match self {
            Seg::Lit(s) => s,
            Seg::Fmt(rule) => rule.placeholder(),
        }
    }
}

/// Joins segments into a template: `/` + segments joined by `/`.
pub(crate) fn template_of(segs: &[Seg]) -> String {
    let mut out = String::new();
    for s in segs {
        out.push('/');
        out.push_str(s.spelling());
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

/// One api-surface group.
#[derive(Debug, Clone)]
pub(crate) struct Group {
    pub(crate) origin: String,
    pub(crate) method: String,
    pub(crate) segs: Vec<Seg>,
    pub(crate) template: String,
    /// Observed literals per format-templated segment index.
    pub(crate) observed: BTreeMap<usize, BTreeSet<String>>,
    /// Ordinals in the parent's record order.
    pub(crate) ordinals: Vec<u64>,
    /// Index into the parent's `records` array, parallel to `ordinals`.
    pub(crate) record_indexes: Vec<usize>,
    pub(crate) statuses: BTreeSet<u16>,
    pub(crate) unknown_status: u64,
    pub(crate) mimes: BTreeSet<String>,
    pub(crate) unknown_mime: u64,
    /// Decoded query names and the ordinals that carried them.
    pub(crate) query: BTreeMap<String, Vec<u64>>,
}

impl Group {
    pub(crate) fn is_templated(&self) -> bool {
        self.segs.iter().any(|s| matches!(s, Seg::Fmt(_)))
    }
}

/// The whole grouping of a parent.
#[derive(Debug)]
pub(crate) struct Grouping {
    /// Sorted by origin, template, method.
    pub(crate) groups: Vec<Group>,
    /// Excluded records in parent order.
    pub(crate) exclusions: Vec<(u64, Exclusion)>,
    pub(crate) examined: u64,
    pub(crate) retained: u64,
    pub(crate) total: u64,
    pub(crate) subset: bool,
    pub(crate) limitations: Vec<String>,
}

impl Grouping {
    pub(crate) fn templated_groups(&self) -> usize {
        self.groups.iter().filter(|g| g.is_templated()).count()
    }
}

type Key = (String, String, String, Vec<Seg>);

/// Groups every retained record of an admitted parent.
pub(crate) fn group(
    parent: &Parent<'_>,
    include_query: bool,
    budget: &mut Budget,
) -> Result<Grouping, DeriveError> {
    let mut map: BTreeMap<Key, Group> = BTreeMap::new();
    let mut exclusions = Vec::new();
    let mut limitations = parent.limitations.clone();
    for text in &limitations {
        budget.charge_text(text)?;
    }
    for (index, record) in parent.records.iter().enumerate() {
        let (ordinal, read) = records::read(record);
        if let Some(items) = record.get("limitations").and_then(Value::as_array) {
            for text in items.iter().filter_map(Value::as_str) {
                if !limitations.iter().any(|l| l == text) {
                    budget.charge_text(text)?;
                    limitations.push(text.to_string());
                }
            }
        }
        match read {
            Ok(sample) => admit(&mut map, index, &sample, include_query, budget)?,
            Err(why) => {
                budget.charge(SLOT * 2)?;
                exclusions.push((ordinal, why));
            }
        }
    }
    let groups: Vec<Group> = map.into_values().collect();
    Ok(Grouping {
        groups,
        exclusions,
        examined: parent.records.len() as u64,
        retained: parent.records.len() as u64,
        total: parent.total_records,
        subset: parent.subset,
        limitations,
    })
}

fn admit(
    map: &mut BTreeMap<Key, Group>,
    index: usize,
    sample: &Sample<'_>,
    include_query: bool,
    budget: &mut Budget,
) -> Result<(), DeriveError> {
    let path = sample.url.path;
    let raw_query = sample.url.query.unwrap_or("");
    // Temporary work for this record: path segments, template, query tuples.
    let temp = escaped_size(path) * 2 + escaped_size(raw_query) * 2 + SLOT * 8;
    budget.charge(temp)?;
    let result = admit_charged(map, index, sample, include_query, budget);
    budget.release(temp);
    result
}

fn admit_charged(
    map: &mut BTreeMap<Key, Group>,
    index: usize,
    sample: &Sample<'_>,
    include_query: bool,
    budget: &mut Budget,
) -> Result<(), DeriveError> {
    let body = sample.url.path.strip_prefix('/').unwrap_or(sample.url.path);
    let segs: Vec<Seg> = body
        .split('/')
        .map(|s| classify(s).map_or_else(|| Seg::Lit(s.to_string()), Seg::Fmt))
        .collect();
    let template = template_of(&segs);
    let key: Key = (
        sample.url.origin.clone(),
        template,
        sample.method.to_string(),
        segs,
    );
    if !map.contains_key(&key) {
        let literal_bytes: u64 = key
            .3
            .iter()
            .map(|s| escaped_size(s.spelling()) + SLOT)
            .sum();
        budget.charge(
            SLOT * 16
                + escaped_size(&key.0)
                + escaped_size(&key.1)
                + escaped_size(&key.2)
                + literal_bytes,
        )?;
        let group = Group {
            origin: key.0.clone(),
            method: key.2.clone(),
            segs: key.3.clone(),
            template: key.1.clone(),
            observed: BTreeMap::new(),
            ordinals: Vec::new(),
            record_indexes: Vec::new(),
            statuses: BTreeSet::new(),
            unknown_status: 0,
            mimes: BTreeSet::new(),
            unknown_mime: 0,
            query: BTreeMap::new(),
        };
        map.insert(key.clone(), group);
    }
    let Some(group) = map.get_mut(&key) else {
        return Ok(());
    };
    let literals: Vec<&str> = body.split('/').collect();
    for (i, seg) in key.3.iter().enumerate() {
        if matches!(seg, Seg::Fmt(_)) {
            let lit = literals.get(i).copied().unwrap_or("");
            let known = group.observed.get(&i).is_some_and(|set| set.contains(lit));
            if !known {
                budget.charge_text(lit)?;
                group.observed.entry(i).or_default().insert(lit.to_string());
            }
        }
    }
    budget.charge(16)?;
    group.ordinals.push(sample.ordinal);
    group.record_indexes.push(index);
    match sample.status {
        Some(s) => {
            if !group.statuses.contains(&s) {
                budget.charge(SLOT)?;
                group.statuses.insert(s);
            }
        }
        None => group.unknown_status += 1,
    }
    match &sample.mime {
        Some(m) => {
            if !group.mimes.contains(m) {
                budget.charge_text(m)?;
                group.mimes.insert(m.clone());
            }
        }
        None => group.unknown_mime += 1,
    }
    if include_query {
        if let Some(q) = sample.url.query {
            for name in query::names(q) {
                let entry_cost = if group.query.contains_key(&name) {
                    0
                } else {
                    escaped_size(&name) + SLOT
                };
                budget.charge(entry_cost + 8)?;
                group.query.entry(name).or_default().push(sample.ordinal);
            }
        }
    }
    Ok(())
}
