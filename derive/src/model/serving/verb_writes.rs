//! Serving writes sent as `POST` to a verb tail after a path resource
//! (`model::verbs`): `…/-/insert` and `…/-/upsert` on the collection,
//! `…/{id}/-/update` and `…/{id}/-/delete` on the item. What the recording
//! shows of each verb route is kept: the body member that carries the
//! entity (`{"row": …}`, `{"rows": […]}`, `{"update": …}`), the answer to
//! each set of body members (`{"ok": true}` or the written rows under
//! `rows`), whether a create fills every member it did not send with
//! `null` (confirmed when every recorded create's answered rows are the
//! sent rows so filled), and the refusal of a verb on an id the app does
//! not hold (its id substituted). A sibling collection's verb route of the
//! same tail lends all of this to a collection the recording never wrote
//! through it (a convention). The change lands on the model's World, so
//! item and list reads after it show it.

use super::super::exchange::{join, scalar_text, Exchange};
use super::super::verbs::tail_role;
use super::{EntityKey, ModelWorld, Served, ServingModel};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// What the recording shows of one verb route.
#[derive(Debug, Clone, Default)]
pub(super) struct VerbRoute {
    /// Resource index.
    index: usize,
    /// The verb tail (`["-", "update"]`).
    tail: Vec<String>,
    role: String,
    /// 2xx answers by the sorted top-level member names of the body.
    answers: BTreeMap<Vec<String>, (u16, Value)>,
    /// Every recorded create's answered rows were the sent rows with
    /// `null` for each member the resource shows and the call did not send.
    null_fill: bool,
    /// The recorded refusal of the verb on an id the app did not hold, and
    /// the id it was sent for.
    missing: Option<(u16, Value, String)>,
    /// The lowest id the route's first recorded create answered: the
    /// collection's counter stood one below it when the recording began.
    first_created: Option<u64>,
    /// Ordinals of the recorded calls.
    ordinals: Vec<u64>,
}

/// The verb routes of a recording.
#[derive(Debug, Clone, Default)]
pub(super) struct VerbWrites {
    routes: Vec<VerbRoute>,
    /// Every recorded create's answered rows were the sent rows filled with
    /// `null` (see `VerbRoute::null_fill`), and some create showed it.
    null_fill: bool,
}

/// The body member holding the entity (an object) or entities (an array
/// of objects): the first such member.
fn carried(body: &Value) -> Option<(&str, Vec<&Map<String, Value>>)> {
    body.as_object()?.iter().find_map(|(k, v)| match v {
        Value::Object(o) => Some((k.as_str(), vec![o])),
        Value::Array(a) if !a.is_empty() && a.iter().all(Value::is_object) => {
            Some((k.as_str(), a.iter().filter_map(Value::as_object).collect()))
        }
        _ => None,
    })
}

