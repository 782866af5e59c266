//! The `elicit-check` command: `serve` the reference server, or `run` the checks.

use std::path::PathBuf;
use std::process::ExitCode;

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

#[derive(Debug, Default, clap::Args)]
struct RunArgs {
    /// Folder for the evidence (`results.json`), written even when cases fail.
    #[arg(long, default_value = "run-output")]
    output: PathBuf,
    /// The server command to test, after `--` (e.g. `-- python3 server.py`).
    #[arg(last = true)]
    server: Vec<String>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
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
        None => runtime.block_on(run(RunArgs {
            output: PathBuf::from("run-output"),
            server: Vec::new(),
        })),
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

/// Runs the contract cases; `Ok(false)` when any case failed.
async fn run(args: RunArgs) -> anyhow::Result<bool> {
    let command = if args.server.is_empty() {
        let exe = std::env::current_exe()
            .context("cannot find this executable to serve the reference server")?;
        vec![exe.to_string_lossy().into_owned(), "serve".to_owned()]
    } else {
        args.server
    };
    eprintln!("elicit-check: server: {}", command.join(" "));
    let verdicts =
        elicit_check::run::run_contract(&command, &args.output, Limits::default()).await?;
    let mut stdout = std::io::stdout().lock();
    elicit_check::report::write_table(&mut stdout, &verdicts)?;
    eprintln!(
        "elicit-check: evidence in {}",
        args.output.join("results.json").display()
    );
    Ok(verdicts.iter().all(|verdict| verdict.passed))
}
