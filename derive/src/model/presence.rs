//! Presence rules: a refused write (4xx, not 404/409/412) that sent a member
//! blank (`""` or `null`) and whose answer names that member in words
//! (`subject` → "Subject cannot be blank") shows the member must be
//! present. Kept per resource when no accepted write of the resource sent
//! the member blank; served on every write of the resource: a create
//! without the member or with it blank, and an update setting it blank, get
//! the recorded refusal (Rails-style `validates :presence`).

use super::exchange::Exchange;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One member the app requires present on a resource's writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Presence {
    /// The route template of the refused write (`/issues`).
    pub route: String,
    pub method: String,
    pub member: String,
    pub status: u16,
    /// The refused write whose answer is served.
    pub answer_ordinal: u64,
    /// Accepted writes of the resource that sent the member, never blank.
    pub checked_against: Vec<u64>,
}

/// The members a write sent: the body, or its one wrapped object.
pub(crate) fn sent_members(body: &Value) -> Option<&Map<String, Value>> {
    let b = body.as_object()?;
    if b.len() == 1 {
        if let Some(inner) = b.values().next().and_then(Value::as_object) {
            return Some(inner);
        }
    }
    Some(b)
}

fn blank(v: &Value) -> bool {
    v.is_null() || v.as_str().is_some_and(|s| s.trim().is_empty())
}

/// `due_date` → `due date`.
fn words(member: &str) -> String {
    member.replace('_', " ").to_lowercase()
}

/// The presence rules the recording shows. `route_of` gives an exchange's
/// route template; `collection_of` the collection template of a route.
pub(crate) fn infer(
    exchanges: &[Exchange],
    route_of: &dyn Fn(&Exchange) -> String,
    collection_of: &dyn Fn(&str) -> Option<String>,
) -> Vec<Presence> {
    let mut out: Vec<Presence> = Vec::new();
    for x in exchanges {
        if x.is_read() || !(400..500).contains(&x.status) || matches!(x.status, 404 | 409 | 412) {
            continue;
        }
        let (Some(sent), Some(answer)) = (x.body.as_ref().and_then(sent_members), &x.answer) else {
            continue;
        };
        let text = answer.to_string().to_lowercase();
        let route = route_of(x);
        let Some(collection) = collection_of(&route) else {
            continue;
        };
        for (m, v) in sent {
            if !blank(v) || m.len() < 3 || !text.contains(&words(m)) {
                continue;
            }
            // Accepted writes of the same resource never sent it blank.
            let mut checked = Vec::new();
            let mut contradicted = false;
            for y in exchanges.iter().filter(|y| !y.is_read() && y.is_2xx()) {
                if collection_of(&route_of(y)).as_deref() != Some(collection.as_str()) {
                    continue;
                }
                match y
                    .body
                    .as_ref()
                    .and_then(sent_members)
                    .and_then(|b| b.get(m))
                {
                    Some(v) if blank(v) => contradicted = true,
                    Some(_) => checked.push(y.ordinal),
                    None => {}
                }
            }
            if !contradicted && !out.iter().any(|p| p.route == route && p.member == *m) {
                out.push(Presence {
                    route: route.clone(),
                    method: x.method.clone(),
                    member: m.clone(),
                    status: x.status,
                    answer_ordinal: x.ordinal,
                    checked_against: checked,
                });
            }
        }
    }
    out
}

/// The rule a write breaks: a create (`creating`) missing the member or
/// sending it blank, any other write sending it blank.
pub(crate) fn broken<'a>(
    rules: impl Iterator<Item = &'a Presence>,
    sent: &Map<String, Value>,
    creating: bool,
) -> Option<&'a Presence> {
    let mut rules = rules;
    rules.find(|p| match sent.get(&p.member) {
        Some(v) => blank(v),
        None => creating,
    })
}
