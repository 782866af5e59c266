//! The `elicit-check` command: `serve` the reference server, or `run` the checks.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, Subcommand};
use elicit_check::harness::Limits;

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
    /// Generated cases to run over stdio after the 17 contract cases.
    #[arg(long, default_value_t = 256)]
    cases: usize,
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

/// Runs the contract cases, then the generated ones; `Ok(false)` when any case failed.
async fn run(args: RunArgs) -> anyhow::Result<bool> {
    let command = if args.server.is_empty() {
        let exe = std::env::current_exe()
            .context("cannot find this executable to serve the reference server")?;
        vec![exe.to_string_lossy().into_owned(), "serve".to_owned()]
    } else {
        args.server
    };
    eprintln!("elicit-check: server: {}", command.join(" "));
    let limits = Limits {
        startup: Duration::from_secs_f64(args.startup_timeout),
        call: Duration::from_secs_f64(args.call_timeout),
        shutdown: Duration::from_secs_f64(args.shutdown_grace),
    };
    let mut verdicts = Vec::new();
    elicit_check::run::run_contract(&command, &args.only, &args.output, limits, &mut verdicts)
        .await?;
    let contract = verdicts.len();
    let mut minimal = None;
    if args.cases > 0 {
        let seed = args.seed.unwrap_or_else(clock_seed);
        eprintln!(
            "elicit-check: {} generated cases, seed {seed} (repeat with --seed {seed})",
            args.cases
        );
        let bar = indicatif::ProgressBar::new(args.cases as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} generated cases {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        minimal = elicit_check::run::run_generated(
            &command,
            args.cases,
            seed,
            &args.output,
            limits,
            &mut verdicts,
            &mut |done| bar.set_position(done as u64),
        )
        .await?;
        bar.finish_and_clear();
    }
    let mut stdout = std::io::stdout().lock();
    let (fixed, generated) = verdicts.split_at(contract);
    elicit_check::report::write_table(&mut stdout, fixed)?;
    if !generated.is_empty() {
        writeln!(
            stdout,
            "generated: {}",
            elicit_check::report::summary(generated)
        )?;
    }
    if let Some(minimal) = &minimal {
        writeln!(
            stdout,
            "minimal failing generated case (after {} shrink runs):{}",
            minimal.shrink_runs,
            elicit_check::report::explain(&minimal.generated, &minimal.outcome)
        )?;
        for failure in &minimal.failures {
            writeln!(stdout, "    {failure}")?;
        }
    }
    writeln!(stdout, "{}", elicit_check::report::summary(&verdicts))?;
    eprintln!(
        "elicit-check: evidence in {}",
        args.output.join("results.json").display()
    );
    Ok(verdicts.iter().all(|verdict| verdict.passed))
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
