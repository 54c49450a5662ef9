//! Input mutation for the stable driver: a seeded generator, byte-level
//! mutations, JSON-aware mutations (for HAR, qlog and the end-to-end
//! target) and ZIP-member mutations (for SAZ archives).

use serde_json::{Map, Value};
use std::io::{Read, Write};

/// splitmix64: small, seeded, reproducible.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    pub fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Tokens that tend to reach edge cases in text formats.
const TOKENS: [&str; 34] = [
    "{",
    "}",
    "[",
    "]",
    "\"",
    ",",
    ":",
    "\\",
    "\\u0000",
    "\\ud800",
    "null",
    "true",
    "-0",
    "1e400",
    "-1",
    "18446744073709551616",
    "0.0000000000000000000001",
    "NaN",
    "\u{feff}",
    "\r\n",
    "\r\n\r\n",
    "%",
    "%00",
    "%zz",
    "base64",
    "Content-Length: 99999999\r\n",
    "Transfer-Encoding: chunked\r\n",
    "Content-Encoding: gzip\r\n",
    "application/json",
    "application/grpc",
    "HTTP/1.1 200 OK\r\n",
    "\u{10ffff}",
    "&",
    "=",
];

/// Interesting JSON values for replacing a node.
fn json_value(rng: &mut Rng) -> Value {
    match rng.below(14) {
        0 => Value::Null,
        1 => Value::Bool(rng.chance(2)),
        2 => Value::from(rng.next_u64() as i64),
        3 => Value::from(-1),
        4 => Value::from(0),
        5 => serde_json::from_str("1e300").unwrap_or(Value::Null),
        6 => Value::String(String::new()),
        7 => Value::String("x".repeat(rng.below(300))),
        8 => Value::String((*rng.pick(&TOKENS)).to_string()),
        9 => Value::Array(Vec::new()),
        10 => Value::Object(Map::new()),
        11 => Value::String("http://127.0.0.1:1/a/b?c=d&e=%zz#f".into()),
        12 => Value::String("2026-01-01T00:00:00.000Z".into()),
        _ => Value::String("eyJhIjoxfQ==".into()),
    }
}

