//! Assembles the environment state: refusals, timeline, initial reads,
//! types and identity, entities, view plans (checked by rendering them with
//! the engine), documents, budget, unknowns.

use crate::budget::{Budget, PROJECTION_BUDGET, SLOT};
use crate::engine::codec::parent_path as parent_collection;
use crate::engine::{compile, normalize_path, path_segments, percent_decode, Segment};
use crate::error::DeriveError;
use crate::manifest::manifest_budgeted;
use crate::manifest::Manifest;
use crate::source::admit_parent;
use crate::state::entities::{merge, Listing, Sighting};
use crate::state::identity::{
    choose_list_pointer, identity_name_field, list_at, prove_item, suffix_field,
};
use crate::state::records::{records_of, Body, Record};
use crate::state::timeline::{
    is_query_post, is_state_write, is_write_tool, roots_related, Roots, Timeline,
};
use crate::state::usable::usable_body;
use crate::state::views::{plan_views, ReadTool, ToolKind};
use crate::state::{EntityType, IdBasis, State, StateWrite, TimelineOrder};
use crate::template_rules::TemplateRule;
use indexmap::IndexMap;
use serde_json::Value;
use std::collections::HashMap;

/// The three facts the state never establishes.
pub(crate) const UNKNOWNS: [&str; 3] = [
    "The state establishes no authorization model: every call is answered as the recorded user saw it.",
    "The state does not establish how the application computes responses or derived values; it holds recorded values.",
    "Write effects are known only as far as the write plans model them from recorded calls.",
];

/// Derives the environment state of an Evidence document: the manifest
/// with the same template rules (query names included), then the state,
/// both charged to one 96 MiB budget.
pub fn environment_state(evidence: &Value, rules: &[TemplateRule]) -> Result<State, DeriveError> {
    environment_state_budgeted(evidence, rules, &mut Budget::new(PROJECTION_BUDGET))
}

/// The `environment-state` analysis view; `inline` says the Evidence came
/// inline (its envelope is then admitted as text, as for the manifest).
pub fn environment_state_view(
    evidence: &Value,
    rules: &[TemplateRule],
    inline: bool,
) -> Result<State, DeriveError> {
    let mut budget = Budget::new(PROJECTION_BUDGET);
    let manifest = manifest_budgeted(evidence, rules, true, inline, &mut budget)?;
    state_after_manifest(evidence, &manifest, &mut budget)
}

/// `environment_state` within a given budget (tests use small ones).
pub fn environment_state_budgeted(
    evidence: &Value,
    rules: &[TemplateRule],
    budget: &mut Budget,
) -> Result<State, DeriveError> {
    let manifest = manifest_budgeted(evidence, rules, true, false, budget)?;
    state_after_manifest(evidence, &manifest, budget)
}

/// The state for a manifest the caller already derived from `evidence`
/// (with the same template rules); the manifest is charged at its size.
pub fn environment_state_for(evidence: &Value, manifest: &Manifest) -> Result<State, DeriveError> {
    let mut budget = manifest_admitted(evidence, manifest)?;
    state_after_manifest(evidence, manifest, &mut budget)
}

/// The state budget with `evidence` admitted and `manifest` charged at its size.
fn manifest_admitted(evidence: &Value, manifest: &Manifest) -> Result<Budget, DeriveError> {
    let mut budget = Budget::new(PROJECTION_BUDGET);
    admit_parent(evidence)?;
    budget.charge(
        serde_json::to_string(manifest)
            .map(|s| s.len() as u64)
            .unwrap_or(0),
    )?;
    Ok(budget)
}

/// `environment_state_for` over records the caller already read from
/// `evidence` with `records_of` (so a server reads them once and hands the
/// same records to its engine).
pub fn environment_state_with_records(
    evidence: &Value,
    manifest: &Manifest,
    records: &[Record],
) -> Result<State, DeriveError> {
    let mut budget = manifest_admitted(evidence, manifest)?;
    state_from_records(records, manifest, &mut budget)
}

