//! What one case costs, side by side for the reference server and a Python SDK
//! peer, against the Python laboratory's 0.56 s per case.
//!
//! One `cargo bench` run prints these five measurements:
//!
//! 1. `core/decide_generation_excluded` and `core/decide_generation_included`:
//!    pure-core decisions per second on generated answers (`elem/s`), without and
//!    with proptest's generation of the case.
//! 2. `stdio_rust/session_round_trip`: one `tools/call` with its elicitation
//!    answered, in a session that stays open (no spawn, no handshake).
//! 3. `stdio_rust/fresh_case`: one contract case end to end: spawn the reference
//!    server, initialize, list tools, call, answer, shut down. Its median and p95
//!    are printed as `figure:` lines (criterion prints the mean).
//! 4. `stdio_python/...`: the same two stdio figures against the MCP Python SDK 1.x
//!    peer (`fixtures/peers/python_sdk1.py --variant correct`), then the ratios
//!    Python/Rust and fresh/session, measured in the same run.
//! 5. The peak resident memory (`VmHWM` of `/proc/PID/status`) of the server
//!    during a long-lived session and during fresh-process cases.
//!
//! The Python peer's environment is set up by `scripts/peers.sh` (under
//! `$ELICIT_CHECK_PEERS_DIR`, default `target/peers`) when it is missing.
//! Run with `cargo bench`; the book's docs/src/dev/benchmarks.md holds the figures.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use elicit_check::case::{self, Case};
use elicit_check::harness::{self, Limits, Session, client::reply_for};
use elicit_check::peers::{PEERS, Variant};
use elicit_check::server::decision::{self, Policy};
use elicit_check::server::reply::Reply;
use elicit_check::strategy::generated_case;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use rmcp::model::ClientCapabilities;
use tokio::runtime::Runtime;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Figures of one server, filled by [`stdio_figures`] and printed by [`summary`].
#[derive(Debug, Clone, Default)]
struct Figures {
    label: &'static str,
    /// Seconds per session round trip (criterion's mean over the samples).
    session_round_trip: Option<f64>,
    /// Seconds of each fresh-process case measured.
    fresh: Vec<f64>,
    /// Peak RSS of the server (KiB) after a long-lived session.
    session_peak_kib: Option<u64>,
    /// Peak RSS of the server (KiB) in each fresh-process case measured.
    fresh_peak_kib: Vec<u64>,
}

static FIGURES: Mutex<Vec<Figures>> = Mutex::new(Vec::new());

fn reference_server() -> Vec<String> {
    vec![
        env!("CARGO_BIN_EXE_elicit-check").to_owned(),
        "serve".to_owned(),
    ]
}

