//! The scoring loop: replays a scored session, in recorded order, through
//! a `send` function (the in-process server, or a scripted candidate in the
//! tests), rewriting each request and comparing each answer.

use super::compare::Diff;
use super::har::{header, media_type, parse_json, Exchange};
use super::state::{Learn, State};
use super::urls::{collection_path, route_of, unquote};
use super::values::Scalar;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// A candidate's answer: status, headers, body bytes.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// One request as the candidate is sent it.
#[derive(Debug, Clone)]
pub struct Outgoing {
    pub method: String,
    pub path_qs: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<Vec<u8>>,
}

/// The verdict on one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Match,
    Mismatch,
    Error,
}

/// One scored request.
#[derive(Debug, Clone)]
pub struct Row {
    pub idx: usize,
    pub method: String,
    pub path: String,
    /// The path+query actually sent, when rewriting changed it.
    pub sent_path: Option<String>,
    pub write: bool,
    pub route: String,
    pub seen: bool,
    pub status_expected: u16,
    pub status_actual: Option<u16>,
    pub verdict: Verdict,
    /// Why it mismatched (or failed); `None` on a match.
    pub reason: Option<Diff>,
    /// The kind of miss: `rea:CODE` when the fake answered one of rea's own
    /// errors (`no_matching_tool`, `write_not_served`, …), else `status`,
    /// `body` or `content-type`; `None` on a match.
    pub cause: Option<String>,
    /// The app-model inference that answered (`x-rea-model-basis`: its
    /// basis and whether a convention rather than a confirmed inference
    /// answered); `None` when the spec's plans answered.
    pub model: Option<(String, bool)>,
}

/// The scored session: every request, and the entries skipped.
#[derive(Debug)]
pub struct Session {
    pub rows: Vec<Row>,
    /// Entries without a recorded response (idx, method, path+query).
    pub skipped: Vec<(usize, String, String)>,
    pub state: State,
}

fn ids_in(doc: &Value, key: Option<&str>, out: &mut HashSet<Scalar>) {
    match doc {
        Value::Object(m) => m.iter().for_each(|(k, v)| ids_in(v, Some(k), out)),
        Value::Array(a) => a.iter().for_each(|v| ids_in(v, key, out)),
        Value::Null | Value::Bool(_) => {}
        scalar => {
            if key == Some("id") {
                if let Some(s) = Scalar::of(scalar) {
                    out.insert(s);
                }
            }
        }
    }
}

/// Rule 4: recorded ids the server created in this session → the path of
/// the creating POST.
pub(crate) fn find_generated_ids(exchanges: &[Exchange]) -> HashMap<Scalar, String> {
    let mut earlier: Vec<(String, HashSet<Scalar>)> = Vec::new();
    let mut generated = HashMap::new();
    for ex in exchanges {
        let body = if ex.resp_body.is_empty() {
            None
        } else {
            parse_json(&ex.resp_body)
        };
        if let (true, Some(Value::Object(doc))) = (
            ex.method == "POST" && (200..300).contains(&ex.status),
            body.as_ref(),
        ) {
            let coll = collection_path(&ex.path);
            let mut cands: Vec<&Value> = doc.get("id").into_iter().collect();
            if let Some(Value::Object(data)) = doc.get("data") {
                cands.extend(data.get("id"));
            }
            let mut client_ids: HashSet<Scalar> = unquote(&ex.path)
                .split('/')
                .map(|s| Scalar::Str(s.to_string()))
                .collect();
            if let Some(req) = ex
                .req_body
                .as_deref()
                .filter(|b| !b.is_empty())
                .and_then(parse_json)
            {
                ids_in(&req, None, &mut client_ids);
            }
            let mut existing: HashSet<&Scalar> = HashSet::new();
            for (p, ids) in &earlier {
                if *p == coll || p.rsplit_once('/').map(|(h, _)| h) == Some(coll.as_str()) {
                    existing.extend(ids);
                }
            }
            for c in cands {
                let Some(c) = Scalar::of(c) else { continue };
                let in_request =
                    client_ids.contains(&c) || client_ids.contains(&Scalar::Str(c.text()));
                if !in_request && !existing.contains(&c) && !generated.contains_key(&c) {
                    generated.insert(c, coll.clone());
                }
            }
        }
        if let Some(body) = body {
            let mut ids = HashSet::new();
            ids_in(&body, None, &mut ids);
            earlier.push((collection_path(&ex.path), ids));
        }
    }
    generated
}

