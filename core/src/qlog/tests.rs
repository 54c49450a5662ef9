//! Tests of the qlog decoder: the real aioquic fixtures with goldens, the
//! profile and error contract on synthetic inputs, facts and exclusions.
//! Synthetic inputs make no producer-provenance claim.

use crate::evidence::{Evidence, Location, RedactionReason};
use crate::inspect::{inspect_web_network_capture, InspectRequest};
use crate::ErrorReport;
use serde_json::{json, Value};
use std::path::PathBuf;

fn fixture(case: &str) -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/formats/qlog"
    ))
    .join(case)
}

fn request(path: impl Into<PathBuf>) -> InspectRequest {
    let mut r = InspectRequest::har(path);
    r.format = "qlog".into();
    r
}

fn inspect_with(
    bytes: &[u8],
    ordinals: Option<Vec<u64>>,
    sensitive: &[&str],
) -> Result<Evidence, ErrorReport> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.qlog");
    std::fs::write(&path, bytes).unwrap();
    let mut r = request(&path);
    r.record_ordinals = ordinals;
    r.sensitive_values = sensitive.iter().map(|s| s.to_string()).collect();
    inspect_web_network_capture(&r)
}

fn inspect(doc: &Value) -> Result<Evidence, ErrorReport> {
    inspect_with(doc.to_string().as_bytes(), None, &[])
}

fn qlog(events: Vec<Value>) -> Value {
    json!({"qlog_format":"JSON","qlog_version":"0.3","traces":[{"common_fields":{"ODCID":"00"},"events":events}]})
}

fn sent(frames: Value) -> Value {
    json!({"name":"transport:packet_sent","time":1.0,"data":{"frames":frames,"header":{"packet_number":1}}})
}

fn stream_frame(id: u64, offset: Value, length: Value, fin: bool) -> Value {
    json!({"frame_type":"stream","stream_id":id,"offset":offset,"length":length,"fin":fin})
}

fn facet(e: &Evidence) -> Value {
    serde_json::to_value(e.qlog.as_ref().expect("qlog facet")).unwrap()
}

fn code(r: Result<Evidence, ErrorReport>) -> (String, String) {
    let e = r.expect_err("must fail");
    (e.code, e.category.as_str().to_string())
}

// ---- real fixtures -------------------------------------------------------

/// Evidence of each fixture matches its golden byte for byte
/// (`REA_UPDATE_GOLDEN=1` rewrites them).
#[test]
fn fixtures_decode_with_goldens() {
    let update = std::env::var_os("REA_UPDATE_GOLDEN").is_some_and(|v| v == "1");
    let golden_dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/golden/formats/qlog"
    ));
    let mut mismatches = Vec::new();
    for case in [
        "clean/origin.qlog",
        "clean/client.qlog",
        "loss/origin.qlog",
        "loss/client.qlog",
    ] {
        // A relative path keeps the golden free of this machine's paths.
        let evidence = inspect_web_network_capture(&request(
            PathBuf::from("../tests/fixtures/formats/qlog").join(case),
        ))
        .unwrap();
        let mut text = serde_json::to_string_pretty(&evidence).unwrap();
        text.push('\n');
        let golden = golden_dir.join(case.replace('/', "-").replace(".qlog", ".evidence.json"));
        if update {
            std::fs::create_dir_all(&golden_dir).unwrap();
            std::fs::write(&golden, &text).unwrap();
        } else if std::fs::read_to_string(&golden).ok().as_deref() != Some(text.as_str()) {
            std::fs::write(golden.with_extension("actual.json"), &text).unwrap();
            mismatches.push(golden.display().to_string());
        }
    }
    assert!(
        mismatches.is_empty(),
        "golden mismatch (see *.actual.json): {mismatches:?}"
    );
}

