//! When does an answer match: the JSON normalization rules 1–8 of
//! `fidelity.py` (member order ignored, numbers by value, origins,
//! volatile fields, generated ids and values, clock dates and numbers),
//! learning the recorded → candidate mappings as the comparison goes.

use super::har::Exchange;
use super::state::{Learn, State};
use super::values::{
    as_int, canon_scalar, epoch_unit, gen_key, id_like_key, id_looking, is_clock_name,
    is_digit_token, is_volatile_key, iso_class, json_type, norm_origin, py_str, same_shape, short,
    split_tokens, sub_tokens, token_kind, value_eq, Scalar,
};
use indexmap::IndexMap;
use serde_json::Value;

/// The first difference found: where (a JSON pointer) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diff {
    /// The RFC 6901 pointer into the JSON body (`""` for the whole body);
    /// `None` when the difference is not inside a JSON body.
    pub pointer: Option<String>,
    pub message: String,
}

const SHORT: usize = 60;

fn diff(at: &str, message: String) -> Option<Diff> {
    Some(Diff {
        pointer: Some(at.to_string()),
        message,
    })
}

fn child(at: &str, segment: &str) -> String {
    format!("{at}/{}", segment.replace('~', "~0").replace('/', "~1"))
}

impl State {
    /// Rule 4: is this recorded value a generated id here?
    pub(crate) fn is_gen(&self, key: Option<&str>, value: &Value) -> bool {
        let Some(s) = Scalar::of(value) else {
            return false;
        };
        if !self.generated.contains_key(&s) {
            return false;
        }
        id_like_key(key) || value.as_str().is_some_and(|v| v.chars().count() >= 8)
    }

    fn map_expected_int(&self, v: &Value, learn: &Learn) -> Value {
        if let Some(i) = as_int(v) {
            let k = Scalar::Int(i);
            if let Some(m @ Scalar::Int(_)) = learn.gen.get(&k) {
                return m.to_value();
            }
            if let Some(m @ Scalar::Int(_)) = self.gen_map.get(&k) {
                return m.to_value();
            }
        }
        v.clone()
    }

