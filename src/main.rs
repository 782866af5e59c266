//! The `elicit-check` command: parses the options and runs the job
//! ([`elicit_check::cli`]): `serve` the reference server, `run` the contract
//! suite, `check` anyone's tool.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;
use elicit_check::cli::{self, Cli, Command, exit_code};

/// Parses the command line; a server command given without `--` gets a message
/// saying where it goes (clap alone would only call it an unexpected argument).
fn parse_cli() -> Cli {
    match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let args: Vec<String> = std::env::args().collect();
            let subcommand = args.get(1).map(String::as_str);
            // A stray word is likely the server command; a stray `-x` is a
            // misspelt option, where that hint would mislead.
            let stray_is_an_option = matches!(
                error.get(clap::error::ContextKind::InvalidArg),
                Some(clap::error::ContextValue::String(arg)) if arg.starts_with('-')
            );
            if error.kind() == clap::error::ErrorKind::UnknownArgument
                && matches!(subcommand, Some("run" | "check"))
                && !stray_is_an_option
                && !args.iter().any(|arg| arg == "--")
            {
                let _ = error.print();
                eprintln!(
                    "\nelicit-check: put the server command after `--`, e.g. `elicit-check {} -- python3 server.py`",
                    subcommand.unwrap_or("run")
                );
                std::process::exit(exit_code::ERROR.into());
            }
            error.exit()
        }
    }
}

fn main() -> ExitCode {
    let mut cli = parse_cli();
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
    // `serve` runs on one thread: the reference server handles one client, and a
    // single-threaded runtime has no worker threads to wake or to keep stacks for
    // (for its round trips and its peak memory). `run` and `check` drive
    // many server processes at once (`-j`) and keep the multi-threaded runtime.
    let runtime = match &cli.command {
        Some(Command::Serve(_)) => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
        _ => tokio::runtime::Runtime::new(),
    };
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("elicit-check: cannot start the async runtime: {error}");
            return ExitCode::from(exit_code::ERROR);
        }
    };
    let result = match cli.command {
        Some(Command::Serve(args)) => runtime.block_on(cli::serve(args)),
        Some(Command::Run(args)) => runtime.block_on(cli::run(*args)),
        Some(Command::Check(args)) => runtime.block_on(cli::check(*args)),
        Some(Command::Merge(args)) => cli::merge(&args),
        None => unreachable!("defaulted to run above"),
    };
    ExitCode::from(cli::exit_code(result))
}
