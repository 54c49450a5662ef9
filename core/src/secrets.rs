//! Pseudonymisation of recorded secrets for serving: the values of
//! well-known secret members (JSON bodies, form bodies, query strings),
//! of secret-named headers, and every `--sensitive-value`, replaced in the
//! serving Evidence before anything is derived from it, each by one
//! consistent pseudonym (same value, same pseudonym, everywhere), so that
//! joins on a pseudonymised value still answer. Inspection never calls this.
//!
//! The list of names is [`SECRET_MEMBER_SUFFIXES`] (bodies, forms, queries)
//! and [`SECRET_HEADER_WORDS`] (headers); `docs/secrets.md` writes it down.

use aho_corasick::{AhoCorasick, MatchKind};
use base64::Engine as _;
use indexmap::IndexMap;
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// A member, form field or query parameter is secret when its name, in
/// lowercase without `_`, `-` and `.`, ends with one of these
/// (`access_token`, `X-Api-Key`, `clientSecret`, `new_password`, …).
/// A bare `token`, `page_token` or `next_token` is not: such names page.
pub const SECRET_MEMBER_SUFFIXES: [&str; 25] = [
    "password",
    "passwd",
    "passphrase",
    "secret",
    "accesstoken",
    "refreshtoken",
    "idtoken",
    "authtoken",
    "apitoken",
    "sessiontoken",
    "securitytoken",
    "bearertoken",
    "oauthtoken",
    "resettoken",
    "csrftoken",
    "xsrftoken",
    "csrfmiddlewaretoken",
    "apikey",
    "secretkey",
    "privatekey",
    "accesskeyid",
    "clientassertion",
    "codeverifier",
    "authorization",
    "sessionid",
];

/// A header is secret when its lowercase name contains one of these (the
/// same words that keep a recorded header from being replayed), except
/// `www-authenticate`.
pub const SECRET_HEADER_WORDS: [&str; 8] = [
    "token", "api-key", "apikey", "secret", "session", "csrf", "xsrf", "auth",
];

/// A found value shorter than this is not taken for a secret.
const MIN_SECRET: usize = 4;
/// A found secret at least this long is also replaced wherever else it
/// appears (bounded by non-alphanumerics); shorter ones only where found.
const MIN_ELSEWHERE: usize = 6;
/// A found secret at least this long is replaced even inside longer text.
const MIN_UNBOUNDED: usize = 16;

/// Whether serving pseudonymises, and the caller's declared values.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SecretPolicy {
    /// `--keep-secrets`: serve recorded values as recorded.
    pub keep: bool,
    /// `--sensitive-value`: literals pseudonymised wherever they appear.
    pub sensitive_values: Vec<String>,
}

/// What one pseudonymisation did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Distinct values given a pseudonym.
    pub values: usize,
}

/// Whether a member, form field or query parameter name is a secret's.
pub fn is_secret_member(name: &str) -> bool {
    // The usual short ASCII name, without allocating.
    if name.is_ascii() && name.len() <= 64 {
        let mut buf = [0u8; 64];
        let mut len = 0;
        for b in name
            .bytes()
            .filter(|b| !matches!(b, b'_' | b'-' | b'.' | b' '))
        {
            buf[len] = b.to_ascii_lowercase();
            len += 1;
        }
        let n = &buf[..len];
        return SECRET_MEMBER_SUFFIXES
            .iter()
            .any(|s| n.ends_with(s.as_bytes()));
    }
    let n: String = name
        .chars()
        .filter(|c| !matches!(c, '_' | '-' | '.' | ' '))
        .flat_map(char::to_lowercase)
        .collect();
    SECRET_MEMBER_SUFFIXES.iter().any(|s| n.ends_with(s))
}

/// Whether a header name is a secret's.
pub fn is_secret_header(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n != "www-authenticate" && SECRET_HEADER_WORDS.iter().any(|w| n.contains(w))
}

