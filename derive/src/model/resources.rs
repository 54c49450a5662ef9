//! Resources by structure: collections and items addressed by an id segment
//! (with its prefix and suffix), or RPC-style by a key in the query of a read
//! (`…/get?run_id=`) and the same key in the body of writes
//! (`POST …/update {"run_id": …}`). Each recorded exchange is given a role on
//! its resource; sibling collections of one parent lend each other the item
//! routes the recording shows for only some of them.

use super::exchange::{entity_of, join, list_of, named_leaves, scalar_text, sorted, Exchange};
use super::routes::{pointer_has_index, SegmentShape, Templates};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// One resource of the app.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Resource {
    pub name: String,
    /// `path` (id in a segment) or `rpc` (id in the query or body).
    pub addressing: String,
    /// The collection template (RPC: the parent of the verb segments).
    pub collection: String,
    /// The item template (`path` addressing only).
    pub item: Option<String>,
    /// How the id segment is spelled (`path` addressing only).
    pub segment: Option<SegmentShape>,
    /// The identity keys and where the entity holds them.
    pub keys: Vec<Key>,
    /// Pointer of the entity in an item answer (`""` for the root).
    pub item_envelope: Option<String>,
    /// Pointer of the array in a list answer.
    pub list_envelope: Option<String>,
    pub operations: Vec<Operation>,
    /// Item routes a sibling collection shows and this one never did.
    pub inferred_operations: Vec<InferredOperation>,
    pub supported_by: Vec<u64>,
    pub checked_against: Vec<u64>,
    /// Records whose answer contradicted a key (the key was dropped).
    pub contradicted_by: Vec<u64>,
}

/// One identity key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Key {
    /// `segment`, `query` or `body`.
    pub location: String,
    /// The query parameter or body member (`segment`: the template parameter).
    pub name: String,
    /// JSON pointer of the key inside the entity.
    pub entity_member: String,
    pub supported_by: Vec<u64>,
}

/// One recorded route of a resource and the role it plays.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Operation {
    pub method: String,
    /// The path template (RPC: the verb route).
    pub route: String,
    /// `list`, `read`, `create`, `update`, `delete`, `query` (a read sent
    /// with a body) or `action` (a write carrying the key, effect below).
    pub role: String,
    /// Where the request names the item: `segment`, `query:<name>`,
    /// `body:<member>` or `none`.
    pub key_in: String,
    pub statuses: Vec<u16>,
    pub ordinals: Vec<u64>,
}

/// A route taken from a sibling collection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InferredOperation {
    pub method: String,
    pub route: String,
    pub role: String,
    /// The sibling resource that showed it.
    pub from: String,
    pub supported_by: Vec<u64>,
}

/// (route, method, role, key_in) → (statuses, ordinals).
type OpMap = BTreeMap<(String, String, String, String), (BTreeSet<u16>, Vec<u64>)>;

/// A resource in the making.
#[derive(Default)]
struct Draft {
    keys: BTreeMap<(String, String), (String, Vec<u64>)>,
    ops: OpMap,
    item_envelope: BTreeMap<String, usize>,
    list_envelope: BTreeMap<String, usize>,
    supported: Vec<u64>,
    checked: Vec<u64>,
    contradicted: Vec<u64>,
    envelope_names: BTreeMap<String, usize>,
}

