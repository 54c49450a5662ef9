//! The app's refusal of a sent member of the wrong type. Each member's type
//! on a route is read from what the recording shows accepted there (sent in
//! a 2xx write, or answered by the route); a refused write (4xx, not
//! 404/409/412) that sent exactly one member against its type, and whose
//! answer names that member, is the app's invalid-type answer for that
//! expected type. Its template has the member in keys (`{member}`) and the
//! member's path in strings (`{path}`: `categories[0]` for an array item,
//! spelled as the answer spelled it). It is served for the same member; it
//! is lent to every other member of the same expected type only when it
//! renders another recorded refusal, on another member, exactly. A template
//! that still quotes the sent value is value-specific and kept out.

use super::exchange::Exchange;
use super::presence::sent_members;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// The app's invalid-type refusals, with the members they apply to.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MemberTypes {
    pub refusals: Vec<TypeRefusal>,
    /// Members whose type a refusal is served for: the refused members, and
    /// every typed member of a lent refusal's expected type.
    pub members: Vec<TypedMember>,
    /// Members the app accepts only named values for, with its refusal.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub enums: Vec<EnumRefusal>,
}

impl MemberTypes {
    pub fn is_empty(&self) -> bool {
        self.refusals.is_empty() && self.enums.is_empty()
    }
}

/// A member whose refusal lists the values it accepts: a refused write
/// that sent one string member with a value no accepted write or answer of
/// the route had, whose answer names the member and, in one string, every
/// value the recording shows accepted. Served for the same member (on its
/// resource's routes) when a sent string is none of the listed words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnumRefusal {
    pub method: String,
    pub route: String,
    pub member: String,
    /// The words of the answer's string that lists the accepted values.
    pub allowed: Vec<String>,
    pub status: u16,
    /// The answer with `{member}` placeholders.
    pub template: Value,
    /// The refused record.
    pub supported_by: u64,
    /// The accepted values the listing was checked against, with the
    /// records that show them (at most the first 5).
    pub accepted: Vec<String>,
    pub checked_against: Vec<u64>,
}

/// The words a text lists between commas ("X is not one of a, b, c." gives
/// `a`, `b`, `c`): the first item is the last word before the first comma,
/// the last the first word after the last one (past a list's `and`/`or`).
/// `None` without a comma.
fn listed_words(text: &str) -> Option<Vec<String>> {
    let pieces: Vec<&str> = text.split(',').collect();
    if pieces.len() < 2 {
        return None;
    }
    let last = pieces.len() - 1;
    let listed = pieces.iter().enumerate().filter_map(|(i, piece)| {
        let words = words_of(piece);
        match i {
            0 => words.last().copied(),
            i if i == last => words.into_iter().find(|w| !matches!(*w, "and" | "or")),
            _ => (words.len() == 1).then(|| words[0]),
        }
    });
    Some(listed.map(str::to_string).collect())
}

/// The words of a text (runs of letters, digits, `_` and `-`).
fn words_of(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .filter(|w| !w.is_empty())
        .collect()
}

/// The strings of a JSON value.
fn strings<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|c| strings(c, out)),
        Value::Object(map) => map.values().for_each(|c| strings(c, out)),
        _ => {}
    }
}

/// One member's type on a route, as the recording showed it accepted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TypedMember {
    /// The route template (`/posts`).
    pub route: String,
    pub member: String,
    /// `integer`, `number`, `string`, `boolean`, `array` or `object`.
    #[serde(rename = "type")]
    pub kind: String,
    /// For an array: its items' type, when one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<String>,
    /// The records (2xx) that sent or answered it (at most the first 5).
    pub supported_by: Vec<u64>,
}

