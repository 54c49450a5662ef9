//! The harness's vocabulary for values (ported from `fidelity.py`): JSON
//! types and shapes, tokens inside strings and their kinds, ISO-8601 dates,
//! epoch units, origins, and the member-name classes the rules key on.

use indexmap::IndexMap;
use regex::Regex;
use serde_json::Value;
use std::sync::LazyLock;

/// Members whose values come from the server's clock (rule 3).
pub(crate) const VOLATILE_KEYS: &[&str] = &[
    "last_modified",
    "lastModified",
    "last-modified",
    "modified",
    "modified_at",
    "modifiedAt",
    "created_at",
    "createdAt",
    "updated_at",
    "updatedAt",
    "deleted_at",
    "deletedAt",
    "timestamp",
    "server_timestamp",
    "serverTime",
    "server_time",
    "etag",
    "ETag",
    "_etag",
    "created_on",
    "updated_on",
    "closed_on",
];

/// 24 hours, in microseconds: the clock window of rules 5, 7 and 8.
pub(crate) const CLOCK_WINDOW_US: i64 = 24 * 3600 * 1_000_000;

static ORIGIN_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(https?://)?(127\.0\.0\.1|localhost|\[::1\]):[0-9]{1,5}").expect("origin regex")
});
static ISO_DATE_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([0-9]{4})-([0-9]{2})-([0-9]{2})$").expect("date regex"));
static ISO_DATETIME_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^([0-9]{4})-([0-9]{2})-([0-9]{2})([T ])([0-9]{2}):([0-9]{2}):([0-9]{2})([.,][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2}|[+-][0-9]{4}|[+-][0-9]{2})?$",
    )
    .expect("date-time regex")
});
static CLOCK_NAME_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?:time|Time|TIME|stamp|Stamp|STAMP|date|Date|DATE|_at|At|_AT|_on|On|_ON|_ts|Ts|_TS|_ms|Ms|_millis|Millis|_epoch|Epoch)$|^(?:ts|iat|exp|nbf|expires|expiry|since|until)$",
    )
    .expect("clock-name regex")
});
static EPOCH_STR_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[0-9]{9,19}(?:\.[0-9]+)?$").expect("epoch regex"));

/// The JSON type name the reports use.
pub(crate) fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// An integer JSON number (not a float), as i128.
pub(crate) fn as_int(v: &Value) -> Option<i128> {
    match v {
        Value::Number(n) => n
            .as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from)),
        _ => None,
    }
}

/// Numbers by value (`1 == 1.0`), everything else structurally; object
/// member order ignored.
pub(crate) fn value_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (as_int(a), as_int(b)) {
            (Some(i), Some(j)) => i == j,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| value_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| value_eq(v, w)))
        }
        _ => a == b,
    }
}

/// A scalar as the harness's maps hold it (recorded and candidate ids and
/// generated values). Integral floats are integers, as Python hashes them.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Scalar {
    Int(i128),
    Float(u64),
    Str(String),
}

impl Scalar {
    /// A JSON number or string; `None` for null, booleans and containers.
    pub(crate) fn of(v: &Value) -> Option<Scalar> {
        match v {
            Value::String(s) => Some(Scalar::Str(s.clone())),
            Value::Number(n) => Some(match as_int(v) {
                Some(i) => Scalar::Int(i),
                None => {
                    let f = n.as_f64().unwrap_or(f64::NAN);
                    if f.fract() == 0.0 && f.abs() < 1e30 {
                        Scalar::Int(f as i128)
                    } else {
                        Scalar::Float(f.to_bits())
                    }
                }
            }),
            _ => None,
        }
    }

    /// The scalar's text (Python's `str()` of it).
    pub(crate) fn text(&self) -> String {
        match self {
            Scalar::Int(i) => i.to_string(),
            Scalar::Float(bits) => format!("{:?}", f64::from_bits(*bits)),
            Scalar::Str(s) => s.clone(),
        }
    }

