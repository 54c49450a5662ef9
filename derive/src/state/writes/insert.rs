//! Where created entities go (`insert`: sorted by a field the collection's
//! recorded order reveals, else last) and the state's `write_clock`.

use crate::state::model::{FieldRule, Insert, InsertPosition, SortOrder};
pub(crate) use rea_engine::insert::compare;
use serde_json::{Map, Value};
use std::cmp::Ordering;

/// The direction in which `values` strictly ascend or descend, if they do.
fn direction(values: &[&Value]) -> Option<Ordering> {
    let mut dir = None;
    for pair in values.windows(2) {
        let step = compare(pair[0], pair[1])?;
        if step == Ordering::Equal || dir.is_some_and(|d| d != step) {
            return None;
        }
        dir = Some(step);
    }
    dir
}

/// Picks the insert placement for a create plan. `collections` are the
/// recorded collections of the type, each its entities in state order (the
/// order its lists showed). A field qualifies when every entity of every
/// collection with two or more entities holds it and its values run
/// strictly one way, the same way in each. Fields the create generates in
/// order (`clock`, `sequence`, a sequence `identity`) are preferred, then
/// the other qualifying fields in the created entity's field order.
pub(crate) fn choose_insert(
    collections: &[Vec<&Map<String, Value>>],
    rules: &[FieldRule],
) -> Insert {
    let generated_in_order = |r: &FieldRule| r.rule.generated_in_order();
    let preferred = rules.iter().filter(|r| generated_in_order(r));
    let others = rules
        .iter()
        .filter(|r| !generated_in_order(r) && !r.rule.generated());
    for rule in preferred.chain(others) {
        if let Some(dir) = field_direction(collections, &rule.field) {
            return Insert {
                position: InsertPosition::Sorted,
                field: Some(rule.field.clone()),
                order: Some(if dir == Ordering::Less {
                    SortOrder::Ascending
                } else {
                    SortOrder::Descending
                }),
            };
        }
    }
    Insert {
        position: InsertPosition::Last,
        field: None,
        order: None,
    }
}

fn field_direction(collections: &[Vec<&Map<String, Value>>], field: &str) -> Option<Ordering> {
    let mut dir = None;
    for entities in collections.iter().filter(|c| c.len() >= 2) {
        let values: Option<Vec<&Value>> = entities.iter().map(|e| e.get(field)).collect();
        let d = direction(&values?)?;
        if dir.is_some_and(|x| x != d) {
            return None;
        }
        dir = Some(d);
    }
    dir
}

/// The state's `write_clock`: the end of the last timed record (ms since
/// the epoch), moved to the next whole second (an end exactly on a second
/// still moves on); `None` when no record is timed. Saturating: a recorded
/// `time` of 1e300 ms must not overflow the clock.
pub(crate) fn write_clock(ends: impl IntoIterator<Item = f64>) -> Option<i64> {
    ends.into_iter()
        .fold(None, |m: Option<f64>, e| Some(m.map_or(e, |m| m.max(e))))
        .map(|ms| {
            ((ms / 1000.0).floor() as i64)
                .saturating_add(1)
                .saturating_mul(1000)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::model::{Generated, Rule, SequenceScope, ValueKind};
    use crate::state::writes::created::rule;
    use rea_engine::insert::insert_index;
    use rea_engine::shapes::ClockFormat;
    use serde_json::json;

    fn clock() -> Rule {
        let format = ClockFormat::HttpDate;
        Rule::Clock { format }
    }

    fn objs(values: &[Value]) -> Vec<Map<String, Value>> {
        values
            .iter()
            .map(|v| v.as_object().cloned().unwrap())
            .collect()
    }

    #[test]
    fn insert_follows_recorded_order() {
        // CHECK-15
        let entities = objs(&[
            json!({"id": "b", "created_at": "2024-05-03", "name": "x"}),
            json!({"id": "a", "created_at": "2024-05-02", "name": "z"}),
            json!({"id": "c", "created_at": "2024-05-01", "name": "y"}),
        ]);
        let refs: Vec<&Map<String, Value>> = entities.iter().collect();
        let rules = vec![
            rule(
                "id",
                Rule::Identity(Generated::Token {
                    alphabet: "abc".into(),
                    length: 1,
                }),
            ),
            rule(
                "name",
                Rule::Echo {
                    member: "name".into(),
                },
            ),
            rule("created_at", clock()),
        ];
        let insert = choose_insert(std::slice::from_ref(&refs), &rules);
        assert_eq!(insert.position, "sorted");
        assert_eq!(insert.field.as_deref(), Some("created_at"));
        assert_eq!(insert.order, Some(SortOrder::Descending));
        let existing: Vec<Option<&Value>> = refs.iter().map(|e| e.get("created_at")).collect();
        assert_eq!(
            insert_index(
                &insert,
                existing.iter().copied(),
                Some(&json!("2024-05-04"))
            ),
            0
        );
        assert_eq!(
            insert_index(
                &insert,
                existing.iter().copied(),
                Some(&json!("2024-05-01T12"))
            ),
            2
        );
        // No visible order: last.
        let shuffled = objs(&[json!({"n": 2}), json!({"n": 1}), json!({"n": 3})]);
        let refs: Vec<&Map<String, Value>> = shuffled.iter().collect();
        let insert = choose_insert(
            &[refs],
            &[rule(
                "n",
                Rule::Sequence {
                    scope: SequenceScope::Collection,
                    kind: ValueKind::Number,
                },
            )],
        );
        assert_eq!(insert.position, "last");
        assert_eq!(insert_index(&insert, [Some(&json!(1))], Some(&json!(0))), 1);
        // Echoed fields count when nothing generated is ordered.
        let by_name = objs(&[json!({"name": "a"}), json!({"name": "b"})]);
        let refs: Vec<&Map<String, Value>> = by_name.iter().collect();
        let insert = choose_insert(
            &[refs],
            &[rule(
                "name",
                Rule::Echo {
                    member: "name".into(),
                },
            )],
        );
        assert_eq!(
            (insert.field.as_deref(), insert.order),
            (Some("name"), Some(SortOrder::Ascending))
        );
        // Directions must agree across collections.
        let up = objs(&[json!({"n": 1}), json!({"n": 2})]);
        let down = objs(&[json!({"n": 2}), json!({"n": 1})]);
        let cols = vec![
            up.iter().collect::<Vec<_>>(),
            down.iter().collect::<Vec<_>>(),
        ];
        assert_eq!(choose_insert(&cols, &[rule("n", clock())]).position, "last");
    }

    #[test]
    fn write_clock_rounds_up_to_the_next_second() {
        // CHECK-16: last record ends 12:00:03.200 → 12:00:04.
        let start = 1_714_564_803_000i64; // 2024-05-01T12:00:03Z
        let ms = start as f64;
        assert_eq!(
            write_clock([ms - 5000.0 + 10.0, ms + 200.0]),
            Some(start + 1000)
        );
        assert_eq!(write_clock([ms]), Some(start + 1000));
        assert_eq!(write_clock([ms + 0.4]), Some(start + 1000));
        assert_eq!(write_clock(Vec::<f64>::new()), None);
        assert_eq!(write_clock([1e300]), Some(i64::MAX));
    }
}