/// The MCP Python SDK 1.x peer, correct variant; sets its environment up first
/// (`scripts/peers.sh`, idempotent) and panics with the script's log when it cannot.
/// The Python SDK 1.x peer's command, or why it cannot run (`scripts/peers.sh`
/// failed: no python3, no registry); the bench then skips measurement 4 and says
/// so, and still prints the other figures.
fn python_server() -> Result<Vec<String>, String> {
    let environments = std::env::var_os("ELICIT_CHECK_PEERS_DIR")
        .map_or_else(|| Path::new(ROOT).join("target/peers"), PathBuf::from);
    let output = std::process::Command::new("bash")
        .arg(Path::new(ROOT).join("scripts/peers.sh"))
        .env("ELICIT_CHECK_PEERS_DIR", &environments)
        .output()
        .map_err(|error| format!("cannot run bash scripts/peers.sh: {error}"))?;
    if !output.status.success() {
        return Err(format!(
            "scripts/peers.sh failed ({}):\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let peer = PEERS
        .iter()
        .find(|peer| peer.name() == "python-sdk1-correct" && peer.variant == Variant::Correct)
        .expect("the Python SDK 1.x peer is listed");
    Ok(peer.command(Path::new(ROOT), &environments))
}

fn accept_valid() -> Case {
    case::contract_cases()
        .into_iter()
        .find(|case| case.name == "accept_valid")
        .expect("accept_valid is a contract case")
}

/// `VmHWM` (peak resident set, KiB) of process `pid`, from `/proc/PID/status`.
fn peak_rss_kib(pid: Option<u32>) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{}/status", pid?)).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Sample `p` (0..=1) of `values` (nearest rank), sorted in place.
fn percentile(values: &mut [f64], p: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    let rank = ((p * values.len() as f64).ceil() as usize).clamp(1, values.len());
    values[rank - 1]
}

/// Measurements 2, 3 and 5 for one server: session round trips, fresh-process
/// cases (every one timed, for median and p95), and peak RSS in both modes.
fn stdio_figures(
    c: &mut Criterion,
    runtime: &Runtime,
    label: &'static str,
    server: &[String],
    samples: (usize, Duration),
) {
    let case = accept_valid();
    let mut figures = Figures {
        label,
        ..Figures::default()
    };
    let mut group = c.benchmark_group(format!("stdio_{label}"));
    group.sample_size(samples.0);
    group.measurement_time(samples.1);
    group.warm_up_time(Duration::from_secs(1));
    group.throughput(Throughput::Elements(1));
    // Flat: every sample the same number of cases, so a slow server needs few.
    group.sampling_mode(SamplingMode::Flat);

    let mut session = runtime
        .block_on(Session::start(
            server,
            &case.capabilities,
            Limits::default(),
            None,
        ))
        .expect("the server starts");
    assert_eq!(session.startup_error(), None, "{label}: the session starts");
    let mut round_trips = (0u64, Duration::ZERO);
    group.bench_function("session_round_trip", |b| {
        b.iter_custom(|iters| {
            let started = Instant::now();
            for _ in 0..iters {
                let call = runtime.block_on(session.call(&case.policy, case.wire_answer()));
                assert!(
                    call.outcome.is_some() || call.text_outcome.is_some(),
                    "{label}: {:?}",
                    call.error
                );
            }
            let elapsed = started.elapsed();
            round_trips.0 += iters;
            round_trips.1 += elapsed;
            elapsed
        });
    });
    figures.session_peak_kib = peak_rss_kib(session.pid());
    runtime.block_on(session.finish());
    figures.session_round_trip = Some(round_trips.1.as_secs_f64() / round_trips.0.max(1) as f64);

    let mut fresh = Vec::new();
    group.bench_function("fresh_case", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let started = Instant::now();
                let evidence = runtime
                    .block_on(harness::run_case(server, &case, Limits::default(), None))
                    .expect("the server starts");
                let elapsed = started.elapsed();
                assert!(
                    evidence.outcome.is_some() || evidence.text_outcome.is_some(),
                    "{label}: {:?}",
                    evidence.error
                );
                fresh.push(elapsed.as_secs_f64());
                total += elapsed;
            }
            total
        });
    });
    group.finish();
    figures.fresh = fresh;
    for _ in 0..5 {
        let mut session = runtime
            .block_on(Session::start(
                server,
                &case.capabilities,
                Limits::default(),
                None,
            ))
            .expect("the server starts");
        let call = runtime.block_on(session.call(&case.policy, case.wire_answer()));
        assert!(
            call.outcome.is_some() || call.text_outcome.is_some(),
            "{label}: {:?}",
            call.error
        );
        figures.fresh_peak_kib.extend(peak_rss_kib(session.pid()));
        runtime.block_on(session.finish());
    }
    FIGURES.lock().expect("figures").push(figures);
}

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

fn stdio_rust(c: &mut Criterion) {
    let runtime = runtime();
    let server = reference_server();
    stdio_figures(c, &runtime, "rust", &server, (30, Duration::from_secs(4)));
}

fn stdio_python(c: &mut Criterion) {
    let runtime = runtime();
    match python_server() {
        Ok(server) => stdio_figures(c, &runtime, "python", &server, (10, Duration::from_secs(8))),
        Err(why) => eprintln!("figure: measurement 4 (Python SDK 1.x peer) skipped: {why}"),
    }
}

