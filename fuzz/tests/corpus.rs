//! Every committed corpus input (the seeds and every fixed finding) runs
//! through its target without a panic or a broken invariant, and a short
//! seeded mutation run of each target finds nothing.

use rea_fuzz::drive::{self, corpus, execute, Config};
use rea_fuzz::targets::TARGETS;
use std::path::PathBuf;
use std::time::Duration;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_corpus_input_passes_its_target() {
    for target in TARGETS {
        let inputs = corpus(&root().join("corpus").join(target));
        assert!(!inputs.is_empty(), "{target} has no corpus");
        for (path, data) in inputs {
            if let Err(broken) = execute(target, &data) {
                panic!("{target} {}: {broken}", path.display());
            }
        }
    }
    rea_fuzz::targets::remove_scratch();
}

#[test]
fn a_short_mutation_run_of_each_target_finds_nothing() {
    let artifacts = tempfile::tempdir().unwrap();
    for target in TARGETS {
        let config = Config {
            corpus: root().join("corpus").join(target),
            artifacts: artifacts.path().join(target),
            seconds: 20.0,
            max_runs: 30,
            seed: 7,
            hang: Duration::from_secs(120),
        };
        let report = drive::run(target, &config);
        assert!(report.executions > 0, "{target} ran nothing");
        assert!(
            report.findings.is_empty(),
            "{target}: {:?}",
            report.findings
        );
    }
    rea_fuzz::targets::remove_scratch();
}

#[test]
fn an_unknown_target_is_a_broken_invariant_not_a_pass() {
    assert!(execute("no_such_target", b"x").is_err());
}
