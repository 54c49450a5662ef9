//! Coverage: what the fake could not answer since start-up, and why,
//! grouped by kind: unmatched routes (with their nearest tool), unrecorded
//! lines of recorded views, unserved writes (with the plan's reason) and
//! answers the app model gave that no recording confirms. Counted as calls
//! are journaled, so it outlives the ring and `DELETE /_rea/requests`.
//! Served at `/_rea/coverage` and printed as the end-of-run summary.

use super::journal::{Entry, Source, Surface};
use super::nearest::Near;
use crate::model::ToolInfo;
use indexmap::IndexMap;
use serde_json::{json, Value};
use std::sync::Mutex;

/// Distinct lines kept per kind; further ones are only counted.
const MAX_KEYS: usize = 1000;

#[derive(Debug, Default)]
pub struct Coverage {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    calls: u64,
    unanswered: u64,
    /// `METHOD path` → count and the nearest tool.
    unmatched: IndexMap<String, (u64, Option<Near>)>,
    /// (tool, `METHOD line`) → count.
    unrecorded: IndexMap<(String, String), u64>,
    /// tool → calls refused because its plan is not served.
    unserved: IndexMap<String, u64>,
    /// `METHOD path` → count and the status the app model answered.
    unconfirmed: IndexMap<String, (u64, u16)>,
    /// Distinct lines past `MAX_KEYS`, only counted.
    overflow: u64,
}

fn bump<K: std::hash::Hash + Eq, V>(
    map: &mut IndexMap<K, V>,
    overflow: &mut u64,
    key: K,
    fresh: impl FnOnce() -> V,
    add: impl FnOnce(&mut V),
) {
    if let Some(v) = map.get_mut(&key) {
        add(v);
    } else if map.len() < MAX_KEYS {
        let mut v = fresh();
        add(&mut v);
        map.insert(key, v);
    } else {
        *overflow += 1;
    }
}

/// The request line an entry names (`METHOD path?query` for HTTP, the tool
/// and its arguments for MCP).
fn line(entry: &Entry) -> String {
    let r = &entry.request;
    match entry.surface {
        Surface::Http => {
            let mut line = format!(
                "{} {}",
                r.text("method").unwrap_or(""),
                r.text("path").unwrap_or("")
            );
            if let Some(q) = r.text("query") {
                line.push('?');
                line.push_str(q);
            }
            line
        }
        Surface::Mcp => format!(
            "tools/call {} {}",
            r.text("tool").unwrap_or(""),
            r.get("arguments").unwrap_or(Value::Null)
        ),
        Surface::DataPlane => r.text("operation").unwrap_or("").to_string(),
    }
}

impl Coverage {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Counts one journaled call.
    pub fn count(&self, entry: &Entry) {
        let mut s = self.lock();
        let s = &mut *s;
        s.calls += 1;
        let code = entry.code.as_deref();
        let missed = match (entry.source, code) {
            (Source::Unmatched, Some("not_recorded")) => {
                let key = (entry.tool.clone().unwrap_or_default(), line(entry));
                bump(&mut s.unrecorded, &mut s.overflow, key, || 0, |c| *c += 1);
                true
            }
            (Source::Unmatched, Some("write_not_served")) => {
                let key = entry.tool.clone().unwrap_or_default();
                bump(&mut s.unserved, &mut s.overflow, key, || 0, |c| *c += 1);
                true
            }
            (Source::Unmatched, _) => {
                let near = entry.nearest.first().cloned();
                bump(
                    &mut s.unmatched,
                    &mut s.overflow,
                    line(entry),
                    || (0, near),
                    |v| v.0 += 1,
                );
                true
            }
            (Source::Model, _) => {
                let status = entry.status;
                bump(
                    &mut s.unconfirmed,
                    &mut s.overflow,
                    line(entry),
                    || (0, status),
                    |v| v.0 += 1,
                );
                true
            }
            _ => false,
        };
        if missed {
            s.unanswered += 1;
        }
    }

