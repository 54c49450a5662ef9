//! Usable bodies: the test every recorded body must pass before the state
//! keeps or compares its value (JSON-like type, UTF-8 text of at most
//! 256 KiB, every number exact as a double, no `__proto__` member).

use serde_json::Value;

/// The largest usable body and the largest rendered document, in bytes.
pub const BODY_LIMIT: usize = 256 * 1024;

/// Why a body is not usable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unusable {
    NotJsonLike,
    NotText,
    TooLarge,
    NotJson,
    InexactNumber,
    ProtoMember,
}

/// A JSON-like content type: `application/json`, `application/*+json`,
/// `text/json` or `text/x-json` (parameters ignored, case-insensitive).
pub fn json_like(content_type: &str) -> bool {
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence == "application/json"
        || essence == "text/json"
        || essence == "text/x-json"
        || (essence.starts_with("application/") && essence.ends_with("+json"))
}

/// Parses a usable body, or says why it is not usable.
pub fn usable_body(content_type: Option<&str>, text: Option<&str>) -> Result<Value, Unusable> {
    if !content_type.is_some_and(json_like) {
        return Err(Unusable::NotJsonLike);
    }
    let Some(text) = text else {
        return Err(Unusable::NotText);
    };
    if text.len() > BODY_LIMIT {
        return Err(Unusable::TooLarge);
    }
    if !numbers_exact(text) {
        return Err(Unusable::InexactNumber);
    }
    let value: Value = serde_json::from_str(text).map_err(|_| Unusable::NotJson)?;
    if has_proto(&value) {
        return Err(Unusable::ProtoMember);
    }
    Ok(value)
}

fn has_proto(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.iter().any(|(k, v)| k == "__proto__" || has_proto(v)),
        Value::Array(items) => items.iter().any(has_proto),
        _ => false,
    }
}

/// True when every number lexeme in the JSON text survives conversion to
/// a double exactly.
fn numbers_exact(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < bytes.len()
                    && matches!(bytes[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    i += 1;
                }
                if !is_safe_number(&text[start..i]) {
                    return false;
                }
            }
            _ => i += 1,
        }
    }
    true
}

/// The one number-safety test, shared with the decoder.
pub use rea_core::is_safe_number;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_like_types() {
        assert!(json_like("application/json; charset=utf-8"));
        assert!(json_like("application/vnd.api+json"));
        assert!(!json_like("text/html"));
        assert!(!json_like("application/jsonp"));
    }

    #[test]
    fn usability_both_sides() {
        let ct = Some("application/json");
        assert!(usable_body(ct, Some(r#"{"n":12.50,"m":1e300,"s":"9007199254740993"}"#)).is_ok());
        assert_eq!(
            usable_body(Some("text/html"), Some("{}")),
            Err(Unusable::NotJsonLike)
        );
        assert_eq!(usable_body(ct, None), Err(Unusable::NotText));
        let big = format!("\"{}\"", "x".repeat(BODY_LIMIT));
        assert_eq!(usable_body(ct, Some(&big)), Err(Unusable::TooLarge));
        let fits = format!("\"{}\"", "x".repeat(BODY_LIMIT - 2));
        assert!(usable_body(ct, Some(&fits)).is_ok());
        assert_eq!(
            usable_body(ct, Some(r#"{"n":9007199254740993}"#)),
            Err(Unusable::InexactNumber)
        );
        assert_eq!(
            usable_body(ct, Some(r#"{"n":1e400}"#)),
            Err(Unusable::InexactNumber)
        );
        assert_eq!(
            usable_body(ct, Some(r#"{"n":1e-400}"#)),
            Err(Unusable::InexactNumber)
        );
        assert_eq!(
            usable_body(ct, Some(r#"{"a":{"__proto__":{}}}"#)),
            Err(Unusable::ProtoMember)
        );
        assert!(usable_body(ct, Some(r#"{"a":"__proto__"}"#)).is_ok());
        assert_eq!(usable_body(ct, Some("{")), Err(Unusable::NotJson));
    }

    #[test]
    fn safe_numbers() {
        for ok in [
            "0",
            "-0",
            "12.50",
            "1e300",
            "0.1",
            "9007199254740991",
            "18.0",
            "1796059557780",
        ] {
            assert!(is_safe_number(ok), "{ok}");
        }
        for bad in [
            "9007199254740992",
            "9007199254740993",
            "1e400",
            "1e-400",
            "0.1000000000000000055511",
        ] {
            assert!(!is_safe_number(bad), "{bad}");
        }
    }
}
