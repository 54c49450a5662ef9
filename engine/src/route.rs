//! Routing: matches an HTTP request line to a manifest tool by its path
//! template, with a fixed precedence (see `Router::route`). The templates
//! are compiled once into a table by method, then a tree of segments
//! (literal children by value, one parameter child), so a request line
//! costs its own segments, not the number of tools.

use crate::codec::{path_segments, percent_decode};
use crate::manifest::Tool;
use indexmap::IndexMap;

/// Path parameter values by placeholder name, percent-decoded.
pub type Params = IndexMap<String, String>;

/// One segment of a compiled template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    Literal(String),
    Param(String),
}

/// One tool's compiled route.
#[derive(Debug, Clone)]
pub(crate) struct Route {
    pub tool: usize,
    pub method: String,
    pub segments: Vec<Segment>,
}

/// The compiled route table.
#[derive(Debug, Clone, Default)]
pub(crate) struct Router {
    routes: Vec<Route>,
    /// By upper-case method: the templates as a tree of segments.
    table: crate::NameMap<Node>,
}

/// One position in the segment tree: the routes whose template ends here,
/// the literal segments that go on, and the parameter that does.
#[derive(Debug, Clone, Default)]
struct Node {
    ends: Vec<usize>,
    literals: crate::NameMap<Node>,
    param: Option<Box<Node>>,
}

impl Node {
    fn add(&mut self, segments: &[Segment], route: usize) {
        let Some((first, rest)) = segments.split_first() else {
            self.ends.push(route);
            return;
        };
        let next = match first {
            Segment::Literal(l) => self.literals.entry(l.clone()).or_default(),
            Segment::Param(_) => self.param.get_or_insert_with(Box::default),
        };
        next.add(rest, route);
    }

    /// Every route whose template fits `segments`.
    fn fitting(&self, segments: &[&str], out: &mut Vec<usize>) {
        let Some((first, rest)) = segments.split_first() else {
            out.extend_from_slice(&self.ends);
            return;
        };
        if let Some(next) = self.literals.get(*first) {
            next.fitting(rest, out);
        }
        if let Some(next) = &self.param {
            next.fitting(rest, out);
        }
    }
}

/// Compiles a `path_template` such as `/v1/buckets/{bucket_id}`.
pub fn compile(template: &str) -> Vec<Segment> {
    path_segments(template)
        .into_iter()
        .map(
            |s| match s.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
                Some(name) => Segment::Param(name.to_string()),
                None => Segment::Literal(s.to_string()),
            },
        )
        .collect()
}

impl Router {
    pub(crate) fn new(tools: &[Tool]) -> Router {
        let routes: Vec<Route> = tools
            .iter()
            .enumerate()
            .map(|(i, t)| Route {
                tool: i,
                method: t.method.to_ascii_uppercase(),
                segments: compile(&t.path_template),
            })
            .collect();
        let mut table: crate::NameMap<Node> = crate::NameMap::default();
        for (i, r) in routes.iter().enumerate() {
            table
                .entry(r.method.clone())
                .or_default()
                .add(&r.segments, i);
        }
        Router { routes, table }
    }

    /// The compiled template of tool `index`.
    pub(crate) fn segments(&self, index: usize) -> &[Segment] {
        self.routes
            .get(index)
            .map_or(&[][..], |r| r.segments.as_slice())
    }

    /// The path params of `path` under tool `index`'s template (method
    /// aside), or `None` when the path does not fit it.
    pub(crate) fn params(&self, index: usize, path: &str) -> Option<Params> {
        let route = self.routes.get(index)?;
        bind(&route.segments, &path_segments(path))
    }

    /// Every route matching `method` and `path`, with its params.
    pub(crate) fn matches<'a>(&'a self, method: &str, path: &str) -> Vec<(&'a Route, Params)> {
        let segments = path_segments(path);
        let node = if method.bytes().any(|b| b.is_ascii_lowercase()) {
            self.table.get(&method.to_ascii_uppercase())
        } else {
            self.table.get(method)
        };
        let Some(node) = node else {
            return Vec::new();
        };
        let mut fitting = Vec::new();
        node.fitting(&segments, &mut fitting);
        // Manifest order, as a walk over every route would give.
        fitting.sort_unstable();
        fitting
            .into_iter()
            .filter_map(|i| self.routes.get(i))
            .filter_map(|r| bind(&r.segments, &segments).map(|params| (r, params)))
            .collect()
    }

    /// Picks one route for a request line. Precedence among the matches:
    /// 1. a tool for which `renders(tool)` is true (it answers from the World),
    /// 2. then, comparing segment by segment from the left, a literal beats
    ///    a parameter at the first position where the two differ,
    /// 3. then manifest order.
    pub(crate) fn route(
        &self,
        method: &str,
        path: &str,
        renders: impl Fn(usize) -> bool,
    ) -> Option<(usize, Params)> {
        let mut candidates = self.matches(method, path);
        candidates.sort_by(|(a, _), (b, _)| {
            let ra = renders(a.tool);
            let rb = renders(b.tool);
            rb.cmp(&ra)
                .then_with(|| specificity(&a.segments).cmp(&specificity(&b.segments)))
                .then_with(|| a.tool.cmp(&b.tool))
        });
        candidates.into_iter().next().map(|(r, p)| (r.tool, p))
    }
}

