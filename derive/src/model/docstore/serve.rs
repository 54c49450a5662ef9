//! Answering a call from the document store: item reads, writes that name
//! the current revision (an acknowledgement with the next revision) or get
//! the app's conflict answer, row lists paged by key, and search POSTs
//! filtered by their selector — over a World of documents by collection.

use super::{generation, sort_member, DocStore, RowList, Search};
use crate::state::writes::input::percent_decode;
use serde_json::{Map, Value};
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// One document as the store holds it (its members include key and revision).
#[derive(Debug, Clone, PartialEq)]
pub struct Doc {
    pub body: Map<String, Value>,
    pub revision: String,
    pub deleted: bool,
}

/// The store's World: documents by collection path, then key (key order is
/// the order row lists answer in).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DocWorld {
    pub docs: BTreeMap<String, BTreeMap<String, Doc>>,
    /// Writes applied per collection (what a `sequence` member counts).
    pub writes: BTreeMap<String, u64>,
    /// Live documents per collection at the recording's start.
    pub start_counts: BTreeMap<String, u64>,
    /// The `clock` value each collection's document answered first.
    pub clocks: BTreeMap<String, String>,
}

/// Where minted values come from: fresh ones when serving, the recorded
/// ones when the recording is replayed.
pub trait Mint {
    /// A server-generated key.
    fn key(&mut self) -> String;
    /// The hash part of a new revision.
    fn hash(&mut self) -> String;
    /// Now, in ms since the epoch.
    fn now_ms(&mut self) -> i64;
}

/// An answer of the store.
#[derive(Debug, Clone, PartialEq)]
pub struct DocAnswer {
    pub status: u16,
    pub body: Value,
    pub applied: bool,
    /// The answer kind (`read`, `create`, `update`, `delete`, `conflict`,
    /// `absence`, `reserved`, `rows`, `search`, `search-refusal`).
    pub basis: &'static str,
    /// True when the recording never exercised what answered.
    pub convention: bool,
}

/// A call as the store reads it.
pub struct DocCall<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub query: Vec<(String, String)>,
    pub body: Option<&'a Value>,
    pub header: &'a dyn Fn(&str) -> Option<String>,
}

pub(crate) fn segments_of(path: &str) -> Vec<String> {
    path.split('/')
        .filter(|s| !s.is_empty())
        .map(percent_decode)
        .collect()
}

impl DocStore {
    /// True when the store answers this call.
    pub fn owns(&self, method: &str, path: &str) -> bool {
        let segments = segments_of(path);
        if let Some((last, parent)) = segments.split_last() {
            let parent = super::join(parent);
            if self.collections.contains(&parent)
                && (self
                    .rows
                    .iter()
                    .any(|r| &r.literal == last && method == "GET")
                    || self
                        .searches
                        .iter()
                        .any(|s| &s.literal == last && method == "POST"))
            {
                return true;
            }
        }
        match self.locate(&segments) {
            Some((_, Some(_))) => matches!(method, "GET" | "PUT" | "DELETE"),
            Some((_, None)) => method == "POST" || (method == "GET" && self.info.is_some()),
            None => false,
        }
    }

    /// Answers a call; `None` when the store does not understand it (the
    /// caller falls back), or the kind that would answer is contradicted.
    pub fn answer(
        &self,
        world: &mut DocWorld,
        call: &DocCall<'_>,
        mint: &mut dyn Mint,
    ) -> Option<DocAnswer> {
        let segments = segments_of(call.path);
        let (last, parent) = segments.split_last()?;
        let parent = super::join(parent);
        let a = if self.collections.contains(&parent) {
            if let Some(r) = self.rows.iter().find(|r| &r.literal == last) {
                (call.method == "GET").then(|| self.rows_answer(world, &parent, r, &call.query))?
            } else if let Some(s) = self.searches.iter().find(|s| &s.literal == last) {
                (call.method == "POST").then(|| self.search_answer(world, &parent, s, call.body))?
            } else {
                self.item(world, call, &parent, last, mint)
            }
        } else if self.collections.contains(&super::join(&segments))
            && call.method == "GET"
            && call.query.is_empty()
        {
            self.info_answer(world, &super::join(&segments), mint)
        } else if self.collections.contains(&super::join(&segments)) && call.method == "POST" {
            let coll = super::join(&segments);
            let body = call.body?.as_object()?;
            let id = match body.get(&self.key_member) {
                Some(v) => v.as_str()?.to_string(),
                None => mint.key(),
            };
            self.write(world, call, &coll, &id, Some(body), mint)
        } else {
            None
        }?;
        let kind = evidence_kind(a.basis, last);
        self.serves(&kind).then(|| {
            let convention = a.convention || !self.confirmed(&kind);
            DocAnswer { convention, ..a }
        })
    }

