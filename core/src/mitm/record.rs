//! One native flow state as an Evidence record: the reported JSON view
//! (text as strings, bytes as their exact UTF-8 display when valid,
//! numbers as JSON numbers when safe), numeric sidecars in native form,
//! a byte sidecar for every native byte field, and the credential and
//! declared-value exclusions, applied alike inside `backup` states.

use super::tnetstring::{python_float_repr, Native};
use crate::evidence::{BinaryField, Redaction, RedactionReason, RedactionScope};
use crate::json::{escape_token, is_safe_number, NumericLiteral};
use crate::read::hex;
use crate::redact::{Declared, CREDENTIAL_HEADERS};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{Map, Number, Value};
use sha2::{Digest, Sha256};

/// Why a flow could not be shown as JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unrepresentable {
    /// Pointer of the dictionary holding the key.
    pub pointer: String,
    pub why: &'static str,
}

/// Counters of coordinates hidden because they would reveal a declared value.
#[derive(Debug, Default, Clone, Copy)]
pub struct Hidden {
    pub literals: usize,
    pub fields: usize,
    pub digests: usize,
}

/// The converted record parts.
#[derive(Debug)]
pub struct Converted {
    pub reported: Value,
    pub numeric_literals: Vec<NumericLiteral>,
    pub binary_fields: Vec<BinaryField>,
    pub redactions: Vec<Redaction>,
    pub hidden: Hidden,
}

struct Converter<'a> {
    declared: Declared<'a>,
    ordinal: u64,
    literals: Vec<NumericLiteral>,
    fields: Vec<BinaryField>,
    redactions: Vec<Redaction>,
    hidden: Hidden,
}

/// Converts one flow state whose record pointer is `base` (e.g. `/3`).
pub fn convert(
    flow: &Native,
    base: &str,
    ordinal: u64,
    declared: Declared<'_>,
) -> Result<Converted, Unrepresentable> {
    let mut c = Converter {
        declared,
        ordinal,
        literals: Vec::new(),
        fields: Vec::new(),
        redactions: Vec::new(),
        hidden: Hidden::default(),
    };
    let mut pointer = base.to_string();
    let reported = c.value(flow, &mut pointer, false)?;
    Ok(Converted {
        reported,
        numeric_literals: c.literals,
        binary_fields: c.fields,
        redactions: c.redactions,
        hidden: c.hidden,
    })
}

/// A dictionary key as a member name: text, or bytes that are valid UTF-8.
fn key_name(key: &Native) -> Option<&str> {
    match key {
        Native::Str(s) => Some(s),
        Native::Bytes(b) => std::str::from_utf8(b).ok(),
        _ => None,
    }
}

fn is_credential_name(name: &Native) -> bool {
    key_name(name).is_some_and(|n| CREDENTIAL_HEADERS.iter().any(|c| n.eq_ignore_ascii_case(c)))
}

