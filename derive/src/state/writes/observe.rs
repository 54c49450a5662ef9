//! Where the entities of a type show in recorded responses: the entity
//! object of item reads and write answers, the array of list reads, and the
//! running "last seen" values of each entity along the timeline.

use super::input::{id_text, normalize_path, object_at, parent_path, TimelineRecord};
use crate::state::model::{EntityType, ViewPlan};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// How one type's entities sit in responses.
#[derive(Debug, Clone)]
pub(crate) struct TypeShape<'a> {
    pub entity_type: &'a EntityType,
    /// The item view's entity pointer, when the item view is a plan.
    pub item_pointer: Option<String>,
    /// List tool → its array pointer, for list views that are plans.
    pub list_pointers: HashMap<String, String>,
}

impl<'a> TypeShape<'a> {
    /// Collects the shape of every type from the read views.
    pub(crate) fn all(types: &'a [EntityType], views: &[ViewPlan]) -> Vec<TypeShape<'a>> {
        types
            .iter()
            .map(|t| {
                let mut shape = TypeShape {
                    entity_type: t,
                    item_pointer: None,
                    list_pointers: HashMap::new(),
                };
                for view in views {
                    match view {
                        ViewPlan::Item(p) if p.type_name == t.name => {
                            shape.item_pointer = Some(p.pointer.clone())
                        }
                        ViewPlan::List(p) if p.type_name == t.name => {
                            shape
                                .list_pointers
                                .insert(p.tool.clone(), p.pointer.clone());
                        }
                        _ => {}
                    }
                }
                shape
            })
            .collect()
    }

    pub(crate) fn id_field(&self) -> &str {
        &self.entity_type.id_field
    }

    /// The entity object of a single-entity response: at the item pointer,
    /// else the root, else the one wrapper member holding the id field.
    pub(crate) fn entity_in<'v>(
        &self,
        value: &'v Value,
    ) -> Option<(String, &'v Map<String, Value>)> {
        let id = self.id_field();
        let holds = |m: &Map<String, Value>| m.get(id).is_some_and(|v| id_text(v).is_some());
        if let Some(p) = &self.item_pointer {
            if let Some(m) = object_at(value, p).filter(|m| holds(m)) {
                return Some((p.clone(), m));
            }
        }
        let root = value.as_object()?;
        if holds(root) {
            return Some((String::new(), root));
        }
        let mut wrapped = root
            .iter()
            .filter_map(|(k, v)| Some((k, v.as_object()?)))
            .filter(|(_, m)| holds(m));
        let (k, m) = wrapped.next()?;
        wrapped
            .next()
            .is_none()
            .then(|| (format!("/{}", escape(k)), m))
    }

    /// The listed entities of a list response of `tool`.
    pub(crate) fn list_in<'v>(
        &self,
        tool: &str,
        value: &'v Value,
    ) -> Option<Vec<&'v Map<String, Value>>> {
        let pointer = self.list_pointers.get(tool)?;
        let items = super::input::at_pointer(value, pointer)?.as_array()?;
        Some(
            items
                .iter()
                .filter_map(Value::as_object)
                .filter(|m| m.contains_key(self.id_field()))
                .collect(),
        )
    }

    /// True when `tool` is this type's item tool.
    pub(crate) fn is_item_tool(&self, tool: &str) -> bool {
        self.entity_type.item_tool.as_deref() == Some(tool)
    }
}

fn escape(member: &str) -> String {
    member.replace('~', "~0").replace('/', "~1")
}

/// The key of one entity: its collection path and its identity as text.
pub(crate) type EntityKey = (String, String);

/// The last observed values of every entity, as the timeline goes.
#[derive(Debug, Clone, Default)]
pub(crate) struct LastSeen {
    pub entities: HashMap<EntityKey, Map<String, Value>>,
    /// Collection path → identities in first-seen order.
    pub order: HashMap<String, Vec<String>>,
}

impl LastSeen {
    /// Records one observed entity (later values replace earlier ones
    /// member by member, so sparse views keep what others supplied).
    pub(crate) fn see(&mut self, collection: &str, entity: &Map<String, Value>, id_field: &str) {
        let Some(id) = entity.get(id_field).and_then(id_text) else {
            return;
        };
        let key = (collection.to_string(), id.clone());
        let slot = self.entities.entry(key).or_insert_with(|| {
            self.order
                .entry(collection.to_string())
                .or_default()
                .push(id.clone());
            Map::new()
        });
        for (k, v) in entity {
            slot.insert(k.clone(), v.clone());
        }
    }

    /// Replaces an entity's values wholesale (a write answer or item read
    /// shows the whole entity).
    pub(crate) fn replace(
        &mut self,
        collection: &str,
        entity: &Map<String, Value>,
        id_field: &str,
    ) {
        let Some(id) = entity.get(id_field).and_then(id_text) else {
            return;
        };
        if !self
            .entities
            .contains_key(&(collection.to_string(), id.clone()))
        {
            self.order
                .entry(collection.to_string())
                .or_default()
                .push(id.clone());
        }
        self.entities
            .insert((collection.to_string(), id), entity.clone());
    }

    pub(crate) fn get(&self, collection: &str, id: &str) -> Option<&Map<String, Value>> {
        self.entities.get(&(collection.to_string(), id.to_string()))
    }

    /// Entities of one collection in first-seen order.
    pub(crate) fn collection(&self, collection: &str) -> Vec<&Map<String, Value>> {
        self.order
            .get(collection)
            .map(|ids| {
                ids.iter()
                    .filter_map(|id| self.get(collection, id))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Entities of every collection of the type (collections listed).
    pub(crate) fn all(&self, collections: &[String]) -> Vec<&Map<String, Value>> {
        collections
            .iter()
            .flat_map(|c| self.collection(c))
            .collect()
    }

    /// Takes in what a successful record shows about `shape`'s type.
    pub(crate) fn observe(&mut self, shape: &TypeShape<'_>, rec: &TimelineRecord) {
        let (Some(path), Some(tool), Some(body)) = (
            rec.path.as_deref(),
            rec.tool.as_deref(),
            rec.response_body.json(),
        ) else {
            return;
        };
        if !rec.succeeded() {
            return;
        }
        if let Some(items) = shape.list_in(tool, body) {
            let collection = normalize_path(path);
            for item in items {
                self.see(&collection, item, shape.id_field());
            }
        } else if shape.is_item_tool(tool) || rec.method != "GET" {
            if let Some((_, entity)) = shape.entity_in(body) {
                let collection = if rec.method == "POST"
                    && !shape.is_item_tool(tool)
                    && !path_names_entity(path, entity, shape.id_field())
                {
                    normalize_path(path)
                } else {
                    parent_path(path)
                };
                self.replace(&collection, entity, shape.id_field());
            }
        }
    }
}

/// True when the path's last segment is the entity's identity.
pub(crate) fn path_names_entity(path: &str, entity: &Map<String, Value>, id_field: &str) -> bool {
    let last = path
        .split('/')
        .rfind(|s| !s.is_empty())
        .map(super::input::percent_decode);
    entity
        .get(id_field)
        .and_then(id_text)
        .is_some_and(|id| Some(id) == last)
}
