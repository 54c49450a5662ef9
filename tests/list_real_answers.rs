//! json-server dev-a's fake against json-server 0.17.4 itself, on the same
//! seed (`tests/fixtures/real-answers/jsonserver.json`, recorded by
//! `record.py` from a freshly seeded server, README there): `_like` read
//! as a regular expression (an anchor, an alternation, a character class;
//! dev-a only ever sent a word), filter + sort + page following
//! `Link: rel="next"` to the end, comparisons on values no capture used, a
//! nested route of a parent no capture read that way. Every page equals the
//! real answer, a next link is given exactly where the app gave one, and
//! the same narrowing over MCP answers the same bytes as over HTTP.

mod common;

use common::{block, repo_root, Mcp, Server};
use serde_json::{json, Value};

fn cases() -> Vec<Value> {
    let path = repo_root().join("tests/fixtures/real-answers/jsonserver.json");
    let doc: Value = serde_json::from_slice(&std::fs::read(path).expect("real answers")).unwrap();
    doc["cases"].as_array().unwrap().clone()
}

/// The path and query of a `Link` header's `rel="next"` URL.
fn next_of(link: Option<&str>) -> Option<String> {
    let part = link?.split(',').find(|p| p.contains("rel=\"next\""))?;
    let url = &part[part.find('<')? + 1..part.find('>')?];
    let after = url.split_once("://").map_or(url, |(_, r)| r);
    Some(after[after.find('/')?..].to_string())
}

#[test]
fn json_server_lists_match_the_real_app() {
    let server = Server::start(
        &repo_root().join("tests/fixtures/jsonserver/dev-a.har"),
        &[],
    );
    let cases = cases();
    assert_eq!(cases.len(), 6);
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let pages = case["pages"].as_array().unwrap();
        let path = case["path"].as_str().unwrap();
        let mut target = match pages[0]["query"].as_str() {
            Some(q) => format!("{path}?{q}"),
            None => path.to_string(),
        };
        for (k, real) in pages.iter().enumerate() {
            let r = server.get(&target);
            assert_eq!(r.status, real["status"], "{name} page {k}: {}", r.text());
            assert_eq!(r.json(), real["answer"], "{name} page {k} ({target})");
            let real_next = next_of(real["headers"]["Link"].as_str());
            let next = next_of(r.header("Link"));
            assert_eq!(
                next.is_some(),
                real_next.is_some(),
                "{name} page {k}: next link"
            );
            if let Some(n) = next {
                assert_eq!(Some(&n), real_next.as_ref(), "{name} page {k}: next");
                target = n;
            }
        }
    }
    // The same narrowing over MCP: the same bytes as over HTTP.
    let http = server.get("/posts?title_like=%5E(rust%7Cguide)&_sort=views&_order=asc");
    let mut mcp = Mcp::connect(server.addr);
    let result = mcp.call(
        "get_posts",
        json!({"title_like": "^(rust|guide)", "_sort": "views", "_order": "asc"}),
    );
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(block(&result, 0).as_bytes(), http.body.as_slice());
    assert_eq!(http.json(), cases[0]["pages"][0]["answer"]);
}
