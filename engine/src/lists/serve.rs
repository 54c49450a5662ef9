//! Serving a list from its inferred semantics: the request's parameters
//! evaluated over the current World (or, for an endpoint with no entity
//! type, over the distinct items its initial answers listed), rendered into
//! the envelope of a recorded answer with totals and next pages in the
//! app's own spelling. A request the semantics do not understand is left
//! to the existing renderers (the recording of the same line, else the
//! whole list).

use crate::codec::normalize_path;
use crate::lists::conventions;
use crate::lists::eval::{app_token, body_params, evaluate, own_token, query_params, select, Page};
use crate::lists::semantics::{Carrier, EndpointSemantics, TokenFormat};
use crate::manifest::Tool;
use crate::render::{normalize_line, render_entity, replay, set_pointer};
use crate::state::{Entity, ListPlan, Membership, ViewPlan};
use crate::{Answer, AnswerBody, Call, Engine, World};
use serde_json::Value;
use std::collections::HashMap;

/// The endpoint semantics of a tool, when they have evidence.
pub fn endpoint<'a>(engine: &'a Engine, tool: &str) -> Option<&'a EndpointSemantics> {
    engine
        .lists
        .as_ref()?
        .endpoints
        .iter()
        .find(|e| e.tool == tool && e.confirmed())
}

/// The request's parameters as the endpoint reads them.
pub fn params_of(sem: &EndpointSemantics, call: &Call) -> Option<Vec<(String, Value)>> {
    match sem.carrier {
        Carrier::Query => Some(query_params(call.query.as_deref().unwrap_or(""))),
        Carrier::Body => match &call.body {
            Some(v @ Value::Object(_)) => Some(body_params(v)),
            None => Some(Vec::new()),
            Some(_) => None,
        },
    }
}

/// The one list renderer: a list read answered from the inferred
/// semantics when they understand it (`answer`), else a list view rendered
/// from the World, its recorded line's membership kept and the engine's
/// query conventions applied to a line the plan never recorded
/// (`conventions::shape`); `None` for a tool that is neither.
pub(crate) fn read(engine: &Engine, world: &World, tool: &Tool, call: &Call) -> Option<Answer> {
    if let Some(answer) = answer(engine, world, tool, call) {
        return Some(answer);
    }
    match engine.view_of(&tool.name) {
        Some(ViewPlan::List(plan)) => Some(render_world_list(engine, world, tool, plan, call)),
        _ => None,
    }
}

fn render_world_list(
    engine: &Engine,
    world: &World,
    tool: &Tool,
    plan: &ListPlan,
    call: &crate::Call,
) -> Answer {
    let collection = normalize_path(&call.path);
    let line = call.line();
    let recorded_line = plan.lines.iter().find(|l| l.line == line).or_else(|| {
        plan.lines
            .iter()
            .find(|l| normalize_line(&l.line) == normalize_line(&line))
    });
    let base_line = recorded_line
        .or_else(|| {
            plan.lines
                .iter()
                .find(|l| l.collection == collection && !l.line.contains('?'))
        })
        .or_else(|| plan.lines.iter().find(|l| !l.line.contains('?')))
        .or(plan.lines.first());
    let Some(base) = base_line.and_then(|l| engine.record(l.base_ordinal)) else {
        return replay(engine, tool, call);
    };
    let type_fields = engine
        .entity_type(&plan.type_name)
        .map(|t| t.fields.as_slice())
        .unwrap_or(&[]);
    let held = world.list(&plan.type_name, &collection);
    let entities: Vec<&Entity> = match recorded_line {
        Some(l) if l.membership != Membership::All => {
            l.listed.iter().filter_map(|id| held.find(id)).collect()
        }
        // Lines never recorded: `conventions::shape` applies their query.
        _ => held.iter().collect(),
    };
    let shaped = shape(engine, tool, plan, call, recorded_line, entities);
    let total = shaped.total;
    let entities = shaped.entities;
    let items: Vec<Value> = entities
        .iter()
        .map(|e| render_entity(e, &plan.fields, type_fields, &tool.name))
        .collect();
    let count = items.len();
    let mut answer = engine.recorded_answers.of(base, &tool.name, None);
    let mut envelope = match &answer.body {
        AnswerBody::Json(v) => v.clone(),
        _ => Value::Null,
    };
    if !set_pointer(&mut envelope, &plan.pointer, Value::Array(items)) {
        return replay(engine, tool, call);
    }
    for counter in &plan.counters {
        if let Some(slot) = crate::codec::at_pointer_mut(&mut envelope, counter) {
            *slot = match slot {
                Value::String(_) => Value::String(count.to_string()),
                _ => Value::from(count as u64),
            };
        }
    }
    let recorded_count = match &answer.body {
        AnswerBody::Json(v) => crate::codec::at_pointer(v, &plan.pointer)
            .and_then(Value::as_array)
            .map(Vec::len),
        _ => None,
    };
    answer.body = AnswerBody::Json(envelope);
    answer.rendered = Some(base.ordinal);
    if let Some(recorded) = recorded_count {
        crate::answer_headers::count_headers(&mut answer, recorded, total);
    }
    if let Some(name) = shaped.paging_header {
        answer
            .headers
            .retain(|(n, _)| !n.eq_ignore_ascii_case(&name));
    }
    answer.headers.extend(shaped.next);
    answer
}

