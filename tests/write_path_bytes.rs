//! The write path answers the same bytes whatever its speed: a fixed
//! GET/PATCH/GET/POST/DELETE script against a served Kinto, json-server and
//! DRF capture, every answer (status, headers, body) compared with a
//! committed expectation made before the write path's speed work
//! (`tests/golden/write_path/<app>.txt`). Values the clock or the id
//! generator draw (13-digit epoch milliseconds, UUIDs, ISO and HTTP date-times) are
//! written as placeholders; `Date` and `Content-Length` are left out, and an `ETag` hashed from
//! such a body is a placeholder too (the body itself is compared). `REA_BLESS_WRITE_PATH=1`
//! rewrites the expectations.

mod common;

use common::{http, repo_root, Server};
use serde_json::Value;

/// One step: method, target, body; `{new}` in the target is the id the
/// last create answered.
type Step = (&'static str, &'static str, Option<&'static str>);

fn run(app: &str, capture: &str, steps: &[Step]) {
    let server = Server::start(&repo_root().join(capture), &[]);
    let mut out = String::new();
    let mut new_id = String::new();
    for (method, target, body) in steps {
        let target = target.replace("{new}", &new_id);
        let headers: &[(&str, &str)] = if body.is_some() {
            &[("Content-Type", "application/json")]
        } else {
            &[]
        };
        let r = http(server.addr, method, &target, headers, *body);
        out.push_str(&format!("> {method} {target}\n< {}\n", r.status));
        for (n, v) in &r.headers {
            if n.eq_ignore_ascii_case("date") || n.eq_ignore_ascii_case("content-length") {
                continue;
            }
            // A validator hashed from a body that holds drawn values.
            let hashed = n.eq_ignore_ascii_case("etag")
                && v.len() == 18
                && v.trim_matches('"').bytes().all(|c| c.is_ascii_hexdigit());
            let v = if hashed {
                "\"<body-hash>\""
            } else {
                v.as_str()
            };
            out.push_str(&format!("{}: {}\n", n.to_ascii_lowercase(), v));
        }
        out.push_str(&r.text().replace(&server.addr.to_string(), "<addr>"));
        out.push_str("\n\n");
        if *method == "POST" && (200..300).contains(&r.status) {
            if let Ok(v) = serde_json::from_slice::<Value>(&r.body) {
                let id = v.pointer("/data/id").or_else(|| v.get("id"));
                new_id = match id {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => new_id,
                };
            }
        }
    }
    let got = normalized(&out);
    let path = repo_root().join(format!("tests/golden/write_path/{app}.txt"));
    if std::env::var_os("REA_BLESS_WRITE_PATH").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).expect("the committed expectation");
    if got != want {
        let at = got
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        panic!(
            "{app}: the answers differ from {} at line {}:\n got: {:?}\nwant: {:?}",
            path.display(),
            at + 1,
            got.lines().nth(at),
            want.lines().nth(at)
        );
    }
}

