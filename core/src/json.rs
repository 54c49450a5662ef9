//! The lossless JSON reader: one pass over UTF-8 bytes into a
//! `serde_json::Value`, refusing duplicate keys (after unescaping) and
//! nesting deeper than 64 levels, keeping every number's original lexeme
//! when its `serde_json` spelling would differ, and `null` for numbers an
//! IEEE-754 double cannot reproduce. `is_safe_number` is the one safety
//! test every rea stage uses.

use serde::{Deserialize, Serialize};
use serde_json::map::Entry;
use serde_json::{Map, Number, Value};
use std::fmt;
use std::ops::Range;
use std::time::Instant;

/// The deepest container nesting a document may have.
pub const MAX_DEPTH: usize = 64;

/// The original spelling of one number whose `serde_json` spelling differs
/// from it (or that is unsafe and therefore `null`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NumericLiteral {
    /// Absolute JSON pointer into the document.
    pub pointer: String,
    /// The number exactly as written.
    pub lexeme: String,
    /// Whether an IEEE-754 double reproduces it (`is_safe_number`).
    pub safe: bool,
}

/// A parsed document and its numeric sidecars, in document order.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    pub value: Value,
    pub numeric_literals: Vec<NumericLiteral>,
}

/// What went wrong while reading JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum JsonErrorKind {
    /// The bytes are not UTF-8.
    InvalidUtf8,
    /// The text is not JSON (including truncation and trailing text).
    Syntax,
    /// An object names the same member twice (after unescaping).
    DuplicateKey,
    /// Containers nest deeper than `MAX_DEPTH`.
    TooDeep,
    /// The caller's deadline passed while reading.
    Timeout,
}

/// A refusal with its location: byte offset, line and column (1-based),
/// and the JSON pointer of the value being read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    pub kind: JsonErrorKind,
    pub message: String,
    pub offset: usize,
    pub line: usize,
    pub column: usize,
    pub pointer: String,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at line {}, column {}",
            self.message, self.line, self.column
        )
    }
}

impl std::error::Error for JsonError {}

/// Reading options.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Stop with `JsonErrorKind::Timeout` once this instant has passed
    /// (checked every few thousand values).
    pub deadline: Option<Instant>,
}

/// Reads one JSON document.
pub fn parse(bytes: &[u8]) -> Result<Parsed, JsonError> {
    parse_with(bytes, Options::default())
}

/// Reads one JSON document with options. A leading UTF-8 byte order mark
/// is skipped.
pub fn parse_with(bytes: &[u8], options: Options) -> Result<Parsed, JsonError> {
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let offset = e.valid_up_to();
            let (line, column) = line_column(&bytes[..offset]);
            return Err(JsonError {
                kind: JsonErrorKind::InvalidUtf8,
                message: "the file is not valid UTF-8".to_string(),
                offset,
                line,
                column,
                pointer: String::new(),
            });
        }
    };
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let mut parser = Parser {
        src: text,
        bytes: text.as_bytes(),
        pos: start,
        path: Vec::new(),
        literals: Vec::new(),
        depth: 0,
        ticks: 0,
        deadline: options.deadline,
    };
    parser.skip_ws();
    let value = parser.parse_value()?;
    parser.skip_ws();
    if parser.pos != parser.bytes.len() {
        return Err(parser.error(
            JsonErrorKind::Syntax,
            "unexpected text after the JSON document",
        ));
    }
    Ok(Parsed {
        value,
        numeric_literals: parser.literals,
    })
}

/// Whether an IEEE-754 double reproduces this JSON number lexeme: an
/// integer lexeme is safe when its magnitude is at most 2^53 − 1 (the rule
/// of `lossless-json` 4.3.1's `isSafeNumber`); any other lexeme is safe when
/// the nearest double is finite and holds it as spelled, that is when its
/// shortest spelling has the same significant digits or, for spellings of
/// at most 17 significant digits, printing the double with that many
/// digits gives them back (`66.929100036621094`). Text that is not a JSON
/// number is unsafe.
pub fn is_safe_number(lexeme: &str) -> bool {
    let Some(shape) = number_shape(lexeme.as_bytes()) else {
        return false;
    };
    if shape.integer {
        return integer_is_safe(lexeme);
    }
    let Ok(value) = lexeme.parse::<f64>() else {
        return false;
    };
    float_is_safe(lexeme, value, &mut zmij::Buffer::new())
}

