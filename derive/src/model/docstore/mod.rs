//! Document stores with revisions: collections whose documents carry their
//! key and a revision token (`N-<hash>`) as members, writes answered with an
//! acknowledgement (`{ok, id, rev}`) instead of the entity, a write that must
//! name the current revision (else the app's conflict answer), lists of rows
//! that wrap the documents and page by key, and search POSTs with a selector.
//! Inferred from the recording by shape alone (member names, literal route
//! segments and parameter meanings are read from it), and every part is kept
//! only where replaying the whole recording through `serve` reproduces the
//! recorded answers (`replay`).

pub(crate) mod arguments;
pub(crate) mod replay;
pub(crate) mod serve;
#[cfg(test)]
mod tests;

use super::exchange::{join, Exchange};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// The inferred document store (the model's `document_store` section).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocStore {
    /// The member holding a document's key (`_id`).
    pub key_member: String,
    /// The member holding its revision (`_rev`), `N-<token>`.
    pub revision_member: String,
    /// The hash part of minted revisions: its length and whether hex.
    pub revision_hash_len: usize,
    /// Collection paths (`/books`).
    pub collections: Vec<String>,
    /// The acknowledgement a 2xx write answers.
    pub ack: Ack,
    /// The shape of server-generated keys (`uuid` or `hex`).
    pub generated_key: String,
    /// Where a write names the revision it updates (`body:_rev`,
    /// `query:rev`), confirmed by replay; `rejected` lists the candidates
    /// some recorded answer contradicts.
    pub revision_sources: Vec<String>,
    pub rejected_sources: Vec<RejectedSource>,
    /// The app's answer to a write naming a revision that is not current.
    pub conflict: Option<Recorded>,
    /// The app's answer to a read of a key it does not hold.
    pub absent: Option<Recorded>,
    /// Its answer to a read of a key a recorded delete removed (CouchDB
    /// says `deleted` where it says `missing` for a key never held).
    #[serde(default)]
    pub absent_deleted: Option<Recorded>,
    /// A leading character no accepted key starts with, and the app's
    /// refusal of a write to such a key.
    pub reserved_key: Option<ReservedKey>,
    /// Row lists (a literal segment under a collection).
    pub rows: Vec<RowList>,
    /// Search POSTs (a literal segment under a collection).
    pub searches: Vec<Search>,
    /// The collection's own document (`GET {collection}`), when recorded.
    pub info: Option<Info>,
    /// The content type the app answered JSON with.
    pub content_type: String,
    /// Per answer kind (`basis`): the records the replay reproduced and
    /// those it did not. A kind with any contradiction is not served.
    pub evidence: BTreeMap<String, Evidence>,
    /// Kinds served although the recording never exercised them.
    pub conventions: Vec<String>,
}

/// Records supporting and contradicting one answer kind.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    pub supported_by: Vec<u64>,
    pub contradicted_by: Vec<u64>,
}

/// A revision source some recorded answer contradicts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RejectedSource {
    pub source: String,
    pub contradicted_by: Vec<u64>,
}

/// The acknowledgement of a write: the member echoing the key, the member
/// holding the new revision, and members constant on every recorded one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ack {
    pub key: String,
    pub revision: String,
    pub constants: Map<String, Value>,
    /// The status per method (`PUT` → 201).
    pub statuses: BTreeMap<String, u16>,
    pub supported_by: Vec<u64>,
}

/// A recorded answer used as a template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recorded {
    pub status: u16,
    pub body: Value,
    pub ordinals: Vec<u64>,
}

/// Keys starting with `leading` are refused with `answer`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReservedKey {
    pub leading: String,
    pub answer: Recorded,
}

/// A row list: `GET {collection}/{literal}` answering `{member: [rows]}`,
/// each row naming a document by key and revision and, with the include
/// flag, holding it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RowList {
    pub literal: String,
    pub member: String,
    /// Row members holding the document's key (`id`, `key`).
    pub key_members: Vec<String>,
    /// The row member holding `{name: revision}` (`value` / `rev`).
    pub revision_object: Option<(String, String)>,
    /// The row member holding the document (`doc`).
    pub document_member: Option<String>,
    /// Top-level integer members: `count` (every live document) or
    /// `skipped` (the skip parameter's value).
    pub numbers: BTreeMap<String, String>,
    /// Query parameters and their meaning: `include`, `limit`, `skip`,
    /// `start`, `end`, `descending` (chosen by replay among those their
    /// values' shapes allow).
    pub params: BTreeMap<String, String>,
    pub ordinals: Vec<u64>,
}

