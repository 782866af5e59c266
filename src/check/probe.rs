//! The probe, the check's first phase: start the server declaring form
//! elicitation, check the tool is listed, call it with consenting valid
//! accepts (the next base candidate while the tool does not act), keep each
//! request's `requestedSchema`, then send one decline; the acted rule must
//! read on both replies, else the check stops (exit 2: a configuration error,
//! not a server bug).

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::case_run::{
    CaseRun, Step, acted_before, call_and_finish, form_capabilities, open, record, run_case,
};
use super::error::CheckError;
use super::plan::consenting_plan;
use super::progress::Phase;
use super::runner::{CaseId, Runner};
use crate::format::last_lines;
use crate::harness::era::Protocol;
use crate::oracle::consent::{self, DeclaredConsent};
use crate::oracle::no_reply::no_reply;
use crate::oracle::property::ActedRule;
use crate::schema::Form;
use crate::schema::answer::{Built, GeneratedAnswer};
use crate::schema::coverage;
use crate::schema::judge::Judge;
use crate::targets::target::Target;
use crate::verdict::check::case_record::CaseRecord;

/// What the probe learnt.
pub(super) struct Probed {
    /// Each request's schema, read and compiled (none when the tool asked
    /// for nothing).
    pub(super) steps: Arc<Vec<Step>>,
    /// Each request's base: the consenting valid content the tool acted on
    /// (the first candidate when it acted on none).
    pub(super) bases: Vec<Map<String, Value>>,
    /// Its calls, each with its label: the valid accepts tried, then a decline.
    pub(super) runs: Vec<(String, CaseRun)>,
    /// Whether the tool acted on one of the probe's consenting answers (the
    /// base is then the one it acted on).
    pub(super) acted: bool,
    /// When the tool neither asked for a form nor acted: why there is
    /// nothing to generate answers from ([`CheckError::NoElicitation`]). The
    /// sessions declaring no form elicitation still run (a tool may act
    /// without asking a client that cannot answer); when they break no
    /// property, this is the check's error.
    pub(super) no_form: Option<CheckError>,
}

/// The probe's first call's label.
const FIRST: &str = "probe: a consenting valid accept";

/// The probe's decline's label.
const DECLINE: &str = "probe: a decline";

/// The probe: start, check the tool, call it with consenting valid accepts
/// (the next base candidate while the tool does not act), keep the schemas,
/// then send one decline; check that the acted rule reads on both replies.
pub(super) async fn probe(
    runner: &Runner<'_>,
    log: &mut dyn FnMut(CaseRecord),
) -> Result<Probed, CheckError> {
    let target = runner.target;
    runner.started(Phase::Probe, FIRST);
    let (session, number) = open(runner, &form_capabilities(), Some(FIRST)).await?;
    let did_not_start = |error: String, finished: crate::harness::Finished| {
        let stray: Vec<String> = finished
            .recording
            .stray_stdout
            .iter()
            .take(3)
            .map(|stray| format!("#{}: {}", stray.seq, Value::String(stray.line.clone())))
            .collect();
        CheckError::DidNotStart {
            url: target.transport.url().map(str::to_owned),
            error,
            stray: stray.join("\n"),
            stderr: last_lines(&finished.exit.stderr, 20),
        }
    };
    if let Some(error) = session.startup_error().map(ToString::to_string) {
        let finished = runner.stop_session(session).await;
        return Err(did_not_start(error, finished));
    }
    let tools = match session.list_tools().await {
        Ok(tools) => tools,
        Err(error) => {
            let finished = runner.stop_session(session).await;
            return Err(did_not_start(error.to_string(), finished));
        }
    };
    if !tools.contains(&target.tool) {
        runner.stop_session(session).await;
        return Err(CheckError::ToolNotFound {
            tool: target.tool.clone(),
            tools,
        });
    }
    let id = CaseId {
        label: FIRST,
        session: number,
    };
    // An acted command that already says "acted" can tell nothing: said
    // before the tool is called at all.
    if let ActedRule::Command(command) = &target.acted
        && acted_before(runner, id).await?
    {
        runner.stop_session(session).await;
        return Err(CheckError::ActedBefore {
            command: command.clone(),
            label: FIRST.to_owned(),
        });
    }
    let (run, schemas) =
        call_and_finish(runner, session, &form_capabilities(), None, &[], id).await?;
    runner.finished_one();
    log(record(
        FIRST.to_owned(),
        &run,
        &run.counted_violations(target),
    ));
    if let (true, Some(failure)) = (schemas.is_empty(), &run.call_failure) {
        return Err(CheckError::NoReply {
            tool: target.tool.clone(),
            failure: no_reply(Some(failure), run.http.is_empty()),
            stderr: last_lines(&run.stderr, 20),
        });
    }
    if schemas.is_empty() && !run.reading.acted {
        let no_form = CheckError::NoElicitation {
            tool: target.tool.clone(),
            asked: not_asked(target.protocol),
            reply: run.reply.to_string(),
            hint: arguments_hint(target, &run.reply),
        };
        return Ok(Probed {
            steps: Arc::new(Vec::new()),
            bases: Vec::new(),
            runs: vec![(FIRST.to_owned(), run)],
            acted: false,
            no_form: Some(no_form),
        });
    }
    acted_readable(target, &run)?;
    if schemas.is_empty() {
        // It acted without asking a client that could answer: property 7's
        // failure, and nothing to generate answers from.
        return Ok(Probed {
            steps: Arc::new(Vec::new()),
            bases: Vec::new(),
            runs: vec![(FIRST.to_owned(), run)],
            acted: false,
            no_form: None,
        });
    }
    // One step per distinct form (a form asked again is a re-ask, not a step).
    let mut distinct: Vec<Value> = Vec::new();
    for schema in schemas {
        if !distinct.contains(&schema) {
            distinct.push(schema);
        }
    }
    let steps = distinct
        .into_iter()
        .map(|schema| {
            let judge = Judge::new(&schema).map_err(CheckError::BadSchema)?;
            Ok(Step {
                form: Form::read(&schema),
                schema,
                judge,
                consenting: std::sync::OnceLock::new(),
            })
        })
        .collect::<Result<Vec<Step>, CheckError>>()?;
    let forms: Vec<Form> = steps.iter().map(|step| step.form.clone()).collect();
    consent::check_declared(&forms, &target.consent).map_err(CheckError::Usage)?;
    let candidates: Vec<Vec<Map<String, Value>>> = steps
        .iter()
        .map(|step| {
            crate::schema::coverage::base_candidates_fixing(
                &step.form,
                target.consent.iter().map(DeclaredConsent::pair),
            )
        })
        .collect();
    let candidate = |index: usize| -> Vec<Map<String, Value>> {
        candidates
            .iter()
            .map(|each| each[index.min(each.len() - 1)].clone())
            .collect()
    };
    let mut bases = candidate(0);
    let mut acted = run.reading.acted;
    let mut runs = vec![(FIRST.to_owned(), run)];
    let steps = Arc::new(steps);
    let most = candidates.iter().map(Vec::len).max().unwrap_or(1);
    for index in 1..most {
        if acted {
            break;
        }
        let tried = candidate(index);
        let plan = consenting_plan(&tried);
        let label = format!("probe: consenting valid accept {}", index + 1);
        let run = run_case(
            runner,
            &steps,
            &plan,
            &form_capabilities(),
            (Phase::Probe, &label),
        )
        .await?;
        log(record(label.clone(), &run, &run.counted_violations(target)));
        acted_readable(target, &run)?;
        if run.reading.acted {
            acted = true;
            bases = tried;
        }
        runs.push((label, run));
    }
    let decline = [GeneratedAnswer {
        answer: json!({"action": "decline"}),
        built_as: "decline".to_owned(),
        built: Built::Refusal,
    }];
    let run = run_case(
        runner,
        &steps,
        &decline,
        &form_capabilities(),
        (Phase::Probe, DECLINE),
    )
    .await?;
    log(record(
        DECLINE.to_owned(),
        &run,
        &run.counted_violations(target),
    ));
    acted_readable(target, &run)?;
    runs.push((DECLINE.to_owned(), run));
    for (step, base) in steps.iter().zip(&bases) {
        let _ = step.consenting.set(coverage::accept(base));
    }
    Ok(Probed {
        steps,
        bases,
        runs,
        acted,
        no_form: None,
    })
}