/// Infers the resources of a recording.
pub(crate) fn infer(exchanges: &[Exchange], templates: &Templates) -> Vec<Resource> {
    let mut path_drafts: BTreeMap<(String, SegmentShape), Draft> = BTreeMap::new();
    for (pos, evidence) in &templates.positions {
        let d = path_drafts
            .entry((pos.parent.clone(), pos.shape.clone()))
            .or_default();
        d.supported
            .extend(evidence.echoed.iter().chain(&evidence.listed));
    }
    list_only_collections(exchanges, templates, &mut path_drafts);
    // RPC keys: a query value of a 2xx read echoed by the answer's entity,
    // under a member of a compatible name, outside any array.
    let mut rpc: BTreeMap<String, Draft> = BTreeMap::new();
    for x in exchanges.iter().filter(|x| x.is_2xx() && x.method == "GET") {
        let Some(answer) = &x.answer else { continue };
        let Some((env, entity)) = entity_of(answer) else {
            continue;
        };
        if x.segments.is_empty() {
            continue;
        }
        // A list answer's own members beside its array (`limit`, `offset`
        // echoed by a paged list) describe the page, not an entity.
        if env.is_empty() && list_of(answer).is_some() {
            continue;
        }
        let leaves = named_leaves(&serde_json::Value::Object(entity.clone()), 2000);
        let parent = join(&templates.template_of(&x.segments[..x.segments.len() - 1]));
        for (name, value) in &x.query {
            let hit = leaves
                .iter()
                .find(|(p, m, t)| t == value && !pointer_has_index(p) && compatible(name, m));
            if let Some((pointer, _, _)) = hit {
                let d = rpc.entry(parent.clone()).or_default();
                let k = d
                    .keys
                    .entry(("query".into(), name.clone()))
                    .or_insert_with(|| (pointer.clone(), Vec::new()));
                k.1.push(x.ordinal);
                d.supported.push(x.ordinal);
                *d.item_envelope.entry(env.clone()).or_default() += 1;
                if let Some(n) = env.strip_prefix('/') {
                    *d.envelope_names.entry(n.to_string()).or_default() += 1;
                }
            }
        }
    }
    // Give every exchange its role.
    let mut seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for x in exchanges {
        let tpl = templates.template_of(&x.segments);
        if let Some((key, d, role, key_in)) = path_role(x, &tpl, templates, &mut path_drafts) {
            let _ = key;
            record_op(d, x, &join(&tpl), role, key_in);
            continue;
        }
        if x.segments.is_empty() {
            continue;
        }
        let parent = join(&tpl[..tpl.len() - 1]);
        if let Some(d) = rpc.get_mut(&parent) {
            let (mut role, key_in) = rpc_role(x, d);
            let ids = seen.entry(parent.clone()).or_default();
            let answered = answer_id(x, d);
            if x.is_2xx() && !x.is_read() && matches!(role, "action" | "create") {
                // A body naming a known id acts on it (a rename), never creates.
                let names_known = key_in
                    .strip_prefix("body:")
                    .and_then(|m| x.body.as_ref().and_then(|b| b.get(m)).and_then(scalar_text))
                    .is_some_and(|v| ids.contains(&v));
                if let Some(id) = &answered {
                    if !ids.contains(id) && !names_known {
                        role = "create";
                    }
                }
            }
            if x.is_2xx() {
                ids.extend(answered);
                if let Some(q) = key_in.strip_prefix("query:") {
                    ids.extend(x.query_value(q).map(str::to_string));
                }
                if let Some((_, items)) = x.answer.as_ref().and_then(list_of) {
                    if let Some((ptr, _)) = d.keys.values().next() {
                        ids.extend(
                            items
                                .iter()
                                .filter_map(|i| i.pointer(ptr).and_then(scalar_text)),
                        );
                    }
                }
            }
            // A refused call of a route that creates is a refused create.
            let route = join(&tpl);
            if !x.is_2xx()
                && d.ops
                    .keys()
                    .any(|(r, m, ro, _)| *r == route && *m == x.method && ro == "create")
            {
                role = "create";
            }
            record_op(d, x, &route, role, key_in);
        }
    }
    let mut out = Vec::new();
    for ((parent, shape), d) in path_drafts {
        if d.ops.is_empty() {
            continue;
        }
        let name = parent
            .rsplit('/')
            .find(|s| !s.is_empty() && !s.starts_with('{'))
            .unwrap_or("root")
            .to_string();
        let param = item_param(&parent);
        let item = format!(
            "{}/{}{}{}",
            if parent == "/" { "" } else { parent.as_str() },
            shape.prefix,
            param,
            shape.suffix
        );
        out.push(finish(
            d,
            name,
            "path",
            parent,
            Some(item),
            Some(shape),
            Some(param),
        ));
    }
    for (parent, d) in rpc {
        let name = d
            .envelope_names
            .iter()
            .max_by_key(|(_, n)| **n)
            .map(|(k, _)| k.clone())
            .unwrap_or_else(|| parent.rsplit('/').next().unwrap_or("root").to_string());
        out.push(finish(d, name, "rpc", parent, None, None, None));
    }
    out.sort_by(|a, b| a.collection.cmp(&b.collection).then(a.name.cmp(&b.name)));
    lend_sibling_routes(&mut out);
    lend_named_envelopes(&mut out);
    out
}

