//! The app model in front of the spec's engine: a `Model` that answers the
//! calls the inferred app model understands (`rea_derivation::ServingModel`)
//! and delegates every other call to the engine. RPC resources are the
//! model's outright; for path resources the model answers only what the
//! engine answers with rea's own error (no tool, write not served, not
//! recorded), and then the item reads of the entities it changed.

use crate::model::{ImportError, Model, ToolInfo};
use indexmap::IndexMap;
use rea_derivation::{Held, MalformedBody, ModelWorld, Served, ServingModel};
use rea_engine::{Answer, AnswerBody, Applied, Call, Footprint, Generator, Request};
use serde_json::Value;

mod tables;

/// The answer header that names the app-model inference that answered
/// (`<basis>; confirmed|convention`); absent on the spec's plans' answers.
pub const BASIS_HEADER: &str = "x-rea-model-basis";

/// The `data/get` member holding the app model's World.
pub const APP_MODEL_MEMBER: &str = "app_model";

/// An inner model with the app model in front.
pub struct WithAppModel<M: Model> {
    inner: M,
    app: ServingModel,
    /// The inner model's tools, with the document store's arguments
    /// (`docstore_tools`).
    tools: Vec<ToolInfo>,
    /// The engine's World as the serving started (built when first asked):
    /// a row unchanged since leaves the app model's own reading of it.
    started: std::sync::OnceLock<M::World>,
    /// The World's document paths, as the serving started, that are the
    /// document store's documents (`{collection}/{key}`).
    store_paths: std::sync::OnceLock<Vec<String>>,
    /// The recorded origin: the model's answers name it where the app
    /// built a URL from its own origin (`link`, `_links`), rewritten to the
    /// serving origin as the engine's answers are.
    origin: String,
    /// Print which part answered each request (`StartOptions::model_trace`).
    trace: bool,
    /// Each route's `PATCH` meaning, decided at start-up
    /// (`ServingModel::patch_routes`).
    patch_routes: rea_derivation::PatchRoutes,
}

/// Both Worlds: the engine's and the app model's. The app model's is
/// shared until a call through the model first needs it mutably, so a
/// clone (`data/reset`, an isolated episode) costs O(1) on both sides.
#[derive(Debug, Clone)]
pub struct Worlds<W> {
    pub inner: W,
    pub app: std::sync::Arc<ModelWorld>,
}

impl<M: Model> WithAppModel<M> {
    pub fn new(inner: M, app: ServingModel) -> Self {
        let tools = crate::docstore_tools::offer(inner.tools(), &app);
        let patch_routes = app.patch_routes();
        WithAppModel {
            inner,
            app,
            tools,
            started: std::sync::OnceLock::new(),
            store_paths: std::sync::OnceLock::new(),
            origin: String::new(),
            trace: false,
            patch_routes,
        }
    }

    /// The same, its answers' URLs under `origin` (the recording's) rewritten
    /// to the serving origin.
    pub fn recorded_at(mut self, origin: &str) -> Self {
        self.origin = origin.to_string();
        self
    }

    /// With `trace` on, prints which part answered (`trace: {what}`).
    pub fn traced(mut self, on: bool) -> Self {
        self.trace = on;
        self
    }

    fn trace(&self, what: &str) {
        if self.trace {
            eprintln!("trace: {what}");
        }
    }

    fn served(s: Served) -> Answer {
        // Which inference answered, for `environment-check`'s counts (the
        // app's answers are compared without their headers).
        let inference = if s.convention {
            "convention"
        } else {
            "confirmed"
        };
        Answer {
            status: s.status,
            content_type: Some(s.content_type),
            headers: vec![(
                BASIS_HEADER.to_string(),
                format!("{}; {inference}", s.basis),
            )],
            body: match s.body {
                // A path-keyed tree's text answer (`model::tree`).
                Some(serde_json::Value::String(t))
                    if s.basis == rea_derivation::TREE_TEXT_BASIS =>
                {
                    AnswerBody::Text(t)
                }
                Some(v) => AnswerBody::Json(v),
                None => AnswerBody::Empty,
            },
            tool: None,
            applied: if s.applied { Applied::Yes } else { Applied::No },
            error_code: None,
            rendered: None,
        }
    }

