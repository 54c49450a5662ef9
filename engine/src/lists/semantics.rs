//! The list-semantics document: per list endpoint, what each recorded
//! parameter means, the defaults, how the app spells totals and next pages,
//! and the evidence (the recorded instances each inference was checked on).

use crate::lists::fields::{Collation, FieldPath};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Every list endpoint of a capture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListSemantics {
    /// Always `"list-semantics"`.
    pub view: String,
    pub endpoints: Vec<EndpointSemantics>,
}

/// Where an endpoint's parameters come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Carrier {
    /// The URL query string.
    Query,
    /// The members of a JSON request body (a search `POST`).
    Body,
}

/// A filter operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Op {
    Eq,
    Ne,
    Gt,
    Gte,
    Lt,
    Lte,
    /// The field's text matches the value read as a regular expression, in
    /// any case (`title_like=^how`); a value that is no valid pattern, or a
    /// longer one than `lists::eval::LIKE_PATTERN_MAX`, is matched as a
    /// literal text the field contains.
    Like,
}

/// Which members a search looks in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SearchScope {
    /// Every text, at any depth (nested objects and arrays too).
    #[default]
    Deep,
    /// The item's own text members only (not those of nested objects or
    /// arrays): chosen where it re-renders every recorded search as well
    /// as `deep` does.
    TopLevel,
}

impl SearchScope {
    /// True for the default scope (left out of the document).
    pub fn is_deep(&self) -> bool {
        *self == SearchScope::Deep
    }
}

/// What one parameter does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Meaning {
    /// At most that many entities per page.
    PageSize,
    /// The page number (first page 1), with the page size.
    PageNumber,
    /// Skip that many entities.
    Offset,
    /// The end (exclusive) of the slice that starts at the offset
    /// (`_start=5&_end=10`).
    End,
    /// A continuation token from an earlier answer.
    Cursor,
    /// Sort keys (`-f`, `f:desc`, `f DESC`, comma lists or arrays).
    Sort,
    /// The direction (`asc`/`desc`) of the sort keys given by `sort_param`.
    Direction { sort_param: String },
    /// Keep entities whose field compares with the value by `op`; comma
    /// lists and repeated names mean any of the values.
    Filter { field: FieldPath, op: Op },
    /// Show only the named members (comma list).
    Fields,
    /// Keep entities where some text member in `scope` contains the value
    /// (any case).
    Search {
        #[serde(default, skip_serializing_if = "SearchScope::is_deep")]
        scope: SearchScope,
    },
    /// A filter expression (`a = 'x' AND b > 1`, `LIKE`).
    FilterLanguage,
    /// Keep entities whose field compares with the value by the operator
    /// the value spells before it: `eq.x`, `neq.x`, `gt.5`, `gte.5`,
    /// `lt.5`, `lte.5`, `in.(a,b)`, `not.` before any of them negates.
    ValueOperators { field: FieldPath },
    /// A lifecycle-style selector (`DELETED_ONLY`, `active`): keep
    /// entities whose text `field` equals, in any case, one of the words
    /// of the value; a value of the words `all`, `any` or `both` keeps
    /// every entity.
    Selector { field: FieldPath },
    /// The answer's shape: the listed items alone (a bare array) when the
    /// value is one of `values`, else the default envelope (`lists::shape`).
    BareItems { values: Vec<String> },
    /// Sort keys, each descending (a parameter of its own beside the
    /// ascending one: `_sort_desc=price`).
    SortDescending,
    /// Show only the named members and the identity (`_col=title`).
    Columns,
    /// Show every member but the named ones (`_nocol=description`).
    OmitFields,
}

impl Meaning {
    /// The kind tag, as serialized.
    pub fn kind(&self) -> &'static str {
        match self {
            Meaning::PageSize => "page-size",
            Meaning::PageNumber => "page-number",
            Meaning::Offset => "offset",
            Meaning::End => "end",
            Meaning::Cursor => "cursor",
            Meaning::Sort => "sort",
            Meaning::Direction { .. } => "direction",
            Meaning::Filter { .. } => "filter",
            Meaning::Fields => "fields",
            Meaning::Search { .. } => "search",
            Meaning::FilterLanguage => "filter-language",
            Meaning::ValueOperators { .. } => "value-operators",
            Meaning::Selector { .. } => "selector",
            Meaning::BareItems { .. } => "bare-items",
            Meaning::SortDescending => "sort-descending",
            Meaning::Columns => "columns",
            Meaning::OmitFields => "omit-fields",
        }
    }
}

/// One parameter's inferred meaning and its evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParamMeaning {
    pub name: String,
    pub meaning: Meaning,
    /// `convention` (from the library of common spellings) or `data` (the
    /// answer equals the World list narrowed on a member of that name).
    pub basis: String,
    /// `kept` when every recorded instance using it re-renders, else
    /// `dropped`; `convention` for a library convention no recorded request
    /// used (served, never confirmed).
    pub status: String,
    /// The values the recording used.
    pub observed: Vec<Value>,
    pub confirmed_by: Vec<u64>,
    pub contradicted_by: Vec<u64>,
}

/// A comparison spelling lent to every member: the family of a spelling
/// some endpoint of the app kept (`views_gte` kept: `score_lte`,
/// `category_ne`, `body_like` are understood too).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LentOperator {
    /// The affix (`_lte`), after the field name (or before it: `prefix`).
    pub affix: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub prefix: bool,
    pub op: Op,
    /// The kept parameter whose spelling family this is (`get_posts views_gte`).
    pub from: String,
}

/// One sort key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SortKey {
    pub field: FieldPath,
    pub descending: bool,
}

/// A filter the endpoint applies when its parameter is absent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DefaultFilter {
    pub param: String,
    pub field: FieldPath,
    pub value: Value,
}

