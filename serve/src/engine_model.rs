//! `Model` for the derivation engine: the manifest's tools with their view
//! and write plans, and every call delegated to `Engine`.

use crate::model::{ImportError, Model, ToolInfo, ToolKind};
use indexmap::IndexMap;
use rea_core::ErrorReport;
use rea_derivation::Held;
use rea_engine::{Answer, Engine, Footprint, Generator, Request, World};
use serde_json::Value;

/// The engine plus the tool list the server offers from it.
pub struct EngineModel {
    engine: Engine,
    tools: Vec<ToolInfo>,
}

impl EngineModel {
    pub fn new(engine: Engine) -> Self {
        let tools = engine
            .manifest
            .tools
            .iter()
            .map(|tool| tool_info(&engine, tool))
            .collect();
        EngineModel { engine, tools }
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }
}

fn tool_info(engine: &Engine, tool: &rea_engine::manifest::Tool) -> ToolInfo {
    let (list_arguments, list_in_body) = rea_engine::lists::schema::arguments(engine, &tool.name);
    if let Some(plan) = engine.write_of(&tool.name) {
        let served = plan.status == rea_engine::state::PlanStatus::Served;
        return ToolInfo {
            tool: tool.clone(),
            kind: ToolKind::Write,
            plan: plan.effect.as_str().to_string(),
            reason: (!served).then(|| {
                plan.reason
                    .map_or_else(|| "unserved".to_string(), |r| r.to_string())
            }),
            served,
            list_arguments,
            list_in_body,
        };
    }
    if let Some(view) = engine.view_of(&tool.name) {
        let reason = match view {
            rea_engine::state::ViewPlan::Recorded(r) => Some(r.reason.to_string()),
            _ => None,
        };
        return ToolInfo {
            tool: tool.clone(),
            kind: ToolKind::Read,
            plan: view.shape().to_string(),
            reason,
            served: true,
            list_arguments,
            list_in_body,
        };
    }
    // A tool with no plan: reads replay, anything else is not served.
    let read = matches!(tool.method.as_str(), "GET" | "HEAD" | "OPTIONS");
    ToolInfo {
        tool: tool.clone(),
        kind: if read {
            ToolKind::Read
        } else {
            ToolKind::Write
        },
        plan: if read { "recorded" } else { "none" }.to_string(),
        reason: Some(if read { "no-plan" } else { "no-state-target" }.to_string()),
        served: read,
        list_arguments,
        list_in_body,
    }
}

fn report_detail(report: &ErrorReport) -> String {
    report.message.clone()
}

impl Model for EngineModel {
    type World = World;

    fn name(&self) -> &str {
        &self.engine.manifest.name
    }

    fn tools(&self) -> &[ToolInfo] {
        &self.tools
    }

    fn initial_world(&self) -> World {
        self.engine.initial_world()
    }

    fn answer(
        &self,
        world: &mut World,
        request: &Request,
        generator: &mut dyn Generator,
    ) -> Answer {
        self.engine.answer(world, request, generator)
    }

    fn answer_patching(
        &self,
        world: &mut World,
        request: &Request,
        generator: &mut dyn Generator,
        patch: &dyn Fn(&rea_engine::Call) -> rea_engine::PatchMeaning,
    ) -> Answer {
        self.engine.answer_with(world, request, generator, patch)
    }

    fn answer_list(
        &self,
        world: &World,
        request: &Request,
        current: &dyn Fn(&str, &str) -> Option<rea_engine::lists::serve::Current>,
    ) -> Option<Answer> {
        rea_engine::lists::serve::answer_over(&self.engine, world, request, current)
    }

