//! Inference: hypotheses for each recorded list parameter (from the
//! convention library or from the data), the defaults (order, page size,
//! filters), the app's spelling of totals and next pages — kept only when
//! re-rendering every recorded initial instance from the World with the
//! shared evaluator reproduces the recorded answer.

use crate::model::lists::conventions::{self, Role};
use crate::model::lists::eval::{
    app_token, evaluate, select, sort_spellings, value_operator, NotUnderstood, Page,
};
use crate::model::lists::fields::{resolve, scalar, Collation, FieldPath};
use crate::model::lists::filter_lang;
use crate::model::lists::instances::{Endpoint, Instance};
use crate::model::lists::semantics::{
    DefaultFilter, EndpointSemantics, InstanceCheck, Meaning, Op, ParamMeaning, SearchScope,
    SortKey, Spelling, TokenFormat,
};
use base64::Engine as _;
use serde_json::Value;
use std::collections::HashMap;

/// What re-rendering one instance showed.
#[derive(Debug, Clone, PartialEq)]
enum Verdict {
    Reproduced,
    /// The World holds fewer matching entities than the app counted (a
    /// partial recording), and what it holds agrees with the answer: the
    /// listed entities it knows match, in the answer's order, contiguously,
    /// at a rank the page allows; the page holds as many as the app's count
    /// and the page size leave. Counts as confirmation.
    Consistent(String),
    /// The World is partial and holds none of the listed entities: neither
    /// confirms nor contradicts.
    Partial(String),
    /// The request is not understood (a parameter without a kept meaning).
    NotUnderstood(String),
    /// The answer differs: which part.
    Differs(String),
    /// An instance after writes differs from the World replayed to its
    /// moment: neither confirms nor contradicts (the replayed World may
    /// hold fewer entities than the app did, or a write the fake does not
    /// replay exactly).
    Unsettled(String),
}

fn header<'a>(inst: &'a Instance, name: &str) -> Option<&'a str> {
    inst.headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// The URLs of a `Link` header by relation.
fn link_rel<'a>(value: &'a str, rel: &str) -> Option<&'a str> {
    value.split(',').find_map(|part| {
        let (url, params) = part.trim().split_once(';')?;
        params
            .contains(&format!("rel=\"{rel}\""))
            .then(|| url.trim().trim_start_matches('<').trim_end_matches('>'))
    })
}

/// The next-page URL an instance's answer names in `spelling`'s header.
fn next_url<'a>(inst: &'a Instance, s: &Spelling) -> Option<&'a str> {
    let v = header(inst, s.next_header.as_deref()?)?;
    if s.link_rel {
        link_rel(v, "next")
    } else {
        Some(v)
    }
}

/// Tokens an answer hands out: the query values of its next URL that the
/// request did not send, and its string member named like a token.
fn handed_out(inst: &Instance, s: &Spelling) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(url) = next_url(inst, s) {
        if let Some((_, q)) = url.split_once('?') {
            out.extend(
                url::form_urlencoded::parse(q.as_bytes())
                    .filter(|(n, v)| {
                        !inst
                            .params
                            .iter()
                            .any(|(m, w)| m == n && w.as_str() == Some(v.as_ref()))
                    })
                    .map(|(_, v)| v.into_owned()),
            );
        }
    }
    if let Some(m) = &s.next_member {
        if let Some(t) = inst.body.get(m).and_then(Value::as_str) {
            out.push(t.to_string());
        }
    }
    out
}

fn is_integer(v: &Value) -> bool {
    match v {
        Value::Number(n) => n.is_u64(),
        Value::String(s) => !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()),
        _ => false,
    }
}

