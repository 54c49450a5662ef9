//! The checks of `fidelity_selftest.py`, ported: tiny train captures and
//! scored sessions as HAR entries in memory, replayed through
//! `score_session` against a scripted candidate (no server, no sockets).
//! Each test runs every check of one Python case and names the ones that fail.

use super::har::exchanges;
use super::replay::{score_session, Answer, Outgoing, Verdict};
use super::state::State;
use super::urls::{parse_qsl, split_url};
use super::values::Scalar;
use serde_json::{json, Value};

const ORIGIN: &str = "http://127.0.0.1:5000";
const STARTED: &str = "2026-11-30T12:00:00.000+00:00";
const FROZEN_DATE: &str = "Mon, 03 Jun 2024 10:00:00 GMT";
const RUN_A: &str = "eff64eebffefa4fc2cd76b9142502364";
const RUN_B: &str = "eaa1bcf4428115dc5b6676d124623b0a";
const CAND_A: &str = "9afbbbe6196fb8fc3e6257c104e6d23e";
const CAND_B: &str = "a2496d0b71bd4d3a7f94bec0f59d7c98";
const SEEDED: &str = "77542a52383d4ef045c506c6eb2b4be2";

/// One HAR entry under construction.
struct E {
    method: &'static str,
    path: String,
    req: Option<Value>,
    status: u16,
    resp: Option<Value>,
    headers: Vec<(String, String)>,
    resp_headers: Vec<(String, String)>,
    text: Option<String>,
    mime: &'static str,
}

fn e(method: &'static str, path: impl Into<String>) -> E {
    E {
        method,
        path: path.into(),
        req: None,
        status: 200,
        resp: None,
        headers: Vec::new(),
        resp_headers: Vec::new(),
        text: None,
        mime: "application/json",
    }
}

impl E {
    fn req(mut self, v: Value) -> E {
        self.req = Some(v);
        self
    }
    fn resp(mut self, v: Value) -> E {
        self.resp = Some(v);
        self
    }
    fn status(mut self, s: u16) -> E {
        self.status = s;
        self
    }
    fn header(mut self, k: &str, v: &str) -> E {
        self.headers.push((k.into(), v.into()));
        self
    }
    fn date(mut self, v: &str) -> E {
        self.resp_headers.push(("Date".into(), v.into()));
        self
    }
    fn text(mut self, t: &str, mime: &'static str) -> E {
        self.text = Some(t.into());
        self.mime = mime;
        self
    }
    fn json(&self) -> Value {
        let mut request = json!({"method": self.method, "url": format!("{ORIGIN}{}", self.path),
            "headers": self.headers.iter().map(|(k, v)| json!({"name": k, "value": v})).collect::<Vec<_>>()});
        if let Some(req) = &self.req {
            request["postData"] = json!({"mimeType": "application/json", "text": req.to_string()});
        }
        let body = match (&self.text, &self.resp) {
            (Some(t), _) => t.clone(),
            (None, Some(v)) => serde_json::to_string_pretty(v).unwrap(),
            (None, None) => String::new(),
        };
        let mut rh = vec![json!({"name": "Content-Type", "value": self.mime})];
        rh.extend(
            self.resp_headers
                .iter()
                .map(|(k, v)| json!({"name": k, "value": v})),
        );
        json!({"startedDateTime": STARTED, "request": request,
               "response": {"status": self.status, "headers": rh,
                            "content": {"mimeType": self.mime, "text": body}}})
    }
}

/// What the scripted candidate answers: JSON, text, or nothing.
enum Doc {
    Json(Value),
    Text(String),
    Empty,
}

struct Sent {
    path_qs: String,
    headers: Vec<(String, String)>,
    body: String,
}

