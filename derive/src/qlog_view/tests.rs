//! The focused qlog views over real aioquic Evidence: each facet, its
//! selectors, paging and defaults, and independence from the source file.

use super::*;
use crate::analysis::analysis_view;
use crate::view::{parse_view, ViewRequest};
use rea_core::{inspect_web_network_capture, InspectRequest};
use std::path::PathBuf;

fn fixture(case: &str) -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/formats/qlog"
    ))
    .join(case)
}

fn evidence_of(path: PathBuf, ordinals: Option<Vec<u64>>) -> Value {
    let mut r = InspectRequest::har(path);
    r.format = "qlog".into();
    r.record_ordinals = ordinals;
    serde_json::to_value(inspect_web_network_capture(&r).unwrap()).unwrap()
}

fn loss() -> Value {
    evidence_of(fixture("loss/origin.qlog"), None)
}

fn view(evidence: &Value, request: Value) -> Result<Value, DeriveError> {
    let parsed = parse_view(&request)?;
    analysis_view(evidence, &parsed, false)
}

fn rows(page: &Value) -> &Vec<Value> {
    page["rows"].as_array().unwrap()
}

/// QVIEW-02: trace rows carry counts, not nested lists.
#[test]
fn traces_facet_has_counts_without_lists() {
    let page = view(
        &loss(),
        json!({"kind":"qlog","facet":"traces","offset":0,"limit":10}),
    )
    .unwrap();
    let row = &rows(&page)[0];
    assert_eq!(row["trace_index"], 0);
    assert_eq!(row["stream_count"], 8);
    assert_eq!(row["loss_declaration_count"], 1);
    assert_eq!(row["incomplete_record_count"], 0);
    assert_eq!(row["odcid"], "888e6a94abbd3f51");
    for key in ["streams", "loss_declarations", "incomplete_records"] {
        assert!(row.get(key).is_none(), "{key} omitted");
    }
    assert_eq!(page["coverage"]["exhausted"], true);
}

/// QVIEW-03: stream rows keep exact totals, omit lists and count them.
#[test]
fn streams_facet_keeps_totals_without_lists() {
    let page = view(
        &loss(),
        json!({"kind":"qlog","facet":"streams","trace_index":0,"offset":0,"limit":10}),
    )
    .unwrap();
    let s0 = rows(&page)
        .iter()
        .find(|s| s["stream_id"] == "0" && s["direction"] == "sent")
        .unwrap();
    assert_eq!(s0["unique_bytes"], "32842");
    assert_eq!(s0["frame_length_sum"], "34009");
    assert_eq!(s0["repeated_bytes"], "1167");
    assert_eq!(s0["contribution_count"], 31);
    assert_eq!(s0["repeated_range_count"], 1);
    for key in ["contributions", "ranges", "final_sizes"] {
        assert!(s0.get(key).is_none(), "{key} omitted");
    }
}

/// QVIEW-04: the three stream-list facets with all three selectors.
#[test]
fn stream_list_facets_with_all_selectors() {
    let ev = loss();
    let contributions = view(&ev, json!({"kind":"qlog","facet":"contributions","trace_index":0,"stream_id":"0","direction":"sent","offset":0,"limit":20})).unwrap();
    assert_eq!(rows(&contributions).len(), 20);
    assert_eq!(contributions["total_rows"], 31);
    assert_eq!(contributions["coverage"]["next_offset"], 20);
    assert!(rows(&contributions)[0]["pointer"]
        .as_str()
        .unwrap()
        .starts_with("/traces/0/events/"));
    let ranges = view(
        &ev,
        json!({"kind":"qlog","facet":"ranges","trace_index":0,"stream_id":"0","direction":"sent"}),
    )
    .unwrap();
    assert_eq!(rows(&ranges)[1]["kind"], "repeated");
    assert_eq!(rows(&ranges)[1]["length"], "1167");
    let finals = view(&ev, json!({"kind":"qlog","facet":"final-sizes","trace_index":0,"stream_id":"0","direction":"sent"})).unwrap();
    assert_eq!(rows(&finals)[0]["final_size"], "32842");
    let missing = view(
        &ev,
        json!({"kind":"qlog","facet":"ranges","trace_index":0,"stream_id":"99","direction":"sent"}),
    )
    .unwrap_err();
    assert_eq!(missing.to_report().code, "invalid_request");
}

