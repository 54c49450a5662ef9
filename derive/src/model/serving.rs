//! Answering calls from the app model: a small World of the model's
//! resources (their entities as the recording first showed them) and one
//! `answer` that routes a call to a resource by the model's templates and
//! keys and applies the inferred semantics — RPC reads by a query key, RPC
//! actions with their effects, creates with server-filled members, item
//! updates by merge / merge-patch / replace, upserts, soft and hard
//! deletes, unique-member conflicts, the app's absence answer with the id
//! substituted, and POST reads replayed for the same body. It answers only
//! what the model confirmed and returns `None` otherwise, so the caller falls
//! back to the spec's plans.

use super::exchange::{entity_of, join, scalar_text, Exchange};
use super::relations::singular;
use super::resources::Resource;
use super::routes::Templates;
use super::snapshots::{entity_at, target_of};
use super::writes::{slug, WriteSemantics};
use super::Model;
use rea_engine::codec::member_at;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

use super::snapshots::EntityKey;

mod held;
mod patch_nulls;
mod patch_routes;
mod tables;
pub use held::{Held, ViewChange};
pub use patch_routes::PatchRoutes;

/// An answer the model gives.
#[derive(Debug, Clone, PartialEq)]
pub struct Served {
    pub status: u16,
    pub content_type: String,
    /// `None`: an empty body.
    pub body: Option<Value>,
    /// True when the World changed.
    pub applied: bool,
    /// Which inference answered (for logs and counts).
    pub basis: &'static str,
    /// True when a convention the recording never confirmed for this call
    /// answered (a route lent by a sibling, a sibling's not-found answer,
    /// an unseen verb, an upsert, a number within a key): counted apart.
    pub convention: bool,
}

impl Served {
    /// The same answer, marked as a convention's when `yes`.
    fn by_convention(mut self, yes: bool) -> Served {
        self.convention |= yes;
        self
    }
}

/// The model's mutable state.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelWorld {
    entities: BTreeMap<EntityKey, Map<String, Value>>,
    /// Entities a call through the model created or changed: the model
    /// answers their item reads from now on.
    dirty: BTreeSet<EntityKey>,
    /// Entities a call through the model removed.
    gone: BTreeSet<EntityKey>,
    /// The singleton documents, by path.
    documents: BTreeMap<String, Map<String, Value>>,
    /// The bodies of the 2xx writes answered through the model, in order
    /// (what log reads answer from).
    logged: Vec<Map<String, Value>>,
    /// The last id each inferred sequence issued (by sequence index).
    counters: BTreeMap<usize, u64>,
    /// The document store's documents (`model.document_store`).
    docs: super::docstore::serve::DocWorld,
    /// The path-keyed tree's entities (`model.tree_store`).
    tree: super::tree::serve::TreeWorld,
}

/// Where a call lands.
struct Resolved<'a> {
    index: usize,
    resource: &'a Resource,
    scope: String,
    id: Option<String>,
    route: String,
    role: String,
    /// The query or body member that carries the id (RPC).
    key_member: Option<String>,
    known_route: bool,
}

/// The immutable part: the model and what it serves from.
pub struct ServingModel {
    pub model: Model,
    templates: Templates,
    initial: BTreeMap<EntityKey, Map<String, Value>>,
    /// Recorded POST-read answers by (route, canonical body).
    queries: BTreeMap<(String, String), (u16, Option<Value>)>,
    /// The first 2xx answer of each write route, by (method, route).
    examples: BTreeMap<(String, String), Value>,
    /// The request body of each of those examples.
    example_requests: BTreeMap<(String, String), Value>,
    /// The members a recorded 2xx write's body sent to a resource (at the
    /// top of the body or one member down, inside an envelope), by
    /// resource index: the client's members, which a replace does not keep.
    client_sent: BTreeMap<usize, BTreeSet<String>>,
    /// The first 2xx answer of each delete route to a call that sent a
    /// query (a forced delete's answer may differ from the soft one's).
    queried_deletes: BTreeMap<String, Value>,
    /// The first 2xx item read answer of each resource (its envelope).
    reads: BTreeMap<usize, Value>,
    /// The recorded answer of each refusal, by ordinal.
    refusals: BTreeMap<u64, (u16, Option<Value>)>,
    /// Singleton documents updated by writes to their own path.
    documents: Vec<super::documents::Document>,
    /// Reads answering the items earlier writes logged for an owner.
    logs: Vec<super::logs::LogRead>,
    content_type: String,
    /// The query pairs of every recorded 2xx write, by (method, route).
    write_queries: BTreeMap<(String, String), Vec<Pairs>>,
    /// Every member the recorded item and list reads of a resource showed
    /// (its read shape), by resource index.
    read_members: BTreeMap<usize, BTreeSet<String>>,
    /// The members the recorded reads of a resource showed inside its
    /// object members (`content` → `rendered`), by resource index: an
    /// object of the member names, nested.
    read_nested: BTreeMap<usize, Map<String, Value>>,
    /// Refused records whose answer quotes no sent value other than keys'
    /// (query values and body texts): answers about a key alone.
    about_keys: BTreeSet<u64>,
    /// Write routes (method, route) whose every recorded 2xx call, replayed
    /// in order through the model, got the recorded status: the model's
    /// semantics there are confirmed even where the spec's plan is not.
    replayed_writes: BTreeSet<(String, String)>,
    /// The ids each update route's recorded answers drew (revisions).
    draws: BTreeMap<(String, String), super::revisions::Draw>,
    /// Texts the server renders from sent texts (`content.rendered`).
    renderings: Vec<super::renderings::Rendering>,
    /// Per resource, the query parameter its recorded 2xx reads used as a
    /// field selection: its value a comma list of member names, and every
    /// entity answered has exactly those members.
    selections: BTreeMap<usize, String>,
    /// Per resource whose recorded 2xx item reads all carried an `ETag`:
    /// whether it was weak (`W/"…"`).
    etagged: BTreeMap<usize, bool>,
    /// The document store's World at the recording's start.
    docs_initial: super::docstore::serve::DocWorld,
    /// The tree's World at the recording's start.
    tree_initial: super::tree::serve::TreeWorld,
    /// Writes sent as `POST` to a verb tail (`…/{id}/-/update`).
    verbs: verb_writes::VerbWrites,
    /// Members write answers carry beyond the read shape (`write_shape`).
    write_shapes: super::write_shape::WriteShapes,
    /// Text members whose form a status decides (`status_forms`).
    status_forms: Vec<super::status_forms::StatusForm>,
}

mod verb_writes;

/// Decoded query pairs, in order.
type Pairs = Vec<(String, String)>;

/// One recorded call replayed through the model.
struct Replayed {
    ordinal: u64,
    // Read by `replay_check` (the tests' diagnostic); serving reads `status`.
    #[cfg_attr(not(test), allow(dead_code))]
    basis: &'static str,
    /// Status and body equal the recording's.
    #[cfg_attr(not(test), allow(dead_code))]
    exact: bool,
    /// The status equals the recording's.
    status: bool,
}

impl ServingModel {
    /// Builds the serving model from the same records the model read, and
    /// the route templating the model inferred them with.
    fn new(
        model: Model,
        exchanges: &[Exchange],
        content_type: String,
        mut templates: Templates,
    ) -> ServingModel {
        for r in model.resources.iter().filter(|r| r.addressing == "path") {
            if let Some(shape) = &r.segment {
                templates.add_position(&r.collection, shape);
            }
        }
        let mut initial = BTreeMap::new();
        let mut created: BTreeSet<EntityKey> = BTreeSet::new();
        let mut queries = BTreeMap::new();
        let mut examples = BTreeMap::new();
        let mut refusals = BTreeMap::new();
        let mut reads = BTreeMap::new();
        let mut example_requests = BTreeMap::new();
        let mut client_sent: BTreeMap<usize, BTreeSet<String>> = BTreeMap::new();
        let mut queried_deletes: BTreeMap<String, Value> = BTreeMap::new();
        let mut write_queries: BTreeMap<(String, String), Vec<Pairs>> = BTreeMap::new();
        let mut shapes: BTreeMap<usize, BTreeSet<String>> = BTreeMap::new();
        let mut about_keys: BTreeSet<u64> = BTreeSet::new();
        let mut read_nested: BTreeMap<usize, Map<String, Value>> = BTreeMap::new();
        let mut selections: BTreeMap<usize, String> = BTreeMap::new();
        let mut etag_reads: BTreeMap<usize, Option<bool>> = BTreeMap::new();
        let documents = super::documents::infer(exchanges, &|x| {
            target_of(x, &model.resources, &templates).is_some()
        });
        let logs = super::logs::infer(exchanges, &|x| {
            target_of(x, &model.resources, &templates).is_some()
        });
        for x in exchanges {
            let Some(t) = target_of(x, &model.resources, &templates) else {
                continue;
            };
            let r = &model.resources[t.resource];
            if !x.is_2xx() {
                refusals.insert(x.ordinal, (x.status, x.answer.clone()));
                let is_key = |n: &str| {
                    model
                        .resources
                        .iter()
                        .any(|r| r.keys.iter().any(|k| k.name == n))
                };
                // The answer quotes no sent value but keys' (a missing tag
                // named in the message is about the tag, not the run).
                let text = x.answer.as_ref().map(Value::to_string).unwrap_or_default();
                let mut sent: Vec<String> = x
                    .query
                    .iter()
                    .filter(|(k, _)| !is_key(k))
                    .map(|(_, v)| v.clone())
                    .collect();
                if let Some(Value::Object(b)) = &x.body {
                    sent.extend(
                        b.iter()
                            .filter(|(k, _)| !is_key(k))
                            .filter_map(|(_, v)| v.as_str().map(str::to_string)),
                    );
                }
                if !sent
                    .iter()
                    .any(|v| v.len() >= 3 && text.contains(v.as_str()))
                {
                    about_keys.insert(x.ordinal);
                }
                continue;
            }
            if t.role == "query" {
                let body = x.body.as_ref().map(Value::to_string).unwrap_or_default();
                queries
                    .entry((t.route.clone(), body))
                    .or_insert((x.status, x.answer.clone()));
            }
            if !x.is_read() && t.role != "query" {
                if let Some(Value::Object(body)) = &x.body {
                    let sent = client_sent.entry(t.resource).or_default();
                    for (k, v) in body {
                        sent.insert(k.clone());
                        if let Value::Object(inner) = v {
                            sent.extend(inner.keys().cloned());
                        }
                    }
                }
                write_queries
                    .entry((x.method.clone(), t.route.clone()))
                    .or_default()
                    .push(x.query.clone());
                if let (Some(a), "DELETE", false) =
                    (&x.answer, x.method.as_str(), x.query.is_empty())
                {
                    queried_deletes
                        .entry(t.route.clone())
                        .or_insert_with(|| a.clone());
                }
                if let Some(a) = &x.answer {
                    let k = (x.method.clone(), t.route.clone());
                    if !examples.contains_key(&k) {
                        examples.insert(k.clone(), a.clone());
                        if let Some(b) = &x.body {
                            example_requests.insert(k, b.clone());
                        }
                    }
                }
                // Entities a write of the recording made are not initial.
                if let Some(e) = x.answer.as_ref().and_then(|a| entity_at(a, r)) {
                    if let Some(id) = key_of(&e, r).or(t.id.clone()) {
                        if !initial.contains_key(&(t.resource, t.scope.clone(), id.clone())) {
                            created.insert((t.resource, t.scope.clone(), id));
                        }
                    }
                }
                continue;
            }
            if t.role == "read" && x.method == "GET" {
                match x.response_header("etag") {
                    Some(v) => {
                        etag_reads
                            .entry(t.resource)
                            .or_insert(Some(v.starts_with("W/")));
                    }
                    None => {
                        etag_reads.insert(t.resource, None);
                    }
                }
            }
            let Some(answer) = &x.answer else { continue };
            if t.role == "read" {
                reads.entry(t.resource).or_insert_with(|| answer.clone());
            }
            let mut found: Vec<&Map<String, Value>> = Vec::new();
            match t.role.as_str() {
                "list" | "query" => {
                    if let Some((_, items)) = super::exchange::list_of(answer) {
                        found.extend(items.iter().filter_map(Value::as_object));
                    }
                }
                _ => found.extend(super::snapshots::entity_ref(answer, r)),
            }
            // A field selection: a query value naming exactly the members
            // of every answered entity.
            for (k, v) in &x.query {
                let names: BTreeSet<&str> = v.split(',').map(str::trim).collect();
                if names.len() >= 2
                    && !found.is_empty()
                    && found
                        .iter()
                        .all(|e| e.keys().map(String::as_str).collect::<BTreeSet<_>>() == names)
                {
                    selections.entry(t.resource).or_insert_with(|| k.clone());
                }
            }
            {
                // An item read with a query may show another representation
                // (`context=edit`, `_embed`): not the read shape.
                let plain = t.role != "read" || x.query.is_empty();
                for e in found.iter().filter(|_| plain) {
                    let names = shapes.entry(t.resource).or_default();
                    for k in e.keys() {
                        if !names.contains(k) {
                            names.insert(k.clone());
                        }
                    }
                    merge_shape(read_nested.entry(t.resource).or_default(), e);
                }
            }
            for e in found {
                let Some(id) = key_of(e, r).or(t.id.clone()) else {
                    continue;
                };
                let key = (t.resource, t.scope.clone(), id);
                if !created.contains(&key) {
                    initial.entry(key).or_insert_with(|| e.clone());
                }
            }
        }
        // A child collection created only through a nested route (`POST
        // /posts/3/comments`, `model::relations`): that create, lent the
        // sibling create's semantics, is the child's own (`POST /comments`).
        let mut model = model;
        let lent = super::relations::nested_creates(&model, exchanges);
        for (w, answer, request) in lent {
            let key = (w.method.clone(), w.route.clone());
            examples.entry(key.clone()).or_insert(answer);
            example_requests.entry(key).or_insert(request);
            model.writes.push(w);
        }
        let mut read_members: BTreeMap<usize, BTreeSet<String>> = BTreeMap::new();
        for (ri, set) in shapes {
            read_members.entry(ri).or_default().extend(set);
        }
        let docs_initial = model
            .document_store
            .as_ref()
            .map(|d| d.initial_world(exchanges))
            .unwrap_or_default();
        let tree_initial = model
            .tree_store
            .as_ref()
            .map(|t| t.initial_world(exchanges))
            .unwrap_or_default();
        let mut serving = ServingModel {
            docs_initial,
            tree_initial,
            model,
            templates,
            initial,
            queries,
            examples,
            example_requests,
            client_sent,
            queried_deletes,
            reads,
            refusals,
            documents,
            logs,
            content_type,
            write_queries,
            read_members,
            read_nested,
            about_keys,
            replayed_writes: BTreeSet::new(),
            draws: BTreeMap::new(),
            renderings: super::renderings::infer(exchanges),
            selections,
            etagged: etag_reads
                .into_iter()
                .filter_map(|(i, w)| Some((i, w?)))
                .collect(),
            verbs: verb_writes::VerbWrites::default(),
            write_shapes: Default::default(),
            status_forms: Vec::new(),
        };
        serving.draws =
            super::revisions::infer(exchanges, &serving.model.resources, &serving.templates);
        serving.write_shapes = super::write_shape::infer(
            exchanges,
            &serving.model.resources,
            &serving.templates,
            &serving.read_nested,
        );
        // The lender is the sibling each borrowed write route comes from (one choice).
        let writes = &serving.model.writes;
        (serving.write_shapes).relend(&mut serving.model.resources, writes);
        serving.status_forms = super::status_forms::infer(
            &serving.model.writes,
            &serving.model.resources,
            &serving.initial,
        );
        serving.verbs = verb_writes::infer(&serving, exchanges);
        serving.replayed_writes = serving.confirmed_write_routes(exchanges);
        serving
    }

