//! The app model (`rea environment-model`): rea's own derived document
//! beyond the spec's views. It infers, from the whole recording, what the
//! template and state rules do not see — resources by structure (id
//! segments with affixes, RPC keys in the query or body, sibling routes),
//! write semantics per route, validators and preconditions, validation
//! rules, the app's error and absence answers and reads sent with a body —
//! and names, for every inference, the records that support it and those it
//! was checked against. Pure functions over the decoded records; the
//! document is deterministic. `list_semantics` is the list-query section
//! (filters, sort, paging), owned by `model::lists` when present.

pub(crate) mod aggregates;
pub(crate) mod analogies;
pub(crate) mod cascades;
pub(crate) mod conditions;
pub(crate) mod docstore;
pub(crate) mod documents;
pub(crate) mod empty;
pub(crate) mod errors;
pub(crate) mod exchange;
pub(crate) mod format_suffix;
pub(crate) mod id_references;
pub(crate) mod keyed;
pub(crate) mod lists;
pub(crate) mod logs;
pub(crate) mod malformed;
pub(crate) mod member_types;
pub(crate) mod nulls;
pub(crate) mod page_links;
pub(crate) mod post_reads;
pub(crate) mod presence;
pub(crate) mod references;
pub mod relations;
pub(crate) mod renderings;
pub(crate) mod representations;
pub(crate) mod required;
pub(crate) mod resources;
pub(crate) mod revisions;
pub(crate) mod routes;
pub(crate) mod rpc_absence;
pub(crate) mod rpc_lists;
pub(crate) mod rpc_refusals;
pub(crate) mod sequences;
pub(crate) mod serving;
pub(crate) mod snapshots;
pub(crate) mod status_forms;
pub(crate) mod titled;
pub(crate) mod tree;
pub(crate) mod validation;
pub(crate) mod verbs;
pub(crate) mod write_shape;
pub(crate) mod writes;

use crate::state::environment_state;
use crate::state::records::Record;
use crate::{DeriveError, TemplateRule};
use exchange::Exchange;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

pub(crate) use conditions::Conditions;
pub(crate) use errors::Errors;
pub use malformed::{media_type as malformed_media_type, MalformedBody};
pub(crate) use post_reads::PostRead;
pub(crate) use resources::Resource;
pub(crate) use sequences::Sequence;
pub(crate) use validation::Rule;
pub(crate) use writes::WriteSemantics;

/// The app model document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Model {
    /// Always `"environment-model"`.
    pub view: String,
    /// Always `"inferred"`.
    pub basis: String,
    pub origin: String,
    pub name: String,
    /// The primary-origin records the model read, in timeline order.
    pub records: Vec<u64>,
    pub resources: Vec<Resource>,
    pub writes: Vec<WriteSemantics>,
    /// Integer id sequences shared by sibling collections, with where each
    /// counter stood when the recording began.
    pub sequences: Vec<Sequence>,
    pub conditions: Conditions,
    pub validation: Vec<Rule>,
    pub errors: Errors,
    pub post_reads: Vec<PostRead>,
    /// List semantics (filters, operators, sort, paging, selection) per list
    /// route: filled by the list-semantics inference; `null` until it runs.
    pub list_semantics: Option<Value>,
    /// What the model could not infer.
    pub limitations: Vec<String>,
    /// Whether the app leaves empty list members out of its answers.
    #[serde(default)]
    pub empty_lists: empty::EmptyLists,
    /// Arrays of objects in entities, with the member that keys their items.
    #[serde(default)]
    pub arrays: Vec<keyed::KeyedArray>,
    /// Arrays of a parent entity holding copies of its dependents.
    #[serde(default)]
    pub aggregates: Vec<aggregates::Aggregate>,
    /// What a verb does to a parent's dependents (or to a dependent
    /// itself), lent across the pair from the side the recording shows.
    #[serde(default)]
    pub analogies: Vec<analogies::Analogy>,
    /// A last-segment extension naming the answer's media type (`.json`),
    /// read as a representation selector: the model's routes are spelled
    /// without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format_suffix: Option<format_suffix::FormatSuffix>,
    /// Sent `<name>_id` members that set a nested reference object `<name>`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub id_references: Vec<id_references::IdReference>,
    /// Members a resource's writes must not leave blank, with the refusal.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub presence: Vec<presence::Presence>,
    /// A document store with revisions, when the recording shows one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document_store: Option<docstore::DocStore>,
    /// A path-keyed tree (keys spanning segments), when the recording shows one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree_store: Option<tree::TreeStore>,
    /// Relations between sibling collections (a child's member holding a
    /// parent's key): nested routes, embedding, cascades.
    #[serde(default, skip_serializing_if = "relations::Relations::is_empty")]
    pub relations: relations::Relations,
    /// The app's answer to a request body that does not parse as JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub malformed_body: Option<malformed::MalformedBody>,
    /// The app's refusals of a sent member of the wrong type, with the
    /// members' types they are served for.
    #[serde(default, skip_serializing_if = "member_types::MemberTypes::is_empty")]
    pub member_types: member_types::MemberTypes,
    /// Item reads whose query selects another representation of the
    /// entity (`?_shape=array` → `[entity]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub representations: Vec<representations::Representation>,
    /// Items keyed by a title (a word segment no id-like member echoes):
    /// the app's absence answer and write refusals for titles never recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub titled: Option<titled::Titled>,
    /// Refusals of RPC-style writes, keyed by the parameter names sent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rpc_refusals: Vec<rpc_refusals::RpcRefusal>,
    /// Paged lists of RPC-style paths (the list named by query values):
    /// limits, cursors and the items their recorded pages chain to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rpc_lists: Vec<rpc_lists::RpcLists>,
    /// Absence answers of RPC-style reads keyed by a query value.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rpc_absences: Vec<rpc_absence::RpcAbsence>,
    /// Members a resource's write answers carry beyond its read shape, each
    /// with its derivation, and the sibling a resource never written in borrows them from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub write_representation: Vec<write_shape::WriteRepresentation>,
    /// Text members whose form another member's value (a status) decides.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub status_forms: Vec<status_forms::StatusFormDoc>,
}

