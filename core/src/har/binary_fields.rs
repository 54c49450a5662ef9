//! Body byte descriptors (`binary_fields`) and the canonical-base64 check
//! of every `content.encoding: "base64"` text in the capture.

use super::Issue;
use crate::evidence::BinaryField;
use crate::read::hex;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// Decodes canonical base64 (standard alphabet, padding, zero trailing bits).
pub fn decode_canonical(text: &str) -> Option<Vec<u8>> {
    STANDARD.decode(text).ok()
}

/// One issue per `content.text` whose `encoding` is `base64` but whose text
/// is not canonical base64, in every entry (selected or not).
pub fn base64_issues(doc: &Value) -> Vec<Issue> {
    let Some(entries) = doc.pointer("/log/entries").and_then(Value::as_array) else {
        return Vec::new();
    };
    let mut issues = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let Some(content) = entry.pointer("/response/content") else {
            continue;
        };
        if content.get("encoding").and_then(Value::as_str) != Some("base64") {
            continue;
        }
        if let Some(text) = content.get("text").and_then(Value::as_str) {
            if decode_canonical(text).is_none() {
                issues.push(Issue {
                    pointer: format!("/log/entries/{i}/response/content/text"),
                    keyword: "contentEncoding".to_string(),
                    message: "the text is declared base64 but is not canonical base64".to_string(),
                });
            }
        }
    }
    issues
}

/// The byte descriptors of one (already redacted) entry's body texts:
/// `request.postData.text` and `response.content.text`. Absent and `null`
/// texts get none.
pub fn describe(entry: &Value, base: &str) -> Vec<BinaryField> {
    let mut fields = Vec::new();
    if let Some(text) = entry
        .pointer("/request/postData/text")
        .and_then(Value::as_str)
    {
        fields.push(field(
            format!("{base}/request/postData/text"),
            None,
            false,
            text.as_bytes(),
        ));
    }
    if let Some(content) = entry.pointer("/response/content") {
        if let Some(text) = content.get("text").and_then(Value::as_str) {
            let encoding = content.get("encoding").and_then(Value::as_str);
            let pointer = format!("{base}/response/content/text");
            match (
                encoding,
                encoding
                    .filter(|e| *e == "base64")
                    .and_then(|_| decode_canonical(text)),
            ) {
                (Some(e), Some(bytes)) => fields.push(field(pointer, Some(e), true, &bytes)),
                (e, _) => fields.push(field(pointer, e, false, text.as_bytes())),
            }
        }
    }
    fields
}

fn field(pointer: String, encoding: Option<&str>, establishes: bool, bytes: &[u8]) -> BinaryField {
    BinaryField {
        pointer,
        encoding: encoding.map(str::to_string),
        establishes_body_bytes: establishes,
        size: bytes.len() as u64,
        sha256: Some(hex(&Sha256::digest(bytes))),
        base64: None,
    }
}
