//! What the journal never keeps: credential header values, and the values
//! of query parameters and JSON members whose names say they hold a
//! credential. Decided by name, so a credential the capture recorded (and a
//! client sends back) never reaches the journal, the page or the log.

use serde_json::Value;

/// What a redacted value reads as.
pub(super) const REDACTED: &str = "redacted";

/// Whether a header, parameter or member name says its value is a credential.
pub(super) fn credential_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    if rea_core::redact::CREDENTIAL_HEADERS.contains(&n.as_str()) {
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
    PARTS.iter().any(|p| n.contains(p))
}

/// A header's value as the journal keeps it.
pub(super) fn header_value(name: &str, value: &str) -> String {
    if credential_name(name) {
        REDACTED.to_string()
    } else {
        value.to_string()
    }
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

/// A JSON value with every credential member's value redacted, at any depth.
pub(super) fn json(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let v = if credential_name(k) && !v.is_null() {
                        Value::String(REDACTED.to_string())
                    } else {
                        json(v)
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(json).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn credentials_are_redacted_by_name() {
        assert_eq!(header_value("Authorization", "Basic abc"), REDACTED);
        assert_eq!(header_value("Cookie", "sid=1"), REDACTED);
        assert_eq!(header_value("X-Auth-Token", "t"), REDACTED);
        assert_eq!(header_value("Accept", "*/*"), "*/*");
        assert_eq!(
            query("a=1&access_token=xyz&api%5Fkey=k&b"),
            "a=1&access_token=redacted&api%5Fkey=redacted&b"
        );
        assert_eq!(
            json(
                &json!({"user": "u", "password": "p", "nested": [{"token": "t"}], "session": null})
            ),
            json!({"user": "u", "password": "redacted", "nested": [{"token": "redacted"}], "session": null})
        );
    }
}
