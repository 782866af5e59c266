//! Property 7 over Streamable HTTP: a reply from another session is no
//! answer (MCP 2025-11-25, basic/transports, "Session Management": a session
//! is the `Mcp-Session-Id` the server assigned). The call's own
//! `elicitation/create` is answered with a decline, after the bridge POSTed a
//! consenting valid accept under the same JSON-RPC id in another session, or
//! with no session id ([`crate::harness::cross_session`]). A tool that acts
//! took an answer its own client never gave.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::case_run::{CaseRun, Step, call_and_finish, form_capabilities, open};
use super::error::CheckError;
use super::progress::Phase;
use super::runner::{CaseId, Runner};
use crate::evidence::http::{HttpRecord, HttpStep};
use crate::harness::cross_session::{CrossSessionAnswer, PlantedSession};
use crate::schema::answer::{Built, GeneratedAnswer};
use crate::schema::coverage::accept;

/// Both ways to plant, in the order they run.
pub(super) const PLANTED: [PlantedSession; 2] = [PlantedSession::Another, PlantedSession::Missing];

/// What one planted call showed.
pub(super) enum Outcome {
    /// The reply was planted and the call ran: what it did.
    Ran(Box<CaseRun>),
    /// Nothing was planted, and why (`the server assigned no Mcp-Session-Id`).
    NotPlanted(&'static str),
}

/// What the planted reply is, in a reason: `a valid accept POSTed under
/// another session's Mcp-Session-Id`.
pub(super) fn describe(session: PlantedSession) -> String {
    format!("a valid accept POSTed under {}", session.describe())
}

/// Runs one call whose requests are all declined, a valid accept of the first
/// request (its base `bases[0]`) planted under `session` before the decline.
///
/// # Errors
/// As [`open`] and [`call_and_finish`]: a server that does not start, a
/// failing hook.
pub(super) async fn run(
    runner: &Runner<'_>,
    steps: &Arc<Vec<Step>>,
    bases: &[Map<String, Value>],
    session: PlantedSession,
) -> Result<Outcome, CheckError> {
    let capabilities = form_capabilities();
    let decline = GeneratedAnswer {
        answer: json!({"action": "decline"}),
        built_as: "decline".to_owned(),
        built: Built::Refusal,
    };
    let plan = vec![decline; steps.len()];
    let label = format!("cross-session: {}", describe(session));
    runner.started(Phase::Retries, &label);
    let (opened, number) = open(runner, &capabilities, Some(&label)).await?;
    opened.plant_cross_session_answer(Some(CrossSessionAnswer {
        session,
        result: accept(&bases[0]),
    }));
    let id = CaseId {
        label: &label,
        session: number,
    };
    let (run, _) = call_and_finish(
        runner,
        opened,
        &capabilities,
        Some(Arc::clone(steps)),
        &plan,
        id,
    )
    .await?;
    runner.finished_one();
    if planted(&run.http) {
        Ok(Outcome::Ran(Box::new(run)))
    } else if own_session(&run.http).is_none() {
        Ok(Outcome::NotPlanted("the server assigned no Mcp-Session-Id"))
    } else {
        Ok(Outcome::NotPlanted(
            "no reply went out under another session (see the timeline)",
        ))
    }
}

/// The `Mcp-Session-Id` the server assigned the session (its first response's).
fn own_session(http: &[HttpRecord]) -> Option<&str> {
    http.iter().find_map(|record| match &record.step {
        HttpStep::Response { headers, .. } => headers.get("mcp-session-id").map(String::as_str),
        _ => None,
    })
}

/// Whether a reply went out under another session id than the session's own,
/// or none.
fn planted(http: &[HttpRecord]) -> bool {
    let own = own_session(http);
    own.is_some()
        && http.iter().any(|record| match &record.step {
            HttpStep::Request {
                method,
                headers,
                carries: Some(carried),
                ..
            } => {
                method == "POST"
                    && carried.method.is_none()
                    && headers.get("mcp-session-id").map(String::as_str) != own
            }
            _ => false,
        })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::evidence::http::Carried;

    fn record(seq: u64, step: HttpStep) -> HttpRecord {
        HttpRecord {
            seq,
            exchange: 1,
            step,
        }
    }

    fn post(session: Option<&str>, message: Value) -> HttpStep {
        HttpStep::Request {
            method: "POST".into(),
            path: "/mcp".into(),
            headers: session
                .map(|id| BTreeMap::from([("mcp-session-id".to_owned(), id.to_owned())]))
                .unwrap_or_default(),
            carries: Carried::of(&message),
        }
    }

    fn assigned(session: &str) -> HttpStep {
        HttpStep::Response {
            status: 200,
            headers: BTreeMap::from([("mcp-session-id".to_owned(), session.to_owned())]),
        }
    }

    #[test]
    fn a_reply_under_another_session_id_or_none_was_planted() {
        let reply = json!({"id": 0, "result": {"action": "accept"}});
        let initialize = json!({"id": 0, "method": "initialize"});
        let mut http = vec![
            record(0, post(None, initialize)),
            record(1, assigned("s-1")),
            record(2, post(Some("s-1"), reply.clone())),
        ];
        assert_eq!(own_session(&http), Some("s-1"));
        assert!(!planted(&http), "the session's own reply");
        http.push(record(3, post(Some("s-2"), reply.clone())));
        assert!(planted(&http));
        http.pop();
        http.push(record(3, post(None, reply)));
        assert!(planted(&http));
        // A request under another id is not a reply.
        http.pop();
        http.push(record(
            3,
            post(Some("s-2"), json!({"id": 1, "method": "ping"})),
        ));
        assert!(!planted(&http));
    }

    #[test]
    fn nothing_is_planted_in_a_session_without_an_id() {
        let http = vec![
            record(0, post(None, json!({"id": 0, "method": "initialize"}))),
            record(
                1,
                HttpStep::Response {
                    status: 200,
                    headers: BTreeMap::new(),
                },
            ),
            record(2, post(None, json!({"id": 0, "result": {}}))),
        ];
        assert_eq!(own_session(&http), None);
        assert!(!planted(&http));
    }
}
