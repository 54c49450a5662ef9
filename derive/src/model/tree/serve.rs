//! The tree's World (entities by key, a container's children in order) and
//! its answers: reads, `PUT` create/replace, `POST` untitled children,
//! `PATCH` moves, `DELETE`, and the app's answers quoting a key.

use super::{extension, key_of, last_segment, parent_of, TreeStore};
use crate::model::exchange::Exchange;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// The entities of the tree.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct TreeWorld {
    nodes: BTreeMap<String, Node>,
    /// Keys a call removed (deleted, moved away): known to be absent.
    gone: BTreeSet<String>,
}

#[derive(Debug, Clone, PartialEq)]
struct Node {
    /// The entity as its container lists it (details null).
    entry: Map<String, Value>,
    /// The detail members' values, when known.
    detail: Option<Map<String, Value>>,
    /// A container's children keys in listing order, when known.
    children: Option<Vec<String>>,
    /// Changed by a call the tree did not answer: its members are unknown.
    stale: bool,
    /// The saved copy (`subcopy`): its answer, and the entity as it was.
    copy: Option<Copy>,
}

/// A saved copy: its answer, and the entity's entry and details as they were.
type Copy = (
    Map<String, Value>,
    Map<String, Value>,
    Option<Map<String, Value>>,
);

/// One answer of the tree.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Reply {
    /// The answer kind (the evidence's key).
    pub kind: &'static str,
    pub status: u16,
    pub content_type: String,
    /// JSON body, or the text of a non-JSON answer (`text`).
    pub body: Option<Value>,
    pub text: bool,
    pub applied: bool,
}

fn is_clock(v: &Value) -> bool {
    v.as_str()
        .is_some_and(|s| chrono::DateTime::parse_from_rfc3339(s).is_ok())
}

fn clock(now_ms: i64) -> Value {
    let t = chrono::DateTime::from_timestamp_millis(now_ms).unwrap_or_default();
    Value::String(t.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string())
}

impl TreeStore {
    fn prefix_segments(&self) -> Vec<String> {
        self.prefix
            .split('/')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    }

    /// The key a request path names (decoded segments), when the tree's.
    pub(crate) fn key(&self, segments: &[String]) -> Option<String> {
        key_of(&self.prefix_segments(), &self.tails, segments)
    }

    fn is_container(&self, e: &Map<String, Value>) -> bool {
        e.get(&self.type_member).and_then(Value::as_str) == Some(&self.container_type)
    }

    /// The entry form of an answer: details and children null.
    fn entry_of(&self, a: &Map<String, Value>) -> Map<String, Value> {
        let mut e = a.clone();
        for d in self.detail_members.iter().chain([&self.children_member]) {
            if e.contains_key(d) {
                e.insert(d.clone(), Value::Null);
            }
        }
        e
    }

    fn detail_of(&self, a: &Map<String, Value>) -> Option<Map<String, Value>> {
        let d: Map<String, Value> = self
            .detail_members
            .iter()
            .filter_map(|m| Some((m.clone(), a.get(m)?.clone())))
            .collect();
        d.values().any(|v| !v.is_null()).then_some(d)
    }

