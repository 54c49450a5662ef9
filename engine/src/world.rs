//! The World: the mutable copy of the state's entities (by type and
//! collection path, in state order) and documents, with the data-plane
//! export/import shape and per-collection JSON Schemas.
//!
//! Data-plane shape: `{"collections": {type: [row, ...]}, "documents":
//! {path: value}}`. A row is the entity's fields; when the type's
//! `collection_template` has a parameter (so the type can span several
//! collection paths) each row also carries `_collection`, the concrete
//! collection path it belongs to (e.g. `/v1/buckets/shop/collections/products/records`).

use crate::codec::{normalize_path, path_segments};
use crate::route::{compile, Segment};
use crate::state::{Entity, EntityType, State};
use indexmap::IndexMap;
use rea_core::ErrorReport;
use serde_json::{json, Map, Value};

/// The member naming a row's collection path in exports and imports.
pub const COLLECTION_MEMBER: &str = "_collection";

/// Entities by type, then collection path, in state order; and documents by path.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct World {
    pub collections: IndexMap<String, IndexMap<String, Vec<Entity>>>,
    pub documents: IndexMap<String, Value>,
}

/// True when an identity value names the requested path value.
pub fn id_matches(id: &Value, requested: &str) -> bool {
    match id {
        Value::String(s) => s == requested,
        Value::Number(n) => n.to_string() == requested,
        _ => false,
    }
}

/// Whether two identity values are the same identity.
pub fn same_id(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => x == y || x.to_string() == y.to_string(),
        _ => false,
    }
}

impl World {
    /// The World a state document describes.
    pub fn from_state(state: &State) -> World {
        let mut world = World::default();
        for t in &state.types {
            world.collections.entry(t.name.clone()).or_default();
        }
        for e in &state.entities {
            world
                .collections
                .entry(e.type_name.clone())
                .or_default()
                .entry(e.collection.clone())
                .or_default()
                .push(e.clone());
        }
        for d in &state.documents {
            world.documents.insert(d.path.clone(), d.value.clone());
        }
        world
    }

