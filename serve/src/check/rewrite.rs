//! Request rewriting, so a faithful candidate gets a faithful request:
//! generated ids (R1), validators and clock values (R2), links from
//! `Next-Page` / `Location` / `Content-Location` (R3) and generated values
//! (R4), plus learning the header mappings from each matched answer.

use super::har::{header, Exchange};
use super::state::State;
use super::urls::{canon_pq, collection_path, parse_qsl, quote, strip_origin, unquote, urlencode};
use super::values::{as_int, id_like_key, sub_anywhere, sub_tokens, Scalar};
use serde_json::Value;

const HOP_BY_HOP: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "trailers",
    "transfer-encoding",
    "upgrade",
    "proxy-connection",
];
const VALIDATOR_REQ_HEADERS: &[&str] = &[
    "if-match",
    "if-none-match",
    "if-modified-since",
    "if-unmodified-since",
];
const LINK_HEADERS: &[&str] = &["next-page", "location", "content-location"];

/// Headers never sent: hop-by-hop ones, Host, Content-Length, Accept-Encoding
/// and HTTP/2 pseudo-headers.
pub(crate) fn dropped_header(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    HOP_BY_HOP.contains(&n.as_str())
        || matches!(n.as_str(), "host" | "content-length" | "accept-encoding")
        || n.starts_with(':')
}

fn etag_value(v: &str) -> String {
    let v = v.trim();
    let v = v.strip_prefix("W/").unwrap_or(v);
    v.trim_matches('"').to_string()
}

impl State {
    fn map_value(&self, key: Option<&str>, value: &Value) -> Value {
        if self.is_gen(key, value) {
            if let Some(m) = Scalar::of(value).and_then(|s| self.id_map.get(&s)) {
                return m.to_value();
            }
        }
        if let Value::String(s) = value {
            return Value::String(sub_tokens(s, &self.tok_map));
        }
        if let Some(i) = as_int(value) {
            if let Some(m @ Scalar::Int(_)) = self.gen_map.get(&Scalar::Int(i)) {
                return m.to_value();
            }
        }
        value.clone()
    }

    fn rewrite_json(&self, doc: &Value, key: Option<&str>) -> Value {
        match doc {
            Value::Object(m) => Value::Object(
                m.iter()
                    .map(|(k, v)| (sub_tokens(k, &self.tok_map), self.rewrite_json(v, Some(k))))
                    .collect(),
            ),
            Value::Array(a) => Value::Array(a.iter().map(|v| self.rewrite_json(v, key)).collect()),
            other => self.map_value(key, other),
        }
    }

    /// Every mapped recorded volatile value (6+ characters) → the candidate's.
    fn rewrite_vol_text(&self, text: &str) -> String {
        let mut keys: Vec<(&str, &str)> = self
            .vol_map
            .iter()
            .filter(|(k, v)| k.chars().count() >= 6 && k != v && text.contains(k.as_str()))
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        if keys.is_empty() {
            return text.to_string();
        }
        keys.sort_by_key(|(k, _)| std::cmp::Reverse(k.len()));
        sub_anywhere(text, &keys)
    }