    /// The World at the recording's start: every entity a read or a listing
    /// showed before any recorded write created or changed it.
    pub(crate) fn initial_world(&self, exchanges: &[Exchange]) -> TreeWorld {
        let mut world = TreeWorld::default();
        // Keys a recorded write created or changed, and containers that
        // lost a child the recording's start held (their later listings
        // do not show the start).
        let mut touched: BTreeSet<String> = BTreeSet::new();
        let mut created: BTreeSet<String> = BTreeSet::new();
        let mut lost: BTreeSet<String> = BTreeSet::new();
        for x in exchanges {
            let Some(key) = self.key(&x.segments) else {
                if !x.is_read() {
                    if let Some(k) = self.key_above_tail(&x.segments) {
                        touched.insert(k);
                    }
                }
                continue;
            };
            let answer = x.answer.as_ref().and_then(Value::as_object);
            if !x.is_read() {
                let named = answer
                    .and_then(|a| a.get(&self.key_member))
                    .and_then(Value::as_str)
                    .map(str::to_string);
                let into = named
                    .as_deref()
                    .is_some_and(|k| parent_of(k) == Some(key.as_str()));
                if !(x.method == "POST" && into) {
                    touched.insert(key.clone());
                }
                if x.status == 201 || into || x.method == "PATCH" {
                    if let Some(k) = &named {
                        created.insert(k.clone());
                    }
                }
                if x.status == 201 && x.method == "PUT" {
                    created.insert(key.clone());
                }
                let removes =
                    x.method == "DELETE" || (x.method == "PATCH" && named.as_ref() != Some(&key));
                if removes && x.is_2xx() && !created.contains(&key) {
                    if let Some(p) = parent_of(&key) {
                        lost.insert(p.to_string());
                    }
                }
                touched.extend(named);
                continue;
            }
            let Some(a) = answer.filter(|_| x.is_2xx() && x.method == "GET") else {
                continue;
            };
            if touched.contains(&key)
                || a.get(&self.key_member).and_then(Value::as_str) != Some(&key)
            {
                continue;
            }
            let children: Option<Vec<(String, Map<String, Value>)>> = a
                .get(&self.children_member)
                .and_then(Value::as_array)
                .map(|list| {
                    list.iter()
                        .filter_map(|e| {
                            let e = e.as_object()?;
                            let k = e.get(&self.key_member)?.as_str()?.to_string();
                            (!created.contains(&k)).then(|| (k, e.clone()))
                        })
                        .collect()
                });
            let node = world.nodes.entry(key.clone()).or_insert_with(|| Node {
                entry: self.entry_of(a),
                detail: None,
                children: None,
                stale: false,
                copy: None,
            });
            if node.detail.is_none() {
                node.detail = self.detail_of(a);
            }
            if let Some(children) = children {
                if node.children.is_none() && !lost.contains(&key) {
                    node.children = Some(children.iter().map(|(k, _)| k.clone()).collect());
                }
                // A child a recorded write changed before this listing: its
                // entry here is not the start's.
                for (k, e) in children.into_iter().filter(|(k, _)| !touched.contains(k)) {
                    world.nodes.entry(k).or_insert_with(|| Node {
                        entry: e,
                        detail: None,
                        children: None,
                        stale: false,
                        copy: None,
                    });
                }
            }
        }
        world
    }

    fn json(&self, kind: &'static str, status: u16, body: Option<Value>, applied: bool) -> Reply {
        Reply {
            kind,
            status,
            content_type: self.content_type.clone(),
            body,
            text: false,
            applied,
        }
    }

    fn quoted(&self, kind: &'static str, q: &super::Quoting, key: &str) -> Option<Reply> {
        let quoted = if q.slash {
            format!("/{key}")
        } else {
            key.to_string()
        };
        let quoted = if q.json {
            let s = serde_json::to_string(&quoted).ok()?;
            s[1..s.len() - 1].to_string()
        } else {
            quoted
        };
        let text = format!("{}{quoted}{}", q.before, q.after);
        let body = if q.json {
            serde_json::from_str(&text).ok()?
        } else {
            Value::String(text)
        };
        Some(Reply {
            kind,
            status: q.status,
            content_type: q.content_type.clone(),
            body: Some(body),
            text: !q.json,
            applied: false,
        })
    }

    /// The app's answer to a key it does not hold: only where the World
    /// knows every child of the key's container (else the key may exist).
    fn absent(&self, world: &TreeWorld, method: &str, key: &str) -> Option<Reply> {
        let complete = parent_of(key)
            .and_then(|p| world.nodes.get(p))
            .is_some_and(|p| p.children.is_some() && !p.stale);
        if !self.serves("absent") || !(complete || world.gone.contains(key)) {
            return None;
        }
        self.quoted("absent", self.absent.get(method)?, key)
    }

    /// The entity `key` as a read of it answers.
    fn read(&self, world: &TreeWorld, key: &str, omit: bool) -> Option<Value> {
        let node = world.nodes.get(key).filter(|n| !n.stale)?;
        let mut e = node.entry.clone();
        if omit {
            return Some(Value::Object(e));
        }
        match &node.detail {
            Some(d) => e.extend(d.clone()),
            None if node.children.is_some() => e.extend(self.container_detail.clone()),
            None => {}
        }
        if let Some(children) = &node.children {
            let list = children
                .iter()
                .map(|k| {
                    let n = world.nodes.get(k).filter(|n| !n.stale)?;
                    Some(Value::Object(n.entry.clone()))
                })
                .collect::<Option<Vec<Value>>>()?;
            e.insert(self.children_member.clone(), Value::Array(list));
            return Some(Value::Object(e));
        }
        node.detail.as_ref()?;
        Some(Value::Object(e))
    }

