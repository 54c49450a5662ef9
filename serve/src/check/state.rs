//! What a replay has learned so far (recorded value → candidate value), and
//! what it has seen (TRAIN and the scored session so far): the memory that
//! rules 4–8 and the request rewriting share.

use super::har::Exchange;
use super::urls::CanonPq;
use super::values::{contains_number, Scalar};
use indexmap::IndexMap;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

/// The pairs one answer teaches, pending until its verdict is known.
#[derive(Debug, Default)]
pub(crate) struct Learn {
    /// Rule 4: recorded generated id → candidate id.
    pub(crate) id: IndexMap<Scalar, Scalar>,
    /// Rules 3, 5, 7, 8: recorded volatile text → candidate text.
    pub(crate) vol: IndexMap<String, String>,
    /// Rule 6: recorded generated value → candidate value.
    pub(crate) gen: IndexMap<Scalar, Scalar>,
}

/// Mappings learned while replaying, and the traffic seen so far.
#[derive(Debug, Default)]
pub struct State {
    /// Rule 4: recorded generated id → the collection path that created it.
    pub(crate) generated: HashMap<Scalar, String>,
    pub(crate) id_map: IndexMap<Scalar, Scalar>,
    pub(crate) vol_map: IndexMap<String, String>,
    pub(crate) link_map: HashMap<CanonPq, String>,
    pub(crate) gen_map: IndexMap<Scalar, Scalar>,
    /// Tokens to substitute: rule 6 values and rule 4 string ids of 8+ characters.
    pub(crate) tok_map: IndexMap<String, String>,
    known_train: String,
    known_session: Vec<String>,
    sent_session: Vec<String>,
    pub(crate) client_pairs: HashSet<(String, String)>,
}

fn token_pairs<'a>(
    ids: impl Iterator<Item = (&'a Scalar, &'a Scalar)>,
    gens: impl Iterator<Item = (&'a Scalar, &'a Scalar)>,
    out: &mut IndexMap<String, String>,
) {
    for (k, v) in ids {
        if let Scalar::Str(k) = k {
            let v = match v {
                Scalar::Float(_) => continue,
                v => v.text(),
            };
            if k.chars().count() >= 8 && v != *k {
                out.insert(k.clone(), v);
            }
        }
    }
    for (k, v) in gens {
        let (k, v) = (k.text(), v.text());
        if k != v {
            out.insert(k, v);
        }
    }
}

impl State {
    pub(crate) fn new(generated: HashMap<Scalar, String>, train: &[Exchange]) -> State {
        let known_train = train
            .iter()
            .flat_map(|e| [e.request_text(), e.response_text()])
            .collect::<Vec<_>>()
            .join("\n");
        State {
            generated,
            known_train,
            ..State::default()
        }
    }

    /// Call before comparing an entry: its request is now traffic seen.
    pub(crate) fn begin(&mut self, ex: &Exchange) {
        let text = ex.request_text();
        self.known_session.push(text.clone());
        self.sent_session.push(text);
        self.client_pairs.extend(ex.client_pairs());
    }

    /// Call after comparing an entry: its recorded answer is now seen.
    pub(crate) fn end(&mut self, ex: &Exchange) {
        self.known_session.push(ex.response_text());
    }

    /// Rule 6 "new": does the value occur in TRAIN or the session so far?
    pub(crate) fn known(&self, value: &Scalar) -> bool {
        match value {
            Scalar::Int(i) => {
                let d = i.to_string();
                contains_number(&self.known_train, &d)
                    || self.known_session.iter().any(|t| contains_number(t, &d))
            }
            other => {
                let s = other.text();
                self.known_train.contains(&s) || self.known_session.iter().any(|t| t.contains(&s))
            }
        }
    }

    /// Rule 8: does this digit token occur in the session's requests so far?
    pub(crate) fn sent(&self, token: &str) -> bool {
        self.sent_session.iter().any(|t| contains_number(t, token))
    }

    /// The token mapping: committed, plus what `learn` holds so far.
    pub(crate) fn tokens_for(&self, learn: &Learn) -> Cow<'_, IndexMap<String, String>> {
        if learn.gen.is_empty() && learn.id.is_empty() {
            return Cow::Borrowed(&self.tok_map);
        }
        let mut out = self.tok_map.clone();
        token_pairs(learn.id.iter(), learn.gen.iter(), &mut out);
        Cow::Owned(out)
    }

    /// Is a candidate value already the image of another recorded value?
    pub(crate) fn taken(&self, cand: &Scalar, learn: &Learn) -> bool {
        [&self.gen_map, &self.id_map, &learn.gen, &learn.id]
            .iter()
            .any(|m| m.values().any(|v| v == cand))
    }

    /// Rule 6: may recorded `rec` (not yet mapped) be mapped to `cand`?
    pub(crate) fn fresh_pair(&self, rec: &Scalar, cand: &Scalar, learn: &Learn) -> bool {
        if self.generated.contains_key(rec)
            || self.gen_map.contains_key(rec)
            || learn.gen.contains_key(rec)
        {
            return false;
        }
        !(self.taken(cand, learn) || self.known(rec) || self.known(cand))
    }

    /// Keeps what an answer taught (its status matched).
    pub(crate) fn commit(&mut self, learn: Learn) {
        self.id_map.extend(learn.id);
        self.vol_map.extend(learn.vol);
        self.gen_map.extend(learn.gen);
        let mut tok = IndexMap::new();
        token_pairs(self.id_map.iter(), self.gen_map.iter(), &mut tok);
        self.tok_map = tok;
    }

    /// Number of rule 4 ids and rule 6 values mapped so far.
    pub fn mapped(&self) -> (usize, usize) {
        (self.id_map.len(), self.gen_map.len())
    }
}
