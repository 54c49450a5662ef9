//! The `rea` command line: argument parsing and dispatch only. Each command
//! lives in `src/cli/<command>.rs`; the log set-up (`-v`, `-q`,
//! `--log-format`, `RUST_LOG`) in `src/cli/logging.rs`.

mod cli;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc keeps a thread's emptied pages until that thread allocates
/// again: rea gives them back at once after a large data-plane load.
#[cfg(feature = "mimalloc")]
fn give_back_mimalloc() {
    // SAFETY: `mi_collect` only frees and purges the calling thread's
    // unused memory of the allocator in use.
    unsafe { libmimalloc_sys::mi_collect(true) }
}

/// No transparent huge pages for this process: mimalloc advises them for
/// its arenas, and every purged 2 MiB range was then faulted back in and
/// zeroed whole (two thirds of a 100k-row `data/add` went to zeroing
/// pages). Without them that add takes a quarter less CPU and RSS is
/// lower, fresh and after a reset (docs/serving.md, allocators).
#[cfg(all(feature = "mimalloc", target_os = "linux"))]
fn no_huge_pages() {
    // SAFETY: `PR_SET_THP_DISABLE` sets one flag of the calling process;
    // it reads and writes no memory of ours.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// A thread freeing memory of a segment whose owning thread has ended takes
/// that segment over (mimalloc's `abandoned_reclaim_on_free`, option 26 of
/// mimalloc 2.x; the binding names no constant for it), so a retired World
/// built on a data-plane load thread goes back to the system when the
/// retiring thread ends, not when some other thread next reclaims it.
#[cfg(feature = "mimalloc")]
fn reclaim_on_free() {
    const MI_OPTION_ABANDONED_RECLAIM_ON_FREE: libmimalloc_sys::mi_option_t = 26;
    // SAFETY: setting an option of the allocator before threads start.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_ABANDONED_RECLAIM_ON_FREE, 1) }
}

#[cfg(all(feature = "jemalloc", not(feature = "mimalloc")))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[derive(Parser)]
#[command(
    name = "rea",
    version = env!("REA_VERSION_LINE"),
    about = "Turn a recorded web capture into a replayable fake of its API"
)]
struct Cli {
    #[command(flatten)]
    logging: cli::logging::LogArgs,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Decode a capture into Evidence (records, sidecars, redactions).
    InspectWebNetworkCapture(cli::inspect::Args),
    /// Answer a derived view (api-surface, environment-manifest, capture) over inspection Evidence.
    InspectAnalysisView(cli::analysis_view::Args),
    /// Decode a capture and derive its environment manifest (the tool surface) in one go.
    EnvironmentManifest(cli::environment_manifest::Args),
    /// Derive the environment state: entities, documents, view and write plans.
    EnvironmentState(cli::environment_state::Args),
    /// Infer the app model: resources, write semantics, preconditions, validation, errors.
    EnvironmentModel(cli::environment_model::Args),
    /// Serve the capture as a stateful fake: MCP, its own HTTP paths, the AgentEnv data plane.
    EnvironmentServe(cli::serve::ServeArgs),
    /// Serve inspect-web-network-capture and inspect-analysis-view as MCP tools over stdio.
    InspectMcp(cli::inspect_mcp::Args),
    /// Build the fake from TRAIN and score a session replayed through it in-process.
    EnvironmentCheck(cli::check::Args),
    /// Print the OpenAPI 3.1 document of the served environment (also at /_rea/openapi.json).
    EnvironmentOpenapi(cli::environment_openapi::Args),
}

fn main() -> ExitCode {
    #[cfg(all(feature = "mimalloc", target_os = "linux"))]
    no_huge_pages();
    #[cfg(feature = "mimalloc")]
    reclaim_on_free();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return ExitCode::from(cli::usage_error(e)),
    };
    let _logs = cli::logging::init(&cli.logging);
    #[cfg(feature = "mimalloc")]
    rea_serve::on_give_back(give_back_mimalloc);
    let code = match cli.command {
        Command::InspectWebNetworkCapture(args) => cli::inspect::run(args),
        Command::InspectAnalysisView(args) => cli::analysis_view::run(&args),
        Command::EnvironmentManifest(args) => cli::environment_manifest::run(&args),
        Command::EnvironmentState(args) => cli::environment_state::run(args),
        Command::EnvironmentModel(args) => cli::environment_model::run(args),
        Command::EnvironmentServe(args) => cli::serve::run(args),
        Command::InspectMcp(args) => cli::inspect_mcp::run(&args),
        Command::EnvironmentCheck(args) => cli::check::run(&args),
        Command::EnvironmentOpenapi(args) => cli::environment_openapi::run(&args),
    };
    ExitCode::from(code)
}
