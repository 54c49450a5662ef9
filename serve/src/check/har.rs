//! The recording as the harness sees it: each HAR entry as one `Exchange`
//! (request line, headers, body; recorded status, headers, body; the entry's
//! clocks), read straight from the HAR JSON in file order.

use super::urls::{parse_qsl, split_url, unquote, unquote_plus, urlencode_form};
use super::values::{canon_scalar, epoch_of, parse_iso, CLOCK_WINDOW_US};
use base64::Engine as _;
use rea_core::ErrorReport;
use serde_json::Value;
use std::collections::HashSet;

/// The methods counted as reads; every other method is a write.
pub(crate) const READ_METHODS: &[&str] = &["GET", "HEAD", "OPTIONS"];

/// One recorded request and its answer.
#[derive(Debug, Clone)]
pub struct Exchange {
    /// 1-based position in the HAR file.
    pub idx: usize,
    pub method: String,
    pub path: String,
    pub query: String,
    pub req_headers: Vec<(String, String)>,
    pub req_body: Option<Vec<u8>>,
    pub req_ctype: String,
    /// 0 when the entry has no recorded response.
    pub status: u16,
    pub resp_headers: Vec<(String, String)>,
    pub resp_body: Vec<u8>,
    /// The body was base64 in the HAR: compared byte for byte.
    pub resp_binary: bool,
    pub resp_mime: String,
    /// The entry's `startedDateTime`, UTC microseconds.
    pub started: Option<i64>,
    /// The recorded answer's `Date` header, UTC microseconds.
    pub server_date: Option<i64>,
    req_text: String,
}

