//! Exclusion of transport credentials (authentication headers, HAR cookie
//! values, URL userinfo) and of caller-declared sensitive values (any
//! string, number lexeme, decoded base64 body or member name containing
//! one), with pointers that never reveal a declared value.

use crate::evidence::{Redaction, RedactionReason, RedactionScope};
use crate::har::binary_fields::decode_canonical;
use crate::json::escape_token;
use crate::recorded_url::{credential_cut, CredentialCut};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Header names whose values are transport credentials (compared ignoring case).
pub const CREDENTIAL_HEADERS: [&str; 4] = [
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
];

/// The caller's declared sensitive literals (never empty strings).
#[derive(Debug, Clone, Copy)]
pub struct Declared<'a> {
    values: &'a [String],
}

impl<'a> Declared<'a> {
    pub fn new(values: &'a [String]) -> Self {
        Declared { values }
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Whether the text contains any declared value.
    pub fn in_text(&self, text: &str) -> bool {
        self.values
            .iter()
            .any(|v| !v.is_empty() && text.contains(v.as_str()))
    }

    /// Whether the bytes contain the UTF-8 bytes of any declared value.
    pub fn in_bytes(&self, bytes: &[u8]) -> bool {
        self.values.iter().any(|v| {
            let needle = v.as_bytes();
            !needle.is_empty() && bytes.windows(needle.len()).any(|w| w == needle)
        })
    }

    /// Whether a lowercase hex digest contains a declared value (compared ignoring case).
    pub fn in_digest(&self, hex: &str) -> bool {
        self.values
            .iter()
            .any(|v| !v.is_empty() && hex.contains(v.to_ascii_lowercase().as_str()))
    }

    /// The pointer itself, or its nearest ancestor whose text reveals no declared value.
    pub fn safe_pointer(&self, pointer: &str) -> String {
        let mut current = pointer;
        while self.in_text(current) {
            match current.rfind('/') {
                Some(at) => current = &current[..at],
                None => return String::new(),
            }
        }
        current.to_string()
    }
}

/// Collects the exclusions made in one record (or the container).
pub struct Redactor<'a> {
    pub declared: Declared<'a>,
    pub record_ordinal: Option<u64>,
    /// Every exclusion, pointers already made safe.
    pub redactions: Vec<Redaction>,
    /// Raw pointers of removed or nulled subtrees (for dropping sidecars).
    pub excluded: Vec<String>,
}

impl<'a> Redactor<'a> {
    pub fn new(declared: Declared<'a>, record_ordinal: Option<u64>) -> Self {
        Redactor {
            declared,
            record_ordinal,
            redactions: Vec::new(),
            excluded: Vec::new(),
        }
    }

    fn note(&mut self, raw_pointer: &str, scope: RedactionScope, reason: RedactionReason) {
        self.redactions.push(Redaction {
            pointer: self.declared.safe_pointer(raw_pointer),
            record_ordinal: self.record_ordinal,
            scope,
            reason,
        });
        if scope != RedactionScope::Userinfo && scope != RedactionScope::PropertyName {
            self.excluded.push(raw_pointer.to_string());
        }
    }

    /// Records an exclusion the caller made itself (e.g. of a native byte
    /// field that has no display value to null).
    pub fn exclude(&mut self, raw_pointer: &str, scope: RedactionScope, reason: RedactionReason) {
        self.note(raw_pointer, scope, reason);
    }

    /// Whether a sidecar at this raw pointer lies in an excluded subtree.
    pub fn covers(&self, pointer: &str) -> bool {
        self.excluded.iter().any(|p| {
            pointer == p
                || (pointer.starts_with(p.as_str())
                    && pointer.as_bytes().get(p.len()) == Some(&b'/'))
        })
    }

    /// Excludes the transport credentials of one HAR entry at `base`.
    pub fn transport(&mut self, entry: &mut Value, base: &str) {
        for side in ["request", "response"] {
            let Some(message) = entry.get_mut(side) else {
                continue;
            };
            if let Some(headers) = message.get_mut("headers").and_then(Value::as_array_mut) {
                for (i, header) in headers.iter_mut().enumerate() {
                    let credential = header.get("name").and_then(Value::as_str).is_some_and(|n| {
                        CREDENTIAL_HEADERS.iter().any(|c| n.eq_ignore_ascii_case(c))
                    });
                    if credential {
                        self.null_member(
                            header,
                            "value",
                            &format!("{base}/{side}/headers/{i}/value"),
                        );
                    }
                }
            }
            if let Some(cookies) = message.get_mut("cookies").and_then(Value::as_array_mut) {
                for (i, cookie) in cookies.iter_mut().enumerate() {
                    self.null_member(cookie, "value", &format!("{base}/{side}/cookies/{i}/value"));
                }
            }
            let url_member = if side == "request" {
                "url"
            } else {
                "redirectURL"
            };
            self.userinfo(message, url_member, &format!("{base}/{side}/{url_member}"));
        }
    }

