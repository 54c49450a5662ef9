//! The write representation: the members a resource's 2xx write answers
//! carry beyond its read shape (`password`, `title.raw`, edit-context
//! links), each with the one derivation every recorded write answer
//! confirms — a constant, a copy of a member the reads show, the slug of
//! one, a member with another's value replaced by a template, or the text
//! last sent for its object — and lent to a sibling collection never
//! written in whose reads share most of the lender's read shape. A member
//! no derivation explains is not listed (it is never made up).

use super::exchange::Exchange;
use super::resources::Resource;
use super::routes::Templates;
use super::snapshots::{entity_at, target_of};
use super::writes::slug;
use super::writes::WriteSemantics;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// How a write-only member is derived from the entity (and the call).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Rule {
    /// The same value on every recorded write answer (`password: ""`).
    Const(Value),
    /// The value of a member the reads show (`/guid/raw` = `/guid/rendered`).
    Copy(String),
    /// The slug of a text the reads show (`generated_slug` of `/title/rendered`).
    Slug(String),
    /// A text the reads show with another member's value replaced by a
    /// template quoting members (`/link` with `/slug` → `%{/type}name%`).
    Replace {
        of: String,
        part: String,
        with: String,
    },
    /// The text last sent for the member's object (`excerpt` → `/excerpt/raw`),
    /// else the value every unsent answer of two or more entities showed.
    Sent(Option<Value>),
}

/// One write-only member and its derivation.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Extra {
    /// `/member` or `/object/member`.
    pub pointer: String,
    pub rule: Rule,
    /// The write answers that confirm it.
    pub supported_by: Vec<u64>,
}

/// Per resource: its write-only members, its own or a sibling's.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct WriteShapes {
    /// By resource index.
    pub extras: BTreeMap<usize, Vec<Extra>>,
    /// A resource never written in → the sibling whose write representation it borrows.
    pub lender: BTreeMap<usize, usize>,
    /// Per resource: the top-level members its write answers show that the
    /// entity it quotes in a forced delete's answer (`previous`) leaves out.
    pub unquoted: BTreeMap<usize, BTreeSet<String>>,
    /// Per resource: the write answers read as its representation (every
    /// derivation was checked against those showing the member's object).
    pub checked: BTreeMap<usize, Vec<u64>>,
}

/// One recorded write answer's entity, with the texts sent for it so far.
struct Seen {
    /// The entity's key.
    id: String,
    ordinal: u64,
    entity: Map<String, Value>,
    /// The last text sent for each top-level member of this entity (this call included).
    sent: BTreeMap<String, String>,
    /// A delete's answer: it confirms members, it does not name them (a
    /// tombstone's `deleted` is no member of the entity).
    deletes: bool,
}

/// The entity a write answer quotes under a member (`{"deleted": true, "previous": {…}}`).
fn quoted(answer: &Value) -> Option<(&String, &Map<String, Value>)> {
    let o = answer.as_object()?;
    if o.contains_key("id") {
        return None;
    }
    o.iter()
        .find_map(|(k, v)| Some((k, v.as_object().filter(|e| e.contains_key("id"))?)))
}

/// True when `pointer` is in the read shape (an object of member names, nested).
fn in_shape(shape: &Map<String, Value>, pointer: &str) -> bool {
    let mut at = shape;
    let mut tokens = pointer.split('/').skip(1).peekable();
    while let Some(t) = tokens.next() {
        match at.get(t) {
            None => return false,
            Some(Value::Object(next)) => at = next,
            // A free-form object: anything inside it is shown.
            Some(_) => return true,
        }
        if tokens.peek().is_none() {
            return true;
        }
    }
    false
}

/// The pointers (depth one and two) of an entity.
fn pointers(e: &Map<String, Value>) -> Vec<String> {
    let mut out = Vec::new();
    for (k, v) in e {
        out.push(format!("/{k}"));
        if let Value::Object(inner) = v {
            out.extend(inner.keys().map(|m| format!("/{k}/{m}")));
        }
    }
    out
}

