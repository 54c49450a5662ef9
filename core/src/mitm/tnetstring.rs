//! The tnetstring reader: mitmproxy's typed netstrings (`LEN:DATA TAG`)
//! read into native values with the upstream `mitmproxy.io.tnetstring`
//! semantics (dictionary last-value rule, Python integer and float
//! literals), under a nesting budget; plus the bare framing scan the
//! benchmark compares against.

use std::fmt;

/// The nesting budget (lists and dictionaries), as for every rea decoder.
pub const MAX_DEPTH: usize = 64;
/// Upstream refuses a top-level length prefix of more than 12 digits.
pub const MAX_PREFIX_DIGITS: usize = 12;

/// One native value, as `mitmproxy.io.tnetstring` would return it.
#[derive(Debug, Clone, PartialEq)]
pub enum Native {
    /// `,` bytes.
    Bytes(Vec<u8>),
    /// `;` text (mitmproxy's unicode extension), always valid UTF-8.
    Str(String),
    /// `#` integer of any size, as its canonical decimal (`str(int)`).
    Int(String),
    /// `^` float, the parsed double (its spelling in the file is not kept).
    Float(f64),
    /// `!` boolean.
    Bool(bool),
    /// `~` null.
    Null,
    /// `]` list.
    List(Vec<Native>),
    /// `}` dictionary in first-insertion order; a repeated key keeps its
    /// first position and takes the last value.
    Dict(Vec<(Native, Native)>),
}

/// Why a tnetstring could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// The length prefix is missing, not decimal or longer than 12 digits.
    InvalidLengthPrefix,
    /// A top-level length prefix runs past the end of the file (truncated).
    LengthPastEnd,
    /// An inner length prefix runs past its container's payload (a wrong prefix).
    LengthPastContainer,
    /// The type tag is none of `, ; # ^ ! ~ ] }`.
    UnknownTypeTag(u8),
    /// The payload is not valid for its tag (integer, float, boolean, null, UTF-8).
    InvalidLiteral(&'static str),
    /// A dictionary key that Python could not hash (a list or dictionary).
    UnhashableKey,
    /// Lists and dictionaries nest deeper than [`MAX_DEPTH`].
    TooDeep,
}

/// A read failure at a byte offset of the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    /// Offset of the tnetstring (its length prefix) that failed.
    pub offset: usize,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::InvalidLengthPrefix => {
                write!(f, "missing or invalid length prefix at byte {}", self.offset)
            }
            ErrorKind::LengthPastEnd => write!(
                f,
                "the length prefix at byte {} runs past the end of the data (truncated or wrong length)",
                self.offset
            ),
            ErrorKind::LengthPastContainer => write!(
                f,
                "the length prefix at byte {} runs past the end of its enclosing list or dictionary (a wrong length prefix)",
                self.offset
            ),
            ErrorKind::UnknownTypeTag(tag) => write!(
                f,
                "unknown type tag 0x{tag:02x} after the payload at byte {}",
                self.offset
            ),
            ErrorKind::InvalidLiteral(what) => {
                write!(f, "invalid {what} literal at byte {}", self.offset)
            }
            ErrorKind::UnhashableKey => write!(
                f,
                "a dictionary key at byte {} is a list or dictionary",
                self.offset
            ),
            ErrorKind::TooDeep => write!(
                f,
                "nesting deeper than {MAX_DEPTH} levels at byte {}",
                self.offset
            ),
        }
    }
}

/// One top-level tnetstring of a file and where it was.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub offset: usize,
    pub length: usize,
    pub value: Native,
}

/// Reads every top-level tnetstring of a flow file, in order. An empty
/// input has none.
pub fn read_all(bytes: &[u8]) -> Result<Vec<Item>, Error> {
    let mut items = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let (value, end) = read_one(bytes, at, 0)?;
        items.push(Item {
            offset: at,
            length: end - at,
            value,
        });
        at = end;
    }
    Ok(items)
}

