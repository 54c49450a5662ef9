//! Headers describe the answer they come with (docs/serving.md, "Headers"):
//! - a body rendered from the World gets validators computed from it: an
//!   `ETag` in the recording's spelling (the member of the body the
//!   recorded ETag spelled, else a digest of the body) and a
//!   `Last-Modified` only when that member is a clock; count headers are
//!   set by the list render (`count_headers`);
//! - credentials, framing and hop-by-hop headers are never replayed
//!   (`replayable`);
//! - `Date` is never replayed (the HTTP server stamps the current one);
//! - a recorded conditional answer (`304`, `412`) is replayed only to a
//!   request carrying the matching precondition (`precondition_fits`);
//! - URLs the app built from its own origin (headers and body strings) are
//!   rewritten to the serving origin the request came to (`Host`).

use crate::records::Record;
use crate::{Answer, AnswerBody, Call, Engine};
use serde_json::Value;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// Whether a recorded response header may be replayed: never credentials,
/// never headers describing a body encoding or framing that is not served.
pub fn replayable(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    if n.starts_with(':') {
        return false;
    }
    const NEVER: &[&str] = &[
        "set-cookie",
        "set-cookie2",
        "cookie",
        "authorization",
        "proxy-authorization",
        "proxy-authenticate",
        "content-encoding",
        "transfer-encoding",
        "content-length",
        "content-type",
        "connection",
        "keep-alive",
        "upgrade",
        "trailer",
        "te",
        "alt-svc",
        "strict-transport-security",
    ];
    if NEVER.contains(&n.as_str()) {
        return false;
    }
    let secret_like = [
        "token", "api-key", "apikey", "secret", "session", "csrf", "xsrf",
    ];
    if secret_like.iter().any(|s| n.contains(s)) {
        return false;
    }
    n == "www-authenticate" || !n.contains("auth")
}

/// Validators recomputed for a rendered body.
const VALIDATORS: [&str; 2] = ["etag", "last-modified"];

/// Step 3 of dispatch: the answer's headers made to describe it.
pub(crate) fn describe(engine: &Engine, call: &Call, mut answer: Answer) -> Answer {
    answer
        .headers
        .retain(|(n, _)| !n.eq_ignore_ascii_case("date"));
    if let Some(record) = answer.rendered.and_then(|o| engine.record(o)) {
        revalidate(&mut answer, record, &engine.etag_members);
        if not_modified(call, &answer) {
            answer.status = 304;
            answer.body = AnswerBody::Empty;
        }
    }
    if let Some(serving) = serving_origin(call) {
        rewrite_origin(&mut answer, &engine.manifest.origin, &serving);
    }
    answer
}

/// Whether a recorded answer with `status` may answer `call`: a `304` only
/// a request with `If-None-Match`/`If-Modified-Since`, a `412` only one
/// with `If-Match`/`If-Unmodified-Since`.
pub(crate) fn precondition_fits(status: Option<u16>, call: &Call) -> bool {
    match status {
        Some(304) => {
            call.header("if-none-match").is_some() || call.header("if-modified-since").is_some()
        }
        Some(412) => {
            call.header("if-match").is_some() || call.header("if-unmodified-since").is_some()
        }
        _ => true,
    }
}

/// Sets every count header of a rendered list: a recorded header whose
/// value is the number of entities the recorded body listed (`recorded`)
/// now says `count`.
pub(crate) fn count_headers(answer: &mut Answer, recorded: usize, count: usize) {
    let recorded = recorded.to_string();
    for (_, value) in answer.headers.iter_mut() {
        if value.trim() == recorded {
            *value = count.to_string();
        }
    }
}

/// Pairs `EtagMembers` keeps at most (emptied when full).
const MAX_ETAG_MEMBERS: usize = 4096;

/// The JSON pointer of the member each recording's ETag repeats, by the
/// recording's ordinal and the ETag's value: found once per pair (it
/// parses the recorded body), not on every rendered answer.
#[derive(Debug, Clone, Default)]
pub(crate) struct EtagMembers(std::sync::Arc<std::sync::Mutex<MemberPointers>>);

