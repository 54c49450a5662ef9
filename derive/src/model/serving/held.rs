//! One truth per resource between the app model and the engine: the
//! entities of a path resource whose collection the engine's World holds
//! are the engine's rows. The model's World keeps, for those, a view of
//! the rows (what its write semantics start from and its item reads
//! answer), never a second value: a model write is written through to the
//! row (`written_views`), a row changed elsewhere (an engine write, a
//! `data/add`) is laid over the view (`stale_views`, `adopt`), and the
//! export names such entities by key only (their value is the row).
//! Entities the engine holds no collection for (RPC resources, resources
//! no spec plan covers) stay the model's own.

use super::{ModelWorld, ServingModel};
use crate::model::snapshots::EntityKey;
use serde_json::{Map, Value};

/// What the engine's World holds for one (collection path, id).
#[derive(Debug, Clone, PartialEq)]
pub enum Held {
    /// The row's members.
    Row(Map<String, Value>),
    /// A type of the World lives at the collection path, with no such row.
    Absent,
    /// No type of the World lives at the collection path: the model's own.
    NotHeld,
}

/// One view to bring up to date with its row (`None`: the row is gone).
#[derive(Debug, Clone, PartialEq)]
pub struct ViewChange {
    key: EntityKey,
    row: Option<Map<String, Value>>,
}

impl ServingModel {
    fn is_path_resource(&self, index: usize) -> bool {
        self.model
            .resources
            .get(index)
            .is_some_and(|r| r.addressing == "path")
    }

    /// The views of rows the model answers for (entities a call through
    /// the model created, changed or removed) that no longer show their
    /// row; empty when the model answers for none.
    pub fn stale_views(
        &self,
        world: &ModelWorld,
        row: &dyn Fn(&str, &str) -> Held,
    ) -> Vec<ViewChange> {
        world
            .dirty
            .iter()
            .filter(|k| self.is_path_resource(k.0))
            .filter_map(|k| {
                let gone = world.gone.contains(k);
                match row(&k.1, &k.2) {
                    Held::NotHeld => None,
                    Held::Absent => (!gone).then(|| ViewChange {
                        key: k.clone(),
                        row: None,
                    }),
                    Held::Row(r) => {
                        (gone || world.entities.get(k) != Some(&r)).then(|| ViewChange {
                            key: k.clone(),
                            row: Some(r),
                        })
                    }
                }
            })
            .collect()
    }

    /// Lays `changes` (from `stale_views` or `adopt`) over the views.
    pub fn apply_views(&self, world: &mut ModelWorld, changes: Vec<ViewChange>) {
        for c in changes {
            match c.row {
                None => {
                    world.gone.insert(c.key);
                }
                Some(r) => {
                    world.gone.remove(&c.key);
                    world.entities.insert(c.key, r);
                }
            }
        }
    }

