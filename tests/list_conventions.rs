//! One list-query implementation: a query of library conventions the
//! recording never used on a list it only read plainly (`_limit` and
//! `_sort=-field`) is understood by the replay check's question
//! (`rea_engine::understands_list_query`) and answered by the engine as the
//! check renders it (`Engine::call` on the initial World), and the server
//! answers the same bytes over HTTP and over an MCP tool call. Checked on
//! Kinto, json-server and DRF: lists the inferred semantics answer (their
//! library conventions) and lists only the engine's conventions answer
//! (`lists::conventions`, the same evaluator).

use rea_engine::records::records_of;
use rea_engine::{AnswerBody, Call, Engine, Request};
use rea_serve::{Environment, StartOptions, SystemGenerator};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

fn fixture(rel: &str) -> PathBuf {
    let local = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel);
    if local.exists() {
        local
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/fixtures")
            .join(rel)
    }
}

/// The engine `environment-serve` builds from `capture` (default options).
fn engine_of(capture: &Path) -> Engine {
    let request = rea_core::inspect::InspectRequest::har(capture);
    let (evidence, _) = rea_core::inspect::decode_for_serving(&request).expect("decoded");
    let mut evidence = serde_json::to_value(&evidence).expect("evidence");
    rea_core::secrets::pseudonymise_evidence(&mut evidence, &Default::default());
    let records = records_of(&evidence);
    let manifest = rea_derivation::environment_manifest(&evidence, &[], true).expect("manifest");
    let state =
        rea_derivation::state::environment_state_with_records(&evidence, &manifest, &records)
            .expect("state");
    let app = rea_derivation::serving_model(&evidence).expect("app model");
    let by_ordinal = records.iter().map(|r| (r.ordinal, r.clone())).collect();
    let engine = Engine::from_records(by_ordinal, manifest, state).expect("engine");
    let lists = rea_derivation::infer_list_semantics(&records, &engine, Some(&app));
    let mut engine = engine.with_list_semantics(lists);
    rea_engine::schemas::loosen_required(&mut engine);
    engine
}

/// An answer's status, body text and the headers that describe a list
/// page (count and paging headers).
fn seen(
    status: u16,
    body: &AnswerBody,
    headers: &[(String, String)],
) -> (u16, String, Vec<String>) {
    let text = match body {
        AnswerBody::Json(v) => v.to_string(),
        other => format!("{other:?}"),
    };
    let mut described: Vec<String> = headers
        .iter()
        .filter(|(n, _)| {
            let n = n.to_ascii_lowercase();
            n.contains("total") || n.contains("count") || n.contains("page") || n == "link"
        })
        .map(|(n, v)| format!("{}: {v}", n.to_ascii_lowercase()))
        .collect();
    described.sort();
    (status, text, described)
}

/// The members `item` shows for `field`, in list order.
fn column(body: &AnswerBody, pointer: &str, field: &str) -> Vec<Value> {
    let AnswerBody::Json(v) = body else {
        panic!("not JSON: {body:?}")
    };
    v.pointer(pointer)
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("no list at {pointer}: {v}"))
        .iter()
        .map(|i| i[field].clone())
        .collect()
}

