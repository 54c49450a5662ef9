//! Small captures built in code for the write-side tests: HAR entries, the
//! manifest tools that hold them, and a one-type state (`items` at
//! `/api/items`, identity `id`) whose initial reads are given.

use crate::engine::compile;
use crate::manifest::{Manifest, Param, Tool};
use crate::state::records::Record;
use crate::state::{Entity, EntityType, ItemPlan, ListLine, ListPlan, State, ViewPlan, WritePlan};
use serde_json::{json, Value};
use std::collections::HashMap;

/// 2024-05-01T12:00:00Z.
pub(crate) const T0: i64 = 1_714_564_800_000;

/// One exchange of a capture under construction.
pub(crate) struct Ex {
    pub(crate) method: &'static str,
    pub(crate) path: String,
    pub(crate) status: u16,
    pub(crate) request: Option<(String, String)>,
    pub(crate) response: Option<Value>,
}

pub(crate) fn ex(method: &'static str, path: &str, status: u16) -> Ex {
    Ex {
        method,
        path: path.to_string(),
        status,
        request: None,
        response: None,
    }
}

impl Ex {
    pub(crate) fn body(mut self, body: Value) -> Ex {
        self.request = Some(("application/json".into(), body.to_string()));
        self
    }
    pub(crate) fn raw_body(mut self, content_type: &str, text: &str) -> Ex {
        self.request = Some((content_type.into(), text.into()));
        self
    }
    pub(crate) fn answer(mut self, body: Value) -> Ex {
        self.response = Some(body);
        self
    }
}

/// A HAR entry for one exchange, starting `i` seconds after `T0` and lasting 5 ms.
fn entry(i: usize, e: &Ex) -> Value {
    let started = chrono::DateTime::from_timestamp_millis(T0 + i as i64 * 1000)
        .unwrap_or_default()
        .to_rfc3339();
    let mut request =
        json!({"method": e.method, "url": format!("http://app.test{}", e.path), "headers": []});
    if let Some((ct, text)) = &e.request {
        request["postData"] = json!({"mimeType": ct, "text": text});
    }
    let content = match &e.response {
        Some(v) => json!({"mimeType": "application/json", "text": v.to_string()}),
        None => json!({"mimeType": "", "text": ""}),
    };
    json!({
        "startedDateTime": started,
        "time": 5,
        "request": request,
        "response": {"status": e.status, "headers": [{"name": "Content-Type", "value": "application/json"}], "content": content}
    })
}

/// The tools of the test app, by method and template.
pub(crate) const TOOLS: &[(&str, &str, &str)] = &[
    ("list_items", "GET", "/api/items"),
    ("get_item", "GET", "/api/items/{item_id}"),
    ("create_item", "POST", "/api/items"),
    ("update_item", "PATCH", "/api/items/{item_id}"),
    ("replace_item", "PUT", "/api/items/{item_id}"),
    ("delete_item", "DELETE", "/api/items/{item_id}"),
    ("get_settings", "GET", "/api/settings"),
    ("put_settings", "PUT", "/api/settings"),
    ("logout", "POST", "/api/logout"),
];

fn fits(template: &str, path: &str) -> bool {
    crate::state::writes::input::path_params(template, path.split('?').next().unwrap_or(""))
        .is_some()
}

/// A built scenario: the manifest, the records and the initial state.
pub(crate) struct Scenario {
    pub(crate) manifest: Manifest,
    pub(crate) records: HashMap<u64, Record>,
    pub(crate) state: State,
}