impl Sent {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

struct Outcome {
    verdicts: Vec<Verdict>,
    reasons: Vec<String>,
    sent: Vec<Sent>,
    state: State,
}

fn har(entries: &[E]) -> Vec<super::har::Exchange> {
    let doc = json!({"log": {"entries": entries.iter().map(E::json).collect::<Vec<_>>()}});
    exchanges(&doc).unwrap()
}

fn replay(
    train: &[E],
    scored: &[E],
    mut answer: impl FnMut(usize, &str, &str) -> (u16, Doc),
) -> Outcome {
    let mut sent = Vec::new();
    let session = score_session(&har(train), &har(scored), |out: &Outgoing| {
        let body = out
            .body
            .as_deref()
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default();
        sent.push(Sent {
            path_qs: out.path_qs.clone(),
            headers: out.headers.clone(),
            body: body.clone(),
        });
        let (status, doc) = answer(sent.len(), &out.path_qs, &body);
        let (body, ctype) = match doc {
            Doc::Json(v) => (v.to_string().into_bytes(), "application/json"),
            Doc::Text(t) => (t.into_bytes(), "text/plain; charset=utf-8"),
            Doc::Empty => (Vec::new(), "application/json"),
        };
        Ok(Answer {
            status,
            headers: vec![("content-type".into(), ctype.into())],
            body,
        })
    });
    Outcome {
        verdicts: session.rows.iter().map(|r| r.verdict).collect(),
        reasons: session
            .rows
            .iter()
            .map(|r| {
                r.reason
                    .as_ref()
                    .map_or(String::new(), |d| format!("{d:?}"))
            })
            .collect(),
        sent,
        state: session.state,
    }
}

use Verdict::{Match as M, Mismatch as X};

/// Collects named checks; fails the test listing every failed one.
#[derive(Default)]
struct Checks(Vec<String>);

impl Checks {
    fn check(&mut self, name: &str, ok: bool, detail: impl std::fmt::Debug) {
        if !ok {
            self.0.push(format!("{name}   [{detail:?}]"));
        }
    }
}

impl Drop for Checks {
    fn drop(&mut self) {
        if !self.0.is_empty() && !std::thread::panicking() {
            panic!("failed checks:\n{}", self.0.join("\n"));
        }
    }
}

fn run_doc(run_id: &str, name: &str, status: &str, start: i64, exp: &str) -> Value {
    json!({"run": {"info": {"run_id": run_id, "run_uuid": run_id, "run_name": name, "status": status,
                            "experiment_id": exp, "start_time": start,
                            "artifact_uri": format!("store:/{exp}/{run_id}/artifacts")},
                   "data": {"tags": [{"key": "owner", "value": "ana"}]}}})
}

fn run(run_id: &str) -> Value {
    run_doc(run_id, "gbm-baseline", "RUNNING", 1717408980000, "5")
}

fn train() -> Vec<E> {
    let seeded = run_doc(SEEDED, "xgb", "FINISHED", 1715500000000, "1");
    vec![
        e("GET", format!("/api/runs/get?run_id={SEEDED}")).resp(seeded.clone()),
        e("POST", "/api/runs/search")
            .req(json!({"experiment_ids": ["1"]}))
            .resp(json!({"runs": [seeded["run"].clone()], "total": 1})),
    ]
}

fn query(pq: &str) -> Vec<(String, String)> {
    parse_qsl(&split_url(pq).1)
}

fn q(pq: &str, name: &str) -> Option<String> {
    query(pq)
        .into_iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v)
}

