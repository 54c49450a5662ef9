//! The bench's ceiling: a minimal hyper server that answers each configured
//! method + path with fixed bytes, no routing logic, no state. `benches/serve.sh`
//! runs it beside `rea environment-serve` on the same bytes.
//!
//! usage: hyper_ceiling PORT METHOD:PATH=FILE [METHOD:PATH=FILE ...]

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;

#[tokio::main(flavor = "multi_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let port: u16 = args.next().ok_or("PORT")?.parse()?;
    let mut routes: HashMap<(String, String), Bytes> = HashMap::new();
    for spec in args {
        let (key, file) = spec.split_once('=').ok_or("METHOD:PATH=FILE")?;
        let (method, path) = key.split_once(':').ok_or("METHOD:PATH=FILE")?;
        routes.insert(
            (method.to_string(), path.to_string()),
            Bytes::from(std::fs::read(file)?),
        );
    }
    let routes = Arc::new(routes);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("listening on http://{}", listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        let routes = routes.clone();
        tokio::spawn(async move {
            let service = service_fn(move |req: Request<hyper::body::Incoming>| {
                let routes = routes.clone();
                async move {
                    let key = (req.method().to_string(), req.uri().path().to_string());
                    let response = match routes.get(&key) {
                        Some(bytes) => Response::builder()
                            .header("content-type", "application/json")
                            .body(Full::new(bytes.clone())),
                        None => Response::builder()
                            .status(StatusCode::NOT_FOUND)
                            .body(Full::new(Bytes::new())),
                    };
                    Ok::<_, Infallible>(response.unwrap_or_default())
                }
            });
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
