//! The app's error and absence answers: each recorded non-2xx JSON answer
//! with the request's own values (the id, a query value, a body member, the
//! path) found inside its strings and turned into placeholders, grouped by
//! status and structure. One structure shared by every error answer is the
//! app's error shape; resources the capture never saw missing get the
//! absence answer of a sibling by analogy.

use super::exchange::{join, scalar_text, sorted, token, Exchange};
use super::resources::Resource;
use super::routes::Templates;
use super::snapshots::target_of;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The app's error answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Errors {
    /// Top-level members every recorded JSON error answer has (the app's
    /// error shape), or empty when they differ.
    pub shared_members: Vec<String>,
    pub shapes: Vec<ErrorShape>,
    /// Per resource with an item read: how a missing item answers.
    pub absence: Vec<Absence>,
}

/// One status + structure of error answer, with its template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorShape {
    pub status: u16,
    /// `json` or `empty`.
    pub body: String,
    /// The generic pointers of the answer's leaves, sorted.
    pub structure: Vec<String>,
    /// The first answer with request values replaced by `{source}`.
    pub template: Option<Value>,
    pub substitutions: Vec<Substitution>,
    /// The routes (METHOD template) that answered it.
    pub routes: Vec<String>,
    pub supported_by: Vec<u64>,
    /// Answers of the same status and structure with another template
    /// (the same error shape, another message).
    pub variants: Vec<u64>,
}

/// Where a placeholder's value comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Substitution {
    pub pointer: String,
    /// `id`, `query:<name>`, `body:<member>` or `path`.
    pub source: String,
}

/// A resource's answer for a missing item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Absence {
    pub resource: String,
    pub collection: String,
    /// `recorded` (this resource answered it) or `by-analogy` (another did).
    pub basis: String,
    pub status: u16,
    /// The ordinal of the answer used as the template.
    pub template_ordinal: u64,
    pub from_resource: String,
}

/// Replaces request values inside a JSON answer's strings.
fn substitute(
    v: &Value,
    at: &str,
    sources: &[(String, String)],
    subs: &mut Vec<Substitution>,
) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, c)| {
                    (
                        k.clone(),
                        substitute(c, &format!("{at}/{}", token(k)), sources, subs),
                    )
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, c)| substitute(c, &format!("{at}/{i}"), sources, subs))
                .collect(),
        ),
        other => {
            let Some(text) = scalar_text(other) else {
                return other.clone();
            };
            for (source, value) in sources {
                if value.len() >= 2 && text.contains(value.as_str()) {
                    subs.push(Substitution {
                        pointer: at.to_string(),
                        source: source.clone(),
                    });
                    if text == *value && !other.is_string() {
                        return Value::String(format!("{{{source}}}"));
                    }
                    return Value::String(text.replace(value.as_str(), &format!("{{{source}}}")));
                }
            }
            other.clone()
        }
    }
}

fn structure(v: &Value, at: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => map
            .iter()
            .for_each(|(k, c)| structure(c, &format!("{at}/{}", token(k)), out)),
        Value::Array(items) => items
            .iter()
            .for_each(|c| structure(c, &format!("{at}/-"), out)),
        _ => out.push(at.to_string()),
    }
}

