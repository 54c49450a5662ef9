//! The string formats har-schema uses (`date-time`, `ipv4`, `ipv6`,
//! `uri`), checked exactly as ajv-formats 3.0.1 checks them in its default
//! ("full") mode, so rea's verdicts equal the reference validator's.
//!
//! The regular expressions are ajv-formats' own, copied unchanged. JavaScript
//! runs them without the `u` flag: `\d` and the classes are ASCII, and `i`
//! folds ASCII letters only. Building them with Unicode support off gives the
//! same matching in Rust.

use regex::{Regex, RegexBuilder};
use std::sync::LazyLock;

/// ajv-formats `ipv4` (no flags).
const IPV4: &str =
    r##"^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$"##;

/// ajv-formats `ipv6` (flag `i`).
const IPV6: &str = r##"^((([0-9a-f]{1,4}:){7}([0-9a-f]{1,4}|:))|(([0-9a-f]{1,4}:){6}(:[0-9a-f]{1,4}|((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})|:))|(([0-9a-f]{1,4}:){5}(((:[0-9a-f]{1,4}){1,2})|:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})|:))|(([0-9a-f]{1,4}:){4}(((:[0-9a-f]{1,4}){1,3})|((:[0-9a-f]{1,4})?:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:))|(([0-9a-f]{1,4}:){3}(((:[0-9a-f]{1,4}){1,4})|((:[0-9a-f]{1,4}){0,2}:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:))|(([0-9a-f]{1,4}:){2}(((:[0-9a-f]{1,4}){1,5})|((:[0-9a-f]{1,4}){0,3}:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:))|(([0-9a-f]{1,4}:){1}(((:[0-9a-f]{1,4}){1,6})|((:[0-9a-f]{1,4}){0,4}:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:))|(:(((:[0-9a-f]{1,4}){1,7})|((:[0-9a-f]{1,4}){0,5}:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:)))$"##;

/// ajv-formats `URI`, the second half of its `uri` check (flag `i`).
const URI: &str = r##"^(?:[a-z][a-z0-9+\-.]*:)(?:\/?\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:]|%[0-9a-f]{2})*@)?(?:\[(?:(?:(?:(?:[0-9a-f]{1,4}:){6}|::(?:[0-9a-f]{1,4}:){5}|(?:[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){4}|(?:(?:[0-9a-f]{1,4}:){0,1}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){3}|(?:(?:[0-9a-f]{1,4}:){0,2}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){2}|(?:(?:[0-9a-f]{1,4}:){0,3}[0-9a-f]{1,4})?::[0-9a-f]{1,4}:|(?:(?:[0-9a-f]{1,4}:){0,4}[0-9a-f]{1,4})?::)(?:[0-9a-f]{1,4}:[0-9a-f]{1,4}|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?))|(?:(?:[0-9a-f]{1,4}:){0,5}[0-9a-f]{1,4})?::[0-9a-f]{1,4}|(?:(?:[0-9a-f]{1,4}:){0,6}[0-9a-f]{1,4})?::)|[Vv][0-9a-f]+\.[a-z0-9\-._~!$&'()*+,;=:]+)\]|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?)|(?:[a-z0-9\-._~!$&'()*+,;=]|%[0-9a-f]{2})*)(?::\d*)?(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*|\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)?|(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)(?:\?(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?(?:#(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?$"##;

/// ajv-formats `DATE`.
const DATE: &str = r"^(\d\d\d\d)-(\d\d)-(\d\d)$";

/// ajv-formats `TIME` (flag `i`).
const TIME: &str = r"^(\d\d):(\d\d):(\d\d(?:\.\d+)?)(z|([+-])(\d\d)(?::?(\d\d))?)?$";

fn ascii_regex(pattern: &str, case_insensitive: bool) -> Regex {
    match RegexBuilder::new(pattern)
        .unicode(false)
        .case_insensitive(case_insensitive)
        .size_limit(1 << 24)
        .build()
    {
        Ok(regex) => regex,
        // The patterns are constants checked by this module's tests.
        Err(error) => panic!("built-in format pattern does not compile: {error}"),
    }
}

