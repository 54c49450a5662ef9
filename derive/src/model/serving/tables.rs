//! The app model's World as flat data-plane tables: every entity, view
//! key, singleton document, id counter, logged write and document-store
//! document the model holds beside the engine's rows, listed whole (not as
//! changes since the recording), so that a `data/get` → `data/add`
//! (`replace`) round trip gives back the same World, an additive load
//! upserts rows by the identity each table requires, and a replace that
//! leaves a table out empties that part of the model's World.
//! Entities the engine's World holds rows for are never listed here: the
//! row is their only value (`held.rs`); `app_model_held` names, by key
//! only, the rows the model answers item reads for.

use super::{Held, ModelWorld, ServingModel};
use crate::model::snapshots::EntityKey;
use serde_json::{json, Map, Value};

/// The model's own entities (no table of the engine's World holds them).
const ENTITIES: &str = "app_model_entities";
/// Keys of the engine's rows the model answers item reads for.
const HELD: &str = "app_model_held";
/// Singleton documents that writes to their own path update.
const DOCUMENTS: &str = "app_model_documents";
/// The last id each inferred id sequence issued.
const COUNTERS: &str = "app_model_counters";
/// The bodies of the writes log reads answer from, in order.
const LOG: &str = "app_model_log";
/// The document store's documents that no World document path holds.
const STORE: &str = "app_model_store";
/// The writes the document store counted per collection.
const STORE_WRITES: &str = "app_model_store_writes";
/// The path-keyed tree's entities and removed keys, by key.
const TREE: &str = "app_model_tree";

