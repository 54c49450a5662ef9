//! A text member with two forms that another member's value decides: the
//! `link` spelled from the entity's slug under the status values every
//! recorded entity showing it had (`publish`), and spelled from its key
//! (`…/?p={id}`) under the value a soft delete set (`trash`, as the
//! recorded soft delete's answer showed). Under a status value the
//! recording never showed, the key form is taken (it needs nothing but the
//! key; a convention), and at a create the members that copy the link (a
//! `guid` fixed at creation) copy that form; after the create they keep
//! their value (the soft delete changed the link, not the guid).

use super::exchange::{list_of, Exchange};
use super::resources::Resource;
use super::routes::Templates;
use super::snapshots::{entity_ref, target_of, EntityKey};
use super::writes::WriteSemantics;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// One member's two forms.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StatusForm {
    pub resource: usize,
    /// The member whose value decides the form (`status`).
    pub decider: String,
    /// The text member with two forms (`link`).
    pub member: String,
    /// The member whose text the slug form holds (`slug`).
    pub slug_member: String,
    /// Decider values of every entity showing the slug form.
    pub slug_values: BTreeSet<String>,
    /// The slug form with the slug as `{slug}`, when every such entity spells it alike.
    pub slug_template: Option<String>,
    /// The key form with the key as `{id}` (from the soft delete).
    pub key_template: String,
    /// The decider value the soft delete set with the key form.
    pub key_value: String,
    /// The soft delete's records (the key form and its value).
    pub soft_delete: Vec<u64>,
}

/// Infers the two-form members from the soft deletes' recorded changes
/// and the entities the recording showed.
pub(crate) fn infer(
    writes: &[WriteSemantics],
    resources: &[Resource],
    initial: &BTreeMap<EntityKey, Map<String, Value>>,
) -> Vec<StatusForm> {
    let mut out = Vec::new();
    for w in writes {
        let Some(d) = w.delete.as_ref().filter(|d| d.soft) else {
            continue;
        };
        let Some(ri) = resources
            .iter()
            .position(|r| r.collection == w.collection && r.addressing == "path")
        else {
            continue;
        };
        let deciders: Vec<(&String, &str)> = d
            .soft_sets
            .iter()
            .filter_map(|(m, how)| Some((m, how.get("value")?.as_str()?)))
            .collect();
        let [(decider, key_value)] = deciders.as_slice() else {
            continue;
        };
        for (member, how) in &d.soft_sets {
            let Some(key_template) = how
                .get("template")
                .and_then(Value::as_str)
                .filter(|t| t.contains("{id}"))
            else {
                continue;
            };
            let entities: Vec<&Map<String, Value>> = initial
                .iter()
                .filter(|(k, e)| k.0 == ri && e.get(member).is_some_and(Value::is_string))
                .map(|(_, e)| e)
                .collect();
            if entities.len() < 2 {
                continue;
            }
            // The slug: a text member every entity's text holds.
            let text = |e: &Map<String, Value>, m: &str| {
                e.get(m).and_then(Value::as_str).map(str::to_string)
            };
            let slug_member = entities[0].keys().find(|s| {
                *s != member
                    && entities
                        .iter()
                        .all(|e| match (text(e, s), text(e, member)) {
                            (Some(sv), Some(mv)) => sv.len() >= 3 && mv.contains(&sv),
                            _ => false,
                        })
            });
            let Some(slug_member) = slug_member.cloned() else {
                continue;
            };
            let slug_values: BTreeSet<String> =
                entities.iter().filter_map(|e| text(e, decider)).collect();
            if slug_values.is_empty() || slug_values.contains(*key_value) {
                continue;
            }
            let templates: BTreeSet<String> = entities
                .iter()
                .filter_map(|e| {
                    let s = text(e, &slug_member)?;
                    Some(text(e, member)?.replacen(&s, "{slug}", 1))
                })
                .collect();
            out.push(StatusForm {
                resource: ri,
                decider: (*decider).clone(),
                member: member.clone(),
                slug_member,
                slug_values,
                slug_template: if templates.len() == 1 {
                    templates.into_iter().next()
                } else {
                    None
                },
                key_template: key_template.to_string(),
                key_value: (*key_value).to_string(),
                soft_delete: w.supported_by.clone(),
            });
        }
    }
    out
}