    /// Answers a call of the tree; `None` to leave it to the rest.
    pub(crate) fn served(
        &self,
        world: &mut TreeWorld,
        method: &str,
        segments: &[String],
        query: &[(String, String)],
        body: Option<&Value>,
        now_ms: i64,
    ) -> Option<Reply> {
        let Some(key) = self.key(segments) else {
            if let Some(r) = self.subcopy(world, method, segments) {
                return Some(r);
            }
            self.touch_below(world, method, segments);
            return None;
        };
        match method {
            "GET" => {
                if !world.nodes.contains_key(&key) {
                    return self.absent(world, method, &key);
                }
                let omit = self
                    .omit_details
                    .as_ref()
                    .is_some_and(|(q, v)| query.iter().any(|(n, w)| n == q && w == v));
                let kind = if omit {
                    "read-omitting-details"
                } else {
                    "read"
                };
                if !self.serves(kind) {
                    return None;
                }
                Some(self.json(kind, 200, Some(self.read(world, &key, omit)?), false))
            }
            "PUT" => self.put(world, &key, body?.as_object()?, now_ms),
            "POST" => self.post(world, &key, body?.as_object()?, now_ms),
            "PATCH" => self.rename(world, &key, body?.as_object()?, now_ms),
            "DELETE" => {
                if !world.nodes.contains_key(&key) {
                    return self.absent(world, method, &key);
                }
                if !self.serves("delete") || key.is_empty() {
                    return None;
                }
                remove(world, &key);
                Some(self.json("delete", 204, None, true))
            }
            _ => None,
        }
    }

    /// True when `segments` address the saved-copy sub-resource.
    pub(crate) fn copy_path(&self, segments: &[String]) -> bool {
        let Some(c) = &self.copies else { return false };
        let prefix = self.prefix_segments();
        segments.len() > prefix.len() + 1
            && segments[..prefix.len()] == *prefix
            && segments[prefix.len() + 1..].contains(&c.tail)
    }

    /// A call of the saved-copy sub-resource (`{key}/{tail}`, `{key}/{tail}/{id}`).
    fn subcopy(&self, world: &mut TreeWorld, method: &str, segments: &[String]) -> Option<Reply> {
        let c = self.copies.as_ref()?;
        let prefix = self.prefix_segments();
        if segments.len() <= prefix.len() + 1 || segments[..prefix.len()] != *prefix {
            return None;
        }
        let rest = &segments[prefix.len()..];
        let at = rest.iter().position(|s| *s == c.tail)?;
        let key = rest[..at].join("/");
        let below = &rest[at + 1..];
        let node = world.nodes.get_mut(&key).filter(|n| !n.stale)?;
        match (method, below) {
            ("GET", []) if self.serves("copy-list") => {
                let list = node
                    .copy
                    .iter()
                    .map(|(a, _, _)| Value::Object(a.clone()))
                    .collect();
                Some(self.json("copy-list", 200, Some(Value::Array(list)), false))
            }
            ("POST", []) if self.serves("copy-create") => {
                let mut a = c.answer.clone();
                for (m, v) in a.iter_mut() {
                    if *m != c.id_member {
                        if let Some(w) = node.entry.get(m) {
                            *v = w.clone();
                        }
                    }
                }
                node.copy = Some((a.clone(), node.entry.clone(), node.detail.clone()));
                Some(self.json(
                    "copy-create",
                    c.created_status,
                    Some(Value::Object(a)),
                    true,
                ))
            }
            ("POST", [id]) if *id == c.id && self.serves("copy-restore") => {
                let (_, entry, detail) = node.copy.clone()?;
                node.entry = entry;
                node.detail = detail;
                Some(self.json("copy-restore", c.restored_status, None, true))
            }
            ("DELETE", [id]) if *id == c.id && self.serves("copy-delete") => {
                node.copy.take()?;
                Some(self.json("copy-delete", c.deleted_status, None, true))
            }
            _ => None,
        }
    }

    /// The key above the first tail segment of `segments`, if any.
    fn key_above_tail(&self, segments: &[String]) -> Option<String> {
        let prefix = self.prefix_segments();
        if segments.len() <= prefix.len() || segments[..prefix.len()] != *prefix {
            return None;
        }
        let rest = &segments[prefix.len()..];
        let at = rest.iter().position(|s| self.tails.contains(s))?;
        Some(rest[..at].join("/"))
    }