impl Converter<'_> {
    fn note(&mut self, raw: &str, scope: RedactionScope, reason: RedactionReason) {
        self.redactions.push(Redaction {
            pointer: self.declared.safe_pointer(raw),
            record_ordinal: Some(self.ordinal),
            scope,
            reason,
        });
    }

    /// `in_header_list`: the value is the `headers`/`trailers` list of a message.
    fn value(
        &mut self,
        v: &Native,
        pointer: &mut String,
        in_header_list: bool,
    ) -> Result<Value, Unrepresentable> {
        Ok(match v {
            Native::Null => Value::Null,
            Native::Bool(b) => Value::Bool(*b),
            Native::Str(s) => {
                if self.declared.in_text(s) {
                    self.note(
                        pointer,
                        RedactionScope::Value,
                        RedactionReason::SensitiveValue,
                    );
                    Value::Null
                } else {
                    Value::String(s.clone())
                }
            }
            Native::Bytes(b) => self.bytes(b, pointer),
            Native::Int(lexeme) => {
                let number = if is_safe_number(lexeme) {
                    lexeme
                        .parse::<i64>()
                        .ok()
                        .map(Number::from)
                        .or_else(|| lexeme.parse::<u64>().ok().map(Number::from))
                } else {
                    None
                };
                self.number(lexeme.clone(), number, pointer)
            }
            Native::Float(f) => {
                let number = Number::from_f64(*f);
                self.number(python_float_repr(*f), number, pointer)
            }
            Native::List(items) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let len = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&i.to_string());
                    let credential_pair = in_header_list
                        && matches!(item, Native::List(pair) if pair.len() == 2 && is_credential_name(&pair[0]));
                    out.push(if credential_pair {
                        self.header_pair(item, pointer)?
                    } else {
                        self.value(item, pointer, false)?
                    });
                    pointer.truncate(len);
                }
                Value::Array(out)
            }
            Native::Dict(pairs) => {
                let mut out = Map::new();
                for (key, item) in pairs {
                    let Some(name) = key_name(key) else {
                        return Err(Unrepresentable {
                            pointer: self.declared.safe_pointer(pointer),
                            why: "a dictionary key is neither text nor UTF-8 bytes",
                        });
                    };
                    if out.contains_key(name) {
                        return Err(Unrepresentable {
                            pointer: self.declared.safe_pointer(pointer),
                            why: "a text key and a byte key spell the same member name",
                        });
                    }
                    if self.declared.in_text(name) {
                        let parent = pointer.clone();
                        self.note(
                            &parent,
                            RedactionScope::PropertyName,
                            RedactionReason::SensitiveValue,
                        );
                        continue;
                    }
                    let len = pointer.len();
                    pointer.push('/');
                    escape_token(name, pointer);
                    let headers = name == "headers" || name == "trailers";
                    let shown = self.value(item, pointer, headers)?;
                    pointer.truncate(len);
                    out.insert(name.to_string(), shown);
                }
                Value::Object(out)
            }
        })
    }

    /// A `[name, value]` header pair whose name is a transport credential:
    /// the value is excluded structurally (RED-14), wherever the list is.
    fn header_pair(
        &mut self,
        pair: &Native,
        pointer: &mut String,
    ) -> Result<Value, Unrepresentable> {
        let Native::List(parts) = pair else {
            return self.value(pair, pointer, false);
        };
        let len = pointer.len();
        pointer.push_str("/0");
        let name = self.value(&parts[0], pointer, false)?;
        pointer.truncate(len);
        pointer.push_str("/1");
        if !matches!(parts[1], Native::Null) {
            self.note(
                pointer,
                RedactionScope::Value,
                RedactionReason::TransportCredential,
            );
        }
        pointer.truncate(len);
        Ok(Value::Array(vec![name, Value::Null]))
    }

    fn bytes(&mut self, b: &[u8], pointer: &str) -> Value {
        if self.declared.in_bytes(b) {
            self.note(
                pointer,
                RedactionScope::Value,
                RedactionReason::SensitiveValue,
            );
            return Value::Null;
        }
        let display = std::str::from_utf8(b).ok();
        if self.declared.in_text(pointer) {
            self.hidden.fields += 1;
        } else {
            let mut sha256 = Some(hex(&Sha256::digest(b)));
            if sha256
                .as_deref()
                .is_some_and(|d| self.declared.in_digest(d))
            {
                sha256 = None;
                self.hidden.digests += 1;
            }
            self.fields.push(BinaryField {
                pointer: pointer.to_string(),
                encoding: None,
                establishes_body_bytes: true,
                size: b.len() as u64,
                sha256,
                base64: if display.is_none() {
                    Some(STANDARD.encode(b))
                } else {
                    None
                },
            });
        }
        display.map_or(Value::Null, |t| Value::String(t.to_string()))
    }

    /// A native number: the JSON number when it is safe, a sidecar when its
    /// JSON spelling would differ from the native one or it is unsafe.
    fn number(&mut self, lexeme: String, number: Option<Number>, pointer: &str) -> Value {
        if self.declared.in_text(&lexeme) {
            self.note(
                pointer,
                RedactionScope::Value,
                RedactionReason::SensitiveValue,
            );
            return Value::Null;
        }
        let same = number.as_ref().is_some_and(|n| n.to_string() == lexeme);
        if !same {
            if self.declared.in_text(pointer) {
                self.hidden.literals += 1;
            } else {
                self.literals.push(NumericLiteral {
                    pointer: pointer.to_string(),
                    safe: number.is_some(),
                    lexeme,
                });
            }
        }
        number.map_or(Value::Null, Value::Number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mitm::tnetstring::{dumps, read_all};

    fn s(t: &str) -> Native {
        Native::Str(t.into())
    }
    fn b(t: &[u8]) -> Native {
        Native::Bytes(t.to_vec())
    }
    fn d(pairs: Vec<(Native, Native)>) -> Native {
        Native::Dict(pairs)
    }

    /// Converts after a round trip through the tnetstring reader.
    fn conv(value: Native, declared: &[String]) -> Converted {
        let item = read_all(&dumps(&value)).unwrap().remove(0);
        convert(&item.value, "/0", 0, Declared::new(declared)).unwrap()
    }

    #[test]
    fn byte_fields_show_utf8_only_when_valid() {
        // EVD-14: b"caf\xc3\xa9" -> "café"; b"\xff" -> null + sidecar.
        let c = conv(
            d(vec![(s("a"), b(b"caf\xc3\xa9")), (s("b"), b(b"\xff"))]),
            &[],
        );
        assert_eq!(c.reported, serde_json::json!({"a": "café", "b": null}));
        assert_eq!(c.binary_fields.len(), 2);
        assert_eq!(c.binary_fields[0].pointer, "/0/a");
        assert_eq!(c.binary_fields[0].size, 5);
        assert_eq!(c.binary_fields[0].base64, None);
        assert_eq!(c.binary_fields[1].base64.as_deref(), Some("/w=="));
        assert!(c.binary_fields.iter().all(|f| f.establishes_body_bytes));
    }

    #[test]
    fn missing_and_empty_content_stay_distinct() {
        // EVD-15: None -> null without a sidecar; b"" -> "" with an empty sidecar.
        let c = conv(
            d(vec![(s("content"), Native::Null), (s("body"), b(b""))]),
            &[],
        );
        assert_eq!(c.reported, serde_json::json!({"content": null, "body": ""}));
        assert_eq!(c.binary_fields.len(), 1);
        assert_eq!(c.binary_fields[0].pointer, "/0/body");
        assert_eq!(c.binary_fields[0].size, 0);
        assert_eq!(
            c.binary_fields[0].sha256.as_deref(),
            Some("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        );
    }

    #[test]
    fn native_numbers_keep_their_native_form() {
        // EVD-07: 2^64 and NaN are null in the view and kept in sidecars.
        let c = conv(
            d(vec![
                (s("big"), Native::Int("18446744073709551616".into())),
                (s("nan"), Native::Float(f64::NAN)),
                (s("ok"), Native::Float(1.5)),
                (s("int"), Native::Int("-7".into())),
                (s("sci"), Native::Float(1e-5)),
            ]),
            &[],
        );
        assert_eq!(
            c.reported,
            serde_json::json!({"big": null, "nan": null, "ok": 1.5, "int": -7, "sci": 1e-5})
        );
        let lits: Vec<(&str, &str, bool)> = c
            .numeric_literals
            .iter()
            .map(|l| (l.pointer.as_str(), l.lexeme.as_str(), l.safe))
            .collect();
        assert_eq!(
            lits,
            vec![
                ("/0/big", "18446744073709551616", false),
                ("/0/nan", "nan", false),
                ("/0/sci", "1e-05", true),
            ]
        );
    }

    #[test]
    fn credential_headers_are_excluded_also_in_backups() {
        // RED-14: the Cookie value in `backup` is excluded as in the live state.
        let headers = Native::List(vec![
            Native::List(vec![b(b"Cookie"), b(b"sid=1")]),
            Native::List(vec![b(b"X"), b(b"safe")]),
        ]);
        let request = d(vec![(s("headers"), headers)]);
        let flow = d(vec![
            (s("backup"), d(vec![(s("request"), request.clone())])),
            (s("request"), request),
        ]);
        let c = conv(flow, &[]);
        let value = serde_json::json!({"headers": [["Cookie", null], ["X", "safe"]]});
        assert_eq!(
            c.reported,
            serde_json::json!({"backup": {"request": value}, "request": value})
        );
        let pointers: Vec<&str> = c.redactions.iter().map(|r| r.pointer.as_str()).collect();
        assert_eq!(
            pointers,
            ["/0/backup/request/headers/0/1", "/0/request/headers/0/1"]
        );
        assert!(c
            .redactions
            .iter()
            .all(|r| r.reason == RedactionReason::TransportCredential));
        assert!(c
            .binary_fields
            .iter()
            .all(|f| !f.pointer.ends_with("/headers/0/1")));
    }

    #[test]
    fn declared_values_exclude_text_bytes_numbers_and_names() {
        let declared = vec!["secret".to_string(), "4242".to_string()];
        let c = conv(
            d(vec![
                (s("a"), b(b"mysecret")),
                (s("b"), s("secret")),
                (s("n"), Native::Int("4242".into())),
                (s("secretly"), s("x")),
            ]),
            &declared,
        );
        assert_eq!(
            c.reported,
            serde_json::json!({"a": null, "b": null, "n": null})
        );
        assert!(c.binary_fields.is_empty());
        assert_eq!(c.redactions.len(), 4);
        assert_eq!(c.redactions[3].scope, RedactionScope::PropertyName);
        assert_eq!(c.redactions[3].pointer, "/0");
    }

    #[test]
    fn keys_that_json_cannot_name_are_refused() {
        let ambiguous = d(vec![
            (s("a"), Native::Int("1".into())),
            (b(b"a"), Native::Int("2".into())),
        ]);
        let item = read_all(&dumps(&ambiguous)).unwrap().remove(0);
        let e = convert(&item.value, "/0", 0, Declared::new(&[])).unwrap_err();
        assert_eq!(e.pointer, "/0");
        let numeric = d(vec![(Native::Int("1".into()), Native::Int("2".into()))]);
        let item = read_all(&dumps(&numeric)).unwrap().remove(0);
        assert!(convert(&item.value, "/0", 0, Declared::new(&[])).is_err());
    }
}
