//! Adapter tests on the in-memory `testing::Notes` model, through `app()`
//! without a socket: HTTP replay, data plane and MCP results agree.

use crate::testing::Notes;
use crate::{app, Environment, Request, ServeConfig};
use axum::body::Body;
use axum::http::{Request as HttpRequest, StatusCode};
use http_body_util::BodyExt;
use serde_json::{json, Value};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

fn env() -> Arc<Environment> {
    Arc::new(Environment::new(Notes::new(), None, None))
}

fn config() -> ServeConfig {
    ServeConfig {
        host: "127.0.0.1".into(),
        port: 0,
        data_root: None,
        ..ServeConfig::default()
    }
}

async fn send(
    env: &Arc<Environment>,
    method: &str,
    uri: &str,
    body: Option<Value>,
) -> (StatusCode, axum::http::HeaderMap, Vec<u8>) {
    let router = app(env.clone(), &config(), CancellationToken::new());
    let req = HttpRequest::builder()
        .method(method)
        .uri(uri)
        .header("content-type", "application/json")
        .body(
            body.map(|b| Body::from(b.to_string()))
                .unwrap_or_else(Body::empty),
        )
        .unwrap();
    let res = router.oneshot(req).await.unwrap();
    let status = res.status();
    let headers = res.headers().clone();
    let bytes = res.into_body().collect().await.unwrap().to_bytes().to_vec();
    (status, headers, bytes)
}

async fn rpc(env: &Arc<Environment>, method: &str, params: Value) -> Value {
    let (_, _, body) = send(
        env,
        "POST",
        "/agentenv",
        Some(json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params})),
    )
    .await;
    serde_json::from_slice(&body).unwrap()
}

#[tokio::test]
async fn http_and_mcp_answer_the_same_bytes() {
    let env = env();
    let (status, headers, body) = send(&env, "GET", "/v1/notes/1", None).await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "application/json");
    assert_eq!(headers["etag"], "\"1\"");
    assert!(headers.get("set-cookie").is_none());
    let mcp_reply = env.call(&Request::Tool {
        name: "get_note".into(),
        arguments: json!({"note_id": "1"}).as_object().unwrap().clone(),
    });
    let result = crate::mcp::to_result(&mcp_reply);
    let text = serde_json::to_value(&result.content[0]).unwrap();
    assert_eq!(text["text"].as_str().unwrap().as_bytes(), body.as_slice());
    assert_eq!(
        result.structured_content,
        Some(json!({"data": {"id": 1, "text": "first"}}))
    );
}

#[tokio::test]
async fn unknown_routes_say_no_recorded_tool_matches() {
    let (status, _, body) = send(&env(), "GET", "/nowhere?x=1", None).await;
    assert_eq!(status, 404);
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["error"], "no_matching_tool");
    assert!(body["message"]
        .as_str()
        .unwrap()
        .contains("no recorded tool matches GET /nowhere?x=1"));
}

#[tokio::test]
async fn an_unserved_write_answers_its_reason_and_changes_nothing() {
    let env = env();
    let before = env.export();
    let (status, _, body) = send(&env, "PATCH", "/v1/notes/1", Some(json!({"text": "x"}))).await;
    assert_eq!(status, 501);
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["error"], "write_not_served");
    assert_eq!(body["reason"], "unconfirmed");
    assert_eq!(env.export(), before);
    assert!(
        env.tool("patch_note").is_none(),
        "unserved writes are not offered"
    );
}

#[tokio::test]
async fn mcp_errors_carry_code_message_applied_and_the_recorded_answer() {
    let env = env();
    let answer = env.call(&Request::Tool {
        name: "get_note".into(),
        arguments: json!({"note_id": "99"}).as_object().unwrap().clone(),
    });
    let result = crate::mcp::to_result(&answer);
    assert_eq!(result.is_error, Some(true));
    let blocks = serde_json::to_value(&result.content).unwrap();
    assert_eq!(blocks[0]["text"], "not_found: note not found");
    assert!(blocks[1]["text"]
        .as_str()
        .unwrap()
        .starts_with("HTTP 404\n"));
    let s = result.structured_content.unwrap();
    assert_eq!(s["applied"], "no");
    assert_eq!(s["retryable"], false);
}

