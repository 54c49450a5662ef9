//! The `capture` view: pages over the parent Evidence's records in the
//! parent's order. `preview` shows headline fields, locations and byte
//! descriptors only; `complete` shows whole records with their sidecars.

use crate::budget::{clone_charge, inline_charge, Budget, PROJECTION_BUDGET};
use crate::error::DeriveError;
use crate::source::validate_evidence;
use crate::view::{CaptureView, Detail};
use serde_json::{json, Map, Value};

/// One page of the parent's records.
pub fn capture_page(evidence: &Value, view: &CaptureView) -> Result<Value, DeriveError> {
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

/// Headline fields of one record: never headers, cookies or payloads.
fn preview(record: &Value) -> Value {
    let mut out = Map::new();
    copy(&mut out, "ordinal", record.get("ordinal"));
    if let Some(location) = record.get("location") {
        out.insert("location".into(), location.clone());
    }
    let reported = record.get("reported");
    let request = reported.and_then(|r| r.get("request"));
    let response = reported.and_then(|r| r.get("response"));
    copy(
        &mut out,
        "started_date_time",
        reported.and_then(|r| r.get("startedDateTime")),
    );
    copy(&mut out, "time", reported.and_then(|r| r.get("time")));
    copy(&mut out, "method", request.and_then(|r| r.get("method")));
    copy(&mut out, "url", request.and_then(|r| r.get("url")));
    copy(
        &mut out,
        "http_version",
        request.and_then(|r| r.get("httpVersion")),
    );
    copy(&mut out, "status", response.and_then(|r| r.get("status")));
    copy(
        &mut out,
        "status_text",
        response.and_then(|r| r.get("statusText")),
    );
    copy(
        &mut out,
        "mime_type",
        response
            .and_then(|r| r.get("content"))
            .and_then(|c| c.get("mimeType")),
    );
    copy(
        &mut out,
        "event",
        reported
            .and_then(|r| r.get("name"))
            .filter(|_| request.is_none()),
    );
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

    #[test]
    fn tiny_budget_gives_resource_constraint() {
        let ev = subset();
        let err =
            capture_page_budgeted(&ev, &CaptureView::default(), &mut Budget::new(100)).unwrap_err();
        assert!(matches!(err, DeriveError::ResourceConstraint { .. }));
    }
}
