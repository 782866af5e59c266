//! The retries a client can get wrong on protocol 2026-07-28 (MCP 2026-07-28,
//! multi round-trip requests), sent on purpose after the other phases, each in
//! a fresh server process, each answering with the consenting valid content
//! the probe found the tool acts on:
//!
//! - **property 8**, a `requestState` the server did not issue for this call:
//!   the state with one character changed, the state of another call (other
//!   arguments, same process), no state at all, and the state of a call the
//!   server went on with after a `decline`. The spec has the server treat the
//!   echoed state as attacker-controlled input; a JSON-RPC error or a new
//!   input request are both fine, acting is not;
//! - **property 7**, the answer that never comes: the state echoed but no
//!   `inputResponses`, or each answer under a key the server never asked. The
//!   tool must not act (asking again is fine).
//!
//! A form the server gives no opening for (it sends no `requestState`, or ends
//! the call at the decline) is not exercised, and the report says so.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::case_run::{
    CaseRun, Step, acted_before, finish_run, form_capabilities, open, responder,
};
use super::error::CheckError;
use super::plan::consenting_plan;
use super::progress::Phase;
use super::runner::{CaseId, Runner};
use crate::harness::rounds::RetryFault;
use crate::lock::lock;
use crate::oracle::property::{Class, Property};
use crate::schema::answer::{Built, GeneratedAnswer};

/// One retry form of property 7 or 8.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Form {
    /// A fault in the first retry that answers a form.
    Fault(RetryFault),
    /// The state of another call of the same process (other arguments),
    /// fetched in the run itself, in the first retry.
    Foreign,
    /// The first input request declined; any later one answered with consent.
    DeclinedThenAccepted,
}

/// The forms, in the order they run.
pub(super) fn forms() -> Vec<Form> {
    vec![
        Form::Fault(RetryFault::Tampered),
        Form::Foreign,
        Form::Fault(RetryFault::WithoutState),
        Form::DeclinedThenAccepted,
        Form::Fault(RetryFault::WithoutResponses),
        Form::Fault(RetryFault::OtherKey),
    ]
}

impl Form {
    /// The property this form tests.
    pub(super) fn property(&self) -> Property {
        match self {
            Form::Fault(RetryFault::WithoutResponses | RetryFault::OtherKey) => {
                Property::NoActWithoutAnswer
            }
            _ => Property::StateVerified,
        }
    }

    /// What the retry carried, as a finding and a reason read it.
    pub(super) fn describe(&self) -> &'static str {
        match self {
            Form::Fault(RetryFault::Tampered) => "a tampered requestState (one character changed)",
            Form::Foreign | Form::Fault(RetryFault::Foreign(_)) => {
                "the requestState of another call (other arguments)"
            }
            Form::Fault(RetryFault::WithoutState) => "inputResponses with no requestState",
            Form::DeclinedThenAccepted => {
                "the requestState it sent after a decline, with a consenting accept"
            }
            Form::Fault(RetryFault::WithoutResponses) => {
                "a retry with the requestState but no inputResponses"
            }
            Form::Fault(RetryFault::OtherKey) => {
                "a retry with each answer under a key the server never asked"
            }
        }
    }
}

