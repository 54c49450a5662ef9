//! The `PATCH` meaning of each route, decided once at start-up: which
//! routes' updates are served as RFC 7396 merge patches
//! (`ServingModel::merges_patch`) and, of those, which store a sent `null`
//! (`ServingModel::stores_sent_null`). A request then costs one pass over
//! its path (its route, built in one string) and a hash lookup, with the
//! same answer as the two per-request decisions.

use super::ServingModel;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::HashMap;

/// The routes whose `PATCH` merges, each with whether a sent `null` is
/// stored there (then the call is stored as sent instead).
#[derive(Debug, Clone, Default)]
pub struct PatchRoutes {
    merging: HashMap<String, bool>,
}

impl ServingModel {
    /// The `PATCH` decisions of every route the model holds a write for.
    pub fn patch_routes(&self) -> PatchRoutes {
        let mut merging = HashMap::new();
        for w in self.model.writes.iter().filter(|w| w.method == "PATCH") {
            if merging.contains_key(&w.route) {
                continue;
            }
            // `write_of` picks the route's first write, as the decisions do.
            let Some(first) = self.write_of("PATCH", &w.route) else {
                continue;
            };
            if self.merging_update(first) {
                merging.insert(w.route.clone(), crate::model::nulls::stores(first));
            }
        }
        // A resource's routes with no `PATCH` of their own answer the one a sibling
        // lends them (`write_answering`); a sent `null` is stored only by a
        // route's own write (`stores_sent_null`).
        for r in &self.model.resources {
            if !self
                .lent_write_of("PATCH", r)
                .is_some_and(|w| self.merging_update(w))
            {
                continue;
            }
            for route in r.item.iter().chain([&r.collection]) {
                if !merging.contains_key(route) && self.write_of("PATCH", route).is_none() {
                    merging.insert(route.clone(), false);
                }
            }
        }
        PatchRoutes { merging }
    }

    /// `merges_patch`'s reading of the write that answers a route.
    fn merging_update(&self, w: &super::WriteSemantics) -> bool {
        w.role == "update"
            && super::patch_merges(w)
            && self
                .replayed_writes
                .contains(&("PATCH".to_string(), w.route.clone()))
    }

    /// The route of `path` and its parent's (`join(template_of(segments))`
    /// as `resolve` computes them), built in one string, with the segment
    /// count.
    fn route_and_parent(&self, path: &str) -> (String, usize, usize) {
        let mut segments: Vec<Cow<'_, str>> = path
            .split('/')
            .filter(|s| !s.is_empty())
            .map(|s| {
                if s.contains('%') {
                    Cow::Owned(crate::state::writes::input::percent_decode(s))
                } else {
                    Cow::Borrowed(s)
                }
            })
            .collect();
        if let (Some(f), Some(last)) = (&self.model.format_suffix, segments.last_mut()) {
            if last.len() > f.suffix.len() && last.ends_with(&f.suffix) {
                let cut = last.len() - f.suffix.len();
                last.to_mut().truncate(cut);
            }
        }
        let mut route = String::with_capacity(path.len() + 16);
        let mut parent_len = 0;
        let mut base = String::new();
        for seg in &segments {
            let parent = if route.is_empty() { "/" } else { &route };
            let position = self.templates.position_for(parent, seg);
            if let Some(p) = position {
                // The last segment pushed (a decoded one may hold a `/`).
                base.clear();
                base.push_str(if route.is_empty() {
                    "root"
                } else {
                    route[parent_len + 1..].trim_matches(|c| c == '{' || c == '}')
                });
                parent_len = route.len();
                route.push('/');
                route.push_str(&p.shape.prefix);
                route.push('{');
                push_param_base(&mut route, &base);
                route.push_str("_id}");
                route.push_str(&p.shape.suffix);
            } else {
                parent_len = route.len();
                route.push('/');
                route.push_str(seg);
            }
        }
        if route.is_empty() {
            route.push('/');
        }
        (route, parent_len, segments.len())
    }

    /// True when `resolve` finds a resource for a path of this route.
    fn resolves_route(&self, route: &str, parent_len: usize, n: usize) -> bool {
        let parent = if parent_len == 0 {
            "/"
        } else {
            &route[..parent_len]
        };
        self.model.resources.iter().any(|r| {
            if r.addressing == "path" {
                (r.item.as_deref() == Some(route) && n > 0) || r.collection == route
            } else {
                n > 0 && parent == r.collection
            }
        })
    }
}

