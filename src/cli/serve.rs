//! `rea environment-serve CAPTURE`: derive the environment from a capture at
//! start-up, then serve it over MCP (streamable HTTP at `/mcp`, or stdio),
//! the recorded API's own paths and the AgentEnv data plane.

use crate::cli::pipeline;
use rea_core::har::LeftOutEntry;
use rea_core::ErrorReport;
use rea_derivation::TemplateRule;
use rea_serve::{Environment, ServeConfig, ToolKind};
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// The opt-in template rules, in their fixed order; serving uses all of them
/// unless `--template-rule` says otherwise.
fn opt_in_rules() -> Vec<&'static str> {
    TemplateRule::ALL.iter().map(|r| r.name()).collect()
}

const DEFAULT_HOST: &str = "127.0.0.1";
const DEFAULT_PORT: u16 = 18765;

/// The command's flags, as clap parsed them.
#[derive(Debug, clap::Args)]
pub(crate) struct ServeArgs {
    /// The capture to serve (a HAR file, a native mitmproxy `.mitm`, or a `.saz` session archive).
    pub capture: PathBuf,
    /// The capture's format (`har`, `mitmproxy` or `saz`); detected by content when omitted.
    #[arg(long)]
    pub format: Option<String>,
    /// Interface to bind (default: $MCP_HOST, else 127.0.0.1).
    #[arg(long)]
    pub host: Option<String>,
    /// Port to bind (default: $MCP_PORT, else 18765; 0 picks a free port).
    #[arg(long)]
    pub port: Option<u16>,
    /// Serve MCP over stdin/stdout instead of HTTP; logs go to stderr.
    #[arg(long)]
    pub stdio: bool,
    /// Opt-in template rule to use (repeatable); `none` for none. Default: all five.
    #[arg(long = "template-rule", value_name = "RULE")]
    pub template_rules: Vec<String>,
    /// Start from this World (the data/get shape) instead of the capture's.
    #[arg(long, value_name = "FILE")]
    pub state: Option<PathBuf>,
    /// The only directory data/add may read file:// URIs from.
    #[arg(long, value_name = "DIR")]
    pub data_root: Option<PathBuf>,
    /// Refuse the capture when any entry fails validation, as inspection
    /// does (default: serve without such entries, listed at start-up).
    #[arg(long)]
    pub strict: bool,
    /// Start-up failures as the JSON error object on stderr, and a JSON
    /// start-up line (address, left-out entries) instead of the banner's.
    #[arg(long)]
    pub json: bool,
    /// A compiled `FileDescriptorSet` (protoc --include_imports
    /// --descriptor_set_out=FILE): the recorded gRPC methods' MCP tools then
    /// take and answer messages as JSON.
    #[arg(long, value_name = "FILE")]
    pub descriptor_set: Option<PathBuf>,
    #[command(flatten)]
    pub secrets: crate::cli::secrets::SecretArgs,
    /// Most MCP sessions open at once over HTTP (default 1024); a new one
    /// beyond it is refused until one closes or idles out.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_sessions: Option<u64>,
    /// Seconds an MCP session may stay idle before it is closed (default 300).
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub session_idle_timeout: Option<u64>,
    /// CORS on the app's paths: an origin (repeatable), `*`, or `off`
    /// (default: as the recording's own Access-Control-* answers, else off).
    #[arg(long, value_name = "ORIGIN|*|off")]
    pub cors: Vec<String>,
    /// Seconds a client has to send a request's header (also the longest
    /// wait for the next request on a kept-alive connection).
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub header_read_timeout: f64,
    /// Seconds a connection may stay without any byte read or written.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub idle_timeout: f64,
    /// Connections served at once (more wait in the listen backlog).
    #[arg(long, value_name = "N", default_value_t = 512)]
    pub max_connections: usize,
    /// Largest request body on the app's paths, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 16 * 1024 * 1024)]
    pub app_body_limit: usize,
    /// Largest request body on /agentenv, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 64 * 1024 * 1024)]
    pub data_plane_body_limit: usize,
    /// Largest request body on /mcp, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 16 * 1024 * 1024)]
    pub mcp_body_limit: usize,
    /// Where the admin routes live (journal, coverage, health, the live
    /// page). Default /_rea, moved automatically when the app uses it.
    #[arg(long, value_name = "PREFIX")]
    pub admin_prefix: Option<String>,
    /// Calls the request journal keeps (the newest).
    #[arg(long, value_name = "N", default_value_t = rea_serve::admin::DEFAULT_CAPACITY)]
    pub journal_size: usize,
    /// Isolated episodes: every MCP session, and every caller naming an
    /// episode (`AgentEnv-Episode: NAME`, or the data plane at
    /// `/episodes/NAME/agentenv`), gets its own World, created from the
    /// starting World. Default: off (everyone shares one World).
    #[arg(long)]
    pub isolate: bool,
    /// With --isolate: drop an episode unused for this many seconds.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 600,
        requires = "isolate"
    )]
    pub episode_idle: u64,
}

