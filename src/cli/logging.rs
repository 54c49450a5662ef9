//! Logs: `tracing` to stderr only (stdout carries MCP under `--stdio` and
//! documents elsewhere). `RUST_LOG` wins when set; otherwise rea's own
//! targets log at info (`-v` debug, `-vv` trace, `-q` warn, `-qq` error)
//! and other crates at warn. `--log-format json` writes one JSON object a line.
//!
//! Lines are not written one system call each (a busy server logs one per
//! request): they gather in a buffer that a background thread writes out
//! every `FLUSH_EVERY`, that the line filling it writes out at once, and that
//! `flush` writes out before rea's own stderr lines and at exit.

use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::fmt::format::{self, FormatEvent, FormatFields, Writer};
use tracing_subscriber::fmt::time::{FormatTime, SystemTime};
use tracing_subscriber::fmt::{FmtContext, MakeWriter};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::EnvFilter;

/// How long a log line may wait in the buffer.
const FLUSH_EVERY: Duration = Duration::from_millis(10);
/// A buffer this full is written out by the line that filled it.
const FLUSH_AT: usize = 64 * 1024;

/// The log lines not yet on stderr.
static PENDING: Mutex<Vec<u8>> = Mutex::new(Vec::new());

fn pending() -> MutexGuard<'static, Vec<u8>> {
    PENDING.lock().unwrap_or_else(|p| p.into_inner())
}

/// Writes the buffered log lines to stderr (under the buffer's lock, so
/// lines keep their order).
pub(crate) fn flush() {
    write_out(&mut pending());
}

fn write_out(buffer: &mut Vec<u8>) {
    if buffer.is_empty() {
        return;
    }
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(buffer);
    let _ = err.flush();
    buffer.clear();
}

/// The subscriber's writer: appends a formatted line to the buffer.
struct Buffered;