    /// Compares a recorded JSON value with the candidate's; `ex` (the scored
    /// exchange) enables rules 5–8. Returns the first difference.
    pub(crate) fn compare(
        &self,
        exp: &Value,
        act: &Value,
        at: &str,
        key: Option<&str>,
        learn: &mut Learn,
        ex: Option<&Exchange>,
    ) -> Option<Diff> {
        let container = exp.is_object() || exp.is_array();
        if is_volatile_key(key) && !container {
            if !same_shape(exp, act) {
                return diff(
                    at,
                    format!(
                        "volatile value {} vs {} differ in shape",
                        short(exp, SHORT),
                        short(act, SHORT)
                    ),
                );
            }
            if !exp.is_null() {
                learn.vol.insert(py_str(exp), py_str(act));
            }
            return None;
        }
        if let (true, Some(ex)) = (is_clock_name(key), ex) {
            let pair = (key.unwrap_or_default().to_string(), canon_scalar(exp));
            if ex.near_clock(exp) && !self.client_pairs.contains(&pair) {
                if json_type(act) != json_type(exp) || epoch_unit(act) != epoch_unit(exp) {
                    return diff(
                        at,
                        format!(
                            "clock value {} vs {} differ in shape",
                            short(exp, SHORT),
                            short(act, SHORT)
                        ),
                    );
                }
                learn.vol.insert(canon_scalar(exp), canon_scalar(act));
                return None;
            }
        }
        if self.is_gen(key, exp) {
            let rec = Scalar::of(exp).expect("a generated id is a scalar");
            let cand = Scalar::of(act);
            if let Some(mapped) = self.id_map.get(&rec) {
                if cand.as_ref() != Some(mapped) {
                    return diff(
                        at,
                        format!(
                            "generated id should be {}, got {}",
                            short(&mapped.to_value(), SHORT),
                            short(act, SHORT)
                        ),
                    );
                }
                return None;
            }
            if let Some(pending) = learn.id.get(&rec) {
                if cand.as_ref() == Some(pending) {
                    return None;
                }
                return diff(at, "generated id used inconsistently".into());
            }
            if !same_shape(exp, act) {
                return diff(
                    at,
                    format!(
                        "generated id {} vs {} differ in shape",
                        short(exp, SHORT),
                        short(act, SHORT)
                    ),
                );
            }
            let cand = cand.expect("same shape as a scalar");
            if self.id_map.values().any(|v| *v == cand) {
                return diff(
                    at,
                    format!(
                        "candidate reused id {} for a different record",
                        short(act, SHORT)
                    ),
                );
            }
            learn.id.insert(rec, cand);
            return None;
        }
        match exp {
            Value::Object(members) => {
                let Value::Object(got) = act else {
                    return diff(at, format!("expected object, got {}", json_type(act)));
                };
                let tokens = self.tokens_for(learn);
                let mut names: IndexMap<String, &String> = IndexMap::new();
                for k in members.keys() {
                    let mapped = if tokens.is_empty() {
                        k.clone()
                    } else {
                        sub_tokens(k, &tokens)
                    };
                    names.insert(mapped, k);
                }
                let missing: Vec<&str> = names
                    .keys()
                    .filter(|k| !got.contains_key(k.as_str()))
                    .map(String::as_str)
                    .collect();
                if !missing.is_empty() {
                    let has: Vec<&str> = got.keys().map(String::as_str).collect();
                    return diff(
                        at,
                        format!(
                            "missing member(s) {} (the answer has {})",
                            list(&missing),
                            if has.is_empty() {
                                "none".to_string()
                            } else {
                                list(&has)
                            }
                        ),
                    );
                }
                let extra: Vec<&str> = got
                    .keys()
                    .filter(|k| !names.contains_key(k.as_str()))
                    .map(String::as_str)
                    .collect();
                if !extra.is_empty() {
                    return diff(at, format!("unexpected member(s) {}", list(&extra)));
                }
                let mut order: Vec<&String> = names.keys().collect();
                order.sort();
                for k in order {
                    let original = names[k.as_str()];
                    let r = self.compare(
                        &members[original.as_str()],
                        &got[k.as_str()],
                        &child(at, k),
                        Some(original),
                        learn,
                        ex,
                    );
                    if r.is_some() {
                        return r;
                    }
                }
                None
            }
            Value::Array(items) => {
                let Value::Array(got) = act else {
                    return diff(at, format!("expected array, got {}", json_type(act)));
                };
                if items.len() != got.len() {
                    return diff(
                        at,
                        format!("array length: expected {}, got {}", items.len(), got.len()),
                    );
                }
                for (i, (e, a)) in items.iter().zip(got).enumerate() {
                    let r = self.compare(e, a, &child(at, &i.to_string()), key, learn, ex);
                    if r.is_some() {
                        return r;
                    }
                }
                None
            }
            _ => self.compare_leaf(exp, act, at, key, learn, ex),
        }
    }

    fn compare_leaf(
        &self,
        exp: &Value,
        act: &Value,
        at: &str,
        key: Option<&str>,
        learn: &mut Learn,
        ex: Option<&Exchange>,
    ) -> Option<Diff> {
        if let (Some(ex), Value::String(s)) = (ex, exp) {
            if ex.clock_derived(s) {
                if iso_class(act) != iso_class(exp) {
                    return diff(
                        at,
                        format!(
                            "clock-derived value {} vs {} differ in shape",
                            short(exp, SHORT),
                            short(act, SHORT)
                        ),
                    );
                }
                learn.vol.insert(s.clone(), py_str(act));
                return None;
            }
        }
        let exp = self.map_expected_int(exp, learn);
        if json_type(&exp) != json_type(act) {
            return diff(
                at,
                format!("expected {}, got {}", short(&exp, SHORT), short(act, SHORT)),
            );
        }
        if let (Value::String(x), Value::String(y)) = (&exp, act) {
            let n = norm_origin(x);
            let e = sub_tokens(&n, &self.tokens_for(learn));
            let a = norm_origin(y);
            if e == a || self.learn_generated_str(&e, &a, key, learn, ex) {
                return None;
            }
            let shown = if e == n { x.as_str() } else { e.as_str() };
            let (se, sa) = short_pair(shown, y);
            return diff(at, format!("expected {se}, got {sa}"));
        }
        if !value_eq(&exp, act) {
            if self.learn_generated(&exp, act, key, learn, ex) {
                return None;
            }
            return diff(
                at,
                format!("expected {}, got {}", short(&exp, SHORT), short(act, SHORT)),
            );
        }
        None
    }

