//! Hand-made Evidence for unit tests only: wraps HAR entries in the
//! Evidence envelope the decoder writes (docs/evidence.md).

use serde_json::{json, Value};

/// A minimal HAR entry with the given request line and response.
pub(crate) fn har_entry(method: &str, url: &str, status: i64, mime: &str) -> Value {
    json!({
        "startedDateTime": "2026-01-01T00:00:00.000Z",
        "time": 1.5,
        "request": {"method": method, "url": url, "httpVersion": "HTTP/1.1", "cookies": [],
                    "headers": [{"name": "Accept", "value": "*/*"}], "queryString": [],
                    "headersSize": -1, "bodySize": 0},
        "response": {"status": status, "statusText": "", "httpVersion": "HTTP/1.1", "cookies": [],
                     "headers": [{"name": "Content-Type", "value": mime}],
                     "content": {"size": 2, "mimeType": mime, "text": "{}"},
                     "redirectURL": "", "headersSize": -1, "bodySize": 2},
        "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}
    })
}

/// The same entry with a request body.
pub(crate) fn with_body(mut entry: Value, mime: &str, text: &str) -> Value {
    entry["request"]["postData"] = json!({"mimeType": mime, "text": text});
    entry
}

/// Complete inspection Evidence holding `entries` in file order.
pub(crate) fn evidence(entries: Vec<Value>) -> Value {
    let total = entries.len();
    let records: Vec<Value> = entries
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            json!({
                "ordinal": i,
                "location": {"kind": "json-pointer", "pointer": format!("/log/entries/{i}")},
                "reported": e,
                "numeric_literals": [],
                "binary_fields": [{"pointer": format!("/log/entries/{i}/response/content/text"),
                                   "encoding": null, "establishes_body_bytes": false,
                                   "size": 2, "sha256": "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"}]
            })
        })
        .collect();
    json!({
        "evidence_version": "rea.evidence/1",
        "operation": "inspect_web_network_capture",
        "subject": format!("sha256:{}", "0".repeat(64)),
        "basis": "observed",
        "parameters": {"format": "har", "record_ordinals": null, "detail": "complete", "sensitive_value_count": 0},
        "artifact": {"path": "t.har", "sha256": "0".repeat(64), "size": 1},
        "capture": {"format": "har", "decoder": {"name": "rea-har", "version": "0.1.0", "profile": "har-1.2", "producer_profile": null}, "container": {"log": {"version": "1.2", "entries": null}},
                    "records_pointer": "/log/entries", "total_records": total, "retained_records": total,
                    "numeric_literals": []},
        "records": records,
        "redactions": [],
        "limitations": [],
        "explanations": []
    })
}

/// Evidence for `(method, url)` pairs answering 200 `application/json`.
pub(crate) fn lines(pairs: &[(&str, &str)]) -> Value {
    evidence(
        pairs
            .iter()
            .map(|(m, u)| har_entry(m, u, 200, "application/json"))
            .collect(),
    )
}

/// Evidence wrapping every entry of a HAR fixture under `tests/fixtures/`
/// (until the real decoder is available to unit tests).
pub(crate) fn fixture(relative: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(relative);
    let har: Value =
        serde_json::from_slice(&std::fs::read(path).expect("fixture")).expect("fixture JSON");
    evidence(
        har["log"]["entries"]
            .as_array()
            .cloned()
            .unwrap_or_default(),
    )
}
