//! Relations between collections, inferred from the recording: a child
//! collection's member holding a parent's key (`postId` of `/comments`
//! holds ids of `/posts`), confirmed where the recording shows it at work —
//! a nested route that lists exactly the children of one parent
//! (`/posts/9/comments`), an embedding parameter whose answer adds the
//! children to the parent (`?_embed=comments`), an expansion parameter
//! that adds the parent to a child (`?_expand=post`), a delete of the
//! parent after which its children are gone (cascade). The member's
//! spelling (`<singular parent>` + suffix) is lent, as a convention, to
//! other pairs of sibling collections whose children hold it. Pure
//! functions over the decoded exchanges; the serving side
//! (`serve/src/relations.rs`) rewrites calls with `nested_call`,
//! `embedding` and `expansion`.

use super::exchange::{join, list_of, scalar_text, Exchange};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// One relation: the children of `child` whose `member` holds the key of an
/// entity of `parent`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Relation {
    /// The parent collection path (`/posts`).
    pub parent: String,
    /// The child collection path, a sibling of the parent (`/comments`).
    pub child: String,
    /// The child's member holding the parent's key (`postId`).
    pub member: String,
    /// `confirmed` (a recorded answer shows the relation at work) or
    /// `convention` (the member is spelled like a confirmed relation's).
    pub status: String,
    /// The relation whose spelling a convention follows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spelled_like: Option<String>,
    /// Recorded nested routes (`/posts/{id}/comments`) listing the children.
    pub nested_by: Vec<u64>,
    /// Recorded creates through a nested route, and how the server wrote
    /// the parent's key into the child (`text`: the path segment as sent;
    /// `number`).
    pub nested_creates: Vec<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nested_key: Option<String>,
    /// Reads after a delete of the parent that no longer show its children.
    pub cascade_by: Vec<u64>,
    /// Reads after a delete of the parent that still show a child.
    pub cascade_contradicted_by: Vec<u64>,
    /// Recorded answers that did not fit (a nested listing with a child of
    /// another parent, an embed missing a child).
    pub contradicted_by: Vec<u64>,
}

/// A query parameter that adds related entities to the answered entities.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Embedding {
    /// The parameter (`_embed`, `_expand`).
    pub param: String,
    /// `children`: the value names a child collection, added as an array of
    /// the entity's children; `parent`: the value names the parent (its
    /// singular), added as the one entity the child's member names.
    pub adds: String,
    /// The records whose answers showed exactly that.
    pub confirmed_by: Vec<u64>,
    pub contradicted_by: Vec<u64>,
}

/// The relations section of the app model.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Relations {
    pub relations: Vec<Relation>,
    pub embeddings: Vec<Embedding>,
}

impl Relations {
    pub fn is_empty(&self) -> bool {
        self.relations.is_empty() && self.embeddings.is_empty()
    }
}

/// The singular of a collection's last segment (`posts` → `post`).
pub(crate) fn singular(name: &str) -> String {
    if let Some(stem) = name.strip_suffix("ies") {
        format!("{stem}y")
    } else if let Some(stem) = name.strip_suffix('s').filter(|s| !s.ends_with('s')) {
        stem.to_string()
    } else {
        name.to_string()
    }
}

