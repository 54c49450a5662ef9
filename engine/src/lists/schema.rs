//! The arguments a list tool offers over MCP: each kept parameter with its
//! type and a description of what it does, and — when the app filters on
//! member names — one equality filter per member the collection holds.

use crate::lists::semantics::{Carrier, EndpointSemantics, Meaning, Op, SearchScope};
use crate::lists::serve::endpoint;
use crate::Engine;
use serde_json::{json, Map, Value};

fn op_text(op: Op) -> &'static str {
    match op {
        Op::Eq => "equals",
        Op::Ne => "differs from",
        Op::Gt => "is greater than",
        Op::Gte => "is at least",
        Op::Lt => "is less than",
        Op::Lte => "is at most",
        Op::Like => "matches, in any case, the regular expression in",
    }
}

fn describe(sem: &EndpointSemantics, m: &Meaning, sortable: &[String]) -> Value {
    let next = sem
        .spelling
        .next_member
        .as_deref()
        .map(|m| format!("the `{m}` member"))
        .or_else(|| {
            sem.spelling
                .next_header
                .as_deref()
                .map(|h| format!("the `{h}` header"))
        })
        .unwrap_or_else(|| "the previous answer".into());
    match m {
        Meaning::PageSize => {
            json!({"type": ["integer", "string"], "description": "at most this many items per page"})
        }
        Meaning::PageNumber => {
            json!({"type": ["integer", "string"], "description": "the page to answer, from 1, of page-size pages"})
        }
        Meaning::Offset => {
            json!({"type": ["integer", "string"], "description": "skip this many matching items"})
        }
        Meaning::End => {
            json!({"type": ["integer", "string"], "description": "answer the matching items before this position (with the offset: a slice)"})
        }
        Meaning::Cursor => {
            json!({"type": "string", "description": format!("continue a listing: the token {next} of the previous page carried")})
        }
        Meaning::Sort => json!({
            "type": ["string", "array"],
            "description": format!(
                "sort keys, first decides: a member name, `-name` or `name DESC` for descending, several comma-separated; members: {}",
                sortable.join(", ")
            ),
        }),
        Meaning::Direction { sort_param } => json!({
            "type": "string",
            "enum": ["asc", "desc"],
            "description": format!("the direction of the `{sort_param}` keys"),
        }),
        Meaning::Filter { field, op } => json!({
            "type": ["string", "number", "boolean", "array"],
            "description": format!(
                "keep items whose `{}` {} this value; a comma list (or an array) means any of them",
                field.text(),
                op_text(*op)
            ),
        }),
        Meaning::Fields => {
            json!({"type": "string", "description": "a comma list of the members each item shows"})
        }
        Meaning::Search { scope } => json!({
            "type": "string",
            "description": match scope {
                SearchScope::Deep => "keep items where some text, at any depth, contains this (any case)",
                SearchScope::TopLevel => "keep items where one of the item's own text members (not nested ones) contains this (any case)",
            },
        }),
        Meaning::ValueOperators { field } => json!({
            "type": "string",
            "description": format!(
                "keep items whose `{}` compares with a value by the operator written before it: `eq.x`, `neq.x`, `gt.x`, `gte.x`, `lt.x`, `lte.x`, `in.(a,b)`; `not.` before any negates",
                field.text()
            ),
        }),
        Meaning::Selector { field } => json!({
            "type": "string",
            "description": format!(
                "keep items whose `{}` is one of the words of this value (any case, e.g. `deleted_only`); `all` keeps every item",
                field.text()
            ),
        }),
        Meaning::Columns => json!({
            "type": ["string", "array"],
            "description": "a member each item shows (repeat or comma-separate for several); the identity is always shown",
        }),
        Meaning::OmitFields => json!({
            "type": ["string", "array"],
            "description": "a member the items leave out (repeat or comma-separate for several)",
        }),
        Meaning::SortDescending => json!({
            "type": "string",
            "description": "a member to sort by, descending (comma list for several)",
        }),
        Meaning::BareItems { values } => json!({
            "type": "string",
            "description": format!(
                "the answer's shape: `{}` answers the items alone (a bare array), any other value the usual envelope",
                values.join("`, `")
            ),
        }),
        Meaning::FilterLanguage => json!({
            "type": "string",
            "description": "a filter expression: `member = 'x'`, `!=`, `<`, `<=`, `>`, `>=`, `LIKE '%x%'`, clauses joined by AND; `tags.k` or `metrics.m` reach key/value lists",
        }),
    }
}