    /// The coverage document. `tools` gives the unserved plans' reasons
    /// (every unserved write is listed, called or not).
    pub fn report(&self, tools: &[ToolInfo]) -> Value {
        let s = self.lock();
        let unmatched: Vec<Value> = s
            .unmatched
            .iter()
            .map(|(line, (count, near))| json!({"line": line, "count": count, "nearest": near}))
            .collect();
        let unrecorded: Vec<Value> = s
            .unrecorded
            .iter()
            .map(|((tool, line), count)| json!({"tool": tool, "line": line, "count": count}))
            .collect();
        let unserved: Vec<Value> = tools
            .iter()
            .filter(|t| !t.served)
            .map(|t| {
                json!({
                    "tool": t.tool.name,
                    "method": t.tool.method,
                    "template": t.tool.path_template,
                    "reason": t.reason.as_deref().unwrap_or("not served"),
                    "count": s.unserved.get(&t.tool.name).copied().unwrap_or(0),
                })
            })
            .collect();
        let unconfirmed: Vec<Value> = s
            .unconfirmed
            .iter()
            .map(|(line, (count, status))| json!({"line": line, "count": count, "status": status}))
            .collect();
        json!({
            "calls": s.calls,
            "unanswered": s.unanswered,
            "unmatched_routes": unmatched,
            "unrecorded_lines": unrecorded,
            "unserved_writes": unserved,
            "unconfirmed_model_answers": unconfirmed,
            "lines_not_kept": s.overflow,
        })
    }

    /// The end-of-run summary: one line per miss, grouped by kind.
    pub fn summary(&self, tools: &[ToolInfo]) -> Vec<String> {
        let report = self.report(tools);
        let mut out = vec![format!(
            "coverage: {} calls, {} not answered from the capture",
            report["calls"], report["unanswered"]
        )];
        let items = |key: &str| report[key].as_array().cloned().unwrap_or_default();
        let unmatched = items("unmatched_routes");
        if !unmatched.is_empty() {
            out.push(format!("  unmatched routes ({}):", unmatched.len()));
            for u in unmatched {
                let near = match u["nearest"]["tool"].as_str() {
                    Some(tool) => format!(
                        "; nearest {tool}: {}",
                        u["nearest"]["why"][0].as_str().unwrap_or("")
                    ),
                    None => "; no tool comes near".to_string(),
                };
                out.push(format!(
                    "    {} ×{}{near}",
                    u["line"].as_str().unwrap_or(""),
                    u["count"]
                ));
            }
        }
        let unrecorded = items("unrecorded_lines");
        if !unrecorded.is_empty() {
            out.push(format!(
                "  unrecorded lines of recorded views ({}):",
                unrecorded.len()
            ));
            for u in unrecorded {
                out.push(format!(
                    "    {} ×{} [{}]",
                    u["line"].as_str().unwrap_or(""),
                    u["count"],
                    u["tool"].as_str().unwrap_or("")
                ));
            }
        }
        let called: Vec<Value> = items("unserved_writes")
            .into_iter()
            .filter(|u| u["count"].as_u64().unwrap_or(0) > 0)
            .collect();
        if !called.is_empty() {
            out.push(format!("  unserved writes called ({}):", called.len()));
            for u in called {
                out.push(format!(
                    "    {} {} ×{} [{}: {}]",
                    u["method"].as_str().unwrap_or(""),
                    u["template"].as_str().unwrap_or(""),
                    u["count"],
                    u["tool"].as_str().unwrap_or(""),
                    u["reason"].as_str().unwrap_or("")
                ));
            }
        }
        let unconfirmed = items("unconfirmed_model_answers");
        if !unconfirmed.is_empty() {
            out.push(format!(
                "  answers the app model gave that no recording confirms ({}):",
                unconfirmed.len()
            ));
            for u in unconfirmed {
                out.push(format!(
                    "    {} ×{} -> {}",
                    u["line"].as_str().unwrap_or(""),
                    u["count"],
                    u["status"]
                ));
            }
        }
        if report["lines_not_kept"].as_u64().unwrap_or(0) > 0 {
            out.push(format!(
                "  {} further misses on lines past the first {MAX_KEYS} of a kind",
                report["lines_not_kept"]
            ));
        }
        out
    }
}
