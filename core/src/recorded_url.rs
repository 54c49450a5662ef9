//! The one parser of recorded request URLs, shared by credential redaction
//! (userinfo spans) and every derived view (origin, raw path, raw query).
//!
//! A URL is accepted only when WHATWG parsing (the `url` crate) gives it a
//! tuple origin *and* its raw spelling is `scheme://authority…` with no tab,
//! CR or LF in the authority. Paths and queries are returned exactly as
//! recorded (still percent-encoded, before dot-segment removal).

use std::ops::Range;

/// A recorded URL split into the parts rea uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedUrl<'a> {
    /// The recorded text.
    pub raw: &'a str,
    /// Lowercase scheme without `:`.
    pub scheme: String,
    /// WHATWG origin serialization, e.g. `http://127.0.0.1:8888` (default ports omitted).
    pub origin: String,
    /// Host as WHATWG serializes it (IPv6 in brackets), without port.
    pub host: String,
    /// The explicit non-default port, if any.
    pub port: Option<u16>,
    /// Raw path as recorded (starts with `/`; `/` when the URL has none).
    pub path: &'a str,
    /// Raw query without `?`, if a `?` is present.
    pub query: Option<&'a str>,
    /// Byte span of `userinfo@` in `raw`, when the URL carries credentials.
    pub userinfo_span: Option<Range<usize>>,
}

/// Why a recorded URL cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlProblem {
    /// WHATWG parsing fails, or the URL has no tuple origin (`data:`, `mailto:`).
    Unparseable,
    /// The spelling lacks `scheme://authority` (e.g. `https:host/path`).
    NoAuthority,
    /// A tab, CR or LF inside the authority (WHATWG would silently drop it).
    ControlInAuthority,
}

impl UrlProblem {
    /// Every problem is reported by the views as `url-unparseable`.
    pub fn reason(self) -> &'static str {
        "url-unparseable"
    }
}

/// What credential redaction must do with a recorded URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CredentialCut {
    /// No userinfo: keep the URL unchanged.
    None,
    /// Remove exactly this byte span (`user:pass@`) from the raw text.
    Span(Range<usize>),
    /// Credentials are present but no canonical raw span holds them
    /// (slashless or extra-slash spellings): exclude the whole field.
    WholeField,
}

/// Parses a recorded URL.
pub fn parse(raw: &str) -> Result<RecordedUrl<'_>, UrlProblem> {
    let scheme_end = scheme_end(raw).ok_or(UrlProblem::Unparseable)?;
    let after_scheme = &raw[scheme_end + 1..];
    if !after_scheme.starts_with("//") {
        return Err(UrlProblem::NoAuthority);
    }
    let authority_start = scheme_end + 3;
    let authority_len = raw[authority_start..]
        .find(['/', '?', '#', '\\'])
        .unwrap_or(raw.len() - authority_start);
    let authority = &raw[authority_start..authority_start + authority_len];
    if authority.contains(['\t', '\r', '\n']) {
        return Err(UrlProblem::ControlInAuthority);
    }
    if authority.is_empty()
        || raw.starts_with(|c: char| c <= ' ')
        || raw.ends_with(|c: char| c <= ' ')
    {
        return Err(UrlProblem::Unparseable);
    }
    let parsed = url::Url::parse(raw).map_err(|_| UrlProblem::Unparseable)?;
    let origin = parsed.origin();
    if !origin.is_tuple() {
        return Err(UrlProblem::Unparseable);
    }
    let host = parsed
        .host_str()
        .ok_or(UrlProblem::Unparseable)?
        .to_string();

    let rest_start = authority_start + authority_len;
    let rest = &raw[rest_start..];
    let path_end = rest.find(['?', '#']).unwrap_or(rest.len());
    let path = if path_end == 0 {
        "/"
    } else {
        &rest[..path_end]
    };
    let query = rest[path_end..]
        .strip_prefix('?')
        .map(|q| q.split('#').next().unwrap_or(""));

    let userinfo_span = authority
        .rfind('@')
        .map(|at| authority_start..authority_start + at + 1);

    Ok(RecordedUrl {
        raw,
        scheme: parsed.scheme().to_string(),
        origin: origin.ascii_serialization(),
        host,
        port: parsed.port(),
        path,
        query,
        userinfo_span,
    })
}

