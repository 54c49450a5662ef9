//! The environment state document (`{"view":"environment-state"}`): the
//! types, entities and documents the capture's initial reads observed, one
//! render plan per read tool and one write plan per state-changing tool.
//! Field names follow the spec's "Environment state" section; the engine
//! (`crate::engine`), the write side (`state::writes`) and `rea-serve` code
//! against these types.

use crate::shapes::ClockFormat;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The environment state view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// Always `"environment-state"`.
    pub view: String,
    /// Always `"inferred"`: types and identities are inferences.
    pub basis: String,
    /// The manifest's primary origin.
    pub origin: String,
    /// The manifest's environment name.
    pub name: String,
    /// The opt-in template rules the accompanying manifest used.
    pub template_rules: Vec<String>,
    /// `"start-time"` or `"record-order"` (some start time was missing).
    pub timeline_order: TimelineOrder,
    /// Primary-origin record ordinals in timeline order.
    pub timeline: Vec<u64>,
    /// The state-changing writes, in timeline order (queries excluded).
    pub state_writes: Vec<StateWrite>,
    /// One entry per entity type, sorted by type name.
    pub types: Vec<EntityType>,
    /// Ordered by type, collection, first sighting: a list's state order.
    pub entities: Vec<Entity>,
    /// Values of document views, sorted by path.
    pub documents: Vec<Document>,
    /// One plan per read tool, in manifest tool order.
    pub views: Vec<ViewPlan>,
    /// One plan per tool whose requests may change state, in tool order
    /// (filled by the write side, `state::writes`).
    pub writes: Vec<WritePlan>,
    /// Milliseconds since the Unix epoch: the end of the last timed record,
    /// rounded up to the next whole second. `None` when no record is timed.
    pub write_clock: Option<i64>,
    pub unknowns: Vec<String>,
    pub limitations: Vec<String>,
}

/// A request that may change state, as the timeline saw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StateWrite {
    pub ordinal: u64,
    pub method: String,
    /// The raw recorded path, or `None` when the URL was redacted (unknown target).
    pub path: Option<String>,
    /// The root the write falls under (`None`: unknown, ends every type's state).
    pub root: Option<String>,
    pub status: Option<u16>,
    /// The manifest tool that holds the record, if any.
    pub tool: Option<String>,
}

/// One entity type: the entities of one collection template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntityType {
    /// The type name (the template's last literal segment, made unique).
    pub name: String,
    /// The item template minus its trailing parameter, e.g.
    /// `/v1/buckets/{bucket_id}/collections/{collection_id}/records`.
    pub collection_template: String,
    /// The root whose first write ends this type's initial state.
    pub root: String,
    pub id_field: String,
    /// `"path-parameter"` or `"field-name"`.
    pub id_basis: IdBasis,
    /// Fields one tool saw change with no recorded write between.
    pub volatile_fields: Vec<String>,
    /// Every field any view of the type showed, in first-seen order.
    pub fields: Vec<String>,
    /// The type's item tool, if any.
    pub item_tool: Option<String>,
    /// The type's list tools.
    pub list_tools: Vec<String>,
    /// Set when every tool of the type is recorded for a state reason
    /// (`fields-differ`, `list-differs`).
    pub recorded_reason: Option<Replays>,
}

/// One entity: one identity within one collection path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entity {
    #[serde(rename = "type")]
    pub type_name: String,
    /// The concrete collection path, e.g. `/v1/buckets/shop/collections/products/records`
    /// (empty segments removed, no trailing slash).
    pub collection: String,
    /// The identity value (a string or a number), equal to `fields[id_field]`.
    pub id: Value,
    /// The merged field values, in first-seen order.
    pub fields: Map<String, Value>,
    /// Per tool: the latest values that view showed where they differ from `fields`.
    pub view_fields: IndexMap<String, Map<String, Value>>,
    pub record_ordinals: Vec<u64>,
}

/// One document: the value of one path that holds no identified list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Document {
    /// The raw request path (and query, if the request line had one).
    pub path: String,
    pub tool: String,
    pub value: Value,
    pub record_ordinals: Vec<u64>,
}

