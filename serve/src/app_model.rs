//! The app model in front of the spec's engine: a `Model` that answers the
//! calls the inferred app model understands (`rea_derivation::model::serving`)
//! and delegates every other call to the engine. RPC resources are the
//! model's outright; for path resources the model answers only what the
//! engine answers with rea's own error (no tool, write not served, not
//! recorded), and then the item reads of the entities it changed.

use crate::model::{ImportError, Model, ToolInfo};
use indexmap::IndexMap;
use rea_derivation::model::serving::{ModelWorld, Served, ServingModel};
use rea_engine::{Answer, AnswerBody, Applied, Call, Footprint, Generator, Request};
use serde_json::Value;

/// An inner model with the app model in front.
pub struct WithAppModel<M: Model> {
    inner: M,
    app: ServingModel,
}

/// Both Worlds: the engine's and the app model's.
#[derive(Debug, Clone)]
pub struct Worlds<W> {
    pub inner: W,
    pub app: ModelWorld,
}

impl<M: Model> WithAppModel<M> {
    pub fn new(inner: M, app: ServingModel) -> Self {
        WithAppModel { inner, app }
    }

    fn served(s: Served) -> Answer {
        Answer {
            status: s.status,
            content_type: Some(s.content_type),
            headers: Vec::new(),
            body: match s.body {
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
            .answer(
                world,
                &call.method,
                &call.path,
                call.query.as_deref(),
                call.body.as_ref(),
                now,
                &mut uuid,
            )
            .map(Self::served)
    }
}

impl<M: Model> Model for WithAppModel<M> {
    type World = Worlds<M::World>;

    fn name(&self) -> &str {
        self.inner.name()
    }

    fn tools(&self) -> &[ToolInfo] {
        self.inner.tools()
    }

    fn initial_world(&self) -> Self::World {
        Worlds {
            inner: self.inner.initial_world(),
            app: self.app.initial_world(),
        }
    }

    fn answer(
        &self,
        world: &mut Self::World,
        request: &Request,
        generator: &mut dyn Generator,
    ) -> Answer {
        let Request::Http(call) = request else {
            // A tool call is answered by its tool (the engine), never re-routed.
            return self.inner.answer(&mut world.inner, request, generator);
        };
        let a = self.call_inner(world, call, request, generator);
        if std::env::var_os("REA_MODEL_TRACE").is_some() {
            eprintln!(
                "trace {} {} -> {} {:?} {:?}",
                call.method, call.path, a.status, a.error_code, a.applied
            );
        }
        a
    }

    fn export(&self, world: &Self::World) -> Value {
        self.inner.export(&world.inner)
    }

    fn import(&self, value: &Value) -> Result<Self::World, ImportError> {
        Ok(Worlds {
            inner: self.inner.import(value)?,
            app: self.app.initial_world(),
        })
    }

    fn tables(&self) -> IndexMap<String, Value> {
        self.inner.tables()
    }

    fn import_owned(&self, value: Value) -> Result<Self::World, ImportError> {
        Ok(Worlds {
            inner: self.inner.import_owned(value)?,
            app: self.app.initial_world(),
        })
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
}

impl<M: Model> WithAppModel<M> {
    fn call_inner(
        &self,
        world: &mut Worlds<M::World>,
        call: &Call,
        request: &Request,
        generator: &mut dyn Generator,
    ) -> Answer {
        if self.app.owns(&call.method, &call.path)
            || self.app.holds(&world.app, &call.method, &call.path)
        {
            if let Some(a) = self.ask(&mut world.app, call, generator) {
                trace("app-first");
                return a;
            }
        }
        trace("inner");
        let answer = self.inner.answer(&mut world.inner, request, generator);
        match answer.error_code.as_deref() {
            // The spec's plans cannot answer: the model may.
            // A write plan the replay check contradicted stays refused: the
            // recording contradicts a write there, and the model has not
            // replayed those records through its own semantics.
            Some("write_not_served") if refused_as_contradicted(&answer) => {}
            Some("no_matching_tool" | "write_not_served" | "not_recorded") => {
                if let Some(a) = self.ask(&mut world.app, call, generator) {
                    trace("app-fallback");
                    return a;
                }
            }
            // A PUT to an id the engine does not hold: the model's upsert.
            Some("not_found") if call.method == "PUT" => {
                if let Some(a) = self.ask(&mut world.app, call, generator) {
                    trace("app-upsert");
                    return a;
                }
            }
            // rea's own not-found: the app's own absence answer instead.
            Some("not_found") => {
                if let Some(s) = self.app.absent(&call.method, &call.path) {
                    trace("app-absence");
                    return Self::served(s);
                }
            }
            _ => {}
        }
        answer
    }
}

fn refused_as_contradicted(answer: &Answer) -> bool {
    matches!(&answer.body, AnswerBody::Json(v) if v.get("reason").and_then(Value::as_str) == Some("contradicted"))
}

fn trace(what: &str) {
    if std::env::var_os("REA_MODEL_TRACE").is_some() {
        eprintln!("trace: {what}");
    }
}