    /// A write to something below a key (a tail: `…/checkpoints/…`) may
    /// change the entity: its details are unknown from then on.
    fn touch_below(&self, world: &mut TreeWorld, method: &str, segments: &[String]) {
        let prefix = self.prefix_segments();
        if matches!(method, "GET" | "HEAD" | "OPTIONS")
            || segments.len() <= prefix.len()
            || segments[..prefix.len()] != *prefix
        {
            return;
        }
        let rest = &segments[prefix.len()..];
        let Some(at) = rest.iter().position(|s| self.tails.contains(s)) else {
            return;
        };
        if let Some(node) = world.nodes.get_mut(&rest[..at].join("/")) {
            node.stale = true;
        }
    }

    /// True when a container's children hold a key the recording's start
    /// did not (their order is then the World's: appended).
    pub(crate) fn grown(
        &self,
        world: &TreeWorld,
        initial: &TreeWorld,
        segments: &[String],
    ) -> bool {
        let Some(key) = self.key(segments) else {
            return false;
        };
        world
            .nodes
            .get(&key)
            .and_then(|n| n.children.as_ref())
            .is_some_and(|c| c.iter().any(|k| !initial.nodes.contains_key(k)))
    }

    fn stamp(&self, e: &mut Map<String, Value>, now_ms: i64) {
        for v in e.values_mut().filter(|v| is_clock(v)) {
            *v = clock(now_ms);
        }
    }

    /// Stores the sent details of `e` (and the size they mean).
    fn store_details(&self, node: &mut Node, body: &Map<String, Value>) {
        let sent: Map<String, Value> = self
            .detail_members
            .iter()
            .filter_map(|m| Some((m.clone(), body.get(m)?.clone())))
            .collect();
        if sent.is_empty() {
            return;
        }
        if let Some((size, of)) = &self.size_of {
            if let Some(t) = sent.get(of).and_then(Value::as_str) {
                node.entry.insert(size.clone(), Value::from(t.len() as u64));
            }
        }
        // Sent in full (every detail member): the next read answers them.
        node.detail = (sent.len() == self.detail_members.len()).then_some(sent);
    }

    /// A new entity of `type_value` at `key`, from the recorded template.
    fn fresh(&self, world: &TreeWorld, key: &str, type_value: &str, now_ms: i64) -> Option<Node> {
        let mut entry = self.entry_of(self.templates.get(type_value)?);
        entry.insert(self.key_member.clone(), Value::String(key.to_string()));
        entry.insert(
            self.name_member.clone(),
            Value::String(last_segment(key).to_string()),
        );
        self.stamp(&mut entry, now_ms);
        if let (Some(m), Some(ext)) = (&self.by_extension, extension(key)) {
            let known = world
                .nodes
                .iter()
                .find(|(k, n)| {
                    extension(k) == Some(ext)
                        && n.entry.get(&self.type_member) == entry.get(&self.type_member)
                })
                .and_then(|(_, n)| n.entry.get(m).cloned());
            if let Some(v) = known {
                entry.insert(m.clone(), v);
            }
        }
        let container = self.is_container(&entry);
        Some(Node {
            entry,
            detail: None,
            children: container.then(Vec::new),
            stale: false,
            copy: None,
        })
    }

    fn insert(&self, world: &mut TreeWorld, key: &str, node: Node) -> Option<()> {
        let parent = parent_of(key)?;
        let p = world.nodes.get_mut(parent)?;
        if !self.is_container(&p.entry) || p.stale {
            return None;
        }
        if let Some(children) = &mut p.children {
            children.push(key.to_string());
        }
        world.nodes.insert(key.to_string(), node);
        Some(())
    }

    fn put(
        &self,
        world: &mut TreeWorld,
        key: &str,
        body: &Map<String, Value>,
        now_ms: i64,
    ) -> Option<Reply> {
        if let Some(node) = world.nodes.get_mut(key) {
            if !self.serves("put-replace") || node.children.is_some() || node.stale {
                return None;
            }
            // A detail whose size the tree cannot tell (not text): the
            // entity changes, unknown to the tree.
            if let Some((_, of)) = &self.size_of {
                if body.get(of).is_some_and(|v| !v.is_string()) {
                    node.stale = true;
                    return None;
                }
            }
            self.stamp(&mut node.entry, now_ms);
            self.store_details(node, body);
            let e = Value::Object(node.entry.clone());
            return Some(self.json("put-replace", self.replaced_status, Some(e), true));
        }
        if !self.serves("put-create")
            || !self.is_container(&world.nodes.get(parent_of(key)?)?.entry)
        {
            return None;
        }
        let t = body.get(&self.type_member)?.as_str()?;
        let mut node = self.fresh(world, key, t, now_ms)?;
        self.store_details(&mut node, body);
        let e = Value::Object(node.entry.clone());
        // Under a container whose children the World does not all know,
        // the key is taken as new: a convention (counted apart).
        let listed = world
            .nodes
            .get(parent_of(key)?)
            .is_some_and(|p| p.children.is_some())
            || world.gone.contains(key);
        self.insert(world, key, node)?;
        world.gone.remove(key);
        let kind = if listed {
            "put-create"
        } else {
            "put-create-unlisted"
        };
        Some(self.json(kind, self.created_status, Some(e), true))
    }