/// A collection's own document: each member's meaning — `count` (its live
/// documents), `sequence` (a counter that starts at the count the
/// recording starts from and moves with every write), `name` (the
/// collection's last segment), `clock` (the store's start instant in ms, as
/// digits), `constant` (the value every recorded answer showed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Info {
    pub members: BTreeMap<String, String>,
    pub constants: Map<String, Value>,
    /// Collections whose own document the recording read.
    pub recorded: Vec<String>,
    pub ordinals: Vec<u64>,
}

/// A search POST: `POST {collection}/{literal}` with a selector body
/// answering `{member: [documents]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Search {
    pub literal: String,
    pub member: String,
    pub selector: String,
    pub fields: Option<String>,
    pub sort: Option<String>,
    pub limit: Option<String>,
    /// Top-level text members shown only when the body has no `sort`
    /// (`warning`), with their recorded value.
    pub unsorted_notes: Map<String, Value>,
    /// Members some 2xx search sorted on.
    pub sortable: Vec<String>,
    /// The app's refusal of a sort on another member (the member's name
    /// substituted where the recorded one appears).
    pub sort_refusal: Option<(String, Recorded)>,
    /// Selector operators the recording used.
    pub operators: Vec<String>,
    pub ordinals: Vec<u64>,
}

/// True for `N-<letters and digits>` with N ≥ 1 and 8+ characters after the dash.
pub(crate) fn is_revision(v: &str) -> bool {
    let Some((n, hash)) = v.split_once('-') else {
        return false;
    };
    !n.is_empty()
        && n.bytes().all(|b| b.is_ascii_digit())
        && !n.starts_with('0')
        && hash.len() >= 8
        && hash.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// The generation of a revision (`3-…` → 3).
pub(crate) fn generation(v: &str) -> u64 {
    v.split_once('-')
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or(0)
}

/// Where a record lands: (collection, key), the key `None` for the
/// collection itself.
type Locator<'a> = dyn Fn(&Exchange) -> Option<(String, Option<String>)> + 'a;

fn last_and_parent(x: &Exchange) -> Option<(String, &str)> {
    let (last, parent) = x.segments.split_last()?;
    Some((join(parent), last.as_str()))
}

/// Infers the document store a recording shows, when it shows one (None
/// for every recording without documents that carry a revision token).
pub(crate) fn infer(exchanges: &[Exchange]) -> Option<DocStore> {
    // Item reads: an object holding the path's last segment under a member
    // and a revision-shaped text under another.
    let mut pairs: BTreeMap<(String, String), Vec<u64>> = BTreeMap::new();
    let mut collections: BTreeSet<String> = BTreeSet::new();
    for x in exchanges.iter().filter(|x| x.is_2xx() && x.method == "GET") {
        let (Some(obj), Some((parent, last))) = (
            x.answer.as_ref().and_then(Value::as_object),
            last_and_parent(x),
        ) else {
            continue;
        };
        let key = obj.iter().find(|(_, v)| v.as_str() == Some(last));
        let rev = obj
            .iter()
            .find(|(_, v)| v.as_str().is_some_and(is_revision));
        if let (Some((k, _)), Some((r, _))) = (key, rev) {
            pairs
                .entry((k.clone(), r.clone()))
                .or_default()
                .push(x.ordinal);
            collections.insert(parent);
        }
    }
    let ((key_member, revision_member), _) = pairs.into_iter().max_by_key(|(_, o)| o.len())?;
    let collections: Vec<String> = collections.into_iter().collect();
    let rows = infer_rows(exchanges, &collections);
    let searches = infer_searches(exchanges, &collections);
    let literal =
        |s: &str| rows.iter().any(|r| r.literal == s) || searches.iter().any(|r| r.literal == s);
    let in_collection = |x: &Exchange| -> Option<(String, Option<String>)> {
        let path = x.path();
        if collections.contains(&path) {
            return Some((path, None));
        }
        let (parent, last) = last_and_parent(x)?;
        (collections.contains(&parent) && !literal(last)).then(|| (parent, Some(last.to_string())))
    };
    let ack = infer_ack(exchanges, &in_collection)?;
    let hash_len = exchanges
        .iter()
        .filter_map(|x| {
            x.answer
                .as_ref()?
                .get(&ack.revision)?
                .as_str()
                .map(str::to_string)
        })
        .filter(|r| is_revision(r))
        .map(|r| r.split_once('-').map_or(0, |(_, h)| h.len()))
        .max()
        .unwrap_or(32);
    let generated_key = exchanges
        .iter()
        .filter(|x| x.method == "POST" && x.is_2xx())
        .filter(|x| in_collection(x).is_some_and(|(_, id)| id.is_none()))
        .find_map(|x| {
            x.answer
                .as_ref()?
                .get(&ack.key)?
                .as_str()
                .map(str::to_string)
        })
        .map(|id| {
            if super::routes::kind_of(&id) == "uuid" {
                "uuid".to_string()
            } else {
                "hex".to_string()
            }
        })
        .unwrap_or_else(|| "uuid".to_string());
    let content_type = exchanges
        .iter()
        .filter_map(|x| x.response_header("content-type"))
        .find(|c| c.contains("json"))
        .unwrap_or("application/json")
        .to_string();
    let absent = exchanges
        .iter()
        .filter(|x| x.method == "GET" && x.status == 404)
        .filter(|x| in_collection(x).is_some_and(|(_, id)| id.is_some()))
        .find_map(|x| {
            Some(Recorded {
                status: 404,
                body: x.answer.clone()?,
                ordinals: vec![x.ordinal],
            })
        });
    let mut removed: BTreeSet<String> = BTreeSet::new();
    let mut absent_deleted = None;
    for x in exchanges {
        let path = x.path();
        if x.method == "DELETE" && x.is_2xx() {
            removed.insert(path);
        } else if x.method == "GET" && x.status == 404 && removed.contains(&path) {
            absent_deleted = x.answer.clone().map(|body| Recorded {
                status: 404,
                body,
                ordinals: vec![x.ordinal],
            });
            break;
        }
    }
    let reserved_key = infer_reserved(exchanges, &in_collection);
    let info = infer_info(exchanges, &collections);
    let mut store = DocStore {
        key_member,
        revision_member,
        revision_hash_len: hash_len,
        collections,
        ack,
        generated_key,
        revision_sources: Vec::new(),
        rejected_sources: Vec::new(),
        conflict: None,
        absent,
        absent_deleted,
        reserved_key,
        rows,
        searches,
        info,
        content_type,
        evidence: BTreeMap::new(),
        conventions: Vec::new(),
    };
    store.conflict = infer_conflict(exchanges, &store);
    replay::choose(&mut store, exchanges);
    Some(store)
}

/// The acknowledgement: every 2xx write on a collection answers an object
/// with a member echoing the key, a revision-shaped member, and constants.
fn infer_ack(exchanges: &[Exchange], in_collection: &Locator<'_>) -> Option<Ack> {
    let writes: Vec<&Exchange> = exchanges
        .iter()
        .filter(|x| !x.is_read() && x.is_2xx())
        .filter(|x| in_collection(x).is_some())
        .collect();
    let first = writes.first()?.answer.as_ref()?.as_object()?;
    let revision = first
        .iter()
        .find(|(_, v)| v.as_str().is_some_and(is_revision))?
        .0
        .clone();
    let key = first
        .iter()
        .find(|(k, v)| **k != revision && v.is_string())?
        .0
        .clone();
    let constants: Map<String, Value> = first
        .iter()
        .filter(|(k, _)| **k != revision && **k != key)
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let mut statuses = BTreeMap::new();
    let mut supported_by = Vec::new();
    for x in &writes {
        let o = x.answer.as_ref()?.as_object()?;
        let fits = o.len() == constants.len() + 2
            && o.get(&revision)
                .and_then(Value::as_str)
                .is_some_and(is_revision)
            && o.get(&key).is_some_and(Value::is_string)
            && constants.iter().all(|(k, v)| o.get(k) == Some(v));
        // A path id must be echoed.
        let echoes = match in_collection(x) {
            Some((_, Some(id))) => o.get(&key).and_then(Value::as_str) == Some(id.as_str()),
            _ => true,
        };
        if !fits || !echoes {
            return None;
        }
        statuses.entry(x.method.clone()).or_insert(x.status);
        supported_by.push(x.ordinal);
    }
    Some(Ack {
        key,
        revision,
        constants,
        statuses,
        supported_by,
    })
}

/// The first refused write to an existing document (recorded 4xx, not 404),
/// used as the conflict template; replay decides whether it is confirmed.
fn infer_conflict(exchanges: &[Exchange], store: &DocStore) -> Option<Recorded> {
    let mut known: BTreeSet<(String, String)> = BTreeSet::new();
    for x in exchanges {
        let Some((parent, Some(id))) = store.locate(&x.segments) else {
            continue;
        };
        if x.is_2xx() {
            known.insert((parent, id));
            continue;
        }
        if !x.is_read()
            && (400..500).contains(&x.status)
            && x.status != 404
            && known.contains(&(parent, id))
        {
            return Some(Recorded {
                status: x.status,
                body: x.answer.clone()?,
                ordinals: vec![x.ordinal],
            });
        }
    }
    None
}

/// A write refused to a key whose first character (not a letter or digit)
/// no accepted key starts with.
fn infer_reserved(exchanges: &[Exchange], in_collection: &Locator<'_>) -> Option<ReservedKey> {
    let accepted: BTreeSet<char> = exchanges
        .iter()
        .filter(|x| x.is_2xx() && !x.is_read())
        .filter_map(|x| in_collection(x)?.1?.chars().next())
        .collect();
    exchanges
        .iter()
        .filter(|x| !x.is_read() && (400..500).contains(&x.status) && x.status != 404)
        .find_map(|x| {
            let id = in_collection(x)?.1?;
            let c = id.chars().next()?;
            if c.is_ascii_alphanumeric() || accepted.contains(&c) {
                return None;
            }
            Some(ReservedKey {
                leading: c.to_string(),
                answer: Recorded {
                    status: x.status,
                    body: x.answer.clone()?,
                    ordinals: vec![x.ordinal],
                },
            })
        })
}

/// The object member holding an array of objects (the one array member).
fn array_member(o: &Map<String, Value>) -> Option<(&String, &Vec<Value>)> {
    let mut arrays = o
        .iter()
        .filter_map(|(k, v)| v.as_array().map(|a| (k, a)))
        .filter(|(_, a)| a.iter().all(Value::is_object));
    let one = arrays.next()?;
    arrays.next().is_none().then_some(one)
}

fn literal_routes<'a>(
    exchanges: &'a [Exchange],
    collections: &[String],
    method: &str,
) -> BTreeMap<String, Vec<&'a Exchange>> {
    let mut out: BTreeMap<String, Vec<&Exchange>> = BTreeMap::new();
    for x in exchanges
        .iter()
        .filter(|x| x.method == method && x.is_2xx())
    {
        let Some((parent, last)) = last_and_parent(x) else {
            continue;
        };
        if collections.contains(&parent) {
            out.entry(last.to_string()).or_default().push(x);
        }
    }
    out
}