    /// Every view the model answers for, as (collection path, id, value;
    /// `None` when removed): what its writes left, to be written through
    /// to the rows.
    pub fn written_views<'w>(
        &self,
        world: &'w ModelWorld,
    ) -> impl Iterator<Item = (&'w str, &'w str, Option<&'w Map<String, Value>>)> + 'w {
        let path: Vec<bool> = (0..self.model.resources.len())
            .map(|i| self.is_path_resource(i))
            .collect();
        world
            .dirty
            .iter()
            .filter(move |k| path.get(k.0).copied().unwrap_or(false))
            .map(|k| {
                let value = if world.gone.contains(k) {
                    None
                } else {
                    world.entities.get(k)
                };
                (k.1.as_str(), k.2.as_str(), value)
            })
    }

    /// Before the model answers a call on an item of a path resource it
    /// does not answer for yet: the row's current value when it differs
    /// from the model's (an engine write or a `data/add` changed it), or
    /// its removal when the row is gone though the model still shows it.
    /// `row` is the World now; `started` the World the serving started
    /// from (a row unchanged since then leaves the model's own reading).
    pub fn adopt(
        &self,
        world: &ModelWorld,
        method: &str,
        path: &str,
        row: &dyn Fn(&str, &str) -> Held,
        started: &dyn Fn(&str, &str) -> Held,
    ) -> Option<ViewChange> {
        let r = self.resolve(method, path, None, None)?;
        if r.resource.addressing != "path" {
            return None;
        }
        let key: EntityKey = (r.index, r.scope, r.id?);
        if world.dirty.contains(&key) {
            return None;
        }
        let now = row(&key.1, &key.2);
        if now == Held::NotHeld || now == started(&key.1, &key.2) {
            return None;
        }
        match now {
            Held::Row(r) if world.entities.get(&key) != Some(&r) => {
                Some(ViewChange { key, row: Some(r) })
            }
            Held::Absent if world.entities.contains_key(&key) && !world.gone.contains(&key) => {
                Some(ViewChange { key, row: None })
            }
            _ => None,
        }
    }

    /// `export`, with the entities the engine holds rows for named by key
    /// only, under `held`: their value is the row, listed once, in the
    /// World's own tables; and every document of the document store.
    pub fn export_views(
        &self,
        world: &ModelWorld,
        held: &dyn Fn(&str, &str) -> bool,
    ) -> Option<Value> {
        let changed = self.export(world);
        // The document store's documents are listed whole, changed or not:
        // the store is their only World.
        let store = self.model.document_store.as_ref();
        let mut out = match (changed, store) {
            (Some(out), _) => out,
            (None, Some(_)) => serde_json::json!({
                "entities": [], "removed": [], "documents": {}, "counters": {},
            }),
            (None, None) => return None,
        };
        if let Some(d) = store {
            out["document_store"] = d.export_all(&world.docs);
        }
        let rows = match out.get_mut("entities") {
            Some(Value::Array(rows)) => std::mem::take(rows),
            _ => Vec::new(),
        };
        let (keys, own): (Vec<Value>, Vec<Value>) = rows.into_iter().partition(|r| {
            let text = |m: &str| r.get(m).and_then(Value::as_str).unwrap_or_default();
            held(text("scope"), text("id"))
        });
        out["entities"] = Value::Array(own);
        if !keys.is_empty() {
            let keys = keys
                .into_iter()
                .map(|mut k| {
                    if let Some(o) = k.as_object_mut() {
                        o.shift_remove("entity");
                    }
                    k
                })
                .collect();
            out["held"] = Value::Array(keys);
        }
        Some(out)
    }

    /// `import` of `export_views`'s shape: each `held` key takes its row
    /// from the World (`row`) as the model's view, or is removed when the
    /// World holds no such row.
    pub fn import_views(
        &self,
        value: &Value,
        row: &dyn Fn(&str, &str) -> Held,
    ) -> Result<ModelWorld, String> {
        let Some(keys) = value.get("held").and_then(Value::as_array) else {
            return self.import(value);
        };
        let mut value = value.clone();
        for k in keys {
            let text = |m: &str| k.get(m).and_then(Value::as_str).unwrap_or_default();
            let (slot, row) = match row(text("scope"), text("id")) {
                Held::Row(r) => ("entities", Some(r)),
                Held::Absent => ("removed", None),
                Held::NotHeld => {
                    return Err(format!(
                        "app_model: held {} {} names no collection of the World",
                        text("scope"),
                        text("id")
                    ))
                }
            };
            let mut entry = k.clone();
            if let (Some(o), Some(r)) = (entry.as_object_mut(), row) {
                o.insert("entity".to_string(), Value::Object(r));
            }
            match value.get_mut(slot) {
                Some(Value::Array(list)) => list.push(entry),
                _ => value[slot] = Value::Array(vec![entry]),
            }
        }
        self.import(&value)
    }

    /// The document store's (collection, key) of a World document path
    /// `{collection}/{key}`, when the path is one of its documents'.
    pub fn store_key(&self, path: &str) -> Option<(String, String)> {
        let d = self.model.document_store.as_ref()?;
        let (coll, key) = path.rsplit_once('/')?;
        (d.collections.iter().any(|c| c == coll) && !key.is_empty())
            .then(|| (coll.to_string(), key.to_string()))
    }

    /// The store's document at `path` (see `store_key`): its body, `None`
    /// when it is deleted or the store holds no such document.
    pub fn store_document<'w>(
        &self,
        world: &'w ModelWorld,
        path: &str,
    ) -> Option<&'w Map<String, Value>> {
        let (coll, key) = self.store_key(path)?;
        world
            .docs
            .docs
            .get(&coll)?
            .get(&key)
            .filter(|d| !d.deleted)
            .map(|d| &d.body)
    }

    /// The store's document at `path` becomes `value` (the World's
    /// document there; `None`: the World holds none, so it is deleted).
    pub fn adopt_document(
        &self,
        world: &mut ModelWorld,
        path: &str,
        value: Option<&Value>,
    ) -> Result<(), String> {
        let (Some(d), Some((coll, key))) = (&self.model.document_store, self.store_key(path))
        else {
            return Ok(());
        };
        let (body, deleted) = match value.and_then(Value::as_object) {
            Some(b) => (b.clone(), false),
            None => match world.docs.docs.get(&coll).and_then(|c| c.get(&key)) {
                Some(held) => (held.body.clone(), true),
                None => return Ok(()),
            },
        };
        let change = serde_json::json!({
            "documents": [{"collection": coll, "id": key, "document": body, "deleted": deleted}],
        });
        world.docs = d.import_changes(&world.docs, &change)?;
        Ok(())
    }

    /// True when the store's document at `path` is not as the recording
    /// started it (a call through the model wrote or deleted it).
    pub fn store_changed(&self, world: &ModelWorld, path: &str) -> bool {
        let Some((coll, key)) = self.store_key(path) else {
            return false;
        };
        let at = |w: &'_ super::super::docstore::serve::DocWorld| {
            w.docs.get(&coll).and_then(|c| c.get(&key)).cloned()
        };
        at(&world.docs) != at(&self.docs_initial)
    }
}
