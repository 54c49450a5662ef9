//! Schema-less protobuf wire reading: one message level at a time, exact
//! unsigned values, candidate readings for length-delimited values, and the
//! parsed prefix plus the exact offset of the first malformed byte.

/// The six protobuf wire types (6 and 7 are malformed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireType {
    Varint,
    Fixed64,
    Len,
    StartGroup,
    EndGroup,
    Fixed32,
}

impl WireType {
    pub fn as_str(self) -> &'static str {
        match self {
            WireType::Varint => "varint",
            WireType::Fixed64 => "fixed64",
            WireType::Len => "length-delimited",
            WireType::StartGroup => "start-group",
            WireType::EndGroup => "end-group",
            WireType::Fixed32 => "fixed32",
        }
    }
}

/// One field occurrence on the wire. Offsets are absolute within the body's
/// offset basis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireField {
    /// Offset of the tag.
    pub offset: u64,
    pub number: u32,
    pub wire_type: WireType,
    /// Offset of the value (after the tag and, for `Len`, the length prefix).
    pub value_offset: u64,
    /// Value bytes (0 for varints' payload is not used: see `raw`).
    pub value_length: u64,
    /// The exact unsigned value for varint, fixed32 and fixed64.
    pub raw: Option<u64>,
}

/// Why the bytes stopped being a message, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireError {
    /// A stable kind, e.g. `truncated-varint`.
    pub kind: &'static str,
    /// Absolute offset of the first byte that could not be read (the end of
    /// the bytes when they ran out).
    pub offset: u64,
}

impl WireError {
    pub fn message(&self) -> String {
        let what = match self.kind {
            "truncated-varint" => "the bytes end inside a varint",
            "varint-overflow" => "a varint is longer than 64 bits",
            "length-past-end" => "a length prefix points past the end of the bytes",
            "truncated-fixed" => "the bytes end inside a fixed-width value",
            "invalid-wire-type" => "a tag names wire type 6 or 7",
            "field-number-zero" => "a tag names field number 0",
            "unmatched-end-group" => "an end-group tag has no matching start-group",
            "unterminated-group" => "a start-group tag is never closed",
            _ => "the bytes are not a protobuf message",
        };
        format!("{what} (offset {})", self.offset)
    }
}

/// The parsed prefix of one message level, and its error if any.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Scan {
    pub fields: Vec<WireField>,
    pub error: Option<WireError>,
}

/// Reads a varint at `at`; `Err` carries the error kind and offset (relative).
pub fn read_varint(bytes: &[u8], at: usize) -> Result<(u64, usize), (&'static str, usize)> {
    let mut value: u64 = 0;
    for i in 0..10 {
        let Some(&b) = bytes.get(at + i) else {
            return Err(("truncated-varint", bytes.len()));
        };
        if i == 9 && b > 1 {
            return Err(("varint-overflow", at + i));
        }
        value |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Ok((value, at + i + 1));
        }
    }
    Err(("varint-overflow", at + 9))
}

/// Scans one message level of `bytes`, whose first byte is at absolute `base`.
/// Group contents stay flat (their fields follow the start-group fact).
pub fn scan(bytes: &[u8], base: u64) -> Scan {
    let mut out = Scan::default();
    let mut groups: Vec<(u32, u64)> = Vec::new();
    let mut at = 0usize;
    let fail = |kind, rel: usize| WireError {
        kind,
        offset: base + rel as u64,
    };
    while at < bytes.len() {
        let start = at;
        let (tag, next) = match read_varint(bytes, at) {
            Ok(v) => v,
            Err((kind, rel)) => {
                out.error = Some(fail(kind, rel));
                return out;
            }
        };
        let number = tag >> 3;
        if number == 0 {
            out.error = Some(fail("field-number-zero", start));
            return out;
        }
        if number > u64::from(u32::MAX >> 3) {
            out.error = Some(fail("varint-overflow", start));
            return out;
        }
        let number = number as u32;
        let wire_type = match tag & 7 {
            0 => WireType::Varint,
            1 => WireType::Fixed64,
            2 => WireType::Len,
            3 => WireType::StartGroup,
            4 => WireType::EndGroup,
            5 => WireType::Fixed32,
            _ => {
                out.error = Some(fail("invalid-wire-type", start));
                return out;
            }
        };
        let field = |value_offset: usize, value_length: usize, raw| WireField {
            offset: base + start as u64,
            number,
            wire_type,
            value_offset: base + value_offset as u64,
            value_length: value_length as u64,
            raw,
        };
        match wire_type {
            WireType::Varint => match read_varint(bytes, next) {
                Ok((v, end)) => {
                    out.fields.push(field(next, end - next, Some(v)));
                    at = end;
                }
                Err((kind, rel)) => {
                    out.error = Some(fail(kind, rel));
                    return out;
                }
            },
            WireType::Fixed64 | WireType::Fixed32 => {
                let width = if wire_type == WireType::Fixed64 { 8 } else { 4 };
                let Some(chunk) = bytes.get(next..next + width) else {
                    out.error = Some(fail("truncated-fixed", bytes.len()));
                    return out;
                };
                let mut le = [0u8; 8];
                le[..width].copy_from_slice(chunk);
                out.fields
                    .push(field(next, width, Some(u64::from_le_bytes(le))));
                at = next + width;
            }
            WireType::Len => {
                let (len, body) = match read_varint(bytes, next) {
                    Ok(v) => v,
                    Err((kind, rel)) => {
                        out.error = Some(fail(kind, rel));
                        return out;
                    }
                };
                let end = usize::try_from(len)
                    .ok()
                    .and_then(|l| body.checked_add(l))
                    .filter(|&e| e <= bytes.len());
                let Some(end) = end else {
                    out.error = Some(fail("length-past-end", next));
                    return out;
                };
                out.fields.push(field(body, end - body, None));
                at = end;
            }
            WireType::StartGroup => {
                groups.push((number, base + start as u64));
                out.fields.push(field(next, 0, None));
                at = next;
            }
            WireType::EndGroup => {
                if groups.pop().map(|g| g.0) != Some(number) {
                    out.error = Some(fail("unmatched-end-group", start));
                    return out;
                }
                out.fields.push(field(next, 0, None));
                at = next;
            }
        }
    }
    if let Some(&(_, open)) = groups.last() {
        out.error = Some(WireError {
            kind: "unterminated-group",
            offset: open,
        });
    }
    out
}

/// How a length-delimited value could be read, without choosing one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidates {
    /// The value is valid UTF-8.
    pub text: bool,
    /// The value scans as one complete message level (its range; inner
    /// fields are not expanded).
    pub nested_message: bool,
    /// Element counts when the value is a whole run of packed varints,
    /// fixed32 or fixed64 values.
    pub packed_varints: Option<u64>,
    pub packed_fixed32: Option<u64>,
    pub packed_fixed64: Option<u64>,
}

/// The candidate readings of one length-delimited value.
pub fn candidates(value: &[u8]) -> Candidates {
    let nested = scan(value, 0);
    let mut count = 0u64;
    let mut at = 0usize;
    let packed_varints = loop {
        if at == value.len() {
            break Some(count);
        }
        match read_varint(value, at) {
            Ok((_, next)) => {
                at = next;
                count += 1;
            }
            Err(_) => break None,
        }
    };
    let len = value.len() as u64;
    Candidates {
        text: std::str::from_utf8(value).is_ok(),
        nested_message: nested.error.is_none(),
        packed_varints,
        packed_fixed32: len.is_multiple_of(4).then_some(len / 4),
        packed_fixed64: len.is_multiple_of(8).then_some(len / 8),
    }
}
