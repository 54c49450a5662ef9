//! The fuzz targets: one per decoder (HAR JSON, SAZ, mitmproxy, qlog,
//! protobuf) and one end to end (decode -> manifest -> state -> engine calls
//! -> data-plane export/import round trip). Each takes bytes; an `Err` is a
//! broken invariant and a panic is a finding; an input that is refused with
//! the error contract is a normal outcome (its code becomes the signature
//! the driver uses to keep inputs that reach new outcomes).

use base64::Engine as _;
use rea_core::protobuf::{framing, schema, wire};
use rea_core::{inspect_web_network_capture, ErrorReport, InspectRequest};
use rea_serve::{Environment, Request, StartOptions};
use serde_json::{json, Map, Value};
use sha2::Digest as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A target's outcome: a short signature, or the broken invariant.
pub type Outcome = Result<String, String>;

/// Every target, by name.
pub const TARGETS: [&str; 6] = [
    "har_json",
    "saz",
    "mitmproxy",
    "qlog",
    "protobuf",
    "end_to_end",
];

/// How the driver mutates a target's inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Json,
    Zip,
    Bytes,
}

pub fn shape(target: &str) -> Shape {
    match target {
        "har_json" | "qlog" | "end_to_end" => Shape::Json,
        "saz" => Shape::Zip,
        _ => Shape::Bytes,
    }
}

/// Largest input the driver makes for a target.
pub fn max_len(target: &str) -> usize {
    match target {
        "end_to_end" => 160 << 10,
        "protobuf" => 16 << 10,
        _ => 256 << 10,
    }
}

/// Runs one target on one input.
pub fn run(target: &str, data: &[u8]) -> Outcome {
    match target {
        "har_json" => har_json(data),
        "saz" => saz(data),
        "mitmproxy" => mitmproxy(data),
        "qlog" => qlog(data),
        "protobuf" => protobuf(data),
        "end_to_end" => end_to_end(data),
        other => Err(format!("unknown target {other}")),
    }
}

/// This thread's scratch folder (decoders read paths).
fn scratch_dir() -> PathBuf {
    let thread = format!("{:?}", std::thread::current().id())
        .chars()
        .filter(char::is_ascii_digit)
        .collect::<String>();
    std::env::temp_dir().join(format!("rea-fuzz-{}-{thread}", std::process::id()))
}

/// Removes this thread's scratch folder (the driver calls it when done).
pub fn remove_scratch() {
    let _ = std::fs::remove_dir_all(scratch_dir());
}

/// A scratch file for a target's input.
fn scratch(name: &str, data: &[u8]) -> Result<PathBuf, String> {
    let dir = scratch_dir();
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(name);
    std::fs::write(&path, data).map_err(|e| format!("scratch write: {e}"))?;
    Ok(path)
}

fn code(r: &Result<impl Sized, ErrorReport>) -> String {
    match r {
        Ok(_) => "ok".to_string(),
        Err(e) => e.code.clone(),
    }
}

/// The error contract holds for a refusal: a code, a message.
fn contract(r: &Result<impl Sized, ErrorReport>) -> Result<(), String> {
    if let Err(e) = r {
        if e.code.is_empty() || e.message.is_empty() {
            return Err(format!("an error without code or message: {e:?}"));
        }
    }
    Ok(())
}

/// Inspects a capture file in `format`; an Evidence must serialize.
fn inspect(path: &Path, format: &str) -> Result<String, String> {
    let mut request = InspectRequest::har(path);
    request.format = format.to_string();
    let r = inspect_web_network_capture(&request);
    contract(&r)?;
    if let Ok(e) = &r {
        serde_json::to_vec(e).map_err(|e| format!("the Evidence does not serialize: {e}"))?;
    }
    Ok(code(&r))
}