/// A collection whose item answers the recording never showed, beside two
/// or more siblings whose items are all wrapped in their own singular name
/// (`{"issue": …}`, `{"user": …}`): its items are wrapped in its own
/// (`{"project": …}`), by convention.
fn lend_named_envelopes(resources: &mut [Resource]) {
    let wrapped: Vec<&Resource> = resources
        .iter()
        .filter(|r| r.addressing == "path" && r.item_envelope.is_some())
        .collect();
    if wrapped.len() < 2 || !wrapped.iter().all(|r| named_envelope(r)) {
        return;
    }
    for r in resources
        .iter_mut()
        .filter(|r| r.addressing == "path" && r.item_envelope.is_none())
    {
        let last = r.collection.rsplit('/').next().unwrap_or_default();
        if !last.is_empty() && !last.starts_with('{') {
            r.item_envelope = Some(format!("/{}", super::routes::param_base(last)));
        }
    }
}

fn item_param(parent: &str) -> String {
    let base = parent
        .rsplit('/')
        .find(|s| !s.is_empty())
        .map(|s| s.trim_matches(|c| c == '{' || c == '}').to_string())
        .unwrap_or_else(|| "root".into());
    format!("{{{}_id}}", super::routes::param_base(&base))
}

/// A list route whose elements carry `id`s, beside a sibling collection
/// (same parent template) whose item segments hold ids of the same kind, is
/// a collection too: its items are addressed the way the sibling's are.
fn list_only_collections(
    exchanges: &[Exchange],
    templates: &Templates,
    drafts: &mut BTreeMap<(String, SegmentShape), Draft>,
) {
    let parent_of = |p: &str| {
        p.rsplit_once('/')
            .map(|(a, _)| a.to_string())
            .unwrap_or_default()
    };
    let mut found: BTreeMap<(String, SegmentShape), Vec<u64>> = BTreeMap::new();
    for x in exchanges.iter().filter(|x| x.is_2xx() && x.method == "GET") {
        let here = join(&templates.template_of(&x.segments));
        if drafts.keys().any(|(p, _)| *p == here) {
            continue;
        }
        let Some((_, items)) = x.answer.as_ref().and_then(list_of) else {
            continue;
        };
        let kinds: BTreeSet<&str> = items
            .iter()
            .filter_map(|i| i.get("id").and_then(scalar_text))
            .map(|id| super::routes::kind_of_static(&id))
            .collect();
        if kinds.len() != 1 || items.is_empty() {
            continue;
        }
        let kind = *kinds.iter().next().expect("one kind");
        let sibling = drafts.keys().find(|(p, shape)| {
            parent_of(p) == parent_of(&here) && shape.kind == kind && !p.is_empty()
        });
        if let Some((_, shape)) = sibling {
            found
                .entry((here, shape.clone()))
                .or_default()
                .push(x.ordinal);
        }
    }
    for (key, ords) in found {
        drafts.entry(key).or_default().supported.extend(ords);
    }
}

/// `run_id` ~ `run_id`; `experiment_name` ~ `name`; `name` ~ `name`.
fn compatible(param: &str, member: &str) -> bool {
    param == member
        || param.ends_with(&format!("_{member}"))
        || member.ends_with(&format!("_{param}"))
}

type PathRole<'a> = ((String, SegmentShape), &'a mut Draft, &'static str, String);

