//! A filter language of the kind search endpoints take in one string
//! (`name = 'x'`, `name LIKE '%x%'`, `tags.k = 'v'`, `metrics.m > 0.8`,
//! clauses joined by `AND`): parsing and evaluation over an entity.

use crate::lists::fields::{compare, equals, resolve, Collation, FieldPath};
use serde_json::Value;
use std::cmp::Ordering;

/// One `subject op value` clause.
#[derive(Debug, Clone, PartialEq)]
pub struct Clause {
    pub subject: String,
    pub op: String,
    pub value: Value,
}

fn tokens(text: &str) -> Option<Vec<String>> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '\'' || c == '"' || c == '`' {
            let mut j = i + 1;
            let mut s = String::new();
            while j < chars.len() && chars[j] != c {
                s.push(chars[j]);
                j += 1;
            }
            if j >= chars.len() {
                return None;
            }
            // Quoted values keep their quote as a marker; backquoted names do not.
            out.push(if c == '`' { s } else { format!("'{s}") });
            i = j + 1;
        } else if "=<>!".contains(c) {
            let mut s = c.to_string();
            if i + 1 < chars.len() && chars[i + 1] == '=' {
                s.push('=');
                i += 1;
            }
            out.push(s);
            i += 1;
        } else {
            let mut s = String::new();
            while i < chars.len() && !chars[i].is_whitespace() && !"=<>!'\"`".contains(chars[i]) {
                s.push(chars[i]);
                i += 1;
            }
            out.push(s);
        }
    }
    Some(out)
}

/// Parses clauses joined by `AND` (any case). `None` when the text is not
/// of that form (an `OR`, a bare word, an unknown operator).
pub fn parse(text: &str) -> Option<Vec<Clause>> {
    let toks = tokens(text)?;
    if toks.is_empty() {
        return Some(Vec::new());
    }
    let mut out = Vec::new();
    let mut i = 0;
    loop {
        let subject = toks.get(i)?.clone();
        if subject.starts_with('\'') {
            return None;
        }
        let op = toks.get(i + 1)?.to_ascii_uppercase();
        if !["=", "!=", "<", "<=", ">", ">=", "LIKE", "ILIKE"].contains(&op.as_str()) {
            return None;
        }
        let raw = toks.get(i + 2)?;
        let value = match raw.strip_prefix('\'') {
            Some(s) => Value::String(s.to_string()),
            None => serde_json::from_str::<Value>(raw)
                .ok()
                .filter(Value::is_number)?,
        };
        out.push(Clause { subject, op, value });
        i += 3;
        match toks.get(i) {
            None => return Some(out),
            Some(t) if t.eq_ignore_ascii_case("and") => i += 1,
            Some(_) => return None,
        }
    }
}

/// SQL `LIKE`: `%` any run, `_` one character.
pub fn like(text: &str, pattern: &str, insensitive: bool) -> bool {
    let (t, p): (Vec<char>, Vec<char>) = if insensitive {
        (
            text.to_lowercase().chars().collect(),
            pattern.to_lowercase().chars().collect(),
        )
    } else {
        (text.chars().collect(), pattern.chars().collect())
    };
    // Iterative wildcard match with backtracking on the last `%`.
    let (mut ti, mut pi) = (0usize, 0usize);
    let (mut star, mut mark) = (None::<usize>, 0usize);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '_' || p[pi] == t[ti]) {
            ti += 1;
            pi += 1;
        } else if pi < p.len() && p[pi] == '%' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '%' {
        pi += 1;
    }
    pi == p.len()
}

/// The clause's subject resolved against the universe.
pub fn subject_path(clause: &Clause, universe: &[&Value]) -> Option<FieldPath> {
    resolve(&clause.subject, universe)
}

/// True when the entity satisfies the clause at `path` (absent values never do).
pub fn holds(clause: &Clause, path: &FieldPath, entity: &Value, collation: Collation) -> bool {
    let Some(v) = path.get(entity) else {
        return false;
    };
    match clause.op.as_str() {
        "=" => equals(Some(v), &clause.value),
        "!=" => !equals(Some(v), &clause.value),
        "LIKE" | "ILIKE" => match (v.as_str(), clause.value.as_str()) {
            (Some(t), Some(p)) => like(t, p, clause.op == "ILIKE"),
            _ => false,
        },
        op => {
            let w = crate::lists::fields::coerce(&clause.value, Some(v));
            let o = compare(Some(v), Some(&w), collation);
            match op {
                "<" => o == Ordering::Less,
                "<=" => o != Ordering::Greater,
                ">" => o == Ordering::Greater,
                ">=" => o != Ordering::Less,
                _ => false,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_clauses() {
        let c = parse("metrics.rmse < 50 and tags.region = 'emea'").unwrap();
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].op, "<");
        assert_eq!(c[0].value, json!(50));
        assert_eq!(c[1].value, json!("emea"));
        assert_eq!(parse("name LIKE '%detector%'").unwrap()[0].op, "LIKE");
        assert!(parse("tags.team = 'supply' or tags.team = 'vision'").is_none());
        assert!(parse("name =").is_none());
    }

    #[test]
    fn like_patterns() {
        assert!(like("fraud-detector", "%detector%", false));
        assert!(like("churn-model", "churn%", false));
        assert!(!like("Churn", "churn%", false));
        assert!(like("Churn", "churn%", true));
        assert!(like("ab", "a_", false));
        assert!(!like("abc", "a_", false));
    }
}