/// Decides how to exclude credentials from a recorded URL. URLs that do not
/// parse but whose WHATWG reading still carries a username or password
/// (slashless `http:u:p@h/x`, extra-slash `http:///u:p@h/x`) have no safe
/// raw span, so the whole field goes.
pub fn credential_cut(raw: &str) -> CredentialCut {
    if let Ok(url) = parse(raw) {
        return match url.userinfo_span {
            Some(span) => CredentialCut::Span(span),
            None => CredentialCut::None,
        };
    }
    match url::Url::parse(raw) {
        Ok(u) if !u.username().is_empty() || u.password().is_some() => CredentialCut::WholeField,
        Ok(_) => CredentialCut::None,
        // Unparseable text may still hide `user:pass@host`; exclude it when
        // it looks like an authority with userinfo.
        Err(_) => {
            if looks_like_userinfo(raw) {
                CredentialCut::WholeField
            } else {
                CredentialCut::None
            }
        }
    }
}

fn looks_like_userinfo(raw: &str) -> bool {
    let Some(scheme_end) = scheme_end(raw) else {
        return false;
    };
    let rest = raw[scheme_end + 1..].trim_start_matches(['/', '\\']);
    let authority_end = rest.find(['/', '?', '#', '\\']).unwrap_or(rest.len());
    rest[..authority_end].contains('@')
}

/// Index of the `:` ending a syntactically valid scheme.
fn scheme_end(raw: &str) -> Option<usize> {
    let colon = raw.find(':')?;
    let scheme = &raw[..colon];
    let mut chars = scheme.chars();
    let first = chars.next()?;
    if !first.is_ascii_alphabetic() {
        return None;
    }
    chars
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        .then_some(colon)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_origin_raw_path_and_query() {
        let u = parse("http://127.0.0.1:8888/v1/a%20b/../c?x=1&y#frag").unwrap();
        assert_eq!(u.origin, "http://127.0.0.1:8888");
        assert_eq!(u.path, "/v1/a%20b/../c");
        assert_eq!(u.query, Some("x=1&y"));
        assert_eq!(u.port, Some(8888));
        assert_eq!(u.userinfo_span, None);
    }

    #[test]
    fn default_port_is_omitted_from_origin() {
        let u = parse("HTTPS://Example.COM:443").unwrap();
        assert_eq!(u.origin, "https://example.com");
        assert_eq!(u.path, "/");
        assert_eq!(u.query, None);
    }

    #[test]
    fn slashless_and_control_spellings_are_refused() {
        assert_eq!(parse("https:host/path"), Err(UrlProblem::NoAuthority));
        assert_eq!(
            parse("https://ho\tst/x"),
            Err(UrlProblem::ControlInAuthority)
        );
        assert_eq!(parse("data:text/plain,hi"), Err(UrlProblem::NoAuthority));
        assert_eq!(parse("not a url"), Err(UrlProblem::Unparseable));
        assert_eq!(parse("foo://opaque/x"), Err(UrlProblem::Unparseable));
    }

    #[test]
    fn userinfo_has_a_raw_span() {
        let raw = "https://u:p@h.example/a?b=1";
        let cut = credential_cut(raw);
        let CredentialCut::Span(span) = cut else {
            panic!("expected a span")
        };
        let mut kept = raw.to_string();
        kept.replace_range(span, "");
        assert_eq!(kept, "https://h.example/a?b=1");
    }

    #[test]
    fn credentials_without_a_safe_span_exclude_the_field() {
        assert_eq!(
            credential_cut("http:u:p@h.example/x"),
            CredentialCut::WholeField
        );
        assert_eq!(
            credential_cut("http:///u:p@h.example/x"),
            CredentialCut::WholeField
        );
        assert_eq!(credential_cut("https:host/path"), CredentialCut::None);
    }
}