    fn post(
        &self,
        world: &mut TreeWorld,
        key: &str,
        body: &Map<String, Value>,
        now_ms: i64,
    ) -> Option<Reply> {
        // The first free name: only where every child is known.
        if !self.serves("untitled") || world.nodes.get(key)?.children.is_none() {
            return None;
        }
        let t = body.get(&self.type_member)?.as_str()?;
        let u = self.untitled.iter().find(|u| u.type_value == t)?;
        let ext = match &u.ext_member {
            Some(m) => body.get(m)?.as_str()?.to_string(),
            None => u.ext.clone(),
        };
        let at = |name: String| {
            if key.is_empty() {
                name
            } else {
                format!("{key}/{name}")
            }
        };
        let child = (0..1000u32)
            .map(|n| {
                let n = if n == 0 { String::new() } else { n.to_string() };
                at(format!("{}{n}{ext}", u.stem))
            })
            .find(|k| !world.nodes.contains_key(k))?;
        let node = self.fresh(world, &child, t, now_ms)?;
        let e = Value::Object(node.entry.clone());
        self.insert(world, &child, node)?;
        world.gone.remove(&child);
        Some(self.json("untitled", 201, Some(e), true))
    }

    fn rename(
        &self,
        world: &mut TreeWorld,
        key: &str,
        body: &Map<String, Value>,
        now_ms: i64,
    ) -> Option<Reply> {
        let to = body
            .get(self.rename_member.as_ref()?)?
            .as_str()?
            .to_string();
        if !world.nodes.contains_key(key) {
            return self.absent(world, "PATCH", key);
        }
        let to_known = world.nodes.contains_key(&to)
            || world.gone.contains(&to)
            || parent_of(&to)
                .and_then(|p| world.nodes.get(p))
                .is_some_and(|p| p.children.is_some());
        if !to_known {
            return None;
        }
        if world.nodes.contains_key(&to) && to != key {
            if !self.serves("exists") {
                return None;
            }
            return self.quoted("exists", self.exists.as_ref()?, &to);
        }
        if !self.serves("rename")
            || world.nodes.get(key).is_some_and(|n| n.stale)
            || !self.is_container(&world.nodes.get(parent_of(&to)?)?.entry)
        {
            return None;
        }
        let moved: Vec<String> = world
            .nodes
            .keys()
            .filter(|k| *k == key || k.starts_with(&format!("{key}/")))
            .cloned()
            .collect();
        let rekey = |k: &str| format!("{to}{}", &k[key.len()..]);
        let old_parent = parent_of(key)?.to_string();
        let new_parent = parent_of(&to)?.to_string();
        for k in moved {
            let mut node = world.nodes.remove(&k)?;
            world.gone.insert(k.clone());
            let nk = rekey(&k);
            node.entry
                .insert(self.key_member.clone(), Value::String(nk.clone()));
            node.entry.insert(
                self.name_member.clone(),
                Value::String(last_segment(&nk).to_string()),
            );
            if let Some(c) = &mut node.children {
                for child in c.iter_mut() {
                    *child = rekey(child);
                }
            }
            world.gone.remove(&nk);
            world.nodes.insert(nk, node);
        }
        if let Some(p) = world
            .nodes
            .get_mut(&old_parent)
            .and_then(|p| p.children.as_mut())
        {
            match p.iter().position(|c| c == key) {
                Some(i) if old_parent == new_parent => p[i] = to.clone(),
                Some(i) => {
                    p.remove(i);
                }
                None => {}
            }
        }
        if old_parent != new_parent {
            if let Some(p) = world
                .nodes
                .get_mut(&new_parent)
                .and_then(|p| p.children.as_mut())
            {
                p.push(to.clone());
            }
        }
        let node = world.nodes.get_mut(&to)?;
        let _ = now_ms;
        Some(self.json("rename", 200, Some(Value::Object(node.entry.clone())), true))
    }
}