    /// The path+query to send for a recorded request.
    pub(crate) fn rewrite_path_qs(&self, ex: &Exchange) -> String {
        if let Some(mapped) = self.link_map.get(&canon_pq(&ex.path_qs())) {
            return mapped.clone();
        }
        let segs: Vec<&str> = ex.path.split('/').collect();
        let mut out_segs = Vec::with_capacity(segs.len());
        for (i, seg) in segs.iter().enumerate() {
            let raw = unquote(seg);
            let mut new = seg.to_string();
            for (rec, cand) in &self.id_map {
                if raw != rec.text() {
                    continue;
                }
                let prefix = collection_path(&segs[..i].join("/"));
                let long = matches!(rec, Scalar::Str(s) if s.chars().count() >= 8);
                if long || self.generated.get(rec) == Some(&prefix) {
                    new = quote(&cand.text());
                    break;
                }
            }
            if new == *seg {
                new = sub_tokens(seg, &self.tok_map);
            }
            out_segs.push(new);
        }
        let path = out_segs.join("/");
        if ex.query.is_empty() {
            return path;
        }
        let mut changed = false;
        let mut out = Vec::new();
        for (k, v) in parse_qsl(&ex.query) {
            let mut nv = v.clone();
            for (rec, cand) in &self.id_map {
                if v == rec.text() && (id_like_key(Some(&k)) || v.chars().count() >= 8) {
                    nv = cand.text();
                }
            }
            nv = self.rewrite_vol_text(&nv);
            if nv == v {
                nv = sub_tokens(&v, &self.tok_map);
            }
            changed |= nv != v;
            out.push((k, nv));
        }
        if !changed {
            return format!("{path}?{}", ex.query);
        }
        format!("{path}?{}", urlencode(&out))
    }

    /// The headers to send: recorded ones minus the dropped, rewritten.
    pub(crate) fn rewrite_headers(&self, ex: &Exchange) -> Vec<(String, String)> {
        ex.req_headers
            .iter()
            .filter(|(k, _)| !dropped_header(k))
            .map(|(k, v)| {
                let mut nv = v.clone();
                if VALIDATOR_REQ_HEADERS.contains(&k.to_ascii_lowercase().as_str()) {
                    nv = self.rewrite_vol_text(v);
                }
                if nv == *v {
                    nv = sub_tokens(v, &self.tok_map);
                }
                (k.clone(), nv)
            })
            .collect()
    }

    /// The body to send: JSON values and member names rewritten, or the
    /// tokens of a form or text body.
    pub(crate) fn rewrite_body(&self, ex: &Exchange) -> Option<Vec<u8>> {
        let body = ex.req_body.as_ref()?;
        if body.is_empty() || (self.id_map.is_empty() && self.tok_map.is_empty()) {
            return Some(body.clone());
        }
        let ctype = if ex.req_ctype.is_empty() {
            header(&ex.req_headers, "content-type").unwrap_or_default()
        } else {
            ex.req_ctype.as_str()
        }
        .to_ascii_lowercase();
        if !ctype.contains("json") {
            if !self.tok_map.is_empty()
                && (ctype.contains("x-www-form-urlencoded") || ctype.starts_with("text/"))
            {
                if let Ok(text) = std::str::from_utf8(body) {
                    let new = sub_tokens(text, &self.tok_map);
                    if new != text {
                        return Some(new.into_bytes());
                    }
                }
            }
            return Some(body.clone());
        }
        let Ok(doc) = serde_json::from_slice::<Value>(body) else {
            return Some(body.clone());
        };
        let new = self.rewrite_json(&doc, None);
        if super::values::value_eq(&new, &doc) {
            return Some(body.clone());
        }
        Some(serde_json::to_vec(&new).unwrap_or_else(|_| body.clone()))
    }

    /// Learns validators (ETag, Last-Modified) and links from an answer
    /// whose status matched.
    pub(crate) fn learn_headers(
        &mut self,
        recorded: &[(String, String)],
        cand: &[(String, String)],
    ) {
        for name in ["etag", "last-modified"] {
            if let (Some(r), Some(c)) = (header(recorded, name), header(cand, name)) {
                if r.is_empty() || c.is_empty() {
                    continue;
                }
                self.vol_map.insert(r.to_string(), c.to_string());
                self.vol_map.insert(etag_value(r), etag_value(c));
            }
        }
        for name in LINK_HEADERS {
            if let (Some(r), Some(c)) = (header(recorded, name), header(cand, name)) {
                if r.is_empty() || c.is_empty() {
                    continue;
                }
                self.link_map
                    .insert(canon_pq(&strip_origin(r)), strip_origin(c));
            }
        }
    }
}