/// One to eight byte-level mutations, with splicing from `other`.
pub fn bytes(rng: &mut Rng, data: &mut Vec<u8>, other: &[u8], max_len: usize) {
    for _ in 0..1 + rng.below(8) {
        let len = data.len();
        match rng.below(10) {
            0 if len > 0 => {
                let i = rng.below(len);
                data[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                data[i] = *rng.pick(&[0u8, 0xff, 0x7f, 0x80, b'"', b'{', b'0', b':', b'\n']);
            }
            2 if len > 0 => {
                let at = rng.below(len);
                let n = 1 + rng.below((len - at).min(64));
                data.drain(at..at + n);
            }
            3 if len > 0 => {
                let at = rng.below(len);
                let n = 1 + rng.below((len - at).min(64));
                let chunk = data[at..at + n].to_vec();
                let to = rng.below(data.len() + 1);
                data.splice(to..to, chunk);
            }
            4 => {
                let to = rng.below(len + 1);
                let token = rng.pick(&TOKENS).as_bytes().to_vec();
                data.splice(to..to, token);
            }
            5 if !other.is_empty() => {
                let at = rng.below(other.len());
                let n = 1 + rng.below((other.len() - at).min(256));
                let to = rng.below(len + 1);
                data.splice(to..to, other[at..at + n].iter().copied());
            }
            6 if len > 0 => data.truncate(rng.below(len)),
            7 => {
                let to = rng.below(len + 1);
                let n = 1 + rng.below(16);
                let fill: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
                data.splice(to..to, fill);
            }
            8 if len > 1 => {
                // A number in the text nudged to an edge.
                let i = rng.below(len);
                if data[i].is_ascii_digit() {
                    data[i] = *rng.pick(b"09");
                    let to = i + 1;
                    data.splice(to..to, b"999999999999".iter().copied());
                }
            }
            _ => {}
        }
    }
    data.truncate(max_len);
}

/// A JSON document mutated as a tree (one to four node edits), or as
/// bytes when it is not JSON.
pub fn json(rng: &mut Rng, data: &mut Vec<u8>, other: &[u8], max_len: usize) {
    let Ok(mut value) = serde_json::from_slice::<Value>(data) else {
        return bytes(rng, data, other, max_len);
    };
    let donor: Option<Value> = serde_json::from_slice(other).ok();
    for _ in 0..1 + rng.below(4) {
        let count = count_nodes(&value);
        let target = rng.below(count);
        let mut seen = 0;
        edit(rng, &mut value, target, &mut seen, donor.as_ref());
    }
    let mut out = if rng.chance(2) {
        serde_json::to_vec(&value).unwrap_or_default()
    } else {
        serde_json::to_vec_pretty(&value).unwrap_or_default()
    };
    if rng.chance(8) {
        bytes(rng, &mut out, other, max_len);
    }
    out.truncate(max_len);
    *data = out;
}

fn count_nodes(v: &Value) -> usize {
    1 + match v {
        Value::Array(a) => a.iter().map(count_nodes).sum(),
        Value::Object(o) => o.values().map(count_nodes).sum(),
        _ => 0,
    }
}

/// A random node of the donor (or a fresh value).
fn graft(rng: &mut Rng, donor: Option<&Value>) -> Value {
    let Some(d) = donor else {
        return json_value(rng);
    };
    let mut node = d;
    for _ in 0..rng.below(8) {
        node = match node {
            Value::Array(a) if !a.is_empty() => &a[rng.below(a.len())],
            Value::Object(o) if !o.is_empty() => o.values().nth(rng.below(o.len())).unwrap_or(node),
            _ => break,
        };
    }
    node.clone()
}

fn edit(
    rng: &mut Rng,
    v: &mut Value,
    target: usize,
    seen: &mut usize,
    donor: Option<&Value>,
) -> bool {
    if *seen == target {
        match rng.below(9) {
            0 | 1 => *v = json_value(rng),
            2 => *v = graft(rng, donor),
            3 => {
                if let Value::String(s) = v {
                    let mut b = s.clone().into_bytes();
                    bytes(rng, &mut b, &[], 4096);
                    *s = String::from_utf8_lossy(&b).into_owned();
                }
            }
            4 => match v {
                Value::Array(a) if !a.is_empty() => {
                    let i = rng.below(a.len());
                    a.remove(i);
                }
                Value::Object(o) if !o.is_empty() => {
                    let i = rng.below(o.len());
                    if let Some(key) = o.keys().nth(i).cloned() {
                        o.shift_remove(&key);
                    }
                }
                _ => *v = Value::Null,
            },
            5 => match v {
                Value::Array(a) if !a.is_empty() => {
                    let i = rng.below(a.len());
                    let item = a[i].clone();
                    for _ in 0..1 + rng.below(3) {
                        a.push(item.clone());
                    }
                }
                Value::Object(o) => {
                    let key =
                        (*rng.pick(&["id", "data", "_x", "", "records", "parts"])).to_string();
                    o.insert(key, graft(rng, donor));
                }
                _ => {}
            },
            6 => {
                let mut nested = v.clone();
                for _ in 0..1 + rng.below(70) {
                    nested = Value::Array(vec![nested]);
                }
                *v = nested;
            }
            7 => {
                if let Value::Number(_) = v {
                    *v = json_value(rng);
                } else if let Value::String(s) = v {
                    *s = s.repeat(1 + rng.below(4));
                }
            }
            _ => *v = Value::String(v.to_string()),
        }
        return true;
    }
    *seen += 1;
    match v {
        Value::Array(a) => a.iter_mut().any(|i| edit(rng, i, target, seen, donor)),
        Value::Object(o) => o.values_mut().any(|i| edit(rng, i, target, seen, donor)),
        _ => false,
    }
}

/// A ZIP archive's members (name, bytes), in order; `None` when not a ZIP.
pub fn unzip(data: &[u8]) -> Option<Vec<(String, Vec<u8>)>> {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(data)).ok()?;
    let mut out = Vec::new();
    for i in 0..zip.len().min(256) {
        let mut file = zip.by_index(i).ok()?;
        let mut bytes = Vec::new();
        file.by_ref().take(1 << 20).read_to_end(&mut bytes).ok()?;
        let name = file.name().ok()?.into_owned();
        out.push((name, bytes));
    }
    Some(out)
}

/// Members written back into a ZIP archive (stored, or deflated).
pub fn rezip(members: &[(String, Vec<u8>)], deflate: bool) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let method = if deflate {
        zip::CompressionMethod::Deflated
    } else {
        zip::CompressionMethod::Stored
    };
    let options = zip::write::SimpleFileOptions::default().compression_method(method);
    for (name, bytes) in members {
        if w.start_file(name.as_str(), options).is_err() || w.write_all(bytes).is_err() {
            continue;
        }
    }
    w.finish().map(|c| c.into_inner()).unwrap_or_default()
}

/// A ZIP archive mutated member by member (contents, names, order), or as
/// bytes (CRCs and offsets broken) one time in eight.
pub fn zip_members(rng: &mut Rng, data: &mut Vec<u8>, other: &[u8], max_len: usize) {
    let Some(mut members) = unzip(data).filter(|m| !m.is_empty() && !rng.chance(8)) else {
        return bytes(rng, data, other, max_len);
    };
    for _ in 0..1 + rng.below(3) {
        let i = rng.below(members.len());
        match rng.below(6) {
            0 => {
                let j = rng.below(members.len());
                members.swap(i, j);
            }
            1 => {
                let (name, body) = members[i].clone();
                members.push((name.replace("_c", "_s"), body));
            }
            2 => members[i].0 = format!("raw/{}_c.txt", rng.below(100)),
            3 => {
                members.remove(i);
                if members.is_empty() {
                    break;
                }
            }
            _ => {
                let donor = other.to_vec();
                bytes(rng, &mut members[i].1, &donor, 1 << 20);
            }
        }
    }
    let mut out = rezip(&members, rng.chance(2));
    out.truncate(max_len);
    *data = out;
}