#[test]
fn nested_ids_are_mapped_and_rewritten() {
    let mut c = Checks::default();
    let search = format!(
        "/api/runs/search?filter={}",
        super::urls::quote(&format!("run_id='{RUN_A}'"))
    );
    let scored = vec![
        e("POST", "/api/runs/create")
            .req(json!({"experiment_id": "5", "run_name": "gbm-baseline", "start_time": 1717408980000_i64}))
            .resp(run(RUN_A)),
        e("GET", format!("/api/runs/get?run_id={RUN_A}")).resp(run(RUN_A)),
        e("POST", "/api/models/create")
            .header("X-Run", RUN_A)
            .req(json!({"name": "m", "run_id": RUN_A, "source": format!("store:/5/{RUN_A}/artifacts/model")}))
            .resp(json!({"model": {"name": "m", "version": "1",
                "source": format!("store:/5/{RUN_A}/artifacts/model"), "run_link": format!("/runs/{RUN_A}")}})),
        e("GET", format!("/api/runs/{RUN_A}/artifacts"))
            .resp(json!({"root": format!("store:/5/{RUN_A}/artifacts"), "files": [{"path": "model"}]})),
        e("GET", search).resp(json!({"runs": [run(RUN_A)["run"].clone()], "by_id": {RUN_A: "gbm-baseline"}})),
    ];
    let o = replay(&train(), &scored, |i, pq, body| match i {
        1 => (200, Doc::Json(run(CAND_A))),
        2 if q(pq, "run_id").as_deref() == Some(CAND_A) => (200, Doc::Json(run(CAND_A))),
        3 => {
            let doc: Value = serde_json::from_str(body).unwrap();
            let rid = doc["run_id"].as_str().unwrap_or_default().to_string();
            if rid == CAND_A && doc["source"] == format!("store:/5/{rid}/artifacts/model") {
                (
                    200,
                    Doc::Json(
                        json!({"model": {"name": "m", "version": "1", "source": doc["source"],
                    "run_link": format!("/runs/{rid}")}}),
                    ),
                )
            } else {
                (400, Doc::Json(json!({"error": "bad"})))
            }
        }
        4 if split_url(pq).0.split('/').nth(3) == Some(CAND_A) => (
            200,
            Doc::Json(
                json!({"root": format!("store:/5/{CAND_A}/artifacts"), "files": [{"path": "model"}]}),
            ),
        ),
        5 => {
            let f = q(pq, "filter").unwrap_or_default();
            let rid = f.split('\'').nth(1).unwrap_or_default().to_string();
            (
                200,
                Doc::Json(
                    json!({"runs": [run(CAND_A)["run"].clone()], "by_id": {rid: "gbm-baseline"}}),
                ),
            )
        }
        _ => (404, Doc::Json(json!({"error": "no run"}))),
    });
    c.check(
        "N6 nested ids: every answer matches",
        o.verdicts == [M; 5],
        &o.reasons,
    );
    c.check(
        "N6 mapping recorded -> candidate learned",
        o.state.gen_map.get(&Scalar::Str(RUN_A.into())) == Some(&Scalar::Str(CAND_A.into())),
        &o.state.gen_map,
    );
    c.check(
        "R4 query value rewritten",
        o.sent[1].path_qs == format!("/api/runs/get?run_id={CAND_A}"),
        &o.sent[1].path_qs,
    );
    let body3: Value = serde_json::from_str(&o.sent[2].body).unwrap();
    c.check(
        "R4 JSON body: id value and id inside a longer string rewritten",
        body3["run_id"] == CAND_A
            && body3["source"] == format!("store:/5/{CAND_A}/artifacts/model"),
        &body3,
    );
    c.check(
        "R4 header value rewritten",
        o.sent[2].header("x-run") == Some(CAND_A),
        &o.sent[2].headers,
    );
    c.check(
        "R4 path segment rewritten",
        o.sent[3].path_qs == format!("/api/runs/{CAND_A}/artifacts"),
        &o.sent[3].path_qs,
    );
    c.check(
        "R4 id inside an encoded query value rewritten",
        q(&o.sent[4].path_qs, "filter") == Some(format!("run_id='{CAND_A}'")),
        &o.sent[4].path_qs,
    );
}

#[test]
fn a_later_answer_must_use_the_mapped_id() {
    let mut c = Checks::default();
    let scored = vec![
        e("POST", "/api/runs/create")
            .req(json!({"run_name": "gbm-baseline"}))
            .resp(run(RUN_A)),
        e("GET", format!("/api/runs/get?run_id={RUN_A}")).resp(run(RUN_A)),
    ];
    let o = replay(&train(), &scored, |i, _, _| {
        (200, Doc::Json(run(if i == 1 { CAND_A } else { CAND_B })))
    });
    c.check(
        "N6 a later answer with another id than the mapped one mismatches",
        o.verdicts == [M, X],
        &o.reasons,
    );
}

#[test]
fn wrong_non_generated_values_still_mismatch() {
    let mut c = Checks::default();
    let rec = json!({"run": {"info": {"run_id": RUN_A, "status": "RUNNING", "run_name": "model2024-lr01",
        "message": format!("logged 3 metrics for run {RUN_A}"), "version": "v12", "label": "processing"}}});
    let variant = |member: Option<(&str, &str)>| {
        let mut doc: Value = serde_json::from_str(&rec.to_string().replace(RUN_A, CAND_A)).unwrap();
        if let Some((k, v)) = member {
            doc["run"]["info"][k] = json!(v);
        }
        doc
    };
    let wrong_message = format!("logged 4 metrics for run {CAND_A}");
    let cases = [
        (
            "a wrong status string",
            variant(Some(("status", "FINISHED"))),
        ),
        (
            "a wrong name (same shape)",
            variant(Some(("run_name", "model2025-lr01"))),
        ),
        (
            "a wrong number inside a message",
            variant(Some(("message", &wrong_message))),
        ),
        ("a wrong short token", variant(Some(("version", "v13")))),
        (
            "a wrong word of the same length",
            variant(Some(("label", "incomplete"))),
        ),
    ];
    for (name, doc) in cases {
        let scored = [e("POST", "/api/runs/create")
            .req(json!({}))
            .resp(rec.clone())];
        let o = replay(&train(), &scored, |_, _, _| (200, Doc::Json(doc.clone())));
        c.check(
            &format!("N6 {name} still mismatches"),
            o.verdicts == [X],
            &o.reasons,
        );
    }
    let scored = [e("POST", "/api/runs/create")
        .req(json!({}))
        .resp(rec.clone())];
    let o = replay(&train(), &scored, |_, _, _| (200, Doc::Json(variant(None))));
    c.check(
        "N6 control: only the id differs -> match",
        o.verdicts == [M],
        &o.reasons,
    );
}