fn last(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn parent_of(path: &str) -> &str {
    match path.rsplit_once('/') {
        Some(("", _)) | None => "",
        Some((p, _)) => p,
    }
}

/// The collections the recording shows: paths whose 2xx reads answered a
/// root array of objects, or whose item reads (`path/{id}`) answered an
/// object showing the id under `id`; with the entities known before the
/// first write (by id text).
struct Collections {
    known: BTreeMap<String, BTreeMap<String, Map<String, Value>>>,
    /// Collections listed in full (a read without a query) before any write.
    complete: BTreeSet<String>,
}

const KEY: &str = "id";

fn key_text(e: &Map<String, Value>) -> Option<String> {
    e.get(KEY).and_then(scalar_text)
}

fn collections(exchanges: &[Exchange]) -> Collections {
    let mut known: BTreeMap<String, BTreeMap<String, Map<String, Value>>> = BTreeMap::new();
    let mut complete = BTreeSet::new();
    for x in exchanges {
        if !x.is_read() {
            if x.is_2xx() {
                break;
            }
            continue;
        }
        let (true, Some(answer)) = (x.is_2xx(), &x.answer) else {
            continue;
        };
        let path = x.path();
        match answer {
            Value::Array(items) if items.iter().all(Value::is_object) => {
                // A nested listing is not a collection of its own here.
                if x.segments.len() != 1 && !known.contains_key(&path) {
                    continue;
                }
                let slot = known.entry(path.clone()).or_default();
                for e in items.iter().filter_map(Value::as_object) {
                    if let Some(k) = key_text(e) {
                        slot.entry(k).or_insert_with(|| e.clone());
                    }
                }
                if x.query.is_empty() {
                    complete.insert(path);
                }
            }
            Value::Object(e) if x.query.is_empty() && x.segments.len() >= 2 => {
                let id = x.segments.last().cloned().unwrap_or_default();
                if key_text(e).as_deref() == Some(id.as_str()) {
                    let coll = join(&x.segments[..x.segments.len() - 1]);
                    known.entry(coll).or_default().insert(id, e.clone());
                }
            }
            _ => {}
        }
    }
    Collections { known, complete }
}

/// Members of every item that hold `id` (as text), besides the key.
fn members_holding(items: &[&Map<String, Value>], id: &str) -> BTreeSet<String> {
    let mut out: Option<BTreeSet<String>> = None;
    for e in items {
        let here: BTreeSet<String> = e
            .iter()
            .filter(|(k, v)| *k != KEY && scalar_text(v).as_deref() == Some(id))
            .map(|(k, _)| k.clone())
            .collect();
        out = Some(match out {
            None => here,
            Some(o) => o.intersection(&here).cloned().collect(),
        });
    }
    out.unwrap_or_default()
}

/// The one member to take among candidates: the one spelled after the
/// parent's singular, else the only one.
fn pick(candidates: &BTreeSet<String>, parent: &str) -> Option<String> {
    let s = singular(last(parent)).to_ascii_lowercase();
    candidates
        .iter()
        .find(|m| m.to_ascii_lowercase().starts_with(&s))
        .cloned()
        .or_else(|| (candidates.len() == 1).then(|| candidates.iter().next().cloned())?)
}

/// True when the listed children are exactly the known children of `id`
/// (every listed one has the member at `id`; every known one with it is
/// listed, when the child collection was listed in full).
fn lists_children(
    c: &Collections,
    child: &str,
    member: &str,
    id: &str,
    listed: &[&Map<String, Value>],
) -> bool {
    let of = |e: &Map<String, Value>| e.get(member).and_then(scalar_text).as_deref() == Some(id);
    if !listed.iter().all(|e| of(e)) {
        return false;
    }
    if !c.complete.contains(child) {
        return true;
    }
    let shown: BTreeSet<String> = listed.iter().filter_map(|e| key_text(e)).collect();
    c.known
        .get(child)
        .map(|all| {
            all.values()
                .filter(|e| of(e))
                .all(|e| key_text(e).is_some_and(|k| shown.contains(&k)))
        })
        .unwrap_or(true)
}

fn relation(parent: &str, child: &str, member: &str, status: &str) -> Relation {
    Relation {
        parent: parent.into(),
        child: child.into(),
        member: member.into(),
        status: status.into(),
        spelled_like: None,
        nested_by: Vec::new(),
        nested_creates: Vec::new(),
        nested_key: None,
        cascade_by: Vec::new(),
        cascade_contradicted_by: Vec::new(),
        contradicted_by: Vec::new(),
    }
}

fn slot<'a>(
    rels: &'a mut Vec<Relation>,
    parent: &str,
    child: &str,
    member: &str,
) -> &'a mut Relation {
    if let Some(i) = rels
        .iter()
        .position(|r| r.parent == parent && r.child == child && r.member == member)
    {
        return &mut rels[i];
    }
    rels.push(relation(parent, child, member, "confirmed"));
    rels.last_mut().expect("just pushed")
}