#[tokio::test]
async fn card_declares_tools_operations_and_tables() {
    let (status, _, body) = send(&env(), "GET", "/.well-known/agent-env.json", None).await;
    assert_eq!(status, 200);
    let card: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(card["url"], "/agentenv");
    assert_eq!(
        card["additionalInterfaces"][0],
        json!({"url": "/mcp", "transport": "mcp"})
    );
    let tools: Vec<&str> = card["capabilities"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        tools,
        ["list_notes", "get_note", "create_note", "delete_note"]
    );
    let ext = &card["capabilities"]["extensions"][0];
    assert_eq!(ext["uri"], "urn:agentenv:intake/v1");
    let tables = &ext["params"]["add"][0]["tables"];
    assert_eq!(tables["notes"]["required"], json!(["id"]));
    let loads: Vec<(&Value, &Value)> = ext["params"]["add"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (&f["part"], &f["load"]))
        .collect();
    assert_eq!(
        loads,
        [
            (&json!("data"), &json!("replace")),
            (&json!("file"), &json!("replace")),
            (&json!("data"), &json!("additive")),
            (&json!("file"), &json!("additive")),
        ]
    );
    assert_eq!(tables["documents"]["required"], json!(["path", "value"]));
}

#[tokio::test]
async fn data_get_add_reset_round_trip() {
    let env = env();
    let got = rpc(&env, "data/get", json!({})).await;
    assert_eq!(got["id"], 7);
    let data = &got["result"]["parts"][0]["data"];
    assert_eq!(data["notes"], json!([{"id": 1, "text": "first"}]));
    assert_eq!(
        data["documents"],
        json!([{"path": "/v1/", "value": {"version": "1"}}])
    );

    let replacement = json!({"notes": [{"id": 5, "text": "five"}], "documents": []});
    let added = rpc(
        &env,
        "data/add",
        json!({"parts": [{"kind": "data", "data": replacement}]}),
    )
    .await;
    assert_eq!(added["result"], json!({}), "{added}");
    let (_, _, body) = send(&env, "GET", "/v1/notes", None).await;
    assert_eq!(
        serde_json::from_slice::<Value>(&body).unwrap(),
        json!({"data": [{"id": 5, "text": "five"}]})
    );

    // The same World as an inline file part.
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .encode(json!({"notes": [{"id": 6, "text": "six"}]}).to_string());
    let added = rpc(&env, "data/add", json!({"parts": [{"kind": "file", "file": {"bytes": bytes, "mimeType": "application/json"}}]})).await;
    assert_eq!(added["result"], json!({}), "{added}");
    assert_eq!(env.export()["collections"]["notes"][0]["id"], 6);

    assert_eq!(
        rpc(&env, "data/reset", json!({})).await["result"],
        json!({})
    );
    assert_eq!(
        env.export()["collections"]["notes"],
        json!([{"id": 1, "text": "first"}])
    );
}