    /// The entities of one collection path, in state order.
    pub fn list(&self, type_name: &str, collection: &str) -> &[Entity] {
        self.collections
            .get(type_name)
            .and_then(|c| c.get(collection))
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// The entity of `collection` whose identity is `id` (a path value).
    pub fn entity(&self, type_name: &str, collection: &str, id: &str) -> Option<&Entity> {
        self.list(type_name, collection)
            .iter()
            .find(|e| id_matches(&e.id, id))
    }

    /// Mutable access to one entity.
    pub fn entity_mut(
        &mut self,
        type_name: &str,
        collection: &str,
        id: &str,
    ) -> Option<&mut Entity> {
        self.collections
            .get_mut(type_name)?
            .get_mut(collection)?
            .iter_mut()
            .find(|e| id_matches(&e.id, id))
    }

    /// Inserts an entity at `index` of its collection (clamped; `None`: last).
    pub fn insert(&mut self, entity: Entity, index: Option<usize>) {
        let list = self
            .collections
            .entry(entity.type_name.clone())
            .or_default()
            .entry(entity.collection.clone())
            .or_default();
        let at = index.unwrap_or(list.len()).min(list.len());
        list.insert(at, entity);
    }

    /// Removes and returns one entity.
    pub fn remove(&mut self, type_name: &str, collection: &str, id: &str) -> Option<Entity> {
        let list = self.collections.get_mut(type_name)?.get_mut(collection)?;
        let at = list.iter().position(|e| id_matches(&e.id, id))?;
        Some(list.remove(at))
    }

    /// Number of entities held.
    pub fn entity_count(&self) -> usize {
        self.collections
            .values()
            .flat_map(|c| c.values())
            .map(Vec::len)
            .sum()
    }

    /// The data-plane export.
    pub fn export(&self, types: &[EntityType]) -> Value {
        let mut collections = Map::new();
        for (type_name, by_path) in &self.collections {
            let spans = types
                .iter()
                .find(|t| &t.name == type_name)
                .map(|t| template_has_param(&t.collection_template))
                .unwrap_or(true);
            let rows: Vec<Value> = by_path
                .iter()
                .flat_map(|(path, entities)| entities.iter().map(move |e| (path, e)))
                .map(|(path, e)| {
                    let mut row = Map::new();
                    if spans {
                        row.insert(COLLECTION_MEMBER.to_string(), Value::String(path.clone()));
                    }
                    for (k, v) in &e.fields {
                        row.insert(k.clone(), v.clone());
                    }
                    Value::Object(row)
                })
                .collect();
            collections.insert(type_name.clone(), Value::Array(rows));
        }
        let documents: Map<String, Value> = self
            .documents
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        json!({"collections": collections, "documents": documents})
    }

    /// Builds a World from the data-plane shape, validated against the
    /// state's types and documents. On any error nothing is built.
    pub fn import(value: &Value, state: &State) -> Result<World, ErrorReport> {
        let Some(root) = value.as_object() else {
            return Err(invalid(
                "the World must be a JSON object with `collections` and `documents`",
                None,
                None,
                None,
            ));
        };
        for key in root.keys() {
            if key != "collections" && key != "documents" {
                return Err(invalid(
                    &format!("unknown member `{key}`; expected `collections` and `documents`"),
                    None,
                    None,
                    Some(key),
                ));
            }
        }
        let mut world = World::default();
        for t in &state.types {
            world.collections.entry(t.name.clone()).or_default();
        }
        match root.get("collections") {
            None | Some(Value::Null) => {}
            Some(Value::Object(collections)) => {
                for (type_name, rows) in collections {
                    let Some(t) = state.types.iter().find(|t| &t.name == type_name) else {
                        return Err(invalid(
                            &format!("unknown collection `{type_name}`"),
                            Some(type_name),
                            None,
                            None,
                        ));
                    };
                    let Some(rows) = rows.as_array() else {
                        return Err(invalid(
                            &format!("collection `{type_name}` must be an array of rows"),
                            Some(type_name),
                            None,
                            None,
                        ));
                    };
                    for (i, row) in rows.iter().enumerate() {
                        let entity = import_row(t, i, row)?;
                        let list = world
                            .collections
                            .entry(t.name.clone())
                            .or_default()
                            .entry(entity.collection.clone())
                            .or_default();
                        if list.iter().any(|e| same_id(&e.id, &entity.id)) {
                            return Err(invalid(
                                &format!(
                                    "collection `{type_name}` row {i}: duplicate `{}` {}",
                                    t.id_field, entity.id
                                ),
                                Some(type_name),
                                Some(i),
                                Some(&t.id_field),
                            ));
                        }
                        list.push(entity);
                    }
                }
            }
            Some(_) => {
                return Err(invalid(
                    "`collections` must be an object of arrays",
                    None,
                    None,
                    Some("collections"),
                ))
            }
        }
        match root.get("documents") {
            None | Some(Value::Null) => {}
            Some(Value::Object(docs)) => {
                for (path, v) in docs {
                    if !state.documents.iter().any(|d| &d.path == path) {
                        return Err(invalid(
                            &format!("unknown document `{path}`"),
                            Some("documents"),
                            None,
                            Some(path),
                        ));
                    }
                    world.documents.insert(path.clone(), v.clone());
                }
            }
            Some(_) => {
                return Err(invalid(
                    "`documents` must be an object",
                    None,
                    None,
                    Some("documents"),
                ))
            }
        }
        Ok(world)
    }
}

fn template_has_param(template: &str) -> bool {
    compile(template)
        .iter()
        .any(|s| matches!(s, Segment::Param(_)))
}

/// True when a concrete collection path fits a collection template.
pub fn path_fits_template(path: &str, template: &str) -> bool {
    crate::route::fits(&compile(template), &path_segments(path))
}

fn import_row(t: &EntityType, i: usize, row: &Value) -> Result<Entity, ErrorReport> {
    let name = &t.name;
    let Some(obj) = row.as_object() else {
        return Err(invalid(
            &format!("collection `{name}` row {i} must be an object"),
            Some(name),
            Some(i),
            None,
        ));
    };
    let spans = template_has_param(&t.collection_template);
    let collection = match obj.get(COLLECTION_MEMBER) {
        Some(Value::String(p)) => {
            let p = normalize_path(p);
            if !path_fits_template(&p, &t.collection_template) {
                return Err(invalid(
                    &format!("collection `{name}` row {i}: `{COLLECTION_MEMBER}` {p} does not fit {}", t.collection_template),
                    Some(name),
                    Some(i),
                    Some(COLLECTION_MEMBER),
                ));
            }
            p
        }
        None if !spans => normalize_path(&t.collection_template),
        _ => {
            return Err(invalid(
                &format!("collection `{name}` row {i}: missing required field `{COLLECTION_MEMBER}` (a collection path)"),
                Some(name),
                Some(i),
                Some(COLLECTION_MEMBER),
            ))
        }
    };
    let id = match obj.get(&t.id_field) {
        Some(v @ (Value::String(_) | Value::Number(_))) => v.clone(),
        Some(_) => {
            return Err(invalid(
                &format!(
                    "collection `{name}` row {i}: `{}` must be a string or a number",
                    t.id_field
                ),
                Some(name),
                Some(i),
                Some(&t.id_field),
            ))
        }
        None => {
            return Err(invalid(
                &format!(
                    "collection `{name}` row {i}: missing required field `{}`",
                    t.id_field
                ),
                Some(name),
                Some(i),
                Some(&t.id_field),
            ))
        }
    };
    let fields: Map<String, Value> = obj
        .iter()
        .filter(|(k, _)| k.as_str() != COLLECTION_MEMBER)
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Ok(Entity {
        type_name: name.clone(),
        collection,
        id,
        fields,
        view_fields: IndexMap::new(),
        record_ordinals: Vec::new(),
    })
}

fn invalid(
    message: &str,
    collection: Option<&str>,
    row: Option<usize>,
    field: Option<&str>,
) -> ErrorReport {
    let mut e = ErrorReport::input("invalid_world", message);
    if let Some(c) = collection {
        e = e.detail("collection", c);
    }
    if let Some(r) = row {
        e = e.detail("row", r as u64);
    }
    if let Some(f) = field {
        e = e.detail("field", f);
    }
    e.guidance("Send the World in the data/get shape: {\"collections\": {type: [row, ...]}, \"documents\": {path: value}}.")
}

/// One JSON Schema (draft 2020-12) per collection, inferred from the
/// initial entities' fields: each field's observed JSON types; the
/// identity field (and `_collection` where a type spans collections) required.
pub(crate) fn tables(state: &State) -> IndexMap<String, Value> {
    let mut out = IndexMap::new();
    for t in &state.types {
        let mut properties = Map::new();
        let spans = template_has_param(&t.collection_template);
        let mut required = vec![Value::String(t.id_field.clone())];
        if spans {
            properties.insert(
                COLLECTION_MEMBER.to_string(),
                json!({"type": "string", "description": format!("collection path fitting {}", t.collection_template)}),
            );
            required.push(Value::String(COLLECTION_MEMBER.to_string()));
        }
        let mut types_by_field: IndexMap<String, Vec<&'static str>> = IndexMap::new();
        for f in &t.fields {
            types_by_field.entry(f.clone()).or_default();
        }
        for e in state.entities.iter().filter(|e| e.type_name == t.name) {
            for (k, v) in &e.fields {
                let list = types_by_field.entry(k.clone()).or_default();
                let ty = json_type(v);
                if !list.contains(&ty) {
                    list.push(ty);
                }
            }
        }
        for (field, mut tys) in types_by_field {
            if field == t.id_field {
                tys.retain(|t| *t == "string" || *t == "integer" || *t == "number");
            }
            tys.sort_unstable();
            let schema = match tys.len() {
                0 => json!({}),
                1 => json!({"type": tys[0]}),
                _ => json!({"type": tys}),
            };
            properties.insert(field, schema);
        }
        out.insert(
            t.name.clone(),
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "title": t.name,
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": true
            }),
        );
    }
    out
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}
