//! Items keyed by a title: a last path segment that is a word, not a number
//! (`/page/Apple`, `/page/Help:Editing`), which the template rules keep
//! literal because no id-like member echoes it. The position is parametric
//! when two or more distinct sibling segments under one literal parent are
//! each echoed whole (a space may be spelled `_`) by the same string member
//! of their 2xx read answer (`key`). The model then answers, for titles the
//! spec's plans have no tool for:
//! - the app's absence answer (a recorded 404 of the position, the title
//!   substituted where the recorded one stood) for a title that no recorded
//!   answer names, under any member that echoed a title;
//! - the app's refusal of a write lacking members every 2xx write of the
//!   position sent (`token`), keyed by exactly the lacking members.
//!
//! Each part is kept only when replaying the position's recorded answers
//! reproduces them (`checked_against`); a contradicting record drops it.

use super::exchange::{entity_of, join, list_of, sorted, Exchange};
use super::routes::Templates;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The title-keyed positions of the app (the model's `titled` section).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Titled {
    pub positions: Vec<TitledPosition>,
}

/// One literal parent whose children are items keyed by a title.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TitledPosition {
    /// The parent path (`/rest.php/v1/page`).
    pub parent: String,
    /// The members that echoed the segment in every supporting answer
    /// (`key`; `title` when it spells spaces as spaces).
    pub echo_members: Vec<String>,
    /// 2xx reads whose answer echoed their segment.
    pub supported_by: Vec<u64>,
    /// Titles some recorded answer names under an echo member (sorted):
    /// these exist, and are never answered absent.
    pub named: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub absence: Option<TitledAbsence>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refusals: Vec<TitledRefusal>,
}

/// The app's answer for a title it does not hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TitledAbsence {
    /// `recorded` (a 404 of this position) or `by-analogy` (the one answer
    /// every recorded 404 read of the app gave).
    pub basis: String,
    pub status: u16,
    /// The recorded answer with the title replaced by `{title}` (`null`:
    /// an empty body).
    pub template: Option<Value>,
    pub template_ordinal: u64,
    /// Every recorded absence of the position, reproduced by the template.
    pub checked_against: Vec<u64>,
}

/// A recorded refusal of a write lacking members.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TitledRefusal {
    pub method: String,
    /// Members every 2xx write of this method sent.
    pub required: Vec<String>,
    /// Of those, the members this one lacked.
    pub lacked: Vec<String>,
    pub status: u16,
    pub answer: Value,
    pub supported_by: Vec<u64>,
    /// Writes of the method lacking exactly these members, all refused alike.
    pub checked_against: Vec<u64>,
}

/// Spaces spelled `_` in paths: the same title.
fn same_title(a: &str, b: &str) -> bool {
    a == b || a.replace('_', " ") == b.replace('_', " ")
}

/// A member's echoes: the distinct segments it echoed, and the records.
type Echo = (BTreeSet<String>, Vec<u64>);

/// Infers the title-keyed positions; `None` when the recording shows none.
pub(crate) fn infer(exchanges: &[Exchange], templates: &Templates) -> Option<Titled> {
    // parent → member → (distinct segments, supporting records)
    type Echoes = BTreeMap<String, Echo>;
    let mut by_parent: BTreeMap<String, (Echoes, usize)> = BTreeMap::new();
    for x in exchanges.iter().filter(|x| x.method == "GET" && x.is_2xx()) {
        let Some((seg, parent)) = x.segments.split_last() else {
            continue;
        };
        let parent = join(parent);
        // Only literal parents, at positions the template rules keep literal.
        if templates.template_of(&x.segments[..x.segments.len() - 1])
            != x.segments[..x.segments.len() - 1]
            || templates.position_for(&parent, seg).is_some()
            || seg.bytes().all(|b| b.is_ascii_digit())
        {
            continue;
        }
        let Some((_, entity)) = x.answer.as_ref().and_then(entity_of) else {
            continue;
        };
        let e = by_parent.entry(parent).or_default();
        e.1 += 1;
        for (member, v) in entity {
            if let Value::String(s) = v {
                if same_title(s, seg) {
                    let m = e.0.entry(member.clone()).or_default();
                    m.0.insert(seg.clone());
                    m.1.push(x.ordinal);
                }
            }
        }
    }
    let mut positions = Vec::new();
    for (parent, (echoes, reads)) in by_parent {
        // Members that echoed the segment in every 2xx read of the parent's children.
        // Two distinct titles echoed, or one that the parent's own list
        // answer lists under the same member.
        let listed = listed_values(exchanges, &parent);
        let members: Vec<(&String, &Echo)> = echoes
            .iter()
            .filter(|(m, (segs, ords))| {
                ords.len() == reads
                    && (segs.len() >= 2
                        || segs.iter().any(|s| {
                            listed
                                .get(*m)
                                .is_some_and(|l| l.iter().any(|v| same_title(v, s)))
                        }))
            })
            .collect();
        if members.is_empty() {
            continue;
        }
        let echo_members: Vec<String> = members.iter().map(|(m, _)| (*m).clone()).collect();
        let supported_by = sorted(members[0].1 .1.clone());
        let named = named_titles(exchanges, &echo_members);
        let mut p = TitledPosition {
            parent: parent.clone(),
            echo_members,
            supported_by,
            named,
            absence: None,
            refusals: Vec::new(),
        };
        p.absence = absence(exchanges, &p);
        p.refusals = refusals(exchanges, &p);
        positions.push(p);
    }
    (!positions.is_empty()).then_some(Titled { positions })
}

