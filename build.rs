//! Puts the git commit the binary is built from into `rea --version`
//! (`REA_GIT_COMMIT` from the build environment wins; `unknown` outside a
//! git checkout, e.g. a packaged source tree).

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!text.is_empty()).then_some(text)
}

fn main() {
    println!("cargo:rerun-if-env-changed=REA_GIT_COMMIT");
    let commit = std::env::var("REA_GIT_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .or_else(|| git(&["rev-parse", "--short=12", "HEAD"]))
        .unwrap_or_else(|| "unknown".to_string());
    // Rebuild when HEAD moves: HEAD itself (a worktree has its own) and the
    // branch it points at, loose or packed.
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        let head = Path::new(&dir).join("HEAD");
        if head.exists() {
            println!("cargo:rerun-if-changed={}", head.display());
        }
    }
    if let (Some(common), Some(branch)) = (
        git(&["rev-parse", "--git-common-dir"]),
        git(&["symbolic-ref", "-q", "HEAD"]),
    ) {
        for path in [
            Path::new(&common).join(&branch),
            Path::new(&common).join("packed-refs"),
        ] {
            if path.exists() {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
    }
    println!(
        "cargo:rustc-env=REA_VERSION_LINE={} (commit {commit})",
        std::env::var("CARGO_PKG_VERSION").unwrap_or_default()
    );
}
