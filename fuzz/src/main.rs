//! `rea-fuzz [--seconds S] [--runs N] [--seed N] [TARGET...]`: the stable
//! driver over the committed corpus (every target when none is named). Prints
//! one line per target (executions, outcomes, findings) and exits 1 when any
//! target found something. A watchdog ends the process (exit 2) when one
//! execution takes longer than `--hang-seconds` (default 60), leaving the
//! input in `fuzz/artifacts/<target>/hang-<sha256>`.

use rea_fuzz::drive::{self, Config};
use rea_fuzz::targets::TARGETS;
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut seconds = 10.0;
    let mut runs = u64::MAX;
    let mut seed = 1u64;
    let mut hang = 60u64;
    let mut chosen = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .unwrap_or_else(|| panic!("{name} needs a value"))
        };
        match a.as_str() {
            "--seconds" => seconds = value("--seconds").parse().expect("--seconds S"),
            "--runs" => runs = value("--runs").parse().expect("--runs N"),
            "--seed" => seed = value("--seed").parse().expect("--seed N"),
            "--hang-seconds" => hang = value("--hang-seconds").parse().expect("--hang-seconds S"),
            t if TARGETS.contains(&t) => chosen.push(t.to_string()),
            other => {
                eprintln!("unknown argument {other}; targets: {}", TARGETS.join(", "));
                return ExitCode::from(2);
            }
        }
    }
    if chosen.is_empty() {
        chosen = TARGETS.iter().map(|t| t.to_string()).collect();
    }
    drive::quiet_panics();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut failed = false;
    for target in &chosen {
        let config = Config {
            corpus: root.join("corpus").join(target),
            artifacts: root.join("artifacts").join(target),
            seconds,
            max_runs: runs,
            seed,
            hang: std::time::Duration::from_secs(hang),
        };
        let report = drive::run(target, &config);
        println!(
            "{target}: {} executions in {:.1}s ({} corpus inputs, {} distinct outcomes, slowest {:.0} ms), {} findings",
            report.executions,
            report.elapsed.as_secs_f64(),
            report.corpus_inputs,
            report.outcomes.len(),
            report.slowest.as_secs_f64() * 1000.0,
            report.findings.len()
        );
        for (path, took) in &report.slow {
            println!("  slow ({:.1} s): {}", took.as_secs_f64(), path.display());
        }
        for (path, broken) in &report.findings {
            println!("  finding {}: {broken}", path.display());
            failed = true;
        }
    }
    rea_fuzz::targets::remove_scratch();
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