    fn ask(
        &self,
        world: &mut ModelWorld,
        call: &Call,
        generator: &mut dyn Generator,
    ) -> Option<Answer> {
        let now = generator.now_ms();
        let mut uuid = || generator.uuid();
        self.app
            .answer_engine_call(world, call, now, &mut uuid)
            .map(Self::served)
            .map(|a| self.validated(call, a))
            // After the validator, as the engine's (computed on the recorded body).
            .map(|mut a| {
                rea_engine::at_serving_origin(&mut a, &self.origin, call);
                a
            })
    }

    /// `ask` on both Worlds: the model's view of the call's item is first
    /// brought up to its row when the row changed since the start (an
    /// engine write, a `data/add`); a model write is then written through
    /// to the rows (`write_through`). A call the model declines, or answers
    /// without a change, leaves its World as it was.
    fn ask_in(
        &self,
        world: &mut Worlds<M::World>,
        call: &Call,
        generator: &mut dyn Generator,
    ) -> Option<Answer> {
        let before = world.app.clone();
        let started = self.started();
        let inner = &world.inner;
        let adopted = self.app.adopt(
            &world.app,
            &call.method,
            &call.path,
            &|c: &str, id: &str| self.inner.row(inner, c, id),
            &|c: &str, id: &str| self.inner.row(started, c, id),
        );
        if let Some(change) = adopted.clone() {
            self.app
                .apply_views(std::sync::Arc::make_mut(&mut world.app), vec![change]);
        }
        let answer = self.ask(std::sync::Arc::make_mut(&mut world.app), call, generator);
        match &answer {
            Some(a) if a.applied == Applied::Yes => self.write_through(world),
            _ if adopted.is_some() => world.app = before,
            _ => {}
        }
        answer
    }

    fn started(&self) -> &M::World {
        self.started.get_or_init(|| self.inner.initial_world())
    }

    fn store_paths(&self) -> &[String] {
        self.store_paths.get_or_init(|| {
            if self.app.model.document_store.is_none() {
                return Vec::new();
            }
            let started = self.started();
            self.inner
                .document_paths(started)
                .into_iter()
                .filter(|p| self.app.store_key(p).is_some())
                .collect()
        })
    }

    fn write_through(&self, world: &mut Worlds<M::World>) {
        let Worlds { inner, app } = world;
        // The store's documents the World also holds at their paths.
        for path in self.store_paths() {
            if !self.app.store_changed(app, path) {
                continue;
            }
            let body = self
                .app
                .store_document(app, path)
                .cloned()
                .map(Value::Object);
            if self.inner.document(inner, path) != body {
                self.inner.put_document(inner, path, body.as_ref());
            }
        }
        for (collection, id, value) in self.app.written_views(app) {
            let now = self.inner.row(inner, collection, id);
            let same = match (&now, value) {
                (Held::NotHeld, _) | (Held::Absent, None) => true,
                (Held::Row(r), Some(v)) => r == v,
                _ => false,
            };
            if !same {
                self.inner.put_row(inner, collection, id, value);
            }
        }
    }

    fn read_through(&self, world: &mut Worlds<M::World>) {
        // Only a `data/add` writes the store's paths in the World, and its
        // import refuses a document the store cannot take (`import_owned`).
        let _ = self.try_read_through(world);
    }

    fn try_read_through(&self, world: &mut Worlds<M::World>) -> Result<(), String> {
        for path in self.store_paths() {
            let now = self.inner.document(&world.inner, path);
            if now == self.inner.document(self.started(), path)
                || now.as_ref().and_then(Value::as_object)
                    == self.app.store_document(&world.app, path)
            {
                continue;
            }
            self.app
                .adopt_document(std::sync::Arc::make_mut(&mut world.app), path, now.as_ref())
                .map_err(|e| format!("documents {path}: {e}"))?;
        }
        let inner = &world.inner;
        let changes = self.app.stale_views(&world.app, &|c: &str, id: &str| {
            self.inner.row(inner, c, id)
        });
        if !changes.is_empty() {
            self.app
                .apply_views(std::sync::Arc::make_mut(&mut world.app), changes);
        }
        Ok(())
    }

