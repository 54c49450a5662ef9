//! Body framing: raw protobuf, native gRPC length-prefixed messages (flags
//! 0/1 only), gRPC-web (plus its terminal trailer frame) and gRPC-web-text
//! (independently padded base64 chunks, offsets on the decoded bytes).

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

/// How a body is framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    Raw,
    Grpc,
    GrpcWeb,
    GrpcWebText,
}

impl Framing {
    pub fn as_str(self) -> &'static str {
        match self {
            Framing::Raw => "raw",
            Framing::Grpc => "grpc",
            Framing::GrpcWeb => "grpc-web",
            Framing::GrpcWebText => "grpc-web-text",
        }
    }

    /// Reads a caller's `framing` choice.
    pub fn parse(text: &str) -> Option<Framing> {
        match text {
            "raw" => Some(Framing::Raw),
            "grpc" => Some(Framing::Grpc),
            "grpc-web" => Some(Framing::GrpcWeb),
            "grpc-web-text" => Some(Framing::GrpcWebText),
            _ => None,
        }
    }

    /// The framing a recognized content type's essence declares
    /// (lowercase, without parameters).
    pub fn from_content_type(essence: &str) -> Option<Framing> {
        match essence {
            "application/grpc" | "application/grpc+proto" => Some(Framing::Grpc),
            "application/grpc-web" | "application/grpc-web+proto" => Some(Framing::GrpcWeb),
            "application/grpc-web-text" | "application/grpc-web-text+proto" => {
                Some(Framing::GrpcWebText)
            }
            "application/x-protobuf"
            | "application/protobuf"
            | "application/vnd.google.protobuf"
            | "application/x-google-protobuf" => Some(Framing::Raw),
            _ => None,
        }
    }

    /// The basis every offset of a body with this framing counts in.
    pub fn offset_basis(self) -> &'static str {
        match self {
            Framing::GrpcWebText => "base64-decoded-body-bytes",
            _ => "retained-body-bytes",
        }
    }
}

/// Decodes a gRPC-web-text body: concatenated base64 chunks, each with its
/// own padding. `Err` is the offset (in the text) of the first bad chunk.
pub fn decode_text(text: &[u8]) -> Result<Vec<u8>, u64> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut start = 0usize;
    while start < text.len() {
        // A chunk ends after its padding, or at the end of the text.
        let mut end = start;
        while end < text.len() && text[end] != b'=' {
            end += 1;
        }
        while end < text.len() && text[end] == b'=' {
            end += 1;
        }
        let chunk = &text[start..end];
        let decoded = STANDARD.decode(chunk).map_err(|_| start as u64)?;
        out.extend_from_slice(&decoded);
        start = end;
    }
    Ok(out)
}

/// One length-prefixed frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub index: u64,
    /// Offset of the 5-byte header (0 and no header for raw bodies).
    pub offset: u64,
    pub flags: u8,
    /// `data`, `trailer` or `raw`.
    pub kind: &'static str,
    /// The compressed flag (bit 0) is set.
    pub compressed: bool,
    pub payload_offset: u64,
    pub payload_length: u64,
}

/// Why framing stopped, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameError {
    pub kind: &'static str,
    pub offset: u64,
}

impl FrameError {
    pub fn message(&self) -> String {
        let what = match self.kind {
            "truncated-frame-header" => "the body ends inside a 5-byte frame header",
            "frame-past-end" => "a frame's length points past the end of the body",
            "flag-not-admitted" => "a frame's flags are not admitted by this framing",
            "trailer-not-terminal" => "bytes follow the gRPC-web trailer frame",
            "invalid-base64-chunk" => "a grpc-web-text chunk is not padded base64",
            _ => "the body is not framed as declared",
        };
        format!("{what} (offset {})", self.offset)
    }
}

/// Splits decoded body bytes into frames; the prefix before an error is kept.
pub fn frames(bytes: &[u8], framing: Framing) -> (Vec<Frame>, Option<FrameError>) {
    if framing == Framing::Raw {
        let whole = Frame {
            index: 0,
            offset: 0,
            flags: 0,
            kind: "raw",
            compressed: false,
            payload_offset: 0,
            payload_length: bytes.len() as u64,
        };
        return (vec![whole], None);
    }
    let web = framing != Framing::Grpc;
    let mut out = Vec::new();
    let mut at = 0usize;
    while at < bytes.len() {
        let fail = |kind| FrameError {
            kind,
            offset: at as u64,
        };
        if let Some(last) = out.last() {
            let last: &Frame = last;
            if last.kind == "trailer" {
                return (out, Some(fail("trailer-not-terminal")));
            }
        }
        let Some(header) = bytes.get(at..at + 5) else {
            return (out, Some(fail("truncated-frame-header")));
        };
        let flags = header[0];
        let kind = match flags {
            0 | 1 => "data",
            0x80 | 0x81 if web => "trailer",
            _ => return (out, Some(fail("flag-not-admitted"))),
        };
        let length = u32::from_be_bytes([header[1], header[2], header[3], header[4]]) as usize;
        let payload = at + 5;
        if payload + length > bytes.len() {
            return (out, Some(fail("frame-past-end")));
        }
        out.push(Frame {
            index: out.len() as u64,
            offset: at as u64,
            flags,
            kind,
            compressed: flags & 1 == 1,
            payload_offset: payload as u64,
            payload_length: length as u64,
        });
        at = payload + length;
    }
    (out, None)
}
