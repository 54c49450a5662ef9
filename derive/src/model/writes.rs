//! Write semantics per resource route, from what each recorded write sent,
//! what its answer showed and what the entity looked like before: merge,
//! replace or RFC 7396 merge-patch; upsert by PUT; POST-as-update; soft
//! delete then a forced delete; server-filled members on create; envelopes
//! in and out; 2xx answers with and without a body; RPC actions whose
//! effect a later read shows. Every hypothesis names the records that fit it
//! and those that contradict it; the simplest one that fits is chosen.

use super::exchange::{scalar_text, sorted, Exchange};
use super::resources::Resource;
use super::routes::kind_of;
use super::routes::Templates;
use super::snapshots::{entity_at, target_of, Snapshots, Target};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The inferred semantics of one write route.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WriteSemantics {
    pub resource: String,
    pub collection: String,
    pub method: String,
    pub route: String,
    /// `create`, `update`, `delete` or `action`.
    pub role: String,
    /// The chosen semantics (`create`, `merge`, `replace`, `merge-patch`,
    /// `upsert`, `post-as-update`, `soft-delete`, `hard-delete`,
    /// `delete-then-soft`, `rpc-merge`, `rpc-effect`, `unconfirmed`).
    pub semantics: String,
    /// Every hypothesis the recording fits, simplest first.
    pub fits: Vec<String>,
    pub rejected: Vec<Rejected>,
    /// The member the request wraps the entity in (`data`), if any.
    pub request_envelope: Option<String>,
    pub answer: AnswerShape,
    pub server_filled: Vec<ServerFilled>,
    /// RPC actions: how the body changes the entity, as a later read showed.
    pub effects: Vec<Effect>,
    /// Deletes: whether the entity stays readable and what forces removal.
    pub delete: Option<DeleteSemantics>,
    /// Changes this write makes to dependents that reference its entity
    /// (`cascades`), absent when the recording shows none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cascades: Vec<super::cascades::Cascade>,
    pub supported_by: Vec<u64>,
    pub checked_against: Vec<u64>,
    /// Updates: how a sent `null` reads and what decided it (`nulls`);
    /// absent when no recorded update of the app sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub null_member: Option<super::nulls::NullReading>,
}

/// A hypothesis the recording contradicts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rejected {
    pub hypothesis: String,
    pub contradicted_by: Vec<u64>,
}

/// How the write answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswerShape {
    pub statuses: Vec<u16>,
    /// `entity`, `empty` (no body), `empty-object` (`{}`), `tombstone`
    /// (`{id, deleted: true}`), `previous` (`{deleted, previous: entity}`),
    /// `key` (only the new id) or `other`.
    pub body: String,
    pub envelope: Option<String>,
}

/// A member the server fills in on create.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerFilled {
    pub member: String,
    /// `id` (with its kind), `clock`, `default` (same value on every create)
    /// or `derived` (from a sent member, e.g. a slug).
    pub kind: String,
    pub detail: Option<Value>,
    pub supported_by: Vec<u64>,
}

/// One effect of an RPC action's body on the entity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Effect {
    /// Pointer in the entity that changed.
    pub pointer: String,
    /// `sets` (to a body member's value) or `appends` (the body, minus the
    /// key, to an array).
    pub how: String,
    /// The body member (for `sets`).
    pub member: Option<String>,
    pub supported_by: Vec<u64>,
}

/// Delete behaviour.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeleteSemantics {
    /// True when a read after the delete still answered 2xx.
    pub soft: bool,
    /// The query that made a delete final, when a later read answered 404.
    pub hard_query: Option<String>,
    pub readable_after: Vec<u64>,
    pub absent_after: Vec<u64>,
    /// What a soft delete (one without the `hard_query`) set on the entity,
    /// as its answer showed against the entity before (`status: "trash"`);
    /// clocks are not listed.
    pub soft_sets: Map<String, Value>,
}

