//! Texts the server renders from a sent text: a write sent `content` as
//! one string and the answer shows, inside the entity, a text that is the
//! sent one without a literal head and tail (`content.rendered`, or
//! `excerpt.rendered` when no excerpt was sent). Each rendering names its
//! records; every recorded write that sent a text with the same head and
//! tail must show the same rendering, else it is dropped. Served: a sent
//! text with that head and tail is rendered the same way.

use super::exchange::Exchange;
use serde_json::{Map, Value};

/// One rendering: `to` (a pointer in the entity) shows the text sent as
/// `from` without `head` and `tail`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Rendering {
    pub from: String,
    pub to: String,
    pub head: String,
    pub tail: String,
    /// Where the answer showed the sent text itself, in the same object
    /// member (`/content/raw`).
    pub echo: Option<String>,
    pub supported_by: Vec<u64>,
}

fn texts(v: &Value, at: &str, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                texts(c, &format!("{at}/{}", super::exchange::token(k)), out);
            }
        }
        Value::String(s) => out.push((at.to_string(), s.clone())),
        _ => {}
    }
}

/// The renderings the recorded 2xx writes show (answers holding the entity
/// at their top level).
pub(crate) fn infer(exchanges: &[Exchange]) -> Vec<Rendering> {
    let mut out: Vec<Rendering> = Vec::new();
    let mut dropped: Vec<(String, String)> = Vec::new();
    for x in exchanges.iter().filter(|x| x.is_2xx() && !x.is_read()) {
        let (Some(Value::Object(sent)), Some(Value::Object(answer))) = (&x.body, &x.answer) else {
            continue;
        };
        let mut shown = Vec::new();
        texts(&Value::Object(answer.clone()), "", &mut shown);
        for (m, v) in sent {
            let Some(s) = v.as_str().filter(|s| s.len() >= 12) else {
                continue;
            };
            for (to, t) in &shown {
                // Only inside object members, never the sent member's echo.
                if to.matches('/').count() < 2 || t == s || t.len() < 8 {
                    continue;
                }
                let top = to.split('/').nth(1).unwrap_or_default();
                if top != m && sent.contains_key(top) {
                    continue;
                }
                let Some(i) = s.find(t.as_str()) else {
                    continue;
                };
                let (head, tail) = (&s[..i], &s[i + t.len()..]);
                if head.is_empty() && tail.is_empty() {
                    continue;
                }
                let key = (m.clone(), to.clone());
                if dropped.contains(&key) {
                    continue;
                }
                match out.iter().position(|r| r.from == *m && r.to == *to) {
                    Some(p) if out[p].head == head && out[p].tail == tail => {
                        out[p].supported_by.push(x.ordinal)
                    }
                    Some(p) => {
                        out.remove(p);
                        dropped.push(key);
                    }
                    None => {
                        let echo = shown
                            .iter()
                            .find(|(p, e)| {
                                e == s
                                    && p.matches('/').count() >= 2
                                    && p.starts_with(&format!("/{m}/"))
                            })
                            .map(|(p, _)| p.clone());
                        out.push(Rendering {
                            from: m.clone(),
                            to: to.clone(),
                            head: head.to_string(),
                            tail: tail.to_string(),
                            echo,
                            supported_by: vec![x.ordinal],
                        })
                    }
                }
            }
        }
    }
    out
}

/// Renders the sent texts into `entity` where a rendering applies (the text
/// has its head and tail, the target member exists and was not sent); the
/// members the recorded answers showed the sent text in verbatim (`raw`)
/// show it too.
pub(crate) fn apply(rs: &[Rendering], sent: &Map<String, Value>, entity: &mut Map<String, Value>) {
    let mut whole = Value::Object(std::mem::take(entity));
    for r in rs {
        if let (Some(echo), Some(s)) = (&r.echo, sent.get(&r.from).and_then(Value::as_str)) {
            if let Some(slot) = whole.pointer_mut(echo).filter(|v| v.is_string()) {
                *slot = Value::String(s.to_string());
            }
        }
    }
    for r in rs {
        let Some(s) = sent.get(&r.from).and_then(Value::as_str) else {
            continue;
        };
        let top = r.to.split('/').nth(1).unwrap_or_default();
        if top != r.from && sent.contains_key(top) {
            continue;
        }
        if s.len() < r.head.len() + r.tail.len() || !s.starts_with(&r.head) || !s.ends_with(&r.tail)
        {
            continue;
        }
        let inner = &s[r.head.len()..s.len() - r.tail.len()];
        if let Some(slot) = whole.pointer_mut(&r.to) {
            if slot.is_string() {
                *slot = Value::String(inner.to_string());
            }
        }
    }
    *entity = match whole {
        Value::Object(o) => o,
        _ => Map::new(),
    };
}