/// The response spelling: total and page-count headers, the next-page
/// header or body member, a total member, the token format.
fn spelling_of(ep: &Endpoint) -> Spelling {
    let mut s = Spelling::default();
    let initial: Vec<&Instance> = ep.instances.iter().collect();
    let mut names: Vec<String> = Vec::new();
    for i in &initial {
        for (n, _) in &i.headers {
            if !names.iter().any(|m| m.eq_ignore_ascii_case(n)) {
                names.push(n.clone());
            }
        }
    }
    let path = |u: &str| -> Option<String> {
        let after = u.split_once("://").map_or(u, |(_, r)| r);
        let p = if u.starts_with('/') {
            u
        } else {
            &after[after.find('/')?..]
        };
        Some(
            p.split('?')
                .next()
                .unwrap_or(p)
                .trim_end_matches('/')
                .to_string(),
        )
    };
    for n in &names {
        let lower = n.to_ascii_lowercase();
        let values: Vec<&str> = initial.iter().filter_map(|i| header(i, n)).collect();
        if values
            .iter()
            .all(|v| is_integer(&Value::String(v.to_string())))
            && lower.contains("total")
        {
            if lower.contains("page") {
                s.pages_header.get_or_insert(n.clone());
            } else {
                s.total_header.get_or_insert(n.clone());
            }
            continue;
        }
        let same_path = |u: &str| {
            path(u).is_some_and(|p| {
                initial
                    .iter()
                    .any(|i| p.ends_with(i.path.trim_end_matches('/')) && !i.path.is_empty())
            })
        };
        if values
            .iter()
            .any(|v| link_rel(v, "next").is_some_and(same_path))
        {
            s.next_header.get_or_insert(n.clone());
            s.link_rel = true;
        } else if values
            .iter()
            .any(|v| (v.starts_with("http") || v.starts_with('/')) && same_path(v))
            && s.next_header.is_none()
        {
            s.next_header = Some(n.clone());
        }
    }
    // Body members: a next token and a total.
    for i in &initial {
        let Some(obj) = i.body.as_object() else {
            continue;
        };
        for (k, v) in obj {
            let lower = k.to_ascii_lowercase();
            if v.is_string()
                && conventions::NEXT_MEMBER_WORDS
                    .iter()
                    .any(|w| lower.contains(w))
            {
                s.next_member.get_or_insert(k.clone());
            }
            if v.is_number() && conventions::TOTAL_MEMBERS.contains(&lower.as_str()) {
                s.total_member.get_or_insert(k.clone());
            }
        }
    }
    // The token format: the app's base64 offset when every handed-out body
    // token decodes to a text with exactly one number.
    let tokens: Vec<String> = initial
        .iter()
        .filter_map(|i| {
            s.next_member
                .as_ref()
                .and_then(|m| i.body.get(m)?.as_str().map(String::from))
        })
        .collect();
    let mut format: Option<TokenFormat> = None;
    for t in &tokens {
        let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(t) else {
            format = None;
            break;
        };
        let Ok(text) = String::from_utf8(bytes) else {
            break;
        };
        let digits: Vec<(usize, usize)> = number_spans(&text);
        if digits.len() != 1 {
            format = None;
            break;
        }
        let (a, b) = digits[0];
        let template = format!("{}{{offset}}{}", &text[..a], &text[b..]);
        let f = TokenFormat::Base64Offset {
            template,
            padded: t.ends_with('='),
        };
        match &format {
            Some(prev) if *prev != f => {
                format = None;
                break;
            }
            _ => format = Some(f),
        }
    }
    let links = || {
        let m = s.next_member.as_deref()?;
        crate::model::page_links::format_of(&initial, m)
    };
    let format = format.or_else(links);
    s.token = Some(format.unwrap_or(TokenFormat::Own));
    s
}

fn number_spans(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            out.push((start, i));
        } else {
            i += 1;
        }
    }
    out
}

/// True when every recorded use of `name` continues an earlier answer: its
/// value is a token that answer handed out, and the request repeats that
/// answer's request in every other parameter.
fn continues(ep: &Endpoint, s: &Spelling, name: &str) -> bool {
    let others = |i: &Instance| -> Vec<(String, Value)> {
        let mut v: Vec<(String, Value)> = i
            .params
            .iter()
            .filter(|(n, _)| n != name)
            .cloned()
            .collect();
        v.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| a.1.to_string().cmp(&b.1.to_string()))
        });
        v
    };
    let mut any = false;
    for (k, i) in ep.instances.iter().enumerate() {
        for (_, v) in i.params.iter().filter(|(n, _)| n == name) {
            any = true;
            let Some(t) = v.as_str() else { return false };
            let ok = ep.instances[..k]
                .iter()
                .any(|j| others(j) == others(i) && handed_out(j, s).iter().any(|h| h == t));
            if !ok {
                return false;
            }
        }
    }
    any
}

/// Candidate meanings of one parameter, most specific first.
fn candidates(
    name: &str,
    values: &[Value],
    ep: &Endpoint,
    handed: bool,
) -> Vec<(Meaning, &'static str)> {
    let universe: Vec<&Value> = every_entity(ep);
    let mut out = Vec::new();
    let texts: Vec<String> = values
        .iter()
        .filter_map(|v| v.as_str().map(String::from))
        .collect();
    let integers = values.iter().all(is_integer);
    let handed = handed && !texts.is_empty();
    // An opaque value an earlier answer handed out is a cursor first; a
    // number (a page number a next link spells) only after the conventions.
    if handed && !integers {
        out.push((Meaning::Cursor, "data"));
    }
    for role in conventions::roles(name) {
        let m = match role {
            Role::PageSize if integers => Meaning::PageSize,
            Role::PageNumber if integers => Meaning::PageNumber,
            Role::Offset if integers => Meaning::Offset,
            Role::End if integers => Meaning::End,
            Role::Cursor => Meaning::Cursor,
            Role::Sort if values.iter().all(|v| sorts_resolve(v, &universe)) => Meaning::Sort,
            Role::Columns => Meaning::Columns,
            Role::OmitFields => Meaning::OmitFields,
            Role::SortDescending if values.iter().all(|v| sorts_resolve(v, &universe)) => {
                Meaning::SortDescending
            }
            Role::Direction if values.iter().all(conventions::is_direction) => Meaning::Direction {
                sort_param: String::new(),
            },
            Role::Fields => Meaning::Fields,
            // The narrower scope first: it is kept where it re-renders
            // every recorded search as well as the deep one does.
            Role::Search => {
                out.push((
                    Meaning::Search {
                        scope: SearchScope::TopLevel,
                    },
                    "convention",
                ));
                Meaning::Search {
                    scope: SearchScope::Deep,
                }
            }
            Role::FilterLanguage
                if values
                    .iter()
                    .all(|v| v.as_str().is_some_and(|t| filter_lang::parse(t).is_some())) =>
            {
                Meaning::FilterLanguage
            }
            _ => continue,
        };
        if !out.iter().any(|(x, _)| *x == m) {
            out.push((m, "convention"));
        }
    }
    if let Some(field) = resolve(name, &universe) {
        // Values that spell their operator (`gt.5`): a convention first.
        if !texts.is_empty()
            && texts.len() == values.len()
            && texts.iter().all(|t| value_operator(t).is_some())
        {
            out.push((
                Meaning::ValueOperators {
                    field: field.clone(),
                },
                "convention",
            ));
        }
        out.push((Meaning::Filter { field, op: Op::Eq }, "data"));
    }
    // A name spelling an operator on a member is that comparison before
    // it is a selector of that member (`category_ne=tech`).
    if let Some((field_name, op)) = conventions::operator_spelling(name) {
        if let Some(field) = resolve(field_name, &universe) {
            out.push((Meaning::Filter { field, op }, "convention"));
        }
    }
    if let Some(field) = selector_field(values, &universe) {
        out.push((Meaning::Selector { field }, "data"));
    }
    if handed && integers {
        out.push((Meaning::Cursor, "data"));
    }
    // The answer's shape last: a name with another meaning is that first.
    if let Some(m) = crate::model::lists::shape::candidate(name, ep) {
        out.push((m, "data"));
    }
    out
}

