//! The library's error type: every failure a user can see, defined once.

use std::path::PathBuf;

/// Errors of the library (loading cases, running a server, writing evidence).
///
/// Case failures (an outcome that differs from the expected one) are not errors:
/// they are verdicts, reported by `crate::report`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or folder could not be read or written.
    #[error("cannot read or write {path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A file is not the JSON this crate expects (or a value cannot be written as JSON).
    #[error("{path}: invalid JSON")]
    Json {
        /// The file.
        path: PathBuf,
        /// serde_json's error, with line and column.
        source: serde_json::Error,
    },
    /// `--case` named a contract case that does not exist.
    #[error(
        "no contract case named {name:?}; the cases are: {}; generated cases are named \
         generated_0001, generated_0002, ... (with the --seed of their run)",
        known.join(", ")
    )]
    UnknownCase {
        /// The name given.
        name: String,
        /// Every contract case's name.
        known: Vec<String>,
    },
    /// `--hostile --case` named a hostile-client case that does not exist.
    #[error("no hostile-client case named {name:?}; the cases are: {}", known.join(", "))]
    UnknownHostileCase {
        /// The name given.
        name: String,
        /// Every hostile-client case's name.
        known: Vec<String>,
    },
    /// The server started but lists no `calculate` tool (read from its reply
    /// to `tools/list` in the first case): `run` checks the built-in contract,
    /// so nothing can be judged; `check` is for a tool of the user's own.
    #[error(
        "this server has no `calculate` tool (it offers {}): `run` checks the built-in contract; to check your own tool use `elicit-check check --tool NAME --acted POINTER -- SERVER...`",
        if offered.is_empty() { "no tools".to_owned() } else { offered.join(", ") }
    )]
    NoContractTool {
        /// The tools it lists.
        offered: Vec<String>,
    },
    /// The server started but never completed `initialize` and `tools/list` in the
    /// first case, so no case can be judged; its stderr tells why.
    #[error("the server did not start: {error}{}", stderr_banner(stderr))]
    ServerDidNotStart {
        /// The harness's reason (initialize failed or timed out, no `calculate` tool).
        error: String,
        /// The last lines of the server's stderr (empty: it wrote none).
        stderr: String,
    },
    /// [`crate::run::settings::MAX_CONSECUTIVE_HUNG`] cases in a row got no reply to
    /// `tools/call` within the call bound: the run stops (verdict `hung`)
    /// rather than spend one bound on every remaining case.
    #[error(
        "stopped after {cases} consecutive hung cases (verdict hung: no reply to tools/call); give --keep-going to run every case"
    )]
    Hung {
        /// How many cases in a row hung.
        cases: usize,
    },
    /// [`crate::run::settings::MAX_CONSECUTIVE_IGNORED_STDIN_CLOSE`] cases in a row
    /// ended with the server still running `grace` after its stdin closed, and
    /// killed: the run stops (verdict `ignored_stdin_close`) rather than spend
    /// the grace on every remaining case.
    #[error(
        "stopped after {cases} consecutive ignored_stdin_close cases (the server did not exit within {} of its stdin closing and was killed each time; MCP 2025-11-25, Lifecycle, Shutdown, stdio); give --keep-going to run every case",
        crate::format::seconds(*grace)
    )]
    IgnoredStdinClose {
        /// How many cases in a row ended so.
        cases: usize,
        /// The shutdown grace each waited out (`--shutdown-grace`).
        grace: std::time::Duration,
    },
    /// The server command could not be started.
    #[error("cannot start server {}", shell_words(command))]
    Spawn {
        /// The program and its arguments.
        command: Vec<String>,
        /// The operating system's error.
        source: std::io::Error,
    },
}

/// `command` as one shell-quoted line (`python3 'my server.py'`).
/// A word with a NUL byte (which no program's argument can hold) makes the
/// line the words joined by spaces, unquoted.
pub fn shell_words(command: &[String]) -> String {
    shlex::try_join(command.iter().map(String::as_str)).unwrap_or_else(|_| command.join(" "))
}

/// `stderr` under a banner, or nothing when it is empty (no empty banner).
pub(crate) fn stderr_banner(stderr: &str) -> String {
    if stderr.trim().is_empty() {
        String::new()
    } else {
        format!("\n--- its stderr (last lines) ---\n{stderr}")
    }
}
