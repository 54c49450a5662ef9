//! The same narrowing over MCP as over HTTP, for relations and document
//! store reads: a nested route of a parent the recording never used, an
//! embed and an expansion (json-server), row lists with parameters their
//! own recording never used and search POSTs with unseen selectors
//! (pouchdb-server). Each MCP `tools/call` answers the bytes the HTTP
//! request answers, on one server built from dev-a, and those answers are
//! the real app's (its answers to the same requests in dev-b.har, recorded
//! from the same seed; see each fixture's README). The tools' input schemas
//! offer what the model understands.

mod common;

use common::{block, repo_root, Mcp, Server};
use serde_json::{json, Value};
use std::path::PathBuf;

fn fixture(app: &str, name: &str) -> PathBuf {
    repo_root().join("tests/fixtures").join(app).join(name)
}

/// The real app's answer to `method target` (with `body`) in `dev-b.har`.
fn real(app: &str, method: &str, target: &str, body: Option<&Value>) -> Value {
    let har: Value =
        serde_json::from_slice(&std::fs::read(fixture(app, "dev-b.har")).unwrap()).unwrap();
    let entry = har["log"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| {
            let url = e["request"]["url"].as_str().unwrap_or("");
            let path = url.splitn(4, '/').nth(3).map(|p| format!("/{p}"));
            let sent = e["request"]["postData"]["text"]
                .as_str()
                .and_then(|t| serde_json::from_str::<Value>(t).ok());
            e["request"]["method"] == method
                && path.as_deref() == Some(target)
                && sent.as_ref() == body
        })
        .unwrap_or_else(|| panic!("dev-b has no {method} {target}"));
    serde_json::from_str(entry["response"]["content"]["text"].as_str().unwrap()).unwrap()
}

fn tool<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

/// Calls `name` over MCP and `method target` over HTTP: the same bytes,
/// and they are the real app's answer.
fn same_as_http_and_real(
    server: &Server,
    mcp: &mut Mcp,
    app: &str,
    (name, arguments): (&str, Value),
    (method, target, body): (&str, &str, Option<Value>),
) {
    let result = mcp.call(name, arguments.clone());
    assert_eq!(result["isError"], false, "{name} {arguments}: {result}");
    let http = server.send(method, target, body.as_ref());
    assert_eq!(http.status, 200, "{target}: {}", http.text());
    assert_eq!(
        block(&result, 0).as_bytes(),
        http.body.as_slice(),
        "{name} {arguments}: MCP and HTTP differ"
    );
    assert_eq!(
        http.json(),
        real(app, method, target, body.as_ref()),
        "{target}: not the real app's answer"
    );
}

#[test]
fn json_server_relations_over_mcp_answer_the_http_bytes() {
    let server = Server::start(&fixture("jsonserver", "dev-a.har"), &[]);
    let mut mcp = Mcp::connect(server.addr);
    let tools = mcp.tools();
    // The item tool's path argument is named as its schema names it.
    let item = tool(&tools, "get_posts_by_id");
    assert_eq!(item["inputSchema"]["required"], json!(["id"]), "{item}");
    for (call, request) in [
        // A nested route of a parent dev-a never used (dev-a: /posts/1/comments).
        (
            ("get_posts_comments_by_id", json!({"id": "9"})),
            ("GET", "/posts/9/comments", None),
        ),
        // An embed and an expansion of entities dev-a never embedded.
        (
            ("get_posts_by_id", json!({"id": "6", "_embed": "comments"})),
            ("GET", "/posts/6?_embed=comments", None),
        ),
        (
            ("get_comments_by_id", json!({"id": 12, "_expand": "post"})),
            ("GET", "/comments/12?_expand=post", None),
        ),
        // The relation as a filter of the child list, over the list tool.
        (
            ("get_comments", json!({"likes_gte": 20, "approved": "true"})),
            ("GET", "/comments?likes_gte=20&approved=true", None),
        ),
    ] {
        same_as_http_and_real(&server, &mut mcp, "jsonserver", call, request);
    }
}