/// A text member (top level or one down) whose values name what a
/// selector parameter's values select: every observed value is either all
/// (`ALL`) or has a word equal, in any case, to a value the member takes,
/// and some value is not all. The member with the fewest distinct values
/// first (a lifecycle, not a name).
pub(crate) fn selector_field(values: &[Value], universe: &[&Value]) -> Option<FieldPath> {
    use crate::model::lists::eval::{selector_words, ALL_WORDS};
    if values.is_empty() || !values.iter().all(Value::is_string) {
        return None;
    }
    let mut taken: Vec<(FieldPath, Vec<String>)> = Vec::new();
    for e in universe {
        let Some(o) = e.as_object() else { continue };
        let mut visit = |p: FieldPath, v: &Value| {
            let Some(t) = v.as_str() else { return };
            let t = t.to_lowercase();
            match taken.iter_mut().find(|(q, _)| *q == p) {
                Some((_, vs)) if !vs.contains(&t) => vs.push(t),
                Some(_) => {}
                None => taken.push((p, vec![t])),
            }
        };
        for (k, v) in o {
            match v {
                Value::Object(inner) => {
                    for (k2, v2) in inner {
                        visit(
                            FieldPath(vec![
                                crate::model::lists::fields::Step::Member { name: k.clone() },
                                crate::model::lists::fields::Step::Member { name: k2.clone() },
                            ]),
                            v2,
                        );
                    }
                }
                v => visit(FieldPath::member(k), v),
            }
        }
    }
    // A boolean member one down (`status.is_closed`) whose name some value
    // names (`closed`): it picks the true ones, other words the false ones.
    let no_words_or_all = |v: &Value| {
        let words = selector_words(std::slice::from_ref(v));
        words.is_empty() || words.iter().any(|w| ALL_WORDS.contains(&w.as_str()))
    };
    for e in universe {
        let Some(o) = e.as_object() else { continue };
        for (k, v) in o {
            let Value::Object(inner) = v else { continue };
            for (k2, v2) in inner {
                if !v2.is_boolean() {
                    continue;
                }
                let p = FieldPath(vec![
                    crate::model::lists::fields::Step::Member { name: k.clone() },
                    crate::model::lists::fields::Step::Member { name: k2.clone() },
                ]);
                let Some(word) = crate::model::lists::eval::bool_word(&p) else {
                    continue;
                };
                let named = values
                    .iter()
                    .any(|v| selector_words(std::slice::from_ref(v)).contains(&word));
                if named {
                    return Some(p);
                }
            }
        }
    }
    let mut any_selects = false;
    let mut fits: Vec<(FieldPath, usize)> = taken
        .into_iter()
        .filter(|(_, held)| {
            values.iter().all(|v| {
                let words = selector_words(std::slice::from_ref(v));
                no_words_or_all(v) || words.iter().any(|w| held.contains(w))
            })
        })
        .map(|(p, held)| (p, held.len()))
        .collect();
    for v in values {
        any_selects |= !no_words_or_all(v);
    }
    if !any_selects {
        return None;
    }
    fits.sort_by_key(|(_, n)| *n);
    fits.into_iter().next().map(|(p, _)| p)
}

/// The entities an instance is checked against: the World as of its
/// moment when it came after writes, else the initial World.
fn universe_of<'a>(ep: &'a Endpoint, inst: &'a Instance) -> Vec<&'a Value> {
    inst.universe
        .as_ref()
        .unwrap_or(&ep.universe)
        .iter()
        .collect()
}

/// Every entity any checked moment holds (the initial World first), for
/// resolving names and proposing orders.
fn every_entity(ep: &Endpoint) -> Vec<&Value> {
    ep.universe
        .iter()
        .chain(
            ep.instances
                .iter()
                .filter_map(|i| i.universe.as_ref())
                .flatten(),
        )
        .collect()
}

fn sorts_resolve(v: &Value, universe: &[&Value]) -> bool {
    let keys = sort_spellings(std::slice::from_ref(v));
    !keys.is_empty() && keys.iter().all(|(k, _)| resolve(k, universe).is_some())
}

fn identity_value(ep: &Endpoint, item: &Value) -> Value {
    match &ep.identity {
        Some(p) => p.get(item).cloned().unwrap_or(Value::Null),
        None => item.clone(),
    }
}