/// True when a path's segments fit a compiled template (every literal
/// equal, any value for a parameter).
pub(crate) fn fits(template: &[Segment], segments: &[&str]) -> bool {
    template.len() == segments.len()
        && template.iter().zip(segments).all(|(t, s)| match t {
            Segment::Literal(l) => l == s,
            Segment::Param(_) => true,
        })
}

/// Binds a path's segments to a compiled template: the params, or `None`
/// when a literal differs or the lengths do.
pub(crate) fn bind(template: &[Segment], segments: &[&str]) -> Option<Params> {
    if template.len() != segments.len() {
        return None;
    }
    let mut params = Params::new();
    for (seg, actual) in template.iter().zip(segments) {
        match seg {
            Segment::Literal(l) if l == actual => {}
            Segment::Literal(_) => return None,
            Segment::Param(name) => {
                params.insert(name.clone(), percent_decode(actual));
            }
        }
    }
    Some(params)
}

/// Sort key: literals (0) before parameters (1), position by position.
fn specificity(segments: &[Segment]) -> Vec<u8> {
    segments
        .iter()
        .map(|s| matches!(s, Segment::Param(_)) as u8)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(method: &str, template: &str) -> Tool {
        Tool {
            name: format!("{method}{template}"),
            method: method.into(),
            path_template: template.into(),
            api_surface_template: template.into(),
            params: vec![],
            query_parameter_names: vec![],
            body_shape: None,
            statuses: vec![200],
            content_types: vec![],
            record_ordinals: vec![],
        }
    }

    #[test]
    fn literal_beats_parameter_then_manifest_order() {
        let tools = vec![
            tool("GET", "/api/items/{id}"),
            tool("GET", "/api/items/search"),
            tool("GET", "/api/{x}/{y}"),
        ];
        let router = Router::new(&tools);
        assert_eq!(
            router
                .route("GET", "/api/items/search", |_| true)
                .map(|r| r.0),
            Some(1)
        );
        let (t, p) = router.route("get", "/api/items/a%20b/", |_| true).unwrap();
        assert_eq!(t, 0);
        assert_eq!(p["id"], "a b");
        assert_eq!(router.route("POST", "/api/items/1", |_| true), None);
        assert_eq!(
            router.route("GET", "/api/other/1", |_| true).map(|r| r.0),
            Some(2)
        );
    }

    #[test]
    fn the_table_finds_what_a_walk_over_every_route_finds() {
        let mut tools = Vec::new();
        for i in 0..50 {
            tools.push(tool("GET", &format!("/api/r{i}/{{id}}")));
            tools.push(tool("GET", &format!("/api/r{i}/{{id}}/sub")));
            tools.push(tool("PATCH", &format!("/api/r{i}/{{id}}")));
        }
        tools.push(tool("GET", "/api/{kind}/{id}"));
        tools.push(tool("GET", "/api/r3/special"));
        tools.push(tool("get", "/"));
        let router = Router::new(&tools);
        let walk = |method: &str, path: &str| -> Vec<usize> {
            let segments = path_segments(path);
            router
                .routes
                .iter()
                .filter(|r| r.method == method.to_ascii_uppercase())
                .filter(|r| bind(&r.segments, &segments).is_some())
                .map(|r| r.tool)
                .collect()
        };
        for (method, path) in [
            ("GET", "/api/r3/special"),
            ("GET", "/api/r3/x"),
            ("get", "/api/r49/x/sub"),
            ("PATCH", "/api/r7/x"),
            ("GET", "/api/zz/1"),
            ("GET", "/"),
            ("GET", "/api"),
            ("DELETE", "/api/r1/x"),
        ] {
            let found: Vec<usize> = router
                .matches(method, path)
                .into_iter()
                .map(|(r, _)| r.tool)
                .collect();
            assert_eq!(found, walk(method, path), "{method} {path}");
        }
        assert_eq!(
            router
                .route("GET", "/api/r3/special", |_| true)
                .map(|r| r.0),
            Some(151)
        );
        assert_eq!(router.route("GET", "/", |_| true).map(|r| r.0), Some(152));
    }

    #[test]
    fn a_tool_that_renders_from_the_world_wins() {
        let tools = vec![
            tool("GET", "/api/items/search"),
            tool("GET", "/api/items/{id}"),
        ];
        let router = Router::new(&tools);
        assert_eq!(
            router
                .route("GET", "/api/items/search", |t| t == 1)
                .map(|r| r.0),
            Some(1)
        );
        assert_eq!(
            router
                .route("GET", "/api/items/search", |_| false)
                .map(|r| r.0),
            Some(0)
        );
    }
}