#[test]
fn couch_row_lists_and_searches_over_mcp_answer_the_http_bytes() {
    let server = Server::start(&fixture("couch", "dev-a.har"), &[]);
    let mut mcp = Mcp::connect(server.addr);
    let tools = mcp.tools();
    // A row list offers every parameter the store's replay understood,
    // `skip` and `startkey` too although its own recording never sent them.
    let rows = &tool(&tools, "get_authors_all_docs")["inputSchema"]["properties"];
    for name in ["include_docs", "limit", "skip", "startkey", "descending"] {
        assert!(rows[name]["description"].is_string(), "{name}: {rows}");
    }
    // A search POST is offered as a read, its body's members described.
    let find = tool(&tools, "post_books_find");
    assert_eq!(find["annotations"]["readOnlyHint"], true, "{find}");
    let body = &find["inputSchema"]["properties"]["body"]["properties"];
    for name in ["selector", "fields", "sort", "limit"] {
        assert!(body[name]["description"].is_string(), "{name}: {body}");
    }
    assert!(
        body["selector"]["description"]
            .as_str()
            .unwrap()
            .contains("$gte"),
        "{body}"
    );
    for (call, request) in [
        // dev-b's paging of authors: startkey and skip, unseen on authors.
        (
            (
                "get_authors_all_docs",
                json!({"include_docs": true, "limit": 4, "startkey": "\"author-04\"", "skip": 1}),
            ),
            (
                "GET",
                "/authors/_all_docs?include_docs=true&limit=4&startkey=%22author-04%22&skip=1",
                None,
            ),
        ),
        (
            (
                "get_books_all_docs",
                json!({"include_docs": "true", "descending": "true", "limit": 3}),
            ),
            (
                "GET",
                "/books/_all_docs?include_docs=true&descending=true&limit=3",
                None,
            ),
        ),
        // Searches with selectors dev-a never sent.
        (
            (
                "post_books_find",
                json!({"body": {"selector": {"genre": "poetry"}}}),
            ),
            (
                "POST",
                "/books/_find",
                Some(json!({"selector": {"genre": "poetry"}})),
            ),
        ),
        (
            (
                "post_books_find",
                json!({"body": {"selector": {"price": {"$gt": 30}}, "fields": ["_id", "price"]}}),
            ),
            (
                "POST",
                "/books/_find",
                Some(json!({"selector": {"price": {"$gt": 30}}, "fields": ["_id", "price"]})),
            ),
        ),
        (
            (
                "post_authors_find",
                json!({"body": {"selector": {"country": {"$in": ["FR", "DE"]}}}}),
            ),
            (
                "POST",
                "/authors/_find",
                Some(json!({"selector": {"country": {"$in": ["FR", "DE"]}}})),
            ),
        ),
    ] {
        same_as_http_and_real(&server, &mut mcp, "couch", call, request);
    }
}

/// The official MCP Python SDK (`tests/python/mcp_narrowing.py`, over
/// streamable HTTP) gets the HTTP bytes too, on both captures.
#[test]
fn the_official_sdk_gets_the_http_bytes() {
    let root = repo_root();
    let status = std::process::Command::new("bash")
        .arg(root.join("tests/python/setup.sh"))
        .status()
        .expect("run tests/python/setup.sh");
    assert!(status.success(), "tests/python/setup.sh failed: {status:?}");
    let python = root.join(".venv/bin/python");
    for (app, cases) in [
        (
            "jsonserver",
            json!([
                ["get_posts_comments_by_id", {"id": "9"}, "GET", "/posts/9/comments", null],
                ["get_posts_by_id", {"id": "6", "_embed": "comments"}, "GET", "/posts/6?_embed=comments", null],
                ["get_comments_by_id", {"id": "12", "_expand": "post"}, "GET", "/comments/12?_expand=post", null],
                ["get_posts", {"title_like": "^quick", "_sort": "views"}, "GET", "/posts?title_like=%5Equick&_sort=views", null],
            ]),
        ),
        (
            "couch",
            json!([
                ["get_authors_all_docs", {"include_docs": true, "limit": 2, "skip": 3}, "GET", "/authors/_all_docs?include_docs=true&limit=2&skip=3", null],
                ["post_books_find", {"body": {"selector": {"year": {"$gte": 1990}}, "fields": ["_id", "year"]}}, "POST", "/books/_find", {"selector": {"year": {"$gte": 1990}}, "fields": ["_id", "year"]}],
            ]),
        ),
    ] {
        let server = Server::start(&fixture(app, "dev-a.har"), &[]);
        let out = std::process::Command::new(&python)
            .arg(root.join("tests/python/mcp_narrowing.py"))
            .arg(format!("http://{}", server.addr))
            .arg(cases.to_string())
            .current_dir(root.join("tests/python"))
            .output()
            .expect("run python");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("1 passed, 0 failed"),
            "{app}:\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
