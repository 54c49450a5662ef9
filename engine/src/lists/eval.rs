//! The evaluator: a set of parameter semantics applied to one request's
//! parameters over a list of entities — defaults, filters, search, sort,
//! paging and field selection — as one pure function that inference (to
//! re-render recorded instances) and serving (for unseen combinations) share.

use crate::lists::fields::{compare, equals, resolve, Collation, FieldPath};
use crate::lists::filter_lang;
use crate::lists::semantics::{EndpointSemantics, Meaning, Op, SearchScope, SortKey, TokenFormat};
use base64::Engine as _;
use serde_json::Value;
use std::cmp::Ordering;
use std::collections::HashMap;

/// Why a request is not understood.
#[derive(Debug, Clone, PartialEq)]
pub enum NotUnderstood {
    /// A parameter the semantics hold no kept meaning for.
    Parameter(String),
    /// A value the meaning cannot read (a page size that is not a number,
    /// a sort key or filter subject no entity has, an unparsable filter).
    Value(String),
}

/// One page of a list.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// Indices into the universe, in answer order.
    pub indices: Vec<usize>,
    /// How many entities matched before paging.
    pub total: usize,
    pub offset: usize,
    /// The page size in effect, if any.
    pub size: Option<usize>,
    /// The offset of the next page when more remain.
    pub next_offset: Option<usize>,
    /// The members to show (field selection), if asked.
    pub fields: Option<Vec<String>>,
    /// The effective sort keys (for keyset cursors).
    pub sort: Vec<SortKey>,
    /// Every match, sorted, before paging (indices into the universe).
    pub ranked: Vec<usize>,
    /// The offset the request asked for, before it was clipped to `total`.
    pub requested: usize,
}

/// Request parameters, grouped by name in first-seen order.
pub fn group(params: &[(String, Value)]) -> Vec<(String, Vec<Value>)> {
    let mut out: Vec<(String, Vec<Value>)> = Vec::new();
    for (n, v) in params {
        match out.iter_mut().find(|(m, _)| m == n) {
            Some((_, vs)) => vs.push(v.clone()),
            None => out.push((n.clone(), vec![v.clone()])),
        }
    }
    out
}

/// The parameters of a raw query string (percent- and `+`-decoded).
pub fn query_params(query: &str) -> Vec<(String, Value)> {
    crate::codec::query_pairs(query)
        .into_iter()
        .map(|(n, v)| (n, Value::String(v)))
        .collect()
}

