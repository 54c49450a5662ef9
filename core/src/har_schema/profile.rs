//! The producer profiles: which HAR producers get which known deviations
//! from har-schema relaxed in the validation copy, recognised by
//! `log.creator.name` (exactly) and a range of `log.creator.version`.
//! A declaration only picks a compatibility profile; it proves nothing about
//! where the file came from. The reported document is never changed.
//!
//! Each relaxation ([`Quirk`]) is narrow: it touches one kind of field, only
//! in the exact malformed shape the producer writes, and replaces it with
//! the schema's own spelling of "absent" or "unknown" (member left out,
//! `-1`, `""`). Anything else in that field still fails. `docs/producers.md`
//! lists every profile, its quirks and the producer output that needs them.

use super::formats;
use serde_json::{Map, Value};
use std::borrow::Cow;

/// One known, harmless deviation from har-schema a producer writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quirk {
    /// `request.postData.text: null` for a request without a body: the
    /// member is left out (no empty string, no body bytes).
    NullPostDataText,
    /// `serverIPAddress` in brackets (`[2001:db8::1]`): the brackets are
    /// removed when they enclose a valid IPv6 address.
    BracketedIpv6Address,
    /// `serverIPAddress` empty (left out), bracketed IPv6, IPv6 with a zone
    /// identifier (`fe80::1%en0`), or an IPv4/bracketed IPv6 address with a
    /// port (`1.2.3.4:443`, `[::1]:443`): reduced to the bare address when
    /// that address is valid. Bracketed IPv4 and invalid addresses still fail.
    DecoratedServerAddress,
    /// `null` written for `response.redirectURL` or `response.statusText`
    /// (becomes `""`) or for a cookie's `comment` (left out).
    NullStrings,
    /// `headersSize` `null` or missing (request or response), and
    /// `response.content.size` `null` or missing: `-1`, HAR's "unknown".
    UnknownSizes,
    /// `timings` without `send`, `wait` or `receive` (Firefox writes `{}` for
    /// cached or blocked requests): the missing ones are `-1`.
    EmptyTimings,
    /// `cache.beforeRequest` / `cache.afterRequest` objects in the producer's
    /// own shape (Firefox: `expires`, `lastFetched`, `fetchCount`), lacking
    /// the schema's `lastAccess`, `eTag` and `hitCount`: left out.
    ForeignCacheEntries,
    /// `log.pages: null`: left out (pages are optional).
    NullPages,
    /// A header `value` that is an array of strings (one per repeated
    /// header): joined with `", "`, as HTTP joins repeated fields.
    ArrayHeaderValues,
    /// `{`, `}`, `[`, `]`, `|`, `^` or `` ` `` left raw in the path, query or
    /// fragment of `request.url`: percent-encoded. Spaces, control and
    /// non-ASCII characters and anything in the scheme or authority still fail.
    RawUrlCharacters,
}

impl Quirk {
    /// A stable name, used in documentation and tests.
    pub fn name(self) -> &'static str {
        match self {
            Quirk::NullPostDataText => "null-post-data-text",
            Quirk::BracketedIpv6Address => "bracketed-ipv6-address",
            Quirk::DecoratedServerAddress => "decorated-server-address",
            Quirk::NullStrings => "null-strings",
            Quirk::UnknownSizes => "unknown-sizes",
            Quirk::EmptyTimings => "empty-timings",
            Quirk::ForeignCacheEntries => "foreign-cache-entries",
            Quirk::NullPages => "null-pages",
            Quirk::ArrayHeaderValues => "array-header-values",
            Quirk::RawUrlCharacters => "raw-url-characters",
        }
    }

    /// Every quirk, in a fixed order.
    pub const ALL: [Quirk; 10] = [
        Quirk::NullPostDataText,
        Quirk::BracketedIpv6Address,
        Quirk::DecoratedServerAddress,
        Quirk::NullStrings,
        Quirk::UnknownSizes,
        Quirk::EmptyTimings,
        Quirk::ForeignCacheEntries,
        Quirk::NullPages,
        Quirk::ArrayHeaderValues,
        Quirk::RawUrlCharacters,
    ];
}

