//! `elicit-check run --hostile`: the hostile-client cases
//! ([`HostileCase::ALL`], docs/src/hostile.md) against any stdio server, each
//! judged by [`crate::oracle::hostile`] and reported as one [`Verdict`] in the
//! same table, `results.json`, `results.jsonl` and `run.json` as the contract
//! cases, with its primary verdict ([`crate::oracle::hostile::primary`]), its
//! recorded frames and a reproduction command (`elicit-check run --hostile
//! --case NAME -- SERVER`).

use serde_json::{Value, json};

use super::{Settings, emit};
use crate::case::{Answer, Case};
use crate::error::Error;
use crate::harness::Evidence;
use crate::harness::evidence::{HarnessFailure, RMCP_VERSION};
use crate::harness::hostile::{CAPABILITIES, HostileCase, Played};
use crate::oracle::failure::Failure;
use crate::oracle::hostile;
use crate::report::{EvidenceLog, Replay, ReplayKind, Verdict, reproduction};

/// The hostile-client case named `name` (its [`HostileCase::name`]), among [`HostileCase::ALL`].
pub fn case_named(name: &str) -> Option<HostileCase> {
    HostileCase::ALL
        .into_iter()
        .find(|case| case.name() == name)
}

/// The cases `--hostile --case NAME` (repeatable) selects, in the order given;
/// all of [`HostileCase::ALL`] when `only` is empty. Checked before anything
/// runs or is written.
///
/// # Errors
/// [`Error::UnknownHostileCase`] for a name that is no hostile-client case.
pub fn select(only: &[String]) -> Result<Vec<HostileCase>, Error> {
    if only.is_empty() {
        return Ok(HostileCase::ALL.to_vec());
    }
    only.iter()
        .map(|name| {
            case_named(name).ok_or_else(|| Error::UnknownHostileCase {
                name: name.clone(),
                known: HostileCase::ALL
                    .iter()
                    .map(|case| case.name().to_owned())
                    .collect(),
            })
        })
        .collect()
}

/// Plays `cases` against `command`, `settings.schedule.jobs` at once (the first
/// case alone, so a server that does not start ends the run there), each in a
/// fresh server process; each verdict goes to `log` and then to `on_verdict`, in
/// case order. `settings.judging.exact_messages` judges free text word for word
/// (the reference server).
///
/// # Errors
/// As [`super::run_cases_in`]: [`Error::Spawn`], [`Error::ServerDidNotStart`] (the
/// first case got no result to `initialize`), [`Error::Hung`] after
/// [`super::MAX_CONSECUTIVE_HUNG`] consecutive `hung` cases and
/// [`Error::IgnoredStdinClose`] after
/// [`super::MAX_CONSECUTIVE_IGNORED_STDIN_CLOSE`] consecutive
/// `ignored_stdin_close` cases unless `settings.keep_going`, [`Error::Io`].
pub async fn run_hostile(
    command: &[String],
    cases: &[HostileCase],
    settings: &Settings,
    log: &EvidenceLog,
    on_verdict: &mut dyn FnMut(&Verdict),
) -> Result<(), Error> {
    use futures::StreamExt;
    let (first, rest) = cases.split_at(cases.len().min(1));
    let jobs = settings.schedule.jobs.max(1);
    let mut index = 0;
    for chunk in std::iter::once(first).chain(rest.chunks(jobs)) {
        let verdicts: Vec<Result<Verdict, Error>> =
            futures::stream::iter(chunk.iter().map(|&case| judge(command, case, settings)))
                .buffered(jobs)
                .collect()
                .await;
        for verdict in verdicts {
            emit(index, vec![verdict?], log, on_verdict, settings)?;
            index += 1;
        }
    }
    Ok(())
}

/// Plays one case against `command` and judges it. While it plays, it is the
/// case in flight of a run's registry (`crate::harness::in_flight`, under the
/// name and `input` of the case), so Ctrl-C or SIGTERM keeps it as
/// `interrupted` with its frames so far.
///
/// # Errors
/// [`Error::Spawn`] when the server cannot start.
pub async fn judge(
    command: &[String],
    case: HostileCase,
    settings: &Settings,
) -> Result<Verdict, Error> {
    let played = crate::harness::in_flight::scoped(
        &input(case),
        command,
        case.play(command, settings.limits),
    )
    .await?;
    Ok(verdict(
        case,
        command,
        played,
        settings.judging.exact_messages,
        settings.limits.shutdown.as_secs_f64(),
    ))
}