/// Row lists: a literal under collections whose 2xx GET answers hold one
/// array of rows, each naming a document by text members equal to its key.
fn infer_rows(exchanges: &[Exchange], collections: &[String]) -> Vec<RowList> {
    let mut out = Vec::new();
    for (literal, xs) in literal_routes(exchanges, collections, "GET") {
        let mut member = None;
        let mut key_members: Option<BTreeSet<String>> = None;
        let mut revision_object = None;
        let mut document_member = None;
        let mut numbers: BTreeSet<String> = BTreeSet::new();
        let mut ok = true;
        for x in &xs {
            let Some(o) = x.answer.as_ref().and_then(Value::as_object) else {
                ok = false;
                break;
            };
            let Some((m, rows)) = array_member(o) else {
                ok = false;
                break;
            };
            member.get_or_insert_with(|| m.clone());
            numbers.extend(o.iter().filter(|(_, v)| v.is_u64()).map(|(k, _)| k.clone()));
            for row in rows.iter().filter_map(Value::as_object) {
                // The row's key: the text its members agree on (two or more)
                // or its one text member.
                let texts: Vec<(&String, &str)> = row
                    .iter()
                    .filter_map(|(k, v)| v.as_str().map(|s| (k, s)))
                    .collect();
                let Some(&(_, key)) = texts.first() else {
                    ok = false;
                    break;
                };
                let keys: BTreeSet<String> = texts
                    .iter()
                    .filter(|(_, s)| *s == key)
                    .map(|(k, _)| (*k).clone())
                    .collect();
                match &key_members {
                    Some(k) if *k != keys => ok = false,
                    _ => key_members = Some(keys),
                }
                for (k, v) in row {
                    let Some(inner) = v.as_object() else { continue };
                    if inner.values().any(|v| v.as_str() == Some(key)) {
                        document_member.get_or_insert_with(|| k.clone());
                    } else if inner.len() == 1 {
                        if let Some((rk, rv)) = inner.iter().next() {
                            if rv.as_str().is_some_and(is_revision) {
                                revision_object.get_or_insert_with(|| (k.clone(), rk.clone()));
                            }
                        }
                    }
                }
            }
        }
        let (Some(member), Some(key_members), true) = (member, key_members, ok) else {
            continue;
        };
        out.push(RowList {
            literal,
            member,
            key_members: key_members.into_iter().collect(),
            revision_object,
            document_member,
            numbers: numbers.into_iter().map(|n| (n, String::new())).collect(),
            params: xs
                .iter()
                .flat_map(|x| x.query.iter().map(|(k, _)| (k.clone(), String::new())))
                .collect(),
            ordinals: xs.iter().map(|x| x.ordinal).collect(),
        });
    }
    out
}

