//! The HARs real producers write (`../shared/fixtures/producers/`, read from
//! there, never committed): each decodes with every record kept, under the
//! producer profile its `log.creator` declares, and each serves: start-up
//! succeeds and every recorded 200 JSON GET on the primary origin answers
//! its recorded body as JSON. See `docs/producers.md`.

mod common;

use common::{essence, repo_root, Server};
use rea_core::{decode_for_serving, inspect_web_network_capture, InspectRequest};
use rea_derivation::TemplateRule;
use serde_json::Value;
use std::path::PathBuf;

/// Each fixture, with the profile it must be decoded under (`None`: the
/// file needs no profile) and how many records it holds.
const FIXTURES: [(&str, Option<&str>, usize); 13] = [
    (
        "browsermob-harcollector-browsermob.har",
        Some("browsermob-proxy-2"),
        36,
    ),
    ("charles-mitmproxy-charles.har", Some("charles-4"), 1),
    (
        "chrome-mitmproxy-chrome.har",
        Some("chromium-devtools-537"),
        3,
    ),
    (
        "chrome-mitmproxy-postdata.har",
        Some("chromium-devtools-537"),
        1,
    ),
    ("chromehar-pagexray-etat-lu.har", Some("chrome-har"), 22),
    (
        "fiddler-harviewer-www-cnn-com.har",
        Some("fiddler-classic"),
        22,
    ),
    ("firebug-harviewer-google-com.har", None, 5),
    ("firefox-mitmproxy-firefox.har", Some("firefox"), 14),
    ("firefox-pagexray-http2.har", Some("firefox"), 10),
    ("insomnia-mitmproxy-insomnia.har", Some("insomnia"), 1),
    ("mitmproxy-test-websocket.har", None, 3),
    ("pollyjs-puppeteer.har", Some("polly-js"), 2),
    (
        "safari-mitmproxy-safari.har",
        Some("webkit-web-inspector-1"),
        19,
    ),
];

/// `../shared/fixtures/producers`, or `None` (with a message) when the
/// shared folder is not beside the repository.
fn producers_dir() -> Option<PathBuf> {
    let dir = repo_root().join("../shared/fixtures/producers");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "SKIPPED: {} is absent; the producer HARs come from ../shared (see docs/producers.md)",
            dir.display()
        );
        None
    }
}

#[test]
fn the_table_names_every_fixture() {
    let Some(dir) = producers_dir() else { return };
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".har"))
        .collect();
    on_disk.sort();
    let listed: Vec<&str> = FIXTURES.iter().map(|(n, _, _)| *n).collect();
    assert_eq!(on_disk, listed, "a new producer fixture needs a row here");
}

#[test]
fn every_producer_fixture_decodes_with_all_its_records() {
    let Some(dir) = producers_dir() else { return };
    for (name, profile, count) in FIXTURES {
        let path = dir.join(name);
        let evidence = inspect_web_network_capture(&InspectRequest::har(&path))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(evidence.capture.total_records, count as u64, "{name}");
        assert_eq!(evidence.capture.retained_records, count as u64, "{name}");
        assert_eq!(
            evidence.capture.decoder.producer_profile.as_deref(),
            profile,
            "{name}"
        );
        let ordinals: Vec<u64> = evidence.records.iter().map(|r| r.ordinal).collect();
        assert_eq!(ordinals, (0..count as u64).collect::<Vec<_>>(), "{name}");
        // Serving's per-entry decode has nothing to leave out.
        let (served, left_out) = decode_for_serving(&InspectRequest::har(&path)).unwrap();
        assert!(left_out.is_empty(), "{name}: {left_out:?}");
        assert_eq!(served, evidence, "{name}");
    }
}

/// The reported text of a recorded response body, when it is JSON.
fn recorded_json(entry: &Value) -> Option<Value> {
    let content = &entry["response"]["content"];
    if content.get("encoding").is_some() {
        return None;
    }
    serde_json::from_str(content["text"].as_str()?).ok()
}