    fn item(
        &self,
        world: &mut DocWorld,
        call: &DocCall<'_>,
        coll: &str,
        id: &str,
        mint: &mut dyn Mint,
    ) -> Option<DocAnswer> {
        match call.method {
            "GET" if call.query.is_empty() => Some(self.read(world, coll, id)),
            "PUT" => {
                let body = call.body?.as_object()?;
                self.write(world, call, coll, id, Some(body), mint)
            }
            "DELETE" => self.write(world, call, coll, id, None, mint),
            _ => None,
        }
    }

    fn read(&self, world: &DocWorld, coll: &str, id: &str) -> DocAnswer {
        match world.docs.get(coll).and_then(|d| d.get(id)) {
            Some(doc) if !doc.deleted => DocAnswer {
                status: 200,
                body: Value::Object(doc.body.clone()),
                applied: false,
                basis: "read",
                convention: false,
            },
            Some(_) => self.absence(true),
            None => self.absence(false),
        }
    }

    /// The app's not-found answer: its answer for a removed key when
    /// `removed` and the recording shows one, else for a key never held.
    fn absence(&self, removed: bool) -> DocAnswer {
        let recorded = if removed {
            self.absent_deleted.as_ref().or(self.absent.as_ref())
        } else {
            self.absent.as_ref()
        };
        match recorded {
            Some(r) => DocAnswer {
                status: r.status,
                body: r.body.clone(),
                applied: false,
                basis: "absence",
                convention: false,
            },
            None => DocAnswer {
                status: 404,
                body: Value::Null,
                applied: false,
                basis: "absence-unknown",
                convention: true,
            },
        }
    }

    /// The revision the call names: the first source that holds one.
    fn sent_revision(
        &self,
        call: &DocCall<'_>,
        body: Option<&Map<String, Value>>,
    ) -> Option<String> {
        self.revision_sources.iter().find_map(|s| {
            let (place, name) = s.split_once(':')?;
            match place {
                "body" => body?.get(name)?.as_str().map(str::to_string),
                "query" => call
                    .query
                    .iter()
                    .find(|(k, _)| k == name)
                    .map(|(_, v)| v.clone()),
                "header" => (call.header)(name).map(|v| v.trim_matches('"').to_string()),
                _ => None,
            }
        })
    }

    /// A create, update or delete (`body` `None`) of one document.
    fn write(
        &self,
        world: &mut DocWorld,
        call: &DocCall<'_>,
        coll: &str,
        id: &str,
        body: Option<&Map<String, Value>>,
        mint: &mut dyn Mint,
    ) -> Option<DocAnswer> {
        if let Some(r) = self
            .reserved_key
            .as_ref()
            .filter(|r| id.starts_with(&r.leading))
        {
            return Some(DocAnswer {
                status: r.answer.status,
                body: r.answer.body.clone(),
                applied: false,
                basis: "reserved",
                convention: false,
            });
        }
        let sent = self.sent_revision(call, body);
        let docs = world.docs.entry(coll.to_string()).or_default();
        let current = docs.get(id);
        let live = current.filter(|d| !d.deleted);
        let (basis, convention) = match (live, body) {
            (Some(d), _) if sent.as_deref() != Some(d.revision.as_str()) => {
                let conflict = self.conflict.as_ref()?;
                return Some(DocAnswer {
                    status: conflict.status,
                    body: conflict.body.clone(),
                    applied: false,
                    basis: "conflict",
                    // A stale delete is lent from the writes' conflict.
                    convention: body.is_none(),
                });
            }
            (Some(_), Some(_)) => ("update", false),
            (Some(_), None) => ("delete", false),
            (None, Some(_)) => ("create", false),
            (None, None) => return Some(self.absence(current.is_some())),
        };
        let next = current.map_or(0, |d| generation(&d.revision)) + 1;
        let revision = format!("{next}-{}", mint.hash());
        let mut stored = Map::new();
        for (k, v) in body.into_iter().flatten() {
            if *k != self.key_member && *k != self.revision_member {
                stored.insert(k.clone(), v.clone());
            }
        }
        stored.insert(self.key_member.clone(), Value::String(id.to_string()));
        stored.insert(
            self.revision_member.clone(),
            Value::String(revision.clone()),
        );
        *world.writes.entry(coll.to_string()).or_default() += 1;
        let docs = world.docs.entry(coll.to_string()).or_default();
        docs.insert(
            id.to_string(),
            Doc {
                body: stored,
                revision: revision.clone(),
                deleted: body.is_none(),
            },
        );
        let mut ack = self.ack.constants.clone();
        ack.insert(self.ack.key.clone(), Value::String(id.to_string()));
        ack.insert(self.ack.revision.clone(), Value::String(revision));
        let status = self.ack.statuses.get(call.method).copied();
        Some(DocAnswer {
            status: status.or_else(|| self.ack.statuses.values().next().copied())?,
            body: Value::Object(ack),
            applied: true,
            basis,
            convention: convention || status.is_none(),
        })
    }