/// The resolved configuration the libraries see.
#[derive(Debug)]
struct Resolved {
    capture: PathBuf,
    format: Option<String>,
    host: String,
    port: u16,
    stdio: bool,
    rules: Vec<String>,
    state: Option<PathBuf>,
    data_root: Option<PathBuf>,
    /// `ENVIRONMENT_NAME`, when set.
    name: Option<String>,
    strict: bool,
    json: bool,
    descriptor_set: Option<PathBuf>,
    secrets: rea_core::secrets::SecretPolicy,
    sessions: rea_serve::SessionBounds,
    cors: rea_serve::CorsSetting,
    limits: rea_serve::Limits,
    admin_prefix: Option<String>,
    journal_size: usize,
    /// `--isolate`: the idle timeout of an episode.
    isolate: Option<std::time::Duration>,
}

/// A positive number of seconds, from a flag.
fn seconds(flag: &str, value: f64) -> Result<std::time::Duration, ErrorReport> {
    if !(value.is_finite() && value > 0.0 && value <= 86_400.0) {
        return Err(ErrorReport::input(
            "invalid_argument",
            format!("--{flag} must be a number of seconds above 0 and at most 86400, got {value}"),
        )
        .detail("argument", flag.replace('-', "_")));
    }
    Ok(std::time::Duration::from_secs_f64(value))
}

fn limits(args: &ServeArgs) -> Result<rea_serve::Limits, ErrorReport> {
    for (flag, n) in [
        ("max-connections", args.max_connections),
        ("app-body-limit", args.app_body_limit),
        ("data-plane-body-limit", args.data_plane_body_limit),
        ("mcp-body-limit", args.mcp_body_limit),
    ] {
        if n == 0 {
            return Err(ErrorReport::input(
                "invalid_argument",
                format!("--{flag} must be at least 1"),
            )
            .detail("argument", flag.replace('-', "_")));
        }
    }
    Ok(rea_serve::Limits {
        header_read_timeout: seconds("header-read-timeout", args.header_read_timeout)?,
        idle_timeout: seconds("idle-timeout", args.idle_timeout)?,
        max_connections: args.max_connections,
        app_body_bytes: args.app_body_limit,
        data_plane_body_bytes: args.data_plane_body_limit,
        mcp_body_bytes: args.mcp_body_limit,
    })
}