/// A header's value by case-insensitive name.
pub(crate) fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn pairs(v: &Value) -> Vec<(String, String)> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|h| {
                    (
                        h["name"].as_str().unwrap_or_default().to_string(),
                        h["value"].as_str().unwrap_or_default().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn b64(text: &str) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(text.trim())
        .unwrap_or_default()
}

impl Exchange {
    fn from_entry(idx: usize, entry: &Value) -> Result<Exchange, String> {
        let req = &entry["request"];
        let method = req["method"]
            .as_str()
            .ok_or("request.method is missing")?
            .to_ascii_uppercase();
        let url = req["url"].as_str().ok_or("request.url is missing")?;
        let (path, query) = split_url(url);
        let path = if path.is_empty() { "/".into() } else { path };
        let mut req_body = None;
        let mut req_ctype = String::new();
        if let Some(post) = req.get("postData").filter(|p| p.is_object()) {
            req_ctype = post["mimeType"].as_str().unwrap_or_default().to_string();
            let mut text = post["text"].as_str().map(str::to_string);
            if text.is_none() {
                let params: Vec<(String, String)> = post["params"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .map(|p| {
                                (
                                    p["name"].as_str().unwrap_or_default().to_string(),
                                    p["value"].as_str().unwrap_or_default().to_string(),
                                )
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                if !params.is_empty() {
                    text = Some(urlencode_form(&params));
                }
            }
            if let Some(text) = text {
                req_body = Some(if post["encoding"] == "base64" {
                    b64(&text)
                } else {
                    text.into_bytes()
                });
            }
        }
        let resp = &entry["response"];
        let status = resp["status"]
            .as_u64()
            .or_else(|| resp["status"].as_f64().map(|f| f as u64))
            .unwrap_or(0)
            .min(u64::from(u16::MAX)) as u16;
        let resp_headers = pairs(&resp["headers"]);
        let content = &resp["content"];
        let text = content["text"].as_str().unwrap_or_default();
        let resp_binary = content["encoding"] == "base64";
        let resp_body = if resp_binary {
            b64(text)
        } else {
            text.as_bytes().to_vec()
        };
        let resp_mime = content["mimeType"]
            .as_str()
            .filter(|m| !m.is_empty())
            .or_else(|| header(&resp_headers, "content-type"))
            .unwrap_or_default()
            .to_string();
        let started = entry["startedDateTime"]
            .as_str()
            .and_then(parse_iso)
            .map(|(t, _)| t);
        let server_date = header(&resp_headers, "date")
            .and_then(|d| chrono::DateTime::parse_from_rfc2822(d.trim()).ok())
            .map(|d| d.timestamp_micros());
        let body = req_body
            .as_deref()
            .map(String::from_utf8_lossy)
            .unwrap_or_default();
        let req_text = [
            url.to_string(),
            unquote(url),
            unquote_plus(url),
            body.to_string(),
            unquote_plus(&body),
        ]
        .join("\n");
        Ok(Exchange {
            idx,
            method,
            path,
            query,
            req_headers: pairs(&req["headers"]),
            req_body,
            req_ctype,
            status,
            resp_headers,
            resp_body,
            resp_binary,
            resp_mime,
            started,
            server_date,
            req_text,
        })
    }

    /// Path and query as recorded.
    pub fn path_qs(&self) -> String {
        if self.query.is_empty() {
            self.path.clone()
        } else {
            format!("{}?{}", self.path, self.query)
        }
    }

    pub fn is_read(&self) -> bool {
        READ_METHODS.contains(&self.method.as_str())
    }

    /// The whole recorded request as text: URL (raw, decoded), body, headers.
    pub(crate) fn request_text(&self) -> String {
        let heads: Vec<String> = self
            .req_headers
            .iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        format!("{} {}\n{}", self.method, self.req_text, heads.join("\n"))
    }

    /// The whole recorded response as text: headers and body.
    pub(crate) fn response_text(&self) -> String {
        let heads: Vec<String> = self
            .resp_headers
            .iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        format!(
            "{}\n{}",
            heads.join("\n"),
            String::from_utf8_lossy(&self.resp_body)
        )
    }

    /// (member, value) pairs the client sent: JSON body at any depth, query.
    pub(crate) fn client_pairs(&self) -> HashSet<(String, String)> {
        fn walk(doc: &Value, key: Option<&str>, out: &mut HashSet<(String, String)>) {
            match doc {
                Value::Object(m) => m.iter().for_each(|(k, v)| walk(v, Some(k), out)),
                Value::Array(a) => a.iter().for_each(|v| walk(v, key, out)),
                Value::Null | Value::Bool(_) => {}
                scalar => {
                    if let Some(k) = key {
                        out.insert((k.to_string(), canon_scalar(scalar)));
                    }
                }
            }
        }
        let mut out = HashSet::new();
        if let Some(doc) = self.req_body.as_deref().and_then(parse_json) {
            walk(&doc, None, &mut out);
        }
        out.extend(parse_qsl(&self.query));
        out
    }

    fn clocks(&self) -> impl Iterator<Item = i64> {
        self.started.into_iter().chain(self.server_date)
    }

    /// Rule 5: is this recorded string a value taken from the server's clock?
    pub(crate) fn clock_derived(&self, value: &str) -> bool {
        if self.started.is_none() && self.server_date.is_none() {
            return false;
        }
        let Some((start, end)) = parse_iso(value) else {
            return false;
        };
        if !self
            .clocks()
            .any(|r| start <= r + CLOCK_WINDOW_US && end >= r - CLOCK_WINDOW_US)
        {
            return false;
        }
        !self.req_text.contains(value)
    }

    /// Rules 7 and 8: does this number (or digit string) read as an epoch
    /// instant within 24 h of the entry's clocks?
    pub(crate) fn near_clock(&self, value: &Value) -> bool {
        let Some((unit, num)) = epoch_of(value) else {
            return false;
        };
        let secs = num / super::values::EPOCH_FACTORS[unit] as f64;
        self.clocks()
            .any(|r| (secs - r as f64 / 1e6).abs() <= (CLOCK_WINDOW_US / 1_000_000) as f64)
    }

    /// Rule 8 (without the client check): a digit token near the clock.
    pub(crate) fn clock_token(&self, token: &str) -> bool {
        super::values::is_digit_token(token) && self.near_clock(&Value::String(token.into()))
    }
}

/// JSON from bytes (UTF-8), or `None`.
pub(crate) fn parse_json(raw: &[u8]) -> Option<Value> {
    let text = std::str::from_utf8(raw).ok()?;
    serde_json::from_str(text).ok()
}

/// The media type of a Content-Type value, lower case, parameters dropped.
pub(crate) fn media_type(ct: &str) -> String {
    ct.split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// Every entry of a HAR document, in file order.
pub(crate) fn exchanges(har: &Value) -> Result<Vec<Exchange>, ErrorReport> {
    let entries = har["log"]["entries"].as_array().ok_or_else(|| {
        ErrorReport::input("invalid_capture", "the capture has no log.entries array")
            .detail("pointer", "/log/entries")
    })?;
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            Exchange::from_entry(i + 1, e).map_err(|m| {
                ErrorReport::input("invalid_capture", format!("entry {i}: {m}"))
                    .detail("pointer", format!("/log/entries/{i}"))
            })
        })
        .collect()
}

/// Reads a HAR file into its exchanges.
pub fn load(path: &std::path::Path) -> Result<Vec<Exchange>, ErrorReport> {
    let bytes = std::fs::read(path).map_err(|e| {
        ErrorReport::new(
            "read_failed",
            rea_core::Category::Unavailable,
            format!("cannot read {}: {e}", path.display()),
        )
        .detail("capture_path", path.display().to_string())
    })?;
    let har: Value = serde_json::from_slice(&bytes).map_err(|e| {
        ErrorReport::input(
            "invalid_json",
            format!("{} is not JSON: {e}", path.display()),
        )
    })?;
    exchanges(&har)
}