fn path_role<'a>(
    x: &Exchange,
    tpl: &[String],
    templates: &Templates,
    drafts: &'a mut BTreeMap<(String, SegmentShape), Draft>,
) -> Option<PathRole<'a>> {
    let n = tpl.len();
    // A verb tail after an item or a collection (`…/{id}/-/update`).
    if let Some((key, role)) = verb_role(x, tpl, templates, drafts) {
        let d = drafts.get_mut(&key)?;
        let key_in = if matches!(role, "update" | "delete") {
            "segment"
        } else {
            "none"
        };
        return Some((key, d, role, key_in.into()));
    }
    // Item: the last segment is parametric.
    if n > 0 {
        let parent = join(&tpl[..n - 1]);
        if let Some(pos) = templates.position_for(&parent, &x.segments[n - 1]) {
            let key = (parent, pos.shape.clone());
            let role = match x.method.as_str() {
                "GET" | "HEAD" => "read",
                "DELETE" => "delete",
                "PUT" | "PATCH" | "POST" => "update",
                _ => "action",
            };
            let d = drafts.get_mut(&key)?;
            if x.is_2xx() {
                check_item(x, d, templates, x.method == "GET");
            }
            return Some((key, d, role, "segment".into()));
        }
    }
    // Collection: a parametric position exists directly under this path.
    let here = join(tpl);
    let key = drafts.keys().find(|(p, _)| *p == here)?.clone();
    let role = match x.method.as_str() {
        "GET" | "HEAD" => "list",
        "POST" => "create",
        _ => "action",
    };
    let d = drafts.get_mut(&key)?;
    if x.is_2xx() && x.method == "GET" {
        if let Some((p, _)) = x.answer.as_ref().and_then(list_of) {
            *d.list_envelope.entry(p).or_default() += 1;
            d.checked.push(x.ordinal);
        }
    }
    Some((key, d, role, "none".into()))
}

/// A `POST` whose path ends in a verb tail (`model::verbs`) after an item
/// (`…/{id}/-/update`) or a collection (`…/-/insert`): the verb's role on
/// that resource, the route spelled with the tail.
fn verb_role(
    x: &Exchange,
    tpl: &[String],
    templates: &Templates,
    drafts: &BTreeMap<(String, SegmentShape), Draft>,
) -> Option<((String, SegmentShape), &'static str)> {
    if x.method != "POST" {
        return None;
    }
    let (role, len) = super::verbs::tail_role(tpl)?;
    let m = tpl.len().checked_sub(len).filter(|m| *m > 0)?;
    let parent = join(&tpl[..m - 1]);
    if let Some(pos) = templates.position_for(&parent, &x.segments[m - 1]) {
        let key = (parent, pos.shape.clone());
        let role = if role == "delete" { "delete" } else { "update" };
        return drafts.contains_key(&key).then_some((key, role));
    }
    let here = join(&tpl[..m]);
    let key = drafts.keys().find(|(p, _)| *p == here)?.clone();
    let role = if role == "upsert" { "upsert" } else { "create" };
    Some((key, role))
}

/// An item read confirms the position when its entity echoes the id.
fn check_item(x: &Exchange, d: &mut Draft, templates: &Templates, read: bool) {
    let n = x.segments.len();
    let parent = join(&templates.template_of(&x.segments[..n - 1]));
    let Some(core) = templates.core(&parent, &x.segments[n - 1]) else {
        return;
    };
    let Some(answer) = &x.answer else { return };
    let Some((env, entity)) = entity_of(answer) else {
        return;
    };
    let hit = entity
        .iter()
        .find(|(k, v)| super::exchange::id_like(k) && scalar_text(v).as_deref() == Some(core));
    match hit {
        Some((k, _)) => {
            let e = d
                .keys
                .entry(("segment".into(), "id".into()))
                .or_insert_with(|| (format!("/{}", super::exchange::token(k)), Vec::new()));
            e.1.push(x.ordinal);
            // A delete's answer may wrap the old entity (`previous`): not
            // the item envelope.
            if x.method != "DELETE" {
                *d.item_envelope.entry(env).or_default() += 1;
            }
            d.checked.push(x.ordinal);
        }
        None if read => d.contradicted.push(x.ordinal),
        None => {}
    }
}

/// The key value of an answer's entity (the first key's member).
fn answer_id(x: &Exchange, d: &Draft) -> Option<String> {
    let (ptr, _) = d.keys.values().next()?;
    let (_, entity) = entity_of(x.answer.as_ref()?)?;
    serde_json::Value::Object(entity.clone())
        .pointer(ptr)
        .and_then(scalar_text)
}