fn at<'a>(e: &'a Map<String, Value>, pointer: &str) -> Option<&'a Value> {
    let mut t = pointer.split('/').skip(1);
    let first = e.get(t.next()?)?;
    match t.next() {
        Some(second) => first.as_object()?.get(second),
        None => Some(first),
    }
}

/// Sets `pointer` (depth one or two; the object must exist).
fn put(e: &mut Map<String, Value>, pointer: &str, v: Value) {
    let mut t = pointer.split('/').skip(1);
    let Some(first) = t.next() else { return };
    match t.next() {
        Some(second) => {
            if let Some(Value::Object(o)) = e.get_mut(first) {
                o.insert(second.to_string(), v);
            }
        }
        None => {
            e.insert(first.to_string(), v);
        }
    }
}

/// `text` with every top-level short text value of `e` (3+ characters)
/// written as `{/member}` (longest first).
fn templated(text: &str, e: &Map<String, Value>) -> String {
    let mut values: Vec<(&String, &str)> = e
        .iter()
        .filter_map(|(k, v)| Some((k, v.as_str()?)))
        .filter(|(_, v)| v.len() >= 3 && v.len() <= 24)
        .collect();
    values.sort_by_key(|(k, v)| (std::cmp::Reverse(v.len()), (*k).clone()));
    let mut out = text.to_string();
    for (k, v) in values {
        if out.contains(v) {
            out = out.replace(v, &format!("{{/{k}}}"));
        }
    }
    out
}

/// A template's text for an entity (`{/member}` → its value).
fn filled(template: &str, e: &Map<String, Value>) -> String {
    let mut out = template.to_string();
    for (k, v) in e {
        if let Some(s) = v.as_str() {
            out = out.replace(&format!("{{/{k}}}"), s);
        }
    }
    out
}

/// `of`'s text with `part`'s replaced by the template's text.
fn replaced(e: &Map<String, Value>, of: &str, part: &str, with: &str) -> Option<String> {
    let text = at(e, of)?.as_str()?;
    let p = at(e, part)?.as_str()?;
    if p.is_empty() || !text.contains(p) {
        return Some(text.to_string());
    }
    Some(text.replacen(p, &filled(with, e), 1))
}

/// The template `value` is `of`'s text with `part`'s replaced by, when
/// `of`'s text holds `part`'s once; `Some(None)` when it does not (the
/// value must then be `of`'s text).
fn template_of(
    e: &Map<String, Value>,
    of: &str,
    part: &str,
    value: &str,
) -> Option<Option<String>> {
    let text = at(e, of)?.as_str()?;
    let p = at(e, part)?.as_str()?;
    if p.is_empty() || !text.contains(p) {
        return (value == text).then_some(None);
    }
    let (head, tail) = text.split_once(p)?;
    let middle = value.strip_prefix(head)?.strip_suffix(tail)?;
    if middle == p {
        return None;
    }
    Some(Some(templated(middle, e)))
}

