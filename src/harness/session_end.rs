//! Ending a session: the client closed, then the server's stdin; the exit
//! waited for (killed after the grace) or, over HTTP and when asked, the
//! server stopped; out: everything recorded ([`Finished`]).

use std::sync::atomic::Ordering;

use super::{STOP_GRACE, Session, child};
use crate::evidence::{self, Finished};

impl Session {
    /// Closes the client, then the server's stdin; waits for the server to exit
    /// (killing it after the grace period) and returns everything recorded.
    pub async fn finish(self) -> Finished {
        self.finish_with_signal().await.0
    }

    /// [`Session::finish`], also giving the signal that ended the server
    /// ([`child::Ended::signal`]), for the evidence's `exit_signal`.
    pub async fn finish_with_signal(self) -> (Finished, Option<i32>) {
        self.end(false).await
    }

    /// Ends the session without waiting for the server to exit on its own:
    /// closes the client and the server's stdin, then SIGTERM to its process
    /// group at once (SIGKILL after [`STOP_GRACE`], or the shutdown grace when
    /// shorter; over HTTP, after the shutdown grace, as a server on a port is
    /// stopped). How it ended is then the harness's doing, not the server's
    /// ([`Finished::stopped_by_harness`]): `check` ends its sessions so once a
    /// server has shown that it ignores stdin close (MCP 2025-11-25,
    /// basic/lifecycle, "Shutdown", stdio), which is then judged once, not
    /// paid for per case.
    pub async fn stop(self) -> Finished {
        self.end(true).await.0
    }

    /// Ends the session: waits for the server to exit after its stdin closed
    /// (killing it after the grace), or, when `stop` or over HTTP, stops it.
    async fn end(mut self, stop: bool) -> (Finished, Option<i32>) {
        let protocol_version = self.protocol_version();
        if let Some(client) = self.client.take() {
            let _ = tokio::time::timeout(self.limits.shutdown, client.cancel()).await;
        }
        let pid = self.pid();
        let [mut to_server, mut to_client] = self.pumps;
        // The client side is gone; the pump closes the server's stdin (or the
        // HTTP bridge's input) when it sees that.
        if tokio::time::timeout(self.limits.shutdown, &mut to_server)
            .await
            .is_err()
        {
            to_server.abort(); // drops the server's stdin
            self.state
                .event("client pump did not end; server stdin dropped");
        }
        // Over HTTP the bridge ends the session (DELETE) before the server is
        // stopped, and the server is stopped rather than awaited: a server
        // on a port outlives its sessions by design.
        let http = self.bridge.is_some();
        if let Some(mut bridge) = self.bridge.take()
            && tokio::time::timeout(self.limits.shutdown, &mut bridge)
                .await
                .is_err()
        {
            bridge.abort();
            self.state.event("HTTP session did not end; bridge closed");
        }
        let stopped = http || stop;
        // A server on a port gets the grace to end on SIGTERM; one the harness
        // stops for having ignored stdin close gets at most STOP_GRACE.
        let grace = if http {
            self.limits.shutdown
        } else {
            self.limits.shutdown.min(STOP_GRACE)
        };
        let (exit, signal) = match self.process.take() {
            Some(process) if stopped => {
                let child::Ended { exit, signal } = process.terminate(grace).await;
                (exit, signal)
            }
            Some(process) => {
                let child::Ended { exit, signal } = process.end(self.limits.shutdown).await;
                (exit, signal)
            }
            None => (evidence::exit::Exit::default(), None),
        };
        if tokio::time::timeout(self.limits.shutdown, &mut to_client)
            .await
            .is_err()
        {
            to_client.abort();
            self.state.event("server stdout still open after exit");
        }
        if pid.is_some() {
            self.state
                .event(match (exit.code, exit.forced_kill, signal) {
                    (Some(code), false, _) => format!("exited with code {code}"),
                    (None, false, Some(signal)) => {
                        format!("killed by {}", child::describe_signal(signal))
                    }
                    (None, false, None) => "ended by a signal".to_owned(),
                    (_, true, _) => "killed after the shutdown grace period".to_owned(),
                });
        }
        if exit.group_left_running {
            self.state.event(
                "processes of the server's group were still running after it exited; killed",
            );
        }
        if let Some(registration) = self.in_flight.take() {
            registration.done();
        }
        let finished = Finished {
            recording: self.state.recording(),
            exit,
            callbacks: self.callbacks.load(Ordering::SeqCst),
            protocol_version,
            pid,
            startup_error: self.startup_error,
            shutdown_grace: self.limits.shutdown,
            stopped_by_harness: stopped,
            url: self.url.clone(),
        };
        (finished, signal)
    }
}

impl Finished {
    /// Whether the process ended as the contract wants: exit code 0 after its
    /// stdin closed (over HTTP, where the harness stops the server: ending
    /// when asked), not killed, nothing of its group left running, and no
    /// stray stdout line after the first `stray_lines_seen` (lines a session's
    /// cases did not already show).
    pub fn ended_cleanly(&self, stray_lines_seen: usize) -> bool {
        (self.exit.code == Some(0) || self.stopped_by_harness)
            && !self.exit.forced_kill
            && !self.exit.group_left_running
            && self.recording.stray_lines_seen() <= stray_lines_seen
    }
}
