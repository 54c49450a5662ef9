//! The four exact-format segment rules (`numeric`, `uuid`, `hex`,
//! `iso-date`), tried in that order on the still-encoded path segment.

/// One of the four format rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum FormatRule {
    Numeric,
    Uuid,
    Hex,
    IsoDate,
}

impl FormatRule {
    /// The rule's name as reported in views.
    pub(crate) fn name(self) -> &'static str {
        match self {
            FormatRule::Numeric => "numeric",
            FormatRule::Uuid => "uuid",
            FormatRule::Hex => "hex",
            FormatRule::IsoDate => "iso-date",
        }
    }

    /// The api-surface placeholder, e.g. `{numeric}`.
    pub(crate) fn placeholder(self) -> &'static str {
        match self {
            FormatRule::Numeric => "{numeric}",
            FormatRule::Uuid => "{uuid}",
            FormatRule::Hex => "{hex}",
            FormatRule::IsoDate => "{iso-date}",
        }
    }

    /// The manifest parameter name: `id`, `uuid`, `hash`, `date`.
    pub(crate) fn param_name(self) -> &'static str {
        match self {
            FormatRule::Numeric => "id",
            FormatRule::Uuid => "uuid",
            FormatRule::Hex => "hash",
            FormatRule::IsoDate => "date",
        }
    }
}

/// The first rule (in table order) that matches `segment` exactly.
pub(crate) fn classify(segment: &str) -> Option<FormatRule> {
    if is_numeric(segment) {
        Some(FormatRule::Numeric)
    } else if is_uuid(segment) {
        Some(FormatRule::Uuid)
    } else if segment.len() >= 32 && segment.bytes().all(|b| b.is_ascii_hexdigit()) {
        Some(FormatRule::Hex)
    } else if is_iso_date(segment) {
        Some(FormatRule::IsoDate)
    } else {
        None
    }
}

fn is_numeric(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// RFC 9562 textual form: 8-4-4-4-12 hex digits, any version, any case.
fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

fn is_iso_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let digits = |r: std::ops::Range<usize>| -> Option<u32> {
        b[r].iter().try_fold(0u32, |acc, c| {
            c.is_ascii_digit().then(|| acc * 10 + u32::from(c - b'0'))
        })
    };
    let (Some(year), Some(month), Some(day)) = (digits(0..4), digits(5..7), digits(8..10)) else {
        return false;
    };
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    day >= 1 && day <= days
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_examples() {
        assert_eq!(classify("42"), Some(FormatRule::Numeric));
        assert_eq!(classify("４２"), None);
        assert_eq!(
            classify("550E8400-E29B-41D4-A716-446655440000"),
            Some(FormatRule::Uuid)
        );
        assert_eq!(
            classify("d41d8cd98f00b204e9800998ecf8427e"),
            Some(FormatRule::Hex)
        );
        assert_eq!(classify("d41d8cd98f00b204e9800998ecf8427"), None);
        assert_eq!(classify("2024-02-29"), Some(FormatRule::IsoDate));
        assert_eq!(classify("2023-02-29"), None);
        assert_eq!(classify("2023-13-01"), None);
        assert_eq!(
            classify("12345678901234567890123456789012"),
            Some(FormatRule::Numeric)
        );
        assert_eq!(classify(""), None);
        assert_eq!(classify("v2"), None);
        assert_eq!(classify("oauth2"), None);
        assert_eq!(classify("ab12"), None);
    }
}