/// The app model of decoded Evidence.
pub fn environment_model(evidence: &Value) -> Result<Model, DeriveError> {
    let (mut model, exchanges, templates) = inferred(evidence)?;
    let serving = serving::serving_model_of(model.clone(), &exchanges, templates);
    // What serving does: the write routes lent as it lends them, the write
    // representation and the status forms it serves.
    for (m, s) in model.resources.iter_mut().zip(&serving.model.resources) {
        m.inferred_operations = s.inferred_operations.clone();
    }
    (model.write_representation, model.status_forms) = serving.write_sections(&exchanges);
    drop(exchanges);
    model.list_semantics = Some(list_semantics_of(evidence, &serving)?);
    Ok(model)
}

/// The list-semantics section, inferred over the manifest and state that
/// `environment-serve` serves (every opt-in template rule).
fn list_semantics_of(
    evidence: &Value,
    serving: &serving::ServingModel,
) -> Result<Value, DeriveError> {
    let manifest = crate::manifest::environment_manifest(evidence, &TemplateRule::ALL, true)?;
    let records = crate::state::records::records_of(evidence);
    let state = crate::state::environment_state_with_records(evidence, &manifest, &records)?;
    let lists = lists::infer_with(&records, &manifest, &state, Some(serving));
    Ok(serde_json::to_value(lists).unwrap_or(Value::Null))
}

/// The model and the decoded exchanges it was inferred from.
#[cfg(test)]
pub(crate) fn model_and_exchanges(evidence: &Value) -> Result<(Model, Vec<Exchange>), DeriveError> {
    inferred(evidence).map(|(model, exchanges, _)| (model, exchanges))
}

/// The model, the decoded exchanges it was inferred from, and the route
/// templating it inferred them with (the serving model starts from it).
pub(crate) fn inferred(
    evidence: &Value,
) -> Result<(Model, Vec<Exchange>, routes::Templates), DeriveError> {
    let state = environment_state(evidence, &[])?;
    let entries: BTreeMap<u64, &Value> = evidence
        .get("records")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|r| Some((r.get("ordinal")?.as_u64()?, r)))
                .collect()
        })
        .unwrap_or_default();
    let mut malformed_bodies = Vec::new();
    let mut exchanges: Vec<Exchange> = state
        .timeline
        .iter()
        .filter_map(|o| {
            let rec = entries.get(o)?;
            let record = Record::from_evidence(rec)?;
            if malformed::sent_malformed(&record) {
                malformed_bodies.push(record.clone());
            }
            Exchange::of(record, rec.get("reported"))
        })
        .collect();
    let tree_store = tree::infer(&exchanges);
    // A tree whose keys spell the suffix: it is part of the key, no
    // representation selector.
    let format = format_suffix::infer(&exchanges).filter(|f| {
        !tree_store
            .as_ref()
            .is_some_and(|t| t.spells(&exchanges, &f.suffix))
    });
    if let Some(f) = &format {
        exchanges.iter_mut().for_each(|x| f.strip(&mut x.segments));
    }
    let (mut model, templates) = model_with_templates(&exchanges, state.origin, state.name);
    model.format_suffix = format;
    model.tree_store = tree_store;
    model.id_references = id_references::infer(&exchanges);
    model.malformed_body = malformed::infer(&malformed_bodies);
    model.member_types = member_types::infer(&exchanges, &|x| {
        exchange::join(&templates.template_of(&x.segments))
    });
    model.representations = representations::infer(&exchanges, &model.resources, &templates);
    Ok((model, exchanges, templates))
}