/// Search POSTs: a literal under collections whose 2xx POST answers hold
/// one array of documents, sent a body with one object member (the
/// selector); the other members by their values' shapes.
fn infer_searches(exchanges: &[Exchange], collections: &[String]) -> Vec<Search> {
    let mut out = Vec::new();
    for (literal, xs) in literal_routes(exchanges, collections, "POST") {
        let mut s = Search {
            literal: literal.clone(),
            member: String::new(),
            selector: String::new(),
            fields: None,
            sort: None,
            limit: None,
            unsorted_notes: Map::new(),
            sortable: Vec::new(),
            sort_refusal: None,
            operators: Vec::new(),
            ordinals: xs.iter().map(|x| x.ordinal).collect(),
        };
        let mut ok = true;
        let mut operators = BTreeSet::new();
        let mut sortable = BTreeSet::new();
        for x in &xs {
            let (Some(o), Some(body)) = (
                x.answer.as_ref().and_then(Value::as_object),
                x.body.as_ref().and_then(Value::as_object),
            ) else {
                ok = false;
                break;
            };
            let Some((m, _)) = array_member(o) else {
                ok = false;
                break;
            };
            s.member = m.clone();
            for (k, v) in body {
                match v {
                    Value::Object(sel) => {
                        s.selector = k.clone();
                        for cond in sel.values() {
                            match cond.as_object() {
                                Some(ops) => operators.extend(ops.keys().cloned()),
                                None => {
                                    operators.insert("$eq".to_string());
                                }
                            }
                        }
                    }
                    Value::Number(_) => s.limit = Some(k.clone()),
                    Value::Array(items) if items.iter().all(Value::is_string) => {
                        s.fields = Some(k.clone())
                    }
                    Value::Array(items) => {
                        s.sort = Some(k.clone());
                        sortable.extend(items.iter().filter_map(sort_member));
                    }
                    _ => {}
                }
            }
        }
        if !ok || s.selector.is_empty() || s.member.is_empty() {
            continue;
        }
        // Notes: text members beside the documents, always the same value.
        let mut notes: BTreeMap<String, (Value, bool)> = BTreeMap::new();
        let sort = s.sort.clone();
        for x in &xs {
            let o = x.answer.as_ref().and_then(Value::as_object);
            let sorted = x
                .body
                .as_ref()
                .is_some_and(|b| sort.as_ref().is_some_and(|m| b.get(m).is_some()));
            for (k, v) in o.into_iter().flatten().filter(|(_, v)| v.is_string()) {
                let e = notes.entry(k.clone()).or_insert((v.clone(), true));
                e.1 &= e.0 == *v && !sorted;
            }
        }
        s.unsorted_notes = notes
            .into_iter()
            .filter(|(_, (_, fits))| *fits)
            .map(|(k, (v, _))| (k, v))
            .collect();
        s.operators = operators.into_iter().collect();
        s.sortable = sortable.into_iter().collect();
        // A refused search that sorted on a member no accepted one did.
        s.sort_refusal = exchanges
            .iter()
            .filter(|x| x.method == "POST" && (400..500).contains(&x.status))
            .filter(|x| x.segments.last().map(String::as_str) == Some(literal.as_str()))
            .find_map(|x| {
                let sorted = x.body.as_ref()?.get(sort.as_ref()?)?.as_array()?;
                let m = sorted
                    .iter()
                    .filter_map(sort_member)
                    .find(|m| !s.sortable.contains(m))?;
                Some((
                    m,
                    Recorded {
                        status: x.status,
                        body: x.answer.clone()?,
                        ordinals: vec![x.ordinal],
                    },
                ))
            });
        out.push(s);
    }
    out
}

