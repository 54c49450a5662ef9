//! The port between the server and the engine: what `rea-serve` needs from
//! a derived environment (tools, one request answered against a World, the
//! data-plane shape of a World), as one trait the engine implements
//! (`engine_model`); the adapters' unit tests host a small fake.

use indexmap::IndexMap;
use rea_derivation::Held;
use rea_engine::manifest::Tool;
use rea_engine::{Answer, Call, Footprint, Generator, Request};
use serde_json::{Map, Value};

/// Whether a tool reads or may change state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    Read,
    Write,
}

/// One manifest tool as the server sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolInfo {
    pub tool: Tool,
    pub kind: ToolKind,
    /// For reads: the view plan kind (`item`, `list`, `document`, `recorded`).
    /// For writes: the plan's effect (`create`, `update`, `delete`, `document`, `none`).
    pub plan: String,
    /// For a `recorded` view: why it replays; for a write: why it is not
    /// served. `None` for reads rendered from the World and served writes.
    pub reason: Option<String>,
    /// Whether the tool is offered: every read, and writes whose plan is `served`.
    pub served: bool,
    /// The list arguments the inferred list semantics understand (name →
    /// JSON Schema), offered beside the observed query names.
    pub list_arguments: serde_json::Map<String, serde_json::Value>,
    /// True when those arguments are members of the request `body`.
    pub list_in_body: bool,
}

/// JSON Schemas of what one tool takes and answers, inferred from the
/// recording (`rea_engine::schemas`); empty for a model that infers none.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolSchemas {
    /// The request body a write demands (its required members, at the
    /// entity pointer).
    pub body: Option<Value>,
    /// Whether the write refuses a call without a body.
    pub body_required: bool,
    /// The successful answer, when every recorded one is a JSON object.
    pub output: Option<Value>,
    /// Per recorded status with JSON answers: their inferred schema and the
    /// first one as an example (for the OpenAPI export).
    pub answers: std::collections::BTreeMap<u16, RecordedAnswer>,
    /// The JSON body the first successful recorded call sent.
    pub request_example: Option<Value>,
}

/// The recorded JSON answers of one status, summarized.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedAnswer {
    /// Inferred with `rea_engine::schemas::Infer::ANSWER`.
    pub schema: Value,
    pub example: Value,
}

/// Why a replacement World was refused; names where (collection, row, field).
#[derive(Debug, Clone, PartialEq)]
pub struct ImportError {
    pub detail: String,
}

