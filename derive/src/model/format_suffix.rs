//! Format suffixes (`/issues.json`, `/issues/12.json`): a last-segment
//! extension that names the answer's media type is a representation
//! selector, not part of a resource's name (Rails-style routes). The
//! hypothesis comes from the recording: an extension kept only when every
//! recorded answer with a body under it has the media type it names, when it
//! is spelled on paths of two or more shapes (a collection and its items),
//! and when no recorded path spells the same place without it. The model
//! reads every path without the kept suffix (`/issues` lists what
//! `/issues/{id}` reads); served paths are read the same way.

use super::exchange::Exchange;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The kept format suffix and its evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FormatSuffix {
    /// The literal suffix of the last segment (`.json`).
    pub suffix: String,
    /// The media-type subtype it names (`json`).
    pub media_type: String,
    /// Records under the suffix whose answer had that media type, or no body.
    pub supported_by: Vec<u64>,
    /// Distinct path shapes (segment counts) that spelled it.
    pub shapes: Vec<usize>,
}

impl FormatSuffix {
    /// The segments without the suffix on the last one (unchanged when the
    /// last segment does not end with it, or is nothing but it).
    pub fn strip(&self, segments: &mut [String]) {
        if let Some(last) = segments.last_mut() {
            if last.len() > self.suffix.len() && last.ends_with(&self.suffix) {
                last.truncate(last.len() - self.suffix.len());
            }
        }
    }

    /// A path (`/a/b.json`) without the suffix, other segments untouched.
    pub fn strip_path(&self, path: &str) -> String {
        let mut segments: Vec<String> = path
            .split('/')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        self.strip(&mut segments);
        super::exchange::join(&segments)
    }
}

/// The extension of a last segment: `.` then 2 to 5 ASCII letters, after a
/// non-empty stem.
fn extension(segment: &str) -> Option<&str> {
    let (stem, ext) = segment.rsplit_once('.')?;
    (!stem.is_empty()
        && (2..=5).contains(&ext.len())
        && ext.bytes().all(|b| b.is_ascii_alphabetic()))
    .then_some(ext)
}

/// The answer's media-type subtype (`json` of `application/json; charset=…`,
/// `json` of `application/vnd.api+json`).
fn subtype(x: &Exchange) -> Option<String> {
    let ct = x.response_header("content-type")?;
    let media = ct.split(';').next()?.trim().to_ascii_lowercase();
    let sub = media.split_once('/')?.1.to_string();
    Some(sub.rsplit('+').next().unwrap_or(&sub).to_string())
}

/// The format suffix the recording confirms, if any.
pub(crate) fn infer(exchanges: &[Exchange]) -> Option<FormatSuffix> {
    // ext → (supporting ordinals, contradicted, shapes)
    let mut found: BTreeMap<String, (Vec<u64>, bool, BTreeSet<usize>)> = BTreeMap::new();
    for x in exchanges {
        let Some(ext) = x.segments.last().and_then(|s| extension(s)) else {
            continue;
        };
        let ext = ext.to_ascii_lowercase();
        let entry = found.entry(ext.clone()).or_default();
        let has_body = !x.answer_empty;
        match subtype(x) {
            Some(sub) if has_body && sub != ext => entry.1 = true,
            _ => {
                entry.0.push(x.ordinal);
                entry.2.insert(x.segments.len());
            }
        }
    }
    let spelled: BTreeSet<String> = exchanges.iter().map(Exchange::path).collect();
    found
        .into_iter()
        .filter(|(_, (ords, contradicted, shapes))| {
            !*contradicted && ords.len() >= 2 && shapes.len() >= 2
        })
        .map(|(ext, (ords, _, shapes))| FormatSuffix {
            suffix: format!(".{ext}"),
            media_type: ext,
            supported_by: ords,
            shapes: shapes.into_iter().collect(),
        })
        // No recorded path names the stripped place itself (the suffix
        // would then tell two resources apart).
        .filter(|f| {
            exchanges.iter().all(|x| {
                let p = x.path();
                let bare = f.strip_path(&p);
                bare == p || !spelled.contains(&bare)
            })
        })
        // The most used suffix when several fit.
        .max_by_key(|f| (f.supported_by.len(), std::cmp::Reverse(f.suffix.clone())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_needs_a_stem_and_letters() {
        assert_eq!(extension("issues.json"), Some("json"));
        assert_eq!(extension("12.json"), Some("json"));
        assert_eq!(extension(".json"), None);
        assert_eq!(extension("v2.0"), None);
        assert_eq!(extension("archive.tar7"), None);
    }

    #[test]
    fn strip_only_touches_the_last_segment() {
        let f = FormatSuffix {
            suffix: ".json".into(),
            media_type: "json".into(),
            supported_by: vec![],
            shapes: vec![],
        };
        assert_eq!(f.strip_path("/issues/12.json"), "/issues/12");
        assert_eq!(f.strip_path("/issues.json"), "/issues");
        assert_eq!(f.strip_path("/a.json/b"), "/a.json/b");
        assert_eq!(f.strip_path("/.json"), "/.json");
    }
}
