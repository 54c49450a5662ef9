//! The write representation (`model::write_shape`) served by `rea
//! environment-serve` trained on WordPress dev-a and compared with what the
//! real app answered in dev-b: a page update and a page create answer the
//! members the posts' write answers carry beyond the read shape (dev-a never
//! wrote a page), the list after them shows the read shape only, and the
//! forced delete's `previous` is the full entity in the write
//! representation. The apps whose write answers are their read shape get no
//! such members (`write_shape::tests`, on Kinto, MLflow, Redmine, DRF,
//! json-server and pouchdb-server); here DRF's update answer is checked to
//! stay exactly as recorded.

mod common;

use common::{repo_root, Server};
use serde_json::Value;

/// The recorded entries of a capture: (method, path?query, request body, status, answer).
fn entries(capture: &std::path::Path) -> Vec<(String, String, Option<Value>, u16, Value)> {
    let har: Value = serde_json::from_slice(&std::fs::read(capture).expect("capture")).unwrap();
    har["log"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let url = e["request"]["url"].as_str().unwrap();
            let after_scheme = url.split_once("://").unwrap().1;
            let target = &after_scheme[after_scheme.find('/').unwrap()..];
            let body = e["request"]["postData"]["text"]
                .as_str()
                .and_then(|t| serde_json::from_str(t).ok());
            let text = e["response"]["content"]["text"].as_str().unwrap_or("");
            (
                e["request"]["method"].as_str().unwrap().to_string(),
                target.to_string(),
                body,
                e["response"]["status"].as_u64().unwrap() as u16,
                serde_json::from_str(text).unwrap_or(Value::Null),
            )
        })
        .collect()
}

/// Origins as one placeholder, and the members the server takes from its
/// clock left out (the fidelity harness compares both by shape).
fn normalized(v: &Value) -> Value {
    fn walk(v: &mut Value) {
        match v {
            Value::Object(m) => {
                for clock in ["date", "date_gmt", "modified", "modified_gmt"] {
                    m.remove(clock);
                }
                m.values_mut().for_each(walk);
            }
            Value::Array(a) => a.iter_mut().for_each(walk),
            Value::String(s) => {
                while let Some(at) = s.find("http://127.0.0.1:") {
                    let rest = &s[at + "http://127.0.0.1:".len()..];
                    let digits = rest.chars().take_while(char::is_ascii_digit).count();
                    let end = at + "http://127.0.0.1:".len() + digits;
                    s.replace_range(at..end, "http://HOST");
                }
            }
            _ => {}
        }
    }
    let mut v = v.clone();
    walk(&mut v);
    v
}

/// Replays dev-b's entries `from..=to` (1-based) against the server and
/// returns what it answered, asserting the status of each.
fn replay(
    server: &Server,
    all: &[(String, String, Option<Value>, u16, Value)],
    from: usize,
    to: usize,
) -> Vec<Value> {
    (from..=to)
        .map(|n| {
            let (method, target, body, status, _) = &all[n - 1];
            let r = server.send(method, target, body.as_ref());
            assert_eq!(
                r.status,
                *status,
                "dev-b #{n} {method} {target}: {}",
                r.text()
            );
            r.json()
        })
        .collect()
}

fn wordpress(session: &str) -> std::path::PathBuf {
    repo_root()
        .join("tests/fixtures/wordpress")
        .join(format!("{session}.har"))
}

#[test]
fn a_page_update_and_create_answer_the_write_members_a_sibling_s_writes_show() {
    let b = entries(&wordpress("dev-b"));
    let server = Server::start(&wordpress("dev-a"), &[]);
    // #18 GET /pages … #23 DELETE /pages/28?force=true.
    let served = replay(&server, &b, 18, 23);
    for (i, answer) in served.iter().enumerate() {
        let n = 18 + i;
        let (method, target, _, _, recorded) = &b[n - 1];
        assert_eq!(
            normalized(answer),
            normalized(recorded),
            "dev-b #{n} {method} {target}"
        );
    }
    // The update and the create carry the edit members; the list between
    // them (#22) shows the created page in the read shape only.
    for (i, member) in [
        (2, "password"),
        (3, "permalink_template"),
        (3, "generated_slug"),
    ] {
        assert!(served[i].get(member).is_some(), "#{} {member}", 18 + i);
    }
    assert_eq!(
        served[3]["permalink_template"]
            .as_str()
            .unwrap()
            .rsplit('/')
            .nth(1),
        Some("%pagename%"),
        "the template quotes the page's own type"
    );
    assert!(served[4][0].get("password").is_none());
    assert!(served[4][0]["title"].get("raw").is_none());
    // The forced delete quotes the full entity, without the links.
    let previous = &served[5]["previous"];
    assert_eq!(previous["guid"]["raw"], previous["guid"]["rendered"]);
    assert!(previous.get("_links").is_none());
    assert!(previous.get("menu_order").is_some() && previous.get("parent").is_some());
}