/// A nested path `…/P/{id}/c` of two known sibling collections `P` and
/// `parent(P)/c`: (P, child, id).
fn nested_parts(c: &Collections, segments: &[String]) -> Option<(String, String, String)> {
    if segments.len() < 3 {
        return None;
    }
    let n = segments.len();
    let parent = join(&segments[..n - 2]);
    let base = parent_of(&parent).to_string();
    let child = format!("{base}/{}", segments[n - 1]);
    (c.known.contains_key(&parent) && c.known.contains_key(&child) && parent != child)
        .then(|| (parent, child, segments[n - 2].clone()))
}

/// Infers the relations and embedding parameters of a recording.
pub(crate) fn infer(exchanges: &[Exchange]) -> Relations {
    let c = collections(exchanges);
    let mut rels: Vec<Relation> = Vec::new();
    let mut embeds: Vec<Embedding> = Vec::new();
    // Nested listings and nested creates.
    for x in exchanges.iter().filter(|x| x.is_2xx()) {
        let Some((parent, child, id)) = nested_parts(&c, &x.segments) else {
            continue;
        };
        match (x.method.as_str(), &x.answer) {
            ("GET", Some(Value::Array(items))) if x.query.is_empty() => {
                let listed: Vec<&Map<String, Value>> =
                    items.iter().filter_map(Value::as_object).collect();
                if listed.is_empty() {
                    continue;
                }
                let found = members_holding(&listed, &id);
                match pick(&found, &parent).filter(|m| lists_children(&c, &child, m, &id, &listed))
                {
                    Some(m) => slot(&mut rels, &parent, &child, &m)
                        .nested_by
                        .push(x.ordinal),
                    None => {
                        for r in rels
                            .iter_mut()
                            .filter(|r| r.parent == parent && r.child == child)
                        {
                            r.contradicted_by.push(x.ordinal);
                        }
                    }
                }
            }
            ("POST", Some(Value::Object(e))) => {
                let sent = x.body.as_ref().and_then(Value::as_object);
                let found: BTreeSet<String> = e
                    .iter()
                    .filter(|(k, v)| {
                        *k != KEY
                            && scalar_text(v).as_deref() == Some(id.as_str())
                            && !sent.is_some_and(|s| s.contains_key(*k))
                    })
                    .map(|(k, _)| k.clone())
                    .collect();
                if let Some(m) = pick(&found, &parent) {
                    let r = slot(&mut rels, &parent, &child, &m);
                    r.nested_creates.push(x.ordinal);
                    let kind = if e.get(&m).is_some_and(Value::is_string) {
                        "text"
                    } else {
                        "number"
                    };
                    r.nested_key = Some(kind.into());
                }
            }
            _ => {}
        }
    }
    // Embedding and expansion parameters on item reads.
    for x in exchanges.iter().filter(|x| x.is_2xx() && x.method == "GET") {
        let Some(Value::Object(e)) = &x.answer else {
            continue;
        };
        if x.segments.len() < 2 || x.query.is_empty() {
            continue;
        }
        let coll = join(&x.segments[..x.segments.len() - 1]);
        let id = x.segments.last().cloned().unwrap_or_default();
        if !c.known.contains_key(&coll) || key_text(e).as_deref() != Some(id.as_str()) {
            continue;
        }
        let base = parent_of(&coll).to_string();
        for (param, value) in &x.query {
            let child = format!("{base}/{value}");
            let mut verdict: Option<(&str, bool)> = None;
            if let (true, Some(Value::Array(items))) =
                (c.known.contains_key(&child), e.get(value.as_str()))
            {
                // Children: the answer's array is the entity's children.
                let listed: Vec<&Map<String, Value>> =
                    items.iter().filter_map(Value::as_object).collect();
                // An empty embed tells nothing (json-server embeds by the
                // key's JSON value: a child keyed by the text "21" is not
                // post 21's).
                if listed.is_empty() {
                    continue;
                }
                let found = members_holding(&listed, &id);
                let spelled = rels
                    .iter()
                    .find(|r| r.parent == coll && r.child == child)
                    .map(|r| r.member.clone());
                let m = spelled.or_else(|| pick(&found, &coll));
                let ok = m.as_ref().is_some_and(|m| {
                    found.contains(m) && lists_children(&c, &child, m, &id, &listed)
                });
                if let (true, Some(m)) = (ok, m) {
                    slot(&mut rels, &coll, &child, &m);
                }
                verdict = Some(("children", ok));
            } else if let Some(Value::Object(p)) = e.get(value.as_str()) {
                // Parent: the answer's object is the entity its member names.
                let parent = c
                    .known
                    .keys()
                    .find(|k| parent_of(k) == base && singular(last(k)) == *value)
                    .cloned();
                if let (Some(parent), Some(pk)) = (parent, key_text(p)) {
                    let holding: BTreeSet<String> = e
                        .iter()
                        .filter(|(k, v)| {
                            *k != KEY
                                && *k != value
                                && scalar_text(v).as_deref() == Some(pk.as_str())
                        })
                        .map(|(k, _)| k.clone())
                        .collect();
                    let m = pick(&holding, &parent);
                    let same = c
                        .known
                        .get(&parent)
                        .and_then(|all| all.get(&pk))
                        .is_none_or(|known| known == p);
                    if let (Some(m), true) = (&m, same) {
                        slot(&mut rels, &parent, &coll, m);
                    }
                    verdict = Some(("parent", m.is_some() && same));
                }
            }
            if let Some((adds, ok)) = verdict {
                let i = match embeds
                    .iter()
                    .position(|b| b.param == *param && b.adds == adds)
                {
                    Some(i) => i,
                    None => {
                        embeds.push(Embedding {
                            param: param.clone(),
                            adds: adds.into(),
                            confirmed_by: Vec::new(),
                            contradicted_by: Vec::new(),
                        });
                        embeds.len() - 1
                    }
                };
                if ok {
                    embeds[i].confirmed_by.push(x.ordinal);
                } else {
                    embeds[i].contradicted_by.push(x.ordinal);
                }
            }
        }
    }
    // The spelling lent: `<singular parent>` + the confirmed suffix, on
    // other sibling pairs whose known children hold it.
    let spellings: Vec<(String, String)> = rels
        .iter()
        .filter_map(|r| {
            let s = singular(last(&r.parent));
            let suffix = r.member.strip_prefix(s.as_str())?;
            (!suffix.is_empty()).then(|| (suffix.to_string(), format!("{} {}", r.child, r.member)))
        })
        .collect();
    let names: Vec<String> = c.known.keys().cloned().collect();
    for (suffix, like) in &spellings {
        for parent in &names {
            for child in names
                .iter()
                .filter(|ch| *ch != parent && parent_of(ch) == parent_of(parent))
            {
                let member = format!("{}{suffix}", singular(last(parent)));
                if rels
                    .iter()
                    .any(|r| r.parent == *parent && r.child == *child)
                {
                    continue;
                }
                let held = c.known.get(child).map(|all| {
                    !all.is_empty()
                        && all
                            .values()
                            .all(|e| e.get(&member).and_then(scalar_text).is_some())
                });
                if held == Some(true) {
                    let mut r = relation(parent, child, &member, "convention");
                    r.spelled_like = Some(like.clone());
                    rels.push(r);
                }
            }
        }
    }
    cascades(exchanges, &c, &mut rels);
    for r in &mut rels {
        r.nested_by.sort_unstable();
        r.nested_creates.sort_unstable();
        r.cascade_by.sort_unstable();
        r.cascade_by.dedup();
        r.cascade_contradicted_by.sort_unstable();
        r.cascade_contradicted_by.dedup();
        r.contradicted_by.sort_unstable();
    }
    rels.sort_by(|a, b| (&a.parent, &a.child, &a.member).cmp(&(&b.parent, &b.child, &b.member)));
    embeds.sort_by(|a, b| (&a.param, &a.adds).cmp(&(&b.param, &b.adds)));
    Relations {
        relations: rels,
        embeddings: embeds,
    }
}

