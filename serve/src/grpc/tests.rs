//! gRPC serving over the recorded fixtures, driven in-process (tower
//! `oneshot`): framed as recorded, trailers, re-framing, refusals, MCP.

use super::*;
use crate::environment::Environment;
use crate::start::StartOptions;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use std::path::PathBuf;
use std::sync::Arc;
use tower::ServiceExt;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/formats")
        .join(name)
}

fn env(capture: &str, descriptor: bool) -> Arc<Environment> {
    let options = StartOptions {
        descriptor_set: descriptor.then(|| fixture("api.pb")),
        ..StartOptions::all_rules()
    };
    Arc::new(Environment::from_capture(&fixture(capture), &options).expect("starts"))
}

fn frame(payload: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8];
    out.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    out.extend_from_slice(payload);
    out
}

/// `GetProductRequest { sku }` on the wire.
fn get_product(sku: &str) -> Vec<u8> {
    let mut out = vec![0x0a, sku.len() as u8];
    out.extend_from_slice(sku.as_bytes());
    out
}

struct Answer {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    body: Vec<u8>,
    trailers: Option<axum::http::HeaderMap>,
}

async fn call(env: &Arc<Environment>, path: &str, content_type: &str, body: Vec<u8>) -> Answer {
    let config = crate::ServeConfig {
        host: "127.0.0.1".into(),
        port: 0,
        data_root: None,
        ..Default::default()
    };
    let app = crate::app(
        env.clone(),
        &config,
        tokio_util::sync::CancellationToken::new(),
    );
    let request = Request::post(path)
        .header("content-type", content_type)
        .header("te", "trailers")
        .body(Body::from(body))
        .unwrap();
    let response = app.oneshot(request).await.unwrap();
    let (parts, body) = response.into_parts();
    let collected = body.collect().await.unwrap();
    let trailers = collected.trailers().cloned();
    Answer {
        status: parts.status,
        headers: parts.headers,
        body: collected.to_bytes().to_vec(),
        trailers,
    }
}

fn recorded_response(capture: &str, ordinal: usize) -> Vec<u8> {
    let har: Value = serde_json::from_slice(&std::fs::read(fixture(capture)).unwrap()).unwrap();
    let content = &har["log"]["entries"][ordinal]["response"]["content"];
    body_bytes(Some(content)).unwrap()
}

fn grpc_status(a: &Answer) -> Option<String> {
    a.trailers
        .as_ref()
        .and_then(|t| t.get("grpc-status"))
        .map(|v| v.to_str().unwrap().to_string())
}

const GET: &str = "/rea.fixture.catalogue.v1.Catalogue/GetProduct";

#[tokio::test]
async fn a_unary_call_is_answered_from_the_recording_of_the_same_request_message() {
    let env = env("grpc-native.har", false);
    let a = call(
        &env,
        GET,
        "application/grpc",
        frame(&get_product("SKU-001")),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK);
    assert_eq!(a.body, recorded_response("grpc-native.har", 0));
    assert_eq!(a.headers["content-type"], "application/grpc");
    assert_eq!(a.headers["x-catalogue-region"], "eu-west");
    // The HAR kept no trailers: a recorded message with HTTP 200 is OK.
    assert_eq!(grpc_status(&a).as_deref(), Some("0"));

    // Another request message was never recorded: rea's own UNIMPLEMENTED.
    let other = call(
        &env,
        GET,
        "application/grpc",
        frame(&get_product("SKU-777")),
    )
    .await;
    assert!(other.body.is_empty());
    assert_eq!(grpc_status(&other).as_deref(), Some("12"));
    let message = other.trailers.as_ref().unwrap()["grpc-message"]
        .to_str()
        .unwrap();
    assert!(message.contains("no recorded call"), "{message}");
}

#[tokio::test]
async fn native_trailers_come_from_the_mitmproxy_flow() {
    let env = env("grpc-native.mitm", false);
    // Record 1: SKU-404, no message, grpc-status 5 in the HTTP/2 trailers.
    let a = call(
        &env,
        GET,
        "application/grpc",
        frame(&get_product("SKU-404")),
    )
    .await;
    assert!(a.body.is_empty());
    assert_eq!(grpc_status(&a).as_deref(), Some("5"));
    let t = a.trailers.unwrap();
    assert!(t.contains_key("grpc-message"));
    assert!(t.contains_key("x-debug-bin"));
    // The same call from the HAR: the status was not recorded.
    let har = env_har_404().await;
    assert_eq!(grpc_status(&har).as_deref(), Some("2"));
}

async fn env_har_404() -> Answer {
    let env = env("grpc-native.har", false);
    call(
        &env,
        GET,
        "application/grpc",
        frame(&get_product("SKU-404")),
    )
    .await
}