/// The derivation every observation of `pointer` confirms, if any.
fn explain(pointer: &str, seen: &[&Seen], shape: &Map<String, Value>) -> Option<Rule> {
    let values: Vec<&Value> = seen.iter().filter_map(|s| at(&s.entity, pointer)).collect();
    // Confirmed on two entities or more (one entity's answers show its own values).
    let entities: BTreeSet<&str> = seen.iter().map(|s| s.id.as_str()).collect();
    if values.len() != seen.len() || entities.len() < 2 {
        return None;
    }
    if values.iter().all(|v| *v == values[0]) {
        return Some(Rule::Const(values[0].clone()));
    }
    let first = &seen[0].entity;
    let parent = pointer.rsplit_once('/').map(|(p, _)| p).unwrap_or("");
    let mut sources: Vec<String> = pointers(first)
        .into_iter()
        .filter(|p| p != pointer && in_shape(shape, p))
        .collect();
    // Members of the same object first (`/guid/rendered` for `/guid/raw`).
    let sibling = |p: &str| !parent.is_empty() && p.starts_with(&format!("{parent}/"));
    sources.sort_by_key(|p| (!sibling(p), p.clone()));
    for q in &sources {
        if seen
            .iter()
            .all(|s| at(&s.entity, q) == at(&s.entity, pointer))
        {
            return Some(Rule::Copy(q.clone()));
        }
    }
    let texts: Vec<&str> = values.iter().filter_map(|v| v.as_str()).collect();
    if texts.len() != values.len() {
        return None;
    }
    for q in &sources {
        let ok = seen.iter().all(|s| {
            at(&s.entity, q)
                .and_then(Value::as_str)
                .map(slug)
                .as_deref()
                == at(&s.entity, pointer).and_then(Value::as_str)
        });
        if ok {
            return Some(Rule::Slug(q.clone()));
        }
    }
    let tops: Vec<&String> = sources
        .iter()
        .filter(|p| p.matches('/').count() == 1)
        .collect();
    for of in &tops {
        for part in &tops {
            if of == part {
                continue;
            }
            let mut with: Option<String> = None;
            let mut ok = true;
            for s in seen {
                let v = at(&s.entity, pointer)
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                match template_of(&s.entity, of, part, v) {
                    Some(Some(t)) if with.as_ref().is_none_or(|w| *w == t) => with = Some(t),
                    Some(None) => {}
                    _ => {
                        ok = false;
                        break;
                    }
                }
            }
            if let (true, Some(with)) = (ok, with) {
                return Some(Rule::Replace {
                    of: (*of).clone(),
                    part: (*part).clone(),
                    with,
                });
            }
        }
    }
    // The text last sent for its object, else one value for unsent ones.
    let object = pointer.split('/').nth(1)?;
    if pointer.matches('/').count() != 2 {
        return None;
    }
    let mut unsent: Vec<(&Value, &Map<String, Value>)> = Vec::new();
    let mut echoed = 0;
    for s in seen {
        let v = at(&s.entity, pointer)?;
        match s.sent.get(object) {
            Some(t) if v.as_str() == Some(t.as_str()) => echoed += 1,
            Some(_) => return None,
            None => unsent.push((v, &s.entity)),
        }
    }
    if echoed == 0 {
        return None;
    }
    let ids: BTreeSet<String> = unsent
        .iter()
        .filter_map(|(_, e)| e.get("id").map(Value::to_string))
        .collect();
    let default = (ids.len() >= 2 && unsent.iter().all(|(v, _)| *v == unsent[0].0))
        .then(|| unsent[0].0.clone());
    Some(Rule::Sent(default))
}

/// The words of a member name (`wp:action-assign-categories` → `wp`, `action`, …).
fn words(name: &str) -> impl Iterator<Item = &str> {
    name.split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
}

/// The members a rule reads.
fn sources(rule: &Rule) -> Vec<&str> {
    match rule {
        Rule::Copy(q) | Rule::Slug(q) => vec![q.as_str()],
        Rule::Replace { of, part, .. } => vec![of.as_str(), part.as_str()],
        Rule::Const(_) | Rule::Sent(_) => Vec::new(),
    }
}