    /// The write routes the model's own replay of the recording confirms:
    /// every recorded 2xx write of the route was answered by the model with
    /// the recorded status, and no write of the route fell back.
    fn confirmed_write_routes(&self, exchanges: &[Exchange]) -> BTreeSet<(String, String)> {
        let replayed: BTreeMap<u64, bool> = self
            .replay(exchanges)
            .into_iter()
            .map(|r| (r.ordinal, r.status))
            .collect();
        let mut verdict: BTreeMap<(String, String), bool> = BTreeMap::new();
        for x in exchanges.iter().filter(|x| !x.is_read() && x.is_2xx()) {
            let Some(r) = self.resolve(&x.method, &x.path(), None, None) else {
                continue;
            };
            if r.resource.addressing != "path" {
                continue;
            }
            let ok = replayed.get(&x.ordinal).copied().unwrap_or(false);
            *verdict.entry((x.method.clone(), r.route)).or_insert(true) &= ok;
        }
        verdict
            .into_iter()
            .filter(|(_, ok)| *ok)
            .map(|(k, _)| k)
            .collect()
    }

    /// The model document's write representation and status forms sections.
    pub(crate) fn write_sections(
        &self,
        exchanges: &[Exchange],
    ) -> (
        Vec<super::write_shape::WriteRepresentation>,
        Vec<super::status_forms::StatusFormDoc>,
    ) {
        let rs = &self.model.resources;
        let forms = &self.status_forms;
        let doc = super::status_forms::document(forms, rs, exchanges, &self.templates);
        (self.write_shapes.document(rs), doc)
    }

    /// The two-form members (`status_forms`).
    #[cfg(test)]
    pub(crate) fn status_forms(&self) -> &[super::status_forms::StatusForm] {
        &self.status_forms
    }

    /// The write representation of each resource (`write_shape`).
    #[cfg(test)]
    pub(crate) fn write_shapes(&self) -> &super::write_shape::WriteShapes {
        &self.write_shapes
    }

    /// True when the model's replay of the recording confirms its write
    /// semantics on the route `path` falls on (see `confirmed_write_routes`).
    /// A route with no write of its own that a sibling lends its write to
    /// (`lent_write`) is confirmed as that write's own route is: a lent
    /// write means what it means where it was recorded.
    pub fn confirms_write(&self, method: &str, path: &str) -> bool {
        self.write_answering(method, path).is_some_and(|w| {
            self.replayed_writes
                .contains(&(method.to_string(), w.route.clone()))
        })
    }

    /// The write that answers `method` at `path`: the route's own, else
    /// the one a sibling lends it.
    fn write_answering(&self, method: &str, path: &str) -> Option<&WriteSemantics> {
        let r = self.resolve(method, path, None, None)?;
        self.write_of(method, &r.route)
            .or_else(|| self.lent_write(method, &r))
    }

    /// True when a `PATCH` at `path` is an RFC 7396 merge patch by the
    /// model's evidence: the route's inferred update semantics list
    /// `merge-patch` among the hypotheses every recorded write of it fits
    /// (none contradicts it), and the model's replay of the route's writes
    /// got every recorded status (`confirms_write`).
    pub fn merges_patch(&self, path: &str) -> bool {
        self.write_answering("PATCH", path).is_some_and(|w| {
            w.role == "update"
                && patch_merges(w)
                && self
                    .replayed_writes
                    .contains(&("PATCH".to_string(), w.route.clone()))
        })
    }

    /// Replays the recording, in order, from the initial World through
    /// `answer` (the model's own ids; clocks at 0).
    fn replay(&self, exchanges: &[Exchange]) -> Vec<Replayed> {
        let mut world = self.initial_world();
        let mut n = 0u64;
        let mut uuid = || {
            n += 1;
            format!("00000000-0000-4000-8000-{n:012}")
        };
        let mut out = Vec::new();
        for x in exchanges {
            let query: Option<String> = (!x.query.is_empty()).then(|| {
                url::form_urlencoded::Serializer::new(String::new())
                    .extend_pairs(x.query.iter())
                    .finish()
            });
            let path = x.path();
            // A 2xx write to an item the recording never showed before: the
            // item existed (its answer shows it), so it is laid in first; the
            // replay checks the semantics, not what the capture saw.
            if !x.is_read() && x.is_2xx() {
                if let Some(r) = self.resolve(&x.method, &path, Some(&x.query), x.body.as_ref()) {
                    if let (Some(id), "path", "update" | "delete") = (
                        r.id.clone(),
                        r.resource.addressing.as_str(),
                        r.role.as_str(),
                    ) {
                        let key = (r.index, r.scope.clone(), id);
                        let known = world.entities.contains_key(&key) || world.gone.contains(&key);
                        if let (false, Some(e)) = (
                            known,
                            x.answer.as_ref().and_then(|a| entity_at(a, r.resource)),
                        ) {
                            world.entities.insert(key, e);
                        }
                    }
                }
            }
            if let Some(a) = self.answer(
                &mut world,
                &x.method,
                &path,
                query.as_deref(),
                x.body.as_ref(),
                0,
                &mut uuid,
            ) {
                out.push(Replayed {
                    ordinal: x.ordinal,
                    basis: a.basis,
                    exact: a.status == x.status && a.body == x.answer,
                    status: a.status == x.status,
                });
            }
        }
        out
    }

    /// The World the recording starts from.
    pub fn initial_world(&self) -> ModelWorld {
        ModelWorld {
            docs: self.docs_initial.clone(),
            tree: self.tree_initial.clone(),
            entities: self.initial.clone(),
            documents: self
                .documents
                .iter()
                .map(|d| (d.path.clone(), d.initial.clone()))
                .collect(),
            counters: self
                .model
                .sequences
                .iter()
                .enumerate()
                .map(|(i, s)| (i, s.starts_after))
                .collect(),
            ..ModelWorld::default()
        }
    }

    /// What a World holds beyond the recording's start, in the data plane's
    /// spirit (`data/get`): the entities calls through the model created or
    /// changed, those it removed, the singleton documents and the id
    /// counters. `None` when nothing changed.
    pub fn export(&self, world: &ModelWorld) -> Option<Value> {
        let initial = self.initial_world();
        if *world == initial {
            return None;
        }
        let name = |i: usize| self.model.resources.get(i).map(|r| r.collection.clone());
        let entities: Vec<Value> = world
            .dirty
            .iter()
            .filter(|k| !world.gone.contains(*k))
            .filter_map(|k| {
                Some(serde_json::json!({
                    "collection": name(k.0)?, "scope": k.1, "id": k.2,
                    "entity": world.entities.get(k)?,
                }))
            })
            .collect();
        let removed: Vec<Value> = world
            .gone
            .iter()
            .filter_map(|k| {
                Some(serde_json::json!({"collection": name(k.0)?, "scope": k.1, "id": k.2}))
            })
            .collect();
        let documents: Map<String, Value> = world
            .documents
            .iter()
            .filter(|(p, d)| initial.documents.get(*p) != Some(*d))
            .map(|(p, d)| (p.clone(), Value::Object(d.clone())))
            .collect();
        let counters: Map<String, Value> = world
            .counters
            .iter()
            .map(|(i, n)| (i.to_string(), Value::from(*n)))
            .collect();
        let mut out = serde_json::json!({
            "entities": entities, "removed": removed,
            "documents": documents, "counters": counters,
        });
        if let Some(d) = &self.model.document_store {
            if let Some(changes) = d.export_changes(&self.docs_initial, &world.docs) {
                out["document_store"] = changes;
            }
        }
        Some(out)
    }

    /// A World from `export`'s shape (the recording's start plus what it
    /// lists); `Err` names what does not fit.
    pub fn import(&self, value: &Value) -> Result<ModelWorld, String> {
        let mut world = self.initial_world();
        let index = |c: &Value| {
            let c = c.as_str()?;
            self.model.resources.iter().position(|r| r.collection == c)
        };
        let key_of_row = |row: &Value| -> Result<EntityKey, String> {
            let i = index(&row["collection"])
                .ok_or_else(|| format!("app_model: unknown collection {}", row["collection"]))?;
            let scope = row["scope"].as_str().unwrap_or_default().to_string();
            let id = row["id"]
                .as_str()
                .ok_or_else(|| "app_model: a row without a string `id`".to_string())?;
            Ok((i, scope, id.to_string()))
        };
        for row in value["entities"].as_array().into_iter().flatten() {
            let key = key_of_row(row)?;
            let entity = row["entity"]
                .as_object()
                .ok_or_else(|| format!("app_model: entity {} is not an object", key.2))?;
            world.entities.insert(key.clone(), entity.clone());
            world.dirty.insert(key);
        }
        for row in value["removed"].as_array().into_iter().flatten() {
            let key = key_of_row(row)?;
            world.dirty.insert(key.clone());
            world.gone.insert(key);
        }
        for (p, d) in value["documents"].as_object().into_iter().flatten() {
            let d = d
                .as_object()
                .ok_or_else(|| format!("app_model: document {p} is not an object"))?;
            world.documents.insert(p.clone(), d.clone());
        }
        for (i, n) in value["counters"].as_object().into_iter().flatten() {
            if let (Ok(i), Some(n)) = (i.parse::<usize>(), n.as_u64()) {
                world.counters.insert(i, n);
            }
        }
        if let (Some(d), Some(changes)) = (&self.model.document_store, value.get("document_store"))
        {
            world.docs = d.import_changes(&self.docs_initial, changes)?;
        }
        Ok(world)
    }

    /// The MCP arguments of the document store's row list or search at
    /// `path` (`docstore::arguments`): name → JSON Schema, and whether they
    /// are members of the body.
    pub fn docstore_arguments(
        &self,
        method: &str,
        path: &str,
    ) -> Option<(serde_json::Map<String, Value>, bool)> {
        crate::model::docstore::arguments::of(self.model.document_store.as_ref()?, method, path)
    }

    /// True when the model owns the route outright (RPC resources): it is
    /// asked first; otherwise only when the spec's plans cannot answer or
    /// the entity was changed through the model.
    pub fn owns(&self, method: &str, path: &str) -> bool {
        if let Some(d) = &self.model.document_store {
            if d.owns(method, path) {
                return true;
            }
        }
        if self.document(path).is_some() || super::tree::hook::owns(&self.model, path) {
            return true;
        }
        if self.claims_verb(method, path) {
            return true;
        }
        // Resolving costs a percent-decode and joins per segment: skip it
        // for the (common) model that addresses no resource by RPC.
        self.model.resources.iter().any(|r| r.addressing == "rpc")
            && self
                .resolve(method, path, None, None)
                .is_some_and(|r| r.resource.addressing == "rpc")
    }

    /// The app's refusal of a write that sent a member of the wrong type
    /// (`model::member_types`), when the recording showed one that fits.
    pub fn type_refusal(&self, method: &str, path: &str, body: Option<&Value>) -> Option<Served> {
        if self.model.member_types.is_empty() {
            return None;
        }
        let segments = self.segments(path);
        let route = join(&self.templates.template_of(&segments));
        let (status, answer, lent) =
            super::member_types::refusal(&self.model.member_types, method, &route, body?)?;
        Some(
            self.json(status, answer, false, "invalid-type")
                .by_convention(lent),
        )
    }

    /// The app's own absence answer for the item a path names.
    pub fn absent(&self, method: &str, path: &str) -> Option<Served> {
        let r = self.resolve(method, path, None, None)?;
        let id = r.id.clone()?;
        self.absence(&r, &id)
    }

    /// The app's answer to a write on `path` whose precondition `header`
    /// (`if-match`) names a stale validator, when the recording showed the
    /// stale answer on this route (`conditions.preconditions`, uncontradicted).
    /// `current` is the item's read answer as it is now: an entity the
    /// recorded answer quotes (the object holding the item's key member) is
    /// replaced by the current one.
    pub fn stale_precondition(
        &self,
        method: &str,
        path: &str,
        header: &str,
        current: Option<&Value>,
    ) -> Option<Served> {
        let r = self.resolve(method, path, None, None)?;
        let id = r.id.clone()?;
        let p = self.model.conditions.preconditions.iter().find(|p| {
            p.method == method
                && p.route == r.route
                && p.header == header
                && p.contradicted_by.is_empty()
                && !p.stale.is_empty()
        })?;
        let (status, answer) = self.refusals.get(&p.stale_answer_ordinal?)?;
        let Some(mut body) = answer.clone() else {
            return Some(Served {
                status: *status,
                content_type: self.content_type.clone(),
                body: None,
                applied: false,
                basis: "precondition",
                convention: false,
            });
        };
        if let Some((member, entity)) = current.and_then(|c| entity_keyed(c, &id)) {
            // Only a quoted entity: never the answer's own top level.
            match &mut body {
                Value::Object(m) => {
                    m.values_mut().any(|x| replace_keyed(x, &member, entity));
                }
                Value::Array(a) => {
                    a.iter_mut().any(|x| replace_keyed(x, &member, entity));
                }
                _ => {}
            }
        }
        Some(self.json(*status, body, false, "precondition"))
    }

    /// For an item read the model answers: whether the app's reads of the
    /// resource carry an `ETag` (and a weak one), as every recorded 2xx
    /// item read did. `None` when they did not.
    pub fn read_etag(&self, method: &str, path: &str) -> Option<bool> {
        if method != "GET" || self.etagged.is_empty() {
            return None;
        }
        let r = self.resolve(method, path, None, None)?;
        (r.role == "read").then(|| self.etagged.get(&r.index).copied())?
    }

    /// True when the path falls on one of the model's resources.
    pub fn resolves(&self, method: &str, path: &str) -> bool {
        self.resolve(method, path, None, None).is_some()
    }

    /// The entities a list or search call of an RPC resource reads, as the
    /// World holds them now (in key order), or `None` for other calls.
    /// The list semantics narrow them (`rea_engine::lists::serve::answer_over`).
    pub fn list_items(&self, world: &ModelWorld, method: &str, path: &str) -> Option<Vec<Value>> {
        // Asked on every HTTP request: no resolving when no resource is RPC.
        if !self.model.resources.iter().any(|r| r.addressing == "rpc") {
            return None;
        }
        let r = self.resolve(method, path, None, None)?;
        if r.resource.addressing != "rpc" || !matches!(r.role.as_str(), "list" | "query") {
            return None;
        }
        Some(
            world
                .entities
                .iter()
                .filter(|(k, _)| k.0 == r.index && !world.gone.contains(*k))
                .map(|(_, e)| Value::Object(e.clone()))
                .collect(),
        )
    }

    /// For a list read of a path resource: the entities of the listed
    /// collection calls through the model changed or created (as they are
    /// now) and the ids of those it removed; `None` for other calls or when
    /// the model changed none there. The list semantics lay them over the
    /// engine's list (`rea_engine::lists::serve::answer_over`).
    pub fn list_changes(
        &self,
        world: &ModelWorld,
        method: &str,
        path: &str,
    ) -> Option<(Vec<Value>, Vec<String>)> {
        // Asked on every HTTP request: nothing changed through the model yet.
        if world.dirty.is_empty() {
            return None;
        }
        let r = self.resolve(method, path, None, None)?;
        if r.resource.addressing != "path" || r.role != "list" {
            return None;
        }
        let (mut changed, mut removed) = (Vec::new(), Vec::new());
        for k in world
            .dirty
            .iter()
            .filter(|k| k.0 == r.index && k.1 == r.scope)
        {
            if world.gone.contains(k) {
                removed.push(k.2.clone());
            } else if let Some(e) = world.entities.get(k) {
                changed.push(Value::Object(self.read_shaped(r.index, e.clone())));
            }
        }
        (!changed.is_empty() || !removed.is_empty()).then_some((changed, removed))
    }

    /// True when an item read of this path concerns an entity the model
    /// changed or removed.
    pub fn holds(&self, world: &ModelWorld, method: &str, path: &str) -> bool {
        // Nothing written through the model yet: nothing to resolve.
        if world.dirty.is_empty() && world.gone.is_empty() {
            return false;
        }
        let Some(r) = self.resolve(method, path, None, None) else {
            return false;
        };
        let Some(id) = r.id else { return false };
        let key = (r.index, r.scope, id);
        world.dirty.contains(&key) || world.gone.contains(&key)
    }

