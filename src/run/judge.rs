//! How one case is judged in the eras of a run: the verdict of one era's
//! evidence (`verdict_from`) and of every era in turn (`judge_in`). The
//! scheduler ([`super::schedule`]) and the run's phases call these; this file
//! calls neither.

use serde_json::Value;

use crate::case::Case;
use crate::error::Error;
use crate::harness::era::Protocol;
use crate::harness::mrtr::{self, Retry};
use crate::harness::{self, Evidence};
use crate::oracle::contract;
use crate::oracle::era;
use crate::oracle::failure::Failure;
use crate::report::Verdict;

use super::settings::Settings;

/// Runs one case in one era and judges it; a missing expected outcome is a
/// failure. `expected` is the 2025-11-25 outcome; the 2026-07-28 table turns
/// it into that era's expected result (`oracle::era::expected`).
/// `ran`, when given, is the case's 2025-11-25 evidence, already run (in a
/// session, `schedule`).
async fn judge(
    command: &[String],
    case: &Case,
    expected: Option<Value>,
    settings: &Settings,
    protocol: Protocol,
    ran: Option<Evidence>,
) -> Result<Verdict, Error> {
    let limits = settings.limits;
    let evidence = match (protocol, ran) {
        (Protocol::V2025_11_25, Some(ran)) => ran,
        (Protocol::V2025_11_25, None) => {
            harness::run_case_over(command, &settings.transport, case, limits, None).await?
        }
        (Protocol::V2026_07_28, _) => {
            mrtr::run_case_over(command, &settings.transport, case, limits, Retry::Echo).await?
        }
    };
    Ok(verdict_from(case, expected, settings, protocol, evidence))
}

/// The verdict of `evidence`, the run of `case` in `protocol`, against its
/// expected 2025-11-25 outcome (a missing one is a failure; the 2026-07-28
/// table turns it into that era's expected result).
pub(crate) fn verdict_from(
    case: &Case,
    expected: Option<Value>,
    settings: &Settings,
    protocol: Protocol,
    evidence: Evidence,
) -> Verdict {
    let mut verdict = match (expected, protocol) {
        (Some(expected), Protocol::V2025_11_25) => {
            let judgement = contract::judge(case, &expected, &evidence, settings.judging);
            let mut verdict = Verdict::new(expected, judgement.failures, evidence);
            verdict.warnings.extend(judgement.warnings);
            verdict.notes.extend(judgement.notes);
            verdict
        }
        (Some(legacy), Protocol::V2026_07_28) => {
            let expected = era::expected(case, &legacy);
            let failures = era::check(case, &expected, &evidence, true);
            Verdict::new(expected, failures, evidence)
        }
        (None, _) => Verdict::new(
            Value::Null,
            vec![Failure::NoExpectedOutcome(case.name.clone())],
            evidence,
        ),
    };
    verdict.replay = settings.replay();
    verdict.settle();
    verdict
}

/// Runs one case in each era of `settings.protocols`, in order. With both eras, the
/// 2026-07-28 run is named `NAME@2026-07-28` and fails when its result differs
/// from the 2025-11-25 one beyond the 2026-07-28 table (`oracle::era::eras_differ`).
/// `ran`, when given, is the case's 2025-11-25 evidence, already run in a
/// session (`schedule`); without it each era runs in a fresh process.
pub(crate) async fn judge_in(
    command: &[String],
    case: &Case,
    expected: Option<Value>,
    settings: &Settings,
    mut ran: Option<Evidence>,
) -> Result<Vec<Verdict>, Error> {
    let both = settings.protocols.len() > 1;
    let mut verdicts: Vec<Verdict> = Vec::new();
    let mut legacy = None;
    for &protocol in &settings.protocols {
        let mut named = case.clone();
        if both && protocol == Protocol::V2026_07_28 {
            named.name = format!("{}@{protocol}", case.name);
        }
        let evidence = match protocol {
            Protocol::V2025_11_25 => ran.take(),
            Protocol::V2026_07_28 => None,
        };
        let mut verdict = judge(
            command,
            &named,
            expected.clone(),
            settings,
            protocol,
            evidence,
        )
        .await?;
        match protocol {
            Protocol::V2025_11_25 => legacy = Some(verdict.evidence.clone()),
            Protocol::V2026_07_28 => {
                if let Some(difference) = legacy
                    .as_ref()
                    .and_then(|legacy| era::eras_differ(case, legacy, &verdict.evidence))
                {
                    verdict.failures.insert(0, difference);
                    verdict.settle();
                }
            }
        }
        verdicts.push(verdict);
    }
    Ok(verdicts)
}