/// One form's outcome.
pub(super) enum Outcome {
    /// It ran: its run (the answers' classes say what was delivered).
    Ran(Box<CaseRun>),
    /// The server gave it no opening: why.
    NotExercised(&'static str),
}

/// Arguments for another call than the target's: the first string value with
/// `-other` appended, the first number plus one, the first boolean negated, or
/// (no such value) one more key, `elicit_check_other: true`.
pub(super) fn other_arguments(arguments: Option<&Map<String, Value>>) -> Map<String, Value> {
    let mut other = arguments.cloned().unwrap_or_default();
    let changed = other.iter_mut().find_map(|(_, value)| {
        let new = match value {
            Value::String(text) => Value::String(format!("{text}-other")),
            Value::Number(number) => match (number.as_i64(), number.as_f64()) {
                (Some(int), _) => json!(int.wrapping_add(1)),
                (None, Some(float)) => json!(float + 1.0),
                (None, None) => return None,
            },
            Value::Bool(flag) => Value::Bool(!*flag),
            _ => return None,
        };
        *value = new;
        Some(())
    });
    if changed.is_none() {
        other.insert("elicit_check_other".to_owned(), Value::Bool(true));
    }
    other
}

/// Runs `form` in a fresh process declaring form elicitation, answering every
/// input request with `bases` (consenting valid content), and reads what the
/// tool did.
///
/// # Errors
/// As [`super::run_case`].
pub(super) async fn run_form(
    runner: &Runner<'_>,
    steps: &Arc<Vec<Step>>,
    bases: &[Map<String, Value>],
    form: &Form,
) -> Result<Outcome, CheckError> {
    let target = runner.target;
    let capabilities = form_capabilities();
    let label = format!("retry: {}", form.describe());
    runner.started(Phase::Retries, &label);
    let (mut session, number) = open(runner, &capabilities, Some(&label)).await?;
    let id = CaseId {
        label: &label,
        session: number,
    };
    let consenting = consenting_plan(bases);
    let (plan, fault) = match form {
        Form::DeclinedThenAccepted => (
            vec![GeneratedAnswer {
                answer: json!({"action": "decline"}),
                built_as: "decline".to_owned(),
                built: Built::Refusal,
            }],
            None,
        ),
        Form::Foreign => {
            let other = other_arguments(target.arguments.as_ref());
            match session.first_request_state(&target.tool, other).await {
                Some(state) => (consenting, Some(RetryFault::Foreign(state))),
                None => {
                    runner.stop_session(session).await;
                    return Ok(Outcome::NotExercised(
                        "a call with other arguments got no requestState",
                    ));
                }
            }
        }
        Form::Fault(fault) => (consenting, Some(fault.clone())),
    };
    let (responder, (sent, schemas)) = responder(
        &capabilities,
        Some(Arc::clone(steps)),
        &plan,
        &target.consent,
    );
    let before = acted_before(runner, id).await?;
    let call = session
        .call_tool_retried(
            &target.tool,
            target.arguments.clone(),
            &responder,
            fault.as_ref(),
        )
        .await;
    let mut sent = lock(&sent).clone();
    let issued_state = call.frames.iter().any(|frame| {
        frame.message.pointer("/result/requestState").is_some()
            && frame.message.get("method").is_none()
    });
    let asked = !sent.is_empty();
    if let Some(fault) = &fault {
        if !asked {
            runner.stop_session(session).await;
            return Ok(Outcome::NotExercised("the call asked for no input"));
        }
        if matches!(fault, RetryFault::WithoutResponses | RetryFault::OtherKey) {
            // The form's answers never reached the server; a URL step
            // before the form was answered as completed.
            for answer in sent
                .iter_mut()
                .filter(|answer| answer.class != Class::UrlCompleted)
            {
                answer.class = Class::Unanswered(form.describe().to_owned());
            }
        } else if !issued_state {
            runner.stop_session(session).await;
            return Ok(Outcome::NotExercised("the server sent no requestState"));
        }
    }
    let continued = sent.len() > 1;
    let forms = lock(&schemas).len();
    let mut run = finish_run(runner, session, &capabilities, &call, (sent, forms), id).await?;
    run.acted_before = before;
    runner.finished_one();
    if *form == Form::DeclinedThenAccepted && !(continued && issued_state) {
        return Ok(Outcome::NotExercised(
            "the server ended the call at the decline",
        ));
    }
    Ok(Outcome::Ran(Box::new(run)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_arguments_change_one_value_or_add_a_key() {
        let map = |value: Value| value.as_object().cloned().expect("object");
        assert_eq!(
            other_arguments(Some(&map(json!({"n": 3, "s": "a"})))),
            map(json!({"n": 4, "s": "a"}))
        );
        assert_eq!(
            other_arguments(Some(&map(json!({"s": "a"})))),
            map(json!({"s": "a-other"}))
        );
        assert_eq!(
            other_arguments(Some(&map(json!({"x": 1.5})))),
            map(json!({"x": 2.5}))
        );
        assert_eq!(
            other_arguments(Some(&map(json!({"b": false, "s": "a"})))),
            map(json!({"b": true, "s": "a"}))
        );
        assert_eq!(
            other_arguments(Some(&map(json!({"o": {"k": 1}})))),
            map(json!({"o": {"k": 1}, "elicit_check_other": true}))
        );
        assert_eq!(
            other_arguments(None),
            map(json!({"elicit_check_other": true}))
        );
    }

    #[test]
    fn the_answer_that_never_comes_is_property_7_the_state_forms_property_8() {
        let properties: Vec<Property> = forms().iter().map(Form::property).collect();
        assert_eq!(
            properties,
            vec![
                Property::StateVerified,
                Property::StateVerified,
                Property::StateVerified,
                Property::StateVerified,
                Property::NoActWithoutAnswer,
                Property::NoActWithoutAnswer,
            ]
        );
    }
}