#[test]
fn counts_totals_steps_and_values_stay_exact() {
    let mut c = Checks::default();
    let rec = json!({"count": 5731, "total": 1717408800000_i64, "step": 3, "value": 1717408800000_i64,
                     "result": {"rows": 98765432, "id": 77001234}});
    let import = || {
        e("POST", "/api/import")
            .req(json!({"n": 1}))
            .resp(rec.clone())
    };
    for (member, wrong) in [
        ("count", json!(5732)),
        ("total", json!(1796135643193_i64)),
        ("step", json!(4)),
        ("value", json!(1717408800001_i64)),
    ] {
        let mut doc = rec.clone();
        doc[member] = wrong;
        let o = replay(&train(), &[import()], |_, _, _| {
            (200, Doc::Json(doc.clone()))
        });
        c.check(
            &format!("N6/N7 a wrong `{member}` still mismatches"),
            o.verdicts == [X],
            &o.reasons,
        );
    }
    let mut doc = rec.clone();
    doc["result"]["rows"] = json!(98765433);
    let o = replay(&train(), &[import()], |_, _, _| {
        (200, Doc::Json(doc.clone()))
    });
    c.check(
        "N6 a wrong nested integer under a non-id member still mismatches",
        o.verdicts == [X],
        &o.reasons,
    );
    let mut doc = rec.clone();
    doc["result"]["id"] = json!(88005678);
    let o = replay(&train(), &[import()], |_, _, _| {
        (200, Doc::Json(doc.clone()))
    });
    c.check(
        "N6 control: a new integer under `id` may be the candidate's own",
        o.verdicts == [M],
        &o.reasons,
    );
}

#[test]
fn values_already_known_are_not_generated() {
    let mut c = Checks::default();
    let create = |id: &str| e("POST", "/api/runs/create").req(json!({})).resp(run(id));
    let o = replay(&train(), &[create(SEEDED)], |_, _, _| {
        (200, Doc::Json(run(CAND_A)))
    });
    c.check(
        "N6 an id that appears in the train capture is not generated",
        o.verdicts == [X],
        &o.reasons,
    );
    let scored = [
        e("GET", format!("/api/runs/get?run_id={RUN_B}"))
            .status(404)
            .resp(json!({"error": format!("no run {RUN_B}")})),
        create(RUN_B),
    ];
    let o = replay(&train(), &scored, |i, _, _| {
        if i == 1 {
            (404, Doc::Json(json!({"error": format!("no run {RUN_B}")})))
        } else {
            (200, Doc::Json(run(CAND_B)))
        }
    });
    c.check(
        "N6 an id the session showed earlier is not generated",
        o.verdicts == [M, X],
        &o.reasons,
    );
    let scored = [e("POST", "/api/runs/create")
        .req(json!({"run_id": RUN_B}))
        .resp(run(RUN_B))];
    let o = replay(&train(), &scored, |_, _, _| (200, Doc::Json(run(CAND_B))));
    c.check(
        "N6 an id the client sent in this request is not generated",
        o.verdicts == [X],
        &o.reasons,
    );
    let o = replay(&train(), &[create(RUN_A)], |_, _, _| {
        (200, Doc::Json(run(SEEDED)))
    });
    c.check(
        "N6 the candidate may not answer with an id the recordings already show",
        o.verdicts == [X],
        &o.reasons,
    );
}