/// Deletes of a parent, and the later reads of its children: a child item
/// read answering 404, or a list of the child collection (filtered on the
/// member at the parent's id, or unfiltered) that leaves it out, confirms
/// the cascade; a read still showing it contradicts it.
fn cascades(exchanges: &[Exchange], c: &Collections, rels: &mut [Relation]) {
    for r in rels.iter_mut() {
        // Children by parent id, as the recording shows them (known before
        // the first write, or created later).
        let mut children: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for e in c.known.get(&r.child).into_iter().flat_map(|m| m.values()) {
            if let (Some(p), Some(k)) = (e.get(&r.member).and_then(scalar_text), key_text(e)) {
                children.entry(p).or_default().insert(k);
            }
        }
        let mut deleted: Vec<(String, BTreeSet<String>)> = Vec::new();
        for x in exchanges {
            let path = x.path();
            if x.is_2xx() && x.method == "POST" {
                // A child created (directly or through a nested route).
                if let Some(Value::Object(e)) = &x.answer {
                    let direct = path == r.child;
                    let nested = nested_parts(c, &x.segments)
                        .is_some_and(|(p, ch, _)| p == r.parent && ch == r.child);
                    if direct || nested {
                        if let (Some(p), Some(k)) =
                            (e.get(&r.member).and_then(scalar_text), key_text(e))
                        {
                            children.entry(p).or_default().insert(k);
                        }
                    }
                }
                continue;
            }
            if x.is_2xx() && x.method == "DELETE" && x.segments.len() >= 2 {
                let coll = join(&x.segments[..x.segments.len() - 1]);
                let id = x.segments.last().cloned().unwrap_or_default();
                if coll == r.parent {
                    let kids = children.get(&id).cloned().unwrap_or_default();
                    if !kids.is_empty() {
                        deleted.push((id, kids));
                    }
                } else if coll == r.child {
                    for (_, kids) in deleted.iter_mut() {
                        kids.remove(&id);
                    }
                }
                continue;
            }
            if x.method != "GET" || deleted.is_empty() {
                continue;
            }
            // An item read of a child of a deleted parent.
            if x.segments.len() >= 2 && join(&x.segments[..x.segments.len() - 1]) == r.child {
                let id = x.segments.last().cloned().unwrap_or_default();
                if deleted.iter().any(|(_, kids)| kids.contains(&id)) {
                    if x.status == 404 {
                        r.cascade_by.push(x.ordinal);
                    } else if x.is_2xx() {
                        r.cascade_contradicted_by.push(x.ordinal);
                    }
                }
                continue;
            }
            // A list of the child collection.
            if path != r.child || !x.is_2xx() {
                continue;
            }
            let Some((_, items)) = x.answer.as_ref().and_then(list_of) else {
                continue;
            };
            let filter = x
                .query
                .iter()
                .find(|(k, _)| *k == r.member)
                .map(|(_, v)| v.clone());
            if x.query.iter().any(|(k, _)| *k != r.member) {
                continue;
            }
            let shown: BTreeSet<String> = items
                .iter()
                .filter_map(Value::as_object)
                .filter_map(key_text)
                .collect();
            for (pid, kids) in &deleted {
                if filter.as_ref().is_some_and(|f| f != pid) {
                    continue;
                }
                if kids.iter().any(|k| shown.contains(k)) {
                    r.cascade_contradicted_by.push(x.ordinal);
                } else {
                    r.cascade_by.push(x.ordinal);
                }
            }
        }
    }
}