/// The verdict of one played case: the failures of
/// [`crate::oracle::hostile::findings`], the primary verdict of
/// [`crate::oracle::hostile::primary`], the evidence (every frame, stderr,
/// exit), and for a failure the command that replays it (`--exact-messages`
/// when `exact` judged a server other than the reference server so).
pub fn verdict(
    case: HostileCase,
    command: &[String],
    played: Played,
    exact: bool,
    shutdown_grace_secs: f64,
) -> Verdict {
    let findings = hostile::findings(case, &played, exact);
    let finding = hostile::primary(&played, &findings);
    let failures = findings.into_iter().map(Failure::Hostile).collect();
    let evidence = evidence(case, command, played, shutdown_grace_secs);
    let mut verdict = Verdict::new(Value::from(hostile::expected(case)), failures, evidence);
    verdict.verdict = finding.verdict;
    verdict.primary = finding.evidence;
    verdict.replay = Replay {
        kind: ReplayKind::Hostile,
        exact_messages: Some(exact),
        session: false,
    };
    verdict.reproduce = (!verdict.passed).then(|| reproduction(&verdict));
    verdict
}

/// The `input` of a hostile case's evidence: a case named after it with the
/// client's capabilities ([`CAPABILITIES`]) and, where the case sends one
/// answer, that answer.
fn input(case: HostileCase) -> Case {
    let answer = case
        .action()
        .map(|action| json!({"action": action, "content": {"units": 3, "unit_value": 7}}))
        .or_else(|| match case {
            HostileCase::HugeExponent | HostileCase::DuplicateKeys => case
                .bad_answer()
                .and_then(|text| serde_json::from_str(&text).ok()),
            _ => None,
        });
    Case {
        name: case.name().to_owned(),
        policy: "validated".to_owned(),
        capabilities: serde_json::from_str(CAPABILITIES).unwrap_or(Value::Null),
        answer: answer.map(Answer::Result),
        answer_text: None,
    }
}