const MAX_SAFE_INTEGER: u64 = 9_007_199_254_740_991;

fn integer_is_safe(lexeme: &str) -> bool {
    let digits = lexeme.strip_prefix('-').unwrap_or(lexeme);
    let digits = digits.trim_start_matches('0');
    digits.len() <= 16
        && digits
            .parse::<u64>()
            .map_or(digits.is_empty(), |v| v <= MAX_SAFE_INTEGER)
}

/// The most significant digits a spelling may have and still be one a
/// double holds: 17 always tell any two doubles apart.
const MAX_DOUBLE_DIGITS: usize = 17;

/// Whether the finite double `value`, parsed from `lexeme`, holds the number
/// as spelled: its shortest spelling has the same significant digits, or
/// printing the double with as many significant digits as the lexeme has
/// (at most 17, e.g. `66.929100036621094`, the `%.17g` spelling) gives
/// them back. Such a spelling parses back to the same double, so nothing
/// is lost. Longer spellings name decimals no double holds.
fn float_is_safe(lexeme: &str, value: f64, buffer: &mut zmij::Buffer) -> bool {
    if !value.is_finite() {
        return false;
    }
    let shortest = buffer.format_finite(value);
    if lexeme == shortest || significant_digits_equal(lexeme, shortest) {
        return true;
    }
    let digits = significant_range(lexeme).filter(|&c| c != b'.').count();
    if digits == 0 || digits > MAX_DOUBLE_DIGITS {
        return false;
    }
    let printed = format!("{:.*e}", digits - 1, value);
    significant_digits_equal(lexeme, &printed)
}

/// Compares the significant digits of two number spellings: sign, leading
/// zeros, the dot, trailing zeros and the exponent are ignored.
fn significant_digits_equal(a: &str, b: &str) -> bool {
    let a = significant_range(a);
    let b = significant_range(b);
    a.filter(|&c| c != b'.').eq(b.filter(|&c| c != b'.'))
}

fn significant_range(text: &str) -> impl Iterator<Item = u8> + '_ {
    let bytes = text.as_bytes();
    let mut start = usize::from(bytes.first() == Some(&b'-'));
    while start < bytes.len() && matches!(bytes[start], b'0' | b'.') {
        start += 1;
    }
    let mut end = bytes
        .iter()
        .rposition(|&c| c == b'e' || c == b'E')
        .unwrap_or(bytes.len());
    while end > start && matches!(bytes[end - 1], b'0' | b'.') {
        end -= 1;
    }
    bytes[start..end.max(start)].iter().copied()
}

#[derive(Clone, Copy)]
struct Shape {
    integer: bool,
}

/// Checks JSON number grammar over a whole lexeme.
fn number_shape(bytes: &[u8]) -> Option<Shape> {
    let mut i = usize::from(bytes.first() == Some(&b'-'));
    match bytes.get(i)? {
        b'0' => i += 1,
        b'1'..=b'9' => {
            while bytes.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
        }
        _ => return None,
    }
    let (end, integer) = scan_fraction_and_exponent(bytes, i).ok()?;
    (end == bytes.len()).then_some(Shape { integer })
}

