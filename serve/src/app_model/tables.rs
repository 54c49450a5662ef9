//! The app model's part of the data plane's flat tables: its own World
//! (`ServingModel::table_schemas`) listed beside the engine's tables in
//! `collections`, whole, so that `data/get` shows every entity the fake
//! serves and `data/add` loads it back; a replace that leaves such a table
//! out empties it. The older `app_model` member (changes since the
//! recording) is still read on import.

use super::{WithAppModel, Worlds, APP_MODEL_MEMBER};
use crate::model::{ImportError, Model};
use indexmap::IndexMap;
use rea_derivation::Held;
use serde_json::{Map, Value};

impl<M: Model> WithAppModel<M> {
    /// The World's tables nothing serves: every route at or under the
    /// table's collection path (a literal path) is one the app model owns
    /// outright, so no read or write of the engine reaches its rows. Such a
    /// table is a second copy of what the model renders (pouchdb's
    /// `_all_docs` rows, a view of the store's documents): the data plane
    /// leaves it out, and a replace empties it.
    pub(super) fn unserved_tables(&self) -> Vec<String> {
        self.inner
            .table_collections()
            .into_iter()
            .filter(|(_, at)| !at.contains('{') && self.app.owns("GET", at))
            .filter(|(_, at)| {
                let under = format!("{at}/");
                self.inner
                    .tools()
                    .iter()
                    .map(|t| &t.tool)
                    .filter(|t| t.path_template == *at || t.path_template.starts_with(&under))
                    .all(|t| self.app.owns(&t.method, &t.path_template))
            })
            .map(|(name, _)| name)
            .collect()
    }

    /// The engine's tables but those nothing serves, then the app model's own.
    pub(super) fn all_tables(&self) -> IndexMap<String, Value> {
        let mut out = self.inner.tables();
        for name in self.unserved_tables() {
            out.shift_remove(&name);
        }
        for (name, schema) in self.app.table_schemas() {
            out.entry(name.to_string()).or_insert(schema);
        }
        out
    }

    /// The app model's tables' rows, added to `value`'s `collections`.
    pub(super) fn export_into(&self, world: &Worlds<M::World>, value: &mut Value) {
        let inner = &world.inner;
        let held = |c: &str, id: &str| self.inner.row(inner, c, id) != Held::NotHeld;
        let at_world = |p: &str| self.store_paths().iter().any(|s| s == p);
        let rows = self.app.export_tables(&world.app, &held, &at_world);
        let Some(o) = value.as_object_mut() else {
            return;
        };
        if let Some(Value::Object(c)) = o.get_mut("collections") {
            for name in self.unserved_tables() {
                c.shift_remove(&name);
            }
        }
        let collections = o
            .entry("collections")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(c) = collections {
            for (name, rows) in rows {
                c.entry(name.to_string())
                    .or_insert_with(|| Value::Array(rows));
            }
        }
    }

    /// Both Worlds from `value`: the engine's from it without the app
    /// model's tables (and without `app_model`), the app model's from its
    /// tables (a table left out is empty) or, when the value carries the
    /// older `app_model` member, from that.
    /// `import_both` of tables given row by row, all of them the engine's
    /// (`None` when one is the app model's own: the caller then imports the
    /// whole value). The app model's tables are then empty, as
    /// `import_both` leaves them when the value names none.
    pub(super) fn import_streamed_both(
        &self,
        tables: Vec<(String, &mut dyn Iterator<Item = Value>)>,
    ) -> Option<Result<Worlds<M::World>, ImportError>> {
        let engine = self.inner.tables();
        if tables.iter().any(|(name, _)| !engine.contains_key(name)) {
            return None;
        }
        let inner = match self.inner.import_streamed(tables)? {
            Ok(inner) => inner,
            Err(e) => return Some(Err(e)),
        };
        let own = Map::new();
        let row = |c: &str, id: &str| self.inner.row(&inner, c, id);
        let at_world = |p: &str| self.store_paths().iter().any(|s| s == p);
        let app = self.app.import_tables(&own, &row, &at_world);
        Some(self.joined(inner, app))
    }

    /// Both Worlds from an imported engine World and the app model's World
    /// read over it; the rows are the truth: a view the value shows
    /// otherwise takes its row.
    fn joined(
        &self,
        inner: M::World,
        app: Result<rea_derivation::ModelWorld, String>,
    ) -> Result<Worlds<M::World>, ImportError> {
        let app = app.map_err(|detail| ImportError { detail })?;
        let mut worlds = Worlds {
            inner,
            app: std::sync::Arc::new(app),
        };
        self.try_read_through(&mut worlds)
            .map_err(|detail| ImportError { detail })?;
        Ok(worlds)
    }

    pub(super) fn import_both(&self, mut value: Value) -> Result<Worlds<M::World>, ImportError> {
        let object = value.as_object_mut();
        let changes = object.and_then(|o| o.shift_remove(APP_MODEL_MEMBER));
        let mut own = Map::new();
        if let Some(Value::Object(c)) = value.get_mut("collections") {
            for (name, _) in self.app.table_schemas() {
                if self.inner.tables().contains_key(name) {
                    continue;
                }
                if let Some(rows) = c.shift_remove(name) {
                    own.insert(name.to_string(), rows);
                }
            }
        }
        let inner = self.inner.import_owned(value)?;
        let row = |c: &str, id: &str| self.inner.row(&inner, c, id);
        let app = match &changes {
            Some(a) => self.app.import_views(a, &row),
            None => {
                let at_world = |p: &str| self.store_paths().iter().any(|s| s == p);
                self.app.import_tables(&own, &row, &at_world)
            }
        };
        self.joined(inner, app)
    }
}