/// The string members of the items a 2xx list answer of `parent` listed.
fn listed_values(exchanges: &[Exchange], parent: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for x in exchanges
        .iter()
        .filter(|x| x.method == "GET" && x.is_2xx() && x.path() == parent)
    {
        let Some((_, items)) = x.answer.as_ref().and_then(list_of) else {
            continue;
        };
        for item in items.iter().filter_map(Value::as_object) {
            for (k, v) in item {
                if let Value::String(t) = v {
                    out.entry(k.clone()).or_default().insert(t.clone());
                }
            }
        }
    }
    out
}

/// Every value of an echo member, at any depth, in any 2xx answer.
fn named_titles(exchanges: &[Exchange], members: &[String]) -> Vec<String> {
    fn walk(v: &Value, members: &[String], out: &mut BTreeSet<String>) {
        match v {
            Value::Object(map) => {
                for (k, c) in map {
                    match c {
                        Value::String(s) if members.contains(k) && !s.is_empty() => {
                            out.insert(s.replace(' ', "_"));
                        }
                        _ => walk(c, members, out),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|c| walk(c, members, out)),
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    for x in exchanges.iter().filter(|x| x.is_2xx()) {
        if let Some(a) = &x.answer {
            walk(a, members, &mut out);
        }
    }
    out.into_iter().collect()
}

/// Replaces `title` inside every string of `v` with `with`.
fn replaced(v: &Value, title: &str, with: &str) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, c)| (k.clone(), replaced(c, title, with)))
                .collect(),
        ),
        Value::Array(items) => {
            Value::Array(items.iter().map(|c| replaced(c, title, with)).collect())
        }
        Value::String(s) => Value::String(s.replace(title, with)),
        other => other.clone(),
    }
}

/// The recorded 404 reads of the position's children.
fn absences<'a>(exchanges: &'a [Exchange], parent: &str) -> Vec<(&'a Exchange, &'a String)> {
    exchanges
        .iter()
        .filter(|x| x.method == "GET" && x.status == 404)
        .filter_map(|x| {
            let (seg, p) = x.segments.split_last()?;
            (join(p) == parent && x.answer.is_some()).then_some((x, seg))
        })
        .collect()
}

fn absence(exchanges: &[Exchange], p: &TitledPosition) -> Option<TitledAbsence> {
    let recorded = absences(exchanges, &p.parent);
    if recorded.is_empty() {
        return by_analogy(exchanges);
    }
    // The template: the first absence of a title no answer names.
    let (first, seg) = recorded
        .iter()
        .find(|(_, seg)| !p.named.iter().any(|n| same_title(n, seg)))?;
    let template = replaced(first.answer.as_ref()?, seg, "{title}");
    // Replay: the template must reproduce every recorded absence.
    for (x, s) in &recorded {
        if Some(&replaced(&template, "{title}", s)) != x.answer.as_ref() {
            return None;
        }
    }
    Some(TitledAbsence {
        basis: "recorded".into(),
        status: first.status,
        template: Some(template),
        template_ordinal: first.ordinal,
        checked_against: sorted(recorded.iter().map(|(x, _)| x.ordinal).collect()),
    })
}

