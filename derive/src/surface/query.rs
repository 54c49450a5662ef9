//! Query parameter names, decoded the way WHATWG `URLSearchParams` decodes
//! `application/x-www-form-urlencoded` text. Values are never kept.

/// Distinct names of a raw query string, in first-seen order. Empty pairs
/// contribute nothing; empty names are kept.
pub(crate) fn names(query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for pair in query.split('&') {
        if pair.is_empty() {
            continue;
        }
        let raw_name = pair.split_once('=').map_or(pair, |(n, _)| n);
        let name = form_decode(raw_name);
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// `+` becomes a space, then percent escapes decode as UTF-8 (invalid
/// sequences become U+FFFD, as in the URL Standard).
pub(crate) fn form_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len()
                && hex(bytes[i + 1]).is_some()
                && hex(bytes[i + 2]).is_some() =>
            {
                let hi = hex(bytes[i + 1]).unwrap_or(0);
                let lo = hex(bytes[i + 2]).unwrap_or(0);
                out.push(hi * 16 + lo);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_examples() {
        assert_eq!(
            names("a+b=1&%2B=2&caf%C3%A9=3&=4"),
            vec!["a b", "+", "café", ""]
        );
        assert_eq!(names("&&x=1&"), vec!["x"]);
        assert_eq!(names("b=1&a=1&a=2"), vec!["b", "a"]);
        assert_eq!(names("a"), vec!["a"]);
        assert_eq!(form_decode("%zz%4"), "%zz%4");
        assert_eq!(form_decode("%FF"), "\u{FFFD}");
    }
}