/// What a list render from the World shows: the entities, in order, and
/// the paging header to answer with (name, value), if any.
struct Shaped<'a> {
    entities: Vec<&'a Entity>,
    /// How many entities the query kept before paging.
    total: usize,
    /// The paging header name the recording used (drop any replayed copy).
    paging_header: Option<String>,
    /// The paging header to add.
    next: Option<(String, String)>,
}

/// Orders a list rendered from the World by the type's recorded order and,
/// for a request line the plan did not record, applies its query: both
/// through the conventions' semantics and the one evaluator. A recorded
/// line with its own membership is left as recorded; a query the
/// conventions do not understand leaves the whole list in its order.
fn shape<'a>(
    engine: &Engine,
    tool: &Tool,
    plan: &ListPlan,
    call: &Call,
    recorded_line: Option<&crate::state::ListLine>,
    entities: Vec<&'a Entity>,
) -> Shaped<'a> {
    let whole = |entities: Vec<&'a Entity>| Shaped {
        total: entities.len(),
        entities,
        paging_header: None,
        next: None,
    };
    if recorded_line.is_some_and(|l| l.membership != Membership::All) {
        return whole(entities);
    }
    let query = call.query.as_deref().unwrap_or("");
    let unread = recorded_line.is_some() || query.is_empty();
    if unread && conventions::default_order(engine, &plan.type_name).is_none() {
        // No query to read and no order to apply: the list as held.
        return whole(entities);
    }
    let (sem, paging) = conventions::semantics(engine, tool, &plan.type_name);
    let universe = conventions::universe(&entities);
    let ordered = |entities: Vec<&'a Entity>| match conventions::page(&sem, "", &universe) {
        Some(p) => whole(p.indices.iter().map(|&i| entities[i]).collect()),
        None => whole(entities),
    };
    if unread {
        return ordered(entities);
    }
    let Some(page) = conventions::page(&sem, query, &universe) else {
        return ordered(entities);
    };
    let token = page
        .next_offset
        .map(|o| crate::lists::eval::app_token(conventions::TOKEN_TEMPLATE, false, o));
    let next = paging.as_ref().zip(token).map(|(p, t)| {
        let url = link(&p.origin, call, &[p.token.as_str()], (p.token.as_str(), t));
        (p.header.clone(), url)
    });
    Shaped {
        entities: page.indices.iter().map(|&i| entities[i]).collect(),
        total: page.total,
        paging_header: paging.map(|p| p.header),
        next,
    }
}

/// Answers a list call from the semantics, or `None` to leave it to the
/// other renderers.
pub fn answer(engine: &Engine, world: &World, tool: &Tool, call: &Call) -> Option<Answer> {
    let sem = endpoint(engine, &tool.name)?;
    let universe: Vec<Value> = match sem.universe.as_str() {
        "state" => {
            let ty = engine
                .state
                .types
                .iter()
                .find(|t| t.list_tools.contains(&tool.name))?;
            world
                .list(&ty.name, &normalize_path(&call.path))
                .iter()
                .map(|e| render_entity(e, &sem.item_fields, &ty.fields, &tool.name))
                .collect()
        }
        _ => sem.answers.clone(),
    };
    render(engine, sem, tool, call, universe)
}

/// Items of a list another World holds (the app model's), for `answer_over`.
#[derive(Debug, Clone, PartialEq)]
pub struct Current {
    /// The items as they are now: every item of the kind (`complete`), or
    /// only those changed or created there.
    pub items: Vec<Value>,
    /// The ids of items removed there (text of the identity).
    pub removed: Vec<String>,
    /// True when `items` is every item of the kind.
    pub complete: bool,
}