fn state_after_manifest(
    evidence: &Value,
    manifest: &Manifest,
    budget: &mut Budget,
) -> Result<State, DeriveError> {
    admit_parent(evidence)?;
    let records = records_of(evidence);
    state_from_records(&records, manifest, budget)
}

fn state_from_records(
    records: &[Record],
    manifest: &Manifest,
    budget: &mut Budget,
) -> Result<State, DeriveError> {
    for r in records {
        budget.charge(
            SLOT + (r.method.len()
                + r.path.as_ref().map_or(0, String::len)
                + r.query.as_ref().map_or(0, String::len)) as u64,
        )?;
    }
    derive_from_records(records, manifest, budget)
}

/// The charge for a value the state keeps: one slot per value and entry,
/// plus its strings' bytes.
pub(crate) fn kept_charge(value: &Value) -> u64 {
    let mut total = 0u64;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        total = total.saturating_add(SLOT);
        match v {
            Value::String(s) => total = total.saturating_add(s.len() as u64),
            Value::Array(items) => stack.extend(items.iter()),
            Value::Object(map) => {
                for (k, item) in map {
                    total = total.saturating_add(SLOT + k.len() as u64);
                    stack.push(item);
                }
            }
            _ => {}
        }
    }
    total
}

/// A state write with its timeline facts.
#[derive(Debug, Clone)]
pub(crate) struct WriteAt {
    pub(crate) pos: usize,
    pub(crate) started_ms: Option<f64>,
    /// `None`: unknown target.
    pub(crate) root: Option<String>,
}

/// Everything the derivation shares.
pub(crate) struct Ctx<'a> {
    pub(crate) manifest: &'a Manifest,
    pub(crate) records: &'a [Record],
    pub(crate) by_ordinal: HashMap<u64, usize>,
    pub(crate) timeline: Timeline,
    pub(crate) roots: Roots,
    pub(crate) writes: Vec<WriteAt>,
    /// Number of state writes at timeline positions `< p`.
    pub(crate) writes_before: Vec<usize>,
    /// Per root: the index in `writes` of the first write that ends it.
    pub(crate) first_write: std::cell::RefCell<HashMap<String, Option<usize>>>,
}

impl Ctx<'_> {
    pub(crate) fn record(&self, ordinal: u64) -> Option<&Record> {
        self.by_ordinal.get(&ordinal).map(|&i| &self.records[i])
    }

    pub(crate) fn pos(&self, ordinal: u64) -> Option<usize> {
        self.timeline.position.get(&ordinal).copied()
    }

    /// True when a state write lies strictly between two positions.
    pub(crate) fn writes_between(&self, a: usize, b: usize) -> bool {
        let (lo, hi) = if a < b { (a, b) } else { (b, a) };
        hi > lo + 1 && self.writes_before[hi] > self.writes_before[lo + 1]
    }

    /// True when a read at `ordinal` under `root` is an initial read: a 2xx
    /// that finished before the first write under a related root started.
    pub(crate) fn is_initial(&self, rec: &Record, root: &str) -> bool {
        if !rec.is_2xx() {
            return false;
        }
        let Some(pos) = self.pos(rec.ordinal) else {
            return false;
        };
        let first = *self
            .first_write
            .borrow_mut()
            .entry(root.to_string())
            .or_insert_with(|| {
                self.writes
                    .iter()
                    .position(|w| w.root.as_deref().is_none_or(|r| roots_related(r, root)))
            });
        let Some(w) = first.map(|i| &self.writes[i]) else {
            return true;
        };
        if pos >= w.pos {
            return false;
        }
        match (self.timeline.by_start_time, rec.ended_ms(), w.started_ms) {
            (true, Some(end), Some(start)) => end <= start,
            _ => true,
        }
    }
}