fn mismatch(message: String) -> Option<Diff> {
    Some(Diff {
        pointer: None,
        message,
    })
}

/// `; answered …`: the start of the candidate's body, on one line.
fn excerpt(body: &[u8]) -> String {
    if blank(body) {
        return String::new();
    }
    let text: String = String::from_utf8_lossy(body)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let cut: String = text.chars().take(100).collect();
    let more = if cut.len() < text.len() { "..." } else { "" };
    format!("; answered {cut}{more}")
}

/// The code of an answer in rea's own error shape: `{"error": code,
/// "message": …}` with at most `reason`, `details` and `id` besides.
fn own_error_code(body: &[u8]) -> Option<String> {
    let Value::Object(doc) = parse_json(body)? else {
        return None;
    };
    let code = doc.get("error")?.as_str()?;
    let known = ["error", "message", "reason", "details", "id"];
    let snake = !code.is_empty() && code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
    (snake
        && doc.get("message").is_some_and(Value::is_string)
        && doc.keys().all(|k| known.contains(&k.as_str())))
    .then(|| code.to_string())
}

/// The kind of a miss, for the report's tally of causes.
fn cause(resp: &Answer, recorded: u16, diff: &Diff) -> String {
    if let Some(code) = own_error_code(&resp.body) {
        return format!("rea:{code}");
    }
    if resp.status != recorded {
        "status".into()
    } else if diff.message.starts_with("content-type") {
        "content-type".into()
    } else {
        "body".into()
    }
}

fn blank(b: &[u8]) -> bool {
    b.iter().all(u8::is_ascii_whitespace)
}

/// Compares one answer with the recording; returns the first difference
/// and what the comparison learned.
pub(crate) fn compare_response(
    ex: &Exchange,
    resp: &Answer,
    state: &State,
) -> (Option<Diff>, Learn) {
    let mut learn = Learn::default();
    if resp.status != ex.status {
        return (
            mismatch(format!(
                "status {} != recorded {}{}",
                resp.status,
                ex.status,
                excerpt(&resp.body)
            )),
            learn,
        );
    }
    if ex.method == "HEAD" || ex.status == 204 || ex.status == 304 {
        return (None, learn);
    }
    if blank(&ex.resp_body) {
        let r = (!blank(&resp.body))
            .then(|| format!("expected empty body, got {} bytes", resp.body.len()));
        return (r.and_then(mismatch), learn);
    }
    if blank(&resp.body) {
        return (
            mismatch(format!("empty body, expected {} bytes", ex.resp_body.len())),
            learn,
        );
    }
    let rec_mt = media_type(
        header(&ex.resp_headers, "content-type")
            .filter(|h| !h.is_empty())
            .unwrap_or(&ex.resp_mime),
    );
    let cand_mt = media_type(header(&resp.headers, "content-type").unwrap_or_default());
    if !rec_mt.is_empty() && rec_mt != cand_mt {
        let shown = if cand_mt.is_empty() {
            "(none)"
        } else {
            &cand_mt
        };
        return (
            mismatch(format!("content-type {shown} != recorded {rec_mt}")),
            learn,
        );
    }
    let expected = if ex.resp_binary {
        None
    } else {
        parse_json(&ex.resp_body)
    };
    if let Some(exp) = expected {
        let Some(act) = parse_json(&resp.body) else {
            return (mismatch("body is not JSON".into()), learn);
        };
        let r = state.compare(&exp, &act, "", None, &mut learn, Some(ex));
        return (r, learn);
    }
    if ex.resp_binary {
        let r = (resp.body != ex.resp_body).then(|| "binary body differs".to_string());
        return (r.and_then(mismatch), learn);
    }
    let same = state.compare_text(
        &String::from_utf8_lossy(&ex.resp_body),
        &String::from_utf8_lossy(&resp.body),
        &mut learn,
        ex,
    );
    (
        (!same)
            .then(|| "text body differs".to_string())
            .and_then(mismatch),
        learn,
    )
}