/// QVIEW-05: loss declarations and incomplete records need only trace_index.
#[test]
fn trace_list_facets_need_only_the_trace() {
    let ev = loss();
    let page = view(
        &ev,
        json!({"kind":"qlog","facet":"loss-declarations","trace_index":0}),
    )
    .unwrap();
    assert_eq!(rows(&page)[0]["packet_number"], "8");
    assert_eq!(rows(&page)[0]["basis"], "endpoint-report");
    let page = view(
        &ev,
        json!({"kind":"qlog","facet":"incomplete-records","trace_index":0}),
    )
    .unwrap();
    assert_eq!(page["total_rows"], 0);
    assert!(view(
        &ev,
        json!({"kind":"qlog","facet":"loss-declarations","trace_index":0,"direction":"sent"})
    )
    .is_err());
}

/// QVIEW-06: offsets count rows of the facet; defaults are 0 and 64.
#[test]
fn defaults_and_offsets() {
    let ev = loss();
    match parse_view(&json!({"kind":"qlog","facet":"traces"})).unwrap() {
        ViewRequest::Qlog(v) => assert_eq!((v.offset, v.limit), (0, 64)),
        other => panic!("{other:?}"),
    }
    let page = view(&ev, json!({"kind":"qlog","facet":"traces"})).unwrap();
    assert_eq!(
        (
            page["coverage"]["offset"].as_u64(),
            page["coverage"]["limit"].as_u64()
        ),
        (Some(0), Some(64))
    );
    let second = view(&ev, json!({"kind":"qlog","facet":"contributions","trace_index":0,"stream_id":"0","direction":"sent","offset":30})).unwrap();
    assert_eq!(rows(&second).len(), 1);
    let all = view(&ev, json!({"kind":"qlog","facet":"contributions","trace_index":0,"stream_id":"0","direction":"sent"})).unwrap();
    assert_eq!(rows(&second)[0], rows(&all)[30]);
    assert!(parse_view(&json!({"kind":"qlog","facet":"traces","limit":0})).is_err());
}

/// QVIEW-07: missing or ambiguous selectors fail; no connection is chosen.
#[test]
fn missing_or_ambiguous_selectors_fail() {
    for (request, pointer) in [
        (json!({"kind":"qlog","facet":"streams"}), "/trace_index"),
        (
            json!({"kind":"qlog","facet":"ranges","trace_index":0,"stream_id":"0"}),
            "/direction",
        ),
        (
            json!({"kind":"qlog","facet":"contributions","trace_index":0,"direction":"sent"}),
            "/stream_id",
        ),
        (
            json!({"kind":"qlog","facet":"traces","trace_index":0}),
            "/trace_index",
        ),
        (
            json!({"kind":"qlog","facet":"ranges","trace_index":0,"stream_id":0,"direction":"sent"}),
            "/stream_id",
        ),
        (
            json!({"kind":"qlog","facet":"ranges","trace_index":0,"stream_id":"0","direction":"both"}),
            "/direction",
        ),
        (
            json!({"kind":"qlog","facet":"packets","trace_index":0}),
            "/facet",
        ),
        (json!({"kind":"qlog"}), "/facet"),
    ] {
        let report = parse_view(&request).unwrap_err().to_report();
        assert_eq!(
            (report.code.as_str(), report.details["pointer"].as_str()),
            ("invalid_request", Some(pointer)),
            "{request}"
        );
    }
    let err = view(
        &loss(),
        json!({"kind":"qlog","facet":"streams","trace_index":1}),
    )
    .unwrap_err();
    assert_eq!(err.to_report().details["pointer"], "/trace_index");
}