/// The framing of one tnetstring at `at` within `bytes`: payload range and tag.
fn frame(bytes: &[u8], at: usize, depth: usize) -> Result<(usize, usize, u8), Error> {
    let fail = |kind| Error { kind, offset: at };
    let mut i = at;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
    }
    let digits = i - at;
    if digits == 0 || digits > MAX_PREFIX_DIGITS || bytes.get(i) != Some(&b':') {
        return Err(fail(ErrorKind::InvalidLengthPrefix));
    }
    // At most 12 digits: always fits in u64.
    let length: u64 = bytes[at..i]
        .iter()
        .fold(0, |n, d| n * 10 + u64::from(d - b'0'));
    let start = i + 1;
    let end = usize::try_from(length)
        .ok()
        .and_then(|l| start.checked_add(l))
        .filter(|&e| e < bytes.len())
        .ok_or_else(|| {
            fail(if depth == 0 {
                ErrorKind::LengthPastEnd
            } else {
                ErrorKind::LengthPastContainer
            })
        })?;
    Ok((start, end, bytes[end]))
}

/// Reads one tnetstring at `at`; returns it and the offset after its tag.
/// `bytes` ends where the enclosing container's payload ends.
fn read_one(bytes: &[u8], at: usize, depth: usize) -> Result<(Native, usize), Error> {
    let (start, end, tag) = frame(bytes, at, depth)?;
    let fail = |kind| Error { kind, offset: at };
    let data = &bytes[start..end];
    let value = match tag {
        b',' => Native::Bytes(data.to_vec()),
        b';' => match std::str::from_utf8(data) {
            Ok(text) => Native::Str(text.to_string()),
            Err(_) => return Err(fail(ErrorKind::InvalidLiteral("UTF-8 text"))),
        },
        b'#' => {
            Native::Int(python_int(data).ok_or_else(|| fail(ErrorKind::InvalidLiteral("integer")))?)
        }
        b'^' => Native::Float(
            python_float(data).ok_or_else(|| fail(ErrorKind::InvalidLiteral("float")))?,
        ),
        b'!' => match data {
            b"true" => Native::Bool(true),
            b"false" => Native::Bool(false),
            _ => return Err(fail(ErrorKind::InvalidLiteral("boolean"))),
        },
        b'~' if data.is_empty() => Native::Null,
        b'~' => return Err(fail(ErrorKind::InvalidLiteral("null"))),
        b']' | b'}' => {
            if depth >= MAX_DEPTH {
                return Err(fail(ErrorKind::TooDeep));
            }
            let inner = &bytes[..end];
            let mut pos = start;
            if tag == b']' {
                let mut items = Vec::new();
                while pos < end {
                    let (item, next) = read_one(inner, pos, depth + 1)?;
                    items.push(item);
                    pos = next;
                }
                Native::List(items)
            } else {
                let mut pairs: Vec<(Native, Native)> = Vec::new();
                while pos < end {
                    let key_at = pos;
                    let (key, next) = read_one(inner, pos, depth + 1)?;
                    if matches!(key, Native::List(_) | Native::Dict(_)) {
                        return Err(Error {
                            kind: ErrorKind::UnhashableKey,
                            offset: key_at,
                        });
                    }
                    // Upstream pops the value even at the end of the payload and fails there.
                    if next >= end {
                        return Err(Error {
                            kind: ErrorKind::InvalidLengthPrefix,
                            offset: next,
                        });
                    }
                    let (value, after) = read_one(inner, next, depth + 1)?;
                    match pairs.iter_mut().find(|(k, _)| python_key_eq(k, &key)) {
                        Some(slot) => slot.1 = value,
                        None => pairs.push((key, value)),
                    }
                    pos = after;
                }
                Native::Dict(pairs)
            }
        }
        other => return Err(fail(ErrorKind::UnknownTypeTag(other))),
    };
    Ok((value, end + 1))
}

/// Python key equality for hashable natives: bytes and text never equal
/// each other; numbers and booleans compare by value (`1 == 1.0 == True`).
fn python_key_eq(a: &Native, b: &Native) -> bool {
    match (a, b) {
        (Native::Str(x), Native::Str(y)) => return x == y,
        (Native::Bytes(x), Native::Bytes(y)) => return x == y,
        (Native::Str(_), Native::Bytes(_)) | (Native::Bytes(_), Native::Str(_)) => return false,
        _ => {}
    }
    match (numeric_key(a), numeric_key(b)) {
        (Some(x), Some(y)) => x == y,
        (None, None) => a == b,
        _ => false,
    }
}

/// A number key's value for comparison: integers exactly as decimal text,
/// floats only when they are integral and exactly representable.
fn numeric_key(v: &Native) -> Option<String> {
    match v {
        Native::Bool(b) => Some(if *b { "1" } else { "0" }.to_string()),
        Native::Int(s) => Some(s.clone()),
        Native::Float(f) if f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15 => {
            Some(format!("{}", *f as i64))
        }
        Native::Float(f) => Some(format!("f{:?}", f)),
        _ => None,
    }
}

