//! References between entities, as the recorded answers show them: a
//! member holding another item's key (`post: 8`) and what an answer derives
//! from it — links to the referenced item (`…/posts/8`), a link present
//! only while the member names an item (a `parent` of `0` shows none), and
//! texts that continue the referenced entity's own text (the referenced
//! item's `link` followed by `#comment-31`). Used when a create's answer is
//! re-rendered from a recorded example for other sent values; each change
//! is one the example or the resource's recorded entities show.

use serde_json::{Map, Value};

/// The item a URL or path reads: (resource index, scope, id).
pub(crate) type ItemOf<'a> = &'a dyn Fn(&str) -> Option<(usize, String, String)>;
/// An entity the World holds, by (resource index, scope, id).
pub(crate) type Held<'a> = &'a dyn Fn(usize, &str, &str) -> Option<Map<String, Value>>;

/// What following references needs from the serving model.
pub(crate) struct Follow<'a> {
    /// The item a URL or path reads: (resource index, scope, id).
    pub item_of: ItemOf<'a>,
    /// An entity the World holds, by (resource index, scope, id).
    pub entity: Held<'a>,
    /// The resource's recorded entities (what conditional links are learnt from).
    pub peers: &'a [&'a Map<String, Value>],
}

/// The path of a URL (`http://host/a/b?x` → `/a/b`), or of a path.
fn path_of(s: &str) -> Option<&str> {
    let rest = match s.find("://") {
        Some(i) => {
            let after = &s[i + 3..];
            &after[after.find('/')?..]
        }
        None if s.starts_with('/') => s,
        None => return None,
    };
    Some(rest.split(['?', '#']).next().unwrap_or(rest))
}

/// A scalar as the text an id segment spells.
fn text(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        _ => None,
    }
}

/// True when the member names no item (`0`, `""`, `null`, absent).
fn names_none(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => true,
        Some(Value::Number(n)) => n.as_f64() == Some(0.0),
        Some(Value::String(s)) => s.is_empty() || s == "0",
        _ => false,
    }
}

/// Rewrites, at any depth, every URL that reads item `old` into one that
/// reads item `new` (its last segment); returns the items it pointed at.
fn repoint(f: &Follow<'_>, v: &mut Value, old: &str, new: &str, hit: &mut Vec<(usize, String)>) {
    match v {
        Value::Object(m) => m.values_mut().for_each(|c| repoint(f, c, old, new, hit)),
        Value::Array(a) => a.iter_mut().for_each(|c| repoint(f, c, old, new, hit)),
        Value::String(s) => {
            let Some(p) = path_of(s) else { return };
            let Some((ri, scope, id)) = (f.item_of)(p) else {
                return;
            };
            if id != old {
                return;
            }
            let end = s.find(p).map(|i| i + p.len()).unwrap_or(s.len());
            let head = &s[..end];
            if let Some(cut) = head.rfind(old).filter(|i| i + old.len() == end) {
                *s = format!("{}{new}{}", &s[..cut], &s[end..]);
                if !hit.contains(&(ri, scope.clone())) {
                    hit.push((ri, scope));
                }
            }
        }
        _ => {}
    }
}

/// Rewrites URLs at any depth whose path ends with the segment `old`.
fn last_segment(v: &mut Value, old: &str, new: &str) {
    match v {
        Value::Object(m) => m.values_mut().for_each(|c| last_segment(c, old, new)),
        Value::Array(a) => a.iter_mut().for_each(|c| last_segment(c, old, new)),
        Value::String(s) => {
            let Some(p) = path_of(s) else { return };
            let Some(at) = s.find(p).map(|i| i + p.len()) else {
                return;
            };
            if s[..at].ends_with(&format!("/{old}")) {
                *s = format!("{}{new}{}", &s[..at - old.len()], &s[at..]);
            }
        }
        _ => {}
    }
}

/// True when a URL somewhere in `v` reads item `id`.
fn points_at(f: &Follow<'_>, v: &Value, id: &str) -> bool {
    match v {
        Value::Object(m) => m.values().any(|c| points_at(f, c, id)),
        Value::Array(a) => a.iter().any(|c| points_at(f, c, id)),
        Value::String(s) => path_of(s)
            .and_then(|p| (f.item_of)(p))
            .is_some_and(|(_, _, i)| i == id),
        _ => false,
    }
}

/// The links (`(container, name)`: an object member of the entity and one
/// of its members) that point at the item `member` names, learnt from the
/// peers: present in every peer whose member names an item (pointing at
/// it), absent from every peer whose member names none, and at least one
/// of each kind. With a peer showing each link, as its template.
fn conditional_links<'p>(
    f: &Follow<'_>,
    peers: &'p [&'p Map<String, Value>],
    member: &str,
) -> Vec<(String, String, &'p Map<String, Value>)> {
    let naming: Vec<&Map<String, Value>> = peers
        .iter()
        .copied()
        .filter(|p| !names_none(p.get(member)) && p.get(member).and_then(text).is_some())
        .collect();
    let none: Vec<&Map<String, Value>> = peers
        .iter()
        .copied()
        .filter(|p| names_none(p.get(member)))
        .collect();
    let Some(first) = naming.first() else {
        return Vec::new();
    };
    if none.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (container, links) in first.iter() {
        let Some(links) = links.as_object() else {
            continue;
        };
        for name in links.keys() {
            fn shown<'v>(
                p: &'v Map<String, Value>,
                container: &str,
                name: &str,
                member: &str,
            ) -> Option<(&'v Value, String)> {
                p.get(container)
                    .and_then(|c| c.get(name))
                    .map(|l| (l, p.get(member).and_then(text).unwrap_or_default()))
            }
            let shown = |p: &'p Map<String, Value>| shown(p, container, name, member);
            let in_every = naming
                .iter()
                .all(|p| shown(p).is_some_and(|(l, id)| points_at(f, l, &id)));
            let in_none = none.iter().all(|p| shown(p).is_none());
            if in_every && in_none {
                out.push((container.clone(), name.clone(), *first));
            }
        }
    }
    out
}