#[derive(Default)]
struct Acc {
    resource: usize,
    method: String,
    route: String,
    role: String,
    ords: Vec<u64>,
    checked: Vec<u64>,
    statuses: BTreeMap<u16, ()>,
    bodies: BTreeMap<String, usize>,
    envelope_in: BTreeMap<String, usize>,
    fit_merge: Vec<u64>,
    fit_replace: Vec<u64>,
    fit_patch: Vec<u64>,
    anti_merge: Vec<u64>,
    anti_replace: Vec<u64>,
    anti_patch: Vec<u64>,
    /// Updates whose sent `null` left no member / kept it (`nulls`).
    null_removed: Vec<u64>,
    null_kept: Vec<u64>,
    upsert_new: Vec<u64>,
    filled: BTreeMap<String, Vec<(Value, u64, String)>>,
    effects: BTreeMap<(String, String, Option<String>), Vec<u64>>,
    readable_after: Vec<u64>,
    absent_after: Vec<u64>,
    hard_query: Option<String>,
    soft_sets: Map<String, Value>,
}

/// Clock-like member names (candidates; the values must also differ).
pub(crate) fn clock_like(member: &str) -> bool {
    let l = member.to_ascii_lowercase();
    [
        "modified", "updated", "created", "date", "time", "stamp", "etag",
    ]
    .iter()
    .any(|w| l.contains(w))
        || l.ends_with("_at")
        || l.ends_with("_on")
}

/// Infers every write route's semantics.
pub(crate) fn infer(
    exchanges: &[Exchange],
    resources: &[Resource],
    templates: &Templates,
) -> Vec<WriteSemantics> {
    let mut snaps = Snapshots::default();
    let mut accs: BTreeMap<(usize, String, String, String), Acc> = BTreeMap::new();
    let targets: Vec<Option<Target>> = exchanges
        .iter()
        .map(|x| target_of(x, resources, templates))
        .collect();
    for (i, x) in exchanges.iter().enumerate() {
        let Some(t) = &targets[i] else { continue };
        let r = &resources[t.resource];
        if !x.is_read() && t.role != "query" {
            let acc = accs
                .entry((
                    t.resource,
                    t.route.clone(),
                    x.method.clone(),
                    t.role.clone(),
                ))
                .or_insert_with(|| Acc {
                    resource: t.resource,
                    method: x.method.clone(),
                    route: t.route.clone(),
                    role: t.role.clone(),
                    ..Acc::default()
                });
            if x.is_2xx() {
                observe(acc, x, t, r, &snaps, exchanges, &targets, i);
            }
        }
        snaps.learn(x, t, r);
    }
    let mut writes: Vec<WriteSemantics> = accs
        .into_values()
        .filter(|a| !a.ords.is_empty())
        .map(|a| finish(a, resources))
        .collect();
    super::nulls::lend(&mut writes);
    writes
}

fn unwrap_body<'a>(
    body: &'a Value,
    r: &Resource,
) -> (Option<String>, Option<&'a Map<String, Value>>) {
    let Some(o) = body.as_object() else {
        return (None, None);
    };
    if o.len() == 1 {
        let (k, v) = o.iter().next().expect("one member");
        if let (Some(inner), Some(env)) = (v.as_object(), &r.item_envelope) {
            if env == &format!("/{}", super::exchange::token(k)) {
                return (Some(k.clone()), Some(inner));
            }
        }
    }
    (None, Some(o))
}

