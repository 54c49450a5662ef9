use super::tnetstring::{dumps, Native};
use crate::error::Category;
use crate::inspect::{inspect_web_network_capture, InspectRequest};
use crate::Evidence;
use serde_json::json;

fn s(t: &str) -> Native {
    Native::Str(t.into())
}
fn b(t: &[u8]) -> Native {
    Native::Bytes(t.to_vec())
}
fn int(t: &str) -> Native {
    Native::Int(t.into())
}

/// A minimal version-21 HTTP flow state with extra members.
fn flow(version: Native, extra: Vec<(Native, Native)>) -> Native {
    let mut pairs = vec![
        (s("type"), s("http")),
        (s("id"), s("f-1")),
        (s("version"), version),
        (
            s("request"),
            Native::Dict(vec![
                (s("method"), b(b"GET")),
                (s("path"), b(b"/x")),
                (
                    s("headers"),
                    Native::List(vec![Native::List(vec![b(b"Cookie"), b(b"sid=1")])]),
                ),
                (s("content"), Native::Null),
                (s("timestamp_start"), Native::Float(1.5)),
            ]),
        ),
    ];
    pairs.extend(extra);
    Native::Dict(pairs)
}

fn run(bytes: &[u8]) -> Result<Evidence, crate::ErrorReport> {
    run_with(bytes, &[])
}

fn run_with(bytes: &[u8], declared: &[&str]) -> Result<Evidence, crate::ErrorReport> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("flows.mitm");
    std::fs::write(&path, bytes).unwrap();
    let mut request = InspectRequest::har(&path);
    request.format = "mitmproxy".into();
    request.sensitive_values = declared.iter().map(|v| v.to_string()).collect();
    inspect_web_network_capture(&request)
}

#[test]
fn older_state_versions_are_reported_at_their_version_not_migrated() {
    // MITM-04: a version-7 state keeps version 7 and its own shape.
    let e = run(&dumps(&flow(int("7"), vec![]))).unwrap();
    assert_eq!(e.records[0].reported["version"], 7);
    // A legacy (major, minor) version list is accepted and kept as written.
    let legacy = flow(Native::List(vec![int("0"), int("17")]), vec![]);
    let e = run(&dumps(&legacy)).unwrap();
    assert_eq!(e.records[0].reported["version"], json!([0, 17]));
}

#[test]
fn backups_and_unknown_members_are_kept_with_credentials_excluded() {
    // MITM-05 and RED-14: `backup` and `x_custom` stay; the backup's Cookie is excluded.
    let backup = flow(int("21"), vec![]);
    let state = flow(
        int("21"),
        vec![
            (s("backup"), backup),
            (s("x_custom"), Native::List(vec![b(b"\x00\xff"), int("1")])),
        ],
    );
    let e = run(&dumps(&state)).unwrap();
    let r = &e.records[0].reported;
    assert_eq!(r["x_custom"], json!([null, 1]));
    assert_eq!(r["backup"]["request"]["headers"], json!([["Cookie", null]]));
    assert_eq!(r["request"]["headers"], json!([["Cookie", null]]));
    let pointers: Vec<&str> = e.redactions.iter().map(|r| r.pointer.as_str()).collect();
    assert_eq!(
        pointers,
        ["/0/request/headers/0/1", "/0/backup/request/headers/0/1"]
    );
    let field = e.records[0]
        .binary_fields
        .iter()
        .find(|f| f.pointer == "/0/x_custom/0")
        .unwrap();
    assert_eq!(field.base64.as_deref(), Some("AP8="));
}

#[test]
fn nothing_is_synthesized() {
    // MITM-06: no timestamp_end, response, connection or content appears.
    let e = run(&dumps(&flow(int("21"), vec![]))).unwrap();
    let r = &e.records[0].reported;
    let request = r["request"].as_object().unwrap();
    assert!(!request.contains_key("timestamp_end"));
    assert_eq!(request["content"], serde_json::Value::Null);
    assert!(r.get("response").is_none() && r.get("client_conn").is_none());
    assert!(e.records[0]
        .binary_fields
        .iter()
        .all(|f| f.pointer != "/0/request/content"));
    assert_eq!(e.basis, "upstream-assembled-messages");
    assert!(e
        .limitations
        .iter()
        .any(|l| l.contains("upstream-assembled")));
}

#[test]
fn duplicate_native_keys_take_the_last_value() {
    // EVD-18 through the whole inspection.
    let mut state = flow(int("21"), vec![(s("a"), int("1")), (s("a"), int("2"))]);
    if let Native::Dict(pairs) = &mut state {
        // dumps writes both pairs; the reader keeps the last value.
        assert_eq!(pairs.iter().filter(|(k, _)| *k == s("a")).count(), 2);
    }
    let e = run(&dumps(&state)).unwrap();
    assert_eq!(e.records[0].reported["a"], 2);
}

#[test]
fn selection_keeps_caller_order_and_locations() {
    let one = dumps(&flow(int("21"), vec![]));
    let mut file = one.clone();
    file.extend_from_slice(&one);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("two.mitm");
    std::fs::write(&path, &file).unwrap();
    let mut request = InspectRequest::har(&path);
    request.format = "mitmproxy".into();
    request.record_ordinals = Some(vec![1, 0]);
    let e = inspect_web_network_capture(&request).unwrap();
    assert_eq!(e.records[0].ordinal, 1);
    assert_eq!(
        serde_json::to_value(&e.records[0].location).unwrap(),
        json!({"kind": "byte-range", "offset": one.len(), "length": one.len()})
    );
    request.record_ordinals = Some(vec![2]);
    assert_eq!(
        inspect_web_network_capture(&request).unwrap_err().code,
        "record_ordinal_out_of_range"
    );
}

