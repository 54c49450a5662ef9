//! Refusals of RPC-style writes, keyed by the parameter names a call sent:
//! on a path that takes many operations (a form POST to `/api.php` naming
//! the operation and the item in its body), an app may refuse a write with
//! its own answer, even under a 2xx status. A recorded write answer that
//! reports no change (it carries no number and no date-time, where every
//! accepted write of the path reports its ids or clock) is a refusal; it is
//! kept when the writes of the path that were accepted all sent a superset of
//! its parameter names, and every one of those sent some member it lacked
//! (the `token`): the refusal is the app's answer for lacking them. A call
//! the spec's plans cannot answer, with exactly the refused call's parameter
//! names, gets that answer as recorded (a refusal quoting a value its call
//! sent is not kept); the World is untouched. A convention where one call
//! shows it.

use super::exchange::{join, scalar_text, sorted, Exchange};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeSet;

/// One refused write and what it lacked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RpcRefusal {
    pub method: String,
    pub path: String,
    /// The parameter names the refused call sent (query and body), sorted.
    pub names: Vec<String>,
    /// Members every accepted write sending a superset of `names` sent, and
    /// this call lacked.
    pub lacked: Vec<String>,
    pub status: u16,
    pub answer: Value,
    /// The refused calls with these names (all answered alike).
    pub supported_by: Vec<u64>,
    /// The accepted writes it was compared with.
    pub checked_against: Vec<u64>,
}

/// The parameters of a call: query pairs, then scalar body members.
pub(crate) fn params(query: &[(String, String)], body: Option<&Value>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = query.to_vec();
    if let Some(o) = body.and_then(Value::as_object) {
        out.extend(
            o.iter()
                .filter_map(|(k, v)| scalar_text(v).map(|t| (k.clone(), t))),
        );
    }
    out
}

fn names(p: &[(String, String)]) -> Vec<String> {
    let set: BTreeSet<String> = p.iter().map(|(k, _)| k.clone()).collect();
    set.into_iter().collect()
}

/// True when an answer reports something the call made: a number or a
/// date-time at any depth.
fn reports_change(v: &Value) -> bool {
    match v {
        Value::Number(_) => true,
        Value::String(s) => date_time(s),
        Value::Array(items) => items.iter().any(reports_change),
        Value::Object(map) => map.values().any(reports_change),
        _ => false,
    }
}

/// `YYYY-MM-DDThh:mm…`: a date-time.
fn date_time(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 16
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[7] == b'-'
        && (b[10] == b'T' || b[10] == b' ')
        && b[13] == b':'
}

/// True when a string of the answer holds a value (3+ characters) the call sent.
fn quotes_a_value(answer: &Value, x: &Exchange) -> bool {
    let sent = params(&x.query, x.body.as_ref());
    let mut texts = Vec::new();
    super::exchange::all_texts(answer, 2000, &mut texts);
    sent.iter()
        .filter(|(_, v)| v.chars().count() >= 3)
        .any(|(_, v)| texts.iter().any(|t| t.contains(v.as_str())))
}

/// A call's parameters and, for an accepted write, its answer's top-level members.
type Call = (Vec<(String, String)>, Option<Vec<String>>);

/// True when the path takes several operations: a parameter every write of
/// it sent holds two or more values, and accepted writes with different
/// values of it answered with different top-level members (`action=edit`
/// answers `{"edit": …}`, `action=delete` answers `{"delete": …}`).
fn rpc_style(writes: &[&Exchange], method: &str, path: &str) -> bool {
    let calls: Vec<Call> = writes
        .iter()
        .filter(|y| y.method == method && y.path() == path)
        .map(|y| {
            let top = y
                .answer
                .as_ref()
                .filter(|a| y.is_2xx() && reports_change(a))
                .and_then(Value::as_object)
                .map(|o| o.keys().cloned().collect::<Vec<_>>());
            (params(&y.query, y.body.as_ref()), top)
        })
        .collect();
    let Some((first, _)) = calls.first() else {
        return false;
    };
    first.iter().any(|(name, _)| {
        let mut tops: std::collections::BTreeMap<&str, BTreeSet<&Vec<String>>> = Default::default();
        for (p, top) in &calls {
            let Some(v) = p.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str()) else {
                return false;
            };
            if let Some(t) = top {
                tops.entry(v).or_default().insert(t);
            }
        }
        let shapes: BTreeSet<&&Vec<String>> = tops.values().flatten().collect();
        tops.len() >= 2 && shapes.len() >= 2
    })
}

/// Infers the refusals of the recording's RPC-style writes.
pub(crate) fn infer(exchanges: &[Exchange]) -> Vec<RpcRefusal> {
    let writes: Vec<&Exchange> = exchanges
        .iter()
        .filter(|x| !x.is_read() && x.body.as_ref().is_some_and(Value::is_object))
        .collect();
    let mut out: Vec<RpcRefusal> = Vec::new();
    for x in &writes {
        let Some(answer) = &x.answer else { continue };
        if x.is_2xx() && reports_change(answer) {
            continue;
        }
        let path = x.path();
        if !rpc_style(&writes, &x.method, &path) {
            continue;
        }
        let mine = names(&params(&x.query, x.body.as_ref()));
        if out
            .iter()
            .any(|r| r.method == x.method && r.path == path && r.names == mine)
        {
            continue;
        }
        let accepted: Vec<(&&Exchange, Vec<String>)> = writes
            .iter()
            .filter(|y| y.method == x.method && y.path() == path && y.is_2xx())
            .filter(|y| y.answer.as_ref().is_some_and(reports_change))
            .map(|y| (y, names(&params(&y.query, y.body.as_ref()))))
            .filter(|(_, n)| mine.iter().all(|m| n.contains(m)))
            .collect();
        let Some((_, first)) = accepted.first() else {
            continue;
        };
        let lacked: Vec<String> = first
            .iter()
            .filter(|n| !mine.contains(n))
            .filter(|n| accepted.iter().all(|(_, a)| a.contains(n)))
            .cloned()
            .collect();
        if lacked.is_empty() || quotes_a_value(answer, x) {
            continue;
        }
        // Replay: every call with these names got this answer.
        let alike: Vec<&&Exchange> = writes
            .iter()
            .filter(|y| {
                y.method == x.method
                    && y.path() == path
                    && names(&params(&y.query, y.body.as_ref())) == mine
            })
            .collect();
        if !alike
            .iter()
            .all(|y| y.status == x.status && y.answer.as_ref().is_some_and(|a| !reports_change(a)))
        {
            continue;
        }
        out.push(RpcRefusal {
            method: x.method.clone(),
            path,
            names: mine,
            lacked,
            status: x.status,
            answer: answer.clone(),
            supported_by: sorted(alike.iter().map(|y| y.ordinal).collect()),
            checked_against: sorted(accepted.iter().map(|(y, _)| y.ordinal).collect()),
        });
    }
    out
}

/// The refusal for a call with exactly a refused call's parameter names:
/// (status, answer, true when one recorded call shows it).
pub(crate) fn answer(
    refusals: &[RpcRefusal],
    query: &[(String, String)],
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> Option<(u16, Value, bool)> {
    if refusals.is_empty() {
        return None;
    }
    let mine = names(&params(query, body));
    let segments: Vec<String> = path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(crate::state::writes::input::percent_decode)
        .collect();
    let path = join(&segments);
    let r = refusals
        .iter()
        .find(|r| r.method == method && r.path == path && r.names == mine)?;
    Some((r.status, r.answer.clone(), r.supported_by.len() < 2))
}
