//! Serving from Fiddler `.saz` archives (beyond the spec): the built `rea`
//! starts `environment-serve` on the real archives and answers every
//! recorded 2xx JSON GET on the primary origin with its recorded body,
//! `environment-manifest --json` lists the tools, and an archive built from
//! the same exchanges as a small HAR derives the same manifest.

mod common;

use common::{rea, Server};
use rea_derivation::{environment_manifest, TemplateRule};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::Command;

fn saz_fixture(name: &str) -> std::path::PathBuf {
    common::repo_root()
        .join("tests/fixtures/formats/saz")
        .join(name)
}

/// `(target, origin, recorded JSON)` of every 2xx JSON GET on the primary
/// origin (the origin most records are on) of the capture's HTTP records.
fn json_gets(path: &Path) -> Vec<(String, String, Value)> {
    let (e, _) = rea_core::serving::capture_evidence(path, None, false).unwrap();
    let records: Vec<Value> = e.records.into_iter().map(|r| r.reported).collect();
    let mut origins: BTreeMap<String, usize> = BTreeMap::new();
    let parsed: Vec<_> = records
        .iter()
        .map(|r| rea_core::recorded_url::parse(r["request"]["url"].as_str().unwrap()).unwrap())
        .collect();
    for p in &parsed {
        *origins.entry(p.origin.clone()).or_default() += 1;
    }
    let primary = origins.iter().max_by_key(|(_, n)| **n).unwrap().0.clone();
    records
        .iter()
        .zip(&parsed)
        .filter(|(r, p)| {
            p.origin == primary
                && r["request"]["method"] == "GET"
                && (200..300).contains(&r["response"]["status"].as_u64().unwrap_or(0))
                && common::essence(r["response"]["content"]["mimeType"].as_str().unwrap_or(""))
                    .ends_with("json")
        })
        .filter_map(|(r, p)| {
            let body = serde_json::from_str(r["response"]["content"]["text"].as_str()?).ok()?;
            let target = match &p.query {
                Some(q) => format!("{}?{q}", p.path),
                None => p.path.to_string(),
            };
            Some((target, primary.clone(), body))
        })
        .collect()
}

#[test]
fn serving_a_saz_answers_its_recorded_json_gets() {
    for (name, at_least) in [("httpbin-test.saz", 4), ("NewCaseName1.saz", 2)] {
        let path = saz_fixture(name);
        let gets = json_gets(&path);
        assert!(gets.len() >= at_least, "{name}: {} JSON GETs", gets.len());
        let mut server = Server::start(&path, &[]);
        for (target, origin, body) in &gets {
            let r = server.get(target);
            assert_eq!(r.status, 200, "{name} GET {target}: {}", r.text());
            assert_eq!(
                &r.json_as_recorded(server.addr, origin),
                body,
                "{name} GET {target}"
            );
        }
        server.stop();
        // Named explicitly, the archive serves the same.
        let mut named = Server::start(&path, &["--format", "saz"]);
        let (target, origin, body) = &gets[0];
        assert_eq!(
            &named.get(target).json_as_recorded(named.addr, origin),
            body
        );
        named.stop();
    }
}

#[test]
fn the_manifest_of_a_saz_lists_its_tools() {
    for name in ["httpbin-test.saz", "NewCaseName1.saz"] {
        let out = Command::new(rea())
            .arg("environment-manifest")
            .arg(saz_fixture(name))
            .arg("--json")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let manifest: Value = serde_json::from_slice(&out.stdout).unwrap();
        let tools = manifest["tools"].as_array().expect("tools");
        assert!(!tools.is_empty(), "{name}: {manifest}");
    }
}

/// One exchange: method, URL, request JSON body, status, response JSON.
type Exchange = (&'static str, &'static str, Option<Value>, u16, Value);

fn exchanges() -> Vec<Exchange> {
    vec![
        (
            "GET",
            "http://api.example/items",
            None,
            200,
            json!([{"id": 1, "name": "a"}]),
        ),
        (
            "POST",
            "http://api.example/items",
            Some(json!({"name": "b"})),
            201,
            json!({"id": 2, "name": "b"}),
        ),
        (
            "GET",
            "http://api.example/items/2",
            None,
            200,
            json!({"id": 2, "name": "b"}),
        ),
        (
            "GET",
            "http://api.example/items?name=b",
            None,
            200,
            json!([{"id": 2, "name": "b"}]),
        ),
    ]
}

