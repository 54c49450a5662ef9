//! Lists served from inferred semantics, end to end through
//! `rea environment-serve`: unseen narrowings over HTTP answer what the
//! real app answered in the other session of the same seed, following
//! next links reaches the end, and the same narrowing over MCP answers the
//! same bytes with the parameters offered in the tool's inputSchema.

mod common;

use common::{block, repo_root, Mcp, Server};
use serde_json::{json, Value};

fn capture(app: &str, session: &str) -> std::path::PathBuf {
    repo_root()
        .join("tests/fixtures")
        .join(app)
        .join(format!("{session}.har"))
}

/// The HTTP body with the server's own origin spelled as the recording's
/// (HTTP answers name the host they were asked on; MCP has none).
fn as_recorded(server: &Server, body: &[u8], recorded_port: u16) -> String {
    String::from_utf8_lossy(body).replace(
        &format!("127.0.0.1:{}", server.addr.port()),
        &format!("127.0.0.1:{recorded_port}"),
    )
}

fn tool_named<'a>(tools: &'a [Value], title: &str) -> &'a Value {
    tools
        .iter()
        .find(|t| t["title"] == title)
        .unwrap_or_else(|| panic!("no tool {title}"))
}

/// `/posts?author=2` (dev-a never filtered on `author`): WordPress's dev-b
/// answer, over HTTP and MCP alike.
#[test]
fn wordpress_author_filter_over_http_and_mcp() {
    let server = Server::start(&capture("wordpress", "dev-a"), &[]);
    let http = server.get("/wp-json/wp/v2/posts?author=2");
    assert_eq!(http.status, 200);
    let ids: Vec<Value> = http
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].clone())
        .collect();
    assert_eq!(ids, [20, 18, 15, 11, 7, 3].map(|n| json!(n)));
    assert_eq!(http.header("X-WP-Total"), Some("6"));
    let mut mcp = Mcp::connect(server.addr);
    let tools = mcp.tools();
    let posts = tool_named(&tools, "GET /wp-json/wp/v2/posts");
    let props = &posts["inputSchema"]["properties"];
    assert!(
        props["author"]["description"]
            .as_str()
            .unwrap()
            .contains("author"),
        "{props}"
    );
    assert_eq!(props["order"]["enum"], json!(["asc", "desc"]));
    let keys = props["orderby"]["enum"].as_array().expect("orderby enum");
    assert!(
        keys.contains(&json!("title")) && keys.contains(&json!("date")),
        "{props}"
    );
    let name = posts["name"].as_str().unwrap();
    let result = mcp.call(name, json!({"author": 2}));
    assert_eq!(result["isError"], false);
    assert!(
        block(&result, 0) == as_recorded(&server, &http.body, 51051),
        "MCP and HTTP differ"
    );
    // Filter + sort + page over MCP equals HTTP too.
    let http =
        server.get("/wp-json/wp/v2/posts?tags=14&orderby=title&order=desc&per_page=2&page=2");
    let result = mcp.call(
        name,
        json!({"tags": 14, "orderby": "title", "order": "desc", "per_page": 2, "page": 2}),
    );
    assert!(
        block(&result, 0) == as_recorded(&server, &http.body, 51051),
        "MCP and HTTP differ"
    );
    let link = http.header("Link").unwrap_or("");
    assert!(
        link.contains("rel=\"prev\"") && link.contains("page=1"),
        "{link}"
    );
}

