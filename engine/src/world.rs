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
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// The member naming a row's collection path in exports and imports.
pub const COLLECTION_MEMBER: &str = "_collection";

/// Entities by type, then collection path, each collection in state order
/// with an identity index; and documents by path. Cloning is cheap (the
/// collections and documents are persistent and shared until written), so
/// `data/reset` and isolated copies of a starting World cost no copy of
/// the entities.
#[derive(Default)]
pub struct World {
    collections: IndexMap<String, IndexMap<String, Collection>>,
    pub documents: Documents,
    trace: Trace,
}

impl Clone for World {
    fn clone(&self) -> World {
        World {
            collections: self.collections.clone(),
            documents: self.documents.clone(),
            trace: Trace::default(),
        }
    }
}

impl PartialEq for World {
    fn eq(&self, other: &World) -> bool {
        self.collections == other.collections && self.documents == other.documents
    }
}

impl std::fmt::Debug for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("World")
            .field("collections", &self.collections)
            .field("documents", &self.documents)
            .finish()
    }
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

/// The distance between neighbouring order keys when a collection is laid
/// out afresh: room for 32 halvings between two neighbours before the
/// collection is renumbered.
const GAP: u64 = 1 << 32;

/// One held entity. A row loaded through the data plane is kept as the
/// JSON text of its fields (a tenth of the memory of parsed members) and
/// parsed once, when the entity is first read; others are held built.
#[derive(Clone)]
struct Held {
    /// The identity (`Entity::id`), for the index without parsing.
    id: Value,
    built: std::sync::OnceLock<Box<Entity>>,
    /// The fields' JSON text, until built (`None` once built).
    text: Option<Box<str>>,
    /// The type and collection path, shared by the rows of one load.
    place: Arc<(String, String)>,
}

impl Held {
    fn built(entity: Entity) -> Held {
        Held {
            id: entity.id.clone(),
            built: std::sync::OnceLock::from(Box::new(entity)),
            text: None,
            place: Arc::default(),
        }
    }

    /// A loaded row, its text written through `scratch` (reused from row to
    /// row, so each text is one allocation of its exact size, not a string
    /// grown by doubling and then shrunk).
    fn row(
        id: Value,
        fields: &Map<String, Value>,
        place: &Arc<(String, String)>,
        scratch: &mut Vec<u8>,
    ) -> Held {
        scratch.clear();
        let text: Box<str> = match serde_json::to_writer(&mut *scratch, fields) {
            // serde_json writes UTF-8 only.
            Ok(()) => std::str::from_utf8(scratch).unwrap_or("{}").into(),
            Err(_) => "{}".into(),
        };
        Held {
            id,
            built: std::sync::OnceLock::new(),
            text: Some(text),
            place: place.clone(),
        }
    }

    /// The fields of a row held as text (`None` once built).
    fn fields_of_text(&self) -> Option<Map<String, Value>> {
        let text = self.text.as_deref()?;
        Some(serde_json::from_str(text).unwrap_or_default())
    }

    /// The entity a row's text describes.
    fn build(&self) -> Box<Entity> {
        Box::new(Entity {
            type_name: self.place.0.clone(),
            collection: self.place.1.clone(),
            id: self.id.clone(),
            fields: self.fields_of_text().unwrap_or_default(),
            view_fields: IndexMap::new(),
            record_ordinals: Vec::new(),
        })
    }

    fn entity(&self) -> &Entity {
        self.built.get_or_init(|| self.build())
    }

    fn entity_mut(&mut self) -> Option<&mut Entity> {
        if self.built.get().is_none() {
            let entity = self.build();
            let _ = self.built.set(entity);
        }
        self.text = None;
        self.built.get_mut().map(|e| &mut **e)
    }

    fn into_entity(self) -> Entity {
        let Held {
            id,
            built,
            text,
            place,
        } = self;
        match built.into_inner() {
            Some(e) => *e,
            None => {
                let unbuilt = Held {
                    id,
                    built: std::sync::OnceLock::new(),
                    text,
                    place,
                };
                *unbuilt.build()
            }
        }
    }
}

/// One collection path's entities: in list order (by an order key, so an
/// insert anywhere costs O(log n) once its neighbours are known) with an
/// index from identity to order key. Persistent: a clone shares every node.
#[derive(Clone, Default)]
pub struct Collection {
    order: imbl::OrdMap<u64, Arc<Held>>,
    /// String identities, then numeric ones by their text (`id_matches`).
    strings: imbl::HashMap<Box<str>, u64>,
    numbers: imbl::HashMap<Box<str>, u64>,
    /// How many identities have each sequence value (`shapes::sequence_value`),
    /// so the next sequence identity costs O(log n).
    sequence: imbl::OrdMap<i64, u32>,
    /// Set once an identity is held twice (a state that repeats one): the
    /// index then names the first holder, and lookups and removals walk the
    /// list in order as the plain list would.
    repeated: bool,
}