/// (recording ordinal, ETag value) → the pointer of the member it repeats.
type MemberPointers = HashMap<(u64, String), Option<String>>;

impl EtagMembers {
    fn of(&self, record: &Record, inner: &str) -> Option<String> {
        let key = (record.ordinal, inner.to_string());
        let mut memo = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(found) = memo.get(&key) {
            return found.clone();
        }
        let found = record_json(record).and_then(|b| pointer_of_scalar(&b, inner, String::new()));
        if memo.len() >= MAX_ETAG_MEMBERS {
            memo.clear();
        }
        memo.insert(key, found.clone());
        found
    }
}

/// Replaces the recorded validators of a rendered answer with ones
/// computed from its body, or drops them.
fn revalidate(answer: &mut Answer, record: &Record, members: &EtagMembers) {
    let Some(etag) = answer
        .headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("etag"))
        .map(|(_, v)| v.clone())
    else {
        answer
            .headers
            .retain(|(n, _)| !n.eq_ignore_ascii_case("last-modified"));
        return;
    };
    let (weak, inner) = split_etag(&etag);
    let member = members.of(record, inner);
    let body = match &answer.body {
        AnswerBody::Json(v) => Some(v),
        _ => None,
    };
    let from_member = member
        .as_deref()
        .and_then(|p| body.and_then(|b| crate::codec::at_pointer(b, p)))
        .and_then(scalar_text);
    let value = from_member.clone().unwrap_or_else(|| {
        let digest = digest(body);
        if !inner.is_empty() && inner.bytes().all(|b| b.is_ascii_digit()) {
            digest.to_string()
        } else {
            format!("{digest:016x}")
        }
    });
    let last_modified = from_member
        .as_deref()
        .and_then(|v| v.parse::<i64>().ok())
        .and_then(http_date);
    answer.headers.retain(|(n, _)| {
        !VALIDATORS.iter().any(|v| n.eq_ignore_ascii_case(v))
            || (n.eq_ignore_ascii_case("last-modified") && last_modified.is_some())
            || n.eq_ignore_ascii_case("etag")
    });
    for (name, v) in answer.headers.iter_mut() {
        if name.eq_ignore_ascii_case("etag") {
            *v = format!("{}\"{value}\"", if weak { "W/" } else { "" });
        } else if name.eq_ignore_ascii_case("last-modified") {
            if let Some(date) = &last_modified {
                v.clone_from(date);
            }
        }
    }
}

/// A rendered 2xx GET whose ETag the request's `If-None-Match` names.
fn not_modified(call: &Call, answer: &Answer) -> bool {
    if !call.method.eq_ignore_ascii_case("GET") || !(200..300).contains(&answer.status) {
        return false;
    }
    let (Some(asked), Some(etag)) = (
        call.header("if-none-match"),
        answer
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("etag"))
            .map(|(_, v)| v),
    ) else {
        return false;
    };
    etag_matches(asked, etag)
}

/// Whether a precondition header's list of entity tags (`If-Match`,
/// `If-None-Match`: `"a", W/"b"` or `*`) names `etag` (weak comparison).
pub fn etag_matches(asked: &str, etag: &str) -> bool {
    let ours = split_etag(etag).1;
    asked
        .split(',')
        .map(str::trim)
        .any(|t| t == "*" || split_etag(t).1 == ours)
}

