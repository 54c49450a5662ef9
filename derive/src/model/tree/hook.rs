//! The tree's seam with the serving model: which calls it owns and its
//! answers as the model's `Served`.

use super::super::serving::Served;
use super::super::Model;
use crate::state::writes::input::percent_decode;
use serde_json::Value;

/// The basis of a tree answer whose body is text, not JSON (the adapter
/// answers the string as it is).
pub const TEXT_BASIS: &str = "tree-text";

fn segments(path: &str) -> Vec<String> {
    path.split('/')
        .filter(|s| !s.is_empty())
        .map(percent_decode)
        .collect()
}

/// True when `path` is a key of the model's tree.
pub(crate) fn owns(model: &Model, path: &str) -> bool {
    model.tree_store.as_ref().is_some_and(|t| {
        let s = segments(path);
        t.key(&s).is_some() || t.copy_path(&s)
    })
}

/// The tree's answer to `call`, when it has one.
pub(crate) fn answer(
    model: &Model,
    world: &mut super::serve::TreeWorld,
    call: &rea_engine::Call,
    now_ms: i64,
) -> Option<Served> {
    let tree = model.tree_store.as_ref()?;
    let query = call
        .query
        .as_deref()
        .map(rea_engine::codec::query_pairs)
        .unwrap_or_default();
    let r = tree.served(
        world,
        &call.method,
        &segments(&call.path),
        &query,
        call.body.as_ref(),
        now_ms,
    )?;
    let convention = tree
        .evidence
        .get(r.kind)
        .is_none_or(|e| e.supported_by.is_empty());
    Some(Served {
        status: r.status,
        content_type: r.content_type,
        body: r.body.filter(|b| !matches!(b, Value::Null)),
        applied: r.applied,
        basis: if r.text { TEXT_BASIS } else { "tree" },
        convention,
    })
}
