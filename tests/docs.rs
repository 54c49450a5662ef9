//! Documentation facts the spec requires, checked on the pages themselves,
//! and the boundary with Fiddler Everywhere's MCP server: rea's docs explain
//! how to connect Fiddler separately (FEV-02..05) and rea itself offers no
//! Fiddler command or tool and never addresses Fiddler's endpoint (FEV-01).

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn page(relative: &str) -> String {
    let path = repo_root().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Collapses every run of white space to one space, so line wrapping in
/// the page does not matter.
fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn assert_mentions(text: &str, facts: &[&str]) {
    let text = words(text);
    let missing: Vec<&&str> = facts.iter().filter(|f| !text.contains(&words(f))).collect();
    assert!(
        missing.is_empty(),
        "docs/fiddler-everywhere.md lacks {missing:?}"
    );
}

#[test]
fn fiddler_page_says_connect_separately_fev_02() {
    let text = page("docs/fiddler-everywhere.md");
    assert_mentions(
        &text,
        &[
            "http://localhost:8868/mcp",
            "Settings > MCP Server > Coding agent",
            "Manual setup",
            "API key",
            "Trial",
            "Pro",
            "internet access",
            "MCP-capable agent client",
            "does not register, wrap or proxy",
            "https://www.telerik.com/fiddler/fiddler-everywhere/documentation/agent-tools/fiddler-mcp-server",
        ],
    );
}

#[test]
fn fiddler_page_gives_the_public_skill_commands_fev_03() {
    let text = page("docs/fiddler-everywhere.md");
    assert_mentions(
        &text,
        &[
            "npx skills add telerik/fiddler-agent-tools --skill fiddler-mcp-setup",
            "npx skills add telerik/fiddler-agent-tools --skill fiddler-traffic-debugging",
            "`fiddler-download-setup`",
        ],
    );
}

#[test]
fn fiddler_page_explains_use_after_setup_fev_04() {
    let text = page("docs/fiddler-everywhere.md");
    assert_mentions(
        &text,
        &[
            "reload your agent client",
            "names and input schemas the connected server advertises",
            "status",
            "list the captured sessions",
            "session IDs",
            "`sessionsSource`",
            "`LiveTraffic`",
            "`AgentCalls`",
            "Filters that are active in Fiddler also apply here",
        ],
    );
}

#[test]
fn fiddler_page_sends_existing_runs_and_saved_files_right_fev_05() {
    let text = page("docs/fiddler-everywhere.md");
    assert_mentions(
        &text,
        &[
            "replaces the process filters and clears the session list",
            "skip those steps",
            "none of them selects a saved snapshot",
            "rea inspect-web-network-capture /absolute/session.saz saz --json",
        ],
    );
}

/// The rea binary's help lists no Fiddler command.
#[test]
fn rea_cli_offers_no_fiddler_command_fev_01() {
    for args in [&["--help"][..], &["help"][..]] {
        let output = Command::new(env!("CARGO_BIN_EXE_rea"))
            .args(args)
            .output()
            .expect("the rea binary runs");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
        .to_lowercase();
        assert!(
            !text.contains("fiddler"),
            "rea {args:?} mentions Fiddler:\n{text}"
        );
    }
}

fn rust_sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A string literal in `line` that reads like a command or tool name with
/// "fiddler" in it (`"fiddler_sessions"`, `"get-fiddler-status"`).
fn fiddler_name_literal(line: &str) -> Option<String> {
    let lower = line.to_lowercase();
    lower.split('"').skip(1).step_by(2).find_map(|literal| {
        let name_like = !literal.is_empty()
            && literal
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'));
        (name_like && literal.contains("fiddler")).then(|| literal.to_string())
    })
}

/// No source of rea registers a Fiddler-named tool or command, and none
/// addresses Fiddler's MCP endpoint (port 8868). rea's MCP tools are the
/// manifest's tools, derived from the capture; this is the check that rea
/// adds none of its own for Fiddler.
#[test]
fn rea_sources_register_no_fiddler_tool_or_endpoint_fev_01() {
    let mut files = Vec::new();
    for dir in ["src", "core/src", "derive/src", "serve/src"] {
        rust_sources(&repo_root().join(dir), &mut files);
    }
    assert!(!files.is_empty(), "found no sources to check");
    // The producer profiles match HAR `log.creator.name` values ("Fiddler"
    // is what Fiddler writes there) and name those profiles; they register
    // no tool or command.
    let producer_names = repo_root().join("core/src/har_schema/profile.rs");
    let mut findings = Vec::new();
    for file in files.iter().filter(|f| **f != producer_names) {
        let text = std::fs::read_to_string(file).expect("source is UTF-8");
        for (number, line) in text.lines().enumerate() {
            let place = format!("{}:{}", file.display(), number + 1);
            if line.contains("8868") {
                findings.push(format!("{place}: mentions port 8868"));
            }
            if let Some(name) = fiddler_name_literal(line) {
                findings.push(format!("{place}: names \"{name}\""));
            }
        }
    }
    assert!(findings.is_empty(), "{}", findings.join("\n"));
}

#[test]
fn the_fiddler_name_check_can_fail() {
    assert_eq!(
        fiddler_name_literal(r#"tools.push(tool("fiddler_list_sessions"));"#),
        Some("fiddler_list_sessions".to_string())
    );
    assert_eq!(
        fiddler_name_literal(r#"name = "Get-Fiddler-Status""#),
        Some("get-fiddler-status".to_string())
    );
    assert_eq!(
        fiddler_name_literal(r#"msg("Fiddler saves SAZ files")"#),
        None
    );
}