/// The collection documents: every 2xx GET of a collection path answers an
/// object whose members each fit one meaning (integers are settled by replay).
fn infer_info(exchanges: &[Exchange], collections: &[String]) -> Option<Info> {
    let xs: Vec<&Exchange> = exchanges
        .iter()
        .filter(|x| x.method == "GET" && x.is_2xx() && x.query.is_empty())
        .filter(|x| collections.contains(&x.path()))
        .collect();
    let mut members: BTreeMap<String, String> = BTreeMap::new();
    let mut constants: Map<String, Value> = Map::new();
    let mut varies: BTreeSet<String> = BTreeSet::new();
    for x in &xs {
        let o = x.answer.as_ref()?.as_object()?;
        let clock = x
            .response_header("date")
            .and_then(|d| chrono::DateTime::parse_from_rfc2822(d).ok())
            .map(|d| d.timestamp_millis());
        for (k, v) in o {
            let role = match v {
                Value::Number(n) if n.is_u64() => "integer",
                Value::String(t)
                    if t.len() >= 10
                        && t.bytes().all(|b| b.is_ascii_digit())
                        && clock
                            .zip(t.parse::<i64>().ok())
                            .is_some_and(|(c, t)| (c - t).abs() < 86_400_000) =>
                {
                    "clock"
                }
                Value::String(t) if x.segments.last() == Some(t) => "name",
                _ => "constant",
            };
            if role == "constant" {
                match constants.get(k) {
                    Some(old) if old != v => {
                        varies.insert(k.clone());
                    }
                    _ => {
                        constants.insert(k.clone(), v.clone());
                    }
                }
            }
            match members.get(k) {
                Some(r) if r != role => return None,
                _ => {
                    members.insert(k.clone(), role.to_string());
                }
            }
        }
    }
    if xs.is_empty() || !varies.is_empty() {
        return None;
    }
    let mut recorded: Vec<String> = xs.iter().map(|x| x.path()).collect();
    recorded.sort();
    recorded.dedup();
    Some(Info {
        members,
        constants,
        recorded,
        ordinals: xs.iter().map(|x| x.ordinal).collect(),
    })
}

