//! The `capture` view: pages over the parent Evidence's records in the
//! parent's order. `preview` shows headline fields, locations and byte
//! descriptors only; `complete` shows whole records with their sidecars.

use crate::budget::{clone_charge, inline_charge, Budget, PROJECTION_BUDGET};
use crate::error::DeriveError;
use crate::source::validate_evidence;
use crate::view::{CaptureView, Detail};
use serde_json::{json, Map, Value};

/// One page of the parent's records.
pub(crate) fn capture_page(evidence: &Value, view: &CaptureView) -> Result<Value, DeriveError> {
    capture_page_budgeted(evidence, view, &mut Budget::new(PROJECTION_BUDGET))
}

pub(crate) fn capture_page_budgeted(
    evidence: &Value,
    view: &CaptureView,
    budget: &mut Budget,
) -> Result<Value, DeriveError> {
    let issues = validate_evidence(evidence);
    if !issues.is_empty() {
        return Err(DeriveError::InvalidEvidence { issues });
    }
    budget.charge(clone_charge(evidence))?;
    let records = evidence
        .get("records")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let total = evidence
        .pointer("/capture/total_records")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let retained = records.len();
    let mut page = Vec::new();
    for record in records.iter().skip(view.offset).take(view.limit) {
        let shown = match view.detail {
            Detail::Preview => preview(record),
            Detail::Complete => record.clone(),
        };
        budget.charge(inline_charge(&shown))?;
        page.push(shown);
    }
    let end = view.offset.saturating_add(page.len());
    let mut limitations: Vec<Value> = Vec::new();
    if (retained as u64) < total {
        limitations.push(json!(format!(
            "The parent Evidence retains {retained} of the capture's {total} records; this view describes only those, \
             and reaching its last page says nothing about the records that were not selected."
        )));
    }
    Ok(json!({
        "view": "capture",
        "detail": match view.detail { Detail::Preview => "preview", Detail::Complete => "complete" },
        "total_records": total,
        "retained_records": retained,
        "coverage": {
            "offset": view.offset,
            "limit": view.limit,
            "returned": page.len(),
            "retained_records": retained,
            "next_offset": if end < retained { json!(end) } else { Value::Null },
            "complete": end >= retained,
        },
        "records": page,
        "limitations": limitations,
    }))
}

fn copy(out: &mut Map<String, Value>, key: &str, value: Option<&Value>) {
    if let Some(v) = value.filter(|v| !v.is_object() && !v.is_array()) {
        out.insert(key.to_string(), v.clone());
    }
}

/// The headline fields a preview shows, each with the reported pointers
/// it may be read from, first present scalar wins. HAR and SAZ records use
/// the HAR names; the alternatives are native spellings (mitmproxy's
/// `status_code`, `reason`, `http_version`). Only scalars are copied, so a
/// preview never carries headers, XML trees or payload content.
const HEADLINE: [(&str, &[&str]); 9] = [
    ("started_date_time", &["/startedDateTime"]),
    ("time", &["/time"]),
    ("method", &["/request/method"]),
    ("url", &["/request/url"]),
    (
        "http_version",
        &["/request/httpVersion", "/request/http_version"],
    ),
    ("status", &["/response/status", "/response/status_code"]),
    ("status_text", &["/response/statusText", "/response/reason"]),
    ("mime_type", &["/response/content/mimeType"]),
    // An event name (qlog), only for records that are not HTTP exchanges.
    ("event", &["/name"]),
];