/// Following rea's own `Next-Page` links to the end lists what Kinto's
/// chain listed in dev-b: 8, 8, then 4 products.
#[test]
fn kinto_next_page_links_to_the_end() {
    let server = Server::start(&capture("kinto", "dev-a"), &[]);
    let mut target = "/v1/buckets/shop/collections/products/records?_limit=8".to_string();
    let mut pages = Vec::new();
    for _ in 0..10 {
        let r = server.get(&target);
        assert_eq!(r.status, 200, "{}", r.text());
        let ids: Vec<String> = r.json()["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["id"].as_str().unwrap().to_string())
            .collect();
        pages.push(ids);
        let Some(next) = r.header("Next-Page") else {
            break;
        };
        let at = next.find("/v1/").expect("a path");
        target = next[at..].to_string();
    }
    let want =
        |a: u32, b: u32| -> Vec<String> { (b..=a).rev().map(|n| format!("prod-{n:03}")).collect() };
    assert_eq!(pages, vec![want(20, 13), want(12, 5), want(4, 1)]);
}

/// A search POST with a filter dev-a never sent to `experiments/search`
/// (its `runs/search` confirmed the language): MLflow's dev-b answer, over
/// HTTP and MCP alike, with the app's own page token.
#[test]
fn mlflow_search_post_over_http_and_mcp() {
    let server = Server::start(&capture("mlflow", "dev-a"), &[]);
    let path = "/api/2.0/mlflow/experiments/search";
    let body = json!({"filter": "tags.gpu = 'a100'", "max_results": 10});
    let http = server.send("POST", path, Some(&body));
    assert_eq!(http.status, 200, "{}", http.text());
    let v = http.json();
    let ids: Vec<&Value> = v["experiments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["experiment_id"])
        .collect();
    assert_eq!(ids, [&json!("4")]);
    let paged = server.send(
        "POST",
        path,
        Some(&json!({"order_by": ["last_update_time DESC"], "max_results": 4})),
    );
    assert_eq!(paged.json()["next_page_token"], "eyJvZmZzZXQiOiA0fQ==");
    let mut mcp = Mcp::connect(server.addr);
    let tools = mcp.tools();
    let search = tool_named(&tools, &format!("POST {path}"));
    assert!(
        search["inputSchema"]["properties"]["body"]["properties"]["filter"].is_object(),
        "{search}"
    );
    let result = mcp.call(search["name"].as_str().unwrap(), json!({"body": body}));
    assert_eq!(result["isError"], false);
    assert!(
        block(&result, 0).as_bytes() == http.body.as_slice(),
        "MCP and HTTP differ"
    );
}

/// A search over entities the app model holds follows writes: a run
/// created through `runs/create` is found by `runs/search` with a filter on
/// the tag it was created with (MLflow lists a new run in its experiment's
/// searches; dev-b's record 25 finds the run that session created), over
/// HTTP and MCP alike, and the runs the recording listed stay listed.
#[test]
fn mlflow_search_follows_writes_over_http_and_mcp() {
    let server = Server::start(&capture("mlflow", "dev-a"), &[]);
    let created = server.send(
        "POST",
        "/api/2.0/mlflow/runs/create",
        Some(&json!({
            "experiment_id": "2",
            "run_name": "probe",
            "user_id": "zoe",
            "start_time": 1717500000000u64,
            "tags": [{"key": "region", "value": "emea"}]
        })),
    );
    assert_eq!(created.status, 200, "{}", created.text());
    let run_id = created.json()["run"]["info"]["run_id"].clone();
    assert!(run_id.is_string(), "{}", created.text());
    let path = "/api/2.0/mlflow/runs/search";
    let body = json!({"experiment_ids": ["2"], "filter": "tags.region = 'emea'"});
    let http = server.send("POST", path, Some(&body));
    assert_eq!(http.status, 200, "{}", http.text());
    let v = http.json();
    let ids: Vec<&Value> = v["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["info"]["run_id"])
        .collect();
    assert_eq!(ids, [&run_id], "{v}");
    // The experiment's recorded runs are still there, the new one with them.
    let all = server.send("POST", path, Some(&json!({"experiment_ids": ["2"]})));
    let names: Vec<String> = all.json()["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["info"]["run_name"].as_str().unwrap().to_string())
        .collect();
    assert!(names.contains(&"probe".to_string()), "{names:?}");
    assert!(names.contains(&"lgbm-churn-b".to_string()), "{names:?}");
    let mut mcp = Mcp::connect(server.addr);
    let tools = mcp.tools();
    let search = tool_named(&tools, &format!("POST {path}"));
    let result = mcp.call(search["name"].as_str().unwrap(), json!({"body": body}));
    assert_eq!(result["isError"], false);
    assert!(
        block(&result, 0).as_bytes() == http.body.as_slice(),
        "MCP and HTTP differ: {} vs {}",
        block(&result, 0),
        http.text()
    );
}

/// `environment-check` counts how list reads with a query were answered:
/// built from WordPress dev-b (which never searched posts), dev-a's
/// `/posts?search=grind` is answered with the whole list and counted
/// `unconfirmed`; the narrowings dev-b confirmed count as `semantics`.
#[test]
fn environment_check_counts_unconfirmed_list_answers() {
    let report = rea_serve::check::check(
        &capture("wordpress", "dev-b"),
        Some(&capture("wordpress", "dev-a")),
    )
    .expect("check");
    let lists = report.list_answers();
    let rows = |k: &str| {
        lists
            .iter()
            .find(|(b, _)| *b == k)
            .map(|(_, r)| r.clone())
            .unwrap_or_default()
    };
    let search = report
        .session
        .rows
        .iter()
        .find(|r| r.path == "/wp-json/wp/v2/posts?search=grind")
        .expect("the search row");
    assert_eq!(rows("unconfirmed"), vec![search.idx], "{lists:?}");
    let sized = report
        .session
        .rows
        .iter()
        .find(|r| r.path == "/wp-json/wp/v2/posts?per_page=6&page=2")
        .expect("the paged row");
    assert!(rows("semantics").contains(&sized.idx), "{lists:?}");
    let text = report.text();
    assert!(
        text.contains(&format!("1 unconfirmed (rows {})", search.idx)),
        "{text}"
    );
    assert_eq!(
        report.json()["list_answers"]["unconfirmed"],
        json!([search.idx])
    );
}

/// A write the app model answers (Kinto dev-b never recorded a PATCH of
/// `ord-002`'s status, so the spec's plans refuse it and the app model
/// applies it) shows in the lists the engine renders: as in dev-a (records
/// 34, 35, 38), after `PATCH ord-002 {"status": "cancelled"}` the pending
/// orders leave it out and the unsorted list (newest change first) starts
/// with it; MCP answers the same bytes.
#[test]
fn kinto_lists_show_writes_the_app_model_answered() {
    let server = Server::start(&capture("kinto", "dev-b"), &[]);
    let base = "/v1/buckets/shop/collections/orders/records";
    let pending_ids = |r: &common::Response| -> Vec<String> {
        r.json()["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["id"].as_str().unwrap().to_string())
            .collect()
    };
    let before = server.get(&format!("{base}?status=pending"));
    assert!(
        pending_ids(&before).contains(&"ord-002".to_string()),
        "{}",
        before.text()
    );
    let patched = server.send(
        "PATCH",
        &format!("{base}/ord-002"),
        Some(&json!({"data": {"status": "cancelled"}})),
    );
    assert_eq!(patched.status, 200, "{}", patched.text());
    let after = server.get(&format!("{base}?status=pending"));
    assert_eq!(after.status, 200);
    let ids = pending_ids(&after);
    assert!(!ids.contains(&"ord-002".to_string()), "{ids:?}");
    assert_eq!(ids.len() + 1, pending_ids(&before).len());
    let all = server.get(base);
    let first = &all.json()["data"][0];
    assert_eq!(first["id"], "ord-002", "{}", all.text());
    assert_eq!(first["status"], "cancelled");
    let mut mcp = Mcp::connect(server.addr);
    let tools = mcp.tools();
    let list = tools
        .iter()
        .find(|t| {
            t["title"]
                .as_str()
                .is_some_and(|s| s.starts_with("GET ") && s.ends_with("/orders/records"))
        })
        .expect("the orders list tool");
    let result = mcp.call(list["name"].as_str().unwrap(), json!({"status": "pending"}));
    assert_eq!(result["isError"], false);
    assert!(
        block(&result, 0).as_bytes() == after.body.as_slice(),
        "MCP and HTTP differ: {} vs {}",
        block(&result, 0),
        after.text()
    );
}

/// The real app's answers to list requests no capture made
/// (`tests/fixtures/real-answers/`, recorded from freshly seeded servers,
/// README there), as `(case name, pages)`.
fn real_answers(app: &str) -> Vec<(String, Vec<Value>)> {
    let path = repo_root().join(format!("tests/fixtures/real-answers/{app}.json"));
    let doc: Value = serde_json::from_slice(&std::fs::read(&path).expect("real answers")).unwrap();
    doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_string(),
                c["pages"].as_array().unwrap().clone(),
            )
        })
        .collect()
}

fn real_case<'a>(cases: &'a [(String, Vec<Value>)], name: &str) -> &'a [Value] {
    &cases
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no real case {name}"))
        .1
}

