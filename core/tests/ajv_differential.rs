//! Differential test: rea's HAR verdicts equal the reference validator's
//! (ajv 8.20.0 + ajv-formats 3.0.1 on the unchanged har-schema 2.0.0
//! schemas, pinned in `tests/ajv/package-lock.json`) on every fixture HAR,
//! on hostile variants and on seeded random mutations.
//!
//! Needs Node.js and npm; runs `npm ci` in `tests/ajv` when its
//! `node_modules` is missing.

use rea_core::har_schema::{schema_issues, validate_har, validation_copy, ProducerProfile};
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("core/ has a parent")
        .to_path_buf()
}

fn ajv_dir() -> PathBuf {
    repo_root().join("tests").join("ajv")
}

/// Installs the pinned reference validator once (`npm ci`), if needed.
fn ensure_reference_installed() {
    static READY: OnceLock<()> = OnceLock::new();
    READY.get_or_init(|| {
        let dir = ajv_dir();
        if dir.join("node_modules/ajv/package.json").is_file()
            && dir.join("node_modules/ajv-formats/package.json").is_file()
            && dir.join("node_modules/har-schema/package.json").is_file()
        {
            return;
        }
        let status = Command::new("npm")
            .args(["ci", "--ignore-scripts", "--no-audit", "--no-fund"])
            .current_dir(&dir)
            .status()
            .unwrap_or_else(|error| {
                panic!(
                    "the ajv differential test needs npm (Node.js) to install its reference \
                     validator, but `npm` could not be started: {error}. Install Node.js and npm, \
                     or run `npm ci --prefix tests/ajv` yourself."
                )
            });
        assert!(
            status.success(),
            "`npm ci` in tests/ajv failed ({status}); run `npm ci --prefix tests/ajv` to see why"
        );
    });
}