#[test]
fn hostile_files_get_their_documented_errors() {
    let good = dumps(&flow(int("21"), vec![]));
    let code = |bytes: &[u8]| {
        let e = run(bytes).unwrap_err();
        (e.code, e.category)
    };
    // Truncated file: the last flow ends early.
    assert_eq!(
        code(&good[..good.len() - 10]),
        ("mitmproxy_truncated".into(), Category::Input)
    );
    // Wrong length prefix (too long for the file, then too short for the payload).
    let mut longer = good.clone();
    longer[..4].copy_from_slice(b"9999");
    assert_eq!(code(&longer).0, "mitmproxy_truncated");
    let text = String::from_utf8_lossy(&good).to_string();
    let (len, rest) = text.split_once(':').unwrap();
    let shorter = format!("{}:{rest}", len.parse::<usize>().unwrap() - 1);
    assert_eq!(code(shorter.as_bytes()).0, "mitmproxy_wrong_length_prefix");
    // Wrong type tag.
    let mut tag = good.clone();
    *tag.last_mut().unwrap() = b'x';
    let e = run(&tag).unwrap_err();
    assert_eq!(e.code, "mitmproxy_invalid_tnetstring");
    assert!(e.message.contains("unknown type tag 0x78"));
    // Deep nesting past the 64-level budget.
    let mut deep = Native::Null;
    for _ in 0..70 {
        deep = Native::List(vec![deep]);
    }
    let e = run(&dumps(&flow(int("21"), vec![(s("deep"), deep)]))).unwrap_err();
    assert_eq!(e.code, "nesting_too_deep");
    assert_eq!(e.details["budget_levels"], 64);
    // Not a flow state; no version; a newer state version; an unknown old one.
    assert_eq!(
        code(&dumps(&Native::List(vec![]))).0,
        "mitmproxy_invalid_flow"
    );
    assert_eq!(
        code(&dumps(&Native::Dict(vec![(s("type"), s("http"))]))).0,
        "mitmproxy_invalid_flow"
    );
    let e = run(&dumps(&flow(int("22"), vec![]))).unwrap_err();
    assert_eq!(
        (e.code.as_str(), e.category),
        ("unsupported_profile", Category::Unsupported)
    );
    assert!(e.guidance.as_deref().unwrap().contains("newer mitmproxy"));
    assert_eq!(
        code(&dumps(&flow(int("3"), vec![]))).0,
        "unsupported_profile"
    );
    // A HAR passed as mitmproxy is not a flow file.
    assert_eq!(code(b"{\"log\": {}}").0, "mitmproxy_invalid_tnetstring");
    // An empty file has no flows (upstream's FlowReader yields none).
    assert_eq!(run(b"").unwrap().records.len(), 0);
}

#[test]
fn declared_values_never_reach_the_evidence() {
    let state = flow(
        int("21"),
        vec![
            (s("comment"), s("token=hunter2")),
            (s("note"), b(b"hunter2!")),
        ],
    );
    let e = run_with(&dumps(&state), &["hunter2"]).unwrap();
    let text = String::from_utf8(e.to_json_bytes().unwrap()).unwrap();
    assert!(!text.contains("hunter2"));
    assert_eq!(e.records[0].reported["comment"], serde_json::Value::Null);
    assert_eq!(e.parameters.sensitive_value_count, 1);
}

mod properties {
    use super::super::tnetstring::{dumps, read_all, scan, Native};
    use super::super::{decode, record};
    use crate::redact::Declared;
    use proptest::prelude::*;

    fn native() -> impl Strategy<Value = Native> {
        let leaf = prop_oneof![
            Just(Native::Null),
            any::<bool>().prop_map(Native::Bool),
            any::<i64>().prop_map(|n| Native::Int(n.to_string())),
            any::<f64>().prop_map(Native::Float),
            ".{0,8}".prop_map(Native::Str),
            proptest::collection::vec(any::<u8>(), 0..8).prop_map(Native::Bytes),
        ];
        leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Native::List),
                proptest::collection::vec(("[a-c]{1,2}", inner), 0..4).prop_map(|pairs| {
                    Native::Dict(
                        pairs
                            .into_iter()
                            .map(|(k, v)| (Native::Str(k), v))
                            .collect(),
                    )
                }),
            ]
        })
    }

    /// Float NaN is not equal to itself; compare through the writer.
    fn same(a: &Native, b: &Native) -> bool {
        dumps(a) == dumps(b)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let _ = scan(&bytes);
            let _ = decode(&bytes);
            if let Ok(items) = read_all(&bytes) {
                for item in items {
                    let _ = record::convert(&item.value, "/0", 0, Declared::new(&[]));
                }
            }
        }

        #[test]
        fn written_values_read_back(value in native()) {
            let bytes = dumps(&value);
            let items = read_all(&bytes).unwrap();
            prop_assert_eq!(items.len(), 1);
            // Dictionaries with repeated keys collapse by the last-value rule,
            // so compare after one normalizing round trip.
            let again = read_all(&dumps(&items[0].value)).unwrap();
            prop_assert!(same(&again[0].value, &items[0].value));
            prop_assert_eq!(scan(&bytes).is_ok(), true);
        }

        #[test]
        fn mutated_flow_files_never_panic(at in 0usize..4000, byte in any::<u8>(), cut in 0usize..64) {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../tests/fixtures/formats/protobuf-http1.mitm");
            let mut bytes = std::fs::read(path).unwrap();
            let at = at % bytes.len();
            bytes[at] = byte;
            bytes.truncate(bytes.len() - cut);
            if let Ok(decoded) = decode(&bytes) {
                for (i, item) in decoded.flows.iter().enumerate() {
                    let _ = record::convert(&item.value, &format!("/{i}"), i as u64, Declared::new(&[]));
                }
            }
        }
    }
}