    /// A path's decoded segments, the format suffix (`.json`) stripped.
    fn segments(&self, path: &str) -> Vec<String> {
        let mut segments: Vec<String> = path
            .split('/')
            .filter(|s| !s.is_empty())
            .map(crate::state::writes::input::percent_decode)
            .collect();
        if let Some(f) = &self.model.format_suffix {
            f.strip(&mut segments);
        }
        segments
    }

    fn resolve(
        &self,
        method: &str,
        path: &str,
        query: Option<&[(String, String)]>,
        body: Option<&Value>,
    ) -> Option<Resolved<'_>> {
        let segments = self.segments(path);
        let tpl = self.templates.template_of(&segments);
        let route = join(&tpl);
        let n = segments.len();
        for (index, r) in self.model.resources.iter().enumerate() {
            if r.addressing == "path" {
                let scope_parent = join(&segments[..n.saturating_sub(1)]);
                if r.item.as_deref() == Some(route.as_str()) && n > 0 {
                    let parent_t = join(&tpl[..n - 1]);
                    let id = self
                        .templates
                        .core(&parent_t, &segments[n - 1])
                        .map(str::to_string);
                    let role = match method {
                        "GET" | "HEAD" => "read",
                        "DELETE" => "delete",
                        _ => "update",
                    };
                    return Some(Resolved {
                        index,
                        resource: r,
                        scope: scope_parent,
                        id,
                        route,
                        role: role.into(),
                        key_member: None,
                        known_route: true,
                    });
                }
                if r.collection == route {
                    let role = if method == "POST" { "create" } else { "list" };
                    return Some(Resolved {
                        index,
                        resource: r,
                        scope: join(&segments),
                        id: None,
                        route,
                        role: role.into(),
                        key_member: None,
                        known_route: true,
                    });
                }
                continue;
            }
            if n == 0 || join(&tpl[..n - 1]) != r.collection {
                continue;
            }
            let ops: Vec<_> = r.operations.iter().filter(|o| o.route == route).collect();
            let op = ops
                .iter()
                .find(|o| o.method == method && (200..300).contains(&o.statuses[0]))
                .or_else(|| ops.iter().find(|o| o.method == method))
                .or(ops.first());
            let (role, key_in) = match op {
                Some(o) => (o.role.clone(), o.key_in.clone()),
                None => {
                    // A verb the recording never used: an action when its
                    // body names the resource's key.
                    let k = r.keys.iter().find(|k| {
                        k.location == "body" && body.and_then(|b| b.get(&k.name)).is_some()
                    });
                    match k {
                        Some(k) => ("action".to_string(), format!("body:{}", k.name)),
                        None => ("unknown".to_string(), "none".to_string()),
                    }
                }
            };
            let (id, key_member) = if let Some(q) = key_in.strip_prefix("query:") {
                (
                    query.and_then(|qs| qs.iter().find(|(k, _)| k == q).map(|(_, v)| v.clone())),
                    Some(q.to_string()),
                )
            } else if let Some(b) = key_in.strip_prefix("body:") {
                (
                    body.and_then(|v| v.get(b)).and_then(scalar_text),
                    Some(b.to_string()),
                )
            } else {
                (None, None)
            };
            return Some(Resolved {
                index,
                resource: r,
                scope: String::new(),
                id,
                route,
                role,
                key_member,
                known_route: op.is_some(),
            });
        }
        None
    }

    /// An entity as the resource's recorded reads show one: only members
    /// some read showed, nested too (a write's answer may show more).
    fn read_shaped(&self, index: usize, mut e: Map<String, Value>) -> Map<String, Value> {
        if let Some(shown) = self.read_members.get(&index) {
            e.retain(|k, _| shown.contains(k));
        }
        if let Some(shape) = self.read_nested.get(&index) {
            // What a draw adds reads show too (a read after a revision shows
            // `predecessor-version`), though no read of this resource did.
            let mut shape = shape.clone();
            for d in self.draws.values() {
                let mut at = &mut shape;
                for t in d.container.split('/').skip(1) {
                    let slot = at
                        .entry(t.to_string())
                        .or_insert_with(|| Value::Object(Map::new()));
                    let Value::Object(next) = slot else { break };
                    at = next;
                }
            }
            prune_to_shape(&mut e, &shape);
        }
        e
    }

    /// The query parameter a recorded read of the resource used as a field
    /// selection (`_fields`), when any.
    fn fields_param(&self, index: usize) -> Option<String> {
        self.selections.get(&index).cloned()
    }

    fn write_of(&self, method: &str, route: &str) -> Option<&WriteSemantics> {
        self.model
            .writes
            .iter()
            .find(|w| w.method == method && w.route == route)
    }

    fn document(&self, path: &str) -> Option<&super::documents::Document> {
        let mut p = super::documents::normalize(path);
        if let Some(f) = &self.model.format_suffix {
            p = f.strip_path(&p);
        }
        self.documents.iter().find(|d| d.path == p)
    }

    /// A singleton document: its read shows the current document, a write
    /// merges the sent members when the recording showed such a merge.
    fn answer_document(
        &self,
        world: &mut ModelWorld,
        d: &super::documents::Document,
        method: &str,
        query: Option<&str>,
        body: Option<&Value>,
    ) -> Option<Served> {
        if query.is_some_and(|q| !q.is_empty()) {
            return None;
        }
        let current = world.documents.get(&d.path)?;
        match method {
            "GET" => Some(self.json(
                d.read_status,
                Value::Object(current.clone()),
                false,
                "document-read",
            )),
            "POST" | "PUT" | "PATCH" => {
                let next = d.apply(current, body?)?;
                world.documents.insert(d.path.clone(), next.clone());
                Some(self.json(d.write_status, Value::Object(next), true, "document-write"))
            }
            _ => None,
        }
    }

    fn json(&self, status: u16, body: Value, applied: bool, basis: &'static str) -> Served {
        Served {
            status,
            content_type: self.content_type.clone(),
            body: Some(body),
            applied,
            basis,
            convention: false,
        }
    }

    /// The app's answer for a missing item, with the id substituted.
    fn absence(&self, r: &Resolved<'_>, id: &str) -> Option<Served> {
        let a = self
            .model
            .errors
            .absence
            .iter()
            .find(|a| a.collection == r.resource.collection)?;
        // The not-found answer of the read addressed by the same key, when
        // the recording shows one; else the resource's (or a sibling's).
        let by_key = r.key_member.as_ref().and_then(|m| {
            let read = r.resource.operations.iter().find(|o| {
                o.role == "read"
                    && (o.key_in == format!("query:{m}") || o.key_in == format!("body:{m}"))
            })?;
            let route = format!("{} {}", read.method, read.route);
            self.model
                .errors
                .shapes
                .iter()
                .find(|s| s.status == 404 && s.routes.contains(&route))
        });
        // Else a not-found answer (of any route) that quotes one of this
        // resource's keys (`No Experiment with id={body:experiment_id}`).
        let quoting = || {
            let names: Vec<&str> = r.resource.keys.iter().map(|k| k.name.as_str()).collect();
            // Only answers about the key alone (every placeholder is a key).
            self.model.errors.shapes.iter().find(|s| {
                s.status == 404
                    && s.supported_by.iter().any(|o| self.about_keys.contains(o))
                    && s.substitutions.iter().all(|sub| {
                        sub.source == "id"
                            || sub
                                .source
                                .split_once(':')
                                .is_some_and(|(_, n)| names.contains(&n))
                    })
                    && s.substitutions.iter().any(|sub| {
                        sub.source
                            .split_once(':')
                            .is_some_and(|(_, n)| names.contains(&n))
                            && r.key_member
                                .as_deref()
                                .is_none_or(|m| sub.source.ends_with(&format!(":{m}")))
                    })
            })
        };
        let shape = match by_key.or_else(quoting) {
            Some(s) => s,
            None => self
                .model
                .errors
                .shapes
                .iter()
                .find(|s| s.supported_by.contains(&a.template_ordinal))?,
        };
        let Some(mut body) = shape.template.clone() else {
            // The app answers its absence without a body (an empty 404).
            return (shape.body == "empty").then(|| {
                Served {
                    status: a.status,
                    content_type: self.content_type.clone(),
                    body: None,
                    applied: false,
                    basis: "absence",
                    convention: false,
                }
                .by_convention(a.basis == "by-analogy")
            });
        };
        fill(&mut body, id);
        if a.basis == "by-analogy" {
            // The sibling's answer names the sibling: name this resource.
            let from = singular(a.from_resource.rsplit('/').next().unwrap_or(""));
            let to = singular(&r.resource.name);
            if from.len() >= 3 && to.len() >= 3 {
                rename_word(&mut body, &from, &to);
                // Named as a title too (`No Task matches…`: a class name).
                rename_word(&mut body, &capitalized(&from), &capitalized(&to));
            }
        }
        Some(
            self.json(a.status, body, false, "absence")
                .by_convention(a.basis == "by-analogy"),
        )
    }

    /// Answers an engine call the model understands; `None` to fall back.
    pub fn answer_engine_call(
        &self,
        world: &mut ModelWorld,
        call: &rea_engine::Call,
        now_ms: i64,
        new_uuid: &mut dyn FnMut() -> String,
    ) -> Option<Served> {
        if let Some(d) = &self.model.document_store {
            if d.owns(&call.method, &call.path) {
                return d.served(&mut world.docs, call, now_ms, new_uuid);
            }
        }
        if let Some(s) = super::tree::hook::answer(&self.model, &mut world.tree, call, now_ms) {
            return Some(s);
        }
        if let Some(t) = &self.model.titled {
            let path = match &self.model.format_suffix {
                Some(f) => f.strip_path(&call.path),
                None => call.path.clone(),
            };
            if let Some(a) = t.answer(&call.method, &path, call.body.as_ref()) {
                let served = Served {
                    status: a.status,
                    content_type: self.content_type.clone(),
                    body: a.body,
                    applied: false,
                    basis: "titled",
                    convention: false,
                };
                return Some(served.by_convention(a.convention));
            }
        }
        let query = call
            .query
            .as_deref()
            .map(rea_engine::codec::query_pairs)
            .unwrap_or_default();
        if let Some((status, body, convention)) = super::rpc_refusals::answer(
            &self.model.rpc_refusals,
            &query,
            &call.method,
            &call.path,
            call.body.as_ref(),
        ) {
            return Some(
                self.json(status, body, false, "rpc-refusal")
                    .by_convention(convention),
            );
        }
        self.answer(
            world,
            &call.method,
            &call.path,
            call.query.as_deref(),
            call.body.as_ref(),
            now_ms,
            new_uuid,
        )
        .or_else(|| {
            let segments: Vec<String> = call
                .path
                .split('/')
                .filter(|s| !s.is_empty())
                .map(crate::state::writes::input::percent_decode)
                .collect();
            let path = super::exchange::join(&segments);
            if call.method != "GET" {
                return None;
            }
            self.model
                .rpc_lists
                .iter()
                .filter(|l| l.path == path)
                .find_map(|l| l.answer(&query))
                .map(|body| self.json(200, body, false, "rpc-list"))
                .or_else(|| {
                    super::rpc_absence::answer(&self.model.rpc_absences, &path, &query)
                        .map(|body| self.json(200, body, false, "rpc-absence"))
                })
        })
    }

    /// Answers a call the model understands; `None` to fall back.
    #[allow(clippy::too_many_arguments)]
    pub fn answer(
        &self,
        world: &mut ModelWorld,
        method: &str,
        path: &str,
        query: Option<&str>,
        body: Option<&Value>,
        now_ms: i64,
        new_uuid: &mut dyn FnMut() -> String,
    ) -> Option<Served> {
        let served = self.answer_call(world, method, path, query, body, now_ms, new_uuid);
        if let Some(s) = &served {
            if (200..300).contains(&s.status) && !matches!(method, "GET" | "HEAD") {
                // Only bodies some log read could answer from (its owner member).
                if let Some(b) = body
                    .and_then(Value::as_object)
                    .filter(|b| self.logs.iter().any(|l| b.contains_key(&l.owner_body)))
                {
                    world.logged.push(b.clone());
                }
            }
        }
        if served.is_none() && method == "GET" {
            return self.answer_log(world, path, query);
        }
        served
    }

    /// A log read: the items the writes through the model logged.
    fn answer_log(&self, world: &ModelWorld, path: &str, query: Option<&str>) -> Option<Served> {
        let mut p = super::documents::normalize(path);
        if let Some(f) = &self.model.format_suffix {
            p = f.strip_path(&p);
        }
        let log = self.logs.iter().find(|l| l.path == p)?;
        let pairs = rea_engine::codec::query_pairs(query?);
        let items = log.items(&world.logged, &pairs);
        if items.is_empty() {
            // An owner the World knows with nothing logged under the
            // filters: the app's empty result, without the list member.
            return self.empty_log(world, log, &pairs);
        }
        let mut m = Map::new();
        m.insert(log.member.clone(), Value::Array(items));
        Some(self.json(log.status, Value::Object(m), false, "log-read"))
    }

    /// The empty answer of a log read (`{}`) when the app omits empty list
    /// members (`empty_lists`) and the owner the query names is known: a
    /// logged write or an entity of the model's World names it.
    fn empty_log(
        &self,
        world: &ModelWorld,
        log: &super::logs::LogRead,
        pairs: &[(String, String)],
    ) -> Option<Served> {
        if !self.model.empty_lists.omitted() {
            return None;
        }
        let owner = pairs
            .iter()
            .find(|(k, _)| *k == log.owner_query)?
            .1
            .as_str();
        let logged = world
            .logged
            .iter()
            .any(|b| b.get(&log.owner_body).and_then(scalar_text).as_deref() == Some(owner));
        let held = || {
            world.entities.iter().any(|((ri, _, _), e)| {
                !world.gone.iter().any(|g| g.0 == *ri && g.2 == owner)
                    && self.model.resources.get(*ri).is_some_and(|r| {
                        r.keys.iter().any(|k| {
                            k.name == log.owner_query
                                && member_at(e, &k.entity_member)
                                    .and_then(scalar_text)
                                    .as_deref()
                                    == Some(owner)
                        })
                    })
            })
        };
        (logged || held())
            .then(|| self.json(log.status, Value::Object(Map::new()), false, "empty-result"))
    }

    #[allow(clippy::too_many_arguments)]
    fn answer_call(
        &self,
        world: &mut ModelWorld,
        method: &str,
        path: &str,
        query: Option<&str>,
        body: Option<&Value>,
        now_ms: i64,
        new_uuid: &mut dyn FnMut() -> String,
    ) -> Option<Served> {
        if let Some(d) = self.document(path) {
            return self.answer_document(world, d, method, query, body);
        }
        if let Some(s) = self.answer_verb(world, method, path, body) {
            return Some(s);
        }
        let pairs = query
            .map(rea_engine::codec::query_pairs)
            .unwrap_or_default();
        let r = self.resolve(method, path, Some(&pairs), body)?;
        let res = r.resource;
        match r.role.as_str() {
            "read" => {
                let id = r.id.clone()?;
                let entity = self.find_where(world, &r, &id, &|e| {
                    // Every key the query names must match (compound keys).
                    let e = Value::Object(e.clone());
                    res.keys.iter().filter(|k| k.location == "query").all(|k| {
                        match pairs.iter().find(|(n, _)| *n == k.name) {
                            Some((_, v)) => {
                                e.pointer(&k.entity_member).and_then(scalar_text).as_deref()
                                    == Some(v.as_str())
                                    || res.keys.iter().any(|o| {
                                        o.location == "query"
                                            && o.name != k.name
                                            && o.entity_member == k.entity_member
                                    })
                            }
                            None => true,
                        }
                    })
                });
                match entity {
                    Some((_, e)) => {
                        let env = res.item_envelope.clone().unwrap_or_default();
                        let mut e = e;
                        // A plain read shows only members some recorded read
                        // showed (a write's answer may show more).
                        // A field selection the collection's list semantics
                        // kept (`_fields=id,title`) selects on item reads too.
                        let select = self.fields_param(r.index);
                        let selected: Option<Vec<String>> = select.as_ref().and_then(|n| {
                            pairs.iter().find(|(k, _)| k == n).map(|(_, v)| {
                                v.split(',')
                                    .map(|f| f.split('.').next().unwrap_or(f).trim().to_string())
                                    .filter(|f| !f.is_empty())
                                    .collect()
                            })
                        });
                        let only_selection = pairs.iter().all(|(k, _)| Some(k) == select.as_ref());
                        if res.addressing == "path" && only_selection {
                            e = self.read_shaped(r.index, e);
                            if let Some(keep) = &selected {
                                e.retain(|k, _| keep.contains(k));
                            }
                        }
                        // RPC reads show empty containers a create's answer omits.
                        if res.addressing != "rpc" {
                        } else if let Some(ex) =
                            self.reads.get(&r.index).and_then(|a| entity_at(a, res))
                        {
                            for (k, v) in ex {
                                let empty = v.as_object().is_some_and(Map::is_empty)
                                    || v.as_array().is_some_and(Vec::is_empty);
                                if empty && !e.contains_key(&k) {
                                    e.insert(k, v);
                                }
                            }
                        }
                        // A representation the query selects (`_shape=array`).
                        let shaped = self.read_shaped(r.index, e.clone());
                        let rep = super::representations::render(
                            &self.model.representations,
                            res,
                            &pairs,
                            shaped,
                        );
                        let body = match self.reads.get(&r.index) {
                            _ if rep.is_some() => rep,
                            Some(example) => place(example, res, Value::Object(e.clone())),
                            None => None,
                        }
                        .unwrap_or_else(|| wrap(&env, Value::Object(e)));
                        let mut body = body;
                        if self.model.empty_lists.omitted() {
                            super::empty::strip(&mut body);
                        }
                        Some(self.json(200, body, false, "read"))
                    }
                    None => self.absence(&r, &id),
                }
            }
            "query" => {
                let canon = body.map(Value::to_string).unwrap_or_default();
                let (status, answer) = self.queries.get(&(r.route.clone(), canon))?;
                Some(Served {
                    status: *status,
                    content_type: self.content_type.clone(),
                    body: answer.clone(),
                    applied: false,
                    basis: "post-read-recording",
                    convention: false,
                })
            }
            "create" | "action" => {
                let served = if r.role == "create" {
                    self.create(world, &r, body?, now_ms, new_uuid)
                } else {
                    self.action(world, &r, method, body?)
                };
                let mut served = served;
                if served.as_ref().is_some_and(|s| s.applied) {
                    if self.apply_analogies(world, &r, method) {
                        served = served.map(|s| s.by_convention(true));
                    }
                    self.refresh_aggregates(world, r.index);
                }
                served
            }
            "update" => self.update(world, &r, method, body?, now_ms, new_uuid),
            "delete" => self.delete(world, &r, &pairs, now_ms),
            _ => None,
        }
    }

    /// The changes lent to this write by a verb analogy (`analogies`,
    /// uncontradicted): on the entity itself (`own`) or on the dependents
    /// whose reference holds its key (`dependents`). True when one applied.
    fn apply_analogies(&self, world: &mut ModelWorld, r: &Resolved<'_>, method: &str) -> bool {
        let Some(id) = r.id.as_deref() else {
            return false;
        };
        let mut applied = false;
        for a in
            self.model.analogies.iter().filter(|a| {
                a.method == method && a.route == r.route && a.contradicted_by.is_empty()
            })
        {
            let keys: Vec<EntityKey> = match a.reference.as_deref() {
                None => self
                    .find(world, r, id)
                    .map(|(k, _)| k)
                    .into_iter()
                    .collect(),
                Some(reference) => {
                    let Some(di) = self
                        .model
                        .resources
                        .iter()
                        .position(|x| x.name == a.changes)
                    else {
                        continue;
                    };
                    world
                        .entities
                        .iter()
                        .filter(|(k, e)| {
                            k.0 == di
                                && !world.gone.contains(*k)
                                && member_at(e, reference).and_then(scalar_text).as_deref()
                                    == Some(id)
                        })
                        .map(|(k, _)| k.clone())
                        .collect()
                }
            };
            for k in keys {
                if let Some(e) = world.entities.get_mut(&k) {
                    let mut v = Value::Object(std::mem::take(e));
                    set_pointer(&mut v, &a.pointer, a.value.clone());
                    *e = v.as_object().cloned().unwrap_or_default();
                    world.dirty.insert(k);
                    applied = true;
                }
            }
        }
        applied
    }

    /// After a dependent of an aggregate member changed through the model:
    /// every parent's array gets the changed dependents' copies
    /// (`aggregates`, uncontradicted).
    fn refresh_aggregates(&self, world: &mut ModelWorld, dependent: usize) {
        let res = &self.model.resources;
        let index = |name: &str, collection: &str| {
            res.iter()
                .position(|r| r.name == name && r.collection == collection)
        };
        for ag in self
            .model
            .aggregates
            .iter()
            .filter(|a| a.contradicted_by.is_empty())
        {
            if index(&ag.dependent, &ag.dependent_collection) != Some(dependent) {
                continue;
            }
            let Some(pi) = index(&ag.resource, &ag.collection) else {
                continue;
            };
            let dep = &res[dependent];
            let owners: BTreeSet<String> = world
                .dirty
                .iter()
                .filter(|k| k.0 == dependent && !world.gone.contains(*k))
                .filter_map(|k| world.entities.get(k))
                .filter_map(|e| member_at(e, &ag.reference).and_then(scalar_text))
                .collect();
            for owner in owners {
                let holds = |e: &Map<String, Value>, m: &str| {
                    member_at(e, m).and_then(scalar_text).as_deref() == Some(owner.as_str())
                };
                let parent = world
                    .entities
                    .iter()
                    .find(|(k, e)| {
                        k.0 == pi && !world.gone.contains(*k) && holds(e, &ag.parent_key)
                    })
                    .map(|(k, _)| k.clone());
                let Some(pk) = parent else { continue };
                let items: Vec<Value> = world
                    .entities
                    .get(&pk)
                    .and_then(|e| member_at(e, &ag.pointer))
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                // The copies the array holds are the dependent's entities
                // too: the World keeps those it did not hold yet.
                for item in items.iter().filter_map(Value::as_object) {
                    let Some(id) = compound_key(item, dep).or_else(|| key_of(item, dep)) else {
                        continue;
                    };
                    let k = (dependent, String::new(), id);
                    if !world.entities.contains_key(&k) && !world.gone.contains(&k) {
                        world.entities.insert(k, item.clone());
                    }
                }
                let pool: Vec<&Map<String, Value>> = world
                    .entities
                    .iter()
                    .filter(|(k, e)| {
                        k.0 == dependent && !world.gone.contains(*k) && holds(e, &ag.reference)
                    })
                    .map(|(_, e)| e)
                    .collect();
                let latest = ag.latest(&pool);
                let Some(e) = world.entities.get_mut(&pk) else {
                    continue;
                };
                let mut v = Value::Object(std::mem::take(e));
                set_pointer(&mut v, &ag.pointer, Value::Array(latest));
                *e = v.as_object().cloned().unwrap_or_default();
                world.dirty.insert(pk);
            }
        }
    }

    /// `find`, among every entity the id names, the first `keep` accepts
    /// (an entity of a compound key: each version of a name).
    fn find_where(
        &self,
        world: &ModelWorld,
        r: &Resolved<'_>,
        id: &str,
        keep: &dyn Fn(&Map<String, Value>) -> bool,
    ) -> Option<(EntityKey, Map<String, Value>)> {
        if let Some(found) = self.find(world, r, id).filter(|(_, e)| keep(e)) {
            return Some(found);
        }
        r.key_member.as_ref()?;
        world
            .entities
            .iter()
            .filter(|(k, _)| k.0 == r.index && k.1 == r.scope && !world.gone.contains(*k))
            .find(|(_, e)| alternate_key_is(r, e, id) && keep(e))
            .map(|(k, e)| (k.clone(), e.clone()))
    }

    fn find(
        &self,
        world: &ModelWorld,
        r: &Resolved<'_>,
        id: &str,
    ) -> Option<(EntityKey, Map<String, Value>)> {
        let key = (r.index, r.scope.clone(), id.to_string());
        if world.gone.contains(&key) {
            return None;
        }
        if let Some(e) = world.entities.get(&key) {
            return Some((key, e.clone()));
        }
        // An alternate key (`experiment_name` → `/name`).
        r.key_member.as_ref()?;
        world
            .entities
            .iter()
            .find(|((ri, scope, _), e)| {
                *ri == r.index && *scope == r.scope && alternate_key_is(r, e, id)
            })
            .filter(|(k, _)| !world.gone.contains(*k))
            .map(|(k, e)| (k.clone(), e.clone()))
    }

    /// The write's confirmed cascades: every dependent entity whose
    /// reference member holds `id` gets the change.
    fn cascade(&self, world: &mut ModelWorld, w: &WriteSemantics, id: &str) {
        for c in w.cascades.iter().filter(|c| c.contradicted_by.is_empty()) {
            let Some(dr) = self
                .model
                .resources
                .iter()
                .position(|r| r.name == c.resource && r.collection == c.collection)
            else {
                continue;
            };
            let dependents: Vec<EntityKey> = world
                .entities
                .iter()
                .filter(|(k, e)| {
                    k.0 == dr
                        && !world.gone.contains(*k)
                        && member_at(e, &c.reference).and_then(scalar_text).as_deref() == Some(id)
                })
                .map(|(k, _)| k.clone())
                .collect();
            for k in dependents {
                if let Some(e) = world.entities.get_mut(&k) {
                    let mut v = Value::Object(std::mem::take(e));
                    set_pointer(&mut v, &c.pointer, c.value.clone());
                    *e = v.as_object().cloned().unwrap_or_default();
                }
                world.dirty.insert(k);
            }
        }
    }

    fn action(
        &self,
        world: &mut ModelWorld,
        r: &Resolved<'_>,
        method: &str,
        body: &Value,
    ) -> Option<Served> {
        let id = r.id.clone()?;
        // Every key of the entity the body names must match (each version
        // of a name).
        let named = |e: &Map<String, Value>| {
            r.resource
                .keys
                .iter()
                .all(|k| match body.get(&k.name).and_then(scalar_text) {
                    Some(v) => member_at(e, &k.entity_member).and_then(scalar_text) == Some(v),
                    None => true,
                })
        };
        let Some((key, mut entity)) = self.find_where(world, r, &id, &named) else {
            return self.absence(r, &id);
        };
        let w = self.write_of(method, &r.route);
        // The resource's own actions answer `{}`, else the app's do.
        let empty_in = |own: bool| {
            self.model
                .writes
                .iter()
                .filter(|w| w.role == "action" && (!own || w.collection == r.resource.collection))
                .any(|w| w.answer.body == "empty-object")
        };
        let empty_answers = empty_in(true) || empty_in(false);
        match w {
            Some(w) => {
                let body = body.as_object()?;
                let keys: Vec<&str> = r.resource.keys.iter().map(|k| k.name.as_str()).collect();
                let rest: Map<String, Value> = body
                    .iter()
                    .filter(|(k, _)| !keys.contains(&k.as_str()))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                let mut value = Value::Object(entity);
                // An item replaced under a key no write confirmed.
                let mut lent = false;
                for e in &w.effects {
                    match (e.how.as_str(), &e.member) {
                        ("sets", Some(m)) => {
                            if let Some(v) = body.get(m) {
                                set_pointer(&mut value, &e.pointer, v.clone());
                            }
                        }
                        ("appends", Some(m)) => {
                            for item in body.get(m).and_then(Value::as_array).into_iter().flatten()
                            {
                                if let Some(o) = item.as_object() {
                                    let k = self.array_key(r.index, &e.pointer);
                                    lent |= super::keyed::upsert(&mut value, &e.pointer, o, k)
                                        && self.key_by_convention(r.index, &e.pointer);
                                }
                            }
                        }
                        ("appends", None) => {
                            let k = self.array_key(r.index, &e.pointer);
                            lent |= super::keyed::upsert(&mut value, &e.pointer, &rest, k)
                                && self.key_by_convention(r.index, &e.pointer);
                        }
                        _ => {}
                    }
                }
                entity = value.as_object().cloned().unwrap_or_default();
                world.entities.insert(key.clone(), entity.clone());
                world.dirty.insert(key);
                self.cascade(world, w, &id);
                let answered = (|| match w.answer.body.as_str() {
                    "empty-object" => {
                        Some(self.json(200, Value::Object(Map::new()), true, "rpc-action"))
                    }
                    "entity" => {
                        let env = r.resource.item_envelope.clone().unwrap_or_default();
                        let example = self.examples.get(&(method.to_string(), r.route.clone()))?;
                        if example.pointer(&env).is_some() {
                            return Some(self.json(
                                200,
                                wrap(&env, Value::Object(entity)),
                                true,
                                "rpc-action",
                            ));
                        }
                        // Another envelope holding a part of the entity
                        // (`{"run_info": …}` for the run's `info`).
                        let (member, shown) = example
                            .as_object()
                            .filter(|o| o.len() == 1)?
                            .iter()
                            .next()?;
                        let shown = shown.as_object()?;
                        let part = entity.iter().find_map(|(_, v)| {
                            v.as_object()
                                .filter(|o| shown.keys().all(|k| o.contains_key(k)))
                        })?;
                        let mut out = Map::new();
                        out.insert(member.clone(), Value::Object(part.clone()));
                        Some(self.json(200, Value::Object(out), true, "rpc-action"))
                    }
                    _ => None,
                })();
                answered.map(|a| a.by_convention(lent))
            }
            // A verb the recording never used beside actions answered `{}`.
            None if !r.known_route && empty_answers => {
                if let Some(body) = body.as_object() {
                    if let Some(pointer) = self.lent_single_append(r, body) {
                        let rest = without_keys(body, r.resource);
                        let mut value = Value::Object(entity);
                        let k = self.array_key(r.index, &pointer);
                        let _ = super::keyed::upsert(&mut value, &pointer, &rest, k);
                        entity = value.as_object().cloned().unwrap_or_default();
                        world.entities.insert(key.clone(), entity);
                        world.dirty.insert(key);
                    } else if let Some(pointer) = self.lent_removal(r) {
                        let keys: Vec<&str> =
                            r.resource.keys.iter().map(|k| k.name.as_str()).collect();
                        let rest: Vec<(&String, &Value)> = body
                            .iter()
                            .filter(|(k, _)| !keys.contains(&k.as_str()))
                            .collect();
                        let mut value = Value::Object(entity);
                        if let Some(items) =
                            value.pointer_mut(&pointer).and_then(Value::as_array_mut)
                        {
                            items.retain(|i| {
                                !rest.iter().all(|(k, v)| i.get(k.as_str()) == Some(*v))
                            });
                        }
                        entity = value.as_object().cloned().unwrap_or_default();
                        world.entities.insert(key.clone(), entity);
                        world.dirty.insert(key);
                    } else if let Some((pointer, item_key)) = self.lent_item_upsert(r, body) {
                        let rest = without_keys(body, r.resource);
                        let mut value = Value::Object(entity);
                        let _ =
                            super::keyed::upsert(&mut value, &pointer, &rest, item_key.as_deref());
                        entity = value.as_object().cloned().unwrap_or_default();
                        world.entities.insert(key.clone(), entity);
                        world.dirty.insert(key);
                    }
                }
                Some(
                    self.json(200, Value::Object(Map::new()), true, "rpc-sibling-action")
                        .by_convention(true),
                )
            }
            None => None,
        }
    }

    /// The member keying the items of the array at `pointer` of the
    /// resource's entities (`arrays`), if any.
    fn array_key(&self, resource: usize, pointer: &str) -> Option<&str> {
        let r = self.model.resources.get(resource)?;
        self.model
            .arrays
            .iter()
            .find(|a| a.resource == r.name && a.collection == r.collection && a.pointer == pointer)?
            .key
            .as_deref()
    }

    /// True when the key of that array is a convention (no write confirmed it).
    fn key_by_convention(&self, resource: usize, pointer: &str) -> bool {
        let Some(r) = self.model.resources.get(resource) else {
            return false;
        };
        self.model.arrays.iter().any(|a| {
            a.resource == r.name
                && a.collection == r.collection
                && a.pointer == pointer
                && a.basis == "convention"
        })
    }

    /// A verb the recording never used whose body, without the keys, has the
    /// members of the items of exactly one array of the resource's entities
    /// whose name the verb names (`alias` → `/aliases`, `set-…-tag` →
    /// `/tags`): that array and its item key. The item is put in the array.
    fn lent_item_upsert(
        &self,
        r: &Resolved<'_>,
        body: &Map<String, Value>,
    ) -> Option<(String, Option<String>)> {
        let keys: Vec<&str> = r.resource.keys.iter().map(|k| k.name.as_str()).collect();
        let names: BTreeSet<&str> = body
            .keys()
            .map(String::as_str)
            .filter(|k| !keys.contains(k))
            .collect();
        if names.is_empty() {
            return None;
        }
        let verb = r.route.rsplit('/').next()?.to_ascii_lowercase();
        let found: Vec<&super::keyed::KeyedArray> = self
            .model
            .arrays
            .iter()
            .filter(|a| a.resource == r.resource.name && a.collection == r.resource.collection)
            .filter(|a| {
                a.item_members.iter().all(|m| names.contains(m.as_str()))
                    && names.iter().all(|n| {
                        a.item_members
                            .iter()
                            .chain(&a.optional_members)
                            .any(|m| m == n)
                    })
            })
            .filter(|a| {
                let leaf = a
                    .pointer
                    .rsplit('/')
                    .next()
                    .unwrap_or("")
                    .to_ascii_lowercase();
                let named = [leaf.strip_suffix("es"), leaf.strip_suffix('s')]
                    .into_iter()
                    .flatten()
                    .any(|stem| stem.len() >= 3 && verb.contains(stem));
                named
            })
            .collect();
        match found.as_slice() {
            [a] => Some((a.pointer.clone(), a.key.clone())),
            _ => None,
        }
    }

    /// A verb the recording never used, whose body (without the keys) has
    /// exactly the members of the items a sibling batch action appends to
    /// one array (`appends` from a body array) that no recorded single-item
    /// action appends to (`appends` of the body itself): that array, when
    /// it is the only one. The recorded single-item actions beside the
    /// batch's other arrays show the kind.
    fn lent_single_append(&self, r: &Resolved<'_>, body: &Map<String, Value>) -> Option<String> {
        let keys: Vec<&str> = r.resource.keys.iter().map(|k| k.name.as_str()).collect();
        let rest: BTreeSet<&str> = body
            .keys()
            .map(String::as_str)
            .filter(|k| !keys.contains(k))
            .collect();
        if rest.is_empty() {
            return None;
        }
        let own: Vec<&WriteSemantics> = self
            .model
            .writes
            .iter()
            .filter(|w| w.role == "action" && w.collection == r.resource.collection)
            .collect();
        let singles: BTreeSet<&str> = own
            .iter()
            .flat_map(|w| w.effects.iter())
            .filter(|e| e.how == "appends" && e.member.is_none())
            .map(|e| e.pointer.as_str())
            .collect();
        let mut found: BTreeSet<String> = BTreeSet::new();
        for w in &own {
            let example = self
                .example_requests
                .get(&(w.method.clone(), w.route.clone()));
            for e in w.effects.iter().filter(|e| e.how == "appends") {
                let (Some(m), false) = (&e.member, singles.contains(e.pointer.as_str())) else {
                    continue;
                };
                let items = example.and_then(|b| b.get(m)).and_then(Value::as_array);
                let fits = items.is_some_and(|items| {
                    !items.is_empty()
                        && items.iter().all(|i| {
                            i.as_object().is_some_and(|o| {
                                o.keys().map(String::as_str).collect::<BTreeSet<_>>() == rest
                            })
                        })
                });
                if fits {
                    found.insert(e.pointer.clone());
                }
            }
        }
        (found.len() == 1)
            .then(|| found.into_iter().next())
            .flatten()
    }

    /// A verb the recording never used that names removal (`delete-`,
    /// `remove-`, `unset-` + a noun) beside a recorded single-item action of
    /// the same noun that appends to one array (`set-tag` → `/data/tags`):
    /// that array, whose items matching the sent members it removes.
    fn lent_removal(&self, r: &Resolved<'_>) -> Option<String> {
        const REMOVAL: [&str; 4] = ["delete", "remove", "unset", "clear"];
        let split = |route: &str| -> Option<(String, String)> {
            let verb = route.rsplit('/').next()?;
            let (word, noun) = verb.split_once(['-', '_'])?;
            Some((word.to_ascii_lowercase(), noun.to_ascii_lowercase()))
        };
        let (word, noun) = split(&r.route)?;
        if !REMOVAL.contains(&word.as_str()) {
            return None;
        }
        let found: BTreeSet<&str> = self
            .model
            .writes
            .iter()
            .filter(|w| w.role == "action" && w.collection == r.resource.collection)
            .filter(|w| split(&w.route).is_some_and(|(_, n)| n == noun))
            .flat_map(|w| w.effects.iter())
            .filter(|e| e.how == "appends" && e.member.is_none())
            .map(|e| e.pointer.as_str())
            .collect();
        (found.len() == 1)
            .then(|| found.into_iter().next().map(str::to_string))
            .flatten()
    }

    fn unique_conflict(
        &self,
        world: &ModelWorld,
        r: &Resolved<'_>,
        method: &str,
        sent: &Map<String, Value>,
    ) -> Option<Served> {
        for rule in self
            .model
            .validation
            .iter()
            .filter(|v| v.kind == "unique" && v.method == method && v.route == r.route)
        {
            let m = rule.member.as_ref()?;
            let Some(v) = sent.get(m) else { continue };
            let holder = world.entities.iter().find(|(k, e)| {
                k.0 == r.index && k.1 == r.scope && !world.gone.contains(*k) && {
                    let member_match = e.get(m) == Some(v);
                    let key_match = r.resource.keys.iter().any(|key| {
                        &key.name == m
                            && if key.entity_member.is_empty() {
                                matches!(v, Value::Object(o) if o == *e)
                            } else {
                                member_at(e, &key.entity_member) == Some(v)
                            }
                    });
                    member_match || key_match
                }
            });
            if let Some((k, _)) = holder {
                let (status, answer) = self.refusals.get(&rule.answer_ordinal)?;
                let mut body = answer.clone()?;
                // The recorded conflict names the recorded holder's id.
                if let Some(old) = self.conflict_holder_id(rule.conflicts_with) {
                    replace_scalar(&mut body, &old, &k.2);
                }
                return Some(self.json(*status, body, false, "unique"));
            }
        }
        None
    }

    /// The app's refusal of a write that leaves a required member blank
    /// (`presence`): a create without it or with it blank, an update
    /// setting it blank, on any write route of the resource.
    fn presence_refusal(
        &self,
        r: &Resolved<'_>,
        sent: &Map<String, Value>,
        creating: bool,
    ) -> Option<Served> {
        let res = r.resource;
        let rules =
            self.model.presence.iter().filter(|p| {
                p.route == res.collection || res.item.as_deref() == Some(p.route.as_str())
            });
        let p = super::presence::broken(rules, sent, creating)?;
        let (status, answer) = self.refusals.get(&p.answer_ordinal)?;
        Some(self.json(*status, answer.clone()?, false, "presence"))
    }

    fn conflict_holder_id(&self, ordinal: Option<u64>) -> Option<String> {
        let o = ordinal?;
        let w = self
            .model
            .writes
            .iter()
            .find(|w| w.supported_by.contains(&o))?;
        let r = self
            .model
            .resources
            .iter()
            .find(|r| r.collection == w.collection)?;
        let ex = self.examples.get(&(w.method.clone(), w.route.clone()))?;
        let e = entity_at(ex, r)?;
        key_of(&e, r)
    }

    fn create(
        &self,
        world: &mut ModelWorld,
        r: &Resolved<'_>,
        body: &Value,
        now_ms: i64,
        new_uuid: &mut dyn FnMut() -> String,
    ) -> Option<Served> {
        let own = self.write_of("POST", &r.route).or_else(|| {
            self.model
                .writes
                .iter()
                .find(|w| w.route == r.route && w.role == "create")
        });
        // A collection never created in: a sibling's create, re-rendered
        // from one of this collection's own entities.
        let lent_create = own.is_none();
        let w = match own {
            Some(w) => w,
            None => self.sibling_create(r)?,
        };
        let sent = unwrap(body, w)?;
        if let Some(refusal) = self.presence_refusal(r, &sent, true) {
            return Some(refusal);
        }
        if let Some(missing) = self.missing_reference(world, r, &sent) {
            return Some(missing);
        }
        if let Some(conflict) = self.unique_conflict(world, r, &w.method, &sent) {
            return Some(conflict);
        }
        let v = &self.model.validation;
        if let Some((status, body)) =
            super::required::refusal(v, &self.refusals, &w.method, &r.route, &sent)
        {
            return Some(self.json(status, body, false, "required"));
        }
        let example = self.examples.get(&(w.method.clone(), w.route.clone()))?;
        let res = r.resource;
        let key_member = res
            .keys
            .first()
            .map(|k| k.entity_member.clone())
            .unwrap_or_else(|| "/id".into());
        let id_member = key_member.rsplit('/').next().unwrap_or("id").to_string();
        if let Some(v) = sent
            .get(&id_member)
            .filter(|v| !v.is_string() && !v.is_number())
        {
            return Some(rea_refusal(
                "invalid_id",
                format!("`{id_member}` must be a string or a number"),
                serde_json::json!({"member": id_member, "sent": v}),
            ));
        }
        let mut entity = sent.clone();
        // The key: the client's when it sent one, else a new one of the kind
        // the recording's creates used.
        let sent_key = Value::Object(sent.clone())
            .pointer(&key_member)
            .and_then(scalar_text);
        let mut new_key: Option<Value> = None;
        let sent_key_given = sent_key.is_some();
        let id = match sent_key {
            Some(k) => k,
            None => {
                let recorded_id = entity_at(example, res).and_then(|e| key_of(&e, res));
                let kind = w
                    .server_filled
                    .iter()
                    .find(|f| f.kind.starts_with("id"))
                    .map(|f| f.kind.trim_start_matches("id:").to_string())
                    .or_else(|| {
                        recorded_id
                            .as_deref()
                            .map(|i| super::routes::kind_of(i).to_string())
                    })
                    .unwrap_or_else(|| "integer".into());
                let id = self.new_id(world, r, &kind, new_uuid)?;
                let example_id = entity_of(example).and_then(|(_, e)| e.get(&id_member).cloned());
                let v = match example_id {
                    Some(Value::Number(_)) => id
                        .parse::<u64>()
                        .map(Value::from)
                        .unwrap_or(Value::String(id.clone())),
                    _ => Value::String(id.clone()),
                };
                if key_member.matches('/').count() == 1 {
                    entity.insert(id_member.clone(), v.clone());
                    new_key = Some(v);
                }
                id
            }
        };
        let example_entity = if lent_create {
            Some(self.template_entity(r, &sent)?)
        } else {
            entity_at(example, res)
        };
        // What the server fills when the member is not sent: a sent value
        // is the client's.
        for f in w
            .server_filled
            .iter()
            .filter(|f| !sent.contains_key(&f.member))
        {
            let recorded = example_entity.as_ref().and_then(|e| e.get(&f.member));
            let v = match f.kind.as_str() {
                "clock" => clock_like_value(recorded, now_ms),
                "default" => f.detail.clone(),
                k if k.starts_with("derived:slug(") => {
                    let m = k.trim_start_matches("derived:slug(").trim_end_matches(')');
                    sent.get(m)
                        .and_then(Value::as_str)
                        .map(|s| Value::String(slug(s)))
                }
                _ => None,
            };
            if let Some(v) = v {
                entity.insert(f.member.clone(), v);
            }
        }
        let mut entity = order_like(entity, example_entity.as_ref());
        // A nested entity (the sent members live below its top level): the
        // recorded example re-rendered with this call's values.
        if w.answer.body == "entity" {
            // The example's request without its envelope, as `sent` is.
            let req = if lent_create {
                example_entity.as_ref().map(|e| template_request(e, &sent))
            } else {
                self.example_requests
                    .get(&(w.method.clone(), w.route.clone()))
                    .and_then(|b| unwrap(b, w))
            };
            if let (Some(e), Some(mut req)) = (example_entity.as_ref(), req) {
                let old_id = key_of(e, res);
                // Ids that set a reference object are set from the World
                // below (`id_references`), not by replacing the example's
                // values (a project id equal to the example's tracker id).
                let mut plain = sent.clone();
                let refs = &self.model.id_references;
                req.retain(|k, _| !super::id_references::confirmed(refs, k));
                plain.retain(|k, _| !super::id_references::confirmed(refs, k));
                entity = rerender(e, &req, &plain, old_id.as_deref(), &id);
                // The new key as the server spells it (a number stays one).
                if let Some(v) = new_key {
                    entity.insert(id_member.clone(), v);
                }
                // Defaults the server fills when the member is not sent
                // (the example sent it, so its echo went).
                for f in w.server_filled.iter().filter(|f| f.kind == "default") {
                    if let (Some(v), false) = (&f.detail, sent.contains_key(&f.member)) {
                        if !entity.contains_key(&f.member) && e.contains_key(&f.member) {
                            entity.insert(f.member.clone(), v.clone());
                        }
                    }
                }
                entity = order_like(entity, Some(e));
                // References the sent members changed (links, texts).
                let peers: Vec<&Map<String, Value>> = world
                    .entities
                    .iter()
                    .filter(|(k, _)| k.0 == r.index && k.1 == r.scope && !world.gone.contains(*k))
                    .map(|(_, v)| v)
                    .collect();
                let item_of = |p: &str| {
                    let t = self.resolve("GET", p, None, None)?;
                    (t.role == "read" && t.resource.addressing == "path")
                        .then_some((t.index, t.scope, t.id?))
                };
                let held = |ri: usize, scope: &str, id: &str| {
                    let k = (ri, scope.to_string(), id.to_string());
                    world
                        .entities
                        .get(&k)
                        .filter(|_| !world.gone.contains(&k))
                        .cloned()
                };
                let f = super::references::Follow {
                    item_of: &item_of,
                    entity: &held,
                    peers: &peers,
                };
                // Members every read shows that the example sent and this
                // call did not: the server fills the empty value of their
                // type, when a recorded entity shows that value.
                let mut filled = sent.clone();
                // A lent create's template is another entity: its numbers
                // the call did not send are the sibling create's (the caller
                // as `author`), else the empty value.
                if lent_create {
                    let sibling = entity_at(example, res).unwrap_or_default();
                    for (m, v) in e {
                        if sent.contains_key(m) || *m == id_member || !v.is_number() {
                            continue;
                        }
                        let d = sibling
                            .get(m)
                            .filter(|x| x.is_number())
                            .cloned()
                            .unwrap_or_else(|| Value::from(0));
                        entity.insert(m.clone(), d.clone());
                        filled.insert(m.clone(), d);
                    }
                }
                if let Some(shown) = self.read_members.get(&r.index) {
                    for (m, v) in &req {
                        if sent.contains_key(m) || entity.contains_key(m) || !shown.contains(m) {
                            continue;
                        }
                        // The empty value of its type, else `null` (an app
                        // that shows unset members as null: `due_date`).
                        let shown_as = [empty_like(v), Some(Value::Null)];
                        let Some(empty) = shown_as
                            .into_iter()
                            .flatten()
                            .find(|x| peers.iter().any(|p| p.get(m) == Some(x)))
                        else {
                            continue;
                        };
                        entity.insert(m.clone(), empty.clone());
                        filled.insert(m.clone(), empty);
                    }
                }
                super::references::follow(&f, e, &mut entity, &filled);
                // A lent create's template is an old entity: its clocks
                // (the sibling's create fills them) are now.
                if lent_create {
                    for f in w.server_filled.iter().filter(|f| f.kind == "clock") {
                        if let Some(v) = clock_like_value(e.get(&f.member), now_ms) {
                            entity.insert(f.member.clone(), v);
                        }
                    }
                }
                entity = order_like(entity, Some(e));
            }
        }
        // A number the server fills within the sent key (`version` of a
        // `name`): one past the highest any entity of that key shows,
        // nested copies in other resources included.
        let mut numbered = false;
        if sent_key_given {
            for f in w
                .server_filled
                .iter()
                .filter(|f| f.kind == "id:integer" && format!("/{}", f.member) != key_member)
            {
                let next = self.max_within(world, &key_member, &id, &f.member) + 1;
                let v = match entity.get(&f.member) {
                    Some(Value::Number(_)) => Value::from(next),
                    _ => Value::String(next.to_string()),
                };
                entity.insert(f.member.clone(), v);
                numbered = true;
            }
        }
        super::renderings::apply(&self.renderings, &sent, &mut entity);
        super::id_references::apply(
            &self.model.id_references,
            &sent,
            &mut entity,
            &|name, id| super::id_references::find_object(world.entities.values(), name, id),
        );
        let forms = &self.status_forms;
        let by_form = super::status_forms::apply(forms, r.index, &id, &mut entity, true);
        self.write_shapes.fill(r.index, &sent, &mut entity);
        let world_id = compound_key(&entity, res).unwrap_or_else(|| id.clone());
        let key = (r.index, r.scope.clone(), world_id);
        world.entities.insert(key.clone(), entity.clone());
        world.dirty.insert(key.clone());
        world.gone.remove(&key);
        let status = *w.answer.statuses.iter().find(|s| (200..300).contains(*s))?;
        let answer = match w.answer.body.as_str() {
            "key" => {
                let member = example.as_object()?.keys().next()?.clone();
                let mut m = Map::new();
                m.insert(member, Value::String(id));
                Value::Object(m)
            }
            "entity" => place(example, res, Value::Object(entity))?,
            _ => return None,
        };
        Some(
            self.json(status, answer, true, "create")
                .by_convention(numbered || lent_create || by_form),
        )
    }

    /// The create of the sibling collection (same parent, addressed by
    /// path) whose reads show the most members this collection's reads
    /// show (at least half of them), for a collection never created in.
    fn sibling_create(&self, r: &Resolved<'_>) -> Option<&WriteSemantics> {
        let parent = |c: &str| c.rsplit_once('/').map(|(p, _)| p.to_string());
        let mine = self.read_members.get(&r.index)?;
        let mut best: Option<(usize, &WriteSemantics)> = None;
        for (i, s) in self.model.resources.iter().enumerate() {
            if i == r.index
                || s.addressing != "path"
                || parent(&s.collection) != parent(&r.resource.collection)
            {
                continue;
            }
            let Some(w) = self
                .model
                .writes
                .iter()
                .find(|w| w.method == "POST" && w.route == s.collection && w.role == "create")
            else {
                continue;
            };
            let shared = self
                .read_members
                .get(&i)
                .map(|o| o.intersection(mine).count())
                .unwrap_or(0);
            if shared * 2 >= mine.len() && best.is_none_or(|(b, _)| shared > b) {
                best = Some((shared, w));
            }
        }
        best.map(|(_, w)| w)
    }

    /// The entity of this collection a lent create re-renders: the one of
    /// the recording's start holding the most of the sent scalar values
    /// (then the lowest key).
    fn template_entity(
        &self,
        r: &Resolved<'_>,
        sent: &Map<String, Value>,
    ) -> Option<Map<String, Value>> {
        self.initial
            .iter()
            .filter(|(k, _)| k.0 == r.index && k.1 == r.scope)
            .max_by_key(|(k, e)| {
                let shared = sent
                    .iter()
                    .filter(|(m, v)| !v.is_object() && e.get(*m) == Some(*v))
                    .count();
                (shared, std::cmp::Reverse((*k).clone()))
            })
            .map(|(_, e)| e.clone())
    }

    /// The highest integer `member` of the entities whose `key_member`
    /// is `key`: this resource's, and objects of that shape nested in any
    /// other entity (`latest_versions` of a registered model).
    fn max_within(&self, world: &ModelWorld, key_member: &str, key: &str, member: &str) -> u64 {
        fn walk_object(
            o: &Map<String, Value>,
            key_leaf: &str,
            key: &str,
            member: &str,
            max: &mut u64,
        ) {
            if o.get(key_leaf).and_then(scalar_text).as_deref() == Some(key) {
                if let Some(n) = o
                    .get(member)
                    .and_then(scalar_text)
                    .and_then(|t| t.parse::<u64>().ok())
                {
                    *max = (*max).max(n);
                }
            }
            o.values().for_each(|c| walk(c, key_leaf, key, member, max));
        }
        fn walk(v: &Value, key_leaf: &str, key: &str, member: &str, max: &mut u64) {
            match v {
                Value::Object(o) => walk_object(o, key_leaf, key, member, max),
                Value::Array(items) => items
                    .iter()
                    .for_each(|c| walk(c, key_leaf, key, member, max)),
                _ => {}
            }
        }
        let key_leaf = key_member.trim_start_matches('/');
        if key_leaf.contains('/') {
            return 0;
        }
        let mut max = 0;
        for e in world.entities.values() {
            walk_object(e, key_leaf, key, member, &mut max);
        }
        max
    }

    /// A body member that names another RPC resource's key (`experiment_id`)
    /// with a value no entity of it holds: that resource's absence answer.
    fn missing_reference(
        &self,
        world: &ModelWorld,
        r: &Resolved<'_>,
        sent: &Map<String, Value>,
    ) -> Option<Served> {
        if r.resource.addressing != "rpc" {
            return None;
        }
        for (oi, other) in self.model.resources.iter().enumerate() {
            if oi == r.index || other.addressing != "rpc" {
                continue;
            }
            // Only id-like members (`experiment_id`), never the resource's own keys.
            for k in other.keys.iter().filter(|k| {
                k.location == "body"
                    && super::exchange::id_like(&k.name)
                    && !r.resource.keys.iter().any(|own| own.name == k.name)
            }) {
                let Some(v) = sent.get(&k.name).and_then(scalar_text) else {
                    continue;
                };
                let mut held = world
                    .entities
                    .iter()
                    .filter(|(key, _)| key.0 == oi && !world.gone.contains(*key));
                let any = world.entities.keys().any(|key| key.0 == oi);
                let found = held.any(|(_, e)| {
                    member_at(e, &k.entity_member)
                        .and_then(scalar_text)
                        .as_deref()
                        == Some(v.as_str())
                });
                // Absent for sure only past the ids the resource ever held
                // (a sequence has not issued it yet); a random id the
                // recording never showed may still exist.
                let beyond = v.parse::<u64>().ok().is_some_and(|n| {
                    world
                        .entities
                        .keys()
                        .filter(|key| key.0 == oi)
                        .filter_map(|key| key.2.parse::<u64>().ok())
                        .max()
                        .is_some_and(|max| n > max)
                });
                if any && !found && beyond {
                    let res = Resolved {
                        index: oi,
                        resource: other,
                        scope: String::new(),
                        id: Some(v.clone()),
                        route: other.collection.clone(),
                        role: "read".into(),
                        key_member: Some(k.name.clone()),
                        known_route: true,
                    };
                    return self.absence(&res, &v);
                }
            }
        }
        None
    }

    /// True when clients choose this resource's ids: some id the recording
    /// showed is not of the kind the server generates on create.
    fn client_ids(&self, r: &Resolved<'_>) -> bool {
        let generated: BTreeSet<String> = self
            .model
            .writes
            .iter()
            .filter(|w| w.collection == r.resource.collection && w.role == "create")
            .flat_map(|w| w.server_filled.iter())
            .filter_map(|f| f.kind.strip_prefix("id:").map(str::to_string))
            .collect();
        !generated.is_empty()
            && self
                .initial
                .keys()
                .filter(|k| k.0 == r.index)
                .any(|k| !generated.contains(super::routes::kind_of(&k.2)))
    }

    fn new_id(
        &self,
        world: &mut ModelWorld,
        r: &Resolved<'_>,
        kind: &str,
        new_uuid: &mut dyn FnMut() -> String,
    ) -> Option<String> {
        match kind {
            "integer" => {
                // The inferred sequence the collection draws from (shared
                // with siblings), else the collection's own.
                let seq = self
                    .model
                    .sequences
                    .iter()
                    .position(|s| s.collections.contains(&r.resource.collection));
                let members: Vec<usize> = match seq {
                    Some(i) => self
                        .model
                        .resources
                        .iter()
                        .enumerate()
                        .filter(|(_, o)| {
                            self.model.sequences[i].collections.contains(&o.collection)
                        })
                        .map(|(oi, _)| oi)
                        .collect(),
                    None => vec![r.index],
                };
                // After every id the sequence ever held, initial or created.
                let held = world
                    .entities
                    .keys()
                    .filter(|k| members.contains(&k.0))
                    .filter_map(|k| k.2.parse::<u64>().ok())
                    .max()
                    .unwrap_or(0);
                let counter = seq
                    .and_then(|i| world.counters.get(&i).copied())
                    .unwrap_or(0);
                let next = held.max(counter) + 1;
                if let Some(i) = seq {
                    world.counters.insert(i, next);
                }
                Some(next.to_string())
            }
            "uuid" => Some(new_uuid()),
            "hex" => Some(new_uuid().replace('-', "")),
            _ => None,
        }
    }

    fn update(
        &self,
        world: &mut ModelWorld,
        r: &Resolved<'_>,
        method: &str,
        body: &Value,
        now_ms: i64,
        new_uuid: &mut dyn FnMut() -> String,
    ) -> Option<Served> {
        let id = r.id.clone()?;
        let lent = self.write_of(method, &r.route).is_none();
        // Else a sibling's route: the same method on another collection's item.
        let w = self
            .write_of(method, &r.route)
            .or_else(|| self.lent_write(method, r))?;
        // A write the app answers without a body (`204 No Content`) has no
        // recorded example: the change is applied and answered the same way.
        let bodiless = w.answer.body == "empty";
        let no_example = Value::Null;
        let example = match self.examples.get(&(w.method.clone(), w.route.clone())) {
            Some(e) => e,
            None if bodiless => &no_example,
            None => return None,
        };
        // A sibling's write wraps the body in the sibling's envelope: this
        // resource's own (`{"time_entry": …}` beside `{"issue": …}`).
        let sent = unwrap(body, w).or_else(|| {
            let own = r.resource.item_envelope.as_deref()?.strip_prefix('/')?;
            let wrapped = lent && w.request_envelope.is_some();
            wrapped.then(|| body.get(own)?.as_object().cloned())?
        })?;
        if let Some(refusal) = self.presence_refusal(r, &sent, false) {
            return Some(refusal);
        }
        if let Some(refusal) = identity_refusal(r.resource, &id, &sent) {
            return Some(refusal);
        }
        let found = self.find(world, r, &id);
        let updated_status = if bodiless {
            *w.answer.statuses.first()?
        } else {
            200
        };
        let (key, mut entity, status) = match found {
            Some((k, e)) => (k, e, updated_status),
            None if method == "PUT" && self.client_ids(r) => {
                // Upsert by convention: a PUT to an id no one holds creates it.
                let mut e = Map::new();
                let _ = new_uuid;
                e.insert("id".into(), Value::String(id.clone()));
                // The server stamps it like the recorded write's entity.
                for (m, v) in entity_at(example, r.resource).unwrap_or_default() {
                    if super::writes::clock_like(&m) {
                        e.insert(m, v);
                    }
                }
                ((r.index, r.scope.clone(), id.clone()), e, 201)
            }
            None => return self.absence(r, &id),
        };
        let replace = w.semantics.contains("replace");
        if replace {
            // A replace keeps what the server fills (the identity, its
            // stamps); a stamp-like name a recorded write's client sent to
            // this resource (`signup_date`) is the client's, and goes.
            let sent_by_client = self.client_sent.get(&r.index);
            let keep: Vec<String> = entity
                .keys()
                .filter(|k| {
                    *k == "id"
                        || super::writes::clock_like(k)
                            && !sent_by_client.is_some_and(|s| s.contains(*k))
                        || w.server_filled.iter().any(|f| &f.member == *k)
                })
                .cloned()
                .collect();
            entity.retain(|k, _| keep.contains(k));
        }
        let patching = patch_merges(w);
        for (k, v) in &sent {
            if v.is_null() && patching && !super::nulls::stores(w) {
                entity.remove(k);
            } else if let (true, Some(old @ Value::Object(_)), Value::Object(_)) =
                (patching, entity.get_mut(k), v)
            {
                rea_engine::merge_patch(old, v);
            } else if let Some(nested) = entity.get(k).and_then(|old| echo_into(old, v)) {
                entity.insert(k.clone(), nested);
            } else {
                entity.insert(k.clone(), v.clone());
            }
        }
        let by_id_convention = super::id_references::apply(
            &self.model.id_references,
            &sent,
            &mut entity,
            &|name, id| super::id_references::find_object(world.entities.values(), name, id),
        );
        let example_entity = entity_at(example, r.resource);
        for (m, v) in entity.clone() {
            if super::writes::clock_like(&m) && !sent.contains_key(&m) {
                let recorded = example_entity.as_ref().and_then(|e| e.get(&m)).or(Some(&v));
                if let Some(now) = clock_like_value(recorded, now_ms) {
                    if v.is_number() {
                        entity.insert(m, now);
                    }
                }
            }
        }
        // An update that draws an id (a revision) takes the sequence's next.
        super::renderings::apply(&self.renderings, &sent, &mut entity);
        let forms = &self.status_forms;
        let by_form = super::status_forms::apply(forms, r.index, &id, &mut entity, false);
        self.write_shapes.fill(r.index, &sent, &mut entity);
        // The route's own draw, else the lent write's, else another update
        // of the same item route that drew (PATCH beside an unseen PUT).
        // A lent write's draw only where this resource's reads show the
        // members the draw raises (`version-history`).
        let shows = |d: &super::revisions::Draw| {
            let shape = Value::Object(self.read_nested.get(&r.index).cloned().unwrap_or_default());
            !d.increments.is_empty()
                && d.increments.iter().all(|p| {
                    let bare: String = p
                        .split('/')
                        .skip(1)
                        .take_while(|t| t.parse::<usize>().is_err())
                        .map(|t| format!("/{t}"))
                        .collect();
                    shape.pointer(&bare).is_some()
                })
        };
        let draw = self
            .draws
            .get(&(method.to_string(), r.route.clone()))
            .or_else(|| {
                self.draws
                    .iter()
                    .find(|((_, route), _)| *route == r.route)
                    .map(|(_, d)| d)
            })
            .or_else(|| {
                self.draws
                    .get(&(w.method.clone(), w.route.clone()))
                    .filter(|d| shows(d))
            });
        if let Some(d) = draw {
            if let Some(n) = self
                .new_id(world, r, "integer", new_uuid)
                .and_then(|n| n.parse::<u64>().ok())
            {
                super::revisions::show(d, &mut entity, n);
            }
        }
        let entity = order_like(entity, example_entity.as_ref());
        world.entities.insert(key.clone(), entity.clone());
        world.dirty.insert(key.clone());
        world.gone.remove(&key);
        let convention = lent
            || status == 201
            || w.semantics.contains("convention")
            || by_id_convention
            || by_form;
        if bodiless && example.is_null() {
            return Some(
                Served {
                    status,
                    content_type: self.content_type.clone(),
                    body: None,
                    applied: true,
                    basis: "update",
                    convention: false,
                }
                .by_convention(convention),
            );
        }
        let answer = place(example, r.resource, Value::Object(entity))?;
        Some(
            self.json(status, answer, true, "update")
                .by_convention(convention),
        )
    }

    /// A soft delete: the members the recording showed it set, the entity
    /// kept (its reads still answer) and answered as an item. `None` when
    /// no member it sets is known, or the entity already shows them all.
    #[allow(clippy::too_many_arguments)]
    fn soft_delete(
        &self,
        world: &mut ModelWorld,
        r: &Resolved<'_>,
        key: EntityKey,
        mut entity: Map<String, Value>,
        id: &str,
        d: &super::writes::DeleteSemantics,
        own: bool,
    ) -> Option<Served> {
        let before = entity.clone();
        // A sibling's soft delete lends only its constant values (`status`);
        // texts derived from its own entity's spelling stay its own.
        for (m, how) in d
            .soft_sets
            .iter()
            .filter(|(_, h)| own || h.get("value").is_some())
        {
            let Some(old) = entity.get(m).cloned() else {
                continue;
            };
            let new = if let Some(v) = how.get("value") {
                v.clone()
            } else if let Some(suffix) = how.get("append").and_then(Value::as_str) {
                Value::String(format!("{}{suffix}", old.as_str()?))
            } else if let Some(t) = how.get("template").and_then(Value::as_str) {
                Value::String(t.replace("{id}", id))
            } else {
                continue;
            };
            entity.insert(m.clone(), new);
        }
        if entity == before {
            return None;
        }
        world.entities.insert(key.clone(), entity.clone());
        world.dirty.insert(key);
        let env = r.resource.item_envelope.clone().unwrap_or_default();
        Some(
            self.json(200, wrap(&env, Value::Object(entity)), true, "soft-delete")
                .by_convention(!own),
        )
    }

    /// The write of a sibling collection's item route with this method,
    /// when the model lent that route to this resource.
    fn lent_write(&self, method: &str, r: &Resolved<'_>) -> Option<&WriteSemantics> {
        self.lent_write_of(method, r.resource)
    }

    /// The write of `method` a sibling lends `resource` (none of its own).
    fn lent_write_of(&self, method: &str, resource: &Resource) -> Option<&WriteSemantics> {
        // The sibling whose write representation this resource borrows
        // lends its routes (`WriteShapes::relend`).
        let lent = resource
            .inferred_operations
            .iter()
            .find(|o| o.method == method)?;
        let sibling = self
            .model
            .resources
            .iter()
            .find(|s| s.collection == lent.from)?;
        self.model
            .writes
            .iter()
            .find(|w| w.method == method && Some(&w.route) == sibling.item.as_ref())
    }

    fn delete(
        &self,
        world: &mut ModelWorld,
        r: &Resolved<'_>,
        pairs: &[(String, String)],
        now_ms: i64,
    ) -> Option<Served> {
        let id = r.id.clone()?;
        let lent = self.write_of("DELETE", &r.route).is_none();
        let w = self
            .write_of("DELETE", &r.route)
            .or_else(|| self.lent_write("DELETE", r))?;
        let Some((key, entity)) = self.find(world, r, &id) else {
            return self.absence(r, &id);
        };
        // A delete the app answers without a body (`204`) has no example.
        let example = self.examples.get(&("DELETE".to_string(), w.route.clone()));
        if example.is_none() && w.answer.body != "empty" {
            return None;
        }
        let sends = |q: &str, pairs: &[(String, String)]| {
            q.split('&').all(|kv| {
                let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
                pairs.iter().any(|(pk, pv)| pk == k && pv == v)
            })
        };
        // The soft semantics: the route's own, else a sibling's soft delete
        // whose hard query every recorded delete of this route sent (the
        // route was only ever seen forced).
        let own = w.delete.as_ref().filter(|d| d.soft);
        let soft_of = own.or_else(|| {
            let recorded = self
                .write_queries
                .get(&("DELETE".to_string(), w.route.clone()))?;
            self.model
                .writes
                .iter()
                .filter(|x| x.method == "DELETE" && x.route != w.route)
                .filter_map(|x| x.delete.as_ref())
                .find(|d| {
                    d.soft
                        && d.hard_query.as_deref().is_some_and(|q| {
                            !recorded.is_empty() && recorded.iter().all(|p| sends(q, p))
                        })
                })
        });
        let forced = soft_of
            .and_then(|d| d.hard_query.as_deref())
            .is_some_and(|q| sends(q, pairs));
        if let Some(d) = soft_of.filter(|_| !forced) {
            return self.soft_delete(world, r, key, entity, &id, d, own.is_some());
        }
        world.gone.insert(key.clone());
        world.dirty.insert(key);
        // A forced delete answers as the recorded forced one did, when that
        // answer quotes the entity under a member (`previous`) and the
        // route's answer kind is the entity itself.
        let mut entity = entity;
        self.write_shapes.fill(r.index, &Map::new(), &mut entity);
        if let (true, Some(ex)) = (forced, self.queried_deletes.get(&w.route)) {
            let borrowed = lent.then(|| self.write_shapes.quoted_answer(r.index, ex, &entity));
            if let Some(answer) = borrowed.flatten().or_else(|| quoting_answer(ex, &entity)) {
                let status = *w.answer.statuses.first()?;
                return Some(
                    self.json(status, answer, true, "delete")
                        .by_convention(lent),
                );
            }
        }
        let answer = match w.answer.body.as_str() {
            "empty" => {
                return Some(
                    Served {
                        status: *w.answer.statuses.first()?,
                        content_type: self.content_type.clone(),
                        body: None,
                        applied: true,
                        basis: "delete",
                        convention: false,
                    }
                    .by_convention(lent),
                );
            }
            "previous" => {
                let mut m = example?.as_object()?.clone();
                // Shown as the recorded answer showed its entity: without the
                // members it left out (links a read adds).
                let mut entity = entity;
                if let Some(shown) = m.get("previous").and_then(Value::as_object) {
                    entity.retain(|k, _| shown.contains_key(k));
                }
                m.insert("previous".into(), Value::Object(entity));
                Value::Object(m)
            }
            "tombstone" => {
                let env = r.resource.item_envelope.clone().unwrap_or_default();
                let mut stone = entity_at(example?, r.resource)?;
                for (k, v) in stone.clone() {
                    if k == "id" {
                        stone.insert(
                            k,
                            entity
                                .get("id")
                                .cloned()
                                .unwrap_or(Value::String(id.clone())),
                        );
                    } else if super::writes::clock_like(&k) {
                        if let Some(now) = clock_like_value(Some(&v), now_ms) {
                            stone.insert(k, now);
                        }
                    }
                }
                wrap(&env, Value::Object(stone))
            }
            "entity" => place(example?, r.resource, Value::Object(entity))?,
            "empty-object" => Value::Object(Map::new()),
            _ => return None,
        };
        let status = *w.answer.statuses.first()?;
        Some(
            self.json(status, answer, true, "delete")
                .by_convention(lent),
        )
    }
}