/// One read tool's render plan, tagged by `shape`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "shape", rename_all = "lowercase")]
pub enum ViewPlan {
    Item(ItemPlan),
    List(ListPlan),
    Document(DocumentPlan),
    Recorded(RecordedPlan),
}

impl ViewPlan {
    /// The tool the plan renders.
    pub fn tool(&self) -> &str {
        match self {
            ViewPlan::Item(p) => &p.tool,
            ViewPlan::List(p) => &p.tool,
            ViewPlan::Document(p) => &p.tool,
            ViewPlan::Recorded(p) => &p.tool,
        }
    }

    /// `item`, `list`, `document` or `recorded`.
    pub fn shape(&self) -> &'static str {
        match self {
            ViewPlan::Item(_) => "item",
            ViewPlan::List(_) => "list",
            ViewPlan::Document(_) => "document",
            ViewPlan::Recorded(_) => "recorded",
        }
    }

    /// True when the tool renders from the World (not a replay).
    pub fn renders_from_world(&self) -> bool {
        !matches!(self, ViewPlan::Recorded(_))
    }
}

/// Renders one entity into the envelope of a recorded item response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemPlan {
    pub tool: String,
    #[serde(rename = "type")]
    pub type_name: String,
    /// JSON pointer of the entity object: `""`, `/<member>`, `/0` or `/<member>/0`.
    pub pointer: String,
    /// The fields the view shows, in its order.
    pub fields: Vec<String>,
    /// The fields every recording of the view had.
    pub required_fields: Vec<String>,
    /// The recording whose response (entity swapped in) every item response shares.
    pub envelope_ordinal: u64,
    /// The recording of a not-found answer for this tool or type, if any.
    pub not_found_ordinal: Option<u64>,
    pub checked_record_ordinals: Vec<u64>,
}

/// Renders a collection's entities into the envelope of a recorded list response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListPlan {
    pub tool: String,
    #[serde(rename = "type")]
    pub type_name: String,
    /// JSON pointer of the array: `""` or `/<member>`.
    pub pointer: String,
    pub fields: Vec<String>,
    /// `"all"` or `"recorded"`.
    pub membership: Membership,
    /// Envelope members (pointers) whose value equals the number listed.
    pub counters: Vec<String>,
    /// Each initial request line: its base recording and what it listed.
    pub lines: Vec<ListLine>,
    /// The recording of a not-found answer for this tool, if any.
    pub not_found_ordinal: Option<u64>,
    pub checked_record_ordinals: Vec<u64>,
}

/// One request line of a list view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListLine {
    /// Raw path plus `?query` when present.
    pub line: String,
    /// The latest initial recording of the line: the envelope it renders into.
    pub base_ordinal: u64,
    /// The collection path the line lists.
    pub collection: String,
    /// `"all"` when this line listed exactly every entity in state order with
    /// no filtering query, no differing total and no next-page marker.
    pub membership: Membership,
    /// The identities the base recording listed, in its order.
    pub listed: Vec<Value>,
}

/// Serves a recorded value held in `documents`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocumentPlan {
    pub tool: String,
    /// The document's path (the one request line of its initial reads).
    pub path: String,
    /// The recording whose status and headers the document is served with.
    pub base_ordinal: u64,
    pub checked_record_ordinals: Vec<u64>,
}

/// Replays recordings; `reason` says why the tool is not rendered from state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedPlan {
    pub tool: String,
    /// Why the tool replays (`Replays`: `envelope-varies`, `fields-differ`,
    /// `list-differs`, `query-body`, …).
    pub reason: Replays,
    /// The tool's recordings, in timeline order.
    pub record_ordinals: Vec<u64>,
}

