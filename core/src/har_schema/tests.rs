//! Unit tests of HAR validation: the producer profiles (HAR-10..HAR-16),
//! unsafe numbers (EVD-09) and the ajv-formats format checks.

use super::formats;
use super::*;
use serde_json::json;

/// A minimal valid HAR 1.2 document with one entry.
fn har(creator: Value, entry: Value) -> Value {
    json!({"log": {"version": "1.2", "creator": creator, "entries": [entry]}})
}

fn entry() -> Value {
    json!({
        "startedDateTime": "2026-01-02T03:04:05.678Z",
        "time": 12.5,
        "request": {
            "method": "POST", "url": "http://127.0.0.1:8888/v1/buckets", "httpVersion": "HTTP/1.1",
            "cookies": [], "headers": [], "queryString": [], "headersSize": -1, "bodySize": 0,
            "postData": {"mimeType": "application/json", "text": "{}"}
        },
        "response": {
            "status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [], "headers": [],
            "content": {"size": 2, "mimeType": "application/json", "text": "{}"},
            "redirectURL": "", "headersSize": -1, "bodySize": 2
        },
        "cache": {},
        "timings": {"send": 0, "wait": 1.5, "receive": 0.25},
        "serverIPAddress": "127.0.0.1"
    })
}

fn mitmproxy() -> Value {
    json!({"name": "mitmproxy", "version": "12.2.3", "comment": ""})
}

fn playwright(version: &str) -> Value {
    json!({"name": "Playwright", "version": version})
}

fn with_post_text(text: Value) -> Value {
    let mut e = entry();
    e["request"]["postData"]["text"] = text;
    e
}

fn with_address(address: &str) -> Value {
    let mut e = entry();
    e["serverIPAddress"] = json!(address);
    e
}

fn pointers(result: Result<Option<ProducerProfile>, Vec<SchemaIssue>>) -> Vec<String> {
    match result {
        Ok(profile) => panic!("expected a validation failure, got Ok({profile:?})"),
        Err(issues) => issues.into_iter().map(|i| i.pointer).collect(),
    }
}

#[test]
fn minimal_document_is_valid_without_profile() {
    let doc = har(json!({"name": "rea-test", "version": "140.0"}), entry());
    assert_eq!(validate_har(&doc), Ok(None));
    let doc = har(json!({"name": "Firefox", "version": "140.0"}), entry());
    assert_eq!(validate_har(&doc), Ok(Some(ProducerProfile::Firefox)));
    assert!(matches!(validation_copy(&doc), Cow::Borrowed(_)));
}

#[test]
fn missing_request_method_fails_har_01() {
    let mut e = entry();
    e["request"].as_object_mut().unwrap().shift_remove("method");
    let doc = har(json!({"name": "x", "version": "1"}), e);
    let issues = validate_har(&doc).unwrap_err();
    assert_eq!(issues.len(), 1);
    assert_eq!(issues[0].pointer, "/log/entries/0/request");
    assert_eq!(issues[0].keyword, "required");
    assert!(
        issues[0].message.contains("\"method\""),
        "{}",
        issues[0].message
    );
}

#[test]
fn mitmproxy_null_post_text_is_valid_for_exact_creator_har_10() {
    let doc = har(mitmproxy(), with_post_text(Value::Null));
    assert_eq!(
        validate_har(&doc),
        Ok(Some(ProducerProfile::MitmproxySaveHar))
    );
    // The reported document is untouched: the null is still there.
    assert_eq!(
        doc["log"]["entries"][0]["request"]["postData"]["text"],
        Value::Null
    );
    // Only the validation copy leaves the member out.
    let copy = validation_copy(&doc);
    assert!(matches!(copy, Cow::Owned(_)));
    assert!(copy["log"]["entries"][0]["request"]["postData"]
        .get("text")
        .is_none());
    assert!(schema_issues(&copy).is_empty());
}