fn rpc_role(x: &Exchange, d: &Draft) -> (&'static str, String) {
    let query_key = d
        .keys
        .keys()
        .find(|(loc, name)| loc == "query" && x.query_value(name).is_some());
    if let Some((_, name)) = query_key {
        let role = if x.is_read() { "read" } else { "action" };
        return (role, format!("query:{name}"));
    }
    let body_key = x.body.as_ref().and_then(|b| {
        d.keys
            .keys()
            .find(|(_, name)| b.get(name).and_then(scalar_text).is_some())
    });
    let lists = x
        .answer
        .as_ref()
        .and_then(list_of)
        .is_some_and(|(_, items)| {
            items.iter().all(|i| {
                d.keys
                    .values()
                    .any(|(ptr, _)| i.pointer(ptr).and_then(scalar_text).is_some())
            })
        });
    if lists && (x.is_read() || x.body.is_some()) {
        let role = if x.is_read() { "list" } else { "query" };
        return (role, "none".into());
    }
    if let Some((_, name)) = body_key {
        // A write naming an id its answer's entity echoes, first seen here,
        // creates; one naming a known id acts on it (see `writes`).
        return ("action", format!("body:{name}"));
    }
    if !x.is_read() {
        let creates = x.answer.as_ref().is_some_and(|a| {
            named_leaves(a, 400).iter().any(|(p, m, _)| {
                !pointer_has_index(p)
                    && d.keys
                        .values()
                        .any(|(ptr, _)| ptr.rsplit('/').next() == Some(m.as_str()))
            })
        });
        if creates {
            return ("create", "none".into());
        }
    }
    (if x.is_read() { "read" } else { "action" }, "none".into())
}

fn record_op(d: &mut Draft, x: &Exchange, route: &str, role: &str, key_in: String) {
    let e = d
        .ops
        .entry((
            route.to_string(),
            x.method.clone(),
            role.to_string(),
            key_in,
        ))
        .or_default();
    e.0.insert(x.status);
    e.1.push(x.ordinal);
}

fn finish(
    d: Draft,
    name: String,
    addressing: &str,
    collection: String,
    item: Option<String>,
    segment: Option<SegmentShape>,
    param: Option<String>,
) -> Resource {
    let top = |m: &BTreeMap<String, usize>| {
        m.iter()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
            .map(|(k, _)| k.clone())
    };
    let mut keys: Vec<Key> = d
        .keys
        .iter()
        .map(|((loc, name), (ptr, ords))| Key {
            location: loc.clone(),
            name: if loc == "segment" {
                param
                    .clone()
                    .unwrap_or_else(|| name.clone())
                    .trim_matches(|c| c == '{' || c == '}')
                    .to_string()
            } else {
                name.clone()
            },
            entity_member: ptr.clone(),
            supported_by: sorted(ords.clone()),
        })
        .collect();
    // Body keys: members writes send under the name of a query key.
    let mut body_keys = Vec::new();
    for ((route, method, _role, key_in), (_, ords)) in &d.ops {
        let _ = (route, method);
        if let Some(m) = key_in.strip_prefix("body:") {
            if let Some(q) = keys.iter().find(|k| k.name == m) {
                body_keys.push(Key {
                    location: "body".into(),
                    name: m.to_string(),
                    entity_member: q.entity_member.clone(),
                    supported_by: ords.clone(),
                });
            }
        }
    }
    for b in body_keys {
        match keys
            .iter_mut()
            .find(|k| k.location == "body" && k.name == b.name)
        {
            Some(k) => {
                k.supported_by.extend(b.supported_by);
                k.supported_by = sorted(std::mem::take(&mut k.supported_by));
            }
            None => keys.push(Key {
                supported_by: sorted(b.supported_by),
                ..b
            }),
        }
    }
    // A route that answered a list to a body is a read for all its calls.
    let queries: BTreeSet<(String, String)> = d
        .ops
        .keys()
        .filter(|(_, _, role, _)| role == "query")
        .map(|(r, m, _, _)| (r.clone(), m.clone()))
        .collect();
    let mut ops: OpMap = BTreeMap::new();
    for ((route, method, role, key_in), (st, ords)) in &d.ops {
        let role = if queries.contains(&(route.clone(), method.clone())) && key_in == "none" {
            "query".to_string()
        } else {
            role.clone()
        };
        let e = ops
            .entry((route.clone(), method.clone(), role, key_in.clone()))
            .or_default();
        e.0.extend(st.iter().copied());
        e.1.extend(ords.iter().copied());
    }
    let operations = ops
        .iter()
        .map(
            |((route, method, role, key_in), (statuses, ords))| Operation {
                method: method.clone(),
                route: route.clone(),
                role: role.clone(),
                key_in: key_in.clone(),
                statuses: statuses.iter().copied().collect(),
                ordinals: sorted(ords.clone()),
            },
        )
        .collect();
    Resource {
        name,
        addressing: addressing.into(),
        collection,
        item,
        segment,
        keys,
        item_envelope: top(&d.item_envelope),
        list_envelope: top(&d.list_envelope),
        operations,
        inferred_operations: Vec::new(),
        supported_by: sorted(d.supported),
        checked_against: sorted(d.checked),
        contradicted_by: sorted(d.contradicted),
    }
}

