//! Where a parameter's field lives in an entity (a member, a dotted or
//! nested member, or the `value` of a `{key, value}` element of an array),
//! and how two field values compare (collation, numbers written as text).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::cmp::Ordering;

/// One step from an entity to a field value.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "kebab-case")]
pub enum Step {
    /// The object member of that name.
    Member { name: String },
    /// The `value` of the element of an array of `{key, value}` objects whose `key` is `key`.
    KeyValue { key: String },
}

/// A path of steps from an entity to one value.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FieldPath(pub Vec<Step>);

impl FieldPath {
    pub fn member(name: &str) -> FieldPath {
        FieldPath(vec![Step::Member { name: name.into() }])
    }

    /// The path as text: members joined by `.`, key-value steps as `[key=k]`.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for s in &self.0 {
            match s {
                Step::Member { name } => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(name);
                }
                Step::KeyValue { key } => out.push_str(&format!("[key={key}]")),
            }
        }
        out
    }

    /// The value this path reaches in `entity`, if any.
    pub fn get<'a>(&self, entity: &'a Value) -> Option<&'a Value> {
        let mut cur = entity;
        for s in &self.0 {
            cur = match s {
                Step::Member { name } => cur.get(name)?,
                Step::KeyValue { key } => cur
                    .as_array()?
                    .iter()
                    .find(|e| e.get("key").and_then(Value::as_str) == Some(key))?
                    .get("value")?,
            };
        }
        Some(cur)
    }
}

/// True when `v` is an array of `{key, value}` objects (and not empty).
fn is_key_value_array(v: &Value) -> bool {
    v.as_array().is_some_and(|a| {
        !a.is_empty()
            && a.iter()
                .all(|e| e.get("key").is_some_and(Value::is_string) && e.get("value").is_some())
    })
}

/// Every member path of depth one or two (objects only) in `entity`.
fn member_paths(entity: &Value) -> Vec<(Vec<String>, &Value)> {
    let mut out = Vec::new();
    if let Some(obj) = entity.as_object() {
        for (k, v) in obj {
            out.push((vec![k.clone()], v));
            if let Some(inner) = v.as_object() {
                for (k2, v2) in inner {
                    out.push((vec![k.clone(), k2.clone()], v2));
                }
            }
        }
    }
    out
}

/// Resolves a parameter or filter name to a path in the entities, trying in
/// order: the member itself; dotted members (`a.b`); a member of that name
/// one level down (unique); `array.key` into a `{key, value}` array of that
/// name at depth one or two; the same after dropping a leading qualifier
/// segment (`attributes.user_id`); the singular (`..._ids` → `..._id`, `…s`).
/// The path must reach a value in at least one entity.
pub fn resolve(name: &str, entities: &[&Value]) -> Option<FieldPath> {
    let reaches = |p: &FieldPath| entities.iter().any(|e| p.get(e).is_some());
    let direct = FieldPath::member(name);
    if reaches(&direct) {
        return Some(direct);
    }
    let parts: Vec<&str> = name.split('.').collect();
    if parts.len() > 1 {
        let dotted = FieldPath(
            parts
                .iter()
                .map(|p| Step::Member {
                    name: p.to_string(),
                })
                .collect(),
        );
        if reaches(&dotted) {
            return Some(dotted);
        }
        // `array.key` into a key/value array found at depth one or two.
        let (array, key) = (parts[0], parts[1..].join("."));
        let mut found: Option<FieldPath> = None;
        for e in entities {
            for (path, v) in member_paths(e) {
                if path.last().map(String::as_str) == Some(array) && is_key_value_array(v) {
                    let mut steps: Vec<Step> = path
                        .iter()
                        .map(|n| Step::Member { name: n.clone() })
                        .collect();
                    steps.push(Step::KeyValue { key: key.clone() });
                    found.get_or_insert(FieldPath(steps));
                }
            }
        }
        if let Some(p) = found {
            return Some(p);
        }
        if let Some(p) = resolve(&parts[1..].join("."), entities) {
            return Some(p);
        }
    }
    // One level down, when exactly one such path exists.
    let mut below: Vec<Vec<String>> = Vec::new();
    for e in entities {
        for (path, _) in member_paths(e) {
            if path.len() == 2 && path[1] == name && !below.contains(&path) {
                below.push(path);
            }
        }
    }
    if below.len() == 1 {
        return Some(FieldPath(
            below[0]
                .iter()
                .map(|n| Step::Member { name: n.clone() })
                .collect(),
        ));
    }
    if let Some(stem) = name
        .strip_suffix("_ids")
        .or_else(|| name.strip_suffix("Ids"))
    {
        let singular = if name.ends_with("_ids") {
            format!("{stem}_id")
        } else {
            format!("{stem}Id")
        };
        return resolve(&singular, entities);
    }
    // The id of a reference object named by the stem: `project_id` →
    // `project.id` (Rails-style nested `{"id": …, "name": …}` references).
    if let Some(stem) = name
        .strip_suffix("_id")
        .or_else(|| name.strip_suffix("Id"))
        .filter(|s| !s.is_empty())
    {
        let nested = FieldPath(vec![
            Step::Member {
                name: stem.to_string(),
            },
            Step::Member { name: "id".into() },
        ]);
        if reaches(&nested) {
            return Some(nested);
        }
    }
    None
}