/// Scans the optional `.digits` and `e±digits` parts of a JSON number that
/// start at `i`. Returns where the number ends and whether it is still an
/// integer lexeme, or the position and reason of a grammar error.
fn scan_fraction_and_exponent(
    bytes: &[u8],
    mut i: usize,
) -> Result<(usize, bool), (usize, &'static str)> {
    let mut integer = true;
    if bytes.get(i) == Some(&b'.') {
        integer = false;
        i += 1;
        let from = i;
        while bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == from {
            return Err((i, "invalid number: a digit was expected after '.'"));
        }
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        integer = false;
        i += 1;
        if matches!(bytes.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let from = i;
        while bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == from {
            return Err((i, "invalid number: a digit was expected in the exponent"));
        }
    }
    Ok((i, integer))
}

/// Escapes one reference token of a JSON pointer (`~` → `~0`, `/` → `~1`).
pub fn escape_token(token: &str, out: &mut String) {
    if !token.contains(['~', '/']) {
        out.push_str(token);
        return;
    }
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}

fn line_column(prefix: &[u8]) -> (usize, usize) {
    let line = prefix.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = prefix
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let column = String::from_utf8_lossy(&prefix[line_start..])
        .chars()
        .count()
        + 1;
    (line, column)
}

/// One step of the path from the root to the value being read.
enum Segment {
    /// An object member, by the raw (still escaped) byte range of its name.
    Key(Range<usize>),
    Index(usize),
}

struct Parser<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    path: Vec<Segment>,
    literals: Vec<NumericLiteral>,
    depth: usize,
    ticks: u32,
    deadline: Option<Instant>,
}

/// Bytes that end a run of plain string characters.
const fn stop_table() -> [bool; 256] {
    let mut table = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        table[i] = true;
        i += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
}
static STOP: [bool; 256] = stop_table();

impl<'a> Parser<'a> {
    fn error(&self, kind: JsonErrorKind, message: impl Into<String>) -> JsonError {
        let offset = self.pos.min(self.bytes.len());
        let (line, column) = line_column(&self.bytes[..offset]);
        JsonError {
            kind,
            message: message.into(),
            offset,
            line,
            column,
            pointer: self.pointer(),
        }
    }

    /// The JSON pointer of the current path, built only when needed.
    fn pointer(&self) -> String {
        let mut out = String::new();
        for segment in &self.path {
            out.push('/');
            match segment {
                Segment::Index(i) => {
                    use std::fmt::Write;
                    let _ = write!(out, "{i}");
                }
                Segment::Key(range) => {
                    let raw = &self.src[range.clone()];
                    if raw.contains('\\') {
                        let decoded = unescape_lossy(raw);
                        escape_token(&decoded, &mut out);
                    } else {
                        escape_token(raw, &mut out);
                    }
                }
            }
        }
        out
    }

