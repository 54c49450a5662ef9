//! What the journal never keeps: credential header values, and the values
//! of query parameters and JSON members whose names say they hold a
//! credential. Decided by name, so a credential the capture recorded (and a
//! client sends back) never reaches the journal, the page or the log.

use serde_json::Value;

/// What a redacted value reads as.
pub(super) const REDACTED: &str = "redacted";

/// The name parts that say a value is a credential (lower-case ASCII). Every
/// name of `rea_core::redact::CREDENTIAL_HEADERS` holds one of them.
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

/// Whether a header, parameter or member name says its value is a credential:
/// it holds one of `PARTS`, ignoring ASCII case.
pub(super) fn credential_name(name: &str) -> bool {
    // One pass over the name, trying only the parts that start with the
    // byte at hand (this runs for every header of every journaled request).
    let bytes = name.as_bytes();
    (0..bytes.len()).any(|at| {
        let candidates: &[&str] = match bytes[at].to_ascii_lowercase() {
            b'a' => &PARTS[0..1],
            b'c' => &["cookie", "csrf", "credential"],
            b't' => &["token"],
            b's' => &["secret", "session", "signature"],
            b'p' => &["password", "passwd"],
            b'x' => &["xsrf"],
            _ => return false,
        };
        let rest = &bytes[at..];
        let api = rest.len() >= 3 && rest[..3].eq_ignore_ascii_case(b"api");
        candidates
            .iter()
            .chain(if api { &PARTS[9..12] } else { &[][..] })
            .any(|p| rest.len() >= p.len() && rest[..p.len()].eq_ignore_ascii_case(p.as_bytes()))
    })
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
        for name in rea_core::redact::CREDENTIAL_HEADERS {
            assert!(credential_name(name), "{name}");
        }
    }

    /// The one-pass check says what a substring search for every part says.
    #[test]
    fn credential_names_match_a_plain_substring_search() {
        let reference = |name: &str| {
            let lower = name.to_ascii_lowercase();
            PARTS.iter().any(|p| lower.contains(p))
        };
        for name in [
            "Host",
            "Accept-Encoding",
            "Content-Type",
            "If-Match",
            "X-Api-Key",
            "API_KEY",
            "apikey",
            "x-apikeys",
            "api",
            "ap",
            "Proxy-Authorization",
            "set-cookie",
            "X-Session-Id",
            "sess",
            "passwd",
            "PassWord",
            "pass",
            "X-XSRF-TOKEN",
            "csrftoken",
            "credentials",
            "Signature",
            "sign",
            "secret_key",
            "TOKEN",
            "toke",
            "a",
            "",
            "accesstoken",
            "user-agent",
            "x-request-id",
            "creDential",
            "aut",
            "authx",
        ] {
            assert_eq!(credential_name(name), reference(name), "{name}");
        }
    }
}
