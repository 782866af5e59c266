//! Running one case: open a server process declaring some capabilities
//! (`--setup` first), call the tool with a responder answering each form
//! request from the case's plan (each `elicitation/create` on 2025-11-25, each
//! input request of each round on 2026-07-28), finish the process, and read
//! what it did into a [`CaseRun`] (the acted rule, `--acted-cmd` after the
//! server exited); a [`CaseRecord`] is that run as the evidence keeps it.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::error::CheckError;
use super::progress::Phase;
use super::runner::{CaseId, Runner};
use crate::case::Answer;
use crate::evidence::HarnessFailure;
use crate::evidence::http::HttpRecord;
pub(crate) use crate::harness::client::form_capabilities;
use crate::harness::client::{self, FORM_NOT_DECLARED, URL_NOT_DECLARED};
use crate::harness::era::Protocol;
use crate::harness::hooks;
use crate::harness::proxy::{Frame, Responder, StrayLine};
use crate::harness::{Session, ToolCall};
use crate::lock::lock;
use crate::oracle::consent::DeclaredConsent;
use crate::oracle::property::{self, ActedRule, Class, Observation, Property, Reading, SentAnswer};
use crate::schema::Form;
use crate::schema::answer::GeneratedAnswer;
use crate::schema::coverage::{self, accept};
use crate::schema::judge::Judge;
use crate::targets::target::Target;
use crate::verdict::check::case_record::CaseRecord;
use crate::verdict::check::tally::CallSummary;

/// One step of the tool's form: the schema as probed, read and compiled.
pub(crate) struct Step {
    /// The `requestedSchema` as the server sent it.
    pub(crate) schema: Value,
    /// The form it describes (fields, types, the subset's warnings).
    pub(crate) form: Form,
    /// Its compiled JSON Schema, judging answers.
    pub(crate) judge: Judge,
    /// The probe's consenting answer to it (the base the tool acted on), once
    /// the probe has found it: the answer a request gets when the form is
    /// asked again, or when the plan has no answer for it.
    pub(crate) consenting: std::sync::OnceLock<Value>,
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
    /// Why the call has no reply (a startup error, a timeout), as the
    /// harness kept it; none when it has one.
    pub call_failure: Option<HarnessFailure>,
    /// The client capabilities declared at `initialize`, e.g.
    /// `{"elicitation":{"form":{}}}`.
    pub capabilities: Value,
    /// Its stderr (in a session: on the session's last case only).
    pub stderr: String,
    /// How many form requests the server sent in the call (each answered):
    /// 0 when the call never reached the form.
    pub forms: usize,
    /// Whether `--acted-cmd` already exited 0 before the call: its reading
    /// after the call then says nothing of this call, which counts for no
    /// property.
    pub acted_before: bool,
    /// How many calls its server process served before this one: 0 in a
    /// fresh process; in a session (session mode), the session's calls before it.
    pub served_before: usize,
}

impl CaseRun {
    /// Whether the `tools/call` got a reply: a result or a JSON-RPC error
    /// (no reply: it waited out `--call-timeout`, or the server died in the
    /// call).
    pub fn answered(&self) -> bool {
        self.reply.get("result").is_some() || self.reply.get("error").is_some()
    }

    /// Whether the acted reading says something of this call under `acted`:
    /// `--acted-cmd` did not say acted before it, and the tool replied (a
    /// result or a JSON-RPC error) or `--acted-cmd` read the world after it.
    /// A call without one tested nothing: whether it acted is unknown.
    pub fn has_reading(&self, acted: &ActedRule) -> bool {
        !self.acted_before && (self.answered() || matches!(acted, ActedRule::Command(_)))
    }

    /// Whether the tool was called at all: a `tools/call` crossed the wire.
    /// A session whose server never got that far (it died at start-up, its
    /// handshake failed) counts for no property.
    pub fn reached_tool(&self) -> bool {
        self.wire.iter().any(|frame| {
            frame.from == crate::evidence::wire::Side::Client
                && frame.message.get("method").and_then(Value::as_str) == Some("tools/call")
        })
    }

    /// Whether the call reached the form: the server asked for one.
    pub fn reached_form(&self) -> bool {
        self.forms > 0
    }

    /// What the tally reads of this run, judged with `target`'s declared
    /// consent fields.
    pub(super) fn summary<'a>(&'a self, target: &'a Target) -> CallSummary<'a> {
        CallSummary {
            sent: &self.sent,
            acted: self.reading.acted,
            read: self.has_reading(&target.acted),
            reply: &self.reply,
            stderr: &self.stderr,
            capabilities: &self.capabilities,
            consent: &target.consent,
        }
    }