    /// The scalar as a JSON value.
    pub(crate) fn to_value(&self) -> Value {
        match self {
            Scalar::Int(i) => i64::try_from(*i)
                .map(Value::from)
                .or_else(|_| u64::try_from(*i).map(Value::from))
                .unwrap_or_else(|_| Value::from(*i as f64)),
            Scalar::Float(bits) => Value::from(f64::from_bits(*bits)),
            Scalar::Str(s) => Value::String(s.clone()),
        }
    }
}

/// Python's `str()` of a JSON scalar (the volatile mapping's text).
pub(crate) fn py_str(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Null => "None".into(),
        Value::Number(n) => n.to_string(),
        other => other.to_string(),
    }
}

/// A JSON scalar as text, so that `1717408800000`, `1717408800000.0` and
/// `"1717408800000"` agree (rule 7's client pairs).
pub(crate) fn canon_scalar(v: &Value) -> String {
    if let Value::Number(n) = v {
        if as_int(v).is_none() {
            if let Some(f) = n.as_f64() {
                if f.fract() == 0.0 && f.abs() < 1e30 {
                    return (f as i128).to_string();
                }
            }
        }
    }
    py_str(v)
}

/// A value shortened for a report line: JSON text, at most `n` characters.
pub(crate) fn short(v: &Value, n: usize) -> String {
    let s = v.to_string();
    if s.chars().count() <= n {
        return s;
    }
    let head: String = s.chars().take(n.saturating_sub(3)).collect();
    format!("{head}...")
}

/// Rule 2: loopback origins become one placeholder.
pub(crate) fn norm_origin(s: &str) -> String {
    ORIGIN_RE.replace_all(s, "<origin>").into_owned()
}

fn is_hex(b: u8) -> bool {
    b.is_ascii_hexdigit()
}

/// Whether `s` is exactly a uuid (8-4-4-4-12 hex digits).
pub(crate) fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, &c)| match i {
            8 | 13 | 18 | 23 => c == b'-',
            _ => is_hex(c),
        })
}

/// Member names holding ids: `id`, `*_id`, `*Id`, `*ID`.
pub(crate) fn id_like_key(key: Option<&str>) -> bool {
    key.is_some_and(|k| k == "id" || k.ends_with("_id") || k.ends_with("Id") || k.ends_with("ID"))
}

/// Members whose whole value may be a generated integer (rule 6).
pub(crate) fn gen_key(key: Option<&str>) -> bool {
    id_like_key(key)
        || key.is_some_and(|k| k.ends_with("uuid") || k.ends_with("Uuid") || k.ends_with("UUID"))
}

pub(crate) fn is_volatile_key(key: Option<&str>) -> bool {
    key.is_some_and(|k| VOLATILE_KEYS.contains(&k))
}

pub(crate) fn is_clock_name(key: Option<&str>) -> bool {
    key.is_some_and(|k| CLOCK_NAME_RE.is_match(k))
}

fn all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

fn str_shape(s: &str) -> &'static str {
    if is_uuid(s) {
        "uuid"
    } else if all_digits(s) {
        "digits"
    } else if s.len() >= 8 && s.bytes().all(is_hex) {
        "hex"
    } else {
        "string"
    }
}

fn digits_to_zero(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_digit() { '0' } else { c })
        .collect()
}

/// Rules 3 and 4: the same JSON type, and for strings the same shape.
pub(crate) fn same_shape(a: &Value, b: &Value) -> bool {
    if json_type(a) != json_type(b) {
        return false;
    }
    match (a, b) {
        (Value::String(x), Value::String(y)) => {
            str_shape(x) == str_shape(y) || digits_to_zero(x) == digits_to_zero(y)
        }
        _ => true,
    }
}

/// `[text, token, text, token, ..., text]`: tokens at odd indices. A token
/// is a uuid or a maximal run of ASCII letters and digits (rule 6).
pub(crate) fn split_tokens(s: &str) -> Vec<&str> {
    let b = s.as_bytes();
    let mut parts = Vec::new();
    let (mut pos, mut i) = (0, 0);
    while i < b.len() {
        if !b[i].is_ascii_alphanumeric() {
            i += 1;
            continue;
        }
        let end = if i + 36 <= b.len()
            && is_uuid(&s[i..i + 36])
            && b.get(i + 36).is_none_or(|c| !c.is_ascii_alphanumeric())
        {
            i + 36
        } else {
            let mut j = i;
            while j < b.len() && b[j].is_ascii_alphanumeric() {
                j += 1;
            }
            j
        };
        parts.push(&s[pos..i]);
        parts.push(&s[i..end]);
        pos = end;
        i = end;
    }
    parts.push(&s[pos..]);
    parts
}