/// Infers every resource's write-only members from the recorded 2xx write
/// answers (and the entity a forced delete quotes), and lends them to
/// siblings never written in.
pub(crate) fn infer(
    exchanges: &[Exchange],
    resources: &[Resource],
    templates: &Templates,
    read_nested: &BTreeMap<usize, Map<String, Value>>,
) -> WriteShapes {
    let mut seen: BTreeMap<usize, Vec<Seen>> = BTreeMap::new();
    let mut sent_so_far: BTreeMap<(usize, String), BTreeMap<String, String>> = BTreeMap::new();
    let mut written: BTreeSet<usize> = BTreeSet::new();
    let mut quoted_keys: BTreeMap<usize, BTreeSet<String>> = BTreeMap::new();
    let mut answer_keys: BTreeMap<usize, BTreeSet<String>> = BTreeMap::new();
    for x in exchanges.iter().filter(|x| !x.is_read() && x.is_2xx()) {
        let Some(t) = target_of(x, resources, templates) else {
            continue;
        };
        let r = &resources[t.resource];
        if r.addressing != "path" || t.role == "query" {
            continue;
        }
        written.insert(t.resource);
        let Some(answer) = &x.answer else { continue };
        let (entity, quoting) = match quoted(answer) {
            Some((_, e)) => (e.clone(), true),
            None => match entity_at(answer, r) {
                Some(e) => (e, false),
                None => continue,
            },
        };
        // A representation of the entity shows at least half of the members
        // its reads show (an acknowledgement `{ok, id, rev}` is none).
        if let Some(shape) = read_nested.get(&t.resource) {
            if entity.keys().filter(|k| shape.contains_key(*k)).count() * 2 < shape.len() {
                continue;
            }
        }
        let keys: BTreeSet<String> = entity.keys().cloned().collect();
        if quoting {
            quoted_keys.entry(t.resource).or_default().extend(keys);
        } else {
            answer_keys.entry(t.resource).or_default().extend(keys);
        }
        let Some(id) = entity.get("id").map(Value::to_string).or(t.id.clone()) else {
            continue;
        };
        let sent = sent_so_far.entry((t.resource, id.clone())).or_default();
        if let Some(Value::Object(b)) = &x.body {
            for (k, v) in b {
                if let Some(s) = v.as_str() {
                    sent.insert(k.clone(), s.to_string());
                }
            }
        }
        seen.entry(t.resource).or_default().push(Seen {
            id: id.clone(),
            ordinal: x.ordinal,
            entity,
            sent: sent.clone(),
            deletes: x.method == "DELETE",
        });
    }
    let empty = Map::new();
    let mut out = WriteShapes::default();
    for (ri, obs) in &seen {
        let shape = read_nested.get(ri).unwrap_or(&empty);
        if shape.is_empty() {
            continue;
        }
        let mut candidates: BTreeSet<String> = BTreeSet::new();
        for s in obs.iter().filter(|s| !s.deletes) {
            candidates.extend(
                pointers(&s.entity)
                    .into_iter()
                    .filter(|p| !in_shape(shape, p)),
            );
        }
        let mut extras = Vec::new();
        for p in candidates {
            // Only answers showing the member's object (a `previous` may leave `_links` out).
            let top = p.split('/').nth(1).unwrap_or_default();
            let with: Vec<&Seen> = obs.iter().filter(|s| s.entity.contains_key(top)).collect();
            if let Some(rule) = explain(&p, &with, shape) {
                extras.push(Extra {
                    pointer: p,
                    rule,
                    supported_by: with.iter().map(|s| s.ordinal).collect(),
                });
            }
        }
        if !extras.is_empty() {
            out.extras.insert(*ri, extras);
            out.checked
                .insert(*ri, obs.iter().map(|s| s.ordinal).collect());
        }
        if let (Some(a), Some(q)) = (answer_keys.get(ri), quoted_keys.get(ri)) {
            out.unquoted
                .insert(*ri, a.difference(q).cloned().collect::<BTreeSet<_>>());
        }
    }
    // Lending: a path collection never written in borrows the write
    // representation of the sibling (same parent) sharing the most of its
    // read members (at least half of each one's), minus members named after a member the
    // lender's reads show and its own do not (`wp:action-sticky`).
    let parent = |c: &str| c.rsplit_once('/').map(|(p, _)| p.to_string());
    for (ri, r) in resources.iter().enumerate() {
        if r.addressing != "path" || written.contains(&ri) {
            continue;
        }
        let Some(mine) = read_nested.get(&ri).filter(|m| !m.is_empty()) else {
            continue;
        };
        let mut best: Option<(usize, usize)> = None;
        for (si, s) in resources.iter().enumerate() {
            if si == ri || s.addressing != "path" || parent(&s.collection) != parent(&r.collection)
            {
                continue;
            }
            let (Some(theirs), true) = (read_nested.get(&si), out.extras.contains_key(&si)) else {
                continue;
            };
            // Most of each one's read members are the other's.
            let shared = mine.keys().filter(|k| theirs.contains_key(*k)).count();
            let most = shared * 2 >= mine.len().max(theirs.len());
            if most && best.is_none_or(|(b, _)| shared > b) {
                best = Some((shared, si));
            }
        }
        let Some((_, si)) = best else { continue };
        let theirs = &read_nested[&si];
        let only_theirs: BTreeSet<&String> =
            theirs.keys().filter(|k| !mine.contains_key(*k)).collect();
        let lent: Vec<Extra> = out.extras[&si]
            .iter()
            .filter(|e| {
                let last = e.pointer.rsplit('/').next().unwrap_or_default();
                !words(last).any(|w| only_theirs.iter().any(|m| m.as_str() == w))
                    && sources(&e.rule).iter().all(|q| in_shape(mine, q))
            })
            .cloned()
            .collect();
        if !lent.is_empty() {
            out.extras.insert(ri, lent);
            out.lender.insert(ri, si);
            if let Some(c) = out.checked.get(&si).cloned() {
                out.checked.insert(ri, c);
            }
            if let Some(u) = out.unquoted.get(&si).cloned() {
                out.unquoted.insert(ri, u);
            }
        }
    }
    out
}