/// Clock and generator values as placeholders.
fn normalized(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        if let Some(n) = uuid_at(b, i) {
            out.push_str("<uuid>");
            i += n;
        } else if let Some(n) = http_date_at(b, i) {
            out.push_str("<http-date>");
            i += n;
        } else if let Some(n) = datetime_at(b, i) {
            out.push_str("<datetime>");
            i += n;
        } else if b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_digit()) {
            let n = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
            if n == 13 {
                out.push_str("<ms>");
            } else {
                out.push_str(&text[i..i + n]);
            }
            i += n;
        } else {
            let ch = text[i..].chars().next().unwrap();
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

fn uuid_at(b: &[u8], i: usize) -> Option<usize> {
    let groups = [8, 4, 4, 4, 12];
    let mut at = i;
    for (g, len) in groups.iter().enumerate() {
        if g > 0 {
            (b.get(at) == Some(&b'-')).then_some(())?;
            at += 1;
        }
        let run = b.get(at..at + len)?;
        run.iter().all(u8::is_ascii_hexdigit).then_some(())?;
        at += len;
    }
    let boundary = |c: Option<&u8>| c.is_none_or(|c| !c.is_ascii_alphanumeric());
    (boundary(i.checked_sub(1).and_then(|j| b.get(j))) && boundary(b.get(at))).then_some(at - i)
}

/// `Wed, 02 Dec 2026 05:44:48 GMT`.
fn http_date_at(b: &[u8], i: usize) -> Option<usize> {
    let shape = b"aaa, dd aaa dddd dd:dd:dd GMT";
    let run = b.get(i..i + shape.len())?;
    let fits = run.iter().zip(shape).all(|(c, s)| match s {
        b'd' => c.is_ascii_digit(),
        b'a' => c.is_ascii_alphabetic(),
        other => c == other,
    });
    fits.then_some(shape.len())
}

fn datetime_at(b: &[u8], i: usize) -> Option<usize> {
    let shape = b"dddd-dd-ddTdd:dd:dd";
    let run = b.get(i..i + shape.len())?;
    let fits = run.iter().zip(shape).all(|(c, s)| match s {
        b'd' => c.is_ascii_digit(),
        b'T' => *c == b'T' || *c == b' ',
        other => c == other,
    });
    fits.then_some(())?;
    let mut at = i + shape.len();
    if b.get(at) == Some(&b'.') {
        at += 1;
        at += b[at..].iter().take_while(|c| c.is_ascii_digit()).count();
    }
    if b.get(at) == Some(&b'Z') {
        at += 1;
    } else if matches!(b.get(at), Some(b'+' | b'-'))
        && b.get(at + 1..at + 6).is_some_and(|z| {
            z[0].is_ascii_digit() && z[1].is_ascii_digit() && z[2] == b':' && z[3].is_ascii_digit()
        })
    {
        at += 6;
    }
    Some(at - i)
}

#[test]
fn kinto_writes_answer_the_same_bytes() {
    let item = "/v1/buckets/shop/collections/products/records/prod-001";
    let list = "/v1/buckets/shop/collections/products/records";
    let new = "/v1/buckets/shop/collections/products/records/{new}";
    run(
        "kinto",
        "tests/fixtures/kinto/dev-a.har",
        &[
            ("GET", item, None),
            ("PATCH", item, Some(r#"{"data": {"active": false}}"#)),
            ("GET", item, None),
            (
                "PATCH",
                item,
                Some(r#"{"data": {"stock": 3, "tags": null}}"#),
            ),
            ("GET", item, None),
            (
                "POST",
                list,
                Some(r#"{"data": {"name": "Kettle", "sku": "K-1", "price": 30.5, "stock": 4}}"#),
            ),
            ("GET", new, None),
            ("PATCH", new, Some(r#"{"data": {"price": 31}}"#)),
            ("GET", new, None),
            ("GET", list, None),
            ("DELETE", new, None),
            ("GET", new, None),
            ("PATCH", new, Some(r#"{"data": {"price": 1}}"#)),
            ("DELETE", item, None),
            ("GET", item, None),
            ("GET", list, None),
        ],
    );
}

#[test]
fn jsonserver_writes_answer_the_same_bytes() {
    run(
        "jsonserver",
        "tests/fixtures/jsonserver/dev-a.har",
        &[
            ("GET", "/posts/4", None),
            (
                "PATCH",
                "/posts/4",
                Some(r#"{"views":10,"published":true}"#),
            ),
            ("GET", "/posts/4", None),
            (
                "POST",
                "/posts",
                Some(r#"{"title":"Bench","body":"x","authorId":3,"category":"tech","views":0}"#),
            ),
            ("GET", "/posts/{new}", None),
            ("PATCH", "/posts/{new}", Some(r#"{"views":2}"#)),
            ("GET", "/posts/{new}", None),
            ("DELETE", "/posts/{new}", None),
            ("GET", "/posts/{new}", None),
            ("PATCH", "/authors/2", Some(r#"{"rating":4.9,"bio":null}"#)),
            ("GET", "/authors/2", None),
            ("DELETE", "/posts/5", None),
            ("GET", "/posts", None),
        ],
    );
}

#[test]
fn drf_writes_answer_the_same_bytes() {
    run(
        "drf",
        "tests/fixtures/drf/dev-a.har",
        &[
            ("GET", "/api/tasks/12/", None),
            (
                "PATCH",
                "/api/tasks/12/",
                Some(r#"{"done":true,"status":"done"}"#),
            ),
            ("GET", "/api/tasks/12/", None),
            (
                "POST",
                "/api/tasks/",
                Some(
                    r#"{"project":1,"title":"Bench","status":"todo","priority":2,"estimate":4.0}"#,
                ),
            ),
            ("GET", "/api/tasks/{new}/", None),
            ("PATCH", "/api/tasks/{new}/", Some(r#"{"estimate":6.5}"#)),
            ("GET", "/api/tasks/{new}/", None),
            ("DELETE", "/api/tasks/{new}/", None),
            ("GET", "/api/tasks/{new}/", None),
            (
                "PATCH",
                "/api/projects/3/",
                Some(r#"{"active":true,"description":null}"#),
            ),
            ("GET", "/api/projects/3/", None),
            ("GET", "/api/tasks/", None),
        ],
    );
}