/// Re-renders one instance and compares it with its recording; an
/// instance the World cannot fill (the app counted more matches than the
/// World holds) that does not reproduce is checked for consistency.
fn check(
    sem: &EndpointSemantics,
    ep: &Endpoint,
    inst: &Instance,
    recorded: &HashMap<String, usize>,
) -> (Verdict, Option<Page>) {
    let (v, page) = check_exact(sem, ep, inst, recorded);
    let (v, page) = match (v, page) {
        (Verdict::Differs(why), Some(page)) => {
            match recorded_total(sem, inst).filter(|n| *n > page.total) {
                Some(n) => {
                    let universe: Vec<&Value> = universe_of(ep, inst);
                    (consistent(sem, ep, inst, &page, &universe, n), Some(page))
                }
                None => (Verdict::Differs(why), Some(page)),
            }
        }
        other => other,
    };
    match v {
        Verdict::Differs(why) if !inst.initial => (Verdict::Unsettled(why), page),
        v => (v, page),
    }
}

fn check_exact(
    sem: &EndpointSemantics,
    ep: &Endpoint,
    inst: &Instance,
    recorded: &HashMap<String, usize>,
) -> (Verdict, Option<Page>) {
    let universe: Vec<&Value> = universe_of(ep, inst);
    let page = match evaluate(sem, &inst.params, &universe, recorded) {
        Ok(p) => p,
        Err(NotUnderstood::Parameter(n)) => {
            return (Verdict::NotUnderstood(format!("parameter {n}")), None)
        }
        Err(NotUnderstood::Value(n)) => {
            return (Verdict::NotUnderstood(format!("value of {n}")), None)
        }
    };
    // The recorded items' identities against the re-rendered ones', borrowed.
    static NULL: Value = Value::Null;
    let same = inst.items.len() == page.indices.len()
        && inst.items.iter().zip(&page.indices).all(|(a, &b)| {
            let b = universe[b];
            match &ep.identity {
                Some(p) => p.get(a).unwrap_or(&NULL) == p.get(b).unwrap_or(&NULL),
                None => a == b,
            }
        });
    if !same {
        return (Verdict::Differs("items".into()), Some(page));
    }
    if let Some(f) = &page.fields {
        for (item, &i) in inst.items.iter().zip(&page.indices) {
            let shown = select(universe[i], Some(f));
            let keys = |v: &Value| {
                let mut k: Vec<String> = v
                    .as_object()
                    .map(|o| o.keys().cloned().collect())
                    .unwrap_or_default();
                k.sort();
                k
            };
            if keys(item) != keys(&shown) {
                return (Verdict::Differs("fields".into()), Some(page));
            }
        }
    }
    let s = &sem.spelling;
    // A next page is owed only to a paging form (the paging kinds a request
    // uses: size, page, offset, cursor, end) some recorded answer of the
    // endpoint linked a next page for (json-server links pages for
    // `_page`, never for `_limit` alone or an `_end` slice).
    let form = |i: &Instance| -> Vec<&'static str> {
        let mut f: Vec<&'static str> = i
            .params
            .iter()
            .filter_map(|(n, _)| sem.meaning(n).map(Meaning::kind))
            .filter(|k| {
                matches!(
                    *k,
                    "page-size" | "page-number" | "offset" | "cursor" | "end"
                )
            })
            .collect();
        f.sort_unstable();
        f.dedup();
        f
    };
    let mine = form(inst);
    let owed = ep
        .instances
        .iter()
        .any(|i| form(i) == mine && next_url(i, &sem.spelling).is_some());
    let more = page.next_offset.is_some() && owed;
    // The World holds a subset of the app's entities, so a recorded next
    // page the World cannot fill is partiality, not a contradiction; a next
    // page the app did not have is.
    if s.next_header.is_some() && more && next_url(inst, s).is_none() {
        return (Verdict::Differs("next-header".into()), Some(page));
    }
    // A bare answer (`lists::shape`) has no envelope to name the next page in.
    let bare = crate::model::lists::shape::is_bare(ep, &inst.body);
    if let Some(m) = s.next_member.as_ref().filter(|_| !bare) {
        let token = inst.body.get(m).and_then(Value::as_str);
        if more && token.is_none() {
            return (Verdict::Differs("next-member".into()), Some(page));
        }
        if let (Some(t), Some(TokenFormat::Base64Offset { template, padded }), Some(o)) =
            (token, &s.token, page.next_offset)
        {
            if app_token(template, *padded, o) != t {
                return (Verdict::Differs("next-token".into()), Some(page));
            }
        }
    }
    (Verdict::Reproduced, Some(page))
}

/// The number of matching entities the app's answer states (its total
/// header or member), when it states one.
fn recorded_total(sem: &EndpointSemantics, inst: &Instance) -> Option<usize> {
    let s = &sem.spelling;
    s.total_header
        .as_ref()
        .and_then(|h| header(inst, h))
        .and_then(|v| v.trim().parse::<usize>().ok())
        .or_else(|| {
            s.total_member
                .as_ref()
                .and_then(|m| inst.body.get(m))
                .and_then(Value::as_u64)
                .map(|n| n as usize)
        })
}

