//! Word-level decisions the opt-in rules share where the spec leaves the
//! term open (documented in docs/environment-manifest.md): stop words,
//! `v1`-style versions, plural literals and their singular form.

/// Route words that name an action or a fixed resource rather than an
/// identifier; no opt-in rule ever templates them.
pub(crate) const STOP_WORDS: &[&str] = &[
    "actions",
    "admin",
    "all",
    "any",
    "api",
    "apis",
    "auth",
    "batch",
    "bulk",
    "config",
    "count",
    "create",
    "current",
    "default",
    "delete",
    "edit",
    "export",
    "find",
    "health",
    "home",
    "id",
    "ids",
    "import",
    "index",
    "info",
    "latest",
    "list",
    "login",
    "logout",
    "me",
    "mine",
    "new",
    "none",
    "null",
    "preferences",
    "private",
    "public",
    "query",
    "refresh",
    "remove",
    "search",
    "self",
    "settings",
    "stats",
    "status",
    "summary",
    "token",
    "uid",
    "undefined",
    "update",
    "v",
];

/// True for a stop word (compared ASCII-case-insensitively).
pub(crate) fn is_stop_word(segment: &str) -> bool {
    let lower = segment.to_ascii_lowercase();
    STOP_WORDS.binary_search(&lower.as_str()).is_ok()
}

/// A `v1`-style version: `v` or `V`, one or more digits, then optionally a
/// lowercase stage word and more digits (`v2`, `v10`, `v1beta1`, `v2alpha`).
pub(crate) fn is_version(segment: &str) -> bool {
    let Some(rest) = segment.strip_prefix(['v', 'V']) else {
        return false;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return false;
    }
    let rest = &rest[digits..];
    let letters = rest.bytes().take_while(u8::is_ascii_lowercase).count();
    let tail = &rest[letters..];
    tail.bytes().all(|b| b.is_ascii_digit()) && (letters > 0 || tail.is_empty())
}

/// The singular of a plural literal, or `None` when the literal is not an
/// English-looking plural (`repos` → `repo`, `categories` → `category`,
/// `boxes` → `box`; `status`, `class`, `analysis` are not plurals).
pub(crate) fn singular(segment: &str) -> Option<String> {
    let s = segment;
    if s.len() < 3
        || !s
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b == b'_' || b == b'-')
    {
        return None;
    }
    if s.ends_with("ss") || s.ends_with("us") || s.ends_with("is") {
        return None;
    }
    if let Some(stem) = s.strip_suffix("ies") {
        return (!stem.is_empty()).then(|| format!("{stem}y"));
    }
    for suffix in ["sses", "xes", "ches", "shes", "zes"] {
        if s.ends_with(suffix) {
            return Some(s[..s.len() - 2].to_string());
        }
    }
    s.strip_suffix('s').map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        let mut sorted = STOP_WORDS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, STOP_WORDS);
        assert!(is_stop_word("search"));
        assert!(!is_stop_word("general"));
    }

    #[test]
    fn versions() {
        for v in ["v1", "v2", "v10", "v1beta1", "v2alpha", "V3"] {
            assert!(is_version(v), "{v}");
        }
        for n in ["v", "version", "v1.2", "vx1", "oauth2", "v1B"] {
            assert!(!is_version(n), "{n}");
        }
    }

    #[test]
    fn singulars() {
        assert_eq!(singular("repos").as_deref(), Some("repo"));
        assert_eq!(singular("categories").as_deref(), Some("category"));
        assert_eq!(singular("boxes").as_deref(), Some("box"));
        assert_eq!(singular("records").as_deref(), Some("record"));
        assert_eq!(singular("plugins").as_deref(), Some("plugin"));
        assert_eq!(singular("status"), None);
        assert_eq!(singular("class"), None);
        assert_eq!(singular("shop"), None);
        assert_eq!(singular("Items"), None);
    }
}
