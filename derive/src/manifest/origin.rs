//! Choosing the primary origin, deciding which groups become tools, and
//! why the others are excluded.

use crate::surface::group::{Group, Seg};

/// JSON-like response types: `application/json`, `application/*+json`,
/// `text/plain`, `text/markdown`.
pub(crate) fn is_json_like(essence: &str) -> bool {
    crate::manifest::body::is_json_request_type(essence)
        || essence == "text/plain"
        || essence == "text/markdown"
}

/// The origin with the most JSON-like records; ties go to the origin with
/// more records overall, then to the smallest origin in code-point order.
pub(crate) fn primary_origin(groups: &[Group], json_like_counts: &[u64]) -> Option<String> {
    let mut tally: std::collections::BTreeMap<&str, (u64, u64)> = std::collections::BTreeMap::new();
    for (g, json) in groups.iter().zip(json_like_counts) {
        let entry = tally.entry(g.origin.as_str()).or_default();
        entry.0 += json;
        entry.1 += g.ordinals.len() as u64;
    }
    // BTreeMap iterates in code-point order; `max_by` keeps the last
    // maximum, so compare with reversed origin order to keep the first.
    tally
        .into_iter()
        .rev()
        .max_by(|a, b| a.1.cmp(&b.1))
        .map(|(origin, _)| origin.to_string())
}

/// The environment name: the primary host with its port, `.` and `:`
/// replaced by `-`, lowercase (`grafana-example`, `localhost-3000`).
pub(crate) fn environment_name(origin: &str) -> String {
    let host_port = origin.split_once("://").map_or(origin, |(_, rest)| rest);
    let mut out = String::with_capacity(host_port.len());
    for c in host_port.chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    out
}

/// Whether a primary-origin group is served: its path starts with `/api/`
/// or `/apis/`, or one of its content types is JSON-like.
pub(crate) fn is_kept(group: &Group) -> bool {
    let api_path =
        group.segs.len() > 1 && matches!(&group.segs[0], Seg::Lit(s) if s == "api" || s == "apis");
    api_path || group.mimes.iter().any(|m| is_json_like(m))
}

const ASSET_EXTENSIONS: &[&str] = &[
    "avif",
    "bmp",
    "css",
    "eot",
    "gif",
    "htm",
    "html",
    "ico",
    "jpeg",
    "jpg",
    "js",
    "map",
    "mjs",
    "otf",
    "png",
    "svg",
    "ttf",
    "txt",
    "wasm",
    "webmanifest",
    "webp",
    "woff",
    "woff2",
];

/// `ui-page-or-asset` for HTML, scripts, styles, images, fonts or a path
/// with an asset extension; `non-json` otherwise.
pub(crate) fn exclusion_reason(group: &Group) -> &'static str {
    let ui_type = group.mimes.iter().any(|m| {
        m == "text/html"
            || m == "application/xhtml+xml"
            || m == "text/css"
            || m.contains("javascript")
            || m == "application/wasm"
            || m.starts_with("image/")
            || m.starts_with("font/")
    });
    let last = match group.segs.last() {
        Some(Seg::Lit(s)) => s.as_str(),
        _ => "",
    };
    let asset_ext = last
        .rsplit_once('.')
        .is_some_and(|(_, ext)| ASSET_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str()));
    if ui_type || asset_ext {
        "ui-page-or-asset"
    } else {
        "non-json"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(
            environment_name("http://grafana.example"),
            "grafana-example"
        );
        assert_eq!(environment_name("http://localhost:3000"), "localhost-3000");
        assert_eq!(
            environment_name("http://127.0.0.1:37713"),
            "127-0-0-1-37713"
        );
        assert_eq!(environment_name("http://[::1]:8080"), "1-8080");
    }
}