fn schema(description: &str, properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "description": description,
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

impl ServingModel {
    /// True when the document store answers every read of the entity at
    /// `scope`/`id` (its item path is one of the store's routes): the
    /// resource's view of it is never read, so it is not listed (the
    /// store's document is the one value).
    fn store_serves(&self, scope: &str, id: &str) -> bool {
        self.model
            .document_store
            .as_ref()
            .is_some_and(|d| d.owns("GET", &format!("{scope}/{id}")))
    }

    /// The tables this model's World needs, by name, with the JSON Schema
    /// of one row; none for a model with nothing of its own. A table's
    /// `required` members are exactly its row identity (what `additive`
    /// matches rows by); the value members are checked on import.
    pub fn table_schemas(&self) -> Vec<(&'static str, Value)> {
        let mut out = Vec::new();
        if !self.model.resources.is_empty() {
            let collections: Vec<&str> = self
                .model
                .resources
                .iter()
                .map(|r| r.collection.as_str())
                .collect();
            let key = json!({
                "collection": {"enum": collections},
                "scope": {"type": "string"},
                "id": {"type": "string"},
            });
            let mut entity = key.clone();
            entity["entity"] = json!({"type": "object"});
            out.push((
                ENTITIES,
                schema(
                    "an entity of the app model's own World: one no table of the World holds (an RPC resource, a resource no spec plan covers), by its resource, its collection path (scope) and id",
                    entity,
                    &["collection", "scope", "id"],
                ),
            ));
            out.push((
                HELD,
                schema(
                    "a row of one of the World's tables (collection path `scope`, `id`) whose item reads the app model answers, named by key only: its value is the row",
                    key,
                    &["collection", "scope", "id"],
                ),
            ));
        }
        if !self.documents.is_empty() {
            out.push((
                DOCUMENTS,
                schema(
                    "a singleton document the app model updates on writes to its own path",
                    json!({"path": {"type": "string"}, "value": {"type": "object"}}),
                    &["path"],
                ),
            ));
        }
        if !self.model.sequences.is_empty() {
            out.push((
                COUNTERS,
                schema(
                    "the last id an inferred id sequence issued (by the sequence's index in the app model)",
                    json!({
                        "sequence": {"type": "integer", "minimum": 0},
                        "last": {"type": "integer", "minimum": 0},
                    }),
                    &["sequence"],
                ),
            ));
        }
        if !self.logs.is_empty() {
            out.push((
                LOG,
                schema(
                    "the body of one write a log read lists, in order (`position`)",
                    json!({"position": {"type": "integer", "minimum": 0}, "body": {"type": "object"}}),
                    &["position"],
                ),
            ));
        }
        if self.model.document_store.is_some() {
            out.push((
                STORE,
                schema(
                    "a document of the document store that no World document path holds, by collection and id; `deleted` marks a removed one",
                    json!({
                        "collection": {"type": "string"},
                        "id": {"type": "string"},
                        "document": {"type": "object"},
                        "deleted": {"type": "boolean"},
                    }),
                    &["collection", "id"],
                ),
            ));
            out.push((
                STORE_WRITES,
                schema(
                    "the writes the document store applied to one collection (what its sequence member counts)",
                    json!({
                        "collection": {"type": "string"},
                        "writes": {"type": "integer", "minimum": 0},
                    }),
                    &["collection"],
                ),
            ));
        }
        if self.model.tree_store.is_some() {
            out.push((
                TREE,
                schema(
                    "an entity of the path-keyed tree by `key`: its listing entry, detail members (null: unknown), children keys in listing order (null: unknown), `stale` when a call the tree did not answer changed it, its saved copy; `gone: true` marks a removed key",
                    json!({
                        "key": {"type": "string"},
                        "entry": {"type": "object"},
                        "detail": {"type": ["object", "null"]},
                        "children": {"type": ["array", "null"], "items": {"type": "string"}},
                        "stale": {"type": "boolean"},
                        "copy": {"type": ["object", "null"]},
                        "gone": {"type": "boolean"},
                    }),
                    &["key"],
                ),
            ));
        }
        out
    }

    /// `world` as the rows of `table_schemas`' tables. `held(scope, id)`:
    /// a table of the engine's World lives at `scope`; `at_world(path)`: the
    /// store's document at `path` is a World document.
    pub fn export_tables(
        &self,
        world: &ModelWorld,
        held: &dyn Fn(&str, &str) -> bool,
        at_world: &dyn Fn(&str) -> bool,
    ) -> Vec<(&'static str, Vec<Value>)> {
        let name = |i: usize| self.model.resources.get(i).map(|r| r.collection.clone());
        let mut out = Vec::new();
        for (table, _) in self.table_schemas() {
            let rows: Vec<Value> = match table {
                ENTITIES => world
                    .entities
                    .iter()
                    .filter(|(k, _)| !world.gone.contains(*k) && !held(&k.1, &k.2))
                    .filter(|(k, _)| !self.store_serves(&k.1, &k.2))
                    .filter_map(|(k, e)| {
                        Some(json!({"collection": name(k.0)?, "scope": k.1, "id": k.2, "entity": e}))
                    })
                    .collect(),
                HELD => world
                    .dirty
                    .iter()
                    .filter(|k| held(&k.1, &k.2))
                    .filter_map(|k| Some(json!({"collection": name(k.0)?, "scope": k.1, "id": k.2})))
                    .collect(),
                DOCUMENTS => world
                    .documents
                    .iter()
                    .map(|(p, d)| json!({"path": p, "value": d}))
                    .collect(),
                COUNTERS => world
                    .counters
                    .iter()
                    .map(|(i, n)| json!({"sequence": i, "last": n}))
                    .collect(),
                LOG => world
                    .logged
                    .iter()
                    .enumerate()
                    .map(|(i, b)| json!({"position": i, "body": b}))
                    .collect(),
                STORE => world
                    .docs
                    .docs
                    .iter()
                    .flat_map(|(c, docs)| docs.iter().map(move |(id, d)| (c, id, d)))
                    .filter(|(c, id, _)| !at_world(&format!("{c}/{id}")))
                    .map(|(c, id, d)| {
                        json!({"collection": c, "id": id, "document": d.body, "deleted": d.deleted})
                    })
                    .collect(),
                STORE_WRITES => world
                    .docs
                    .writes
                    .iter()
                    .map(|(c, n)| json!({"collection": c, "writes": n}))
                    .collect(),
                TREE => world.tree.rows(),
                _ => continue,
            };
            out.push((table, rows));
        }
        out
    }

    /// A World from `export_tables`' rows (`tables`, by table name; a
    /// table left out is empty), over the engine's World `row` reads:
    /// the model's own entities are exactly the listed ones (a recorded
    /// one left out is removed), the held keys take their rows, the store
    /// keeps its World-path documents (the World's documents are their
    /// truth) and holds exactly the listed others. `Err` names the table,
    /// the row and what does not fit.
    pub fn import_tables(
        &self,
        tables: &Map<String, Value>,
        row: &dyn Fn(&str, &str) -> Held,
        at_world: &dyn Fn(&str) -> bool,
    ) -> Result<ModelWorld, String> {
        let initial = self.initial_world();
        let mut world = initial.clone();
        let rows = |t: &str| {
            tables
                .get(t)
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default()
        };
        let key_of = |t: &str, i: usize, r: &Value| -> Result<EntityKey, String> {
            let text = |m: &str| {
                r.get(m)
                    .and_then(Value::as_str)
                    .ok_or_else(|| format!("{t}[{i}].{m}: a string is required"))
            };
            let c = text("collection")?;
            let index = self
                .model
                .resources
                .iter()
                .position(|x| x.collection == c)
                .ok_or_else(|| format!("{t}[{i}].collection: unknown resource {c}"))?;
            Ok((index, text("scope")?.to_string(), text("id")?.to_string()))
        };
        // The model's own entities: the recorded ones go, the listed ones stay.
        for k in initial.entities.keys() {
            if row(&k.1, &k.2) == Held::NotHeld && !self.store_serves(&k.1, &k.2) {
                world.entities.remove(k);
                world.dirty.insert(k.clone());
                world.gone.insert(k.clone());
            }
        }
        for (i, r) in rows(ENTITIES).iter().enumerate() {
            let key = key_of(ENTITIES, i, r)?;
            if row(&key.1, &key.2) != Held::NotHeld {
                return Err(format!(
                    "{ENTITIES}[{i}]: {} {} is a row of a World table; list it there",
                    key.1, key.2
                ));
            }
            let entity = r
                .get("entity")
                .and_then(Value::as_object)
                .ok_or_else(|| format!("{ENTITIES}[{i}].entity: an object is required"))?;
            world.gone.remove(&key);
            // Unchanged since the recording: not the model's to answer for.
            if initial.entities.get(&key) == Some(entity) && !initial.dirty.contains(&key) {
                world.dirty.remove(&key);
            } else {
                world.dirty.insert(key.clone());
            }
            world.entities.insert(key, entity.clone());
        }
        for (i, r) in rows(HELD).iter().enumerate() {
            let key = key_of(HELD, i, r)?;
            match row(&key.1, &key.2) {
                Held::Row(r) => {
                    world.gone.remove(&key);
                    world.entities.insert(key.clone(), r);
                }
                Held::Absent => {
                    world.gone.insert(key.clone());
                }
                Held::NotHeld => {
                    return Err(format!(
                        "{HELD}[{i}]: {} {} names no collection of the World",
                        key.1, key.2
                    ))
                }
            }
            world.dirty.insert(key);
        }
        world.documents.clear();
        for (i, r) in rows(DOCUMENTS).iter().enumerate() {
            let path = r
                .get("path")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("{DOCUMENTS}[{i}].path: a string is required"))?;
            if !self.documents.iter().any(|d| d.path == path) {
                return Err(format!(
                    "{DOCUMENTS}[{i}].path: no singleton document at {path}"
                ));
            }
            let value = r
                .get("value")
                .and_then(Value::as_object)
                .ok_or_else(|| format!("{DOCUMENTS}[{i}].value: an object is required"))?;
            world.documents.insert(path.to_string(), value.clone());
        }
        world.counters.clear();
        for (i, r) in rows(COUNTERS).iter().enumerate() {
            let (Some(s), Some(n)) = (
                r.get("sequence").and_then(Value::as_u64),
                r.get("last").and_then(Value::as_u64),
            ) else {
                return Err(format!(
                    "{COUNTERS}[{i}]: `sequence` and `last` must be non-negative integers"
                ));
            };
            let s = usize::try_from(s)
                .ok()
                .filter(|s| *s < self.model.sequences.len())
                .ok_or_else(|| format!("{COUNTERS}[{i}].sequence: no sequence {s}"))?;
            world.counters.insert(s, n);
        }
        let mut logged: Vec<(u64, Map<String, Value>)> = Vec::new();
        for (i, r) in rows(LOG).iter().enumerate() {
            let (Some(p), Some(b)) = (
                r.get("position").and_then(Value::as_u64),
                r.get("body").and_then(Value::as_object),
            ) else {
                return Err(format!(
                    "{LOG}[{i}]: `position` (an integer) and `body` (an object) are required"
                ));
            };
            logged.push((p, b.clone()));
        }
        logged.sort_by_key(|(p, _)| *p);
        world.logged = logged.into_iter().map(|(_, b)| b).collect();
        if let Some(d) = &self.model.document_store {
            // Only the World-path documents stay (their truth is the World's
            // document, read through after the import); the rest are listed.
            for (c, docs) in world.docs.docs.iter_mut() {
                docs.retain(|id, _| at_world(&format!("{c}/{id}")));
            }
            world.docs.writes.clear();
            let mut change = Vec::new();
            for (i, r) in rows(STORE).iter().enumerate() {
                let c = r.get("collection").and_then(Value::as_str);
                let id = r.get("id").and_then(Value::as_str);
                if let (Some(c), Some(id)) = (c, id) {
                    if at_world(&format!("{c}/{id}")) {
                        return Err(format!(
                            "{STORE}[{i}]: {c}/{id} is a World document; list it in the documents table"
                        ));
                    }
                }
                change.push(r.clone());
            }
            let mut writes = Map::new();
            for (i, r) in rows(STORE_WRITES).iter().enumerate() {
                let (Some(c), Some(n)) = (
                    r.get("collection").and_then(Value::as_str),
                    r.get("writes").and_then(Value::as_u64),
                ) else {
                    return Err(format!(
                        "{STORE_WRITES}[{i}]: `collection` (a string) and `writes` (an integer) are required"
                    ));
                };
                writes.insert(c.to_string(), Value::from(n));
            }
            let change = json!({"documents": change, "writes": writes});
            world.docs = d
                .import_changes(&world.docs, &change)
                .map_err(|e| format!("{STORE}: {e}"))?;
        }
        if self.model.tree_store.is_some() {
            world.tree = super::super::tree::serve::TreeWorld::from_rows(TREE, rows(TREE))?;
        }
        Ok(world)
    }
}