    fn info_answer(
        &self,
        world: &mut DocWorld,
        coll: &str,
        mint: &mut dyn Mint,
    ) -> Option<DocAnswer> {
        let info = self.info.as_ref()?;
        let live = world
            .docs
            .get(coll)
            .map_or(0, |d| d.values().filter(|d| !d.deleted).count()) as u64;
        let mut out = Map::new();
        for (k, role) in &info.members {
            let v = match role.as_str() {
                "count" => Value::from(live),
                "sequence" => Value::from(
                    world.start_counts.get(coll).copied().unwrap_or(0)
                        + world.writes.get(coll).copied().unwrap_or(0),
                ),
                "name" => Value::String(coll.rsplit('/').next().unwrap_or_default().to_string()),
                "clock" => {
                    let now = mint.now_ms().to_string();
                    Value::String(world.clocks.entry(coll.to_string()).or_insert(now).clone())
                }
                "constant" => info.constants.get(k)?.clone(),
                _ => return None,
            };
            out.insert(k.clone(), v);
        }
        Some(DocAnswer {
            status: 200,
            body: Value::Object(out),
            applied: false,
            basis: "collection-document",
            convention: !info.recorded.iter().any(|r| r == coll),
        })
    }

    fn rows_answer(
        &self,
        world: &DocWorld,
        coll: &str,
        list: &RowList,
        query: &[(String, String)],
    ) -> Option<DocAnswer> {
        let mut include = false;
        let mut descending = false;
        let (mut start, mut end, mut skip, mut limit) = (None, None, 0usize, usize::MAX);
        for (k, v) in query {
            match list.params.get(k).map(String::as_str) {
                Some("include") => include = v == "true",
                Some("descending") => descending = v == "true",
                Some("start") => start = Some(Self::key_text(v)?),
                Some("end") => end = Some(Self::key_text(v)?),
                Some("skip") => skip = v.parse().ok()?,
                Some("limit") => limit = v.parse().ok()?,
                _ => return None,
            }
        }
        let live: Vec<(&String, &Doc)> = world
            .docs
            .get(coll)
            .into_iter()
            .flatten()
            .filter(|(_, d)| !d.deleted)
            .collect();
        let total = live.len();
        let mut ordered = live;
        if descending {
            ordered.reverse();
        }
        let after_start = |k: &str| {
            start
                .as_deref()
                .is_none_or(|s| if descending { k <= s } else { k >= s })
        };
        let before_end = |k: &str| {
            end.as_deref()
                .is_none_or(|e| if descending { k >= e } else { k <= e })
        };
        // Where the answer starts in the whole (ordered) list.
        let position = ordered.iter().take_while(|(k, _)| !after_start(k)).count() + skip;
        let rows: Vec<Value> = ordered
            .into_iter()
            .filter(|(k, _)| after_start(k) && before_end(k))
            .skip(skip)
            .take(limit)
            .map(|(k, d)| {
                let mut row = Map::new();
                for m in &list.key_members {
                    row.insert(m.clone(), Value::String(k.clone()));
                }
                if let Some((m, r)) = &list.revision_object {
                    let mut inner = Map::new();
                    inner.insert(r.clone(), Value::String(d.revision.clone()));
                    row.insert(m.clone(), Value::Object(inner));
                }
                if let (true, Some(m)) = (include, &list.document_member) {
                    row.insert(m.clone(), Value::Object(d.body.clone()));
                }
                Value::Object(row)
            })
            .collect();
        let mut out = Map::new();
        for (name, role) in &list.numbers {
            match role.as_str() {
                "count" => out.insert(name.clone(), Value::from(total)),
                "skipped" => out.insert(name.clone(), Value::from(skip)),
                "position" => out.insert(name.clone(), Value::from(position)),
                _ => return None,
            };
        }
        out.insert(list.member.clone(), Value::Array(rows));
        Some(DocAnswer {
            status: 200,
            body: Value::Object(out),
            applied: false,
            basis: "rows",
            convention: false,
        })
    }

