//! `data/add`'s fast path: the common body (one message, one replacing data
//! part of the engine's tables) read a row at a time from its text. The
//! envelope is scanned, never parsed as a whole; each row is parsed by the
//! same reader as the whole body (`rea_core::json`), checked against its
//! table's schema and handed to the World, which holds it as text and frees
//! its parsed members at once. So the payload is never held parsed, and
//! nothing is copied twice.
//!
//! Anything this path does not take as is (another shape, an error of any
//! kind, a duplicate member, a number a double cannot hold) gives `None`
//! before the World changes, and the body is then answered by the general
//! path, which answers it to the letter: errors and their precedence are
//! the general path's.

use super::Plane;
use crate::jsonrpc;
use serde_json::{json, Value};
use std::cell::Cell;

/// How deep the rows sit in the body (message, params, parts, part, data,
/// table): a row may nest `MAX_DEPTH` less this, with a margin.
const ENVELOPE_DEPTH: usize = 8;

/// The reply to `body` when it is a `data/add` this path takes; `None`
/// when the general path must answer it (the World is then unchanged).
pub(super) fn try_answer(plane: &Plane, episode: Option<&str>, body: &[u8]) -> Option<String> {
    if episode.is_some() {
        return None;
    }
    let text = std::str::from_utf8(body).ok()?;
    let add = read_envelope(text)?;
    let tables = plane.env.data_tables();
    let mut readers = Vec::with_capacity(add.tables.len());
    for (name, rows) in &add.tables {
        let schema = tables.get(name)?;
        let validator = jsonschema::validator_for(schema).ok()?;
        readers.push((name.clone(), rows, validator));
    }
    let bail = Cell::new(false);
    let mut iters: Vec<(String, RowReader<'_>)> = readers
        .iter()
        .map(|(name, rows, validator)| {
            (
                name.clone(),
                RowReader {
                    text,
                    spans: rows,
                    next: 0,
                    validator,
                    bail: &bail,
                },
            )
        })
        .collect();
    let streamed: Vec<(String, &mut dyn Iterator<Item = Value>)> = iters
        .iter_mut()
        .map(|(name, rows)| (name.clone(), rows as &mut dyn Iterator<Item = Value>))
        .collect();
    match plane.env.replace_streamed(streamed)? {
        Ok(()) if !bail.get() => Some(jsonrpc::result_reply(add.id, &json!({}))),
        // A refused row, or an error: the general path says which, first.
        _ => None,
    }
}

/// The rows of one table, parsed and checked one at a time. A row this
/// path does not take sets `bail` and is given as `null`, which the World
/// refuses, so nothing changes.
struct RowReader<'a> {
    text: &'a str,
    spans: &'a [(usize, usize)],
    next: usize,
    validator: &'a jsonschema::Validator,
    bail: &'a Cell<bool>,
}

impl Iterator for RowReader<'_> {
    type Item = Value;

    fn next(&mut self) -> Option<Value> {
        if self.bail.get() {
            return None;
        }
        let (start, end) = *self.spans.get(self.next)?;
        self.next += 1;
        let row = rea_core::json::parse(&self.text.as_bytes()[start..end])
            .ok()
            .filter(|p| p.numeric_literals.iter().all(|l| l.safe))
            .map(|p| p.value)
            .filter(|v| v.is_object() && self.validator.is_valid(v));
        match row {
            Some(row) => Some(row),
            None => {
                self.bail.set(true);
                Some(Value::Null)
            }
        }
    }
}

/// Each table's name and the spans of its rows in the body.
type Tables = Vec<(String, Vec<(usize, usize)>)>;

/// A `data/add` body of the one shape this path takes.
struct Add<'a> {
    /// The id as written (a plain integer or a plain string).
    id: &'a str,
    /// Each table's name and the spans of its rows.
    tables: Tables,
}

/// `{"jsonrpc": "2.0", "id": ID, "method": "data/add", "params": {"parts":
/// [{"kind": "data", "data": {TABLE: [ROW, ...], ...}}]}}`, members in any
/// order, each once.
fn read_envelope(text: &str) -> Option<Add<'_>> {
    let mut s = Scanner { text, pos: 0 };
    let mut id = None;
    let mut tables = None;
    let mut seen = Vec::new();
    s.object(|s, key| {
        if seen.contains(&key) {
            return None;
        }
        seen.push(key);
        match key {
            "jsonrpc" => s.expect_string("2.0"),
            "method" => s.expect_string("data/add"),
            "id" => {
                id = Some(s.plain_id()?);
                Some(())
            }
            "params" => {
                tables = Some(s.params()?);
                Some(())
            }
            _ => None,
        }
    })?;
    s.ws();
    if s.pos != text.len() || seen.len() != 4 {
        return None;
    }
    Some(Add {
        id: id?,
        tables: tables?,
    })
}

