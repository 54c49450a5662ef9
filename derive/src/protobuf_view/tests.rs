//! The `protobuf` view over real gRPC Evidence (with the fixture
//! descriptor): collections, intersecting and empty filters, column
//! selection, coverage, budget, and independence from the source files.

use super::*;
use crate::analysis::analysis_view;
use crate::view::parse_view;
use rea_core::protobuf::SchemaOptions;
use rea_core::{inspect_web_network_capture, InspectRequest};
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/formats"
    ))
    .join(name)
}

fn evidence_from(har: PathBuf, pb: PathBuf, ordinals: Vec<u64>) -> Value {
    let mut r = InspectRequest::har(har);
    r.record_ordinals = Some(ordinals);
    r.protobuf.schema = Some(SchemaOptions {
        descriptor_set_path: pb,
        message_type: None,
    });
    serde_json::to_value(inspect_web_network_capture(&r).unwrap()).unwrap()
}

fn native() -> Value {
    evidence_from(fixture("grpc-native.har"), fixture("api.pb"), vec![0, 6, 3])
}

fn view(evidence: &Value, request: Value) -> Result<Value, DeriveError> {
    analysis_view(evidence, &parse_view(&request)?, true)
}

fn rows(page: &Value) -> &Vec<Value> {
    page["rows"].as_array().unwrap()
}

/// PB-41: the spec's three example pages.
#[test]
fn the_spec_pages_answer() {
    let e = native();
    let bodies = view(
        &e,
        json!({"kind":"protobuf","collection":"bodies","offset":0,"limit":16}),
    )
    .unwrap();
    assert_eq!(bodies["total_rows"], 6);
    let frames = view(&e, json!({"kind":"protobuf","collection":"frames","record_ordinals":[6],"offset":0,"limit":16})).unwrap();
    assert!(rows(&frames).iter().all(|r| r["record_ordinal"] == 6));
    assert_eq!(
        rows(&frames).len(),
        4,
        "one request frame, three streamed products"
    );
    let fields = view(&e, json!({"kind":"protobuf","collection":"fields","record_ordinals":[0],"field_numbers":[1,4],"fields":["number","schema_name","schema_value"],"offset":0,"limit":32})).unwrap();
    assert!(!rows(&fields).is_empty());
    for r in rows(&fields) {
        assert_eq!(r["record_ordinal"], 0);
        assert!(r["number"] == 1 || r["number"] == 4);
        assert!(r.get("schema_value").is_some());
        // PB-46: identity, offset basis and body status survive selection.
        for k in KEPT {
            assert!(r.get(k).is_some(), "{k} kept");
        }
        assert!(r.get("wire_type").is_none());
    }
}

/// PB-42, PB-43, PB-44: filters intersect; empty selects nothing; schema names.
#[test]
fn filters_intersect_and_empty_filters_select_nothing() {
    let e = native();
    let all = view(
        &e,
        json!({"kind":"protobuf","collection":"fields","limit":1000}),
    )
    .unwrap();
    let both = view(&e, json!({"kind":"protobuf","collection":"fields","record_ordinals":[0],"field_numbers":[1,4],"limit":1000})).unwrap();
    let expected = rows(&all)
        .iter()
        .filter(|r| r["record_ordinal"] == 0 && (r["number"] == 1 || r["number"] == 4))
        .count();
    assert_eq!(rows(&both).len(), expected);
    let none = view(
        &e,
        json!({"kind":"protobuf","collection":"fields","field_numbers":[]}),
    )
    .unwrap();
    assert_eq!(none["total_rows"], 0);
    let titles = view(
        &e,
        json!({"kind":"protobuf","collection":"fields","schema_names":["title"],"limit":100}),
    )
    .unwrap();
    assert!(rows(&titles).len() >= 2);
    let first = rows(&titles)[0]["field_id"].as_u64().unwrap();
    let by_id = view(&e, json!({"kind":"protobuf","collection":"fields","field_ids":[first],"frame_indices":[0],"record_ordinals":[0],"limit":100})).unwrap();
    assert!(rows(&by_id)
        .iter()
        .all(|r| r["field_id"] == first && r["frame_index"] == 0));
    assert!(view(
        &e,
        json!({"kind":"protobuf","collection":"bodies","field_numbers":[1]})
    )
    .is_err());
    assert!(view(
        &e,
        json!({"kind":"protobuf","collection":"fields","fields":["nope"]})
    )
    .is_err());
}

