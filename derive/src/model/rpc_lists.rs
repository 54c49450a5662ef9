//! Paged lists read from one RPC-style path, the list named by query values
//! (`/api.php?action=query&list=allpages&aplimit=5`), answered for page
//! sizes and starts the recording never asked from the pages it did show.
//! Inferred per path from the recorded reads whose answer nests one array of
//! objects (`/query/allpages`):
//! - a **limit** parameter: an integer that some answer with a continuation
//!   filled exactly, and no answer exceeded;
//! - a **cursor** parameter: its value is the string a previous answer of
//!   the path held outside its array (`/continue/apcontinue`); the cursor is
//!   **keyed** when the page it starts begins with the item whose member
//!   (`title`) holds it, else opaque;
//! - a **list**: the reads with the same other parameters; pages chained by
//!   their cursors give the items in order from the start, and a chain whose
//!   last page had no continuation holds the whole list.
//!
//! A read with an unseen limit or a keyed cursor is answered when the chained
//! items cover it: the items, and either the next item's key as the
//! continuation (a keyed cursor only) in a recorded continued answer's shape,
//! or, past the end of a whole list, a recorded final answer's shape.

use super::exchange::{scalar_text, Exchange};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The paged lists of one path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RpcLists {
    pub path: String,
    /// The array's pointer in an answer (`/query/allpages`).
    pub items: String,
    /// Confirmed limit parameters, with the records showing a full page.
    pub limits: Vec<Param>,
    /// Confirmed cursor parameters.
    pub cursors: Vec<Cursor>,
    pub lists: Vec<PagedList>,
    /// A recorded continued answer, its array emptied (the shape of a page
    /// with more to come), and its ordinal.
    pub continued_shape: Option<(u64, Value)>,
    /// A recorded answer without a continuation, its array emptied.
    pub final_shape: Option<(u64, Value)>,
}

/// A parameter with its evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Param {
    pub name: String,
    pub supported_by: Vec<u64>,
}

/// A cursor parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cursor {
    pub name: String,
    /// Where a continued answer holds the next cursor (`/continue/apcontinue`).
    pub answer_pointer: String,
    /// The item member a keyed cursor names (`title`); `None`: opaque.
    pub key_member: Option<String>,
    pub supported_by: Vec<u64>,
}

/// One list: the reads sharing every parameter but the limit and the cursor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PagedList {
    /// The other parameters, sorted.
    pub params: Vec<(String, String)>,
    /// The items the chained pages showed, in order from the start.
    pub items: Vec<Value>,
    /// True when the chain reached a page without a continuation.
    pub complete: bool,
    /// The pages chained (ordinals).
    pub supported_by: Vec<u64>,
}

/// The nested array of objects of an answer: (pointer, items), at most three
/// members deep, the first in member order.
fn nested_list<'a>(v: &'a Value, at: &str, depth: usize) -> Option<(String, &'a Vec<Value>)> {
    let map = v.as_object()?;
    for (k, c) in map {
        let p = format!("{at}/{}", super::exchange::token(k));
        match c {
            Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_object) => {
                return Some((p, items));
            }
            Value::Object(_) if depth < 3 => {
                if let Some(found) = nested_list(c, &p, depth + 1) {
                    return Some(found);
                }
            }
            _ => {}
        }
    }
    None
}

/// String leaves outside the array: (pointer, text).
fn leaves_outside(v: &Value, at: &str, skip: &str, out: &mut Vec<(String, String)>) {
    if at == skip {
        return;
    }
    match v {
        Value::Object(map) => {
            for (k, c) in map {
                leaves_outside(c, &format!("{at}/{}", super::exchange::token(k)), skip, out);
            }
        }
        Value::String(s) => out.push((at.to_string(), s.clone())),
        _ => {}
    }
}

struct Read<'a> {
    x: &'a Exchange,
    items: &'a Vec<Value>,
    outside: Vec<(String, String)>,
}

