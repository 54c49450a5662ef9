//! Serving the app model's relations (`rea_derivation::relations`):
//! a nested route answered as the call on the child collection it means
//! (a list filtered on the member, a create with the member set), an
//! embedding parameter answered by adding the related entities to the
//! plain answer, and a parent's delete cascaded to its children. Each is a
//! rewrite into calls the rest of the pipeline answers (`ask`), so list
//! semantics, writes and absences stay with their owners.

use crate::app_model::BASIS_HEADER;
use rea_derivation::relations::{self, Add, Relations};
use rea_engine::codec::id_text;
use rea_engine::{Answer, AnswerBody, Call};
use serde_json::Value;
use std::cell::Cell;

thread_local! {
    /// Set while the calls a rewrite means are answered: they are answered
    /// as they are, never rewritten again.
    static INSIDE: Cell<bool> = const { Cell::new(false) };
}

/// Answers `call` through its relations, or `None` when none applies (or
/// when `call` is itself one a rewrite asked).
pub(crate) fn answer(
    rels: &Relations,
    call: &Call,
    ask: &mut dyn FnMut(Call) -> Answer,
) -> Option<Answer> {
    if rels.is_empty() || INSIDE.with(Cell::get) {
        return None;
    }
    INSIDE.with(|i| i.set(true));
    let a = rewrite(rels, call, ask);
    INSIDE.with(|i| i.set(false));
    a
}

fn rewrite(rels: &Relations, call: &Call, ask: &mut dyn FnMut(Call) -> Answer) -> Option<Answer> {
    if let Some(n) = relations::nested_call(
        rels,
        &call.method,
        &call.path,
        call.query.as_deref(),
        call.body.as_ref(),
    ) {
        let member_filter = (call.method == "GET").then(|| nested_filter(&n.query));
        let sub = Call {
            method: call.method.clone(),
            path: n.path,
            query: (!n.query.is_empty()).then_some(n.query),
            headers: call.headers.clone(),
            body: n.body,
        };
        let mut a = ask(sub);
        // The child list narrowed on the member, whether or not the list
        // semantics understood the filter.
        if let (Some(Some((member, id))), AnswerBody::Json(Value::Array(items))) =
            (member_filter, &mut a.body)
        {
            items.retain(|e| e.get(&member).and_then(id_text).as_deref() == Some(id.as_str()));
        }
        return Some(marked(a, "relation-nested", n.convention));
    }
    if call.method == "GET" {
        if let Some(e) = relations::embedding(rels, &call.path, call.query.as_deref()) {
            let plain = Call {
                query: (!e.rest.is_empty()).then_some(e.rest.clone()),
                ..call.clone()
            };
            let mut a = ask(plain);
            if (200..300).contains(&a.status) {
                if let AnswerBody::Json(body) = &mut a.body {
                    embed(body, &e.adds, call, ask);
                }
            }
            return Some(marked(a, "relation-embed", false));
        }
    }
    if call.method == "DELETE" && !relations::cascade_of(rels, &call.path).is_empty() {
        let a = ask(call.clone());
        if (200..300).contains(&a.status) {
            let deletes = relations::cascaded_deletes(rels, &call.path, &mut |child| {
                child_items(child, call, ask)
            });
            for path in deletes {
                ask(Call {
                    method: "DELETE".into(),
                    path,
                    query: None,
                    headers: call.headers.clone(),
                    body: None,
                });
            }
        }
        return Some(marked(a, "relation-cascade", false));
    }
    None
}

/// The member filter a nested rewrite put first in the query.
fn nested_filter(query: &str) -> Option<(String, String)> {
    let first = query.split('&').next()?;
    let (k, v) = first.split_once('=')?;
    Some((k.to_string(), rea_engine::codec::percent_decode(v)))
}

/// The items of a child collection's list.
fn child_items(child: &str, call: &Call, ask: &mut dyn FnMut(Call) -> Answer) -> Vec<Value> {
    let a = ask(Call {
        method: "GET".into(),
        path: child.to_string(),
        query: None,
        headers: call.headers.clone(),
        body: None,
    });
    match a.body {
        AnswerBody::Json(Value::Array(items)) => items,
        _ => Vec::new(),
    }
}

/// The child collection's entities whose member holds `key` (the same JSON
/// value: an embedding by the entity's own key).
fn children(
    child: &str,
    member: &str,
    key: &Value,
    call: &Call,
    ask: &mut dyn FnMut(Call) -> Answer,
) -> Vec<serde_json::Map<String, Value>> {
    child_items(child, call, ask)
        .into_iter()
        .filter_map(|v| match v {
            Value::Object(o) => Some(o),
            _ => None,
        })
        .filter(|o| o.get(member) == Some(key))
        .collect()
}

/// Adds the related entities to every entity of the answer (the root
/// object, or each object of a root array).
fn embed(body: &mut Value, adds: &[Add], call: &Call, ask: &mut dyn FnMut(Call) -> Answer) {
    let entities: Vec<&mut serde_json::Map<String, Value>> = match body {
        Value::Object(o) => vec![o],
        Value::Array(items) => items.iter_mut().filter_map(Value::as_object_mut).collect(),
        _ => Vec::new(),
    };
    for e in entities {
        for add in adds {
            match add {
                Add::Children {
                    name,
                    child,
                    member,
                } => {
                    let Some(key) = e.get("id").cloned() else {
                        continue;
                    };
                    let kids = children(child, member, &key, call, ask);
                    e.insert(
                        name.clone(),
                        Value::Array(kids.into_iter().map(Value::Object).collect()),
                    );
                }
                Add::Parent {
                    name,
                    parent,
                    member,
                } => {
                    let Some(k) = e.get(member).and_then(id_text) else {
                        continue;
                    };
                    let a = ask(Call {
                        method: "GET".into(),
                        path: format!("{parent}/{k}"),
                        query: None,
                        headers: call.headers.clone(),
                        body: None,
                    });
                    if let (true, AnswerBody::Json(v @ Value::Object(_))) =
                        ((200..300).contains(&a.status), a.body)
                    {
                        e.insert(name.clone(), v);
                    }
                }
            }
        }
    }
}

fn marked(mut a: Answer, basis: &str, convention: bool) -> Answer {
    let inference = if convention {
        "convention"
    } else {
        "confirmed"
    };
    a.headers
        .retain(|(n, _)| !n.eq_ignore_ascii_case(BASIS_HEADER));
    a.headers
        .push((BASIS_HEADER.to_string(), format!("{basis}; {inference}")));
    a
}