/// Headline fields of one record: never headers, cookies or payloads.
fn preview(record: &Value) -> Value {
    let mut out = Map::new();
    copy(&mut out, "ordinal", record.get("ordinal"));
    if let Some(location) = record.get("location") {
        out.insert("location".into(), location.clone());
    }
    let reported = record.get("reported");
    let exchange = reported.is_some_and(|r| r.get("request").is_some());
    for (key, pointers) in HEADLINE {
        if key == "event" && exchange {
            continue;
        }
        let found = pointers
            .iter()
            .filter_map(|p| reported.and_then(|r| r.pointer(p)))
            .find(|v| !v.is_object() && !v.is_array());
        copy(&mut out, key, found);
    }
    let bodies: Vec<Value> = record
        .get("binary_fields")
        .and_then(Value::as_array)
        .map(|fields| {
            fields
                .iter()
                .map(|f| {
                    let mut d = Map::new();
                    for key in [
                        "pointer",
                        "encoding",
                        "establishes_body_bytes",
                        "size",
                        "sha256",
                    ] {
                        copy(&mut d, key, f.get(key));
                    }
                    Value::Object(d)
                })
                .collect()
        })
        .unwrap_or_default();
    out.insert("bodies".into(), Value::Array(bodies));
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::{evidence, har_entry};

    fn subset() -> Value {
        let entries: Vec<Value> = (0..5)
            .map(|i| {
                har_entry(
                    "GET",
                    &format!("http://a.example/{i}"),
                    200,
                    "application/json",
                )
            })
            .collect();
        let mut ev = evidence(entries);
        let records = ev["records"].as_array().unwrap().clone();
        ev["records"] = json!([records[2], records[0]]);
        ev["parameters"]["record_ordinals"] = json!([2, 0]);
        ev["capture"]["retained_records"] = json!(2);
        ev
    }

    #[test]
    fn preview_has_headline_fields_and_descriptors_only() {
        let ev = evidence(vec![har_entry(
            "GET",
            "http://a.example/x",
            200,
            "application/json",
        )]);
        let page = capture_page(&ev, &CaptureView::default()).unwrap();
        let r = &page["records"][0];
        assert_eq!(r["method"], "GET");
        assert_eq!(r["url"], "http://a.example/x");
        assert_eq!(r["status"], 200);
        assert_eq!(r["location"]["pointer"], "/log/entries/0");
        assert_eq!(r["bodies"][0]["size"], 2);
        assert!(r["bodies"][0]["sha256"].is_string());
        let text = serde_json::to_string(&page).unwrap();
        assert!(!text.contains("Accept"), "no headers in preview");
        assert!(!text.contains("\"{}\""), "no body text in preview");
    }

    #[test]
    fn complete_pages_carry_sidecars() {
        let ev = evidence(vec![har_entry(
            "GET",
            "http://a.example/x",
            200,
            "application/json",
        )]);
        let view = CaptureView {
            detail: Detail::Complete,
            offset: 0,
            limit: 1,
        };
        let page = capture_page(&ev, &view).unwrap();
        assert_eq!(page["records"][0], ev["records"][0]);
        assert!(page["records"][0]["binary_fields"].is_array());
        assert!(page["records"][0]["numeric_literals"].is_array());
    }

    #[test]
    fn subset_paging_follows_parent_order() {
        let ev = subset();
        let view = CaptureView {
            detail: Detail::Preview,
            offset: 1,
            limit: 1,
        };
        let page = capture_page(&ev, &view).unwrap();
        assert_eq!(page["records"][0]["ordinal"], 0);
        assert_eq!(page["total_records"], 5);
        assert_eq!(page["retained_records"], 2);
        assert_eq!(page["coverage"]["complete"], true);
        assert_eq!(page["coverage"]["retained_records"], 2);
        assert_eq!(page["limitations"].as_array().unwrap().len(), 1);
    }

    /// Real SAZ Evidence, as the inspection writes it.
    fn saz_evidence(ordinals: Option<Vec<u64>>) -> Value {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/formats/saz/httpbin-test.saz"
        );
        let mut request = rea_core::InspectRequest::har(path);
        request.format = "saz".into();
        request.record_ordinals = ordinals;
        serde_json::to_value(rea_core::inspect_web_network_capture(&request).unwrap()).unwrap()
    }

    fn check_schema(page: &Value) {
        let schema: Value =
            serde_json::from_str(include_str!("../../manifests/capture-view.schema.json")).unwrap();
        let validator = jsonschema::validator_for(&schema).unwrap();
        let errors: Vec<String> = validator.iter_errors(page).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{errors:?}");
    }

    #[test]
    fn saz_preview_shows_headlines_and_descriptors_only() {
        // VIEW-04, VIEW-05 on SAZ Evidence.
        let ev = saz_evidence(None);
        let page = capture_page(&ev, &CaptureView::default()).unwrap();
        check_schema(&page);
        let r = &page["records"][5];
        assert_eq!(r["method"], "POST");
        assert_eq!(r["url"], "https://httpbin.org/post");
        assert_eq!(r["http_version"], "HTTP/1.1");
        assert_eq!(r["status"], 200);
        assert_eq!(r["status_text"], "OK");
        assert_eq!(r["location"]["kind"], "archive-members");
        assert!(r.get("event").is_none());
        let pointers: Vec<&str> = r["bodies"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["pointer"].as_str().unwrap())
            .collect();
        assert_eq!(
            pointers,
            ["/sessions/5/request/body", "/sessions/5/response/body"]
        );
        let text = page.to_string();
        for absent in [
            "\"headers\"",
            "\"metadata\"",
            "SessionFlag",
            "base64",
            "\"body\"",
        ] {
            assert!(!text.contains(absent), "preview holds {absent}");
        }
    }

    #[test]
    fn saz_complete_pages_are_the_records_with_sidecars() {
        // VIEW-06, VIEW-07 on SAZ Evidence.
        let ev = saz_evidence(Some(vec![3, 1]));
        let view = CaptureView {
            detail: Detail::Complete,
            offset: 1,
            limit: 1,
        };
        let page = capture_page(&ev, &view).unwrap();
        check_schema(&page);
        assert_eq!(page["records"][0], ev["records"][1]);
        assert_eq!(page["records"][0]["ordinal"], 1);
        assert!(page["records"][0]["binary_fields"][0]["base64"].is_string());
        assert_eq!(
            (
                page["total_records"].as_u64(),
                page["retained_records"].as_u64()
            ),
            (Some(6), Some(2))
        );
    }

    #[test]
    fn native_spellings_and_events_are_headlines_too() {
        let record = json!({"ordinal": 0, "location": {"kind": "unknown"},
            "reported": {"request": {"method": "GET", "http_version": "HTTP/2.0", "headers": [["a", "b"]]},
                         "response": {"status_code": 204, "reason": "No Content", "content": "x"}},
            "numeric_literals": [], "binary_fields": []});
        let p = preview(&record);
        assert_eq!(p["http_version"], "HTTP/2.0");
        assert_eq!(p["status"], 204);
        assert_eq!(p["status_text"], "No Content");
        assert!(!p.to_string().contains("headers"));
        let event = json!({"ordinal": 3, "reported": {"time": 1.5, "name": "quic:packet_sent", "data": {"x": 1}}});
        let p = preview(&event);
        assert_eq!(
            (p["event"].as_str(), p["time"].as_f64()),
            (Some("quic:packet_sent"), Some(1.5))
        );
        assert!(p.get("data").is_none());
    }

    #[test]
    fn tiny_budget_gives_resource_constraint() {
        let ev = subset();
        let err =
            capture_page_budgeted(&ev, &CaptureView::default(), &mut Budget::new(100)).unwrap_err();
        assert!(matches!(err, DeriveError::ResourceConstraint { .. }));
    }
}