#[tokio::test]
async fn server_streaming_replays_every_recorded_frame() {
    let env = env("grpc-native.mitm", true);
    let har: Value =
        serde_json::from_slice(&std::fs::read(fixture("grpc-native.har")).unwrap()).unwrap();
    let req = &har["log"]["entries"][6]["request"]["postData"]["text"];
    let body = req.as_str().unwrap().as_bytes().to_vec();
    let a = call(
        &env,
        "/rea.fixture.catalogue.v1.Catalogue/WatchProducts",
        "application/grpc",
        body,
    )
    .await;
    let (frames, trailer) = split(&a.body, Transport::Grpc).unwrap();
    assert_eq!(frames.len(), 3);
    assert!(trailer.is_none());
    assert_eq!(a.body, recorded_response("grpc-native.har", 6));
    assert_eq!(grpc_status(&a).as_deref(), Some("0"));
}

#[tokio::test]
async fn grpc_web_answers_are_the_recorded_bodies() {
    let env = env("grpc-web.har", false);
    let har: Value =
        serde_json::from_slice(&std::fs::read(fixture("grpc-web.har")).unwrap()).unwrap();
    for ordinal in [0usize, 4] {
        let entry = &har["log"]["entries"][ordinal];
        let ct = entry["request"]["postData"]["mimeType"]
            .as_str()
            .unwrap()
            .to_string();
        let body = entry["request"]["postData"]["text"]
            .as_str()
            .unwrap()
            .as_bytes()
            .to_vec();
        let a = call(&env, GET, &ct, body).await;
        assert_eq!(
            a.body,
            recorded_response("grpc-web.har", ordinal),
            "record {ordinal}"
        );
        assert!(a.trailers.is_none());
    }
}

#[tokio::test]
async fn a_native_client_gets_a_grpc_web_recording_re_framed() {
    let env = env("grpc-web.har", false);
    let a = call(
        &env,
        GET,
        "application/grpc",
        frame(&get_product("SKU-001")),
    )
    .await;
    let (frames, trailer) = split(&a.body, Transport::Grpc).unwrap();
    assert_eq!(frames.len(), 1);
    assert!(trailer.is_none());
    // The recorded gRPC-web body's first data frame, re-framed; the status
    // in HTTP/2 trailers (sonora's unary trailer frame is not `name: value`,
    // so the message with HTTP 200 reads as OK).
    let (recorded, _) = split(&recorded_response("grpc-web.har", 4), Transport::Web).unwrap();
    assert_eq!(frames[0].payload, recorded[0].payload);
    assert_eq!(a.headers["content-type"], "application/grpc");
    assert_eq!(grpc_status(&a).as_deref(), Some("0"));
}

#[tokio::test]
async fn malformed_requests_are_invalid_argument() {
    let env = env("grpc-native.har", true);
    let a = call(&env, GET, "application/grpc", vec![0, 0, 0, 0, 9, 1]).await;
    assert_eq!(grpc_status(&a).as_deref(), Some("3"));
    // A frame whose message is not a GetProductRequest under the descriptor.
    let b = call(&env, GET, "application/grpc", frame(&[0x0a, 0x05, 0x41])).await;
    assert_eq!(grpc_status(&b).as_deref(), Some("3"));
    // Not a gRPC content type.
    let c = call(&env, GET, "application/json", b"{}".to_vec()).await;
    assert_eq!(c.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
}

#[test]
fn every_recorded_method_is_a_tool_with_the_message_schema() {
    let env = env("grpc-native.har", true);
    let tools = mcp::tools(env.grpc());
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "grpc_Catalogue_GetProduct",
            "grpc_Catalogue_ListProducts",
            "grpc_Catalogue_WatchProducts",
            "grpc_Catalogue_UpdateStock",
            "grpc_Catalogue_QuotePrices"
        ]
    );
    let get = &tools[0];
    assert_eq!(get.input_schema["properties"]["sku"]["type"], "string");
    let update = &tools[3];
    assert_eq!(update.input_schema["required"][0], "requests");
}

