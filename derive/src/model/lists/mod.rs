//! List semantics inferred from recorded query/answer pairs: what each list
//! parameter does (filters, operators, sort, paging, field selection,
//! search, filter languages in a search body), the defaults, and how the app
//! spells totals and next pages — each kept only when re-rendering every
//! recorded initial instance from the World reproduces the recording.
//!
//! - `conventions`: the library of common spellings (hypotheses only);
//! - `fields`: field paths in entities and value comparison;
//! - `filter_lang`: `a = 'x' AND b > 1` filter expressions;
//! - `eval`: the one evaluator inference and serving share (in `rea-engine`);
//! - `instances`: the recorded list instances and their universes;
//! - `infer`: hypotheses and their confirmation;
//! - `semantics`: the serialized document.

pub(crate) mod conventions;
pub(crate) mod identity;
pub(crate) mod infer;
pub(crate) mod instances;
pub(crate) mod moments;
pub(crate) mod related;
pub(crate) mod shape;

/// The document, field paths, filter expressions and the evaluator live
/// in `rea-engine` (serving uses them); inference re-exports them.
pub(crate) use rea_engine::lists::{eval, fields, filter_lang, semantics};

pub(crate) use semantics::{EndpointSemantics, ListSemantics, Meaning, ParamMeaning};

use crate::manifest::Manifest;
use crate::model::serving::ServingModel;
use crate::state::records::Record;
use crate::state::State;

/// Infers the list semantics of every list endpoint of a capture, from its
/// records, manifest and environment state (deterministic), with the
/// instances recorded after writes checked against the World as of their
/// moment: the recording's writes replayed through the
/// spec's engine and the app model (`serving`), as the server dispatches
/// them (`moments`).
pub(crate) fn infer_with(
    records: &[Record],
    manifest: &Manifest,
    state: &State,
    serving: Option<&ServingModel>,
) -> ListSemantics {
    let mut endpoints = instances::endpoints(records, manifest, state);
    infer_endpoints(&mut endpoints, records, manifest, state, serving, None)
}

/// `infer_with` over the engine about to serve (built from the same
/// records, its manifest and state, with no list semantics yet): the
/// moments replay through it instead of building another.
pub fn infer_with_engine(
    records: &[Record],
    engine: &rea_engine::Engine,
    serving: Option<&ServingModel>,
) -> ListSemantics {
    infer_from_instances(
        &mut list_instances(records, engine),
        records,
        engine,
        serving,
    )
}

/// The recorded list instances of a capture, gathered before the app model
/// is known (`list_instances`), and what the list semantics are inferred
/// from once it is (`infer_from_instances`).
pub struct ListInstances(Vec<instances::Endpoint>);

/// The list endpoints and their recorded instances, from the records and
/// the engine about to serve them: the part of `infer_with_engine` that
/// needs no app model (start-up gathers it while the model is inferred).
pub fn list_instances(records: &[Record], engine: &rea_engine::Engine) -> ListInstances {
    ListInstances(instances::endpoints(
        records,
        &engine.manifest,
        &engine.state,
    ))
}

/// `infer_with_engine` over instances `list_instances` gathered from the
/// same records and engine. The instances stay the caller's, to free where
/// it likes (they hold every recorded list answer).
pub fn infer_from_instances(
    gathered: &mut ListInstances,
    records: &[Record],
    engine: &rea_engine::Engine,
    serving: Option<&ServingModel>,
) -> ListSemantics {
    infer_endpoints(
        &mut gathered.0,
        records,
        &engine.manifest,
        &engine.state,
        serving,
        Some(engine),
    )
}

/// The list semantics of gathered endpoints: their after-write instances
/// given the World of their moment (replayed through `engine`, or an engine
/// built for it), each endpoint inferred, then what siblings lend.
fn infer_endpoints(
    endpoints: &mut [instances::Endpoint],
    records: &[Record],
    manifest: &Manifest,
    state: &State,
    serving: Option<&ServingModel>,
    engine: Option<&rea_engine::Engine>,
) -> ListSemantics {
    at_their_moment(endpoints, records, manifest, state, serving, engine);
    let mut inferred: Vec<EndpointSemantics> =
        endpoints.iter().map(infer::infer_endpoint).collect();
    adopt_siblings(&mut inferred);
    crate::model::page_links::adopt_sibling_order(&mut inferred);
    adopt_page_size(&mut inferred, endpoints);
    adopt_field_selection(&mut inferred);
    lend_operator_families(&mut inferred);
    ListSemantics {
        view: "list-semantics".into(),
        endpoints: inferred,
    }
}