/// Answers a list call over the items another World holds now
/// (`current(method, path)`: the app model's), when the semantics
/// understand it.
/// - An endpoint without an entity type (its universe the items the
///   recording's answers listed, an RPC search) takes `current`'s complete
///   list: recorded items keep their first-seen place in their current
///   version and leave when no longer held; new ones follow.
/// - An entity type's list (the engine's World) takes the changes laid
///   over it: changed items in their current version (the list's members),
///   removed ones left out, created ones appended.
///
/// `None` when nothing changed there or the semantics do not understand
/// the call (the other renderers answer).
pub fn answer_over(
    engine: &Engine,
    world: &World,
    request: &crate::Request,
    current: &dyn Fn(&str, &str) -> Option<Current>,
) -> Option<Answer> {
    let routed = engine.resolve(request).ok()?;
    let sem = endpoint(engine, &routed.tool.name)?;
    sem.identity.as_ref()?;
    let current = current(&routed.call.method, &routed.call.path)?;
    let id = |v: &Value| -> Option<Value> {
        sem.identity
            .as_ref()
            .and_then(|p| p.get(v).cloned())
            .filter(|v| !v.is_null())
    };
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let shown = |v: &Value| -> Value {
        match v {
            Value::Object(o) if !sem.item_fields.is_empty() => Value::Object(
                o.iter()
                    .filter(|(k, _)| sem.item_fields.contains(k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            ),
            other => other.clone(),
        }
    };
    let (base, complete): (Vec<Value>, bool) = match (sem.universe.as_str(), current.complete) {
        ("state", false) => {
            let ty = engine
                .state
                .types
                .iter()
                .find(|t| t.list_tools.contains(&routed.tool.name))?;
            let held = world
                .list(&ty.name, &normalize_path(&routed.call.path))
                .iter()
                .map(|e| render_entity(e, &sem.item_fields, &ty.fields, &routed.tool.name))
                .collect();
            (held, false)
        }
        ("state", true) | (_, false) => return None,
        (_, true) => (sem.answers.clone(), true),
    };
    let mut universe: Vec<Value> = base
        .iter()
        .filter_map(|a| {
            let k = id(a)?;
            match current.items.iter().find(|c| id(c).as_ref() == Some(&k)) {
                Some(c) => Some(if complete { c.clone() } else { shown(c) }),
                None if complete || current.removed.contains(&text(&k)) => None,
                None => Some(a.clone()),
            }
        })
        .collect();
    for c in &current.items {
        let Some(k) = id(c) else { continue };
        if !universe.iter().any(|u| id(u).as_ref() == Some(&k)) {
            universe.push(if complete { c.clone() } else { shown(c) });
        }
    }
    let answer = render(engine, sem, routed.tool, &routed.call, universe)?;
    Some(crate::answer_headers::describe(
        engine,
        &routed.call,
        answer,
    ))
}

/// One page of `universe` in the envelope of the endpoint's base record,
/// with totals and next pages in the app's spelling.
fn render(
    engine: &Engine,
    sem: &EndpointSemantics,
    tool: &Tool,
    call: &Call,
    universe: Vec<Value>,
) -> Option<Answer> {
    let params = params_of(sem, call)?;
    let refs: Vec<&Value> = universe.iter().collect();
    let page = evaluate(sem, &params, &refs, &HashMap::new()).ok()?;
    let base = engine.record(sem.base_ordinal?)?;
    let mut answer = engine.recorded_answers.of(base, &tool.name, None);
    if answer.status / 100 != 2 {
        return None;
    }
    let AnswerBody::Json(mut envelope) = answer.body.clone() else {
        return None;
    };
    // A recorded header counting the base record's items counts this page's
    // total (as the engine's own renders do), unless the spelling names it.
    if sem.spelling.total_header.is_none() {
        if let Some(recorded) = crate::codec::at_pointer(&envelope, &sem.items_pointer)
            .and_then(Value::as_array)
            .map(Vec::len)
        {
            crate::answer_headers::count_headers(&mut answer, recorded, page.total);
        }
    }
    let items: Vec<Value> = page
        .indices
        .iter()
        .map(|&i| select(refs[i], page.fields.as_deref()))
        .collect();
    if !set_pointer(&mut envelope, &sem.items_pointer, Value::Array(items)) {
        // An empty proto3 answer (`{}`) has no array member: add it.
        let member = sem.items_pointer.strip_prefix('/')?;
        envelope
            .as_object_mut()?
            .insert(member.to_string(), Value::Array(Vec::new()));
        set_pointer(
            &mut envelope,
            &sem.items_pointer,
            Value::Array(
                page.indices
                    .iter()
                    .map(|&i| select(refs[i], page.fields.as_deref()))
                    .collect(),
            ),
        );
    }
    if page.indices.is_empty() && sem.items_pointer.starts_with('/') && omits_empty(sem, engine) {
        // Answers that leave empty lists out (proto3 `{}`) leave them out here too.
        if let Some(o) = envelope.as_object_mut() {
            o.remove(sem.items_pointer.trim_start_matches('/'));
        }
    }
    let token = next_token(sem, &page, &refs);
    let s = &sem.spelling;
    if let (Some(m), Some(o)) = (&s.next_member, envelope.as_object_mut()) {
        match &token {
            Some(t) => {
                o.insert(m.clone(), Value::String(t.clone()));
            }
            // The last page: `null` where the base answer says so, else left out.
            None if o.get(m).is_some_and(Value::is_null) => {}
            None => {
                o.remove(m);
            }
        }
    }
    if let (Some(m), Some(o)) = (&s.total_member, envelope.as_object_mut()) {
        // Where the base answer carries no total and an answer showed one
        // only on request (`lists::shape::total_on_request`), none here either.
        if o.contains_key(m) || !crate::lists::shape::total_on_request(engine, sem, m) {
            o.insert(m.clone(), Value::from(page.total as u64));
        }
    }
    if let (Some(m), Some(TokenFormat::PageLink(spec))) = (&s.next_member, &s.token) {
        let query = call.query.as_deref();
        crate::lists::page_links::apply(spec, m, &call.path, query, &page, &mut envelope);
    }
    let items = crate::codec::at_pointer(&envelope, &sem.items_pointer)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let envelope = crate::lists::shape::shaped(sem, &params, envelope, &items);
    answer.body = AnswerBody::Json(envelope);
    set_header(
        &mut answer,
        s.total_header.as_deref(),
        Some(page.total.to_string()),
    );
    let pages = page
        .size
        .map_or(1, |z| if z == 0 { 0 } else { page.total.div_ceil(z) });
    set_header(
        &mut answer,
        s.pages_header.as_deref(),
        Some(pages.to_string()),
    );
    if let Some(h) = &s.next_header {
        let next = next_link(engine, sem, call, &page, token.as_deref());
        if s.link_rel {
            let prev = prev_link(engine, sem, call, &page);
            let mut parts = Vec::new();
            if let Some(p) = prev {
                parts.push(format!("<{p}>; rel=\"prev\""));
            }
            if let Some(n) = &next {
                parts.push(format!("<{n}>; rel=\"next\""));
            }
            if !parts.is_empty() {
                set_header(&mut answer, Some(h), Some(parts.join(", ")));
            } else if answer_links_pages(&answer, h) {
                set_header(&mut answer, Some(h), None);
            }
        } else {
            set_header(&mut answer, Some(h), next);
        }
    }
    Some(answer)
}

/// True when some recorded answer of the endpoint is an object without
/// the list member at all (an empty list left out, as proto3 JSON does).
fn omits_empty(sem: &EndpointSemantics, engine: &Engine) -> bool {
    recorded_answers(engine, sem)
        .any(|v| v.is_object() && crate::codec::at_pointer(&v, &sem.items_pointer).is_none())
}

/// The JSON bodies of the endpoint's recorded 2xx answers.
pub(crate) fn recorded_answers<'a>(
    engine: &'a Engine,
    sem: &'a EndpointSemantics,
) -> impl Iterator<Item = Value> + 'a {
    sem.instances.iter().filter_map(|i| {
        engine
            .record(i.ordinal)
            .filter(|r| r.is_2xx())
            .and_then(|r| match &r.response_body {
                crate::records::Body::Text(t) => serde_json::from_str::<Value>(t).ok(),
                _ => None,
            })
    })
}