/// One recorded invalid-type answer, as a template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TypeRefusal {
    pub method: String,
    pub route: String,
    pub member: String,
    /// The refused value's path as the answer spells it (`categories[0]`).
    pub path: String,
    /// The type the member's value should have had.
    pub expected: String,
    /// True when the refused value was an array's item.
    pub item: bool,
    /// How the answer spelled an item's path (`{member}[{index}]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_spelling: Option<String>,
    pub status: u16,
    /// The answer with `{member}` and `{path}` placeholders.
    pub template: Value,
    /// The refused record.
    pub supported_by: u64,
    /// Other recorded refusals of the same expected type, on other
    /// members, that this template renders exactly: when any, the template
    /// is lent to every member of that type.
    pub lent_by: Vec<u64>,
}

fn type_of(v: &Value) -> Option<&'static str> {
    (!v.is_null()).then(|| rea_engine::schemas::json_type(v))
}

/// The one type a set of observed types allows (integers are numbers).
fn one_type(seen: &BTreeSet<&'static str>) -> Option<&'static str> {
    match seen.len() {
        1 => seen.iter().next().copied(),
        2 if seen.contains("integer") && seen.contains("number") => Some("number"),
        _ => None,
    }
}

/// True when `v` is certainly not of type `expected`: a value an app may
/// read as that type (a numeric string for a number, `"true"` for a
/// boolean, a scalar for an array or a string) is not judged.
fn violates(v: &Value, expected: &str) -> bool {
    match (expected, v) {
        (_, Value::Null) => false,
        ("integer", Value::Number(n)) => n.as_f64().is_some_and(|f| f.fract() != 0.0),
        ("integer", Value::String(s)) => s.trim().parse::<i64>().is_err(),
        ("number", Value::Number(_)) => false,
        ("number", Value::String(s)) => s.trim().parse::<f64>().is_err(),
        ("integer" | "number", _) => true,
        ("boolean", Value::Bool(_)) => false,
        ("boolean", Value::String(s)) => !matches!(s.as_str(), "true" | "false" | "0" | "1"),
        ("boolean", Value::Number(n)) => !matches!(n.as_u64(), Some(0 | 1)),
        ("boolean", _) => true,
        ("string", v) => v.is_array() || v.is_object(),
        ("array", v) => v.is_object(),
        ("object", v) => !v.is_object(),
        _ => false,
    }
}

/// Per (route, member): the types and item types accepted, with evidence.
type Seen = BTreeMap<(String, String), (BTreeSet<&'static str>, BTreeSet<&'static str>, Vec<u64>)>;

fn observe(seen: &mut Seen, route: &str, members: &Map<String, Value>, ordinal: u64) {
    for (m, v) in members {
        let Some(t) = type_of(v) else { continue };
        let e = seen.entry((route.to_string(), m.clone())).or_default();
        e.0.insert(t);
        if let Value::Array(items) = v {
            e.1.extend(items.iter().filter_map(type_of));
        }
        if e.2.last() != Some(&ordinal) && e.2.len() < 5 {
            e.2.push(ordinal);
        }
    }
}

/// Per (route, member): the string values accepted or answered, with the
/// records that show them.
type Values = BTreeMap<(String, String), (BTreeSet<String>, Vec<u64>)>;

/// The object members an answer shows: its own, or each listed item's.
fn answered(answer: &Value) -> Vec<&Map<String, Value>> {
    match answer {
        Value::Object(o) => vec![o],
        Value::Array(items) => items.iter().filter_map(Value::as_object).collect(),
        _ => Vec::new(),
    }
}

/// One violation of a sent body: member, path parts, expected type, item.
#[derive(Debug, Clone, PartialEq)]
struct Violation {
    member: String,
    index: Option<usize>,
    expected: String,
}

/// The violations of a sent body against the types of `route`.
fn violations(types: &BTreeMap<String, TypedMember>, sent: &Map<String, Value>) -> Vec<Violation> {
    let mut out = Vec::new();
    for (m, v) in sent {
        let Some(t) = types.get(m) else { continue };
        if violates(v, &t.kind) {
            out.push(Violation {
                member: m.clone(),
                index: None,
                expected: t.kind.clone(),
            });
        } else if let (Value::Array(items), Some(it)) = (v, &t.items) {
            if let Some(i) = items.iter().position(|x| violates(x, it)) {
                out.push(Violation {
                    member: m.clone(),
                    index: Some(i),
                    expected: it.clone(),
                });
            }
        }
    }
    out
}

fn boundary(c: Option<char>) -> bool {
    !c.is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// `text` with each whole-word `word` replaced by `with`.
fn replace_word(text: &str, word: &str, with: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(word) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + word.len()..].chars().next();
        out.push_str(&rest[..at]);
        if boundary(before) && boundary(after) {
            out.push_str(with);
        } else {
            out.push_str(word);
        }
        rest = &rest[at + word.len()..];
    }
    out.push_str(rest);
    out
}