#[test]
fn shapes_reuse_writes_only_and_text_answers() {
    let mut c = Checks::default();
    let uuid_a = "8f0c2a6e-4b1d-4e7a-9c35-d2f6a1b80e47";
    let create = || {
        e("POST", "/api/runs/create")
            .req(json!({}))
            .resp(run(RUN_A))
    };
    let o = replay(&train(), &[create()], |_, _, _| {
        (200, Doc::Json(run(uuid_a)))
    });
    c.check(
        "N6 32-hex vs uuid (other shape) mismatches",
        o.verdicts == [X],
        &o.reasons,
    );
    let o = replay(&train(), &[create()], |_, _, _| {
        (200, Doc::Json(run(&CAND_A[..30])))
    });
    c.check(
        "N6 a shorter hex id mismatches",
        o.verdicts == [X],
        &o.reasons,
    );
    let scored = [
        e("POST", "/api/runs/create")
            .req(json!({"n": 1}))
            .resp(run(RUN_A)),
        e("POST", "/api/runs/create")
            .req(json!({"n": 2}))
            .resp(run(RUN_B)),
    ];
    let o = replay(&train(), &scored, |_, _, _| (200, Doc::Json(run(CAND_A))));
    c.check(
        "N6 one candidate id for two recorded ids mismatches",
        o.verdicts == [M, X],
        &o.reasons,
    );
    let o = replay(
        &train(),
        &[e("GET", "/api/runs/latest").resp(run(RUN_A))],
        |_, _, _| (200, Doc::Json(run(CAND_A))),
    );
    c.check(
        "N6 is learned from writes only (a new id in a GET answer mismatches)",
        o.verdicts == [X],
        &o.reasons,
    );
    let scored = [
        e("POST", "/api/notes")
            .req(json!({"t": "x"}))
            .text(&format!("created note {RUN_A}\n"), "text/plain"),
        e("GET", format!("/api/notes/{RUN_A}")).text("x\n", "text/plain"),
    ];
    let o = replay(&train(), &scored, |i, pq, _| match i {
        1 => (200, Doc::Text(format!("created note {CAND_A}\n"))),
        _ if pq.ends_with(CAND_A) => (200, Doc::Text("x\n".into())),
        _ => (404, Doc::Text("?".into())),
    });
    c.check(
        "N6 + R4 in a text answer",
        o.verdicts == [M, M],
        (&o.reasons, &o.sent[1].path_qs),
    );
    let (ver_a, ver_c) = (
        "3-5ed6605787db607e3cb0fc51a61eb96b",
        "3-eb03cfb86dd83c95fcd0c95766ee3369",
    );
    let scored = [
        e(
            "DELETE",
            "/store/doc-7?version=2-778dfda03c8b6dcdfc57c82124f4bbc6",
        )
        .resp(json!({"ok": true, "id": "doc-7", "version": ver_a})),
        e("GET", "/store/history").resp(json!({"events": [{"id": "doc-7", "versions": [ver_a]}]})),
    ];
    let o = replay(&train(), &scored, |i, _, _| {
        if i == 1 {
            (
                200,
                Doc::Json(json!({"ok": true, "id": "doc-7", "version": ver_c})),
            )
        } else {
            (
                200,
                Doc::Json(json!({"events": [{"id": "doc-7", "versions": [ver_c]}]})),
            )
        }
    });
    c.check(
        "N6 learned from a DELETE answer too (a new version token)",
        o.verdicts == [M, M],
        &o.reasons,
    );
}

#[test]
fn top_level_post_ids_are_mapped_and_rewritten() {
    let mut c = Checks::default();
    let (uuid_rec, uuid_cand) = (
        "3f1e2d4c-5b6a-4789-8abc-def012345678",
        "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
    );
    let scored = [
        e("POST", "/v1/buckets/b/collections/c/records")
            .req(json!({"data": {"name": "n"}}))
            .status(201)
            .resp(
                json!({"data": {"id": uuid_rec, "name": "n", "last_modified": 1796000000000_i64}}),
            ),
        e(
            "GET",
            format!("/v1/buckets/b/collections/c/records/{uuid_rec}"),
        )
        .resp(json!({"data": {"id": uuid_rec, "name": "n", "last_modified": 1796000000000_i64}})),
        e("POST", "/items")
            .req(json!({"name": "n"}))
            .status(201)
            .resp(json!({"id": 21, "name": "n"})),
        e("GET", "/items/21").resp(json!({"id": 21, "name": "n"})),
    ];
    let o = replay(&train(), &scored, |i, pq, _| match i {
        1 => (
            201,
            Doc::Json(
                json!({"data": {"id": uuid_cand, "name": "n", "last_modified": 1796000001234_i64}}),
            ),
        ),
        2 if pq.ends_with(uuid_cand) => (
            200,
            Doc::Json(
                json!({"data": {"id": uuid_cand, "name": "n", "last_modified": 1796000001234_i64}}),
            ),
        ),
        3 => (201, Doc::Json(json!({"id": 22, "name": "n"}))),
        4 if pq == "/items/22" => (200, Doc::Json(json!({"id": 22, "name": "n"}))),
        _ => (404, Doc::Empty),
    });
    c.check(
        "N4 top-level ids (uuid and short integer) still mapped and rewritten",
        o.verdicts == [M; 4] && o.sent[3].path_qs == "/items/22",
        (&o.reasons, &o.sent.get(3).map(|s| s.path_qs.clone())),
    );
}