    fn null_member(&mut self, object: &mut Value, member: &str, pointer: &str) {
        if let Some(value) = object.get_mut(member) {
            if !value.is_null() {
                *value = Value::Null;
                self.note(
                    pointer,
                    RedactionScope::Value,
                    RedactionReason::TransportCredential,
                );
            }
        }
    }

    fn userinfo(&mut self, message: &mut Value, member: &str, pointer: &str) {
        let Some(slot) = message.get_mut(member) else {
            return;
        };
        let Some(raw) = slot.as_str() else { return };
        match credential_cut(raw) {
            CredentialCut::None => {}
            CredentialCut::Span(span) => {
                let mut kept = raw.to_string();
                kept.replace_range(span, "");
                *slot = Value::String(kept);
                self.note(
                    pointer,
                    RedactionScope::Userinfo,
                    RedactionReason::TransportCredential,
                );
            }
            CredentialCut::WholeField => {
                *slot = Value::Null;
                self.note(
                    pointer,
                    RedactionScope::Field,
                    RedactionReason::TransportCredential,
                );
            }
        }
    }

    /// Nulls base64 body texts whose decoded bytes contain a declared value.
    pub fn sensitive_bodies(&mut self, entry: &mut Value, base: &str) {
        if self.declared.is_empty() {
            return;
        }
        let Some(content) = entry.pointer_mut("/response/content") else {
            return;
        };
        if content.get("encoding").and_then(Value::as_str) != Some("base64") {
            return;
        }
        let hit = content
            .get("text")
            .and_then(Value::as_str)
            .and_then(decode_canonical)
            .is_some_and(|bytes| self.declared.in_bytes(&bytes));
        if hit {
            self.null_sensitive(content, "text", &format!("{base}/response/content/text"));
        }
    }

    fn null_sensitive(&mut self, object: &mut Value, member: &str, pointer: &str) {
        if let Some(value) = object.get_mut(member) {
            *value = Value::Null;
            self.note(
                pointer,
                RedactionScope::Value,
                RedactionReason::SensitiveValue,
            );
        }
    }

    /// Excludes every string, number and member name containing a declared
    /// value in the subtree at `pointer`. `lexemes` gives the original
    /// spelling of numbers that have a numeric sidecar.
    pub fn sensitive(
        &mut self,
        value: &mut Value,
        pointer: &mut String,
        lexemes: &HashMap<&str, &str>,
    ) {
        if self.declared.is_empty() {
            return;
        }
        match value {
            Value::String(text) => {
                if self.declared.in_text(text) {
                    *value = Value::Null;
                    let p = pointer.clone();
                    self.note(&p, RedactionScope::Value, RedactionReason::SensitiveValue);
                }
            }
            Value::Number(number) => {
                let spelled = number.to_string();
                let lexeme = lexemes
                    .get(pointer.as_str())
                    .copied()
                    .unwrap_or(spelled.as_str());
                if self.declared.in_text(lexeme) || self.declared.in_text(&spelled) {
                    *value = Value::Null;
                    let p = pointer.clone();
                    self.note(&p, RedactionScope::Value, RedactionReason::SensitiveValue);
                }
            }
            Value::Null => {
                if let Some(lexeme) = lexemes.get(pointer.as_str()) {
                    if self.declared.in_text(lexeme) {
                        let p = pointer.clone();
                        self.note(&p, RedactionScope::Value, RedactionReason::SensitiveValue);
                    }
                }
            }
            Value::Bool(_) => {}
            Value::Array(items) => {
                let len = pointer.len();
                for (i, item) in items.iter_mut().enumerate() {
                    pointer.push('/');
                    pointer.push_str(&i.to_string());
                    self.sensitive(item, pointer, lexemes);
                    pointer.truncate(len);
                }
            }
            Value::Object(map) => self.sensitive_object(map, pointer, lexemes),
        }
    }

