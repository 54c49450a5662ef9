//! Protobuf field facts, schema-less and under the fixture descriptor,
//! beside a `prost` decode of the same messages into generated-style
//! structs (the baseline), in one run. Input: the real `Product` message
//! of `grpc-native.har` record 0 (a 323-byte gRPC frame payload), and the
//! three-product `ListProductsResponse` of `protobuf-http1.har` record 1.

use base64::Engine;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use prost::Message;
use rea_core::protobuf::{message_fields, schema};
use serde_json::Value;
use std::collections::HashMap;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

// The shapes `prost-build` generates for `tests/fixtures/formats/api.proto`.
#[derive(Clone, PartialEq, Message)]
struct Money {
    #[prost(string, tag = "1")]
    currency_code: String,
    #[prost(sint64, tag = "2")]
    units: i64,
    #[prost(int32, tag = "3")]
    nanos: i32,
}

#[derive(Clone, PartialEq, Message)]
struct Dimensions {
    #[prost(fixed32, tag = "1")]
    width_mm: u32,
    #[prost(fixed32, tag = "2")]
    height_mm: u32,
    #[prost(double, tag = "3")]
    weight_kg: f64,
    #[prost(float, tag = "4")]
    volume_l: f32,
}

#[derive(Clone, PartialEq, Message)]
struct Variant {
    #[prost(string, tag = "1")]
    name: String,
    #[prost(sfixed32, tag = "2")]
    price_offset_cents: i32,
    #[prost(bool, tag = "3")]
    is_default: bool,
}

#[derive(Clone, PartialEq, Message)]
struct Timestamp {
    #[prost(int64, tag = "1")]
    seconds: i64,
    #[prost(int32, tag = "2")]
    nanos: i32,
}

#[derive(Clone, PartialEq, prost::Oneof)]
enum Promotion {
    #[prost(string, tag = "16")]
    CouponCode(String),
    #[prost(uint32, tag = "17")]
    PercentOff(u32),
}

#[derive(Clone, PartialEq, Message)]
struct Product {
    #[prost(string, tag = "1")]
    sku: String,
    #[prost(string, tag = "2")]
    title: String,
    #[prost(message, optional, tag = "3")]
    price: Option<Money>,
    #[prost(int32, repeated, tag = "4")]
    stock_levels: Vec<i32>,
    #[prost(sint64, repeated, tag = "5")]
    stock_deltas: Vec<i64>,
    #[prost(int32, tag = "6")]
    availability: i32,
    #[prost(fixed64, tag = "7")]
    barcode: u64,
    #[prost(bytes = "vec", tag = "8")]
    thumbnail: Vec<u8>,
    #[prost(int32, tag = "9")]
    rating_adjustment: i32,
    #[prost(string, repeated, tag = "10")]
    tags: Vec<String>,
    #[prost(map = "string, string", tag = "11")]
    attributes: HashMap<String, String>,
    #[prost(message, optional, tag = "12")]
    updated_at: Option<Timestamp>,
    #[prost(message, repeated, tag = "13")]
    variants: Vec<Variant>,
    #[prost(message, optional, tag = "14")]
    dimensions: Option<Dimensions>,
    #[prost(double, optional, tag = "15")]
    discount: Option<f64>,
    #[prost(oneof = "Promotion", tags = "16, 17")]
    promotion: Option<Promotion>,
    #[prost(int32, repeated, tag = "18")]
    history: Vec<i32>,
    #[prost(uint64, tag = "19")]
    view_count: u64,
    #[prost(sfixed64, tag = "20")]
    ledger_offset: i64,
    #[prost(fixed32, repeated, tag = "21")]
    warehouse_ids: Vec<u32>,
}

#[derive(Clone, PartialEq, Message)]
struct ListProductsResponse {
    #[prost(message, repeated, tag = "1")]
    products: Vec<Product>,
    #[prost(string, tag = "2")]
    next_page_token: String,
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/formats")
            .join(name),
    )
    .expect("the fixture is committed")
}

fn response_body(har: &str, entry: usize) -> Vec<u8> {
    let doc: Value = serde_json::from_slice(&fixture(har)).unwrap();
    let text = doc["log"]["entries"][entry]["response"]["content"]["text"]
        .as_str()
        .unwrap();
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap()
}

fn bench(c: &mut Criterion) {
    let pool = schema::load(&fixture("api.pb")).unwrap();
    let product = response_body("grpc-native.har", 0)[5..].to_vec();
    let list = response_body("protobuf-http1.har", 1);
    let cases = [
        (
            "protobuf_product_323b",
            product,
            "rea.fixture.catalogue.v1.Product",
        ),
        (
            "protobuf_list_response",
            list,
            "rea.fixture.catalogue.v1.ListProductsResponse",
        ),
    ];
    for (name, bytes, type_name) in cases {
        let message = schema::message(&pool, type_name).unwrap();
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.measurement_time(Duration::from_secs(3));
        group.bench_function("schema_less_facts", |b| {
            b.iter(|| black_box(message_fields(black_box(&bytes), None).unwrap()))
        });
        group.bench_function("schema_facts", |b| {
            b.iter(|| black_box(message_fields(black_box(&bytes), Some(&message)).unwrap()))
        });
        if type_name.ends_with("Product") {
            group.bench_function("prost_decode_baseline", |b| {
                b.iter(|| black_box(Product::decode(black_box(bytes.as_slice())).unwrap()))
            });
        } else {
            group.bench_function("prost_decode_baseline", |b| {
                b.iter(|| {
                    black_box(ListProductsResponse::decode(black_box(bytes.as_slice())).unwrap())
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