/// The one answer every recorded 404 read of the app gave (an empty body,
/// or the same JSON), when there are any: a position the recording never
/// saw missing answers its absence the same way, as a convention.
fn by_analogy(exchanges: &[Exchange]) -> Option<TitledAbsence> {
    let all: Vec<&Exchange> = exchanges
        .iter()
        .filter(|x| x.method == "GET" && x.status == 404)
        .collect();
    let first = all.first()?;
    let alike = all
        .iter()
        .all(|x| x.answer == first.answer && x.answer_empty == first.answer_empty);
    (alike && (first.answer_empty || first.answer.is_some())).then(|| TitledAbsence {
        basis: "by-analogy".into(),
        status: 404,
        template: first.answer.clone(),
        template_ordinal: first.ordinal,
        checked_against: sorted(all.iter().map(|x| x.ordinal).collect()),
    })
}

fn body_members(x: &Exchange) -> Option<BTreeSet<String>> {
    Some(x.body.as_ref()?.as_object()?.keys().cloned().collect())
}

fn refusals(exchanges: &[Exchange], p: &TitledPosition) -> Vec<TitledRefusal> {
    let writes: Vec<&Exchange> = exchanges
        .iter()
        .filter(|x| !x.is_read() && x.segments.len() >= 2)
        .filter(|x| join(&x.segments[..x.segments.len() - 1]) == p.parent)
        .collect();
    let mut out: Vec<TitledRefusal> = Vec::new();
    let methods: BTreeSet<&str> = writes.iter().map(|x| x.method.as_str()).collect();
    for method in methods {
        let of_method: Vec<&&Exchange> = writes.iter().filter(|x| x.method == method).collect();
        let mut required: Option<BTreeSet<String>> = None;
        for x in of_method.iter().filter(|x| x.is_2xx()) {
            let Some(m) = body_members(x) else { continue };
            required = Some(match required {
                None => m,
                Some(r) => r.intersection(&m).cloned().collect(),
            });
        }
        let Some(required) = required else { continue };
        for x in of_method.iter().filter(|x| x.status >= 400) {
            let (Some(m), Some(answer)) = (body_members(x), x.answer.as_ref()) else {
                continue;
            };
            let lacked: Vec<String> = required.difference(&m).cloned().collect();
            if lacked.is_empty() || out.iter().any(|r| r.method == method && r.lacked == lacked) {
                continue;
            }
            // Replay: every write lacking exactly these members got this answer.
            let alike: Vec<&&&Exchange> = of_method
                .iter()
                .filter(|y| {
                    body_members(y).is_some_and(|ym| {
                        required.difference(&ym).cloned().collect::<Vec<_>>() == lacked
                    })
                })
                .collect();
            if alike
                .iter()
                .all(|y| y.status == x.status && y.answer.as_ref() == Some(answer))
            {
                out.push(TitledRefusal {
                    method: method.to_string(),
                    required: required.iter().cloned().collect(),
                    lacked,
                    status: x.status,
                    answer: answer.clone(),
                    supported_by: vec![x.ordinal],
                    checked_against: sorted(alike.iter().map(|y| y.ordinal).collect()),
                });
            }
        }
    }
    out
}

/// What the model answers for a title-keyed call.
pub(crate) struct TitledAnswer {
    pub status: u16,
    /// `None`: an empty body.
    pub body: Option<Value>,
    /// True when a convention answered (an absence by analogy).
    pub convention: bool,
}

impl Titled {
    /// The model's answer for a call on a title-keyed position the spec's
    /// plans have no tool for: (status, body), or `None` to fall back.
    pub(crate) fn answer(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> Option<TitledAnswer> {
        let segments: Vec<String> = path
            .split('/')
            .filter(|s| !s.is_empty())
            .map(crate::state::writes::input::percent_decode)
            .collect();
        let (title, parent) = segments.split_last()?;
        let parent = join(parent);
        let p = self.positions.iter().find(|p| p.parent == parent)?;
        if method == "GET" {
            let a = p.absence.as_ref()?;
            if p.named.iter().any(|n| same_title(n, title)) {
                return None;
            }
            return Some(TitledAnswer {
                status: a.status,
                body: a.template.as_ref().map(|t| replaced(t, "{title}", title)),
                convention: a.basis != "recorded",
            });
        }
        let sent: BTreeSet<String> = body?.as_object()?.keys().cloned().collect();
        p.refusals
            .iter()
            .find(|r| {
                r.method == method
                    && r.required
                        .iter()
                        .filter(|m| !sent.contains(*m))
                        .eq(r.lacked.iter())
            })
            .map(|r| TitledAnswer {
                status: r.status,
                body: Some(r.answer.clone()),
                convention: false,
            })
    }
}
