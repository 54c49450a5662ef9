//! The stable-toolchain driver: for one target, runs every corpus input,
//! then mutates corpus inputs for a bounded time or number of runs. Inputs
//! that reach an outcome not seen before join the in-memory pool (a crude
//! stand-in for coverage). A panic or a broken invariant is a finding,
//! written to the artifacts folder with its SHA-256 as name.

use crate::mutate::{self, Rng};
use crate::targets::{self, Shape};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The execution in progress (when it started, its input), for the watchdog.
type Current = Arc<Mutex<Option<(Instant, Vec<u8>)>>>;

/// Ends the process when one execution outlives `hang`; returns the slot
/// the driver fills before each execution and a flag that stops it.
fn watchdog(target: &str, artifacts: &Path, hang: Duration) -> (Current, Arc<Mutex<bool>>) {
    let current: Current = Arc::new(Mutex::new(None));
    let stop = Arc::new(Mutex::new(false));
    let (slot, done) = (current.clone(), stop.clone());
    let (target, artifacts) = (target.to_string(), artifacts.to_path_buf());
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_millis(250));
        if *done.lock().unwrap_or_else(|p| p.into_inner()) {
            return;
        }
        let guard = slot.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((at, data)) = guard.as_ref() {
            if at.elapsed() > hang {
                let _ = std::fs::create_dir_all(&artifacts);
                let path = artifacts.join(format!("hang-{}", hex(data)));
                let _ = std::fs::write(&path, data);
                eprintln!(
                    "{target}: one execution took over {} s; its input is {}",
                    hang.as_secs(),
                    path.display()
                );
                std::process::exit(2);
            }
        }
    });
    (current, stop)
}

/// Bounds and places for one run.
#[derive(Debug, Clone)]
pub struct Config {
    pub corpus: PathBuf,
    pub artifacts: PathBuf,
    pub seconds: f64,
    pub max_runs: u64,
    pub seed: u64,
    /// One execution longer than this ends the process (exit 2), leaving
    /// its input as `hang-<sha256>` in the artifacts folder.
    pub hang: Duration,
}

/// What one target's run found.
#[derive(Debug, Default)]
pub struct Report {
    pub executions: u64,
    pub corpus_inputs: usize,
    pub outcomes: BTreeMap<String, u64>,
    /// (artifact path, what broke)
    pub findings: Vec<(PathBuf, String)>,
    /// Inputs slower than `SLOW` (kept as `slow-<sha256>`; not findings).
    pub slow: Vec<(PathBuf, Duration)>,
    pub slowest: Duration,
    pub elapsed: Duration,
}

/// An execution slower than this keeps its input for a look.
pub const SLOW: Duration = Duration::from_secs(5);

/// The corpus inputs of a folder, in name order.
pub fn corpus(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    files
        .into_iter()
        .filter(|p| p.is_file())
        .filter_map(|p| std::fs::read(&p).ok().map(|b| (p, b)))
        .collect()
}

thread_local! {
    /// Where the last panic on this thread happened (set by the quiet hook).
    static PANIC_AT: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// Replaces the default panic hook (a backtrace per finding) with one that
/// only remembers the panic's location for the finding's message.
pub fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        PANIC_AT.with(|p| *p.borrow_mut() = at);
    }));
}

/// One execution; a panic becomes `Err` with its message and location.
pub fn execute(target: &str, data: &[u8]) -> targets::Outcome {
    match catch_unwind(AssertUnwindSafe(|| targets::run(target, data))) {
        Ok(outcome) => outcome,
        Err(panic) => {
            let text = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_string());
            let at = PANIC_AT.with(|p| p.borrow().clone());
            Err(format!("panic at {at}: {text}"))
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .take(12)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Runs `target` as `config` bounds it.
pub fn run(target: &str, config: &Config) -> Report {
    let started = Instant::now();
    let mut report = Report::default();
    let seeds = corpus(&config.corpus);
    report.corpus_inputs = seeds.len();
    let mut pool: Vec<Vec<u8>> = seeds.iter().map(|(_, b)| b.clone()).collect();
    if pool.is_empty() {
        pool.push(Vec::new());
    }
    let mut seen = BTreeSet::new();
    let mut found = BTreeSet::new();
    let mut rng = Rng::new(config.seed);
    let budget = Duration::from_secs_f64(config.seconds.max(0.0));
    let (current, stop) = watchdog(target, &config.artifacts, config.hang);
    let mut record = |data: &[u8], report: &mut Report, pool: &mut Vec<Vec<u8>>, seed: bool| {
        let t = Instant::now();
        *current.lock().unwrap_or_else(|p| p.into_inner()) = Some((t, data.to_vec()));
        let outcome = execute(target, data);
        *current.lock().unwrap_or_else(|p| p.into_inner()) = None;
        let took = t.elapsed();
        report.slowest = report.slowest.max(took);
        if took > SLOW && report.slow.len() < 16 {
            let _ = std::fs::create_dir_all(&config.artifacts);
            let path = config.artifacts.join(format!("slow-{}", hex(data)));
            let _ = std::fs::write(&path, data);
            report.slow.push((path, took));
        }
        report.executions += 1;
        match outcome {
            Ok(signature) => {
                *report.outcomes.entry(signature.clone()).or_default() += 1;
                if seen.insert(signature) && !seed && pool.len() < 512 {
                    pool.push(data.to_vec());
                }
            }
            Err(broken) => {
                let name = hex(data);
                if found.insert(name.clone()) {
                    let _ = std::fs::create_dir_all(&config.artifacts);
                    let path = config.artifacts.join(format!("finding-{name}"));
                    let _ = std::fs::write(&path, data);
                    report.findings.push((path, broken));
                }
            }
        }
    };
    for (_, data) in &seeds {
        record(data, &mut report, &mut pool, true);
    }
    while report.executions < config.max_runs && started.elapsed() < budget {
        let mut data = rng.pick(&pool).clone();
        let other = rng.pick(&pool).clone();
        let max = targets::max_len(target);
        match targets::shape(target) {
            Shape::Json => mutate::json(&mut rng, &mut data, &other, max),
            Shape::Zip => mutate::zip_members(&mut rng, &mut data, &other, max),
            Shape::Bytes => mutate::bytes(&mut rng, &mut data, &other, max),
        }
        record(&data, &mut report, &mut pool, false);
    }
    *stop.lock().unwrap_or_else(|p| p.into_inner()) = true;
    report.elapsed = started.elapsed();
    report
}
