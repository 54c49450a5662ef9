//! Path templates by structure: which segments hold an identity. A segment
//! is parametric when the recording shows it is one — its value (with a
//! literal prefix or suffix such as `.json` cut off) is echoed as an id-like
//! member of the answer, or is listed as an id by the parent path's list
//! answer — and every other segment under the same parent template with the
//! same prefix, suffix and value kind is parametric too (ids never seen).

use super::exchange::{
    entity_of, id_like, join, list_of, named_leaves, named_leaves_of_map, scalar_text, Exchange,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// How an id segment is spelled: literal text around the id, and its kind.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SegmentShape {
    pub prefix: String,
    pub suffix: String,
    /// `integer`, `uuid`, `hex` or `token`.
    pub kind: String,
}

/// One parametric position: the parent template and how the id is spelled.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Position {
    pub parent: String,
    pub shape: SegmentShape,
}

impl Position {
    /// The position under `parent` of a segment holding `id` between
    /// `prefix` and `suffix`.
    fn around(parent: &str, prefix: String, suffix: String, id: &str) -> Self {
        Position {
            parent: parent.to_string(),
            shape: SegmentShape {
                prefix,
                suffix,
                kind: kind_of(id).into(),
            },
        }
    }
}

/// Why a position is parametric, with the records showing it.
#[derive(Debug, Clone, Default)]
pub(crate) struct PositionEvidence {
    /// Records whose answer echoed the segment's id.
    pub echoed: BTreeSet<u64>,
    /// Records whose parent list answer listed the segment's id.
    pub listed: BTreeSet<u64>,
}

/// Per concrete path, the ids its list answers listed, with the records
/// that listed each.
type Listed = BTreeMap<String, BTreeMap<String, BTreeSet<u64>>>;

/// The templating of a whole recording.
#[derive(Debug, Clone, Default)]
pub(crate) struct Templates {
    pub positions: BTreeMap<Position, PositionEvidence>,
    /// Literal children seen under each parent template.
    pub literals: BTreeMap<String, BTreeSet<String>>,
}

/// The kind of an id value (for callers holding an owned string).
pub(crate) fn kind_of_static(v: &str) -> &'static str {
    kind_of(v)
}

/// The kind of an id value.
pub(crate) fn kind_of(v: &str) -> &'static str {
    let b = v.as_bytes();
    if !b.is_empty() && b.iter().all(u8::is_ascii_digit) {
        "integer"
    } else if is_uuid(v) {
        "uuid"
    } else if b.len() >= 8 && b.iter().all(u8::is_ascii_hexdigit) {
        "hex"
    } else {
        "token"
    }
}

fn is_uuid(v: &str) -> bool {
    let b = v.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// Splits a segment around an id value it contains: the literal prefix and
/// suffix must not end/start with a letter or digit (`12.json`, `@me`).
pub(crate) fn split_around(segment: &str, id: &str) -> Option<(String, String)> {
    if id.is_empty() {
        return None;
    }
    let at = segment.find(id)?;
    let prefix = &segment[..at];
    let suffix = &segment[at + id.len()..];
    let bad_prefix = prefix
        .chars()
        .last()
        .is_some_and(|c| c.is_ascii_alphanumeric());
    let bad_suffix = suffix
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric());
    (!bad_prefix && !bad_suffix).then(|| (prefix.to_string(), suffix.to_string()))
}