    /// [`CaseRun::violations`] of a call that counts: none when it never
    /// reached the tool, or `--acted-cmd` said acted before it (such a call
    /// counts for no property), as its record in the evidence says.
    pub(super) fn counted_violations(&self, target: &Target) -> Vec<(Property, String)> {
        if self.reached_tool() && !self.acted_before {
            self.violations(target)
        } else {
            Vec::new()
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
            call_failure: self.call_failure.as_ref(),
            strict: target.strict,
            allow_unasked: target.allow_unasked,
            protocol: target.protocol,
            consent: &target.consent,
        })
    }
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
        not_judged: false,
    }
}

/// Keeps `run`, the call labelled `label` that just finished, in the
/// check's journal until it is logged ([`crate::verdict::check::journal`]), with the
/// properties it breaks (none when it never reached the tool, or
/// `--acted-cmd` said acted before it: such a call counts for none).
pub(super) fn journal(runner: &Runner<'_>, label: &str, run: &CaseRun) {
    runner.target.journal.ran(record(
        label.to_owned(),
        run,
        &run.counted_violations(runner.target),
    ));
}

/// Opens a new session declaring `capabilities` (its number from
/// [`Runner::next_session`], told to the server in [`super::runner::SESSION_VAR`]),
/// running `--setup` first for call `label` when given (a session that will
/// hold several calls runs it per call instead).
///
/// # Errors
/// [`CheckError::Spawn`] when the server cannot start; [`CheckError::Hook`]
/// when `--setup` fails.
pub(crate) async fn open(
    runner: &Runner<'_>,
    capabilities: &Value,
    label: Option<&str>,
) -> Result<(Session, u64), CheckError> {
    let target = runner.target;
    let number = runner.next_session();
    if let Some(label) = label {
        run_setup(
            runner,
            CaseId {
                label,
                session: number,
            },
        )
        .await?;
    }
    let environment = runner.server_environment(number);
    let opened = match target.protocol {
        Protocol::V2025_11_25 => {
            Session::open_in(
                &target.command,
                &environment,
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
                &environment,
                &target.transport,
                capabilities,
                target.limits,
            )
            .await
        }
    };
    let session = opened.map_err(|error| match error {
        crate::error::Error::Spawn { command, source } => CheckError::Spawn { command, source },
        other => CheckError::Usage(other.to_string()),
    })?;
    Ok((session, number))
}

/// Runs `--setup`, when given, before call `id`: [`CheckError::Hook`] unless
/// it exits 0 (it is bounded by `--call-timeout`).
pub(super) async fn run_setup(runner: &Runner<'_>, id: CaseId<'_>) -> Result<(), CheckError> {
    let Some(command) = &runner.target.setup else {
        return Ok(());
    };
    let when = format!("before {}", id.label);
    let run = hook(runner, "--setup", command, id, &when).await?;
    if run.succeeded() {
        Ok(())
    } else {
        Err(hook_failed(runner, "--setup", command, run, &when))
    }
}

/// Runs the hook `command` of `option` around call `id` (`when`: `before
/// coverage 3`).
///
/// # Errors
/// [`CheckError::Hook`] when it cannot start, or is killed at its bound.
async fn hook(
    runner: &Runner<'_>,
    option: &'static str,
    command: &str,
    id: CaseId<'_>,
    when: &str,
) -> Result<hooks::HookRun, CheckError> {
    let bound = runner.target.limits.call;
    let run = hooks::run(command, &runner.hook_environment(id), bound)
        .await
        .map_err(|error| CheckError::Hook {
            option,
            command: command.to_owned(),
            how: format!("cannot start: {error} ({when})"),
            stderr: String::new(),
        })?;
    if run.timed_out {
        return Err(hook_failed(runner, option, command, run, when));
    }
    Ok(run)
}

/// How a hook failed, as [`CheckError::Hook`]: `was killed after 10 s, the
/// --call-timeout bound (before coverage 3)`, `ended with exit status 1
/// (before coverage 3)`.
fn hook_failed(
    runner: &Runner<'_>,
    option: &'static str,
    command: &str,
    run: hooks::HookRun,
    when: &str,
) -> CheckError {
    let bound = runner.target.limits.call;
    let how = if run.timed_out {
        format!(
            "was killed after {}, the --call-timeout bound ({when})",
            crate::format::seconds(bound)
        )
    } else {
        format!("ended with {} ({when})", run.ending(bound))
    };
    CheckError::Hook {
        option,
        command: command.to_owned(),
        how,
        stderr: run.stderr,
    }
}