impl WriteShapes {
    /// The sibling whose write representation (and write routes) a
    /// resource never written in borrows.
    pub(crate) fn lender(&self, resource: usize) -> Option<usize> {
        self.lender.get(&resource).copied()
    }

    /// Gives a written entity its write-only members: constants, copies and
    /// sent texts where missing; derived members (slugs, templates) anew.
    pub(crate) fn fill(
        &self,
        resource: usize,
        sent: &Map<String, Value>,
        e: &mut Map<String, Value>,
    ) {
        let Some(extras) = self.extras.get(&resource) else {
            return;
        };
        for x in extras {
            let missing = at(e, &x.pointer).is_none();
            let v = match &x.rule {
                Rule::Const(v) => missing.then(|| v.clone()),
                Rule::Copy(q) => at(e, q).filter(|_| missing).cloned(),
                Rule::Slug(q) => at(e, q)
                    .and_then(Value::as_str)
                    .map(|t| Value::String(slug(t))),
                Rule::Replace { of, part, with } => replaced(e, of, part, with).map(Value::String),
                Rule::Sent(default) => {
                    let object = x.pointer.split('/').nth(1).unwrap_or_default();
                    match sent.get(object).and_then(Value::as_str) {
                        Some(t) => Some(Value::String(t.to_string())),
                        None => default.clone().filter(|_| missing),
                    }
                }
            };
            if let Some(v) = v {
                put(e, &x.pointer, v);
            }
        }
    }

    /// The entity as a forced delete's answer quotes it: without the
    /// members the resource's (or its lender's) quoted entities leave out.
    pub(crate) fn quote(&self, resource: usize, e: &mut Map<String, Value>) -> bool {
        let Some(left_out) = self.unquoted.get(&resource) else {
            return false;
        };
        e.retain(|k, _| !left_out.contains(k));
        true
    }
}

impl WriteShapes {
    /// A recorded answer quoting an entity under a member (`previous`),
    /// with `e` there as this resource's write representation shows it
    /// (what the lender's quoted entities leave out left out); `None` when
    /// nothing is known of what the quote leaves out, or the answer quotes
    /// no entity.
    pub(crate) fn quoted_answer(
        &self,
        resource: usize,
        example: &Value,
        e: &Map<String, Value>,
    ) -> Option<Value> {
        let (slot, _) = quoted(example)?;
        let slot = slot.clone();
        let mut e = e.clone();
        if !self.quote(resource, &mut e) {
            return None;
        }
        let mut m = example.as_object()?.clone();
        m.insert(slot, Value::Object(e));
        Some(Value::Object(m))
    }
}