    /// A model-served item read of a resource whose recorded reads carried
    /// an `ETag`: one computed from the body, and `304` without a body when
    /// the request's `If-None-Match` names it.
    fn validated(&self, call: &Call, mut answer: Answer) -> Answer {
        let AnswerBody::Json(body) = &answer.body else {
            return answer;
        };
        if !(200..300).contains(&answer.status) {
            return answer;
        }
        let Some(weak) = self.app.read_etag(&call.method, &call.path) else {
            return answer;
        };
        let etag = rea_engine::body_etag(body, weak);
        if call
            .header("if-none-match")
            .is_some_and(|asked| rea_engine::etag_matches(asked, &etag))
        {
            answer.status = 304;
            answer.body = AnswerBody::Empty;
        }
        answer.headers.push(("ETag".to_string(), etag));
        answer
    }
}

impl<M: Model> Model for WithAppModel<M> {
    type World = Worlds<M::World>;

    fn name(&self) -> &str {
        self.inner.name()
    }

    fn tools(&self) -> &[ToolInfo] {
        &self.tools
    }

    fn initial_world(&self) -> Self::World {
        Worlds {
            inner: self.inner.initial_world(),
            app: std::sync::Arc::new(self.app.initial_world()),
        }
    }

    fn answer(
        &self,
        world: &mut Self::World,
        request: &Request,
        generator: &mut dyn Generator,
    ) -> Answer {
        let answer = self.answer_once(world, request, generator);
        // An engine write changed rows the model's views may show.
        if answer.applied == Applied::Yes && answer.tool.is_some() {
            self.read_through(world);
        }
        answer
    }

    fn list_basis(&self, world: &Self::World, request: &Request) -> Option<&'static str> {
        self.inner.list_basis(&world.inner, request)
    }

    /// The engine's World, plus, as more tables under `collections`, the
    /// app model's own World whole (`tables::export_into`): entities of
    /// collections no table holds, the keys of rows it answers for (their
    /// value is the row), singleton documents, id counters, logged writes,
    /// and the document store's documents no World path holds.
    fn export(&self, world: &Self::World) -> Value {
        let mut v = self.inner.export(&world.inner);
        self.export_into(world, &mut v);
        v
    }

    /// The engine's World from the value without the app model's tables;
    /// the app model's from them (`tables::import_both`).
    fn import(&self, value: &Value) -> Result<Self::World, ImportError> {
        self.import_owned(value.clone())
    }

    fn tables(&self) -> IndexMap<String, Value> {
        self.inner.tables()
    }

    fn data_tables(&self) -> IndexMap<String, Value> {
        self.all_tables()
    }

    /// `import`, taking the value: the engine's part is not copied.
    fn import_owned(&self, value: Value) -> Result<Self::World, ImportError> {
        self.import_both(value)
    }

    fn import_streamed(
        &self,
        tables: Vec<(String, &mut dyn Iterator<Item = Value>)>,
    ) -> Option<Result<Self::World, ImportError>> {
        self.import_streamed_both(tables)
    }

    fn begin_trace(&self, world: &mut Self::World) {
        self.inner.begin_trace(&mut world.inner);
    }

    /// The engine's trace holds only for the engine's own answers (the app
    /// model's answers name no tool); the app model's are not traced.
    fn end_trace(&self, world: &mut Self::World, answer: &Answer) -> Option<Footprint> {
        let inner = self.inner.end_trace(&mut world.inner, answer);
        answer.tool.as_ref().and(inner)
    }

    fn routes(&self, method: &str, path: &str) -> bool {
        self.inner.routes(method, path) || self.app.owns(method, path)
    }

    fn tool_schemas(&self, tool: &str) -> crate::model::ToolSchemas {
        self.inner.tool_schemas(tool)
    }

    fn tool_call(&self, name: &str, arguments: &serde_json::Map<String, Value>) -> Option<Call> {
        let store = self.tools.iter().find(|t| t.tool.name == name);
        store
            .and_then(|t| crate::docstore_tools::call(t, &self.app, arguments))
            .or_else(|| self.inner.tool_call(name, arguments))
    }
}