impl Scenario {
    /// Builds the scenario; `initial` exchanges (by index) are the initial
    /// reads, `entities` the initial items in state order.
    pub(crate) fn new(exchanges: &[Ex], entities: &[Value], settings: Option<Value>) -> Scenario {
        let mut tools: Vec<Tool> = TOOLS
            .iter()
            .map(|(name, method, template)| Tool {
                name: name.to_string(),
                method: method.to_string(),
                path_template: template.to_string(),
                api_surface_template: template.to_string(),
                params: compile(template)
                    .iter()
                    .enumerate()
                    .filter_map(|(i, s)| match s {
                        crate::engine::Segment::Param(n) => Some(Param {
                            name: n.clone(),
                            segment_index: i,
                            rule: "numeric".into(),
                            observed: vec![],
                            basis: "derived".into(),
                        }),
                        _ => None,
                    })
                    .collect(),
                query_parameter_names: vec![],
                body_shape: None,
                statuses: vec![],
                content_types: vec![],
                record_ordinals: vec![],
            })
            .collect();
        let mut records = HashMap::new();
        for (i, e) in exchanges.iter().enumerate() {
            let ordinal = i as u64;
            records.insert(ordinal, Record::from_entry(ordinal, &entry(i, e)));
            let literal_first = tools
                .iter()
                .position(|t| {
                    t.method == e.method
                        && !t.path_template.contains('{')
                        && fits(&t.path_template, &e.path)
                })
                .or_else(|| {
                    tools
                        .iter()
                        .position(|t| t.method == e.method && fits(&t.path_template, &e.path))
                });
            if let Some(t) = literal_first {
                tools[t].record_ordinals.push(ordinal);
            }
        }
        let first_of = |tool: &str| {
            tools
                .iter()
                .find(|t| t.name == tool)
                .and_then(|t| t.record_ordinals.first().copied())
        };
        let entities: Vec<Entity> = entities
            .iter()
            .map(|v| Entity {
                type_name: "items".into(),
                collection: "/api/items".into(),
                id: v["id"].clone(),
                fields: v.as_object().cloned().unwrap_or_default(),
                view_fields: Default::default(),
                record_ordinals: vec![],
            })
            .collect();
        let fields: Vec<String> = entities
            .first()
            .map(|e| e.fields.keys().cloned().collect())
            .unwrap_or_default();
        let mut views = vec![
            ViewPlan::List(ListPlan {
                tool: "list_items".into(),
                type_name: "items".into(),
                pointer: String::new(),
                fields: fields.clone(),
                membership: crate::state::model::Membership::All,
                counters: vec![],
                lines: vec![ListLine {
                    line: "/api/items".into(),
                    base_ordinal: first_of("list_items").unwrap_or(0),
                    collection: "/api/items".into(),
                    membership: crate::state::model::Membership::All,
                    listed: entities.iter().map(|e| e.id.clone()).collect(),
                }],
                not_found_ordinal: None,
                checked_record_ordinals: vec![],
            }),
            ViewPlan::Item(ItemPlan {
                tool: "get_item".into(),
                type_name: "items".into(),
                pointer: String::new(),
                fields: fields.clone(),
                required_fields: fields.clone(),
                envelope_ordinal: first_of("get_item").unwrap_or(0),
                not_found_ordinal: None,
                checked_record_ordinals: vec![],
            }),
        ];
        let mut documents = vec![];
        if let Some(v) = settings {
            views.push(ViewPlan::Document(crate::state::DocumentPlan {
                tool: "get_settings".into(),
                path: "/api/settings".into(),
                base_ordinal: first_of("get_settings").unwrap_or(0),
                checked_record_ordinals: vec![],
            }));
            documents.push(crate::state::Document {
                path: "/api/settings".into(),
                tool: "get_settings".into(),
                value: v,
                record_ordinals: vec![],
            });
        }
        let state = State {
            view: "environment-state".into(),
            basis: "inferred".into(),
            origin: "http://app.test".into(),
            name: "app-test".into(),
            template_rules: vec![],
            timeline_order: crate::state::TimelineOrder::StartTime,
            timeline: (0..exchanges.len() as u64).collect(),
            state_writes: vec![],
            types: vec![EntityType {
                name: "items".into(),
                collection_template: "/api/items".into(),
                root: "/api/items".into(),
                id_field: "id".into(),
                id_basis: crate::state::IdBasis::FieldName,
                volatile_fields: vec![],
                fields,
                item_tool: Some("get_item".into()),
                list_tools: vec!["list_items".into()],
                recorded_reason: None,
            }],
            entities,
            documents,
            views,
            writes: vec![],
            write_clock: None,
            unknowns: vec![],
            limitations: vec![],
        };
        let manifest = Manifest {
            view: "environment-manifest".into(),
            basis: "derived".into(),
            origin: "http://app.test".into(),
            name: "app-test".into(),
            template_rules: vec![],
            tools,
            excluded: vec![],
            records: vec![],
            templated_groups: 0,
            unknowns: vec![],
            limitations: vec![],
        };
        Scenario {
            manifest,
            records,
            state,
        }
    }

    /// Runs the write side: every plan, checked.
    pub(crate) fn plans(&self) -> Vec<WritePlan> {
        let records: Vec<Record> = (0..self.records.len() as u64)
            .filter_map(|o| self.records.get(&o).cloned())
            .collect();
        match super::derive_writes(&self.manifest, &records, &self.state) {
            Ok(plans) => plans,
            Err(e) => panic!("derive_writes failed: {e:?}"),
        }
    }

    /// The plan of one tool.
    pub(crate) fn plan(&self, tool: &str) -> WritePlan {
        self.plans()
            .into_iter()
            .find(|p| p.tool == tool)
            .unwrap_or_else(|| panic!("no plan for {tool}"))
    }
}