/// The shape of one token: two tokens may stand for each other when their
/// kinds are equal (rule 6).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum TokenKind {
    Uuid { lower: bool },
    Digits(usize),
    Hex { len: usize, lower: bool },
    Other { len: usize, classes: u8 },
}

pub(crate) fn token_kind(t: &str) -> TokenKind {
    if is_uuid(t) {
        return TokenKind::Uuid {
            lower: t == t.to_ascii_lowercase(),
        };
    }
    if all_digits(t) {
        return TokenKind::Digits(t.chars().count());
    }
    let lower = t == t.to_ascii_lowercase();
    if !t.is_empty() && t.bytes().all(is_hex) && (lower || t == t.to_ascii_uppercase()) {
        return TokenKind::Hex {
            len: t.len(),
            lower,
        };
    }
    let mut classes = 0u8;
    for c in t.chars() {
        classes |= if c.is_ascii_digit() {
            1
        } else if c.is_lowercase() {
            2
        } else {
            4
        };
    }
    TokenKind::Other {
        len: t.chars().count(),
        classes,
    }
}

/// A token that may be a generated value inside any string: a uuid, or 8+
/// characters with at least 3 switches between a letter and a digit.
pub(crate) fn id_looking(t: &str) -> bool {
    if is_uuid(t) {
        return true;
    }
    let chars: Vec<char> = t.chars().collect();
    let switches = chars
        .windows(2)
        .filter(|w| w[0].is_ascii_digit() != w[1].is_ascii_digit())
        .count();
    chars.len() >= 8 && switches >= 3
}

pub(crate) fn is_digit_token(t: &str) -> bool {
    all_digits(t)
}