/// Appends `routes::param_base(segment)` to `out` without building it
/// apart (the same text).
fn push_param_base(out: &mut String, segment: &str) {
    let start = out.len();
    out.extend(segment.chars().map(|c| {
        if c.is_ascii_alphanumeric() {
            c.to_ascii_lowercase()
        } else {
            '_'
        }
    }));
    let s = &out[start..];
    if s.ends_with("ies") {
        out.truncate(out.len() - 3);
        out.push('y');
    } else if s.ends_with("ses") || s.ends_with("xes") {
        out.truncate(out.len() - 2);
    } else if s.len() > 1 && s.ends_with('s') {
        out.truncate(out.len() - 1);
    }
}

impl PatchRoutes {
    /// True when a `PATCH` of `body` at `path` is served as a merge patch:
    /// `model.merges_patch(path) && !model.stores_sent_null(path, body)`.
    pub fn merges(&self, model: &ServingModel, path: &str, body: Option<&Value>) -> bool {
        if self.merging.is_empty() {
            return false;
        }
        let (route, parent_len, n) = model.route_and_parent(path);
        let Some(stores_null) = self.merging.get(&route) else {
            return false;
        };
        model.resolves_route(&route, parent_len, n)
            && !(*stores_null && body.is_some_and(crate::model::nulls::sends_null))
    }
}

#[cfg(test)]
mod tests {
    use crate::model::serving::serving_model;
    use crate::testkit::fixture;
    use serde_json::json;

    /// `push_param_base` writes `param_base`'s text.
    #[test]
    fn param_base_is_pushed_the_same() {
        for seg in [
            "",
            "s",
            "ies",
            "ses",
            "xes",
            "records",
            "Categories",
            "boxes",
            "buses",
            "bucket",
            "a-b.c",
            "Été",
            "ID_s",
            "ss",
            "x",
            "{records}",
            "%2F",
        ] {
            let mut out = String::from("/pre");
            super::push_param_base(&mut out, seg);
            assert_eq!(&out[4..], crate::model::routes::param_base(seg), "{seg:?}");
        }
    }

    /// The start-up decision equals the two per-request decisions on every
    /// recorded path (and its variants) of captures of several apps.
    #[test]
    fn the_startup_decision_is_the_per_request_one() {
        let bodies = [
            None,
            Some(json!({"a": 1})),
            Some(json!({"a": null})),
            Some(json!({"data": {"a": null}})),
        ];
        let mut merging_seen = 0;
        for capture in [
            "kinto/dev-a.har",
            "jsonserver/dev-a.har",
            "drf/dev-a.har",
            "redmine/dev-a.har",
            "wordpress/dev-a.har",
            "mlflow/dev-a.har",
            "couch/dev-a.har",
        ] {
            let evidence = fixture(capture);
            let s = serving_model(&evidence).unwrap();
            let routes = s.patch_routes();
            let mut paths: Vec<String> = evidence["records"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|r| r["reported"]["request"]["url"].as_str())
                .filter_map(|u| {
                    let rest = u.split_once("://")?.1;
                    let path = &rest[rest.find('/')?..];
                    Some(path.split('?').next().unwrap_or(path).to_string())
                })
                .collect();
            let variants: Vec<String> = paths
                .iter()
                .flat_map(|p| {
                    [
                        format!("{p}/"),
                        format!("{p}.json"),
                        format!("{p}/x%2Fy"),
                        format!("{p}/12345"),
                        p.replace('a', "%61"),
                    ]
                })
                .collect();
            paths.extend(variants);
            paths.extend(["/".to_string(), String::new()]);
            assert!(paths.len() > 20, "{capture}: paths");
            for p in &paths {
                for b in &bodies {
                    let want = s.merges_patch(p) && !s.stores_sent_null(p, b.as_ref());
                    assert_eq!(
                        routes.merges(&s, p, b.as_ref()),
                        want,
                        "{capture} {p} {b:?}"
                    );
                    merging_seen += usize::from(want);
                }
            }
        }
        assert!(merging_seen > 0, "some recorded route merges");
    }
}