#[allow(clippy::too_many_arguments)]
fn observe(
    acc: &mut Acc,
    x: &Exchange,
    t: &Target,
    r: &Resource,
    snaps: &Snapshots,
    exchanges: &[Exchange],
    targets: &[Option<Target>],
    i: usize,
) {
    acc.ords.push(x.ordinal);
    acc.statuses.insert(x.status, ());
    let (env_in, sent) = match &x.body {
        Some(b) => unwrap_body(b, r),
        None => (None, None),
    };
    if let Some(e) = &env_in {
        *acc.envelope_in.entry(e.clone()).or_default() += 1;
    }
    let answer_entity = x.answer.as_ref().and_then(|a| entity_at(a, r));
    *acc.bodies.entry(body_kind(x, t, r)).or_default() += 1;
    let prior = snaps.get(t).map(|(m, _)| m.clone());
    // The entity after the write: the answer's, else the next read of it.
    let next_read = (i + 1..exchanges.len()).find(|&j| {
        targets[j]
            .as_ref()
            .is_some_and(|n| n.resource == t.resource && n.id == t.id && n.scope == t.scope)
    });
    let after = match (&answer_entity, body_kind(x, t, r).as_str()) {
        (Some(a), "entity") => Some(a.clone()),
        _ => next_read.and_then(|j| {
            let n = &exchanges[j];
            (n.is_read() && n.is_2xx())
                .then(|| n.answer.as_ref().and_then(|a| entity_at(a, r)))
                .flatten()
        }),
    };
    match t.role.as_str() {
        "create" => {
            if let (Some(sent), Some(after)) = (sent, &after) {
                for (m, v) in after {
                    if !sent.contains_key(m) {
                        let kind = filled_kind(m, v, sent, r);
                        acc.filled
                            .entry(m.clone())
                            .or_default()
                            .push((v.clone(), x.ordinal, kind));
                    }
                }
            }
        }
        "update" => {
            if prior.is_none() {
                acc.upsert_new.push(x.ordinal);
            }
            if let (Some(sent), Some(after), Some(prior)) = (sent, &after, &prior) {
                let keys: Vec<String> = r
                    .keys
                    .iter()
                    .map(|k| k.entity_member.trim_start_matches('/').to_string())
                    .collect();
                compare_update(acc, x.ordinal, sent, prior, after, &keys);
                if let Some(j) = next_read {
                    acc.checked.push(exchanges[j].ordinal);
                }
            }
        }
        "delete" => {
            if let Some(j) = next_read {
                let n = &exchanges[j];
                if n.is_read() {
                    if n.is_2xx() {
                        acc.readable_after.push(n.ordinal);
                        if let (Some(after), Some(prior)) = (&answer_entity, &prior) {
                            for (m, v) in after {
                                let scalar = !v.is_object() && !v.is_array();
                                let Some(p) = prior.get(m) else { continue };
                                if scalar && !clock_like(m) && p != v && !p.is_object() {
                                    acc.soft_sets
                                        .insert(m.clone(), soft_set(p, v, t.id.as_deref()));
                                }
                            }
                        }
                    } else if n.status == 404 {
                        acc.absent_after.push(n.ordinal);
                        if !x.query.is_empty() && acc.hard_query.is_none() {
                            acc.hard_query = Some(
                                x.query
                                    .iter()
                                    .map(|(k, v)| format!("{k}={v}"))
                                    .collect::<Vec<_>>()
                                    .join("&"),
                            );
                        }
                    }
                    acc.checked.push(n.ordinal);
                }
            }
        }
        _ => {
            // RPC action: compare the entity before with the next read.
            if let (Some(body), Some(prior)) = (x.body.as_ref().and_then(Value::as_object), &prior)
            {
                let next_item_read = (i + 1..exchanges.len()).find(|&j| {
                    exchanges[j].is_read()
                        && targets[j].as_ref().is_some_and(|n| {
                            n.resource == t.resource && n.id == t.id && n.scope == t.scope
                        })
                });
                let read_after = next_item_read.and_then(|j| {
                    let n = &exchanges[j];
                    (n.is_read() && n.is_2xx())
                        .then(|| n.answer.as_ref().and_then(|a| entity_at(a, r)))
                        .flatten()
                        .map(|e| (e, n.ordinal))
                });
                let shows = body_kind(x, t, r) == "entity";
                // The answer shows the entity itself only when it has the
                // entity's members (not a part of it under another envelope).
                let same_shape = |e: &Map<String, Value>| {
                    let shared = e.keys().filter(|k| prior.contains_key(*k)).count();
                    shared * 2 > prior.len().max(1)
                };
                let after = answer_entity
                    .clone()
                    .filter(|e| shows && same_shape(e))
                    .map(|e| (e, x.ordinal))
                    .or(read_after);
                if let Some((after, ord)) = after {
                    effects(acc, x.ordinal, body, prior, &after, r);
                    acc.checked.push(ord);
                }
            }
        }
    }
}