/// Fills each after-write instance's universe with the World as of its
/// moment, and gives an endpoint whose every instance came after writes
/// the identity its answers show.
fn at_their_moment(
    endpoints: &mut [instances::Endpoint],
    records: &[Record],
    manifest: &Manifest,
    state: &State,
    serving: Option<&ServingModel>,
    engine: Option<&rea_engine::Engine>,
) {
    // A list of a child collection after a cascading delete of a parent
    // (`model::relations`) is after a write too.
    if let Some(s) = serving {
        let at: std::collections::HashMap<u64, usize> = records
            .iter()
            .enumerate()
            .map(|(i, r)| (r.ordinal, i))
            .collect();
        for rel in s.model.relations.relations.iter() {
            if !crate::model::relations::cascades_on_delete(rel) {
                continue;
            }
            let deletes: Vec<usize> = records
                .iter()
                .filter(|r| {
                    r.method == "DELETE"
                        && r.status.is_some_and(|c| (200..300).contains(&c))
                        && r.path.as_deref().is_some_and(|p| {
                            p.strip_prefix(rel.parent.as_str())
                                .is_some_and(|rest| rest.starts_with('/'))
                        })
                })
                .filter_map(|r| at.get(&r.ordinal).copied())
                .collect();
            for e in endpoints.iter_mut() {
                for i in e
                    .instances
                    .iter_mut()
                    .filter(|i| i.initial && i.path == rel.child)
                {
                    let here = at.get(&i.ordinal).copied().unwrap_or(0);
                    if deletes.iter().any(|d| *d < here) {
                        i.initial = false;
                    }
                }
            }
        }
    }
    let wanted: Vec<moments::Wanted> = endpoints
        .iter()
        .flat_map(|e| {
            e.instances
                .iter()
                .filter(|i| !i.initial)
                .take(infer::MAX_CHECKED)
                .map(move |i| moments::Wanted {
                    ordinal: i.ordinal,
                    tool: e.tool.name.clone(),
                    universe_kind: e.universe_kind.clone(),
                    method: e.tool.method.clone(),
                    path: i.path.clone(),
                })
        })
        .collect();
    if wanted.is_empty() {
        return;
    }
    let built;
    let engine = match engine {
        Some(e) => e,
        None => {
            let by_ordinal = records.iter().map(|r| (r.ordinal, r.clone())).collect();
            let Ok(e) =
                rea_engine::Engine::from_records(by_ordinal, manifest.clone(), state.clone())
            else {
                return;
            };
            built = e;
            &built
        }
    };
    let mut found = moments::universes(records, engine, serving, state, &wanted);
    for e in endpoints.iter_mut() {
        for i in e.instances.iter_mut().filter(|i| !i.initial) {
            i.universe = found.remove(&i.ordinal);
        }
        if e.identity.is_none() {
            let seen: Vec<&serde_json::Value> =
                e.instances.iter().flat_map(|i| i.items.iter()).collect();
            e.identity = instances::identity_of(&seen).or_else(|| {
                let groups: Vec<&[serde_json::Value]> =
                    e.instances.iter().map(|i| i.items.as_slice()).collect();
                identity::per_answer(&groups)
            });
        }
    }
}

/// The identity-ascending order of `e`, when some sibling's confirmed
/// default order is one clock-named member ascending (creation order),
/// `e` lacks that member and its identity is a single integer member.
fn creation_order(
    orders: &[(String, Vec<crate::model::lists::semantics::SortKey>)],
    e: &EndpointSemantics,
) -> Option<(String, Vec<crate::model::lists::semantics::SortKey>)> {
    use crate::model::lists::fields::Step;
    let identity = e.identity.as_ref()?;
    let [Step::Member { name: id }] = identity.0.as_slice() else {
        return None;
    };
    if !e.default_order.iter().all(|k| &k.field == identity) {
        return None;
    }
    let (tool, _) = orders.iter().find(|(t, o)| {
        *t != e.tool
            && matches!(o.as_slice(), [k] if !k.descending
                && matches!(k.field.0.as_slice(), [Step::Member { name }]
                    if crate::model::writes::clock_like(name) && name.ends_with("_at")
                        && !e.item_fields.contains(name)))
    })?;
    let integers = e.answers.is_empty()
        || e.answers
            .iter()
            .all(|a| a.get(id).is_some_and(serde_json::Value::is_u64));
    integers.then(|| {
        (
            tool.clone(),
            vec![crate::model::lists::semantics::SortKey {
                field: identity.clone(),
                descending: false,
            }],
        )
    })
}