/// A scanner over JSON text that reads only plain member names and skips
/// values, giving their spans.
struct Scanner<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Scanner<'a> {
    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes().get(self.pos) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        self.ws();
        (self.bytes().get(self.pos) == Some(&byte)).then(|| self.pos += 1)
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.bytes().get(self.pos).copied()
    }

    /// A string without escapes or control characters: its content.
    fn plain_string(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let start = self.pos;
        loop {
            match *self.bytes().get(self.pos)? {
                b'"' => break,
                b'\\' => return None,
                b if b < 0x20 => return None,
                _ => self.pos += 1,
            }
        }
        let content = &self.text[start..self.pos];
        self.pos += 1;
        Some(content)
    }

    fn expect_string(&mut self, want: &str) -> Option<()> {
        (self.plain_string()? == want).then_some(())
    }

    /// An id echoed as written: a plain integer or a plain ASCII string.
    fn plain_id(&mut self) -> Option<&'a str> {
        self.ws();
        let start = self.pos;
        if self.peek()? == b'"' {
            let content = self.plain_string()?;
            return content
                .bytes()
                .all(|b| b.is_ascii_graphic() || b == b' ')
                .then(|| &self.text[start..self.pos]);
        }
        while self.bytes().get(self.pos).is_some_and(u8::is_ascii_digit) {
            self.pos += 1;
        }
        let digits = &self.text[start..self.pos];
        let plain = (digits == "0" || !digits.starts_with('0')) && (1..=15).contains(&digits.len());
        plain.then_some(digits)
    }

    /// An object's members: `member` reads each value (the scanner is at
    /// it) and may refuse.
    fn object(&mut self, mut member: impl FnMut(&mut Self, &'a str) -> Option<()>) -> Option<()> {
        self.eat(b'{')?;
        if self.peek()? == b'}' {
            self.pos += 1;
            return Some(());
        }
        loop {
            let key = self.plain_string()?;
            self.eat(b':')?;
            member(self, key)?;
            match self.peek()? {
                b',' => self.pos += 1,
                b'}' => {
                    self.pos += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// An array's elements: `element` reads each one and may refuse.
    fn array(&mut self, mut element: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.eat(b'[')?;
        if self.peek()? == b']' {
            self.pos += 1;
            return Some(());
        }
        loop {
            element(self)?;
            match self.peek()? {
                b',' => self.pos += 1,
                b']' => {
                    self.pos += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// `{"parts": [{"kind": "data", "data": TABLES}]}`.
    fn params(&mut self) -> Option<Tables> {
        let mut tables = None;
        self.object(|s, key| {
            if key != "parts" || tables.is_some() {
                return None;
            }
            let mut count = 0;
            s.array(|s| {
                count += 1;
                if count > 1 {
                    return None;
                }
                tables = Some(s.part()?);
                Some(())
            })
        })?;
        tables
    }

    /// `{"kind": "data", "data": TABLES}` (no metadata: the load replaces).
    fn part(&mut self) -> Option<Tables> {
        let mut kind = false;
        let mut tables = None;
        self.object(|s, key| match key {
            "kind" if !kind => {
                kind = true;
                s.expect_string("data")
            }
            "data" if tables.is_none() => {
                tables = Some(s.tables()?);
                Some(())
            }
            _ => None,
        })?;
        if !kind {
            return None;
        }
        tables
    }

    /// `{TABLE: [ROW, ...], ...}`: names once each, none the intake shapes'
    /// own (`parts`, `jsonrpc`).
    fn tables(&mut self) -> Option<Tables> {
        let mut tables: Tables = Vec::new();
        self.object(|s, name| {
            if name == "parts" || name == "jsonrpc" || tables.iter().any(|(n, _)| n == name) {
                return None;
            }
            let mut rows = Vec::new();
            s.array(|s| {
                s.ws();
                let start = s.pos;
                if s.skip_value()? + ENVELOPE_DEPTH > rea_core::json::MAX_DEPTH {
                    return None;
                }
                rows.push((start, s.pos));
                Some(())
            })?;
            tables.push((name.to_string(), rows));
            Some(())
        })?;
        Some(tables)
    }

    /// Skips one value (read in full later): its nesting depth. Strings
    /// are skipped to their closing quote; what a value holds is checked
    /// when it is parsed.
    fn skip_value(&mut self) -> Option<usize> {
        self.ws();
        let bytes = self.bytes();
        let mut depth = 0usize;
        let mut deepest = 0usize;
        loop {
            match *bytes.get(self.pos)? {
                b'"' => {
                    self.pos += 1;
                    loop {
                        match *bytes.get(self.pos)? {
                            b'"' => break,
                            b'\\' => self.pos += 2,
                            _ => self.pos += 1,
                        }
                    }
                    self.pos += 1;
                }
                b'{' | b'[' => {
                    depth += 1;
                    deepest = deepest.max(depth);
                    self.pos += 1;
                }
                b'}' | b']' => {
                    depth = depth.checked_sub(1)?;
                    self.pos += 1;
                }
                b',' if depth == 0 => return Some(deepest),
                _ => self.pos += 1,
            }
            if depth == 0 {
                // A scalar runs to the next delimiter; a container ended.
                match bytes.get(self.pos) {
                    Some(b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r') | None => {
                        return Some(deepest)
                    }
                    _ if deepest > 0 => return Some(deepest),
                    _ => {}
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows_of(body: &str) -> Option<Vec<(String, Vec<&str>)>> {
        let add = read_envelope(body)?;
        Some(
            add.tables
                .iter()
                .map(|(n, spans)| (n.clone(), spans.iter().map(|&(a, b)| &body[a..b]).collect()))
                .collect(),
        )
    }

    #[test]
    fn the_common_body_is_read_into_row_spans() {
        let body = r#" {"jsonrpc": "2.0", "id": 7, "method": "data/add", "params": {"parts": [{"kind": "data", "data": {"t": [{"id": "a", "x": [1, {"y": "]},"}]}, 2.5 , "s\"", true], "u": []}}]}} "#;
        let add = read_envelope(body).unwrap();
        assert_eq!(add.id, "7");
        assert_eq!(
            rows_of(body).unwrap(),
            vec![
                (
                    "t".to_string(),
                    vec![
                        r#"{"id": "a", "x": [1, {"y": "]},"}]}"#,
                        "2.5",
                        r#""s\"""#,
                        "true"
                    ]
                ),
                ("u".to_string(), vec![])
            ]
        );
        let body = r#"{"params":{"parts":[{"data":{"t":[]},"kind":"data"}]},"method":"data/add","id":"a b","jsonrpc":"2.0"}"#;
        assert_eq!(read_envelope(body).unwrap().id, r#""a b""#);
    }

    #[test]
    fn any_other_shape_is_left_to_the_general_path() {
        let ok = r#"{"jsonrpc":"2.0","id":1,"method":"data/add","params":{"parts":[{"kind":"data","data":{"t":[{"id":1}]}}]}}"#;
        assert!(read_envelope(ok).is_some());
        for body in [
            // a member twice, at each level
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"data/add","params":{"parts":[{"kind":"data","data":{"t":[]}}]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"data/add","params":{"parts":[{"kind":"data","kind":"data","data":{"t":[]}}]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"data/add","params":{"parts":[{"kind":"data","data":{"t":[],"t":[]}}]}}"#,
            // metadata, two parts, no parts, another kind, another method
            r#"{"jsonrpc":"2.0","id":1,"method":"data/add","params":{"parts":[{"kind":"data","metadata":{"load":"additive"},"data":{"t":[]}}]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"data/add","params":{"parts":[{"kind":"data","data":{"t":[]}},{"kind":"data","data":{"t":[]}}]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"data/add","params":{"parts":[]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"data/add","params":{"parts":[{"kind":"file","data":{"t":[]}}]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"data/get","params":{"parts":[{"kind":"data","data":{"t":[]}}]}}"#,
            // a notification, an id not plain, escapes, the intake shapes' names
            r#"{"jsonrpc":"2.0","method":"data/add","params":{"parts":[{"kind":"data","data":{"t":[]}}]}}"#,
            r#"{"jsonrpc":"2.0","id":1.0,"method":"data/add","params":{"parts":[{"kind":"data","data":{"t":[]}}]}}"#,
            r#"{"jsonrpc":"2.0","id":"\u0041","method":"data/add","params":{"parts":[{"kind":"data","data":{"t":[]}}]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"data\/add","params":{"parts":[{"kind":"data","data":{"t":[]}}]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"data/add","params":{"parts":[{"kind":"data","data":{"parts":[]}}]}}"#,
            // a table that is not an array, trailing text, a batch
            r#"{"jsonrpc":"2.0","id":1,"method":"data/add","params":{"parts":[{"kind":"data","data":{"t":{}}}]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"data/add","params":{"parts":[{"kind":"data","data":{"t":[]}}]}} x"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"data/add","params":{"parts":[{"kind":"data","data":{"t":[]}}]}}]"#,
        ] {
            assert!(read_envelope(body).is_none(), "{body}");
        }
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"data/add","params":{{"parts":[{{"kind":"data","data":{{"t":[{}{}]}}}}]}}}}"#,
            "[".repeat(60),
            "]".repeat(60)
        );
        assert!(read_envelope(&deep).is_none());
    }
}
