//! The property of both eras: for every generated case, the 2026-07-28 outcome equals
//! the 2025-11-25 outcome, or the era's documented channel (the 2026-07-28 table,
//! `oracle::era`): JSON-RPC -32021 without form support, `invalid_response`
//! "malformed elicitation result" for a JSON-RPC error answer (which has no
//! channel in `inputResponses`).
//!
//! Over real stdio: 64 cases by default, each run in both eras (two server
//! processes). At the pure-core level: 4,096 cases, the retry's decision
//! against the 2025-11-25 decision. `PROPTEST_CASES` overrides both.

use elicit_check::case::Answer;
use elicit_check::compare;
use elicit_check::harness::client::declares_form;
use elicit_check::harness::mrtr::{self, Retry};
use elicit_check::harness::{self, Limits};
use elicit_check::oracle::era;
use elicit_check::server::decision::{self, Policy};
use elicit_check::server::reply::Reply;
use elicit_check::server::request_state::{self, Sealed, Step};
use elicit_check::strategy::generated_case;
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::support::{self, explain, reference_server, runtime};

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        failure_persistence: crate::regressions!("mrtr_properties_stdio.txt"),
        ..ProptestConfig::default()
    })]

    /// Over stdio: the same generated case in both eras ends in the same outcome
    /// JSON, except where the 2026-07-28 table says otherwise; the 2026-07-28 wire
    /// passes the era's checks.
    #[test]
    fn over_stdio_both_eras_give_the_same_outcome(generated in generated_case()) {
        let case = &generated.case;
        let (legacy, modern) = runtime().block_on(async {
            let legacy = harness::run_case(&reference_server(), case, Limits::default(), None).await;
            let modern = mrtr::run_case(&reference_server(), case, Limits::default(), Retry::Echo).await;
            (legacy.expect("starts"), modern.expect("starts"))
        });
        let expected = era::expected(case, &generated.expected);
        let failures = era::check(case, &expected, &modern, true);
        let shown = modern.outcome.clone().or_else(|| modern.rpc_error.clone()).unwrap_or(Value::Null);
        prop_assert!(failures.is_empty(), "2026-07-28: {}{}", failures.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"), explain(&generated, &shown));
        let identical = declares_form(&case.capabilities) && !matches!(case.answer, Some(Answer::Error(_)));
        if identical {
            let legacy_outcome = legacy.outcome.clone().unwrap_or(Value::Null);
            let modern_outcome = modern.outcome.clone().unwrap_or(Value::Null);
            let differences = compare::compare(&legacy_outcome, &modern_outcome);
            prop_assert!(
                differences.is_empty(),
                "the eras differ: 2025-11-25 {legacy_outcome}, 2026-07-28 {modern_outcome}: {differences:?}{}",
                explain(&generated, &modern_outcome)
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 4096,
        failure_persistence: crate::regressions!("mrtr_properties_core.txt"),
        ..ProptestConfig::default()
    })]

    /// Pure core: a retry carrying the case's raw answer under `"form"` is
    /// decided exactly as the 2025-11-25 call with the same answer, for every
    /// generated case whose client declared form and answered with a result.
    #[test]
    fn the_retry_is_decided_like_the_2025_call(generated in generated_case()) {
        let case = &generated.case;
        if !declares_form(&case.capabilities) {
            return Ok(()); // -32021 before anything is decided: the stdio property covers it
        }
        let raw = match &case.answer {
            Some(Answer::Error(_)) => return Ok(()),
            Some(Answer::Result(raw)) => raw.clone(),
            None => json!({"action": "cancel"}),
        };
        let responses = [(request_state::FORM_KEY.to_owned(), raw)].into_iter().collect();
        let opened = Some(Ok(Sealed { round: 1, expires_ms: i64::MAX }));
        let Step::Decide(answer) = request_state::step(opened, Some(&responses)) else {
            return Err(TestCaseError::fail("a retry with the answer must be decided"));
        };
        let policy: Policy = case.policy.parse().expect("known policy");
        let modern = decision::conclude(policy, &Reply::from_result(&answer)).to_json();
        let legacy = support::core_outcome(case).to_json();
        prop_assert_eq!(&modern, &legacy);
        prop_assert!(compare::compare(&generated.expected, &modern).is_empty(), "{}", explain(&generated, &modern));
    }
}