/// The app's conventions carry over between its list endpoints: a meaning
/// that names no field (paging, sort, cursor, field selection, search, a
/// filter language), kept on one endpoint, is adopted by another endpoint
/// whose own recording has no kept meaning for that name (`basis:
/// "sibling"`, citing the endpoint's confirming records); the field-name
/// filter convention is adopted when some endpoint kept it and none of the
/// app's data filters was contradicted.
fn adopt_siblings(endpoints: &mut [EndpointSemantics]) {
    let donors: Vec<(String, ParamMeaning)> = endpoints
        .iter()
        .flat_map(|e| {
            e.params
                .iter()
                .filter(|p| {
                    p.status == "kept"
                        && p.basis != "sibling"
                        && !matches!(
                            p.meaning,
                            Meaning::Filter { .. }
                                | Meaning::ValueOperators { .. }
                                | Meaning::Selector { .. }
                        )
                })
                .map(move |p| (e.tool.clone(), p.clone()))
        })
        .collect();
    let convention = endpoints.iter().any(|e| e.field_name_filters)
        && endpoints.iter().all(|e| {
            e.params.iter().all(|p| {
                !(p.basis == "data"
                    && matches!(p.meaning, Meaning::Filter { .. })
                    && !p.contradicted_by.is_empty())
            })
        });
    // Default orders some endpoint's unsorted answers confirmed.
    let orders: Vec<(String, Vec<crate::model::lists::semantics::SortKey>)> = endpoints
        .iter()
        .filter(|e| !e.default_order.is_empty() && !e.default_order_evidence.is_empty())
        .map(|e| (e.tool.clone(), e.default_order.clone()))
        .collect();
    // How next pages are spelled, where some endpoint's answers linked one.
    let spellings: Vec<(
        String,
        Option<String>,
        crate::model::lists::semantics::Spelling,
    )> = endpoints
        .iter()
        .filter(|e| e.confirmed())
        .filter(|e| e.spelling.next_header.is_some() || e.spelling.next_member.is_some())
        .map(|e| {
            (
                e.tool.clone(),
                e.param_of("cursor").map(String::from),
                e.spelling.clone(),
            )
        })
        .collect();
    for e in endpoints.iter_mut() {
        // An endpoint whose recording never listed unsorted takes the
        // default order a sibling confirmed, when its items have that member.
        if e.default_order_evidence.is_empty() {
            let has = |k: &crate::model::lists::semantics::SortKey| matches!(k.field.0.first(), Some(crate::model::lists::fields::Step::Member { name }) if e.item_fields.contains(name));
            if let Some((tool, order)) = orders
                .iter()
                .find(|(t, o)| *t != e.tool && o.iter().all(has))
            {
                if e.default_order != *order {
                    e.default_order = order.clone();
                    e.adopted.push(format!("default-order from {tool}"));
                }
            } else if let Some(order) = creation_order(&orders, e) {
                // A sibling lists in creation order by a clock member this
                // endpoint's items lack: their integer identity ascending
                // is the same order (ids are drawn as entities are made).
                e.adopted
                    .push(format!("default-order (creation) from {}", order.0));
                e.default_order = order.1;
            }
        }
        if convention && !e.field_name_filters {
            e.field_name_filters = true;
            e.adopted.push("field-name-filters".into());
        }
        for (tool, d) in &donors {
            if *tool == e.tool || e.kept(&d.name).is_some() {
                continue;
            }
            // A sibling's direction follows the sort parameter by name.
            e.params
                .retain(|p| !(p.name == d.name && p.contradicted_by.is_empty()));
            if e.params.iter().any(|p| p.name == d.name) {
                continue;
            }
            let mut p = d.clone();
            p.basis = "sibling".into();
            p.observed = Vec::new();
            e.params.push(p);
            e.adopted.push(format!("{} from {tool}", d.name));
        }
        // An endpoint whose recording never showed a next page (it never
        // listed more than a page) takes the spelling of the sibling whose
        // cursor it adopted: the app names next pages one way.
        if e.spelling.next_header.is_none() && e.spelling.next_member.is_none() {
            let cursor = e.param_of("cursor").map(String::from);
            if let Some((tool, _, s)) = spellings
                .iter()
                .find(|(t, c, _)| *t != e.tool && c.is_some() && *c == cursor)
            {
                e.spelling.next_header = s.next_header.clone();
                e.spelling.link_rel = s.link_rel;
                e.spelling.next_member = s.next_member.clone();
                e.spelling.token = s.token.clone();
                e.adopted.push(format!("next-page spelling from {tool}"));
            }
        }
    }
}