#[tokio::test]
async fn bad_payloads_are_refused_naming_where_and_change_nothing() {
    let env = env();
    let before = env.export();
    let cases = [
        (
            json!({"parts": [{"kind": "data", "data": {"widgets": []}}]}),
            "widgets",
        ),
        (
            json!({"parts": [{"kind": "data", "data": {"notes": [{"text": "no id"}]}}]}),
            "notes[0]",
        ),
        (
            json!({"parts": [{"kind": "data", "data": {"notes": [{"id": "x", "text": "t"}]}}]}),
            "notes[0].id",
        ),
        (
            json!({"parts": [{"kind": "data", "data": {"notes": [{"id": 2, "text": "a"}, {"id": 2, "text": "b"}]}}]}),
            "duplicate",
        ),
        (json!({"parts": []}), "parts"),
        (
            json!({"parts": [{"kind": "file", "file": {"uri": "https://example.com/w.json"}}]}),
            "never fetches",
        ),
        (json!({"parts": [{"kind": "text", "text": "hi"}]}), "text"),
        // Shapes that are not a World name the shapes that are.
        (
            json!({"parts": [{"kind": "data", "data": [1, 2]}]}),
            "a data/get result",
        ),
        (
            json!({"parts": [{"kind": "data", "data": {"notes": {"id": 1}}}]}),
            "the bare tables",
        ),
        (
            json!({"parts": [{"kind": "data", "data": {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602}}}]}),
            "is an error",
        ),
        (
            json!({"parts": [{"kind": "data", "data": {"notes": []}, "metadata": {"load": "merge"}}]}),
            "\"additive\"",
        ),
        // All or nothing: a bad second part leaves the first unapplied.
        (
            json!({"parts": [
                {"kind": "data", "data": {"notes": [{"id": 9, "text": "nine"}]}},
                {"kind": "data", "data": {"widgets": []}, "metadata": {"load": "additive"}}
            ]}),
            "parts[1].data: widgets",
        ),
    ];
    for (params, needle) in cases {
        let reply = rpc(&env, "data/add", params.clone()).await;
        assert_eq!(reply["error"]["code"], -32602, "{params}: {reply}");
        assert_eq!(reply["error"]["message"], "invalid_request");
        let detail = reply["error"]["data"]["detail"].as_str().unwrap();
        assert!(detail.contains(needle), "{detail} should name {needle}");
        assert_eq!(env.export(), before);
    }
}

/// `--state` and `data/add` take the same three shapes: the bare tables, a
/// `data/get` result, and the whole JSON-RPC reply a `data/get` answered.
#[tokio::test]
async fn data_add_accepts_tables_a_data_get_result_or_a_json_rpc_reply() {
    let env = env();
    let tables = json!({"notes": [{"id": 3, "text": "three"}]});
    let result = json!({"parts": [{"kind": "data", "data": tables}]});
    let reply = json!({"jsonrpc": "2.0", "id": 1, "result": result});
    for shape in [&tables, &result, &reply] {
        rpc(&env, "data/reset", json!({})).await;
        let added = rpc(
            &env,
            "data/add",
            json!({"parts": [{"kind": "data", "data": shape}]}),
        )
        .await;
        assert_eq!(added["result"], json!({}), "{shape}: {added}");
        assert_eq!(
            env.export()["collections"]["notes"],
            json!([{"id": 3, "text": "three"}]),
            "{shape}"
        );
    }
    // A saved data/get reply loads back as it is.
    rpc(&env, "data/reset", json!({})).await;
    let saved = rpc(&env, "data/get", json!({})).await;
    let before = env.export();
    rpc(
        &env,
        "data/add",
        json!({"parts": [{"kind": "data", "data": tables}]}),
    )
    .await;
    let added = rpc(
        &env,
        "data/add",
        json!({"parts": [{"kind": "data", "data": saved}]}),
    )
    .await;
    assert_eq!(added["result"], json!({}), "{added}");
    assert_eq!(env.export(), before);
}

/// `load: "additive"` upserts per table by the row identity; `replace`
/// (the default) makes the part the whole World.
#[tokio::test]
async fn additive_load_upserts_by_id_and_keeps_other_rows() {
    let env = env();
    let additive = |data: Value| json!({"parts": [{"kind": "data", "data": data, "metadata": {"load": "additive"}}]});
    let added = rpc(
        &env,
        "data/add",
        additive(
            json!({"notes": [{"id": 1, "text": "first, edited"}, {"id": 2, "text": "second"}]}),
        ),
    )
    .await;
    assert_eq!(added["result"], json!({}), "{added}");
    assert_eq!(
        env.export()["collections"]["notes"],
        json!([{"id": 1, "text": "first, edited"}, {"id": 2, "text": "second"}])
    );
    // An additive part that names no table changes nothing.
    let before = env.export();
    assert_eq!(
        rpc(&env, "data/add", additive(json!({}))).await["result"],
        json!({})
    );
    assert_eq!(env.export(), before);
    // Parts apply in order: replace, then add to it.
    let added = rpc(
        &env,
        "data/add",
        json!({"parts": [
            {"kind": "data", "data": {"notes": [{"id": 7, "text": "seven"}]}, "metadata": {"load": "replace"}},
            {"kind": "data", "data": {"notes": [{"id": 8, "text": "eight"}]}, "metadata": {"load": "additive"}}
        ]}),
    )
    .await;
    assert_eq!(added["result"], json!({}), "{added}");
    assert_eq!(
        env.export()["collections"]["notes"],
        json!([{"id": 7, "text": "seven"}, {"id": 8, "text": "eight"}])
    );
}

