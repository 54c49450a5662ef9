//! The near-miss explanation for a request no tool answered: the manifest
//! tools whose method and path template come closest to the request, each
//! with why it did not match (method, segment count, the first literal
//! segment that differs, a write plan that is not served).

use crate::model::ToolInfo;
use serde::Serialize;

/// Nearest tools reported per unmatched request.
const NEAREST: usize = 3;

/// One near miss.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Near {
    pub tool: String,
    pub method: String,
    pub template: String,
    /// Whether the tool is offered (reads, and writes whose plan is served).
    pub served: bool,
    /// Why this tool did not answer the request, one reason a line.
    pub why: Vec<String>,
}

fn segments(path: &str) -> Vec<&str> {
    let path = path.split(['?', '#']).next().unwrap_or("");
    path.trim_matches('/')
        .split('/')
        .filter(|s| !s.is_empty())
        .collect()
}

fn placeholder(segment: &str) -> bool {
    segment.starts_with('{') && segment.ends_with('}')
}

/// How close `tool` comes to `method path`, and why it is not a match.
fn compare(tool: &ToolInfo, method: &str, path: &str) -> (usize, Near) {
    let want = segments(path);
    let have = segments(&tool.tool.path_template);
    let mut score: usize = 0;
    let mut why = Vec::new();
    let mut first_difference = None;
    for (i, (w, h)) in want.iter().zip(have.iter()).enumerate() {
        if placeholder(h) {
            score += 1;
        } else if w == h {
            score += 2;
        } else if first_difference.is_none() {
            first_difference = Some(i);
            why.push(format!(
                "segment {} is `{w}`; the tool expects `{h}`",
                i + 1
            ));
        }
    }
    if want.len() != have.len() {
        why.push(format!(
            "the path has {} segments; the template has {}",
            want.len(),
            have.len()
        ));
    }
    if tool.tool.method.eq_ignore_ascii_case(method) {
        score += 1;
    } else {
        why.push(format!(
            "the tool answers {}, not {method}",
            tool.tool.method
        ));
    }
    if !tool.served {
        why.push(format!(
            "its write plan is not served ({})",
            tool.reason.as_deref().unwrap_or("no reason given")
        ));
    }
    if why.is_empty() {
        why.push(
            "method and template match, but another tool took precedence or the line was never recorded"
                .to_string(),
        );
    }
    // Every segment one has and the other lacks counts against it, and a
    // differing first segment halves what agreed later.
    score = score.saturating_sub(want.len().abs_diff(have.len()));
    if first_difference == Some(0) {
        score /= 2;
    }
    (
        score,
        Near {
            tool: tool.tool.name.clone(),
            method: tool.tool.method.clone(),
            template: tool.tool.path_template.clone(),
            served: tool.served,
            why,
        },
    )
}

/// The tools nearest to `method path`, closest first (ties by name).
pub(super) fn nearest_to_path(tools: &[ToolInfo], method: &str, path: &str) -> Vec<Near> {
    let mut scored: Vec<(usize, Near)> = tools
        .iter()
        .map(|t| compare(t, method, path))
        .filter(|(score, _)| *score > 1)
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.tool.cmp(&b.1.tool)));
    scored.into_iter().take(NEAREST).map(|(_, n)| n).collect()
}

/// The tools whose names come nearest to an unknown tool name (shared
/// `_`-separated words), closest first.
pub(super) fn nearest_to_name(tools: &[ToolInfo], name: &str) -> Vec<Near> {
    let words: Vec<&str> = name.split('_').filter(|w| !w.is_empty()).collect();
    let mut scored: Vec<(usize, Near)> = tools
        .iter()
        .filter_map(|t| {
            let shared = t.tool.name.split('_').filter(|w| words.contains(w)).count();
            (shared > 0).then(|| {
                let mut why = vec![format!("no tool is named `{name}`")];
                if !t.served {
                    why.push(format!(
                        "its write plan is not served ({})",
                        t.reason.as_deref().unwrap_or("no reason given")
                    ));
                }
                (
                    shared,
                    Near {
                        tool: t.tool.name.clone(),
                        method: t.tool.method.clone(),
                        template: t.tool.path_template.clone(),
                        served: t.served,
                        why,
                    },
                )
            })
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.tool.cmp(&b.1.tool)));
    scored.into_iter().take(NEAREST).map(|(_, n)| n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ToolKind;
    use rea_engine::manifest::Tool;

    fn tool(name: &str, method: &str, template: &str, served: bool) -> ToolInfo {
        ToolInfo {
            tool: Tool {
                name: name.into(),
                method: method.into(),
                path_template: template.into(),
                api_surface_template: template.into(),
                params: vec![],
                query_parameter_names: vec![],
                body_shape: None,
                statuses: vec![200],
                content_types: vec![],
                record_ordinals: vec![],
            },
            kind: if method == "GET" {
                ToolKind::Read
            } else {
                ToolKind::Write
            },
            plan: "item".into(),
            reason: (!served).then(|| "no recorded effect".to_string()),
            served,
            list_arguments: Default::default(),
            list_in_body: false,
        }
    }

    #[test]
    fn the_nearest_tool_says_which_segment_differs() {
        let tools = [
            tool("get_items_by_id", "GET", "/v1/items/{id}", true),
            tool("get_users", "GET", "/v1/users", true),
            tool("delete_items_by_id", "DELETE", "/v1/items/{id}", false),
        ];
        let near = nearest_to_path(&tools, "GET", "/v1/itemz/42");
        assert_eq!(near[0].tool, "get_items_by_id");
        assert_eq!(
            near[0].why,
            ["segment 2 is `itemz`; the tool expects `items`"]
        );
        let near = nearest_to_path(&tools, "PUT", "/v1/items/42");
        assert_eq!(near[0].tool, "delete_items_by_id");
        assert!(near[0]
            .why
            .iter()
            .any(|w| w.contains("answers DELETE, not PUT")));
        assert!(near[0].why.iter().any(|w| w.contains("not served")));
        assert!(nearest_to_path(&tools, "GET", "/other/thing/x/y").is_empty());
        assert_eq!(
            nearest_to_name(&tools, "get_item")[0].tool,
            "get_items_by_id"
        );
    }
}