impl PartialEq for Collection {
    fn eq(&self, other: &Collection) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl std::fmt::Debug for Collection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The kinds of identity some entities hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IdKinds {
    pub string: bool,
    pub number: bool,
    /// An identity that is neither a string nor a number.
    pub other: bool,
}

impl IdKinds {
    fn with(self, id: &Value) -> IdKinds {
        let mut kinds = self;
        match id {
            Value::String(_) => kinds.string = true,
            Value::Number(_) => kinds.number = true,
            _ => kinds.other = true,
        }
        kinds
    }

    fn or(self, other: IdKinds) -> IdKinds {
        IdKinds {
            string: self.string || other.string,
            number: self.number || other.number,
            other: self.other || other.other,
        }
    }
}

enum IdKey<'a> {
    Str(&'a str),
    Num(String),
}

fn id_key(id: &Value) -> Option<IdKey<'_>> {
    match id {
        Value::String(s) => Some(IdKey::Str(s)),
        Value::Number(n) => Some(IdKey::Num(n.to_string())),
        _ => None,
    }
}

impl Collection {
    /// Number of entities.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// True when the collection holds no entity.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The entities in list order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Entity> + ExactSizeIterator {
        self.order.values().map(|e| e.entity())
    }

    /// The first entity in list order.
    pub fn first(&self) -> Option<&Entity> {
        self.order.get_min().map(|(_, e)| e.entity())
    }

    /// The order key of the first entity whose identity is the path value `id`.
    fn key_of(&self, id: &str) -> Option<u64> {
        if self.repeated {
            return self
                .order
                .iter()
                .find(|(_, e)| id_matches(&e.id, id))
                .map(|(k, _)| *k);
        }
        match (self.strings.get(id), self.numbers.get(id)) {
            (Some(a), Some(b)) => Some(*a.min(b)),
            (a, b) => a.or(b).copied(),
        }
    }

    /// The entity whose identity is the path value `id`.
    pub fn get(&self, id: &str) -> Option<&Entity> {
        self.order.get(&self.key_of(id)?).map(|e| e.entity())
    }

    /// True when an entity with the same identity as `id` is held.
    pub fn holds(&self, id: &Value) -> bool {
        match id_key(id) {
            Some(IdKey::Str(s)) => self.strings.contains_key(s),
            Some(IdKey::Num(n)) => self.numbers.contains_key(n.as_str()),
            None => false,
        }
    }

    /// The first entity with the same identity as `id` (`same_id`).
    pub fn find(&self, id: &Value) -> Option<&Entity> {
        if self.repeated {
            return self.iter().find(|e| same_id(&e.id, id));
        }
        let key = match id_key(id)? {
            IdKey::Str(s) => self.strings.get(s),
            IdKey::Num(n) => self.numbers.get(n.as_str()),
        }?;
        self.order.get(key).map(|e| e.entity())
    }

    fn get_mut(&mut self, id: &str) -> Option<&mut Entity> {
        let key = self.key_of(id)?;
        self.order
            .get_mut(&key)
            .and_then(|e| Arc::make_mut(e).entity_mut())
    }

    /// Which kinds of identity the collection holds, read from the index
    /// (or, once an identity repeats, from the held identities), so no row
    /// is parsed and no entity built.
    fn id_kinds(&self) -> IdKinds {
        if self.repeated {
            return self
                .order
                .values()
                .fold(IdKinds::default(), |kinds, e| kinds.with(&e.id));
        }
        IdKinds {
            string: !self.strings.is_empty(),
            number: !self.numbers.is_empty(),
            other: self.len() > self.strings.len() + self.numbers.len(),
        }
    }

    /// The largest sequence value among the identities held.
    pub fn max_sequence_id(&self) -> Option<i64> {
        self.sequence.get_max().map(|(n, _)| *n)
    }

    fn index(&mut self, id: &Value, key: u64) {
        if let Some(n) = crate::shapes::sequence_value(id) {
            *self.sequence.entry(n).or_insert(0) += 1;
        }
        let slot = match id_key(id) {
            Some(IdKey::Str(s)) => self.strings.entry(s.into()),
            Some(IdKey::Num(n)) => self.numbers.entry(n.into_boxed_str()),
            None => return,
        };
        match slot {
            imbl::hashmap::Entry::Occupied(mut o) => {
                self.repeated = true;
                if key < *o.get() {
                    o.insert(key);
                }
            }
            imbl::hashmap::Entry::Vacant(v) => {
                v.insert(key);
            }
        }
    }

    fn unindex(&mut self, id: &Value) {
        if let Some(n) = crate::shapes::sequence_value(id) {
            if let Some(count) = self.sequence.get_mut(&n) {
                *count -= 1;
                if *count == 0 {
                    self.sequence.remove(&n);
                }
            }
        }
        match id_key(id) {
            Some(IdKey::Str(s)) => {
                self.strings.remove(s);
            }
            Some(IdKey::Num(n)) => {
                self.numbers.remove(n.as_str());
            }
            None => {}
        }
    }

    /// Appends in list order (building a collection).
    fn push(&mut self, entity: Entity) {
        self.insert(entity, None);
    }

    /// Inserts at `index` of the list (clamped; `None`: last).
    fn insert(&mut self, entity: Entity, index: Option<usize>) {
        self.insert_held(Held::built(entity), index);
    }

    fn insert_held(&mut self, held: Held, index: Option<usize>) {
        let len = self.len();
        let at = index.unwrap_or(len).min(len);
        let key = match self.key_at(at) {
            Some(k) => k,
            None => {
                self.renumber();
                self.key_at(at).unwrap_or(u64::MAX / 2)
            }
        };
        self.index(&held.id, key);
        self.order.insert(key, Arc::new(held));
    }

    /// A free order key between the entities at `at - 1` and `at`, or
    /// `None` when they are neighbours (the collection needs renumbering).
    fn key_at(&self, at: usize) -> Option<u64> {
        let len = self.len();
        if len == 0 {
            return Some(u64::MAX / 2);
        }
        if at == len {
            return self.order.get_max().and_then(|(k, _)| k.checked_add(GAP));
        }
        if at == 0 {
            return self.order.get_min().and_then(|(k, _)| k.checked_sub(GAP));
        }
        // From whichever end is nearer.
        let (before, after) = if at <= len / 2 {
            let mut keys = self.order.keys().skip(at - 1);
            (*keys.next()?, *keys.next()?)
        } else {
            let mut keys = self.order.keys().rev().skip(len - at - 1);
            let after = *keys.next()?;
            (*keys.next()?, after)
        };
        (after - before > 1).then(|| before + (after - before) / 2)
    }

    /// Lays the order keys out afresh, `GAP` apart around the middle.
    fn renumber(&mut self) {
        let entities: Vec<Arc<Held>> = self.order.values().cloned().collect();
        *self = Collection::default();
        let start = u64::MAX / 2 - (entities.len() as u64 / 2).saturating_mul(GAP);
        for (i, e) in entities.into_iter().enumerate() {
            let key = start + i as u64 * GAP;
            let id = e.id.clone();
            self.order.insert(key, e);
            self.index(&id, key);
        }
    }

    /// Removes and returns the entity whose identity is the path value `id`.
    fn remove(&mut self, id: &str) -> Option<Entity> {
        let key = self.key_of(id)?;
        let entity = self.order.remove(&key)?;
        if self.repeated {
            self.renumber();
        } else {
            self.unindex(&entity.id);
        }
        Some(Arc::unwrap_or_clone(entity).into_entity())
    }
}