impl Write for Buffered {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        let mut buffer = pending();
        buffer.extend_from_slice(data);
        if buffer.len() >= FLUSH_AT {
            write_out(&mut buffer);
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

struct MakeBuffered;

impl<'a> MakeWriter<'a> for MakeBuffered {
    type Writer = Buffered;
    fn make_writer(&'a self) -> Buffered {
        Buffered
    }
}

/// The text line format: the same line as tracing-subscriber's default
/// (`Full`) format writes, built without its per-character `Debug`
/// escaping (most of a request line's cost). Anything the short path does
/// not write exactly as the default would (colours, spans, a value that
/// needs escaping, an error value) is handed to the default format.
struct TextLine {
    default: format::Format<format::Full, SystemTime>,
}

impl<S, N> FormatEvent<S, N> for TextLine
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> std::fmt::Result {
        if !writer.has_ansi_escapes() && ctx.lookup_current().is_none() {
            if let Some(line) = plain_line(event) {
                return writer.write_str(&line);
            }
        }
        self.default.format_event(ctx, writer, event)
    }
}

/// The default format's line for `event`, or `None` when some part of it
/// needs what only the default format writes.
fn plain_line(event: &Event<'_>) -> Option<String> {
    let meta = event.metadata();
    let mut line = String::with_capacity(256);
    if !timestamp(std::time::SystemTime::now(), &mut line) {
        SystemTime.format_time(&mut Writer::new(&mut line)).ok()?;
    }
    let level = match *meta.level() {
        Level::TRACE => "TRACE",
        Level::DEBUG => "DEBUG",
        Level::INFO => " INFO",
        Level::WARN => " WARN",
        Level::ERROR => "ERROR",
    };
    let _ = write!(line, " {level} {}: ", meta.target());
    let mut fields = PlainFields {
        line,
        first: true,
        failed: false,
    };
    event.record(&mut fields);
    if fields.failed {
        return None;
    }
    fields.line.push('\n');
    Some(fields.line)
}

/// Writes `at` as the default format's timer does
/// (`2026-01-01T00:00:00.000000Z`); false (nothing written) outside the
/// years 1970 to 9999.
fn timestamp(at: std::time::SystemTime, line: &mut String) -> bool {
    let Some(text) = stamp(at) else {
        return false;
    };
    line.extend(text.iter().map(|&b| b as char));
    true
}

/// `at` as the default format's timer writes it, in ASCII; `None` outside
/// the years 1970 to 9999.
fn stamp(at: std::time::SystemTime) -> Option<[u8; 27]> {
    let since = at.duration_since(std::time::UNIX_EPOCH).ok()?;
    let secs = since.as_secs();
    let (year, month, day) = civil_from_days((secs / 86_400) as i64);
    if year > 9999 {
        return None;
    }
    let of_day = secs % 86_400;
    let mut text = *b"0000-00-00T00:00:00.000000Z";
    let mut digits = |at: usize, width: usize, mut n: u64| {
        for slot in text[at..at + width].iter_mut().rev() {
            *slot = b'0' + (n % 10) as u8;
            n /= 10;
        }
    };
    digits(0, 4, year as u64);
    digits(5, 2, u64::from(month));
    digits(8, 2, u64::from(day));
    digits(11, 2, of_day / 3600);
    digits(14, 2, of_day / 60 % 60);
    digits(17, 2, of_day % 60);
    digits(20, 6, u64::from(since.subsec_micros()));
    Some(text)
}

/// The proleptic Gregorian date of a count of days since 1970-01-01
/// (H. Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Printable ASCII other than `"` and `\`: text whose `Debug` form is
/// itself in quotes.
fn plain(text: &str) -> bool {
    // Folded without an early exit, so the loop is vectorised: most texts
    // are plain, and a line checks several.
    text.bytes().fold(true, |ok, b| {
        ok & (b.wrapping_sub(b' ') < 95) & (b != b'"') & (b != b'\\')
    })
}

/// Writes fields as the default visitor does: the message bare, then
/// `name=value` with `Debug` values, separated by spaces.
struct PlainFields {
    line: String,
    first: bool,
    failed: bool,
}

impl PlainFields {
    /// Starts field `name` (`None`: the message); false when the default
    /// format must write the line.
    fn start(&mut self, field: &Field) -> bool {
        let name = field.name();
        if self.failed || name.starts_with("r#") || name.starts_with("log.") {
            self.failed = true;
            return false;
        }
        if !self.first {
            self.line.push(' ');
        }
        self.first = false;
        if name != "message" {
            self.line.push_str(name);
            self.line.push('=');
        }
        true
    }
}

impl Visit for PlainFields {
    fn record_str(&mut self, field: &Field, value: &str) {
        if !plain(value) {
            self.failed = true;
        } else if self.start(field) {
            if field.name() == "message" {
                self.line.push_str(value);
            } else {
                self.line.push('"');
                self.line.push_str(value);
                self.line.push('"');
            }
        }
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        if self.start(field) {
            let _ = write!(self.line, "{value}");
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        if self.start(field) {
            let _ = write!(self.line, "{value}");
        }
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        if self.start(field) {
            let _ = write!(self.line, "{value}");
        }
    }

    fn record_error(&mut self, _field: &Field, _value: &(dyn std::error::Error + 'static)) {
        self.failed = true;
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if !self.start(field) {
            return;
        }
        let at = self.line.len();
        let _ = write!(self.line, "{value:?}");
        // The default escapes what a message holds beyond printable text;
        // other values are written as their `Debug` form either way.
        if field.name() == "message" && !self.line[at..].bytes().all(|b| (b' '..=b'~').contains(&b))
        {
            self.failed = true;
        }
    }
}

/// Writes a request's info line into the buffer: the bytes `TextLine`
/// writes for the `rea::request` event (`rea_serve::admin::RequestLine`),
/// appended under the buffer's lock to the buffer itself, without the event
/// and without `fmt`. False (nothing written) where the event's line could
/// differ: a value that needs escaping, or a timestamp outside the years
/// 1970-9999.
fn request_line(line: &rea_serve::admin::RequestLine<'_>) -> bool {
    let texts = [line.method, line.path, line.tool, line.source, line.surface];
    if !texts.iter().all(|t| plain(t)) {
        return false;
    }
    let Some(stamp) = stamp(std::time::SystemTime::now()) else {
        return false;
    };
    let mut buffer = pending();
    let out = &mut *buffer;
    out.extend_from_slice(&stamp);
    out.extend_from_slice(b"  INFO rea::request: ");
    for part in [line.method, " ", line.path, " "] {
        out.extend_from_slice(part.as_bytes());
    }
    push_u64(out, u64::from(line.status));
    for (name, value) in [
        (" surface=\"", line.surface),
        ("\" method=\"", line.method),
        ("\" path=\"", line.path),
        ("\" tool=\"", line.tool),
        ("\" source=\"", line.source),
    ] {
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(value.as_bytes());
    }
    out.extend_from_slice(b"\" status=");
    push_u64(out, u64::from(line.status));
    out.extend_from_slice(b" duration_ms=");
    push_debug_ms(out, line.duration_ms);
    out.push(b'\n');
    if out.len() >= FLUSH_AT {
        write_out(out);
    }
    true
}

/// Appends `n` in decimal.
fn push_u64(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// Appends `ms` as `{:?}` writes it. A duration in whole microseconds (as
/// the journal rounds them) is written from its integer; anything else
/// through `fmt`.
fn push_debug_ms(out: &mut Vec<u8>, ms: f64) {
    let micros = (ms * 1000.0).round();
    if ms.is_sign_positive() && micros < 1e12 && micros / 1000.0 == ms {
        let micros = micros as u64;
        push_u64(out, micros / 1000);
        out.push(b'.');
        let mut frac = micros % 1000;
        if frac == 0 {
            out.push(b'0');
            return;
        }
        let mut width = 3;
        while frac.is_multiple_of(10) {
            frac /= 10;
            width -= 1;
        }
        let text = [
            b'0' + (frac / 100 % 10) as u8,
            b'0' + (frac / 10 % 10) as u8,
            b'0' + (frac % 10) as u8,
        ];
        out.extend_from_slice(&text[3 - width..]);
        return;
    }
    let mut text = String::new();
    let _ = write!(text, "{ms:?}");
    out.extend_from_slice(text.as_bytes());
}

/// Writes the last buffered lines when dropped (held by `main`).
pub(crate) struct Flush;

impl Drop for Flush {
    fn drop(&mut self) {
        flush();
    }
}

/// The global log flags.
#[derive(Debug, clap::Args)]
pub(crate) struct LogArgs {
    /// More log output (-v debug, -vv trace); RUST_LOG overrides.
    #[arg(short = 'v', long = "verbose", action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    /// Less log output (-q warnings only, -qq errors only).
    #[arg(short = 'q', long = "quiet", action = clap::ArgAction::Count, global = true)]
    pub quiet: u8,
    /// Log line format on stderr.
    #[arg(long = "log-format", value_enum, default_value_t = LogFormat::Text, global = true)]
    pub log_format: LogFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum LogFormat {
    Text,
    Json,
}

/// The level of rea's own targets for the flags.
fn level(args: &LogArgs) -> &'static str {
    match i16::from(args.verbose) - i16::from(args.quiet) {
        i16::MIN..=-2 => "error",
        -1 => "warn",
        0 => "info",
        1 => "debug",
        _ => "trace",
    }
}

/// The filter: `RUST_LOG` when set and valid, else the flags' level.
fn filter(args: &LogArgs) -> EnvFilter {
    if let Ok(spec) = std::env::var(EnvFilter::DEFAULT_ENV) {
        if !spec.trim().is_empty() {
            if let Ok(filter) = EnvFilter::try_new(&spec) {
                return filter;
            }
            eprintln!("warning: RUST_LOG={spec:?} is not a valid filter; using the flags");
        }
    }
    let level = level(args);
    EnvFilter::new(format!("warn,rea={level}"))
}

/// Installs the subscriber (once, at start) and starts the thread that
/// writes buffered lines; the returned guard writes the rest when dropped.
pub(crate) fn init(args: &LogArgs) -> Flush {
    let _ = std::thread::Builder::new()
        .name("rea-log".into())
        .spawn(|| loop {
            std::thread::sleep(FLUSH_EVERY);
            flush();
        });
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter(args))
        .with_writer(MakeBuffered);
    let _ = match args.log_format {
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .try_init(),
        LogFormat::Text => {
            let ansi = std::io::stderr().is_terminal();
            let installed = builder
                .with_ansi(ansi)
                .event_format(TextLine {
                    default: format::Format::default().with_ansi(ansi),
                })
                .try_init();
            if installed.is_ok() && !ansi {
                // The request line is `TextLine`'s short path, written
                // without its event.
                rea_serve::admin::on_request_line(request_line);
            }
            installed
        }
    };
    Flush
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn timestamps_are_written_as_the_default_timer_writes_them() {
        for (secs, micros, text) in [
            (0, 0, "1970-01-01T00:00:00.000000Z"),
            (951_782_400, 7, "2000-02-29T00:00:00.000007Z"),
            (1_709_164_800, 999_999, "2024-02-29T00:00:00.999999Z"),
            (1_764_624_553, 120_000, "2025-12-01T21:29:13.120000Z"),
            (4_102_444_799, 1, "2099-12-31T23:59:59.000001Z"),
        ] {
            let at = UNIX_EPOCH + Duration::from_secs(secs) + Duration::from_micros(micros);
            let mut line = String::new();
            assert!(timestamp(at, &mut line));
            assert_eq!(line, text);
        }
        let mut line = String::new();
        assert!(!timestamp(UNIX_EPOCH - Duration::from_secs(1), &mut line));
        assert!(line.is_empty());
    }

    /// The request line written without its event is the event's line,
    /// byte for byte after the timestamp; a value needing escaping is left
    /// to the event.
    #[test]
    fn request_lines_are_the_lines_their_events_write() {
        #[derive(Clone, Default)]
        struct Captured(std::sync::Arc<Mutex<Vec<u8>>>);
        impl Write for Captured {
            fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(data);
                Ok(data.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .event_format(TextLine {
                default: format::Format::default().with_ansi(false),
            })
            .finish();
        let dispatch = tracing::Dispatch::new(subscriber);
        let cases = [
            (
                "http",
                "GET",
                "/line-test/a?b=1",
                "get_a",
                "world",
                200,
                0.023,
            ),
            (
                "data-plane",
                "data/reset",
                "/agentenv",
                "-",
                "world",
                200,
                1e-7,
            ),
            (
                "http",
                "PATCH",
                "/line-test/%22",
                "-",
                "unmatched",
                404,
                12.5,
            ),
        ];
        for (surface, method, path, tool, source, status, duration_ms) in cases {
            let line = rea_serve::admin::RequestLine {
                surface,
                method,
                path,
                tool,
                source,
                status,
                duration_ms,
            };
            assert!(request_line(&line));
            let written = {
                let mut buffer = pending();
                let text = String::from_utf8(buffer.clone()).unwrap();
                buffer.clear();
                text
            };
            tracing::dispatcher::with_default(&dispatch, || {
                tracing::info!(target: "rea::request", surface, method, path, tool, source, status, duration_ms, "{method} {path} {status}");
            });
            let event =
                String::from_utf8(std::mem::take(&mut *captured.0.lock().unwrap())).unwrap();
            let mine = written.lines().find(|l| l.contains(path)).unwrap();
            assert_eq!(&mine[27..], &event.trim_end()[27..], "{path}");
        }
        let quoted = rea_serve::admin::RequestLine {
            surface: "http",
            method: "GET",
            path: "/a\"b",
            tool: "-",
            source: "-",
            status: 200,
            duration_ms: 1.0,
        };
        assert!(!request_line(&quoted));
    }

    /// Durations are written as `{:?}` writes them, rounded to whole
    /// microseconds as the journal rounds them or not.
    #[test]
    fn durations_are_written_as_debug_writes_them() {
        let mut values: Vec<f64> = (0..20_000u64).map(|k| k as f64 / 1e3).collect();
        values.extend((0..2_000u64).map(|k| (k * 7_919 + 1) as f64 * 1.013 / 1e3));
        values.extend([
            1e9 + 0.001,
            123_456_789.012,
            5e-5,
            1e-7,
            1e16,
            2.5e300,
            -0.0,
            -1.5,
        ]);
        values.extend([f64::NAN, f64::INFINITY]);
        for v in values {
            let ms = (v * 1e6).round() / 1e3;
            for value in [v, ms] {
                let mut out = Vec::new();
                push_debug_ms(&mut out, value);
                assert_eq!(String::from_utf8(out).unwrap(), format!("{value:?}"));
            }
        }
    }

    #[test]
    fn only_plain_text_is_written_without_escaping() {
        assert!(plain("/v1/buckets/shop?x=1&y=%20~"));
        for text in ["a\"b", "a\\b", "tab\t", "é", "\u{7f}"] {
            assert!(!plain(text), "{text:?}");
        }
    }
}