impl<M: Model> WithAppModel<M> {
    fn answer_once(
        &self,
        world: &mut Worlds<M::World>,
        request: &Request,
        generator: &mut dyn Generator,
    ) -> Answer {
        // A tool call means its HTTP form: the relations and the model's
        // own answers take it as they take that HTTP request (the engine's
        // part stays pinned to the tool), so both answer the same bytes.
        let tool_call = match request {
            Request::Tool { name, arguments } => Model::tool_call(self, name, arguments),
            Request::Http(_) => None,
        };
        // A nested route, an embedding or a cascading delete: rewritten
        // into the calls it means (`relations`), answered by this model.
        if let Some(call) = tool_call.as_ref().or(match request {
            Request::Http(call) => Some(call),
            Request::Tool { .. } => None,
        }) {
            let rels = &self.app.model.relations;
            let mut ask = |c: Call| self.answer(world, &Request::Http(c), generator);
            if let Some(a) = crate::relations::answer(rels, call, &mut ask) {
                self.trace("app-relation");
                return a;
            }
        }
        // A list or search of the model's RPC entities (HTTP or tool call):
        // narrowed from them as they are now; a path resource's list with
        // the model's changes laid over the engine's.
        let app_world = &world.app;
        let current = |m: &str, p: &str| {
            use rea_engine::lists::serve::Current;
            if let Some(items) = self.app.list_items(app_world, m, p) {
                return Some(Current {
                    items,
                    removed: Vec::new(),
                    complete: true,
                });
            }
            let (items, removed) = self.app.list_changes(app_world, m, p)?;
            Some(Current {
                items,
                removed,
                complete: false,
            })
        };
        // An HTTP call is routed by the engine only when the model holds
        // items of its path (a tool call's path is known once routed).
        let listed = match request {
            Request::Http(call) => current(&call.method, &call.path).map(|c| {
                let pinned = move |_: &str, _: &str| Some(c.clone());
                self.inner.answer_list(&world.inner, request, &pinned)
            }),
            _ => Some(self.inner.answer_list(&world.inner, request, &current)),
        };
        if let Some(a) = listed.flatten() {
            self.trace("app-list");
            return a;
        }
        let call = match (request, &tool_call) {
            (Request::Http(call), _) => call,
            (Request::Tool { .. }, Some(call)) => call,
            // A tool call is answered by its tool (the engine), never re-routed.
            (Request::Tool { .. }, None) => {
                return self.engine_answer(&mut world.inner, request, generator)
            }
        };
        let a = self.call_inner(world, call, request, generator);
        if self.trace {
            eprintln!(
                "trace {} {} -> {} {:?} {:?}",
                call.method, call.path, a.status, a.error_code, a.applied
            );
        }
        a
    }