/// The documents by path, shared until written.
#[derive(Default)]
pub struct Documents {
    values: Arc<IndexMap<String, Value>>,
    /// Set when a document was read or written while tracing (see `World::trace`).
    read: AtomicBool,
    written: bool,
}

impl Clone for Documents {
    fn clone(&self) -> Documents {
        Documents {
            values: self.values.clone(),
            read: AtomicBool::new(false),
            written: false,
        }
    }
}

impl PartialEq for Documents {
    fn eq(&self, other: &Documents) -> bool {
        self.values == other.values
    }
}

impl std::fmt::Debug for Documents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.values.fmt(f)
    }
}

impl Documents {
    fn seen(&self) {
        self.read.store(true, Ordering::Relaxed);
    }
    fn values_mut(&mut self) -> &mut IndexMap<String, Value> {
        self.written = true;
        Arc::make_mut(&mut self.values)
    }
    pub fn get(&self, path: &str) -> Option<&Value> {
        self.seen();
        self.values.get(path)
    }
    pub fn contains_key(&self, path: &str) -> bool {
        self.seen();
        self.values.contains_key(path)
    }
    pub fn len(&self) -> usize {
        self.seen();
        self.values.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn iter(&self) -> indexmap::map::Iter<'_, String, Value> {
        self.seen();
        self.values.iter()
    }
    pub fn insert(&mut self, path: String, value: Value) -> Option<Value> {
        self.values_mut().insert(path, value)
    }
    pub fn retain(&mut self, keep: impl FnMut(&String, &mut Value) -> bool) {
        self.values_mut().retain(keep);
    }
}

/// What one traced call read and wrote of a World: collections by (type,
/// collection path), whole types (a walk over every collection of one), and
/// the documents (as one dependency).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Footprint {
    pub read_collections: HashSet<(String, String)>,
    pub read_types: HashSet<String>,
    pub written_collections: HashSet<(String, String)>,
    pub read_documents: bool,
    pub written_documents: bool,
}