/// ajv's verdict (and error locations, for messages) per document.
fn ajv_verdicts(docs: &[Value]) -> Vec<(bool, Value)> {
    ensure_reference_installed();
    let mut input = Vec::new();
    for doc in docs {
        serde_json::to_writer(&mut input, doc).expect("a Value serializes");
        input.push(b'\n');
    }
    let mut child = Command::new("node")
        .arg("validate.js")
        .current_dir(ajv_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| {
            panic!("the ajv differential test needs `node` (Node.js) on PATH: {error}")
        });
    let mut stdin = child.stdin.take().expect("piped stdin");
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child.wait_with_output().expect("node runs");
    writer
        .join()
        .expect("writer thread")
        .expect("node reads its input");
    assert!(
        output.status.success(),
        "tests/ajv/validate.js failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<(bool, Value)> = String::from_utf8(output.stdout)
        .expect("UTF-8 output")
        .lines()
        .map(|line| {
            let answer: Value = serde_json::from_str(line).expect("one JSON object per line");
            (answer["valid"] == json!(true), answer["errors"].clone())
        })
        .collect();
    assert_eq!(lines.len(), docs.len(), "one verdict per document");
    lines
}

/// Compares rea with ajv on `cases` (name, document as parsed, with unsafe
/// numbers already null). ajv sees the validation copy, as the reference does.
fn assert_same_verdicts(cases: &[(String, Value)]) {
    let copies: Vec<Value> = cases
        .iter()
        .map(|(_, doc)| validation_copy(doc).into_owned())
        .collect();
    let reference = ajv_verdicts(&copies);
    let mut mismatches = Vec::new();
    for (((name, doc), copy), (ajv_valid, ajv_errors)) in cases.iter().zip(&copies).zip(reference) {
        let rea = validate_har(doc);
        let unrelaxed = schema_issues(copy);
        if rea.is_ok() != ajv_valid || unrelaxed.is_empty() != ajv_valid {
            mismatches.push(format!(
                "{name}: ajv valid={ajv_valid} {ajv_errors}; rea {:?}; rea on the copy {:?}",
                rea, unrelaxed
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} verdicts differ from ajv:\n{}",
        mismatches.len(),
        cases.len(),
        mismatches.join("\n")
    );
}

fn read_json(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every `.har` under `tests/fixtures/`, sorted.
fn fixture_paths() -> Vec<PathBuf> {
    let mut paths = Vec::new();
    let root = repo_root().join("tests").join("fixtures");
    for group in std::fs::read_dir(&root).expect("tests/fixtures") {
        let group = group.expect("dir entry").path();
        if !group.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&group).expect("fixture dir") {
            let file = file.expect("dir entry").path();
            if file.extension().is_some_and(|e| e == "har") {
                paths.push(file);
            }
        }
    }
    paths.sort();
    paths
}

#[test]
fn fixtures_match_ajv() {
    let paths = fixture_paths();
    assert!(paths.len() >= 8, "expected the kinto and formats fixtures");
    let mut cases: Vec<(String, Value)> = paths
        .iter()
        .map(|p| (p.display().to_string(), read_json(p)))
        .collect();
    for (name, doc) in &cases {
        assert!(validate_har(doc).is_ok(), "{name} must be valid HAR");
    }
    // The producer profiles exercised on real files: every mitmproxy request
    // body text nulled, every Playwright address bracketed as IPv6.
    let mut more = Vec::new();
    for (name, doc) in &cases {
        let mut nulled = doc.clone();
        let mut bracketed = doc.clone();
        for_each_entry(&mut nulled, |e| {
            if let Some(post) = e.pointer_mut("/request/postData") {
                post["text"] = Value::Null;
            }
        });
        for_each_entry(&mut bracketed, |e| {
            e["serverIPAddress"] = json!("[2001:db8::7]")
        });
        more.push((format!("{name} (postData.text null)"), nulled.clone()));
        more.push((format!("{name} (bracketed IPv6)"), bracketed.clone()));
        bracketed["log"]["creator"] = json!({"name": "Playwright", "version": "1.58.2"});
        more.push((
            format!("{name} (bracketed IPv6, Playwright 1.58.2)"),
            bracketed,
        ));
        nulled["log"]["creator"] = json!({"name": "mitmproxy", "version": "12.2.3"});
        more.push((
            format!("{name} (postData.text null, mitmproxy 12.2.3)"),
            nulled,
        ));
    }
    cases.extend(more);
    assert_same_verdicts(&cases);
}

/// The real producers' HARs (`../shared/fixtures/producers/`, not committed):
/// ajv agrees with rea on each file's validation copy, and on the file as
/// written exactly when its profile relaxes nothing.
#[test]
fn producer_fixtures_match_ajv() {
    let dir = repo_root().join("../shared/fixtures/producers");
    let Ok(listing) = std::fs::read_dir(&dir) else {
        eprintln!("SKIPPED: {} is absent", dir.display());
        return;
    };
    let mut paths: Vec<PathBuf> = listing
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "har"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 13, "expected the 13 producer fixtures");
    let mut cases = Vec::new();
    for path in &paths {
        let bytes = std::fs::read(path).expect("readable");
        let doc = rea_core::json::parse(&bytes)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .value;
        assert!(validate_har(&doc).is_ok(), "{}", path.display());
        cases.push((path.display().to_string(), doc));
    }
    assert_same_verdicts(&cases);
}

fn for_each_entry(doc: &mut Value, mut f: impl FnMut(&mut Value)) {
    if let Some(Value::Array(entries)) = doc.pointer_mut("/log/entries") {
        entries.iter_mut().for_each(&mut f);
    }
}

/// A valid HAR 1.2 document with one complete entry, from `creator`.
fn base(creator: Value) -> Value {
    json!({"log": {
        "version": "1.2",
        "creator": creator,
        "browser": {"name": "Firefox", "version": "140.0"},
        "pages": [{
            "startedDateTime": "2026-01-02T03:04:05.000Z", "id": "page_1", "title": "Kinto",
            "pageTimings": {"onContentLoad": 10.5, "onLoad": -1}
        }],
        "entries": [{
            "pageref": "page_1",
            "startedDateTime": "2026-01-02T03:04:05.678+01:00",
            "time": 12.5,
            "request": {
                "method": "POST", "url": "http://127.0.0.1:8888/v1/buckets/shop/collections?_limit=5",
                "httpVersion": "HTTP/1.1",
                "cookies": [{"name": "sid", "value": "abc", "expires": null, "httpOnly": true, "secure": false}],
                "headers": [{"name": "Content-Type", "value": "application/json"}],
                "queryString": [{"name": "_limit", "value": "5"}],
                "postData": {"mimeType": "application/json", "text": "{\"data\":{}}", "params": []},
                "headersSize": -1, "bodySize": 11
            },
            "response": {
                "status": 201, "statusText": "Created", "httpVersion": "HTTP/1.1",
                "cookies": [], "headers": [{"name": "Content-Length", "value": "2"}],
                "content": {"size": 2, "compression": 0, "mimeType": "application/json", "text": "e30=", "encoding": "base64"},
                "redirectURL": "", "headersSize": 120, "bodySize": 2
            },
            "cache": {"beforeRequest": null, "afterRequest": {"lastAccess": "2026-01-02T03:04:05Z", "eTag": "", "hitCount": 0}},
            "timings": {"blocked": -1, "dns": -1, "connect": 0.5, "ssl": -1, "send": 0.1, "wait": 11.0, "receive": 0.9},
            "serverIPAddress": "127.0.0.1",
            "connection": "1"
        }]
    }})
}

fn firefox() -> Value {
    json!({"name": "Firefox", "version": "140.0"})
}

fn mitmproxy() -> Value {
    json!({"name": "mitmproxy", "version": "12.2.3", "comment": ""})
}

fn playwright(version: &str) -> Value {
    json!({"name": "Playwright", "version": version})
}

/// `base(creator)` with `value` at `pointer` (inserted or replaced), or the
/// member removed when `value` is `None`.
fn variant(creator: Value, pointer: &str, value: Option<Value>) -> Value {
    let mut doc = base(creator);
    let (parent, key) = pointer.rsplit_once('/').expect("a pointer");
    let target = doc.pointer_mut(parent).expect("parent exists");
    match (target, value) {
        (Value::Object(map), Some(v)) => {
            map.insert(key.to_string(), v);
        }
        (Value::Object(map), None) => {
            map.shift_remove(key);
        }
        (Value::Array(items), Some(v)) => items[key.parse::<usize>().expect("index")] = v,
        (Value::Array(items), None) => {
            items.remove(key.parse::<usize>().expect("index"));
        }
        (other, _) => panic!("cannot set {pointer} in {other}"),
    }
    doc
}

const E: &str = "/log/entries/0";

/// Hostile and edge-case documents, each with a name. Unsafe numbers appear
/// as the null the lossless reader puts in their place.
fn hostile_cases() -> Vec<(String, Value)> {
    let mut cases: Vec<(String, Value)> = Vec::new();
    let mut add = |name: &str, doc: Value| cases.push((name.to_string(), doc));
    let set = |pointer: &str, value: Value| variant(firefox(), pointer, Some(value));
    let at = |suffix: &str| format!("{E}{suffix}");
    let drop = |pointer: &str| variant(firefox(), pointer, None);

    add("base document", base(firefox()));
    add("not an object: array", json!([]));
    add("not an object: null", Value::Null);
    add("not an object: string", json!("HAR"));
    add("empty object", json!({}));
    add("log is an array", json!({"log": []}));
    add("empty entries", set("/log/entries", json!([])));
    add("entries is an object", set("/log/entries", json!({})));
    add("missing log.version", drop("/log/version"));
    add("log.version is a number", set("/log/version", json!(1.2)));
    add(
        "log.version 1.1 (schema does not pin it)",
        set("/log/version", json!("1.1")),
    );
    add("missing creator", drop("/log/creator"));
    add(
        "creator.name is a number",
        set("/log/creator/name", json!(1)),
    );
    add("creator.version missing", drop("/log/creator/version"));
    add("browser without version", drop("/log/browser/version"));
    add("page without id", drop("/log/pages/0/id"));
    add(
        "page startedDateTime invalid",
        set("/log/pages/0/startedDateTime", json!("2026-01-02")),
    );
    add(
        "pageTimings onLoad null (unsafe)",
        set("/log/pages/0/pageTimings/onLoad", Value::Null),
    );
    add("entry missing request", drop(&at("/request")));
    add("entry missing cache", drop(&at("/cache")));
    add("request missing method", drop(&at("/request/method")));
    add(
        "request.method is a number",
        set(&at("/request/method"), json!(7)),
    );
    add(
        "request missing queryString",
        drop(&at("/request/queryString")),
    );
    add(
        "headers is an object",
        set(&at("/request/headers"), json!({})),
    );
    add(
        "header value is a number",
        set(&at("/request/headers/0/value"), json!(2)),
    );
    add("header without name", drop(&at("/request/headers/0/name")));
    add(
        "cookie value missing",
        drop(&at("/request/cookies/0/value")),
    );
    add(
        "cookie expires date-time",
        set(
            &at("/request/cookies/0/expires"),
            json!("2026-01-02T03:04:05.000Z"),
        ),
    );
    add(
        "cookie expires not a date-time",
        set(
            &at("/request/cookies/0/expires"),
            json!("Fri, 02 Jan 2026 03:04:05 GMT"),
        ),
    );
    add(
        "cookie expires number",
        set(&at("/request/cookies/0/expires"), json!(0)),
    );
    for (i, url) in [
        "not a uri",
        "/v1/buckets",
        "http://exa mple.com/",
        "http://example.com/\u{e9}",
        "http://example.com/%zz",
        "http://[::1]:8888/v1/",
        "http://[fe80::1%25eth0]/",
        "http://user:pa%20ss@127.0.0.1/",
        "HTTP://EXAMPLE.COM/a?b=c#d",
        "urn:isbn:0451450523",
        "http://example.com/{id}",
        "http://\u{212a}.example/",
        "",
        "http:",
        "HTTP:",
        "a:b",
        "x:/",
        "1a:b",
        "a+b.c-d:x",
        "tel:+1-816-555-1212",
        "mailto:someone@example.com",
        "http://example.com:abc/",
        "http://example.com:/",
        "http://[v1.x]/",
        "http://[::1]x/",
        "http://[1.2.3.4]/",
        "http://ex%41mple.com/",
        "http://example.com/#a#b",
        "http://example.com/?q=\"x\"",
        "http://example.com/a|b",
        "http://example.com/a\\b",
        "http://example.com/a^b",
        "http://user@/",
        "//example.com/a",
        "file:///tmp/a",
        "http://example.com/\u{0}",
    ]
    .into_iter()
    .enumerate()
    {
        add(
            &format!("request.url #{i} {url:?}"),
            set(&at("/request/url"), json!(url)),
        );
    }
    add(
        "request.bodySize unsafe (null)",
        set(&at("/request/bodySize"), Value::Null),
    );
    add(
        "request.bodySize 1.5",
        set(&at("/request/bodySize"), json!(1.5)),
    );
    add(
        "request.bodySize 2.0",
        set(&at("/request/bodySize"), json!(2.0)),
    );
    add(
        "request.bodySize 1e20",
        set(&at("/request/bodySize"), json!(1e20)),
    );
    add(
        "request.headersSize string",
        set(&at("/request/headersSize"), json!("-1")),
    );
    add(
        "response.status 200.5",
        set(&at("/response/status"), json!(200.5)),
    );
    add(
        "response.status string",
        set(&at("/response/status"), json!("200")),
    );
    add(
        "response.content.size unsafe (null)",
        set(&at("/response/content/size"), Value::Null),
    );
    add(
        "response.content.compression 0.5",
        set(&at("/response/content/compression"), json!(0.5)),
    );
    add(
        "response.content missing mimeType",
        drop(&at("/response/content/mimeType")),
    );
    add(
        "response.content.text null",
        set(&at("/response/content/text"), Value::Null),
    );
    add("entry.time unsafe (null)", set(&at("/time"), Value::Null));
    add("entry.time negative", set(&at("/time"), json!(-5)));
    add(
        "timings.send unsafe (null)",
        set(&at("/timings/send"), Value::Null),
    );
    add("timings missing wait", drop(&at("/timings/wait")));
    add(
        "timings is a number (no type in schema)",
        set(&at("/timings"), json!(5)),
    );
    add(
        "cache is a string (no type in schema)",
        set(&at("/cache"), json!("none")),
    );
    add(
        "cache.beforeRequest empty object",
        set(&at("/cache/beforeRequest"), json!({})),
    );
    add("cache.afterRequest lastAccess non-ASCII digits", set(&at("/cache/afterRequest/lastAccess"), json!("\u{662}\u{660}\u{662}\u{666}\u{660}\u{661}\u{660}\u{662}\u{660}\u{663}\u{660}\u{664}\u{660}\u{665}")));
    add(
        "cache.afterRequest lastAccess compact",
        set(
            &at("/cache/afterRequest/lastAccess"),
            json!("20260102T030405"),
        ),
    );
    add(
        "cache.afterRequest hitCount null (unsafe)",
        set(&at("/cache/afterRequest/hitCount"), Value::Null),
    );
    add(
        "postData.params with members (array: ignored)",
        set(&at("/request/postData/params"), json!([{"value": 1}])),
    );
    add(
        "postData.params not an array",
        set(&at("/request/postData/params"), json!({"name": 1})),
    );
    add(
        "postData missing mimeType",
        drop(&at("/request/postData/mimeType")),
    );
    for (i, date) in [
        "yesterday",
        "2026-01-02T03:04:05",
        "2026-01-02t03:04:05.1z",
        "2026-01-02 03:04:05Z",
        "2026-02-29T00:00:00Z",
        "2024-02-29T00:00:00Z",
        "2026-06-30T23:59:60Z",
        "2026-06-30T23:59:61Z",
        "2026-01-02T03:04:05+0100",
        "2026-01-02T03:04:05-05",
        "2026-01-02T03:04:05+24:00",
        "2026-01-02T03:04:05Z trailing",
        "\u{661}026-01-02T03:04:05Z",
        "2026-01-02\u{2028}03:04:05Z",
        "2026-01-02T03:04:05.123456789Z",
        "2026-01-02T03:04:05,5Z",
        "2026-01-02T3:04:05Z",
        "2026-01-02T03:04:05z",
        "2026-01-02t03:04:05Z",
        "2026-07-01T00:59:60+01:00",
        "2026-06-30T23:59:60.5+00:00",
        "2026-01-02T03:04:60Z",
        "2026-01-02T03:04:05+01:",
        "2026-01-02T03:04:05+1:00",
        "2026-01-02T03:04:05+01:00:00",
        "20260102T030405Z",
        "0000-01-01T00:00:00Z",
        "2026-01-02T03:04:05.Z",
    ]
    .into_iter()
    .enumerate()
    {
        add(
            &format!("startedDateTime #{i} {date:?}"),
            set(&at("/startedDateTime"), json!(date)),
        );
        // cookie.expires has the format without har-schema's pattern.
        add(
            &format!("cookie.expires #{i} {date:?}"),
            set(&at("/request/cookies/0/expires"), json!(date)),
        );
    }
    for (i, address) in [
        "256.1.1.1",
        "1.2.3",
        "01.2.3.4",
        "::ffff:1.2.3.4",
        "2001:DB8::1",
        "fe80::1%eth0",
        "::g",
        "[::1]",
        "",
        "1:2:3:4:5:6:7::",
        "1::2:3:4:5:6:7",
        "1::2:3:4:5:6:7:8",
        "::ffff:1.2.3.04",
        "::ffff:1.2.3.256",
        "1:2:3:4:5:6:1.2.3.4",
        "1:2:3:4:5:6:7:1.2.3.4",
        "::1.2.3.4",
        "0000:0000:0000:0000:0000:0000:0000:0001",
        "00000::1",
        "::1 ",
        "1.2.3.4\n",
        "\u{661}.2.3.4",
        "1.2.3.4.5",
        "0.0.0.0",
        "1.02.3.4",
    ]
    .into_iter()
    .enumerate()
    {
        add(
            &format!("serverIPAddress #{i} {address:?}"),
            set(&at("/serverIPAddress"), json!(address)),
        );
    }
    add(
        "serverIPAddress number",
        set(&at("/serverIPAddress"), json!(127)),
    );
    add("extension members everywhere", {
        let mut doc = base(firefox());
        doc["_root"] = json!(1);
        doc["log"]["_x"] = json!({"__proto__": {"polluted": true}});
        doc["log"]["entries"][0]["_resourceType"] = json!("xhr");
        doc["log"]["entries"][0]["request"]["_unsafe"] = Value::Null;
        doc["log"]["entries"][0]["response"]["_huge"] = json!(1e300);
        doc["log"]["entries"][0]["response"]["_u64"] = json!(u64::MAX);
        doc["log"]["entries"][0]["timings"]["_queued"] = json!(-0.0);
        doc
    });
    add(
        "__proto__ member in an entry",
        set(&at("/__proto__"), json!({"polluted": true})),
    );

    // Producer profiles, with and without their exact creator.
    for (name, creator) in [
        ("mitmproxy 12.2.3", mitmproxy()),
        (
            "mitmproxy 12.2.2",
            json!({"name": "mitmproxy", "version": "12.2.2"}),
        ),
        ("Firefox", firefox()),
        ("Playwright 1.58.2", playwright("1.58.2")),
    ] {
        add(
            &format!("{name}: postData.text null"),
            variant(
                creator.clone(),
                &at("/request/postData/text"),
                Some(Value::Null),
            ),
        );
        add(
            &format!("{name}: postData.text 0"),
            variant(
                creator.clone(),
                &at("/request/postData/text"),
                Some(json!(0)),
            ),
        );
    }
    for (name, creator) in [
        ("Playwright 1.58.2", playwright("1.58.2")),
        ("Playwright 1.57.0", playwright("1.57.0")),
        (
            "playwright 1.58.2 (lower case)",
            json!({"name": "playwright", "version": "1.58.2"}),
        ),
        ("mitmproxy 12.2.3", mitmproxy()),
    ] {
        for address in [
            "[2001:db8::1]",
            "[::1]",
            "[::ffff:127.0.0.1]",
            "[127.0.0.1]",
            "[::1]:443",
            "[fe80::1%eth0]",
            "[::g]",
            "[]",
            "[[::1]]",
            "127.0.0.1",
        ] {
            add(
                &format!("{name}: serverIPAddress {address:?}"),
                variant(
                    creator.clone(),
                    &at("/serverIPAddress"),
                    Some(json!(address)),
                ),
            );
        }
    }
    add("Playwright 1.58.2 with creator.version a number", {
        let mut doc = variant(
            playwright("1.58.2"),
            &at("/serverIPAddress"),
            Some(json!("[::1]")),
        );
        doc["log"]["creator"]["version"] = json!(1.58);
        doc
    });
    cases
}

#[test]
fn hostile_variants_match_ajv() {
    let cases = hostile_cases();
    assert!(cases.len() >= 25);
    // Sanity: the relaxations do what the profiles promise.
    let pw = variant(
        playwright("1.58.2"),
        &format!("{E}/serverIPAddress"),
        Some(json!("[::1]")),
    );
    assert_eq!(validate_har(&pw), Ok(Some(ProducerProfile::Playwright)));
    assert_same_verdicts(&cases);
}

/// A small deterministic generator (xorshift64*), so mutants are the same
/// in every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Values that probe types and formats.
fn tricky_values() -> Vec<Value> {
    vec![
        Value::Null,
        json!(true),
        json!(0),
        json!(-1),
        json!(1.5),
        json!(2.0),
        json!(1e300),
        json!(""),
        json!("x"),
        json!([]),
        json!({}),
        json!([{}]),
        json!("2026-01-02T03:04:05Z"),
        json!("2026-01-02 03:04:05.5-08:00"),
        json!("2026-13-02T03:04:05Z"),
        json!("2026-01-02T03:04:05"),
        json!("127.0.0.1"),
        json!("::1"),
        json!("[::1]"),
        json!("fe80::1%eth0"),
        json!("http://127.0.0.1:8888/v1/"),
        json!("urn:x"),
        json!("no uri"),
    ]
}

/// Every pointer in `doc`, in document order.
fn all_pointers(doc: &Value, prefix: String, out: &mut Vec<String>) {
    match doc {
        Value::Object(map) => {
            for (key, value) in map {
                let p = format!("{prefix}/{}", key.replace('~', "~0").replace('/', "~1"));
                out.push(p.clone());
                all_pointers(value, p, out);
            }
        }
        Value::Array(items) => {
            for (index, value) in items.iter().enumerate() {
                let p = format!("{prefix}/{index}");
                out.push(p.clone());
                all_pointers(value, p, out);
            }
        }
        _ => {}
    }
}

#[test]
fn seeded_mutants_match_ajv() {
    let bases = [
        base(firefox()),
        base(mitmproxy()),
        base(playwright("1.58.2")),
    ];
    let values = tricky_values();
    let mut rng = Rng(0x5eed_0fea_u64);
    let mut cases = Vec::new();
    for n in 0..600 {
        let mut doc = bases[n % bases.len()].clone();
        for _ in 0..=rng.below(2) {
            let mut pointers = Vec::new();
            all_pointers(&doc, String::new(), &mut pointers);
            let pointer = pointers[rng.below(pointers.len())].clone();
            let value = values[rng.below(values.len())].clone();
            if let Some(slot) = doc.pointer_mut(&pointer) {
                *slot = value;
            }
        }
        cases.push((format!("mutant #{n}"), doc));
    }
    assert_same_verdicts(&cases);
}

/// Seed strings for the format fuzz, valid under their format.
const DATE_SEEDS: [&str; 5] = [
    "2026-01-02T03:04:05.678Z",
    "2024-02-29t23:59:59+05:30",
    "2026-06-30 23:59:60-0100",
    "2000-12-31T00:00:00.5+23:59",
    "1999-01-01T12:00:00z",
];
const ADDRESS_SEEDS: [&str; 6] = [
    "127.0.0.1",
    "255.255.255.255",
    "2001:db8::1",
    "::ffff:192.168.0.1",
    "1:2:3:4:5:6:7:8",
    "fe80::",
];
const URI_SEEDS: [&str; 6] = [
    "http://127.0.0.1:8888/v1/buckets?_limit=10&x=%20#frag",
    "https://user:pw@[2001:db8::1]:443/a/b;c=d",
    "urn:isbn:0451450523",
    "mailto:someone@example.com",
    "http://[v1.fe]/x",
    "file:///tmp/a.har",
];

/// Characters the edits draw from: the syntax of the three formats, and a
/// few that JavaScript and Rust could treat differently.
const EDIT_CHARS: [char; 40] = [
    '0', '1', '2', '5', '9', ':', '.', '-', '+', 'T', 't', 'Z', 'z', ' ', '/', '?', '#', '[', ']',
    '%', '@', 'a', 'f', 'g', 'F', 'x', 'v', '~', '{', '\\', '\u{a0}', '\u{2028}', '\u{85}',
    '\u{661}', '\u{212a}', '\u{17f}', '\u{e9}', '\n', '\t', '\u{feff}',
];

/// `seed` with one to three random single-character edits.
fn edited(rng: &mut Rng, seed: &str) -> String {
    let mut chars: Vec<char> = seed.chars().collect();
    for _ in 0..=rng.below(3) {
        let at = rng.below(chars.len() + 1);
        let c = EDIT_CHARS[rng.below(EDIT_CHARS.len())];
        match rng.below(3) {
            0 => chars.insert(at, c),
            1 if at < chars.len() => chars[at] = c,
            _ if at < chars.len() => {
                chars.remove(at);
            }
            _ => chars.push(c),
        }
    }
    chars.into_iter().collect()
}

/// The format checks (date-time, ipv4/ipv6, uri) agree with ajv-formats on
/// thousands of near-valid strings, each placed where har-schema checks it.
#[test]
fn format_fuzz_matches_ajv() {
    let mut rng = Rng(0x00f0_2a7d_u64);
    let mut cases = Vec::new();
    for n in 0..2400 {
        let (pointer, seeds): (&str, &[&str]) = match n % 3 {
            0 => ("/request/cookies/0/expires", &DATE_SEEDS),
            1 => ("/serverIPAddress", &ADDRESS_SEEDS),
            _ => ("/request/url", &URI_SEEDS),
        };
        let seed = seeds[rng.below(seeds.len())];
        let text = edited(&mut rng, seed);
        let creator = if n % 7 == 0 {
            playwright("1.58.2")
        } else {
            firefox()
        };
        let text = if pointer == "/serverIPAddress" && n % 5 == 0 {
            format!("[{text}]")
        } else {
            text
        };
        let doc = variant(creator, &format!("{E}{pointer}"), Some(json!(text)));
        cases.push((format!("format fuzz #{n} {pointer} {text:?}"), doc));
    }
    assert_same_verdicts(&cases);
}