/// QVIEW-08: pages come from the retained facts, after the source is gone.
#[test]
fn views_work_after_the_source_is_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("origin.qlog");
    std::fs::copy(fixture("loss/origin.qlog"), &copy).unwrap();
    let ev = evidence_of(copy.clone(), None);
    let request = json!({"kind":"qlog","facet":"streams","trace_index":0});
    let before = view(&ev, request.clone()).unwrap();
    std::fs::remove_file(&copy).unwrap();
    assert_eq!(view(&ev, request).unwrap(), before);
}

/// QVIEW-09: a parent that selected [0] still pages facts of every event.
#[test]
fn facts_cover_events_outside_the_parent_selection() {
    let subset = evidence_of(fixture("loss/origin.qlog"), Some(vec![0]));
    assert_eq!(subset["records"].as_array().unwrap().len(), 1);
    let request = json!({"kind":"qlog","facet":"streams","trace_index":0});
    let page = view(&subset, request.clone()).unwrap();
    assert_eq!(page["rows"], view(&loss(), request).unwrap()["rows"]);
    assert_eq!(page["parent_record_ordinals"], json!([0]));
    assert!(page["limitations"]
        .to_string()
        .contains("still cover every recorded event"));
}

/// QVIEW-10: the last page claims no completeness.
#[test]
fn last_page_claims_no_completeness() {
    let page = view(
        &loss(),
        json!({"kind":"qlog","facet":"incomplete-records","trace_index":0}),
    )
    .unwrap();
    assert_eq!(page["coverage"]["exhausted"], true);
    assert!(page["coverage"].get("complete").is_none());
    assert!(page["limitations"][0]
        .as_str()
        .unwrap()
        .contains("does not prove complete logging"));
}

/// QVIEW-11: the capture view pages qlog events with pointers and lexemes.
#[test]
fn capture_view_pages_qlog_events() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.qlog");
    std::fs::write(&path, br#"{"qlog_format":"JSON","qlog_version":"0.3","traces":[{"events":[{"name":"transport:packet_sent","time":1700000000000.1250,"data":{}}]},{"events":[{"name":"recovery:packet_lost","time":2,"data":{}}]}]}"#).unwrap();
    let ev = evidence_of(path, None);
    let page = view(&ev, json!({"kind":"capture","detail":"complete"})).unwrap();
    let records = page["records"].as_array().unwrap();
    assert_eq!(records[1]["ordinal"], 1);
    assert_eq!(records[1]["location"]["pointer"], "/traces/1/events/0");
    assert_eq!(
        records[0]["numeric_literals"][0]["lexeme"],
        "1700000000000.1250"
    );
    let preview = view(&ev, json!({"kind":"capture"})).unwrap();
    assert_eq!(preview["records"][1]["event"], "recovery:packet_lost");
}

/// A HAR parent is refused as a typed unsupported parent.
#[test]
fn har_parent_is_refused() {
    let har = serde_json::to_value(
        inspect_web_network_capture(&InspectRequest::har(PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/kinto/dev-a.har"
        ))))
        .unwrap(),
    )
    .unwrap();
    let report = view(&har, json!({"kind":"qlog","facet":"traces"}))
        .unwrap_err()
        .to_report();
    assert_eq!(
        (report.code.as_str(), report.details["reason"].as_str()),
        ("unsupported_parent", Some("non_qlog_capture"))
    );
}

/// An over-budget page fails whole.
#[test]
fn tiny_budget_gives_resource_constraint() {
    let v = QlogView {
        facet: Facet::Traces,
        trace_index: None,
        stream_id: None,
        direction: None,
        offset: 0,
        limit: 64,
    };
    let err = qlog_page_budgeted(&loss(), &v, &mut Budget::new(100)).unwrap_err();
    assert!(matches!(err, DeriveError::ResourceConstraint { .. }));
}