#[test]
fn mitmproxy_profile_invents_no_text_har_11() {
    let doc = har(mitmproxy(), with_post_text(Value::Null));
    let copy = validation_copy(&doc);
    let post_data = &copy["log"]["entries"][0]["request"]["postData"];
    assert_eq!(post_data, &json!({"mimeType": "application/json"}));
}

#[test]
fn null_post_text_fails_outside_the_mitmproxy_profile_har_12() {
    for creator in [
        json!({"name": "Firefox", "version": "140.0"}),
        json!({"name": "mitmproxy", "version": "9.0.1"}),
        json!({"name": "mitmproxy", "version": "13.0.0"}),
        json!({"name": "mitmproxy", "version": "dev"}),
        json!({"name": "Mitmproxy", "version": "12.2.3"}),
        playwright("1.58.2"),
    ] {
        let doc = har(creator.clone(), with_post_text(Value::Null));
        assert_eq!(
            pointers(validate_har(&doc)),
            ["/log/entries/0/request/postData/text"],
            "{creator}"
        );
        assert!(matches!(validation_copy(&doc), Cow::Borrowed(_)));
    }
}

#[test]
fn mitmproxy_profile_covers_versions_10_to_12() {
    for version in ["10.0.0", "11.1.3", "12.2.3", "12.2.4", "12.9"] {
        let doc = har(
            json!({"name": "mitmproxy", "version": version}),
            with_post_text(Value::Null),
        );
        assert_eq!(
            validate_har(&doc),
            Ok(Some(ProducerProfile::MitmproxySaveHar)),
            "{version}"
        );
    }
}

#[test]
fn mitmproxy_profile_relaxes_only_null_text() {
    // A non-string, non-null text still fails under the profile.
    let doc = har(mitmproxy(), with_post_text(json!(5)));
    assert_eq!(
        pointers(validate_har(&doc)),
        ["/log/entries/0/request/postData/text"]
    );
    // A null response content text is not relaxed.
    let mut e = with_post_text(Value::Null);
    e["response"]["content"]["text"] = Value::Null;
    let doc = har(mitmproxy(), e);
    assert_eq!(
        pointers(validate_har(&doc)),
        ["/log/entries/0/response/content/text"]
    );
}

#[test]
fn playwright_bracketed_ipv6_is_valid_har_13() {
    for address in ["[2001:db8::1]", "[::1]", "[::ffff:127.0.0.1]", "[FE80::1]"] {
        let doc = har(playwright("1.58.2"), with_address(address));
        assert_eq!(
            validate_har(&doc),
            Ok(Some(ProducerProfile::Playwright)),
            "{address}"
        );
        assert_eq!(doc["log"]["entries"][0]["serverIPAddress"], json!(address));
        let copy = validation_copy(&doc);
        assert_eq!(
            copy["log"]["entries"][0]["serverIPAddress"],
            json!(&address[1..address.len() - 1])
        );
    }
}

#[test]
fn bracketed_ipv6_fails_for_other_producers_har_14() {
    for creator in [
        playwright("1.57.0"),
        playwright("2.0.0"),
        json!({"name": "playwright", "version": "1.58.2"}),
        mitmproxy(),
        json!({"name": "Firefox", "version": "140.0"}),
    ] {
        let doc = har(creator.clone(), with_address("[::1]"));
        assert_eq!(
            pointers(validate_har(&doc)),
            ["/log/entries/0/serverIPAddress"],
            "{creator}"
        );
    }
}

#[test]
fn playwright_profile_keeps_bad_addresses_failing_har_15() {
    for address in [
        "[127.0.0.1]",
        "[::1]:443",
        "[fe80::1%eth0]",
        "[::g]",
        "[]",
        "[[::1]]",
        "[::1",
        "::1]",
        "[ ::1]",
        "[2001:db8::1]\n",
    ] {
        let doc = har(playwright("1.58.2"), with_address(address));
        assert_eq!(
            pointers(validate_har(&doc)),
            ["/log/entries/0/serverIPAddress"],
            "{address}"
        );
        assert!(
            matches!(validation_copy(&doc), Cow::Borrowed(_)),
            "{address}"
        );
    }
}