/// How the cursor of a next page is spelled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "format", rename_all = "kebab-case")]
pub enum TokenFormat {
    /// rea's own keyset cursor (stable across writes).
    Own,
    /// The app's base64 JSON offset: `template` is the decoded text with
    /// `{offset}` where the number goes.
    Base64Offset { template: String, padded: bool },
    /// The next member holds the next page's URL (`lists::page_links`):
    /// the request's own, with `param` set to the page number.
    PageLink(crate::lists::page_links::PageLink),
}

/// How a response spells totals and the next page.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Spelling {
    /// A header holding the number of matching entities.
    pub total_header: Option<String>,
    /// A header holding the number of pages.
    pub pages_header: Option<String>,
    /// A header holding the next page's URL (`Next-Page`), or a `Link`
    /// header with `rel="next"`/`rel="prev"` URLs (`link_rel: true`).
    pub next_header: Option<String>,
    pub link_rel: bool,
    /// A body member holding the next page's token.
    pub next_member: Option<String>,
    /// A body member holding the number of matching entities.
    pub total_member: Option<String>,
    pub token: Option<TokenFormat>,
}

/// One recorded instance and whether the kept semantics re-render it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstanceCheck {
    pub ordinal: u64,
    /// `reproduced`, `consistent` (the World is partial for it and agrees
    /// with what it holds), `partial` (the World holds none of its items),
    /// `contradicted`, `not-understood`, `unsettled` (after writes, the
    /// World replayed to that moment gives another answer: neither confirms
    /// nor contradicts), `after-write` (after writes, and the World at that
    /// moment could not be replayed) or
    /// `unchecked` (the same request and answer as an earlier instance, or
    /// beyond the first 64 distinct ones).
    pub verdict: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// One list endpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EndpointSemantics {
    pub tool: String,
    pub method: String,
    pub path_template: String,
    pub carrier: Carrier,
    /// JSON pointer of the listed array (`""` for a root array).
    pub items_pointer: String,
    /// The member identifying an entity, when known.
    pub identity: Option<FieldPath>,
    /// `state` (the environment state's entities) or `answers` (the
    /// distinct items the endpoint's initial answers listed).
    pub universe: String,
    pub collation: Collation,
    pub default_order: Vec<SortKey>,
    /// The reproduced instances that listed without a sort parameter (the
    /// default order's evidence; empty when nothing constrained it).
    pub default_order_evidence: Vec<u64>,
    pub default_page_size: Option<usize>,
    pub default_filters: Vec<DefaultFilter>,
    /// A query name equal to a member name filters on it by equality, also
    /// for names the recording never used (kept when every recorded such
    /// name confirmed it).
    pub field_name_filters: bool,
    /// Comparison spellings understood on every member (a kept spelling's
    /// family); answers narrowed by one count as convention.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lent_operators: Vec<LentOperator>,
    pub params: Vec<ParamMeaning>,
    /// The members listed items show without a field selection (the
    /// list view's fields, in first-seen order).
    pub item_fields: Vec<String>,
    /// The recording whose answer is the envelope of rendered pages.
    pub base_ordinal: Option<u64>,
    /// The distinct items of the initial answers, the universe of a
    /// `universe: "answers"` endpoint (evidence: the instances' ordinals).
    #[serde(skip)]
    pub answers: Vec<Value>,
    /// Names the recording used that no hypothesis explains (a request
    /// with one is answered from the recording of the same line).
    pub unexplained: Vec<String>,
    /// What this endpoint took over from its siblings (see `params` with
    /// `basis: "sibling"`), e.g. `"filter from post_runs_search"`.
    pub adopted: Vec<String>,
    pub spelling: Spelling,
    pub instances: Vec<InstanceCheck>,
}

impl EndpointSemantics {
    /// True when some recorded instance re-rendered, or agreed with what a
    /// partial World holds (the semantics have evidence).
    pub fn confirmed(&self) -> bool {
        self.instances
            .iter()
            .any(|i| i.verdict == "reproduced" || i.verdict == "consistent")
    }

    /// The name of the kept parameter with this kind of meaning, if any.
    pub fn param_of(&self, kind: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|p| p.status == "kept" && p.meaning.kind() == kind)
            .map(|p| p.name.as_str())
    }

    /// The meaning a parameter name is served with: its kept meaning, else
    /// a library convention no recorded request used (`status:
    /// "convention"`, answers counted as convention).
    pub fn meaning(&self, name: &str) -> Option<&Meaning> {
        self.kept(name).or_else(|| {
            self.params
                .iter()
                .find(|p| p.name == name && p.status == "convention")
                .map(|p| &p.meaning)
        })
    }

    /// True when some parameter of the request is served by an unconfirmed
    /// library convention.
    pub fn by_convention(&self, params: &[(String, Value)]) -> bool {
        params.iter().any(|(n, _)| {
            self.kept(n).is_none()
                && (self
                    .params
                    .iter()
                    .any(|p| p.name == *n && p.status == "convention")
                    || self.lent_operator(n).is_some())
        })
    }

    /// The field name and operator of a name spelled with a lent
    /// comparison affix (`score_lte` → `score`, `lte`).
    pub fn lent_operator<'a>(&self, name: &'a str) -> Option<(&'a str, Op)> {
        self.lent_operators.iter().find_map(|l| {
            let field = if l.prefix {
                name.strip_prefix(l.affix.as_str())
            } else {
                name.strip_suffix(l.affix.as_str())
            }?;
            (!field.is_empty()).then_some((field, l.op))
        })
    }

    /// The kept meaning of a parameter name.
    pub fn kept(&self, name: &str) -> Option<&Meaning> {
        self.params
            .iter()
            .find(|p| p.name == name && p.status == "kept")
            .map(|p| &p.meaning)
    }
}
