//! Path-keyed trees (a file tree such as a contents API): under one route
//! prefix the rest of the path, whatever its depth and with dots inside its
//! segments, is the key of one entity; every answer names its key (a member
//! equal to the path below the prefix) and its last segment, and a container
//! lists its children (entries one segment below it). `PUT` at a key creates
//! or replaces, `POST` to a container creates a child the app names
//! ("untitled" names), `PATCH` with a new key moves it, `DELETE` removes it
//! with what lies below. Inferred by shape alone (member names, query flags,
//! name stems are read from the recording) and every part is kept only where
//! replaying the recording through `serve` reproduces the recorded answers
//! (`replay`); the evidence is the model's `tree_store` section.

pub(crate) mod hook;
pub(crate) mod replay;
pub(crate) mod serve;
#[cfg(test)]
mod tests;

use super::exchange::Exchange;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// The inferred tree (the model's `tree_store` section).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TreeStore {
    /// The route prefix under which the rest of the path is a key (`/api/contents`).
    pub prefix: String,
    /// The member holding the key (`path`) and the one holding its last segment (`name`).
    pub key_member: String,
    pub name_member: String,
    /// The member listing a container's children (`content`).
    pub children_member: String,
    /// The member telling containers apart (`type`) and its containers' value.
    pub type_member: String,
    pub container_type: String,
    /// Members a read of the entity itself carries and its listing entry
    /// holds as null (`content`, `format`).
    pub detail_members: Vec<String>,
    /// The detail members every recorded container read answered alike
    /// (`format: json`).
    pub container_detail: Map<String, Value>,
    /// Literal segments below a key that name something else than an
    /// entity (`checkpoints`): not served by the tree.
    pub tails: Vec<String>,
    /// A per-entity saved copy (`{key}/checkpoints`), when the recording shows one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copies: Option<Copies>,
    /// A query pair asking for the entity without its details (`content=0`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub omit_details: Option<(String, String)>,
    /// The member holding the byte length of the text detail (`size` of `content`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_of: Option<(String, String)>,
    /// A member that the key's extension decides (`mimetype`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by_extension: Option<String>,
    /// The body member of a `PATCH` naming the new key (`path`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rename_member: Option<String>,
    /// Names the app gives a `POST`ed child, per type value.
    pub untitled: Vec<Untitled>,
    /// Per type value, a recorded answer that describes a new entity of it.
    pub templates: BTreeMap<String, Map<String, Value>>,
    /// The app's answer to a key it does not hold, per method (the key quoted).
    pub absent: BTreeMap<String, Quoting>,
    /// Its answer to a move onto a key it holds (the target quoted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exists: Option<Quoting>,
    /// Statuses of a `PUT` that created and one that replaced.
    pub created_status: u16,
    pub replaced_status: u16,
    /// The content type the app answered JSON with.
    pub content_type: String,
    /// Per answer kind: the records the replay reproduced and those it did
    /// not. A kind with any contradiction is not served.
    pub evidence: BTreeMap<String, Evidence>,
}

/// How the app names a child a `POST` created: `{stem}{n}{ext}`, no `n` for
/// the first free name, `1`, `2`… after it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Untitled {
    pub type_value: String,
    pub stem: String,
    /// The extension, or the body member naming it (`ext_member`).
    pub ext: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ext_member: Option<String>,
}

/// A per-entity sub-collection holding one saved copy of the entity under a
/// fixed id: listed (`GET {key}/{tail}`), made (`POST {key}/{tail}`, its
/// answer's members taken from the entity where it has them), restored
/// (`POST {key}/{tail}/{id}`) and removed (`DELETE {key}/{tail}/{id}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Copies {
    pub tail: String,
    pub id_member: String,
    pub id: String,
    /// The recorded answer of a `POST {key}/{tail}`.
    pub answer: Map<String, Value>,
    pub created_status: u16,
    pub restored_status: u16,
    /// Not recorded: the restore's status (a convention).
    pub deleted_status: u16,
}

/// A recorded answer that quotes a key: `before` + key + `after`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Quoting {
    pub status: u16,
    pub content_type: String,
    pub before: String,
    pub after: String,
    /// Whether the key is quoted with a leading `/`.
    pub slash: bool,
    pub json: bool,
}

/// Records supporting and contradicting one answer kind.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    pub supported_by: Vec<u64>,
    pub contradicted_by: Vec<u64>,
}

impl TreeStore {
    /// True when a key of a recorded answer ends with `suffix`.
    pub(crate) fn spells(&self, exchanges: &[Exchange], suffix: &str) -> bool {
        exchanges.iter().any(|x| {
            object(x.answer.as_ref())
                .and_then(|a| a.get(&self.key_member))
                .and_then(Value::as_str)
                .is_some_and(|k| k.ends_with(suffix))
        })
    }