/// The member a sort item names (`{"year": "asc"}` or `"year"`).
pub(crate) fn sort_member(item: &Value) -> Option<String> {
    match item {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) if o.len() == 1 => o.keys().next().cloned(),
        _ => None,
    }
}

impl DocStore {
    /// (collection, key) of a path's segments: the key is `None` for the
    /// collection itself, or for a literal route of it.
    pub(crate) fn locate(&self, segments: &[String]) -> Option<(String, Option<String>)> {
        let path = join(segments);
        if self.collections.contains(&path) {
            return Some((path, None));
        }
        let (last, parent) = segments.split_last()?;
        let parent = join(parent);
        if !self.collections.contains(&parent) {
            return None;
        }
        let literal = self.rows.iter().any(|r| &r.literal == last)
            || self.searches.iter().any(|s| &s.literal == last);
        (!literal).then(|| (parent, Some(last.clone())))
    }

    /// A text's value as a key (`"book-004"` → `book-004`).
    pub(crate) fn key_text(v: &str) -> Option<String> {
        match serde_json::from_str::<Value>(v) {
            Ok(Value::String(s)) => Some(s),
            _ => None,
        }
    }

    /// True when this kind may be served (no recorded answer contradicts it).
    pub(crate) fn serves(&self, basis: &str) -> bool {
        self.evidence
            .get(basis)
            .is_none_or(|e| e.contradicted_by.is_empty())
    }

    /// True when the recording exercised this kind (else a convention).
    pub(crate) fn confirmed(&self, basis: &str) -> bool {
        self.evidence
            .get(basis)
            .is_some_and(|e| !e.supported_by.is_empty() && e.contradicted_by.is_empty())
    }
}
