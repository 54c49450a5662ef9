//! The per-request info line (`rea::request`): its fields, and a writer the
//! binary may set that writes the line itself, without a `tracing` event
//! (an event's dispatch and formatting were most of the line's cost on an
//! item read). The writer writes the bytes the event's line would have; it
//! declines (and the event is sent) whenever it would not.

use std::sync::OnceLock;
use tracing::Level;

/// One request's info line: `"{method} {path} {status}"`, then these fields
/// in this order.
#[derive(Debug, Clone, Copy)]
pub struct RequestLine<'a> {
    pub surface: &'a str,
    pub method: &'a str,
    pub path: &'a str,
    pub tool: &'a str,
    pub source: &'a str,
    pub status: u16,
    pub duration_ms: f64,
}

/// Writes a line as the installed subscriber would; false: not written.
pub type LineWriter = fn(&RequestLine<'_>) -> bool;

static WRITER: OnceLock<LineWriter> = OnceLock::new();

/// Sets the writer of request lines (once; the first call wins). Set by the
/// binary that installed the subscriber whose line it writes.
pub fn on_request_line(writer: LineWriter) {
    let _ = WRITER.set(writer);
}

/// Logs `line` at info under `rea::request`: through the writer when one is
/// set, the level is enabled and no span is current; else as an event.
pub(crate) fn info(line: &RequestLine<'_>) {
    if let Some(write) = WRITER.get() {
        if !tracing::enabled!(target: "rea::request", Level::INFO) {
            return;
        }
        if tracing::Span::current().is_none() && write(line) {
            return;
        }
    }
    let RequestLine {
        surface,
        method,
        path,
        tool,
        source,
        status,
        duration_ms,
    } = *line;
    tracing::info!(
        target: "rea::request",
        surface,
        method,
        path,
        tool,
        source,
        status,
        duration_ms,
        "{method} {path} {status}"
    );
}