/// Replaces whole tokens by their mapped value, in one pass, longest key
/// first. A token is bounded by non-alphanumerics; a `%XX` escape right
/// before it counts as a boundary too.
pub(crate) fn sub_tokens(text: &str, mapping: &IndexMap<String, String>) -> String {
    if mapping.is_empty() || text.is_empty() {
        return text.to_string();
    }
    let mut keys: Vec<&String> = mapping
        .keys()
        .filter(|k| !k.is_empty() && text.contains(k.as_str()))
        .collect();
    if keys.is_empty() {
        return text.to_string();
    }
    keys.sort_by_key(|k| std::cmp::Reverse(k.len()));
    let b = text.as_bytes();
    let boundary_before = |i: usize| {
        i == 0
            || !b[i - 1].is_ascii_alphanumeric()
            || (i >= 3 && b[i - 3] == b'%' && is_hex(b[i - 2]) && is_hex(b[i - 1]))
    };
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if boundary_before(i) {
            let hit = keys.iter().find(|k| {
                text[i..].starts_with(k.as_str())
                    && b.get(i + k.len())
                        .is_none_or(|c| !c.is_ascii_alphanumeric())
            });
            if let Some(k) = hit {
                out.push_str(&mapping[k.as_str()]);
                i += k.len();
                continue;
            }
        }
        let c = text[i..].chars().next().expect("char boundary");
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// Replaces every mapped value (any position), one pass, longest first.
pub(crate) fn sub_anywhere(text: &str, keys: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if let Some((k, v)) = keys.iter().find(|(k, _)| text[i..].starts_with(k)) {
            out.push_str(v);
            i += k.len();
            continue;
        }
        let c = text[i..].chars().next().expect("char boundary");
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// Whether `needle` occurs in `hay` with no ASCII digit right before or
/// right after it (the harness's `(?<![0-9])…(?![0-9])`).
pub(crate) fn contains_number(hay: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return false;
    }
    let b = hay.as_bytes();
    hay.match_indices(needle).any(|(i, _)| {
        let before = i > 0 && b[i - 1].is_ascii_digit();
        let after = b.get(i + needle.len()).is_some_and(u8::is_ascii_digit);
        !before && !after
    })
}

/// The unit of an epoch number (index into `EPOCH_FACTORS`).
pub(crate) type EpochUnit = usize;
const EPOCH_MIN: i128 = 946_684_800; // 2000-01-01
const EPOCH_MAX: i128 = 4_102_444_800; // 2100-01-01
pub(crate) const EPOCH_FACTORS: [i128; 4] = [1, 1_000, 1_000_000, 1_000_000_000];

fn unit_of_int(v: i128) -> Option<EpochUnit> {
    EPOCH_FACTORS
        .iter()
        .position(|f| EPOCH_MIN * f <= v && v < EPOCH_MAX * f)
}

fn unit_of_float(v: f64) -> Option<EpochUnit> {
    EPOCH_FACTORS
        .iter()
        .position(|&f| (EPOCH_MIN * f) as f64 <= v && v < (EPOCH_MAX * f) as f64)
}

/// Rule 7: the unit in which a number (or digit string) reads as an instant
/// in 2000..2100 UTC, with the number itself; else `None`.
pub(crate) fn epoch_of(v: &Value) -> Option<(EpochUnit, f64)> {
    match v {
        Value::String(s) => epoch_of_str(s),
        Value::Number(n) => match as_int(v) {
            Some(i) => unit_of_int(i).map(|u| (u, i as f64)),
            None => {
                let f = n.as_f64()?;
                unit_of_float(f).map(|u| (u, f))
            }
        },
        _ => None,
    }
}

pub(crate) fn epoch_of_str(s: &str) -> Option<(EpochUnit, f64)> {
    if !EPOCH_STR_RE.is_match(s) {
        return None;
    }
    if s.contains('.') {
        let f: f64 = s.parse().ok()?;
        unit_of_float(f).map(|u| (u, f))
    } else {
        let i: i128 = s.parse().ok()?;
        unit_of_int(i).map(|u| (u, i as f64))
    }
}

pub(crate) fn epoch_unit(v: &Value) -> Option<EpochUnit> {
    epoch_of(v).map(|(u, _)| u)
}

/// Microseconds since the epoch of a civil UTC date-time, when Python's
/// `datetime` could hold it (years 1..=9999).
fn civil_us(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32, us: u32) -> Option<i64> {
    if !(1..=9999).contains(&y) {
        return None;
    }
    let date = chrono::NaiveDate::from_ymd_opt(y, mo, d)?;
    let t = chrono::NaiveTime::from_hms_micro_opt(h, mi, s, us)?;
    Some(date.and_time(t).and_utc().timestamp_micros())
}

const MIN_US: i64 = -62_135_596_800_000_000; // 0001-01-01
const MAX_US: i64 = 253_402_300_800_000_000; // 10000-01-01

/// An ISO-8601 date or date-time (the whole string) as its first and last
/// instant, UTC microseconds: a date covers its UTC day, a date-time without
/// zone reads as UTC.
pub(crate) fn parse_iso(s: &str) -> Option<(i64, i64)> {
    if let Some(m) = ISO_DATETIME_RE.captures(s) {
        let n = |i: usize| m[i].parse::<u32>().ok();
        let frac = m.get(8).map_or("", |f| &f.as_str()[1..]);
        let micros: u32 = format!("{frac}000000")[..6].parse().ok()?;
        let mut t = civil_us(
            m[1].parse().ok()?,
            n(2)?,
            n(3)?,
            n(5)?,
            n(6)?,
            n(7)?,
            micros,
        )?;
        if let Some(zone) = m.get(9).map(|z| z.as_str()).filter(|z| *z != "Z") {
            let sign: i64 = if zone.starts_with('-') { -1 } else { 1 };
            let digits = zone[1..].replace(':', "");
            let hours: i64 = digits[..2].parse().ok()?;
            let minutes: i64 = if digits.len() >= 4 {
                digits[2..4].parse().ok()?
            } else {
                0
            };
            t -= sign * (hours * 3600 + minutes * 60) * 1_000_000;
            if !(MIN_US..MAX_US).contains(&t) {
                return None;
            }
        }
        return Some((t, t));
    }
    let m = ISO_DATE_RE.captures(s)?;
    let t = civil_us(
        m[1].parse().ok()?,
        m[2].parse().ok()?,
        m[3].parse().ok()?,
        0,
        0,
        0,
        0,
    )?;
    Some((t, t + 24 * 3600 * 1_000_000))
}

/// The format class of an ISO-8601 string (rule 5): a date; or a date-time
/// by separator, fraction or none, and zone form.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum IsoClass {
    Date,
    DateTime {
        sep: String,
        fraction: bool,
        zone: String,
    },
}