/// The answer with the member and its path turned into placeholders. A
/// key named like the member is the member's unless its value is a bare
/// number, boolean or null (`"status": 400` is the answer's own status).
fn templated(v: &Value, member: &str, path: &str) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, c)| {
                    let key = if k == member && (c.is_string() || c.is_array() || c.is_object()) {
                        "{member}".to_string()
                    } else {
                        k.clone()
                    };
                    (key, templated(c, member, path))
                })
                .collect(),
        ),
        Value::Array(items) => {
            Value::Array(items.iter().map(|c| templated(c, member, path)).collect())
        }
        Value::String(s) => {
            let s = replace_word(s, path, "{path}");
            Value::String(if path == member {
                s
            } else {
                replace_word(&s, member, "{member}")
            })
        }
        other => other.clone(),
    }
}

/// The template with the member and its path filled in.
fn rendered(v: &Value, member: &str, path: &str) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, c)| {
                    let key = if k == "{member}" {
                        member.to_string()
                    } else {
                        k.clone()
                    };
                    (key, rendered(c, member, path))
                })
                .collect(),
        ),
        Value::Array(items) => {
            Value::Array(items.iter().map(|c| rendered(c, member, path)).collect())
        }
        Value::String(s) => Value::String(s.replace("{path}", path).replace("{member}", member)),
        other => other.clone(),
    }
}

/// How an array item's path is spelled: the first of the usual spellings
/// the answer shows, as a pattern over `{member}` and `{index}`.
fn item_spelling(answer: &str, member: &str, index: usize) -> Option<&'static str> {
    ["{member}[{index}]", "{member}.{index}", "{member}/{index}"]
        .into_iter()
        .find(|p| answer.contains(&spell(p, member, index)))
}

fn spell(pattern: &str, member: &str, index: usize) -> String {
    pattern
        .replace("{member}", member)
        .replace("{index}", &index.to_string())
}

/// The strings inside a sent value (its text, when quoted in an answer,
/// makes the answer value-specific).
fn value_words(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) if s.len() >= 2 => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|c| value_words(c, out)),
        Value::Object(map) => map.values().for_each(|c| value_words(c, out)),
        _ => {}
    }
}

fn placeholders_free(template: &Value, words: &[String]) -> bool {
    let text = template.to_string();
    words.iter().all(|w| !text.contains(w.as_str()))
}