    fn search_answer(
        &self,
        world: &DocWorld,
        coll: &str,
        s: &Search,
        body: Option<&Value>,
    ) -> Option<DocAnswer> {
        let body = body?.as_object()?;
        let selector = body.get(&s.selector)?.as_object()?;
        let mut convention = false;
        let mut docs: Vec<&Map<String, Value>> = Vec::new();
        for d in world.docs.get(coll).into_iter().flatten().map(|(_, d)| d) {
            if d.deleted {
                continue;
            }
            let mut all = true;
            for (field, cond) in selector {
                if field.starts_with('$') {
                    // `$and`, `$or`, …: not understood; the caller falls back.
                    return None;
                }
                let (fits, seen) = matches(
                    d.body
                        .get(field.as_str())
                        .or_else(|| dotted(&d.body, field)),
                    cond,
                    &s.operators,
                )?;
                convention |= !seen;
                all &= fits;
            }
            if all {
                docs.push(&d.body);
            }
        }
        let sort = s.sort.as_ref().and_then(|m| body.get(m));
        if let Some(items) = sort.and_then(Value::as_array) {
            let mut keys = Vec::new();
            for item in items {
                let member = sort_member(item)?;
                let desc = item
                    .as_object()
                    .and_then(|o| o.values().next())
                    .and_then(Value::as_str)
                    == Some("desc");
                if !s.sortable.contains(&member) {
                    let (recorded, r) = s.sort_refusal.as_ref()?;
                    let body = substitute(&r.body, recorded, &member);
                    return Some(DocAnswer {
                        status: r.status,
                        body,
                        applied: false,
                        basis: "search-refusal",
                        convention: false,
                    });
                }
                keys.push((member, desc));
            }
            // Ties keep key order, reversed when the first key descends
            // (the app reads its index backwards).
            if keys.first().is_some_and(|(_, desc)| *desc) {
                docs.reverse();
            }
            docs.sort_by(|a, b| {
                keys.iter()
                    .map(|(m, desc)| {
                        let o = compare(a.get(m.as_str()), b.get(m.as_str()));
                        if *desc {
                            o.reverse()
                        } else {
                            o
                        }
                    })
                    .find(|o| *o != Ordering::Equal)
                    .unwrap_or(Ordering::Equal)
            });
        }
        if let Some(n) = s
            .limit
            .as_ref()
            .and_then(|m| body.get(m))
            .and_then(Value::as_u64)
        {
            docs.truncate(n as usize);
        }
        let fields: Option<Vec<&str>> = s
            .fields
            .as_ref()
            .and_then(|m| body.get(m))
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect());
        let docs: Vec<Value> = docs
            .into_iter()
            .map(|d| match &fields {
                Some(f) => Value::Object(
                    f.iter()
                        .filter_map(|m| Some(((*m).to_string(), d.get(*m)?.clone())))
                        .collect(),
                ),
                None => Value::Object(d.clone()),
            })
            .collect();
        let mut out = Map::new();
        out.insert(s.member.clone(), Value::Array(docs));
        if sort.is_none() {
            for (k, v) in &s.unsorted_notes {
                out.insert(k.clone(), v.clone());
            }
        }
        Some(DocAnswer {
            status: 200,
            body: Value::Object(out),
            applied: false,
            basis: "search",
            convention,
        })
    }
}

/// The evidence key of an answer: its basis, with the literal segment for
/// row lists and searches (`rows:_all_docs`), so one literal's
/// contradiction does not take another's away.
pub(crate) fn evidence_kind(basis: &str, last: &str) -> String {
    match basis {
        "rows" | "search" | "search-refusal" => format!("{basis}:{last}"),
        _ => basis.to_string(),
    }
}

/// A dotted member path (`publisher.city`).
fn dotted<'a>(o: &'a Map<String, Value>, path: &str) -> Option<&'a Value> {
    let mut parts = path.split('.');
    let mut v = o.get(parts.next()?)?;
    for p in parts {
        v = v.get(p)?;
    }
    Some(v)
}