const STARTED: &str = "2026-11-30T10:00:00.000Z";

fn har_of(exchanges: &[Exchange]) -> Value {
    let entries: Vec<Value> = exchanges
        .iter()
        .map(|(method, url, body, status, response)| {
            let query: Vec<Value> = url
                .split_once('?')
                .map_or("", |(_, q)| q)
                .split('&')
                .filter(|p| !p.is_empty())
                .map(|p| {
                    let (n, v) = p.split_once('=').unwrap_or((p, ""));
                    json!({"name": n, "value": v})
                })
                .collect();
            let mut headers = vec![json!({"name": "Host", "value": "api.example"})];
            let mut request = json!({
                "method": method, "url": url, "httpVersion": "HTTP/1.1",
                "cookies": [], "queryString": query, "headersSize": -1, "bodySize": 0,
            });
            if let Some(b) = body {
                headers.push(json!({"name": "Content-Type", "value": "application/json"}));
                request["postData"] =
                    json!({"mimeType": "application/json", "text": b.to_string()});
                request["bodySize"] = json!(b.to_string().len());
            }
            request["headers"] = json!(headers);
            let text = response.to_string();
            json!({
                "startedDateTime": STARTED, "time": 0,
                "request": request,
                "response": {
                    "status": status, "statusText": reason(*status), "httpVersion": "HTTP/1.1",
                    "cookies": [],
                    "headers": [{"name": "Content-Type", "value": "application/json"}],
                    "content": {"size": text.len(), "mimeType": "application/json", "text": text},
                    "redirectURL": "", "headersSize": -1, "bodySize": text.len(),
                },
                "cache": {}, "timings": {"send": 0, "wait": 0, "receive": 0},
            })
        })
        .collect();
    json!({"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": entries}})
}

fn reason(status: u16) -> &'static str {
    if status == 201 {
        "Created"
    } else {
        "OK"
    }
}

fn saz_of(exchanges: &[Exchange]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    for (i, (method, url, body, status, response)) in exchanges.iter().enumerate() {
        let n = i + 1;
        let mut c = format!("{method} {url} HTTP/1.1\r\nHost: api.example\r\n");
        if let Some(b) = body {
            c.push_str(&format!("Content-Type: application/json\r\n\r\n{b}"));
        } else {
            c.push_str("\r\n");
        }
        let s = format!(
            "HTTP/1.1 {status} {}\r\nContent-Type: application/json\r\n\r\n{response}",
            reason(*status)
        );
        let m = format!(
            "<Session SID=\"{n}\"><SessionTimers ClientBeginRequest=\"{STARTED}\" /></Session>"
        );
        for (suffix, bytes) in [("c.txt", c), ("s.txt", s), ("m.xml", m)] {
            w.start_file(format!("raw/{n:02}_{suffix}"), options)
                .unwrap();
            w.write_all(bytes.as_bytes()).unwrap();
        }
    }
    w.finish().unwrap().into_inner()
}

/// A derived document without what names its source and its decoder.
fn without_source(mut v: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(o) => {
                for key in [
                    "subject",
                    "source",
                    "artifact",
                    "evidence_subject",
                    "capture",
                    "limitations",
                ] {
                    o.remove(key);
                }
                o.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

#[test]
fn a_saz_twin_of_a_har_derives_the_same_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let har = dir.path().join("twin.har");
    let saz = dir.path().join("twin.saz");
    std::fs::write(&har, serde_json::to_vec(&har_of(&exchanges())).unwrap()).unwrap();
    std::fs::write(&saz, saz_of(&exchanges())).unwrap();
    let evidence = |p: &Path| {
        let (e, left_out) = rea_core::serving::capture_evidence(p, None, false).unwrap();
        assert!(left_out.is_empty(), "{left_out:?}");
        serde_json::to_value(e).unwrap()
    };
    let (a, b) = (evidence(&har), evidence(&saz));
    assert_eq!(b["parameters"]["format"], "saz");
    for rules in [&[][..], &TemplateRule::ALL[..]] {
        let ma = environment_manifest(&a, rules, true).unwrap();
        let mb = environment_manifest(&b, rules, true).unwrap();
        assert!(!ma.tools.is_empty());
        assert_eq!(
            serde_json::to_string_pretty(&without_source(serde_json::to_value(&ma).unwrap()))
                .unwrap(),
            serde_json::to_string_pretty(&without_source(serde_json::to_value(&mb).unwrap()))
                .unwrap()
        );
    }
}
