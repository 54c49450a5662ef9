//! Key arithmetic of the tree: a key spans segments and keeps its dots.

use super::{extension, key_of, last_segment, parent_of};

fn segs(p: &str) -> Vec<String> {
    p.split('/')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn a_key_is_the_rest_of_the_path_unless_a_tail_is_in_it() {
    let prefix = segs("/api/contents");
    let tails = vec!["checkpoints".to_string()];
    assert_eq!(
        key_of(
            &prefix,
            &tails,
            &segs("/api/contents/data/raw/batch-01.json")
        )
        .as_deref(),
        Some("data/raw/batch-01.json")
    );
    assert_eq!(
        key_of(&prefix, &tails, &segs("/api/contents")).as_deref(),
        Some("")
    );
    assert_eq!(
        key_of(&prefix, &tails, &segs("/api/contents/a.txt/checkpoints")),
        None
    );
    assert_eq!(key_of(&prefix, &tails, &segs("/api/status")), None);
}

#[test]
fn parents_names_and_extensions() {
    assert_eq!(parent_of("notes/todo.txt"), Some("notes"));
    assert_eq!(parent_of("README.md"), Some(""));
    assert_eq!(parent_of(""), None);
    assert_eq!(last_segment("data/raw/notes.txt"), "notes.txt");
    assert_eq!(extension("data/raw/batch-01.json"), Some(".json"));
    assert_eq!(extension("notes/Untitled Folder"), None);
    assert_eq!(extension("notes/.hidden"), None);
}