fn answer_links_pages(answer: &Answer, header: &str) -> bool {
    answer.headers.iter().any(|(n, v)| {
        n.eq_ignore_ascii_case(header) && (v.contains("rel=\"next\"") || v.contains("rel=\"prev\""))
    })
}

fn set_header(answer: &mut Answer, name: Option<&str>, value: Option<String>) {
    let Some(name) = name else { return };
    answer
        .headers
        .retain(|(n, _)| !n.eq_ignore_ascii_case(name));
    if let Some(v) = value {
        answer.headers.push((name.to_string(), v));
    }
}

/// The next page's token, in the app's spelling or rea's own.
fn next_token(sem: &EndpointSemantics, page: &Page, universe: &[&Value]) -> Option<String> {
    let next = page.next_offset?;
    Some(match &sem.spelling.token {
        Some(TokenFormat::Base64Offset { template, padded }) => app_token(template, *padded, next),
        _ => {
            let last = universe[*page.indices.last()?];
            own_token(last, sem.identity.as_ref(), &page.sort, next)
        }
    })
}

fn encode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// The request's query with `drop` names removed and `(name, value)` appended.
/// The request's own URL with the `drop` parameters replaced by `add`: in
/// the place of the first one the request held (as apps that copy the
/// request's parameters and set one do: json-server, Kinto, WordPress),
/// else at the end.
fn link(origin: &str, call: &Call, drop: &[&str], add: (&str, String)) -> String {
    let mut at: Option<usize> = None;
    let mut pairs: Vec<String> = Vec::new();
    for p in call
        .query
        .as_deref()
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
    {
        let n = p.split_once('=').map_or(p, |(n, _)| n);
        let dropped = drop.iter().any(|d| {
            url::form_urlencoded::parse(n.as_bytes())
                .next()
                .is_some_and(|(k, _)| k == *d)
                || n == *d
        });
        if dropped {
            at.get_or_insert(pairs.len());
        } else {
            pairs.push(p.to_string());
        }
    }
    let added = format!("{}={}", encode(add.0), encode(&add.1));
    match at {
        Some(i) => pairs.insert(i, added),
        None => pairs.push(added),
    }
    format!("{origin}{}?{}", call.path, pairs.join("&"))
}