/// A Kinto record without its clock (`last_modified` is the seeding time
/// of each run; rea's is the recording's).
fn without_clock(items: &Value) -> Vec<Value> {
    items
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            let mut i = i.clone();
            i.as_object_mut().unwrap().remove("last_modified");
            i
        })
        .collect()
}

/// Kinto dev-a's fake against Kinto 26.5.0 itself, on the same seed:
/// filter + sort + page (following `Next-Page` to the end), comparison
/// operators on values no capture used, a field selection, an unseen
/// filter and sort; every page's records equal the real ones (clock
/// aside) and a next page is linked exactly where Kinto linked one. The
/// same narrowing over MCP answers the same bytes as over HTTP.
#[test]
fn kinto_lists_match_the_real_app() {
    let server = Server::start(&capture("kinto", "dev-a"), &[]);
    let cases = real_answers("kinto");
    let prefix = "/v1/buckets/shop/collections";
    for (name, path) in [
        ("filter-sort-page", "orders"),
        ("comparison", "products"),
        ("comparison-min", "orders"),
        ("fields", "products"),
        ("next-links", "customers"),
        ("unseen-filter", "products"),
    ] {
        let pages = real_case(&cases, name);
        let mut target = format!(
            "{prefix}/{path}/records?{}",
            pages[0]["query"].as_str().unwrap()
        );
        for (k, real) in pages.iter().enumerate() {
            let r = server.get(&target);
            assert_eq!(r.status, real["status"], "{name} page {k}: {}", r.text());
            assert_eq!(
                without_clock(&r.json()["data"]),
                without_clock(&real["answer"]["data"]),
                "{name} page {k} ({target})"
            );
            let real_next = real["headers"]["Next-Page"].as_str();
            let next = r.header("Next-Page");
            assert_eq!(next.is_some(), real_next.is_some(), "{name} page {k}: next");
            if let Some(n) = next {
                target = n[n.find("/v1/").expect("a path")..].to_string();
            }
        }
    }
    // The same narrowing over MCP: the same bytes as over HTTP.
    let http = server.get(&format!(
        "{prefix}/orders/records?status=shipped&_sort=-total&_limit=2"
    ));
    let mut mcp = Mcp::connect(server.addr);
    let tools = mcp.tools();
    let list = tool_named(&tools, &format!("GET {prefix}/orders/records"));
    let result = mcp.call(
        list["name"].as_str().unwrap(),
        json!({"status": "shipped", "_sort": "-total", "_limit": 2}),
    );
    assert_eq!(result["isError"], false, "{result}");
    assert!(
        block(&result, 0) == String::from_utf8_lossy(&http.body),
        "MCP and HTTP differ"
    );
}