/// [`CheckError::ActedUnreadable`] when the acted rule found no value in a
/// probe's reply that is not an error.
fn acted_readable(target: &Target, run: &CaseRun) -> Result<(), CheckError> {
    let Some(why) = &run.reading.unreadable else {
        return Ok(());
    };
    let answer = run.sent.first().map_or_else(
        || "the call".to_owned(),
        |sent| format!("the answer {}", sent.answer),
    );
    Err(CheckError::ActedUnreadable {
        rule: target.acted.to_string(),
        answer,
        why: why.clone(),
        reply: run.reply.to_string(),
    })
}

/// What a tool that asked for nothing did not do, in `protocol`'s words: a
/// 2025-11-25 server asks with `elicitation/create` inside the call, a
/// 2026-07-28 one with an `InputRequiredResult` the client answers on the retry.
fn not_asked(protocol: Protocol) -> &'static str {
    match protocol {
        Protocol::V2025_11_25 => "sent no form elicitation/create",
        Protocol::V2026_07_28 => "returned no InputRequiredResult asking for a form",
    }
}

/// A line saying how to give the tool its arguments, when the probe called it
/// without `--arguments` and it refused the call (`reply` is
/// `{"result": {.., "isError": true}}` or `{"error": ..}`); empty otherwise.
fn arguments_hint(target: &Target, reply: &Value) -> String {
    let refused = reply.get("error").is_some()
        || reply.pointer("/result/isError") == Some(&Value::Bool(true));
    if target.arguments.is_none() && refused {
        "\n  the call was refused and no --arguments were given: if the tool takes \
         arguments, give them as a JSON object, e.g. --arguments '{\"to\":\"bob\"}'"
            .to_owned()
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, json};

    use super::{arguments_hint, not_asked};
    use crate::harness::era::Protocol;
    use crate::targets::target::Target;

    #[test]
    fn a_refused_call_without_arguments_hints_at_arguments_and_nothing_else_does() {
        let bare = Target::stdio(["server"]).tool("transfer");
        let with_arguments = Target::stdio(["server"])
            .tool("transfer")
            .arguments(Map::from_iter([("to".to_owned(), json!("bob"))]));
        let error_result = json!({"result": {"content": [], "isError": true}});
        let rpc_error = json!({"error": {"code": -32602, "message": "to: Field required"}});
        let plain = json!({"result": {"content": [], "isError": false}});
        for refused in [&error_result, &rpc_error] {
            let hint = arguments_hint(&bare, refused);
            assert!(hint.contains("no --arguments were given"), "{hint}");
            assert_eq!(arguments_hint(&with_arguments, refused), "");
        }
        assert_eq!(arguments_hint(&bare, &plain), "");
        assert_eq!(arguments_hint(&bare, &json!({})), "");
    }

    #[test]
    fn a_tool_that_asks_nothing_is_said_so_in_its_eras_words() {
        assert_eq!(
            not_asked(Protocol::V2025_11_25),
            "sent no form elicitation/create"
        );
        assert_eq!(
            not_asked(Protocol::V2026_07_28),
            "returned no InputRequiredResult asking for a form"
        );
    }
}
