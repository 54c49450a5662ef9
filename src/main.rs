//! The `rea` command line: argument parsing and dispatch only; each
//! command lives in `cli/<command>.rs`.

mod cli;

use clap::{Parser, Subcommand};

/// Turn a recorded web capture into a stateful, replayable fake of the application's API.
#[derive(Parser)]
#[command(name = "rea", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Decode a capture into Evidence (records, sidecars, redactions).
    InspectWebNetworkCapture(cli::inspect::Args),
    /// Serve the capture as a stateful fake: MCP, its own HTTP paths, the AgentEnv data plane.
    EnvironmentServe(cli::serve::ServeArgs),
}

fn main() {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => std::process::exit(cli::usage_error(e)),
    };
    let code = match cli.command {
        Command::InspectWebNetworkCapture(args) => cli::inspect::run(args),
        Command::EnvironmentServe(args) => cli::serve::run(args),
    };
    std::process::exit(code);
}