/// How a soft delete changed one member: `{"append": suffix}` (the old
/// text kept, a suffix added), `{"template": "…{id}…"}` (a text naming the
/// entity's id) or `{"value": v}` (the same value for every entity).
fn soft_set(old: &Value, new: &Value, id: Option<&str>) -> Value {
    let mut m = Map::new();
    match (old.as_str(), new.as_str()) {
        (Some(o), Some(n)) if !o.is_empty() && n.len() > o.len() && n.starts_with(o) => {
            m.insert("append".into(), Value::String(n[o.len()..].to_string()));
        }
        (_, Some(n)) if id.is_some_and(|i| token_replace(n, i, "{id}") != n) => {
            let i = id.unwrap_or_default();
            m.insert(
                "template".into(),
                Value::String(token_replace(n, i, "{id}")),
            );
        }
        _ => {
            m.insert("value".into(), new.clone());
        }
    }
    Value::Object(m)
}

/// `text` with every whole-token occurrence of `token` (not inside a
/// longer run of letters and digits) replaced.
pub(crate) fn token_replace(text: &str, token: &str, with: &str) -> String {
    if token.is_empty() {
        return text.to_string();
    }
    let mut out = String::new();
    let mut rest = text;
    let mut before: Option<char> = None;
    while let Some(i) = rest.find(token) {
        let prev = rest[..i].chars().last().or(before);
        let next = rest[i + token.len()..].chars().next();
        let alnum = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
        out.push_str(&rest[..i]);
        if alnum(prev) || alnum(next) {
            out.push_str(token);
        } else {
            out.push_str(with);
        }
        before = token.chars().last();
        rest = &rest[i + token.len()..];
    }
    out.push_str(rest);
    out
}

fn body_kind(x: &Exchange, t: &Target, r: &Resource) -> String {
    if x.answer_empty {
        return "empty".into();
    }
    let Some(a) = &x.answer else {
        return "other".into();
    };
    if a.as_object().is_some_and(Map::is_empty) {
        return "empty-object".into();
    }
    if let Some(prev) = a.get("previous").filter(|p| p.is_object()) {
        if a.get("deleted").is_some() && prev.get("id").is_some() {
            return "previous".into();
        }
    }
    if let Some(e) = entity_at(a, r) {
        if e.get("deleted") == Some(&Value::Bool(true)) && e.len() <= 4 {
            return "tombstone".into();
        }
        if e.len() >= 2 {
            return "entity".into();
        }
        if t.role == "create" && e.len() == 1 {
            return "key".into();
        }
    }
    if a.as_object().is_some_and(|o| o.len() == 1) && t.role == "create" {
        return "key".into();
    }
    "other".into()
}

fn filled_kind(m: &str, v: &Value, sent: &Map<String, Value>, r: &Resource) -> String {
    let is_key = r
        .keys
        .iter()
        .any(|k| k.entity_member.trim_start_matches('/') == m);
    if is_key || m == "id" {
        return match scalar_text(v) {
            Some(s) => format!("id:{}", kind_of(&s)),
            None => "id".into(),
        };
    }
    // A clock-named member the server leaves `null` (an unset `due_date`)
    // is a default, not a clock.
    if clock_like(m) && !v.is_null() {
        return "clock".into();
    }
    if let Some(s) = v.as_str() {
        for (sm, sv) in sent {
            if let Some(text) = sv.as_str() {
                if !s.is_empty() && slug(text) == s {
                    return format!("derived:slug({sm})");
                }
            }
        }
    }
    "default".into()
}

/// Lower-case words joined by `-`.
pub(crate) fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_string()
}

fn compare_update(
    acc: &mut Acc,
    ord: u64,
    sent: &Map<String, Value>,
    prior: &Map<String, Value>,
    after: &Map<String, Value>,
    keys: &[String],
) {
    let mut kept = false;
    let mut dropped = false;
    for (m, v) in prior {
        if sent.contains_key(m) || clock_like(m) || keys.contains(m) || m == "id" {
            continue;
        }
        match after.get(m) {
            Some(a) if a == v => kept = true,
            None => dropped = true,
            _ => {}
        }
    }
    let mut null_removed = false;
    let mut null_kept = false;
    let mut nested_merged = false;
    let mut nested_replaced = false;
    for (m, v) in sent {
        match v {
            Value::Null => match after.get(m) {
                None => null_removed = true,
                Some(_) => null_kept = true,
            },
            Value::Object(o) => {
                if let (Some(Value::Object(p)), Some(Value::Object(a))) =
                    (prior.get(m), after.get(m))
                {
                    let others: Vec<&String> = p.keys().filter(|k| !o.contains_key(*k)).collect();
                    if !others.is_empty() {
                        if others.iter().all(|k| a.get(*k) == p.get(*k)) {
                            nested_merged = true;
                        } else {
                            nested_replaced = true;
                        }
                    }
                }
            }
            _ => {}
        }
    }
    if kept {
        acc.fit_merge.push(ord);
        acc.fit_patch.push(ord);
        acc.anti_replace.push(ord);
    }
    if dropped {
        acc.fit_replace.push(ord);
        acc.anti_merge.push(ord);
        acc.anti_patch.push(ord);
    }
    if null_removed || nested_merged {
        acc.fit_patch.push(ord);
    }
    if null_removed {
        acc.anti_merge.push(ord);
        acc.null_removed.push(ord);
    }
    if null_kept {
        acc.null_kept.push(ord);
    }
    if null_kept || nested_replaced {
        acc.anti_patch.push(ord);
    }
}