/// The listed ids `split_around` can find in `segment`. A parent may list
/// thousands of ids: past a few, only the segment's substrings it could
/// accept (starting at its start or after a character that is not a letter
/// or digit, ending at its end or before one) are looked up.
fn listed_in<'a>(
    segment: &str,
    ids: &'a BTreeMap<String, BTreeSet<u64>>,
) -> Vec<(&'a String, &'a BTreeSet<u64>)> {
    if ids.len() <= 64 {
        return ids.iter().collect();
    }
    let cut = |c: char| !c.is_ascii_alphanumeric();
    let mut starts = vec![0];
    let mut ends = Vec::new();
    for (i, c) in segment.char_indices() {
        if cut(c) {
            ends.push(i);
            starts.push(i + c.len_utf8());
        }
    }
    ends.push(segment.len());
    let mut found: BTreeMap<&'a String, &'a BTreeSet<u64>> = BTreeMap::new();
    for &a in &starts {
        for &b in ends.iter().filter(|&&b| b > a) {
            if let Some((id, ords)) = ids.get_key_value(&segment[a..b]) {
                found.insert(id, ords);
            }
        }
    }
    found.into_iter().collect()
}

impl Templates {
    /// Infers the parametric positions of every recorded path.
    pub(crate) fn infer(exchanges: &[Exchange]) -> Templates {
        // Ids each concrete path's list answers listed, each with the
        // records that listed it (a path listed many times holds each id
        // once, so learning costs distinct ids, not listed items).
        let mut listed: Listed = BTreeMap::new();
        for x in exchanges.iter().filter(|x| x.is_2xx() && x.is_read()) {
            let Some((_, items)) = x.answer.as_ref().and_then(list_of) else {
                continue;
            };
            let ids = listed.entry(x.path()).or_default();
            for item in items {
                if let Some(id) = item.get("id").and_then(scalar_text) {
                    ids.entry(id).or_default().insert(x.ordinal);
                }
            }
        }
        // What each record's own answer echoes depends on the answer only:
        // read once, not once per pass.
        let echoed: Vec<Vec<String>> = exchanges
            .iter()
            .map(|x| x.answer.as_ref().map(echoed_ids).unwrap_or_default())
            .collect();
        let mut t = Templates::default();
        for _pass in 0..4 {
            let before = t.positions.len();
            for (x, echoed) in exchanges.iter().zip(&echoed) {
                t.learn(x, &listed, echoed);
            }
            if t.positions.len() == before {
                break;
            }
        }
        t.literals.clear();
        for x in exchanges {
            let tpl = t.template_of(&x.segments);
            for (i, seg) in tpl.iter().enumerate() {
                if !seg.starts_with('{') {
                    let parent = join(&tpl[..i]);
                    t.literals.entry(parent).or_default().insert(seg.clone());
                }
            }
            let _ = x;
        }
        t
    }

    fn learn(&mut self, x: &Exchange, listed: &Listed, echoed: &[String]) {
        let tpl = self.template_of(&x.segments);
        for i in 0..x.segments.len() {
            let seg = &x.segments[i];
            let parent_t = join(&tpl[..i]);
            let concrete_parent = join(&x.segments[..i]);
            // Listed by the parent's list answer.
            if let Some(ids) = listed.get(&concrete_parent) {
                for (id, ords) in listed_in(seg, ids) {
                    if let Some((prefix, suffix)) = split_around(seg, id) {
                        let e = self
                            .positions
                            .entry(Position::around(&parent_t, prefix, suffix, id))
                            .or_default();
                        e.listed.extend(ords);
                    }
                }
            }
            // Echoed by this record's own answer (the last segment only).
            if i + 1 == x.segments.len() && x.answer.is_some() {
                for id in echoed {
                    if let Some((prefix, suffix)) = split_around(seg, id) {
                        if prefix.len() + suffix.len() + id.len() != seg.len() {
                            continue;
                        }
                        let e = self
                            .positions
                            .entry(Position::around(&parent_t, prefix, suffix, id))
                            .or_default();
                        e.echoed.insert(x.ordinal);
                    }
                }
            }
        }
    }

    /// Adds a position the model inferred from a sibling (a list-only collection).
    pub(crate) fn add_position(&mut self, parent: &str, shape: &SegmentShape) {
        self.positions
            .entry(Position {
                parent: parent.to_string(),
                shape: shape.clone(),
            })
            .or_default();
    }