/// `W/"x"` → (true, `x`); `"x"` → (false, `x`); `x` → (false, `x`).
fn split_etag(etag: &str) -> (bool, &str) {
    let t = etag.trim();
    let (weak, rest) = match t.strip_prefix("W/") {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    (weak, rest.trim_matches('"'))
}

fn record_json(record: &Record) -> Option<Value> {
    match &record.response_body {
        crate::records::Body::Text(t) => serde_json::from_str(t).ok(),
        _ => None,
    }
}

/// The JSON pointer of the first scalar in `value` spelled `text`.
fn pointer_of_scalar(value: &Value, text: &str, at: String) -> Option<String> {
    if text.is_empty() {
        return None;
    }
    match value {
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            pointer_of_scalar(v, text, format!("{at}/{}", crate::codec::pointer_token(k)))
        }),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| pointer_of_scalar(v, text, format!("{at}/{i}"))),
        other => (scalar_text(other).as_deref() == Some(text)).then_some(at),
    }
}

fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// An entity tag computed from a body (weak: `W/"…"`), as the engine's
/// rendered answers spell theirs: for answers built outside the engine.
pub fn body_etag(body: &Value, weak: bool) -> String {
    format!(
        "{}\"{:016x}\"",
        if weak { "W/" } else { "" },
        digest(Some(body))
    )
}

fn digest(body: Option<&Value>) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    body.map(Value::to_string)
        .unwrap_or_default()
        .hash(&mut hasher);
    hasher.finish()
}

/// An IMF-fixdate for a clock value: epoch milliseconds (13 digits and
/// more) or seconds.
fn http_date(n: i64) -> Option<String> {
    let ms = if n.abs() >= 100_000_000_000 {
        n
    } else {
        n.checked_mul(1000)?
    };
    if let Some(date) = imf_fixdate(ms) {
        return Some(date);
    }
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|d| d.format("%a, %d %b %Y %H:%M:%S GMT").to_string())
}

/// `%a, %d %b %Y %H:%M:%S GMT` of epoch milliseconds, written directly
/// (chrono's formatter was a fortieth of a write); `None` outside the years
/// 1970 to 9999, which chrono writes.
fn imf_fixdate(ms: i64) -> Option<String> {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let secs = u64::try_from(ms).ok()? / 1000;
    let days = secs / 86_400;
    let (year, month, day) = civil_from_days(days);
    if year > 9999 {
        return None;
    }
    let of_day = secs % 86_400;
    let mut out = String::with_capacity(29);
    out.push_str(DAYS[(days % 7) as usize]);
    out.push_str(", ");
    push_digits(&mut out, u64::from(day), 2);
    out.push(' ');
    out.push_str(MONTHS[month as usize - 1]);
    out.push(' ');
    push_digits(&mut out, year, 4);
    out.push(' ');
    push_digits(&mut out, of_day / 3600, 2);
    out.push(':');
    push_digits(&mut out, of_day / 60 % 60, 2);
    out.push(':');
    push_digits(&mut out, of_day % 60, 2);
    out.push_str(" GMT");
    Some(out)
}

/// Appends `n` zero-padded to `width` digits (`n` has at most `width`).
fn push_digits(out: &mut String, n: u64, width: u32) {
    for place in (0..width).rev() {
        out.push(char::from(b'0' + (n / 10u64.pow(place) % 10) as u8));
    }
}

/// The Gregorian (year, month, day) of a count of days since 1970-01-01
/// (H. Hinnant's `civil_from_days`, for days on or after the epoch).
fn civil_from_days(days: u64) -> (u64, u32, u32) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + u64::from(month <= 2), month, day)
}

/// An answer made outside the engine (the app model's) with URLs under
/// the recorded origin rewritten to the one the request was sent to, as
/// the engine's own answers are.
pub fn at_serving_origin(answer: &mut Answer, recorded: &str, call: &Call) {
    if let Some(serving) = serving_origin(call) {
        rewrite_origin(answer, recorded, &serving);
    }
}

/// `http://<Host>` of the request, when it names one.
fn serving_origin(call: &Call) -> Option<String> {
    let host = call.header("host")?.trim();
    (!host.is_empty() && !host.contains(['/', ' '])).then(|| format!("http://{host}"))
}