#[test]
fn clock_numbers_and_clock_tokens_compare_by_shape() {
    let mut c = Checks::default();
    let rec = json!({"experiment": {"experiment_id": "5", "creation_time": 1717408800000_i64,
        "last_update_time": 1717408800000_i64, "createdAt": 1717408800, "expires": "1717412400"}});
    let with = |over: Value| {
        let mut doc = rec.clone();
        for (k, v) in over.as_object().unwrap() {
            doc["experiment"][k] = v.clone();
        }
        doc
    };
    let get = |date: bool| {
        let x = e("GET", "/api/experiments/get?experiment_id=5").resp(rec.clone());
        if date {
            x.date(FROZEN_DATE)
        } else {
            x
        }
    };
    let one = |entry: E, doc: Value| {
        let o = replay(&train(), &[entry], |_, _, _| (200, Doc::Json(doc.clone())));
        (o.verdicts, o.reasons)
    };
    let (v, r) = one(
        get(true),
        with(
            json!({"creation_time": 1796135643193_i64, "last_update_time": 1796135643200_i64,
                    "createdAt": 1796135643, "expires": "1796139243"}),
        ),
    );
    c.check(
        "N7 clock values (ms, s, digit string) from another clock match by shape",
        v == [M],
        r,
    );
    let (v, r) = one(get(true), with(json!({"creation_time": 1796135643})));
    c.check("N7 milliseconds vs seconds mismatches", v == [X], r);
    let (v, r) = one(get(true), with(json!({"creation_time": "1796135643193"})));
    c.check("N7 a number vs a string mismatches", v == [X], r);
    let (v, r) = one(get(true), with(json!({"creation_time": 42})));
    c.check(
        "N7 a non-clock number for a clock value mismatches",
        v == [X],
        r,
    );
    let (v, r) = one(get(true), with(json!({"creation_time": 1717408800000.5})));
    c.check("N7 float ms for int ms matches (same unit)", v == [M], r);
    let (v, r) = one(
        get(false),
        with(json!({"creation_time": 1796135643193_i64})),
    );
    c.check(
        "N7 far from the entry's clock (no Date header, recorded 2026) stays exact",
        v == [X],
        r,
    );
    let seeded =
        json!({"run": {"info": {"start_time": 1715500000000_i64, "end_time": 1715503600000_i64}}});
    let (v, r) = one(
        e("POST", "/api/runs/search")
            .req(json!({"experiment_ids": ["1"]}))
            .resp(seeded)
            .date(FROZEN_DATE),
        json!({"run": {"info": {"start_time": 1715586400000_i64, "end_time": 1715590000000_i64}}}),
    );
    c.check(
        "N7 seeded times (weeks before the entry's clock) stay exact",
        v == [X],
        r,
    );
    let near = json!({"item": {"created_at_ms": 1796040000000_i64, "updatedAt": 1796040000}});
    let (v, r) = one(
        e("POST", "/api/items").req(json!({"n": 1})).resp(near),
        json!({"item": {"created_at_ms": 1796135643193_i64, "updatedAt": 1796135643}}),
    );
    c.check(
        "N7 control: real-clock recording, values near startedDateTime match by shape",
        v == [M],
        r,
    );
    let started = |start: i64| run_doc(RUN_A, "gbm-baseline", "RUNNING", start, "5");
    let started_c = |start: i64| run_doc(CAND_A, "gbm-baseline", "RUNNING", start, "5");
    let scored = || {
        [
            e("POST", "/api/runs/create")
                .req(json!({"run_name": "r", "start_time": 1717408980000_i64}))
                .resp(started(1717408980000)),
            e("GET", format!("/api/runs/get?run_id={RUN_A}")).resp(started(1717408980000)),
        ]
    };
    let o = replay(&train(), &scored(), |_, _, _| {
        (200, Doc::Json(started_c(1796135643193)))
    });
    c.check(
        "N7 a clock value the client sent (start_time) stays exact",
        o.verdicts == [X, X],
        &o.reasons,
    );
    let o = replay(&train(), &scored(), |_, _, _| {
        (200, Doc::Json(started_c(1717408980000)))
    });
    c.check(
        "N7 control: the client's start_time echoed -> match",
        o.verdicts == [M, M],
        &o.reasons,
    );
    let msg =
        "duplicate name: insert failed [parameters: ('x', 'active', 1717408800000, 1717408800000)]";
    let failed = |date: bool| {
        let x = e("POST", "/api/experiments/create")
            .req(json!({"name": "x"}))
            .status(400)
            .resp(json!({"message": msg}));
        if date {
            x.date(FROZEN_DATE)
        } else {
            x
        }
    };
    let answer = |with: &str| json!({"message": msg.replace("1717408800000", with)});
    let err = |entry: E, doc: Value| {
        let o = replay(&train(), &[entry], |_, _, _| (400, Doc::Json(doc.clone())));
        (o.verdicts, o.reasons)
    };
    let (v, r) = err(failed(true), answer("1796135643193"));
    c.check(
        "N8 clock digits inside a message (Date header clock) match by shape",
        v == [M],
        r,
    );
    let (v, r) = err(failed(true), answer("1796135643"));
    c.check(
        "N8 seconds for milliseconds inside a message mismatches",
        v == [X],
        r,
    );
    let (v, r) = err(failed(false), answer("1796135643193"));
    c.check(
        "N8 digits far from the entry's clock (no Date header) stay exact",
        v == [X],
        r,
    );
    let sent = e("POST", "/api/runs/create")
        .req(json!({"start_time": 1717408800000_i64}))
        .status(400)
        .resp(json!({"message": "bad start_time 1717408800000"}))
        .date(FROZEN_DATE);
    let (v, r) = err(sent, json!({"message": "bad start_time 1796135643193"}));
    c.check("N8 digits the client sent stay exact", v == [X], r);
}