/// The model of decoded exchanges, and the route templating it used.
fn model_with_templates(
    exchanges: &[Exchange],
    origin: String,
    name: String,
) -> (Model, routes::Templates) {
    let templates = routes::Templates::infer(exchanges);
    let resources = resources::infer(exchanges, &templates);
    // The inferences that read only the resources run on a second core.
    let (
        (writes, arrays, aggregates, analogies),
        (sequences, conditions, validation, errors, post_reads, empty_lists),
    ) = std::thread::scope(|scope| {
        let others = scope.spawn(|| {
            (
                sequences::infer(exchanges, &resources, &templates),
                conditions::infer(exchanges, &resources, &templates),
                validation::infer(exchanges, &resources, &templates),
                errors::infer(exchanges, &resources, &templates),
                post_reads::infer(exchanges, &resources),
                empty::infer(exchanges),
            )
        });
        let mut writes = writes::infer(exchanges, &resources, &templates);
        cascades::infer(exchanges, &resources, &templates, &mut writes);
        let arrays = keyed::infer(exchanges, &resources, &templates);
        let aggregates = aggregates::infer(exchanges, &resources, &templates, &writes, &arrays);
        let analogies = analogies::infer(exchanges, &resources, &templates, &writes);
        let others = others
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        ((writes, arrays, aggregates, analogies), others)
    });
    let presence = presence::infer(
        exchanges,
        &|x| exchange::join(&templates.template_of(&x.segments)),
        &|route| {
            resources
                .iter()
                .find(|r| {
                    r.addressing == "path"
                        && (r.collection == route || r.item.as_deref() == Some(route))
                })
                .map(|r| r.collection.clone())
        },
    );
    let document_store = docstore::infer(exchanges);
    let relations = relations::infer(exchanges);
    let titled = titled::infer(exchanges, &templates);
    let rpc_refusals = rpc_refusals::infer(exchanges);
    let rpc_lists = rpc_lists::infer(exchanges);
    let rpc_absences = rpc_absence::infer(exchanges);
    let mut limitations = Vec::new();
    let placed: std::collections::BTreeSet<u64> = resources
        .iter()
        .flat_map(|r| r.operations.iter().flat_map(|o| o.ordinals.iter().copied()))
        .collect();
    let unplaced: Vec<String> = exchanges
        .iter()
        .filter(|x| !placed.contains(&x.ordinal))
        .map(|x| x.ordinal.to_string())
        .collect();
    if !unplaced.is_empty() {
        limitations.push(format!(
            "records on no inferred resource (served by the spec's plans only): {}",
            unplaced.join(", ")
        ));
    }
    for w in writes.iter().filter(|w| w.semantics == "unconfirmed") {
        limitations.push(format!(
            "{} {}: no read shows the write's effect",
            w.method, w.route
        ));
    }
    let model = Model {
        view: "environment-model".into(),
        basis: "inferred".into(),
        origin,
        name,
        records: exchanges.iter().map(|x| x.ordinal).collect(),
        resources,
        writes,
        sequences,
        conditions,
        validation,
        errors,
        post_reads,
        list_semantics: None,
        limitations,
        empty_lists,
        arrays,
        aggregates,
        analogies,
        format_suffix: None,
        id_references: Vec::new(),
        presence,
        document_store,
        tree_store: None,
        relations,
        malformed_body: None,
        member_types: Default::default(),
        representations: Vec::new(),
        titled,
        rpc_refusals,
        rpc_lists,
        rpc_absences,
        write_representation: Vec::new(),
        status_forms: Vec::new(),
    };
    (model, templates)
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_rpc;