/// The creates a child collection shows only through a nested route, as
/// the child's own create: the app's one plain create (`POST /posts`, an
/// entity answered without an envelope) lends its semantics, the nested
/// create its recorded answer and request (with the member the server set).
/// (write, example answer, example request) per child without a create.
pub(crate) fn nested_creates(
    model: &super::Model,
    exchanges: &[Exchange],
) -> Vec<(super::WriteSemantics, Value, Value)> {
    let mut out = Vec::new();
    let Some(donor) = model.writes.iter().find(|w| {
        w.method == "POST"
            && w.role == "create"
            && w.answer.body == "entity"
            && w.request_envelope.is_none()
    }) else {
        return out;
    };
    for rel in model
        .relations
        .relations
        .iter()
        .filter(|r| !r.nested_creates.is_empty())
    {
        if model
            .writes
            .iter()
            .any(|w| w.method == "POST" && w.route == rel.child)
        {
            continue;
        }
        let Some(res) = model.resources.iter().find(|r| r.collection == rel.child) else {
            continue;
        };
        let Some(x) = exchanges
            .iter()
            .find(|x| rel.nested_creates.contains(&x.ordinal))
        else {
            continue;
        };
        let (Some(answer), Some(Value::Object(body))) = (&x.answer, &x.body) else {
            continue;
        };
        let mut request = body.clone();
        if let Some(v) = answer.get(&rel.member) {
            request.insert(rel.member.clone(), v.clone());
        }
        let mut w = donor.clone();
        w.resource = res.name.clone();
        w.collection = rel.child.clone();
        w.route = rel.child.clone();
        w.server_filled.retain(|f| f.kind.starts_with("id"));
        w.effects.clear();
        w.cascades.clear();
        w.supported_by = vec![x.ordinal];
        w.checked_against = vec![x.ordinal];
        out.push((w, answer.clone(), Value::Object(request)));
    }
    out
}