/// Infers the error shapes.
pub(crate) fn infer(
    exchanges: &[Exchange],
    resources: &[Resource],
    templates: &Templates,
) -> Errors {
    let mut groups: BTreeMap<(u16, Vec<String>, String), ErrorShape> = BTreeMap::new();
    let mut tops: Option<Vec<String>> = None;
    let mut item_404: BTreeMap<usize, u64> = BTreeMap::new();
    for x in exchanges.iter().filter(|x| x.status >= 400) {
        let target = target_of(x, resources, templates);
        let mut sources: Vec<(String, String)> = Vec::new();
        if let Some(id) = target.as_ref().and_then(|t| t.id.clone()) {
            sources.push(("id".into(), id));
        }
        sources.extend(
            x.query
                .iter()
                .map(|(k, v)| (format!("query:{k}"), v.clone())),
        );
        if let Some(b) = x.body.as_ref().and_then(Value::as_object) {
            sources.extend(
                b.iter()
                    .filter_map(|(k, v)| scalar_text(v).map(|t| (format!("body:{k}"), t))),
            );
        }
        // A request value spelled like the answer's own status (`/items/404`
        // answered 404) is ambiguous: the answer's `"status": 404` is the
        // status, not the value.
        let status = x.status.to_string();
        sources.retain(|(_, v)| *v != status);
        sources.push(("path".into(), x.path()));
        sources.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));
        let route = format!("{} {}", x.method, join(&templates.template_of(&x.segments)));
        let (body, template, subs, shape) = match &x.answer {
            Some(a) => {
                let mut subs = Vec::new();
                let t = substitute(a, "", &sources, &mut subs);
                let mut s = Vec::new();
                structure(a, "", &mut s);
                s.sort();
                s.dedup();
                if let Some(o) = a.as_object() {
                    let mut keys: Vec<String> = o.keys().cloned().collect();
                    keys.sort();
                    tops = Some(match tops.take() {
                        None => keys,
                        Some(prev) => prev.into_iter().filter(|k| keys.contains(k)).collect(),
                    });
                }
                ("json".to_string(), Some(t), subs, s)
            }
            None => ("empty".to_string(), None, Vec::new(), Vec::new()),
        };
        if x.status == 404 && x.method == "GET" {
            if let Some(t) = &target {
                if t.role == "read" {
                    item_404.entry(t.resource).or_insert(x.ordinal);
                }
            }
        }
        let key = template.as_ref().map(Value::to_string).unwrap_or_default();
        let g = groups
            .entry((x.status, shape.clone(), key))
            .or_insert_with(|| ErrorShape {
                status: x.status,
                body,
                structure: shape,
                template: template.clone(),
                substitutions: subs.clone(),
                routes: Vec::new(),
                supported_by: Vec::new(),
                variants: Vec::new(),
            });
        if !g.routes.contains(&route) {
            g.routes.push(route);
        }
        g.supported_by.push(x.ordinal);
    }
    let mut shapes: Vec<ErrorShape> = groups.into_values().collect();
    // Answers of the same status and structure with another template.
    let all: Vec<(u16, Vec<String>, Vec<u64>)> = shapes
        .iter()
        .map(|s| (s.status, s.structure.clone(), s.supported_by.clone()))
        .collect();
    for s in &mut shapes {
        s.variants = all
            .iter()
            .filter(|(st, str_, ords)| {
                *st == s.status && *str_ == s.structure && *ords != s.supported_by
            })
            .flat_map(|(_, _, o)| o.iter().copied())
            .collect();
    }
    for s in &mut shapes {
        s.routes.sort();
        s.supported_by = sorted(std::mem::take(&mut s.supported_by));
        s.variants = sorted(std::mem::take(&mut s.variants));
    }
    let mut absence = Vec::new();
    for (i, r) in resources.iter().enumerate() {
        // The analogy prefers a sibling (same parent template).
        let parent = r.collection.rsplit_once('/').map(|(p, _)| p).unwrap_or("");
        let analog = item_404
            .iter()
            .find(|(ri, _)| {
                resources[**ri]
                    .collection
                    .rsplit_once('/')
                    .map(|(p, _)| p)
                    .unwrap_or("")
                    == parent
            })
            .or_else(|| item_404.iter().next())
            .map(|(r, o)| (*r, *o));
        let has_item = r.operations.iter().any(|o| o.role == "read")
            || r.inferred_operations.iter().any(|o| o.role == "read");
        if !has_item {
            continue;
        }
        let (basis, ord, from) = match (item_404.get(&i), analog) {
            (Some(o), _) => ("recorded", *o, i),
            (None, Some((ri, o))) => ("by-analogy", o, ri),
            (None, None) => continue,
        };
        absence.push(Absence {
            resource: r.name.clone(),
            collection: r.collection.clone(),
            basis: basis.into(),
            status: 404,
            template_ordinal: ord,
            from_resource: resources[from].collection.clone(),
        });
    }
    Errors {
        shared_members: tops.unwrap_or_default(),
        shapes,
        absence,
    }
}