/// Whether a member's value meets a selector condition, and whether every
/// operator used is one the recording showed. `None` for an operator this
/// store does not know (the caller falls back).
fn matches(value: Option<&Value>, cond: &Value, seen: &[String]) -> Option<(bool, bool)> {
    if let Some(sub) = cond
        .as_object()
        .filter(|o| !o.is_empty() && o.keys().all(|k| !k.starts_with('$')))
    {
        // A nested selector: every sub-member must match.
        let mut all = true;
        let mut known = true;
        for (k, c) in sub {
            let (fits, seen) = matches(value.and_then(|v| v.get(k)), c, seen)?;
            all &= fits;
            known &= seen;
        }
        return Some((all, known));
    }
    let Some(ops) = cond
        .as_object()
        .filter(|o| o.keys().all(|k| k.starts_with('$')))
    else {
        return Some((
            value.is_some_and(|v| same(v, cond)),
            seen.iter().any(|s| s == "$eq"),
        ));
    };
    let mut all = true;
    let mut known = true;
    for (op, arg) in ops {
        known &= seen.contains(op);
        let fits = match op.as_str() {
            "$eq" => value.is_some_and(|v| same(v, arg)),
            "$ne" => !value.is_some_and(|v| same(v, arg)),
            "$gt" => ordered(value, arg, |o| o == Ordering::Greater),
            "$gte" => ordered(value, arg, |o| o != Ordering::Less),
            "$lt" => ordered(value, arg, |o| o == Ordering::Less),
            "$lte" => ordered(value, arg, |o| o != Ordering::Greater),
            "$in" => arg
                .as_array()?
                .iter()
                .any(|a| value.is_some_and(|v| same(v, a))),
            "$nin" => !arg
                .as_array()?
                .iter()
                .any(|a| value.is_some_and(|v| same(v, a))),
            "$exists" => value.is_some() == arg.as_bool()?,
            _ => return None,
        };
        all &= fits;
    }
    Some((all, known))
}

/// Two values of the same kind ordered (numbers by value, texts by bytes).
fn ordered(value: Option<&Value>, arg: &Value, want: impl Fn(Ordering) -> bool) -> bool {
    let Some(v) = value else { return false };
    match (v, arg) {
        (Value::Number(a), Value::Number(b)) => a
            .as_f64()
            .zip(b.as_f64())
            .and_then(|(a, b)| a.partial_cmp(&b))
            .is_some_and(want),
        (Value::String(a), Value::String(b)) => want(a.cmp(b)),
        _ => false,
    }
}

/// Sort order of member values: absent first, then numbers by value, texts.
fn compare(a: Option<&Value>, b: Option<&Value>) -> Ordering {
    match (a, b) {
        (Some(Value::Number(x)), Some(Value::Number(y))) => x
            .as_f64()
            .partial_cmp(&y.as_f64())
            .unwrap_or(Ordering::Equal),
        (Some(Value::String(x)), Some(Value::String(y))) => x.cmp(y),
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        _ => Ordering::Equal,
    }
}

/// JSON equality with numbers compared by value (`15` equals `15.0`).
pub(crate) fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// The recorded answer with one member name replaced by another in its texts.
fn substitute(body: &Value, recorded: &str, now: &str) -> Value {
    match body {
        Value::String(s) => {
            let quoted = format!("\"{recorded}\"");
            if s.contains(&quoted) {
                Value::String(s.replace(&quoted, &format!("\"{now}\"")))
            } else {
                Value::String(s.replace(recorded, now))
            }
        }
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), substitute(v, recorded, now)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|v| substitute(v, recorded, now)).collect()),
        other => other.clone(),
    }
}

/// Fresh keys and revision hashes, in the recorded shapes, from uuids.
struct Fresh<'a> {
    new_uuid: &'a mut dyn FnMut() -> String,
    uuid_keys: bool,
    hash_len: usize,
    now_ms: i64,
}

impl Mint for Fresh<'_> {
    fn key(&mut self) -> String {
        let u = (self.new_uuid)();
        if self.uuid_keys {
            u
        } else {
            u.replace('-', "")
        }
    }
    fn hash(&mut self) -> String {
        let mut h = String::new();
        while h.len() < self.hash_len {
            h.push_str(&(self.new_uuid)().replace('-', ""));
        }
        h.truncate(self.hash_len);
        h
    }
    fn now_ms(&mut self) -> i64 {
        self.now_ms
    }
}