fn derive_from_records(
    records: &[Record],
    manifest: &Manifest,
    budget: &mut Budget,
) -> Result<State, DeriveError> {
    let timeline = Timeline::new(records, &manifest.origin);
    let roots = Roots::new(&manifest.tools);
    let by_ordinal: HashMap<u64, usize> = records
        .iter()
        .enumerate()
        .map(|(i, r)| (r.ordinal, i))
        .collect();
    let mut writes = Vec::new();
    let mut state_writes = Vec::new();
    let mut writes_before = Vec::with_capacity(timeline.order.len() + 1);
    let mut tool_of: HashMap<u64, &str> = HashMap::new();
    for t in &manifest.tools {
        for o in &t.record_ordinals {
            tool_of.insert(*o, &t.name);
        }
    }
    let mut redacted_writes = 0usize;
    for (pos, &i) in timeline.order.iter().enumerate() {
        writes_before.push(writes.len());
        let r = &records[i];
        if is_state_write(r) {
            let root = r.path.as_deref().map(|p| roots.root_of(p));
            if root.is_none() {
                redacted_writes += 1;
            }
            writes.push(WriteAt {
                pos,
                started_ms: r.started_ms,
                root: root.clone(),
            });
            state_writes.push(StateWrite {
                ordinal: r.ordinal,
                method: r.method.clone(),
                path: r.path.clone(),
                root,
                status: r.status,
                tool: tool_of.get(&r.ordinal).map(|s| s.to_string()),
            });
        }
    }
    writes_before.push(writes.len());
    let ctx = Ctx {
        manifest,
        records,
        by_ordinal,
        timeline,
        roots,
        writes,
        writes_before,
        first_write: Default::default(),
    };

    // Read tools and their initial, usable responses.
    let mut reads: Vec<ReadTool> = Vec::new();
    for (index, tool) in manifest.tools.iter().enumerate() {
        if is_write_tool(tool) {
            continue;
        }
        let segments = compile(&tool.path_template);
        let kind = if is_query_post(&tool.method, &tool.path_template) {
            ToolKind::QueryPost
        } else if !tool.method.eq_ignore_ascii_case("GET") {
            ToolKind::OtherMethod
        } else if matches!(segments.last(), Some(Segment::Param(_))) {
            ToolKind::Item
        } else {
            ToolKind::List
        };
        let collection_template = if kind == ToolKind::Item {
            let segs = path_segments(&tool.path_template);
            normalize_path(&segs[..segs.len().saturating_sub(1)].join("/"))
        } else {
            normalize_path(&tool.path_template)
        };
        let mut ordinals: Vec<u64> = tool.record_ordinals.clone();
        ordinals.sort_by_key(|o| ctx.pos(*o).unwrap_or(usize::MAX));
        let mut initial = Vec::new();
        let mut unusable = false;
        for &o in &ordinals {
            let Some(rec) = ctx.record(o) else { continue };
            let Some(path) = rec.path.as_deref() else {
                continue;
            };
            let collection = if kind == ToolKind::Item {
                parent_collection(path)
            } else {
                normalize_path(path)
            };
            let root = ctx.roots.root_of(&collection);
            if !ctx.is_initial(rec, &root) {
                continue;
            }
            let text = match &rec.response_body {
                Body::Text(t) => Some(t.as_str()),
                _ => None,
            };
            let temp = rec.response_body.len() as u64;
            budget.charge(temp)?;
            let parsed = usable_body(rec.response_content_type.as_deref(), text);
            budget.release(temp);
            match parsed {
                Ok(value) => {
                    budget.charge(kept_charge(&value))?;
                    initial.push(crate::state::views::Obs {
                        ordinal: o,
                        pos: ctx.pos(o).unwrap_or(0),
                        line: rec.line().unwrap_or_default(),
                        path: path.to_string(),
                        collection,
                        requested: path_segments(path)
                            .last()
                            .map(|s| percent_decode(s))
                            .unwrap_or_default(),
                        value,
                    });
                }
                Err(_) => unusable = true,
            }
        }
        reads.push(ReadTool {
            index,
            kind,
            collection_template,
            ordinals,
            initial,
            unusable,
        });
    }

    // Types: one per collection template that an item tool or an identified list names.
    let mut keys: Vec<String> = Vec::new();
    for r in &reads {
        if matches!(r.kind, ToolKind::Item | ToolKind::List)
            && !keys.contains(&r.collection_template)
        {
            keys.push(r.collection_template.clone());
        }
    }
    keys.sort();
    let names = type_names(&keys);
    let mut types: Vec<EntityType> = Vec::new();
    let mut all_entities = Vec::new();
    let mut list_pointers: HashMap<usize, String> = HashMap::new();
    let mut item_pointers: HashMap<usize, String> = HashMap::new();
    for (key, name) in keys.iter().zip(&names) {
        let members: Vec<&ReadTool> = reads
            .iter()
            .filter(|r| {
                &r.collection_template == key && matches!(r.kind, ToolKind::Item | ToolKind::List)
            })
            .collect();
        // Item proof (path-parameter).
        let mut proof: Option<(String, String)> = None;
        let mut item_tools_proved: Vec<usize> = Vec::new();
        for r in members
            .iter()
            .filter(|r| r.kind == ToolKind::Item && !r.unusable && !r.initial.is_empty())
        {
            let responses: Vec<(&Value, &str)> = r
                .initial
                .iter()
                .map(|o| (&o.value, o.requested.as_str()))
                .collect();
            if let Some(p) = prove_item(&responses) {
                if proof.as_ref().is_none_or(|q| q.1 == p.1) {
                    item_pointers.insert(r.index, p.0.clone());
                    item_tools_proved.push(r.index);
                    proof.get_or_insert(p);
                }
            }
        }
        // Lists.
        for r in members
            .iter()
            .filter(|r| r.kind == ToolKind::List && !r.unusable && !r.initial.is_empty())
        {
            let responses: Vec<&Value> = r.initial.iter().map(|o| &o.value).collect();
            if let Some(p) = choose_list_pointer(&responses) {
                list_pointers.insert(r.index, p);
            }
        }
        let mut lists = Vec::new();
        for r in members
            .iter()
            .filter(|r| list_pointers.contains_key(&r.index))
        {
            for o in &r.initial {
                if let Some(l) = list_at(&o.value, &list_pointers[&r.index]) {
                    lists.push(l);
                }
            }
        }
        let (id_field, id_basis) = match &proof {
            Some((_, field)) => (field.clone(), IdBasis::PathParameter),
            None => match identity_name_field(&lists).or_else(|| suffix_field(&lists)) {
                Some(f) => (f, IdBasis::FieldName),
                None => {
                    for r in &members {
                        list_pointers.remove(&r.index);
                    }
                    continue;
                }
            },
        };
        // Sightings.
        let mut sightings = Vec::new();
        let mut listings = Vec::new();
        for r in &members {
            let tool_name = manifest.tools[r.index].name.as_str();
            if let Some(pointer) = item_pointers.get(&r.index) {
                for o in &r.initial {
                    if let Some(obj) = o.value.pointer(pointer).and_then(Value::as_object) {
                        sightings.push(Sighting {
                            tool: tool_name,
                            is_item: true,
                            line: o.line.clone(),
                            pos: o.pos,
                            ordinal: o.ordinal,
                            collection: o.collection.clone(),
                            object: obj,
                        });
                    }
                }
            }
            if let Some(pointer) = list_pointers.get(&r.index) {
                for o in &r.initial {
                    let Some(items) = list_at(&o.value, pointer) else {
                        continue;
                    };
                    listings.push(Listing {
                        line: o.line.clone(),
                        pos: o.pos,
                        ids: items
                            .iter()
                            .filter_map(|i| i.get(&id_field).cloned())
                            .collect(),
                    });
                    for obj in items {
                        sightings.push(Sighting {
                            tool: tool_name,
                            is_item: false,
                            line: o.line.clone(),
                            pos: o.pos,
                            ordinal: o.ordinal,
                            collection: o.collection.clone(),
                            object: obj,
                        });
                    }
                }
            }
        }
        let merged = merge(name, &id_field, &sightings, &listings, &|a, b| {
            ctx.writes_between(a, b)
        });
        for e in &merged.entities {
            budget.charge(
                SLOT + e
                    .fields
                    .iter()
                    .map(|(k, v)| SLOT + k.len() as u64 + kept_charge(v))
                    .sum::<u64>(),
            )?;
        }
        let mut fields: Vec<String> = Vec::new();
        for s in &sightings {
            for k in s.object.keys() {
                if !fields.contains(k) {
                    fields.push(k.clone());
                }
            }
        }
        let item_tool = members
            .iter()
            .find(|r| r.kind == ToolKind::Item)
            .map(|r| manifest.tools[r.index].name.clone());
        let list_tools = members
            .iter()
            .filter(|r| r.kind == ToolKind::List && list_pointers.contains_key(&r.index))
            .map(|r| manifest.tools[r.index].name.clone())
            .collect();
        types.push(EntityType {
            name: name.clone(),
            collection_template: key.clone(),
            root: ctx.roots.root_of(key),
            id_field,
            id_basis,
            volatile_fields: merged.volatile_fields,
            fields,
            item_tool,
            list_tools,
            recorded_reason: merged.recorded_reason,
        });
        all_entities.extend(merged.entities);
    }
    // Drop types that ended up with no tool to render them.
    types.sort_by(|a, b| a.name.cmp(&b.name));
    let type_rank: HashMap<&str, usize> = types
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name.as_str(), i))
        .collect();
    all_entities.sort_by_key(|e| {
        type_rank
            .get(e.type_name.as_str())
            .copied()
            .unwrap_or(usize::MAX)
    });

    let mut limitations = Vec::new();
    if redacted_writes > 0 {
        limitations.push(format!(
            "{redacted_writes} state-changing request(s) had a redacted URL; their target is unknown, so each ends the initial state of every type"
        ));
    }
    let write_clock = crate::state::writes::insert::write_clock(
        ctx.timeline
            .order
            .iter()
            .filter_map(|&i| records[i].ended_ms()),
    );

    let mut state = State {
        view: "environment-state".to_string(),
        basis: "inferred".to_string(),
        origin: manifest.origin.clone(),
        name: manifest.name.clone(),
        template_rules: manifest.template_rules.clone(),
        timeline_order: if ctx.timeline.by_start_time {
            TimelineOrder::StartTime
        } else {
            TimelineOrder::RecordOrder
        },
        timeline: ctx
            .timeline
            .order
            .iter()
            .map(|&i| records[i].ordinal)
            .collect(),
        state_writes,
        types,
        entities: all_entities,
        documents: Vec::new(),
        views: Vec::new(),
        writes: Vec::new(),
        write_clock,
        unknowns: UNKNOWNS.iter().map(|s| s.to_string()).collect(),
        limitations,
    };
    plan_views(
        &ctx,
        &reads,
        &item_pointers,
        &list_pointers,
        &mut state,
        budget,
    )?;
    state.writes = super::writes::derive_writes_budgeted(manifest, records, &state, budget)?;
    Ok(state)
}