fn effects(
    acc: &mut Acc,
    ord: u64,
    body: &Map<String, Value>,
    prior: &Map<String, Value>,
    after: &Map<String, Value>,
    r: &Resource,
) {
    let key_names: Vec<&str> = r.keys.iter().map(|k| k.name.as_str()).collect();
    let rest: Map<String, Value> = body
        .iter()
        .filter(|(k, _)| !key_names.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let before = Value::Object(prior.clone());
    let now = Value::Object(after.clone());
    let mut changed = Vec::new();
    diff(&before, &now, String::new(), &mut changed, 0);
    for pointer in changed {
        let value = now.pointer(&pointer).cloned().unwrap_or(Value::Null);
        // An array member of the body whose elements all landed in the
        // entity's array of the same name: merged in element by element.
        let leaf = pointer.rsplit('/').next().unwrap_or("").to_string();
        if let (Value::Array(items), Some(Value::Array(sent))) = (&value, rest.get(&leaf)) {
            if !sent.is_empty()
                && (sent.iter().all(|e| items.contains(e)) || super::keyed::lands(sent, items))
            {
                acc.effects
                    .entry((pointer, "appends".into(), Some(leaf)))
                    .or_default()
                    .push(ord);
                continue;
            }
        }
        if let Some((m, _)) = rest.iter().find(|(_, v)| **v == value && !v.is_null()) {
            acc.effects
                .entry((pointer, "sets".into(), Some(m.clone())))
                .or_default()
                .push(ord);
            continue;
        }
        if let Value::Array(items) = &value {
            let old = before.pointer(&pointer).and_then(Value::as_array);
            let grew = old.is_none_or(|o| o.len() < items.len());
            let holds = items.iter().any(|it| {
                it.as_object().is_some_and(|o| {
                    !rest.is_empty() && rest.iter().all(|(k, v)| o.get(k) == Some(v))
                })
            });
            if grew && holds {
                acc.effects
                    .entry((pointer, "appends".into(), None))
                    .or_default()
                    .push(ord);
            }
        }
    }
}

/// Pointers where two values differ (objects walked, arrays compared whole).
fn diff(a: &Value, b: &Value, at: String, out: &mut Vec<String>, depth: usize) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) if depth < 4 => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let p = format!("{at}/{}", super::exchange::token(k));
                match (x.get(k), y.get(k)) {
                    (Some(u), Some(v)) => diff(u, v, p, out, depth + 1),
                    (None, Some(_)) => out.push(p),
                    _ => {}
                }
            }
        }
        _ if a != b => out.push(at),
        _ => {}
    }
}

