//! The check's report: one line per request (method, path, ok/MISMATCH,
//! the first differing JSON pointer with expected vs actual), totals split
//! by read/write and by route seen/unseen in TRAIN, and the final
//! `fidelity: NN.N% (M/N)` line; or the same as one JSON document.

use super::compare::Diff;
use super::replay::{Row, Session, Verdict};
use serde_json::{json, Value};

/// What was scored against what.
#[derive(Debug, Clone)]
pub enum Mode {
    /// TRAIN built the fake; every entry of SCORED was replayed.
    Against { train: String, scored: String },
    /// The first `built_from` entries of TRAIN built the fake; the rest were replayed.
    LeaveLaterOut {
        train: String,
        built_from: usize,
        total: usize,
    },
}

/// A whole check.
#[derive(Debug)]
pub struct Report {
    pub mode: Mode,
    pub session: Session,
    /// Seconds spent building the fake and replaying (text report only).
    pub timings: Option<(f64, f64)>,
    /// Per row (in order): how a list read with a query was answered
    /// (`semantics`, `recorded`, `convention`, `unconfirmed`), else `None`.
    pub lists: Vec<Option<&'static str>>,
}

/// Matched of total, and the score in percent (one decimal).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tally {
    pub total: usize,
    pub matched: usize,
}

impl Tally {
    fn of<'a>(rows: impl Iterator<Item = &'a Row>) -> Tally {
        let mut t = Tally {
            total: 0,
            matched: 0,
        };
        for r in rows {
            t.total += 1;
            t.matched += usize::from(r.verdict == Verdict::Match);
        }
        t
    }

    /// The score in percent, rounded to one decimal; `None` for no requests.
    pub fn score(&self) -> Option<f64> {
        (self.total > 0).then(|| (1000.0 * self.matched as f64 / self.total as f64).round() / 10.0)
    }

    fn text(&self) -> String {
        match self.score() {
            Some(s) => format!("{}/{} ({s:.1}%)", self.matched, self.total),
            None => format!("{}/{}", self.matched, self.total),
        }
    }

    fn json(&self) -> Value {
        json!({"total": self.total, "matched": self.matched, "score": self.score()})
    }
}

fn verdict_word(v: Verdict) -> (&'static str, &'static str) {
    match v {
        Verdict::Match => ("ok", "match"),
        Verdict::Mismatch => ("MISMATCH", "mismatch"),
        Verdict::Error => ("ERROR", "error"),
    }
}

fn reason_text(row: &Row) -> String {
    match &row.reason {
        None => String::new(),
        Some(Diff {
            pointer: None,
            message,
        }) => message.clone(),
        Some(Diff {
            pointer: Some(p),
            message,
        }) if p.is_empty() => format!("(body): {message}"),
        Some(Diff {
            pointer: Some(p),
            message,
        }) => format!("{p}: {message}"),
    }
}

impl Report {
    pub fn summary(&self) -> Tally {
        Tally::of(self.session.rows.iter())
    }

    pub fn by_kind(&self, write: bool) -> Tally {
        Tally::of(self.session.rows.iter().filter(|r| r.write == write))
    }

    pub fn by_route(&self, seen: bool) -> Tally {
        Tally::of(self.session.rows.iter().filter(|r| r.seen == seen))
    }

