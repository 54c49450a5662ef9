//! The replay check: replays the timeline on a copy of the initial World,
//! applies each modelled 2xx write through the engine with generated values
//! taken from its recording, makes the targets of other writes unknown and
//! taints the paths they wrote, compares every read the environment would
//! answer from state with its recording (as the whole rendered response),
//! and marks each write plan `served` or gives its first reason.

use crate::engine::same_id;
use crate::engine::{AnswerBody, Call, Engine, Generator, Params, World};
use crate::state::model::{Effect, PlanStatus, Unserved, ViewPlan, WritePlan};
use crate::state::writes::build::Built;
use crate::state::writes::classify::may_change_state;
use crate::state::writes::input::{
    at_pointer, id_text, normalize_path, parent_path, path_params, TimelineRecord,
};
use crate::state::writes::replay_gen::RecordedGenerator;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

/// What a write or a read touches: a collection path, and an entity in it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Target {
    Entity(String, String),
    Collection(String),
    Document(String),
}

impl Target {
    fn collection(&self) -> Option<&str> {
        match self {
            Target::Entity(c, _) | Target::Collection(c) => Some(c),
            Target::Document(_) => None,
        }
    }
}

/// A modelled write not yet checked by a read of its entity or collection.
#[derive(Debug, Clone)]
struct Pending {
    plan: usize,
    target: Target,
    effect: Effect,
    /// The body members it sent.
    sent: Vec<String>,
    /// An unmodelled write came after it.
    after_unmodelled: bool,
    /// Not yet checked by an item read / by a list read.
    item_open: bool,
    list_open: bool,
}

/// Per-plan outcome of the replay.
#[derive(Debug, Clone, Default)]
struct Outcome {
    confirmed: Vec<u64>,
    contradicted: Vec<u64>,
    side_effect: bool,
}

/// Runs the replay check over built plans and returns the final plans.
pub(crate) fn check(
    engine: &Engine,
    timeline: &[TimelineRecord],
    built: &[Built],
) -> Vec<WritePlan> {
    let mut replay = Replay::new(engine, built);
    // With no plan to model there is nothing to confirm: every plan keeps
    // its build reason, so the replay is skipped.
    if built.iter().any(|b| b.plan.reason.is_none()) {
        for rec in timeline {
            replay.step(rec);
        }
    }
    built
        .iter()
        .zip(replay.outcomes)
        .map(|(b, mut o)| {
            let mut plan = b.plan.clone();
            o.confirmed.sort_unstable();
            o.confirmed.dedup();
            o.contradicted.sort_unstable();
            o.contradicted.dedup();
            plan.checked_record_ordinals = o.confirmed.clone();
            plan.contradicted_by = o.contradicted.clone();
            if plan.reason.is_none() {
                plan.reason = if !o.contradicted.is_empty() {
                    Some(Unserved::Contradicted)
                } else if o.side_effect {
                    Some(Unserved::SideEffect)
                } else if o.confirmed.is_empty() {
                    Some(Unserved::Unconfirmed)
                } else if b.incomplete_entities {
                    Some(Unserved::IncompleteEntities)
                } else {
                    None
                };
            }
            plan.status = if plan.reason.is_none() {
                PlanStatus::Served
            } else {
                PlanStatus::Unserved
            };
            plan
        })
        .collect()
}

struct Replay<'a> {
    engine: &'a Engine,
    plans: Vec<&'a WritePlan>,
    by_tool: HashMap<&'a str, usize>,
    world: World,
    pending: Vec<Pending>,
    /// Modelled writes in order: (plan, timeline position, target).
    log: Vec<(usize, usize, Target)>,
    unknown: HashSet<Target>,
    all_unknown: bool,
    tainted: HashSet<String>,
    last_read: HashMap<Target, usize>,
    outcomes: Vec<Outcome>,
    position: usize,
}

