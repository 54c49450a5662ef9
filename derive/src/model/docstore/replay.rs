//! Checking the document store against the recording: the World it starts
//! from (documents the recording showed before any recorded write touched
//! them), a replay of every record through `serve` with the recorded keys
//! and revision hashes pinned, and the choices the replay makes — where a
//! write names its revision, what each row-list parameter and number means
//! — keeping, per answer kind, the records it reproduced and those it did
//! not.

use super::serve::{same, Doc, DocCall, DocWorld, Mint};
use super::{is_revision, DocStore, Evidence, RejectedSource};
use crate::model::exchange::{join, Exchange};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// The recorded values of one write's acknowledgement.
struct Pinned {
    key: Option<String>,
    hash: Option<String>,
}

impl Mint for Pinned {
    fn key(&mut self) -> String {
        self.key.take().unwrap_or_default()
    }
    fn hash(&mut self) -> String {
        self.hash.take().unwrap_or_default()
    }
    fn now_ms(&mut self) -> i64 {
        0
    }
}

/// One replayed record: its ordinal, the kind that answered, and whether
/// status and body equal the recording's.
pub(crate) struct Outcome {
    pub ordinal: u64,
    pub basis: &'static str,
    /// The evidence key (`rows:_all_docs`).
    pub kind: String,
    pub exact: bool,
}

impl DocStore {
    /// The documents the recording shows before any recorded write to them.
    pub(crate) fn initial_world(&self, exchanges: &[Exchange]) -> DocWorld {
        let mut world = DocWorld::default();
        let mut written: BTreeSet<(String, String)> = BTreeSet::new();
        for x in exchanges {
            if !x.is_2xx() {
                continue;
            }
            let Some(answer) = x.answer.as_ref() else {
                continue;
            };
            if !x.is_read() {
                if let Some(id) = answer.get(&self.ack.key).and_then(Value::as_str) {
                    let coll = match self.locate(&x.segments) {
                        Some((c, _)) => c,
                        None => continue,
                    };
                    written.insert((coll, id.to_string()));
                }
                // A search's answer shows documents too.
                if !self
                    .searches
                    .iter()
                    .any(|s| x.segments.last() == Some(&s.literal))
                {
                    continue;
                }
            }
            let Some((last, parent)) = x.segments.split_last() else {
                continue;
            };
            let coll = if self.collections.contains(&join(&x.segments)) {
                continue;
            } else if self.collections.contains(&join(parent)) {
                join(parent)
            } else {
                continue;
            };
            let mut seen: Vec<Map<String, Value>> = Vec::new();
            let item = self.locate(&x.segments).is_some_and(|(_, id)| id.is_some());
            if item && x.query.is_empty() {
                if let Some(o) = answer.as_object() {
                    seen.push(o.clone());
                }
            } else if let Some(r) = self.rows.iter().find(|r| &r.literal == last) {
                for row in answer
                    .get(&r.member)
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let doc = r.document_member.as_ref().and_then(|m| row.get(m));
                    match (doc.and_then(Value::as_object), &r.revision_object) {
                        (Some(d), _) => seen.push(d.clone()),
                        (None, Some((m, rk))) => {
                            let (Some(k), Some(rev)) = (
                                r.key_members.first().and_then(|k| row.get(k)),
                                row.get(m).and_then(|v| v.get(rk)),
                            ) else {
                                continue;
                            };
                            let mut o = Map::new();
                            o.insert(self.key_member.clone(), k.clone());
                            o.insert(self.revision_member.clone(), rev.clone());
                            seen.push(o);
                        }
                        _ => {}
                    }
                }
            } else if let Some(s) = self.searches.iter().find(|s| &s.literal == last) {
                for d in answer
                    .get(&s.member)
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_object)
                {
                    seen.push(d.clone());
                }
            }
            for d in seen {
                let (Some(id), Some(rev)) = (
                    d.get(&self.key_member).and_then(Value::as_str),
                    d.get(&self.revision_member).and_then(Value::as_str),
                ) else {
                    continue;
                };
                if written.contains(&(coll.clone(), id.to_string())) || !is_revision(rev) {
                    continue;
                }
                let docs = world.docs.entry(coll.clone()).or_default();
                // A richer view replaces a key-and-revision placeholder.
                let richer = docs.get(id).is_none_or(|old| old.body.len() < d.len());
                if richer {
                    docs.insert(
                        id.to_string(),
                        Doc {
                            revision: rev.to_string(),
                            body: d.clone(),
                            deleted: false,
                        },
                    );
                }
            }
        }
        for (coll, docs) in &world.docs {
            let live = docs.values().filter(|d| !d.deleted).count() as u64;
            world.start_counts.insert(coll.clone(), live);
        }
        world
    }

    /// Replays every record the store answers, in order, from the initial World.
    pub(crate) fn run(&self, exchanges: &[Exchange]) -> Vec<Outcome> {
        let mut world = self.initial_world(exchanges);
        let mut out = Vec::new();
        for x in exchanges {
            let path = join(&x.segments);
            if !self.owns(&x.method, &path) {
                continue;
            }
            let ack = x.answer.as_ref().filter(|_| x.is_2xx() && !x.is_read());
            let mut pinned = Pinned {
                key: ack
                    .and_then(|a| a.get(&self.ack.key))
                    .and_then(Value::as_str)
                    .map(str::to_string),
                hash: ack
                    .and_then(|a| a.get(&self.ack.revision))
                    .and_then(Value::as_str)
                    .and_then(|r| r.split_once('-'))
                    .map(|(_, h)| h.to_string()),
            };
            let headers = &x.request_headers;
            let header = |name: &str| {
                headers
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, v)| v.clone())
            };
            let call = DocCall {
                method: &x.method,
                path: &path,
                query: x.query.clone(),
                body: x.body.as_ref(),
                header: &header,
            };
            let Some(a) = self.answer_unchecked(&mut world, &call, &mut pinned) else {
                continue;
            };
            let exact = a.status == x.status
                && x.answer
                    .as_ref()
                    .is_some_and(|r| same(r, &self.clocks_as(r, &a.body)));
            out.push(Outcome {
                ordinal: x.ordinal,
                basis: a.basis,
                kind: super::serve::evidence_kind(
                    a.basis,
                    x.segments.last().map_or("", String::as_str),
                ),
                exact,
            });
        }
        out
    }

    /// The answer with its `clock` members taken from the recorded one
    /// when both are digits of the same length (compared by shape).
    fn clocks_as(&self, recorded: &Value, answer: &Value) -> Value {
        let mut out = answer.clone();
        let Some(info) = &self.info else { return out };
        for (k, role) in &info.members {
            let digits = |v: Option<&Value>| v.and_then(Value::as_str).map(str::len);
            if role == "clock" && digits(recorded.get(k)).is_some() {
                if let Some(o) = out.as_object_mut() {
                    if o.contains_key(k) {
                        o.insert(k.clone(), recorded[k.as_str()].clone());
                    }
                }
            }
        }
        out
    }

    /// `answer` while the evidence is still empty (the replay builds it).
    fn answer_unchecked(
        &self,
        world: &mut DocWorld,
        call: &DocCall<'_>,
        mint: &mut dyn Mint,
    ) -> Option<super::serve::DocAnswer> {
        self.answer(world, call, mint)
    }
}

