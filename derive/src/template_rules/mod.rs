//! The five opt-in template rules of the environment manifest and the
//! route model they rewrite. Rules always run in their fixed order:
//! `after-uid-literal`, `opaque-token`, `sibling-pair-variance`,
//! `sibling-variance`, `prefix-variance`.
//!
//! - `words`: stop words, `v1`-style versions, plural → singular.
//! - `route`: a tool's route (segments with observed values) and merging.
//! - `segment`: the two per-segment rules.
//! - `sibling`: the two sibling-comparison rules.
//! - `prefix`: `prefix-variance`.

pub(crate) mod prefix;
pub(crate) mod route;
pub(crate) mod segment;
pub(crate) mod sibling;
pub(crate) mod words;

use crate::error::DeriveError;
pub(crate) use route::{Route, TSeg};

/// The longest route the comparison rules look at.
pub(crate) const MAX_COMPARED_SEGMENTS: usize = 32;

/// One opt-in template rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TemplateRule {
    AfterUidLiteral,
    OpaqueToken,
    SiblingPairVariance,
    SiblingVariance,
    PrefixVariance,
}

impl TemplateRule {
    /// Every rule, in application order.
    pub const ALL: [TemplateRule; 5] = [
        TemplateRule::AfterUidLiteral,
        TemplateRule::OpaqueToken,
        TemplateRule::SiblingPairVariance,
        TemplateRule::SiblingVariance,
        TemplateRule::PrefixVariance,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TemplateRule::AfterUidLiteral => "after-uid-literal",
            TemplateRule::OpaqueToken => "opaque-token",
            TemplateRule::SiblingPairVariance => "sibling-pair-variance",
            TemplateRule::SiblingVariance => "sibling-variance",
            TemplateRule::PrefixVariance => "prefix-variance",
        }
    }

    pub fn from_name(name: &str) -> Option<TemplateRule> {
        TemplateRule::ALL.into_iter().find(|r| r.name() == name)
    }

    /// Parses a listed set of rules: unknown or repeated names are an
    /// `invalid_request`; the result is in application order.
    pub fn parse_list(names: &[&str]) -> Result<Vec<TemplateRule>, DeriveError> {
        let mut rules = Vec::with_capacity(names.len());
        for (i, name) in names.iter().enumerate() {
            let pointer = format!("/template_rules/{i}");
            let rule = TemplateRule::from_name(name).ok_or_else(|| {
                DeriveError::invalid_request(&pointer, format!("unknown template rule `{name}`"))
            })?;
            if rules.contains(&rule) {
                return Err(DeriveError::invalid_request(
                    &pointer,
                    format!("template rule `{name}` is listed twice"),
                ));
            }
            rules.push(rule);
        }
        rules.sort();
        Ok(rules)
    }

    /// Rank of a parameter rule label, for "the earliest parameter" ties.
    pub(crate) fn rank_of_label(label: &str) -> usize {
        TemplateRule::ALL
            .iter()
            .position(|r| r.name() == label)
            .unwrap_or(TemplateRule::ALL.len())
    }
}

/// Applies the listed rules (already in application order) to the routes.
/// Returns the rewritten routes and whether a comparison rule skipped a
/// route longer than [`MAX_COMPARED_SEGMENTS`].
pub(crate) fn apply(mut routes: Vec<Route>, rules: &[TemplateRule]) -> (Vec<Route>, bool) {
    let mut skipped_long = false;
    for rule in rules {
        match rule {
            TemplateRule::AfterUidLiteral => segment::after_uid_literal(&mut routes),
            TemplateRule::OpaqueToken => segment::opaque_token(&mut routes),
            TemplateRule::SiblingPairVariance => sibling::pair_variance(&mut routes),
            TemplateRule::SiblingVariance => sibling::variance(&mut routes),
            TemplateRule::PrefixVariance => prefix::variance(&mut routes),
        }
        if matches!(
            rule,
            TemplateRule::SiblingPairVariance
                | TemplateRule::SiblingVariance
                | TemplateRule::PrefixVariance
        ) {
            skipped_long |= routes.iter().any(|r| r.segs.len() > MAX_COMPARED_SEGMENTS);
        }
        routes = route::merge_equal(routes);
    }
    (routes, skipped_long)
}