/// Rewrites URLs under the recorded origin to the serving origin, in
/// header values and in the body's strings.
fn rewrite_origin(answer: &mut Answer, recorded: &str, serving: &str) {
    if recorded.is_empty() || recorded == serving {
        return;
    }
    let rewrite = |text: &mut String| {
        if let Some(rest) = text.strip_prefix(recorded) {
            if rest.is_empty() || rest.starts_with(['/', '?', '#']) {
                *text = format!("{serving}{rest}");
            }
        }
    };
    for (_, value) in answer.headers.iter_mut() {
        rewrite(value);
    }
    if let AnswerBody::Json(body) = &mut answer.body {
        let mut stack = vec![body];
        while let Some(v) = stack.pop() {
            match v {
                Value::String(s) => rewrite(s),
                Value::Array(items) => stack.extend(items.iter_mut()),
                Value::Object(map) => stack.extend(map.values_mut()),
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The dates written directly are chrono's, day for day and second for
    /// second, leap years and the range's ends included.
    #[test]
    fn http_dates_are_written_as_chrono_writes_them() {
        let chrono_date = |ms: i64| {
            chrono::DateTime::from_timestamp_millis(ms)
                .map(|d| d.format("%a, %d %b %Y %H:%M:%S GMT").to_string())
        };
        let mut samples: Vec<i64> = (0..40_000i64).map(|d| d * 86_400_000 + d * 7_919).collect();
        samples.extend((0..3_000i64).map(|k| k * 86_400_000 * 1_000 + 3_599_999));
        samples.extend([
            0,
            999,
            1_796_059_557_668,
            253_402_300_799_999,
            253_402_300_800_000,
        ]);
        for ms in samples {
            if let Some(mine) = imf_fixdate(ms) {
                assert_eq!(Some(mine), chrono_date(ms), "{ms}");
            } else {
                assert!(ms >= 253_402_300_800_000, "{ms}");
            }
            if ms >= 100_000_000_000 {
                assert_eq!(http_date(ms), chrono_date(ms), "{ms}");
            }
        }
        assert_eq!(imf_fixdate(-1), None);
        // Seconds before the epoch: chrono's.
        assert_eq!(http_date(-1_000), chrono_date(-1_000_000));
    }

    #[test]
    fn etags_split_and_dates_format() {
        assert_eq!(split_etag("W/\"abc\""), (true, "abc"));
        assert_eq!(split_etag("\"17\""), (false, "17"));
        assert_eq!(
            http_date(1_700_000_000_000).as_deref(),
            Some("Tue, 14 Nov 2023 22:13:20 GMT")
        );
        assert_eq!(
            http_date(1_700_000_000).as_deref(),
            Some("Tue, 14 Nov 2023 22:13:20 GMT")
        );
    }

    #[test]
    fn preconditions_gate_recorded_conditional_answers() {
        let mut call = Call::new("GET", "/a", None);
        assert!(!precondition_fits(Some(304), &call));
        assert!(!precondition_fits(Some(412), &call));
        assert!(precondition_fits(Some(200), &call));
        call.headers.push(("If-None-Match".into(), "\"1\"".into()));
        assert!(precondition_fits(Some(304), &call));
        assert!(!precondition_fits(Some(412), &call));
    }

    #[test]
    fn origin_links_follow_the_serving_origin() {
        let mut a = crate::refusal::Refusal::Internal {
            tool: None,
            message: "x".into(),
        }
        .answer();
        a.headers
            .push(("Next-Page".into(), "http://rec:1/v1/x?_token=a".into()));
        a.body = AnswerBody::Json(
            serde_json::json!({"self": "http://rec:1/v1/x", "other": "http://rec:10/"}),
        );
        rewrite_origin(&mut a, "http://rec:1", "http://127.0.0.1:9");
        assert_eq!(a.headers[0].1, "http://127.0.0.1:9/v1/x?_token=a");
        let AnswerBody::Json(b) = &a.body else {
            panic!()
        };
        assert_eq!(b["self"], "http://127.0.0.1:9/v1/x");
        assert_eq!(b["other"], "http://rec:10/");
    }
}