/// PB-45: default pages omit text, schema_value and enum aliases.
#[test]
fn default_field_pages_omit_the_heavy_columns() {
    let e = native();
    let page = view(
        &e,
        json!({"kind":"protobuf","collection":"fields","schema_names":["title"]}),
    )
    .unwrap();
    for r in rows(&page) {
        for k in OMITTED_BY_DEFAULT {
            assert!(r.get(k).is_none(), "{k} omitted");
        }
        assert!(r.get("schema_name").is_some());
    }
    let page = view(&e, json!({"kind":"protobuf","collection":"fields","schema_names":["title"],"fields":["text","schema_value"]})).unwrap();
    assert!(rows(&page)[0]["schema_value"]
        .as_str()
        .unwrap()
        .starts_with('\u{feff}'));
}

/// PB-48, PB-53: paging and the parent's coverage, kept partial.
#[test]
fn paging_and_coverage() {
    let e = native();
    let p1 = view(
        &e,
        json!({"kind":"protobuf","collection":"fields","limit":10}),
    )
    .unwrap();
    assert_eq!(p1["coverage"]["next_offset"], 10);
    let total = p1["total_rows"].as_u64().unwrap();
    let last = view(
        &e,
        json!({"kind":"protobuf","collection":"fields","offset":total - 1,"limit":10}),
    )
    .unwrap();
    assert_eq!(last["coverage"]["exhausted"], true);
    assert_eq!(last["protobuf_coverage"]["selected_records"], 3);
    assert!(last["limitations"][0]
        .as_str()
        .unwrap()
        .contains("retained"));
    // Records 4 and 7 have producer-decoded request text: their record is
    // inspected; make coverage partial through conflicting MIME instead.
    let mut tampered = e.clone();
    tampered["protobuf"]["protobuf_coverage"]["status"] = json!("partial");
    let page = view(
        &tampered,
        json!({"kind":"protobuf","collection":"fields","limit":1}),
    )
    .unwrap();
    assert_eq!(page["protobuf_coverage"]["status"], "partial");
    assert!(page["limitations"]
        .as_array()
        .unwrap()
        .iter()
        .any(|l| l.as_str().unwrap().contains("partial")));
}

/// PB-49 (file independence), PB-51 (inline revalidation), budget.
#[test]
fn pages_never_reopen_files_and_inline_input_is_revalidated() {
    let dir = tempfile::tempdir().unwrap();
    let har = dir.path().join("c.har");
    let pb = dir.path().join("api.pb");
    std::fs::copy(fixture("grpc-native.har"), &har).unwrap();
    std::fs::copy(fixture("api.pb"), &pb).unwrap();
    let e = evidence_from(har.clone(), pb.clone(), vec![0]);
    let request = json!({"kind":"protobuf","collection":"fields","record_ordinals":[0],"limit":50});
    let before = view(&e, request.clone()).unwrap();
    std::fs::remove_file(&har).unwrap();
    std::fs::remove_file(&pb).unwrap();
    assert_eq!(view(&e, request.clone()).unwrap(), before);
    let mut tampered = e.clone();
    tampered["protobuf"]["fields"][0]["value"] = json!(-1);
    assert!(matches!(
        view(&tampered, request.clone()),
        Err(DeriveError::InvalidEvidence { .. })
    ));
    let parsed = match parse_view(&request).unwrap() {
        crate::view::ViewRequest::Protobuf(v) => v,
        _ => unreachable!("a protobuf view"),
    };
    let small = protobuf_page_budgeted(&e, &parsed, &mut Budget::new(1024), None);
    assert!(matches!(small, Err(DeriveError::ResourceConstraint { .. })));
    let mut no_facet = e.clone();
    no_facet.as_object_mut().unwrap().remove("protobuf");
    assert!(matches!(
        view(&no_facet, request),
        Err(DeriveError::Unsupported {
            refusal: Refusal::NoProtobufFacts,
            ..
        })
    ));
}

