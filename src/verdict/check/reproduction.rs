//! Reproduction lines: the `elicit-check check` command line that repeats a
//! failure (`--answer JSON` per request, or `--seed S --case-index I`), with
//! the target's options, the era it failed in and the server command after
//! `--`, shell-quoted.

use serde_json::Value;

use crate::harness::Limits;
use crate::targets::target::Target;

/// `elicit-check check --tool T [--arguments JSON] ACTED [--strict]
/// [--allow-unasked] [--consent POINTER=JSON]... --protocol ERA [--setup CMD] [--env K=V]... [--cwd DIR]
/// [--startup-timeout SECS] [--call-timeout SECS] [--shutdown-grace SECS]`
/// (each bound only when not its default), the program named as the user
/// invoked it.
pub(crate) fn base_command(target: &Target) -> Vec<String> {
    let mut command = vec![
        target.invoked_as.clone(),
        "check".to_owned(),
        "--tool".to_owned(),
        target.tool.clone(),
    ];
    if let Some(arguments) = &target.arguments {
        command.push("--arguments".to_owned());
        command.push(Value::Object(arguments.clone()).to_string());
    }
    command.extend(target.acted.words());
    if let Some(url) = target.transport.url() {
        command.extend(["--url".to_owned(), url.to_owned()]);
    }
    for header in target.transport.headers() {
        command.extend(header.words());
    }
    if target.strict {
        command.push("--strict".to_owned());
    }
    if target.allow_unasked {
        command.push("--allow-unasked".to_owned());
    }
    for consent in &target.consent {
        command.extend([
            "--consent".to_owned(),
            format!("/{}={}", consent.name, consent.value),
        ]);
    }
    // The era it failed in: the default `auto` may run both.
    command.extend(["--protocol".to_owned(), target.protocol.to_string()]);
    if let Some(setup) = &target.setup {
        command.extend(["--setup".to_owned(), setup.clone()]);
    }
    for (key, value) in &target.environment.vars {
        command.extend(["--env".to_owned(), format!("{key}={value}")]);
    }
    if let Some(cwd) = &target.environment.cwd {
        command.extend(["--cwd".to_owned(), cwd.display().to_string()]);
    }
    // The bounds not the defaults: a failure may hang on them (a server
    // killed after its --shutdown-grace, a call cut at --call-timeout).
    let usual = Limits::default();
    let limits = target.limits;
    for (option, bound, default) in [
        ("--startup-timeout", limits.startup, usual.startup),
        ("--call-timeout", limits.call, usual.call),
        ("--shutdown-grace", limits.shutdown, usual.shutdown),
    ] {
        if bound != default {
            command.extend([option.to_owned(), bound.as_secs_f64().to_string()]);
        }
    }
    command
}

/// `ARGS -- SERVER`, shell-quoted (`--` itself needs no quotes); `ARGS`
/// alone when there is no server command (a running HTTP server).
pub(crate) fn join_command(args: &[String], server: &[String]) -> String {
    if server.is_empty() {
        return crate::error::shell_words(args);
    }
    format!(
        "{} -- {}",
        crate::error::shell_words(args),
        crate::error::shell_words(server)
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// The bounds a check ran under are repeated when they are not the
    /// defaults (10 s, 10 s, 5 s), in seconds as the options take them, and
    /// left out when they are.
    #[test]
    fn a_reproduction_repeats_the_bounds_that_are_not_the_defaults() {
        let target = Target::stdio(["python3", "srv.py"])
            .tool("book")
            .acted_pointer("/booked");
        let plain = base_command(&target).join(" ");
        assert_eq!(
            plain,
            "elicit-check check --tool book --acted /booked --protocol 2025-11-25"
        );
        let bounded = target.limits(Limits {
            startup: Duration::from_secs(10),
            call: Duration::from_millis(2500),
            shutdown: Duration::from_secs(1),
        });
        assert_eq!(
            base_command(&bounded).join(" "),
            "elicit-check check --tool book --acted /booked --protocol 2025-11-25 --call-timeout 2.5 --shutdown-grace 1"
        );
        let slow_start = bounded.limits(Limits {
            startup: Duration::from_secs(30),
            ..Limits::default()
        });
        assert_eq!(
            base_command(&slow_start).join(" "),
            "elicit-check check --tool book --acted /booked --protocol 2025-11-25 --startup-timeout 30"
        );
    }
}