impl<'a> Replay<'a> {
    fn new(engine: &'a Engine, built: &'a [Built]) -> Replay<'a> {
        let plans: Vec<&WritePlan> = built.iter().map(|b| &b.plan).collect();
        let by_tool = plans
            .iter()
            .enumerate()
            .map(|(i, p)| (p.tool.as_str(), i))
            .collect();
        Replay {
            engine,
            by_tool,
            world: engine.initial_world(),
            pending: Vec::new(),
            log: Vec::new(),
            unknown: HashSet::new(),
            all_unknown: false,
            tainted: HashSet::new(),
            last_read: HashMap::new(),
            outcomes: vec![Outcome::default(); plans.len()],
            plans,
            position: 0,
        }
    }

    fn step(&mut self, rec: &TimelineRecord) {
        self.position += 1;
        let Some(path) = rec.path.as_deref() else {
            if crate::state::writes::classify::WRITE_METHODS.contains(&rec.method.as_str()) {
                self.all_unknown = true;
                self.pending
                    .iter_mut()
                    .for_each(|p| p.after_unmodelled = true);
            }
            return;
        };
        if may_change_state(&rec.method, path, rec.status) {
            // A recorded call is an example of its own tool; a record no
            // tool holds goes where the served environment would route it.
            let tool = rec.tool.clone().or_else(|| {
                self.engine
                    .route(&rec.method, path)
                    .map(|(t, _)| t.name.clone())
            });
            let modelled = tool
                .as_deref()
                .and_then(|t| self.by_tool.get(t).copied())
                .filter(|&i| self.plans[i].reason.is_none() && rec.succeeded());
            match modelled {
                Some(i) => self.apply(i, rec, path),
                None => self.unmodelled(path),
            }
        } else if rec.method == "GET" {
            self.read(rec, path);
        }
    }

    fn params(&self, tool: &str, path: &str) -> Params {
        self.engine
            .tool(tool)
            .and_then(|t| path_params(&t.path_template, path))
            .map(|p| p.into_iter().collect())
            .unwrap_or_default()
    }

    fn apply(&mut self, i: usize, rec: &TimelineRecord, path: &str) {
        let plan = self.plans[i];
        let call = Call {
            method: rec.method.clone(),
            path: path.to_string(),
            query: rec.query.clone(),
            headers: Vec::new(),
            body: rec.request_body.json().cloned(),
        };
        let params = self.params(&plan.tool, path);
        let mut gen = RecordedGenerator::for_call(plan, rec, rec.ordinal);
        let type_name = plan.type_name.clone().unwrap_or_default();
        let target = match plan.effect.as_str() {
            "create" => {
                let collection = normalize_path(path);
                let before: Vec<Value> = self
                    .world
                    .list(&type_name, &collection)
                    .iter()
                    .map(|e| e.id.clone())
                    .collect();
                self.write(&plan.tool, &call, &mut gen);
                let created = self
                    .world
                    .list(&type_name, &collection)
                    .iter()
                    .find(|e| !before.iter().any(|b| same_id(b, &e.id)))
                    .and_then(|e| id_text(&e.id));
                match created {
                    Some(id) => Target::Entity(collection, id),
                    None => Target::Collection(collection),
                }
            }
            "document" => {
                self.write(&plan.tool, &call, &mut gen);
                Target::Document(plan.document_path.clone().unwrap_or_else(|| call.line()))
            }
            _ => {
                self.write(&plan.tool, &call, &mut gen);
                let id = params.values().last().cloned().unwrap_or_default();
                Target::Entity(parent_path(path), id)
            }
        };
        let sent = rec
            .request_body
            .json()
            .and_then(|b| {
                crate::state::writes::input::body_entity(
                    b,
                    self.item_pointer(&type_name).as_deref(),
                )
            })
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        self.log.push((i, self.position, target.clone()));
        self.pending.push(Pending {
            plan: i,
            target,
            effect: plan.effect,
            sent,
            after_unmodelled: false,
            item_open: true,
            list_open: true,
        });
    }

    /// Applies one recorded write through the engine's own dispatch,
    /// pinned to its tool with the plan under check.
    fn write(&mut self, tool: &str, call: &Call, gen: &mut dyn Generator) {
        if let Some(routed) = self.engine.resolve_for_check(tool, call.clone()) {
            self.engine.dispatch(&mut self.world, routed, gen);
        }
    }

    fn item_pointer(&self, type_name: &str) -> Option<String> {
        self.engine.state.views.iter().find_map(|v| match v {
            ViewPlan::Item(p) if p.type_name == type_name => Some(p.pointer.clone()),
            _ => None,
        })
    }

    /// An unmodelled write: the entity below whose item path it wrote is
    /// unknown (or its whole collection), and it taints its path and above.
    fn unmodelled(&mut self, path: &str) {
        let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let mut held = None;
        for by_path in self.world.collections().values() {
            for (collection, entities) in by_path {
                let csegs = collection.split('/').filter(|s| !s.is_empty()).count();
                if segs.len() > csegs && normalize_path(&segs[..csegs].join("/")) == *collection {
                    let id = crate::state::writes::input::percent_decode(segs[csegs]);
                    if entities
                        .iter()
                        .any(|e| id_text(&e.id).as_deref() == Some(id.as_str()))
                    {
                        held = Some(Target::Entity(collection.clone(), id));
                    }
                }
            }
        }
        let target = held.unwrap_or_else(|| {
            let own = normalize_path(path);
            let is_collection = self
                .engine
                .state
                .types
                .iter()
                .any(|t| crate::engine::path_fits_template(&own, &t.collection_template));
            Target::Collection(if is_collection {
                own
            } else {
                parent_path(path)
            })
        });
        self.unknown.insert(target);
        for n in 0..=segs.len() {
            self.tainted.insert(normalize_path(&segs[..n].join("/")));
        }
        self.pending
            .iter_mut()
            .for_each(|p| p.after_unmodelled = true);
    }

    fn is_unknown(&self, target: &Target) -> bool {
        self.all_unknown
            || self.unknown.contains(target)
            || target
                .collection()
                .is_some_and(|c| self.unknown.contains(&Target::Collection(c.to_string())))
            || matches!(target, Target::Collection(c)
                if self.unknown.iter().any(|u| matches!(u, Target::Entity(uc, _) if uc == c)))
    }

    fn read(&mut self, rec: &TimelineRecord, path: &str) {
        // The read goes where the served environment would route it.
        let Some((tool, _)) = self.engine.route("GET", path) else {
            return;
        };
        let tool_name = tool.name.as_str();
        let Some(view) = self.engine.view_of(tool_name) else {
            return;
        };
        let call = Call {
            method: "GET".into(),
            path: path.to_string(),
            query: rec.query.clone(),
            headers: Vec::new(),
            body: None,
        };
        let (target, type_name, pointer, is_list) = match view {
            ViewPlan::Item(p) => {
                let id = self
                    .params(tool_name, path)
                    .values()
                    .last()
                    .cloned()
                    .unwrap_or_default();
                (
                    Target::Entity(parent_path(path), id),
                    p.type_name.clone(),
                    p.pointer.clone(),
                    false,
                )
            }
            ViewPlan::List(p) => {
                let line = normalize_line(&call.line());
                let recorded_line = p.lines.iter().any(|l| normalize_line(&l.line) == line);
                // An unrecorded line is answered from the state when the
                // engine understands its query (filters on known fields,
                // sorting, paging); any other line is not checked.
                let understood = rec.query.is_none()
                    || crate::engine::understands_list_query(
                        self.engine,
                        &self.world,
                        tool,
                        &p.type_name,
                        &call,
                    );
                if !recorded_line && !understood {
                    return;
                }
                (
                    Target::Collection(normalize_path(path)),
                    p.type_name.clone(),
                    p.pointer.clone(),
                    true,
                )
            }
            ViewPlan::Document(p) => {
                if normalize_line(&call.line()) != normalize_line(&p.path) {
                    return;
                }
                (
                    Target::Document(p.path.clone()),
                    String::new(),
                    String::new(),
                    false,
                )
            }
            ViewPlan::Recorded(_) => return,
        };
        let related: Vec<usize> = self
            .pending
            .iter()
            .enumerate()
            .filter(|(_, p)| match (&target, is_list) {
                (Target::Collection(c), true) => {
                    p.list_open && p.target.collection() == Some(c.as_str())
                }
                (t, false) => p.item_open && &p.target == t,
                _ => false,
            })
            .map(|(i, _)| i)
            .collect();
        let partial = self.is_unknown(&target)
            || self.tainted.contains(&target_path(&target))
            || related.iter().any(|&i| self.pending[i].after_unmodelled);
        let recorded = rec.response_body.json();
        let volatile: Vec<String> = self
            .engine
            .entity_type(&type_name)
            .map(|t| t.volatile_fields.clone())
            .unwrap_or_default();
        if partial {
            for &i in &related {
                let p = self.pending[i].clone();
                let ok = self.partial_agrees(&p, rec, &pointer, is_list);
                self.judge(&p, ok, rec.ordinal);
            }
            self.resync(&target, &type_name, rec, &pointer, is_list);
            // A filtered list line shows only part of its collection.
            if !is_list || rec.query.is_none() {
                self.unknown.remove(&target);
                self.tainted.remove(&target_path(&target));
            }
        } else {
            let answer = match self.engine.resolve_for_check(tool_name, call.clone()) {
                Some(routed) => {
                    self.engine
                        .dispatch(&mut self.world, routed, &mut RecordedGenerator::default())
                }
                None => return,
            };
            let agrees = if rec.shows_absence() {
                match &target {
                    Target::Entity(c, id) => self.world.entity(&type_name, c, id).is_none(),
                    Target::Collection(c) => self.world.list(&type_name, c).is_empty(),
                    Target::Document(d) => !self.world.documents.contains_key(d),
                }
            } else {
                match (&answer.body, recorded) {
                    (AnswerBody::Json(rendered), Some(recorded)) => {
                        answer.status == rec.status.unwrap_or(0)
                            && same_response(rendered, recorded, &pointer, is_list, &volatile)
                    }
                    _ => false,
                }
            };
            if related.is_empty() {
                if !agrees {
                    let since = self.last_read.get(&target).copied().unwrap_or(0);
                    let collection = target.collection().map(str::to_string);
                    let culprits: Vec<usize> = self
                        .log
                        .iter()
                        .filter(|(_, at, t)| {
                            *at > since
                                && (t.collection().map(str::to_string) == collection
                                    || t == &target)
                        })
                        .map(|(plan, _, _)| *plan)
                        .collect();
                    for plan in culprits {
                        self.outcomes[plan].side_effect = true;
                    }
                }
            } else if agrees {
                for &i in &related {
                    let p = self.pending[i].clone();
                    self.judge(&p, true, rec.ordinal);
                }
            } else {
                let rendered = match &answer.body {
                    AnswerBody::Json(v) => Some(v),
                    _ => None,
                };
                let diff = Diff::of(
                    rendered,
                    recorded,
                    &pointer,
                    is_list,
                    &self.id_field(&type_name),
                );
                let explaining: Vec<usize> = related
                    .iter()
                    .copied()
                    .filter(|&i| {
                        diff.explained_by(&self.pending[i], self.plans[self.pending[i].plan])
                    })
                    .collect();
                if explaining.is_empty() {
                    for &i in &related {
                        self.outcomes[self.pending[i].plan].side_effect = true;
                    }
                } else {
                    for i in explaining {
                        let p = self.pending[i].clone();
                        self.judge(&p, false, rec.ordinal);
                    }
                }
            }
            if !agrees {
                self.resync(&target, &type_name, rec, &pointer, is_list);
            }
        }
        for &i in &related {
            if is_list {
                self.pending[i].list_open = false;
            } else {
                self.pending[i].item_open = false;
            }
        }
        self.pending.retain(|p| p.item_open || p.list_open);
        self.last_read.insert(target, self.position);
    }

    fn id_field(&self, type_name: &str) -> String {
        self.engine
            .entity_type(type_name)
            .map(|t| t.id_field.clone())
            .unwrap_or_default()
    }

    fn judge(&mut self, p: &Pending, agrees: bool, ordinal: u64) {
        let outcome = &mut self.outcomes[p.plan];
        if agrees {
            outcome.confirmed.push(ordinal);
        } else {
            outcome.contradicted.push(ordinal);
        }
    }

    /// Compares only what a pending write did: presence, and the members it sent.
    fn partial_agrees(
        &self,
        p: &Pending,
        rec: &TimelineRecord,
        pointer: &str,
        is_list: bool,
    ) -> bool {
        let Target::Entity(collection, id) = &p.target else {
            return false;
        };
        let type_name = self.plans[p.plan].type_name.clone().unwrap_or_default();
        let id_field = self
            .engine
            .entity_type(&type_name)
            .map(|t| t.id_field.clone())
            .unwrap_or_default();
        let shown: Option<&Map<String, Value>> = if is_list {
            rec.response_body
                .json()
                .and_then(|b| at_pointer(b, pointer))
                .and_then(Value::as_array)
                .and_then(|items| {
                    items.iter().filter_map(Value::as_object).find(|m| {
                        m.get(&id_field).and_then(id_text).as_deref() == Some(id.as_str())
                    })
                })
        } else if rec.shows_absence() {
            None
        } else {
            rec.response_body
                .json()
                .and_then(|b| at_pointer(b, pointer))
                .and_then(Value::as_object)
        };
        // The copy's present view of the entity (later writes included)
        // against the recording: presence, then the members it sent.
        let held = self.world.entity(&type_name, collection, id);
        match (shown, held) {
            (None, None) => true,
            (Some(shown), Some(held)) => p.sent.iter().all(|m| shown.get(m) == held.fields.get(m)),
            _ => false,
        }
    }

    /// After a read the copy could not predict, takes the recording's values.
    /// Takes the recorded values of the entities a list shows (known
    /// again from then on).
    fn resync_listed(
        &mut self,
        target: &Target,
        type_name: &str,
        rec: &TimelineRecord,
        pointer: &str,
    ) {
        let Target::Collection(collection) = target else {
            return;
        };
        let id_field = self.id_field(type_name);
        let Some(items) = rec
            .response_body
            .json()
            .and_then(|b| at_pointer(b, pointer))
            .and_then(Value::as_array)
        else {
            return;
        };
        for item in items.iter().filter_map(Value::as_object) {
            let Some(id) = item.get(&id_field).and_then(id_text) else {
                continue;
            };
            if let Some(entity) = self.world.entity_mut(type_name, collection, &id) {
                entity.fields = item.clone();
                entity.view_fields.clear();
            }
            self.unknown.remove(&Target::Entity(collection.clone(), id));
        }
    }

    fn resync(
        &mut self,
        target: &Target,
        type_name: &str,
        rec: &TimelineRecord,
        pointer: &str,
        is_list: bool,
    ) {
        if is_list {
            self.resync_listed(target, type_name, rec, pointer);
            return;
        }
        match target {
            Target::Entity(collection, id) => {
                if rec.shows_absence() {
                    self.world.remove(type_name, collection, id);
                    return;
                }
                let Some(shown) = rec
                    .response_body
                    .json()
                    .and_then(|b| at_pointer(b, pointer))
                    .and_then(Value::as_object)
                else {
                    return;
                };
                if let Some(entity) = self.world.entity_mut(type_name, collection, id) {
                    entity.fields = shown.clone();
                    entity.view_fields.clear();
                } else if let Some(id_value) = self
                    .engine
                    .entity_type(type_name)
                    .and_then(|t| shown.get(&t.id_field))
                    .cloned()
                {
                    self.world.insert(
                        crate::state::Entity {
                            type_name: type_name.to_string(),
                            collection: collection.clone(),
                            id: id_value,
                            fields: shown.clone(),
                            view_fields: Default::default(),
                            record_ordinals: vec![rec.ordinal],
                        },
                        None,
                    );
                }
            }
            Target::Document(path) => {
                if let Some(v) = rec.response_body.json() {
                    self.world.documents.insert(path.clone(), v.clone());
                }
            }
            Target::Collection(_) => {}
        }
    }
}