// ---- rules the Python self-test does not exercise directly (1, 2, 3, 5, R2, R3)

#[test]
fn json_normalization_order_numbers_origins_and_media_type() {
    let mut c = Checks::default();
    let rec = json!({"a": 1, "b": [1, 2], "url": "http://127.0.0.1:8888/v1/"});
    let one = |entry: E, status: u16, doc: Doc| {
        let o = replay(&train(), &[entry], move |_, _, _| {
            (
                status,
                match &doc {
                    Doc::Json(v) => Doc::Json(v.clone()),
                    Doc::Text(t) => Doc::Text(t.clone()),
                    Doc::Empty => Doc::Empty,
                },
            )
        });
        (o.verdicts, o.reasons)
    };
    let get = || e("GET", "/x").resp(rec.clone());
    let (v, r) = one(
        get(),
        200,
        Doc::Json(json!({"url": "http://localhost:18765/v1/", "b": [1, 2.0], "a": 1.0})),
    );
    c.check(
        "N1/N2 member order, numbers by value and origins normalized -> match",
        v == [M],
        r,
    );
    let (v, r) = one(
        get(),
        200,
        Doc::Json(json!({"a": 1, "b": [2, 1], "url": "http://127.0.0.1:1/v1/"})),
    );
    c.check("N1 array order matters", v == [X], r);
    let (v, r) = one(
        get(),
        200,
        Doc::Json(json!({"a": true, "b": [1, 2], "url": "http://127.0.0.1:1/v1/"})),
    );
    c.check("N1 booleans are not numbers", v == [X], r);
    let (v, r) = one(
        get(),
        200,
        Doc::Json(json!({"a": 1, "b": [1, 2], "url": "http://127.0.0.1:1/v1/", "c": 0})),
    );
    c.check(
        "N1 an extra member mismatches",
        v == [X] && r[0].contains("unexpected member"),
        r,
    );
    let (v, r) = one(get(), 200, Doc::Text(rec.to_string()));
    c.check(
        "a different media type mismatches",
        v == [X] && r[0].contains("content-type"),
        r,
    );
    let (v, r) = one(get(), 404, Doc::Json(rec.clone()));
    c.check(
        "a different status mismatches",
        v == [X] && r[0].contains("status 404"),
        r,
    );
    let (v, r) = one(
        e("DELETE", "/x").status(204),
        204,
        Doc::Json(json!({"any": 1})),
    );
    c.check("a 204 compares the status only", v == [M], r);
    let (v, r) = one(e("GET", "/x"), 200, Doc::Json(json!({})));
    c.check("a recorded empty body needs an empty answer", v == [X], r);
}