#[test]
fn producer_declaration_only_selects_a_profile_har_16() {
    assert_eq!(
        ProducerProfile::MitmproxySaveHar.id(),
        "mitmproxy-savehar-10-12"
    );
    assert_eq!(ProducerProfile::Playwright.id(), "playwright-1");
    // A hand-written file that claims Playwright 1.58.2 gets the profile,
    // whatever its content looks like; the answer is only a profile choice.
    let doc = har(playwright("1.58.2"), entry());
    assert_eq!(validate_har(&doc), Ok(Some(ProducerProfile::Playwright)));
    assert!(matches!(validation_copy(&doc), Cow::Borrowed(_)));
}

#[test]
fn playwright_brackets_hold_for_later_1x_versions() {
    for version in ["1.58.2", "1.59.0", "1.65.1"] {
        let doc = har(playwright(version), with_address("[2001:db8::1]"));
        assert_eq!(
            validate_har(&doc),
            Ok(Some(ProducerProfile::Playwright)),
            "{version}"
        );
    }
}

#[test]
fn versions_are_read_from_the_creator_text() {
    assert_eq!(
        numeric_version("insomnia.desktop.app:v2022.1.1"),
        Some(vec![2022, 1, 1])
    );
    assert_eq!(numeric_version("1.5X.0b8"), Some(vec![1, 5]));
    assert_eq!(numeric_version("537.36"), Some(vec![537, 36]));
    assert_eq!(numeric_version("dev"), None);
    assert_eq!(numeric_version("99999999999999999999999"), None);
    let range = ProducerProfile::MitmproxySaveHar.versions();
    assert!(range.contains(&[10]) && range.contains(&[12, 99]) && !range.contains(&[13]));
    assert!(!range.contains(&[9, 9, 9]));
}

/// One malformed shape per quirk, as the producer that needs it writes it.
fn quirk_case(quirk: Quirk) -> Value {
    let mut doc = har(json!({"name": "?", "version": "0"}), entry());
    let e = &mut doc["log"]["entries"][0];
    match quirk {
        Quirk::NullPostDataText => e["request"]["postData"]["text"] = Value::Null,
        Quirk::BracketedIpv6Address => e["serverIPAddress"] = json!("[2001:db8::1]"),
        Quirk::DecoratedServerAddress => e["serverIPAddress"] = json!("[fe80::1%en0]:443"),
        Quirk::NullStrings => {
            e["response"]["redirectURL"] = Value::Null;
            e["response"]["statusText"] = Value::Null;
            e["request"]["cookies"] = json!([{"name": "a", "value": "b", "comment": null}]);
        }
        Quirk::UnknownSizes => {
            e["request"]["headersSize"] = Value::Null;
            e["response"]
                .as_object_mut()
                .unwrap()
                .shift_remove("headersSize");
            e["response"]["content"]
                .as_object_mut()
                .unwrap()
                .shift_remove("size");
        }
        Quirk::EmptyTimings => e["timings"] = json!({}),
        Quirk::ForeignCacheEntries => {
            e["cache"] =
                json!({"afterRequest": {"expires": "1", "lastFetched": "", "fetchCount": ""}})
        }
        Quirk::NullPages => doc["log"]["pages"] = Value::Null,
        Quirk::ArrayHeaderValues => {
            e["response"]["headers"] = json!([{"name": "set-cookie", "value": ["a=1", "b=2"]}])
        }
        Quirk::RawUrlCharacters => e["request"]["url"] = json!("http://h.example/a/{id}?f[0]=1"),
    }
    doc
}

/// The creator a profile is declared with, at a version its quirks cover.
fn creator_of(profile: ProducerProfile) -> Value {
    let version = match profile {
        ProducerProfile::ChromiumDevTools => "537.36",
        ProducerProfile::Firefox => "111.0.1",
        ProducerProfile::WebKit => "1.0",
        ProducerProfile::Charles => "4.6.3",
        ProducerProfile::Fiddler => "2.3.0.0",
        ProducerProfile::Insomnia => "insomnia.desktop.app:v2022.1.1",
        ProducerProfile::BrowserMob => "2.1.4",
        ProducerProfile::ChromeHar => "0.3.2",
        ProducerProfile::PollyJs => "1.2.0",
        ProducerProfile::MitmproxySaveHar => "12.2.3",
        ProducerProfile::Playwright => "1.58.2",
    };
    json!({"name": profile.names()[0], "version": version})
}