/// The refusals and typed members the recording shows. `route_of` gives
/// an exchange's route template.
pub(crate) fn infer(exchanges: &[Exchange], route_of: &dyn Fn(&Exchange) -> String) -> MemberTypes {
    // What each route accepted.
    let mut seen: Seen = BTreeMap::new();
    for x in exchanges.iter().filter(|x| x.is_2xx()) {
        let route = route_of(x);
        if !x.is_read() {
            if let Some(sent) = x.body.as_ref().and_then(sent_members) {
                observe(&mut seen, &route, sent, x.ordinal);
            }
        }
        if let Some(a) = &x.answer {
            for o in answered(a) {
                observe(&mut seen, &route, o, x.ordinal);
            }
        }
    }
    // The string values each route accepted or answered, per member.
    let mut values: Values = BTreeMap::new();
    for x in exchanges.iter().filter(|x| x.is_2xx()) {
        let route = route_of(x);
        let mut objects: Vec<&Map<String, Value>> = Vec::new();
        if !x.is_read() {
            objects.extend(x.body.as_ref().and_then(sent_members));
        }
        if let Some(a) = &x.answer {
            objects.extend(answered(a));
        }
        for o in objects {
            for (m, v) in o {
                if let Some(text) = v.as_str() {
                    let e = values.entry((route.clone(), m.clone())).or_default();
                    e.0.insert(text.to_string());
                    if e.1.last() != Some(&x.ordinal) && e.1.len() < 5 {
                        e.1.push(x.ordinal);
                    }
                }
            }
        }
    }
    let mut by_route: BTreeMap<String, BTreeMap<String, TypedMember>> = BTreeMap::new();
    for ((route, member), (kinds, items, ords)) in &seen {
        let Some(kind) = one_type(kinds) else {
            continue;
        };
        by_route.entry(route.clone()).or_default().insert(
            member.clone(),
            TypedMember {
                route: route.clone(),
                member: member.clone(),
                kind: kind.to_string(),
                items: (kind == "array")
                    .then(|| one_type(items))
                    .flatten()
                    .map(str::to_string),
                supported_by: ords.clone(),
            },
        );
    }
    // The refused writes that sent exactly one member against its type.
    let mut refusals: Vec<(TypeRefusal, Violation)> = Vec::new();
    let mut enums: Vec<EnumRefusal> = Vec::new();
    for x in exchanges {
        if x.is_read() || !(400..500).contains(&x.status) || matches!(x.status, 404 | 409 | 412) {
            continue;
        }
        let (Some(sent), Some(answer)) = (x.body.as_ref().and_then(sent_members), &x.answer) else {
            continue;
        };
        let route = route_of(x);
        let Some(types) = by_route.get(&route) else {
            continue;
        };
        let found = violations(types, sent);
        if found.is_empty() {
            enums.extend(enum_refusal(x, &route, sent, answer, &values));
        }
        let [v] = found.as_slice() else { continue };
        let text = answer.to_string();
        let spelling = match v.index {
            None => None,
            Some(i) => match item_spelling(&text, &v.member, i) {
                Some(p) => Some(p),
                None => continue,
            },
        };
        let path = match (v.index, spelling) {
            (Some(i), Some(p)) => spell(p, &v.member, i),
            _ => v.member.clone(),
        };
        if !text.contains(&path) {
            continue;
        }
        let template = templated(answer, &v.member, &path);
        let mut words = Vec::new();
        value_words(&sent[&v.member], &mut words);
        if template == *answer || !placeholders_free(&template, &words) {
            continue;
        }
        refusals.push((
            TypeRefusal {
                method: x.method.clone(),
                route,
                member: v.member.clone(),
                path,
                expected: v.expected.clone(),
                item: v.index.is_some(),
                item_spelling: spelling.map(str::to_string),
                status: x.status,
                template,
                supported_by: x.ordinal,
                lent_by: Vec::new(),
            },
            v.clone(),
        ));
    }
    // A template lent to other members: it renders another member's
    // recorded refusal of the same expected type exactly.
    let answers: BTreeMap<u64, &Value> = exchanges
        .iter()
        .filter_map(|x| Some((x.ordinal, x.answer.as_ref()?)))
        .collect();
    let snapshot: Vec<TypeRefusal> = refusals.iter().map(|(r, _)| r.clone()).collect();
    for (r, _) in &mut refusals {
        for o in &snapshot {
            if o.supported_by == r.supported_by || o.member == r.member || o.expected != r.expected
            {
                continue;
            }
            if answers.get(&o.supported_by) == Some(&&rendered(&r.template, &o.member, &o.path)) {
                r.lent_by.push(o.supported_by);
            }
        }
    }
    let refusals: Vec<TypeRefusal> = refusals.into_iter().map(|(r, _)| r).collect();
    let lent: BTreeSet<&str> = refusals
        .iter()
        .filter(|r| !r.lent_by.is_empty())
        .map(|r| r.expected.as_str())
        .collect();
    let members = by_route
        .values()
        .flat_map(|m| m.values())
        .filter(|t| {
            refusals.iter().any(|r| {
                r.member == t.member && (r.route == t.route || same_resource(&r.route, &t.route))
            }) || lent.contains(t.kind.as_str())
                || t.items.as_deref().is_some_and(|i| lent.contains(i))
        })
        .cloned()
        .collect();
    MemberTypes {
        refusals,
        members,
        enums,
    }
}