/// Infers the paged lists of every path.
pub(crate) fn infer(exchanges: &[Exchange]) -> Vec<RpcLists> {
    let mut by_path: BTreeMap<(String, String), Vec<Read<'_>>> = BTreeMap::new();
    for x in exchanges.iter().filter(|x| x.method == "GET" && x.is_2xx()) {
        let Some(answer) = &x.answer else { continue };
        // Nested only: a root array or a root member array is the list
        // engine's (`lists`).
        let Some((pointer, items)) = nested_list(answer, "", 0) else {
            continue;
        };
        if pointer.matches('/').count() < 2 {
            continue;
        }
        let mut outside = Vec::new();
        leaves_outside(answer, "", &pointer, &mut outside);
        by_path
            .entry((x.path(), pointer))
            .or_default()
            .push(Read { x, items, outside });
    }
    let mut out = Vec::new();
    for ((path, pointer), reads) in by_path {
        if let Some(l) = infer_path(&path, &pointer, &reads) {
            out.push(l);
        }
    }
    out
}

fn infer_path(path: &str, pointer: &str, reads: &[Read<'_>]) -> Option<RpcLists> {
    // Cursors: a query value equal to an earlier answer's string outside its array.
    let mut cursors: BTreeMap<String, Cursor> = BTreeMap::new();
    let mut contradicted: BTreeSet<String> = BTreeSet::new();
    for (i, r) in reads.iter().enumerate() {
        for (name, value) in &r.x.query {
            let Some(ptr) = reads[..i].iter().find_map(|e| {
                e.outside
                    .iter()
                    .find(|(p, t)| t == value && p.ends_with(&format!("/{name}")))
                    .map(|(p, _)| p.clone())
            }) else {
                continue;
            };
            let keyed = r.items.first().and_then(Value::as_object).and_then(|o| {
                o.iter()
                    .find(|(_, v)| scalar_text(v).as_deref() == Some(value.as_str()))
                    .map(|(k, _)| k.clone())
            });
            let c = cursors.entry(name.clone()).or_insert_with(|| Cursor {
                name: name.clone(),
                answer_pointer: ptr.clone(),
                key_member: keyed.clone(),
                supported_by: Vec::new(),
            });
            if c.answer_pointer != ptr || c.key_member != keyed {
                contradicted.insert(name.clone());
            }
            c.supported_by.push(r.x.ordinal);
        }
    }
    for name in &contradicted {
        if let Some(c) = cursors.get_mut(name) {
            c.key_member = None;
        }
    }
    if cursors.is_empty() {
        return None;
    }
    let continued = |r: &Read<'_>| {
        cursors
            .values()
            .any(|c| r.outside.iter().any(|(p, _)| *p == c.answer_pointer))
    };
    // Limits: integers some continued answer filled exactly, none exceeded.
    let mut names: BTreeSet<&String> = BTreeSet::new();
    reads
        .iter()
        .for_each(|r| names.extend(r.x.query.iter().map(|(n, _)| n)));
    let mut limits = Vec::new();
    for name in names {
        let mut full = Vec::new();
        let mut fits = true;
        for r in reads {
            let Some(v) = r.x.query_value(name) else {
                continue;
            };
            let Ok(n) = v.parse::<usize>() else {
                fits = false;
                break;
            };
            if r.items.len() > n || (continued(r) && r.items.len() != n) {
                fits = false;
                break;
            }
            if continued(r) {
                full.push(r.x.ordinal);
            }
        }
        if fits && !full.is_empty() {
            limits.push(Param {
                name: name.clone(),
                supported_by: full,
            });
        }
    }
    if limits.is_empty() {
        return None;
    }
    let paging = |n: &str| limits.iter().any(|l| l.name == n) || cursors.contains_key(n);
    let others = |r: &Read<'_>| {
        let mut p: Vec<(String, String)> =
            r.x.query
                .iter()
                .filter(|(n, _)| !paging(n))
                .cloned()
                .collect();
        p.sort();
        p
    };
    // Chains: a page without a cursor starts one; a page whose cursor is a
    // previous page's continuation continues it.
    let mut lists: Vec<PagedList> = Vec::new();
    let mut next_of: Vec<(usize, String)> = Vec::new(); // (list index, next cursor)
    for r in reads {
        let params = others(r);
        let cursor = cursors
            .values()
            .find_map(|c| r.x.query_value(&c.name).map(str::to_string));
        let next = cursors.values().find_map(|c| {
            r.outside
                .iter()
                .find(|(p, _)| *p == c.answer_pointer)
                .map(|(_, t)| t.clone())
        });
        let at = match &cursor {
            None => {
                // A fresh start: the same items from the start as a known list.
                match lists.iter().position(|l| l.params == params) {
                    Some(i) => Some(i),
                    None => {
                        lists.push(PagedList {
                            params: params.clone(),
                            items: Vec::new(),
                            complete: false,
                            supported_by: Vec::new(),
                        });
                        Some(lists.len() - 1)
                    }
                }
            }
            Some(c) => next_of
                .iter()
                .find(|(i, n)| n == c && lists[*i].params == params)
                .map(|(i, _)| *i),
        };
        let Some(i) = at else { continue };
        let l = &mut lists[i];
        if cursor.is_none() {
            // Only when it repeats what is known (or starts it).
            if l.items.is_empty() {
                l.items = r.items.clone();
            } else if !l.items.starts_with(r.items) {
                continue;
            }
        } else {
            // Append the items not yet held (a page read twice adds nothing).
            let start = l
                .items
                .iter()
                .position(|it| Some(it) == r.items.first())
                .unwrap_or(l.items.len());
            let held = &l.items[start..];
            let common = held
                .iter()
                .zip(r.items.iter())
                .take_while(|(a, b)| a == b)
                .count();
            if common < held.len() {
                continue;
            }
            l.items.extend(r.items[common..].iter().cloned());
        }
        l.supported_by.push(r.x.ordinal);
        match next {
            Some(n) => next_of.push((i, n)),
            None => l.complete = true,
        }
    }
    lists.retain(|l| !l.supported_by.is_empty());
    let emptied = |r: &Read<'_>| {
        let mut a = r.x.answer.clone()?;
        *a.pointer_mut(pointer)? = Value::Array(Vec::new());
        Some((r.x.ordinal, a))
    };
    let continued_shape = reads.iter().filter(|r| continued(r)).find_map(emptied);
    let final_shape = reads.iter().filter(|r| !continued(r)).find_map(emptied);
    Some(RpcLists {
        path: path.to_string(),
        items: pointer.to_string(),
        limits,
        cursors: cursors.into_values().collect(),
        lists,
        continued_shape,
        final_shape,
    })
}