static IPV4_RE: LazyLock<Regex> = LazyLock::new(|| ascii_regex(IPV4, false));
static IPV6_RE: LazyLock<Regex> = LazyLock::new(|| ascii_regex(IPV6, true));
static URI_RE: LazyLock<Regex> = LazyLock::new(|| ascii_regex(URI, true));
static DATE_RE: LazyLock<Regex> = LazyLock::new(|| ascii_regex(DATE, false));
static TIME_RE: LazyLock<Regex> = LazyLock::new(|| ascii_regex(TIME, true));

/// `format: "ipv4"`.
pub(crate) fn ipv4(s: &str) -> bool {
    IPV4_RE.is_match(s)
}

/// `format: "ipv6"`.
pub(crate) fn ipv6(s: &str) -> bool {
    IPV6_RE.is_match(s)
}

/// `format: "uri"`: a `/` or `:` somewhere, and the full URI pattern.
pub(crate) fn uri(s: &str) -> bool {
    (s.contains('/') || s.contains(':')) && URI_RE.is_match(s)
}

/// `format: "date-time"` (ajv-formats `getDateTime(true)`): the string split
/// at every `t`, `T` or JavaScript white-space character must give exactly a
/// valid date and a valid time with a time zone.
pub(crate) fn date_time(s: &str) -> bool {
    let mut parts = s.split(is_date_time_separator);
    match (parts.next(), parts.next(), parts.next()) {
        (Some(date_part), Some(time_part), None) => date(date_part) && time(time_part),
        _ => false,
    }
}

/// The separator `/t|\s/i`: `t`, `T`, or what JavaScript's `\s` matches
/// (ECMAScript WhiteSpace and LineTerminator).
fn is_date_time_separator(c: char) -> bool {
    matches!(
        c,
        't' | 'T'
            | '\u{9}'
            | '\u{a}'
            | '\u{b}'
            | '\u{c}'
            | '\u{d}'
            | ' '
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

fn is_leap_year(year: u32) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

/// ajv-formats `date`.
fn date(s: &str) -> bool {
    const DAYS: [u32; 13] = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let Some(caps) = DATE_RE.captures(s) else {
        return false;
    };
    let (Some(year), Some(month), Some(day)) = (
        number(caps.get(1)),
        number(caps.get(2)),
        number(caps.get(3)),
    ) else {
        return false;
    };
    if !(1..=12).contains(&month) || day < 1 {
        return false;
    }
    let last = if month == 2 && is_leap_year(year) {
        29
    } else {
        DAYS[month as usize]
    };
    day <= last
}

/// ajv-formats `time` with a required time zone (`getTime(true)`),
/// leap-second rule included.
fn time(s: &str) -> bool {
    let Some(caps) = TIME_RE.captures(s) else {
        return false;
    };
    let (Some(hr), Some(min)) = (number(caps.get(1)), number(caps.get(2))) else {
        return false;
    };
    // JavaScript's `+"59.5"`: the seconds as the nearest double.
    let Some(sec) = caps.get(3).and_then(|m| m.as_str().parse::<f64>().ok()) else {
        return false;
    };
    let has_zone = caps.get(4).is_some();
    let tz_sign: i64 = if caps.get(5).map(|m| m.as_str()) == Some("-") {
        -1
    } else {
        1
    };
    let tz_h = number(caps.get(6)).unwrap_or(0);
    let tz_m = number(caps.get(7)).unwrap_or(0);
    if tz_h > 23 || tz_m > 59 || !has_zone {
        return false;
    }
    if hr <= 23 && min <= 59 && sec < 60.0 {
        return true;
    }
    // A leap second: 23:59:60 in UTC, after removing the offset.
    let utc_min = i64::from(min) - i64::from(tz_m) * tz_sign;
    let utc_hr = i64::from(hr) - i64::from(tz_h) * tz_sign - i64::from(utc_min < 0);
    (utc_hr == 23 || utc_hr == -1) && (utc_min == 59 || utc_min == -1) && sec < 61.0
}

/// A captured run of ASCII digits (at most four) as a number.
fn number(m: Option<regex::Match<'_>>) -> Option<u32> {
    m.and_then(|m| m.as_str().parse::<u32>().ok())
}