    #[inline]
    fn skip_ws(&mut self) {
        while let Some(&b) = self.bytes.get(self.pos) {
            if matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn tick(&mut self) -> Result<(), JsonError> {
        self.ticks = self.ticks.wrapping_add(1);
        if self.ticks & 0x3fff == 0 {
            if let Some(deadline) = self.deadline {
                if Instant::now() >= deadline {
                    return Err(self.error(
                        JsonErrorKind::Timeout,
                        "the capture timeout passed while reading JSON",
                    ));
                }
            }
        }
        Ok(())
    }

    fn parse_value(&mut self) -> Result<Value, JsonError> {
        self.tick()?;
        match self.bytes.get(self.pos) {
            None => Err(self.error(
                JsonErrorKind::Syntax,
                "unexpected end of input: a value was expected",
            )),
            Some(b'{') => self.parse_object(),
            Some(b'[') => self.parse_array(),
            Some(b'"') => Ok(Value::String(self.parse_string()?.0)),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.parse_number(),
            Some(_) => Err(self.error(
                JsonErrorKind::Syntax,
                "unexpected character: a value was expected",
            )),
        }
    }

    fn literal(&mut self, word: &str, value: Value) -> Result<Value, JsonError> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.error(
                JsonErrorKind::Syntax,
                "invalid literal: expected true, false or null",
            ))
        }
    }

    fn enter(&mut self) -> Result<(), JsonError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error(
                JsonErrorKind::TooDeep,
                format!("containers nest deeper than the {MAX_DEPTH}-level budget"),
            ));
        }
        self.pos += 1;
        Ok(())
    }

    fn parse_object(&mut self) -> Result<Value, JsonError> {
        self.enter()?;
        let mut map = Map::new();
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(Value::Object(map));
        }
        loop {
            if self.bytes.get(self.pos) != Some(&b'"') {
                return Err(self.error(
                    JsonErrorKind::Syntax,
                    "expected a member name in double quotes",
                ));
            }
            let key_start = self.pos;
            let (key, range) = self.parse_string()?;
            let vacant = match map.entry(key) {
                Entry::Vacant(vacant) => vacant,
                Entry::Occupied(occupied) => {
                    let mut err = self.error(
                        JsonErrorKind::DuplicateKey,
                        "an object names the same member twice",
                    );
                    err.pointer.push('/');
                    escape_token(occupied.key(), &mut err.pointer);
                    err.offset = key_start;
                    let (line, column) = line_column(&self.bytes[..key_start]);
                    err.line = line;
                    err.column = column;
                    return Err(err);
                }
            };
            self.skip_ws();
            if self.bytes.get(self.pos) != Some(&b':') {
                return Err(self.error(JsonErrorKind::Syntax, "expected ':' after a member name"));
            }
            self.pos += 1;
            self.skip_ws();
            self.path.push(Segment::Key(range));
            let value = self.parse_value()?;
            self.path.pop();
            vacant.insert(value);
            self.skip_ws();
            match self.bytes.get(self.pos) {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_ws();
                }
                Some(b'}') => {
                    self.pos += 1;
                    self.depth -= 1;
                    return Ok(Value::Object(map));
                }
                None => {
                    return Err(self.error(
                        JsonErrorKind::Syntax,
                        "unexpected end of input inside an object",
                    ))
                }
                Some(_) => {
                    return Err(
                        self.error(JsonErrorKind::Syntax, "expected ',' or '}' in an object")
                    )
                }
            }
        }
    }

    fn parse_array(&mut self) -> Result<Value, JsonError> {
        self.enter()?;
        let mut items = Vec::new();
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&b']') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(Value::Array(items));
        }
        self.path.push(Segment::Index(0));
        loop {
            if let Some(Segment::Index(i)) = self.path.last_mut() {
                *i = items.len();
            }
            let value = self.parse_value()?;
            items.push(value);
            self.skip_ws();
            match self.bytes.get(self.pos) {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_ws();
                }
                Some(b']') => {
                    self.pos += 1;
                    self.depth -= 1;
                    self.path.pop();
                    return Ok(Value::Array(items));
                }
                None => {
                    return Err(self.error(
                        JsonErrorKind::Syntax,
                        "unexpected end of input inside an array",
                    ))
                }
                Some(_) => {
                    return Err(self.error(JsonErrorKind::Syntax, "expected ',' or ']' in an array"))
                }
            }
        }
    }

    /// Reads one string starting at the opening quote: its decoded text
    /// and the byte range of its raw contents (between the quotes). Plain
    /// runs are copied in bulk; escapes are decoded as they are checked.
    fn parse_string(&mut self) -> Result<(String, Range<usize>), JsonError> {
        let start = self.pos + 1;
        let mut i = start;
        let mut segment = start;
        let mut decoded: Option<String> = None;
        let bytes = self.bytes;
        loop {
            // Skip plain bytes eight at a time.
            while i + 8 <= bytes.len() {
                let chunk = u64::from_le_bytes(bytes[i..i + 8].try_into().unwrap_or([0; 8]));
                if has_stop_byte(chunk) {
                    break;
                }
                i += 8;
            }
            while i < bytes.len() && !STOP[bytes[i] as usize] {
                i += 1;
            }
            match bytes.get(i) {
                Some(b'"') => {
                    self.pos = i + 1;
                    let text = match decoded {
                        None => self.src[start..i].to_string(),
                        Some(mut out) => {
                            out.push_str(&self.src[segment..i]);
                            out
                        }
                    };
                    return Ok((text, start..i));
                }
                Some(b'\\') => {
                    let after = self.check_escape(i)?;
                    let out =
                        decoded.get_or_insert_with(|| String::with_capacity(2 * (i - start) + 16));
                    out.push_str(&self.src[segment..i]);
                    if let (Some(c), _) = decode_escape(&bytes[i..after]) {
                        out.push(c);
                    }
                    i = after;
                    segment = after;
                }
                Some(_) => {
                    self.pos = i;
                    return Err(self.error(
                        JsonErrorKind::Syntax,
                        "unescaped control character in a string",
                    ));
                }
                None => {
                    self.pos = i;
                    return Err(self.error(
                        JsonErrorKind::Syntax,
                        "unexpected end of input inside a string",
                    ));
                }
            }
        }
    }

    /// Validates the escape at `i` (a backslash) and returns the index after it.
    fn check_escape(&mut self, i: usize) -> Result<usize, JsonError> {
        match self.bytes.get(i + 1) {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => Ok(i + 2),
            Some(b'u') => {
                let unit = self.hex4(i + 2)?;
                if (0xD800..0xDC00).contains(&unit) {
                    if self.bytes.get(i + 6) == Some(&b'\\') && self.bytes.get(i + 7) == Some(&b'u')
                    {
                        let low = self.hex4(i + 8)?;
                        if (0xDC00..0xE000).contains(&low) {
                            return Ok(i + 12);
                        }
                    }
                    self.pos = i;
                    Err(self.error(
                        JsonErrorKind::Syntax,
                        "unpaired UTF-16 surrogate escape: the string has no exact Unicode text",
                    ))
                } else if (0xDC00..0xE000).contains(&unit) {
                    self.pos = i;
                    Err(self.error(
                        JsonErrorKind::Syntax,
                        "unpaired UTF-16 surrogate escape: the string has no exact Unicode text",
                    ))
                } else {
                    Ok(i + 6)
                }
            }
            None => {
                self.pos = i + 1;
                Err(self.error(
                    JsonErrorKind::Syntax,
                    "unexpected end of input inside a string",
                ))
            }
            Some(_) => {
                self.pos = i;
                Err(self.error(JsonErrorKind::Syntax, "invalid escape sequence in a string"))
            }
        }
    }

    fn hex4(&mut self, at: usize) -> Result<u32, JsonError> {
        let Some(digits) = self.bytes.get(at..at + 4) else {
            self.pos = self.bytes.len();
            return Err(self.error(
                JsonErrorKind::Syntax,
                "unexpected end of input inside a \\u escape",
            ));
        };
        let mut unit = 0u32;
        for &d in digits {
            let v = match d {
                b'0'..=b'9' => d - b'0',
                b'a'..=b'f' => d - b'a' + 10,
                b'A'..=b'F' => d - b'A' + 10,
                _ => {
                    self.pos = at;
                    return Err(self.error(
                        JsonErrorKind::Syntax,
                        "invalid \\u escape: four hex digits expected",
                    ));
                }
            };
            unit = unit * 16 + u32::from(v);
        }
        Ok(unit)
    }

    fn parse_number(&mut self) -> Result<Value, JsonError> {
        let start = self.pos;
        let bytes = self.bytes;
        let mut i = start;
        let negative = bytes[i] == b'-';
        if negative {
            i += 1;
        }
        let mut magnitude: u64 = 0;
        let mut int_digits = 0usize;
        match bytes.get(i) {
            Some(b'0') => {
                i += 1;
                int_digits = 1;
            }
            Some(b'1'..=b'9') => {
                while let Some(&d) = bytes.get(i) {
                    if !d.is_ascii_digit() {
                        break;
                    }
                    if int_digits < 19 {
                        magnitude = magnitude * 10 + u64::from(d - b'0');
                    }
                    int_digits += 1;
                    i += 1;
                }
            }
            _ => {
                self.pos = i;
                return Err(self.error(
                    JsonErrorKind::Syntax,
                    "invalid number: a digit was expected",
                ));
            }
        }
        let (i, integer) = match scan_fraction_and_exponent(bytes, i) {
            Ok(scanned) => scanned,
            Err((at, reason)) => {
                self.pos = at;
                return Err(self.error(JsonErrorKind::Syntax, reason));
            }
        };
        self.pos = i;
        let lexeme = &self.src[start..i];
        if integer {
            if int_digits <= 16 && magnitude <= MAX_SAFE_INTEGER {
                if negative {
                    if magnitude == 0 {
                        self.record(lexeme, true);
                        return Ok(Value::Number(Number::from(0u64)));
                    }
                    return Ok(Value::Number(Number::from(-(magnitude as i64))));
                }
                return Ok(Value::Number(Number::from(magnitude)));
            }
            self.record(lexeme, false);
            return Ok(Value::Null);
        }
        let value: f64 = match lexeme.parse() {
            Ok(v) => v,
            Err(_) => return Err(self.error(JsonErrorKind::Syntax, "invalid number")),
        };
        let mut buffer = zmij::Buffer::new();
        if !float_is_safe(lexeme, value, &mut buffer) {
            self.record(lexeme, false);
            return Ok(Value::Null);
        }
        if buffer.format_finite(value) != lexeme {
            self.record(lexeme, true);
        }
        Ok(Number::from_f64(value).map_or(Value::Null, Value::Number))
    }

    fn record(&mut self, lexeme: &str, safe: bool) {
        let pointer = self.pointer();
        self.literals.push(NumericLiteral {
            pointer,
            lexeme: lexeme.to_string(),
            safe,
        });
    }
}

