//! URL text the way the harness reads it (Python's `urllib.parse`):
//! splitting, percent-decoding and -encoding, query pairs, and the route
//! template that says whether a request's route was seen in TRAIN.

use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

/// `quote(s, safe="")`: everything but letters, digits and `_.-~`.
const QUOTE_NOTHING: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'_')
    .remove(b'.')
    .remove(b'-')
    .remove(b'~');
/// `quote_plus(s, safe=",*:")` (then a space becomes `+`).
const QUOTE_QUERY: &AsciiSet = &QUOTE_NOTHING.remove(b',').remove(b'*').remove(b':');

/// Percent-decoding, invalid UTF-8 replaced.
pub(crate) fn unquote(s: &str) -> String {
    percent_decode_str(s).decode_utf8_lossy().into_owned()
}

/// Percent-decoding after `+` → space (form and query values).
pub(crate) fn unquote_plus(s: &str) -> String {
    unquote(&s.replace('+', " "))
}

/// `quote(s, safe="")`.
pub(crate) fn quote(s: &str) -> String {
    utf8_percent_encode(s, QUOTE_NOTHING).to_string()
}

fn quote_plus(s: &str, set: &'static AsciiSet) -> String {
    s.split(' ')
        .map(|part| utf8_percent_encode(part, set).to_string())
        .collect::<Vec<_>>()
        .join("+")
}

/// `urlencode(pairs, safe=",*:")`.
pub(crate) fn urlencode(pairs: &[(String, String)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| {
            format!(
                "{}={}",
                quote_plus(k, QUOTE_QUERY),
                quote_plus(v, QUOTE_QUERY)
            )
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// `urlencode(pairs)` with the default safe set (HAR `postData.params`).
pub(crate) fn urlencode_form(pairs: &[(String, String)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| {
            format!(
                "{}={}",
                quote_plus(k, QUOTE_NOTHING),
                quote_plus(v, QUOTE_NOTHING)
            )
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// `parse_qsl(query, keep_blank_values=True)`.
pub(crate) fn parse_qsl(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (unquote_plus(k), unquote_plus(v)),
            None => (unquote_plus(p), String::new()),
        })
        .collect()
}

/// `urlsplit(url)` → (path, query), the fragment dropped.
pub(crate) fn split_url(url: &str) -> (String, String) {
    let no_fragment = url.split('#').next().unwrap_or("");
    let rest = match no_fragment.find("://") {
        Some(i)
            if no_fragment[..i]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)) =>
        {
            let after = &no_fragment[i + 3..];
            match after.find(['/', '?']) {
                Some(j) => &after[j..],
                None => "",
            }
        }
        _ => no_fragment,
    };
    let (path, query) = match rest.split_once('?') {
        Some((p, q)) => (p, q),
        None => (rest, ""),
    };
    (path.to_string(), query.to_string())
}

/// Path+query of a URL or of an already relative reference.
pub(crate) fn strip_origin(url: &str) -> String {
    let (path, query) = split_url(url);
    let path = if path.is_empty() {
        "/".to_string()
    } else {
        path
    };
    if query.is_empty() {
        path
    } else {
        format!("{path}?{query}")
    }
}

/// The link-map key of a path+query: decoded path and query pairs.
pub(crate) type CanonPq = (String, Vec<(String, String)>);

pub(crate) fn canon_pq(path_qs: &str) -> CanonPq {
    let (path, query) = split_url(path_qs);
    (unquote(&path), parse_qsl(&query))
}

/// A path without its trailing slashes, decoded ("/" for the root).
pub(crate) fn collection_path(path: &str) -> String {
    let p = unquote(path);
    let t = p.trim_end_matches('/');
    if t.is_empty() {
        "/".to_string()
    } else {
        t.to_string()
    }
}

fn is_version_tag(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('v') else {
        return false;
    };
    !rest.is_empty()
        && rest
            .split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// A segment is variable when it holds a digit (version tags like `v1`
/// excepted) or is a uuid.
pub(crate) fn is_variable_segment(seg: &str) -> bool {
    let seg = unquote(seg);
    if is_version_tag(&seg) {
        return false;
    }
    super::values::is_uuid(&seg) || seg.chars().any(|c| c.is_ascii_digit())
}

/// METHOD + path template.
pub(crate) fn route_of(method: &str, path: &str) -> String {
    let segs: Vec<&str> = path
        .split('/')
        .map(|s| {
            if !s.is_empty() && is_variable_segment(s) {
                "{id}"
            } else {
                s
            }
        })
        .collect();
    format!("{method} {}", segs.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_split_like_urlsplit() {
        assert_eq!(
            split_url("http://127.0.0.1:5000/api/x?a=1#f"),
            ("/api/x".to_string(), "a=1".to_string())
        );
        assert_eq!(
            split_url("http://h?q=1"),
            (String::new(), "q=1".to_string())
        );
        assert_eq!(strip_origin("https://h:1"), "/");
        assert_eq!(strip_origin("/a?b=c"), "/a?b=c");
    }

    #[test]
    fn query_pairs_round_trip() {
        let pairs = parse_qsl("filter=run_id%3D%27x%27&a+b=&c");
        assert_eq!(pairs[0], ("filter".into(), "run_id='x'".into()));
        assert_eq!(pairs[1], ("a b".into(), String::new()));
        assert_eq!(pairs[2], ("c".into(), String::new()));
        assert_eq!(urlencode(&pairs), "filter=run_id%3D%27x%27&a+b=&c=");
        assert_eq!(quote("a b/c"), "a%20b%2Fc");
    }

    #[test]
    fn routes_template_variable_segments() {
        assert_eq!(
            route_of("GET", "/v1/buckets/b1/records"),
            "GET /v1/buckets/{id}/records"
        );
        assert_eq!(route_of("GET", "/v2/posts"), "GET /v2/posts");
        assert_eq!(
            route_of("GET", "/x/8f0c2a6e-4b1d-4e7a-9c35-d2f6a1b80e47"),
            "GET /x/{id}"
        );
    }
}