    fn call_inner(
        &self,
        world: &mut Worlds<M::World>,
        call: &Call,
        request: &Request,
        generator: &mut dyn Generator,
    ) -> Answer {
        if let Some(a) = self.stale_precondition(world, call, generator) {
            self.trace("app-precondition");
            return a;
        }
        // A member sent against the type the app accepts: its own refusal.
        if let Some(s) = self
            .app
            .type_refusal(&call.method, &call.path, call.body.as_ref())
        {
            self.trace("app-invalid-type");
            return Self::served(s);
        }
        if self.app.owns(&call.method, &call.path)
            || self.app.holds(&world.app, &call.method, &call.path)
        {
            if let Some(a) = self.ask_in(world, call, generator) {
                self.trace("app-first");
                return a;
            }
        }
        self.trace("inner");
        let answer = self.engine_answer(&mut world.inner, request, generator);
        match answer.error_code.as_deref() {
            // The spec's plans cannot answer: the model may.
            // A write plan the replay check contradicted stays refused
            // unless the model's own replay of the route's recorded writes
            // got every recorded status (its semantics fit where the plan's
            // do not).
            Some("write_not_served")
                if refused_as_contradicted(&answer)
                    && !self.app.confirms_write(&call.method, &call.path) => {}
            Some("no_matching_tool" | "write_not_served" | "not_recorded") => {
                if let Some(a) = self.ask_in(world, call, generator) {
                    self.trace("app-fallback");
                    return a;
                }
            }
            // The spec's plan requires every member its recorded create
            // sent: the model's replay-confirmed write knows which the app
            // requires (its validation rules), and answers instead.
            Some("missing_required_members")
                if self.app.confirms_write(&call.method, &call.path) =>
            {
                if let Some(a) = self.ask_in(world, call, generator) {
                    self.trace("app-required");
                    return a;
                }
            }
            // A PUT to an id the engine does not hold: the model's upsert.
            // The spec's plan requires every member its recorded write sent;
            // a write the model's replay confirms is the model's to judge.
            Some("missing_required_members")
                if self.app.confirms_write(&call.method, &call.path) =>
            {
                if let Some(a) = self.ask_in(world, call, generator) {
                    self.trace("app-required");
                    return a;
                }
            }
            Some("not_found") if call.method == "PUT" => {
                if let Some(a) = self.ask_in(world, call, generator) {
                    self.trace("app-upsert");
                    return a;
                }
            }
            // rea's own not-found: the app's own absence answer instead.
            Some("not_found") => {
                if let Some(s) = self.app.absent(&call.method, &call.path) {
                    self.trace("app-absence");
                    return Self::served(s);
                }
            }
            _ => {}
        }
        answer
    }
}

impl<M: Model> WithAppModel<M> {
    /// The engine's answer, a `PATCH` applied as an RFC 7396 merge patch
    /// where the app model's evidence fits one on the call's route
    /// (`ServingModel::merges_patch`), else as the plan means it (stored
    /// as sent). A merge the model chose is named in `BASIS_HEADER`.
    fn engine_answer(
        &self,
        world: &mut M::World,
        request: &Request,
        generator: &mut dyn Generator,
    ) -> Answer {
        let merged = std::cell::Cell::new(false);
        let patch = |call: &Call| {
            // A sent `null` the route's evidence says is stored is not merged away.
            // (`merges_patch` and `stores_sent_null`, decided at start-up.)
            if call.method.eq_ignore_ascii_case("PATCH")
                && self
                    .patch_routes
                    .merges(&self.app, &call.path, call.body.as_ref())
            {
                merged.set(true);
                rea_engine::PatchMeaning::MergePatch
            } else {
                rea_engine::PatchMeaning::StoredAsSent
            }
        };
        let mut answer = self
            .inner
            .answer_patching(world, request, generator, &patch);
        if merged.get() && answer.applied == Applied::Yes {
            answer.headers.push((
                BASIS_HEADER.to_string(),
                "merge-patch; confirmed".to_string(),
            ));
        }
        answer
    }

    /// A write whose `If-Match` names none of the item's current validators
    /// (the `ETag` its read answers now, as the engine computes it): the
    /// app's recorded stale answer, when the model confirmed one on the route.
    fn stale_precondition(
        &self,
        world: &mut Worlds<M::World>,
        call: &Call,
        generator: &mut dyn Generator,
    ) -> Option<Answer> {
        if rea_engine::is_read_method(&call.method) {
            return None;
        }
        let asked = call.header("if-match")?.to_string();
        // Cheap first: only routes the recording showed a stale answer on.
        self.app
            .stale_precondition(&call.method, &call.path, "if-match", None)?;
        let read = Call {
            method: "GET".to_string(),
            path: call.path.clone(),
            query: None,
            headers: Vec::new(),
            body: None,
        };
        let current = self.call_inner(world, &read, &Request::Http(read.clone()), generator);
        if !(200..300).contains(&current.status) {
            return None;
        }
        let etag = current
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("etag"))
            .map(|(_, v)| v.clone())?;
        if rea_engine::etag_matches(&asked, &etag) {
            return None;
        }
        let body = match &current.body {
            AnswerBody::Json(v) => Some(v),
            _ => None,
        };
        self.app
            .stale_precondition(&call.method, &call.path, "if-match", body)
            .map(Self::served)
    }
}

