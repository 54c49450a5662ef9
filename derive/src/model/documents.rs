//! Singleton documents updated by a write to their own path: a path on no
//! inferred resource whose 2xx read answers one JSON object and whose 2xx
//! writes (`POST`/`PUT`/`PATCH` with an object body) answer the document
//! with exactly the sent members changed, the next read showing the same.
//! The hypothesis is kept only when every recorded write and read of the
//! path fits it in order (the document merges the sent members; string
//! values may come back HTML-escaped, learned from the writes that showed
//! it, else from the stored texts: an escaped `&` and no bare one). A write naming a member the document lacks, or a value of another
//! JSON type, is not a merge the recording showed: the caller falls back.

use super::exchange::{join, Exchange};
use serde_json::{Map, Value};

/// One singleton document and how its writes answer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Document {
    pub path: String,
    /// The document as the recording's first read showed it.
    pub initial: Map<String, Value>,
    /// Sent strings come back HTML-escaped (`&` → `&amp;`).
    pub escapes: bool,
    /// The 2xx status of the recorded writes.
    pub write_status: u16,
    pub read_status: u16,
}

fn is_write(m: &str) -> bool {
    matches!(m, "POST" | "PUT" | "PATCH")
}

pub(crate) fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Normalizes a request path like `Exchange::path` (empty segments dropped).
pub(crate) fn normalize(path: &str) -> String {
    let segs: Vec<String> = path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    join(&segs)
}

/// The documents the recording confirms, among paths `on_resource` rejects.
/// `Some(true)` when a text member of the document holds an escaped `&`
/// (`&amp;`) and no text member a bare one; `None` when no text tells.
fn stored_escaped(doc: &Map<String, Value>) -> Option<bool> {
    let texts: Vec<&str> = doc.values().filter_map(Value::as_str).collect();
    let bare = texts.iter().any(|t| {
        t.match_indices('&')
            .any(|(i, _)| !t[i..].starts_with("&amp;"))
    });
    let escaped = texts.iter().any(|t| t.contains("&amp;"));
    (escaped && !bare).then_some(true)
}

pub(crate) fn infer(
    exchanges: &[Exchange],
    on_resource: &dyn Fn(&Exchange) -> bool,
) -> Vec<Document> {
    // Each path's exchanges, in order, the paths in order of first appearance.
    let mut paths: Vec<String> = Vec::new();
    let mut by_path: std::collections::HashMap<String, Vec<&Exchange>> =
        std::collections::HashMap::new();
    for x in exchanges {
        let p = x.path();
        by_path
            .entry(p)
            .or_insert_with_key(|p| {
                paths.push(p.clone());
                Vec::new()
            })
            .push(x);
    }
    let mut out = Vec::new();
    'path: for p in paths {
        let xs: Vec<&Exchange> = by_path.remove(&p).unwrap_or_default();
        if xs.iter().any(|x| on_resource(x)) {
            continue;
        }
        let mut doc: Option<Map<String, Value>> = None;
        let mut initial = None;
        let mut escapes: Option<bool> = None;
        let (mut write_status, mut read_status, mut writes) = (0, 0, 0);
        for x in xs.iter().filter(|x| x.is_2xx()) {
            if !x.query.is_empty() {
                continue 'path;
            }
            let Some(answer) = x.answer.as_ref().and_then(Value::as_object) else {
                continue 'path;
            };
            if x.method == "GET" {
                match &doc {
                    None => {
                        doc = Some(answer.clone());
                        initial = Some(answer.clone());
                    }
                    Some(d) if d == answer => {}
                    Some(_) => continue 'path,
                }
                read_status = x.status;
            } else if is_write(&x.method) {
                let (Some(d), Some(sent)) = (&doc, x.body.as_ref().and_then(Value::as_object))
                else {
                    continue 'path;
                };
                if sent.is_empty() {
                    continue 'path;
                }
                let mut next = d.clone();
                for (k, v) in sent {
                    let Some(got) = answer.get(k) else {
                        continue 'path;
                    };
                    if got == v {
                        if v.as_str().is_some_and(|s| html_escape(s) != *s) {
                            if escapes == Some(true) {
                                continue 'path;
                            }
                            escapes = Some(false);
                        }
                    } else if v
                        .as_str()
                        .is_some_and(|s| got.as_str() == Some(html_escape(s).as_str()))
                    {
                        if escapes == Some(false) {
                            continue 'path;
                        }
                        escapes = Some(true);
                    } else {
                        continue 'path;
                    }
                    next.insert(k.clone(), got.clone());
                }
                if &next != answer {
                    continue 'path;
                }
                doc = Some(next);
                write_status = x.status;
                writes += 1;
            } else {
                continue 'path;
            }
        }
        // No write sent a text to escape: the stored texts tell, when some
        // holds an escaped `&` and none a bare one.
        let escapes = escapes.or_else(|| initial.as_ref().and_then(stored_escaped));
        if let (Some(initial), true, true) = (initial, writes > 0, read_status > 0) {
            out.push(Document {
                path: p,
                initial,
                escapes: escapes.unwrap_or(false),
                write_status,
                read_status,
            });
        }
    }
    out
}

fn same_type(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(_), Value::Number(_)) => true,
        _ => std::mem::discriminant(a) == std::mem::discriminant(b),
    }
}

impl Document {
    /// Applies a write to the current document: the new document, or `None`
    /// when the write is not a merge the recording showed.
    pub(crate) fn apply(
        &self,
        current: &Map<String, Value>,
        sent: &Value,
    ) -> Option<Map<String, Value>> {
        let sent = sent.as_object().filter(|m| !m.is_empty())?;
        let mut next = current.clone();
        for (k, v) in sent {
            let old = current.get(k)?;
            if !old.is_null() && !same_type(old, v) {
                return None;
            }
            let v = match v.as_str() {
                Some(s) if self.escapes => Value::String(html_escape(s)),
                _ => v.clone(),
            };
            next.insert(k.clone(), v);
        }
        Some(next)
    }
}