    /// The app model's answers per kind of request and inference basis:
    /// (kind, basis, convention) → tally, in that order. Every answer the
    /// model gave that no confirmed inference derived is under
    /// `convention = true`.
    pub fn model_answers(&self) -> Vec<((&'static str, String, bool), Tally)> {
        let mut by: std::collections::BTreeMap<(&'static str, String, bool), Tally> =
            Default::default();
        for r in &self.session.rows {
            let Some((basis, convention)) = &r.model else {
                continue;
            };
            let kind = if r.write { "write" } else { "read" };
            let t = by
                .entry((kind, basis.clone(), *convention))
                .or_insert(Tally {
                    total: 0,
                    matched: 0,
                });
            t.total += 1;
            t.matched += usize::from(r.verdict == Verdict::Match);
        }
        by.into_iter().collect()
    }

    /// Misses by cause, most frequent first (ties by name).
    pub fn misses(&self) -> Vec<(String, usize)> {
        let mut counts: std::collections::BTreeMap<&str, usize> = Default::default();
        for r in &self.session.rows {
            if let Some(c) = &r.cause {
                *counts.entry(c.as_str()).or_default() += 1;
            }
        }
        let mut out: Vec<(String, usize)> = counts
            .into_iter()
            .map(|(k, n)| (k.to_string(), n))
            .collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        out
    }

    /// List reads with a query, by how they were answered (`semantics`,
    /// `recorded`, `convention`, `unconfirmed`), each with its rows' indices.
    pub fn list_answers(&self) -> Vec<(&'static str, Vec<usize>)> {
        let mut out: Vec<(&'static str, Vec<usize>)> =
            ["semantics", "recorded", "convention", "unconfirmed"]
                .iter()
                .map(|k| (*k, Vec::new()))
                .collect();
        for (r, b) in self.session.rows.iter().zip(&self.lists) {
            if let Some((_, rows)) = b.and_then(|b| out.iter_mut().find(|(k, _)| *k == b)) {
                rows.push(r.idx);
            }
        }
        out.retain(|(_, rows)| !rows.is_empty());
        out
    }

    /// The readable report; the last line is `fidelity: NN.N% (M/N)`.
    pub fn text(&self) -> String {
        let mut out = vec![match &self.mode {
            Mode::Against { train, scored } => format!("# train={train} scored={scored}"),
            Mode::LeaveLaterOut {
                train,
                built_from,
                total,
            } => format!(
                "# leave-later-out on {train}: built from entries 1-{built_from}, scoring {}-{total}",
                built_from + 1
            ),
        }];
        if let Some((build, replay)) = self.timings {
            out.push(format!(
                "# built in {build:.2}s, replayed {} requests in {replay:.2}s",
                self.session.rows.len()
            ));
        }
        for r in &self.session.rows {
            let path = if r.path.chars().count() <= 90 {
                r.path.clone()
            } else {
                format!("{}...", r.path.chars().take(87).collect::<String>())
            };
            let mut line = format!(
                "{:4} {:7} {path}  {}",
                r.idx,
                r.method,
                verdict_word(r.verdict).0
            );
            if r.verdict != Verdict::Match {
                line.push_str("  ");
                line.push_str(&reason_text(r));
                if let Some(sent) = &r.sent_path {
                    line.push_str(&format!("  [sent {sent}]"));
                }
            }
            out.push(line);
        }
        for (i, method, path) in &self.session.skipped {
            out.push(format!(
                "{i:4} {method:7} {path}  SKIPPED  no recorded response"
            ));
        }
        let s = self.summary();
        out.push(format!(
            "total {}, matched {}, skipped {}",
            s.total,
            s.matched,
            self.session.skipped.len()
        ));
        out.push(format!(
            "read {}; write {}",
            self.by_kind(false).text(),
            self.by_kind(true).text()
        ));
        out.push(format!(
            "route seen in train {}; unseen {}",
            self.by_route(true).text(),
            self.by_route(false).text()
        ));
        let answers = self.model_answers();
        if !answers.is_empty() {
            let list: Vec<String> = answers
                .iter()
                .map(|((kind, basis, convention), t)| {
                    let how = if *convention { " (convention)" } else { "" };
                    format!("{kind} {basis}{how} {}", t.text())
                })
                .collect();
            out.push(format!("app model answered: {}", list.join(", ")));
            let unconfirmed: usize = answers
                .iter()
                .filter(|((_, _, c), _)| *c)
                .map(|(_, t)| t.total)
                .sum();
            out.push(format!(
                "app-model answers not derived from a confirmed inference: {unconfirmed}"
            ));
        }
        let misses = self.misses();
        if !misses.is_empty() {
            let list: Vec<String> = misses.iter().map(|(c, n)| format!("{n} {c}")).collect();
            out.push(format!("misses by cause: {}", list.join(", ")));
        }
        let lists = self.list_answers();
        if !lists.is_empty() {
            let parts: Vec<String> = lists
                .iter()
                .map(|(k, rows)| match *k {
                    "convention" | "unconfirmed" => {
                        let idx: Vec<String> = rows.iter().map(usize::to_string).collect();
                        format!("{} {k} (rows {})", rows.len(), idx.join(", "))
                    }
                    _ => format!("{} {k}", rows.len()),
                })
                .collect();
            out.push(format!("list answers: {}", parts.join(", ")));
        }
        out.push(format!(
            "fidelity: {:.1}% ({}/{})",
            s.score().unwrap_or(0.0),
            s.matched,
            s.total
        ));
        out.join("\n") + "\n"
    }

    /// The report as JSON (the keys `fidelity.py --json` uses, plus `pointer`).
    pub fn json(&self) -> Value {
        let requests: Vec<Value> = self
            .session
            .rows
            .iter()
            .map(|r| {
                let mut row = json!({
                    "i": r.idx,
                    "method": r.method,
                    "path": r.path,
                    "kind": if r.write { "write" } else { "read" },
                    "route": r.route,
                    "seen": r.seen,
                    "status_expected": r.status_expected,
                    "status_actual": r.status_actual,
                    "verdict": verdict_word(r.verdict).1,
                    "reason": reason_text(r),
                    "pointer": r.reason.as_ref().and_then(|d| d.pointer.clone()),
                });
                if let Some(sent) = &r.sent_path {
                    row["sent_path"] = json!(sent);
                }
                if let Some(cause) = &r.cause {
                    row["cause"] = json!(cause);
                }
                row
            })
            .collect();
        let skipped: Vec<Value> = self
            .session
            .skipped
            .iter()
            .map(|(i, m, p)| json!({"i": i, "method": m, "path": p, "reason": "no recorded response"}))
            .collect();
        let mode = match &self.mode {
            Mode::Against { train, scored } => {
                json!({"kind": "against", "train": train, "scored": scored})
            }
            Mode::LeaveLaterOut {
                train,
                built_from,
                total,
            } => json!({"kind": "leave-later-out", "train": train,
                        "built_from_entries": built_from, "entries": total}),
        };
        let (ids, values) = self.session.state.mapped();
        json!({
            "mode": mode,
            "requests": requests,
            "skipped": skipped,
            "summary": self.summary().json(),
            "by_kind": {"read": self.by_kind(false).json(), "write": self.by_kind(true).json()},
            "by_route": {"seen": self.by_route(true).json(), "unseen": self.by_route(false).json()},
            "misses": self.misses().into_iter().map(|(c, n)| (c, json!(n))).collect::<serde_json::Map<_, _>>(),
            "list_answers": self.list_answers().into_iter().map(|(k, rows)| (k.to_string(), json!(rows))).collect::<serde_json::Map<_, _>>(),
            "model_answers": self.model_answers().into_iter().map(|((kind, basis, convention), t)| {
                json!({"kind": kind, "basis": basis, "inference": if convention { "convention" } else { "confirmed" },
                       "total": t.total, "matched": t.matched})
            }).collect::<Vec<_>>(),
            "id_map_size": ids,
            "generated_values_mapped": values,
        })
    }
}
