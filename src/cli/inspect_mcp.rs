//! `rea inspect-mcp`: serves `inspect_web_network_capture` and
//! `inspect_analysis_view` as MCP tools over stdin/stdout until the client
//! closes the connection.

use rea_core::{Category, ErrorReport};

/// The command takes no arguments: the client names everything per call.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// Print a startup failure as JSON on stderr.
    #[arg(long)]
    json: bool,
}

/// Runs the server and returns the exit code.
pub(crate) fn run(args: &Args) -> u8 {
    match serve() {
        Ok(()) => 0,
        Err(report) => super::output::fail(&report, args.json),
    }
}

fn serve() -> Result<(), ErrorReport> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| {
            ErrorReport::new(
                "serve_io",
                Category::Unavailable,
                format!("cannot start the runtime: {e}"),
            )
        })?;
    runtime
        .block_on(rea_serve::inspect_mcp::run_stdio())
        .map_err(|e| e.report())
}
