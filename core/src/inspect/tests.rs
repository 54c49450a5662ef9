//! Tests of the inspection operation on the real fixtures and small inputs.

use super::*;
use crate::error::Category;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures")).join(name)
}

#[test]
fn inspects_every_record_of_a_real_capture() {
    let evidence =
        inspect_web_network_capture(&InspectRequest::har(fixture("kinto/dev-a.har"))).unwrap();
    assert_eq!(evidence.capture.total_records, 40);
    assert_eq!(evidence.records.len(), 40);
    assert_eq!(evidence.capture.container["log"]["entries"], Value::Null);
    assert!(evidence
        .redactions
        .iter()
        .any(|r| r.pointer.ends_with("/value")));
    let first = &evidence.records[0];
    assert_eq!(
        first.location,
        Location::JsonPointer {
            pointer: "/log/entries/0".into()
        }
    );
}

#[test]
fn selection_keeps_caller_order() {
    let mut request = InspectRequest::har(fixture("kinto/dev-a.har"));
    request.record_ordinals = Some(vec![2, 0]);
    let evidence = inspect_web_network_capture(&request).unwrap();
    let ordinals: Vec<u64> = evidence.records.iter().map(|r| r.ordinal).collect();
    assert_eq!(ordinals, vec![2, 0]);
    assert_eq!(evidence.capture.retained_records, 2);
}

#[test]
fn format_is_checked_before_the_file() {
    let mut request = InspectRequest::har("/nonexistent/x.har");
    request.format = "pcap".into();
    assert_eq!(
        inspect_web_network_capture(&request).unwrap_err().code,
        "unknown_format"
    );
    // Every format the spec names is decoded: a missing file is a read
    // failure, not a format refusal.
    for format in ["mitmproxy", "saz", "qlog"] {
        request.format = format.into();
        let e = inspect_web_network_capture(&request).unwrap_err();
        assert_eq!(
            (e.code.as_str(), e.category),
            ("capture_not_found", Category::Input),
            "{format}"
        );
    }
}