#[test]
fn each_quirk_passes_only_for_the_profiles_that_have_it() {
    for quirk in Quirk::ALL {
        let mut unprofiled = quirk_case(quirk);
        unprofiled["log"]["creator"] = json!({"name": "rea-test", "version": "1"});
        assert!(
            validate_har(&unprofiled).is_err(),
            "{} without a profile",
            quirk.name()
        );
        for profile in ProducerProfile::ALL {
            let mut doc = quirk_case(quirk);
            doc["log"]["creator"] = creator_of(profile);
            // Decorated addresses include bracketed ones.
            let has = profile.quirks().iter().any(|(q, _)| {
                *q == quirk
                    || (quirk == Quirk::BracketedIpv6Address && *q == Quirk::DecoratedServerAddress)
            });
            assert_eq!(
                validate_har(&doc).is_ok(),
                has,
                "{} under {}: {:?}",
                quirk.name(),
                profile.id(),
                validate_har(&doc)
            );
            if has {
                // The reported document keeps what the producer wrote.
                assert_eq!(doc, {
                    let mut d = quirk_case(quirk);
                    d["log"]["creator"] = creator_of(profile);
                    d
                });
                assert!(!profile.relaxed_pointers(&doc).is_empty());
            }
        }
    }
}

#[test]
fn entry_by_entry_relaxation_equals_the_whole_copy() {
    let fiddler = creator_of(ProducerProfile::Fiddler);
    let mut doc = har(fiddler, entry());
    doc["log"]["pages"] = Value::Null;
    let entries = doc["log"]["entries"].as_array_mut().unwrap();
    entries.push(with_address("[::1]:443"));
    entries.push(with_address("[127.0.0.1]"));
    let mut no_method = with_address("");
    no_method["request"]
        .as_object_mut()
        .unwrap()
        .shift_remove("method");
    entries.push(no_method);
    entries.push(json!(7));
    let issues = validate_har(&doc).unwrap_err();
    assert_eq!(issues, schema_issues(&validation_copy(&doc)));
    assert_eq!(
        issues
            .iter()
            .map(|i| i.pointer.as_str())
            .collect::<Vec<_>>(),
        [
            "/log/entries/2/serverIPAddress",
            "/log/entries/3/request",
            "/log/entries/4"
        ]
    );
    // And with a failure outside the entries.
    doc["log"]["creator"]["comment"] = json!(5);
    let issues = validate_har(&doc).unwrap_err();
    assert_eq!(issues, schema_issues(&validation_copy(&doc)));
    assert_eq!(issues[0].pointer, "/log/creator/comment");
}

#[test]
fn decorated_addresses_relax_only_valid_addresses() {
    let chrome = creator_of(ProducerProfile::ChromiumDevTools);
    for (address, bare) in [
        ("", None),
        ("[::1]", Some("::1")),
        ("fe80::1%en0", Some("fe80::1")),
        ("[fe80::1%25eth0]", Some("fe80::1")),
        ("10.0.0.1:8080", Some("10.0.0.1")),
        ("[2001:db8::1]:443", Some("2001:db8::1")),
    ] {
        let doc = har(chrome.clone(), with_address(address));
        assert!(validate_har(&doc).is_ok(), "{address:?}");
        let copy = validation_copy(&doc);
        assert_eq!(
            copy["log"]["entries"][0].get("serverIPAddress"),
            bare.map(|b| json!(b)).as_ref(),
            "{address:?}"
        );
    }
    for bad in [
        "[127.0.0.1]",
        "[::g]",
        "host.example",
        "10.0.0.1:99999",
        "10.0.0.1:",
        "fe80::1%",
        "fe80::1%e n",
        "[::1]x",
        " ",
        "::1:443x",
    ] {
        let doc = har(chrome.clone(), with_address(bad));
        assert_eq!(
            pointers(validate_har(&doc)),
            ["/log/entries/0/serverIPAddress"],
            "{bad:?}"
        );
    }
}