/// True when a relation's cascade is served: confirmed and never
/// contradicted.
pub fn cascades_on_delete(r: &Relation) -> bool {
    !r.cascade_by.is_empty() && r.cascade_contradicted_by.is_empty()
}

/// A rewritten call: a nested route as a call on the child collection.
#[derive(Debug, Clone, PartialEq)]
pub struct Nested {
    pub path: String,
    /// The query with the member's filter first.
    pub query: String,
    pub body: Option<Value>,
    pub convention: bool,
}

/// The app spells nested routes (some relation was confirmed through one).
fn nests(rels: &Relations) -> bool {
    rels.relations.iter().any(|r| !r.nested_by.is_empty())
}

/// A nested route (`/P/{id}/c`) of a relation, as the call on the child
/// collection it means: a list filtered on the member (`GET
/// /c?member=id&…`), a create with the member set (`POST /c`).
pub fn nested_call(
    rels: &Relations,
    method: &str,
    path: &str,
    query: Option<&str>,
    body: Option<&Value>,
) -> Option<Nested> {
    if !nests(rels) {
        return None;
    }
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let n = segments.len();
    if n < 3 {
        return None;
    }
    let parent = format!("/{}", segments[..n - 2].join("/"));
    let child = format!("{}/{}", parent_of(&parent), segments[n - 1]);
    let id = segments[n - 2];
    let r = rels
        .relations
        .iter()
        .filter(|r| r.contradicted_by.is_empty())
        .find(|r| r.parent == parent && r.child == child)?;
    let convention = r.nested_by.is_empty();
    let id_text = crate::state::writes::input::percent_decode(id);
    match method {
        "GET" => {
            let filter = format!("{}={}", r.member, id);
            let query = match query.filter(|q| !q.is_empty()) {
                Some(q) => format!("{filter}&{q}"),
                None => filter,
            };
            Some(Nested {
                path: child,
                query,
                body: None,
                convention,
            })
        }
        "POST" => {
            let mut b = body?.as_object()?.clone();
            let v = match r.nested_key.as_deref() {
                Some("number") => id_text
                    .parse::<i64>()
                    .map(Value::from)
                    .unwrap_or(Value::String(id_text.clone())),
                _ => Value::String(id_text.clone()),
            };
            b.insert(r.member.clone(), v);
            Some(Nested {
                path: child,
                query: query.unwrap_or("").to_string(),
                body: Some(Value::Object(b)),
                convention: convention || r.nested_creates.is_empty(),
            })
        }
        _ => None,
    }
}

/// What a read's embedding parameters ask for: the query without them,
/// and per parameter value what to add.
#[derive(Debug, Clone, PartialEq)]
pub struct Embed {
    /// The query without the embedding parameters.
    pub rest: String,
    pub adds: Vec<Add>,
}

