//! How a server process ended, as its evidence records it.

/// How the server ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Exit {
    /// The exit code; `None` when a signal ended it.
    pub code: Option<i32>,
    /// Whether the harness had to kill it after the shutdown grace period.
    pub forced_kill: bool,
    /// Its whole stderr (up to `MAX_STDERR_BYTES` of the harness's child process, 1 MiB), lossily decoded.
    pub stderr: String,
    /// Whether processes of the server's group (a wrapper's children) were still
    /// running after the server itself had exited, and were killed.
    pub group_left_running: bool,
}
