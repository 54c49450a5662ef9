//! Recorded secrets are pseudonymised when serving: a HAR with tokens in
//! JSON and form bodies, query strings and custom headers serves none of
//! them over HTTP, MCP, `data/get` or the journal; a join on a pseudonym still answers;
//! `--keep-secrets` serves them as recorded; `--sensitive-value` adds any
//! literal; the derived state document follows the same flags.

mod common;

use common::{http, rea, repo_root, Mcp, Server};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Command;

fn capture() -> PathBuf {
    repo_root().join("tests/fixtures/secrets/tokens.har")
}

/// Every secret the capture holds, with the member, field, parameter or
/// header it is recorded under.
const SECRETS: [(&str, &str); 7] = [
    ("access_token", "at_Zq81MsPk29LxWv07TbR4"),
    ("access_token", "at_Q0w9E8r7T6y5U4i3O2p1"),
    ("refresh_token / X-Refresh-Token", "rt_Nn3Yd6Qe0Hs5Jc2Ku9Lm"),
    ("client_secret (form, JSON)", "cs_5e1f0a9b8c7d6e"),
    ("password (form)", "Tr0ub4dor-horse"),
    (
        "api_key / X-Api-Key (header, query, body)",
        "ak_live_4c9d1e7f2a3b",
    ),
    ("session_token (bodies, paths)", "st_A1b2C3d4E5f6G7h8"),
];

/// Everything a client can read: the app's paths over HTTP (reads and
/// writes), every tool listed and called over MCP, and `data/get`.
fn served_bytes(server: &Server) -> String {
    let mut out = String::new();
    for target in [
        "/api/v1/sessions",
        "/api/v1/profile",
        "/api/v1/search?q=laptop",
    ] {
        out.push_str(&server.get(target).text());
    }
    let form = "grant_type=password&username=bob&password=pw-of-bob&client_id=web";
    let r = http(
        server.addr,
        "POST",
        "/oauth/token",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        Some(form),
    );
    out.push_str(&format!("{:?}{}", r.headers, r.text()));
    let r = server.send(
        "POST",
        "/oauth/refresh",
        Some(&json!({"refresh_token": "x"})),
    );
    out.push_str(&format!("{:?}{}", r.headers, r.text()));
    let mut mcp = Mcp::connect(server.addr);
    let tools = mcp.tools();
    out.push_str(&Value::Array(tools.clone()).to_string());
    for tool in &tools {
        let name = tool["name"].as_str().unwrap();
        out.push_str(&mcp.call(name, json!({})).to_string());
    }
    out.push_str(&server.rpc("data/get", json!({})).to_string());
    // The journal of every call above, the coverage and the live page's
    // tables (what an operator reads).
    for admin in ["/_rea/requests", "/_rea/coverage", "/_rea/tables"] {
        let r = server.get(admin);
        assert_eq!(r.status, 200, "{admin}: {}", r.text());
        out.push_str(&r.text());
    }
    out
}

fn leaked(bytes: &str) -> Vec<&'static str> {
    SECRETS
        .iter()
        .filter(|(_, v)| bytes.contains(v))
        .map(|(_, v)| *v)
        .collect()
}

#[test]
fn no_recorded_secret_is_served_and_a_join_on_a_pseudonym_answers() {
    let server = Server::start(&capture(), &[]);
    let bytes = served_bytes(&server);
    assert!(bytes.contains("laptop"), "the reads answered: {bytes}");
    assert_eq!(leaked(&bytes), Vec::<&str>::new(), "{bytes}");
    assert!(server.log_text().contains("pseudonymised"));

    // The listed session's pseudonymised token addresses the session.
    let list = server.get("/api/v1/sessions").json();
    let token = list[0]["session_token"].as_str().unwrap().to_string();
    assert_eq!(token.len(), "st_A1b2C3d4E5f6G7h8".len());
    let item = server.get(&format!("/api/v1/sessions/{token}"));
    assert_eq!(item.status, 200, "{}", item.text());
    assert_eq!(item.json()["device"], "laptop");
    assert_eq!(item.json()["session_token"], token.as_str());
    // The API key the profile serves is the one its query joins on.
    let profile = server.get("/api/v1/profile");
    assert_eq!(profile.status, 200, "{}", profile.text());
    let key = profile.json()["api_key"].as_str().unwrap().to_string();
    assert_eq!(key.len(), "ak_live_4c9d1e7f2a3b".len());
    let found = server.get(&format!("/api/v1/search?q=laptop&api_key={key}"));
    assert_eq!(found.status, 200, "{}", found.text());
    assert_eq!(found.json()["results"][0]["session_token"], token.as_str());
}

#[test]
fn keep_secrets_serves_them_and_sensitive_values_go_anywhere() {
    let kept = Server::start(&capture(), &["--keep-secrets"]);
    let bytes = served_bytes(&kept);
    assert!(
        leaked(&bytes).contains(&"st_A1b2C3d4E5f6G7h8"),
        "as recorded: {bytes}"
    );
    drop(kept);
    let declared = Server::start(&capture(), &["--sensitive-value", "Alice"]);
    let bytes = served_bytes(&declared);
    assert!(!bytes.contains("Alice"), "{bytes}");
    assert_eq!(leaked(&bytes), Vec::<&str>::new());
}

#[test]
fn the_state_document_follows_the_same_flags() {
    let state = |extra: &[&str]| {
        let out = Command::new(rea())
            .arg("environment-state")
            .arg(capture())
            .arg("--json")
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let first = state(&[]);
    assert_eq!(leaked(&first), Vec::<&str>::new());
    assert_eq!(first, state(&[]), "deterministic");
    let kept = state(&["--keep-secrets"]);
    assert!(kept.contains("ak_live_4c9d1e7f2a3b") && kept.contains("st_A1b2C3d4E5f6G7h8"));
}

/// Inspection keeps the spec's behaviour (RED-03): a token-like query
/// parameter or member is not sensitive by itself, so the Evidence keeps it.
#[test]
fn inspection_is_unchanged_and_keeps_token_like_values_red_03() {
    let out = Command::new(rea())
        .arg("inspect-web-network-capture")
        .arg(capture())
        .args(["har", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let evidence = String::from_utf8(out.stdout).unwrap();
    assert!(evidence.contains("access_token=at_Zq81MsPk29LxWv07TbR4"));
    assert!(evidence.contains("st_A1b2C3d4E5f6G7h8"));
}
