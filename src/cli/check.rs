//! `rea environment-check TRAIN.har [--against SCORED.har] [--json]`: builds
//! the fake from TRAIN as `environment-serve` would, replays SCORED (or the
//! later half of TRAIN) through it in-process and prints the verdicts.

use super::output::{fail, print_json, print_text};
use std::path::PathBuf;

#[derive(clap::Args)]
pub(crate) struct Args {
    /// The capture the fake is built from (a HAR file).
    train: PathBuf,
    /// The session to replay and score; without it, a leave-later-out check
    /// on TRAIN (built from its first half, scored on the second).
    #[arg(long, value_name = "SCORED.har")]
    against: Option<PathBuf>,
    /// Print the report as one JSON document (errors as JSON on stderr).
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: &Args) -> u8 {
    match rea_serve::check::check(&args.train, args.against.as_deref()) {
        Ok(report) if args.json => print_json(&report.json(), true),
        Ok(report) => print_text(&report.text()),
        Err(report) => fail(&report, args.json),
    }
}
