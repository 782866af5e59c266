//! The time bounds of one session: every await of the harness has one, so a
//! server that hangs ends a session with an error in its evidence, never
//! with a hung run.

use std::time::Duration;

/// Time bounds of one session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// From spawn to a finished `initialize` and `tools/list`.
    pub startup: Duration,
    /// One `tools/call`, elicitation included.
    pub call: Duration,
    /// After stdin closes, how long the server may take to exit before it is killed.
    pub shutdown: Duration,
}

impl Default for Limits {
    /// 10 s startup, 10 s per call, 5 s shutdown grace (the defaults of `run`'s options).
    fn default() -> Self {
        Limits {
            startup: Duration::from_secs(10),
            call: Duration::from_secs(10),
            shutdown: Duration::from_secs(5),
        }
    }
}