/// MLflow dev-a's fake against MLflow 3.17.2 itself, on the same seed:
/// search POSTs with unseen filters, a comparison on an unseen value,
/// sort + page following the app's own page tokens to the end, a filter
/// language in a query string with a direction: every page equals the
/// real answer (JSON), tokens included. The same search over MCP answers
/// the same bytes as over HTTP.
#[test]
fn mlflow_searches_match_the_real_app() {
    let server = Server::start(&capture("mlflow", "dev-a"), &[]);
    let cases = real_answers("mlflow");
    for name in [
        "runs-filter-sort-page",
        "experiments-tag-filter",
        "experiments-like",
        "experiments-sort-pages",
        "registered-models-like",
    ] {
        let pages = real_case(&cases, name);
        let case = cases.iter().find(|(n, _)| n == name).unwrap();
        let path = match name {
            n if n.starts_with("runs") => "/api/2.0/mlflow/runs/search",
            n if n.starts_with("experiments") => "/api/2.0/mlflow/experiments/search",
            _ => "/api/2.0/mlflow/registered-models/search",
        };
        for (k, real) in case.1.iter().enumerate() {
            let r = match real["query"].as_str() {
                Some(q) => server.get(&format!("{path}?{q}")),
                None => server.send("POST", path, Some(&real["body"])),
            };
            assert_eq!(r.status, real["status"], "{name} page {k}: {}", r.text());
            assert_eq!(r.json(), real["answer"], "{name} page {k}");
        }
        assert!(!pages.is_empty());
    }
    let path = "/api/2.0/mlflow/runs/search";
    let body = real_case(&cases, "runs-filter-sort-page")[0]["body"].clone();
    let http = server.send("POST", path, Some(&body));
    let mut mcp = Mcp::connect(server.addr);
    let tools = mcp.tools();
    let search = tool_named(&tools, &format!("POST {path}"));
    let result = mcp.call(search["name"].as_str().unwrap(), json!({"body": body}));
    assert_eq!(result["isError"], false, "{result}");
    assert!(
        block(&result, 0).as_bytes() == http.body.as_slice(),
        "MCP and HTTP differ"
    );
}
