//! What the journal never keeps: credential header values, and the values
//! of query parameters and JSON members whose names say they hold a
//! credential. Decided by name, so a credential the capture recorded (and a
//! client sends back) never reaches the journal, the page or the log.

use serde_json::Value;

/// What a redacted value reads as.
pub(super) const REDACTED: &str = "redacted";

/// Whether a header, parameter or member name says its value is a credential.
pub(super) fn credential_name(name: &str) -> bool {
    // Checked without lowering a copy: this runs for every header of every
    // journaled request.
    if rea_core::redact::CREDENTIAL_HEADERS
        .iter()
        .any(|h| h.eq_ignore_ascii_case(name))
    {
        return true;
    }
    const PARTS: [&str; 14] = [
        "auth",
        "cookie",
        "token",
        "secret",
        "session",
        "password",
        "passwd",
        "csrf",
        "xsrf",
        "api-key",
        "apikey",
        "api_key",
        "signature",
        "credential",
    ];
    PARTS.iter().any(|p| contains_ignore_ascii_case(name, p))
}

/// Whether `haystack` contains `needle` (lower-case ASCII), ignoring ASCII case.
fn contains_ignore_ascii_case(haystack: &str, needle: &str) -> bool {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    n.len() <= h.len()
        && h.windows(n.len())
            .any(|w| w.iter().zip(n).all(|(a, b)| a.to_ascii_lowercase() == *b))
}

/// A query string with credential parameters' values redacted (the rest
/// kept as sent).
pub(super) fn query(query: &str) -> String {
    query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, _)) if credential_name(&decoded(name)) => format!("{name}={REDACTED}"),
            _ => pair.to_string(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

fn decoded(name: &str) -> String {
    percent_encoding::percent_decode_str(&name.replace('+', " "))
        .decode_utf8_lossy()
        .into_owned()
}

/// Redacts every credential member's value of `value` in place, at any depth.
pub(super) fn json_in_place(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                if credential_name(k) && !v.is_null() {
                    *v = Value::String(REDACTED.to_string());
                } else {
                    json_in_place(v);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(json_in_place),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn credentials_are_redacted_by_name() {
        for name in ["Authorization", "Cookie", "X-Auth-Token"] {
            assert!(credential_name(name), "{name}");
        }
        assert!(!credential_name("Accept"));
        assert_eq!(
            query("a=1&access_token=xyz&api%5Fkey=k&b"),
            "a=1&access_token=redacted&api%5Fkey=redacted&b"
        );
        let mut body =
            json!({"user": "u", "password": "p", "nested": [{"token": "t"}], "session": null});
        json_in_place(&mut body);
        assert_eq!(
            body,
            json!({"user": "u", "password": "redacted", "nested": [{"token": "redacted"}], "session": null})
        );
        let mut body = json!({"User": "u", "X-API-KEY": "k", "list": [{"Refresh_Token": 1}]});
        json_in_place(&mut body);
        assert_eq!(
            body,
            json!({"User": "u", "X-API-KEY": "redacted", "list": [{"Refresh_Token": "redacted"}]})
        );
        assert!(credential_name("Set-Cookie") && credential_name("X-CSRFToken"));
        assert!(!credential_name("accept") && !credential_name("au"));
    }
}