    /// The position a segment under a parent template falls in, if any.
    pub(crate) fn position_for(&self, parent: &str, segment: &str) -> Option<&Position> {
        self.positions
            .keys()
            .filter(|p| p.parent == parent)
            .find(|p| {
                let Some(core) = segment
                    .strip_prefix(p.shape.prefix.as_str())
                    .and_then(|s| s.strip_suffix(p.shape.suffix.as_str()))
                else {
                    return false;
                };
                if core.is_empty() {
                    return false;
                }
                let literal = self
                    .literals
                    .get(parent)
                    .is_some_and(|l| l.contains(segment));
                !literal && (p.shape.kind == "token" || kind_of(core) == p.shape.kind)
            })
    }

    /// The template of a path: parametric segments become
    /// `{prefix}{name}{suffix}` with the name taken from the parent segment.
    pub(crate) fn template_of(&self, segments: &[String]) -> Vec<String> {
        let mut out: Vec<String> = Vec::with_capacity(segments.len());
        for seg in segments {
            let parent = join(&out);
            match self.position_for(&parent, seg) {
                Some(p) => {
                    let base = out
                        .last()
                        .map(|s| s.trim_matches(|c| c == '{' || c == '}').to_string())
                        .unwrap_or_else(|| "root".into());
                    out.push(format!(
                        "{}{{{}_id}}{}",
                        p.shape.prefix,
                        param_base(&base),
                        p.shape.suffix
                    ));
                }
                None => out.push(seg.clone()),
            }
        }
        out
    }

    /// The id the segment holds under its position (prefix/suffix cut off).
    pub(crate) fn core<'a>(&self, parent: &str, segment: &'a str) -> Option<&'a str> {
        let p = self.position_for(parent, segment)?;
        segment
            .strip_prefix(p.shape.prefix.as_str())?
            .strip_suffix(p.shape.suffix.as_str())
    }
}

/// `records` → `record`, `categories` → `category`, `shop` → `shop`.
pub(crate) fn param_base(segment: &str) -> String {
    let s = segment
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect::<String>()
        .to_ascii_lowercase();
    if let Some(stem) = s.strip_suffix("ies") {
        format!("{stem}y")
    } else if s.ends_with("ses") || s.ends_with("xes") {
        s[..s.len() - 2].to_string()
    } else if let Some(stem) = s.strip_suffix('s').filter(|st| !st.is_empty()) {
        stem.to_string()
    } else {
        s
    }
}

/// Id values an answer states about itself: id-like members of its entity
/// (at most two levels into it) and of a not-found answer's details.
pub(crate) fn echoed_ids(answer: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    let leaves = match entity_of(answer) {
        Some((_, o)) => named_leaves_of_map(o, 400),
        None => named_leaves(answer, 400),
    };
    for (pointer, member, text) in leaves {
        let depth = pointer.matches('/').count();
        if depth <= 2 && id_like(&member) && !pointer_has_index(&pointer) {
            out.push(text);
        }
    }
    out.sort();
    out.dedup();
    out
}

/// True when a pointer passes through an array element.
pub(crate) fn pointer_has_index(pointer: &str) -> bool {
    pointer
        .split('/')
        .any(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_ids_with_literal_affixes() {
        assert_eq!(
            split_around("12.json", "12"),
            Some((String::new(), ".json".into()))
        );
        assert_eq!(split_around("a12", "12"), None);
        assert_eq!(split_around("@me", "me"), Some(("@".into(), String::new())));
        assert_eq!(kind_of("123"), "integer");
        assert_eq!(kind_of("8854ee53-d6c2-42fc-a6fc-fc93b789a106"), "uuid");
        assert_eq!(kind_of("7a7e25e07e3340d9a1c15028a8fa500a"), "hex");
        assert_eq!(kind_of("prod-001"), "token");
        assert_eq!(param_base("categories"), "category");
        assert_eq!(param_base("records"), "record");
    }
}
