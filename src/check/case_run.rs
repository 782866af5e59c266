//! Running one case: open a server process declaring some capabilities
//! (`--setup` first), call the tool with a responder answering each form
//! request from the case's plan (each `elicitation/create` on 2025-11-25, each
//! input request of each round on 2026-07-28), finish the process, and read
//! what it did into a [`CaseRun`] (the acted rule, `--acted-cmd` after the
//! server exited); a [`CaseRecord`] is that run as the evidence keeps it.

use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde_json::{Value, json};

use super::error::CheckError;
use super::hooks;
use super::tally::CallSummary;
use super::target::Target;
use crate::case::Answer;
use crate::evidence::http::HttpRecord;
use crate::harness::client::{FORM_NOT_DECLARED, URL_NOT_DECLARED};
use crate::harness::era::Protocol;
use crate::harness::proxy::{Frame, Responder, StrayLine};
use crate::harness::{Session, ToolCall};
use crate::oracle::property::{self, ActedRule, Class, Observation, Property, Reading, SentAnswer};
use crate::schema::Form;
use crate::schema::answer::GeneratedAnswer;
use crate::schema::coverage::{self, accept};
use crate::schema::judge::Judge;

/// One step of the tool's form: the schema as probed, read and compiled.
pub(super) struct Step {
    /// The `requestedSchema` as the server sent it.
    pub(super) schema: Value,
    /// The form it describes (fields, types, the subset's warnings).
    pub(super) form: Form,
    /// Its compiled JSON Schema, judging answers.
    pub(super) judge: Judge,
}

/// What one case left behind: the answers it sent, what the acted rule read,
/// the tool's reply, the wire and how the server process ended. A case run in
/// a session (session mode) shows the session's handshake and its own call.
#[derive(Debug, Clone)]
pub struct CaseRun {
    /// The answers sent, one per form request, in order, each with its class.
    pub sent: Vec<SentAnswer>,
    /// The acted reading.
    pub reading: Reading,
    /// The tool's reply as the evidence keeps it: `{"result": ..}`,
    /// `{"error": ..}` or `{}` (no reply).
    pub reply: Value,
    /// The whole wire.
    pub wire: Vec<Frame>,
    /// The HTTP steps that carried it (Streamable HTTP; empty over stdio).
    pub http: Vec<HttpRecord>,
    /// Stray stdout lines.
    pub stray: Vec<StrayLine>,
    /// Whether the server was killed after stdin closed.
    pub forced_kill: bool,
    /// Why the call has no reply (a startup error, a timeout), in the
    /// harness's words; none when it has one.
    pub call_failure: Option<String>,
    /// The client capabilities declared at `initialize`, e.g.
    /// `{"elicitation":{"form":{}}}`.
    pub capabilities: Value,
    /// Its stderr (in a session: on the session's last case only).
    pub stderr: String,
}

impl CaseRun {
    /// What the tally reads of this run.
    pub(super) fn summary(&self) -> CallSummary<'_> {
        CallSummary {
            sent: &self.sent,
            acted: self.reading.acted,
            reply: &self.reply,
            stderr: &self.stderr,
            capabilities: &self.capabilities,
        }
    }

    /// The properties this run breaks, each with its reason
    /// ([`property::violations`] on what the run observed), judged with
    /// `target`'s shutdown grace, `--strict` and `--allow-unasked`.
    pub(super) fn violations(&self, target: &Target) -> Vec<(Property, String)> {
        property::violations(&Observation {
            sent: &self.sent,
            reading: &self.reading,
            capabilities: &self.capabilities,
            wire: &self.wire,
            stray: &self.stray,
            http: &self.http,
            forced_kill: self.forced_kill,
            grace: target.limits.shutdown,
            call_failure: self.call_failure.as_deref(),
            strict: target.strict,
            allow_unasked: target.allow_unasked,
        })
    }
}

/// `{"elicitation":{"form":{}}}`.
pub(super) fn form_capabilities() -> Value {
    json!({"elicitation": {"form": {}}})
}

/// One case's record for the evidence folder (`cases.jsonl`).
#[derive(Debug, Clone, Serialize)]
pub struct CaseRecord {
    /// Which case: `probe: ..`, `coverage N`, `case N`, `replay`,
    /// `capabilities {..}`, `retry: ..` or `minimal case of property N`.
    pub case: String,
    /// The answers sent.
    pub sent: Vec<SentAnswer>,
    /// The acted reading.
    pub reading: Reading,
    /// The tool's reply.
    pub reply: Value,
    /// The properties it broke, each `property N: reason`.
    pub violations: Vec<String>,
    /// The whole wire.
    pub wire: Vec<Frame>,
    /// The HTTP steps that carried it, in the wire's order (Streamable HTTP only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub http: Vec<HttpRecord>,
    /// Stray stdout lines.
    pub stray_stdout: Vec<StrayLine>,
    /// The server's stderr.
    pub stderr: String,
}