/// What the recording showed, with the app model's answer to a malformed
/// JSON body (start-up).
pub(crate) fn with_malformed_body(
    mut observed: crate::cors::Observed,
    malformed: Option<&MalformedBody>,
) -> crate::cors::Observed {
    observed.malformed_body = malformed.map(|m| {
        let answer = Answer {
            status: m.status,
            content_type: m.content_type.clone(),
            // One recorded refusal cannot show that the answer does not
            // depend on the body (a parser's position in the message):
            // counted as a convention until two bodies got the same answer.
            headers: vec![(
                BASIS_HEADER.to_string(),
                if m.supported_by.len() >= 2 {
                    "malformed-body; confirmed"
                } else {
                    "malformed-body; convention"
                }
                .to_string(),
            )],
            body: if m.body.is_empty() {
                AnswerBody::Empty
            } else {
                AnswerBody::Text(m.body.clone())
            },
            tool: None,
            applied: Applied::No,
            error_code: None,
            rendered: None,
        };
        (m.media_types.clone(), answer)
    });
    observed
}

/// The app's answer to a body that does not parse as JSON, sent with a
/// media type the recording showed it refusing such bodies as; `None`
/// keeps rea's own `body_not_json`.
pub(crate) fn malformed_body(
    env: &crate::environment::Environment,
    headers: &axum::http::HeaderMap,
) -> Option<Answer> {
    let (media_types, answer) = env.observed().malformed_body.as_ref()?;
    let sent = headers
        .get(axum::http::header::CONTENT_TYPE)?
        .to_str()
        .ok()
        .map(rea_derivation::malformed_media_type)?;
    media_types.contains(&sent).then(|| answer.clone())
}

fn refused_as_contradicted(answer: &Answer) -> bool {
    matches!(&answer.body, AnswerBody::Json(v) if v.get("reason").and_then(Value::as_str) == Some("contradicted"))
}

#[cfg(test)]
mod tests {
    use crate::{Environment, StartOptions};
    use rea_engine::{AnswerBody, Call, Request};
    use serde_json::{json, Value};
    use std::path::Path;

    fn wordpress() -> Environment {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/wordpress/dev-a.har");
        Environment::from_capture(&path, &StartOptions::default()).expect("environment")
    }

    fn call(env: &Environment, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let reply = env.call(&Request::Http(Call {
            method: method.into(),
            path: path.into(),
            query: None,
            headers: vec![("host".into(), "127.0.0.1:18765".into())],
            body,
        }));
        let body = match &reply.answer.body {
            AnswerBody::Json(v) => v.clone(),
            _ => Value::Null,
        };
        (reply.answer.status, body)
    }