fn resolve(args: ServeArgs) -> Result<Resolved, ErrorReport> {
    let limits = limits(&args)?;
    let host = args
        .host
        .or_else(|| {
            std::env::var("MCP_HOST")
                .ok()
                .filter(|h| !h.trim().is_empty())
        })
        .unwrap_or_else(|| DEFAULT_HOST.to_string());
    let port = match args.port {
        Some(p) => p,
        None => match std::env::var("MCP_PORT") {
            Ok(p) if !p.trim().is_empty() => p.trim().parse().map_err(|_| {
                ErrorReport::input(
                    "invalid_argument",
                    format!("MCP_PORT is not a port number: {p}"),
                )
                .detail("argument", "MCP_PORT")
            })?,
            _ => DEFAULT_PORT,
        },
    };
    let rules = resolve_rules(&args.template_rules)?;
    let cors = rea_serve::CorsSetting::parse(&args.cors)
        .map_err(|m| ErrorReport::input("invalid_argument", m).detail("argument", "cors"))?;
    if let Some(root) = &args.data_root {
        if !root.is_dir() {
            return Err(ErrorReport::input(
                "invalid_argument",
                format!("--data-root {} is not a directory", root.display()),
            )
            .detail("argument", "data_root"));
        }
    }
    Ok(Resolved {
        capture: args.capture,
        format: args.format,
        host,
        port,
        stdio: args.stdio,
        rules,
        state: args.state,
        data_root: args.data_root,
        name: std::env::var("ENVIRONMENT_NAME")
            .ok()
            .filter(|n| !n.trim().is_empty()),
        strict: args.strict,
        json: args.json,
        descriptor_set: args.descriptor_set,
        secrets: args.secrets.policy(),
        sessions: session_bounds(args.max_sessions, args.session_idle_timeout),
        cors,
        limits,
        admin_prefix: args.admin_prefix,
        journal_size: args.journal_size,
        isolate: args
            .isolate
            .then(|| std::time::Duration::from_secs(args.episode_idle.max(1))),
    })
}

/// `--max-sessions` and `--session-idle-timeout` over the defaults.
fn session_bounds(max: Option<u64>, idle_seconds: Option<u64>) -> rea_serve::SessionBounds {
    let defaults = rea_serve::SessionBounds::default();
    rea_serve::SessionBounds {
        max_sessions: max.map_or(defaults.max_sessions, |n| {
            usize::try_from(n).unwrap_or(usize::MAX)
        }),
        idle_timeout: idle_seconds.map_or(defaults.idle_timeout, std::time::Duration::from_secs),
    }
}

/// `--template-rule` values → the rules in effect, in their fixed order.
pub(crate) fn resolve_rules(given: &[String]) -> Result<Vec<String>, ErrorReport> {
    if given.is_empty() {
        return Ok(opt_in_rules().iter().map(|r| r.to_string()).collect());
    }
    if given.iter().any(|r| r == "none") {
        if given.len() > 1 {
            return Err(ErrorReport::input(
                "invalid_argument",
                "--template-rule none cannot be combined with other rules",
            )
            .detail("argument", "template_rule"));
        }
        return Ok(Vec::new());
    }
    let all = opt_in_rules();
    for rule in given {
        if !all.contains(&rule.as_str()) {
            return Err(ErrorReport::input(
                "invalid_argument",
                format!(
                    "unknown template rule {rule}; the opt-in rules are {} (or none)",
                    all.join(", ")
                ),
            )
            .detail("argument", "template_rule"));
        }
    }
    Ok(all
        .iter()
        .filter(|r| given.iter().any(|g| g == *r))
        .map(|r| r.to_string())
        .collect())
}

/// Runs the command; returns the process exit code.
pub(crate) fn run(args: ServeArgs) -> u8 {
    let json = args.json;
    match run_inner(args) {
        Ok(()) => 0,
        Err(report) => crate::cli::output::fail(&report, json),
    }
}