/// A session's record for the evidence.
pub(super) fn record(case: String, run: &CaseRun, violations: &[(Property, String)]) -> CaseRecord {
    CaseRecord {
        case,
        sent: run.sent.clone(),
        reading: run.reading.clone(),
        reply: run.reply.clone(),
        violations: violations
            .iter()
            .map(|(property, reason)| format!("{property}: {reason}"))
            .collect(),
        wire: run.wire.clone(),
        http: run.http.clone(),
        stray_stdout: run.stray.clone(),
        stderr: run.stderr.clone(),
    }
}

/// Opens a session declaring `capabilities`, running `--setup` first when
/// `setup` (a session that will hold several cases runs it per call instead).
pub(super) async fn open(
    target: &Target,
    capabilities: &Value,
    setup: bool,
) -> Result<Session, CheckError> {
    if setup {
        run_setup(target).await?;
    }
    let opened = match target.protocol {
        Protocol::V2025_11_25 => {
            Session::open_in(
                &target.command,
                &target.environment,
                &target.transport,
                capabilities,
                target.limits,
                None,
            )
            .await
        }
        Protocol::V2026_07_28 => {
            Session::open_discover(
                &target.command,
                &target.environment,
                &target.transport,
                capabilities,
                target.limits,
            )
            .await
        }
    };
    opened.map_err(|error| match error {
        crate::error::Error::Spawn { command, source } => CheckError::Spawn { command, source },
        other => CheckError::Usage(other.to_string()),
    })
}

/// Runs `--setup`, when given: [`CheckError::Hook`] unless it exits 0.
pub(super) async fn run_setup(target: &Target) -> Result<(), CheckError> {
    let Some(command) = &target.setup else {
        return Ok(());
    };
    let run = hooks::run(command, &target.environment, target.limits.call)
        .await
        .map_err(|error| CheckError::Hook {
            option: "--setup",
            command: command.clone(),
            how: format!("cannot start: {error}"),
            stderr: String::new(),
        })?;
    if run.succeeded() {
        Ok(())
    } else {
        Err(CheckError::Hook {
            option: "--setup",
            command: command.clone(),
            how: format!("ended with {}", run.ending(target.limits.call)),
            stderr: run.stderr,
        })
    }
}

/// With `--acted-cmd`, the reading from running it now (exit 0: acted);
/// otherwise `reading` as read from the reply.
pub(super) async fn acted_after(target: &Target, reading: Reading) -> Result<Reading, CheckError> {
    let ActedRule::Command(command) = &target.acted else {
        return Ok(reading);
    };
    let run = hooks::run(command, &target.environment, target.limits.call)
        .await
        .map_err(|error| CheckError::Hook {
            option: "--acted-cmd",
            command: command.clone(),
            how: format!("cannot start: {error}"),
            stderr: String::new(),
        })?;
    if run.timed_out {
        return Err(CheckError::Hook {
            option: "--acted-cmd",
            command: command.clone(),
            how: format!("ended with {}", run.ending(target.limits.call)),
            stderr: run.stderr,
        });
    }
    Ok(Reading::plain(run.succeeded()))
}

/// One case in a fresh server process declaring `capabilities`.
pub(super) async fn run_case(
    target: &Target,
    steps: &Arc<Vec<Step>>,
    plan: &[GeneratedAnswer],
    capabilities: &Value,
) -> Result<CaseRun, CheckError> {
    let session = open(target, capabilities, true).await?;
    Ok(
        call_and_finish(target, session, capabilities, Some(Arc::clone(steps)), plan)
            .await?
            .0,
    )
}

/// The answers sent and the form schemas seen by a [`responder`].
pub(super) type Sent = (Arc<Mutex<Vec<SentAnswer>>>, Arc<Mutex<Vec<Value>>>);

/// A responder answering each `elicitation/create` from `plan` (or, when
/// probing, with fixed valid accepts) and noting what it sent and saw.
pub(super) fn responder(
    capabilities: &Value,
    steps: Option<Arc<Vec<Step>>>,
    plan: &[GeneratedAnswer],
) -> (Responder, Sent) {
    let form_declared = crate::harness::client::declares_form(capabilities);
    let url_declared = crate::harness::client::declares_url(capabilities);
    let sent: Arc<Mutex<Vec<SentAnswer>>> = Arc::default();
    let schemas: Arc<Mutex<Vec<Value>>> = Arc::default();
    let responder: Responder = {
        let sent = Arc::clone(&sent);
        let schemas = Arc::clone(&schemas);
        let plan = plan.to_vec();
        Arc::new(move |request: &Value| {
            let params = request.get("params").cloned().unwrap_or(Value::Null);
            let mode = params.get("mode");
            let is_form =
                mode.is_none_or(Value::is_null) || mode.and_then(Value::as_str) == Some("form");
            let schema = params
                .get("requestedSchema")
                .cloned()
                .unwrap_or(Value::Null);
            let (reply, class, built_as) = if !is_form {
                if url_declared {
                    (
                        Answer::Result(json!({"action": "cancel"})),
                        Class::Refusal("cancel".into()),
                        "URL elicitation: cancel".to_owned(),
                    )
                } else {
                    (url_error(), Class::Error, "URL not declared".to_owned())
                }
            } else if !form_declared {
                (form_error(), Class::Error, "form not declared".to_owned())
            } else {
                let mut schemas = lock(&schemas);
                let index = schemas.len();
                schemas.push(schema.clone());
                drop(schemas);
                let step = steps
                    .as_ref()
                    .and_then(|steps| steps.get(index))
                    .filter(|step| step.schema == schema);
                let form = Form::read(&schema);
                let (answer, built_as) = match (plan.get(index), step) {
                    (Some(planned), Some(_)) => (planned.answer.clone(), planned.built_as.clone()),
                    _ => (
                        accept(&coverage::base_candidates(&form)[0]),
                        "a consenting valid accept (request not planned)".to_owned(),
                    ),
                };
                let class = match step {
                    Some(step) => property::classify(&step.form, &step.judge, &answer),
                    None => match Judge::new(&schema) {
                        Ok(judge) => property::classify(&form, &judge, &answer),
                        Err(error) => Class::InvalidAccept(vec![error]),
                    },
                };
                (Answer::Result(answer), class, built_as)
            };
            let answer = match &reply {
                Answer::Result(value) | Answer::Error(value) => value.clone(),
            };
            lock(&sent).push(SentAnswer {
                requested_schema: schema,
                answer,
                class,
                built_as,
            });
            reply
        })
    };
    (responder, (sent, schemas))
}