impl DocStore {
    /// Answers an engine call as the app model serves it.
    pub fn served(
        &self,
        world: &mut DocWorld,
        call: &rea_engine::Call,
        now_ms: i64,
        new_uuid: &mut dyn FnMut() -> String,
    ) -> Option<crate::model::serving::Served> {
        let header = |name: &str| call.header(name).map(str::to_string);
        let doc_call = DocCall {
            method: &call.method,
            path: &call.path,
            query: call
                .query
                .as_deref()
                .map(rea_engine::codec::query_pairs)
                .unwrap_or_default(),
            body: call.body.as_ref(),
            header: &header,
        };
        let mut mint = Fresh {
            new_uuid,
            uuid_keys: self.generated_key == "uuid",
            hash_len: self.revision_hash_len,
            now_ms,
        };
        let a = self.answer(world, &doc_call, &mut mint)?;
        Some(crate::model::serving::Served {
            status: a.status,
            content_type: self.content_type.clone(),
            body: Some(a.body),
            applied: a.applied,
            basis: match a.basis {
                "read" => "document-store-read",
                "create" => "document-store-create",
                "update" => "document-store-update",
                "delete" => "document-store-delete",
                "conflict" => "document-store-conflict",
                "absence" => "document-store-absence",
                "reserved" => "document-store-reserved-key",
                "rows" => "document-store-rows",
                "search" => "document-store-search",
                "search-refusal" => "document-store-search-refusal",
                "collection-document" => "document-store-collection-document",
                _ => "document-store",
            },
            convention: a.convention,
        })
    }
}

impl DocStore {
    /// What a World holds beyond `initial` (`data/get`): the documents
    /// written since, removed ones marked `deleted`, and the writes counted
    /// per collection. `None` when nothing changed.
    pub fn export_changes(&self, initial: &DocWorld, world: &DocWorld) -> Option<Value> {
        let mut documents = Vec::new();
        for (coll, docs) in &world.docs {
            for (id, d) in docs {
                if initial.docs.get(coll).and_then(|i| i.get(id)) != Some(d) {
                    documents.push(serde_json::json!({
                        "collection": coll, "id": id, "document": d.body, "deleted": d.deleted,
                    }));
                }
            }
        }
        if documents.is_empty() {
            return None;
        }
        Some(serde_json::json!({"documents": documents, "writes": world.writes}))
    }

    /// Every document the World holds (`data/get`: each listed once, with
    /// its current value; a removed one marked `deleted`) and the writes
    /// counted per collection, in `export_changes`' shape (which
    /// `import_changes` reads back).
    pub fn export_all(&self, world: &DocWorld) -> Value {
        let documents: Vec<Value> = world
            .docs
            .iter()
            .flat_map(|(coll, docs)| docs.iter().map(move |(id, d)| (coll, id, d)))
            .map(|(coll, id, d)| {
                serde_json::json!({
                    "collection": coll, "id": id, "document": d.body, "deleted": d.deleted,
                })
            })
            .collect();
        serde_json::json!({"documents": documents, "writes": world.writes})
    }

    /// A World from `export_changes`' shape laid over `initial`; `Err`
    /// names what does not fit.
    pub fn import_changes(&self, initial: &DocWorld, value: &Value) -> Result<DocWorld, String> {
        let mut world = initial.clone();
        for row in value["documents"].as_array().into_iter().flatten() {
            let coll = row["collection"]
                .as_str()
                .filter(|c| self.collections.iter().any(|k| k == c))
                .ok_or_else(|| {
                    format!("document_store: unknown collection {}", row["collection"])
                })?;
            let id = row["id"]
                .as_str()
                .ok_or_else(|| "document_store: a document without a string `id`".to_string())?;
            let body = row["document"]
                .as_object()
                .ok_or_else(|| format!("document_store: document {id} is not an object"))?;
            let revision = body
                .get(&self.revision_member)
                .and_then(Value::as_str)
                .filter(|r| super::is_revision(r))
                .ok_or_else(|| format!("document_store: document {id} has no revision"))?;
            world.docs.entry(coll.to_string()).or_default().insert(
                id.to_string(),
                Doc {
                    revision: revision.to_string(),
                    body: body.clone(),
                    deleted: row["deleted"].as_bool().unwrap_or(false),
                },
            );
        }
        for (coll, n) in value["writes"].as_object().into_iter().flatten() {
            if let Some(n) = n.as_u64() {
                world.writes.insert(coll.clone(), n);
            }
        }
        Ok(world)
    }
}