/// A recorded answer that quotes an entity under one of its members
/// (`{"deleted": true, "previous": {…}}`), with `entity` in its place,
/// shown with the members the quoted one showed; `None` when the answer
/// quotes none (it is the entity itself).
fn quoting_answer(example: &Value, entity: &Map<String, Value>) -> Option<Value> {
    let mut m = example.as_object()?.clone();
    let slot = m
        .iter()
        .find(|(_, v)| v.as_object().is_some_and(|o| o.get("id").is_some()))
        .map(|(k, _)| k.clone())?;
    if m.contains_key("id") {
        return None;
    }
    let shown = m.get(&slot)?.as_object()?.clone();
    let mut e = entity.clone();
    e.retain(|k, _| shown.contains_key(k));
    m.insert(slot, Value::Object(e));
    Some(Value::Object(m))
}

/// What the template entity of a lent create "sent": for each member this
/// call sends, the template's value as a sent one (a scalar or array as it
/// is; an object of texts by its `rendered`-like shortest text).
fn template_request(e: &Map<String, Value>, sent: &Map<String, Value>) -> Map<String, Value> {
    let mut req = Map::new();
    for m in sent.keys() {
        let v = match e.get(m) {
            Some(Value::Object(o)) => o
                .values()
                .filter_map(Value::as_str)
                .min_by_key(|t| t.len())
                .map(|t| Value::String(t.to_string())),
            Some(v) => Some(v.clone()),
            None => None,
        };
        if let Some(v) = v {
            req.insert(m.clone(), v);
        }
    }
    req
}