/// The members of a JSON object body, as parameters.
pub fn body_params(body: &Value) -> Vec<(String, Value)> {
    body.as_object()
        .map(|o| o.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default()
}

fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn number_of(v: &Value) -> Option<usize> {
    match v {
        Value::Number(n) => n.as_u64().map(|n| n as usize),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The individual values a request value stands for: a JSON array's
/// elements, a comma list's items, or the value itself.
fn alternatives(values: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    for v in values {
        match v {
            Value::Array(a) => out.extend(a.iter().cloned()),
            Value::String(s) if s.contains(',') => out.extend(
                s.split(',')
                    .map(|p| Value::String(p.trim().to_string()))
                    .filter(|p| p.as_str() != Some("")),
            ),
            other => out.push(other.clone()),
        }
    }
    out
}

/// A value that spells its operator first (`gt.5`, `lte:10`, `in.(a,b)`,
/// `not.eq.x`): the operator and the values it compares with (several for
/// `in`). `None` when the value spells no operator.
pub fn value_operator(text: &str) -> Option<(Op, Vec<Value>)> {
    let (negated, rest) = match text
        .strip_prefix("not.")
        .or_else(|| text.strip_prefix("not:"))
    {
        Some(r) => (true, r),
        None => (false, text),
    };
    let cut = rest.find(['.', ':'])?;
    let (word, value) = (&rest[..cut], &rest[cut + 1..]);
    let op = match word.to_ascii_lowercase().as_str() {
        "eq" | "in" => Op::Eq,
        "neq" | "ne" => Op::Ne,
        "gt" => Op::Gt,
        "gte" | "ge" => Op::Gte,
        "lt" => Op::Lt,
        "lte" | "le" => Op::Lte,
        _ => return None,
    };
    let values: Vec<Value> = if word.eq_ignore_ascii_case("in") {
        value
            .trim_start_matches('(')
            .trim_end_matches(')')
            .split(',')
            .map(|v| Value::String(v.trim().trim_matches('"').to_string()))
            .collect()
    } else {
        vec![Value::String(value.to_string())]
    };
    let op = match (negated, op) {
        (false, op) => op,
        (true, Op::Eq) => Op::Ne,
        (true, Op::Ne) => Op::Eq,
        (true, Op::Gt) => Op::Lte,
        (true, Op::Gte) => Op::Lt,
        (true, Op::Lt) => Op::Gte,
        (true, Op::Lte) => Op::Gt,
        (true, Op::Like) => return None,
    };
    Some((op, values))
}

/// Sort keys as spelled: `-f`, `+f`, `f:desc`, `f DESC`, comma lists, arrays.
/// `None` direction means "not said" (a separate direction parameter decides).
pub fn sort_spellings(values: &[Value]) -> Vec<(String, Option<bool>)> {
    let mut out = Vec::new();
    for v in alternatives(values) {
        let Some(t) = text_of(&v) else { continue };
        let t = t.trim();
        if t.is_empty() {
            continue;
        }
        let lower = t.to_ascii_lowercase();
        let key = if let Some(f) = t.strip_prefix('-') {
            (f.to_string(), Some(true))
        } else if let Some(f) = t.strip_prefix('+') {
            (f.to_string(), Some(false))
        } else if lower.ends_with(":desc") || lower.ends_with(" desc") {
            (t[..t.len() - 5].trim().to_string(), Some(true))
        } else if lower.ends_with(":asc") || lower.ends_with(" asc") {
            (t[..t.len() - 4].trim().to_string(), Some(false))
        } else {
            (t.to_string(), None)
        };
        out.push(key);
    }
    out
}

fn direction_of(values: &[Value]) -> Option<bool> {
    let t = text_of(values.first()?)?.to_ascii_lowercase();
    match t.as_str() {
        "desc" | "descending" | "-1" => Some(true),
        "asc" | "ascending" | "1" => Some(false),
        _ => None,
    }
}

/// Sorts `indices` of `universe` stably by `keys`.
pub fn sort_indices(indices: &mut [usize], universe: &[&Value], keys: &[SortKey], c: Collation) {
    indices.sort_by(|&a, &b| {
        keys.iter()
            .map(|k| {
                let o = compare(k.field.get(universe[a]), k.field.get(universe[b]), c);
                if k.descending {
                    o.reverse()
                } else {
                    o
                }
            })
            .find(|o| *o != Ordering::Equal)
            .unwrap_or(Ordering::Equal)
    });
}

fn op_holds(op: Op, field: Option<&Value>, wanted: &Value, c: Collation) -> bool {
    match op {
        Op::Eq => equals(field, wanted),
        Op::Ne => !equals(field, wanted),
        Op::Like => wanted
            .as_str()
            .is_some_and(|w| LikePattern::new(w).holds(field)),
        _ => {
            let Some(v) = field else { return false };
            let w = crate::lists::fields::coerce(wanted, Some(v));
            let o = compare(Some(v), Some(&w), c);
            match op {
                Op::Gt => o == Ordering::Greater,
                Op::Gte => o != Ordering::Less,
                Op::Lt => o == Ordering::Less,
                _ => o != Ordering::Greater,
            }
        }
    }
}

/// The longest `_like` pattern read as a regular expression (longer ones
/// match as literal text), and the compiled size it may take.
pub const LIKE_PATTERN_MAX: usize = 256;
const LIKE_COMPILED_MAX: usize = 1 << 16;

/// The text a `_like` filter matches a member by: a string, a number or
/// boolean as written, an array's scalars joined by commas (as a
/// JavaScript array's `toString`); none for objects and nulls.
fn like_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(_) | Value::Bool(_) => Some(v.to_string()),
        Value::Array(a) => Some(
            a.iter()
                .map(|x| match x {
                    Value::String(s) => s.clone(),
                    Value::Null => String::new(),
                    other => other.to_string(),
                })
                .collect::<Vec<_>>()
                .join(","),
        ),
        _ => None,
    }
}

/// A `_like` value: a case-insensitive regular expression found anywhere
/// in the member's text, or, for a pattern too long or not valid, a literal
/// text the member contains in any case.
pub enum LikePattern {
    Regex(regex::Regex),
    Literal(String),
}

impl LikePattern {
    pub fn new(pattern: &str) -> LikePattern {
        let compiled = (pattern.len() <= LIKE_PATTERN_MAX)
            .then(|| {
                regex::RegexBuilder::new(pattern)
                    .case_insensitive(true)
                    .size_limit(LIKE_COMPILED_MAX)
                    .dfa_size_limit(LIKE_COMPILED_MAX)
                    .build()
                    .ok()
            })
            .flatten();
        match compiled {
            Some(re) => LikePattern::Regex(re),
            None => LikePattern::Literal(pattern.to_lowercase()),
        }
    }

    /// True when the member's value matches.
    pub fn holds(&self, field: Option<&Value>) -> bool {
        let Some(text) = field.and_then(like_text) else {
            return false;
        };
        match self {
            LikePattern::Regex(re) => re.is_match(&text),
            LikePattern::Literal(l) => text.to_lowercase().contains(l.as_str()),
        }
    }
}

fn contains_text(v: &Value, needle: &str) -> bool {
    match v {
        Value::String(s) => s.to_lowercase().contains(needle),
        Value::Array(a) => a.iter().any(|x| contains_text(x, needle)),
        Value::Object(o) => o.values().any(|x| contains_text(x, needle)),
        _ => false,
    }
}

/// Selector values that keep every entity.
pub const ALL_WORDS: &[&str] = &["all", "any", "both"];

/// The word a boolean member's name stands for (`is_closed` → `closed`).
pub fn bool_word(field: &FieldPath) -> Option<String> {
    let Some(crate::lists::fields::Step::Member { name }) = field.0.last() else {
        return None;
    };
    let lower = name.to_lowercase();
    let word = lower
        .strip_prefix("is_")
        .or_else(|| lower.strip_prefix("has_"))
        .unwrap_or(&lower);
    (!word.is_empty()).then(|| word.to_string())
}

/// The lower-case words of selector values (`DELETED_ONLY` → `deleted`,
/// `only`).
pub fn selector_words(values: &[Value]) -> Vec<String> {
    alternatives(values)
        .iter()
        .filter_map(text_of)
        .flat_map(|t| {
            t.split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_lowercase)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Our own cursor: the identity and sort values of the last entity shown.
pub fn own_token(
    entity: &Value,
    identity: Option<&FieldPath>,
    sort: &[SortKey],
    offset: usize,
) -> String {
    let keys: Vec<Value> = sort
        .iter()
        .map(|k| k.field.get(entity).cloned().unwrap_or(Value::Null))
        .collect();
    let id = identity
        .and_then(|p| p.get(entity))
        .cloned()
        .unwrap_or(Value::Null);
    let doc = serde_json::json!({"after": id, "keys": keys, "offset": offset});
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(doc.to_string())
}

fn read_own(token: &str) -> Option<Value> {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(token.trim_end_matches('='))
        .ok()?;
    let v: Value = serde_json::from_slice(&bytes).ok()?;
    v.get("keys")?;
    Some(v)
}

/// The app's offset token for `offset`, in the recorded spelling.
pub fn app_token(template: &str, padded: bool, offset: usize) -> String {
    let text = template.replace("{offset}", &offset.to_string());
    if padded {
        base64::engine::general_purpose::STANDARD.encode(text)
    } else {
        base64::engine::general_purpose::STANDARD_NO_PAD.encode(text)
    }
}

/// Reads an app offset token against its template.
pub fn read_app_token(template: &str, token: &str) -> Option<usize> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(
            token.trim_end_matches('=').to_string()
                + &"=".repeat((4 - token.trim_end_matches('=').len() % 4) % 4),
        )
        .ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let (pre, post) = template.split_once("{offset}")?;
    text.strip_prefix(pre)?.strip_suffix(post)?.parse().ok()
}

/// Where a cursor starts, in the sorted matches.
fn cursor_start(
    sem: &EndpointSemantics,
    token: &str,
    matches: &[usize],
    universe: &[&Value],
    sort: &[SortKey],
    recorded: &HashMap<String, usize>,
) -> Option<usize> {
    if let Some(o) = recorded.get(token) {
        return Some(*o);
    }
    if let Some(TokenFormat::Base64Offset { template, .. }) = &sem.spelling.token {
        if let Some(o) = read_app_token(template, token) {
            return Some(o);
        }
    }
    let doc = read_own(token)?;
    let after = doc.get("after").cloned().unwrap_or(Value::Null);
    if let Some(id_path) = &sem.identity {
        if !after.is_null() {
            if let Some(pos) = matches
                .iter()
                .position(|&i| id_path.get(universe[i]) == Some(&after))
            {
                return Some(pos + 1);
            }
        }
    }
    // The entity is gone: start at the first entity sorting after its keys.
    let keys = doc.get("keys")?.as_array()?.clone();
    if keys.len() == sort.len() && !sort.is_empty() {
        let pos = matches.iter().position(|&i| {
            sort.iter()
                .zip(&keys)
                .map(|(k, v)| {
                    let o = compare(k.field.get(universe[i]), Some(v), sem.collation);
                    if k.descending {
                        o.reverse()
                    } else {
                        o
                    }
                })
                .find(|o| *o != Ordering::Equal)
                == Some(Ordering::Greater)
        });
        return Some(pos.unwrap_or(matches.len()));
    }
    doc.get("offset")?.as_u64().map(|o| o as usize)
}

/// Applies the kept semantics of `sem` to one request's parameters over
/// `universe` (the World's entities of the collection, in state order).
/// `recorded` maps tokens the recording handed out to their offsets.
pub fn evaluate(
    sem: &EndpointSemantics,
    params: &[(String, Value)],
    universe: &[&Value],
    recorded: &HashMap<String, usize>,
) -> Result<Page, NotUnderstood> {
    let c = sem.collation;
    let mut filters: Vec<(FieldPath, Op, Vec<Value>)> = Vec::new();
    let mut clauses = Vec::new();
    let mut needles: Vec<(String, SearchScope)> = Vec::new();
    let mut selectors: Vec<(FieldPath, Vec<String>)> = Vec::new();
    let mut sort_values: Option<(String, Vec<Value>)> = None;
    let mut direction: Option<bool> = None;
    let (mut size, mut page, mut offset, mut cursor, mut fields) = (None, None, None, None, None);
    let mut end: Option<usize> = None;
    let grouped = group(params);
    for (name, values) in &grouped {
        let lent = || {
            let (f, op) = sem.lent_operator(name)?;
            Some(Meaning::Filter {
                field: resolve(f, universe)?,
                op,
            })
        };
        let meaning = match sem.meaning(name) {
            Some(m) => m.clone(),
            None if lent().is_some() => lent().expect("just checked"),
            None if sem.field_name_filters => match resolve(name, universe) {
                Some(field) => Meaning::Filter { field, op: Op::Eq },
                None => return Err(NotUnderstood::Parameter(name.clone())),
            },
            None => return Err(NotUnderstood::Parameter(name.clone())),
        };
        let bad = || NotUnderstood::Value(name.clone());
        match meaning {
            Meaning::PageSize => size = Some(values.iter().find_map(number_of).ok_or_else(bad)?),
            Meaning::PageNumber => page = Some(values.iter().find_map(number_of).ok_or_else(bad)?),
            Meaning::Offset => offset = Some(values.iter().find_map(number_of).ok_or_else(bad)?),
            Meaning::End => end = Some(values.iter().find_map(number_of).ok_or_else(bad)?),
            Meaning::Cursor => cursor = values.iter().find_map(text_of),
            Meaning::Sort => sort_values = Some((name.clone(), values.clone())),
            Meaning::Columns | Meaning::OmitFields => {
                let named: Vec<String> = alternatives(values).iter().filter_map(text_of).collect();
                fields = Some(crate::lists::shape::columns(
                    sem,
                    matches!(meaning, Meaning::OmitFields),
                    named,
                    universe,
                ));
            }
            Meaning::SortDescending => {
                let desc = alternatives(values)
                    .iter()
                    .filter_map(text_of)
                    .map(|t| Value::String(format!("-{}", t.trim_start_matches(['-', '+']))))
                    .collect();
                sort_values = Some((name.clone(), desc))
            }
            Meaning::Direction { .. } => direction = Some(direction_of(values).ok_or_else(bad)?),
            Meaning::Filter { field, op } => filters.push((field, op, alternatives(values))),
            Meaning::ValueOperators { field } => {
                for v in values {
                    let (op, alts) = text_of(v)
                        .as_deref()
                        .and_then(value_operator)
                        .ok_or_else(bad)?;
                    filters.push((field.clone(), op, alts));
                }
            }
            Meaning::Selector { field } => {
                let words = selector_words(values);
                // A value without words (`*`) keeps every entity, as "all" does.
                if !words.is_empty() && !words.iter().any(|w| ALL_WORDS.contains(&w.as_str())) {
                    selectors.push((field, words));
                }
            }
            Meaning::Fields => {
                let mut named: Vec<String> =
                    alternatives(values).iter().filter_map(text_of).collect();
                // An unconfirmed selection keeps the identity, so the
                // items stay addressable.
                if sem.kept(name).is_none() {
                    if let Some(crate::lists::fields::Step::Member { name: id }) = sem
                        .identity
                        .as_ref()
                        .and_then(|p| p.0.first())
                        .filter(|_| sem.identity.as_ref().is_some_and(|p| p.0.len() == 1))
                    {
                        if !named.contains(id) {
                            named.insert(0, id.clone());
                        }
                    }
                }
                fields = Some(named)
            }
            // The answer's shape only (`lists::shape`): the page is the same.
            Meaning::BareItems { .. } => {}
            Meaning::Search { scope } => needles.extend(
                values
                    .iter()
                    .filter_map(text_of)
                    .map(|s| (s.to_lowercase(), scope)),
            ),
            Meaning::FilterLanguage => {
                for v in values {
                    let Some(text) = v.as_str() else {
                        return Err(bad());
                    };
                    for clause in filter_lang::parse(text).ok_or_else(bad)? {
                        let path = filter_lang::subject_path(&clause, universe).ok_or_else(bad)?;
                        clauses.push((clause, path));
                    }
                }
            }
        }
    }
    for d in &sem.default_filters {
        if !grouped.iter().any(|(n, _)| *n == d.param) {
            filters.push((d.field.clone(), Op::Eq, vec![d.value.clone()]));
        }
    }
    // `_like` patterns, compiled once per request.
    let likes: Vec<Vec<LikePattern>> = filters
        .iter()
        .map(|(_, op, alts)| match op {
            Op::Like => alts
                .iter()
                .map(|w| LikePattern::new(&text_of(w).unwrap_or_default()))
                .collect(),
            _ => Vec::new(),
        })
        .collect();
    let mut matches: Vec<usize> = (0..universe.len())
        .filter(|&i| {
            let e = universe[i];
            filters.iter().zip(&likes).all(|((f, op, alts), likes)| {
                let v = f.get(e);
                match op {
                    Op::Like => likes.iter().any(|p| p.holds(v)),
                    Op::Ne => alts.iter().all(|w| op_holds(*op, v, w, c)),
                    _ => alts.iter().any(|w| op_holds(*op, v, w, c)),
                }
            }) && clauses
                .iter()
                .all(|(cl, p)| filter_lang::holds(cl, p, e, c))
                && needles.iter().all(|(n, scope)| match scope {
                    SearchScope::Deep => contains_text(e, n),
                    SearchScope::TopLevel => e.as_object().is_some_and(|o| {
                        o.values()
                            .any(|v| v.as_str().is_some_and(|t| t.to_lowercase().contains(n)))
                    }),
                })
                && selectors.iter().all(|(f, words)| match f.get(e) {
                    // A boolean member picks by its name: a word naming it
                    // (`closed` for `is_closed`) keeps the true ones, any
                    // other word (`open`) the false ones.
                    Some(Value::Bool(b)) => *b == bool_word(f).is_some_and(|n| words.contains(&n)),
                    v => v
                        .and_then(Value::as_str)
                        .is_some_and(|v| words.contains(&v.to_lowercase())),
                })
        })
        .collect();
    sort_indices(&mut matches, universe, &sem.default_order, c);
    let mut sort = sem.default_order.clone();
    if let Some((_, values)) = &sort_values {
        let mut keys = Vec::new();
        for (key, desc) in sort_spellings(values) {
            let field = resolve(&key, universe).ok_or_else(|| NotUnderstood::Value(key.clone()))?;
            keys.push(SortKey {
                field,
                descending: desc.or(direction).unwrap_or(false),
            });
        }
        sort_indices(&mut matches, universe, &keys, c);
        keys.extend(sort);
        sort = keys;
    }
    let total = matches.len();
    // An end index is the size of the slice from the offset.
    let size = end
        .map(|e| e.saturating_sub(offset.unwrap_or(0)))
        .or(size)
        .or(sem.default_page_size);
    let start = match (&cursor, offset, page, size) {
        (Some(t), _, _, _) => cursor_start(sem, t, &matches, universe, &sort, recorded)
            .ok_or_else(|| NotUnderstood::Value("cursor".into()))?,
        (None, Some(o), _, _) => o,
        (None, None, Some(p), Some(s)) => p.saturating_sub(1) * s,
        _ => 0,
    };
    let requested = start;
    let start = start.min(total);
    let end = size.map_or(total, |s| (start + s).min(total));
    Ok(Page {
        indices: matches[start..end].to_vec(),
        total,
        offset: start,
        size,
        next_offset: (end < total).then_some(end),
        fields,
        sort,
        ranked: matches,
        requested,
    })
}

/// An entity showing only the selected members (in the entity's order).
pub fn select(entity: &Value, fields: Option<&[String]>) -> Value {
    match (entity, fields) {
        (Value::Object(o), Some(names)) => Value::Object(
            o.iter()
                .filter(|(k, _)| names.iter().any(|n| n == *k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
        _ => entity.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_operators_spell_their_operator_first() {
        let s = |t: &str| Value::String(t.into());
        assert_eq!(value_operator("gt.5"), Some((Op::Gt, vec![s("5")])));
        assert_eq!(value_operator("lte:10"), Some((Op::Lte, vec![s("10")])));
        assert_eq!(value_operator("neq.paid"), Some((Op::Ne, vec![s("paid")])));
        assert_eq!(
            value_operator("in.(a, b)"),
            Some((Op::Eq, vec![s("a"), s("b")]))
        );
        assert_eq!(value_operator("not.gte.3"), Some((Op::Lt, vec![s("3")])));
        assert_eq!(value_operator("not.in.(a,b)").map(|x| x.0), Some(Op::Ne));
        assert_eq!(value_operator("e.x"), None);
        assert_eq!(value_operator("2024-05-01T10:00:00"), None);
        assert_eq!(value_operator("http://x"), None);
        assert_eq!(value_operator("kitchen"), None);
    }

    #[test]
    fn sort_spellings_cover_the_conventions() {
        let v = |s: &str| vec![Value::String(s.into())];
        assert_eq!(
            sort_spellings(&v("-total")),
            vec![("total".into(), Some(true))]
        );
        assert_eq!(
            sort_spellings(&v("name:desc,id")),
            vec![("name".into(), Some(true)), ("id".into(), None)]
        );
        assert_eq!(
            sort_spellings(&[serde_json::json!(["last_update_time DESC", "name ASC"])]),
            vec![
                ("last_update_time".into(), Some(true)),
                ("name".into(), Some(false))
            ]
        );
    }

    fn semantics() -> EndpointSemantics {
        use crate::lists::semantics::{Carrier, ParamMeaning, Spelling};
        let param = |name: &str, meaning: Meaning| ParamMeaning {
            name: name.into(),
            meaning,
            basis: "convention".into(),
            status: "kept".into(),
            observed: vec![],
            confirmed_by: vec![1],
            contradicted_by: vec![],
        };
        EndpointSemantics {
            tool: "list".into(),
            method: "GET".into(),
            path_template: "/items".into(),
            carrier: Carrier::Query,
            items_pointer: String::new(),
            identity: Some(FieldPath::member("id")),
            universe: "state".into(),
            collation: Collation::Binary,
            default_order_evidence: vec![],
            default_order: vec![SortKey {
                field: FieldPath::member("id"),
                descending: false,
            }],
            default_page_size: None,
            default_filters: vec![],
            field_name_filters: true,
            lent_operators: Vec::new(),
            params: vec![
                param("limit", Meaning::PageSize),
                param("token", Meaning::Cursor),
                param("sort", Meaning::Sort),
            ],
            item_fields: vec![],
            base_ordinal: None,
            answers: vec![],
            unexplained: vec![],
            adopted: vec![],
            spelling: Spelling {
                token: Some(TokenFormat::Own),
                ..Spelling::default()
            },
            instances: vec![],
        }
    }

    /// rea's own cursor names the last entity shown (and its sort values),
    /// so the next page continues after it even when entities before it
    /// were deleted, or it was deleted itself, in between.
    #[test]
    fn own_cursors_stay_valid_across_writes() {
        let sem = semantics();
        let all: Vec<Value> = (1..=7)
            .map(|n| serde_json::json!({"id": n, "score": 10 - n}))
            .collect();
        let refs: Vec<&Value> = all.iter().collect();
        let q = |t: Option<&str>| {
            let mut p = query_params("limit=3&sort=-score");
            if let Some(t) = t {
                p.push(("token".into(), Value::String(t.into())));
            }
            p
        };
        let none = HashMap::new();
        let first = evaluate(&sem, &q(None), &refs, &none).unwrap();
        assert_eq!(first.indices, vec![0, 1, 2]);
        let last = refs[*first.indices.last().unwrap()];
        let token = own_token(
            last,
            sem.identity.as_ref(),
            &first.sort,
            first.next_offset.unwrap(),
        );
        // Delete entity 1 (already shown): the next page still starts at 4.
        let fewer: Vec<&Value> = refs.iter().copied().filter(|e| e["id"] != 1).collect();
        let page = evaluate(&sem, &q(Some(&token)), &fewer, &none).unwrap();
        let ids: Vec<&Value> = page.indices.iter().map(|&i| &fewer[i]["id"]).collect();
        assert_eq!(
            ids,
            [
                &serde_json::json!(4),
                &serde_json::json!(5),
                &serde_json::json!(6)
            ]
        );
        // Delete entity 3 (the cursor's own): its sort values place the next page.
        let gone: Vec<&Value> = refs.iter().copied().filter(|e| e["id"] != 3).collect();
        let page = evaluate(&sem, &q(Some(&token)), &gone, &none).unwrap();
        assert_eq!(gone[page.indices[0]]["id"], 4);
        // A name the semantics do not hold and no entity has is not understood.
        assert_eq!(
            evaluate(&sem, &query_params("colour=red"), &refs, &none),
            Err(NotUnderstood::Parameter("colour".into()))
        );
        // A field name filters (the field-name convention).
        let page = evaluate(&sem, &query_params("score=4"), &refs, &none).unwrap();
        assert_eq!(page.indices, vec![5]);
    }

    /// `_like` reads its value as a case-insensitive regular expression
    /// found anywhere in the member's text; a value that is no valid
    /// pattern, or too long, matches as a literal text.
    #[test]
    fn like_is_a_case_insensitive_regular_expression() {
        use crate::lists::semantics::ParamMeaning;
        let mut sem = semantics();
        sem.params.push(ParamMeaning {
            name: "title_like".into(),
            meaning: Meaning::Filter {
                field: FieldPath::member("title"),
                op: Op::Like,
            },
            basis: "convention".into(),
            status: "kept".into(),
            observed: vec![],
            confirmed_by: vec![1],
            contradicted_by: vec![],
        });
        let all = [
            serde_json::json!({"id": 1, "title": "Rust Guide", "tags": ["a", "b"]}),
            serde_json::json!({"id": 2, "title": "A guide to (Go)"}),
            serde_json::json!({"id": 3, "title": "Guides+s"}),
            serde_json::json!({"id": 4, "title": 42}),
        ];
        let refs: Vec<&Value> = all.iter().collect();
        let none = HashMap::new();
        let ids = |q: &str| -> Vec<usize> {
            let page = evaluate(&sem, &query_params(q), &refs, &none).unwrap();
            page.indices.iter().map(|&i| i + 1).collect()
        };
        assert_eq!(ids("title_like=guide"), vec![1, 2, 3]);
        assert_eq!(ids("title_like=%5Eguide"), vec![3]);
        assert_eq!(ids("title_like=guide%24"), vec![1]);
        assert_eq!(ids("title_like=rust%7Cgo"), vec![1, 2]);
        assert_eq!(ids("title_like=%5E4%5Cd%24"), vec![4]);
        // Not a valid pattern: the literal text, in any case.
        assert_eq!(ids("title_like=(go"), vec![2]);
        assert_eq!(ids("title_like=%2Bs"), vec![3]);
        // A pattern past the bound is literal text too.
        let long = "a".repeat(LIKE_PATTERN_MAX + 1);
        assert!(LikePattern::new(&long).holds(Some(&Value::String(format!("x{long}")))));
        assert!(!LikePattern::new(&format!("^{}", "a?".repeat(200)))
            .holds(Some(&Value::String("b".into()))));
        // An array member is its scalars joined by commas.
        assert!(LikePattern::new("^a,b$").holds(Some(&all[0]["tags"])));
        assert!(!LikePattern::new("x").holds(None));
    }

    /// A top-level search looks in the item's own texts only; a deep one
    /// in every text, nested ones too.
    #[test]
    fn search_scopes_differ_on_nested_texts() {
        use crate::lists::semantics::{ParamMeaning, SearchScope};
        let all = [
            serde_json::json!({"id": 1, "name": "Juniper", "description": "Legacy API shutdown"}),
            serde_json::json!({"id": 2, "name": "Kestrel", "settings": {"labels": ["api"]}}),
            serde_json::json!({"id": 3, "name": "Lumen", "budget": 5}),
        ];
        let refs: Vec<&Value> = all.iter().collect();
        let none = HashMap::new();
        for (scope, want) in [
            (SearchScope::TopLevel, vec![0]),
            (SearchScope::Deep, vec![0, 1]),
        ] {
            let mut sem = semantics();
            sem.params.push(ParamMeaning {
                name: "search".into(),
                meaning: Meaning::Search { scope },
                basis: "convention".into(),
                status: "kept".into(),
                observed: vec![],
                confirmed_by: vec![1],
                contradicted_by: vec![],
            });
            let page = evaluate(&sem, &query_params("search=API"), &refs, &none).unwrap();
            assert_eq!(page.indices, want, "{scope:?}");
        }
    }

    /// A selector keeps the entities whose member is one of the value's
    /// words (any case); `ALL` keeps every one.
    #[test]
    fn selectors_pick_by_the_words_of_their_value() {
        use crate::lists::semantics::ParamMeaning;
        let mut sem = semantics();
        sem.field_name_filters = false;
        sem.params.push(ParamMeaning {
            name: "view_type".into(),
            meaning: Meaning::Selector {
                field: FieldPath::member("stage"),
            },
            basis: "data".into(),
            status: "kept".into(),
            observed: vec![],
            confirmed_by: vec![1],
            contradicted_by: vec![],
        });
        let all = [
            serde_json::json!({"id": 1, "stage": "active"}),
            serde_json::json!({"id": 2, "stage": "deleted"}),
            serde_json::json!({"id": 3, "stage": "active"}),
        ];
        let refs: Vec<&Value> = all.iter().collect();
        let none = HashMap::new();
        let pick = |q: &str| {
            evaluate(&sem, &query_params(q), &refs, &none)
                .unwrap()
                .indices
        };
        assert_eq!(pick("view_type=DELETED_ONLY"), vec![1]);
        assert_eq!(pick("view_type=ACTIVE_ONLY"), vec![0, 2]);
        assert_eq!(pick("view_type=ALL"), vec![0, 1, 2]);
    }

    #[test]
    fn app_tokens_round_trip() {
        let t = app_token("{\"offset\": {offset}}", true, 4);
        assert_eq!(t, "eyJvZmZzZXQiOiA0fQ==");
        assert_eq!(read_app_token("{\"offset\": {offset}}", &t), Some(4));
        assert_eq!(
            read_app_token("{\"offset\": {offset}}", "eyJvZmZzZXQiOiA0fQ"),
            Some(4)
        );
    }
}