#[tokio::test]
async fn json_rpc_envelope_errors() {
    let env = env();
    let router = app(env.clone(), &config(), CancellationToken::new());
    let req = HttpRequest::post("/agentenv")
        .header("content-type", "application/json")
        .body(Body::from("{not json"))
        .unwrap();
    let res = router.oneshot(req).await.unwrap();
    let body: Value =
        serde_json::from_slice(&res.into_body().collect().await.unwrap().to_bytes()).unwrap();
    assert_eq!(body["error"]["code"], -32700);
    let (_, _, body) = send(
        &env,
        "POST",
        "/agentenv",
        Some(json!({"jsonrpc": "1.0", "id": 1, "method": "data/get"})),
    )
    .await;
    assert_eq!(
        serde_json::from_slice::<Value>(&body).unwrap()["error"]["code"],
        -32600
    );
    // A batch answers each member; `1` is not a request.
    let (_, _, body) = send(&env, "POST", "/agentenv", Some(json!([1]))).await;
    assert_eq!(
        serde_json::from_slice::<Value>(&body).unwrap()[0]["error"]["code"],
        -32600
    );
    assert_eq!(
        rpc(&env, "data/nope", json!({})).await["error"]["code"],
        -32601
    );
    // write_namespace is accepted and ignored.
    assert!(rpc(
        &env,
        "data/get",
        json!({"write_namespace": {"root_path": "x"}})
    )
    .await["result"]["parts"]
        .is_array());
}

#[test]
fn tool_schemas_and_hints() {
    let env = env();
    let create = crate::mcp::to_mcp_tool(
        env.tool("create_note").unwrap(),
        env.tool_schemas("create_note"),
    );
    let schema = serde_json::to_value(&*create.input_schema).unwrap();
    assert_eq!(
        schema["properties"]["body"]["properties"]["text"]["type"],
        "string"
    );
    let get = crate::mcp::to_mcp_tool(env.tool("get_note").unwrap(), env.tool_schemas("get_note"));
    let schema = serde_json::to_value(&*get.input_schema).unwrap();
    assert_eq!(schema["required"], json!(["note_id"]));
    let a = get.annotations.unwrap();
    assert_eq!(
        (
            a.read_only_hint,
            a.destructive_hint,
            a.idempotent_hint,
            a.open_world_hint
        ),
        (Some(true), Some(false), Some(true), Some(false))
    );
    let del = crate::mcp::to_mcp_tool(
        env.tool("delete_note").unwrap(),
        env.tool_schemas("delete_note"),
    )
    .annotations
    .unwrap();
    assert_eq!(
        (
            del.read_only_hint,
            del.destructive_hint,
            del.idempotent_hint
        ),
        (Some(false), Some(true), Some(true))
    );
    let c = create.annotations.unwrap();
    assert_eq!(
        (c.destructive_hint, c.idempotent_hint),
        (Some(false), Some(false))
    );
}

#[test]
fn sixteen_threads_lose_no_acknowledged_create() {
    let env = env();
    std::thread::scope(|s| {
        for t in 0..16 {
            let env = &env;
            s.spawn(move || {
                for i in 0..25 {
                    let a = env.call(&Request::Tool {
                        name: "create_note".into(),
                        arguments: json!({"body": {"text": format!("{t}-{i}")}})
                            .as_object()
                            .unwrap()
                            .clone(),
                    });
                    assert_eq!(a.answer.status, 201);
                }
            });
        }
    });
    assert_eq!(
        env.export()["collections"]["notes"]
            .as_array()
            .unwrap()
            .len(),
        1 + 16 * 25
    );
}