#[test]
fn every_producer_fixture_serves_its_recorded_json_reads() {
    let Some(dir) = producers_dir() else { return };
    let mut checked = 0;
    for (name, _, _) in FIXTURES {
        let path = dir.join(name);
        let evidence = inspect_web_network_capture(&InspectRequest::har(&path)).unwrap();
        let evidence = serde_json::to_value(&evidence).unwrap();
        let manifest =
            rea_derivation::environment_manifest(&evidence, &TemplateRule::ALL, false).unwrap();
        let server = Server::start(&path, &[]);
        for record in evidence["records"].as_array().unwrap() {
            let entry = &record["reported"];
            let url = entry["request"]["url"].as_str().unwrap();
            let Ok(parsed) = rea_core::recorded_url::parse(url) else {
                continue;
            };
            let mime = essence(
                entry["response"]["content"]["mimeType"]
                    .as_str()
                    .unwrap_or(""),
            );
            let json_mime = mime.ends_with("/json") || mime.ends_with("+json");
            if entry["request"]["method"] != "GET"
                || entry["response"]["status"] != 200
                || !json_mime
                || parsed.origin != manifest.origin
            {
                continue;
            }
            let Some(body) = recorded_json(entry) else {
                continue;
            };
            let target = match parsed.query {
                Some(q) => format!("{}?{q}", parsed.path),
                None => parsed.path.to_string(),
            };
            let answer = server.get(&target);
            assert_eq!(answer.status, 200, "{name} {target}: {}", answer.text());
            assert_eq!(
                answer.json_as_recorded(server.addr, &manifest.origin),
                body,
                "{name} {target}"
            );
            checked += 1;
        }
        drop(server);
    }
    // Polly.JS's two reads and Safari's github-stats.json.
    assert_eq!(checked, 3, "the recorded JSON reads on primary origins");
}

/// The Kinto capture with entry 3's `request.method` removed.
fn capture_with_a_bad_entry(dir: &std::path::Path) -> PathBuf {
    let text = std::fs::read(common::fixture("dev-a.har")).unwrap();
    let mut doc: Value = serde_json::from_slice(&text).unwrap();
    doc["log"]["entries"][3]["request"]
        .as_object_mut()
        .unwrap()
        .shift_remove("method");
    let path = dir.join("one-bad-entry.har");
    std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
    path
}