#[test]
fn volatile_fields_and_clock_dates_compare_by_shape() {
    let mut c = Checks::default();
    let rec = json!({"last_modified": 1796000000000_i64, "etag": "\"1796000000000\"",
                     "due": "2026-11-30", "at": "2026-11-30T11:59:00Z", "born": "1990-01-01"});
    let one = |doc: Value| {
        let o = replay(&train(), &[e("GET", "/x").resp(rec.clone())], |_, _, _| {
            (200, Doc::Json(doc.clone()))
        });
        (o.verdicts, o.reasons)
    };
    let ok = json!({"last_modified": 1, "etag": "\"1796999999999\"", "due": "2027-01-05",
                    "at": "2030-01-01T00:00:00Z", "born": "1990-01-01"});
    let (v, r) = one(ok.clone());
    c.check(
        "N3/N5 volatile values and clock-derived dates by shape -> match",
        v == [M],
        r,
    );
    let mut bad = ok.clone();
    bad["last_modified"] = json!("1");
    let (v, r) = one(bad);
    c.check(
        "N3 a volatile value of another JSON type mismatches",
        v == [X],
        r,
    );
    let mut bad = ok.clone();
    bad["at"] = json!("2030-01-01T00:00:00.5Z");
    let (v, r) = one(bad);
    c.check(
        "N5 a date-time of another format class (fraction) mismatches",
        v == [X],
        r,
    );
    let mut bad = ok.clone();
    bad["born"] = json!("1990-01-02");
    let (v, r) = one(bad);
    c.check(
        "N5 a date far from the entry's clock stays exact",
        v == [X],
        r,
    );
    let sent = e("GET", "/x?due=2026-11-30").resp(rec.clone());
    let o = replay(&train(), &[sent], |_, _, _| (200, Doc::Json(ok.clone())));
    c.check(
        "N5 a date the client sent stays exact",
        o.verdicts == [X],
        &o.reasons,
    );
}

#[test]
fn validators_and_links_are_rewritten() {
    let mut c = Checks::default();
    let scored = [
        e("GET", "/items?limit=1")
            .resp(json!({"items": [1]}))
            .header("Accept", "application/json"),
        e("GET", "/items?limit=1&token=REC").resp(json!({"items": [2]})),
        e("PATCH", "/items/2")
            .header("If-Match", "\"1796000000000\"")
            .req(json!({"n": 3}))
            .resp(json!({"n": 3})),
    ];
    let mut scored = scored;
    scored[0].resp_headers.push((
        "Next-Page".into(),
        format!("{ORIGIN}/items?limit=1&token=REC"),
    ));
    scored[0]
        .resp_headers
        .push(("ETag".into(), "\"1796000000000\"".into()));
    let o = replay(&train(), &scored, |i, _, _| match i {
        1 => (200, Doc::Json(json!({"items": [1]}))),
        2 => (200, Doc::Json(json!({"items": [2]}))),
        _ => (200, Doc::Json(json!({"n": 3}))),
    });
    // the scripted candidate answers no headers: nothing is learned
    c.check(
        "R2/R3 without candidate headers the recorded request is sent",
        o.sent[1].path_qs == "/items?limit=1&token=REC"
            && o.sent[2].header("if-match") == Some("\"1796000000000\""),
        (&o.sent[1].path_qs, &o.sent[2].headers),
    );
    let mut state = State::default();
    state.learn_headers(
        &[
            (
                "Next-Page".into(),
                format!("{ORIGIN}/items?limit=1&token=REC"),
            ),
            ("ETag".into(), "\"1796000000000\"".into()),
        ],
        &[
            (
                "next-page".into(),
                "http://127.0.0.1:1/items?limit=1&token=CAND".into(),
            ),
            ("etag".into(), "\"1796000001234\"".into()),
        ],
    );
    let ex = har(&[
        e("GET", "/items?limit=1&token=REC"),
        e("PATCH", "/items/2")
            .header("If-Match", "\"1796000000000\"")
            .header("Connection", "close"),
    ]);
    c.check(
        "R3 a request to a recorded Next-Page goes to the candidate's",
        state.rewrite_path_qs(&ex[0]) == "/items?limit=1&token=CAND",
        state.rewrite_path_qs(&ex[0]),
    );
    let h = state.rewrite_headers(&ex[1]);
    c.check(
        "R2 If-Match gets the candidate's ETag; hop-by-hop headers are dropped",
        h == [("If-Match".to_string(), "\"1796000001234\"".to_string())],
        &h,
    );
}
