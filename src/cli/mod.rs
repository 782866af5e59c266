//! The command line's jobs, as a library: `src/main.rs` only parses the
//! options and hands them here, so every job runs (and is tested) without
//! spawning the binary.
//!
//! - [`args`]: the options of `serve`, `run` and `check`.
//! - [`run`], [`check`], [`serve`]: the jobs; `Ok(true)` when everything
//!   passed, `Ok(false)` when the server failed a case or a property, `Err`
//!   when nothing could be judged ([`mod@exit_code`] maps the three).

pub mod args;
mod check_job;
pub mod exit_code;
mod program;
mod run_job;
mod signals;

use std::time::Duration;

pub use args::{CheckArgs, Cli, Command, RunArgs, ServeArgs};
pub use check_job::check;
pub use run_job::run;

/// `elicit-check serve`: the reference server on stdin/stdout until the client
/// closes stdin (`Ok(true)`), or with `--port` over Streamable HTTP until
/// stopped.
///
/// # Errors
/// The server's transport failed (stdin or stdout), or the port cannot be bound.
pub async fn serve(args: ServeArgs) -> anyhow::Result<bool> {
    let server = crate::server::ReferenceServer::with_request_state_ttl(Duration::from_secs_f64(
        args.request_state_ttl,
    ))
    .with_elicitation_timeout(args.elicitation_timeout.map(Duration::from_secs_f64));
    match args.port {
        Some(port) => crate::server::http::serve_http(server, port).await?,
        None => crate::server::serve_stdio_with(server).await?,
    }
    Ok(true)
}

/// The exit code of a job's result: [`exit_code::PASSED`], [`exit_code::FAILED`]
/// or [`exit_code::ERROR`] (the error is printed to stderr first, with its causes).
pub fn exit_code(result: anyhow::Result<bool>) -> u8 {
    match result {
        Ok(true) => exit_code::PASSED,
        Ok(false) => exit_code::FAILED,
        Err(error) => {
            eprintln!("elicit-check: {error:#}");
            exit_code::ERROR
        }
    }
}