/// The empty value of a JSON value's type (`0`, `""`, `[]`, `false`).
fn empty_like(v: &Value) -> Option<Value> {
    match v {
        Value::Number(_) => Some(Value::from(0)),
        Value::String(_) => Some(Value::String(String::new())),
        Value::Array(_) => Some(Value::Array(Vec::new())),
        Value::Bool(_) => Some(Value::Bool(false)),
        _ => None,
    }
}

/// Adds the member names of `e`'s object members (nested) to `shape`.
fn merge_shape(shape: &mut Map<String, Value>, e: &Map<String, Value>) {
    for (k, v) in e {
        // Looked up before an owned key is made: most names are known.
        if !shape.contains_key(k) {
            shape.insert(k.clone(), Value::Object(Map::new()));
        }
        let Some(slot) = shape.get_mut(k) else {
            continue;
        };
        // An object some read shows empty holds free-form members (a JSON
        // field): `null` marks it, and nothing inside it is pruned.
        if v.as_object().is_some_and(Map::is_empty) {
            *slot = Value::Null;
        }
        if let (Some(inner), Value::Object(s)) = (v.as_object(), slot) {
            merge_shape(s, inner);
        }
    }
}

/// Drops, inside the entity's object members, the members no recorded
/// read showed there (a write's answer shows `content.raw`; a read does
/// not). An object member the reads showed empty or never as an object
/// is left as it is.
fn prune_to_shape(e: &mut Map<String, Value>, shape: &Map<String, Value>) {
    for (k, v) in e.iter_mut() {
        let (Value::Object(inner), Some(Value::Object(s))) = (v, shape.get(k)) else {
            continue;
        };
        if s.is_empty() {
            continue;
        }
        inner.retain(|m, _| s.contains_key(m));
        prune_to_shape(inner, s);
    }
}