/// The check of an instance the World cannot fill (the app counted
/// `total` matches, the World fewer): see `Verdict::Consistent`.
fn consistent(
    sem: &EndpointSemantics,
    ep: &Endpoint,
    inst: &Instance,
    page: &Page,
    universe: &[&Value],
    total: usize,
) -> Verdict {
    let why = format!(
        "partial World: the app counted {total}, the World holds {}",
        page.total
    );
    let offset = page.requested;
    let expected = page.size.map_or(total.saturating_sub(offset), |z| {
        z.min(total.saturating_sub(offset))
    });
    if inst.items.len() != expected {
        return Verdict::Differs("page-size".into());
    }
    if let (Some(h), Some(z)) = (sem.spelling.pages_header.as_ref(), page.size) {
        if let Some(n) = header(inst, h).and_then(|v| v.trim().parse::<usize>().ok()) {
            if z > 0 && n != total.div_ceil(z) {
                return Verdict::Differs("pages".into());
            }
        }
    }
    let ids: Vec<Value> = universe.iter().map(|e| identity_value(ep, e)).collect();
    // (position in the answer, rank among the World's sorted matches)
    let mut held: Vec<(usize, usize)> = Vec::new();
    for (k, item) in inst.items.iter().enumerate() {
        let id = identity_value(ep, item);
        if id.is_null() {
            continue;
        }
        let Some(u) = ids.iter().position(|x| *x == id) else {
            continue;
        };
        match page.ranked.iter().position(|&r| r == u) {
            Some(rank) => held.push((k, rank)),
            // The World holds it but the semantics would not list it.
            None => return Verdict::Differs("items".into()),
        }
    }
    let Some(&(k0, r0)) = held.first() else {
        return Verdict::Partial(why);
    };
    if held.windows(2).any(|w| w[1].1 <= w[0].1) {
        return Verdict::Differs("order".into());
    }
    let last = held[held.len() - 1].1;
    // The page is contiguous in the app's order: every World match between
    // the first and the last listed one is listed.
    if (r0..=last).any(|r| !held.iter().any(|(_, h)| *h == r)) {
        return Verdict::Differs("items".into());
    }
    // The World knows a subset, so a listed entity ranks no later in it.
    if r0 > offset + k0 {
        return Verdict::Differs("items".into());
    }
    if let Some(f) = &page.fields {
        for &(k, rank) in &held {
            let shown = select(universe[page.ranked[rank]], Some(f));
            if keys_of(&inst.items[k]) != keys_of(&shown) {
                return Verdict::Differs("fields".into());
            }
        }
    }
    Verdict::Consistent(why)
}

fn keys_of(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    k.sort();
    k
}

/// Totals are checked apart, and like next pages: a World that knows
/// fewer entities than the app (a partial recording) may count fewer, never
/// more. (total header, page-count header, total member) hold.
fn totals_hold(sem: &EndpointSemantics, inst: &Instance, page: &Page) -> (bool, bool, bool) {
    let s = &sem.spelling;
    let num = |h: &Option<String>| {
        h.as_ref()
            .and_then(|h| header(inst, h))
            .and_then(|v| v.parse::<usize>().ok())
    };
    let total_ok = num(&s.total_header).is_none_or(|n| page.total <= n);
    let pages = page
        .size
        .map_or(1, |z| if z == 0 { 0 } else { page.total.div_ceil(z) });
    let pages_ok = num(&s.pages_header).is_none_or(|n| pages <= n);
    let member_ok = s
        .total_member
        .as_ref()
        .and_then(|m| inst.body.get(m))
        .and_then(Value::as_u64)
        .is_none_or(|n| page.total <= n as usize);
    (total_ok, pages_ok, member_ok)
}

struct Run {
    verdicts: Vec<(u64, Verdict)>,
    pages: HashMap<u64, Page>,
}

/// At most this many distinct initial instances are re-rendered per
/// hypothesis (a long capture repeats its list requests).
pub(crate) const MAX_CHECKED: usize = 64;

/// The initial instances to re-render: one per distinct request and
/// answer, the first `MAX_CHECKED` of them.
fn checked_instances(ep: &Endpoint) -> Vec<usize> {
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for (k, i) in ep.instances.iter().enumerate() {
        if !i.checkable() || out.len() >= MAX_CHECKED {
            continue;
        }
        let ids: Vec<Value> = i.items.iter().map(|it| identity_value(ep, it)).collect();
        let key = format!(
            "{}|{}",
            Value::from(
                i.params
                    .iter()
                    .map(|(n, v)| Value::Array(vec![Value::from(n.as_str()), v.clone()]))
                    .collect::<Vec<_>>()
            ),
            Value::Array(ids)
        );
        if !seen.contains(&key) {
            seen.push(key);
            out.push(k);
        }
    }
    out
}

fn run(sem: &EndpointSemantics, ep: &Endpoint, checked: &[usize]) -> Run {
    let mut recorded: HashMap<String, usize> = HashMap::new();
    let mut verdicts = Vec::new();
    let mut pages = HashMap::new();
    for inst in checked.iter().map(|&k| &ep.instances[k]) {
        let (v, page) = check(sem, ep, inst, &recorded);
        let offset = page.as_ref().map_or(0, |p| p.offset);
        for t in handed_out(inst, &sem.spelling) {
            recorded.entry(t).or_insert(offset + inst.items.len());
        }
        if let Some(p) = page {
            pages.insert(inst.ordinal, p);
        }
        verdicts.push((inst.ordinal, v));
    }
    Run { verdicts, pages }
}

fn score(r: &Run) -> usize {
    r.verdicts
        .iter()
        .filter(|(_, v)| matches!(v, Verdict::Reproduced | Verdict::Consistent(_)))
        .count()
}