/// The last line on stderr as JSON (progress lines come before it).
fn last_json_line(stderr: &[u8]) -> Value {
    let text = String::from_utf8_lossy(stderr);
    let last = text.lines().last().unwrap_or("");
    serde_json::from_str(last).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn run(args: &[&str]) -> std::process::Output {
    std::process::Command::new(common::rea())
        .args(args)
        .env_remove("MCP_HOST")
        .env_remove("MCP_PORT")
        .output()
        .expect("run rea")
}

#[test]
fn a_bad_entry_costs_only_itself_when_serving() {
    let dir = tempfile::tempdir().unwrap();
    let path = capture_with_a_bad_entry(dir.path());
    let file = path.to_str().unwrap();

    // Inspection keeps the spec's behaviour: the whole capture is refused.
    let out = run(&["inspect-web-network-capture", file, "har", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let err: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(err["code"], "har_validation_failed");

    // Serving leaves entry 3 out, says so in the banner, and serves the rest.
    let server = Server::start(&path, &[]);
    let log = server.log_text();
    assert!(
        log.contains("left out /log/entries/3: /log/entries/3/request: required member \"method\" is missing"),
        "{log}"
    );
    let recorded = common::recorded("dev-a.har");
    let first = &recorded[0];
    assert_eq!(
        server
            .get(&first.target)
            .json_as_recorded(server.addr, "http://127.0.0.1:37713"),
        first.response.clone().unwrap()
    );
    drop(server);

    // --json: the start-up line lists the left-out entry.
    let mut cmd = std::process::Command::new(common::rea());
    cmd.args([
        "environment-serve",
        file,
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--json",
    ])
    .env_remove("MCP_HOST")
    .env_remove("MCP_PORT")
    .stdin(std::process::Stdio::null())
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped());
    let mut server = Server::spawn(cmd);
    let started: Value = serde_json::from_str(&server.first_stdout_line()).unwrap();
    assert_eq!(started["event"], "started");
    assert_eq!(started["left_out_entries"][0]["pointer"], "/log/entries/3");
    assert_eq!(started["left_out_entries"][0]["ordinal"], 3);
    assert_eq!(
        started["left_out_entries"][0]["issues"][0]["keyword"],
        "required"
    );
    server.stop();

    // --strict refuses as inspection does, in the error contract with --json.
    let out = run(&[
        "environment-serve",
        file,
        "--port",
        "0",
        "--strict",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = last_json_line(&out.stderr);
    assert_eq!(err["code"], "har_validation_failed");
    assert_eq!(
        err["details"]["issues"][0]["pointer"],
        "/log/entries/3/request"
    );

    // The derived commands behave the same way.
    for command in ["environment-manifest", "environment-state"] {
        let out = run(&[command, file, "--json"]);
        assert!(
            out.status.success(),
            "{command}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let warning: Value = serde_json::from_slice(&out.stderr).unwrap();
        assert_eq!(warning["warning"], "entries_left_out", "{command}");
        assert_eq!(warning["left_out_entries"][0]["pointer"], "/log/entries/3");
        let out = run(&[command, file, "--json", "--strict"]);
        assert_eq!(out.status.code(), Some(2), "{command}");
    }
}

#[test]
fn serve_json_prints_start_up_failures_in_the_error_contract() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("flows.har");
    std::fs::write(&path, b"14:4:type;4:http;}").unwrap();
    // Named a HAR; by content a mitmproxy flow file (detection would read it as one).
    let out = run(&[
        "environment-serve",
        path.to_str().unwrap(),
        "--format",
        "har",
        "--port",
        "0",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = last_json_line(&out.stderr);
    assert_eq!(err["code"], "capture_format_mismatch");
    assert_eq!(err["details"]["detected_format"], "mitmproxy");
    assert!(err["guidance"].as_str().unwrap().contains("mitmproxy"));
    // Text mode: the message, then the guidance on its own line.
    let out = run(&[
        "environment-serve",
        path.to_str().unwrap(),
        "--format",
        "har",
        "--port",
        "0",
    ]);
    let text = String::from_utf8_lossy(&out.stderr);
    let last: Vec<&str> = text.lines().rev().take(2).collect();
    assert!(last[0].starts_with("hint: "), "{text}");
    assert!(
        last[1].starts_with("error: capture_format_mismatch (input): "),
        "{text}"
    );
    // Detected by content, the same file is read as the flow file it is:
    // a flow state without a version is refused with the mitmproxy error.
    let out = run(&[
        "environment-serve",
        path.to_str().unwrap(),
        "--port",
        "0",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        last_json_line(&out.stderr)["code"],
        "mitmproxy_invalid_flow"
    );
}

/// The quirks no fixture here shows (array header values, raw brackets in
/// a URL, decorated addresses) decode under their profile and serve: the
/// reported values stay as written and start-up copes with them.
#[test]
fn quirks_without_a_fixture_decode_and_serve() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read(common::fixture("dev-a.har")).unwrap();
    let mut doc: Value = serde_json::from_slice(&text).unwrap();
    doc["log"]["creator"] = serde_json::json!({"name": "Polly.JS", "version": "6.0.6"});
    let entries = doc["log"]["entries"].as_array_mut().unwrap();
    let first_get = entries
        .iter()
        .position(|e| e["request"]["method"] == "GET" && e["response"]["status"] == 200)
        .unwrap();
    entries[first_get]["response"]["headers"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"name": "Vary", "value": ["Accept", "Origin"]}));
    let last = entries.len() - 1;
    let url = entries[last]["request"]["url"]
        .as_str()
        .unwrap()
        .to_string();
    let sep = if url.contains('?') { '&' } else { '?' };
    entries[last]["request"]["url"] = format!("{url}{sep}filter[id]={{x}}").into();
    let path = dir.path().join("polly.har");
    std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();

    let evidence = inspect_web_network_capture(&InspectRequest::har(&path)).unwrap();
    assert_eq!(
        evidence.capture.decoder.producer_profile.as_deref(),
        Some("polly-js")
    );
    let record = &evidence.records[first_get].reported;
    let vary = record["response"]["headers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == "Vary")
        .unwrap();
    assert_eq!(vary["value"], serde_json::json!(["Accept", "Origin"]));
    assert!(evidence.records[last].reported["request"]["url"]
        .as_str()
        .unwrap()
        .ends_with("filter[id]={x}"));

    let recorded = common::recorded("dev-a.har");
    let server = Server::start(&path, &[]);
    let read = &recorded[first_get];
    assert_eq!(
        server
            .get(&read.target)
            .json_as_recorded(server.addr, "http://127.0.0.1:37713"),
        read.response.clone().unwrap()
    );
}
