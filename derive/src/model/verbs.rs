//! Verb segments after a path resource: `POST …/{id}/-/update`,
//! `POST …/-/insert` — a literal tail (separator segments such as `-`, then
//! one verb word) naming the write a `POST` makes on the item or the
//! collection before it. The verb's role comes from a convention table
//! (`insert` creates, `update` updates, `delete` deletes, `upsert` creates
//! or updates by the key each sent entity names); it is a hypothesis only:
//! the write semantics and the model's replay of the recording confirm it
//! like any other write route.

/// The role a verb word conventionally names.
const VERBS: &[(&str, &str)] = &[
    ("insert", "create"),
    ("create", "create"),
    ("add", "create"),
    ("new", "create"),
    ("upsert", "upsert"),
    ("update", "update"),
    ("edit", "update"),
    ("patch", "update"),
    ("modify", "update"),
    ("delete", "delete"),
    ("remove", "delete"),
    ("destroy", "delete"),
];

/// The role a verb tail names and how many segments it spans: the last
/// segment a verb word of the table, before it only separator segments
/// (no letter or digit, `-`), at most two segments in all. `None` when the
/// segments end in no verb tail.
pub(crate) fn tail_role(segments: &[String]) -> Option<(&'static str, usize)> {
    let last = segments.last()?.to_ascii_lowercase();
    let role = VERBS.iter().find(|(v, _)| *v == last).map(|(_, r)| *r)?;
    let n = segments.len();
    let mut len = 1;
    while len < 2 && n > len && is_separator(&segments[n - len - 1]) {
        len += 1;
    }
    // A bare verb word after a collection is a sub-collection name as often
    // as a verb: only a separated verb counts.
    (len > 1).then_some((role, len))
}

/// A segment with no letter or digit (`-`, `_`, `~`).
fn is_separator(segment: &str) -> bool {
    !segment.is_empty() && !segment.chars().any(char::is_alphanumeric)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segs(p: &str) -> Vec<String> {
        p.split('/')
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect()
    }

    #[test]
    fn verb_tails() {
        assert_eq!(tail_role(&segs("/db/t/-/insert")), Some(("create", 2)));
        assert_eq!(tail_role(&segs("/db/t/4/-/update")), Some(("update", 2)));
        assert_eq!(tail_role(&segs("/db/t/4/-/delete")), Some(("delete", 2)));
        assert_eq!(tail_role(&segs("/db/t/-/upsert")), Some(("upsert", 2)));
        // No separator: `/runs/update` (RPC verbs) and `/users/new` stay as they are.
        assert_eq!(tail_role(&segs("/api/runs/update")), None);
        assert_eq!(tail_role(&segs("/db/t/4")), None);
    }
}