/// The list arguments of a tool (name → JSON Schema), and whether they go
/// in the request body (a search `POST`) rather than the query.
/// The inferred semantics' arguments first; then, for a list view read
/// from the query, the engine's conventions (`lists::conventions`), which
/// HTTP serves where the inferred semantics do not understand a query.
pub fn arguments(engine: &Engine, tool: &str) -> (Map<String, Value>, bool) {
    let mut out = Map::new();
    let inferred = endpoint(engine, tool);
    if let Some(sem) = inferred {
        add(engine, sem, tool, &mut out);
    }
    let in_body = inferred.is_some_and(|s| s.carrier == Carrier::Body);
    if !in_body {
        if let Some(sem) = crate::lists::conventions::of_tool(engine, tool) {
            add(engine, &sem, tool, &mut out);
        }
    }
    (out, in_body)
}

/// Adds the arguments of `sem` not already in `out`.
fn add(engine: &Engine, sem: &EndpointSemantics, tool: &str, out: &mut Map<String, Value>) {
    let members: Vec<String> = match sem.universe.as_str() {
        "state" => engine
            .state
            .types
            .iter()
            .find(|t| t.list_tools.iter().any(|l| l == tool))
            .map(|t| t.fields.clone())
            .unwrap_or_default(),
        _ => {
            let mut names: Vec<String> = Vec::new();
            for item in &sem.answers {
                for (k, v) in item.as_object().into_iter().flatten() {
                    if !v.is_object() && !v.is_array() && !names.contains(k) {
                        names.push(k.clone());
                    }
                }
            }
            names
        }
    };
    // Kept meanings, and the library conventions HTTP serves too.
    for p in sem
        .params
        .iter()
        .filter(|p| p.status == "kept" || p.status == "convention")
    {
        let mut schema = describe(sem, &p.meaning, &members);
        if p.status == "convention" {
            if let Some(d) = schema["description"].as_str() {
                schema["description"] = json!(format!(
                    "{d} (a common convention the recording never used)"
                ));
            }
        }
        // A sort key whose direction is a parameter of its own is one
        // member name: the sortable members are its enum.
        let directed = sem.params.iter().any(|d| {
            d.status == "kept"
                && matches!(&d.meaning, Meaning::Direction { sort_param } if *sort_param == p.name)
        });
        if p.meaning == Meaning::Sort && directed && !members.is_empty() {
            schema["type"] = json!("string");
            schema["enum"] = json!(members);
        }
        if !out.contains_key(&p.name) {
            out.insert(p.name.clone(), schema);
        }
    }
    if sem.field_name_filters && sem.carrier == Carrier::Query {
        for m in &members {
            if !out.contains_key(m) {
                out.insert(
                    m.clone(),
                    json!({
                        "type": ["string", "number", "boolean"],
                        "description": format!("keep items whose `{m}` equals this value; a comma list means any of them"),
                    }),
                );
            }
        }
    }
    // A lent comparison family (`views_gte` kept: `likes_lte`, `body_like`),
    // on every member, as HTTP understands it.
    if sem.carrier == Carrier::Query {
        for l in &sem.lent_operators {
            for m in &members {
                let name = if l.prefix {
                    format!("{}{m}", l.affix)
                } else {
                    format!("{m}{}", l.affix)
                };
                if !out.contains_key(&name) {
                    out.insert(
                        name,
                        json!({
                            "type": ["string", "number", "boolean", "array"],
                            "description": format!(
                                "keep items whose `{m}` {} this value (the spelling of `{}`, lent to every member)",
                                op_text(l.op),
                                l.from
                            ),
                        }),
                    );
                }
            }
        }
    }
}