    /// True when `kind` may answer (no recorded answer contradicted it).
    pub(crate) fn serves(&self, kind: &str) -> bool {
        self.evidence
            .get(kind)
            .is_none_or(|e| e.contradicted_by.is_empty())
    }
}

/// The key a path names under `prefix`, and whether the path is the tree's
/// (no tail segment): `None` outside it.
pub(crate) fn key_of(prefix: &[String], tails: &[String], segments: &[String]) -> Option<String> {
    if segments.len() < prefix.len() || segments[..prefix.len()] != *prefix {
        return None;
    }
    let rest = &segments[prefix.len()..];
    if rest.iter().any(|s| tails.contains(s)) {
        return None;
    }
    Some(rest.join("/"))
}

pub(crate) fn parent_of(key: &str) -> Option<&str> {
    if key.is_empty() {
        return None;
    }
    Some(key.rsplit_once('/').map_or("", |(p, _)| p))
}

pub(crate) fn last_segment(key: &str) -> &str {
    key.rsplit_once('/').map_or(key, |(_, n)| n)
}

/// `.txt` of `notes/a.txt`; `None` without a dot in the last segment.
pub(crate) fn extension(key: &str) -> Option<&str> {
    let name = last_segment(key);
    name.rfind('.').filter(|i| *i > 0).map(|i| &name[i..])
}

fn object(v: Option<&Value>) -> Option<&Map<String, Value>> {
    v.and_then(Value::as_object)
}