/// One write tool's plan. The write side (`state::writes`) builds it and the
/// replay check decides `status`; `engine::apply` executes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WritePlan {
    pub tool: String,
    pub method: String,
    /// `create`, `update`, `delete`, `document` or `none`.
    pub effect: Effect,
    /// The entity type written (create/update/delete).
    #[serde(rename = "type")]
    pub type_name: Option<String>,
    /// The document path written (`effect: "document"`).
    pub document_path: Option<String>,
    /// `"served"` or `"unserved"`.
    pub status: PlanStatus,
    /// Why the plan is not served: `no-state-target`, `no-call`,
    /// `body-unusable`, `no-observation`, `unexplained-change`,
    /// `contradicted`, `side-effect`, `unconfirmed`, `incomplete-entities`.
    pub reason: Option<Unserved>,
    /// The reads that contradicted the plan.
    pub contradicted_by: Vec<u64>,
    /// The reads that confirmed the plan.
    pub checked_record_ordinals: Vec<u64>,
    /// The tool's first successful call, the plan's example.
    pub example_ordinal: Option<u64>,
    /// Body members every call must send.
    pub required_members: Vec<String>,
    /// Members accepted only with their recorded value (`body.fixed`).
    pub body_fixed: Vec<FixedMember>,
    /// One rule per field of a created or updated entity.
    pub field_rules: Vec<FieldRule>,
    /// Where created entities go in their collection's state order.
    pub insert: Option<Insert>,
    /// How the write answers: status and envelope of its example.
    pub answer: Option<WriteAnswer>,
}

/// A body member stored only with its recorded value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FixedMember {
    pub member: String,
    /// The value the call sent.
    pub sent: Value,
    /// The value the state stores (the `constant` rule's value).
    pub value: Value,
}

/// How one field of a written entity gets its value: the field and its
/// rule. In the document the rule is spelled `"rule": <name>` with its
/// parameters under `"with"` (left out when there are none).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldRule {
    pub field: String,
    #[serde(flatten)]
    pub rule: Rule,
}

impl FieldRule {
    /// The rule `rule` for `field`.
    pub fn new(field: impl Into<String>, rule: Rule) -> FieldRule {
        FieldRule {
            field: field.into(),
            rule,
        }
    }
}

/// The rules a write plan gives a field, with their parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "rule", content = "with", rename_all = "kebab-case")]
pub enum Rule {
    /// A generated identity.
    Identity(Generated),
    /// The body member of the same name, stored as sent.
    Echo { member: String },
    /// A body string (of 8 or more characters) under another member.
    Copy { member: String },
    /// A path parameter's value, as a string or a number.
    Path {
        param: String,
        #[serde(rename = "as")]
        kind: ValueKind,
    },
    /// A slug of a body member.
    Slug { member: String, separator: String },
    /// The write's time, in the recorded format.
    Clock { format: ClockFormat },
    /// One past the largest value of the collection or the type.
    Sequence {
        scope: SequenceScope,
        #[serde(rename = "as")]
        kind: ValueKind,
    },
    /// A fresh UUID.
    Unique { uppercase: bool },
    /// `prefix` + the value generated for `source` + `suffix`.
    Template {
        source: String,
        prefix: String,
        suffix: String,
    },
    /// The recorded value, whatever the call sent.
    Observed { value: Value },
    /// An update member accepted only with its recorded value, stored as `value`.
    Constant { value: Value, member: String },
    /// An update member accepted and not stored.
    Dropped { member: String },
    /// An integer the update raises by `by` without it being sent.
    Increment { by: i64 },
    /// A delete's answer shows the stored entity's value.
    Entity,
    /// A change no rule explains (the plan is `unexplained-change`).
    Unexplained,
}

impl Rule {
    /// The rule's name in the state document.
    pub fn name(&self) -> &'static str {
        match self {
            Rule::Identity(_) => "identity",
            Rule::Echo { .. } => "echo",
            Rule::Copy { .. } => "copy",
            Rule::Path { .. } => "path",
            Rule::Slug { .. } => "slug",
            Rule::Clock { .. } => "clock",
            Rule::Sequence { .. } => "sequence",
            Rule::Unique { .. } => "unique",
            Rule::Template { .. } => "template",
            Rule::Observed { .. } => "observed",
            Rule::Constant { .. } => "constant",
            Rule::Dropped { .. } => "dropped",
            Rule::Increment { .. } => "increment",
            Rule::Entity => "entity",
            Rule::Unexplained => "unexplained",
        }
    }

    /// True for a value the app generates in creation order (a clock, a
    /// sequence or a sequence identity).
    pub fn generated_in_order(&self) -> bool {
        matches!(
            self,
            Rule::Clock { .. } | Rule::Sequence { .. } | Rule::Identity(Generated::Sequence { .. })
        )
    }

    /// True for a value the app generates fresh (an identity or a unique UUID).
    pub fn generated(&self) -> bool {
        matches!(self, Rule::Identity(_) | Rule::Unique { .. })
    }
}