/// A version range over the numeric components of `log.creator.version`:
/// `min` included, `max` excluded (`None`: no upper bound).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VersionRange {
    pub min: &'static [u64],
    pub max: Option<&'static [u64]>,
}

impl VersionRange {
    const fn from(min: &'static [u64], max: Option<&'static [u64]>) -> Self {
        VersionRange { min, max }
    }

    /// Whether `version` lies in the range.
    pub fn contains(&self, version: &[u64]) -> bool {
        compare(version, self.min).is_ge()
            && self.max.is_none_or(|max| compare(version, max).is_lt())
    }

    /// `min` … `max`, for documentation: `1.58.2 ≤ v < 2`.
    pub fn describe(&self) -> String {
        let join = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join(".");
        match self.max {
            Some(max) => format!("{} ≤ v < {}", join(self.min), join(max)),
            None => format!("v ≥ {}", join(self.min)),
        }
    }
}

/// Compares dotted versions component by component, missing ones as 0.
fn compare(a: &[u64], b: &[u64]) -> std::cmp::Ordering {
    let len = a.len().max(b.len());
    (0..len)
        .map(|i| {
            a.get(i)
                .copied()
                .unwrap_or(0)
                .cmp(&b.get(i).copied().unwrap_or(0))
        })
        .find(|o| o.is_ne())
        .unwrap_or(std::cmp::Ordering::Equal)
}

/// The numeric version in a creator's `version` text: the first run of
/// digits and dots (`insomnia.desktop.app:v2022.1.1` → `[2022, 1, 1]`,
/// `1.5X.0b8` → `[1, 5]`). `None` when it holds no digit.
pub fn numeric_version(text: &str) -> Option<Vec<u64>> {
    let start = text.find(|c: char| c.is_ascii_digit())?;
    let run: &str = text[start..]
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .next()
        .unwrap_or("");
    let mut parts = Vec::new();
    for piece in run.split('.') {
        if piece.is_empty() {
            break;
        }
        // More than 18 digits is no version anyone ships.
        parts.push(piece.parse::<u64>().ok()?);
    }
    (!parts.is_empty()).then_some(parts)
}

/// A HAR producer whose observed output deviates from har-schema in known,
/// harmless ways.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProducerProfile {
    /// Chromium DevTools "Save all as HAR" (Chrome, Edge, Brave, Opera):
    /// `WebInspector` 537.x.
    ChromiumDevTools,
    /// Firefox DevTools "Save All As HAR".
    Firefox,
    /// Safari / WebKit Web Inspector "Export HAR".
    WebKit,
    /// Charles Proxy "Export Session… → HTTP Archive".
    Charles,
    /// Fiddler Classic "Export Sessions → HTTPArchive".
    Fiddler,
    /// Insomnia "Export → HAR".
    Insomnia,
    /// BrowserMob Proxy's `/har` capture.
    BrowserMob,
    /// sitespeed.io `chrome-har` (Chrome DevTools Protocol events → HAR).
    ChromeHar,
    /// Polly.JS recordings (`recording.har`).
    PollyJs,
    /// mitmproxy 10–12 `SaveHar` (`hardump` / `save.har`).
    MitmproxySaveHar,
    /// Playwright 1.x `recordHar` / `--save-har`.
    Playwright,
}

/// One profile's recognition and relaxations.
struct Definition {
    id: &'static str,
    names: &'static [&'static str],
    versions: VersionRange,
    /// Each quirk with the versions it applies to (within `versions`).
    quirks: &'static [(Quirk, VersionRange)],
}

const ANY: VersionRange = VersionRange::from(&[0], None);
/// Playwright's bracketed addresses, first observed in 1.58.2.
const PLAYWRIGHT_BRACKETS: VersionRange = VersionRange::from(&[1, 58, 2], Some(&[2]));