/// One related set to add to each answered entity under `name`.
#[derive(Debug, Clone, PartialEq)]
pub enum Add {
    /// The entity's children: the child collection's entities whose
    /// `member` equals the entity's key.
    Children {
        name: String,
        child: String,
        member: String,
    },
    /// The entity's parent: the parent collection's entity named by the
    /// entity's `member`.
    Parent {
        name: String,
        parent: String,
        member: String,
    },
}

/// The embedding a read of `path` asks for, when its query names a
/// confirmed embedding parameter with a relation of the path's collection.
pub fn embedding(rels: &Relations, path: &str, query: Option<&str>) -> Option<Embed> {
    let query = query.filter(|q| !q.is_empty())?;
    let confirmed = |adds: &str| -> Vec<&str> {
        rels.embeddings
            .iter()
            .filter(|e| {
                e.adds == adds && !e.confirmed_by.is_empty() && e.contradicted_by.is_empty()
            })
            .map(|e| e.param.as_str())
            .collect()
    };
    let (children, parents) = (confirmed("children"), confirmed("parent"));
    if children.is_empty() && parents.is_empty() {
        return None;
    }
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    // The collection: the path itself (a list) or its parent (an item).
    let candidates = [
        format!("/{}", segments.join("/")),
        format!(
            "/{}",
            segments[..segments.len().saturating_sub(1)].join("/")
        ),
    ];
    let mut adds = Vec::new();
    let mut rest: Vec<String> = Vec::new();
    for pair in query.split('&') {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let k = crate::state::writes::input::percent_decode(k);
        let v = crate::state::writes::input::percent_decode(v);
        let mut used = false;
        for coll in &candidates {
            let base = parent_of(coll);
            if children.contains(&k.as_str()) {
                let child = format!("{base}/{v}");
                if let Some(r) = rels
                    .relations
                    .iter()
                    .find(|r| r.parent == *coll && r.child == child)
                {
                    adds.push(Add::Children {
                        name: v.clone(),
                        child,
                        member: r.member.clone(),
                    });
                    used = true;
                    break;
                }
            }
            if parents.contains(&k.as_str()) {
                if let Some(r) = rels.relations.iter().find(|r| {
                    r.child == *coll
                        && parent_of(&r.parent) == base
                        && singular(last(&r.parent)) == v
                }) {
                    adds.push(Add::Parent {
                        name: v.clone(),
                        parent: r.parent.clone(),
                        member: r.member.clone(),
                    });
                    used = true;
                    break;
                }
            }
        }
        if !used {
            rest.push(pair.to_string());
        }
    }
    (!adds.is_empty()).then(|| Embed {
        rest: rest.join("&"),
        adds,
    })
}

/// The children to delete with a parent (`/P/{id}` deleted): per child
/// collection, the member holding the parent's key.
pub fn cascade_of<'a>(rels: &'a Relations, path: &str) -> Vec<&'a Relation> {
    let Some((coll, _)) = path.rsplit_once('/') else {
        return Vec::new();
    };
    rels.relations
        .iter()
        .filter(|r| r.parent == coll && cascades_on_delete(r))
        .collect()
}

/// The item paths a parent's `DELETE path` cascades to: for each relation
/// `cascade_of` keeps, the children `list` gives for the child collection
/// (its items) whose member holds the deleted parent's key, compared as
/// text (the key is the path's last segment). The server and the list
/// replay both delete these through their own dispatch.
pub fn cascaded_deletes(
    rels: &Relations,
    path: &str,
    list: &mut dyn FnMut(&str) -> Vec<Value>,
) -> Vec<String> {
    let id = path.rsplit('/').next().unwrap_or("");
    let mut out = Vec::new();
    for r in cascade_of(rels, path) {
        for child in list(&r.child) {
            if child.get(&r.member).and_then(scalar_text).as_deref() == Some(id) {
                if let Some(k) = child.get(KEY).and_then(scalar_text) {
                    out.push(format!("{}/{k}", r.child));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn singulars() {
        assert_eq!(singular("posts"), "post");
        assert_eq!(singular("categories"), "category");
        assert_eq!(singular("address"), "address");
    }
}