/// A sent text for a member the entity holds as an object of texts (the
/// sent text echoed as `raw`, rendered into `rendered`): the object with
/// its shortest text (the earlier sent one) replaced by the new text in
/// every member. `None` when the member is not such an object.
fn echo_into(old: &Value, sent: &Value) -> Option<Value> {
    let new = sent.as_str()?;
    let o = old.as_object()?;
    // Texts beside flags and numbers (`protected: false`) are texts too.
    if !o.values().any(Value::is_string)
        || !o
            .values()
            .all(|v| v.is_string() || v.is_boolean() || v.is_number())
    {
        return None;
    }
    let Some(shortest) = o
        .values()
        .filter_map(Value::as_str)
        .filter(|t| !t.is_empty())
        .min_by_key(|t| t.len())
    else {
        // Every text empty: each shows the sent text (renderings refine it).
        let out: Map<String, Value> = o
            .iter()
            .map(|(k, v)| match v {
                Value::String(_) => (k.clone(), Value::String(new.to_string())),
                other => (k.clone(), other.clone()),
            })
            .collect();
        return Some(Value::Object(out));
    };
    let out: Map<String, Value> = o
        .iter()
        .map(|(k, v)| match v.as_str() {
            Some(t) => (k.clone(), Value::String(t.replace(shortest, new))),
            None => (k.clone(), v.clone()),
        })
        .collect();
    Some(Value::Object(out))
}