#[test]
fn cached_reads_follow_every_change_of_the_world() {
    let env = env();
    let list = || {
        env.call(&Request::Http(rea_engine::Call {
            method: "GET".into(),
            path: "/v1/notes".into(),
            query: None,
            headers: Vec::new(),
            body: None,
        }))
    };
    let first = list();
    assert!(
        Arc::ptr_eq(&first, &list()),
        "a repeated read is served from the cache"
    );
    let created = env.call(&Request::Tool {
        name: "create_note".into(),
        arguments: json!({"body": {"text": "second"}})
            .as_object()
            .unwrap()
            .clone(),
    });
    assert_eq!(created.answer.status, 201);
    let after_write = list();
    assert_eq!(
        serde_json::from_slice::<Value>(&after_write.bytes).unwrap()["data"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    // A refused write changes nothing and keeps the cache.
    let missing = env.call(&Request::Tool {
        name: "delete_note".into(),
        arguments: json!({"note_id": "99"}).as_object().unwrap().clone(),
    });
    assert_eq!(missing.answer.status, 404);
    assert!(Arc::ptr_eq(&after_write, &list()));
    env.replace(&json!({"collections": {"notes": []}, "documents": {}}))
        .unwrap();
    assert_eq!(&list().bytes[..], br#"{"data":[]}"#);
    env.reset();
    assert_eq!(list().bytes, first.bytes);
}

/// `--isolate` on the data plane: an episode named by header or by base
/// URL has its own World; the default World and other episodes are
/// untouched; `data/reset` of an episode starts it afresh.
#[tokio::test]
async fn isolated_episodes_on_the_data_plane() {
    let env = Arc::new(
        Environment::new(Notes::new(), None, None)
            .with_isolation(std::time::Duration::from_secs(60)),
    );
    let add = json!({"jsonrpc": "2.0", "id": 1, "method": "data/add",
        "params": {"parts": [{"kind": "data", "data": {"notes": [{"id": 9, "text": "nine"}]}}]}});
    let router = app(env.clone(), &config(), CancellationToken::new());
    let req = HttpRequest::post("/agentenv")
        .header("content-type", "application/json")
        .header("AgentEnv-Episode", "one")
        .body(Body::from(add.to_string()))
        .unwrap();
    let res = router.oneshot(req).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let notes = |v: Value| v["collections"]["notes"].clone();
    assert_eq!(
        notes(env.export_in(Some("one"))),
        json!([{"id": 9, "text": "nine"}])
    );
    assert_eq!(notes(env.export()), json!([{"id": 1, "text": "first"}]));
    assert_eq!(
        notes(env.export_in(Some("two"))),
        json!([{"id": 1, "text": "first"}])
    );
    // The base-URL form addresses the same episode.
    let (_, _, body) = send(
        &env,
        "POST",
        "/episodes/one/agentenv",
        Some(json!({"jsonrpc": "2.0", "id": 2, "method": "data/get"})),
    )
    .await;
    let got: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        got["result"]["parts"][0]["data"]["notes"],
        json!([{"id": 9, "text": "nine"}])
    );
    let (_, _, _) = send(
        &env,
        "POST",
        "/episodes/one/agentenv",
        Some(json!({"jsonrpc": "2.0", "id": 3, "method": "data/reset"})),
    )
    .await;
    assert_eq!(
        notes(env.export_in(Some("one"))),
        json!([{"id": 1, "text": "first"}])
    );
    assert_eq!(env.episode_count(), 2);
    assert!(env.end_episode("two"));
    assert_eq!(env.episode_count(), 1);
    // Isolation off: a named episode is the default World.
    let shared = self::env();
    shared
        .load_in(Some("one"), &|_| Ok(json!({"collections": {"notes": []}})))
        .unwrap();
    assert_eq!(notes(shared.export()), json!([]));
}