/// The enum refusal a refused write shows, if any: exactly one sent string
/// member holds a value the route never accepted, and one string of the
/// answer names the member and lists every accepted value (two or more).
fn enum_refusal(
    x: &Exchange,
    route: &str,
    sent: &Map<String, Value>,
    answer: &Value,
    values: &Values,
) -> Option<EnumRefusal> {
    let mut texts = Vec::new();
    strings(answer, &mut texts);
    type Found<'a> = (
        &'a String,
        &'a str,
        &'a str,
        &'a (BTreeSet<String>, Vec<u64>),
    );
    let found: Vec<Found> = sent
        .iter()
        .filter_map(|(m, v)| {
            let v = v.as_str()?;
            let seen = values.get(&(route.to_string(), m.clone()))?;
            if seen.0.len() < 2 || seen.0.contains(v) {
                return None;
            }
            let listing = texts.iter().find(|t| {
                let w = words_of(t);
                w.contains(&m.as_str()) && seen.0.iter().all(|a| w.contains(&a.as_str()))
            })?;
            Some((m, v, *listing, seen))
        })
        .collect();
    let [(member, value, listing, seen)] = found.as_slice() else {
        return None;
    };
    // A refusal quoting the refused value is value-specific.
    if answer.to_string().contains(value) {
        return None;
    }
    let mut allowed = listed_words(listing)
        .filter(|l| seen.0.iter().all(|a| l.contains(a)))
        .unwrap_or_else(|| words_of(listing).into_iter().map(str::to_string).collect());
    allowed.sort();
    allowed.dedup();
    Some(EnumRefusal {
        method: x.method.clone(),
        route: route.to_string(),
        member: member.to_string(),
        allowed,
        status: x.status,
        template: templated(answer, member, member),
        supported_by: x.ordinal,
        accepted: seen.0.iter().cloned().collect(),
        checked_against: seen.1.clone(),
    })
}

/// True when two routes are one resource's collection and item
/// (`/posts` and `/posts/{post_id}`).
fn same_resource(a: &str, b: &str) -> bool {
    let item_of = |c: &str, i: &str| {
        i.strip_prefix(c)
            .and_then(|rest| rest.strip_prefix("/{"))
            .is_some_and(|rest| rest.ends_with('}') && !rest.contains('/'))
    };
    item_of(a, b) || item_of(b, a)
}