/// Sort keys the default order may be: each member of the universe whose
/// values compare as scalars, ascending and descending.
/// Candidate default orders, in preference order among equally good ones:
/// time-like members (the usual default), then id-like ones, then the
/// state order (first sighting), then every other member: scalars, objects
/// of one scalar member (`{"rendered": …}`) and scalars one level down.
fn order_candidates(ep: &Endpoint) -> Vec<Vec<SortKey>> {
    let mut paths: Vec<FieldPath> = Vec::new();
    let is_scalar = |v: &Value| !v.is_array() && !v.is_object();
    for e in every_entity(ep) {
        let Some(o) = e.as_object() else { continue };
        for (k, v) in o {
            let mut push = |p: FieldPath| {
                if !paths.contains(&p) {
                    paths.push(p);
                }
            };
            match v {
                Value::Object(inner)
                    if inner.len() == 1 && scalar(Some(v)).is_some_and(is_scalar) =>
                {
                    push(FieldPath::member(k))
                }
                Value::Object(inner) if inner.len() == 1 => {}
                Value::Object(inner) => {
                    for (k2, v2) in inner {
                        if is_scalar(v2) {
                            push(FieldPath(vec![
                                crate::model::lists::fields::Step::Member { name: k.clone() },
                                crate::model::lists::fields::Step::Member { name: k2.clone() },
                            ]));
                        }
                    }
                }
                v if is_scalar(v) => push(FieldPath::member(k)),
                _ => {}
            }
        }
    }
    let last = |p: &FieldPath| match p.0.last() {
        Some(crate::model::lists::fields::Step::Member { name }) => name.to_ascii_lowercase(),
        _ => String::new(),
    };
    let rank = |p: &FieldPath| {
        let n = last(p);
        if conventions::TIME_WORDS.iter().any(|w| n.contains(w)) {
            0
        } else if n == "id" || n.ends_with("_id") || n.ends_with("id") {
            1
        } else {
            3
        }
    };
    paths.sort_by_key(|p| rank(p));
    let mut out: Vec<Vec<SortKey>> = Vec::new();
    let mut state_placed = false;
    for p in paths {
        if rank(&p) == 3 && !state_placed {
            out.push(Vec::new());
            state_placed = true;
        }
        for descending in [true, false] {
            out.push(vec![SortKey {
                field: p.clone(),
                descending,
            }]);
        }
    }
    if !state_placed {
        out.push(Vec::new());
    }
    out
}

/// The default page size: the largest answer among initial instances
/// without a page-size parameter whose answer says more remain (a next
/// page, or a first page listing fewer than the total it states).
fn default_page_size(ep: &Endpoint, s: &Spelling, size_params: &[String]) -> Option<usize> {
    let paging = |n: &String| {
        conventions::roles(n)
            .iter()
            .any(|r| matches!(r, Role::PageNumber | Role::Offset | Role::Cursor))
    };
    let stated = |i: &Instance| {
        s.total_header
            .as_ref()
            .and_then(|h| header(i, h))
            .and_then(|v| v.trim().parse::<usize>().ok())
    };
    ep.instances
        .iter()
        .filter(|i| i.checkable() && !i.params.iter().any(|(n, _)| size_params.contains(n)))
        .filter(|i| {
            // A page with a next one (a `null` next member: the last page,
            // which bounds the size only from below).
            next_url(i, s).is_some()
                || s.next_member
                    .as_ref()
                    .is_some_and(|m| i.body.get(m).is_some_and(|v| !v.is_null()))
                || (!i.items.is_empty()
                    && !i.params.iter().any(|(n, _)| paging(n))
                    && stated(i).is_some_and(|t| t > i.items.len()))
        })
        .map(|i| i.items.len())
        .max()
}

/// True when no initial instance without a page-size parameter lists more
/// than `size` entities, or lists fewer than `size` where its stated total
/// says more remained on a first page: the default page size `size` is not
/// contradicted.
pub(crate) fn page_size_fits(ep: &EndpointSemantics, instances: &[Instance], size: usize) -> bool {
    let sizes: Vec<&str> = ep
        .params
        .iter()
        .filter(|p| p.meaning == Meaning::PageSize)
        .map(|p| p.name.as_str())
        .collect();
    instances
        .iter()
        .filter(|i| i.checkable() && !i.params.iter().any(|(n, _)| sizes.contains(&n.as_str())))
        .all(|i| {
            if i.items.len() > size {
                return false;
            }
            let first = !i.params.iter().any(|(n, _)| {
                conventions::roles(n)
                    .iter()
                    .any(|r| matches!(r, Role::PageNumber | Role::Offset | Role::Cursor))
            });
            match recorded_total(ep, i) {
                Some(t) if first => i.items.len() == t.min(size),
                _ => true,
            }
        })
}