/// With `--acted-cmd`, whether it already exits 0 before call `id` calls the
/// tool (after `--setup`): the reading after the call could then not tell
/// whether this call acted. False without `--acted-cmd`.
///
/// # Errors
/// [`CheckError::Hook`] when it cannot start or is killed at its bound.
pub(super) async fn acted_before(runner: &Runner<'_>, id: CaseId<'_>) -> Result<bool, CheckError> {
    let ActedRule::Command(command) = &runner.target.acted else {
        return Ok(false);
    };
    let when = format!("before {}", id.label);
    Ok(hook(runner, "--acted-cmd", command, id, &when)
        .await?
        .succeeded())
}

/// With `--acted-cmd`, the reading from running it now, after call `id`
/// (exit 0: acted); otherwise `reading` as read from the reply.
///
/// # Errors
/// [`CheckError::Hook`] when it cannot start or is killed at its bound.
pub(super) async fn acted_after(
    runner: &Runner<'_>,
    id: CaseId<'_>,
    reading: Reading,
) -> Result<Reading, CheckError> {
    let ActedRule::Command(command) = &runner.target.acted else {
        return Ok(reading);
    };
    let when = format!("after {}", id.label);
    let run = hook(runner, "--acted-cmd", command, id, &when).await?;
    Ok(Reading::plain(run.succeeded()))
}

/// Call `label` of `phase` in a fresh server process declaring
/// `capabilities`: `--setup`, the server, the call, its exit, `--acted-cmd`,
/// one after another. The run is kept in the journal until it is logged
/// ([`journal`]; a shrink candidate is not).
///
/// # Errors
/// As [`open`] and [`call_and_finish`].
pub(super) async fn run_case(
    runner: &Runner<'_>,
    steps: &Arc<Vec<Step>>,
    plan: &[GeneratedAnswer],
    capabilities: &Value,
    (phase, label): (Phase, &str),
) -> Result<CaseRun, CheckError> {
    runner.started(phase, label);
    let (session, number) = open(runner, capabilities, Some(label)).await?;
    let id = CaseId {
        label,
        session: number,
    };
    let run = call_and_finish(
        runner,
        session,
        capabilities,
        Some(Arc::clone(steps)),
        plan,
        id,
    )
    .await?
    .0;
    // A shrink candidate is no call of the plan: only the minimal one is kept.
    if phase != Phase::Confirming {
        journal(runner, label, &run);
    }
    runner.finished_one();
    Ok(run)
}

/// The answers sent and the form schemas seen by a [`responder`].
pub(super) type Sent = (Arc<Mutex<Vec<SentAnswer>>>, Arc<Mutex<Vec<Value>>>);