/// True when an update applies as an RFC 7396 merge patch (`null`
/// removes, objects merge): its chosen semantics say so, or it is a `PATCH`
/// and `merge-patch` is among the hypotheses every recorded write fits.
fn patch_merges(w: &WriteSemantics) -> bool {
    w.semantics.contains("merge-patch")
        || w.method == "PATCH" && w.fits.iter().any(|f| f == "merge-patch")
}

/// Replaces `from` by `to` where it stands as a word (between non-letters).
/// `task` → `Task`.
fn capitalized(word: &str) -> String {
    let mut c = word.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

fn rename_word(v: &mut Value, from: &str, to: &str) {
    match v {
        Value::Object(m) => m.values_mut().for_each(|c| rename_word(c, from, to)),
        Value::Array(a) => a.iter_mut().for_each(|c| rename_word(c, from, to)),
        Value::String(s) => {
            let mut out = String::new();
            let mut rest = s.as_str();
            while let Some(at) = rest.find(from) {
                let before = rest[..at].chars().last();
                let after = rest[at + from.len()..].chars().next();
                let word = before.is_none_or(|c| !c.is_ascii_alphabetic())
                    && after.is_none_or(|c| !c.is_ascii_alphabetic());
                out.push_str(&rest[..at]);
                out.push_str(if word { to } else { from });
                rest = &rest[at + from.len()..];
            }
            out.push_str(rest);
            *s = out;
        }
        _ => {}
    }
}

/// The example entity with the example request's values replaced by this
/// call's: arrays the example request sent become the sent array plus what
/// the server added; scalar leaves equal to an example request value take
/// the sent value; the recorded id becomes the new id (inside strings too,
/// for ids of 8+ characters).
fn rerender(
    example: &Map<String, Value>,
    req: &Map<String, Value>,
    sent: &Map<String, Value>,
    old_id: Option<&str>,
    new_id: &str,
) -> Map<String, Value> {
    let mut built = Value::Object(example.clone());
    for (m, old) in req {
        let Value::Array(old_items) = old else {
            continue;
        };
        let new_items: Vec<Value> = sent
            .get(m)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        rewrite_arrays(&mut built, old_items, &new_items);
    }
    // Arrays sent now but not by the example: in front of the entity's
    // array of that name (what the server adds stays after them).
    for (m, v) in sent {
        if let (Some(items), false) = (v.as_array(), req.contains_key(m)) {
            prepend_named(&mut built, m, items);
        }
    }
    for (m, old) in req {
        if old.is_array() || old.is_object() {
            continue;
        }
        if let Some(new) = sent.get(m) {
            replace_leaf(&mut built, old, new, false);
        }
    }
    // A sent scalar the example echoed at its own member is echoed there,
    // whatever another sent value's replacement did to it (`views: 0`
    // replaced the `score: 0` echo too).
    if let Some(o) = built.as_object_mut() {
        for (m, old) in req.iter().filter(|(_, v)| !v.is_array() && !v.is_object()) {
            let echoed = example.get(m).is_some_and(|v| {
                v == old || matches!((v.as_f64(), old.as_f64()), (Some(a), Some(b)) if a == b)
            });
            if let (Some(new), true) = (sent.get(m).filter(|n| !n.is_object()), echoed) {
                o.insert(m.clone(), new.clone());
            }
        }
    }
    // A sent object where the example's echo stands verbatim: echoed.
    if let Some(o) = built.as_object_mut() {
        for (m, old) in req.iter().filter(|(_, v)| v.is_object()) {
            if let (Some(new @ Value::Object(_)), true) = (sent.get(m), o.get(m) == Some(old)) {
                o.insert(m.clone(), new.clone());
            }
        }
    }
    // Then long sent texts rendered inside other texts (`<p>…</p>`).
    for (m, old) in req {
        if let (Some(new), true) = (sent.get(m), old.is_string()) {
            replace_leaf(&mut built, old, new, true);
        }
    }
    // Members sent now that the example did not send: echoed, unless the
    // entity holds them deeper; members the example sent and this call
    // did not: the example's echo goes.
    if let Some(o) = built.as_object_mut() {
        for (m, v) in sent {
            if !req.contains_key(m)
                && (o.contains_key(m) || !holds_member(&Value::Object(o.clone()), m))
            {
                // A text into the example's object of texts (`{raw, rendered}`).
                let into = o.get(m).and_then(|old| echo_into(old, v));
                o.insert(m.clone(), into.unwrap_or_else(|| v.clone()));
            }
        }
        for (m, v) in req {
            // (An array the example sent was emptied above.)
            let emptied = v.is_array()
                && o.get(m)
                    .and_then(Value::as_array)
                    .is_some_and(Vec::is_empty);
            if !sent.contains_key(m) && (o.get(m) == Some(v) || emptied) {
                o.remove(m);
            }
        }
    }
    for (m, old) in req {
        if let (Some(o), Some(n)) = (old.as_str(), sent.get(m).and_then(Value::as_str)) {
            let (so, sn) = (super::writes::slug(o), super::writes::slug(n));
            if so.len() >= 3 {
                replace_segment(&mut built, &so, &sn);
                replace_leaf(&mut built, &Value::String(so), &Value::String(sn), false);
            }
        }
    }
    if let Some(old) = old_id {
        let long = old.len() >= 8;
        replace_id(&mut built, old, new_id, long);
        if !long {
            replace_segment(&mut built, old, new_id);
        }
    }
    built.as_object().cloned().unwrap_or_default()
}

fn rewrite_arrays(v: &mut Value, old_items: &[Value], new_items: &[Value]) {
    match v {
        Value::Array(items) => {
            if !old_items.is_empty() && old_items.iter().all(|o| items.contains(o)) {
                let extra: Vec<Value> = items
                    .iter()
                    .filter(|i| !old_items.contains(i))
                    .cloned()
                    .collect();
                *items = new_items.iter().cloned().chain(extra).collect();
            } else {
                items
                    .iter_mut()
                    .for_each(|c| rewrite_arrays(c, old_items, new_items));
            }
        }
        Value::Object(m) => m
            .values_mut()
            .for_each(|c| rewrite_arrays(c, old_items, new_items)),
        _ => {}
    }
}

fn replace_leaf(v: &mut Value, old: &Value, new: &Value, inside: bool) {
    match v {
        Value::Array(items) => items
            .iter_mut()
            .for_each(|c| replace_leaf(c, old, new, inside)),
        Value::Object(m) => m
            .values_mut()
            .for_each(|c| replace_leaf(c, old, new, inside)),
        other => {
            if !inside {
                if other == old {
                    *other = new.clone();
                }
            } else if let (Value::String(text), Some(o), Some(n)) =
                (&mut *other, old.as_str(), new.as_str())
            {
                // A long sent text rendered inside another (`<p>…</p>`).
                if o.chars().count() >= 12 && text.contains(o) {
                    *text = text.replace(o, n);
                }
            }
        }
    }
}

fn prepend_named(v: &mut Value, m: &str, items: &[Value]) {
    match v {
        Value::Object(o) => {
            for (k, c) in o.iter_mut() {
                match c {
                    Value::Array(a) if k == m => {
                        let mut out = items.to_vec();
                        out.append(a);
                        *a = out;
                    }
                    other => prepend_named(other, m, items),
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|c| prepend_named(c, m, items)),
        _ => {}
    }
}

/// True when an object at any depth has a member named `m`.
fn holds_member(v: &Value, m: &str) -> bool {
    match v {
        Value::Object(o) => o.contains_key(m) || o.values().any(|c| holds_member(c, m)),
        Value::Array(a) => a.iter().any(|c| holds_member(c, m)),
        _ => false,
    }
}

/// Replaces `old` where it is a whole path segment inside a string (`/20`, `/brazil/`).
fn replace_segment(v: &mut Value, old: &str, new: &str) {
    match v {
        Value::Array(items) => items.iter_mut().for_each(|c| replace_segment(c, old, new)),
        Value::Object(m) => m.values_mut().for_each(|c| replace_segment(c, old, new)),
        Value::String(s) => {
            let parts: Vec<String> = s
                .split('/')
                .map(|p| {
                    let (core, tail) = match p.find(['?', '#']) {
                        Some(i) => (&p[..i], &p[i..]),
                        None => (p, ""),
                    };
                    if core == old {
                        format!("{new}{tail}")
                    } else {
                        p.to_string()
                    }
                })
                .collect();
            if s.contains('/') {
                *s = parts.join("/");
                // A link's query value naming the id (`posts?tags=20`).
                if let Some((path, query)) = s.split_once('?') {
                    let (query, fragment) = match query.split_once('#') {
                        Some((q, f)) => (q, Some(f)),
                        None => (query, None),
                    };
                    let pairs: Vec<String> = query
                        .split('&')
                        .map(|kv| match kv.split_once('=') {
                            Some((k, v)) if v == old => format!("{k}={new}"),
                            _ => kv.to_string(),
                        })
                        .collect();
                    let mut out = format!("{path}?{}", pairs.join("&"));
                    if let Some(f) = fragment {
                        out.push('#');
                        out.push_str(f);
                    }
                    *s = out;
                }
            }
        }
        _ => {}
    }
}

fn replace_id(v: &mut Value, old: &str, new: &str, inside: bool) {
    match v {
        Value::Array(items) => items
            .iter_mut()
            .for_each(|c| replace_id(c, old, new, inside)),
        Value::Object(m) => m.values_mut().for_each(|c| replace_id(c, old, new, inside)),
        Value::String(s) if s == old || (inside && s.contains(old)) => *s = s.replace(old, new),
        _ => {}
    }
}

/// The World key of an entity whose identity is several query keys held
/// in distinct members (`name` and `version`): their values joined.
/// `None` for a single key.
fn compound_key(e: &Map<String, Value>, r: &Resource) -> Option<String> {
    let mut members: Vec<&str> = Vec::new();
    for k in r.keys.iter().filter(|k| k.location == "query") {
        if !members.contains(&k.entity_member.as_str()) {
            members.push(&k.entity_member);
        }
    }
    if members.len() < 2 {
        return None;
    }
    let e = Value::Object(e.clone());
    let parts: Option<Vec<String>> = members
        .iter()
        .map(|m| e.pointer(m).and_then(scalar_text))
        .collect();
    Some(parts?.join("\u{1f}"))
}

/// The entity's key value.
fn key_of(e: &Map<String, Value>, r: &Resource) -> Option<String> {
    let ptr = r
        .keys
        .first()
        .map(|k| k.entity_member.as_str())
        .unwrap_or("/id");
    member_at(e, ptr).and_then(scalar_text)
}

/// The body minus its request envelope.
fn unwrap(body: &Value, w: &WriteSemantics) -> Option<Map<String, Value>> {
    match &w.request_envelope {
        Some(env) => body.get(env)?.as_object().cloned(),
        None => body.as_object().cloned(),
    }
}

/// A write never changes an entity's identity through its body: a sent
/// segment key other than the path's id answers rea's `400 id_mismatch`
/// (as the engine's `apply` does), changing nothing.
fn identity_refusal(r: &Resource, id: &str, sent: &Map<String, Value>) -> Option<Served> {
    for key in r.keys.iter().filter(|k| k.location == "segment") {
        let Some(member) = key.entity_member.strip_prefix('/') else {
            continue;
        };
        let Some(value) = sent.get(member) else {
            continue;
        };
        let same = match value {
            Value::String(s) => s == id,
            Value::Number(n) => n.to_string() == id,
            _ => false,
        };
        if !same {
            return Some(rea_refusal(
                "id_mismatch",
                format!("the body's `{member}` differs from the path's: a write never changes an entity's identity"),
                serde_json::json!({"member": member, "path": id, "sent": value}),
            ));
        }
    }
    None
}

/// rea's own `400` (`{"error", "message", "details"}`), nothing changed.
fn rea_refusal(code: &str, message: String, details: Value) -> Served {
    Served {
        status: 400,
        content_type: "application/json".to_string(),
        body: Some(serde_json::json!({"error": code, "message": message, "details": details})),
        applied: false,
        basis: "identity",
        convention: false,
    }
}

/// `{"data": entity}` for `/data`, the entity itself for `""`.
fn wrap(envelope: &str, entity: Value) -> Value {
    if envelope.is_empty() {
        return entity;
    }
    let mut out = Value::Object(Map::new());
    set_pointer(&mut out, envelope, entity);
    out
}

/// The recorded example answer with the entity swapped in at the item envelope.
fn place(example: &Value, r: &Resource, entity: Value) -> Option<Value> {
    let env = r.item_envelope.clone().unwrap_or_default();
    if env.is_empty() {
        return Some(entity);
    }
    let mut out = example.clone();
    out.pointer(&env)?;
    set_pointer(&mut out, &env, entity);
    Some(out)
}

fn set_pointer(target: &mut Value, pointer: &str, v: Value) {
    if pointer.is_empty() {
        *target = v;
        return;
    }
    let mut cur = target;
    let tokens: Vec<String> = pointer
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect();
    for (i, t) in tokens.iter().enumerate() {
        if !cur.is_object() {
            *cur = Value::Object(Map::new());
        }
        let map = cur.as_object_mut().expect("object");
        if i + 1 == tokens.len() {
            map.insert(t.clone(), v);
            return;
        }
        cur = map
            .entry(t.clone())
            .or_insert_with(|| Value::Object(Map::new()));
    }
}

/// A clock value in the unit and type the recorded one used.
fn clock_like_value(recorded: Option<&Value>, now_ms: i64) -> Option<Value> {
    match recorded? {
        Value::Number(n) => {
            let v = n.as_f64()?;
            let now = if v > 1e14 {
                now_ms * 1000
            } else if v > 1e11 {
                now_ms
            } else {
                now_ms / 1000
            };
            Some(Value::from(now))
        }
        Value::String(s) => {
            let t = chrono::DateTime::from_timestamp_millis(now_ms)?;
            let text = if s.len() == 19 && s.as_bytes().get(10) == Some(&b'T') {
                t.format("%Y-%m-%dT%H:%M:%S").to_string()
            } else if s.ends_with('Z') {
                // The recorded fraction's precision (DRF: microseconds).
                let digits = s
                    .rsplit_once('.')
                    .map_or(0, |(_, f)| f.trim_end_matches('Z').len());
                let fraction = match digits {
                    6 => "%.6f",
                    9 => "%.9f",
                    _ => "%.3f",
                };
                t.format(&format!("%Y-%m-%dT%H:%M:%S{fraction}Z"))
                    .to_string()
            } else {
                return None;
            };
            Some(Value::String(text))
        }
        _ => None,
    }
}

/// The members in the recorded example's order, extras after.
fn order_like(
    entity: Map<String, Value>,
    example: Option<&Map<String, Value>>,
) -> Map<String, Value> {
    let Some(example) = example else {
        return entity;
    };
    let mut out = Map::new();
    for k in example.keys() {
        if let Some(v) = entity.get(k) {
            out.insert(k.clone(), v.clone());
        }
    }
    for (k, v) in entity {
        if !out.contains_key(&k) {
            out.insert(k, v);
        }
    }
    out
}

/// Fills `{id}`, `{query:…}` and `{body:…}` placeholders with the id.
fn fill(v: &mut Value, id: &str) {
    match v {
        Value::String(s) if s.contains('{') => {
            let mut out = String::new();
            let mut rest = s.as_str();
            while let Some(at) = rest.find('{') {
                out.push_str(&rest[..at]);
                let tail = &rest[at..];
                match tail.find('}') {
                    Some(end)
                        if tail[1..end] == *"id"
                            || tail[1..end].starts_with("query:")
                            || tail[1..end].starts_with("body:") =>
                    {
                        out.push_str(id);
                        rest = &tail[end + 1..];
                    }
                    _ => {
                        out.push('{');
                        rest = &tail[1..];
                    }
                }
            }
            out.push_str(rest);
            *s = out;
        }
        Value::Object(m) => m.values_mut().for_each(|c| fill(c, id)),
        Value::Array(a) => a.iter_mut().for_each(|c| fill(c, id)),
        _ => {}
    }
}

/// The first object (depth first) with a member whose text is `id`: that
/// member's name and the object.
fn entity_keyed<'a>(v: &'a Value, id: &str) -> Option<(String, &'a Value)> {
    match v {
        Value::Object(m) => {
            if let Some((k, _)) = m.iter().find(|(_, x)| {
                !x.is_object() && !x.is_array() && scalar_text(x).as_deref() == Some(id)
            }) {
                return Some((k.clone(), v));
            }
            m.values().find_map(|x| entity_keyed(x, id))
        }
        Value::Array(a) => a.iter().find_map(|x| entity_keyed(x, id)),
        _ => None,
    }
}

/// Replaces the first object (depth first) holding `member` with `entity`.
fn replace_keyed(v: &mut Value, member: &str, entity: &Value) -> bool {
    if v.as_object().is_some_and(|m| m.contains_key(member)) {
        *v = entity.clone();
        return true;
    }
    match v {
        Value::Object(m) => m.values_mut().any(|x| replace_keyed(x, member, entity)),
        Value::Array(a) => a.iter_mut().any(|x| replace_keyed(x, member, entity)),
        _ => false,
    }
}

fn replace_scalar(v: &mut Value, old: &str, new: &str) {
    match v {
        Value::Object(m) => m.values_mut().for_each(|c| replace_scalar(c, old, new)),
        Value::Array(a) => a.iter_mut().for_each(|c| replace_scalar(c, old, new)),
        other => {
            if scalar_text(other).as_deref() == Some(old) {
                *other = match other {
                    Value::Number(_) => new
                        .parse::<u64>()
                        .map(Value::from)
                        .unwrap_or(Value::String(new.into())),
                    _ => Value::String(new.into()),
                };
            }
        }
    }
}

/// The serving model of decoded Evidence.
pub fn serving_model(evidence: &Value) -> Result<ServingModel, crate::DeriveError> {
    let (model, exchanges, templates) = super::inferred(evidence)?;
    Ok(serving_model_of(model, &exchanges, templates))
}

/// The serving model of a model and the exchanges it was inferred from;
/// answers take the content type most JSON answers had.
pub(crate) fn serving_model_of(
    model: super::Model,
    exchanges: &[Exchange],
    templates: Templates,
) -> ServingModel {
    let mut types: BTreeMap<String, usize> = BTreeMap::new();
    for x in exchanges {
        if let Some(ct) = x.response_header("content-type") {
            if ct.contains("json") {
                *types.entry(ct.to_string()).or_default() += 1;
            }
        }
    }
    let ct = types
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(k, _)| k.clone())
        .unwrap_or_else(|| "application/json".into());
    ServingModel::new(model, exchanges, ct, templates)
}

/// Replays the recording the model was inferred from, in order, from the
/// initial World, through `answer`: for every record the model answers,
/// whether status and JSON body equal the recorded ones (ids and clocks the
/// model generates differ by design, so this is a lower bound).
#[cfg(test)]
pub(crate) fn replay_check(
    evidence: &Value,
) -> Result<Vec<(u64, &'static str, bool)>, crate::DeriveError> {
    let (model, exchanges, templates) = super::inferred(evidence)?;
    let serving = serving_model_of(model, &exchanges, templates);
    Ok(serving
        .replay(&exchanges)
        .into_iter()
        .map(|r| (r.ordinal, r.basis, r.exact))
        .collect())
}

/// A body's members other than the resource's key members.
fn without_keys(body: &Map<String, Value>, resource: &Resource) -> Map<String, Value> {
    body.iter()
        .filter(|(k, _)| !resource.keys.iter().any(|key| key.name == **k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// Whether an entity's member named by the call's alternate key (the key
/// member the call named, `experiment_name` → `/name`) spells `id`; false
/// when the call named none.
fn alternate_key_is(r: &Resolved<'_>, e: &Map<String, Value>, id: &str) -> bool {
    r.key_member
        .as_ref()
        .and_then(|m| r.resource.keys.iter().find(|k| &k.name == m))
        .and_then(|k| member_at(e, &k.entity_member))
        .and_then(scalar_text)
        .as_deref()
        == Some(id)
}