    fn sensitive_object(
        &mut self,
        map: &mut Map<String, Value>,
        pointer: &mut String,
        lexemes: &HashMap<&str, &str>,
    ) {
        let hidden: Vec<String> = map
            .keys()
            .filter(|k| self.declared.in_text(k))
            .cloned()
            .collect();
        for key in hidden {
            map.shift_remove(&key);
            let mut child = pointer.clone();
            child.push('/');
            escape_token(&key, &mut child);
            self.excluded.push(child);
            let parent = pointer.clone();
            self.note(
                &parent,
                RedactionScope::PropertyName,
                RedactionReason::SensitiveValue,
            );
        }
        let len = pointer.len();
        for (key, child) in map.iter_mut() {
            pointer.push('/');
            escape_token(key, pointer);
            self.sensitive(child, pointer, lexemes);
            pointer.truncate(len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn values(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn credential_headers_cookies_and_userinfo_are_excluded() {
        let mut entry = json!({
            "request": {"url": "https://u:p@h.example/a?b=1", "headers": [
                {"name": "AUTHORIZATION", "value": "Basic x"}, {"name": "Accept", "value": "a"},
                {"name": "cookie", "value": "sid=1"}], "cookies": [{"name": "sid", "value": "1"}]},
            "response": {"redirectURL": "http:u:p@h.example/x", "headers": [{"name": "Set-Cookie", "value": "a=b"}], "cookies": []}
        });
        let none = Vec::new();
        let mut r = Redactor::new(Declared::new(&none), Some(3));
        r.transport(&mut entry, "/log/entries/3");
        assert_eq!(entry["request"]["url"], "https://h.example/a?b=1");
        assert_eq!(entry["request"]["headers"][0]["value"], Value::Null);
        assert_eq!(entry["request"]["headers"][1]["value"], "a");
        assert_eq!(entry["request"]["headers"][2]["value"], Value::Null);
        assert_eq!(entry["request"]["cookies"][0]["value"], Value::Null);
        assert_eq!(entry["response"]["headers"][0]["value"], Value::Null);
        assert_eq!(entry["response"]["redirectURL"], Value::Null);
        let scopes: Vec<RedactionScope> = r.redactions.iter().map(|x| x.scope).collect();
        assert!(
            scopes.contains(&RedactionScope::Userinfo) && scopes.contains(&RedactionScope::Field)
        );
        assert!(r
            .redactions
            .iter()
            .all(|x| x.reason == RedactionReason::TransportCredential));
    }

    #[test]
    fn token_looking_query_and_extensions_stay() {
        let mut entry = json!({"request": {"url": "https://h.example/users/42?access_token=abc123", "headers": []}, "_token": "x",
            "response": {"redirectURL": "https:host/path"}});
        let original = entry.clone();
        let none = Vec::new();
        let mut r = Redactor::new(Declared::new(&none), Some(0));
        r.transport(&mut entry, "/log/entries/0");
        assert_eq!(entry, original);
        assert!(r.redactions.is_empty());
    }

    #[test]
    fn declared_values_null_fields_and_remove_names() {
        let declared = values(&["hunter2", "X-Internal-Key"]);
        let mut entry =
            json!({"a": "pw=hunter2", "_meta": {"X-Internal-Key": "v", "k": 1}, "n": [1, "ok"]});
        let mut r = Redactor::new(Declared::new(&declared), Some(0));
        let mut pointer = "/log/entries/0".to_string();
        r.sensitive(&mut entry, &mut pointer, &HashMap::new());
        assert_eq!(entry, json!({"a": null, "_meta": {"k": 1}, "n": [1, "ok"]}));
        let found: Vec<(&str, RedactionScope)> = r
            .redactions
            .iter()
            .map(|x| (x.pointer.as_str(), x.scope))
            .collect();
        assert_eq!(
            found,
            vec![
                ("/log/entries/0/a", RedactionScope::Value),
                ("/log/entries/0/_meta", RedactionScope::PropertyName)
            ]
        );
        assert!(r.covers("/log/entries/0/_meta/X-Internal-Key"));
        assert!(!r.covers("/log/entries/0/_meta"));
    }

    #[test]
    fn pointers_never_reveal_declared_values() {
        let declared = values(&["a/b", "7"]);
        let d = Declared::new(&declared);
        assert_eq!(d.safe_pointer("/log/entries/0/a/b/c"), "/log/entries/0/a");
        assert_eq!(d.safe_pointer("/log/entries/7/x"), "/log/entries");
        assert_eq!(d.safe_pointer("/log/entries/1"), "/log/entries/1");
    }

    #[test]
    fn number_lexemes_are_matched() {
        let declared = values(&["0.1000000000000000055511", "4242"]);
        let mut doc = json!({"t": null, "u": 4242, "v": 5});
        let lexemes: HashMap<&str, &str> =
            [("/t", "0.1000000000000000055511")].into_iter().collect();
        let mut r = Redactor::new(Declared::new(&declared), None);
        r.sensitive(&mut doc, &mut String::new(), &lexemes);
        assert_eq!(doc, json!({"t": null, "u": null, "v": 5}));
        assert_eq!(r.redactions.len(), 2);
        assert!(r.covers("/t"));
    }
}