/// The app's refusal of a write to `route` that sent one member against its
/// type: `(status, body, lent)`; `lent` when the template was recorded for
/// another member. `None` when the body breaks no known type, breaks more
/// than one, or no template fits.
pub(crate) fn refusal(
    rules: &MemberTypes,
    method: &str,
    route: &str,
    body: &Value,
) -> Option<(u16, Value, bool)> {
    if rules.is_empty() || matches!(method, "GET" | "HEAD" | "OPTIONS" | "DELETE") {
        return None;
    }
    let sent = sent_members(body)?;
    let types: BTreeMap<String, TypedMember> = rules
        .members
        .iter()
        .filter(|t| t.route == route)
        .map(|t| (t.member.clone(), t.clone()))
        .collect();
    let found = violations(&types, sent);
    if found.is_empty() {
        return enum_answer(rules, route, sent);
    }
    let [v] = found.as_slice() else { return None };
    let item = v.index.is_some();
    // The member's own template on its route first, then on the other
    // route of its resource (collection or item), then one lent to its
    // type that renders this position (a member, an array's item).
    let own = |exact: bool| {
        rules.refusals.iter().find(|r| {
            r.member == v.member
                && r.expected == v.expected
                && if exact {
                    r.route == route
                } else {
                    same_resource(&r.route, route)
                }
        })
    };
    let renders = |r: &TypeRefusal| {
        r.item == item
            || r.lent_by.iter().any(|o| {
                rules
                    .refusals
                    .iter()
                    .any(|x| x.supported_by == *o && x.item == item)
            })
    };
    let lent = || {
        rules
            .refusals
            .iter()
            .find(|r| !r.lent_by.is_empty() && r.expected == v.expected && renders(r))
    };
    let (r, borrowed) = match (own(true), own(false)) {
        (Some(r), _) => (r, false),
        (None, Some(r)) => (r, true),
        (None, None) => (lent()?, true),
    };
    let path = match v.index {
        None => v.member.clone(),
        Some(i) => {
            // The item spelling the app's refusals showed.
            let spelled = rules
                .refusals
                .iter()
                .find_map(|r| r.item_spelling.as_deref())?;
            spell(spelled, &v.member, i)
        }
    };
    Some((r.status, rendered(&r.template, &v.member, &path), borrowed))
}

/// The enum refusal of a body that sent exactly one member a value its
/// rule does not list.
fn enum_answer(
    rules: &MemberTypes,
    route: &str,
    sent: &Map<String, Value>,
) -> Option<(u16, Value, bool)> {
    let found: Vec<(&EnumRefusal, &String)> =
        sent.iter()
            .filter_map(|(m, v)| {
                let v = v.as_str()?;
                let e = rules.enums.iter().find(|e| {
                    &e.member == m && (e.route == route || same_resource(&e.route, route))
                })?;
                (!e.allowed.iter().any(|a| a == v)).then_some((e, m))
            })
            .collect();
    let [(e, m)] = found.as_slice() else {
        return None;
    };
    Some((e.status, rendered(&e.template, m, m), e.route != route))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_listing_names_the_words_between_its_commas() {
        let want = ["publish", "future", "draft", "pending", "private"].map(str::to_string);
        let l = listed_words("status is not one of publish, future, draft, pending, private.");
        assert_eq!(l.unwrap(), want);
        let l = listed_words("status is not one of publish, future, draft, pending, and private.");
        assert_eq!(l.unwrap(), want);
        assert_eq!(listed_words("no list here"), None);
    }

    #[test]
    fn words_are_replaced_whole() {
        assert_eq!(
            replace_word("a_b is a_bc, a_b.", "a_b", "{x}"),
            "{x} is a_bc, {x}."
        );
    }

    #[test]
    fn a_template_names_the_member_in_keys_and_its_path_in_strings() {
        let answer = json!({"code": "bad", "message": "Invalid: cats",
            "data": {"status": 400, "params": {"cats": "cats[0] is not of type integer."}}});
        let t = templated(&answer, "cats", "cats[0]");
        assert_eq!(
            t,
            json!({"code": "bad", "message": "Invalid: {member}",
                "data": {"status": 400, "params": {"{member}": "{path} is not of type integer."}}})
        );
        assert_eq!(rendered(&t, "cats", "cats[0]"), answer);
        let top = rendered(&t, "week", "week");
        assert_eq!(
            top["data"]["params"]["week"],
            "week is not of type integer."
        );
        assert_eq!(top["data"]["status"], 400);
    }

    #[test]
    fn only_values_an_app_cannot_read_as_the_type_violate_it() {
        assert!(violates(&json!("monday"), "integer"));
        assert!(!violates(&json!("5"), "integer"));
        assert!(violates(&json!(1.5), "integer"));
        assert!(!violates(&json!(null), "integer"));
        assert!(!violates(&json!(3), "string"));
        assert!(violates(&json!(["a"]), "object"));
        assert!(!violates(&json!("a,b"), "array"));
        assert!(violates(&json!("maybe"), "boolean"));
    }
}