/// Calls the target's tool in `session`, every form request answered by
/// `responder`: on 2025-11-25 each `elicitation/create` inside the call, on
/// 2026-07-28 each input request of each round.
pub(super) async fn call_tool(
    target: &Target,
    session: &mut Session,
    responder: Responder,
) -> ToolCall {
    match target.protocol {
        Protocol::V2025_11_25 => {
            session.set_responder(Some(responder));
            let call = session
                .call_tool(&target.tool, target.arguments.clone())
                .await;
            session.set_responder(None);
            call
        }
        Protocol::V2026_07_28 => {
            session
                .call_tool_rounds(&target.tool, target.arguments.clone(), &responder)
                .await
        }
    }
}

/// The tool's reply as the evidence keeps it: `{"result": ..}`, `{"error": ..}` or `{}`.
pub(super) fn reply_of(call: &ToolCall) -> Value {
    match (&call.result, &call.error) {
        (Some(result), _) => json!({"result": result}),
        (None, Some(error)) => json!({"error": error}),
        (None, None) => json!({}),
    }
}

/// Calls the tool with a [`responder`] answering from `plan`, finishes the
/// session and reads everything (`--acted-cmd` after the server exited);
/// returns the run and the form schemas the server sent.
///
/// # Errors
/// [`CheckError::Hook`] when `--acted-cmd` cannot run.
pub(super) async fn call_and_finish(
    target: &Target,
    mut session: Session,
    capabilities: &Value,
    steps: Option<Arc<Vec<Step>>>,
    plan: &[GeneratedAnswer],
) -> Result<(CaseRun, Vec<Value>), CheckError> {
    let (responder, (sent, schemas)) = responder(capabilities, steps, plan);
    let call = call_tool(target, &mut session, responder).await;
    let sent = lock(&sent).clone();
    let run = finish_run(target, session, capabilities, &call, sent).await?;
    let schemas = lock(&schemas).clone();
    Ok((run, schemas))
}

/// Finishes `session` after `call` and reads everything into a [`CaseRun`]
/// (`--acted-cmd` after the server exited).
///
/// # Errors
/// [`CheckError::Hook`] when `--acted-cmd` cannot run.
pub(super) async fn finish_run(
    target: &Target,
    session: Session,
    capabilities: &Value,
    call: &ToolCall,
    sent: Vec<SentAnswer>,
) -> Result<CaseRun, CheckError> {
    let finished = session.finish().await;
    let reading = property::read_acted(&target.acted, call.result.as_ref(), call.error.as_ref());
    let reading = acted_after(target, reading).await?;
    Ok(CaseRun {
        sent,
        reading,
        reply: reply_of(call),
        wire: finished.recording.wire,
        http: finished.recording.http,
        stray: finished.recording.stray_stdout,
        // Over HTTP the harness stops the server: no exit on stdin close to judge.
        forced_kill: finished.exit.forced_kill && !finished.stopped_by_harness,
        call_failure: finished.startup_error.or_else(|| call.failure.clone()),
        capabilities: capabilities.clone(),
        stderr: finished.exit.stderr,
    })
}

/// `-32602 elicitation mode not declared: form`.
fn form_error() -> Answer {
    Answer::Error(json!({"code": -32602, "message": FORM_NOT_DECLARED}))
}

/// `-32602 elicitation mode not declared: url`.
fn url_error() -> Answer {
    Answer::Error(json!({"code": -32602, "message": URL_NOT_DECLARED}))
}

/// Locks a mutex, keeping the data after a panic elsewhere.
pub(super) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The last `count` lines of `text`.
pub(super) fn last_lines(text: &str, count: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(count)..].join("\n")
}