fn finish(a: Acc, resources: &[Resource]) -> WriteSemantics {
    let r = &resources[a.resource];
    let mut fits = Vec::new();
    let mut rejected = Vec::new();
    let mut consider = |name: &str, fit: &[u64], anti: &[u64]| {
        if !anti.is_empty() {
            rejected.push(Rejected {
                hypothesis: name.into(),
                contradicted_by: sorted(anti.to_vec()),
            });
        } else if !fit.is_empty() {
            fits.push(name.to_string());
        }
    };
    let semantics;
    let mut delete = None;
    match a.role.as_str() {
        "update" => {
            consider("merge", &a.fit_merge, &a.anti_merge);
            consider("merge-patch", &a.fit_patch, &a.anti_patch);
            consider("replace", &a.fit_replace, &a.anti_replace);
            // No recorded call tells merge from replace (the body held every
            // member): the method's convention, which nothing contradicts.
            if fits.is_empty() && !a.ords.is_empty() {
                let convention = if a.method == "PUT" {
                    "replace"
                } else {
                    "merge"
                };
                if !rejected.iter().any(|r| r.hypothesis == convention) {
                    fits.push(format!("{convention}(convention)"));
                }
            }
            let base = fits.first().cloned();
            semantics = match (a.method.as_str(), base) {
                ("PUT", Some(b)) if !a.upsert_new.is_empty() => format!("upsert+{b}"),
                ("POST", Some(b)) => format!("post-as-update+{b}"),
                (_, Some(b)) => b,
                ("PUT", None) if !a.upsert_new.is_empty() => "upsert".into(),
                _ => "unconfirmed".into(),
            };
        }
        "create" => {
            semantics = "create".into();
            fits.push("create".into());
        }
        "delete" => {
            let soft = !a.readable_after.is_empty();
            semantics = if soft && a.hard_query.is_some() {
                "soft-delete-then-forced".into()
            } else if soft {
                "soft-delete".into()
            } else if !a.absent_after.is_empty() {
                "hard-delete".into()
            } else if a.bodies.contains_key("previous") || a.bodies.contains_key("tombstone") {
                // The answer itself says the entity is gone.
                "hard-delete(answer)".into()
            } else {
                "unconfirmed".into()
            };
            fits.push(semantics.clone());
            delete = Some(DeleteSemantics {
                soft,
                hard_query: a.hard_query.clone(),
                readable_after: sorted(a.readable_after.clone()),
                absent_after: sorted(a.absent_after.clone()),
                soft_sets: a.soft_sets.clone(),
            });
        }
        _ => {
            semantics = if a.effects.is_empty() {
                "unconfirmed".into()
            } else if a.effects.keys().all(|(_, how, _)| how == "sets") {
                "rpc-merge".into()
            } else {
                "rpc-effect".into()
            };
            fits.push(semantics.clone());
        }
    }
    let server_filled = a
        .filled
        .iter()
        .map(|(m, seen)| {
            let kinds: Vec<&String> = seen.iter().map(|(_, _, k)| k).collect();
            let kind = kinds[0].clone();
            let same_kind = kinds.iter().all(|k| **k == kind);
            let (kind, detail) = if kind == "default" {
                let first = &seen[0].0;
                if seen.iter().all(|(v, _, _)| v == first) {
                    ("default".to_string(), Some(first.clone()))
                } else {
                    ("varies".to_string(), None)
                }
            } else if same_kind {
                (kind, None)
            } else {
                ("varies".to_string(), None)
            };
            ServerFilled {
                member: m.clone(),
                kind,
                detail,
                supported_by: sorted(seen.iter().map(|(_, o, _)| *o).collect()),
            }
        })
        .collect();
    let body = a
        .bodies
        .iter()
        .max_by(|x, y| x.1.cmp(y.1).then(y.0.cmp(x.0)))
        .map(|(k, _)| k.clone())
        .unwrap_or_else(|| "other".into());
    let null_member = (a.role == "update" && a.method == "PATCH")
        .then(|| super::nulls::recorded(&a.null_removed, &a.null_kept))
        .flatten();
    WriteSemantics {
        resource: r.name.clone(),
        collection: r.collection.clone(),
        method: a.method,
        route: a.route,
        role: a.role,
        semantics,
        fits,
        rejected,
        request_envelope: a.envelope_in.keys().next().cloned(),
        answer: AnswerShape {
            statuses: a.statuses.keys().copied().collect(),
            envelope: (body == "entity")
                .then(|| r.item_envelope.clone())
                .flatten(),
            body,
        },
        server_filled,
        cascades: Vec::new(),
        effects: a
            .effects
            .into_iter()
            .map(|((pointer, how, member), ords)| Effect {
                pointer,
                how,
                member,
                supported_by: sorted(ords),
            })
            .collect(),
        delete,
        null_member,
        supported_by: sorted(a.ords),
        checked_against: sorted(a.checked),
    }
}
