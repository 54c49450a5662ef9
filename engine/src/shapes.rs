//! Value shapes the write rules recognise: UUIDs, tokens, sequences, slugs
//! and clock values in their recorded formats (and rendering them back).

use chrono::{DateTime, NaiveDateTime, SecondsFormat, TimeZone, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How far a clock value may lie from the request's start (10 minutes).
pub const CLOCK_WINDOW_MS: i64 = 10 * 60 * 1000;

/// True for the canonical 8-4-4-4-12 hex spelling of a UUID.
pub fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// The integer a sequence value holds: a non-negative JSON integer or a
/// string of ASCII digits without a leading zero.
pub fn sequence_value(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().filter(|i| *i >= 0),
        Value::String(s)
            if !s.is_empty()
                && s.len() <= 18
                && s.bytes().all(|c| c.is_ascii_digit())
                && (s == "0" || !s.starts_with('0')) =>
        {
            s.parse().ok()
        }
        _ => None,
    }
}

/// A value of the same JSON kind as `like` holding the integer `n`.
pub fn sequence_like(like: &Value, n: i64) -> Value {
    match like {
        Value::String(_) => Value::String(n.to_string()),
        _ => Value::from(n),
    }
}

/// The character class of a generated token, chosen from its recorded value.
pub fn token_alphabet(s: &str) -> &'static str {
    const DIGITS: &str = "0123456789";
    const HEX: &str = "0123456789abcdef";
    const HEX_UPPER: &str = "0123456789ABCDEF";
    const LOWER_ALNUM: &str = "0123456789abcdefghijklmnopqrstuvwxyz";
    const UPPER_ALNUM: &str = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    const ALNUM: &str = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    const URLSAFE: &str = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_";
    for alphabet in [
        DIGITS,
        HEX,
        HEX_UPPER,
        LOWER_ALNUM,
        UPPER_ALNUM,
        ALNUM,
        URLSAFE,
    ] {
        if s.chars().all(|c| alphabet.contains(c)) {
            return alphabet;
        }
    }
    URLSAFE
}

/// True when a string can be a generated token: 6 to 128 characters of the
/// URL-safe alphabet.
pub fn is_token(s: &str) -> bool {
    (6..=128).contains(&s.len())
        && s.bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
}

/// The slug of a text with the given separator: ASCII letters and digits
/// lowercased, every other run of characters one separator, none at the ends.
pub fn slugify(text: &str, separator: char) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending = false;
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            if pending && !out.is_empty() {
                out.push(separator);
            }
            pending = false;
            out.push(c.to_ascii_lowercase());
        } else {
            pending = true;
        }
    }
    out
}

/// The separator that makes `slug` the slug of `text`, if one does.
pub fn slug_separator(text: &str, slug: &str) -> Option<char> {
    if slug.is_empty() || text == slug {
        return None;
    }
    ['-', '_']
        .into_iter()
        .find(|sep| slugify(text, *sep) == slug)
}

/// How a clock value is written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ClockFormat {
    /// Milliseconds since the epoch, a JSON integer (or digit string).
    EpochMs {
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        string: bool,
    },
    /// Seconds since the epoch, a JSON integer (or digit string).
    EpochS {
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        string: bool,
    },
    /// Seconds since the epoch with a fraction, a JSON number.
    EpochSFraction { digits: u8 },
    /// `YYYY-MM-DDTHH:MM:SS[.f]` with `separator` between date and time,
    /// `digits` fraction digits and a `zone` suffix (`Z`, `+00:00` or none).
    DateTime {
        separator: String,
        digits: u8,
        zone: String,
    },
    /// An RFC 7231 HTTP date, `Mon, 30 Nov 2026 17:25:58 GMT`.
    HttpDate,
}

/// Reads a clock value: its instant (ms since the epoch) and its format.
pub fn parse_clock(v: &Value) -> Option<(i64, ClockFormat)> {
    match v {
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                epoch_integer(i, false)
            } else {
                let f = n.as_f64()?;
                if !(1e9..1e11).contains(&f) {
                    return None;
                }
                let text = n.to_string();
                let digits = text.split('.').nth(1).map(|d| d.len()).unwrap_or(0).min(9) as u8;
                Some((
                    (f * 1000.0).round() as i64,
                    ClockFormat::EpochSFraction { digits },
                ))
            }
        }
        Value::String(s) if !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit()) => {
            epoch_integer(s.parse().ok()?, true)
        }
        Value::String(s) => parse_datetime(s).or_else(|| {
            let dt = DateTime::parse_from_rfc2822(s).ok()?;
            s.ends_with(" GMT")
                .then(|| (dt.timestamp_millis(), ClockFormat::HttpDate))
        }),
        _ => None,
    }
}