/// Sibling collections (same parent template, same id spelling and item
/// envelope) share item routes: a method one shows on its item route is
/// offered on the others. The recording contradicts it when the sibling
/// answered that method with 404 or 405.
/// True when a resource's item envelope is its own singular name
/// (`/issue` for `/issues`, `/time_entry` for `/time_entries`): siblings
/// wrapped so are wrapped the same way, each in its own name.
fn named_envelope(r: &Resource) -> bool {
    let last = r.collection.rsplit('/').next().unwrap_or_default();
    r.item_envelope.as_deref() == Some(format!("/{}", super::routes::param_base(last)).as_str())
}

fn lend_sibling_routes(resources: &mut [Resource]) {
    let parent_of = |r: &Resource| {
        r.collection
            .rsplit_once('/')
            .map(|(p, _)| p.to_string())
            .unwrap_or_default()
    };
    let snapshot: Vec<Resource> = resources.to_vec();
    for r in resources.iter_mut().filter(|r| r.addressing == "path") {
        let Some(item) = r.item.clone() else { continue };
        let have: BTreeSet<String> = r
            .operations
            .iter()
            .filter(|o| o.route == item)
            .map(|o| o.method.clone())
            .collect();
        let refused: BTreeSet<String> = r
            .operations
            .iter()
            .filter(|o| o.route == item && o.statuses.contains(&405))
            .map(|o| o.method.clone())
            .collect();
        for s in &snapshot {
            if s.collection == r.collection
                || s.addressing != "path"
                || parent_of(s) != parent_of(r)
                || s.segment != r.segment
                || (s.item_envelope.is_some()
                    && r.item_envelope.is_some()
                    && s.item_envelope != r.item_envelope
                    && !(named_envelope(s) && named_envelope(r)))
            {
                continue;
            }
            let Some(sitem) = &s.item else { continue };
            for o in s.operations.iter().filter(|o| &o.route == sitem) {
                if have.contains(&o.method)
                    || refused.contains(&o.method)
                    || !o.statuses.iter().any(|st| (200..300).contains(st))
                    || r.inferred_operations.iter().any(|i| i.method == o.method)
                {
                    continue;
                }
                r.inferred_operations.push(InferredOperation {
                    method: o.method.clone(),
                    route: item.clone(),
                    role: o.role.clone(),
                    from: s.collection.clone(),
                    supported_by: o.ordinals.clone(),
                });
            }
        }
        // A nested collection reads its items the way its parent resource does.
        if !have.contains("GET") && !r.inferred_operations.iter().any(|i| i.method == "GET") {
            let ancestor = snapshot.iter().find(|s| {
                s.item
                    .as_ref()
                    .is_some_and(|i| r.collection.starts_with(&format!("{i}/")))
            });
            if let Some(s) = ancestor {
                let sitem = s.item.clone().unwrap_or_default();
                if let Some(o) = s
                    .operations
                    .iter()
                    .find(|o| o.route == sitem && o.method == "GET" && o.role == "read")
                {
                    r.inferred_operations.push(InferredOperation {
                        method: "GET".into(),
                        route: item.clone(),
                        role: "read".into(),
                        from: s.collection.clone(),
                        supported_by: o.ordinals.clone(),
                    });
                }
            }
        }
        r.inferred_operations
            .sort_by(|a, b| a.method.cmp(&b.method).then(a.from.cmp(&b.from)));
    }
}