/// Measurement 1: the pure decision for generated cases, inputs made beforehand
/// (generation excluded) or made by proptest in the loop (generation included).
fn core(c: &mut Criterion) {
    let mut runner = TestRunner::deterministic();
    let strategy = generated_case();
    let prepared: Vec<(Option<rmcp::model::ElicitationCapability>, Policy, _)> = (0..1000)
        .map(|_| {
            let case = strategy
                .new_tree(&mut runner)
                .expect("a case")
                .current()
                .case;
            let capabilities: ClientCapabilities =
                serde_json::from_value(case.capabilities.clone()).expect("capabilities");
            let policy: Policy = case.policy.parse().expect("policy");
            (capabilities.elicitation, policy, reply_for(&case))
        })
        .collect();
    let mut group = c.benchmark_group("core");
    group.throughput(Throughput::Elements(1));
    let mut next = prepared.iter().cycle();
    group.bench_function("decide_generation_excluded", |b| {
        b.iter(|| {
            let (elicitation, policy, answer) = next.next().expect("cycle never ends");
            black_box(decision::decide(elicitation.as_ref(), *policy, || {
                Reply::from_answer(answer)
            }))
        });
    });
    group.bench_function("decide_generation_included", |b| {
        b.iter(|| {
            let case = strategy
                .new_tree(&mut runner)
                .expect("a case")
                .current()
                .case;
            let capabilities: ClientCapabilities =
                serde_json::from_value(case.capabilities.clone()).expect("capabilities");
            let policy: Policy = case.policy.parse().expect("policy");
            black_box(decision::decide(
                capabilities.elicitation.as_ref(),
                policy,
                || Reply::from_answer(&reply_for(&case)),
            ))
        });
    });
    group.finish();
}

/// Prints the figures criterion does not: median and p95 of the fresh-process
/// cases, peak RSS, and the ratios between servers and between modes.
fn summary(_: &mut Criterion) {
    let figures = FIGURES.lock().expect("figures");
    let ms = |seconds: f64| seconds * 1000.0;
    let mut medians = Vec::new();
    for figure in figures.iter() {
        let mut fresh = figure.fresh.clone();
        if fresh.is_empty() {
            continue;
        }
        let median = percentile(&mut fresh, 0.5);
        let p95 = percentile(&mut fresh, 0.95);
        medians.push((figure.label, median, figure.session_round_trip));
        println!(
            "figure: {} fresh-process case: median {:.2} ms, p95 {:.2} ms ({} cases)",
            figure.label,
            ms(median),
            ms(p95),
            fresh.len()
        );
        if let Some(round_trip) = figure.session_round_trip {
            println!(
                "figure: {} session round trip: {:.3} ms, {:.0} round trips/s",
                figure.label,
                ms(round_trip),
                1.0 / round_trip
            );
            println!(
                "figure: {} fresh-process case / session round trip: {:.1}x",
                figure.label,
                median / round_trip
            );
        }
        let mib = |kib: u64| kib as f64 / 1024.0;
        if let Some(kib) = figure.session_peak_kib {
            println!(
                "figure: {} server peak RSS (VmHWM) after the long-lived session: {:.1} MiB",
                figure.label,
                mib(kib)
            );
        }
        if let Some(&kib) = figure.fresh_peak_kib.iter().max() {
            println!(
                "figure: {} server peak RSS (VmHWM) in a fresh-process case: {:.1} MiB (max of {})",
                figure.label,
                mib(kib),
                figure.fresh_peak_kib.len()
            );
        }
    }
    let find = |label: &str| medians.iter().find(|(l, _, _)| *l == label);
    if let (Some(rust), Some(python)) = (find("rust"), find("python")) {
        println!(
            "figure: python / rust, fresh-process case median: {:.1}x",
            python.1 / rust.1
        );
        if let (Some(r), Some(p)) = (rust.2, python.2) {
            println!("figure: python / rust, session round trip: {:.1}x", p / r);
        }
        println!(
            "figure: laboratory (0.56 s per case, measured elsewhere) / rust fresh-process case: {:.0}x",
            0.56 / rust.1
        );
    }
}

criterion_group!(benches, core, stdio_rust, stdio_python, summary);
criterion_main!(benches);
