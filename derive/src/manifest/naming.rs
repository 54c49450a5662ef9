//! Tool names: `<method>_<literals>[_by_<params>]`, sanitized to
//! `[a-z0-9_]`, at most 60 characters, unique with numeric suffixes.

use crate::template_rules::words::is_version;
use crate::template_rules::TSeg;
use std::collections::BTreeSet;

/// The longest tool name.
pub(crate) const MAX_NAME: usize = 60;

/// Literals never used in names.
const DROPPED: &[&str] = &["api", "apis", "namespaces", "default"];

/// Lowercases and maps every character outside `[a-z0-9_]` to `_`,
/// collapsing runs of `_` and trimming them at both ends.
pub(crate) fn sanitize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let c = c.to_ascii_lowercase();
        let c = if c.is_ascii_lowercase() || c.is_ascii_digit() {
            c
        } else {
            '_'
        };
        if c == '_' && (out.is_empty() || out.ends_with('_')) {
            continue;
        }
        out.push(c);
    }
    while out.ends_with('_') {
        out.pop();
    }
    out
}

/// The base name of a tool, before truncation and uniqueness.
pub(crate) fn base_name(method: &str, segs: &[TSeg], params: &[String]) -> String {
    let mut parts = vec![sanitize(method)];
    for (i, seg) in segs.iter().enumerate() {
        let Some(lit) = seg.literal() else { continue };
        let next_is_param = segs.get(i + 1).is_some_and(|s| s.literal().is_none());
        if lit.is_empty()
            || DROPPED.contains(&lit.to_ascii_lowercase().as_str())
            || is_version(lit)
            || (lit == "uid" && next_is_param)
        {
            continue;
        }
        let first_label = lit.split('.').next().unwrap_or("");
        let clean = sanitize(first_label);
        if !clean.is_empty() {
            parts.push(clean);
        }
    }
    let mut name = parts.join("_");
    if !params.is_empty() {
        name.push_str("_by_");
        name.push_str(&params.join("_and_"));
    }
    sanitize(&name)
}

fn truncate(name: &str, max: usize) -> String {
    let mut out: String = name.chars().take(max).collect();
    while out.ends_with('_') {
        out.pop();
    }
    out
}

/// Assigns final names in tool order: truncated to [`MAX_NAME`], a repeat
/// gets `_2`, `_3`, ... (the base shortened so the suffix fits).
pub(crate) fn unique_names(bases: &[String]) -> Vec<String> {
    let mut used: BTreeSet<String> = BTreeSet::new();
    let mut out = Vec::with_capacity(bases.len());
    for base in bases {
        let base = if base.is_empty() {
            "tool".to_string()
        } else {
            base.clone()
        };
        let mut name = truncate(&base, MAX_NAME);
        let mut n = 2usize;
        while used.contains(&name) {
            let suffix = format!("_{n}");
            name = format!("{}{suffix}", truncate(&base, MAX_NAME - suffix.len()));
            n += 1;
        }
        used.insert(name.clone());
        out.push(name);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn lit(s: &str) -> TSeg {
        TSeg::Lit(s.to_string())
    }
    fn param(name: &str) -> TSeg {
        TSeg::Param {
            name: name.to_string(),
            rule: "opaque-token",
            observed: BTreeSet::new(),
        }
    }

    #[test]
    fn spec_names() {
        let segs = [lit("api"), lit("dashboards"), lit("uid"), param("uid")];
        assert_eq!(
            base_name("GET", &segs, &["uid".into()]),
            "get_dashboards_by_uid"
        );
        let segs = [
            lit("api"),
            lit("plugins"),
            param("plugin_id"),
            lit("settings"),
        ];
        assert_eq!(
            base_name("GET", &segs, &["plugin_id".into()]),
            "get_plugins_settings_by_plugin_id"
        );
        let segs = [lit("api"), lit("v1"), lit("settings.json")];
        assert_eq!(base_name("GET", &segs, &[]), "get_settings");
        let segs = [
            lit("apis"),
            lit("namespaces"),
            lit("default"),
            lit("Caf\u{e9}-Items"),
        ];
        assert_eq!(base_name("GET", &segs, &[]), "get_caf_items");
    }

    #[test]
    fn uniqueness_and_length() {
        let long = "get_".to_string() + &"x".repeat(71);
        let names = unique_names(&["get_items".into(), "get_items".into(), long.clone(), long]);
        assert_eq!(names[0], "get_items");
        assert_eq!(names[1], "get_items_2");
        assert_eq!(names[2].len(), 60);
        assert_eq!(names[3].len(), 60);
        assert!(names[3].ends_with("_2"));
    }
}