/// One write-only member as the model document names it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WriteMember {
    /// `/member` or `/object/member`.
    pub member: String,
    /// `constant`, `copy`, `slug`, `replace` or `sent`.
    pub rule: String,
    /// `constant`: the value every recorded write answer showed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    /// `copy`, `slug`, `replace`: the read member the value is made from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub of: Option<String>,
    /// `replace`: the member whose value in `of`'s text is replaced…
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<String>,
    /// …by this template (`{/member}` quotes a member, `%…%` is literal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub with: Option<String>,
    /// `sent`: the value every unsent answer of two or more entities showed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// The write answers (of the lender, when lent) showing the member, each confirming the rule.
    pub supported_by: Vec<u64>,
    /// The write answers the rule was checked against.
    pub checked_against: Vec<u64>,
}

/// One resource's write representation as the model document names it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WriteRepresentation {
    /// The resource's collection template.
    pub resource: String,
    /// The sibling collection whose write representation (and write
    /// routes) this resource borrows: it was never written in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lent_from: Option<String>,
    pub members: Vec<WriteMember>,
    /// Top-level members a forced delete's quoted entity (`previous`)
    /// leaves out, as the recorded quotes showed against the write answers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub quote_leaves_out: Vec<String>,
    /// What the recording cannot tell and the model takes by convention.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conventions: Vec<String>,
}

impl WriteShapes {
    /// The write representation section of the model document (by resource order).
    pub(crate) fn document(&self, resources: &[Resource]) -> Vec<WriteRepresentation> {
        let mut out = Vec::new();
        for (ri, extras) in &self.extras {
            let Some(r) = resources.get(*ri) else {
                continue;
            };
            let checked = self.checked.get(ri).cloned().unwrap_or_default();
            let members = extras
                .iter()
                .map(|x| {
                    let mut m = WriteMember {
                        member: x.pointer.clone(),
                        rule: String::new(),
                        value: None,
                        of: None,
                        part: None,
                        with: None,
                        default: None,
                        supported_by: x.supported_by.clone(),
                        checked_against: checked.clone(),
                    };
                    match &x.rule {
                        Rule::Const(v) => {
                            m.rule = "constant".into();
                            m.value = Some(v.clone());
                        }
                        Rule::Copy(q) => {
                            m.rule = "copy".into();
                            m.of = Some(q.clone());
                        }
                        Rule::Slug(q) => {
                            m.rule = "slug".into();
                            m.of = Some(q.clone());
                        }
                        Rule::Replace { of, part, with } => {
                            m.rule = "replace".into();
                            m.of = Some(of.clone());
                            m.part = Some(part.clone());
                            m.with = Some(with.clone());
                        }
                        Rule::Sent(d) => {
                            m.rule = "sent".into();
                            m.default = d.clone();
                        }
                    }
                    m
                })
                .collect::<Vec<_>>();
            let lent_from = self
                .lender(*ri)
                .and_then(|s| resources.get(s))
                .map(|s| s.collection.clone());
            let mut conventions = Vec::new();
            if let Some(l) = &lent_from {
                conventions.push(format!(
                    "never written in: every member is {l}'s derivation, unconfirmed on this resource's own answers"
                ));
            }
            if members
                .iter()
                .any(|m| m.rule == "sent" && m.default.is_none())
            {
                conventions.push(
                    "a `sent` member without a `default` is left out until a write sends its object's text (nothing made up)".into(),
                );
            }
            out.push(WriteRepresentation {
                resource: r.collection.clone(),
                lent_from,
                members,
                quote_leaves_out: self
                    .unquoted
                    .get(ri)
                    .map(|u| u.iter().cloned().collect())
                    .unwrap_or_default(),
                conventions,
            });
        }
        out
    }