fn exact_count(store: &DocStore, exchanges: &[Exchange], keep: &dyn Fn(&Outcome) -> bool) -> usize {
    store
        .run(exchanges)
        .iter()
        .filter(|o| o.exact && keep(o))
        .count()
}

/// Makes the replay's choices and records the evidence per answer kind.
pub(crate) fn choose(store: &mut DocStore, exchanges: &[Exchange]) {
    // Where a write names its revision: the body's revision member, query
    // values and request headers shaped like a revision.
    let mut candidates: BTreeSet<String> = BTreeSet::new();
    candidates.insert(format!("body:{}", store.revision_member));
    for x in exchanges.iter().filter(|x| !x.is_read()) {
        if store.locate(&x.segments).is_none_or(|(_, id)| id.is_none()) {
            continue;
        }
        for (k, v) in &x.query {
            if is_revision(v) {
                candidates.insert(format!("query:{k}"));
            }
        }
        for (k, v) in &x.request_headers {
            if is_revision(v.trim_matches('"')) {
                candidates.insert(format!("header:{k}"));
            }
        }
    }
    let candidates: Vec<String> = candidates.into_iter().collect();
    let writes = |o: &Outcome| matches!(o.basis, "create" | "update" | "delete" | "conflict");
    let mut best: Option<(usize, Vec<String>)> = None;
    for mask in 0u32..(1 << candidates.len().min(6)) {
        let chosen: Vec<String> = candidates
            .iter()
            .enumerate()
            .filter(|(i, _)| mask & (1 << i) != 0)
            .map(|(_, c)| c.clone())
            .collect();
        store.revision_sources = chosen.clone();
        let n = exact_count(store, exchanges, &writes);
        let better = match &best {
            None => true,
            Some((b, c)) => n > *b || (n == *b && chosen.len() < c.len()),
        };
        if better {
            best = Some((n, chosen));
        }
    }
    let chosen = best.map(|(_, c)| c).unwrap_or_default();
    store.revision_sources = chosen.clone();
    let base: BTreeSet<u64> = exact_set(store, exchanges);
    store.rejected_sources = candidates
        .iter()
        .filter(|c| !chosen.contains(c))
        .map(|c| {
            store.revision_sources = chosen.iter().chain([c]).cloned().collect();
            let with = exact_set(store, exchanges);
            RejectedSource {
                source: c.clone(),
                contradicted_by: base.difference(&with).copied().collect(),
            }
        })
        .collect();
    store.revision_sources = chosen;
    // Row lists: each parameter's meaning among those its values' shapes
    // allow, and each top-level number's.
    for i in 0..store.rows.len() {
        let literal = store.rows[i].literal.clone();
        let options: Vec<(bool, String, Vec<&'static str>)> = store.rows[i]
            .params
            .keys()
            .map(|p| (true, p.clone(), param_options(exchanges, &literal, p)))
            .chain(
                store.rows[i]
                    .numbers
                    .keys()
                    .map(|n| (false, n.clone(), vec!["count", "skipped", "position"])),
            )
            .collect();
        // One meaning at a time, the others held (two rounds): the
        // parameters of one list rarely interact, and a full product of
        // the choices would replay the recording once per combination.
        let keep = |o: &Outcome| o.kind == format!("rows:{literal}");
        let mut picks: Vec<usize> = vec![0; options.len()];
        assign(&mut store.rows[i], &options, &picks);
        let mut best = exact_count(store, exchanges, &keep);
        for _round in 0..2 {
            for j in 0..options.len() {
                for o in 0..options[j].2.len() {
                    if o == picks[j] {
                        continue;
                    }
                    let mut trial = picks.clone();
                    trial[j] = o;
                    assign(&mut store.rows[i], &options, &trial);
                    let n = exact_count(store, exchanges, &keep);
                    if n > best {
                        best = n;
                        picks = trial;
                    }
                }
            }
        }
        assign(&mut store.rows[i], &options, &picks);
    }
    // The collection document: each integer member a count or a sequence.
    if let Some(info) = store.info.clone() {
        let ints: Vec<String> = info
            .members
            .iter()
            .filter(|(_, r)| r.as_str() == "integer")
            .map(|(k, _)| k.clone())
            .collect();
        let keep = |o: &Outcome| o.basis == "collection-document";
        let mut best: Option<(usize, usize)> = None;
        for combo in 0..(1usize << ints.len().min(8)) {
            set_integers(store, &ints, combo);
            let n = exact_count(store, exchanges, &keep);
            if best.is_none_or(|(b, _)| n > b) {
                best = Some((n, combo));
            }
        }
        set_integers(store, &ints, best.map_or(0, |(_, c)| c));
    }
    // The evidence of the final choices.
    let mut evidence: BTreeMap<String, Evidence> = BTreeMap::new();
    for o in store.run(exchanges) {
        let e = evidence.entry(o.kind.clone()).or_default();
        if o.exact {
            e.supported_by.push(o.ordinal);
        } else {
            e.contradicted_by.push(o.ordinal);
        }
    }
    store.evidence = evidence;
    store.conventions = [
        "create", "update", "delete", "conflict", "absence", "read", "rows", "search",
    ]
    .iter()
    .filter(|b| {
        !store
            .evidence
            .keys()
            .any(|k| k.as_str() == **b || k.starts_with(&format!("{b}:")))
    })
    .map(|b| b.to_string())
    .collect();
}

fn set_integers(store: &mut DocStore, ints: &[String], combo: usize) {
    if let Some(info) = store.info.as_mut() {
        for (i, k) in ints.iter().enumerate() {
            let role = if combo & (1 << i) == 0 {
                "count"
            } else {
                "sequence"
            };
            info.members.insert(k.clone(), role.to_string());
        }
    }
}

fn exact_set(store: &DocStore, exchanges: &[Exchange]) -> BTreeSet<u64> {
    store
        .run(exchanges)
        .into_iter()
        .filter(|o| o.exact)
        .map(|o| o.ordinal)
        .collect()
}

/// The meanings a row-list parameter's recorded values allow.
fn param_options(exchanges: &[Exchange], literal: &str, param: &str) -> Vec<&'static str> {
    let values: Vec<&str> = exchanges
        .iter()
        .filter(|x| x.method == "GET" && x.segments.last().map(String::as_str) == Some(literal))
        .flat_map(|x| {
            x.query
                .iter()
                .filter(|(k, _)| k == param)
                .map(|(_, v)| v.as_str())
        })
        .collect();
    if values.iter().all(|v| v.parse::<u64>().is_ok()) {
        vec!["limit", "skip"]
    } else if values.iter().all(|v| DocStore::key_text(v).is_some()) {
        vec!["start", "end"]
    } else if values.iter().all(|v| matches!(*v, "true" | "false")) {
        vec!["include", "descending"]
    } else {
        vec!["unknown"]
    }
}

/// Sets the meanings `picks` names (an option index per parameter).
fn assign(
    list: &mut super::RowList,
    options: &[(bool, String, Vec<&'static str>)],
    picks: &[usize],
) {
    for ((param, name, opts), pick) in options.iter().zip(picks) {
        let pick = opts[*pick].to_string();
        if *param {
            list.params.insert(name.clone(), pick);
        } else {
            list.numbers.insert(name.clone(), pick);
        }
    }
}