impl ProducerProfile {
    /// Every profile, in detection order.
    pub const ALL: [ProducerProfile; 11] = [
        ProducerProfile::ChromiumDevTools,
        ProducerProfile::Firefox,
        ProducerProfile::WebKit,
        ProducerProfile::Charles,
        ProducerProfile::Fiddler,
        ProducerProfile::Insomnia,
        ProducerProfile::BrowserMob,
        ProducerProfile::ChromeHar,
        ProducerProfile::PollyJs,
        ProducerProfile::MitmproxySaveHar,
        ProducerProfile::Playwright,
    ];

    fn definition(self) -> Definition {
        use Quirk::*;
        match self {
            ProducerProfile::ChromiumDevTools => Definition {
                id: "chromium-devtools-537",
                names: &["WebInspector"],
                versions: VersionRange::from(&[537], Some(&[538])),
                quirks: &[(DecoratedServerAddress, ANY), (RawUrlCharacters, ANY)],
            },
            ProducerProfile::Firefox => Definition {
                id: "firefox",
                names: &["Firefox"],
                versions: VersionRange::from(&[43], None),
                quirks: &[
                    (UnknownSizes, ANY),
                    (EmptyTimings, ANY),
                    (ForeignCacheEntries, ANY),
                ],
            },
            ProducerProfile::WebKit => Definition {
                id: "webkit-web-inspector-1",
                names: &["WebKit Web Inspector"],
                versions: VersionRange::from(&[1], Some(&[2])),
                quirks: &[(DecoratedServerAddress, ANY)],
            },
            ProducerProfile::Charles => Definition {
                id: "charles-4",
                names: &["Charles Proxy"],
                versions: VersionRange::from(&[4], Some(&[6])),
                quirks: &[(NullStrings, ANY)],
            },
            ProducerProfile::Fiddler => Definition {
                id: "fiddler-classic",
                names: &["Fiddler"],
                versions: VersionRange::from(&[2], Some(&[6])),
                quirks: &[(NullPages, ANY), (DecoratedServerAddress, ANY)],
            },
            ProducerProfile::Insomnia => Definition {
                id: "insomnia",
                names: &["Insomnia REST Client", "Insomnia"],
                versions: VersionRange::from(&[2020], Some(&[2030])),
                quirks: &[(RawUrlCharacters, ANY)],
            },
            ProducerProfile::BrowserMob => Definition {
                id: "browsermob-proxy-2",
                names: &["BrowserMob Proxy"],
                versions: VersionRange::from(&[2], Some(&[3])),
                quirks: &[(RawUrlCharacters, ANY)],
            },
            ProducerProfile::ChromeHar => Definition {
                id: "chrome-har",
                names: &["chrome-har"],
                versions: VersionRange::from(&[0], Some(&[2])),
                quirks: &[(BracketedIpv6Address, ANY), (RawUrlCharacters, ANY)],
            },
            ProducerProfile::PollyJs => Definition {
                id: "polly-js",
                names: &["Polly.JS"],
                versions: VersionRange::from(&[0], Some(&[7])),
                quirks: &[(ArrayHeaderValues, ANY), (RawUrlCharacters, ANY)],
            },
            ProducerProfile::MitmproxySaveHar => Definition {
                id: "mitmproxy-savehar-10-12",
                names: &["mitmproxy"],
                versions: VersionRange::from(&[10], Some(&[13])),
                quirks: &[(NullPostDataText, ANY)],
            },
            ProducerProfile::Playwright => Definition {
                id: "playwright-1",
                names: &["Playwright"],
                versions: VersionRange::from(&[1], Some(&[2])),
                // First observed in 1.58.2; earlier 1.x stays strict (HAR-14).
                quirks: &[(BracketedIpv6Address, PLAYWRIGHT_BRACKETS)],
            },
        }
    }

