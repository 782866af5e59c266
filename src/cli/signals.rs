//! Ctrl-C and SIGTERM during a run: the case in flight is kept as
//! `interrupted` and the evidence says the run was stopped.

/// Ctrl-C (SIGINT) and SIGTERM, listened for from the moment this is made: made
/// before any server is spawned, so no signal can kill the run (and orphan the
/// server group) before it is listened for.
pub(crate) struct StopSignals {
    interrupt: Option<tokio::signal::unix::Signal>,
    terminate: Option<tokio::signal::unix::Signal>,
}

impl StopSignals {
    pub(crate) fn listen() -> StopSignals {
        use tokio::signal::unix::{SignalKind, signal};
        StopSignals {
            interrupt: signal(SignalKind::interrupt()).ok(),
            terminate: signal(SignalKind::terminate()).ok(),
        }
    }

    /// The signal that `word` ([`StopSignals::recv`]) stands for: `SIGTERM` for
    /// `terminated`, `SIGINT` (Ctrl-C) for `interrupted`.
    pub(crate) fn name(word: &str) -> &'static str {
        if word == "terminated" {
            "SIGTERM"
        } else {
            "SIGINT"
        }
    }

    /// Resolves on the first of the two signals, naming it.
    pub(crate) async fn recv(&mut self) -> &'static str {
        async fn next(stream: &mut Option<tokio::signal::unix::Signal>) {
            match stream {
                Some(stream) => {
                    stream.recv().await;
                }
                None => std::future::pending().await,
            }
        }
        tokio::select! {
            () = next(&mut self.interrupt) => "interrupted",
            () = next(&mut self.terminate) => "terminated",
        }
    }
}
