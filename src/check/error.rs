//! Why a check could not be done ([`CheckError`], exit code 2): a server that
//! does not start, a tool it does not list, a probe that shows nothing to
//! judge, an acted rule that cannot be read, a failing hook. A broken
//! property is not an error: it is a verdict in the report.

use crate::error::stderr_banner;

/// Why a check could not be done (exit code 2), as opposed to a failed property.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CheckError {
    /// The server command could not be started.
    #[error("cannot start server {}", crate::error::shell_words(command))]
    Spawn {
        /// Program and arguments.
        command: Vec<String>,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The server never completed `initialize` and `tools/list`. Over
    /// Streamable HTTP the server may well run (a 401 refuses the
    /// credentials): the message leads with the session that did not open.
    #[error(
        "{}: {error}{}{}",
        match url {
            Some(url) => format!("no session opened with {url}"),
            None => "the server did not start".to_owned(),
        },
        stray_banner(stray),
        stderr_banner(stderr)
    )]
    DidNotStart {
        /// The `--url` the session was opened with; none over stdio.
        url: Option<String>,
        /// The harness's reason.
        error: String,
        /// The first lines of its stdout that were not JSON-RPC (empty: none).
        stray: String,
        /// The last lines of its stderr (empty: none).
        stderr: String,
    },
    /// The tool is not among the server's tools.
    #[error("the server offers no tool named {tool:?}; it offers: {}", if tools.is_empty() { "no tools".to_owned() } else { tools.join(", ") })]
    ToolNotFound {
        /// The tool asked for.
        tool: String,
        /// The tools it lists.
        tools: Vec<String>,
    },
    /// The probe call got no reply at all (a timeout, a crash) before asking
    /// anything: not a server that never elicits, so it is named apart.
    #[error(
        "tools/call {tool:?} asked for no form: {failure}; nothing to check{}",
        stderr_banner(stderr)
    )]
    NoReply {
        /// The tool.
        tool: String,
        /// Why there is no reply, as [`crate::oracle::no_reply::no_reply`]
        /// says it (`no reply to tools/call within 10 s`).
        failure: String,
        /// The last lines of its stderr.
        stderr: String,
    },
    /// The probe call sent no form `elicitation/create`.
    #[error(
        "tools/call {tool:?} {asked} to a client declaring form elicitation; nothing to check (its reply: {reply}){hint}"
    )]
    NoElicitation {
        /// The tool.
        tool: String,
        /// What it did not do, in its era's words: `sent no form
        /// elicitation/create` (2025-11-25), `returned no InputRequiredResult
        /// asking for a form` (2026-07-28).
        asked: &'static str,
        /// Its reply, as compact JSON.
        reply: String,
        /// Empty, or the likely cause on a line of its own: a call without
        /// `--arguments` that the tool refused (an `isError` result or a
        /// JSON-RPC error) most often lacks its arguments.
        hint: String,
    },
    /// The acted rule cannot be read from the probe's results: a wrong
    /// `--acted` pointer, not a server bug.
    #[error(
        "{rule} cannot be read from the tool's reply to {answer}: {why}\n  the reply: {reply}\n  give the pointer of a value every reply carries (--acted POINTER or POINTER=JSON), or read acting another way: --acted-text REGEX, --acted-not-error, --acted-cmd CMD"
    )]
    ActedUnreadable {
        /// The rule as its option, e.g. `--acted /scheduled`.
        rule: String,
        /// The answer whose reply it was, e.g. `the valid accept {..}`.
        answer: String,
        /// Why, e.g. `no value at /scheduled in structuredContent or the text content`.
        why: String,
        /// The reply, as compact JSON.
        reply: String,
    },
    /// `--acted-cmd` already exits 0 before the probe calls the tool: it
    /// cannot tell whether a call acted (what it reads was not reset).
    #[error(
        "--acted-cmd {command:?} already exits 0 before the tool is called ({label}): it cannot tell whether a call acted; give a --setup that resets what it reads before each case"
    )]
    ActedBefore {
        /// The command.
        command: String,
        /// The call it was run before, e.g. `probe: a consenting valid accept`.
        label: String,
    },
    /// A `--setup` or `--acted-cmd` command failed or could not start.
    #[error("{option} {command:?} {how}{}", stderr_banner(stderr))]
    Hook {
        /// `--setup` or `--acted-cmd`.
        option: &'static str,
        /// The command.
        command: String,
        /// How it failed, and around which call: `cannot start: ... (before
        /// coverage 3)`, `ended with exit status 1 (before coverage 3)`, `was
        /// killed after 10 s, the --call-timeout bound (after case 7)`.
        how: String,
        /// The last lines of its stderr.
        stderr: String,
    },
    /// A `requestedSchema` the `jsonschema` crate cannot compile.
    #[error("{0}")]
    BadSchema(String),
    /// The target is incomplete (no tool, no command).
    #[error("{0}")]
    Usage(String),
    /// `--protocol both`: the era named could not be checked. Its message is
    /// the era; the reason is its source (`protocol 2026-07-28: tools/call …`
    /// when printed with its chain, as the CLI does).
    #[error("protocol {protocol}")]
    Era {
        /// `2025-11-25` or `2026-07-28`.
        protocol: &'static str,
        /// Why.
        source: Box<CheckError>,
    },
}

/// `stray` lines under a banner, or nothing when there are none.
fn stray_banner(stray: &str) -> String {
    if stray.is_empty() {
        String::new()
    } else {
        format!("\n--- its stdout lines that are not JSON-RPC ---\n{stray}")
    }
}
