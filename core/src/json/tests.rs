//! Unit and property tests of the lossless JSON reader.

use super::*;
use proptest::prelude::*;
use serde_json::json;

fn ok(text: &str) -> Parsed {
    parse(text.as_bytes()).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn err(text: &[u8]) -> JsonError {
    parse(text).expect_err("expected a refusal")
}

#[test]
fn reads_like_serde_json_on_plain_documents() {
    let text =
        r#"{"a":[1,-2,3.5,"x\ny",true,false,null,{}],"b":{"c":"\u00e9\ud83d\ude00"}, "d":[]}"#;
    let parsed = ok(text);
    let expected: Value = serde_json::from_str(text).unwrap();
    assert_eq!(parsed.value, expected);
    assert!(parsed.numeric_literals.is_empty());
    assert_eq!(
        serde_json::to_string(&parsed.value).unwrap(),
        serde_json::to_string(&expected).unwrap()
    );
}

#[test]
fn duplicate_keys_rejected() {
    assert_eq!(err(br#"{"a":1,"a":2}"#).kind, JsonErrorKind::DuplicateKey);
}

#[test]
fn duplicate_keys_with_equal_values_rejected() {
    let e = err(br#"{"x":{"a":1,"a":1}}"#);
    assert_eq!(e.kind, JsonErrorKind::DuplicateKey);
    assert_eq!(e.pointer, "/x/a");
}

#[test]
fn escaped_duplicate_keys_rejected() {
    assert_eq!(
        err(br#"{"ab":1,"a\u0062":2}"#).kind,
        JsonErrorKind::DuplicateKey
    );
    assert_eq!(err(br#"{"a/b":1,"a\/b":2}"#).pointer, "/a~1b");
}

#[test]
fn proto_is_an_ordinary_member() {
    let parsed = ok(r#"{"_x":{"__proto__":{"polluted":true}},"y":{}}"#);
    assert_eq!(parsed.value["_x"]["__proto__"], json!({"polluted": true}));
    assert!(parsed.value["y"].as_object().unwrap().is_empty());
}

#[test]
fn nesting_budget_is_64_levels() {
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    assert!(parse(deep(64).as_bytes()).is_ok());
    let e = err(deep(65).as_bytes());
    assert_eq!(e.kind, JsonErrorKind::TooDeep);
    let objects = format!("{}1{}", "{\"a\":".repeat(65), "}".repeat(65));
    assert_eq!(err(objects.as_bytes()).kind, JsonErrorKind::TooDeep);
}

#[test]
fn truncated_and_trailing_text_are_syntax_errors() {
    for text in [
        &b"{\"a\":"[..],
        b"[1,2",
        b"\"abc",
        b"",
        b"  ",
        b"{} x",
        b"[1,]",
        b"{\"a\" 1}",
        b"01",
        b"1.",
        b"-",
        b"1e",
        b"tru",
        b"\"\\x\"",
        b"\"\\ud800\"",
        b"\"a\tb\"",
    ] {
        assert_eq!(
            err(text).kind,
            JsonErrorKind::Syntax,
            "{}",
            String::from_utf8_lossy(text)
        );
    }
}

#[test]
fn invalid_utf8_is_refused_with_its_offset() {
    let e = err(b"{\"a\":\"\xff\"}");
    assert_eq!(e.kind, JsonErrorKind::InvalidUtf8);
    assert_eq!(e.offset, 6);
}

#[test]
fn byte_order_mark_is_skipped() {
    assert_eq!(ok("\u{feff}{\"a\":1}").value, json!({"a": 1}));
}

#[test]
fn safety_follows_lossless_json() {
    for safe in [
        "0",
        "-0",
        "12.50",
        "1e300",
        "9007199254740991",
        "-9007199254740991",
        "0.1",
        "2.300",
        "0.0",
        "1.5e-7",
        "123456789012345.6",
        "1E5",
        "0e-400",
        "66.929100036621094",
        "66.92910003662109400",
        "0.10000000000000001",
        "4.9406564584124654e-324",
        "1.7976931348623157e308",
    ] {
        assert!(is_safe_number(safe), "{safe} should be safe");
    }
    for unsafe_ in [
        "9007199254740992",
        "9007199254740993",
        "-9007199254740993",
        "1e400",
        "-1e400",
        "1e-400",
        "0.1000000000000000055511",
        "123456789012345678901",
        "1.00000000000000000001",
        "66.9291000366210937500001",
        "0.1000000000000000055",
        "abc",
        "",
        "1.",
        "+1",
    ] {
        assert!(!is_safe_number(unsafe_), "{unsafe_} should be unsafe");
    }
}

#[test]
fn unsafe_numbers_are_null_with_their_lexeme() {
    let parsed = ok(
        r#"{"log":{"entries":[{"time":0.1000000000000000055511,"_seq":9007199254740993,"n":[1e400,12.50,3]}]}}"#,
    );
    let entry = &parsed.value["log"]["entries"][0];
    assert_eq!(entry["time"], Value::Null);
    assert_eq!(entry["_seq"], Value::Null);
    assert_eq!(entry["n"], json!([null, 12.5, 3]));
    let lits: Vec<(&str, &str, bool)> = parsed
        .numeric_literals
        .iter()
        .map(|l| (l.pointer.as_str(), l.lexeme.as_str(), l.safe))
        .collect();
    assert_eq!(
        lits,
        vec![
            ("/log/entries/0/time", "0.1000000000000000055511", false),
            ("/log/entries/0/_seq", "9007199254740993", false),
            ("/log/entries/0/n/0", "1e400", false),
            ("/log/entries/0/n/1", "12.50", true),
        ]
    );
}

#[test]
fn every_other_number_keeps_its_spelling() {
    let text = r#"[0,-1,4.648447036743164,1e+300,-0.0,1.0,123,9007199254740991,0.5]"#;
    let parsed = ok(text);
    assert!(
        parsed.numeric_literals.is_empty(),
        "{:?}",
        parsed.numeric_literals
    );
    assert_eq!(serde_json::to_string(&parsed.value).unwrap(), text);
}

#[test]
fn seventeen_digit_spelling_of_a_double_survives_with_its_lexeme() {
    // Some exports write timings with 17 significant digits; ajv +
    // har-schema accept them.
    let parsed = ok(r#"{"time":66.929100036621094}"#);
    assert_eq!(
        parsed.value["time"],
        json!("66.929100036621094".parse::<f64>().unwrap())
    );
    assert_eq!(
        parsed.numeric_literals,
        vec![NumericLiteral {
            pointer: "/time".to_string(),
            lexeme: "66.929100036621094".to_string(),
            safe: true,
        }]
    );
}

#[test]
fn pointers_escape_and_unescape_member_names() {
    let parsed = ok(r#"{"a~b":{"c\/d":{"\u0065":1.50}}}"#);
    assert_eq!(parsed.numeric_literals[0].pointer, "/a~0b/c~1d/e");
}

#[test]
fn deadline_in_the_past_times_out_on_large_input() {
    let text = format!("[{}0]", "0,".repeat(40_000));
    let options = Options {
        deadline: Some(Instant::now()),
    };
    assert_eq!(
        parse_with(text.as_bytes(), options).unwrap_err().kind,
        JsonErrorKind::Timeout
    );
}

#[test]
fn agrees_with_serde_json_on_the_real_fixtures() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures");
    for name in [
        "kinto/dev-a.har",
        "kinto/dev-b.har",
        "kinto/dev-a.playwright.har",
        "formats/api-http1.har",
    ] {
        let bytes = std::fs::read(format!("{root}/{name}")).unwrap();
        let parsed = parse(&bytes).unwrap();
        let plain: Value = serde_json::from_slice(&bytes).unwrap();
        if parsed.numeric_literals.is_empty() {
            assert_eq!(parsed.value, plain, "{name}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let _ = parse(&bytes);
    }

    #[test]
    fn json_ish_text_never_panics(text in r#"[\[\]{}",:0-9eE.+\-a-z\\u \t\n]{0,120}"#) {
        if let Ok(parsed) = parse(text.as_bytes()) {
            // Whatever we accept, serde_json accepts too (it has no duplicate
            // or depth refusal below 128 levels).
            prop_assert!(serde_json::from_str::<Value>(&text).is_ok());
            let _ = parsed;
        }
    }

    /// Every number serde_json writes and reads back unchanged is kept, as
    /// the same double, with no unsafe sidecar.
    #[test]
    fn serde_json_round_trips_are_kept(f in any::<f64>().prop_filter("finite", |f| f.is_finite())) {
        let text = serde_json::to_string(&f).unwrap();
        let back: f64 = serde_json::from_str(&text).unwrap();
        prop_assume!(back.to_bits() == f.to_bits());
        let parsed = parse(text.as_bytes()).unwrap();
        prop_assert_eq!(parsed.value.as_f64().map(f64::to_bits), Some(f.to_bits()));
        prop_assert!(parsed.numeric_literals.iter().all(|l| l.safe), "{:?}", parsed.numeric_literals);
    }

    /// The 17-significant-digit spelling of any double is safe and parses
    /// back to that double, its lexeme kept.
    #[test]
    fn seventeen_digit_spellings_are_kept(f in any::<f64>().prop_filter("finite", |f| f.is_finite())) {
        let text = format!("{f:.16e}");
        prop_assert!(is_safe_number(&text), "{}", text);
        let parsed = parse(text.as_bytes()).unwrap();
        prop_assert_eq!(parsed.value.as_f64().map(f64::to_bits), Some(f.to_bits()));
        prop_assert!(parsed.numeric_literals.iter().all(|l| l.safe && l.lexeme == text));
    }

    #[test]
    fn safe_numbers_round_trip(f in any::<f64>().prop_filter("finite", |f| f.is_finite())) {
        let lexeme = zmij::Buffer::new().format_finite(f).to_string();
        prop_assert!(is_safe_number(&lexeme) || !lexeme.contains(['.', 'e']));
    }
}