/// Infers the tree, when the recording shows one.
pub(crate) fn infer(exchanges: &[Exchange]) -> Option<TreeStore> {
    // 1. prefix and key member: GET answers naming the rest of their path.
    let mut votes: BTreeMap<(Vec<String>, String), (usize, usize)> = BTreeMap::new();
    for x in exchanges.iter().filter(|x| x.method == "GET" && x.is_2xx()) {
        let Some(a) = object(x.answer.as_ref()) else {
            continue;
        };
        for (m, v) in a {
            let Some(v) = v.as_str() else { continue };
            let key: Vec<&str> = if v.is_empty() {
                Vec::new()
            } else {
                v.split('/').collect()
            };
            if key.is_empty() || key.len() > x.segments.len() {
                continue;
            }
            let at = x.segments.len() - key.len();
            if x.segments[at..].iter().zip(&key).all(|(s, k)| s == k) {
                let e = votes
                    .entry((x.segments[..at].to_vec(), m.clone()))
                    .or_default();
                e.0 += 1;
                e.1 = e.1.max(key.len());
            }
        }
    }
    let ((prefix, key_member), _) = votes
        .into_iter()
        .filter(|(_, (n, depth))| *n >= 3 && *depth >= 2)
        .max_by_key(|(_, (n, _))| *n)?;
    let under =
        |x: &Exchange| x.segments.len() >= prefix.len() && x.segments[..prefix.len()] == *prefix;
    let keyed = |x: &Exchange| -> Option<String> {
        let a = object(x.answer.as_ref())?;
        let k = a.get(&key_member)?.as_str()?;
        (x.segments[prefix.len()..].join("/") == k).then(|| k.to_string())
    };
    // 2. tails: literal segments of recorded requests under the prefix whose
    // answers are not the keyed entity (a sub-resource of it).
    let mut tails = BTreeSet::new();
    for x in exchanges.iter().filter(|x| under(x) && x.method == "GET") {
        if x.is_2xx() && keyed(x).is_none() && x.segments.len() > prefix.len() + 1 {
            tails.insert(x.segments.last()?.clone());
        }
    }
    let tails: Vec<String> = tails.into_iter().collect();
    let gets: Vec<(&Exchange, String, &Map<String, Value>)> = exchanges
        .iter()
        .filter(|x| under(x) && x.method == "GET" && x.is_2xx())
        .filter(|x| key_of(&prefix, &tails, &x.segments).is_some())
        .filter_map(|x| Some((x, keyed(x)?, object(x.answer.as_ref())?)))
        .collect();
    // Any GET 2xx of an entity path that does not name its key: no tree.
    let entity_gets = exchanges
        .iter()
        .filter(|x| under(x) && x.method == "GET" && x.is_2xx())
        .filter(|x| key_of(&prefix, &tails, &x.segments).is_some())
        .count();
    if entity_gets != gets.len() {
        return None;
    }
    // 3. name member: the key's last segment in every answer.
    let named = gets.iter().filter(|(_, k, _)| !k.is_empty());
    let name_member = gets
        .iter()
        .find(|(_, k, _)| !k.is_empty())?
        .2
        .iter()
        .filter(|(m, _)| **m != key_member)
        .map(|(m, _)| m.clone())
        .find(|m| {
            named
                .clone()
                .all(|(_, k, a)| a.get(m).and_then(Value::as_str) == Some(last_segment(k)))
        })?;
    // 4. children member: arrays of entries one segment below the key.
    let child_of = |parent: &str, e: &Value| {
        e.get(&key_member)
            .and_then(Value::as_str)
            .is_some_and(|k| parent_of(k) == Some(parent))
    };
    let mut children_member = None;
    for (_, k, a) in &gets {
        for (m, v) in *a {
            if let Some(list) = v.as_array() {
                if !list.is_empty() && list.iter().all(|e| child_of(k, e)) {
                    children_member = Some(m.clone());
                }
            }
        }
    }
    let children_member = children_member?;
    let containers: Vec<&Map<String, Value>> = gets
        .iter()
        .filter(|(_, _, a)| a.get(&children_member).is_some_and(Value::is_array))
        .map(|(_, _, a)| *a)
        .collect();
    // 5. type member: one string value on every container, another elsewhere.
    let listed: BTreeMap<String, &Map<String, Value>> = containers
        .iter()
        .flat_map(|c| c[&children_member].as_array().into_iter().flatten())
        .filter_map(|e| {
            let e = e.as_object()?;
            Some((e.get(&key_member)?.as_str()?.to_string(), e))
        })
        .collect();
    // The same value on every container, also on its entry in a listing
    // (a container's entry is listed with its details null).
    let (type_member, container_type) = containers
        .first()?
        .iter()
        .filter_map(|(m, v)| Some((m.clone(), v.as_str()?.to_string())))
        .find(|(m, v)| {
            containers.iter().all(|c| {
                c.get(m).and_then(Value::as_str) == Some(v)
                    && c.get(&key_member)
                        .and_then(Value::as_str)
                        .and_then(|k| listed.get(k))
                        .is_none_or(|e| e.get(m).and_then(Value::as_str) == Some(v))
            }) && gets
                .iter()
                .any(|(_, _, a)| a.get(m).and_then(Value::as_str).is_some_and(|o| o != v))
        })?;
    // 6. detail members: non-null in a read of the entity, null in its entry.
    let mut detail = BTreeSet::new();
    for (_, k, a) in &gets {
        if let Some(entry) = listed.get(k) {
            for (m, v) in *a {
                if !v.is_null() && !v.is_array() && entry.get(m).is_some_and(Value::is_null) {
                    detail.insert(m.clone());
                }
            }
        }
    }
    let detail_members: Vec<String> = detail.into_iter().collect();
    let mut container_detail = Map::new();
    for d in detail_members.iter().filter(|d| **d != children_member) {
        let values: BTreeSet<String> = containers
            .iter()
            .filter(|c| c.get(&children_member).is_some_and(Value::is_array))
            .map(|c| c.get(d).map(Value::to_string).unwrap_or_default())
            .collect();
        if values.len() == 1 {
            if let Some(v) = containers[0].get(d) {
                container_detail.insert(d.clone(), v.clone());
            }
        }
    }
    // 7. a query pair whose reads answer a container without its children.
    let omit_details = gets.iter().find_map(|(x, _, a)| {
        if a.get(&type_member).and_then(Value::as_str) != Some(&container_type)
            || !a.get(&children_member).is_some_and(Value::is_null)
        {
            return None;
        }
        x.query.iter().find_map(|(q, v)| {
            let other = gets.iter().any(|(y, _, b)| {
                b.get(&children_member).is_some_and(Value::is_array)
                    && y.query_value(q).is_some_and(|w| w != v)
            });
            other.then(|| (q.clone(), v.clone()))
        })
    });
    // 8. a number member equal to the byte length of a text detail.
    let size_of = full_reads(&gets, &detail_members).and_then(|_| {
        let numbers: BTreeSet<&String> = gets
            .iter()
            .flat_map(|(_, _, a)| a.iter().filter(|(_, v)| v.is_u64()).map(|(m, _)| m))
            .collect();
        numbers.into_iter().find_map(|s| {
            detail_members.iter().find_map(|d| {
                let texts: Vec<&Map<String, Value>> = gets
                    .iter()
                    .map(|(_, _, a)| *a)
                    .filter(|a| a.get(d).is_some_and(Value::is_string) && a.contains_key(s))
                    .filter(|a| !a.get(s).is_some_and(Value::is_null))
                    .collect();
                let fits = texts.len() >= 2
                    && texts.iter().all(|a| {
                        a.get(s).and_then(Value::as_u64)
                            == a.get(d).and_then(Value::as_str).map(|t| t.len() as u64)
                    });
                fits.then(|| (s.clone(), d.clone()))
            })
        })
    });
    // 9. a member the extension decides: equal on every entry sharing one,
    // and shown for at least two extensions.
    let mut entities: Vec<(&str, &Map<String, Value>)> =
        listed.iter().map(|(k, e)| (k.as_str(), *e)).collect();
    entities.extend(gets.iter().map(|(_, k, a)| (k.as_str(), *a)));
    let by_extension = entities.first().and_then(|(_, e)| {
        e.keys()
            .filter(|m| {
                ![&key_member, &name_member, &children_member, &type_member].contains(m)
                    && !detail_members.contains(m)
                    && !e.get(*m).is_some_and(|v| v.is_number())
            })
            .find(|m| {
                let mut seen: BTreeMap<&str, &Value> = BTreeMap::new();
                let mut distinct = BTreeSet::new();
                for (k, e) in &entities {
                    let (Some(ext), Some(v)) = (extension(k), e.get(*m)) else {
                        continue;
                    };
                    if let Some(prev) = seen.insert(ext, v) {
                        if prev != v {
                            return false;
                        }
                    }
                    distinct.insert(v.to_string());
                }
                seen.len() >= 2 && distinct.len() >= 2
            })
            .cloned()
    });
    // 10. writes: rename member, untitled names, templates, statuses.
    let writes: Vec<(&Exchange, String)> = exchanges
        .iter()
        .filter(|x| under(x) && !x.is_read())
        .filter_map(|x| Some((x, key_of(&prefix, &tails, &x.segments)?)))
        .collect();
    let answer_key = |x: &Exchange| {
        object(x.answer.as_ref())
            .and_then(|a| a.get(&key_member))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let rename_member = writes.iter().find_map(|(x, k)| {
        let ak = answer_key(x).filter(|_| x.method == "PATCH" && x.is_2xx())?;
        object(x.body.as_ref())?
            .iter()
            .find(|(_, v)| v.as_str() == Some(&ak) && ak != *k)
            .map(|(m, _)| m.clone())
    });
    let type_of = |x: &Exchange| {
        object(x.body.as_ref())
            .and_then(|b| b.get(&type_member))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let mut untitled: Vec<Untitled> = Vec::new();
    let mut templates: BTreeMap<String, Map<String, Value>> = BTreeMap::new();
    let mut created_types: BTreeSet<String> = BTreeSet::new();
    for (x, k) in &writes {
        let Some(ak) = answer_key(x).filter(|_| x.is_2xx()) else {
            continue;
        };
        let a = object(x.answer.as_ref())?;
        // A created entity describes a new one best (a replaced one
        // carries its old members).
        if let Some(t) = a.get(&type_member).and_then(Value::as_str) {
            if x.status == 201 || !templates.contains_key(t) {
                if x.status == 201 && created_types.insert(t.to_string()) {
                    templates.insert(t.to_string(), a.clone());
                } else {
                    templates.entry(t.to_string()).or_insert_with(|| a.clone());
                }
            }
        }
        if x.method != "POST" || parent_of(&ak) != Some(k.as_str()) {
            continue;
        }
        let Some(t) = type_of(x).or_else(|| a.get(&type_member)?.as_str().map(str::to_string))
        else {
            continue;
        };
        if untitled.iter().any(|u| u.type_value == t) {
            continue;
        }
        let name = last_segment(&ak);
        let sent_ext = object(x.body.as_ref()).and_then(|b| {
            b.iter().find_map(|(m, v)| {
                let e = v.as_str()?;
                (e.starts_with('.') && name.ends_with(e)).then(|| (m.clone(), e.to_string()))
            })
        });
        let (ext, ext_member) = match sent_ext {
            Some((m, e)) => (e, Some(m)),
            None => (extension(&ak).unwrap_or("").to_string(), None),
        };
        let stem = name[..name.len() - ext.len()].trim_end_matches(|c: char| c.is_ascii_digit());
        untitled.push(Untitled {
            type_value: t,
            stem: stem.to_string(),
            ext,
            ext_member,
        });
    }
    let status_of_put = |created: bool| {
        let mut known: BTreeSet<&str> = listed.keys().map(String::as_str).collect();
        known.extend(gets.iter().map(|(_, k, _)| k.as_str()));
        writes
            .iter()
            .filter(|(x, _)| x.method == "PUT" && x.is_2xx())
            .find(|(x, k)| (x.status == 201) == created || known.contains(k.as_str()) != created)
            .map(|(x, _)| x.status)
    };
    let created_status = status_of_put(true).unwrap_or(201);
    let replaced_status = status_of_put(false).unwrap_or(200);
    // 11. answers quoting a key: absent (the request's), exists (the target).
    let mut absent = BTreeMap::new();
    let mut exists = None;
    for (x, k) in exchanges
        .iter()
        .filter(|x| under(x) && x.status >= 400)
        .filter_map(|x| Some((x, key_of(&prefix, &tails, &x.segments)?)))
    {
        let target = match (x.status, &rename_member) {
            (409, Some(r)) => object(x.body.as_ref())
                .and_then(|b| b.get(r))
                .and_then(Value::as_str)
                .map(str::to_string),
            _ => None,
        };
        let quoted = target.as_deref().unwrap_or(&k);
        let Some(q) = quoting(x, quoted) else {
            continue;
        };
        if target.is_some() {
            exists.get_or_insert(q);
        } else if x.status == 404 {
            absent.entry(x.method.clone()).or_insert(q);
        }
    }
    let copies = tails.iter().find_map(|t| copies_of(exchanges, &prefix, t));
    let content_type = gets
        .iter()
        .find_map(|(x, _, _)| x.response_header("content-type"))
        .unwrap_or("application/json")
        .to_string();
    let mut tree = TreeStore {
        prefix: super::exchange::join(&prefix),
        key_member,
        name_member,
        children_member,
        type_member,
        container_type,
        detail_members,
        container_detail,
        tails,
        copies,
        omit_details,
        size_of,
        by_extension,
        rename_member,
        untitled,
        templates,
        absent,
        exists,
        created_status,
        replaced_status,
        content_type,
        evidence: BTreeMap::new(),
    };
    tree.evidence = replay::evidence(&tree, exchanges);
    Some(tree)
}

fn full_reads(gets: &[(&Exchange, String, &Map<String, Value>)], detail: &[String]) -> Option<()> {
    gets.iter()
        .any(|(_, _, a)| {
            detail
                .iter()
                .any(|d| a.get(d).is_some_and(|v| !v.is_null()))
        })
        .then_some(())
}

/// The recorded answer `x` as text around `key` (with or without a leading `/`).
fn quoting(x: &Exchange, key: &str) -> Option<Quoting> {
    let text = x.answer_text.as_deref()?;
    let (slash, at) = match text.find(&format!("/{key}")) {
        Some(i) if !key.is_empty() => (true, i),
        _ => (false, text.find(key).filter(|_| !key.is_empty())?),
    };
    let len = key.len() + usize::from(slash);
    Some(Quoting {
        status: x.status,
        content_type: x
            .response_header("content-type")
            .unwrap_or("application/json")
            .to_string(),
        before: text[..at].to_string(),
        after: text[at + len..].to_string(),
        slash,
        json: x.answer.is_some(),
    })
}

/// The saved-copy sub-resource under tail `t`: a recorded `POST {key}/{t}`
/// answering an object with a string id, and a recorded `POST {key}/{t}/{id}`.
fn copies_of(exchanges: &[Exchange], prefix: &[String], t: &str) -> Option<Copies> {
    let below = |x: &Exchange| -> Option<Vec<String>> {
        if x.segments.len() <= prefix.len() || x.segments[..prefix.len()] != *prefix {
            return None;
        }
        let rest = &x.segments[prefix.len()..];
        let at = rest.iter().position(|s| s == t)?;
        (at > 0).then(|| rest[at + 1..].to_vec())
    };
    let made = exchanges
        .iter()
        .find(|x| x.method == "POST" && x.is_2xx() && below(x).is_some_and(|b| b.is_empty()))?;
    let answer = object(made.answer.as_ref())?.clone();
    let (id_member, id) = answer.iter().find_map(|(m, v)| {
        let s = v.as_str()?;
        chrono::DateTime::parse_from_rfc3339(s)
            .is_err()
            .then(|| (m.clone(), s.to_string()))
    })?;
    let at_id = |x: &Exchange| below(x).is_some_and(|b| b.len() == 1 && b[0] == id);
    let restored = exchanges
        .iter()
        .find(|x| x.method == "POST" && x.is_2xx() && at_id(x))?;
    let deleted_status = exchanges
        .iter()
        .find(|x| x.method == "DELETE" && x.is_2xx() && at_id(x))
        .map_or(restored.status, |x| x.status);
    Some(Copies {
        tail: t.to_string(),
        id_member,
        id,
        answer,
        created_status: made.status,
        restored_status: restored.status,
        deleted_status,
    })
}