fn epoch_integer(i: i64, string: bool) -> Option<(i64, ClockFormat)> {
    if (100_000_000_000..100_000_000_000_000).contains(&i) {
        Some((i, ClockFormat::EpochMs { string }))
    } else if (100_000_000..100_000_000_000).contains(&i) {
        Some((i * 1000, ClockFormat::EpochS { string }))
    } else {
        None
    }
}

fn parse_datetime(s: &str) -> Option<(i64, ClockFormat)> {
    if s.len() < 19 || !s.is_ascii() {
        return None;
    }
    let separator = &s[10..11];
    if separator != "T" && separator != " " {
        return None;
    }
    let base =
        NaiveDateTime::parse_from_str(&format!("{}T{}", &s[..10], &s[11..19]), "%Y-%m-%dT%H:%M:%S")
            .ok()?;
    let mut rest = &s[19..];
    let mut digits = 0u8;
    let mut nanos: i64 = 0;
    if let Some(frac) = rest.strip_prefix('.') {
        let n = frac.bytes().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 || n > 9 {
            return None;
        }
        digits = n as u8;
        nanos = frac[..n].parse::<i64>().ok()? * 10i64.pow(9 - n as u32);
        rest = &frac[n..];
    }
    let offset_ms: i64 = match rest {
        "" | "Z" => 0,
        z if z.len() == 6 && (z.starts_with('+') || z.starts_with('-')) && &z[3..4] == ":" => {
            let h: i64 = z[1..3].parse().ok()?;
            let m: i64 = z[4..6].parse().ok()?;
            let sign = if z.starts_with('-') { -1 } else { 1 };
            sign * (h * 60 + m) * 60_000
        }
        _ => return None,
    };
    let ms = base.and_utc().timestamp_millis() + nanos / 1_000_000 - offset_ms;
    Some((
        ms,
        ClockFormat::DateTime {
            separator: separator.to_string(),
            digits,
            zone: rest.to_string(),
        },
    ))
}

/// Writes an instant in a recorded clock format. A zone offset other than
/// UTC is written as recorded with the instant shifted into it.
pub fn format_clock(ms: i64, format: &ClockFormat) -> Value {
    match format {
        ClockFormat::EpochMs { string: false } => Value::from(ms),
        ClockFormat::EpochMs { string: true } => Value::String(ms.to_string()),
        ClockFormat::EpochS { string: false } => Value::from(ms.div_euclid(1000)),
        ClockFormat::EpochS { string: true } => Value::String(ms.div_euclid(1000).to_string()),
        ClockFormat::EpochSFraction { digits } => {
            let scale = 10f64.powi(i32::from((*digits).min(3)));
            let secs = ((ms as f64 / 1000.0) * scale).round() / scale;
            serde_json::Number::from_f64(secs)
                .map(Value::Number)
                .unwrap_or(Value::from(ms / 1000))
        }
        ClockFormat::DateTime {
            separator,
            digits,
            zone,
        } => {
            let offset_ms = zone_offset_ms(zone);
            let local = Utc
                .timestamp_millis_opt(ms + offset_ms)
                .single()
                .unwrap_or_default();
            let mut text = local.format("%Y-%m-%d").to_string();
            text.push_str(separator);
            text.push_str(&local.format("%H:%M:%S").to_string());
            if *digits > 0 {
                let nanos = format!("{:09}", local.timestamp_subsec_nanos());
                text.push('.');
                text.push_str(&nanos[..usize::from((*digits).min(9))]);
            }
            text.push_str(zone);
            Value::String(text)
        }
        ClockFormat::HttpDate => {
            let t = Utc.timestamp_millis_opt(ms).single().unwrap_or_default();
            Value::String(t.format("%a, %d %b %Y %H:%M:%S GMT").to_string())
        }
    }
}

fn zone_offset_ms(zone: &str) -> i64 {
    if zone.len() == 6 && zone.is_ascii() {
        let h: i64 = zone[1..3].parse().unwrap_or(0);
        let m: i64 = zone[4..6].parse().unwrap_or(0);
        let sign = if zone.starts_with('-') { -1 } else { 1 };
        sign * (h * 60 + m) * 60_000
    } else {
        0
    }
}

/// The clock format of `v` when it lies within 10 minutes of `request_ms`.
pub fn clock_near(v: &Value, request_ms: i64) -> Option<(i64, ClockFormat)> {
    let (ms, format) = parse_clock(v)?;
    ((ms - request_ms).abs() <= CLOCK_WINDOW_MS).then_some((ms, format))
}