/// Python's `int(bytes)` for base 10: surrounding ASCII whitespace, one
/// sign, digits with single underscores between them. Returns the
/// canonical decimal (`str(int(...))`).
pub fn python_int(data: &[u8]) -> Option<String> {
    // Fast path: the canonical spelling mitmproxy writes (`str(int)`).
    let digits = data.strip_prefix(b"-").unwrap_or(data);
    if !digits.is_empty()
        && digits.iter().all(u8::is_ascii_digit)
        && (digits[0] != b'0' || digits.len() == 1)
        && data != b"-0"
    {
        return std::str::from_utf8(data).ok().map(str::to_string);
    }
    let text = std::str::from_utf8(data).ok()?.trim_matches(is_py_space);
    let (negative, body) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let digits = without_underscores(body)?;
    let trimmed = digits.trim_start_matches('0');
    let canonical = if trimmed.is_empty() { "0" } else { trimmed };
    Some(if negative && canonical != "0" {
        format!("-{canonical}")
    } else {
        canonical.to_string()
    })
}

/// Python's `float(bytes)`: whitespace, sign, decimal literals with
/// underscores between digits, `inf`/`infinity`/`nan` in any case.
pub fn python_float(data: &[u8]) -> Option<f64> {
    // Fast path: plain decimal spellings, where Rust's and Python's grammars agree.
    if !data.is_empty()
        && data
            .iter()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return std::str::from_utf8(data).ok()?.parse::<f64>().ok();
    }
    let text = std::str::from_utf8(data).ok()?.trim_matches(is_py_space);
    let (sign, body) = match text.as_bytes().first()? {
        b'-' => (-1.0, &text[1..]),
        b'+' => (1.0, &text[1..]),
        _ => (1.0, text),
    };
    let lower = body.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" {
        return Some(sign * f64::INFINITY);
    }
    if lower == "nan" {
        return Some(f64::NAN);
    }
    // Mantissa digits [. digits] [e [sign] digits], underscores only between digits.
    let (mantissa, exponent) = match lower.find('e') {
        Some(at) => (&lower[..at], Some(&lower[at + 1..])),
        None => (lower.as_str(), None),
    };
    let (whole, fraction) = match mantissa.find('.') {
        Some(at) => (&mantissa[..at], Some(&mantissa[at + 1..])),
        None => (mantissa, None),
    };
    let whole = if whole.is_empty() {
        String::new()
    } else {
        without_underscores(whole)?
    };
    let fraction = match fraction {
        Some("") | None => String::new(),
        Some(f) => without_underscores(f)?,
    };
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    let mut clean = format!("{whole}.{fraction}");
    if let Some(e) = exponent {
        let (esign, edigits) = match e.as_bytes().first()? {
            b'-' => ("-", &e[1..]),
            b'+' => ("", &e[1..]),
            _ => ("", e),
        };
        clean.push('e');
        clean.push_str(esign);
        clean.push_str(&without_underscores(edigits)?);
    }
    clean.parse::<f64>().ok().map(|v| sign * v)
}

fn is_py_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
}

/// ASCII digits with single underscores strictly between digits, underscores removed.
fn without_underscores(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    if bytes.is_empty() || !bytes[0].is_ascii_digit() || !bytes[bytes.len() - 1].is_ascii_digit() {
        return None;
    }
    let mut out = String::with_capacity(bytes.len());
    let mut previous_underscore = false;
    for &b in bytes {
        match b {
            b'0'..=b'9' => {
                out.push(b as char);
                previous_underscore = false;
            }
            b'_' if !previous_underscore => previous_underscore = true,
            _ => return None,
        }
    }
    Some(out)
}

