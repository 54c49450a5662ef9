//! Decoder tests on small hand-built documents.

use super::*;

fn har(entries: &str) -> String {
    format!(
        r#"{{"log":{{"version":"1.2","creator":{{"name":"t","version":"1"}},"entries":[{entries}]}}}}"#
    )
}

fn entry(extra: &str) -> String {
    format!(
        r#"{{"startedDateTime":"2026-01-01T00:00:00Z","time":1,"request":{{"method":"GET","url":"http://h.example/","httpVersion":"HTTP/1.1","cookies":[],"headers":[],"queryString":[],"headersSize":-1,"bodySize":0}},"response":{{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","cookies":[],"headers":[],"content":{{"size":2,"mimeType":"text/plain"{extra}}},"redirectURL":"","headersSize":-1,"bodySize":2}},"cache":{{}},"timings":{{"send":0,"wait":1,"receive":0}}}}"#
    )
}

#[test]
fn decodes_a_minimal_capture() {
    let text = har(&entry(r#","text":"aGk=","encoding":"base64""#));
    let decoded = decode(text.as_bytes(), None).unwrap();
    assert_eq!(decoded.doc["log"]["entries"].as_array().unwrap().len(), 1);
}

#[test]
fn non_canonical_base64_is_a_validation_error() {
    for bad in ["aGk", "aGl=", "a Gk=", "!!!!"] {
        let text = har(&entry(&format!(r#","text":"{bad}","encoding":"base64""#)));
        let e = decode(text.as_bytes(), None).unwrap_err();
        assert_eq!(e.code, "har_validation_failed", "{bad}");
        assert_eq!(
            e.details["issues"][0]["pointer"],
            "/log/entries/0/response/content/text"
        );
    }
}

#[test]
fn har_1_1_is_read_and_other_versions_are_unsupported() {
    for version in ["1.1", ""] {
        let text = har(&entry("")).replace("\"1.2\"", &format!("{version:?}"));
        assert!(decode(text.as_bytes(), None).is_ok(), "{version:?}");
    }
    for version in ["1.3", "2.0", "1.1 ", "1"] {
        let text = har("").replace("\"1.2\"", &format!("{version:?}"));
        let e = decode(text.as_bytes(), None).unwrap_err();
        assert_eq!(
            (e.code.as_str(), e.category),
            ("har_version_unsupported", Category::Unsupported),
            "{version:?}"
        );
    }
}

#[test]
fn per_entry_mode_leaves_out_only_the_bad_entries() {
    let bad = entry("").replace(r#""method":"GET","#, "");
    let text = har(&format!("{},{bad},{}", entry(""), entry("")));
    let strict = decode(text.as_bytes(), None).unwrap_err();
    assert_eq!(strict.code, "har_validation_failed");
    let (decoded, left_out) = decode_with(text.as_bytes(), None, Mode::PerEntry).unwrap();
    assert_eq!(decoded.doc["log"]["entries"].as_array().unwrap().len(), 3);
    assert_eq!(left_out.len(), 1);
    assert_eq!(left_out[0].ordinal, 1);
    assert_eq!(left_out[0].pointer, "/log/entries/1");
    assert_eq!(left_out[0].issues[0].pointer, "/log/entries/1/request");
    assert!(
        left_out[0].reason().contains("\"method\" is missing"),
        "{}",
        left_out[0].reason()
    );
    // A finding outside the entries still refuses the capture.
    let text = text.replace(r#""creator":{"name":"t","version":"1"},"#, "");
    let e = decode_with(text.as_bytes(), None, Mode::PerEntry).unwrap_err();
    assert_eq!(e.code, "har_validation_failed");
}

#[test]
fn an_unsafe_number_is_never_an_unknown_size() {
    // Firefox's profile reads `headersSize: null` as unknown; an unsafe
    // number read as null in that field still fails (EVD-09).
    let text = har(&entry(""))
        .replace(
            r#""name":"t","version":"1""#,
            r#""name":"Firefox","version":"111.0""#,
        )
        .replacen(
            r#""headersSize":-1"#,
            r#""headersSize":9007199254740993"#,
            1,
        );
    let e = decode(text.as_bytes(), None).unwrap_err();
    assert_eq!(
        e.details["issues"][0]["pointer"],
        "/log/entries/0/request/headersSize"
    );
    let text = text.replace("9007199254740993", "null");
    assert!(decode(text.as_bytes(), None).is_ok());
}

#[test]
fn non_har_files_are_named() {
    let e = decode(b"PK\x03\x04\x14\x00raw/1_c.txt", None).unwrap_err();
    assert_eq!(e.code, "capture_format_mismatch");
    assert_eq!(e.details["detected_format"], "saz");
    let e = decode(&[0x0a, 0x0d, 0x0d, 0x0a, 1, 2, 3], None).unwrap_err();
    assert_eq!(e.details["detected_format"], "pcapng");
}

#[test]
fn json_errors_map_to_codes() {
    let cases: [(&[u8], &str); 4] = [
        (br#"{"log":{"a":1,"a":1}}"#, "duplicate_key"),
        (b"{\"log\":", "invalid_json"),
        (b"{\"log\":\"\xc3\x28\"}", "invalid_utf8"),
        (b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", "nesting_too_deep"),
    ];
    for (bytes, code) in cases {
        let e = decode(bytes, None).unwrap_err();
        assert_eq!(e.code, code);
        assert_eq!(e.category, Category::Input);
    }
}

#[test]
fn record_of_reads_entry_ordinals() {
    assert_eq!(
        numeric_literals::record_of("/log/entries/12/time"),
        Some(12)
    );
    assert_eq!(numeric_literals::record_of("/log/entries/012/time"), None);
    assert_eq!(numeric_literals::record_of("/log/pages/0/x"), None);
}

#[test]
fn an_expired_deadline_is_capture_timeout() {
    let text = har(&entry(""));
    let e = decode(text.as_bytes(), Some(Instant::now())).unwrap_err();
    assert_eq!(
        (e.code.as_str(), e.category),
        ("capture_timeout", Category::ResourceConstraint)
    );
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let _ = decode(&bytes, None);
        }

        #[test]
        fn mutated_captures_never_panic(at in 0usize..2000, byte in any::<u8>(), cut in 0usize..2000) {
            let text = har(&entry(r#","text":"aGk=","encoding":"base64""#));
            let mut bytes = text.into_bytes();
            let at = at % bytes.len();
            bytes[at] = byte;
            bytes.truncate(bytes.len() - cut % 8);
            let _ = decode(&bytes, None);
        }
    }
}
