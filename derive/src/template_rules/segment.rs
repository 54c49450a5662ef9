//! The per-segment opt-in rules: `after-uid-literal` and `opaque-token`.

use super::route::{Route, TSeg};
use super::words::{is_stop_word, is_version};

/// The literal right after a literal `uid` becomes parameter `uid`,
/// unless it is a stop word.
pub(crate) fn after_uid_literal(routes: &mut [Route]) {
    for route in routes.iter_mut() {
        for i in 1..route.segs.len() {
            let after_uid = route.segs[i - 1].literal() == Some("uid");
            if let (true, Some(lit)) = (after_uid, route.segs[i].literal()) {
                if !lit.is_empty() && !is_stop_word(lit) {
                    route.segs[i] = TSeg::param("uid", "after-uid-literal", lit);
                }
            }
        }
    }
}

/// A lowercase alphanumeric segment of twelve or more characters mixing
/// letters and digits, not a `v1`-style version.
pub(crate) fn is_opaque_token(segment: &str) -> bool {
    segment.len() >= 12
        && segment
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && segment.bytes().any(|b| b.is_ascii_digit())
        && segment.bytes().any(|b| b.is_ascii_lowercase())
        && !is_version(segment)
}

/// Opaque tokens become parameter `uid`.
pub(crate) fn opaque_token(routes: &mut [Route]) {
    for route in routes.iter_mut() {
        for seg in route.segs.iter_mut() {
            if let Some(lit) = seg.literal() {
                if is_opaque_token(lit) {
                    *seg = TSeg::param("uid", "opaque-token", lit);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opaque_tokens() {
        assert!(is_opaque_token("a1b2c3d4e5f6"));
        assert!(!is_opaque_token("abcdefghijkl"));
        assert!(!is_opaque_token("A1B2C3D4E5F6"));
        assert!(!is_opaque_token("a1b2c3d4e5f"));
        assert!(!is_opaque_token("123456789012"));
        assert!(!is_opaque_token("v12345678901"));
    }
}
