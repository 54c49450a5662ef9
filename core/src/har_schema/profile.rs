//! The two producer profiles: which HAR producers get one field relaxed in
//! the validation copy, recognised by `log.creator` name and version exactly.
//! A declaration only picks a compatibility profile; it proves nothing about
//! where the file came from.

use super::formats;
use serde_json::Value;
use std::borrow::Cow;

/// A HAR producer whose observed output deviates from har-schema in one
/// known, harmless way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProducerProfile {
    /// mitmproxy 12.2.3 `SaveHar`: writes `request.postData.text: null` when
    /// a request has no body. The member is left out of the validation copy.
    MitmproxySaveHar,
    /// Playwright 1.58.2: forwards Chromium's bracketed IPv6
    /// `serverIPAddress` (`[2001:db8::1]`). The brackets are removed in the
    /// validation copy when what they enclose is a valid IPv6 address.
    Playwright,
}

impl ProducerProfile {
    /// The profile's stable identifier.
    pub fn id(&self) -> &'static str {
        match self {
            ProducerProfile::MitmproxySaveHar => "mitmproxy-12.2.3-savehar",
            ProducerProfile::Playwright => "playwright-1.58.2",
        }
    }

    /// The `log.creator` `name` and `version` that declare this profile.
    pub fn creator(&self) -> (&'static str, &'static str) {
        match self {
            ProducerProfile::MitmproxySaveHar => ("mitmproxy", "12.2.3"),
            ProducerProfile::Playwright => ("Playwright", "1.58.2"),
        }
    }

    /// The profile `doc` declares, if its `log.creator` name and version are
    /// exactly one profile's.
    pub fn detect(doc: &Value) -> Option<ProducerProfile> {
        let creator = doc.get("log")?.get("creator")?;
        let name = creator.get("name")?.as_str()?;
        let version = creator.get("version")?.as_str()?;
        [
            ProducerProfile::MitmproxySaveHar,
            ProducerProfile::Playwright,
        ]
        .into_iter()
        .find(|profile| profile.creator() == (name, version))
    }

    /// The JSON pointers of the fields this profile relaxes in `doc`, sorted.
    pub(crate) fn relaxed_pointers(&self, doc: &Value) -> Vec<String> {
        let mut pointers = Vec::new();
        for (index, entry) in entries(doc) {
            if self.relaxes(entry) {
                pointers.push(match self {
                    ProducerProfile::MitmproxySaveHar => {
                        format!("/log/entries/{index}/request/postData/text")
                    }
                    ProducerProfile::Playwright => format!("/log/entries/{index}/serverIPAddress"),
                });
            }
        }
        pointers.sort();
        pointers
    }

    /// Whether this profile relaxes a field of `entry`.
    fn relaxes(&self, entry: &Value) -> bool {
        match self {
            ProducerProfile::MitmproxySaveHar => entry
                .get("request")
                .and_then(|request| request.get("postData"))
                .and_then(|post_data| post_data.get("text"))
                .is_some_and(Value::is_null),
            ProducerProfile::Playwright => entry
                .get("serverIPAddress")
                .and_then(Value::as_str)
                .and_then(unbracketed_ipv6)
                .is_some(),
        }
    }

    /// Applies the relaxation to one entry of the validation copy.
    fn relax(&self, entry: &mut Value) {
        match self {
            ProducerProfile::MitmproxySaveHar => {
                if let Some(Value::Object(post_data)) = entry
                    .get_mut("request")
                    .and_then(|request| request.get_mut("postData"))
                {
                    post_data.shift_remove("text");
                }
            }
            ProducerProfile::Playwright => {
                if let Some(address) = entry.get_mut("serverIPAddress") {
                    let inner = address
                        .as_str()
                        .and_then(unbracketed_ipv6)
                        .map(str::to_string);
                    if let Some(inner) = inner {
                        *address = Value::String(inner);
                    }
                }
            }
        }
    }
}

/// The validation copy of `doc`: `doc` itself when its profile relaxes
/// nothing (or it declares none), else a copy with the profile's fields
/// relaxed. Validating it against the unchanged schemas gives the verdict of
/// `validate_har(doc)`.
pub fn validation_copy(doc: &Value) -> Cow<'_, Value> {
    let Some(profile) = ProducerProfile::detect(doc) else {
        return Cow::Borrowed(doc);
    };
    if !entries(doc).any(|(_, entry)| profile.relaxes(entry)) {
        return Cow::Borrowed(doc);
    }
    let mut copy = doc.clone();
    if let Some(Value::Array(items)) = copy.get_mut("log").and_then(|log| log.get_mut("entries")) {
        for entry in items.iter_mut() {
            if profile.relaxes(entry) {
                profile.relax(entry);
            }
        }
    }
    Cow::Owned(copy)
}

/// `log.entries` with their indexes, or nothing when it is not an array.
fn entries(doc: &Value) -> impl Iterator<Item = (usize, &Value)> {
    doc.get("log")
        .and_then(|log| log.get("entries"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
}

/// `[addr]` → `addr` when `addr` is a valid IPv6 address (as the `ipv6`
/// format checks it: no zone identifier, no port, not an IPv4 address).
fn unbracketed_ipv6(text: &str) -> Option<&str> {
    let inner = text.strip_prefix('[')?.strip_suffix(']')?;
    formats::ipv6(inner).then_some(inner)
}