/// The [`Evidence`] of a played case. Its `input` is [`input`]; its `outcome`
/// is the `structuredContent` (or text content JSON) of `tools/call` id 1 (id 2
/// for `call_before_initialized`, whose call 1 is the early one), and
/// `rpc_error` the JSON-RPC error of that call.
fn evidence(case: HostileCase, command: &[String], played: Played, grace: f64) -> Evidence {
    let input = input(case);
    let started = hostile::started(&played);
    let wire = &played.recording.wire;
    let reply = |id: u64| {
        wire.iter()
            .find(|frame| {
                frame.message.get("method").is_none()
                    && frame.message.get("id") == Some(&Value::from(id))
                    && frame.from == crate::harness::proxy::Side::Server
            })
            .map(|frame| frame.message.clone())
    };
    let protocol_version = reply(0).and_then(|message| {
        message
            .pointer("/result/protocolVersion")
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    let main = reply(match case {
        HostileCase::CallBeforeInitialized => 2,
        _ => 1,
    });
    let result = main.as_ref().and_then(|message| message.get("result"));
    let outcome = result.and_then(|result| result.get("structuredContent").cloned());
    let text_outcome = result
        .and_then(|result| result.pointer("/content/0/text"))
        .and_then(Value::as_str)
        .and_then(|text| serde_json::from_str(text).ok());
    let rpc_error = main
        .as_ref()
        .and_then(|message| message.get("error").cloned());
    let error = if started {
        played
            .timeouts
            .first()
            .map(|&wait| HarnessFailure::Unanswered { wait })
    } else {
        Some(HarnessFailure::InitializeUnanswered {
            wait: played.timeouts.first().copied(),
        })
    };
    Evidence {
        case: case.name().to_owned(),
        input,
        elicit_check_version: env!("CARGO_PKG_VERSION"),
        rmcp_version: RMCP_VERSION,
        server_command: command.to_vec(),
        pid: played.pid,
        protocol_version,
        wire: played.recording.wire,
        timeline: played.recording.timeline,
        callbacks: 0,
        stray_stdout: played.recording.stray_stdout,
        stray_stdout_not_kept: played.recording.stray_stdout_not_kept,
        stderr: played.exit.stderr,
        exit_code: played.exit.code,
        exit_signal: played.signal,
        forced_kill: played.exit.forced_kill,
        shutdown_grace_secs: grace,
        group_left_running: played.exit.group_left_running,
        outcome,
        text_outcome,
        error,
        started,
        rpc_error,
        url: None,
        http: Vec::new(),
        stopped_by_harness: false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::evidence::Wait;
    use crate::harness::child::Exit;
    use crate::harness::proxy::{Recording, Side};
    use crate::verdict::Primary;

    fn names(names: &[&str]) -> Vec<String> {
        names.iter().map(|name| (*name).to_owned()).collect()
    }

    #[test]
    fn case_names_select_hostile_cases_in_the_order_given_and_anything_else_is_refused() {
        assert_eq!(select(&[]).expect("all"), HostileCase::ALL.to_vec());
        assert_eq!(
            select(&names(&["deep_answer", "action_empty"])).expect("known"),
            [HostileCase::DeepAnswer, HostileCase::ActionEmpty]
        );
        assert_eq!(case_named("late_answer_after_timeout"), None);
        let error = select(&names(&["action_empty", "accept_valid"])).expect_err("a contract case");
        assert!(
            error.to_string().starts_with(
                "no hostile-client case named \"accept_valid\"; the cases are: call_before_initialized, reply_id_mistyped,"
            ),
            "{error}"
        );
    }

    use crate::harness::proxy::frame;

    /// A session that started and replied to call `id` with `reply`.
    fn played(id: u64, reply: Value) -> Played {
        Played {
            recording: Recording {
                wire: vec![
                    frame(
                        1,
                        Side::Server,
                        json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25"}}),
                    ),
                    frame(
                        7,
                        Side::Server,
                        json!({"jsonrpc":"2.0","id":id,"result":reply}),
                    ),
                ],
                ..Recording::default()
            },
            exit: Exit {
                code: Some(0),
                forced_kill: false,
                stderr: "bye\n".into(),
                group_left_running: false,
            },
            signal: None,
            timeouts: Vec::new(),
            pid: Some(42),
        }
    }

    #[test]
    fn a_failed_case_leads_with_its_verdict_keeps_its_evidence_and_replays_with_hostile() {
        let command = names(&["python3", "my server.py"]);
        let computed =
            json!({"structuredContent":{"status":"calculated","computed":true,"value":21}});
        let verdict = super::verdict(
            HostileCase::ActionUpperCase,
            &command,
            played(1, computed),
            false,
            5.0,
        );
        assert!(!verdict.passed);
        assert_eq!(verdict.case, "action_upper_case");
        assert_eq!(verdict.verdict, Primary::ComputedOnInvalid);
        assert!(
            verdict
                .primary
                .starts_with("tools/call id 1 after an answer with action \"ACCEPT\""),
            "{}",
            verdict.primary
        );
        assert_eq!(
            verdict.reproduce.as_deref(),
            Some("elicit-check run --hostile --case action_upper_case -- python3 'my server.py'")
        );
        assert_eq!(
            verdict.expected,
            json!("invalid_response, nothing computed")
        );
        let evidence = &verdict.evidence;
        assert_eq!(evidence.wire.len(), 2);
        assert_eq!(evidence.pid, Some(42));
        assert_eq!(evidence.stderr, "bye\n");
        assert_eq!(evidence.shutdown_grace_secs, 5.0);
        assert!(evidence.started);
        assert_eq!(evidence.error, None);
        assert_eq!(evidence.protocol_version.as_deref(), Some("2025-11-25"));
        assert_eq!(
            evidence.outcome,
            Some(json!({"status":"calculated","computed":true,"value":21}))
        );
        assert_eq!(
            evidence.input.answer,
            Some(Answer::Result(
                json!({"action":"ACCEPT","content":{"units":3,"unit_value":7}})
            ))
        );
        assert_eq!(
            evidence.input.capabilities,
            json!({"elicitation":{"form":{}}})
        );
    }

    /// A server other than the reference server judged with exact messages
    /// replays so: its reproduction carries `--exact-messages`.
    #[test]
    fn a_case_judged_with_exact_messages_replays_with_them() {
        let computed =
            json!({"structuredContent":{"status":"calculated","computed":true,"value":21}});
        let verdict = super::verdict(
            HostileCase::ActionReject,
            &names(&["node", "server.js"]),
            played(1, computed),
            true,
            5.0,
        );
        assert_eq!(
            verdict.reproduce.as_deref(),
            Some(
                "elicit-check run --hostile --exact-messages --case action_reject -- node server.js"
            )
        );
    }

    /// `--hostile` refuses `--protocol`, so a server that answers `initialize`
    /// with 2026-07-28 still gets a reproduction line that runs.
    #[test]
    fn the_reproduction_of_a_server_answering_2026_07_28_has_no_protocol_option() {
        let computed =
            json!({"structuredContent":{"status":"calculated","computed":true,"value":21}});
        let mut newer = played(1, computed);
        newer.recording.wire[0] = frame(
            1,
            Side::Server,
            json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2026-07-28"}}),
        );
        let verdict = super::verdict(
            HostileCase::ActionEmpty,
            &names(&["node", "server.js"]),
            newer,
            false,
            5.0,
        );
        assert_eq!(
            verdict.evidence.protocol_version.as_deref(),
            Some("2026-07-28")
        );
        assert_eq!(
            verdict.reproduce.as_deref(),
            Some("elicit-check run --hostile --case action_empty -- node server.js")
        );
    }

    #[test]
    fn a_passed_case_has_no_reproduction_and_the_early_call_is_not_the_row() {
        let text = json!({"content":[{"type":"text","text":"{\"status\":\"calculated\",\"computed\":true,\"value\":21}"}]});
        let mut early = played(2, text);
        early.recording.wire.push(frame(
            3,
            Side::Server,
            json!({"jsonrpc":"2.0","id":1,"error":{"code":-32600}}),
        ));
        let verdict = super::verdict(
            HostileCase::CallBeforeInitialized,
            &names(&["server"]),
            early,
            false,
            1.0,
        );
        assert!(verdict.passed, "{:?}", verdict.failures);
        assert_eq!(verdict.verdict, Primary::Passed);
        assert_eq!(verdict.reproduce, None);
        assert_eq!(verdict.evidence.outcome, None);
        assert_eq!(
            verdict.evidence.text_outcome,
            Some(json!({"status":"calculated","computed":true,"value":21}))
        );
        assert_eq!(verdict.evidence.rpc_error, None);
        assert_eq!(verdict.evidence.input.answer, None);
    }

    /// The harness failure a verdict's evidence holds, as `results.json` writes it.
    fn said(verdict: &Verdict) -> Option<String> {
        verdict.evidence.error.as_ref().map(ToString::to_string)
    }

    #[test]
    fn a_server_that_never_answers_initialize_did_not_start_and_says_why() {
        let mut silent = played(1, json!({}));
        silent.recording.wire.clear();
        silent.timeouts.push(Wait::StdoutClosed { frames: 1 });
        silent.exit.code = Some(3);
        let verdict = super::verdict(
            HostileCase::DuplicateKeys,
            &names(&["server"]),
            silent,
            false,
            1.0,
        );
        assert_eq!(verdict.verdict, Primary::DidNotStart);
        assert!(!verdict.evidence.started);
        assert_eq!(
            said(&verdict).as_deref(),
            Some(
                "initialize did not finish: stdout closed before the awaited frame (after 1 frame)"
            )
        );
        assert_eq!(
            verdict.evidence.input.answer,
            Some(Answer::Result(
                json!({"action":"accept","content":{"units":3,"unit_value":7}})
            )),
            "serde_json keeps the last of the two units"
        );
        let mut refused = played(1, json!({}));
        refused.recording.wire[1].message = json!({"jsonrpc":"2.0","id":1,"error":{"code":-32603}});
        refused.timeouts.push(Wait::Elapsed {
            within: std::time::Duration::from_secs(1),
            frames: 2,
        });
        let verdict = super::verdict(
            HostileCase::ReplyIdUnknown,
            &names(&["server"]),
            refused,
            false,
            1.0,
        );
        assert_eq!(verdict.evidence.rpc_error, Some(json!({"code":-32603})));
        assert_eq!(
            said(&verdict).as_deref(),
            Some("no reply: no awaited frame within 1s (after 2 frames)")
        );
    }
}
