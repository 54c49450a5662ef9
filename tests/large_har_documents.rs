//! The documents derived from `../shared/fixtures/kinto/large.har` (the
//! start-up bench's capture) stay byte-identical while start-up is made
//! faster: the app model and the environment state, by SHA-256.
//!
//! Ignored by default: a debug build takes minutes on this 30 MiB capture.
//! Run it on a release build:
//! `cargo test --release --test large_har_documents -- --ignored`.

use sha2::{Digest, Sha256};
use std::path::Path;
use std::process::Command;

const LARGE: &str = "../shared/fixtures/kinto/large.har";

fn digest_of(command: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_rea"))
        .args([command, "--json", LARGE])
        .output()
        .expect("rea runs");
    assert!(
        out.status.success(),
        "{command} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    format!("{:x}", Sha256::digest(&out.stdout))
}

#[test]
#[ignore = "release only: minutes in a debug build"]
fn large_har_documents_are_unchanged() {
    if !Path::new(LARGE).exists() {
        eprintln!("{LARGE} not found: skipped");
        return;
    }
    assert_eq!(
        digest_of("environment-model"),
        "50f984cb1addfe3f86a9d7e489d6930e4daf7e76ab47c6d272559650c7097974"
    );
    assert_eq!(
        digest_of("environment-state"),
        "265a8b93dc8b15a7cee72d28a4dc84af2c4e71c0ed4a36e17e1cbe699a21937d"
    );
}