fn next_link(
    engine: &Engine,
    sem: &EndpointSemantics,
    call: &Call,
    page: &Page,
    token: Option<&str>,
) -> Option<String> {
    page.next_offset?;
    if let Some(c) = sem.param_of("cursor") {
        return Some(link(
            &engine.manifest.origin,
            call,
            &[c],
            (c, token?.to_string()),
        ));
    }
    let p = sem.param_of("page-number")?;
    let size = page.size.filter(|s| *s > 0)?;
    Some(link(
        &engine.manifest.origin,
        call,
        &[p],
        (p, (page.offset / size + 2).to_string()),
    ))
}

fn prev_link(engine: &Engine, sem: &EndpointSemantics, call: &Call, page: &Page) -> Option<String> {
    let p = sem.param_of("page-number")?;
    let size = page.size.filter(|s| *s > 0)?;
    let current = page.offset / size + 1;
    (current > 1).then(|| {
        link(
            &engine.manifest.origin,
            call,
            &[p],
            (p, (current - 1).to_string()),
        )
    })
}

/// How a list read of the World is answered, for `environment-check`'s
/// count: `semantics` (confirmed meanings), `recorded` (the recording of
/// the same line), `convention` (a query the engine's conventions narrow
/// though no recording confirmed them) or `unconfirmed` (a query nothing
/// understands: the whole list). `None` for calls that are not list reads
/// with a query.
pub fn basis(engine: &Engine, world: &World, request: &crate::Request) -> Option<&'static str> {
    let routed = engine.resolve(request).ok()?;
    let crate::Plan::Read(Some(crate::state::ViewPlan::List(plan))) = routed.plan else {
        return None;
    };
    let call = &routed.call;
    call.query.as_deref().filter(|q| !q.is_empty())?;
    if answer(engine, world, routed.tool, call).is_some() {
        let unconfirmed = endpoint(engine, &routed.tool.name)
            .zip(endpoint(engine, &routed.tool.name).and_then(|s| params_of(s, call)))
            .is_some_and(|(s, p)| s.by_convention(&p));
        return Some(if unconfirmed {
            "convention"
        } else {
            "semantics"
        });
    }
    let line = call.line();
    let norm = |l: &str| match l.split_once('?') {
        Some((p, q)) => format!("{}?{q}", normalize_path(p)),
        None => normalize_path(l),
    };
    if plan
        .lines
        .iter()
        .any(|l| l.line == line || norm(&l.line) == norm(&line))
    {
        return Some("recorded");
    }
    if conventions::understands(engine, world, routed.tool, &plan.type_name, call) {
        Some("convention")
    } else {
        Some("unconfirmed")
    }
}