fn remove(world: &mut TreeWorld, key: &str) {
    let below = format!("{key}/");
    let removed: Vec<String> = world
        .nodes
        .keys()
        .filter(|k| *k == key || k.starts_with(&below))
        .cloned()
        .collect();
    for k in removed {
        world.nodes.remove(&k);
        world.gone.insert(k);
    }
    if let Some(p) = parent_of(key).and_then(|p| world.nodes.get_mut(p)) {
        if let Some(c) = &mut p.children {
            c.retain(|k| k != key);
        }
    }
}

/// The tree's World as data-plane rows, and back (`serving/tables.rs`,
/// table `app_model_tree`): one row per entity by `key`, with its listing
/// entry, its detail members (`null` when unknown), its children keys in
/// listing order (`null` when unknown), whether a call the tree did not
/// answer changed it (`stale`) and its saved copy; a removed key is a row
/// `{key, gone: true}`.
impl TreeWorld {
    pub(crate) fn rows(&self) -> Vec<Value> {
        let opt = |m: &Option<Map<String, Value>>| m.clone().map_or(Value::Null, Value::Object);
        let mut out: Vec<Value> = self
            .nodes
            .iter()
            .map(|(key, n)| {
                let copy = n.copy.as_ref().map_or(Value::Null, |(answer, entry, detail)| {
                    serde_json::json!({"answer": answer, "entry": entry, "detail": opt(detail)})
                });
                serde_json::json!({
                    "key": key,
                    "entry": n.entry,
                    "detail": opt(&n.detail),
                    "children": n.children.clone().map_or(Value::Null, |c| c.into()),
                    "stale": n.stale,
                    "copy": copy,
                    "gone": false,
                })
            })
            .collect();
        out.extend(
            self.gone
                .iter()
                .map(|k| serde_json::json!({"key": k, "gone": true})),
        );
        out
    }

    /// A World from `rows`' rows; `Err` names the row and what does not fit.
    pub(crate) fn from_rows(table: &str, rows: &[Value]) -> Result<TreeWorld, String> {
        fn object(r: &Value, m: &str) -> Result<Option<Map<String, Value>>, String> {
            match r.get(m) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Object(o)) => Ok(Some(o.clone())),
                Some(_) => Err(format!("`{m}` must be an object or null")),
            }
        }
        let mut world = TreeWorld::default();
        for (i, r) in rows.iter().enumerate() {
            let at = |e: String| format!("{table}[{i}]: {e}");
            let key = r
                .get("key")
                .and_then(Value::as_str)
                .ok_or_else(|| at("`key` (a string) is required".into()))?
                .to_string();
            if r.get("gone").and_then(Value::as_bool) == Some(true) {
                world.nodes.remove(&key);
                world.gone.insert(key);
                continue;
            }
            let entry = object(r, "entry")
                .map_err(at)?
                .ok_or_else(|| at("`entry` (an object) is required".into()))?;
            let detail = object(r, "detail").map_err(at)?;
            let children = match r.get("children") {
                None | Some(Value::Null) => None,
                Some(Value::Array(a)) => Some(
                    a.iter()
                        .map(|c| c.as_str().map(str::to_string))
                        .collect::<Option<Vec<_>>>()
                        .ok_or_else(|| at("`children` must hold keys (strings)".into()))?,
                ),
                Some(_) => return Err(at("`children` must be an array or null".into())),
            };
            let copy = match object(r, "copy").map_err(at)? {
                None => None,
                Some(c) => {
                    let c = Value::Object(c);
                    let answer = object(&c, "answer")
                        .map_err(at)?
                        .ok_or_else(|| at("`copy.answer` (an object) is required".into()))?;
                    let entry = object(&c, "entry")
                        .map_err(at)?
                        .ok_or_else(|| at("`copy.entry` (an object) is required".into()))?;
                    Some((answer, entry, object(&c, "detail").map_err(at)?))
                }
            };
            let stale = r.get("stale").and_then(Value::as_bool).unwrap_or(false);
            world.gone.remove(&key);
            world.nodes.insert(
                key,
                Node {
                    entry,
                    detail,
                    children,
                    stale,
                    copy,
                },
            );
        }
        Ok(world)
    }
}
