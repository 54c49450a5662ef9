//! `rea environment-check`: the instrument that scores a fake built from one
//! session on another, in-process, by the fidelity harness's rules. Runs the
//! built binary on the real developer pairs in `tests/fixtures/`.

mod common;

use common::{rea, repo_root};
use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

/// A developer capture: the project's copy in `tests/fixtures/` (Kinto),
/// else the shared fixture set beside the repo (WordPress, MLflow).
fn pair(app: &str, name: &str) -> PathBuf {
    let local = repo_root().join("tests/fixtures").join(app).join(name);
    if local.is_file() {
        local
    } else {
        repo_root().join("../shared/fixtures").join(app).join(name)
    }
}

fn run(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(rea())
        .arg("environment-check")
        .args(args)
        .env_remove("ENVIRONMENT_NAME")
        .output()
        .expect("run rea environment-check")
}

fn check_json(app: &str) -> Value {
    let (train, scored) = (pair(app, "dev-a.har"), pair(app, "dev-b.har"));
    let out = run(&[
        train.as_os_str(),
        "--against".as_ref(),
        scored.as_os_str(),
        "--json".as_ref(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON document")
}

/// dev-a → dev-b, matched of scored, measured on 2026-12-01 (the app model
/// and list semantics with shared id sequences, numbers within a key and
/// lists that follow the model's writes) two ways: `fidelity.py` against `rea environment-serve` (the
/// floor table of tests/fidelity.rs, via `bash tests/fidelity/pairs.sh`) and
/// `rea environment-check dev-a.har --against dev-b.har`. They agreed on
/// every request. The test fails when environment-check scores more than
/// one request below the fidelity.py value (a regression of serving or of
/// the instrument); tests/fidelity.rs checks the two agree live.
const MEASURED: [(&str, usize, usize, usize); 10] = [
    // (app, fidelity.py matched, environment-check matched, scored)
    ("kinto", 40, 40, 43),
    ("wordpress", 26, 26, 43),
    ("mlflow", 28, 28, 43),
    ("jsonserver", 42, 42, 42),
    ("couch", 42, 42, 42),
    ("redmine", 21, 21, 42),
    ("drf", 39, 39, 47),
    ("datasette", 26, 26, 42),
    ("mediawiki", 9, 9, 42),
    ("jupyter", 37, 37, 49),
];

#[test]
fn environment_check_is_within_one_request_of_the_measured_fidelity_scores() {
    let reports: Vec<Value> = std::thread::scope(|s| {
        let runs: Vec<_> = MEASURED
            .iter()
            .map(|&(app, ..)| s.spawn(move || check_json(app)))
            .collect();
        runs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for ((app, fid, chk, total), report) in MEASURED.iter().zip(&reports) {
        let matched = report["summary"]["matched"].as_u64().unwrap() as usize;
        assert_eq!(
            report["summary"]["total"], *total as u64,
            "{app}: scored requests"
        );
        assert!(
            matched + 1 >= *fid.max(chk),
            "{app}: environment-check matched {matched}/{total}, more than one below the measured {fid} (fidelity.py) / {chk} (environment-check)"
        );
        let by_kind = &report["by_kind"];
        assert_eq!(
            by_kind["read"]["total"].as_u64().unwrap()
                + by_kind["write"]["total"].as_u64().unwrap(),
            *total as u64
        );
        // Every app-model answer is counted per kind and basis, those no
        // confirmed inference derived apart.
        let answers = report["model_answers"].as_array().expect("model_answers");
        assert!(!answers.is_empty(), "{app}: the app model answered nothing");
        for a in answers {
            assert!(
                matches!(a["inference"].as_str(), Some("confirmed" | "convention")),
                "{a}"
            );
            assert!(a["matched"].as_u64() <= a["total"].as_u64());
        }
        let by_route = &report["by_route"];
        assert_eq!(
            by_route["seen"]["matched"].as_u64().unwrap()
                + by_route["unseen"]["matched"].as_u64().unwrap(),
            matched as u64
        );
    }
}

#[test]
fn text_report_names_each_request_its_verdict_and_the_first_difference() {
    let (train, scored) = (pair("kinto", "dev-a.har"), pair("kinto", "dev-b.har"));
    let out = run(&[train.as_os_str(), "--against".as_ref(), scored.as_os_str()]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "# train=dev-a.har scored=dev-b.har");
    let rows: Vec<&&str> = lines.iter().filter(|l| !l.starts_with('#')).collect();
    // one line per scored request, then three totals lines and the score
    assert!(rows[0].starts_with("   1 GET     /v1/  ok"), "{}", rows[0]);
    let mismatches: Vec<&&&str> = rows.iter().filter(|l| l.contains("  MISMATCH  ")).collect();
    assert!(!mismatches.is_empty());
    for line in &mismatches {
        let reason = line.split("  MISMATCH  ").nth(1).unwrap();
        assert!(
            reason.starts_with("status ")
                || reason.starts_with('/')
                || reason.starts_with("(body)"),
            "a reason names the status or a JSON pointer: {line}"
        );
    }
    assert!(text.contains("\nread "), "{text}");
    assert!(text.contains("\nroute seen in train "), "{text}");
    assert!(text.contains("\nmisses by cause: "), "{text}");
    assert!(text.contains("\napp model answered: "), "{text}");
    assert!(
        text.contains("\napp-model answers not derived from a confirmed inference: "),
        "{text}"
    );
    let last = lines.last().unwrap();
    assert!(
        last.starts_with("fidelity: ") && last.ends_with("/43)"),
        "{last}"
    );
}

#[test]
fn generated_ids_are_mapped_and_later_requests_rewritten_through_the_real_server() {
    // Kinto dev-b creates an order (the server picks a uuid), then reads and
    // patches it by that id: the candidate's own uuid must be sent instead.
    let report = check_json("kinto");
    let rows = report["requests"].as_array().unwrap();
    let create = rows.iter().find(|r| r["method"] == "POST").unwrap();
    assert_eq!(create["verdict"], "match", "{create}");
    let rewritten: Vec<&Value> = rows
        .iter()
        .filter(|r| r.get("sent_path").is_some())
        .collect();
    assert!(!rewritten.is_empty(), "no request was rewritten");
    let first = rewritten[0];
    assert_ne!(first["sent_path"], first["path"]);
    assert_eq!(first["verdict"], "match", "{first}");
    assert!(report["id_map_size"].as_u64().unwrap() >= 1);
}

#[test]
fn without_against_it_builds_from_the_first_half_and_scores_the_rest() {
    let train = pair("kinto", "dev-a.har");
    let out = run(&[train.as_os_str(), "--json".as_ref()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["mode"]["kind"], "leave-later-out");
    assert_eq!(report["mode"]["entries"], 40);
    assert_eq!(report["mode"]["built_from_entries"], 20);
    let rows = report["requests"].as_array().unwrap();
    assert_eq!(rows.len(), 20);
    assert_eq!(
        rows[0]["i"], 21,
        "scored entries keep their ordinal in TRAIN"
    );
    // the same JSON twice: the report is deterministic
    let again = run(&[train.as_os_str(), "--json".as_ref()]);
    let again: Value = serde_json::from_slice(&again.stdout).unwrap();
    let strip = |v: &Value| -> Vec<(Value, Value)> {
        v["requests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["i"].clone(), r["verdict"].clone()))
            .collect()
    };
    assert_eq!(strip(&report), strip(&again));
}

#[test]
fn a_missing_capture_is_an_input_error_in_the_contract() {
    let missing = repo_root().join("tests/fixtures/kinto/no-such.har");
    let out = run(&[missing.as_os_str(), "--json".as_ref()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err: Value = serde_json::from_slice(&out.stderr).expect("the error object");
    assert_eq!(err["code"], "capture_not_found", "{err}");
    let train = pair("kinto", "dev-a.har");
    let out = run(&[
        train.as_os_str(),
        "--against".as_ref(),
        missing.as_os_str(),
        "--json".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err: Value = serde_json::from_slice(&out.stderr).expect("the error object");
    assert_eq!(err["code"], "capture_not_found", "{err}");
}

/// The six developer directions (app, train, scored).
const DIRECTIONS: [(&str, &str, &str); 6] = [
    ("kinto", "dev-a.har", "dev-b.har"),
    ("kinto", "dev-b.har", "dev-a.har"),
    ("wordpress", "dev-a.har", "dev-b.har"),
    ("wordpress", "dev-b.har", "dev-a.har"),
    ("mlflow", "dev-a.har", "dev-b.har"),
    ("mlflow", "dev-b.har", "dev-a.har"),
];

fn harness_dir() -> PathBuf {
    let shared = repo_root().join("../shared/fidelity");
    if shared.join("fidelity.py").is_file() {
        shared
    } else {
        repo_root().join("tests/fidelity")
    }
}

/// Replays one direction through rea's port against the scripted candidate
/// `differential.py` wrote, and lists every request where the verdict or
/// the request sent differs from what fidelity.py decided and sent.
fn differential(
    dir: &std::path::Path,
    tag: &str,
    train: &std::path::Path,
    scored: &std::path::Path,
) -> Vec<String> {
    use base64::Engine as _;
    use rea_serve::check::{load_har, score_session, Answer, Verdict};
    let read = |name: String| -> Value {
        serde_json::from_slice(&std::fs::read(dir.join(name)).unwrap()).unwrap()
    };
    let answers = read(format!("{tag}.candidate.json"));
    let python = read(format!("{tag}.python.json"));
    let answers = answers.as_array().unwrap();
    let mut sent = Vec::new();
    let session = score_session(
        &load_har(train).unwrap(),
        &load_har(scored).unwrap(),
        |out| {
            let a = &answers[sent.len()];
            sent.push(out.clone());
            Ok(Answer {
                status: a["status"].as_u64().unwrap() as u16,
                headers: a["headers"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|h| {
                        (
                            h[0].as_str().unwrap().to_string(),
                            h[1].as_str().unwrap().to_string(),
                        )
                    })
                    .collect(),
                body: base64::engine::general_purpose::STANDARD
                    .decode(a["body"].as_str().unwrap())
                    .unwrap(),
            })
        },
    );
    let mut problems = Vec::new();
    let rows = python.as_array().unwrap();
    if rows.len() != session.rows.len() {
        problems.push(format!(
            "{tag}: {} vs {} requests",
            session.rows.len(),
            rows.len()
        ));
    }
    for ((py, row), out) in rows.iter().zip(&session.rows).zip(&sent) {
        let verdict = match row.verdict {
            Verdict::Match => "match",
            Verdict::Mismatch => "mismatch",
            Verdict::Error => "error",
        };
        if py["verdict"] != verdict {
            problems.push(format!(
                "{tag} #{}: rea {verdict} ({:?}), fidelity.py {} ({})",
                row.idx, row.reason, py["verdict"], py["reason"]
            ));
        }
        if py["path"] != out.path_qs.as_str() {
            problems.push(format!(
                "{tag} #{}: sent {} vs {}",
                row.idx, out.path_qs, py["path"]
            ));
        }
        let body = out
            .body
            .as_deref()
            .map(|b| String::from_utf8_lossy(b).into_owned());
        let same_body = match (py["body"].as_str(), body.as_deref()) {
            (None, None) => true,
            (Some(p), Some(r)) => {
                p == r
                    || matches!((serde_json::from_str::<Value>(p), serde_json::from_str::<Value>(r)),
                        (Ok(x), Ok(y)) if x == y)
            }
            _ => false,
        };
        if !same_body {
            problems.push(format!(
                "{tag} #{}: body {body:?} vs {}",
                row.idx, py["body"]
            ));
        }
        let py_headers: Vec<(String, String)> = py["headers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| {
                (
                    h[0].as_str().unwrap().to_string(),
                    h[1].as_str().unwrap().to_string(),
                )
            })
            .collect();
        if py_headers != out.headers {
            problems.push(format!(
                "{tag} #{}: headers {:?} vs {py_headers:?}",
                row.idx, out.headers
            ));
        }
    }
    problems
}

#[test]
fn the_port_agrees_with_fidelity_py_on_scripted_candidates_request_by_request() {
    let status = Command::new("bash")
        .arg(repo_root().join("tests/python/setup.sh"))
        .status()
        .unwrap();
    assert!(status.success());
    let dir = tempfile::tempdir().unwrap();
    let problems: Vec<String> = std::thread::scope(|s| {
        let runs: Vec<_> = DIRECTIONS
            .iter()
            .flat_map(|d| [(d, 1), (d, 2)])
            .map(|(&(app, train, scored), seed)| {
                let dir = dir.path();
                s.spawn(move || {
                    let tag = format!("{app}-{train}-{scored}-{seed}");
                    let (train, scored) = (pair(app, train), pair(app, scored));
                    let out = Command::new(repo_root().join(".venv/bin/python"))
                        .arg(repo_root().join("tests/fidelity/differential.py"))
                        .arg(harness_dir())
                        .arg(dir)
                        .arg(&train)
                        .arg(&scored)
                        .arg(&tag)
                        .arg(seed.to_string())
                        .output()
                        .unwrap();
                    assert!(
                        out.status.success(),
                        "{}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                    differential(dir, &tag, &train, &scored)
                })
            })
            .collect();
        runs.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
