//! Roots related across a format suffix: a list read as `/t.json` and a
//! write to `/t/-/insert` or `/t/5.json` touch the same collection, though
//! their roots (`/t.json`, `/t`) differ in the last segment's suffix. A
//! list instance after such a write is not of the initial World.

use crate::state::timeline::roots_related;

/// A path with the last segment's format suffix (`.json`, `.xml`: a dot,
/// then one to five ASCII letters) left out.
fn without_suffix(path: &str) -> &str {
    let last = path.rsplit('/').next().unwrap_or("");
    match last.rsplit_once('.') {
        Some((stem, ext))
            if !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.bytes().all(|b| b.is_ascii_alphabetic()) =>
        {
            &path[..path.len() - ext.len() - 1]
        }
        _ => path,
    }
}

/// `roots_related`, also across a format suffix on either root.
pub(crate) fn related(a: &str, b: &str) -> bool {
    roots_related(a, b) || roots_related(without_suffix(a), without_suffix(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn across_a_format_suffix() {
        assert!(related("/db/t", "/db/t.json"));
        assert!(related("/db/t.json", "/db/t"));
        assert!(!related("/db/t.json", "/db/u"));
        assert!(!related("/db/t.v2", "/db/u"));
        assert_eq!(without_suffix("/db/t.json"), "/db/t");
        assert_eq!(without_suffix("/db/v1.2"), "/db/v1.2");
    }
}