fn member_names(body: Option<&Value>) -> Vec<String> {
    body.and_then(Value::as_object)
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

/// The array of entity objects in an answer (`rows`), by member name.
fn answered_rows(answer: &Value) -> Option<(&str, &Vec<Value>)> {
    answer.as_object()?.iter().find_map(|(k, v)| {
        v.as_array()
            .filter(|a| !a.is_empty() && a.iter().all(Value::is_object))
            .map(|a| (k.as_str(), a))
    })
}

/// `null` for every member of `shown` the row lacks, then the row.
fn filled(row: &Map<String, Value>, shown: &BTreeSet<String>) -> Map<String, Value> {
    let mut out: Map<String, Value> = shown.iter().map(|m| (m.clone(), Value::Null)).collect();
    for (k, v) in row {
        out.insert(k.clone(), v.clone());
    }
    out
}

/// Every string in `v` with `from` replaced by `to`.
fn substituted(v: &Value, from: &str, to: &str) -> Value {
    match v {
        Value::String(s) => Value::String(s.replace(from, to)),
        Value::Array(a) => Value::Array(a.iter().map(|x| substituted(x, from, to)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), substituted(x, from, to)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Where a verb call lands: resource, scope, id, verb tail and role.
struct Landing {
    index: usize,
    scope: String,
    id: Option<String>,
    tail: Vec<String>,
    role: &'static str,
}

impl ServingModel {
    fn verb_landing(&self, method: &str, segments: &[String]) -> Option<Landing> {
        if method != "POST" {
            return None;
        }
        let mut segments = segments.to_vec();
        if let Some(f) = &self.model.format_suffix {
            f.strip(&mut segments);
        }
        let (role, len) = tail_role(&segments)?;
        let m = segments.len().checked_sub(len).filter(|m| *m > 0)?;
        let base = &segments[..m];
        let tail = segments[m..].to_vec();
        let route = join(&self.templates.template_of(base));
        for (index, r) in self.model.resources.iter().enumerate() {
            if r.addressing != "path" {
                continue;
            }
            if matches!(role, "update" | "delete") && r.item.as_deref() == Some(route.as_str()) {
                let parent_t = join(&self.templates.template_of(&base[..m - 1]));
                let id = self.templates.core(&parent_t, &base[m - 1])?.to_string();
                return Some(Landing {
                    index,
                    scope: join(&base[..m - 1]),
                    id: Some(id),
                    tail,
                    role,
                });
            }
            if matches!(role, "create" | "upsert") && r.collection == route {
                return Some(Landing {
                    index,
                    scope: join(base),
                    id: None,
                    tail,
                    role,
                });
            }
        }
        None
    }

    /// True when the path is a verb route the model serves.
    pub(super) fn claims_verb(&self, method: &str, path: &str) -> bool {
        if self.verbs.routes.is_empty() || method != "POST" {
            return false;
        }
        let segments = segments_of(path);
        self.verb_landing(method, &segments)
            .is_some_and(|l| self.verb_route(&l).is_some())
    }

    /// The recorded verb route of the landing, or a sibling's of the same
    /// tail and role (lent: `true`).
    fn verb_route(&self, l: &Landing) -> Option<(&VerbRoute, bool)> {
        if let Some(v) = self
            .verbs
            .routes
            .iter()
            .find(|v| v.index == l.index && v.tail == l.tail)
        {
            return Some((v, false));
        }
        self.verbs
            .routes
            .iter()
            .find(|v| {
                v.tail == l.tail
                    && v.role == l.role
                    && self.parent_of(v.index) == self.parent_of(l.index)
            })
            .map(|v| (v, true))
    }

    /// Answers a verb write on the model's World; `None` when the path is
    /// no verb route the model knows.
    pub(super) fn answer_verb(
        &self,
        world: &mut ModelWorld,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> Option<Served> {
        if self.verbs.routes.is_empty() {
            return None;
        }
        let l = self.verb_landing(method, &segments_of(path))?;
        let (v, lent) = self.verb_route(&l)?;
        let names = member_names(body);
        // The answer to the same body members: the route's own, else a
        // sibling's of the same verb (`"return": true` answers the rows),
        // else the route's first.
        let siblings = self.verb_siblings(&l);
        let answer_for = |names: &[String]| {
            v.answers
                .get(names)
                .or_else(|| siblings.iter().find_map(|o| o.answers.get(names)))
                .or_else(|| v.answers.values().next())
                .cloned()
        };
        let shown = self.read_members.get(&l.index).cloned().unwrap_or_default();
        let key_member = self.model.resources[l.index]
            .keys
            .first()
            .map(|k| k.entity_member.trim_start_matches('/').to_string())
            .unwrap_or_else(|| "id".into());
        let mut written: Vec<Map<String, Value>> = Vec::new();
        match l.role {
            "create" | "upsert" => {
                let (_, rows) = carried(body?)?;
                for row in rows {
                    let sent_key = row.get(&key_member).and_then(scalar_text);
                    let existing = sent_key
                        .as_ref()
                        .map(|k| (l.index, l.scope.clone(), k.clone()))
                        .filter(|k| !world.gone.contains(k) && world.entities.contains_key(k));
                    if let (Some(k), "upsert") = (existing, l.role) {
                        let e = world.entities.get_mut(&k)?;
                        for (m, val) in row {
                            e.insert(m.clone(), val.clone());
                        }
                        written.push(e.clone());
                        world.dirty.insert(k);
                        continue;
                    }
                    let id = match sent_key {
                        Some(k) => k,
                        None => self.next_integer_id(world, &l)?,
                    };
                    let mut e = if v.null_fill || (l.role == "upsert" && self.verbs.null_fill) {
                        filled(row, &shown)
                    } else {
                        row.clone()
                    };
                    let id_value = id
                        .parse::<i64>()
                        .map(Value::from)
                        .unwrap_or_else(|_| Value::String(id.clone()));
                    e.insert(key_member.clone(), id_value);
                    let k = (l.index, l.scope.clone(), id);
                    world.gone.remove(&k);
                    world.entities.insert(k.clone(), e.clone());
                    world.dirty.insert(k);
                    written.push(e);
                }
            }
            "update" | "delete" => {
                let id = l.id.clone()?;
                let k = (l.index, l.scope.clone(), id.clone());
                let held = !world.gone.contains(&k) && world.entities.contains_key(&k);
                if !held {
                    let (status, template, recorded) = v.missing.clone()?;
                    let body = substituted(&template, &format!("'{recorded}'"), &format!("'{id}'"));
                    return Some(
                        self.json(status, body, false, "verb-missing")
                            .by_convention(lent),
                    );
                }
                if l.role == "delete" {
                    world.gone.insert(k.clone());
                    world.dirty.insert(k);
                } else {
                    let (_, sent) = carried(body?)?;
                    let e = world.entities.get_mut(&k)?;
                    for (m, val) in sent.first()?.iter() {
                        e.insert(m.clone(), val.clone());
                    }
                    written.push(e.clone());
                    world.dirty.insert(k);
                }
            }
            _ => return None,
        }
        let (status, mut answer) = answer_for(&names)?;
        if let Some((member, _)) = answered_rows(&answer) {
            let member = member.to_string();
            let rows: Vec<Value> = written
                .into_iter()
                .map(|e| Value::Object(self.read_shaped(l.index, e)))
                .collect();
            if let Some(o) = answer.as_object_mut() {
                o.insert(member, Value::Array(rows));
            }
        }
        Some(
            self.json(status, answer, true, "verb-write")
                .by_convention(lent),
        )
    }

    /// The next integer id: one past where the collection's counter stood
    /// when the recording began (its first recorded create's id − 1) and
    /// past every id a call through the model added; without a recorded
    /// create's id, one past the highest id the collection holds.
    fn next_integer_id(&self, world: &ModelWorld, l: &Landing) -> Option<String> {
        let start = self
            .verbs
            .routes
            .iter()
            .filter(|v| v.index == l.index)
            .filter_map(|v| v.first_created)
            .min()
            .map(|f| f.saturating_sub(1));
        let ids = |keys: &mut dyn Iterator<Item = &EntityKey>| {
            keys.filter(|(i, s, _)| *i == l.index && *s == l.scope)
                .filter_map(|(_, _, id)| id.parse::<u64>().ok())
                .max()
        };
        let max = match start {
            Some(start) => {
                let added = ids(&mut world
                    .dirty
                    .iter()
                    .chain(world.gone.iter())
                    .filter(|k| !self.initial.contains_key(*k)));
                start.max(added.unwrap_or(0))
            }
            None => ids(&mut world.entities.keys().chain(world.gone.iter()))?,
        };
        Some((max + 1).to_string())
    }

    /// The parent path of resource `i`'s collection (siblings share it).
    fn parent_of(&self, i: usize) -> Option<&str> {
        let c = &self.model.resources[i].collection;
        c.rsplit_once('/').map(|(p, _)| p)
    }

    /// The sibling collections' verb routes of the landing's tail and role.
    fn verb_siblings(&self, l: &Landing) -> Vec<&VerbRoute> {
        self.verbs
            .routes
            .iter()
            .filter(|v| v.tail == l.tail && v.role == l.role && v.index != l.index)
            .filter(|v| self.parent_of(v.index) == self.parent_of(l.index))
            .collect()
    }
}

fn segments_of(path: &str) -> Vec<String> {
    path.split('/')
        .filter(|s| !s.is_empty())
        .map(crate::state::writes::input::percent_decode)
        .collect()
}

/// The verb routes the recording shows, with their answers.
pub(super) fn infer(serving: &ServingModel, exchanges: &[Exchange]) -> VerbWrites {
    let mut routes: BTreeMap<(usize, Vec<String>), VerbRoute> = BTreeMap::new();
    let mut fills: BTreeMap<(usize, Vec<String>), bool> = BTreeMap::new();
    for x in exchanges {
        let Some(l) = serving.verb_landing(&x.method, &x.segments) else {
            continue;
        };
        let v = routes
            .entry((l.index, l.tail.clone()))
            .or_insert_with(|| VerbRoute {
                index: l.index,
                tail: l.tail.clone(),
                role: l.role.to_string(),
                ..VerbRoute::default()
            });
        v.ordinals.push(x.ordinal);
        let Some(answer) = &x.answer else { continue };
        if x.is_2xx() {
            v.answers
                .entry(member_names(x.body.as_ref()))
                .or_insert_with(|| (x.status, answer.clone()));
            let key = serving.model.resources[l.index]
                .keys
                .first()
                .map(|k| k.entity_member.clone())
                .unwrap_or_else(|| "/id".into());
            if l.role == "create" && v.first_created.is_none() {
                v.first_created = answered_rows(answer).and_then(|(_, rows)| {
                    rows.iter()
                        .filter_map(|r| r.pointer(&key).and_then(Value::as_u64))
                        .min()
                });
            }
            if l.role == "create" {
                let shown = serving.read_members.get(&l.index);
                let sent = x.body.as_ref().and_then(carried).map(|(_, rows)| rows);
                if let (Some(shown), Some(sent), Some((_, rows))) =
                    (shown, sent, answered_rows(answer))
                {
                    let fits = sent.len() == rows.len()
                        && sent.iter().zip(rows).all(|(s, r)| {
                            let f = filled(s, shown);
                            r.as_object().is_some_and(|r| {
                                f.iter()
                                    .filter(|(k, _)| format!("/{k}") != key)
                                    .all(|(k, val)| r.get(k).is_none_or(|rv| rv == val))
                                    && shown.iter().all(|k| r.contains_key(k))
                            })
                        });
                    let e = fills.entry((l.index, l.tail.clone())).or_insert(true);
                    *e &= fits;
                }
            }
        } else if x.status == 404 && l.id.is_some() && v.missing.is_none() {
            v.missing = Some((x.status, answer.clone(), l.id.clone().unwrap_or_default()));
        }
    }
    for (k, fit) in &fills {
        if let Some(v) = routes.get_mut(k) {
            v.null_fill = *fit;
        }
    }
    // A sibling's refusal of a missing id lends itself to a verb route of the
    // same tail that shows none.
    let all: Vec<VerbRoute> = routes.values().cloned().collect();
    for v in routes.values_mut().filter(|v| v.missing.is_none()) {
        v.missing = all
            .iter()
            .find(|o| o.role == v.role && o.tail == v.tail && o.missing.is_some())
            .or_else(|| all.iter().find(|o| o.missing.is_some()))
            .and_then(|o| o.missing.clone());
    }
    let null_fill = routes.values().any(|v| v.null_fill)
        && routes
            .iter()
            .all(|(k, v)| v.null_fill || !fills.contains_key(k) || v.role != "create");
    VerbWrites {
        null_fill,
        routes: routes
            .into_values()
            .filter(|v| !v.answers.is_empty())
            .collect(),
    }
}