    /// The profile's stable identifier.
    pub fn id(self) -> &'static str {
        self.definition().id
    }

    /// The `log.creator.name` spellings that declare this profile (exact).
    pub fn names(self) -> &'static [&'static str] {
        self.definition().names
    }

    /// The `log.creator.version` range that declares this profile.
    pub fn versions(self) -> VersionRange {
        self.definition().versions
    }

    /// Every quirk this profile knows, with the versions it applies to.
    pub fn quirks(self) -> &'static [(Quirk, VersionRange)] {
        self.definition().quirks
    }

    /// The profile `doc` declares: its `log.creator.name` is exactly one of
    /// a profile's names and the numeric part of its version is in range.
    pub fn detect(doc: &Value) -> Option<ProducerProfile> {
        Self::declared(doc).map(|(profile, _)| profile)
    }

    /// The declared profile and the declared numeric version.
    fn declared(doc: &Value) -> Option<(ProducerProfile, Vec<u64>)> {
        let creator = doc.get("log")?.get("creator")?;
        let name = creator.get("name")?.as_str()?;
        let version = numeric_version(creator.get("version")?.as_str()?)?;
        ProducerProfile::ALL
            .into_iter()
            .find(|p| p.names().contains(&name) && p.versions().contains(&version))
            .map(|p| (p, version))
    }

    /// The quirks that apply to `version` under this profile.
    fn quirks_for(self, version: &[u64]) -> Vec<Quirk> {
        self.quirks()
            .iter()
            .filter(|(_, range)| range.contains(version))
            .map(|(quirk, _)| *quirk)
            .collect()
    }

    /// The JSON pointers of the fields this profile relaxes in `doc`, sorted.
    pub fn relaxed_pointers(self, doc: &Value) -> Vec<String> {
        let Some((declared, version)) = Self::declared(doc) else {
            return Vec::new();
        };
        if declared != self {
            return Vec::new();
        }
        let mut copy = doc.clone();
        let mut pointers = Vec::new();
        for quirk in self.quirks_for(&version) {
            apply(quirk, &mut copy, &mut pointers);
        }
        pointers.sort();
        pointers.dedup();
        pointers
    }
}

/// The validation copy of `doc`: `doc` itself when its profile relaxes
/// nothing (or it declares none), else a copy with the profile's fields
/// relaxed. Validating it against the unchanged schemas gives the verdict of
/// `validate_har(doc)`.
pub fn validation_copy(doc: &Value) -> Cow<'_, Value> {
    let Some((profile, version)) = ProducerProfile::declared(doc) else {
        return Cow::Borrowed(doc);
    };
    let quirks = profile.quirks_for(&version);
    if quirks.is_empty() {
        return Cow::Borrowed(doc);
    }
    let mut copy = doc.clone();
    let mut pointers = Vec::new();
    for quirk in quirks {
        apply(quirk, &mut copy, &mut pointers);
    }
    if pointers.is_empty() {
        Cow::Borrowed(doc)
    } else {
        Cow::Owned(copy)
    }
}

/// The quirks `doc`'s declared profile applies at its declared version
/// (none when it declares no profile).
pub(crate) fn declared_quirks(doc: &Value) -> Vec<Quirk> {
    ProducerProfile::declared(doc)
        .map(|(profile, version)| profile.quirks_for(&version))
        .unwrap_or_default()
}

/// Relaxes one entry (of a copy) under `quirks`.
pub(crate) fn relax_one_entry(quirks: &[Quirk], entry: &mut Value) {
    if let Value::Object(entry) = entry {
        for &quirk in quirks {
            relax_entry(quirk, entry, &mut |_| {});
        }
    }
}

/// Relaxes the members of `log` outside its entries (of a copy).
pub(crate) fn relax_container(quirks: &[Quirk], doc: &mut Value) {
    if quirks.contains(&Quirk::NullPages) {
        apply(Quirk::NullPages, doc, &mut Vec::new());
    }
}

/// Applies one quirk's relaxation to the copy, recording each changed
/// field's pointer.
fn apply(quirk: Quirk, doc: &mut Value, changed: &mut Vec<String>) {
    if quirk == Quirk::NullPages {
        if let Some(Value::Object(log)) = doc.get_mut("log") {
            if log.get("pages").is_some_and(Value::is_null) {
                log.shift_remove("pages");
                changed.push("/log/pages".to_string());
            }
        }
        return;
    }
    let Some(Value::Array(entries)) = doc.get_mut("log").and_then(|l| l.get_mut("entries")) else {
        return;
    };
    for (index, entry) in entries.iter_mut().enumerate() {
        let Value::Object(entry) = entry else {
            continue;
        };
        let at = |suffix: &str| format!("/log/entries/{index}{suffix}");
        relax_entry(quirk, entry, &mut |suffix| changed.push(at(suffix)));
    }
}