fn run_inner(args: ServeArgs) -> Result<(), ErrorReport> {
    let cfg = resolve(args)?;
    let started = Instant::now();
    let (env, left_out) = pipeline::build(
        &cfg.capture,
        cfg.format.as_deref(),
        &cfg.rules,
        cfg.state.as_deref(),
        cfg.name.clone(),
        cfg.strict,
        cfg.descriptor_set.as_deref(),
        &cfg.secrets,
        &mut |stage| {
            log(&format!(
                "[{:>6.2}s] {stage}",
                started.elapsed().as_secs_f64()
            ))
        },
    )?;
    let env = match cfg.isolate {
        Some(idle) => env.with_isolation(idle),
        None => env,
    };
    let env = Arc::new(env.with_session_bounds(cfg.sessions));
    operate(&env, &cfg)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // A worker that allocated rows of a World since retired holds their
        // pages until it gives them back itself.
        .on_thread_park(rea_serve::give_back_if_retired)
        .build()
        .map_err(|e| {
            ErrorReport::new(
                "serve_io",
                rea_core::Category::Unavailable,
                format!("cannot start the runtime: {e}"),
            )
        })?;
    let handle = runtime.handle().clone();
    rea_serve::on_retired_wake(move || {
        // Each idle worker wakes for an empty task, then parks again.
        for _ in 0..handle.metrics().num_workers() {
            handle.spawn(async {});
        }
    });
    if cfg.stdio {
        print_summary(&env, &cfg, None);
        started_json(&cfg, None, &left_out);
        log(&format!(
            "ready in {:.2}s; serving MCP on stdio",
            started.elapsed().as_secs_f64()
        ));
        env.ops().set_ready();
        let served = runtime
            .block_on(async {
                let stop = shutdown_signal();
                rea_serve::run_stdio(env.clone(), stop).await
            })
            .map_err(|e| e.report());
        print_coverage(&env);
        return served;
    }
    runtime.block_on(async {
        let stop = shutdown_signal();
        let addr = bind_addr(&cfg.host, cfg.port)?;
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| {
            ErrorReport::new(
                "serve_io",
                rea_core::Category::Unavailable,
                format!("cannot listen on {addr}: {e}"),
            )
            .detail("address", addr.to_string())
        })?;
        let local = listener.local_addr().map_err(|e| {
            ErrorReport::new("serve_io", rea_core::Category::Unavailable, e.to_string())
        })?;
        let config = ServeConfig {
            host: cfg.host.clone(),
            port: local.port(),
            data_root: cfg.data_root.clone(),
            limits: cfg.limits.clone(),
            cors: cfg.cors.clone(),
        };
        if !config.is_loopback() {
            log(&format!(
                "warning: bound to {} (not loopback): anyone who can reach this address can read and change the environment",
                cfg.host
            ));
        }
        print_summary(&env, &cfg, Some(local));
        started_json(&cfg, Some(local), &left_out);
        log(&format!(
            "ready in {:.2}s; listening on http://{local}",
            started.elapsed().as_secs_f64()
        ));
        rea_serve::run(listener, env.clone(), &config, stop)
            .await
            .map_err(|e| e.report())?;
        print_coverage(&env);
        log("stopped");
        Ok(())
    })
}

/// The operator's side: the admin prefix, the journal's size and what the
/// live page says the environment was started from.
fn operate(env: &Environment, cfg: &Resolved) -> Result<(), ErrorReport> {
    let (_, warning) =
        rea_serve::admin::choose_prefix(env, cfg.admin_prefix.as_deref()).map_err(|message| {
            ErrorReport::input("invalid_argument", message).detail("argument", "admin_prefix")
        })?;
    if let Some(warning) = warning {
        log(&warning);
    }
    env.ops().journal().set_capacity(cfg.journal_size);
    env.ops().set_about(serde_json::json!({
        "capture": cfg.capture.display().to_string(),
        "format": cfg.format,
        "template_rules": cfg.rules,
        "state": cfg.state.as_ref().map(|s| s.display().to_string()),
        "strict": cfg.strict,
    }));
    Ok(())
}

/// The end-of-run coverage summary on stderr.
fn print_coverage(env: &Environment) {
    for line in rea_serve::admin::coverage_summary(env) {
        log(&line);
    }
}

fn bind_addr(host: &str, port: u16) -> Result<SocketAddr, ErrorReport> {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let ip = if bare.eq_ignore_ascii_case("localhost") {
        std::net::IpAddr::from([127, 0, 0, 1])
    } else {
        bare.parse().map_err(|_| {
            ErrorReport::input(
                "invalid_argument",
                format!("--host {host} is not an IP address or localhost"),
            )
            .detail("argument", "host")
        })?
    };
    Ok(SocketAddr::new(ip, port))
}

/// Registers the Ctrl-C and SIGTERM handlers now (so a signal that arrives
/// right after start-up is not missed) and resolves when either arrives.
fn shutdown_signal() -> impl std::future::Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let term = signal(SignalKind::terminate()).ok();
        let int = signal(SignalKind::interrupt()).ok();
        async move {
            let wait = |s: Option<tokio::signal::unix::Signal>| async move {
                match s {
                    Some(mut s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                _ = wait(term) => {},
                _ = wait(int) => {},
            }
            log("shutting down");
        }
    }
    #[cfg(not(unix))]
    {
        async move {
            let _ = tokio::signal::ctrl_c().await;
            log("shutting down");
        }
    }
}