#[test]
fn raw_url_characters_are_encoded_only_after_the_authority() {
    let chrome = creator_of(ProducerProfile::ChromiumDevTools);
    let mut e = entry();
    e["request"]["url"] = json!("http://h.example/a/{id}|x?f[0]=^1#`");
    let doc = har(chrome.clone(), e);
    assert!(validate_har(&doc).is_ok());
    assert_eq!(
        validation_copy(&doc)["log"]["entries"][0]["request"]["url"],
        "http://h.example/a/%7Bid%7D%7Cx?f%5B0%5D=%5E1#%60"
    );
    for bad in [
        "http://h.example/a b",
        "http://h.example/\u{e9}",
        "http://{h}.example/",
        "/relative/{x}",
        "http://h.example/%zz{",
    ] {
        let mut e = entry();
        e["request"]["url"] = json!(bad);
        assert!(validate_har(&har(chrome.clone(), e)).is_err(), "{bad:?}");
    }
}

#[test]
fn unsafe_number_nulled_fails_in_standard_field_evd_09() {
    // `"bodySize": 9007199254740993` arrives here as null.
    let mut e = entry();
    e["request"]["bodySize"] = Value::Null;
    let doc = har(mitmproxy(), e);
    let issues = validate_har(&doc).unwrap_err();
    assert_eq!(issues.len(), 1);
    assert_eq!(issues[0].pointer, "/log/entries/0/request/bodySize");
    assert_eq!(issues[0].keyword, "type");
    assert_eq!(issues[0].message, "expected integer, found null");
}

#[test]
fn unsafe_number_nulled_survives_in_extension() {
    let mut e = entry();
    e["_transferSize"] = Value::Null;
    e["response"]["_extra"] = json!({"n": null});
    let doc = har(mitmproxy(), e);
    assert_eq!(
        validate_har(&doc),
        Ok(Some(ProducerProfile::MitmproxySaveHar))
    );
}

#[test]
fn issues_come_in_document_order() {
    let mut e = entry();
    e["serverIPAddress"] = json!("nope");
    e["request"]["url"] = json!("not a uri");
    e["startedDateTime"] = json!("yesterday");
    e["response"]["status"] = json!("200");
    let doc = har(json!({"name": 1, "version": "1"}), e);
    let issues = validate_har(&doc).unwrap_err();
    let got: Vec<(&str, &str)> = issues
        .iter()
        .map(|i| (i.pointer.as_str(), i.keyword.as_str()))
        .collect();
    let at = |p: &str| got.iter().position(|(q, _)| *q == p).unwrap();
    assert!(at("/log/creator/name") < at("/log/entries/0/startedDateTime"));
    assert!(at("/log/entries/0/startedDateTime") < at("/log/entries/0/request/url"));
    assert!(at("/log/entries/0/request/url") < at("/log/entries/0/response/status"));
    assert!(at("/log/entries/0/response/status") < at("/log/entries/0/serverIPAddress"));
    // startedDateTime fails both its format and its pattern.
    let started: Vec<&str> = got
        .iter()
        .filter(|(p, _)| *p == "/log/entries/0/startedDateTime")
        .map(|(_, k)| *k)
        .collect();
    assert_eq!(started.len(), 2, "{got:?}");
    assert!(started.contains(&"format") && started.contains(&"pattern"));
}

#[test]
fn messages_never_repeat_the_value() {
    let mut e = entry();
    e["request"]["url"] = json!("s3cret value");
    e["request"]["headers"] = json!([{"name": "x", "value": {"token": "s3cret"}}]);
    let doc = har(mitmproxy(), e);
    for issue in validate_har(&doc).unwrap_err() {
        assert!(!issue.message.contains("s3cret"), "{issue:?}");
    }
}