/// Pseudonymises the records of a serving Evidence (JSON) in place, unless
/// the policy keeps secrets. Deterministic: the same Evidence and policy
/// give the same result.
pub fn pseudonymise_evidence(evidence: &mut Value, policy: &SecretPolicy) -> Summary {
    if policy.keep {
        return Summary::default();
    }
    let Some(records) = evidence.get_mut("records").and_then(Value::as_array_mut) else {
        return Summary::default();
    };
    let mut s = Scrubber::new(policy);
    for record in records.iter_mut() {
        scrub_record(&mut s, record);
    }
    s.rewrite_mode();
    for record in records.iter_mut() {
        scrub_record(&mut s, record);
    }
    Summary {
        values: s.pseudonyms.len(),
    }
}

fn scrub_record(s: &mut Scrubber, record: &mut Value) {
    if let Some(entry) = record.get_mut("reported") {
        s.entry(entry);
    }
    let Some(fields) = record
        .get_mut("binary_fields")
        .and_then(Value::as_array_mut)
    else {
        return;
    };
    for field in fields {
        let Some(b64) = field.get("base64").and_then(Value::as_str) else {
            continue;
        };
        if let Some(new) = s.base64_text(b64, None) {
            if s.rewriting {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(&new)
                    .unwrap_or_default();
                if field.get("sha256").is_some_and(Value::is_string) {
                    field["sha256"] = Value::String(hex(&Sha256::digest(&bytes)));
                }
                field["base64"] = Value::String(new);
            }
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Characters a query component keeps unencoded.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// One replacement pattern: a form of a secret and the same form of its pseudonym.
struct Pattern {
    replacement: String,
    bounded: bool,
}

/// Two passes over the same records: the first finds secrets (in record
/// order, which numbers the pseudonyms), the second replaces them.
struct Scrubber {
    rewriting: bool,
    /// Secret value → pseudonym, in the order found.
    pseudonyms: IndexMap<String, String>,
    declared: Vec<String>,
    matcher: Option<(AhoCorasick, Vec<Pattern>)>,
}

impl Scrubber {
    fn new(policy: &SecretPolicy) -> Scrubber {
        let mut s = Scrubber {
            rewriting: false,
            pseudonyms: IndexMap::new(),
            declared: Vec::new(),
            matcher: None,
        };
        for v in &policy.sensitive_values {
            if !v.is_empty() && !s.declared.contains(v) {
                s.declared.push(v.clone());
                s.register(v);
            }
        }
        s
    }

    fn register(&mut self, value: &str) {
        if !self.pseudonyms.contains_key(value) {
            let n = self.pseudonyms.len();
            let p = pseudonym(value, n);
            self.pseudonyms.insert(value.to_string(), p);
        }
    }

    /// Switches to replacing: builds one matcher of every form of every
    /// secret that is replaced wherever it appears.
    fn rewrite_mode(&mut self) {
        self.rewriting = true;
        let mut needles: Vec<String> = Vec::new();
        let mut patterns = Vec::new();
        for (value, p) in &self.pseudonyms {
            let declared = self.declared.contains(value);
            let len = value.chars().count();
            if !declared && len < MIN_ELSEWHERE {
                continue;
            }
            let bounded = !declared && len < MIN_UNBOUNDED;
            for (form, replacement) in forms(value, p) {
                if !needles.contains(&form) {
                    needles.push(form);
                    patterns.push(Pattern {
                        replacement,
                        bounded,
                    });
                }
            }
        }
        if needles.is_empty() {
            return;
        }
        self.matcher = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(&needles)
            .ok()
            .map(|m| (m, patterns));
    }

    /// A value found at a secret's place: registered, or its pseudonym.
    fn secret(&mut self, value: &str) -> Option<String> {
        if value.chars().count() < MIN_SECRET && !self.declared.iter().any(|d| d == value) {
            return None;
        }
        if self.rewriting {
            self.pseudonyms.get(value).cloned()
        } else {
            self.register(value);
            None
        }
    }

    /// Every known secret in free text replaced (rewriting only).
    fn text(&self, text: &str) -> Option<String> {
        let (matcher, patterns) = self.matcher.as_ref()?;
        let mut out = String::new();
        let mut last = 0;
        for m in matcher.find_iter(text) {
            let pattern = &patterns[m.pattern().as_usize()];
            if pattern.bounded && !bounded(text, m.start(), m.end()) {
                continue;
            }
            out.push_str(&text[last..m.start()]);
            out.push_str(&pattern.replacement);
            last = m.end();
        }
        if last == 0 {
            return None;
        }
        out.push_str(&text[last..]);
        Some(out)
    }

    fn replace_text(&self, v: &mut Value) {
        if let Some(new) = v.as_str().and_then(|t| self.text(t)) {
            *v = Value::String(new);
        }
    }

    /// A HAR entry (or a HAR-shaped record).
    fn entry(&mut self, entry: &mut Value) {
        let Some(map) = entry.as_object_mut() else {
            return self.generic(entry);
        };
        for (key, v) in map.iter_mut() {
            match key.as_str() {
                "request" | "response" => self.message(v),
                _ => self.generic(v),
            }
        }
    }

    fn message(&mut self, message: &mut Value) {
        let Some(map) = message.as_object_mut() else {
            return self.generic(message);
        };
        for (key, v) in map.iter_mut() {
            match key.as_str() {
                "url" | "redirectURL" => self.url_value(v),
                "headers" => self.pairs(v, is_secret_header),
                "queryString" => self.pairs(v, is_secret_member),
                "postData" | "content" => self.body(v),
                _ => self.generic(v),
            }
        }
    }

    /// Any other value: every string's known secrets replaced.
    fn generic(&mut self, v: &mut Value) {
        if !self.rewriting {
            return;
        }
        match v {
            Value::String(_) => self.replace_text(v),
            Value::Array(items) => items.iter_mut().for_each(|i| self.generic(i)),
            Value::Object(map) => map.values_mut().for_each(|i| self.generic(i)),
            _ => {}
        }
    }

    /// `[{name, value}, …]`: a secret name makes its value a secret.
    fn pairs(&mut self, list: &mut Value, secret_name: fn(&str) -> bool) {
        let Some(items) = list.as_array_mut() else {
            return self.generic(list);
        };
        for item in items {
            let is_secret = item
                .get("name")
                .and_then(Value::as_str)
                .is_some_and(secret_name);
            let location = item
                .get("name")
                .and_then(Value::as_str)
                .is_some_and(|n| n.eq_ignore_ascii_case("location"));
            let Some(map) = item.as_object_mut() else {
                self.generic(item);
                continue;
            };
            for (key, v) in map.iter_mut() {
                match (key.as_str(), v.as_str()) {
                    ("value", Some(value)) if is_secret => {
                        let value = value.to_string();
                        self.header_secret(v, &value);
                    }
                    ("value", Some(_)) if location => self.url_value(v),
                    _ => self.generic(v),
                }
            }
        }
    }

    /// A secret header's (or field's) value, and its last word (`Bearer x`).
    fn header_secret(&mut self, v: &mut Value, value: &str) {
        let word = value
            .rsplit_once(' ')
            .map(|(_, w)| w.to_string())
            .filter(|w| w.chars().count() >= MIN_ELSEWHERE);
        if let Some(p) = self.secret(value) {
            *v = Value::String(p);
            return;
        }
        if let Some(w) = word {
            self.secret(&w);
        }
        if self.rewriting {
            self.replace_text(v);
        }
    }

    fn url_value(&mut self, v: &mut Value) {
        if let Some(new) = v.as_str().and_then(|u| self.url(u)) {
            *v = Value::String(new);
        }
    }

    /// A URL: the path as text, the query and fragment as forms.
    fn url(&mut self, url: &str) -> Option<String> {
        let (rest, fragment) = match url.split_once('#') {
            Some((r, f)) => (r, Some(f)),
            None => (url, None),
        };
        let (path, query) = match rest.split_once('?') {
            Some((p, q)) => (p, Some(q)),
            None => (rest, None),
        };
        let new_path = self.text(path);
        let new_query = query.and_then(|q| self.form(q));
        let new_fragment = fragment.and_then(|f| self.form(f));
        if new_path.is_none() && new_query.is_none() && new_fragment.is_none() {
            return None;
        }
        let mut out = new_path.unwrap_or_else(|| path.to_string());
        if let Some(q) = query {
            out.push('?');
            out.push_str(new_query.as_deref().unwrap_or(q));
        }
        if let Some(f) = fragment {
            out.push('#');
            out.push_str(new_fragment.as_deref().unwrap_or(f));
        }
        Some(out)
    }

    /// `a=1&b=2`: a secret name's value replaced by its pseudonym (form
    /// encoded); the rest as text.
    fn form(&mut self, form: &str) -> Option<String> {
        let mut changed = false;
        let mut parts = Vec::new();
        for part in form.split('&') {
            let secret = part.split_once('=').and_then(|(k, raw)| {
                let key = form_decode(k);
                if raw.is_empty() || !is_secret_member(&key) {
                    return None;
                }
                let p = self.secret(&form_decode(raw))?;
                Some(format!("{k}={}", form_encode(&p)))
            });
            let new = secret.or_else(|| self.text(part));
            changed |= new.is_some();
            parts.push(new.unwrap_or_else(|| part.to_string()));
        }
        changed.then(|| parts.join("&"))
    }

    /// `postData` or `content`: its text by media type, its params as pairs.
    fn body(&mut self, body: &mut Value) {
        let mime = body
            .get("mimeType")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_ascii_lowercase();
        let base64 = body.get("encoding").and_then(Value::as_str) == Some("base64");
        let Some(map) = body.as_object_mut() else {
            return self.generic(body);
        };
        for (key, v) in map.iter_mut() {
            match (key.as_str(), v.as_str()) {
                ("text", Some(text)) => {
                    let new = if base64 {
                        self.base64_text(text, Some(&mime))
                    } else {
                        self.body_text(text, &mime)
                    };
                    if let Some(new) = new {
                        *v = Value::String(new);
                    }
                }
                ("params", _) => self.pairs(v, is_secret_member),
                _ => self.generic(v),
            }
        }
    }

    /// A base64 body: its UTF-8 text scrubbed and encoded again (bytes that
    /// are not UTF-8 are left as they are).
    fn base64_text(&mut self, b64: &str, mime: Option<&str>) -> Option<String> {
        let engine = base64::engine::general_purpose::STANDARD;
        let bytes = engine.decode(b64.trim()).ok()?;
        let text = String::from_utf8(bytes).ok()?;
        let new = self.body_text(&text, mime.unwrap_or(""))?;
        Some(engine.encode(new))
    }

    fn body_text(&mut self, text: &str, mime: &str) -> Option<String> {
        let head = text.trim_start().as_bytes().first().copied();
        if mime.contains("json") || matches!(head, Some(b'{' | b'[')) {
            if let Some(result) = self.json(text) {
                return result;
            }
        }
        if mime.contains("x-www-form-urlencoded") {
            return self.form(text);
        }
        self.text(text)
    }

    /// A JSON text: values under secret members replaced by pseudonyms,
    /// known secrets replaced inside every string; numbers and structure
    /// kept byte for byte. `None` when the text is not JSON; `Some(None)`
    /// when nothing changed.
    fn json(&mut self, text: &str) -> Option<Option<String>> {
        struct Frame {
            object: bool,
            expect_key: bool,
            key_secret: bool,
            inherited: bool,
        }
        let b = text.as_bytes();
        let mut stack: Vec<Frame> = Vec::new();
        let mut out = String::with_capacity(if self.rewriting { text.len() } else { 0 });
        let mut changed = false;
        let mut i = 0;
        let secret_here = |stack: &[Frame]| {
            stack
                .last()
                .is_some_and(|f| f.inherited || (f.object && f.key_secret))
        };
        while i < b.len() {
            let c = b[i];
            let start = i;
            let mut replacement: Option<String> = None;
            match c {
                b' ' | b'\t' | b'\r' | b'\n' => i += 1,
                b'{' | b'[' => {
                    let inherited = secret_here(&stack);
                    stack.push(Frame {
                        object: c == b'{',
                        expect_key: c == b'{',
                        key_secret: false,
                        inherited,
                    });
                    i += 1;
                }
                b'}' | b']' => {
                    stack.pop()?;
                    i += 1;
                }
                b':' => {
                    if let Some(f) = stack.last_mut() {
                        f.expect_key = false;
                    }
                    i += 1;
                }
                b',' => {
                    if let Some(f) = stack.last_mut() {
                        f.expect_key = f.object;
                    }
                    i += 1;
                }
                b'"' => {
                    i += 1;
                    while i < b.len() && b[i] != b'"' {
                        i += if b[i] == b'\\' { 2 } else { 1 };
                    }
                    if i >= b.len() {
                        return None;
                    }
                    i += 1;
                    let raw = &text[start..i];
                    let is_key = stack.last().is_some_and(|f| f.object && f.expect_key);
                    let decoded: Option<String> = serde_json::from_str(raw).ok();
                    if is_key {
                        let secret = decoded.as_deref().is_some_and(is_secret_member);
                        if let Some(f) = stack.last_mut() {
                            f.key_secret = secret;
                        }
                    }
                    let as_secret = if !is_key && secret_here(&stack) {
                        decoded.and_then(|d| self.secret(&d))
                    } else {
                        None
                    };
                    replacement = match as_secret {
                        Some(p) => serde_json::to_string(&p).ok(),
                        None => self
                            .text(&raw[1..raw.len() - 1])
                            .map(|inner| format!("\"{inner}\"")),
                    };
                }
                b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => {
                    while i < b.len()
                        && matches!(b[i], b'-' | b'+' | b'.' | b'0'..=b'9' | b'a'..=b'z' | b'E')
                    {
                        i += 1;
                    }
                    let token = &text[start..i];
                    if !matches!(token, "true" | "false" | "null")
                        && (secret_here(&stack) || self.declared.iter().any(|d| d == token))
                    {
                        replacement = self.secret(token);
                    }
                }
                _ => return None,
            }
            if self.rewriting {
                match replacement {
                    Some(r) => {
                        changed = true;
                        out.push_str(&r);
                    }
                    None => out.push_str(&text[start..i]),
                }
            }
        }
        if !stack.is_empty() {
            return None;
        }
        Some(changed.then_some(out))
    }
}

/// Whether a match is bounded by non-alphanumerics where the secret's own
/// edge is alphanumeric.
fn bounded(text: &str, start: usize, end: usize) -> bool {
    let before = text[..start].chars().next_back();
    let first = text[start..end].chars().next();
    let last = text[start..end].chars().next_back();
    let after = text[end..].chars().next();
    let edge = |inner: Option<char>, outer: Option<char>| {
        !(inner.is_some_and(|c| c.is_alphanumeric()) && outer.is_some_and(|c| c.is_alphanumeric()))
    };
    edge(first, before) && edge(last, after)
}

/// The forms a secret is written in (as is, percent- and form-encoded,
/// JSON-escaped), each with the same form of its pseudonym.
fn forms(value: &str, p: &str) -> Vec<(String, String)> {
    let json = |s: &str| {
        let q = serde_json::to_string(s).unwrap_or_default();
        q[1..q.len().saturating_sub(1).max(1)].to_string()
    };
    let mut out = vec![(value.to_string(), p.to_string())];
    let more = [
        (
            utf8_percent_encode(value, COMPONENT).to_string(),
            utf8_percent_encode(p, COMPONENT).to_string(),
        ),
        (form_encode(value), form_encode(p)),
        (json(value), json(p)),
        (json(value).replace('/', "\\/"), json(p).replace('/', "\\/")),
    ];
    for (form, replacement) in more {
        if !form.is_empty() && !out.iter().any(|(f, _)| *f == form) {
            out.push((form, replacement));
        }
    }
    out
}

fn form_encode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

fn form_decode(s: &str) -> String {
    url::form_urlencoded::parse(format!("x={s}").as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}

/// The pseudonym of the `n`-th secret: the same length and character
/// classes (digits stay digits, hex stays hex, letters keep their case,
/// punctuation stays), drawn from a hash of `n` only, so it reveals nothing
/// of the value; never equal to it.
fn pseudonym(value: &str, n: usize) -> String {
    let hex = value.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
        && value.chars().any(|c| c.is_ascii_alphabetic());
    let mut attempt = 0u64;
    loop {
        let mut stream = Vec::new();
        let mut block = 0u64;
        let mut out = String::with_capacity(value.len());
        for (k, c) in value.chars().enumerate() {
            while stream.len() <= k {
                let digest = Sha256::digest(format!("rea-pseudonym/{n}/{attempt}/{block}"));
                stream.extend_from_slice(&digest);
                block += 1;
            }
            let r = stream[k] as usize;
            let ch = if hex && c.is_ascii_hexdigit() {
                let d = b"0123456789abcdef"[r % 16] as char;
                if c.is_ascii_uppercase() {
                    d.to_ascii_uppercase()
                } else {
                    d
                }
            } else if c.is_ascii_digit() {
                if k == 0 && c != '0' {
                    (b'1' + (r % 9) as u8) as char
                } else {
                    (b'0' + (r % 10) as u8) as char
                }
            } else if c.is_ascii_lowercase() || (!c.is_ascii() && c.is_alphanumeric()) {
                (b'a' + (r % 26) as u8) as char
            } else if c.is_ascii_uppercase() {
                (b'A' + (r % 26) as u8) as char
            } else {
                c
            };
            out.push(ch);
        }
        if out != value || attempt > 8 {
            return out;
        }
        attempt += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn evidence(entries: Vec<Value>) -> Value {
        json!({"records": entries.into_iter().enumerate()
            .map(|(i, e)| json!({"ordinal": i, "reported": e})).collect::<Vec<_>>()})
    }

    fn run(entries: Vec<Value>, policy: &SecretPolicy) -> (String, Summary) {
        let mut ev = evidence(entries);
        let s = pseudonymise_evidence(&mut ev, policy);
        (ev.to_string(), s)
    }

    const AT: &str = "at_9f8e7d6c5b4a39281716";
    const PW: &str = "hunter2pw";

    fn login() -> Value {
        json!({
            "request": {"method": "POST", "url": "http://h/token?client_secret=cs-0a1b2c3d4e",
                "headers": [{"name": "X-Api-Key", "value": "ak_live_77665544"}],
                "queryString": [{"name": "client_secret", "value": "cs-0a1b2c3d4e"}],
                "postData": {"mimeType": "application/x-www-form-urlencoded",
                    "text": format!("username=alice&password={PW}"),
                    "params": [{"name": "password", "value": PW}]}},
            "response": {"status": 200, "headers": [],
                "content": {"mimeType": "application/json",
                    "text": format!("{{\"access_token\": \"{AT}\", \"expires_in\": 3600, \"token_type\": \"bearer\"}}")}}
        })
    }

    fn reuse() -> Value {
        json!({
            "request": {"method": "GET", "url": format!("http://h/sessions/{AT}?x=1"), "headers": []},
            "response": {"status": 200, "headers": [],
                "content": {"mimeType": "application/json",
                    "text": base64::engine::general_purpose::STANDARD.encode(
                        format!("{{\"id\":\"{AT}\",\"note\":\"key ak_live_77665544\"}}")),
                    "encoding": "base64"}}
        })
    }

    #[test]
    fn secrets_are_replaced_everywhere_and_consistently() {
        let (out, summary) = run(vec![login(), reuse()], &SecretPolicy::default());
        for secret in [AT, PW, "cs-0a1b2c3d4e", "ak_live_77665544"] {
            assert!(!out.contains(secret), "{secret} in {out}");
        }
        assert_eq!(summary.values, 4);
        // Non-secrets stay byte for byte.
        assert!(out.contains("\\\"expires_in\\\": 3600, \\\"token_type\\\": \\\"bearer\\\""));
        assert!(out.contains("username=alice&password="));
        let mut ev = evidence(vec![login(), reuse()]);
        pseudonymise_evidence(&mut ev, &SecretPolicy::default());
        let body: Value = serde_json::from_str(
            ev.pointer("/records/0/reported/response/content/text")
                .unwrap()
                .as_str()
                .unwrap(),
        )
        .unwrap();
        let p = body["access_token"].as_str().unwrap().to_string();
        assert_eq!(p.len(), AT.len());
        assert_eq!(&p[2..3], "_");
        // The same pseudonym in the other record's path and base64 body.
        let url = ev.pointer("/records/1/reported/request/url").unwrap();
        assert_eq!(url, &json!(format!("http://h/sessions/{p}?x=1")));
        let b64 = ev
            .pointer("/records/1/reported/response/content/text")
            .unwrap()
            .as_str()
            .unwrap();
        let text = String::from_utf8(
            base64::engine::general_purpose::STANDARD
                .decode(b64)
                .unwrap(),
        )
        .unwrap();
        assert!(text.contains(&format!("\"id\":\"{p}\"")), "{text}");
    }

    #[test]
    fn deterministic_and_keep_secrets_keeps_them() {
        let a = run(vec![login(), reuse()], &SecretPolicy::default()).0;
        let b = run(vec![login(), reuse()], &SecretPolicy::default()).0;
        assert_eq!(a, b);
        let keep = SecretPolicy {
            keep: true,
            ..SecretPolicy::default()
        };
        let (kept, s) = run(vec![login()], &keep);
        assert!(kept.contains(AT));
        assert_eq!(s.values, 0);
    }

    #[test]
    fn declared_values_go_anywhere_even_inside_numbers_and_names() {
        let entry = json!({"request": {"method": "GET", "url": "http://h/a?q=alice-x", "headers": []},
            "response": {"content": {"mimeType": "application/json",
                "text": "{\"owner\": \"alice\", \"alice\": 1, \"n\": 424242}"}}});
        let policy = SecretPolicy {
            keep: false,
            sensitive_values: vec!["alice".into(), "424242".into()],
        };
        let (out, _) = run(vec![entry], &policy);
        assert!(!out.contains("alice") && !out.contains("424242"), "{out}");
        let mut ev = evidence(vec![
            json!({"response": {"content": {"mimeType": "application/json",
            "text": "{\"n\": 424242}"}}}),
        ]);
        pseudonymise_evidence(&mut ev, &policy);
        let text = ev
            .pointer("/records/0/reported/response/content/text")
            .unwrap();
        let body: Value = serde_json::from_str(text.as_str().unwrap()).unwrap();
        assert!(body["n"].is_u64(), "a number stays a number: {body}");
    }

    #[test]
    fn names_that_page_or_describe_are_not_secrets() {
        for name in [
            "access_token",
            "X-Api-Key",
            "clientSecret",
            "new_password",
            "csrfmiddlewaretoken",
        ] {
            assert!(is_secret_member(name), "{name}");
        }
        for name in [
            "_token",
            "token",
            "page_token",
            "next_page_token",
            "token_type",
            "author",
            "tokens",
        ] {
            assert!(!is_secret_member(name), "{name}");
        }
        assert!(is_secret_header("X-Auth-Token") && is_secret_header("X-CSRFToken"));
        assert!(!is_secret_header("Content-Type") && !is_secret_header("WWW-Authenticate"));
    }

    #[test]
    fn short_secrets_are_replaced_only_where_found_and_malformed_json_is_text() {
        let entry = json!({"request": {"method": "POST", "url": "http://h/login", "headers": [],
                "postData": {"mimeType": "application/json", "text": "{\"password\": \"admin1\", \"user\": \"admin\"}"}},
            "response": {"content": {"mimeType": "application/json", "text": "{\"role\": \"admin\", \"broken\": "}}});
        let (out, _) = run(vec![entry], &SecretPolicy::default());
        assert!(!out.contains("admin1"));
        assert!(out.contains("\\\"user\\\": \\\"admin\\\""));
        assert!(out.contains("\\\"role\\\": \\\"admin\\\", \\\"broken\\\": "));
    }

    #[test]
    fn pseudonyms_keep_the_shape() {
        let uuid = "3f2a9c4e-1b2d-4e5f-8a9b-0c1d2e3f4a5b";
        let p = pseudonym(uuid, 0);
        assert_ne!(p, uuid);
        assert_eq!(p.len(), uuid.len());
        assert!(p
            .chars()
            .zip(uuid.chars())
            .all(|(a, b)| (a == '-') == (b == '-') && (a == '-' || a.is_ascii_hexdigit())));
        assert_eq!(pseudonym("1234", 3).len(), 4);
        assert!(!pseudonym("1234", 3).starts_with('0'));
    }
}
