//! A search's scope inferred from the recording (`Meaning::Search { scope }`):
//! DRF searches its declared text columns (`search_fields`, top-level
//! members), so dev-a's fake answers dev-b's `projects?search=api` as the
//! real app did (Juniper's description, not Kestrel's nested
//! `settings.labels`), over HTTP and MCP alike; WordPress's recorded
//! search matches inside nested `{rendered}` texts, so its replay keeps the
//! deep scope. The model names each scope with its evidence.

mod common;

use common::{block, repo_root, Mcp, Server};
use serde_json::{json, Value};

fn model(capture: &std::path::Path) -> Value {
    common::environment_model(capture)
}

fn search_of<'a>(model: &'a Value, tool: &str) -> &'a Value {
    model["list_semantics"]["endpoints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["tool"] == tool)
        .and_then(|e| {
            e["params"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["meaning"]["kind"] == "search")
        })
        .unwrap_or_else(|| panic!("{tool}: no search"))
}

#[test]
fn drf_searches_its_own_text_members_and_wordpress_nested_ones() {
    let drf = repo_root().join("tests/fixtures/drf");
    let m = model(&drf.join("dev-a.har"));
    let tasks = search_of(&m, "get_tasks");
    assert_eq!(tasks["meaning"]["scope"], "top-level", "{tasks}");
    assert_eq!(tasks["status"], "kept");
    assert!(!tasks["confirmed_by"].as_array().unwrap().is_empty());
    // Lent with the search to the sibling the recording never searched.
    let projects = search_of(&m, "get_projects");
    assert_eq!(projects["meaning"]["scope"], "top-level", "{projects}");
    assert_eq!(projects["basis"], "sibling");
    // WordPress: the replay contradicts the narrower scope; deep is kept.
    let wp = model(&repo_root().join("tests/fixtures/wordpress/dev-a.har"));
    let posts = search_of(&wp, "get_wp_json_wp_posts");
    assert_eq!(posts["meaning"], json!({"kind": "search"}), "{posts}");
    assert_eq!(posts["status"], "kept");

    // Served: dev-b's request 19 and the real app's answer to it.
    let har: Value =
        serde_json::from_slice(&std::fs::read(drf.join("dev-b.har")).unwrap()).unwrap();
    let entry = &har["log"]["entries"][18];
    assert!(entry["request"]["url"]
        .as_str()
        .unwrap()
        .ends_with("/api/projects/?search=api"));
    let real: Value =
        serde_json::from_str(entry["response"]["content"]["text"].as_str().unwrap()).unwrap();
    let server = Server::start(&drf.join("dev-a.har"), &[]);
    let http = server.get("/api/projects/?search=api");
    assert_eq!(http.status, 200, "{}", http.text());
    assert_eq!(http.json(), real);
    let mut mcp = Mcp::connect(server.addr);
    let tools = mcp.tools();
    let list = tools
        .iter()
        .find(|t| t["name"] == "get_projects")
        .expect("the projects list tool");
    let described = list["inputSchema"]["properties"]["search"]["description"]
        .as_str()
        .unwrap();
    assert!(described.contains("not nested"), "{described}");
    let result = mcp.call("get_projects", json!({"search": "api"}));
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(block(&result, 0).as_bytes(), http.body.as_slice());
}