/// Type names: the collection template's last literal; templates sharing it
/// take their last two literals joined by `_`; then numeric suffixes.
fn type_names(keys: &[String]) -> Vec<String> {
    let literals = |k: &str| -> Vec<String> {
        compile(k)
            .into_iter()
            .filter_map(|s| match s {
                Segment::Literal(l) => Some(sanitize(&l)),
                Segment::Param(_) => None,
            })
            .collect()
    };
    let first: Vec<String> = keys
        .iter()
        .map(|k| {
            literals(k)
                .last()
                .cloned()
                .unwrap_or_else(|| "root".to_string())
        })
        .collect();
    let mut names: Vec<String> = keys
        .iter()
        .zip(&first)
        .map(|(k, f)| {
            if first.iter().filter(|g| *g == f).count() > 1 {
                let l = literals(k);
                if l.len() >= 2 {
                    return format!("{}_{}", l[l.len() - 2], l[l.len() - 1]);
                }
            }
            f.clone()
        })
        .collect();
    let mut seen: IndexMap<String, usize> = IndexMap::new();
    for n in names.iter_mut() {
        let count = seen.entry(n.clone()).or_insert(0);
        *count += 1;
        if *count > 1 {
            *n = format!("{n}_{count}");
        }
    }
    names
}

fn sanitize(s: &str) -> String {
    let out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    let out = out.trim_matches('_').to_string();
    if out.is_empty() {
        "root".to_string()
    } else {
        out
    }
}