/// Replays `scored` through `send`, comparing every answer; `train` is what
/// the candidate was built from (routes seen, values known).
pub fn score_session(
    train: &[Exchange],
    scored: &[Exchange],
    mut send: impl FnMut(&Outgoing) -> Result<Answer, String>,
) -> Session {
    let train_routes: HashSet<String> =
        train.iter().map(|e| route_of(&e.method, &e.path)).collect();
    let mut state = State::new(find_generated_ids(scored), train);
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    for ex in scored {
        let route = route_of(&ex.method, &ex.path);
        if ex.status == 0 {
            skipped.push((ex.idx, ex.method.clone(), ex.path_qs()));
            state.begin(ex);
            state.end(ex);
            continue;
        }
        let target = state.rewrite_path_qs(ex);
        let out = Outgoing {
            method: ex.method.clone(),
            headers: state.rewrite_headers(ex),
            body: state.rewrite_body(ex),
            path_qs: target.clone(),
        };
        let mut row = Row {
            idx: ex.idx,
            method: ex.method.clone(),
            path: ex.path_qs(),
            sent_path: (target != ex.path_qs()).then_some(target),
            write: !ex.is_read(),
            seen: train_routes.contains(&route),
            route,
            status_expected: ex.status,
            status_actual: None,
            verdict: Verdict::Error,
            reason: None,
            cause: None,
            model: None,
        };
        state.begin(ex);
        let resp = match send(&out) {
            Ok(resp) => resp,
            Err(e) => {
                state.end(ex);
                row.reason = mismatch(e);
                row.cause = Some("error".into());
                rows.push(row);
                continue;
            }
        };
        row.status_actual = Some(resp.status);
        row.model = resp
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(crate::app_model::BASIS_HEADER))
            .map(|(_, v)| {
                let (basis, how) = v.split_once(';').unwrap_or((v.as_str(), ""));
                (basis.trim().to_string(), how.trim() == "convention")
            });
        let (reason, learn) = compare_response(ex, &resp, &state);
        if resp.status == ex.status {
            state.commit(learn);
            state.learn_headers(&ex.resp_headers, &resp.headers);
        }
        state.end(ex);
        row.verdict = if reason.is_none() {
            Verdict::Match
        } else {
            Verdict::Mismatch
        };
        if let Some(diff) = &reason {
            row.cause = Some(cause(&resp, ex.status, diff));
        }
        row.reason = reason;
        rows.push(row);
    }
    Session {
        rows,
        skipped,
        state,
    }
}

#[cfg(test)]
mod tests {
    use super::own_error_code;

    #[test]
    fn rea_own_errors_are_told_from_the_apps() {
        let rea = br#"{"error":"no_matching_tool","message":"no recorded tool matches GET /x"}"#;
        assert_eq!(own_error_code(rea).as_deref(), Some("no_matching_tool"));
        let with_reason = br#"{"error":"write_not_served","message":"m","reason":"r"}"#;
        assert_eq!(
            own_error_code(with_reason).as_deref(),
            Some("write_not_served")
        );
        let kinto = br#"{"code":404,"errno":110,"error":"Not Found","message":"m"}"#;
        assert_eq!(own_error_code(kinto), None);
        let wordpress = br#"{"code":"rest_no_route","message":"m","data":{"status":404}}"#;
        assert_eq!(own_error_code(wordpress), None);
        assert_eq!(own_error_code(b"not json"), None);
    }
}