pub(crate) fn iso_class(v: &Value) -> Option<IsoClass> {
    let s = v.as_str()?;
    parse_iso(s)?;
    let Some(m) = ISO_DATETIME_RE.captures(s) else {
        return Some(IsoClass::Date);
    };
    let zone = m.get(9).map_or("", |z| z.as_str());
    let zone = if zone.is_empty() || zone == "Z" {
        zone.to_string()
    } else {
        format!("+{}", digits_to_zero(&zone[1..]))
    };
    Some(IsoClass::DateTime {
        sep: m[4].to_string(),
        fraction: m.get(8).is_some(),
        zone,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tokens_split_uuids_and_alphanumeric_runs() {
        let u = "8f0c2a6e-4b1d-4e7a-9c35-d2f6a1b80e47";
        let s = format!("store:/5/{u}/artifacts");
        assert_eq!(
            split_tokens(&s),
            ["", "store", ":/", "5", "/", u, "/", "artifacts", ""]
        );
        assert_eq!(split_tokens("--"), ["--"]);
        assert_eq!(split_tokens("a"), ["", "a", ""]);
    }

    #[test]
    fn sub_tokens_replaces_whole_tokens_only() {
        let mut m = IndexMap::new();
        m.insert("abc123de".to_string(), "XYZ".to_string());
        assert_eq!(sub_tokens("/r/abc123de/x", &m), "/r/XYZ/x");
        assert_eq!(sub_tokens("abc123def", &m), "abc123def");
        assert_eq!(sub_tokens("q=%27abc123de%27", &m), "q=%27XYZ%27");
    }

    #[test]
    fn id_looking_needs_mixed_letters_and_digits() {
        assert!(id_looking("bc85b9d9a1f2"));
        assert!(id_looking("507f1f77bcf86cd799439011"));
        assert!(!id_looking("model2024"));
        assert!(!id_looking("utf8mb4"));
        assert!(!id_looking("v2beta1"));
    }

    #[test]
    fn iso_dates_parse_and_classify() {
        assert!(parse_iso("2026-11-30").is_some());
        assert!(parse_iso("2026-11-30T17:25:56.123+00:00").is_some());
        assert!(parse_iso("2026-02-30").is_none());
        assert!(parse_iso("0000-01-01").is_none());
        let (a, _) = parse_iso("2026-11-30T12:00:00+01:00").unwrap();
        let (b, _) = parse_iso("2026-11-30T11:00:00Z").unwrap();
        assert_eq!(a, b);
        assert_eq!(
            iso_class(&json!("2026-11-30T17:25:56+0100")),
            iso_class(&json!("2020-01-01T00:00:00-0500"))
        );
        assert_ne!(
            iso_class(&json!("2026-11-30T17:25:56Z")),
            iso_class(&json!("2026-11-30 17:25:56Z"))
        );
    }

    #[test]
    fn epoch_units_follow_the_magnitude() {
        assert_eq!(epoch_unit(&json!(1717408800)), Some(0));
        assert_eq!(epoch_unit(&json!(1717408800000_i64)), Some(1));
        assert_eq!(epoch_unit(&json!("1717408800000")), Some(1));
        assert_eq!(epoch_unit(&json!(42)), None);
        assert_eq!(epoch_unit(&json!(true)), None);
    }

    #[test]
    fn numbers_are_found_only_whole() {
        assert!(contains_number("a 1234 b", "1234"));
        assert!(!contains_number("a 12345 b", "1234"));
        assert!(!contains_number("a 01234", "1234"));
    }

    #[test]
    fn origins_normalize() {
        assert_eq!(
            norm_origin("http://127.0.0.1:8888/v1/ and localhost:5000"),
            "<origin>/v1/ and <origin>"
        );
    }
}