    fn list_basis(&self, world: &World, request: &Request) -> Option<&'static str> {
        rea_engine::lists::serve::basis(&self.engine, world, request)
    }

    fn tool_call(
        &self,
        name: &str,
        arguments: &serde_json::Map<String, Value>,
    ) -> Option<rea_engine::Call> {
        self.engine
            .tool_call(name, &Value::Object(arguments.clone()))
            .ok()
    }

    fn export(&self, world: &World) -> Value {
        self.engine.export(world)
    }

    fn import(&self, value: &Value) -> Result<World, ImportError> {
        self.engine.import(value).map_err(|report| ImportError {
            detail: report_detail(&report),
        })
    }

    fn tables(&self) -> IndexMap<String, Value> {
        self.engine.tables()
    }

    fn table_collections(&self) -> Vec<(String, String)> {
        let types = &self.engine.state.types;
        types
            .iter()
            .map(|t| (t.name.clone(), t.collection_template.clone()))
            .collect()
    }

    fn import_owned(&self, value: Value) -> Result<World, ImportError> {
        self.engine
            .import_owned(value)
            .map_err(|report| ImportError {
                detail: report_detail(&report),
            })
    }

    fn import_streamed(
        &self,
        tables: Vec<(String, &mut dyn Iterator<Item = Value>)>,
    ) -> Option<Result<World, ImportError>> {
        Some(
            self.engine
                .import_streamed(tables)
                .map_err(|report| ImportError {
                    detail: report_detail(&report),
                }),
        )
    }

    fn begin_trace(&self, world: &mut World) {
        world.begin_trace();
    }

    fn end_trace(&self, world: &mut World, _answer: &Answer) -> Option<Footprint> {
        Some(world.end_trace())
    }

    fn routes(&self, method: &str, path: &str) -> bool {
        let call = rea_engine::Call {
            method: method.to_string(),
            path: path.to_string(),
            query: None,
            headers: Vec::new(),
            body: None,
        };
        !matches!(
            self.engine.resolve(&Request::Http(call)),
            Err(rea_engine::Refusal::NoMatchingTool { .. })
        )
    }

    fn tool_schemas(&self, tool: &str) -> crate::model::ToolSchemas {
        crate::tools::engine_schemas(&self.engine, tool)
    }

    fn document_paths(&self, world: &World) -> Vec<String> {
        world.documents.iter().map(|(p, _)| p.clone()).collect()
    }

    fn document(&self, world: &World, path: &str) -> Option<Value> {
        world.documents.get(path).cloned()
    }

    fn put_document(&self, world: &mut World, path: &str, value: Option<&Value>) {
        match value {
            Some(v) => {
                world.documents.insert(path.to_string(), v.clone());
            }
            None => world.documents.retain(|p, _| p != path),
        }
    }

    fn row(&self, world: &World, collection: &str, id: &str) -> Held {
        let Some(t) = self.type_at(collection) else {
            return Held::NotHeld;
        };
        match world.entity(&t.name, collection, id) {
            Some(e) => Held::Row(e.fields.clone()),
            None => Held::Absent,
        }
    }

    fn put_row(
        &self,
        world: &mut World,
        collection: &str,
        id: &str,
        row: Option<&serde_json::Map<String, Value>>,
    ) {
        let Some(t) = self.type_at(collection) else {
            return;
        };
        let Some(row) = row else {
            world.remove(&t.name, collection, id);
            return;
        };
        if let Some(e) = world.entity_mut(&t.name, collection, id) {
            // The row is the value the write left: no view keeps an older one.
            e.fields = row.clone();
            e.view_fields.clear();
            return;
        }
        let entity = rea_engine::state::Entity {
            type_name: t.name.clone(),
            collection: collection.to_string(),
            id: row
                .get(&t.id_field)
                .cloned()
                .unwrap_or_else(|| Value::String(id.to_string())),
            fields: row.clone(),
            view_fields: IndexMap::new(),
            record_ordinals: Vec::new(),
        };
        world.insert(entity, None);
    }
}

impl EngineModel {
    /// The entity type whose collections live at `collection`, a concrete
    /// path (a literal template first).
    fn type_at(&self, collection: &str) -> Option<&rea_engine::state::EntityType> {
        let types = &self.engine.state.types;
        types
            .iter()
            .find(|t| t.collection_template == collection)
            .or_else(|| {
                types
                    .iter()
                    .find(|t| rea_engine::path_fits_template(collection, &t.collection_template))
            })
    }
}