    /// A non-JSON text answer: origins normalized, trailing whitespace trimmed,
    /// rules 6 and 8 over the whole text as one string.
    pub(crate) fn compare_text(
        &self,
        exp: &str,
        act: &str,
        learn: &mut Learn,
        ex: &Exchange,
    ) -> bool {
        let e = sub_tokens(&norm_origin(exp), &self.tok_map);
        let e = e.trim_end();
        let a = norm_origin(act);
        let a = a.trim_end();
        e == a || self.learn_generated_str(e, a, None, learn, Some(ex))
    }

    /// One differing leaf: do rule 6 (generated integers in a write's answer)
    /// or, for strings, rules 6 and 8 explain the difference?
    fn learn_generated(
        &self,
        exp: &Value,
        act: &Value,
        key: Option<&str>,
        learn: &mut Learn,
        ex: Option<&Exchange>,
    ) -> bool {
        let Some(ex) = ex else {
            return false;
        };
        if exp.is_boolean() || act.is_boolean() {
            return false;
        }
        if let (Some(e), Some(a)) = (as_int(exp), as_int(act)) {
            let (e, a) = (Scalar::Int(e), Scalar::Int(a));
            if ex.is_read()
                || !gen_key(key)
                || matches!(e, Scalar::Int(i) if i < 0)
                || matches!(a, Scalar::Int(i) if i < 0)
                || !self.fresh_pair(&e, &a, learn)
            {
                return false;
            }
            learn.gen.insert(e, a);
            return true;
        }
        match (exp, act) {
            (Value::String(e), Value::String(a)) => {
                self.learn_generated_str(e, a, key, learn, Some(ex))
            }
            _ => false,
        }
    }

    fn learn_generated_str(
        &self,
        exp: &str,
        act: &str,
        key: Option<&str>,
        learn: &mut Learn,
        ex: Option<&Exchange>,
    ) -> bool {
        let Some(ex) = ex else {
            return false;
        };
        let learning = !ex.is_read();
        let (ep, ap) = (split_tokens(exp), split_tokens(act));
        if ep.len() != ap.len() {
            return false;
        }
        let whole = ep.len() == 3
            && ep[0].is_empty()
            && ep[2].is_empty()
            && ap[0].is_empty()
            && ap[2].is_empty();
        let mut new: IndexMap<String, String> = IndexMap::new();
        let mut clock: IndexMap<String, String> = IndexMap::new();
        for (i, (x, y)) in ep.iter().zip(&ap).enumerate() {
            if x == y {
                continue;
            }
            if i % 2 == 0 {
                return false;
            }
            if is_digit_token(x) && ex.clock_token(x) && !self.sent(x) {
                let unit = |t: &str| epoch_unit(&Value::String(t.to_string()));
                if !is_digit_token(y) || unit(y) != unit(x) {
                    return false;
                }
                clock.insert(x.to_string(), y.to_string());
                continue;
            }
            if !learning {
                return false;
            }
            if let Some(prev) = new.get(*x) {
                if prev != y {
                    return false;
                }
                continue;
            }
            if new.values().any(|v| v == y) || token_kind(x) != token_kind(y) {
                return false;
            }
            if !(id_looking(x) || (whole && is_digit_token(x) && gen_key(key))) {
                return false;
            }
            let (rx, ry) = (Scalar::Str(x.to_string()), Scalar::Str(y.to_string()));
            if !self.fresh_pair(&rx, &ry, learn) {
                return false;
            }
            new.insert(x.to_string(), y.to_string());
        }
        if new.is_empty() && clock.is_empty() {
            return false;
        }
        for (k, v) in new {
            learn.gen.insert(Scalar::Str(k), Scalar::Str(v));
        }
        learn.vol.extend(clock);
        true
    }
}

/// Two differing strings, shortened around their first difference.
fn short_pair(exp: &str, act: &str) -> (String, String) {
    let common = exp
        .chars()
        .zip(act.chars())
        .take_while(|(a, b)| a == b)
        .count();
    let skip = common.saturating_sub(20);
    let cut = |s: &str| {
        let tail: String = s.chars().skip(skip).collect();
        let text = short(&Value::String(tail), SHORT);
        if skip > 0 {
            format!("…{text}")
        } else {
            text
        }
    };
    (cut(exp), cut(act))
}

fn list(names: &[&str]) -> String {
    names.iter().take(4).copied().collect::<Vec<_>>().join(", ")
}