#[test]
fn a_post_update_recomputes_the_derived_members_and_keeps_the_rest() {
    // A seed post (read only in the read shape) updated through the model:
    // its answer gains the write members, `generated_slug` follows the new
    // title while `slug` and `guid` stay.
    let server = Server::start(&wordpress("dev-a"), &[]);
    let before = server.get("/wp-json/wp/v2/posts/8").json();
    assert!(before.get("generated_slug").is_none());
    let body = serde_json::json!({"title": "Cold Brew, Revisited"});
    let r = server.send("PATCH", "/wp-json/wp/v2/posts/8", Some(&body));
    assert_eq!(r.status, 200, "{}", r.text());
    let after = r.json();
    assert_eq!(after["generated_slug"], "cold-brew-revisited");
    assert_eq!(after["slug"], before["slug"]);
    assert_eq!(after["guid"]["rendered"], before["guid"]["rendered"]);
    assert_eq!(after["guid"]["raw"], before["guid"]["rendered"]);
    assert_eq!(after["password"], "");
    assert_eq!(after["title"]["raw"], "Cold Brew, Revisited");
    let slug = before["slug"].as_str().unwrap();
    let template = after["permalink_template"].as_str().unwrap();
    assert_eq!(
        template,
        before["link"].as_str().unwrap().replace(slug, "%postname%")
    );
    // A read shows the read shape again.
    let read = server.get("/wp-json/wp/v2/posts/8").json();
    assert!(read.get("generated_slug").is_none() && read["title"].get("raw").is_none());
    assert_eq!(read["title"]["rendered"], "Cold Brew, Revisited");
}

#[test]
fn an_app_whose_write_answers_are_its_read_shape_answers_as_recorded() {
    // DRF dev-b: a create, then its PATCH, answered exactly as the real app
    // did (the kind adds nothing where the writes show no extra member).
    let capture = |s: &str| {
        repo_root()
            .join("tests/fixtures/drf")
            .join(format!("{s}.har"))
    };
    let b = entries(&capture("dev-b"));
    let server = Server::start(&capture("dev-a"), &[]);
    let writes: Vec<usize> = (1..=b.len())
        .filter(|n| matches!(b[n - 1].0.as_str(), "POST" | "PATCH" | "PUT"))
        .filter(|n| b[n - 1].3 < 300)
        .take(2)
        .collect();
    assert_eq!(writes.len(), 2, "dev-b has a create and an update");
    let served = replay(&server, &b, 1, writes[1]);
    for n in writes {
        let keys = |v: &Value| {
            v.as_object()
                .map(|o| o.keys().cloned().collect::<Vec<_>>())
                .unwrap_or_default()
        };
        assert_eq!(
            keys(&served[n - 1]),
            keys(&b[n - 1].4),
            "dev-b #{n} members"
        );
    }
}

#[test]
fn a_draft_created_then_published_keeps_the_guid_of_its_creation() {
    // dev-b #28 creates a draft (dev-a created only published posts), #29
    // publishes it, #30 lists it, #31 deletes it for good. The draft's link
    // and guid take the key form (`?p=29`, the form dev-a's soft delete
    // showed); published, the link takes the slug form and the guid keeps
    // the key form, as the real app answered.
    let b = entries(&wordpress("dev-b"));
    let server = Server::start(&wordpress("dev-a"), &[]);
    // The session before it, as sent (its creates draw ids from the same counter).
    for (method, target, body, _, _) in &b[..23] {
        server.send(method, target, body.as_ref());
    }
    let served = replay(&server, &b, 24, 31);
    let at = |n: usize| &served[n - 24];
    let created = at(28);
    let recorded = &b[28 - 1].4;
    for p in ["/link", "/guid/rendered", "/guid/raw"] {
        assert_eq!(
            normalized(created.pointer(p).unwrap()),
            normalized(recorded.pointer(p).unwrap()),
            "#28 {p}"
        );
    }
    // What #28 gets wrong, and the recording cannot tell: a draft's empty
    // slug and content (`block_version` 0: dev-a shows only 1).
    assert_ne!(created["slug"], recorded["slug"]);
    for n in 29..=31 {
        let (method, target, _, _, recorded) = &b[n - 1];
        assert_eq!(
            normalized(at(n)),
            normalized(recorded),
            "dev-b #{n} {method} {target}"
        );
    }
}