/// A field selection by one of the library's first names (`_fields`,
/// `fields`, `select`)
/// that no recorded request of the app used, offered on every confirmed
/// endpoint without one whose items have no member of that name: `status:
/// "convention"` (never confirmed; the answers it narrows are counted as
/// convention by `environment-check`). A name the recording used is left
/// to the evidence.
fn adopt_field_selection(endpoints: &mut [EndpointSemantics]) {
    use conventions::Role;
    let used: Vec<String> = endpoints
        .iter()
        .flat_map(|e| {
            e.params
                .iter()
                .filter(|p| p.basis != "sibling")
                .map(|p| p.name.clone())
        })
        .chain(endpoints.iter().flat_map(|e| e.unexplained.iter().cloned()))
        .collect();
    for e in endpoints.iter_mut() {
        if !e.confirmed() || e.param_of("fields").is_some() || e.identity.is_none() {
            continue;
        }
        for name in conventions::names(Role::Fields).into_iter().take(3) {
            if used.iter().any(|u| u == name)
                || e.item_fields.iter().any(|f| f == name)
                || e.params.iter().any(|p| p.name == *name)
            {
                continue;
            }
            e.params.push(ParamMeaning {
                name: name.to_string(),
                meaning: Meaning::Fields,
                basis: "convention".into(),
                status: "convention".into(),
                observed: Vec::new(),
                confirmed_by: Vec::new(),
                contradicted_by: Vec::new(),
            });
        }
    }
}

/// The app's default page size carries over too: an endpoint whose own
/// recording never showed one takes the size its siblings' recordings
/// showed (all that showed one agree), unless one of its own initial
/// answers contradicts it (lists more, or a first page fewer than its
/// stated total and that size leave).
fn adopt_page_size(endpoints: &mut [EndpointSemantics], recorded: &[instances::Endpoint]) {
    let shown: Vec<(String, usize)> = endpoints
        .iter()
        .filter_map(|e| e.default_page_size.map(|z| (e.tool.clone(), z)))
        .collect();
    let Some((donor, size)) = shown.first().cloned() else {
        return;
    };
    if shown.iter().any(|(_, z)| *z != size) {
        return;
    }
    for e in endpoints.iter_mut() {
        if e.default_page_size.is_some() || !e.confirmed() {
            continue;
        }
        let Some(ep) = recorded.iter().find(|r| r.tool.name == e.tool) else {
            continue;
        };
        if infer::page_size_fits(e, &ep.instances, size) {
            e.default_page_size = Some(size);
            e.adopted.push(format!("default-page-size from {donor}"));
        }
    }
}

/// A comparison spelling some endpoint kept (`views_gte`, confirmed by its
/// answers) lends its family (`_lte`, `_ne`, `_like`, …) to every member of
/// every confirmed endpoint of the app (`lent_operators`, answers counted
/// as convention). Nothing is lent when no endpoint kept one.
fn lend_operator_families(endpoints: &mut [EndpointSemantics]) {
    use crate::model::lists::semantics::LentOperator;
    let mut lent: Vec<LentOperator> = Vec::new();
    for e in endpoints.iter() {
        for p in e.params.iter().filter(|p| {
            p.status == "kept"
                && p.basis == "convention"
                && matches!(p.meaning, Meaning::Filter { op, .. } if op != semantics::Op::Eq)
        }) {
            let Some((_, family)) = conventions::operator_family(&p.name) else {
                continue;
            };
            for (affix, prefix, op) in family {
                if !lent.iter().any(|l| l.affix == affix) {
                    lent.push(LentOperator {
                        affix: affix.to_string(),
                        prefix,
                        op,
                        from: format!("{} {}", e.tool, p.name),
                    });
                }
            }
        }
    }
    if lent.is_empty() {
        return;
    }
    for e in endpoints.iter_mut().filter(|e| e.confirmed()) {
        e.lent_operators = lent.clone();
    }
}

#[cfg(test)]
mod tests;