fn target_path(target: &Target) -> String {
    match target {
        Target::Entity(c, id) => format!("{c}/{id}"),
        Target::Collection(c) => c.clone(),
        Target::Document(d) => normalize_path(d.split('?').next().unwrap_or("")),
    }
}

fn normalize_line(line: &str) -> String {
    match line.split_once('?') {
        Some((p, q)) => format!("{}?{q}", normalize_path(p)),
        None => normalize_path(line),
    }
}

/// Whole-response equality, member order aside, volatile fields of the
/// entity (or of each listed entity) left out on both sides.
fn same_response(
    rendered: &Value,
    recorded: &Value,
    pointer: &str,
    is_list: bool,
    volatile: &[String],
) -> bool {
    if volatile.is_empty() {
        return rendered == recorded;
    }
    let strip = |v: &Value| {
        let mut v = v.clone();
        let slot = if pointer.is_empty() {
            Some(&mut v)
        } else {
            v.pointer_mut(pointer)
        };
        match slot {
            Some(Value::Array(items)) if is_list => {
                for item in items.iter_mut().filter_map(Value::as_object_mut) {
                    volatile.iter().for_each(|f| {
                        item.shift_remove(f);
                    });
                }
            }
            Some(Value::Object(map)) if !is_list => volatile.iter().for_each(|f| {
                map.shift_remove(f);
            }),
            _ => {}
        }
        v
    };
    strip(rendered) == strip(recorded)
}