    #[test]
    fn data_get_shows_what_the_app_model_holds_and_a_replace_or_reset_restores_it() {
        // WordPress dev-a: POST /tags is answered by the app model (the
        // spec's plan cannot), so the tag lives in the model's World.
        let env = wordpress();
        assert_eq!(
            env.export()["collections"]["app_model_held"],
            json!([]),
            "nothing changed yet"
        );
        let (status, tag) = call(
            &env,
            "POST",
            "/wp-json/wp/v2/tags",
            Some(json!({"name": "Guatemala"})),
        );
        assert_eq!(status, 201);
        assert_eq!(tag["id"], json!(19));
        let got = env.export();
        // Held once: a row of the World's tags table, named by key in `app_model_held`.
        let held = &got["collections"]["app_model_held"];
        assert_eq!(held[0]["collection"], json!("/wp-json/wp/v2/tags"));
        assert_eq!(held[0]["id"], json!("19"));
        let row = got["collections"]["tags"]
            .as_array()
            .and_then(|rows| rows.iter().find(|r| r["id"] == json!(19)))
            .expect("the tag's row");
        assert_eq!(row["name"], json!("Guatemala"));
        // Reset: the tag is gone and the counter is back.
        env.reset();
        assert_eq!(env.export()["collections"]["app_model_held"], json!([]));
        assert_eq!(call(&env, "GET", "/wp-json/wp/v2/tags/19", None).0, 404);
        // Replace with the exported World: the tag reads back, and the next
        // tag continues the counter.
        env.replace(&got).expect("the exported World loads back");
        let (status, back) = call(&env, "GET", "/wp-json/wp/v2/tags/19", None);
        assert_eq!((status, &back["name"]), (200, &json!("Guatemala")));
        let (_, next) = call(
            &env,
            "POST",
            "/wp-json/wp/v2/tags",
            Some(json!({"name": "Kenya AA"})),
        );
        assert_eq!(next["id"], json!(20));
        // A malformed app_model part is refused and leaves the World alone.
        let mut bad = got.clone();
        bad["collections"]["app_model_held"][0]["scope"] = json!("/nowhere");
        assert!(env.replace(&bad).is_err());
        assert_eq!(call(&env, "GET", "/wp-json/wp/v2/tags/20", None).0, 200);
    }

    fn send(
        env: &Environment,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<Value>,
    ) -> (u16, Vec<(String, String)>, Value) {
        let mut h: Vec<(String, String)> = vec![("host".into(), "127.0.0.1:18765".into())];
        h.extend(headers.iter().map(|(n, v)| (n.to_string(), v.to_string())));
        let reply = env.call(&Request::Http(Call {
            method: method.into(),
            path: path.into(),
            query: None,
            headers: h,
            body,
        }));
        let body = match &reply.answer.body {
            AnswerBody::Json(v) => v.clone(),
            _ => Value::Null,
        };
        (reply.answer.status, reply.answer.headers.clone(), body)
    }

    #[test]
    fn a_stale_if_match_gets_the_apps_412_and_a_current_if_none_match_gets_304() {
        // Kinto dev-a records a PATCH with a stale If-Match answered 412
        // (records 30, 31): the model confirms the precondition on the route.
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/kinto/dev-a.har");
        let env = Environment::from_capture(&path, &StartOptions::default()).expect("environment");
        let item = "/v1/buckets/shop/collections/customers/records/cust-005";
        let (status, headers, _) = send(&env, "GET", item, &[], None);
        assert_eq!(status, 200);
        let etag = headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("etag"))
            .map(|(_, v)| v.clone())
            .expect("an ETag");
        // If-None-Match with the current validator: 304 (the engine's).
        let (status, _, _) = send(&env, "GET", item, &[("If-None-Match", &etag)], None);
        assert_eq!(status, 304);
        // A current If-Match is applied.
        let (status, _, body) = send(
            &env,
            "PATCH",
            item,
            &[("If-Match", &etag)],
            Some(json!({"data": {"notes": "first"}})),
        );
        assert_eq!(status, 200, "{body}");
        // The same validator is now stale: the app's 412, quoting the item as it is now.
        let (status, _, body) = send(
            &env,
            "PATCH",
            item,
            &[("If-Match", &etag)],
            Some(json!({"data": {"notes": "second"}})),
        );
        assert_eq!(status, 412, "{body}");
        assert_eq!(body["errno"], json!(114));
        assert_eq!(body["details"]["existing"]["id"], json!("cust-005"));
        assert_eq!(body["details"]["existing"]["notes"], json!("first"));
        let (_, _, now) = send(&env, "GET", item, &[], None);
        assert_eq!(
            now["data"]["notes"],
            json!("first"),
            "the refused write changed nothing"
        );
    }
}