/// A responder answering each `elicitation/create` from `plan` (or, when
/// probing, with fixed valid accepts) and noting what it sent and saw.
///
/// A form request is the step of the probed form with its
/// `requestedSchema`: the first time, it gets the plan's answer for that
/// step; asked again (a re-ask, the same schema), or with no answer planned,
/// it gets the probe's consenting answer. A URL-mode request is answered as a
/// user who completed it (`accept`, no content) when the client declared
/// URL elicitation, else with the JSON-RPC error MCP names; a form request
/// without the form capability, likewise.
pub(super) fn responder(
    capabilities: &Value,
    steps: Option<Arc<Vec<Step>>>,
    plan: &[GeneratedAnswer],
    consent: &[DeclaredConsent],
) -> (Responder, Sent) {
    let form_declared = crate::harness::client::declares_form(capabilities);
    let url_declared = crate::harness::client::declares_url(capabilities);
    let sent: Arc<Mutex<Vec<SentAnswer>>> = Arc::default();
    let schemas: Arc<Mutex<Vec<Value>>> = Arc::default();
    let responder: Responder = {
        let sent = Arc::clone(&sent);
        let schemas = Arc::clone(&schemas);
        let plan = plan.to_vec();
        let consent = consent.to_vec();
        Arc::new(move |request: &Value| {
            let params = request.get("params").cloned().unwrap_or(Value::Null);
            let is_form = crate::harness::client::asks_form(request);
            let schema = params
                .get("requestedSchema")
                .cloned()
                .unwrap_or(Value::Null);
            let (reply, class, built_as) = if !is_form {
                if url_declared {
                    (
                        Answer::Result(json!({"action": "accept"})),
                        Class::UrlCompleted,
                        "URL elicitation: accepted as completed".to_owned(),
                    )
                } else {
                    (
                        client::not_declared(URL_NOT_DECLARED),
                        Class::Error,
                        "URL not declared".to_owned(),
                    )
                }
            } else if !form_declared {
                (
                    client::not_declared(FORM_NOT_DECLARED),
                    Class::Error,
                    "form not declared".to_owned(),
                )
            } else {
                let mut schemas = lock(&schemas);
                let asked_again = schemas.contains(&schema);
                // The step: the next one of the probed form, by distinct schema.
                let mut distinct: Vec<&Value> = Vec::new();
                for seen in schemas.iter() {
                    if !distinct.contains(&seen) {
                        distinct.push(seen);
                    }
                }
                let index = distinct.len();
                schemas.push(schema.clone());
                drop(schemas);
                let step_at = steps
                    .as_ref()
                    .and_then(|steps| steps.iter().position(|step| step.schema == schema));
                let step = step_at.and_then(|at| steps.as_ref().map(|steps| &steps[at]));
                let form = Form::read(&schema);
                let consenting = || {
                    step.and_then(|step| step.consenting.get().cloned())
                        .unwrap_or_else(|| {
                            accept(
                                &coverage::base_candidates_fixing(
                                    &form,
                                    consent.iter().map(DeclaredConsent::pair),
                                )[0],
                            )
                        })
                };
                let planned = step_at
                    .filter(|at| *at == index && !asked_again)
                    .and_then(|at| plan.get(at));
                let (answer, built_as) = match planned {
                    Some(planned) => (planned.answer.clone(), planned.built_as.clone()),
                    None if asked_again => (
                        consenting(),
                        "a consenting valid accept (the form asked again)".to_owned(),
                    ),
                    None => (
                        consenting(),
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
pub(crate) async fn call_tool(
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

/// Calls the tool with a [`responder`] answering from `plan`, finishes the
/// session and reads everything (`--acted-cmd` after the server exited);
/// returns the run and the form schemas the server sent.
///
/// # Errors
/// [`CheckError::Hook`] when `--acted-cmd` cannot run.
pub(super) async fn call_and_finish(
    runner: &Runner<'_>,
    mut session: Session,
    capabilities: &Value,
    steps: Option<Arc<Vec<Step>>>,
    plan: &[GeneratedAnswer],
    id: CaseId<'_>,
) -> Result<(CaseRun, Vec<Value>), CheckError> {
    let (responder, (sent, schemas)) = responder(capabilities, steps, plan, &runner.target.consent);
    let before = acted_before(runner, id).await?;
    let call = call_tool(runner.target, &mut session, responder).await;
    let sent = lock(&sent).clone();
    let schemas = lock(&schemas).clone();
    let mut run = finish_run(
        runner,
        session,
        capabilities,
        &call,
        (sent, schemas.len()),
        id,
    )
    .await?;
    run.acted_before = before;
    Ok((run, schemas))
}

/// Finishes `session` after `call` ([`Runner::finish_case`]) and reads
/// everything into a [`CaseRun`] (`--acted-cmd` after the server exited):
/// `sent` the answers, `forms` the form requests the server sent.
///
/// # Errors
/// [`CheckError::Hook`] when `--acted-cmd` cannot run.
pub(super) async fn finish_run(
    runner: &Runner<'_>,
    session: Session,
    capabilities: &Value,
    call: &ToolCall,
    (sent, forms): (Vec<SentAnswer>, usize),
    id: CaseId<'_>,
) -> Result<CaseRun, CheckError> {
    let target = runner.target;
    let finished = runner.finish_case(session).await;
    let reading = property::read_acted(&target.acted, call.result.as_ref(), call.error.as_ref());
    let reading = acted_after(runner, id, reading).await?;
    Ok(CaseRun {
        sent,
        reading,
        reply: call.reply(),
        wire: finished.recording.wire,
        http: finished.recording.http,
        stray: finished.recording.stray_stdout,
        // Over HTTP the harness stops the server: no exit on stdin close to judge.
        forced_kill: finished.exit.forced_kill && !finished.stopped_by_harness,
        call_failure: finished.startup_error.or_else(|| call.failure.clone()),
        capabilities: capabilities.clone(),
        stderr: finished.exit.stderr,
        forms,
        acted_before: false,
        served_before: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A probed step of `schema`, whose consenting answer is `consenting`.
    fn step(schema: Value, consenting: Option<Value>) -> Step {
        let step = Step {
            form: Form::read(&schema),
            judge: Judge::new(&schema).expect("compiles"),
            schema,
            consenting: std::sync::OnceLock::new(),
        };
        if let Some(consenting) = consenting {
            step.consenting.set(consenting).expect("set once");
        }
        step
    }

    fn request(mode: Option<&str>, schema: &Value) -> Value {
        let mut params = json!({"message": "m", "requestedSchema": schema});
        if let Some(mode) = mode {
            params["mode"] = json!(mode);
        }
        json!({"jsonrpc": "2.0", "id": 0, "method": "elicitation/create", "params": params})
    }

    fn planned(answer: Value, built_as: &str) -> GeneratedAnswer {
        GeneratedAnswer {
            answer,
            built_as: built_as.to_owned(),
            built: crate::schema::answer::Built::Given,
        }
    }

    fn result(answer: Answer) -> Value {
        match answer {
            Answer::Result(value) => value,
            Answer::Error(error) => panic!("an error: {error}"),
        }
    }

    #[test]
    fn each_step_gets_its_planned_answer_once_and_a_form_asked_again_the_consenting_one() {
        let first = json!({"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]});
        let second =
            json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
        let yes = json!({"action": "accept", "content": {"confirm": true}});
        let steps = Arc::new(vec![
            step(first.clone(), Some(yes.clone())),
            step(
                second.clone(),
                Some(json!({"action": "accept", "content": {"n": 1}})),
            ),
        ]);
        let plan = [
            planned(
                json!({"action": "accept", "content": {"confirm": "yes"}}),
                "accept: \"yes\"",
            ),
            planned(json!({"action": "decline"}), "decline"),
        ];
        let (respond, (sent, schemas)) = responder(&form_capabilities(), Some(steps), &plan, &[]);
        // Step 1, as planned; asked again, the consenting answer; then step 2.
        assert_eq!(result(respond(&request(None, &first))), plan[0].answer);
        assert_eq!(result(respond(&request(Some("form"), &first))), yes);
        assert_eq!(result(respond(&request(None, &second))), plan[1].answer);
        let sent = lock(&sent).clone();
        assert_eq!(
            sent.iter()
                .map(|sent| sent.built_as.as_str())
                .collect::<Vec<_>>(),
            [
                "accept: \"yes\"",
                "a consenting valid accept (the form asked again)",
                "decline"
            ]
        );
        assert_eq!(
            sent.iter()
                .map(|sent| sent.class.clone())
                .collect::<Vec<_>>(),
            [
                Class::InvalidAccept(vec![r#"/confirm: "yes" is not of type "boolean""#.into()]),
                Class::ValidAccept,
                Class::Refusal("decline".into())
            ]
        );
        assert_eq!(lock(&schemas).len(), 3);
    }

    #[test]
    fn a_form_not_probed_or_not_planned_gets_a_consenting_answer_with_the_declared_consent() {
        let form = json!({"type": "object", "properties": {"choice": {"type": "string", "enum": ["No", "Yes"]}}, "required": ["choice"]});
        let consent = [DeclaredConsent {
            name: "choice".into(),
            value: json!("Yes"),
        }];
        let (respond, (sent, _)) = responder(&form_capabilities(), None, &[], &consent);
        assert_eq!(
            result(respond(&request(None, &form))),
            json!({"action": "accept", "content": {"choice": "Yes"}})
        );
        assert_eq!(
            lock(&sent)[0].built_as,
            "a consenting valid accept (request not planned)"
        );
        assert_eq!(lock(&sent)[0].class, Class::ValidAccept);
        // Without a declared consent the first enum value is the candidate.
        assert_eq!(
            coverage::base_candidates_fixing(&Form::read(&form), [])[0]["choice"],
            json!("No")
        );
    }

    #[test]
    fn a_url_request_is_completed_when_url_is_declared_and_refused_with_an_error_otherwise() {
        let (respond, (sent, schemas)) = responder(&form_capabilities(), None, &[], &[]);
        let url = json!({"jsonrpc": "2.0", "id": 0, "method": "elicitation/create",
                         "params": {"mode": "url", "message": "sign in", "url": "https://x/", "elicitationId": "e"}});
        assert_eq!(result(respond(&url)), json!({"action": "accept"}));
        assert_eq!(lock(&sent)[0].class, Class::UrlCompleted);
        assert!(lock(&schemas).is_empty(), "no form was asked");
        let (respond, (sent, _)) = responder(&json!({"elicitation": {"form": {}}}), None, &[], &[]);
        assert!(matches!(respond(&url), Answer::Error(_)));
        assert_eq!(lock(&sent)[0].class, Class::Error);
        // No form declared: a form request gets the error too.
        let (respond, _) = responder(&json!({"elicitation": {"url": {}}}), None, &[], &[]);
        assert!(matches!(
            respond(&request(None, &json!({"type": "object"}))),
            Answer::Error(_)
        ));
        assert_eq!(
            form_capabilities(),
            json!({"elicitation": {"form": {}, "url": {}}})
        );
    }
}
