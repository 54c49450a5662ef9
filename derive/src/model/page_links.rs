//! The page-link hypothesis of a list's next member: the app answers each
//! page with the absolute URL of the next one (and, in a previous member,
//! of the one before) — the request's own URL with a page-number parameter
//! set (`?page=3`), its query pairs sorted by name or in the request's
//! order, page 1 with or without the parameter, `null` at the ends or the
//! member left out. Kept only when the link `rea_engine::lists::page_links`
//! spells reproduces every recorded link of the endpoint exactly (origin
//! aside, which is taken from the recording); otherwise the endpoint keeps
//! rea's own cursor.

use super::lists::instances::Instance;
use rea_engine::lists::page_links::{link, pairs, PageLink};
use rea_engine::lists::semantics::TokenFormat;
use serde_json::Value;

/// The recorded link's origin and its path with the query.
fn split_url(url: &str) -> Option<(&str, &str)> {
    let scheme_end = url.find("://")? + 3;
    let path_start = url[scheme_end..].find('/').map(|i| scheme_end + i)?;
    Some((&url[..path_start], &url[path_start..]))
}

/// The page an instance asked for: its value of `param`, else 1.
fn asked_page(inst: &Instance, param: &str) -> Option<usize> {
    match pairs(inst.query.as_deref())
        .iter()
        .find(|(k, _)| k == param)
    {
        Some((_, v)) => v.parse().ok(),
        None => Some(1),
    }
}

/// The names a recorded next link sets to the asked page plus one.
fn page_params(inst: &Instance, url: &str) -> Vec<String> {
    let Some((_, rest)) = split_url(url) else {
        return Vec::new();
    };
    let query = rest.split_once('?').map(|(_, q)| q);
    pairs(query)
        .into_iter()
        .filter(|(k, v)| {
            let n: Option<usize> = v.parse().ok();
            n.is_some() && asked_page(inst, k).map(|p| p + 1) == n
        })
        .map(|(k, _)| k)
        .collect()
}

/// The string value of `member` in an instance's answer, `Some(None)` for
/// a recorded `null`, `None` when the member is absent.
fn member<'a>(inst: &'a Instance, m: &str) -> Option<Option<&'a str>> {
    let v = inst.body.get(m)?;
    match v {
        Value::Null => Some(None),
        Value::String(s) => Some(Some(s)),
        _ => None,
    }
}

/// The page-link format of an endpoint whose next member is `next`, when
/// every recorded link fits one spelling; `None` otherwise.
pub(crate) fn format_of(instances: &[&Instance], next: &str) -> Option<TokenFormat> {
    let linked: Vec<(&Instance, &str)> = instances
        .iter()
        .filter_map(|i| Some((*i, member(i, next)??)))
        .collect();
    let (first, first_url) = linked.first()?;
    let (origin, _) = split_url(first_url)?;
    let params: Vec<String> = page_params(first, first_url)
        .into_iter()
        .filter(|p| linked.iter().all(|(i, u)| page_params(i, u).contains(p)))
        .collect();
    let param = params.first()?.clone();
    let null_at_end = instances.iter().any(|i| member(i, next) == Some(None));
    let fits = |spec: &PageLink, inst: &Instance, url: &str, page: usize| {
        link(spec, &inst.path, &pairs(inst.query.as_deref()), page) == url
    };
    // The request's order first (the simpler spelling), then sorted.
    let fitting: Vec<PageLink> = [false, true]
        .into_iter()
        .map(|sorted| PageLink {
            origin: origin.to_string(),
            param: param.clone(),
            sorted,
            order_basis: "recorded".into(),
            previous: None,
            first_bare: false,
            null_at_end,
        })
        .filter(|spec| {
            linked
                .iter()
                .all(|(i, u)| asked_page(i, &param).is_some_and(|p| fits(spec, i, u, p + 1)))
        })
        .collect();
    let mut spec = fitting.first()?.clone();
    if fitting.len() > 1 {
        spec.order_basis = "either".into();
    }
    spec.previous = previous_member(instances, next, &spec);
    if let Some(p) = spec.previous.clone() {
        spec.first_bare = instances.iter().any(|i| {
            asked_page(i, &param) == Some(2)
                && member(i, &p).flatten().is_some_and(|u| {
                    let bare = PageLink {
                        first_bare: true,
                        ..spec.clone()
                    };
                    fits(&bare, i, u, 1)
                })
        });
    }
    Some(TokenFormat::PageLink(spec))
}

/// The member naming the previous page (`previous`, `prev`, …): every
/// recorded value is that page's link (page 1 bare or not), `null` exactly
/// on first pages.
fn previous_member(instances: &[&Instance], next: &str, spec: &PageLink) -> Option<String> {
    let mut names: Vec<&String> = instances
        .iter()
        .filter_map(|i| i.body.as_object())
        .flat_map(|o| o.keys())
        .filter(|k| k.as_str() != next && k.to_ascii_lowercase().contains("prev"))
        .collect();
    names.sort();
    names.dedup();
    names.into_iter().find_map(|name| {
        let mut linked = false;
        let all = instances.iter().all(|i| {
            let Some(page) = asked_page(i, &spec.param) else {
                return false;
            };
            match member(i, name) {
                None => !spec.null_at_end && page == 1,
                Some(None) => page == 1,
                Some(Some(url)) => {
                    linked = true;
                    let q = pairs(i.query.as_deref());
                    page > 1
                        && [false, true].iter().any(|bare| {
                            let s = PageLink {
                                first_bare: *bare,
                                ..spec.clone()
                            };
                            link(&s, &i.path, &q, page - 1) == url
                        })
                }
            }
        });
        (all && linked).then(|| name.clone())
    })
}

/// An endpoint whose recorded links fit both query orders takes the order
/// another list endpoint of the app's recording decided (`order_basis:
/// "sibling"`), when the deciding endpoints agree.
pub(crate) fn adopt_sibling_order(endpoints: &mut [super::lists::EndpointSemantics]) {
    let link_of = |e: &super::lists::EndpointSemantics| match &e.spelling.token {
        Some(TokenFormat::PageLink(p)) => Some(p.clone()),
        _ => None,
    };
    let decided: Vec<bool> = endpoints
        .iter()
        .filter_map(link_of)
        .filter(|p| p.order_basis == "recorded")
        .map(|p| p.sorted)
        .collect();
    let Some(&sorted) = decided.first() else {
        return;
    };
    if decided.iter().any(|s| *s != sorted) {
        return;
    }
    for e in endpoints.iter_mut() {
        if let Some(TokenFormat::PageLink(p)) = &mut e.spelling.token {
            if p.order_basis == "either" {
                p.sorted = sorted;
                p.order_basis = "sibling".into();
            }
        }
    }
}