/// An RFC 3339 UTC spelling of an instant, whole seconds, for documents.
pub fn rfc3339_seconds(ms: i64) -> String {
    Utc.timestamp_millis_opt(ms)
        .single()
        .unwrap_or_default()
        .to_rfc3339_opts(SecondsFormat::Secs, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn uuid_and_token_shapes() {
        assert!(is_uuid("550e8400-e29b-41d4-a716-446655440000"));
        assert!(!is_uuid("550e8400e29b41d4a716446655440000"));
        assert!(!is_uuid("550e8400-e29b-41d4-a716-44665544000g"));
        assert_eq!(token_alphabet("00af9c"), "0123456789abcdef");
        assert_eq!(
            token_alphabet("aZ09"),
            "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
        );
        assert!(is_token("Xy_9-abc"));
        assert!(!is_token("abc"));
        assert!(!is_token("has space"));
    }

    #[test]
    fn sequences_are_integers_or_digit_strings() {
        assert_eq!(sequence_value(&json!(43)), Some(43));
        assert_eq!(sequence_value(&json!("43")), Some(43));
        assert_eq!(sequence_value(&json!("043")), None);
        assert_eq!(sequence_value(&json!(4.5)), None);
        assert_eq!(sequence_value(&json!(-1)), None);
        assert_eq!(sequence_like(&json!("1"), 7), json!("7"));
        assert_eq!(sequence_like(&json!(1), 7), json!(7));
    }

    #[test]
    fn slugs() {
        // WRITE-15
        assert_eq!(slugify("Hello World", '-'), "hello-world");
        assert_eq!(slugify("  Ünïcode & More!! ", '-'), "n-code-more");
        assert_eq!(slug_separator("Hello World", "hello-world"), Some('-'));
        assert_eq!(slug_separator("Hello World", "hello_world"), Some('_'));
        assert_eq!(slug_separator("Hello World", "hello world"), None);
        assert_eq!(slug_separator("hello", "hello"), None);
    }

    const T0_FOR_TESTS: i64 = 1_714_564_800_000;

    #[test]
    fn clocks_in_their_formats() {
        // WRITE-16: 12:00:00Z request, 12:00:01Z value is a clock; 11 min is not.
        let req = parse_clock(&json!("2024-05-01T12:00:00Z")).unwrap().0;
        let (ms, f) = clock_near(&json!("2024-05-01T12:00:01Z"), req).unwrap();
        assert_eq!(ms - req, 1000);
        assert_eq!(format_clock(ms, &f), json!("2024-05-01T12:00:01Z"));
        assert!(clock_near(&json!("2024-05-01T12:11:00Z"), req).is_none());
        assert!(clock_near(&json!("2024-05-01T12:10:00Z"), req).is_some());
        // Epoch milliseconds and seconds, numbers and digit strings.
        let (ms, f) = clock_near(&json!(1714564800123i64), req).unwrap();
        assert_eq!(format_clock(ms, &f), json!(1714564800123i64));
        let (ms, f) = clock_near(&json!(1714564801), req).unwrap();
        assert_eq!(format_clock(ms, &f), json!(1714564801));
        let (ms, f) = clock_near(&json!("1714564801"), req).unwrap();
        assert_eq!(format_clock(ms, &f), json!("1714564801"));
        let (ms, f) = clock_near(&json!(1714564801.25), req).unwrap();
        assert_eq!(format_clock(ms, &f), json!(1714564801.25));
        // Fractions, space separator, offsets.
        for text in [
            "2024-05-01T12:00:01.123Z",
            "2024-05-01 12:00:01",
            "2024-05-01T14:00:01.5+02:00",
            "Wed, 01 May 2024 12:00:01 GMT",
        ] {
            let (ms, f) = clock_near(&json!(text), req).unwrap_or_else(|| panic!("{text}"));
            assert_eq!(format_clock(ms, &f), json!(text), "{text}");
        }
        // Finer fractions keep their digit count; the generator's clock has
        // millisecond precision.
        let (ms, f) = clock_near(&json!("2024-05-01T12:00:01.123456Z"), req).unwrap();
        assert_eq!(format_clock(ms, &f), json!("2024-05-01T12:00:01.123000Z"));
        // Odd input never panics.
        for text in [
            "2024-05-01T12:00:0€",
            "2024-05-01€12:00:00Z",
            "2024-05-01T12:00:00+é:00",
            "2024-05-01T12:00:00.",
            "9999999999999999999",
        ] {
            let _ = parse_clock(&json!(text));
        }
        let odd = ClockFormat::DateTime {
            separator: "€".into(),
            digits: 200,
            zone: "+é:00".into(),
        };
        let _ = format_clock(T0_FOR_TESTS, &odd);
        // Not clocks.
        assert!(parse_clock(&json!(42)).is_none());
        assert!(parse_clock(&json!("2024-05-01")).is_none());
        assert!(parse_clock(&json!("soon")).is_none());
        assert!(parse_clock(&json!(true)).is_none());
    }
}