fn har_json(data: &[u8]) -> Outcome {
    let lossless = rea_core::json::parse(data).is_ok();
    let path = scratch("capture.har", data)?;
    let inspected = inspect(&path, "har")?;
    let serving = rea_core::serving::capture_evidence(&path, Some("har"), false);
    contract(&serving)?;
    if inspected == "ok" && !lossless {
        return Err("inspection accepted a capture the JSON reader refuses".into());
    }
    Ok(format!("{inspected}/{}", code(&serving)))
}

fn saz(data: &[u8]) -> Outcome {
    let decoded = rea_core::saz::decode(data, None);
    contract(&decoded)?;
    let path = scratch("capture.saz", data)?;
    let inspected = inspect(&path, "saz")?;
    let serving = rea_core::saz::http::http_evidence(&path);
    contract(&serving)?;
    Ok(format!("{}/{inspected}/{}", code(&decoded), code(&serving)))
}

fn mitmproxy(data: &[u8]) -> Outcome {
    let _ = rea_core::mitm::tnetstring::read_all(data);
    let decoded = rea_core::mitm::decode(data);
    contract(&decoded)?;
    let path = scratch("capture.mitm", data)?;
    let inspected = inspect(&path, "mitmproxy")?;
    let serving = rea_core::mitm::http::http_evidence(&path);
    contract(&serving)?;
    Ok(format!("{}/{inspected}/{}", code(&decoded), code(&serving)))
}

fn qlog(data: &[u8]) -> Outcome {
    let path = scratch("capture.qlog", data)?;
    inspect(&path, "qlog")
}

/// The descriptor set the protobuf fixtures were compiled with.
fn descriptors() -> Option<&'static prost_reflect::DescriptorPool> {
    static POOL: OnceLock<Option<prost_reflect::DescriptorPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/formats/api.pb");
        schema::load(&std::fs::read(path).ok()?).ok()
    })
    .as_ref()
}