fn relax_entry(quirk: Quirk, entry: &mut Map<String, Value>, changed: &mut dyn FnMut(&str)) {
    match quirk {
        Quirk::NullPostDataText => {
            if let Some(Value::Object(post)) =
                member(entry, "request").and_then(|r| r.get_mut("postData"))
            {
                if post.get("text").is_some_and(Value::is_null) {
                    post.shift_remove("text");
                    changed("/request/postData/text");
                }
            }
        }
        Quirk::BracketedIpv6Address | Quirk::DecoratedServerAddress => {
            let Some(Value::String(address)) = entry.get("serverIPAddress") else {
                return;
            };
            let bare = if quirk == Quirk::BracketedIpv6Address {
                unbracketed_ipv6(address).map(|a| Some(a.to_string()))
            } else {
                undecorated_address(address)
            };
            match bare {
                Some(Some(bare)) => {
                    entry.insert("serverIPAddress".to_string(), Value::String(bare));
                    changed("/serverIPAddress");
                }
                Some(None) => {
                    entry.shift_remove("serverIPAddress");
                    changed("/serverIPAddress");
                }
                None => {}
            }
        }
        Quirk::NullStrings => {
            if let Some(Value::Object(response)) = entry.get_mut("response") {
                for field in ["redirectURL", "statusText"] {
                    if response.get(field).is_some_and(Value::is_null) {
                        response.insert(field.to_string(), Value::String(String::new()));
                        changed(&format!("/response/{field}"));
                    }
                }
            }
            for side in ["request", "response"] {
                let Some(Value::Array(cookies)) =
                    member(entry, side).and_then(|m| m.get_mut("cookies"))
                else {
                    continue;
                };
                for (i, cookie) in cookies.iter_mut().enumerate() {
                    if let Value::Object(cookie) = cookie {
                        if cookie.get("comment").is_some_and(Value::is_null) {
                            cookie.shift_remove("comment");
                            changed(&format!("/{side}/cookies/{i}/comment"));
                        }
                    }
                }
            }
        }
        Quirk::UnknownSizes => {
            for side in ["request", "response"] {
                if let Some(side_map) = member(entry, side) {
                    if fill_unknown(side_map, "headersSize") {
                        changed(&format!("/{side}/headersSize"));
                    }
                }
            }
            if let Some(Value::Object(content)) =
                member(entry, "response").and_then(|r| r.get_mut("content"))
            {
                if fill_unknown(content, "size") {
                    changed("/response/content/size");
                }
            }
        }
        Quirk::EmptyTimings => {
            if let Some(Value::Object(timings)) = entry.get_mut("timings") {
                for field in ["send", "wait", "receive"] {
                    if !timings.contains_key(field) {
                        timings.insert(field.to_string(), Value::from(-1));
                        changed(&format!("/timings/{field}"));
                    }
                }
            }
        }
        Quirk::ForeignCacheEntries => {
            if let Some(Value::Object(cache)) = entry.get_mut("cache") {
                for field in ["beforeRequest", "afterRequest"] {
                    let foreign = matches!(cache.get(field), Some(Value::Object(o))
                        if ["lastAccess", "eTag", "hitCount"].iter().all(|k| !o.contains_key(*k)));
                    if foreign {
                        cache.shift_remove(field);
                        changed(&format!("/cache/{field}"));
                    }
                }
            }
        }
        Quirk::ArrayHeaderValues => {
            for side in ["request", "response"] {
                let Some(Value::Array(headers)) =
                    member(entry, side).and_then(|m| m.get_mut("headers"))
                else {
                    continue;
                };
                for (i, header) in headers.iter_mut().enumerate() {
                    let Some(Value::Array(values)) = header.get("value") else {
                        continue;
                    };
                    let texts: Option<Vec<&str>> = values.iter().map(Value::as_str).collect();
                    if let Some(joined) = texts.filter(|t| !t.is_empty()).map(|t| t.join(", ")) {
                        header["value"] = Value::String(joined);
                        changed(&format!("/{side}/headers/{i}/value"));
                    }
                }
            }
        }
        Quirk::RawUrlCharacters => {
            if let Some(Value::String(url)) =
                member(entry, "request").and_then(|r| r.get_mut("url"))
            {
                if let Some(encoded) = encode_raw_url_characters(url) {
                    *url = encoded;
                    changed("/request/url");
                }
            }
        }
        Quirk::NullPages => {}
    }
}