/// Follows the references `sent` changed from the `example`'s values in
/// the re-rendered `entity`: links to the old item point at the new one,
/// texts continuing the old item's text continue the new one's, and a
/// link present only while the member names an item is added.
pub(crate) fn follow(
    f: &Follow<'_>,
    example: &Map<String, Value>,
    entity: &mut Map<String, Value>,
    sent: &Map<String, Value>,
) {
    for (m, new) in sent {
        let Some(new_t) = text(new).filter(|_| new.is_number() || new.is_string()) else {
            continue;
        };
        let old = example.get(m);
        let old_t = old.and_then(text);
        if old_t.as_deref() == Some(new_t.as_str()) {
            continue;
        }
        let mut hit = Vec::new();
        if let (Some(old_t), false) = (&old_t, names_none(old)) {
            let mut whole = Value::Object(std::mem::take(entity));
            repoint(f, &mut whole, old_t, &new_t, &mut hit);
            // A link named like the member (`_links.author` for `author`)
            // to an item no resource of the model covers: its last segment.
            if let Value::Object(o) = &mut whole {
                for c in o.values_mut().filter_map(Value::as_object_mut) {
                    if let Some(link) = c.get_mut(m) {
                        last_segment(link, old_t, &new_t);
                    }
                }
            }
            *entity = match whole {
                Value::Object(o) => o,
                _ => Map::new(),
            };
            // Texts that continue the old item's own text (`link`).
            for (ri, scope) in &hit {
                let (Some(was), Some(now)) = (
                    (f.entity)(*ri, scope, old_t),
                    (f.entity)(*ri, scope, &new_t),
                ) else {
                    continue;
                };
                for v in entity.values_mut() {
                    let Value::String(s) = v else { continue };
                    let prefix = was.iter().find_map(|(k, w)| {
                        let w = w.as_str().filter(|w| w.len() >= 8)?;
                        (s.starts_with(w) && s.len() > w.len()).then(|| (k.clone(), w.len()))
                    });
                    if let Some((k, len)) = prefix {
                        if let Some(n) = now.get(&k).and_then(Value::as_str) {
                            *s = format!("{n}{}", &s[len..]);
                        }
                    }
                }
            }
        }
        if !names_none(old) && names_none(Some(new)) {
            // The member names no item now: the links shown only while it
            // names one go.
            for (container, name, _) in conditional_links(f, f.peers, m) {
                if let Some(Value::Object(links)) = entity.get_mut(&container) {
                    links.shift_remove(&name);
                }
            }
            continue;
        }
        if !names_none(old) {
            // Texts ending with the entity's own id whose head the entities
            // referencing the same item share (`…/post-slug/#comment-` +
            // id): the head the new item's referencing entities show.
            if let Some(own) = entity.get("id").and_then(text) {
                let heads: Vec<(String, String)> = entity
                    .iter()
                    .filter_map(|(k, v)| {
                        let s = v.as_str()?;
                        s.ends_with(own.as_str())
                            .then(|| (k.clone(), s.to_string()))
                    })
                    .filter_map(|(k, s)| {
                        let head = f.peers.iter().find_map(|p| {
                            if p.get(m).and_then(text).as_deref() != Some(new_t.as_str()) {
                                return None;
                            }
                            let pid = p.get("id").and_then(text)?;
                            let ps = p.get(&k)?.as_str()?;
                            ps.strip_suffix(pid.as_str()).map(str::to_string)
                        })?;
                        let now = format!("{head}{own}");
                        (now != s).then_some((k, now))
                    })
                    .collect();
                for (k, now) in heads {
                    entity.insert(k, Value::String(now));
                }
            }
            continue;
        }
        if names_none(Some(new)) {
            continue;
        }
        // The member names an item where the example's named none: the
        // links the peers show exactly while it names one.
        for (container, name, peer) in conditional_links(f, f.peers, m) {
            let Some(Value::Object(links)) = entity.get_mut(&container) else {
                continue;
            };
            if links.contains_key(&name) {
                continue;
            }
            let (Some(mut link), Some(was)) = (
                peer.get(&container).and_then(|c| c.get(&name)).cloned(),
                peer.get(m).and_then(text),
            ) else {
                continue;
            };
            repoint(f, &mut link, &was, &new_t, &mut Vec::new());
            links.insert(name, link);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::path_of;

    #[test]
    fn paths_of_urls_and_paths() {
        assert_eq!(path_of("http://h:1/a/b?x=1#f"), Some("/a/b"));
        assert_eq!(path_of("/a/7"), Some("/a/7"));
        assert_eq!(path_of("plain text"), None);
        assert_eq!(path_of("http://h"), None);
    }
}