/// The wire reader, every framing, schema reads of every scanned field
/// under every message type, the descriptor loader, and the inspection
/// path (a gRPC body in a HAR, decoded by ordinal).
fn protobuf(data: &[u8]) -> Outcome {
    let scan = wire::scan(data, 0);
    let _ = wire::candidates(data);
    let _ = framing::decode_text(data);
    for f in [
        framing::Framing::Raw,
        framing::Framing::Grpc,
        framing::Framing::GrpcWeb,
        framing::Framing::GrpcWebText,
    ] {
        let _ = framing::frames(data, f);
    }
    let _ = schema::load(data);
    if let Some(pool) = descriptors() {
        for message in pool.all_messages() {
            for field in &scan.fields {
                let start = field.value_offset as usize;
                let end = start.saturating_add(field.value_length as usize);
                if let Some(value) = data.get(start..end) {
                    let _ = schema::read(&message, field, value);
                }
            }
        }
    }
    let body = base64::engine::general_purpose::STANDARD.encode(data);
    let har = json!({"log": {"version": "1.2", "creator": {"name": "rea-fuzz", "version": "1"},
        "entries": [{"startedDateTime": "2026-01-01T00:00:00.000Z", "time": 1,
            "request": {"method": "POST", "url": "http://127.0.0.1:1/pkg.Svc/Call",
                "httpVersion": "HTTP/2.0", "cookies": [],
                "headers": [{"name": "content-type", "value": "application/grpc"}],
                "queryString": [], "headersSize": -1, "bodySize": data.len(),
                "postData": {"mimeType": "application/grpc", "text": body.clone()}},
            "response": {"status": 200, "statusText": "", "httpVersion": "HTTP/2.0", "cookies": [],
                "headers": [{"name": "content-type", "value": "application/grpc"}],
                "content": {"size": data.len(), "mimeType": "application/grpc",
                    "text": body, "encoding": "base64"},
                "redirectURL": "", "headersSize": -1, "bodySize": data.len()},
            "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}}]}});
    let path = scratch("grpc.har", har.to_string().as_bytes())?;
    let mut request = InspectRequest::har(&path);
    request.record_ordinals = Some(vec![0]);
    let r = inspect_web_network_capture(&request);
    contract(&r)?;
    if let Ok(e) = &r {
        serde_json::to_vec(e).map_err(|e| format!("the Evidence does not serialize: {e}"))?;
    }
    Ok(format!("{}/{}", scan.fields.len().min(4), code(&r)))
}

/// The recorded requests of a HAR (method, path, query, JSON body), at most 32.
fn recorded_calls(data: &[u8]) -> Vec<rea_engine::Call> {
    let Ok(har) = serde_json::from_slice::<Value>(data) else {
        return Vec::new();
    };
    let entries = har
        .pointer("/log/entries")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    entries
        .iter()
        .take(32)
        .filter_map(|e| {
            let request = e.get("request")?;
            let method = request.get("method")?.as_str()?.to_string();
            let url = request.get("url")?.as_str()?;
            let parsed = rea_core::recorded_url::parse(url).ok()?;
            let body = request
                .pointer("/postData/text")
                .and_then(Value::as_str)
                .and_then(|t| serde_json::from_str(t).ok());
            Some(rea_engine::Call {
                method,
                path: parsed.path.to_string(),
                query: parsed.query.map(str::to_string),
                headers: vec![("Host".into(), "127.0.0.1:1".into())],
                body,
            })
        })
        .collect()
}

/// Decode -> manifest -> state -> engine (every recorded request over
/// HTTP, every tool over MCP's entry with no arguments) -> the World
/// exported, imported back and exported again must be the same; a reset
/// must give back the starting World.
fn end_to_end(data: &[u8]) -> Outcome {
    let path = scratch("e2e.har", data)?;
    let env = match Environment::from_capture(&path, &StartOptions::all_rules()) {
        Ok(env) => env,
        Err(e) => {
            let report = e.report();
            if report.code.is_empty() || report.message.is_empty() {
                return Err(format!(
                    "a start-up error without code or message: {report:?}"
                ));
            }
            return Ok(format!("start:{}", report.code));
        }
    };
    let initial = env.export();
    let mut statuses = Vec::new();
    // Each recorded request as recorded, then (for a JSON body) once more
    // with its body edited as a tree, seeded by the input's digest.
    let digest = sha2::Sha256::digest(data);
    let mut rng =
        crate::mutate::Rng::new(u64::from_le_bytes(digest[..8].try_into().unwrap_or([0; 8])));
    for call in recorded_calls(data) {
        let variant = call.body.as_ref().map(|body| {
            let mut bytes = serde_json::to_vec(body).unwrap_or_default();
            crate::mutate::json(&mut rng, &mut bytes, data, 1 << 16);
            let mut edited = call.clone();
            edited.body = serde_json::from_slice(&bytes).ok();
            edited
        });
        let reply = env.call(&Request::Http(call));
        statuses.push(reply.answer.status);
        if let Some(edited) = variant {
            let reply = env.call(&Request::Http(edited));
            statuses.push(reply.answer.status);
        }
    }
    let names: Vec<String> = env.tools().map(|t| t.tool.name.clone()).collect();
    for name in names.iter().take(32) {
        let reply = env.call(&Request::Tool {
            name: name.clone(),
            arguments: Map::new(),
        });
        statuses.push(reply.answer.status);
    }
    let exported = env.export();
    env.replace(&exported)
        .map_err(|e| format!("the World's own export does not import back: {}", e.detail))?;
    let again = env.export();
    if again != exported {
        return Err("export -> import -> export changed the World".into());
    }
    env.reset();
    if env.export() != initial {
        return Err("data/reset did not give back the starting World".into());
    }
    let _ = env.tables();
    let ok = statuses.iter().filter(|s| (200..300).contains(*s)).count();
    Ok(format!("served:{}:{}", names.len().min(8), ok.min(8)))
}