/// Python's `repr(float)`: the shortest round-trip digits, fixed notation
/// for decimal exponents -4..16, scientific (`1e+16`, `1.5e-05`) otherwise.
pub fn python_float_repr(value: f64) -> String {
    if value.is_nan() {
        return "nan".to_string();
    }
    if value.is_infinite() {
        return if value > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    let sci = format!("{:e}", value.abs()); // e.g. "1.2345e3", shortest round-trip
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let sign = if value.is_sign_negative() { "-" } else { "" };
    let n = digits.len() as i32;
    let decpt = exp + 1;
    let body = if -4 < decpt && decpt <= 16 {
        if decpt <= 0 {
            format!("0.{}{}", "0".repeat((-decpt) as usize), digits)
        } else if decpt >= n {
            format!("{}{}.0", digits, "0".repeat((decpt - n) as usize))
        } else {
            format!(
                "{}.{}",
                &digits[..decpt as usize],
                &digits[decpt as usize..]
            )
        }
    } else {
        let rest = &digits[1..];
        let e = decpt - 1;
        let esign = if e < 0 { '-' } else { '+' };
        if rest.is_empty() {
            format!("{}e{}{:02}", &digits[..1], esign, e.abs())
        } else {
            format!("{}.{}e{}{:02}", &digits[..1], rest, esign, e.abs())
        }
    };
    format!("{sign}{body}")
}

/// The bare framing scan: walks every length prefix and type tag of the
/// input, descending into containers, without materializing any value.
/// Returns the number of tnetstrings seen. The benchmark's baseline.
pub fn scan(bytes: &[u8]) -> Result<usize, Error> {
    fn walk(bytes: &[u8], at: usize, depth: usize, count: &mut usize) -> Result<usize, Error> {
        let (start, end, tag) = frame(bytes, at, depth)?;
        *count += 1;
        if tag == b']' || tag == b'}' {
            if depth >= MAX_DEPTH {
                return Err(Error {
                    kind: ErrorKind::TooDeep,
                    offset: at,
                });
            }
            let inner = &bytes[..end];
            let mut pos = start;
            while pos < end {
                pos = walk(inner, pos, depth + 1, count)?;
            }
        }
        Ok(end + 1)
    }
    let mut count = 0;
    let mut at = 0;
    while at < bytes.len() {
        at = walk(bytes, at, 0, &mut count)?;
    }
    Ok(count)
}

/// Writes a native value as a tnetstring the way upstream `dumps` does
/// (floats by their Python repr). For tests and benchmarks.
pub fn dumps(value: &Native) -> Vec<u8> {
    let mut out = Vec::new();
    write(value, &mut out);
    out
}

fn write(value: &Native, out: &mut Vec<u8>) {
    let (data, tag): (Vec<u8>, u8) = match value {
        Native::Bytes(b) => (b.clone(), b','),
        Native::Str(s) => (s.as_bytes().to_vec(), b';'),
        Native::Int(t) => (t.as_bytes().to_vec(), b'#'),
        Native::Float(f) => (python_float_repr(*f).into_bytes(), b'^'),
        Native::Bool(b) => (
            if *b {
                b"true".to_vec()
            } else {
                b"false".to_vec()
            },
            b'!',
        ),
        Native::Null => (Vec::new(), b'~'),
        Native::List(items) => {
            let mut inner = Vec::new();
            for item in items {
                write(item, &mut inner);
            }
            (inner, b']')
        }
        Native::Dict(pairs) => {
            let mut inner = Vec::new();
            for (k, v) in pairs {
                write(k, &mut inner);
                write(v, &mut inner);
            }
            (inner, b'}')
        }
    };
    out.extend_from_slice(data.len().to_string().as_bytes());
    out.push(b':');
    out.extend_from_slice(&data);
    out.push(tag);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &[u8]) -> Result<Native, Error> {
        read_all(text).map(|mut items| items.remove(0).value)
    }

    #[test]
    fn reads_every_type_tag() {
        assert_eq!(one(b"5:hello,").unwrap(), Native::Bytes(b"hello".to_vec()));
        assert_eq!(
            one("5:caf\u{e9};".as_bytes()).unwrap(),
            Native::Str("café".into())
        );
        assert_eq!(one(b"5:12345#").unwrap(), Native::Int("12345".into()));
        assert_eq!(one(b"3:1.5^").unwrap(), Native::Float(1.5));
        assert_eq!(one(b"4:true!").unwrap(), Native::Bool(true));
        assert_eq!(one(b"5:false!").unwrap(), Native::Bool(false));
        assert_eq!(one(b"0:~").unwrap(), Native::Null);
        assert_eq!(
            one(b"19:5:12345#4:true!1:0#]").unwrap(),
            Native::List(vec![
                Native::Int("12345".into()),
                Native::Bool(true),
                Native::Int("0".into())
            ])
        );
    }

    #[test]
    fn duplicate_dict_keys_keep_the_first_position_and_the_last_value() {
        // {a: 1, b: 2, a: 3} -> a: 3 first, then b (EVD-18).
        let d = one(b"24:1:a;1:1#1:b;1:2#1:a;1:3#}").unwrap();
        assert_eq!(
            d,
            Native::Dict(vec![
                (Native::Str("a".into()), Native::Int("3".into())),
                (Native::Str("b".into()), Native::Int("2".into())),
            ])
        );
        // bytes b"a" and text "a" are different Python keys.
        let d = one(b"16:1:a;1:1#1:a,1:2#}").unwrap();
        let Native::Dict(pairs) = d else { panic!() };
        assert_eq!(pairs.len(), 2);
    }

    #[test]
    fn python_number_literals() {
        assert_eq!(
            python_int(b"18446744073709551616").as_deref(),
            Some("18446744073709551616")
        );
        assert_eq!(python_int(b" +0_07 ").as_deref(), Some("7"));
        assert_eq!(python_int(b"-0").as_deref(), Some("0"));
        assert_eq!(python_int(b"1__0"), None);
        assert_eq!(python_int(b"0x10"), None);
        assert!(python_float(b"nan").unwrap().is_nan());
        assert_eq!(python_float(b"-Infinity"), Some(f64::NEG_INFINITY));
        assert_eq!(python_float(b"1_0.5e1"), Some(105.0));
        assert_eq!(python_float(b".5"), Some(0.5));
        assert_eq!(python_float(b"5."), Some(5.0));
        assert_eq!(python_float(b"."), None);
        assert_eq!(python_float(b"1e"), None);
    }

    #[test]
    fn float_repr_matches_python() {
        for (v, text) in [
            (1.5, "1.5"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (-0.0, "-0.0"),
            (1796059295.0144958, "1796059295.0144958"),
            (123456789012345680.0, "1.2345678901234568e+17"),
            (f64::NAN, "nan"),
            (f64::NEG_INFINITY, "-inf"),
            (3.0, "3.0"),
        ] {
            assert_eq!(python_float_repr(v), text);
        }
    }

    #[test]
    fn hostile_framing_is_refused_with_its_offset() {
        let kind = |b: &[u8]| read_all(b).unwrap_err().kind;
        assert_eq!(kind(b"9:hello,"), ErrorKind::LengthPastEnd);
        assert_eq!(kind(b"3:hello,"), ErrorKind::UnknownTypeTag(b'l'));
        assert_eq!(kind(b"5:hello?"), ErrorKind::UnknownTypeTag(b'?'));
        assert_eq!(kind(b"x:hello,"), ErrorKind::InvalidLengthPrefix);
        assert_eq!(kind(b"1234567890123:a,"), ErrorKind::InvalidLengthPrefix);
        assert_eq!(kind(b"3:abc#"), ErrorKind::InvalidLiteral("integer"));
        assert_eq!(
            kind(b"2:\xff\xfe;"),
            ErrorKind::InvalidLiteral("UTF-8 text")
        );
        assert_eq!(kind(b"4:1:a]}"), ErrorKind::InvalidLengthPrefix);
        // A container's inner prefix may not run past its own payload.
        assert_eq!(kind(b"6:5:ab,]]"), ErrorKind::LengthPastContainer);
        let err = read_all(b"0:~5:hel").unwrap_err();
        assert_eq!((err.kind, err.offset), (ErrorKind::LengthPastEnd, 3));
        assert_eq!(kind(b"6:0:]0:~}"), ErrorKind::UnhashableKey);
    }

    #[test]
    fn nesting_past_the_budget_is_refused() {
        fn nest(levels: usize) -> Vec<u8> {
            let mut inner = b"0:~".to_vec();
            for _ in 0..levels {
                let mut outer = format!("{}:", inner.len()).into_bytes();
                outer.extend_from_slice(&inner);
                outer.push(b']');
                inner = outer;
            }
            inner
        }
        assert!(read_all(&nest(MAX_DEPTH)).is_ok());
        assert_eq!(
            read_all(&nest(MAX_DEPTH + 1)).unwrap_err().kind,
            ErrorKind::TooDeep
        );
        assert_eq!(
            scan(&nest(MAX_DEPTH + 1)).unwrap_err().kind,
            ErrorKind::TooDeep
        );
        assert_eq!(scan(&nest(3)).unwrap(), 4);
    }
}