fn print_summary(env: &Environment, cfg: &Resolved, addr: Option<SocketAddr>) {
    let reads: Vec<_> = env.tools().filter(|t| t.kind == ToolKind::Read).collect();
    let writes: Vec<_> = env.tools().filter(|t| t.kind == ToolKind::Write).collect();
    log(&format!(
        "environment {}: {} tools ({} read, {} write)",
        env.name(),
        reads.len() + writes.len(),
        reads.len(),
        writes.len()
    ));
    for t in reads.iter().chain(writes.iter()) {
        let how = match (&t.kind, t.reason.as_deref()) {
            (ToolKind::Read, Some(reason)) => format!("replays recordings ({reason})"),
            _ => t.plan.clone(),
        };
        log(&format!(
            "  {:<5} {:<6} {}  [{}: {how}]",
            if t.kind == ToolKind::Read {
                "read"
            } else {
                "write"
            },
            t.tool.method,
            t.tool.path_template,
            t.tool.name
        ));
    }
    let unserved: Vec<_> = env.all_tools().iter().filter(|t| !t.served).collect();
    if !unserved.is_empty() {
        log("write plans not served:");
        for t in unserved {
            log(&format!(
                "  {} {}  [{}: {}]",
                t.tool.method,
                t.tool.path_template,
                t.tool.name,
                t.reason.as_deref().unwrap_or("not served")
            ));
        }
    }
    if env.isolated() {
        log("episodes: isolated (each MCP session, and each AgentEnv-Episode name, has its own World)");
    }
    log(&format!(
        "template rules: {}",
        if cfg.rules.is_empty() {
            "none".to_string()
        } else {
            cfg.rules.join(", ")
        }
    ));
    if let Some(addr) = addr {
        let base = format!("http://{addr}");
        log(&format!("card:       {base}/.well-known/agent-env.json"));
        log(&format!("data plane: {base}/agentenv"));
        log(&format!("MCP:        {base}/mcp"));
        log(&format!(
            "HTTP:       {base}/  (the recorded API's own paths)"
        ));
        log(&format!(
            "live page:  {base}{}/  (journal {0}/requests, coverage {0}/coverage, health {0}/health)",
            env.ops().prefix()
        ));
    }
}

/// With `--json`: one JSON line saying the environment started, where it
/// listens and which entries were left out; on stdout over HTTP, on stderr
/// under `--stdio` (stdout carries MCP there).
fn started_json(cfg: &Resolved, addr: Option<SocketAddr>, left_out: &[LeftOutEntry]) {
    if !cfg.json {
        return;
    }
    let mut value = crate::cli::decode::left_out_json(left_out);
    value["event"] = "started".into();
    value["listening"] = addr.map(|a| format!("http://{a}")).into();
    value["strict"] = cfg.strict.into();
    if cfg.stdio {
        log(&value.to_string());
    } else {
        let _ = crate::cli::output::print_text(&format!("{value}\n"));
    }
}

/// One line on stderr (stdout stays free for MCP messages under --stdio).
pub(crate) fn log(line: &str) {
    // After the log lines still buffered, so stderr keeps its order.
    crate::cli::logging::flush();
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{line}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_rules_default_to_all_and_keep_their_order() {
        assert_eq!(resolve_rules(&[]).unwrap().len(), 5);
        assert!(resolve_rules(&["none".into()]).unwrap().is_empty());
        assert_eq!(
            resolve_rules(&["sibling-variance".into(), "after-uid-literal".into()]).unwrap(),
            ["after-uid-literal", "sibling-variance"]
        );
        assert!(resolve_rules(&["bogus".into()]).is_err());
        assert!(resolve_rules(&["none".into(), "opaque-token".into()]).is_err());
    }

    #[test]
    fn hosts_bind_as_addresses() {
        assert_eq!(
            bind_addr("localhost", 1).unwrap().to_string(),
            "127.0.0.1:1"
        );
        assert_eq!(bind_addr("[::1]", 2).unwrap().to_string(), "[::1]:2");
        assert!(bind_addr("example.com", 3).is_err());
    }
}