#[test]
fn non_object_documents_fail_without_panicking() {
    for doc in [
        json!(null),
        json!([]),
        json!("har"),
        json!({"log": []}),
        json!({}),
    ] {
        assert!(validate_har(&doc).is_err(), "{doc}");
        assert!(matches!(validation_copy(&doc), Cow::Borrowed(_)));
    }
}

#[test]
fn date_time_matches_ajv_formats() {
    for ok in [
        "2026-01-02T03:04:05Z",
        "2026-01-02t03:04:05.123456789z",
        "2026-01-02 03:04:05+01:00",
        "2026-01-02\u{a0}03:04:05+0100",
        "2026-01-02\u{3000}03:04:05-05",
        "2024-02-29T00:00:00Z",
        "2000-02-29T00:00:00Z",
        "2026-06-30T23:59:60Z",
        "2026-06-30T23:59:60.999Z",
        "2026-07-01T00:59:60+01:00",
        "2026-06-30T22:59:60-01:00",
    ] {
        assert!(formats::date_time(ok), "{ok}");
    }
    for bad in [
        "2026-01-02T03:04:05",
        "2026-01-02T03:04Z",
        "2026-01-02",
        "2026-01-02TT03:04:05Z",
        "2026-01-02T03:04:05Zt",
        "2023-02-29T00:00:00Z",
        "1900-02-29T00:00:00Z",
        "2026-13-01T00:00:00Z",
        "2026-00-01T00:00:00Z",
        "2026-01-00T00:00:00Z",
        "2026-04-31T00:00:00Z",
        "2026-01-02T24:00:00Z",
        "2026-01-02T23:60:00Z",
        "2026-01-02T22:59:60Z",
        "2026-01-02T23:59:61Z",
        "2026-01-02T03:04:05+24:00",
        "2026-01-02T03:04:05+01:60",
        "2026-01-02\u{85}03:04:05Z",
        "\u{661}026-01-02T03:04:05Z",
        "2026-01-02T03:04:05.Z",
        "2026-01-02T03:04:05Z\n",
    ] {
        assert!(!formats::date_time(bad), "{bad:?}");
    }
}

#[test]
fn ip_formats_match_ajv_formats() {
    for ok in ["0.0.0.0", "255.255.255.255", "10.0.0.1"] {
        assert!(formats::ipv4(ok), "{ok}");
    }
    for bad in [
        "256.0.0.1",
        "01.2.3.4",
        "1.2.3",
        "1.2.3.4 ",
        "[1.2.3.4]",
        "\u{661}.2.3.4",
    ] {
        assert!(!formats::ipv4(bad), "{bad:?}");
    }
    for ok in [
        "::",
        "::1",
        "2001:DB8::1",
        "1:2:3:4:5:6:7:8",
        "1:2:3:4:5:6:7::",
        "::ffff:1.2.3.4",
    ] {
        assert!(formats::ipv6(ok), "{ok}");
    }
    for bad in [
        "",
        ":::",
        "::g",
        "fe80::1%eth0",
        "[::1]",
        "1:2:3:4:5:6:7:8:9",
        "::1:",
        "1.2.3.4",
    ] {
        assert!(!formats::ipv6(bad), "{bad:?}");
    }
}

