//! Reproduction lines: the `elicit-check check` command line that repeats a
//! failure (`--answer JSON` per request, or `--seed S --case-index I`), with
//! the target's options, the era it failed in and the server command after
//! `--`, shell-quoted.

use serde_json::Value;

use crate::targets::target::Target;

/// `elicit-check check --tool T [--arguments JSON] ACTED [--strict]
/// [--allow-unasked] [--consent POINTER=JSON]... --protocol ERA [--setup CMD] [--env K=V]... [--cwd DIR]`,
/// the program named as the user invoked it.
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
