//! `environment-check`: builds the fake from a TRAIN capture and replays a
//! scored session through the real serving path in-process, judging each
//! answer by the rules of the shared fidelity harness (`fidelity.py`).
//!
//! - `har`: the recording as exchanges; `values`, `urls`: the vocabulary.
//! - `state`: the mappings learned; `compare`: rules 1–8; `rewrite`: R1–R4.
//! - `replay`: the scoring loop; `driver`: the in-process Router;
//!   `environment`: the one function building the Environment.
//! - `report`: text and JSON.

mod compare;
mod driver;
mod environment;
mod har;
mod replay;
mod report;
mod rewrite;
mod state;
mod urls;
mod values;

#[cfg(test)]
mod selftest;

pub use compare::Diff;
pub use environment::build_environment;
pub use har::{load as load_har, Exchange};
pub use replay::{score_session, Answer, Outgoing, Row, Session, Verdict};
pub use report::{Mode, Report, Tally};
pub use state::State;

use rea_core::{ErrorReport, InspectRequest};
use std::path::Path;
use std::time::Instant;

/// Scores `against` (every entry) with a fake built from `train`; without
/// `against`, a leave-later-out check: the fake is built from the first half
/// of TRAIN's entries (rounded up) and scored on the rest.
pub fn check(train: &Path, against: Option<&Path>) -> Result<Report, ErrorReport> {
    let started = Instant::now();
    let name = |p: &Path| {
        p.file_name().map_or_else(
            || p.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    };
    let (env, train_ex, scored, mode) = match against {
        Some(scored_path) => {
            let env = build_environment(train, None)?;
            // The scored capture passes the same checks a served one does.
            rea_core::inspect_web_network_capture(&InspectRequest::har(scored_path))?;
            let mode = Mode::Against {
                train: name(train),
                scored: name(scored_path),
            };
            (env, har::load(train)?, har::load(scored_path)?, mode)
        }
        None => {
            // TRAIN passes the checks a served capture does before it is split.
            rea_core::inspect_web_network_capture(&InspectRequest::har(train))?;
            let all = har::load(train)?;
            if all.len() < 2 {
                return Err(ErrorReport::input(
                    "too_few_entries",
                    format!(
                        "{} has {} entries; a leave-later-out check needs at least 2 (or give --against)",
                        train.display(),
                        all.len()
                    ),
                )
                .detail("entries", all.len()));
            }
            let k = all.len().div_ceil(2);
            let env = build_environment(train, Some((0..k as u64).collect()))?;
            let mode = Mode::LeaveLaterOut {
                train: name(train),
                built_from: k,
                total: all.len(),
            };
            let mut train_ex = all;
            let scored = train_ex.split_off(k);
            (env, train_ex, scored, mode)
        }
    };
    let built = started.elapsed().as_secs_f64();
    let server = driver::InProcess::new(env)
        .map_err(|m| ErrorReport::new("serve_io", rea_core::Category::Unavailable, m))?;
    let session = score_session(&train_ex, &scored, |out| server.send(out));
    let lists = server.list_bases();
    Ok(Report {
        mode,
        session,
        lists,
        timings: Some((built, started.elapsed().as_secs_f64() - built)),
    })
}
