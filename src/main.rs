//! The `elicit-check` command: `serve` the reference server, or `run` the checks.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, Subcommand};
use elicit_check::harness::Limits;
use elicit_check::oracle::contract::Judging;
use elicit_check::report::{self, EvidenceLog};
use serde_json::json;

/// Property-based and mutation testing for MCP form elicitation servers.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the reference server on stdin/stdout (protocol 2025-11-25).
    Serve,
    /// Run the contract cases against a server (default: the built-in reference server).
    Run(RunArgs),
}

#[derive(Debug, clap::Args)]
struct RunArgs {
    /// Folder for the evidence (`results.json`), written even when cases fail.
    #[arg(long, default_value = "run-output")]
    output: PathBuf,
    /// Generated cases to run over stdio after the contract cases
    /// [default: 256, or 0 when --case is given].
    #[arg(long)]
    cases: Option<usize>,
    /// Seed of the generated cases (default: from the clock; printed, so a run can be repeated).
    #[arg(long)]
    seed: Option<u64>,
    /// Run only this contract case (repeatable); default: all 17.
    #[arg(long = "case", value_name = "NAME")]
    only: Vec<String>,
    /// Seconds a server may take to answer `initialize` and `tools/list`.
    #[arg(long, default_value_t = 10.0, value_parser = seconds)]
    startup_timeout: f64,
    /// Seconds one `tools/call` may take, elicitation included.
    #[arg(long, default_value_t = 10.0, value_parser = seconds)]
    call_timeout: f64,
    /// Seconds a server may take to exit after its stdin closes before it is killed.
    #[arg(long, default_value_t = 5.0, value_parser = seconds)]
    shutdown_grace: f64,
    /// Judge free-text messages word for word, `errors` in contract order and the
    /// exact `requestedSchema` [default: on for the built-in reference server,
    /// off for a server given after `--`, which is judged by meaning].
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    exact_messages: Option<bool>,
    /// The server command to test, after `--` (e.g. `-- python3 server.py`).
    #[arg(last = true)]
    server: Vec<String>,
}

fn main() -> ExitCode {
    let mut cli = Cli::parse();
    if cli.command.is_none() {
        // No subcommand means `run` with its defaults.
        cli = Cli::parse_from(["elicit-check", "run"]);
    }
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,rmcp=error")),
        )
        .init();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("elicit-check: cannot start the async runtime: {error}");
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        Some(Command::Serve) => runtime
            .block_on(elicit_check::server::serve_stdio())
            .map(|()| true),
        Some(Command::Run(args)) => runtime.block_on(run(args)),
        None => unreachable!("defaulted to run above"),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(error) => {
            eprintln!("elicit-check: {error:#}");
            ExitCode::from(2)
        }
    }
}

/// Runs the contract cases, then the generated ones; `Ok(false)` when any case
/// failed. Ctrl-C or SIGTERM stops the run: the case in flight is dropped (its
/// server killed) and the evidence of every finished case is written.
async fn run(args: RunArgs) -> anyhow::Result<bool> {
    let command = if args.server.is_empty() {
        let exe = std::env::current_exe()
            .context("cannot find this executable to serve the reference server")?;
        vec![exe.to_string_lossy().into_owned(), "serve".to_owned()]
    } else {
        args.server.clone()
    };
    eprintln!("elicit-check: server: {}", command.join(" "));
    let log = EvidenceLog::create(&args.output)
        .with_context(|| format!("cannot write the evidence folder {}", args.output.display()))?;
    let cases = args
        .cases
        .unwrap_or(if args.only.is_empty() { 256 } else { 0 });
    let seed = args.seed.unwrap_or_else(clock_seed);
    let mut minimal = None;
    let interrupted = tokio::select! {
        result = run_all(&args, &command, cases, seed, &log, &mut minimal) => { result?; false }
        signal = stop_signal() => { eprintln!("elicit-check: {signal}: stopping; the case in flight is dropped"); true }
    };
    let verdicts = log.verdicts();
    let mut stdout = std::io::stdout().lock();
    let contract = verdicts.iter().filter(|v| v.reason.is_none()).count();
    if verdicts.len() > contract {
        writeln!(
            stdout,
            "generated: {}",
            report::summary(&verdicts[contract..])
        )?;
    }
    if let Some(minimal) = &minimal {
        writeln!(
            stdout,
            "minimal failing generated case (after {} shrink runs):{}",
            minimal.shrink_runs,
            report::explain(&minimal.generated, &minimal.outcome)
        )?;
        for failure in &minimal.failures {
            writeln!(stdout, "    {failure}")?;
        }
    }
    writeln!(stdout, "{}", report::summary(&verdicts))?;
    let summary = json!({
        "server_command": command,
        "seed": seed,
        "generated_cases": cases,
        "interrupted": interrupted,
        "cases": verdicts.len(),
        "passed": verdicts.iter().filter(|v| v.passed).count(),
        "minimal_failure": minimal.as_ref().map(|m| json!({
            "reason": m.generated.reason.to_string(),
            "case": m.generated.case,
            "outcome": m.outcome,
            "expected": m.generated.expected,
            "failures": m.failures,
            "shrink_runs": m.shrink_runs,
        })),
    });
    let results = log.finish(&summary)?;
    eprintln!("elicit-check: evidence in {}", results.display());
    if interrupted {
        anyhow::bail!("interrupted after {} cases", verdicts.len());
    }
    Ok(verdicts.iter().all(|verdict| verdict.passed))
}

/// The contract cases (rows printed as they finish), then the generated ones.
async fn run_all(
    args: &RunArgs,
    command: &[String],
    cases: usize,
    seed: u64,
    log: &EvidenceLog,
    minimal: &mut Option<elicit_check::run::MinimalFailure>,
) -> anyhow::Result<()> {
    let limits = Limits {
        startup: Duration::from_secs_f64(args.startup_timeout),
        call: Duration::from_secs_f64(args.call_timeout),
        shutdown: Duration::from_secs_f64(args.shutdown_grace),
    };
    let judging = Judging {
        exact_messages: args.exact_messages.unwrap_or(args.server.is_empty()),
    };
    report::write_header(&mut std::io::stdout())?;
    let mut print_row = |verdict: &report::Verdict| {
        let _ = report::write_row(&mut std::io::stdout(), verdict);
    };
    elicit_check::run::run_contract(command, &args.only, limits, judging, log, &mut print_row)
        .await?;
    if cases > 0 {
        eprintln!("elicit-check: {cases} generated cases, seed {seed} (repeat with --seed {seed})");
        let bar = indicatif::ProgressBar::new(cases as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} generated cases")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        *minimal = elicit_check::run::run_generated(
            command,
            cases,
            seed,
            limits,
            judging,
            log,
            &mut |done| bar.set_position(done as u64),
        )
        .await?;
        bar.finish_and_clear();
    }
    Ok(())
}

/// Resolves on Ctrl-C (SIGINT) or SIGTERM, naming the signal.
async fn stop_signal() -> &'static str {
    let mut terminate =
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(stream) => stream,
            Err(_) => return std::future::pending().await,
        };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => "interrupted",
        _ = terminate.recv() => "terminated",
    }
}

/// Parses a positive number of seconds (at most a day).
fn seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if value > 0.0 && value <= 86_400.0 => Ok(value),
        _ => Err(format!("{text:?} is not a number of seconds in (0, 86400]")),
    }
}

/// A seed from the clock's nanoseconds.
fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos() as u64)
}