/// What the server needs from a derived environment. The World is the
/// mutable state; everything else is immutable after start-up.
pub trait Model: Send + Sync + 'static {
    type World: Clone + Send + Sync + 'static;

    /// The environment's own name (the manifest's).
    fn name(&self) -> &str;
    /// Every manifest tool, served or not, in manifest order.
    fn tools(&self) -> &[ToolInfo];
    /// The World the capture's state describes.
    fn initial_world(&self) -> Self::World;
    /// Answers one request (routed once, then dispatched), changing
    /// `world` only when the answer says so.
    fn answer(
        &self,
        world: &mut Self::World,
        request: &Request,
        generator: &mut dyn Generator,
    ) -> Answer;
    /// `answer`, with an update's sent members applied as `patch` says for
    /// the routed call (the app model's write semantics where its evidence
    /// confirmed them); `answer` applies each plan's own meaning.
    fn answer_patching(
        &self,
        world: &mut Self::World,
        request: &Request,
        generator: &mut dyn Generator,
        patch: &dyn Fn(&rea_engine::Call) -> rea_engine::PatchMeaning,
    ) -> Answer {
        let _ = patch;
        self.answer(world, request, generator)
    }
    /// Answers a list call over the items of its kind another World holds
    /// now (`current(method, path)`: the app model's), when the list
    /// semantics understand it; `None` leaves the call to `answer`.
    fn answer_list(
        &self,
        _world: &Self::World,
        _request: &Request,
        _current: &dyn Fn(&str, &str) -> Option<rea_engine::lists::serve::Current>,
    ) -> Option<Answer> {
        None
    }
    /// How a list read would be answered on `world` (`semantics`,
    /// `recorded`, `convention`, `unconfirmed`), for the check's count;
    /// `None` for other calls.
    fn list_basis(&self, _world: &Self::World, _request: &Request) -> Option<&'static str> {
        None
    }
    /// The World in the data-plane shape `{"collections": {...}, "documents": {...}}`.
    fn export(&self, world: &Self::World) -> Value;
    /// A World from the data-plane shape, checked against the tables.
    fn import(&self, value: &Value) -> Result<Self::World, ImportError>;
    /// `import`, taking the value (a model may move its rows into the World).
    fn import_owned(&self, value: Value) -> Result<Self::World, ImportError> {
        self.import(&value)
    }
    /// `import_owned` from tables given row by row (`data/add`'s fast
    /// path), with no documents and the tables not named empty; `None` when
    /// this model cannot, and the caller imports the whole value instead.
    fn import_streamed(
        &self,
        tables: Vec<(String, &mut dyn Iterator<Item = Value>)>,
    ) -> Option<Result<Self::World, ImportError>> {
        let _ = tables;
        None
    }
    /// One JSON Schema per entity collection (a row), by type name.
    fn tables(&self) -> IndexMap<String, Value>;
    /// The data plane's tables: `tables` plus any a model keeps beside
    /// them (the app model's own World), so that the flat tables show the
    /// whole World. `export` lists their rows under `collections` too.
    fn data_tables(&self) -> IndexMap<String, Value> {
        self.tables()
    }
    /// Each table's collection path template (type name, template), for
    /// telling which tables some route reads; empty by default.
    fn table_collections(&self) -> Vec<(String, String)> {
        Vec::new()
    }
    /// Starts recording what the next answer reads and writes of `world`
    /// (for the read cache). By default nothing is recorded.
    fn begin_trace(&self, world: &mut Self::World) {
        let _ = world;
    }
    /// What `answer` read and wrote since `begin_trace`; `None` when not
    /// known (a read then depends on everything, a write changes everything).
    fn end_trace(&self, world: &mut Self::World, answer: &Answer) -> Option<Footprint> {
        let _ = (world, answer);
        None
    }

    /// Whether an HTTP request with `method` at `path` reaches a tool (for
    /// HEAD, preflights and `405`); routing only, nothing is answered.
    fn routes(&self, _method: &str, _path: &str) -> bool {
        false
    }

    /// What `world` holds for `id` at the concrete collection path
    /// `collection` (the app model's view of its path resources reads it:
    /// one truth per resource). By default the model holds no rows.
    fn row(&self, _world: &Self::World, _collection: &str, _id: &str) -> Held {
        Held::NotHeld
    }

    /// Writes (`Some`) or removes (`None`) the row `row` reads, when a type
    /// of the World lives at `collection`.
    fn put_row(
        &self,
        _world: &mut Self::World,
        _collection: &str,
        _id: &str,
        _row: Option<&serde_json::Map<String, Value>>,
    ) {
    }

    /// The paths of `world`'s documents.
    fn document_paths(&self, _world: &Self::World) -> Vec<String> {
        Vec::new()
    }

    /// The document `world` holds at `path`.
    fn document(&self, _world: &Self::World, _path: &str) -> Option<Value> {
        None
    }

    /// Sets (`Some`) or removes (`None`) the document at `path`.
    fn put_document(&self, _world: &mut Self::World, _path: &str, _value: Option<&Value>) {}

    /// What tool `tool` takes and answers, as the recording shows it.
    fn tool_schemas(&self, _tool: &str) -> ToolSchemas {
        ToolSchemas::default()
    }

    /// The HTTP form (method, path, query, body) of a call of tool `name`
    /// with MCP `arguments`, when the model can spell one; `None` otherwise
    /// (the call is then answered by its tool alone).
    fn tool_call(&self, _name: &str, _arguments: &Map<String, Value>) -> Option<Call> {
        None
    }
}