/// Where a rendered read and its recording differ.
#[derive(Debug, Default)]
struct Diff {
    /// Anything outside the entity or list (envelope, status) differs.
    envelope: bool,
    /// Item reads: the entity fields that differ.
    fields: HashSet<String>,
    /// List reads: identities listed differently (missing, extra, moved or changed).
    ids: HashSet<String>,
}

impl Diff {
    fn of(
        rendered: Option<&Value>,
        recorded: Option<&Value>,
        pointer: &str,
        is_list: bool,
        id_field: &str,
    ) -> Diff {
        let mut diff = Diff::default();
        let (Some(a), Some(b)) = (rendered, recorded) else {
            diff.envelope = true;
            return diff;
        };
        let (ea, eb) = (at_pointer(a, pointer), at_pointer(b, pointer));
        let mut rest_a = a.clone();
        let mut rest_b = b.clone();
        for v in [&mut rest_a, &mut rest_b] {
            if pointer.is_empty() {
                *v = Value::Null;
            } else if let Some(slot) = v.pointer_mut(pointer) {
                *slot = Value::Null;
            }
        }
        diff.envelope = rest_a != rest_b;
        if is_list {
            let ids = |v: Option<&Value>| -> Vec<(String, Value)> {
                v.and_then(Value::as_array)
                    .map(|items| {
                        items
                            .iter()
                            .filter_map(|i| Some((i.get(id_field).and_then(id_text)?, i.clone())))
                            .collect()
                    })
                    .unwrap_or_default()
            };
            let (la, lb) = (ids(ea), ids(eb));
            for (pos, (id, item)) in la.iter().enumerate() {
                if lb.get(pos) != Some(&(id.clone(), item.clone())) {
                    diff.ids.insert(id.clone());
                }
            }
            for (pos, (id, item)) in lb.iter().enumerate() {
                if la.get(pos) != Some(&(id.clone(), item.clone())) {
                    diff.ids.insert(id.clone());
                }
            }
        } else {
            let empty = Map::new();
            let ma = ea.and_then(Value::as_object).unwrap_or(&empty);
            let mb = eb.and_then(Value::as_object).unwrap_or(&empty);
            for k in ma.keys().chain(mb.keys()) {
                if ma.get(k) != mb.get(k) {
                    diff.fields.insert(k.clone());
                }
            }
            if ea.is_none() != eb.is_none() {
                diff.envelope = true;
            }
        }
        diff
    }

    /// True when the pending write touched what differs: its entity in a
    /// list, or (for an item) a member it sent or a field its rules set.
    fn explained_by(&self, p: &Pending, plan: &WritePlan) -> bool {
        match &p.target {
            Target::Entity(_, id) if !self.ids.is_empty() => self.ids.contains(id),
            Target::Entity(..) if matches!(p.effect, Effect::Create | Effect::Delete) => true,
            Target::Entity(..) => {
                self.envelope
                    || self.fields.iter().any(|f| {
                        p.sent.contains(f) || plan.field_rules.iter().any(|r| &r.field == f)
                    })
            }
            Target::Collection(_) | Target::Document(_) => true,
        }
    }
}