#[test]
fn the_mcp_tool_answers_json_under_the_descriptor() {
    let env = env("grpc-native.har", true);
    let grpc = env.grpc();
    let m = grpc.by_tool("grpc_Catalogue_GetProduct").unwrap();
    let args = json_args(serde_json::json!({"sku": "SKU-001"}));
    let result = mcp::call(grpc, m, &args);
    assert_eq!(result.is_error, Some(false));
    let v = result.structured_content.unwrap();
    assert_eq!(v["record_ordinal"], 0);
    assert_eq!(v["messages"][0]["sku"], "SKU-001");
    assert_eq!(v["messages"][0]["title"], "\u{feff}Widget — deluxe");

    // A compressed recorded answer (record 4, gzip) decodes too.
    let list = grpc.by_tool("grpc_Catalogue_ListProducts").unwrap();
    let har: Value =
        serde_json::from_slice(&std::fs::read(fixture("grpc-native.har")).unwrap()).unwrap();
    let asked = &har["log"]["entries"][5]["request"]["postData"]["text"];
    let (ms, _) = split(asked.as_str().unwrap().as_bytes(), Transport::Grpc).unwrap();
    let input = list.descriptor.as_ref().unwrap().input();
    let json = Catalogue::to_json(&input, &ms[0].payload).unwrap();
    let r = mcp::call(grpc, list, &json_args(json));
    let v = r.structured_content.unwrap();
    assert_eq!(v["record_ordinal"], 5);
    let products = v["messages"][0]["products"].as_array().unwrap();
    assert!(!products.is_empty() && products.iter().all(|p| p["sku"].is_string()));

    // Never recorded: refused, nothing invented.
    let none = mcp::call(grpc, m, &json_args(serde_json::json!({"sku": "SKU-777"})));
    assert_eq!(none.is_error, Some(true));
    assert_eq!(none.structured_content.unwrap()["code"], "not_recorded");
    // Not the input message.
    let bad = mcp::call(grpc, m, &json_args(serde_json::json!({"nope": 1})));
    assert_eq!(bad.structured_content.unwrap()["code"], "invalid_arguments");
}

#[test]
fn without_a_descriptor_tools_take_base64_messages() {
    let env = env("grpc-native.har", false);
    let grpc = env.grpc();
    let m = grpc.by_tool("grpc_Catalogue_GetProduct").unwrap();
    let args =
        json_args(serde_json::json!({"request_base64": STANDARD.encode(get_product("SKU-001"))}));
    let v = mcp::call(grpc, m, &args).structured_content.unwrap();
    assert_eq!(v["record_ordinal"], 0);
    assert!(v.get("messages").is_none());
    let (recorded, _) = split(&recorded_response("grpc-native.har", 0), Transport::Grpc).unwrap();
    assert_eq!(
        v["messages_base64"][0],
        STANDARD.encode(&recorded[0].payload)
    );
}

#[test]
fn a_descriptor_set_missing_an_import_is_refused_at_start() {
    let pool = DescriptorPool::decode(&std::fs::read(fixture("api.pb")).unwrap()[..]).unwrap();
    let set = prost_types_less_set(&pool);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no-imports.pb");
    std::fs::write(&path, set).unwrap();
    let options = StartOptions {
        descriptor_set: Some(path),
        ..StartOptions::all_rules()
    };
    let err = Environment::from_capture(&fixture("grpc-native.har"), &options)
        .err()
        .expect("refused")
        .report();
    assert_eq!(err.code, "protobuf_schema_invalid");
    let missing = StartOptions {
        descriptor_set: Some(dir.path().join("absent.pb")),
        ..StartOptions::all_rules()
    };
    let err = Environment::from_capture(&fixture("grpc-native.har"), &missing)
        .err()
        .expect("refused")
        .report();
    assert_eq!(err.code, "descriptor_set_unreadable");
}

/// The fixture's set without `google/protobuf/timestamp.proto`.
fn prost_types_less_set(pool: &DescriptorPool) -> Vec<u8> {
    let set = prost_reflect::prost_types::FileDescriptorSet {
        file: pool
            .file_descriptor_protos()
            .filter(|f| f.name() != "google/protobuf/timestamp.proto")
            .cloned()
            .collect(),
    };
    set.encode_to_vec()
}

fn json_args(v: Value) -> serde_json::Map<String, Value> {
    match v {
        Value::Object(o) => o,
        _ => panic!("arguments are an object"),
    }
}

#[test]
fn tool_names_are_short_unless_services_collide() {
    let names = tool_names(&[
        "/a.v1.Svc/Get".to_string(),
        "/b.v1.Svc/Get".to_string(),
        "/c.Other/List".to_string(),
    ]);
    assert_eq!(
        names,
        ["grpc_a_v1_Svc_Get", "grpc_b_v1_Svc_Get", "grpc_Other_List"]
    );
}

#[tokio::test]
async fn a_status_recorded_in_the_headers_is_served_trailers_only() {
    // grpc-web record 7: SKU-404, empty body, grpc-status 5 in the headers.
    let env = env("grpc-web.har", false);
    let web = call(
        &env,
        GET,
        "application/grpc-web+proto",
        frame(&get_product("SKU-404")),
    )
    .await;
    assert!(web.body.is_empty());
    assert_eq!(web.headers["grpc-status"], "5");
    // A native caller: the same status, trailers-only (in the headers, no body).
    let native = call(
        &env,
        GET,
        "application/grpc",
        frame(&get_product("SKU-404")),
    )
    .await;
    assert!(native.body.is_empty() && native.trailers.is_none());
    assert_eq!(native.headers["grpc-status"], "5");
    assert_eq!(native.headers["content-type"], "application/grpc");
}