impl RpcLists {
    /// Answers a read of the path the recording covers: `None` otherwise.
    pub(crate) fn answer(&self, query: &[(String, String)]) -> Option<Value> {
        let limit = self
            .limits
            .iter()
            .find_map(|l| query.iter().find(|(n, _)| *n == l.name))
            .and_then(|(_, v)| v.parse::<usize>().ok())?;
        let cursor = self.cursors.iter().find_map(|c| {
            query
                .iter()
                .find(|(n, _)| *n == c.name)
                .map(|(_, v)| (c, v))
        });
        let paging = |n: &str| {
            self.limits.iter().any(|l| l.name == n) || self.cursors.iter().any(|c| c.name == n)
        };
        let mut params: Vec<(String, String)> =
            query.iter().filter(|(n, _)| !paging(n)).cloned().collect();
        params.sort();
        let list = self.lists.iter().find(|l| l.params == params)?;
        let start = match cursor {
            None => 0,
            Some((c, v)) => {
                let key = c.key_member.as_deref()?;
                list.items
                    .iter()
                    .position(|it| it.get(key).and_then(scalar_text).as_deref() == Some(v))?
            }
        };
        let end = start + limit;
        let page: Vec<Value> = list.items.iter().skip(start).take(limit).cloned().collect();
        // The next item's key, in a continued answer's shape.
        let keyed = self.cursors.iter().find(|c| c.key_member.is_some());
        let body = if end < list.items.len() {
            let c = keyed?;
            let key = c.key_member.as_deref()?;
            let next = list.items[end].get(key)?.clone();
            let mut body = self.continued_shape.as_ref()?.1.clone();
            *body.pointer_mut(&c.answer_pointer)? = next;
            *body.pointer_mut(&self.items)? = Value::Array(page);
            body
        } else if list.complete {
            let mut body = self.final_shape.as_ref()?.1.clone();
            *body.pointer_mut(&self.items)? = Value::Array(page);
            body
        } else {
            return None;
        };
        Some(body)
    }
}