/// The object member `key` of `map`, when it is an object.
fn member<'a>(map: &'a mut Map<String, Value>, key: &str) -> Option<&'a mut Map<String, Value>> {
    match map.get_mut(key) {
        Some(Value::Object(inner)) => Some(inner),
        _ => None,
    }
}

/// Puts `-1` where `key` is `null` or missing. Whether it did.
fn fill_unknown(map: &mut Map<String, Value>, key: &str) -> bool {
    if map.get(key).is_none_or(Value::is_null) {
        map.insert(key.to_string(), Value::from(-1));
        true
    } else {
        false
    }
}

/// `[addr]` → `addr` when `addr` is a valid IPv6 address (as the `ipv6`
/// format checks it: no zone identifier, no port, not an IPv4 address).
fn unbracketed_ipv6(text: &str) -> Option<&str> {
    let inner = text.strip_prefix('[')?.strip_suffix(']')?;
    formats::ipv6(inner).then_some(inner)
}

/// The bare address in a decorated `serverIPAddress`: `Some(None)` for an
/// empty one (left out), `Some(Some(bare))` when a decoration is removed,
/// `None` when the text is not one of the known decorations of a valid
/// address (it is then validated as written).
fn undecorated_address(text: &str) -> Option<Option<String>> {
    if text.is_empty() {
        return Some(None);
    }
    let is_port = |p: &str| {
        !p.is_empty()
            && p.len() <= 5
            && p.bytes().all(|b| b.is_ascii_digit())
            && p.parse::<u32>().is_ok_and(|n| n <= 65_535)
    };
    if let Some(rest) = text.strip_prefix('[') {
        let (inside, after) = rest.split_once(']')?;
        if !(after.is_empty() || after.strip_prefix(':').is_some_and(is_port)) {
            return None;
        }
        return ipv6_without_zone(inside).map(Some);
    }
    if let Some((addr, port)) = text.rsplit_once(':') {
        if formats::ipv4(addr) && is_port(port) {
            return Some(Some(addr.to_string()));
        }
    }
    if text.contains('%') {
        return ipv6_without_zone(text).map(Some);
    }
    None
}

/// A valid IPv6 address, with its zone identifier (`%en0`, `%25eth0`)
/// removed if it has one.
fn ipv6_without_zone(text: &str) -> Option<String> {
    let address = match text.split_once('%') {
        Some((address, zone)) => {
            let zone_ok = !zone.is_empty()
                && zone
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"._~-".contains(&b));
            zone_ok.then_some(address)?
        }
        None => text,
    };
    formats::ipv6(address).then(|| address.to_string())
}

/// `request.url` with raw `{ } [ ] | ^ `` ` `` ` after its authority
/// percent-encoded, or `None` when there is none to encode.
fn encode_raw_url_characters(url: &str) -> Option<String> {
    const RAW: &[u8] = b"{}[]|^`";
    let after_scheme = url.find("://").map(|i| i + 3)?;
    let path_start = url[after_scheme..]
        .find(['/', '?', '#'])
        .map(|i| after_scheme + i)?;
    let tail = &url[path_start..];
    if !tail.bytes().any(|b| RAW.contains(&b)) {
        return None;
    }
    let mut out = String::with_capacity(url.len() + 8);
    out.push_str(&url[..path_start]);
    for c in tail.chars() {
        if c.is_ascii() && RAW.contains(&(c as u8)) {
            out.push_str(&format!("%{:02X}", c as u8));
        } else {
            out.push(c);
        }
    }
    Some(out)
}