/// How text values compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Collation {
    Binary,
    CaseInsensitive,
}

/// The comparable form of a field value: an object with one scalar member
/// (`{"rendered": "…"}`) stands for that member.
pub fn scalar(v: Option<&Value>) -> Option<&Value> {
    match v {
        Some(Value::Object(o)) => o.values().find(|x| !x.is_object() && !x.is_array()),
        other => other,
    }
}

fn rank(v: Option<&Value>) -> u8 {
    match v {
        None | Some(Value::Null) => 0,
        Some(Value::Bool(_)) => 1,
        Some(Value::Number(_)) => 2,
        Some(Value::String(_)) => 3,
        Some(Value::Array(_)) => 4,
        Some(Value::Object(_)) => 5,
    }
}

/// A total order on field values: absent/null, booleans, numbers, strings
/// (by `collation`), then arrays and objects by their JSON text.
pub fn compare(a: Option<&Value>, b: Option<&Value>, collation: Collation) -> Ordering {
    let (a, b) = (scalar(a), scalar(b));
    match (a, b) {
        (Some(Value::Bool(x)), Some(Value::Bool(y))) => x.cmp(y),
        (Some(Value::Number(x)), Some(Value::Number(y))) => x
            .as_f64()
            .unwrap_or(0.0)
            .partial_cmp(&y.as_f64().unwrap_or(0.0))
            .unwrap_or(Ordering::Equal),
        (Some(Value::String(x)), Some(Value::String(y))) => match collation {
            Collation::Binary => x.cmp(y),
            Collation::CaseInsensitive => x
                .to_lowercase()
                .cmp(&y.to_lowercase())
                .then_with(|| x.cmp(y)),
        },
        (Some(x), Some(y)) if rank(Some(x)) == rank(Some(y)) => x.to_string().cmp(&y.to_string()),
        _ => rank(a).cmp(&rank(b)),
    }
}

/// A request value read as the type of a field value it is compared with.
pub fn coerce(text: &Value, like: Option<&Value>) -> Value {
    match (text, scalar(like)) {
        (Value::String(s), Some(Value::Number(_))) => s
            .trim()
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number)
            .unwrap_or_else(|| text.clone()),
        (Value::String(s), Some(Value::Bool(_))) => match s.as_str() {
            "true" | "1" => Value::Bool(true),
            "false" | "0" => Value::Bool(false),
            _ => text.clone(),
        },
        (Value::Number(n), Some(Value::String(_))) => Value::String(n.to_string()),
        _ => text.clone(),
    }
}

/// True when a field value equals a request value: scalars after coercion,
/// an array when one of its elements (or their `id`) equals it.
pub fn equals(field: Option<&Value>, wanted: &Value) -> bool {
    match field {
        Some(Value::Array(items)) => items.iter().any(|i| {
            equals(Some(i), wanted) || i.get("id").is_some_and(|id| equals(Some(id), wanted))
        }),
        Some(Value::Null) | None => wanted.as_str() == Some("null") || wanted.is_null(),
        Some(v) => {
            let v = scalar(Some(v)).unwrap_or(v);
            let w = coerce(wanted, Some(v));
            match (v, &w) {
                (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
                _ => *v == w,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn resolves_members_key_values_and_qualifiers() {
        let run = json!({"info": {"user_id": "dara", "start_time": 5},
                         "data": {"metrics": [{"key": "rmse", "value": 40.0}],
                                  "tags": [{"key": "region", "value": "emea"}]}});
        let es = [&run];
        let p = resolve("metrics.rmse", &es).unwrap();
        assert_eq!(p.get(&run), Some(&json!(40.0)));
        assert_eq!(p.text(), "data.metrics[key=rmse]");
        assert_eq!(
            resolve("attributes.user_id", &es).unwrap().get(&run),
            Some(&json!("dara"))
        );
        assert_eq!(
            resolve("tags.region", &es).unwrap().get(&run),
            Some(&json!("emea"))
        );
        assert!(resolve("nothing", &es).is_none());
        let exp = json!({"experiment_id": "3"});
        assert_eq!(
            resolve("experiment_ids", &[&exp]).unwrap(),
            FieldPath::member("experiment_id")
        );
    }

    #[test]
    fn compares_and_matches() {
        let t = |s: &str| json!({"rendered": s});
        assert_eq!(
            compare(
                Some(&t("cold brew")),
                Some(&t("Colombia")),
                Collation::CaseInsensitive
            ),
            Ordering::Less
        );
        assert_eq!(
            compare(
                Some(&t("cold brew")),
                Some(&t("Colombia")),
                Collation::Binary
            ),
            Ordering::Greater
        );
        assert!(equals(Some(&json!([3, 12])), &json!("12")));
        assert!(equals(Some(&json!(false)), &json!("false")));
        assert!(equals(Some(&json!(9.5)), &json!("9.50")));
        assert!(!equals(Some(&json!("a")), &json!("b")));
    }
}
