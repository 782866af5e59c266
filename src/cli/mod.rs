//! The command line's jobs, as a library: `src/main.rs` only parses the
//! options and hands them here, so every job runs (and is tested) without
//! spawning the binary.
//!
//! - [`args`]: the options of `serve`, `run`, `check` and `merge`.
//! - [`run`], [`check`] (a config's targets: `targets_job`), [`serve`],
//!   [`merge`]: the jobs; `Ok(true)` when everything
//!   passed, `Ok(false)` when the server failed a case or a property, `Err`
//!   when nothing could be judged ([`mod@exit_code`] maps the three).

pub mod args;
mod check_job;
pub mod exit_code;
mod merge_job;
mod program;
mod progress;
mod run_job;
mod signals;
mod targets_job;

use std::time::Duration;

pub use args::{CheckArgs, Cli, Command, MergeArgs, RunArgs, ServeArgs};
pub use merge_job::merge;
pub use run_job::run;

/// `elicit-check check`: `Ok(true)` when every property holds (in every
/// target). A config whose targets are all to be run (several `[[target]]`s
/// and no `--tool`, or `--target`, or `--shard`) goes to `targets_job`, one
/// target to `check_job`; `--server-json` gives the config's targets.
///
/// # Errors
/// The config cannot be read, the server.json gives no target, or (as each
/// job says) the check could not be done.
pub async fn check(mut args: CheckArgs) -> anyhow::Result<bool> {
    let config = match (&args.config, args.server_json.clone()) {
        (Some(path), _) => {
            Some(crate::targets::config::ConfigFile::load(path).map_err(anyhow::Error::msg)?)
        }
        (None, Some(path)) => Some(registry_targets(&mut args, &path).await?),
        (None, None) => None,
    };
    match &config {
        Some(config)
            if args.tool.is_none()
                && (config.target.len() > 1 || !args.target.is_empty() || args.shard.is_some()) =>
        {
            targets_job::check_targets(&args, config).await
        }
        config => check_job::check_single(args, config.as_ref()).await,
    }
}

/// The targets of `--server-json` (`crate::targets::registry`), each server and
/// tool left out said on stderr; a warning when no acted option is given, as
/// the registry gives no acted rule. The acted options and `--cwd` apply to
/// every target: they move from `args` into each.
///
/// # Errors
/// An `--env` that is not KEY=VALUE; the file gives no target.
async fn registry_targets(
    args: &mut CheckArgs,
    path: &std::path::Path,
) -> anyhow::Result<crate::targets::config::ConfigFile> {
    let mut vars = Vec::new();
    for pair in &args.env {
        let Some((key, value)) = pair.split_once('=').filter(|(key, _)| !key.is_empty()) else {
            anyhow::bail!("--env {pair:?} is not KEY=VALUE");
        };
        vars.push((key.to_owned(), value.to_owned()));
    }
    let environment = crate::harness::child::Environment {
        vars,
        cwd: args.cwd.clone(),
    };
    let mut config = crate::targets::registry::registry_targets(
        path,
        &environment,
        args.limits.limits(),
        &mut |line| eprintln!("elicit-check: {line}"),
    )
    .await?;
    let acted_given = args.acted.is_some()
        || args.acted_text.is_some()
        || args.acted_not_error
        || args.acted_cmd.is_some();
    for target in &mut config.target {
        if acted_given {
            target.acted = args.acted.clone();
            target.acted_text = args.acted_text.clone();
            target.acted_not_error = args.acted_not_error;
            target.acted_cmd = args.acted_cmd.clone();
        }
        target.cwd = args.cwd.clone();
    }
    (args.acted, args.acted_text, args.acted_cmd, args.cwd) = (None, None, None, None);
    args.acted_not_error = false;
    if !acted_given {
        eprintln!(
            "elicit-check: warning: server.json gives no acted rule: a reply that is not an \
             error counts as acting (--acted-not-error); give --acted, --acted-text or \
             --acted-cmd to read it from the result"
        );
    }
    Ok(config)
}

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