/// Gives a created or updated entity the form its decider value calls
/// for. True when a value the recording never showed decided (a convention).
pub(crate) fn apply(
    forms: &[StatusForm],
    resource: usize,
    id: &str,
    e: &mut Map<String, Value>,
    at_create: bool,
) -> bool {
    let mut convention = false;
    for f in forms.iter().filter(|f| f.resource == resource) {
        let (Some(d), Some(current)) = (
            e.get(&f.decider)
                .and_then(Value::as_str)
                .map(str::to_string),
            e.get(&f.member).and_then(Value::as_str).map(str::to_string),
        ) else {
            continue;
        };
        let slug = e
            .get(&f.slug_member)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let keyed = f.key_template.replace("{id}", id);
        let next = if f.slug_values.contains(&d) {
            match &f.slug_template {
                Some(t) if current == keyed && !slug.is_empty() => t.replace("{slug}", &slug),
                _ => continue,
            }
        } else if d == f.key_value {
            continue;
        } else {
            convention = true;
            keyed
        };
        if next == current {
            continue;
        }
        if at_create {
            // Members copying the member at creation copy the new form.
            for v in e.values_mut() {
                match v {
                    Value::String(s) if *s == current => *s = next.clone(),
                    Value::Object(o) => o
                        .values_mut()
                        .filter(|x| x.as_str() == Some(current.as_str()))
                        .for_each(|x| *x = Value::String(next.clone())),
                    _ => {}
                }
            }
        }
        e.insert(f.member.clone(), Value::String(next));
    }
    convention
}

/// One two-form member as the model document names it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatusFormDoc {
    /// The resource's collection template.
    pub resource: String,
    /// The text member with two forms (`link`).
    pub member: String,
    /// The member whose value decides the form (`status`).
    pub decider: String,
    /// The member whose text the slug form holds (`slug`).
    pub slug_member: String,
    /// Decider values under which every recorded entity showed the slug form.
    pub slug_values: Vec<String>,
    /// The slug form with the slug as `{slug}`, when every entity spelled it alike.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slug_template: Option<String>,
    /// The key form with the key as `{id}`, from the soft delete's answer.
    pub key_template: String,
    /// The decider value the soft delete set with the key form.
    pub key_value: String,
    /// The soft delete and the recorded entities showing the form their decider value calls for.
    pub supported_by: Vec<u64>,
    /// Every recorded 2xx answer showing an entity of the resource with both members.
    pub checked_against: Vec<u64>,
    /// Records whose entity showed a form its decider value does not call for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contradicted_by: Vec<u64>,
    /// What the recording cannot tell and the model takes by convention.
    pub conventions: Vec<String>,
}

fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The status forms section of the model document: each form with the
/// recorded answers it was checked against.
pub(crate) fn document(
    forms: &[StatusForm],
    resources: &[Resource],
    exchanges: &[Exchange],
    templates: &Templates,
) -> Vec<StatusFormDoc> {
    let mut out = Vec::new();
    for f in forms {
        let Some(r) = resources.get(f.resource) else {
            continue;
        };
        let key = r
            .keys
            .first()
            .map(|k| k.entity_member.clone())
            .unwrap_or_else(|| "/id".into());
        let mut supported: BTreeSet<u64> = f.soft_delete.iter().copied().collect();
        let mut checked: BTreeSet<u64> = supported.clone();
        let mut contradicted: BTreeSet<u64> = BTreeSet::new();
        for x in exchanges.iter().filter(|x| x.is_2xx()) {
            let Some(answer) = &x.answer else { continue };
            if target_of(x, resources, templates).is_none_or(|t| t.resource != f.resource) {
                continue;
            }
            let mut entities: Vec<&Map<String, Value>> = Vec::new();
            if let Some(e) = entity_ref(answer, r) {
                entities.push(e);
            } else if let Some((_, items)) = list_of(answer) {
                entities.extend(items.iter().filter_map(Value::as_object));
            }
            for e in entities {
                let (Some(d), Some(m)) = (
                    e.get(&f.decider).and_then(Value::as_str),
                    e.get(&f.member).and_then(Value::as_str),
                ) else {
                    continue;
                };
                checked.insert(x.ordinal);
                let slug = e.get(&f.slug_member).and_then(Value::as_str);
                let id = Value::Object(e.clone())
                    .pointer(&key)
                    .and_then(text_of)
                    .unwrap_or_default();
                let fits = if f.slug_values.contains(d) {
                    match (&f.slug_template, slug) {
                        (Some(t), Some(s)) => m == t.replace("{slug}", s),
                        (None, Some(s)) => !s.is_empty() && m.contains(s),
                        _ => false,
                    }
                } else if d == f.key_value {
                    m == f.key_template.replace("{id}", &id)
                } else {
                    // A value with no form of its own: neither confirms nor contradicts.
                    continue;
                };
                if fits {
                    supported.insert(x.ordinal);
                } else {
                    contradicted.insert(x.ordinal);
                }
            }
        }
        out.push(StatusFormDoc {
            resource: r.collection.clone(),
            member: f.member.clone(),
            decider: f.decider.clone(),
            slug_member: f.slug_member.clone(),
            slug_values: f.slug_values.iter().cloned().collect(),
            slug_template: f.slug_template.clone(),
            key_template: f.key_template.clone(),
            key_value: f.key_value.clone(),
            supported_by: supported.into_iter().collect(),
            checked_against: checked.into_iter().collect(),
            contradicted_by: contradicted.into_iter().collect(),
            conventions: vec![format!(
                "a `{}` value the recording never showed takes the key form; at a create the members copying `{}` take that form and keep it",
                f.decider, f.member
            )],
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::serving::serving_model;
    use crate::testkit::fixture;

    #[test]
    fn wordpress_links_follow_the_status_and_guids_keep_the_creation_form() {
        let s = serving_model(&fixture("wordpress/dev-a.har")).unwrap();
        let forms = s.status_forms();
        // `permalink_template` (also respelled) is no member the reads show.
        assert_eq!(forms.len(), 1, "{forms:?}");
        let link = forms.iter().find(|f| f.member == "link").expect("link");
        assert_eq!(
            s.model.resources[link.resource].collection,
            "/wp-json/wp/v2/posts"
        );
        assert_eq!(link.decider, "status");
        assert_eq!(link.slug_member, "slug");
        assert_eq!(link.slug_values, BTreeSet::from(["publish".to_string()]));
        assert_eq!(link.key_value, "trash");
        assert_eq!(link.key_template, "http://127.0.0.1:51051/?p={id}");
        assert_eq!(
            link.slug_template.as_deref(),
            Some("http://127.0.0.1:51051/{slug}/")
        );
        // A draft create: the key form, copied by the guid; published
        // later, the link takes the slug form and the guid keeps its own.
        let mut e: Map<String, Value> = serde_json::from_value(serde_json::json!({
            "id": 29, "status": "draft", "slug": "sourcing-trip",
            "link": "http://127.0.0.1:51051/sourcing-trip/",
            "guid": {"rendered": "http://127.0.0.1:51051/sourcing-trip/",
                     "raw": "http://127.0.0.1:51051/sourcing-trip/"}
        }))
        .unwrap();
        let only_link = [link.clone()];
        assert!(apply(&only_link, link.resource, "29", &mut e, true));
        assert_eq!(e["link"], "http://127.0.0.1:51051/?p=29");
        assert_eq!(e["guid"]["raw"], "http://127.0.0.1:51051/?p=29");
        e.insert("status".into(), "publish".into());
        assert!(!apply(&only_link, link.resource, "29", &mut e, false));
        assert_eq!(e["link"], "http://127.0.0.1:51051/sourcing-trip/");
        assert_eq!(e["guid"]["rendered"], "http://127.0.0.1:51051/?p=29");
    }

    #[test]
    fn apps_without_a_soft_delete_that_respells_a_member_have_none() {
        for capture in [
            "kinto/dev-a.har",
            "mlflow/dev-a.har",
            "redmine/dev-a.har",
            "drf/dev-a.har",
            "jsonserver/dev-a.har",
            "couch/dev-a.har",
        ] {
            let s = serving_model(&fixture(capture)).unwrap();
            assert!(s.status_forms().is_empty(), "{capture}");
        }
    }
}