/// Asks `path?query` through the check's path and the server's (HTTP and
/// MCP), asserts they are byte-equal, and answers the body.
/// `inferred`: whether the endpoint's inferred semantics answer it (else
/// the conventions' semantics of the list plan do).
fn same_everywhere(capture: &Path, path: &str, query: &str, inferred: bool) -> AnswerBody {
    let engine = engine_of(capture);
    let call = Call {
        method: "GET".into(),
        path: path.into(),
        query: Some(query.into()),
        headers: Vec::new(),
        body: None,
    };
    let request = Request::Http(call.clone());
    let routed = engine.resolve(&request).expect("routed");
    let tool = routed.tool.clone();
    let rea_engine::Plan::Read(Some(rea_engine::state::ViewPlan::List(plan))) = &routed.plan else {
        panic!("{path}: not a list view: {:?}", routed.plan)
    };
    assert!(
        !plan.lines.iter().any(|l| l.line.contains(query)),
        "{path}?{query} is not a recorded line"
    );
    let mut world = engine.initial_world();
    assert!(
        rea_engine::understands_list_query(&engine, &world, &tool, &plan.type_name, &call),
        "the replay check understands {path}?{query}"
    );
    assert_eq!(
        rea_engine::lists::serve::answer(&engine, &world, &tool, &call).is_some(),
        inferred,
        "{path}?{query}: answered by the inferred semantics"
    );
    let checked = engine.call(&mut world, &call, &mut SystemGenerator);
    let checked_seen = seen(checked.status, &checked.body, &checked.headers);
    assert_eq!(checked.status, 200, "{checked:?}");

    let env = Environment::from_capture(capture, &StartOptions::default()).expect("environment");
    let http = env.call(&Request::Http(call.clone()));
    let http_seen = seen(http.answer.status, &http.answer.body, &http.answer.headers);
    let mut arguments = Map::new();
    for p in &tool.params {
        let value = routed
            .params
            .get(&p.name)
            .cloned()
            .unwrap_or_else(|| panic!("{}: param {}", tool.name, p.name));
        arguments.insert(p.name.clone(), Value::String(value));
    }
    for (name, value) in rea_engine::codec::query_pairs(query) {
        arguments.insert(name, Value::String(value));
    }
    let mcp = env.call(&Request::Tool {
        name: tool.name.clone(),
        arguments,
    });
    let mcp_seen = seen(mcp.answer.status, &mcp.answer.body, &mcp.answer.headers);
    assert_eq!(
        http_seen, checked_seen,
        "HTTP answers what the check renders"
    );
    assert_eq!(mcp_seen, http_seen, "MCP answers what HTTP answers");
    let basis = env.list_basis(&Request::Http(call)).unwrap_or("none");
    assert!(
        basis == "convention" || basis == "semantics",
        "{path}?{query}: narrowed by the evaluator, not the whole list: {basis}"
    );
    checked.body
}

#[test]
fn kinto_convention_query_reads_the_same_in_the_check_and_the_server() {
    let capture = fixture("kinto/dev-a.har");
    // dev-a lists orders plainly and by `status=pending`: never by total.
    let body = same_everywhere(
        &capture,
        "/v1/buckets/shop/collections/orders/records",
        "_limit=2&_sort=-total",
        true,
    );
    let totals = column(&body, "/data", "total");
    assert_eq!(totals.len(), 2, "{totals:?}");
    assert!(
        totals[0].as_f64() >= totals[1].as_f64(),
        "descending: {totals:?}"
    );
}

#[test]
fn jsonserver_convention_query_reads_the_same_in_the_check_and_the_server() {
    let capture = fixture("jsonserver/dev-a.har");
    // dev-a lists comments plainly and by filters: never with `_limit`.
    let body = same_everywhere(&capture, "/comments", "_limit=2&_sort=-likes", true);
    let likes = column(&body, "", "likes");
    assert_eq!(likes.len(), 2, "{likes:?}");
    assert!(
        likes[0].as_f64() >= likes[1].as_f64(),
        "descending: {likes:?}"
    );
}

#[test]
fn kinto_fallback_convention_query_reads_the_same_in_the_check_and_the_server() {
    let capture = fixture("kinto/dev-a.har");
    // `limit`/`sort` are no names Kinto's inferred semantics hold: the
    // engine's conventions answer, through the same evaluator.
    let path = "/v1/buckets/shop/collections/orders/records";
    let body = same_everywhere(&capture, path, "limit=3&sort=-total", false);
    let totals = column(&body, "/data", "total");
    assert_eq!(totals.len(), 3, "{totals:?}");
    assert!(
        totals.windows(2).all(|w| w[0].as_f64() >= w[1].as_f64()),
        "descending: {totals:?}"
    );
}

#[test]
fn drf_fallback_convention_query_reads_the_same_in_the_check_and_the_server() {
    let capture = fixture("drf/dev-a.har");
    // dev-a lists tags plainly; DRF's semantics have no confirmed endpoint
    // for them, so the engine's conventions answer.
    let body = same_everywhere(&capture, "/api/tags/", "_limit=2&_sort=-name", false);
    let names = column(&body, "/results", "name");
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(
        names[0].as_str() >= names[1].as_str(),
        "descending: {names:?}"
    );
}