fn parsed(request: &Value) -> ProtobufView {
    match parse_view(request).unwrap() {
        crate::view::ViewRequest::Protobuf(v) => v,
        _ => unreachable!("a protobuf view"),
    }
}

/// PB-49: a retained parent's cache reuses its validation and the most
/// recent field filter (indices into the retained facts): the repeated page
/// is a cache hit with the same rows, after both files are deleted.
#[test]
fn retained_parents_reuse_validation_and_the_latest_field_filter() {
    let dir = tempfile::tempdir().unwrap();
    let har = dir.path().join("c.har");
    let pb = dir.path().join("api.pb");
    std::fs::copy(fixture("grpc-native.har"), &har).unwrap();
    std::fs::copy(fixture("api.pb"), &pb).unwrap();
    let e = evidence_from(har.clone(), pb.clone(), vec![0, 6]);
    let mut cache = ViewCache::default();
    let request = json!({"kind":"protobuf","collection":"fields","record_ordinals":[0],"field_numbers":[1,2],"limit":8});
    let first = protobuf_page_cached(&e, &parsed(&request), &mut cache).unwrap();
    assert_eq!(first, protobuf_page(&e, &parsed(&request)).unwrap());
    assert_eq!(cache.filter_hits, 0);
    std::fs::remove_file(&har).unwrap();
    std::fs::remove_file(&pb).unwrap();
    // The next page of the same filter: a hit, the rows a fresh scan gives.
    let next = json!({"kind":"protobuf","collection":"fields","record_ordinals":[0],"field_numbers":[1,2],"offset":8,"limit":8});
    let hit = protobuf_page_cached(&e, &parsed(&next), &mut cache).unwrap();
    assert_eq!(cache.filter_hits, 1);
    assert_eq!(hit, protobuf_page(&e, &parsed(&next)).unwrap());
    // Another filter replaces the cached one (only the most recent is kept).
    let other = json!({"kind":"protobuf","collection":"fields","record_ordinals":[6],"limit":8});
    let o = protobuf_page_cached(&e, &parsed(&other), &mut cache).unwrap();
    assert_eq!(o, protobuf_page(&e, &parsed(&other)).unwrap());
    assert_eq!(cache.filter_hits, 1);
    protobuf_page_cached(&e, &parsed(&request), &mut cache).unwrap();
    assert_eq!(cache.filter_hits, 1, "the first filter was replaced");
    // Validation is reused: the immutable retained parent is not rechecked
    // (inline parents are, PB-51).
    assert!(cache.validated);
}

/// PB-50: a selection with more selector values than the parent has field
/// facts is scanned uncached, with the same rows.
#[test]
fn selections_larger_than_the_retained_fields_scan_uncached() {
    let e = evidence_from(fixture("grpc-native.har"), fixture("api.pb"), vec![0]);
    let count = e["protobuf"]["fields"].as_array().unwrap().len() as u64;
    let ids: Vec<u64> = (0..count + 10).collect();
    let request = json!({"kind":"protobuf","collection":"fields","field_ids": ids,"limit":64});
    let mut cache = ViewCache::default();
    let page = protobuf_page_cached(&e, &parsed(&request), &mut cache).unwrap();
    assert_eq!(cache.uncached_scans, 1);
    assert!(cache.filter.is_none());
    assert_eq!(page, protobuf_page(&e, &parsed(&request)).unwrap());
    assert!(!rows(&page).is_empty());
    // Again: still uncached, still the same rows.
    let again = protobuf_page_cached(&e, &parsed(&request), &mut cache).unwrap();
    assert_eq!((cache.uncached_scans, cache.filter_hits), (2, 0));
    assert_eq!(again, page);
}