/// QLOG-38: the known facts of the fixtures (their README): one origin
/// trace; stream 0 sent 32,842 unique bytes with FIN 32,842; in the loss
/// case 31 frames, 34,009 frame bytes, 1,167 repeated and one declared loss.
#[test]
fn fixture_facts_match_the_recording() {
    let clean = inspect_web_network_capture(&request(fixture("clean/origin.qlog"))).unwrap();
    let loss = inspect_web_network_capture(&request(fixture("loss/origin.qlog"))).unwrap();
    let client = inspect_web_network_capture(&request(fixture("loss/client.qlog"))).unwrap();
    assert_eq!(clean.capture.total_records, 164);
    assert_eq!(loss.capture.total_records, 187);
    let (c, l) = (facet(&clean), facet(&loss));
    assert_eq!(l["traces"].as_array().unwrap().len(), 1);
    let s0 = |f: &Value, dir: &str| {
        f["traces"][0]["streams"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["stream_id"] == "0" && s["direction"] == dir)
            .cloned()
            .unwrap()
    };
    let cs = s0(&c, "sent");
    assert_eq!(
        (
            cs["frame_count"].as_u64(),
            cs["unique_bytes"].as_str(),
            cs["repeated_bytes"].as_str()
        ),
        (Some(30), Some("32842"), Some("0"))
    );
    assert_eq!(cs["final_sizes"][0]["final_size"], "32842");
    let ls = s0(&l, "sent");
    assert_eq!(ls["frame_count"], 31);
    assert_eq!(ls["frame_length_sum"], "34009");
    assert_eq!(ls["unique_bytes"], "32842");
    assert_eq!(ls["repeated_bytes"], "1167");
    let repeated: Vec<&Value> = ls["ranges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["kind"] == "repeated")
        .collect();
    assert_eq!(repeated.len(), 1, "one repeated range");
    assert_eq!(repeated[0]["length"], "1167");
    assert_eq!(
        l["traces"][0]["loss_declarations"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(l["traces"][0]["loss_declarations"][0]["packet_number"], "8");
    assert_eq!(c["traces"][0]["loss_declarations"], json!([]));
    let cr = s0(&facet(&client), "received");
    assert_eq!(
        (cr["unique_bytes"].as_str(), cr["repeated_bytes"].as_str()),
        (Some("32842"), Some("0"))
    );
    assert_eq!(c["traces"][0]["odcid"], "b558ae06dcac25ea");
    assert_eq!(c["traces"][0]["vantage_point_type"], "server");
}

/// QLOG-01, QLOG-18: `--record 95 --record 0` returns events 95 and 0 in
/// that order, while facts still cover every event.
#[test]
fn selection_returns_events_in_caller_order_and_facts_cover_all() {
    let mut r = request(fixture("loss/origin.qlog"));
    r.record_ordinals = Some(vec![95, 0]);
    let e = inspect_web_network_capture(&r).unwrap();
    let ordinals: Vec<u64> = e.records.iter().map(|r| r.ordinal).collect();
    assert_eq!(ordinals, vec![95, 0]);
    assert_eq!(
        e.records[0].location,
        Location::JsonPointer {
            pointer: "/traces/0/events/95".into()
        }
    );
    assert_eq!(
        (e.capture.total_records, e.capture.retained_records),
        (187, 2)
    );
    let full = inspect_web_network_capture(&request(fixture("loss/origin.qlog"))).unwrap();
    assert_eq!(e.qlog, full.qlog, "facts do not depend on the selection");
    assert_eq!(facet(&e)["scope"], "all-recorded-events-before-selection");
    let mut out = request(fixture("loss/origin.qlog"));
    out.record_ordinals = Some(vec![187]);
    assert_eq!(
        inspect_web_network_capture(&out).unwrap_err().code,
        "record_ordinal_out_of_range"
    );
}

/// QLOG-33 on the fixture: every reset token is excluded, as a transport credential.
#[test]
fn fixture_reset_tokens_are_excluded() {
    let e = inspect_web_network_capture(&request(fixture("clean/origin.qlog"))).unwrap();
    let text = serde_json::to_string(&e).unwrap();
    assert!(
        !text.contains("6f1cbc0d700f1d23678d63a9c413c08b"),
        "stateless_reset_token value gone"
    );
    let raw = std::fs::read_to_string(fixture("clean/origin.qlog")).unwrap();
    let doc: Value = serde_json::from_str(&raw).unwrap();
    for ev in doc["traces"][0]["events"].as_array().unwrap() {
        for f in ev["data"]["frames"].as_array().into_iter().flatten() {
            if let Some(t) = f["reset_token"].as_str() {
                assert!(!text.contains(t), "reset token {t} excluded");
            }
        }
    }
    assert!(e
        .redactions
        .iter()
        .any(|r| r.pointer.ends_with("/stateless_reset_token")));
    assert!(e
        .redactions
        .iter()
        .all(|r| r.reason == RedactionReason::TransportCredential));
}

// ---- profile and errors --------------------------------------------------

/// QLOG-02, QLOG-10, QLOG-11: the spec's minimal file decodes to one event
/// under the profile, with no version claim and the clock stated.
#[test]
fn minimal_profile_file_is_one_event() {
    let doc = json!({"qlog_format":"JSON","qlog_version":"0.3","traces":[{"events":[{"name":"transport:packet_sent","time":1.5,"data":{}}]}]});
    let e = inspect(&doc).unwrap();
    assert_eq!(e.records.len(), 1);
    assert_eq!(e.capture.format, "qlog");
    assert_eq!(e.capture.decoder.profile, "aioquic-1.5.0-json-qlog-0.3");
    assert_eq!(e.capture.decoder.producer_profile, None);
    let f = facet(&e);
    assert_eq!(f["clock"]["basis"], "unix-epoch-milliseconds");
    assert_eq!(f["clock"]["reported_by_file"], false);
    assert_eq!(f["profile"]["clock_basis"], "unix-epoch-milliseconds");
    assert_eq!(f["profile"]["producer_version_established"], false);
    assert!(e
        .limitations
        .iter()
        .any(|l| l.contains("Unix-epoch milliseconds")));
    assert!(e
        .limitations
        .iter()
        .any(|l| l.contains("neither reports nor authenticates an aioquic version")));
}

/// QLOG-03: other versions, columnar events, JSON-SEQ (even with a broken
/// record) and JSONL are unsupported, never partially decoded.
#[test]
fn unsupported_shapes() {
    let mut v04 = qlog(vec![]);
    v04["qlog_version"] = json!("0.4");
    assert_eq!(
        code(inspect(&v04)),
        ("qlog_profile_unsupported".into(), "unsupported".into())
    );
    let e = inspect(&v04).unwrap_err();
    assert_eq!(
        (e.details["reason"].as_str(), e.details["found"].as_str()),
        (Some("qlog-version"), Some("\"0.4\""))
    );
    let columnar = qlog(vec![json!([0, "transport", "packet_sent", {}])]);
    let e = inspect(&columnar).unwrap_err();
    assert_eq!(
        (e.code.as_str(), e.details["reason"].as_str()),
        ("qlog_profile_unsupported", Some("columnar-events"))
    );
    let seq = b"\x1e{\"qlog_format\":\"JSON-SEQ\",\"qlog_version\":\"0.4\"}\n\x1e{\"name\":\"x\",\"time\":1,\"da";
    let e = inspect_with(seq, None, &[]).unwrap_err();
    assert_eq!(
        (e.code.as_str(), e.details["reason"].as_str()),
        ("qlog_profile_unsupported", Some("json-seq"))
    );
    let jsonl = b"{\"qlog_format\":\"JSON\",\"qlog_version\":\"0.3\"}\n{\"name\":\"x\",\"time\":1,\"data\":{}}\n";
    let e = inspect_with(jsonl, None, &[]).unwrap_err();
    assert_eq!(
        (e.code.as_str(), e.details["reason"].as_str()),
        ("qlog_profile_unsupported", Some("jsonl"))
    );
    let mut seq_format = qlog(vec![]);
    seq_format["qlog_format"] = json!("JSON-SEQ");
    assert_eq!(
        inspect(&seq_format).unwrap_err().details["reason"],
        "qlog-format"
    );
}

/// Structural failures are `qlog_invalid` with the failing pointer.
#[test]
fn malformed_events_are_invalid_with_pointers() {
    for (event, pointer) in [
        (json!({"time":1,"data":{}}), "/traces/0/events/0/name"),
        (
            json!({"name":"a","time":"1","data":{}}),
            "/traces/0/events/0/time",
        ),
        (
            json!({"name":"a","time":1,"data":[]}),
            "/traces/0/events/0/data",
        ),
    ] {
        let e = inspect(&qlog(vec![event])).unwrap_err();
        assert_eq!(
            (e.code.as_str(), e.details["pointer"].as_str()),
            ("qlog_invalid", Some(pointer))
        );
    }
    let inf = br#"{"qlog_format":"JSON","qlog_version":"0.3","traces":[{"events":[{"name":"a","time":1e400,"data":{}}]}]}"#;
    assert_eq!(
        inspect_with(inf, None, &[]).unwrap_err().code,
        "qlog_invalid",
        "time must be finite"
    );
    let no_traces = json!({"qlog_format":"JSON","qlog_version":"0.3"});
    assert_eq!(inspect(&no_traces).unwrap_err().code, "qlog_invalid");
}

/// QLOG-04, QLOG-40: a duplicate member in event 95 fails a selection of [0].
#[test]
fn duplicate_member_outside_the_selection_fails() {
    let mut events: Vec<String> = (0..96)
        .map(|i| format!(r#"{{"name":"a","time":{i},"data":{{}}}}"#))
        .collect();
    events[95] = r#"{"name":"a","name":"b","time":1,"data":{}}"#.into();
    let text = format!(
        r#"{{"qlog_format":"JSON","qlog_version":"0.3","traces":[{{"events":[{}]}}]}}"#,
        events.join(",")
    );
    let e = inspect_with(text.as_bytes(), Some(vec![0]), &[]).unwrap_err();
    assert_eq!(e.code, "duplicate_key");
    assert_eq!(e.details["pointer"], "/traces/0/events/95/name");
}

/// QLOG-05, QLOG-40: byte 0xff inside a string fails.
#[test]
fn malformed_utf8_fails() {
    let mut bytes = qlog(vec![json!({"name":"aXa","time":1,"data":{}})])
        .to_string()
        .into_bytes();
    let at = bytes.iter().position(|&b| b == b'X').unwrap();
    bytes[at] = 0xff;
    assert_eq!(
        code(inspect_with(&bytes, None, &[])),
        ("invalid_utf8".into(), "input".into())
    );
}

/// QLOG-07: 65 nested levels fail.
#[test]
fn excessive_nesting_fails() {
    let deep = format!(
        r#"{{"qlog_format":"JSON","qlog_version":"0.3","traces":[{{"events":[{{"name":"a","time":1,"data":{{"x":{}1{}}}}}]}}]}}"#,
        "[".repeat(60),
        "]".repeat(60)
    );
    let e = inspect_with(deep.as_bytes(), None, &[]).unwrap_err();
    assert_eq!(
        (e.code.as_str(), e.details["budget_levels"].as_u64()),
        ("nesting_too_deep", Some(64))
    );
}

/// Over-budget input: a file past 32 MiB is refused before decoding.
#[test]
fn over_budget_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.qlog");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(crate::read::INPUT_BUDGET_BYTES + 1).unwrap();
    let e = inspect_web_network_capture(&request(&path)).unwrap_err();
    assert_eq!(
        (e.code.as_str(), e.details["budget_bytes"].as_u64()),
        ("capture_too_large", Some(33_554_432))
    );
}

/// QLOG-06, QLOG-26, QLOG-27, QLOG-40: interpreted QUIC integers.
#[test]
fn quic_integers_are_exact_through_two_to_the_62_minus_one() {
    let accepted = |offset: &str, length: &str| {
        let text = format!(
            r#"{{"qlog_format":"JSON","qlog_version":"0.3","traces":[{{"events":[{{"name":"transport:packet_sent","time":1,"data":{{"frames":[{{"frame_type":"stream","stream_id":0,"offset":{offset},"length":{length},"fin":false}}]}}}}]}}]}}"#
        );
        inspect_with(text.as_bytes(), None, &[])
    };
    let e = accepted("4611686018427387903", "0").unwrap();
    assert_eq!(
        facet(&e)["traces"][0]["streams"][0]["contributions"][0]["offset"],
        "4611686018427387903"
    );
    let e = accepted("1e3", "1").unwrap();
    assert_eq!(
        facet(&e)["traces"][0]["streams"][0]["ranges"][0]["start"],
        "1000"
    );
    for (bad, reason) in [
        ("4611686018427387904", "above-2^62-1"),
        ("-1", "negative"),
        ("1.5", "not-an-integer"),
        ("\"1\"", "not-a-number"),
    ] {
        let e = accepted(bad, "1").unwrap_err();
        assert_eq!(e.code, "qlog_integer_invalid", "{bad}");
        assert_eq!(e.details["reason"], reason);
        assert_eq!(
            e.details["pointer"],
            "/traces/0/events/0/data/frames/0/offset"
        );
    }
    let e = accepted("4611686018427387903", "1").unwrap_err();
    assert_eq!(
        (e.code.as_str(), e.details["reason"].as_str()),
        (
            "qlog_integer_invalid",
            Some("offset-plus-length-above-2^62-1")
        )
    );
    // A bad integer outside the selection still fails.
    let mut events = vec![json!({"name":"a","time":1,"data":{}})];
    events.push(sent(json!([stream_frame(0, json!(-1), json!(1), false)])));
    let e = inspect_with(qlog(events).to_string().as_bytes(), Some(vec![0]), &[]).unwrap_err();
    assert_eq!(e.code, "qlog_integer_invalid");
}

// ---- facts ---------------------------------------------------------------

fn streams(e: &Evidence) -> Vec<Value> {
    facet(e)["traces"][0]["streams"].as_array().unwrap().clone()
}

/// QLOG-21, QLOG-22: overlap is counted exactly and claims no retransmission.
#[test]
fn overlapping_frames_give_unique_sum_and_repeated() {
    let e = inspect(&qlog(vec![
        sent(json!([stream_frame(0, json!(0), json!(100), false)])),
        sent(json!([stream_frame(0, json!(50), json!(100), false)])),
    ]))
    .unwrap();
    let s = &streams(&e)[0];
    assert_eq!(
        (
            s["unique_bytes"].as_str(),
            s["frame_length_sum"].as_str(),
            s["repeated_bytes"].as_str()
        ),
        (Some("150"), Some("200"), Some("50"))
    );
    assert_eq!(
        s["ranges"],
        json!([
        {"kind":"covered","start":"0","end":"150","length":"150"},
        {"kind":"repeated","start":"50","end":"100","length":"50"}])
    );
    let text = serde_json::to_string(&facet(&e)).unwrap().to_lowercase();
    assert!(
        !text.contains("retransmi"),
        "no retransmission claim in facts"
    );
    assert!(e
        .limitations
        .iter()
        .any(|l| l.contains("not proof of retransmission")));
}

/// QLOG-23: FIN final sizes are offset + length; conflicting ones stay visible.
#[test]
fn conflicting_fin_sizes_stay_visible() {
    let e = inspect(&qlog(vec![
        sent(json!([stream_frame(0, json!(100), json!(0), true)])),
        sent(json!([stream_frame(0, json!(90), json!(20), true)])),
    ]))
    .unwrap();
    let all = streams(&e);
    let sizes: Vec<&str> = all[0]["final_sizes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["final_size"].as_str().unwrap())
        .collect();
    assert_eq!(sizes, vec!["100", "110"]);
    assert!(e
        .limitations
        .iter()
        .any(|l| l.contains("does not establish complete coverage or a received body")));
}

/// QLOG-08, QLOG-24, QLOG-29: missing metadata is incomplete, never zero.
#[test]
fn missing_offset_or_length_is_incomplete_not_zero() {
    let e = inspect(&qlog(vec![
        sent(json!([{"frame_type":"stream","stream_id":0,"length":10,"fin":false}])),
        sent(json!([{"frame_type":"stream","stream_id":0,"offset":5,"fin":false}])),
        sent(json!([stream_frame(0, json!(20), json!(5), false)])),
    ]))
    .unwrap();
    let f = facet(&e);
    let incomplete = f["traces"][0]["incomplete_records"].as_array().unwrap();
    assert_eq!(
        incomplete
            .iter()
            .map(|r| r["ordinal"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        vec![0, 1]
    );
    assert_eq!(
        incomplete[0]["reasons"],
        json!(["STREAM frame offset omitted or redacted"])
    );
    assert_eq!(incomplete[0]["pointer"], "/traces/0/events/0");
    let s = &streams(&e)[0];
    assert_eq!(s["ranges"][0]["start"], "20", "no range starts at 0");
    assert_eq!(s["unique_bytes"], "5");
    assert_eq!(e.records.len(), 3, "the events stay inspectable");
}

/// QLOG-28: derived sums are decimal strings past 2^53.
#[test]
fn totals_past_two_to_the_53_are_exact_strings() {
    let e = inspect(&qlog(vec![
        sent(json!([stream_frame(
            0,
            json!(0),
            json!(9007199254740992u64),
            false
        )])),
        sent(json!([stream_frame(
            0,
            json!(9007199254740992u64),
            json!(1),
            false
        )])),
    ]))
    .unwrap();
    assert_eq!(streams(&e)[0]["unique_bytes"], "9007199254740993");
    assert_eq!(streams(&e)[0]["frame_length_sum"], "9007199254740993");
}

/// QLOG-30: ranges can start above zero and have gaps.
#[test]
fn ranges_with_gaps_are_reported_as_recorded() {
    let e = inspect(&qlog(vec![
        sent(json!([stream_frame(4, json!(100), json!(100), false)])),
        sent(json!([stream_frame(4, json!(300), json!(100), false)])),
    ]))
    .unwrap();
    let s = &streams(&e)[0];
    assert_eq!(s["ranges"].as_array().unwrap().len(), 2);
    assert_eq!(
        (
            s["ranges"][0]["start"].as_str(),
            s["ranges"][1]["start"].as_str()
        ),
        (Some("100"), Some("300"))
    );
    assert_eq!(s["unique_bytes"], "200");
}

/// QLOG-15, QLOG-16: streams by trace, ID and direction; control and QPACK kept.
#[test]
fn streams_by_direction_with_control_and_qpack() {
    let received = json!({"name":"transport:packet_received","time":2,"data":{"frames":[stream_frame(0, json!(0), json!(38), true)]}});
    let e = inspect(&qlog(vec![
        json!({"name":"http:stream_type_set","time":0,"data":{"new":"control","stream_id":2}}),
        json!({"name":"http:stream_type_set","time":0,"data":{"new":"qpack_encoder","stream_id":6}}),
        sent(json!([stream_frame(0, json!(0), json!(10), false), stream_frame(2, json!(0), json!(3), false),
                    stream_frame(6, json!(0), json!(1), false), stream_frame(10, json!(0), json!(1), false)])),
        received,
    ]))
    .unwrap();
    let keys: Vec<(String, String)> = streams(&e)
        .iter()
        .map(|s| {
            (
                s["stream_id"].as_str().unwrap().to_string(),
                s["direction"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = [
        ("0", "sent"),
        ("0", "received"),
        ("2", "sent"),
        ("6", "sent"),
        ("10", "sent"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(keys, want);
    assert_eq!(streams(&e)[2]["stream_type"], "control");
    assert_eq!(streams(&e)[3]["stream_type"], "qpack_encoder");
}

/// QLOG-13, QLOG-19: ordinals run trace then event (not by time); every
/// trace keeps its metadata with events null.
#[test]
fn ordinals_follow_traces_then_events() {
    let doc = json!({"qlog_format":"JSON","qlog_version":"0.3","traces":[
        {"vantage_point":{"type":"server"},"events":[{"name":"a","time":10,"data":{}},{"name":"b","time":11,"data":{}},{"name":"c","time":12,"data":{}}]},
        {"vantage_point":{"type":"client"},"events":[{"name":"d","time":1,"data":{}}]}]});
    let e = inspect(&doc).unwrap();
    assert_eq!(e.records[3].ordinal, 3);
    assert_eq!(
        e.records[3].location,
        Location::JsonPointer {
            pointer: "/traces/1/events/0".into()
        }
    );
    assert_eq!(e.records[3].reported["name"], "d");
    assert_eq!(e.capture.container["traces"][0]["events"], Value::Null);
    assert_eq!(e.capture.container["traces"][1]["events"], Value::Null);
    assert_eq!(
        e.capture.container["traces"][1]["vantage_point"]["type"],
        "client"
    );
    assert_eq!(facet(&e)["traces"][1]["first_ordinal"], 3);
}

/// QLOG-14: two files with the same ODCID are two observations.
#[test]
fn same_odcid_in_two_files_is_two_observations() {
    let a = inspect(&qlog(vec![json!({"name":"a","time":1,"data":{}})])).unwrap();
    let b = inspect(&qlog(vec![json!({"name":"b","time":1,"data":{}})])).unwrap();
    assert_eq!(
        facet(&a)["traces"][0]["odcid"],
        facet(&b)["traces"][0]["odcid"]
    );
    assert_ne!(a.subject, b.subject, "each observation is its own artifact");
    assert_eq!(facet(&a)["traces"][0]["trace_index"], 0);
    assert!(a
        .limitations
        .iter()
        .any(|l| l.contains("not claimed to be globally unique")));
}

/// QLOG-20: a loss declaration without packet number stays unknown.
#[test]
fn loss_without_packet_number_is_unknown() {
    let e = inspect(&qlog(vec![
        json!({"name":"recovery:packet_lost","time":1,"data":{"trigger":"time_threshold"}}),
    ]))
    .unwrap();
    let loss = &facet(&e)["traces"][0]["loss_declarations"][0];
    assert_eq!(loss["packet_number"], Value::Null);
    assert_eq!(loss["packet_type"], Value::Null);
    assert_eq!(loss["trigger"], "time_threshold");
    assert_eq!(loss["basis"], "endpoint-report");
    assert!(e
        .limitations
        .iter()
        .any(|l| l.contains("not proof of network loss")));
}

/// QLOG-25, QLOG-31: HTTP frames are metadata; no HAR-style request records.
#[test]
fn http_frames_are_metadata_without_bodies() {
    let e = inspect(&qlog(vec![
        json!({"name":"http:frame_created","time":1,"data":{"stream_id":0,"length":500,"frame":{"frame_type":"data"}}}),
        json!({"name":"http:frame_parsed","time":1,"data":{"stream_id":0,"length":20,"frame":{"frame_type":"headers","headers":[{"name":":method","value":"GET"},{"name":":path","value":"/x"}]}}}),
    ]))
    .unwrap();
    let http = &facet(&e)["traces"][0]["http"];
    assert_eq!(http["body_bytes"], "not-reported");
    assert_eq!(http["data_frame_length_sum"], "500");
    assert_eq!(
        (
            http["frames_created"].as_u64(),
            http["frames_parsed"].as_u64()
        ),
        (Some(1), Some(1))
    );
    assert_eq!(facet(&e)["body_bytes"], "not-reported");
    assert!(e
        .records
        .iter()
        .all(|r| r.reported.get("request").is_none() && r.binary_fields.is_empty()));
    assert_eq!(
        e.records[1].reported["data"]["frame"]["headers"][1]["value"],
        "/x"
    );
}

/// QLOG-09, QLOG-12: extensions and numeric lexemes survive.
#[test]
fn extensions_and_time_lexemes_survive() {
    let text = br#"{"qlog_format":"JSON","qlog_version":"0.3","traces":[{"events":[{"name":"transport:packet_sent","time":1700000000000.1250,"data":{"_custom":{"k":[1,2]}}}]}]}"#;
    let e = inspect_with(text, None, &[]).unwrap();
    assert_eq!(e.records[0].reported["data"]["_custom"], json!({"k":[1,2]}));
    let lit = &e.records[0].numeric_literals[0];
    assert_eq!(
        (lit.pointer.as_str(), lit.lexeme.as_str()),
        ("/traces/0/events/0/time", "1700000000000.1250")
    );
    assert!(e
        .limitations
        .iter()
        .any(|l| l.contains("no clock precision or monotonicity")));
}

/// QLOG-17: the facet is present exactly for qlog.
#[test]
fn facet_only_for_qlog() {
    let q = inspect(&qlog(vec![])).unwrap();
    assert!(serde_json::to_value(&q).unwrap().get("qlog").is_some());
    let har = inspect_web_network_capture(&InspectRequest::har(PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/kinto/dev-a.har"
    ))))
    .unwrap();
    assert!(har.qlog.is_none());
    assert!(serde_json::to_value(&har).unwrap().get("qlog").is_none());
    assert!(har.summary().get("qlog").is_none());
    assert_eq!(
        q.summary()["qlog"]["scope"],
        "all-recorded-events-before-selection"
    );
}

// ---- exclusions ----------------------------------------------------------

/// QLOG-32..QLOG-35: credential values, reset tokens, NEW_TOKEN tokens and
/// URL userinfo are excluded; token-looking query text and extensions stay.
#[test]
fn credentials_are_excluded_and_ordinary_text_stays() {
    let headers = json!([
        {"name":":path","value":"/x?token=abc"},
        {"name":"authorization","value":"Bearer x"},
        {"name":"Cookie","value":"sid=1"},
        {"name":"proxy-authorization","value":"Basic y"},
        {"name":"set-cookie","value":"a=b"},
        {"name":"referer","value":"https://u:p@h.example/r"},
        {"name":":authority","value":"u:p@h.example"}]);
    let doc = qlog(vec![
        json!({"name":"http:frame_created","time":1,"data":{"stream_id":0,"length":9,"frame":{"frame_type":"headers","headers":headers}}}),
        json!({"name":"transport:parameters_set","time":1,"data":{"owner":"local","stateless_reset_token":"aa11","_token":"keep"}}),
        sent(
            json!([{"frame_type":"new_connection_id","connection_id":"01","reset_token":"bb22","sequence_number":1,"length":8,"retire_prior_to":0},
                    {"frame_type":"new_token","token":"cc33","length":4}]),
        ),
    ]);
    let e = inspect(&doc).unwrap();
    let h = &e.records[0].reported["data"]["frame"]["headers"];
    assert_eq!(h[0]["value"], "/x?token=abc");
    for i in [1, 2, 3, 4, 6] {
        assert_eq!(h[i]["value"], Value::Null, "header {i}");
    }
    assert_eq!(h[5]["value"], "https://h.example/r");
    assert_eq!(
        e.records[1].reported["data"]["stateless_reset_token"],
        Value::Null
    );
    assert_eq!(e.records[1].reported["data"]["_token"], "keep");
    assert_eq!(
        e.records[2].reported["data"]["frames"][0]["reset_token"],
        Value::Null
    );
    assert_eq!(
        e.records[2].reported["data"]["frames"][1]["token"],
        Value::Null
    );
    let text = serde_json::to_string(&e).unwrap();
    for secret in [
        "Bearer x", "sid=1", "Basic y", "a=b", "u:p@", "aa11", "bb22", "cc33",
    ] {
        assert!(!text.contains(secret), "{secret} excluded");
    }
    assert_eq!(e.redactions.len(), 9);
    let declared = inspect_with(doc.to_string().as_bytes(), None, &["abc"]).unwrap();
    assert_eq!(
        declared.records[0].reported["data"]["frame"]["headers"][0]["value"],
        Value::Null
    );
    assert!(!serde_json::to_string(&declared).unwrap().contains("abc"));
    assert!(declared
        .redactions
        .iter()
        .any(|r| r.reason == RedactionReason::SensitiveValue));
}

/// QLOG-36: a declared value reaches numeric projections, derived totals
/// and pointers; omitted facts list their ordinals as incomplete records.
#[test]
fn declared_values_reach_facts_and_totals() {
    let bytes = std::fs::read(fixture("clean/origin.qlog")).unwrap();
    let e = inspect_with(&bytes, Some(vec![0]), &["32842"]).unwrap();
    let text = serde_json::to_string(&e).unwrap();
    assert!(
        !text.contains("32842"),
        "no fact, lexeme or total shows the declared value"
    );
    let f = facet(&e);
    let s0 = f["traces"][0]["streams"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["stream_id"] == "0" && s["direction"] == "sent")
        .unwrap()
        .clone();
    assert_eq!(s0["unique_bytes"], Value::Null);
    assert_eq!(s0["final_sizes"], json!([]));
    let incomplete: Vec<u64> = f["traces"][0]["incomplete_records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["ordinal"].as_u64().unwrap())
        .collect();
    let contributors: Vec<u64> = serde_json::to_value(
        &inspect_web_network_capture(&request(fixture("clean/origin.qlog")))
            .unwrap()
            .qlog,
    )
    .unwrap()["traces"][0]["streams"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["stream_id"] == "0" && s["direction"] == "sent")
        .unwrap()["contributions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["ordinal"].as_u64().unwrap())
        .collect();
    assert!(
        contributors.iter().all(|o| incomplete.contains(o)),
        "every contributing ordinal is listed"
    );
    assert!(e.explanations.iter().any(|x| x.contains("qlog fact(s)")));
    // A declared value in an event pointer hides the record's location.
    let hidden = inspect_with(&bytes, Some(vec![95]), &["/events/95"]).unwrap();
    assert_eq!(hidden.records[0].location, Location::Unknown);
    assert_eq!(hidden.records[0].ordinal, 95);
}

/// QLOG-37: the decoder opens nothing the file names. A keylog path that
/// is a FIFO would block any reader; inspection finishes and keeps the text.
#[test]
fn named_keylog_is_never_opened() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("keys.log");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let doc = json!({"qlog_format":"JSON","qlog_version":"0.3","traces":[{"configuration":{"keylog_file":fifo.to_str().unwrap()},
        "events":[{"name":"transport:packet_sent","time":1,"data":{"url":"http://127.0.0.1:1/"}}]}]});
    let path = dir.path().join("x.qlog");
    std::fs::write(&path, doc.to_string()).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(inspect_web_network_capture(&request(&path)));
    });
    let e = rx
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("inspection never blocks on the named FIFO")
        .unwrap();
    assert_eq!(
        e.capture.container["traces"][0]["configuration"]["keylog_file"],
        fifo.to_str().unwrap()
    );
}

/// qlog Evidence, with and without declared values, satisfies
/// `manifests/evidence.schema.json` (the facet included).
#[test]
fn qlog_evidence_satisfies_the_evidence_schema() {
    let schema: Value =
        serde_json::from_str(include_str!("../../../manifests/evidence.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let bytes = std::fs::read(fixture("loss/origin.qlog")).unwrap();
    for sensitive in [&[][..], &["32842", "/events/9"][..]] {
        let e = inspect_with(&bytes, Some(vec![95, 0]), sensitive).unwrap();
        let doc = serde_json::to_value(&e).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&doc)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .take(5)
            .collect();
        assert!(errors.is_empty(), "{errors:?}");
    }
}

/// A declared value that hides an event name or a frame type leaves the
/// event's facts unknown, listed as incomplete rather than silently dropped.
#[test]
fn redacted_names_and_frame_types_are_incomplete() {
    let doc = qlog(vec![
        json!({"name":"transport:packet_sent","time":1,"data":{"frames":[{"frame_type":"stream","stream_id":0,"offset":0,"length":5,"fin":false}]}}),
        json!({"name":"transport:packet_received","time":1,"data":{"frames":[{"frame_type":"stream","stream_id":0,"offset":0,"length":5,"fin":false}]}}),
    ]);
    let e = inspect_with(doc.to_string().as_bytes(), None, &["packet_sent"]).unwrap();
    let f = facet(&e);
    assert_eq!(f["traces"][0]["incomplete_records"][0]["ordinal"], 0);
    assert_eq!(
        f["traces"][0]["incomplete_records"][0]["reasons"],
        json!(["event name omitted or redacted"])
    );
    assert_eq!(
        f["traces"][0]["streams"].as_array().unwrap().len(),
        1,
        "only the received stream is known"
    );
    let e = inspect_with(doc.to_string().as_bytes(), None, &["stream"]).unwrap();
    let reasons = facet(&e)["traces"][0]["incomplete_records"][0]["reasons"].clone();
    assert_eq!(reasons, json!(["frame type omitted or redacted"]));
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn decode_facts(frames: &[(u64, u64)]) -> Value {
        let events: Vec<Value> = frames
            .iter()
            .map(|&(o, l)| sent(json!([stream_frame(0, json!(o), json!(l), false)])))
            .collect();
        let bytes = qlog(events).to_string().into_bytes();
        let decoded = crate::qlog::decode(&bytes, None).unwrap();
        serde_json::to_value(&decoded.facet).unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// unique_bytes is the union (checked byte by byte), repeated the
        /// bytes covered at least twice, and repeated_bytes the difference
        /// of the sum and the union.
        #[test]
        fn ranges_match_a_byte_by_byte_count(frames in proptest::collection::vec((0u64..200, 0u64..60), 1..12)) {
            let facet = decode_facts(&frames);
            let s = &facet["traces"][0]["streams"][0];
            let mut depth = [0u32; 260];
            for &(o, l) in &frames {
                for b in o..o + l { depth[b as usize] += 1; }
            }
            let unique = depth.iter().filter(|&&d| d >= 1).count() as u64;
            let twice = depth.iter().filter(|&&d| d >= 2).count() as u64;
            let sum: u64 = frames.iter().map(|f| f.1).sum();
            prop_assert_eq!(s["unique_bytes"].as_str().unwrap(), unique.to_string());
            prop_assert_eq!(s["frame_length_sum"].as_str().unwrap(), sum.to_string());
            prop_assert_eq!(s["repeated_bytes"].as_str().unwrap(), (sum - unique).to_string());
            let len = |kind: &str| -> u64 {
                s["ranges"].as_array().unwrap().iter().filter(|r| r["kind"] == kind)
                    .map(|r| r["length"].as_str().unwrap().parse::<u64>().unwrap()).sum()
            };
            prop_assert_eq!(len("covered"), unique);
            prop_assert_eq!(len("repeated"), twice);
        }

        /// Any byte mutation of a valid file decodes or fails with an error; nothing panics.
        #[test]
        fn mutated_files_never_panic(at in 0usize..400, byte in any::<u8>()) {
            let mut bytes = qlog(vec![
                sent(json!([stream_frame(0, json!(0), json!(10), true)])),
                json!({"name":"recovery:packet_lost","time":2,"data":{"packet_number":3}}),
            ]).to_string().into_bytes();
            let i = at % bytes.len();
            bytes[i] = byte;
            let _ = crate::qlog::decode(&bytes, None);
        }
    }
}
