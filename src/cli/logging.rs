//! Logs: `tracing` to stderr only (stdout carries MCP under `--stdio` and
//! documents elsewhere). `RUST_LOG` wins when set; otherwise rea's own
//! targets log at info (`-v` debug, `-vv` trace, `-q` warn, `-qq` error)
//! and other crates at warn. `--log-format json` writes one JSON object a line.

use std::io::IsTerminal;
use tracing_subscriber::EnvFilter;

/// The global log flags.
#[derive(Debug, clap::Args)]
pub(crate) struct LogArgs {
    /// More log output (-v debug, -vv trace); RUST_LOG overrides.
    #[arg(short = 'v', long = "verbose", action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    /// Less log output (-q warnings only, -qq errors only).
    #[arg(short = 'q', long = "quiet", action = clap::ArgAction::Count, global = true)]
    pub quiet: u8,
    /// Log line format on stderr.
    #[arg(long = "log-format", value_enum, default_value_t = LogFormat::Text, global = true)]
    pub log_format: LogFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum LogFormat {
    Text,
    Json,
}

/// The level of rea's own targets for the flags.
fn level(args: &LogArgs) -> &'static str {
    match i16::from(args.verbose) - i16::from(args.quiet) {
        i16::MIN..=-2 => "error",
        -1 => "warn",
        0 => "info",
        1 => "debug",
        _ => "trace",
    }
}

/// The filter: `RUST_LOG` when set and valid, else the flags' level.
fn filter(args: &LogArgs) -> EnvFilter {
    if let Ok(spec) = std::env::var(EnvFilter::DEFAULT_ENV) {
        if !spec.trim().is_empty() {
            if let Ok(filter) = EnvFilter::try_new(&spec) {
                return filter;
            }
            eprintln!("warning: RUST_LOG={spec:?} is not a valid filter; using the flags");
        }
    }
    let level = level(args);
    EnvFilter::new(format!("warn,rea={level}"))
}

/// Installs the subscriber (once, at start).
pub(crate) fn init(args: &LogArgs) {
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter(args))
        .with_writer(std::io::stderr);
    let _ = match args.log_format {
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .try_init(),
        LogFormat::Text => builder
            .with_ansi(std::io::stderr().is_terminal())
            .try_init(),
    };
}
