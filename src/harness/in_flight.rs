//! The cases in flight: what a stopped run keeps of a case it did not finish
//! (its `interrupted` verdict, with its frames so far).
//!
//! A run scopes its work with [`IN_FLIGHT`]; each case run through
//! [`super::run_case`] (or its 2026-07-28 twin, or a hostile-client case's raw
//! session, [`super::hostile`]) registers its session's recording there while it runs and removes it when the session finishes. When Ctrl-C or
//! SIGTERM drops the run, the sessions still registered are the cases in flight:
//! [`InFlight::take`] turns their frames, stray lines and timeline so far into
//! evidence, so the case is kept as `interrupted` instead of being dropped. Outside
//! such a scope (tests, `check`) nothing is registered.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::proxy::{ProxyState, Side};
use crate::case::Case;
use crate::evidence::{Evidence, RMCP_VERSION};

tokio::task_local! {
    /// The registry of the run being polled (set by the CLI around the run).
    pub static IN_FLIGHT: InFlight;
    /// The case (and server command) of the session being started.
    static CASE: (Case, Vec<String>);
}

/// The sessions of the cases in flight, shared by a run and its stop handler.
#[derive(Debug, Clone, Default)]
pub struct InFlight {
    entries: Arc<Mutex<Vec<Entry>>>,
    next: Arc<AtomicU64>,
}

#[derive(Debug)]
struct Entry {
    id: u64,
    case: Case,
    command: Vec<String>,
    state: ProxyState,
    pid: Option<u32>,
    /// The `--url` the session reached its server at (Streamable HTTP).
    url: Option<String>,
}

impl InFlight {
    fn entries(&self) -> std::sync::MutexGuard<'_, Vec<Entry>> {
        self.entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The evidence of every case still in flight (its recording so far, no exit
    /// status: its server is killed when its session is dropped), in the order
    /// they started; the registry is left empty.
    pub fn take(&self) -> Vec<Evidence> {
        let entries = std::mem::take(&mut *self.entries());
        entries
            .into_iter()
            .map(|entry| {
                entry
                    .state
                    .event("the run was stopped; the server is killed");
                let recording = entry.state.recording();
                let started = recording.wire.iter().any(|frame| {
                    frame.from == Side::Server
                        && frame
                            .message
                            .get("result")
                            .is_some_and(|result| result.get("tools").is_some())
                });
                Evidence {
                    case: entry.case.name.clone(),
                    input: entry.case,
                    elicit_check_version: env!("CARGO_PKG_VERSION"),
                    rmcp_version: RMCP_VERSION,
                    server_command: entry.command,
                    pid: entry.pid,
                    protocol_version: None,
                    wire: recording.wire,
                    timeline: recording.timeline,
                    callbacks: 0,
                    stray_stdout: recording.stray_stdout,
                    stray_stdout_not_kept: recording.stray_stdout_not_kept,
                    stderr: String::new(),
                    exit_code: None,
                    exit_signal: None,
                    forced_kill: false,
                    shutdown_grace_secs: 0.0,
                    group_left_running: false,
                    outcome: None,
                    text_outcome: None,
                    error: Some(crate::evidence::HarnessFailure::StoppedInFlight),
                    started,
                    rpc_error: None,
                    url: entry.url,
                    http: recording.http,
                    stopped_by_harness: false,
                }
            })
            .collect()
    }
}

/// Runs `work` (one case's session) with `case` and `command` as the case in
/// flight, so a session it spawns registers itself.
pub(crate) async fn scoped<T>(case: &Case, command: &[String], work: impl Future<Output = T>) -> T {
    CASE.scope((case.clone(), command.to_vec()), work).await
}

/// A session's place in the registry; [`Registration::done`] removes it.
#[derive(Debug)]
pub(crate) struct Registration {
    id: u64,
    registry: InFlight,
}

impl Registration {
    /// Registers `state` as the session of the case in flight, when a run's
    /// registry and a case are in scope; `url` is the `--url` it reaches its
    /// server at (none over stdio).
    pub(crate) fn new(
        state: &ProxyState,
        pid: Option<u32>,
        url: Option<String>,
    ) -> Option<Registration> {
        let (case, command) = CASE.try_with(Clone::clone).ok()?;
        Registration::for_case(state, pid, case, command, url)
    }

    /// Registers `state` as the session of `case` (run with `command`) while
    /// one call of a longer session is in flight (session mode, `schedule.rs`),
    /// when a run's registry is in scope.
    pub(crate) fn for_case(
        state: &ProxyState,
        pid: Option<u32>,
        case: Case,
        command: Vec<String>,
        url: Option<String>,
    ) -> Option<Registration> {
        let registry = IN_FLIGHT.try_with(Clone::clone).ok()?;
        let id = registry.next.fetch_add(1, Ordering::Relaxed);
        registry.entries().push(Entry {
            id,
            case,
            command,
            state: state.clone(),
            pid,
            url,
        });
        Some(Registration { id, registry })
    }

    /// The session finished: it is no longer in flight.
    pub(crate) fn done(self) {
        self.registry.entries().retain(|entry| entry.id != self.id);
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::time::Instant;

    use serde_json::json;

    use super::*;
    use crate::evidence::http::HttpStep;

    /// A case stopped in flight over Streamable HTTP keeps its URL and the HTTP
    /// steps recorded so far, as its frames: nothing of its session is lost.
    #[test]
    fn a_case_stopped_in_flight_over_http_keeps_its_url_and_http_steps() {
        let registry = InFlight::default();
        let state = ProxyState::new(json!({}), Instant::now());
        state.record_http(
            1,
            HttpStep::Request {
                method: "POST".to_owned(),
                path: "/mcp".to_owned(),
                headers: BTreeMap::new(),
                carries: None,
            },
        );
        let case = crate::case::contract_cases()
            .into_iter()
            .next()
            .expect("a contract case");
        let registration = IN_FLIGHT.sync_scope(registry.clone(), || {
            Registration::for_case(
                &state,
                None,
                case,
                Vec::new(),
                Some("http://127.0.0.1:8931/mcp".to_owned()),
            )
        });
        assert!(
            registration.is_some(),
            "registered while the registry is in scope"
        );
        let stopped = registry.take();
        assert_eq!(stopped.len(), 1);
        assert_eq!(stopped[0].url.as_deref(), Some("http://127.0.0.1:8931/mcp"));
        assert_eq!(stopped[0].http.len(), 1);
        assert_eq!(stopped[0].http[0].step.describe(), "POST /mcp");
    }
}