    /// Names the lender as the sibling of each write route a resource never
    /// written in borrows (the one serving uses, `lent_write`): its lent
    /// item routes with a method the lender writes come from the lender,
    /// with the lender's records; a method the lender writes and the
    /// resource neither shows nor was lent is lent too (unless refused).
    pub(crate) fn relend(&self, resources: &mut [Resource], writes: &[WriteSemantics]) {
        for (ri, si) in &self.lender {
            let (Some(s), Some(item)) = (
                resources.get(*si).cloned(),
                resources.get(*ri).and_then(|r| r.item.clone()),
            ) else {
                continue;
            };
            let Some(sitem) = s.item.clone() else {
                continue;
            };
            let r = &mut resources[*ri];
            for w in writes.iter().filter(|w| w.route == sitem) {
                if r.operations
                    .iter()
                    .any(|o| o.route == item && o.method == w.method)
                {
                    continue;
                }
                let Some(op) = s
                    .operations
                    .iter()
                    .find(|o| o.route == sitem && o.method == w.method)
                else {
                    continue;
                };
                let lent = super::resources::InferredOperation {
                    method: w.method.clone(),
                    route: item.clone(),
                    role: op.role.clone(),
                    from: s.collection.clone(),
                    supported_by: op.ordinals.clone(),
                };
                match r
                    .inferred_operations
                    .iter_mut()
                    .find(|o| o.method == w.method)
                {
                    Some(o) => *o = lent,
                    None => r.inferred_operations.push(lent),
                }
            }
            r.inferred_operations
                .sort_by(|a, b| a.method.cmp(&b.method).then(a.from.cmp(&b.from)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::serving::serving_model;
    use crate::testkit::fixture;
    use serde_json::json;

    fn shapes(capture: &str) -> (WriteShapes, Vec<Resource>) {
        let s = serving_model(&fixture(capture)).expect("serving model");
        (s.write_shapes().clone(), s.model.resources.clone())
    }

    fn index(resources: &[Resource], collection: &str) -> usize {
        resources
            .iter()
            .position(|r| r.collection == collection)
            .unwrap_or_else(|| panic!("no resource {collection}"))
    }

    fn rule<'a>(w: &'a WriteShapes, resource: usize, pointer: &str) -> Option<&'a Rule> {
        w.extras
            .get(&resource)?
            .iter()
            .find(|e| e.pointer == pointer)
            .map(|e| &e.rule)
    }

    #[test]
    fn wordpress_write_answers_carry_the_edit_members_each_with_its_derivation() {
        let (w, rs) = shapes("wordpress/dev-a.har");
        let posts = index(&rs, "/wp-json/wp/v2/posts");
        assert_eq!(rule(&w, posts, "/password"), Some(&Rule::Const(json!(""))));
        assert_eq!(
            rule(&w, posts, "/guid/raw"),
            Some(&Rule::Copy("/guid/rendered".into()))
        );
        assert_eq!(
            rule(&w, posts, "/title/raw"),
            Some(&Rule::Copy("/title/rendered".into()))
        );
        // The slug of the title, not the slug: a renamed post keeps its slug.
        assert_eq!(
            rule(&w, posts, "/generated_slug"),
            Some(&Rule::Slug("/title/rendered".into()))
        );
        // The link with the slug replaced (a trashed post's `?p=27` link has none).
        assert_eq!(
            rule(&w, posts, "/permalink_template"),
            Some(&Rule::Replace {
                of: "/link".into(),
                part: "/slug".into(),
                with: "%{/type}name%".into()
            })
        );
        // The sent excerpt, else "" (two entities never sent one).
        assert_eq!(
            rule(&w, posts, "/excerpt/raw"),
            Some(&Rule::Sent(Some(json!(""))))
        );
        // The sent content, and nothing made up for an entity never sent one.
        assert_eq!(rule(&w, posts, "/content/raw"), Some(&Rule::Sent(None)));
        assert_eq!(
            rule(&w, posts, "/_links/wp:action-publish"),
            Some(&Rule::Copy("/_links/self".into()))
        );
        // Pages are never written in dev-a: they borrow the posts' write
        // representation, without the links named after members only posts have.
        let pages = index(&rs, "/wp-json/wp/v2/pages");
        assert_eq!(w.lender(pages), Some(posts));
        for p in [
            "/password",
            "/generated_slug",
            "/permalink_template",
            "/title/raw",
        ] {
            assert_eq!(rule(&w, pages, p), rule(&w, posts, p), "{p}");
        }
        assert!(rule(&w, pages, "/_links/wp:action-assign-author").is_some());
        for p in ["sticky", "assign-categories", "create-tags"] {
            assert!(
                rule(&w, pages, &format!("/_links/wp:action-{p}")).is_none(),
                "{p}"
            );
        }
        // A forced delete's `previous` leaves the links out.
        assert_eq!(
            w.unquoted.get(&pages).cloned().unwrap_or_default(),
            BTreeSet::from(["_links".to_string()])
        );
        // Tags, categories and comments are written: they borrow nothing;
        // users' reads share too little with any sibling.
        for c in ["tags", "categories", "comments"] {
            assert_eq!(
                w.lender(index(&rs, &format!("/wp-json/wp/v2/{c}"))),
                None,
                "{c}"
            );
        }
    }

    #[test]
    fn a_lent_page_is_filled_from_its_own_members() {
        let (w, rs) = shapes("wordpress/dev-a.har");
        let pages = index(&rs, "/wp-json/wp/v2/pages");
        let mut page = json!({
            "id": 26, "slug": "visit-the-roastery", "type": "page",
            "link": "http://h/about-us/visit-the-roastery/",
            "guid": {"rendered": "http://h/about-us/visit-the-roastery/"},
            "title": {"rendered": "Visit the Roastery"},
            "excerpt": {"rendered": "<p>x</p>\n", "protected": false},
            "_links": {"self": [{"href": "http://h/wp-json/wp/v2/pages/26"}]}
        });
        let sent = json!({"content": "<p>y</p>"});
        w.fill(
            pages,
            sent.as_object().unwrap(),
            page.as_object_mut().unwrap(),
        );
        assert_eq!(page["password"], "");
        assert_eq!(page["permalink_template"], "http://h/about-us/%pagename%/");
        assert_eq!(page["generated_slug"], "visit-the-roastery");
        assert_eq!(page["guid"]["raw"], page["guid"]["rendered"]);
        assert_eq!(page["title"]["raw"], "Visit the Roastery");
        assert_eq!(page["excerpt"]["raw"], "");
        assert_eq!(page["_links"]["wp:action-publish"], page["_links"]["self"]);
        // No `content` object to hold the sent text: nothing is invented.
        assert!(page.get("content").is_none());
    }

    #[test]
    fn apps_whose_write_answers_are_their_read_shape_get_no_write_members() {
        // Kinto (`{data}` envelopes, tombstones with `deleted`), MLflow (RPC),
        // Redmine (204 updates), DRF, json-server, and pouchdb-server, whose
        // `{ok, id, rev}` acknowledgements are no representation of a document.
        for capture in [
            "kinto/dev-a.har",
            "mlflow/dev-a.har",
            "redmine/dev-a.har",
            "redmine/dev-b.har",
            "drf/dev-a.har",
            "drf/dev-b.har",
            "jsonserver/dev-a.har",
            "jsonserver/dev-b.har",
            "couch/dev-a.har",
            "couch/dev-b.har",
        ] {
            let (w, rs) = shapes(capture);
            let mut listed: Vec<String> = Vec::new();
            for (i, x) in &w.extras {
                for e in x {
                    listed.push(format!("{} {}", rs[*i].collection, e.pointer));
                }
            }
            assert!(listed.is_empty(), "{capture}: {listed:?}");
        }
    }
}