/// Infers one endpoint's semantics.
pub(crate) fn infer_endpoint(ep: &Endpoint) -> EndpointSemantics {
    let spelling = spelling_of(ep);
    let mut names: Vec<String> = Vec::new();
    let mut observed: HashMap<String, Vec<Value>> = HashMap::new();
    for i in &ep.instances {
        for (n, v) in &i.params {
            if !names.contains(n) {
                names.push(n.clone());
            }
            let o = observed.entry(n.clone()).or_default();
            if !o.contains(v) {
                o.push(v.clone());
            }
        }
    }
    let options: Vec<Vec<(Meaning, &'static str)>> = names
        .iter()
        .map(|n| candidates(n, &observed[n], ep, continues(ep, &spelling, n)))
        .collect();
    let mut choice: Vec<usize> = vec![0; names.len()];
    // The list view's members: those unselected answers showed.
    let selecting: Vec<&String> = names
        .iter()
        .zip(&options)
        .filter(|(_, o)| matches!(o.first(), Some((Meaning::Fields, _))))
        .map(|(n, _)| n)
        .collect();
    let mut item_fields: Vec<String> = Vec::new();
    for i in ep
        .instances
        .iter()
        .filter(|i| !i.params.iter().any(|(n, _)| selecting.contains(&n)))
    {
        for item in &i.items {
            for k in item
                .as_object()
                .map(|o| o.keys().cloned().collect::<Vec<_>>())
                .unwrap_or_default()
            {
                if !item_fields.contains(&k) {
                    item_fields.push(k);
                }
            }
        }
    }
    let base_ordinal = ep
        .instances
        .iter()
        .find(|i| i.initial && i.params.is_empty())
        // An envelope before a bare answer (`lists::shape`): the base is re-rendered.
        .or_else(|| {
            ep.instances
                .iter()
                .find(|i| i.initial && !crate::model::lists::shape::is_bare(ep, &i.body))
        })
        .or_else(|| ep.instances.iter().find(|i| i.initial))
        .or(ep.instances.first())
        .map(|i| i.ordinal);
    let build =
        |choice: &[usize], order: &[SortKey], collation: Collation, defaults: &[DefaultFilter]| {
            let sort_param = names
                .iter()
                .zip(choice)
                .zip(&options)
                .find_map(|((n, &c), o)| {
                    matches!(o.get(c), Some((Meaning::Sort, _))).then(|| n.clone())
                })
                .unwrap_or_default();
            let params: Vec<ParamMeaning> = names
                .iter()
                .zip(choice)
                .zip(&options)
                .filter_map(|((n, &c), o)| {
                    let (m, basis) = o.get(c)?;
                    let m = match m {
                        Meaning::Direction { .. } => Meaning::Direction {
                            sort_param: sort_param.clone(),
                        },
                        other => other.clone(),
                    };
                    Some(ParamMeaning {
                        name: n.clone(),
                        meaning: m,
                        basis: basis.to_string(),
                        status: "kept".into(),
                        observed: observed[n].clone(),
                        confirmed_by: vec![],
                        contradicted_by: vec![],
                    })
                })
                .collect();
            let size_params: Vec<String> = params
                .iter()
                .filter(|p| p.meaning == Meaning::PageSize)
                .map(|p| p.name.clone())
                .collect();
            EndpointSemantics {
                tool: ep.tool.name.clone(),
                method: ep.tool.method.clone(),
                path_template: ep.tool.path_template.clone(),
                carrier: ep.carrier,
                items_pointer: ep.items_pointer.clone(),
                identity: ep.identity.clone(),
                universe: ep.universe_kind.clone(),
                collation,
                default_order: order.to_vec(),
                default_order_evidence: vec![],
                default_page_size: default_page_size(ep, &spelling, &size_params),
                default_filters: defaults.to_vec(),
                field_name_filters: false,
                lent_operators: Vec::new(),
                params,
                unexplained: names
                    .iter()
                    .zip(&options)
                    .filter(|(_, o)| o.is_empty())
                    .map(|(n, _)| n.clone())
                    .collect(),
                adopted: vec![],
                item_fields: item_fields.clone(),
                base_ordinal,
                // Filled once chosen: no check reads it.
                answers: Vec::new(),
                spelling: spelling.clone(),
                instances: vec![],
            }
        };
    let checked = checked_instances(ep);
    let orders = order_candidates(ep);
    let mut order: Vec<SortKey> = Vec::new();
    let mut collation = Collation::Binary;
    let mut defaults: Vec<DefaultFilter> = Vec::new();
    let mut best = score(&run(
        &build(&choice, &order, collation, &defaults),
        ep,
        &checked,
    ));
    for _round in 0..2 {
        // The first of the best default orders, in preference order, when
        // some instance lists without a sort parameter (else the state order).
        let sorted_by = |c: &[usize]| -> Vec<&String> {
            names
                .iter()
                .zip(c)
                .zip(&options)
                .filter(|((_, &k), o)| matches!(o.get(k), Some((Meaning::Sort, _))))
                .map(|((n, _), _)| n)
                .collect()
        };
        let sorts = sorted_by(&choice);
        let unsorted = ep
            .instances
            .iter()
            .any(|i| i.checkable() && !i.params.iter().any(|(n, _)| sorts.contains(&n)));
        let orders: &[Vec<SortKey>] = if unsorted { &orders } else { &orders[..0] };
        let scored: Vec<usize> = orders
            .iter()
            .map(|o| score(&run(&build(&choice, o, collation, &defaults), ep, &checked)))
            .collect();
        if let Some(top) = scored.iter().copied().max().filter(|t| *t >= best) {
            let at = scored.iter().position(|s| *s == top).unwrap_or(0);
            best = top;
            order = orders[at].clone();
        }
        for c in [Collation::Binary, Collation::CaseInsensitive] {
            let s = score(&run(&build(&choice, &order, c, &defaults), ep, &checked));
            if s > best {
                best = s;
                collation = c;
            }
        }
        for p in 0..names.len() {
            for c in 0..options[p].len() {
                let mut trial = choice.clone();
                trial[p] = c;
                let s = score(&run(
                    &build(&trial, &order, collation, &defaults),
                    ep,
                    &checked,
                ));
                if s > best {
                    best = s;
                    choice = trial;
                }
            }
        }
        // A default value for an equality filter: the value every item of
        // the instances without that parameter shares.
        for (p, n) in names.iter().enumerate() {
            let field = match options[p].get(choice[p]) {
                Some((Meaning::Filter { field, op: Op::Eq }, _))
                | Some((Meaning::Selector { field }, _)) => field,
                _ => continue,
            };
            if defaults.iter().any(|d| d.param == *n) {
                continue;
            }
            let mut values: Vec<&Value> = Vec::new();
            for i in ep
                .instances
                .iter()
                .filter(|i| i.checkable() && !i.params.iter().any(|(m, _)| m == n))
            {
                for item in &i.items {
                    if let Some(v) = field.get(item) {
                        if !values.contains(&v) {
                            values.push(v);
                        }
                    }
                }
            }

            if values.len() != 1 {
                continue;
            }
            let mut trial = defaults.clone();
            trial.push(DefaultFilter {
                param: n.clone(),
                field: field.clone(),
                value: values[0].clone(),
            });
            let s = score(&run(
                &build(&choice, &order, collation, &trial),
                ep,
                &checked,
            ));
            if s > best {
                best = s;
                defaults = trial;
            }
        }
    }
    let mut sem = build(&choice, &order, collation, &defaults);
    let result = run(&sem, ep, &checked);
    if ep.universe_kind == "answers" {
        sem.answers = ep.universe.clone();
    }
    // Per parameter: kept when an instance using it re-rendered and none differed.
    for p in &mut sem.params {
        for (o, v) in &result.verdicts {
            let uses = ep
                .instances
                .iter()
                .find(|i| i.ordinal == *o)
                .is_some_and(|i| i.params.iter().any(|(n, _)| *n == p.name));
            if !uses {
                continue;
            }
            match v {
                Verdict::Reproduced | Verdict::Consistent(_) => p.confirmed_by.push(*o),
                Verdict::Differs(_) => p.contradicted_by.push(*o),
                Verdict::NotUnderstood(_) | Verdict::Partial(_) | Verdict::Unsettled(_) => {}
            }
        }
        if p.confirmed_by.is_empty() || !p.contradicted_by.is_empty() {
            p.status = "dropped".into();
        }
    }
    let sort_names: Vec<String> = sem
        .params
        .iter()
        .filter(|p| p.meaning == Meaning::Sort)
        .map(|p| p.name.clone())
        .collect();
    sem.default_order_evidence = result
        .verdicts
        .iter()
        .filter(|(_, v)| *v == Verdict::Reproduced)
        // A page of fewer than two items constrains no order.
        .filter(|(o, _)| {
            ep.instances
                .iter()
                .find(|i| i.ordinal == *o)
                .is_some_and(|i| {
                    i.items.len() >= 2 && !i.params.iter().any(|(n, _)| sort_names.contains(n))
                })
        })
        .map(|(o, _)| *o)
        .collect();
    // The field-name convention: every kept data filter named as its member.
    let data_filters: Vec<&ParamMeaning> = sem
        .params
        .iter()
        .filter(|p| p.basis == "data" && matches!(p.meaning, Meaning::Filter { .. }))
        .collect();
    sem.field_name_filters = data_filters.iter().any(|p| p.status == "kept")
        && data_filters.iter().all(|p| p.contradicted_by.is_empty());
    // Totals: a spelling any instance contradicts is dropped.
    // An instance the kept meanings contradict (a search that matched more
    // than the app did) is no evidence about how totals are spelled.
    let contradicted = |o: u64| {
        result
            .verdicts
            .iter()
            .any(|(x, v)| *x == o && matches!(v, Verdict::Differs(_)))
    };
    let (mut total_ok, mut pages_ok, mut member_ok) = (true, true, true);
    for inst in ep
        .instances
        .iter()
        .filter(|i| i.checkable() && !contradicted(i.ordinal))
    {
        if let Some(page) = result.pages.get(&inst.ordinal) {
            let (a, b, c) = totals_hold(&sem, inst, page);
            total_ok &= a;
            pages_ok &= b;
            member_ok &= c;
        }
    }
    if !total_ok {
        sem.spelling.total_header = None;
    }
    if !pages_ok {
        sem.spelling.pages_header = None;
    }
    if !member_ok {
        sem.spelling.total_member = None;
    }
    sem.instances = ep
        .instances
        .iter()
        .map(|i| {
            let v = result
                .verdicts
                .iter()
                .find(|(o, _)| *o == i.ordinal)
                .map(|(_, v)| v.clone());
            let (verdict, reason) = match v {
                None if i.initial => ("unchecked".to_string(), None),
                None => ("after-write".to_string(), None),
                Some(Verdict::Reproduced) => ("reproduced".into(), None),
                Some(Verdict::NotUnderstood(r)) => ("not-understood".into(), Some(r)),
                Some(Verdict::Differs(r)) => ("contradicted".into(), Some(r)),
                Some(Verdict::Consistent(r)) => ("consistent".into(), Some(r)),
                Some(Verdict::Partial(r)) => ("partial".into(), Some(r)),
                Some(Verdict::Unsettled(r)) => ("unsettled".into(), Some(r)),
            };
            InstanceCheck {
                ordinal: i.ordinal,
                verdict,
                reason,
            }
        })
        .collect();
    sem
}