impl Footprint {
    /// True when the call wrote nothing it traced.
    pub fn wrote_nothing(&self) -> bool {
        self.written_collections.is_empty() && !self.written_documents
    }
}

/// The trace of a World while one call is traced (`World::begin_trace`).
#[derive(Default)]
struct Trace {
    on: AtomicBool,
    log: Mutex<Footprint>,
}

fn note(set: &mut HashSet<(String, String)>, type_name: &str, collection: &str) {
    if !set.iter().any(|(t, c)| t == type_name && c == collection) {
        set.insert((type_name.to_string(), collection.to_string()));
    }
}

impl Trace {
    fn log(&self) -> Option<std::sync::MutexGuard<'_, Footprint>> {
        self.on
            .load(Ordering::Relaxed)
            .then(|| self.log.lock().unwrap_or_else(|p| p.into_inner()))
    }
    fn read(&self, type_name: &str, collection: &str) {
        if let Some(mut log) = self.log() {
            note(&mut log.read_collections, type_name, collection);
        }
    }
    fn read_type(&self, type_name: &str) {
        if let Some(mut log) = self.log() {
            if !log.read_types.contains(type_name) {
                log.read_types.insert(type_name.to_string());
            }
        }
    }
    fn write(&mut self, type_name: &str, collection: &str) {
        if *self.on.get_mut() {
            let log = self.log.get_mut().unwrap_or_else(|p| p.into_inner());
            note(&mut log.written_collections, type_name, collection);
        }
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
        let documents = world.documents.values_mut();
        for d in &state.documents {
            documents.insert(d.path.clone(), d.value.clone());
        }
        world
    }

    /// Starts recording which types and documents this World is read and
    /// written at, until `end_trace` (the serving read cache keys on it).
    pub fn begin_trace(&mut self) {
        *self.trace.on.get_mut() = true;
        *self.trace.log.get_mut().unwrap_or_else(|p| p.into_inner()) = Footprint::default();
        *self.documents.read.get_mut() = false;
        self.documents.written = false;
    }

    /// What was read and written since `begin_trace`; stops tracing.
    pub fn end_trace(&mut self) -> Footprint {
        *self.trace.on.get_mut() = false;
        let mut log = std::mem::take(self.trace.log.get_mut().unwrap_or_else(|p| p.into_inner()));
        log.read_documents = *self.documents.read.get_mut();
        log.written_documents = self.documents.written;
        log
    }

    /// Every collection by type, then collection path.
    pub fn collections(&self) -> &IndexMap<String, IndexMap<String, Collection>> {
        for t in self.collections.keys() {
            self.trace.read_type(t);
        }
        &self.collections
    }

    /// The entities of one collection path, in state order.
    pub fn list(&self, type_name: &str, collection: &str) -> &Collection {
        static EMPTY: std::sync::OnceLock<Collection> = std::sync::OnceLock::new();
        self.trace.read(type_name, collection);
        self.collections
            .get(type_name)
            .and_then(|c| c.get(collection))
            .unwrap_or_else(|| EMPTY.get_or_init(Collection::default))
    }

    /// Which kinds of identity (string, number, other) the entities of one
    /// type hold, without building them.
    pub fn id_kinds_of_type(&self, type_name: &str) -> IdKinds {
        self.collections_of_type(type_name)
            .map(Collection::id_kinds)
            .fold(IdKinds::default(), IdKinds::or)
    }

    /// Every entity of one type, collection by collection.
    pub fn entities_of_type(&self, type_name: &str) -> impl Iterator<Item = &Entity> {
        self.collections_of_type(type_name)
            .flat_map(Collection::iter)
    }

    /// The collections of one type (a read of the whole type).
    fn collections_of_type(&self, type_name: &str) -> impl Iterator<Item = &Collection> {
        self.trace.read_type(type_name);
        self.collections
            .get(type_name)
            .into_iter()
            .flat_map(|c| c.values())
    }

    /// The entity of `collection` whose identity is `id` (a path value).
    pub fn entity(&self, type_name: &str, collection: &str, id: &str) -> Option<&Entity> {
        self.list(type_name, collection).get(id)
    }

    /// True when `collection` holds an entity with the same identity as `id`.
    pub fn holds(&self, type_name: &str, collection: &str, id: &Value) -> bool {
        self.list(type_name, collection).holds(id)
    }

    /// Mutable access to one entity (its identity stays as it is).
    pub fn entity_mut(
        &mut self,
        type_name: &str,
        collection: &str,
        id: &str,
    ) -> Option<&mut Entity> {
        self.trace.write(type_name, collection);
        self.collections
            .get_mut(type_name)?
            .get_mut(collection)?
            .get_mut(id)
    }

    /// Inserts an entity at `index` of its collection (clamped; `None`: last).
    pub fn insert(&mut self, entity: Entity, index: Option<usize>) {
        self.trace.write(&entity.type_name, &entity.collection);
        self.collections
            .entry(entity.type_name.clone())
            .or_default()
            .entry(entity.collection.clone())
            .or_default()
            .insert(entity, index);
    }

    /// Removes and returns one entity.
    pub fn remove(&mut self, type_name: &str, collection: &str, id: &str) -> Option<Entity> {
        self.trace.write(type_name, collection);
        self.collections
            .get_mut(type_name)?
            .get_mut(collection)?
            .remove(id)
    }

    /// Number of entities held.
    pub fn entity_count(&self) -> usize {
        self.collections
            .values()
            .flat_map(|c| c.values())
            .map(Collection::len)
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
            // A row held as text is read for the export, not built.
            let rows: Vec<Value> = by_path
                .iter()
                .flat_map(|(path, entities)| entities.order.values().map(move |e| (path, e)))
                .map(|(path, held)| {
                    let mut row = Map::new();
                    if spans {
                        row.insert(COLLECTION_MEMBER.to_string(), Value::String(path.clone()));
                    }
                    match held.built.get() {
                        Some(e) => {
                            for (k, v) in &e.fields {
                                row.insert(k.clone(), v.clone());
                            }
                        }
                        None => row.extend(held.fields_of_text().unwrap_or_default()),
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
        // Built as is: `json!` would copy every row through `to_value`.
        let mut world = Map::new();
        world.insert("collections".to_string(), Value::Object(collections));
        world.insert("documents".to_string(), Value::Object(documents));
        Value::Object(world)
    }

    /// Builds a World from the data-plane shape, validated against the
    /// state's types and documents. On any error nothing is built.
    pub fn import(value: &Value, state: &State) -> Result<World, ErrorReport> {
        World::import_owned(value.clone(), state)
    }

    /// A World from tables given row by row (`data/add`'s one replacing
    /// part, read from its text a row at a time): each row is checked and
    /// held as text as `import_owned` does, and its parsed members are freed
    /// at once, so the payload is never held parsed as a whole. Tables not
    /// named are empty and there are no documents. On any error nothing is
    /// built.
    pub fn import_streamed(
        tables: Vec<(String, &mut dyn Iterator<Item = Value>)>,
        state: &State,
    ) -> Result<World, ErrorReport> {
        let mut world = World::default();
        for t in &state.types {
            world.collections.entry(t.name.clone()).or_default();
        }
        let mut scratch = Vec::new();
        for (type_name, rows) in tables {
            let Some(t) = state.types.iter().find(|t| t.name == type_name) else {
                return Err(invalid(
                    &format!("unknown collection `{type_name}`"),
                    Some(&type_name),
                    None,
                    None,
                ));
            };
            import_rows(&mut world, t, rows, None, &mut scratch)?;
        }
        Ok(world)
    }

    /// `import`, taking the value: its rows become the entities without a copy.
    pub fn import_owned(value: Value, state: &State) -> Result<World, ErrorReport> {
        let Value::Object(mut root) = value else {
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
        // The parsed rows, freed together once every row is held as text:
        // freed one by one, the texts would land in their holes and keep
        // the heap's pages from going back to the system.
        let mut parsed: Vec<Map<String, Value>> = Vec::new();
        let mut scratch = Vec::new();
        match root.shift_remove("collections") {
            None | Some(Value::Null) => {}
            Some(Value::Object(collections)) => {
                for (type_name, rows) in collections {
                    let type_name = type_name.as_str();
                    let Some(t) = state.types.iter().find(|t| t.name == type_name) else {
                        return Err(invalid(
                            &format!("unknown collection `{type_name}`"),
                            Some(type_name),
                            None,
                            None,
                        ));
                    };
                    let Value::Array(rows) = rows else {
                        return Err(invalid(
                            &format!("collection `{type_name}` must be an array of rows"),
                            Some(type_name),
                            None,
                            None,
                        ));
                    };
                    import_rows(
                        &mut world,
                        t,
                        rows.into_iter(),
                        Some(&mut parsed),
                        &mut scratch,
                    )?;
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
        match root.shift_remove("documents") {
            None | Some(Value::Null) => {}
            Some(Value::Object(docs)) => {
                for (path, v) in docs {
                    if !state.documents.iter().any(|d| d.path == path) {
                        return Err(invalid(
                            &format!("unknown document `{path}`"),
                            Some("documents"),
                            None,
                            Some(&path),
                        ));
                    }
                    world.documents.insert(path, v);
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

/// One row → its entity. `fixed`: the one collection path of a type whose
/// template has no parameter (rows then need no `_collection`).
/// One type's rows into `world`: each checked (`import_row`, a duplicate
/// identity) and held as text. The parsed members go to `keep` when given
/// (freed together by the caller), else are freed row by row.
fn import_rows(
    world: &mut World,
    t: &EntityType,
    rows: impl Iterator<Item = Value>,
    mut keep: Option<&mut Vec<Map<String, Value>>>,
    scratch: &mut Vec<u8>,
) -> Result<(), ErrorReport> {
    let type_name = t.name.as_str();
    let template = compile(&t.collection_template);
    let spans = template.iter().any(|s| matches!(s, Segment::Param(_)));
    let fixed = (!spans).then(|| normalize_path(&t.collection_template));
    let by_path = world.collections.entry(t.name.clone()).or_default();
    let mut place: Arc<(String, String)> = Arc::default();
    for (i, row) in rows.into_iter().enumerate() {
        let entity = import_row(t, &template, fixed.as_deref(), i, row)?;
        if !by_path.contains_key(&entity.collection) {
            by_path.insert(entity.collection.clone(), Collection::default());
        }
        let Some(list) = by_path.get_mut(&entity.collection) else {
            continue;
        };
        if list.holds(&entity.id) {
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
        // Held as text until read: the row's parsed members
        // are freed here.
        if place.0 != entity.type_name || place.1 != entity.collection {
            place = Arc::new((entity.type_name.clone(), entity.collection.clone()));
        }
        list.insert_held(Held::row(entity.id, &entity.fields, &place, scratch), None);
        if let Some(keep) = keep.as_deref_mut() {
            keep.push(entity.fields);
        }
    }
    Ok(())
}

fn import_row(
    t: &EntityType,
    template: &[Segment],
    fixed: Option<&str>,
    i: usize,
    row: Value,
) -> Result<Entity, ErrorReport> {
    let name = &t.name;
    let Value::Object(mut obj) = row else {
        return Err(invalid(
            &format!("collection `{name}` row {i} must be an object"),
            Some(name),
            Some(i),
            None,
        ));
    };
    let collection = match (obj.get(COLLECTION_MEMBER), fixed) {
        (Some(Value::String(p)), _) => {
            let p = normalize_path(p);
            if !crate::route::fits(template, &path_segments(&p)) {
                return Err(invalid(
                    &format!("collection `{name}` row {i}: `{COLLECTION_MEMBER}` {p} does not fit {}", t.collection_template),
                    Some(name),
                    Some(i),
                    Some(COLLECTION_MEMBER),
                ));
            }
            p
        }
        (None, Some(fixed)) => fixed.to_string(),
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
    obj.shift_remove(COLLECTION_MEMBER);
    let fields = obj;
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
                let ty = crate::schemas::json_type(v);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(collection: &str, id: Value) -> Entity {
        let mut fields = Map::new();
        fields.insert("id".into(), id.clone());
        Entity {
            type_name: "items".into(),
            collection: collection.into(),
            id,
            fields,
            view_fields: IndexMap::new(),
            record_ordinals: Vec::new(),
        }
    }

    fn ids(world: &World) -> Vec<Value> {
        world
            .list("items", "/api/items")
            .iter()
            .map(|e| e.id.clone())
            .collect()
    }

    #[test]
    fn inserts_keep_list_order_at_every_position() {
        let mut world = World::default();
        let mut expected: Vec<Value> = Vec::new();
        // Front, back and middle inserts, with enough at one spot to force
        // renumbering (more than 32 halvings of one gap).
        for i in 0..200u64 {
            let at = match i % 4 {
                0 => 0,
                1 => expected.len(),
                2 => expected.len() / 2,
                _ => 1.min(expected.len()),
            };
            let id = json!(format!("e{i}"));
            world.insert(entity("/api/items", id.clone()), Some(at));
            expected.insert(at, id);
        }
        for i in 0..40u64 {
            let id = json!(format!("r{i}"));
            world.insert(entity("/api/items", id.clone()), Some(1));
            expected.insert(1, id);
        }
        world.insert(entity("/api/items", json!("last")), None);
        expected.push(json!("last"));
        world.insert(entity("/api/items", json!("clamped")), Some(10_000));
        expected.push(json!("clamped"));
        assert_eq!(ids(&world), expected);
        assert_eq!(world.entity_count(), expected.len());
        for id in &expected {
            let text = id.as_str().unwrap();
            assert_eq!(
                world.entity("items", "/api/items", text).map(|e| &e.id),
                Some(id)
            );
        }
        let removed = world.remove("items", "/api/items", "e7").map(|e| e.id);
        assert_eq!(removed, Some(json!("e7")));
        expected.retain(|v| v != &json!("e7"));
        assert_eq!(ids(&world), expected);
        assert!(world.entity("items", "/api/items", "e7").is_none());
    }

    #[test]
    fn numeric_and_string_identities_are_looked_up_as_path_values() {
        let mut world = World::default();
        world.insert(entity("/api/items", json!(7)), None);
        world.insert(entity("/api/items", json!("7")), None);
        world.insert(entity("/api/items", json!(1.5)), None);
        // The first holder in list order answers a path value, as a scan would.
        let first = world
            .entity("items", "/api/items", "7")
            .map(|e| e.id.clone());
        assert_eq!(first, Some(json!(7)));
        assert!(world.holds("items", "/api/items", &json!("7")));
        assert!(world.holds("items", "/api/items", &json!(1.5)));
        assert!(!world.holds("items", "/api/items", &json!(8)));
        assert_eq!(
            world
                .list("items", "/api/items")
                .find(&json!("7"))
                .map(|e| &e.id),
            Some(&json!("7"))
        );
        world.remove("items", "/api/items", "7");
        let next = world
            .entity("items", "/api/items", "7")
            .map(|e| e.id.clone());
        assert_eq!(next, Some(json!("7")));
        assert!(world.entity("items", "/api/other", "7").is_none());
    }

    #[test]
    fn the_next_sequence_identity_follows_the_largest_held() {
        let mut world = World::default();
        let max = |w: &World| w.list("items", "/api/items").max_sequence_id();
        assert_eq!(max(&world), None);
        world.insert(entity("/api/items", json!(3)), None);
        world.insert(entity("/api/items", json!("12")), None);
        world.insert(entity("/api/items", json!("abc")), None);
        world.insert(entity("/api/items", json!(12)), None);
        assert_eq!(max(&world), Some(12));
        world.remove("items", "/api/items", "12");
        assert_eq!(max(&world), Some(12), "another identity still has 12");
        world.remove("items", "/api/items", "12");
        assert_eq!(max(&world), Some(3));
    }

    #[test]
    fn a_repeated_identity_answers_as_the_plain_list_would() {
        let mut world = World::default();
        let mut a = entity("/api/items", json!("x"));
        a.fields.insert("n".into(), json!(1));
        let mut b = entity("/api/items", json!("x"));
        b.fields.insert("n".into(), json!(2));
        world.insert(a, None);
        world.insert(b, Some(0));
        let n = |w: &World| {
            w.entity("items", "/api/items", "x")
                .map(|e| e.fields["n"].clone())
        };
        assert_eq!(n(&world), Some(json!(2)));
        world.remove("items", "/api/items", "x");
        assert_eq!(n(&world), Some(json!(1)));
        world.remove("items", "/api/items", "x");
        assert_eq!(n(&world), None);
    }

    /// A state with one type, `items`, at `/api/items` (identity `id`).
    fn items_state() -> State {
        State {
            view: "environment-state".into(),
            basis: "inferred".into(),
            origin: "http://127.0.0.1".into(),
            name: "test".into(),
            template_rules: Vec::new(),
            timeline_order: crate::state::TimelineOrder::RecordOrder,
            timeline: Vec::new(),
            state_writes: Vec::new(),
            types: vec![EntityType {
                name: "items".into(),
                collection_template: "/api/items".into(),
                root: "/api/items".into(),
                id_field: "id".into(),
                id_basis: crate::state::IdBasis::FieldName,
                volatile_fields: Vec::new(),
                fields: vec!["id".into()],
                item_tool: None,
                list_tools: Vec::new(),
                recorded_reason: None,
            }],
            entities: Vec::new(),
            documents: Vec::new(),
            views: Vec::new(),
            writes: Vec::new(),
            write_clock: None,
            unknowns: Vec::new(),
            limitations: Vec::new(),
        }
    }

    fn rows(n: usize) -> Value {
        let rows: Vec<Value> = (0..n)
            .map(|i| json!({"id": format!("r{i}"), "n": i, "price": 1.25, "tags": ["a"], "nested": {"b": null}}))
            .collect();
        json!({"collections": {"items": rows}})
    }

    #[test]
    fn loaded_rows_keep_their_order_ids_and_members_and_export_as_loaded() {
        let state = items_state();
        let world = World::import_owned(rows(50), &state).unwrap();
        let list = world.list("items", "/api/items");
        assert_eq!(list.len(), 50);
        let expected: Vec<Value> = (0..50).map(|i| json!(format!("r{i}"))).collect();
        assert_eq!(ids(&world), expected);
        let e = world.entity("items", "/api/items", "r7").unwrap();
        assert_eq!(e.type_name, "items");
        assert_eq!(e.collection, "/api/items");
        assert_eq!(
            Value::Object(e.fields.clone()),
            json!({"id": "r7", "n": 7, "price": 1.25, "tags": ["a"], "nested": {"b": null}})
        );
        // Members keep their order, rows are exported as they were loaded
        // (read or not).
        let keys: Vec<&String> = e.fields.keys().collect();
        assert_eq!(keys, ["id", "n", "price", "tags", "nested"]);
        let exported = world.export(&state.types);
        assert_eq!(exported["collections"], rows(50)["collections"]);
        assert_eq!(World::import_owned(exported, &state).unwrap(), world);
    }

    #[test]
    fn id_kinds_are_read_from_the_index_without_building_a_loaded_row() {
        let state = items_state();
        let world = World::import_owned(rows(20), &state).unwrap();
        let kinds = world.id_kinds_of_type("items");
        assert_eq!(
            kinds,
            IdKinds {
                string: true,
                number: false,
                other: false
            }
        );
        let list = world.list("items", "/api/items");
        assert!(list.order.values().all(|e| e.built.get().is_none()));
        assert_eq!(world.id_kinds_of_type("absent"), IdKinds::default());

        let mut mixed = World::default();
        mixed.insert(entity("/api/items", json!(7)), None);
        mixed.insert(entity("/api/other", json!(null)), None);
        let kinds = mixed.id_kinds_of_type("items");
        assert!(kinds.number && kinds.other && !kinds.string);
        // Once an identity repeats, the kinds come from the held identities.
        mixed.insert(entity("/api/items", json!(7)), None);
        mixed.insert(entity("/api/items", json!("s")), None);
        let kinds = mixed.id_kinds_of_type("items");
        assert!(kinds.number && kinds.other && kinds.string);
    }

    #[test]
    fn loaded_rows_are_written_and_removed_like_built_ones() {
        let state = items_state();
        let start = World::import_owned(rows(10), &state).unwrap();
        let mut world = start.clone();
        world
            .entity_mut("items", "/api/items", "r3")
            .unwrap()
            .fields
            .insert("changed".into(), json!(true));
        let removed = world.remove("items", "/api/items", "r4").unwrap();
        assert_eq!(removed.fields["n"], json!(4));
        world.insert(entity("/api/items", json!("new")), Some(0));
        assert_eq!(ids(&world)[0], json!("new"));
        assert_eq!(world.list("items", "/api/items").len(), 10);
        let three = world.entity("items", "/api/items", "r3").unwrap();
        assert_eq!(three.fields["changed"], json!(true));
        // The World it came from is as loaded.
        assert!(!start
            .entity("items", "/api/items", "r3")
            .unwrap()
            .fields
            .contains_key("changed"));
        assert!(start.entity("items", "/api/items", "r4").is_some());
        let exported = world.export(&state.types);
        assert_eq!(exported["collections"]["items"][0], json!({"id": "new"}));
        assert_eq!(exported["collections"]["items"][4]["changed"], json!(true));
    }

    #[test]
    fn a_bad_row_refuses_the_whole_load() {
        let state = items_state();
        let mut value = rows(5);
        value["collections"]["items"][3] = json!({"id": "r1"});
        let e = World::import_owned(value, &state).unwrap_err();
        assert!(e.message.contains("row 3: duplicate `id`"), "{}", e.message);
        let mut value = rows(5);
        value["collections"]["items"][2] = json!({"id": {"x": 1}});
        let e = World::import_owned(value, &state).unwrap_err();
        assert!(
            e.message
                .contains("row 2: `id` must be a string or a number"),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_clone_is_independent_of_the_world_it_came_from() {
        let mut world = World::default();
        for i in 0..100 {
            world.insert(entity("/api/items", json!(i)), None);
        }
        world
            .documents
            .insert("/api/settings".into(), json!({"a": 1}));
        let start = world.clone();
        assert_eq!(start, world);
        world.remove("items", "/api/items", "3");
        world
            .entity_mut("items", "/api/items", "4")
            .unwrap()
            .fields
            .insert("changed".into(), json!(true));
        world
            .documents
            .insert("/api/settings".into(), json!({"a": 2}));
        assert_ne!(start, world);
        assert_eq!(start.list("items", "/api/items").len(), 100);
        assert!(start.entity("items", "/api/items", "3").is_some());
        let four = start.entity("items", "/api/items", "4").unwrap();
        assert!(!four.fields.contains_key("changed"));
        assert_eq!(start.documents.get("/api/settings"), Some(&json!({"a": 1})));
    }

    #[test]
    fn a_trace_names_the_types_and_documents_read_and_written() {
        let mut world = World::default();
        world.insert(entity("/api/items", json!("a")), None);
        world.begin_trace();
        let _ = world.entity("items", "/api/items", "a");
        let _ = world.documents.get("/x");
        world.remove("others", "/api/others", "b");
        let trace = world.end_trace();
        let pair = |t: &str, c: &str| (t.to_string(), c.to_string());
        assert!(trace
            .read_collections
            .contains(&pair("items", "/api/items")));
        assert!(trace
            .written_collections
            .contains(&pair("others", "/api/others")));
        assert!(trace.read_types.is_empty());
        let _ = world.entities_of_type("items").count();
        assert!(trace.read_documents && !trace.written_documents);
        world.begin_trace();
        let _ = world.entities_of_type("items").count();
        assert!(world.end_trace().read_types.contains("items"));
        // Not tracing: nothing is recorded.
        let _ = world.entity("items", "/api/items", "a");
        world.begin_trace();
        assert_eq!(world.end_trace(), Footprint::default());
    }
}