/// True when any of the eight bytes is `"`, `\` or below 0x20.
#[inline]
fn has_stop_byte(chunk: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let quote = chunk ^ (ONES * u64::from(b'"'));
    let backslash = chunk ^ (ONES * u64::from(b'\\'));
    let has_zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let below_space = chunk.wrapping_sub(ONES * 0x20) & !chunk & HIGH;
    (has_zero(quote) | has_zero(backslash) | below_space) != 0
}

/// Decodes the escapes of a checked raw string into `out`.
fn unescape_into(raw: &str, out: &mut String) {
    let bytes = raw.as_bytes();
    let mut i = 0;
    let mut plain_start = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        out.push_str(&raw[plain_start..i]);
        let (c, len) = decode_escape(&bytes[i..]);
        if let Some(c) = c {
            out.push(c);
        }
        i += len;
        plain_start = i;
    }
    out.push_str(&raw[plain_start..]);
}

fn unescape_lossy(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    unescape_into(raw, &mut out);
    out
}

/// One escape at the start of `bytes`: the character and the escape's length.
fn decode_escape(bytes: &[u8]) -> (Option<char>, usize) {
    let simple = |c| (Some(c), 2);
    match bytes.get(1) {
        Some(b'"') => simple('"'),
        Some(b'\\') => simple('\\'),
        Some(b'/') => simple('/'),
        Some(b'b') => simple('\u{8}'),
        Some(b'f') => simple('\u{c}'),
        Some(b'n') => simple('\n'),
        Some(b'r') => simple('\r'),
        Some(b't') => simple('\t'),
        Some(b'u') => {
            let unit = hex_value(bytes.get(2..6));
            match unit {
                Some(high @ 0xD800..=0xDBFF) => {
                    let low = if bytes.get(6) == Some(&b'\\') && bytes.get(7) == Some(&b'u') {
                        hex_value(bytes.get(8..12))
                    } else {
                        None
                    };
                    match low {
                        Some(low @ 0xDC00..=0xDFFF) => {
                            let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                            (char::from_u32(code), 12)
                        }
                        _ => (Some('\u{fffd}'), 6),
                    }
                }
                Some(unit) => (Some(char::from_u32(unit).unwrap_or('\u{fffd}')), 6),
                None => (None, bytes.len().min(6)),
            }
        }
        _ => (None, bytes.len().min(2)),
    }
}

fn hex_value(digits: Option<&[u8]>) -> Option<u32> {
    let digits = digits?;
    let text = std::str::from_utf8(digits).ok()?;
    u32::from_str_radix(text, 16).ok()
}

#[cfg(test)]
mod tests;