/// How an identity is generated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "generator", rename_all = "kebab-case")]
pub enum Generated {
    /// One past the collection's largest sequence identity.
    Sequence {
        #[serde(rename = "as")]
        kind: ValueKind,
    },
    /// A UUID, upper-case when the recording was.
    Uuid { uppercase: bool },
    /// A token of `length` characters from `alphabet`.
    Token { alphabet: String, length: u64 },
}

/// How a generated or path value is written: a JSON string or number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ValueKind {
    String,
    Number,
}

/// Which entities a `sequence` counts past.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SequenceScope {
    Collection,
    Type,
}

/// Placement of created entities.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Insert {
    /// `"sorted"` or `"last"`.
    pub position: InsertPosition,
    /// The field the recorded order sorts by (for `sorted`).
    pub field: Option<String>,
    /// `"ascending"` or `"descending"` (for `sorted`).
    pub order: Option<SortOrder>,
}

/// How a write answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WriteAnswer {
    pub status: u16,
    /// The recording whose response is the envelope.
    pub envelope_ordinal: u64,
    /// Where the written entity sits in the envelope, if it is shown.
    pub pointer: Option<String>,
}

/// A plan-vocabulary enum spelled in the state document as its serde
/// name: `as_str`, `Display` and comparison with that spelling.
macro_rules! spelled {
    ($(#[$meta:meta])* $name:ident, $case:literal, { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = $case)]
        pub enum $name {
            $($variant),+
        }

        impl $name {
            /// The spelling in the state document.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.as_str() == *other
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

spelled!(
    /// What a write plan does to the state.
    Effect, "kebab-case", {
        Create => "create",
        Update => "update",
        Delete => "delete",
        Document => "document",
        None => "none",
    }
);

spelled!(
    /// Whether the replay check confirmed a write plan.
    PlanStatus, "lowercase", { Served => "served", Unserved => "unserved" }
);

spelled!(
    /// Why a write plan is not served: its build reason, or what the replay
    /// check found.
    Unserved, "kebab-case", {
        NoStateTarget => "no-state-target",
        NoCall => "no-call",
        BodyUnusable => "body-unusable",
        NoObservation => "no-observation",
        UnexplainedChange => "unexplained-change",
        Contradicted => "contradicted",
        SideEffect => "side-effect",
        Unconfirmed => "unconfirmed",
        IncompleteEntities => "incomplete-entities",
    }
);

spelled!(
    /// How the timeline is ordered: by start time, or in record order
    /// (some start time was missing).
    TimelineOrder, "kebab-case", { StartTime => "start-time", RecordOrder => "record-order" }
);

spelled!(
    /// What proves an entity type's identity: a path parameter equal to a
    /// field of the item, or a field's name.
    IdBasis, "kebab-case", { PathParameter => "path-parameter", FieldName => "field-name" }
);

spelled!(
    /// Why a read tool replays its recordings instead of rendering from
    /// the state (the spec's recorded-view reasons).
    Replays, "kebab-case", {
        EnvelopeVaries => "envelope-varies",
        FieldsDiffer => "fields-differ",
        ListDiffers => "list-differs",
        QueryBody => "query-body",
        NoInitRecording => "no-init-recording",
        BodyUnusable => "body-unusable",
        NoIdentity => "no-identity",
        PathVaries => "path-varies",
        QueryVaries => "query-varies",
        RenderedOversize => "rendered-oversize",
    }
);

spelled!(
    /// Which entities a list shows: `all` of its collection in state order,
    /// or the ones its recording listed.
    Membership, "lowercase", { All => "all", Recorded => "recorded" }
);

spelled!(
    /// Where a created entity goes: `sorted` by a field, or `last`.
    InsertPosition, "lowercase", { Sorted => "sorted", Last => "last" }
);

spelled!(
    /// A sort direction.
    SortOrder, "lowercase", { Ascending => "ascending", Descending => "descending" }
);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn field_rules_keep_their_document_spelling() {
        let document = json!([
            {"field": "id", "rule": "identity", "with": {"generator": "sequence", "as": "number"}},
            {"field": "u", "rule": "identity", "with": {"generator": "uuid", "uppercase": false}},
            {"field": "t", "rule": "identity", "with": {"generator": "token", "alphabet": "abc", "length": 4}},
            {"field": "a", "rule": "echo", "with": {"member": "a"}},
            {"field": "b", "rule": "copy", "with": {"member": "a"}},
            {"field": "c", "rule": "path", "with": {"param": "board_id", "as": "string"}},
            {"field": "d", "rule": "slug", "with": {"member": "a", "separator": "-"}},
            {"field": "e", "rule": "clock", "with": {"format": {"kind": "epoch-ms"}}},
            {"field": "f", "rule": "sequence", "with": {"scope": "type", "as": "string"}},
            {"field": "g", "rule": "unique", "with": {"uppercase": true}},
            {"field": "h", "rule": "template", "with": {"source": "id", "prefix": "/x/", "suffix": ""}},
            {"field": "i", "rule": "observed", "with": {"value": {"nested": [1, null]}}},
            {"field": "j", "rule": "constant", "with": {"value": "closed", "member": "j"}},
            {"field": "k", "rule": "dropped", "with": {"member": "k"}},
            {"field": "l", "rule": "increment", "with": {"by": 1}},
            {"field": "m", "rule": "entity"},
            {"field": "n", "rule": "unexplained"}
        ]);
        let rules: Vec<FieldRule> = serde_json::from_value(document.clone()).unwrap();
        assert_eq!(rules[3].rule, Rule::Echo { member: "a".into() });
        assert_eq!(rules[15].rule, Rule::Entity);
        let names: Vec<&str> = rules.iter().map(|r| r.rule.name()).collect();
        let spelled: Vec<&str> = document
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["rule"].as_str().unwrap())
            .collect();
        assert_eq!(names, spelled);
        // Byte for byte, members in the same order.
        assert_eq!(
            serde_json::to_string(&rules).unwrap(),
            serde_json::to_string(&document).unwrap()
        );
    }

    #[test]
    fn an_unknown_rule_or_a_missing_parameter_is_refused() {
        let unknown = json!({"field": "a", "rule": "guess", "with": {}});
        assert!(serde_json::from_value::<FieldRule>(unknown).is_err());
        let missing = json!({"field": "a", "rule": "echo"});
        assert!(serde_json::from_value::<FieldRule>(missing).is_err());
    }

    #[test]
    fn timeline_order_id_basis_and_replay_reasons_keep_their_spelling() {
        let spelled = |v: Value| serde_json::to_value(v).unwrap();
        for (order, text) in [
            (TimelineOrder::StartTime, "start-time"),
            (TimelineOrder::RecordOrder, "record-order"),
        ] {
            assert_eq!(spelled(json!(order)), json!(text));
            assert_eq!(order, text);
            assert_eq!(
                serde_json::from_value::<TimelineOrder>(json!(text)).unwrap(),
                order
            );
        }
        for (basis, text) in [
            (IdBasis::PathParameter, "path-parameter"),
            (IdBasis::FieldName, "field-name"),
        ] {
            assert_eq!(spelled(json!(basis)), json!(text));
            assert_eq!(
                serde_json::from_value::<IdBasis>(json!(text)).unwrap(),
                basis
            );
        }
        for text in [
            "envelope-varies",
            "fields-differ",
            "list-differs",
            "query-body",
            "no-init-recording",
            "body-unusable",
            "no-identity",
            "path-varies",
            "query-varies",
            "rendered-oversize",
        ] {
            let reason: Replays = serde_json::from_value(json!(text)).unwrap();
            assert_eq!(reason.as_str(), text);
            assert_eq!(spelled(json!(reason)), json!(text));
        }
        assert!(serde_json::from_value::<Replays>(json!("because")).is_err());
        assert!(serde_json::from_value::<IdBasis>(json!("guess")).is_err());
        assert!(serde_json::from_value::<TimelineOrder>(json!("random")).is_err());
    }
}