#[test]
fn uri_matches_ajv_formats() {
    for ok in [
        "http://127.0.0.1:8888/v1/buckets?_limit=10#x",
        "https://[2001:db8::1]:443/a",
        "urn:isbn:0451450523",
        "mailto:someone@example.com",
        "HTTP://EXAMPLE.COM/%7Efoo",
    ] {
        assert!(formats::uri(ok), "{ok}");
    }
    for bad in [
        "not a uri",
        "/relative/path",
        "example.com",
        "http://exa mple.com/",
        "http://example.com/\u{e9}",
        "http://example.com/%zz",
        "1http://x/",
        "http://example.com/{x}",
        "http://\u{212a}.com/",
    ] {
        assert!(!formats::uri(bad), "{bad:?}");
    }
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    fn leaf() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            ".{0,12}".prop_map(Value::String),
            "\\[?[0-9a-fA-F:.%]{0,12}\\]?".prop_map(Value::String),
        ]
    }

    fn value() -> impl Strategy<Value = Value> {
        leaf().prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec(
                    (
                        prop_oneof![
                            Just("log".to_string()),
                            Just("entries".to_string()),
                            Just("creator".to_string()),
                            Just("request".to_string()),
                            Just("postData".to_string()),
                            Just("text".to_string()),
                            Just("serverIPAddress".to_string()),
                            "[a-z~/]{0,6}",
                        ],
                        inner
                    ),
                    0..5
                )
                .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn validation_never_panics_and_agrees_with_the_copy(doc in value()) {
            let verdict = validate_har(&doc);
            let copy = validation_copy(&doc);
            prop_assert_eq!(verdict.is_ok(), schema_issues(&copy).is_empty());
        }

        #[test]
        fn formats_never_panic(s in ".{0,40}") {
            let _ = (formats::date_time(&s), formats::ipv4(&s), formats::ipv6(&s), formats::uri(&s));
        }

        /// A profile only ever removes issues located at a field it relaxed
        /// (or at the object missing a member it filled in): whatever else
        /// is wrong fails under every profile as without one.
        #[test]
        fn profiles_remove_only_issues_at_their_relaxed_fields(
            values in prop::collection::vec(leaf(), 12),
            profile in 0..ProducerProfile::ALL.len(),
        ) {
            let sites = [
                "/request/postData/text", "/serverIPAddress", "/response/redirectURL",
                "/response/statusText", "/request/headersSize", "/response/headersSize",
                "/response/content/size", "/timings/send", "/cache/afterRequest",
                "/request/url", "/request/method", "/time",
            ];
            let mut e = entry();
            for (site, value) in sites.iter().zip(values) {
                let (parent, key) = site.rsplit_once('/').unwrap();
                if let Some(Value::Object(map)) = e.pointer_mut(parent) {
                    map.insert(key.to_string(), value);
                }
            }
            let unprofiled = har(json!({"name": "rea-test", "version": "1"}), e.clone());
            let profile = ProducerProfile::ALL[profile];
            let profiled = har(creator_of(profile), e);
            let before = validate_har(&unprofiled).err().unwrap_or_default();
            let after = validate_har(&profiled).err().unwrap_or_default();
            let relaxed = profile.relaxed_pointers(&profiled);
            // Entry by entry equals validating the whole copy.
            prop_assert_eq!(&after, &schema_issues(&validation_copy(&profiled)));
            for issue in &after {
                prop_assert!(before.contains(issue), "{:?} appeared under {}", issue, profile.id());
            }
            for issue in before.iter().filter(|i| !after.contains(i)) {
                prop_assert!(
                    relaxed.iter().any(|r| r == &issue.pointer
                        || r.strip_prefix(issue.pointer.as_str()).is_some_and(|rest| rest.starts_with('/'))),
                    "{:?} vanished under {} though only {:?} were relaxed", issue, profile.id(), relaxed
                );
            }
        }

        #[test]
        fn profile_documents_agree_with_their_copy(
            text in prop_oneof![Just(Value::Null), leaf()],
            address in "\\[?[0-9a-fA-F:.%g]{0,16}\\]?(:443)?",
            profile in 0..3usize,
        ) {
            let creator = match profile {
                0 => mitmproxy(),
                1 => playwright("1.58.2"),
                _ => json!({"name": "Firefox", "version": "1"}),
            };
            let mut e = with_post_text(text);
            e["serverIPAddress"] = json!(address);
            let doc = har(creator, e);
            let copy = validation_copy(&doc);
            prop_assert_eq!(validate_har(&doc).is_ok(), schema_issues(&copy).is_empty());
            // And the issues themselves are the same, in the same order.
            prop_assert_eq!(validate_har(&doc).err().unwrap_or_default(), schema_issues(&copy));
        }
    }
}
