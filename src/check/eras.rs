//! The protocol eras one `check` runs in (`--protocol`): one era, `both`, or
//! `auto` (the default), and the report that holds one [`CheckReport`] per era.
//!
//! MCP has two ways for a tool to ask: 2025-11-25 sends `elicitation/create`
//! inside the call (after `initialize`); 2026-07-28 answers the call with an
//! `InputRequiredResult` and reads the answer from the retry (after
//! `server/discover`). A server may speak either or both, and may behave
//! differently in each, so a property has a verdict per era.
//!
//! `auto` runs every era the server answers: an era whose handshake fails
//! (`initialize` or `server/discover` refused), whose tool is not listed, or
//! whose call neither asks nor acts is reported as not checked, with why; the
//! check fails only when no era could be checked. `both` requires both.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::case_run::CaseRecord;
use super::check_era;
use super::error::CheckError;
use super::target::Target;
use crate::fix::remedy;
use crate::fix::sdk::SdkGuess;
use crate::harness::era::Protocol;
use crate::verdict::check::outcome::CheckReport;

/// What `--protocol` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Eras {
    /// Every era the server answers (at least one).
    #[default]
    Auto,
    /// 2025-11-25 and 2026-07-28, each required.
    Both,
    /// One era only.
    One(Protocol),
}

impl FromStr for Eras {
    type Err = String;

    /// `auto`, `both`, `2025-11-25` or `2026-07-28`.
    fn from_str(text: &str) -> Result<Eras, String> {
        match text {
            "auto" => Ok(Eras::Auto),
            "both" => Ok(Eras::Both),
            other => other.parse::<Protocol>().map(Eras::One).map_err(|_| {
                format!("protocol {other:?}: expected auto, both, 2025-11-25 or 2026-07-28")
            }),
        }
    }
}

impl fmt::Display for Eras {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Eras::Auto => formatter.write_str("auto"),
            Eras::Both => formatter.write_str("both"),
            Eras::One(protocol) => write!(formatter, "{protocol}"),
        }
    }
}

impl Eras {
    /// The eras to try, in order (2025-11-25 first).
    pub fn protocols(self) -> Vec<Protocol> {
        match self {
            Eras::One(protocol) => vec![protocol],
            Eras::Auto | Eras::Both => Protocol::ALL.to_vec(),
        }
    }
}

/// What became of one era.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EraStatus {
    /// Its properties were judged: its report says how (an inconclusive
    /// report is judged, but could learn too little: see its `health`).
    Checked,
    /// The server does not speak it: its handshake failed, or its tool is not
    /// listed in it, or (under `auto`) its call neither asks nor acts while
    /// no other era asks either.
    NotChecked,
    /// The tool answers in it but cannot be confirmed in it: the call asked
    /// a form-capable client for nothing and acted on nothing, and either its
    /// reply names elicitation (an error saying it cannot ask, `-32021`) or
    /// the other era asks for a form. A failure when the era was asked for
    /// (`--protocol both` or the era itself), with `--strict`, or when no
    /// era could be checked; a warning under `auto` otherwise.
    CannotConfirm,
    /// Its check could not be completed (a `--setup` or `--acted-cmd` that
    /// failed, a server that no longer starts): `why` says which part; the
    /// check exits 2, keeping every other era's verdicts.
    Incomplete,
}

/// One era's outcome.
#[derive(Debug, Clone, Serialize)]
pub struct EraCheck {
    /// `2025-11-25` or `2026-07-28`.
    pub protocol: &'static str,
    /// Whether its properties were judged (`status` is `checked`).
    pub checked: bool,
    /// What became of it.
    pub status: EraStatus,
    /// Why it ran, why it was not checked (`server/discover failed: ...`),
    /// why the tool cannot be confirmed in it, or why its check is incomplete.
    pub why: String,
    /// Whether it fails the check apart from its properties: a
    /// [`EraStatus::CannotConfirm`] that is a failure.
    pub fails: bool,
    /// Its report, when checked.
    pub report: Option<CheckReport>,
}

/// What a check over its eras comes to, for the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Every property holds in every era checked (exit 0).
    Passed,
    /// A property fails, or an era's tool cannot be confirmed where that
    /// fails (exit 1).
    Failed,
    /// An era checked could learn too little to say (its report's
    /// `health.inconclusive`; exit 2).
    Inconclusive,
    /// An era's check could not be completed (exit 2); the other eras'
    /// verdicts are kept.
    Incomplete,
}

/// The result of a check over its eras.
#[derive(Debug, Clone, Serialize)]
pub struct ErasReport {
    /// This crate's version.
    pub elicit_check_version: &'static str,
    /// The server command (empty: a running server at `url`).
    pub server_command: Vec<String>,
    /// The Streamable HTTP endpoint, as given (`{port}` standing for the
    /// port of each server started); absent over stdio.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The tool called.
    pub tool: String,
    /// What `--protocol` asked for: `auto`, `both`, or one era.
    pub protocol: String,
    /// Whether the check passed: `outcome` is `passed`.
    pub passed: bool,
    /// What the check comes to: `passed`, `failed`, `inconclusive` or
    /// `incomplete` (the worst of its eras, in that order).
    pub outcome: Outcome,
    /// The server's SDK, as the wire told it over the eras checked
    /// (`crate::fix::sdk`): its remedies speak its API.
    pub sdk: SdkGuess,
    /// Each era tried, in order.
    pub eras: Vec<EraCheck>,
}

impl ErasReport {
    /// Why the check exits 2 although it made a report, in one line: an era
    /// whose check could not be completed, or an inconclusive one; none when
    /// its verdicts are the whole answer.
    pub fn unfinished(&self) -> Option<String> {
        let incomplete = self
            .eras
            .iter()
            .find(|era| era.status == EraStatus::Incomplete);
        if let Some(era) = incomplete {
            return Some(format!(
                "the check could not be completed in protocol {}: {} (the report keeps every verdict reached)",
                era.protocol,
                era.why.lines().next().unwrap_or_default()
            ));
        }
        self.eras.iter().find_map(|era| {
            let line = era.report.as_ref()?.health.inconclusive.as_ref()?;
            Some(format!(
                "the check is inconclusive in protocol {}: {line}",
                era.protocol
            ))
        })
    }

    /// Whether an era fails apart from its properties (the tool cannot be
    /// confirmed in it, where that fails).
    pub fn era_fails(&self) -> bool {
        self.eras.iter().any(|era| era.fails)
    }

    /// The outcome of `eras`: incomplete when one is, else inconclusive when
    /// a checked one is, else failed when a property fails or an era fails
    /// on its own, else passed.
    pub fn outcome_of(eras: &[EraCheck]) -> Outcome {
        eras.iter()
            .map(|era| match (&era.report, era.status) {
                (_, EraStatus::Incomplete) => Outcome::Incomplete,
                (Some(report), _) if report.health.inconclusive.is_some() => Outcome::Inconclusive,
                (Some(report), _) if !report.passed => Outcome::Failed,
                _ if era.fails => Outcome::Failed,
                _ => Outcome::Passed,
            })
            .max()
            .unwrap_or(Outcome::Passed)
    }
}

/// Whether `error` says only that the server does not speak (or not ask in)
/// the era: under `auto`, the era is then reported as not checked.
fn era_not_spoken(error: &CheckError) -> bool {
    matches!(
        error,
        CheckError::DidNotStart { .. }
            | CheckError::ToolNotFound { .. }
            | CheckError::NoElicitation { .. }
            | CheckError::NoReply { .. }
    )
}

/// Why an era is not checked, in one line: a failed handshake is the
/// handshake's own error (`server/discover failed: ... Method not found`), not
/// "the server did not start" (it did, in the other era).
fn not_spoken_why(error: &CheckError) -> String {
    match error {
        CheckError::DidNotStart { error, .. } => error.clone(),
        other => other.to_string(),
    }
}

/// Whether a reply (compact JSON) names elicitation as the reason the tool
/// did not ask: an error or a result whose text says `elicit` (any case),
/// an `InputRequiredResult` word, or the error code `-32021` (a required
/// client capability missing, MCP 2026-07-28).
fn names_elicitation(reply: &str) -> bool {
    let lower = reply.to_lowercase();
    let missing_capability = serde_json::from_str::<serde_json::Value>(reply)
        .is_ok_and(|reply| reply.pointer("/error/code") == Some(&serde_json::json!(-32021)));
    lower.contains("elicit")
        || lower.contains("input_required")
        || lower.contains("inputrequired")
        || missing_capability
}

/// The finding of an era whose call asked a form-capable client for nothing
/// and acted on nothing (`no_form`, a [`CheckError::NoElicitation`]), when
/// the tool cannot be confirmed in it: its reply names elicitation, or
/// `asked_elsewhere` names another era where it asks for a form. None: the
/// tool simply asks for nothing (not checked).
fn cannot_confirm(
    protocol: Protocol,
    no_form: &CheckError,
    asked_elsewhere: Option<&str>,
) -> Option<String> {
    let CheckError::NoElicitation {
        tool, asked, reply, ..
    } = no_form
    else {
        return None;
    };
    let why = if names_elicitation(reply) {
        "its reply names elicitation".to_owned()
    } else {
        format!("in {} it asks for a form", asked_elsewhere?)
    };
    Some(format!(
        "the tool cannot be confirmed in {protocol}: tools/call {tool:?} {asked} to a client declaring form elicitation, and acted on nothing ({why}); its reply: {reply}"
    ))
}

/// What became of each era tried, from its check's `results` (in order):
/// checked (its report), not checked (under `auto`, the server does not
/// speak or ask in it), cannot be confirmed (see [`EraStatus::CannotConfirm`];
/// a failure under `both` or one era, with `strict`, or when no era could be
/// checked), or incomplete.
///
/// # Errors
/// When no era was checked and none is a finding: the first era's error
/// (under `both`, wrapped in [`CheckError::Era`] naming that era).
fn judge_eras(
    eras: Eras,
    strict: bool,
    results: Vec<(Protocol, Result<CheckReport, CheckError>)>,
) -> Result<Vec<EraCheck>, CheckError> {
    let asked_in: Vec<&'static str> = results
        .iter()
        .filter(|(_, result)| {
            result
                .as_ref()
                .is_ok_and(|report| !report.requested_schemas.is_empty())
        })
        .map(|(protocol, _)| protocol.as_str())
        .collect();
    let mut checked = Vec::new();
    let mut first_error = None;
    for (protocol, result) in results {
        let elsewhere = asked_in
            .iter()
            .copied()
            .find(|other| *other != protocol.as_str());
        let era = |status: EraStatus, why: String, report: Option<CheckReport>| EraCheck {
            protocol: protocol.as_str(),
            checked: status == EraStatus::Checked,
            status,
            why,
            fails: false,
            report,
        };
        match result {
            Ok(report) => checked.push(era(
                EraStatus::Checked,
                match eras {
                    Eras::Auto => "the server answers in this era".to_owned(),
                    other => format!("--protocol {other}"),
                },
                Some(report),
            )),
            Err(error) => {
                if let Some(finding) = cannot_confirm(protocol, &error, elsewhere) {
                    let mut finding = era(EraStatus::CannotConfirm, finding, None);
                    finding.fails = eras != Eras::Auto || strict;
                    checked.push(finding);
                } else if eras == Eras::Auto && era_not_spoken(&error) {
                    checked.push(era(EraStatus::NotChecked, not_spoken_why(&error), None));
                } else {
                    checked.push(era(EraStatus::Incomplete, error.to_string(), None));
                }
                first_error.get_or_insert((protocol, error));
            }
        }
    }
    // A tool confirmed in no era fails where it cannot be, even under auto.
    let judged = checked.iter().any(|era| era.checked);
    for era in &mut checked {
        if era.status == EraStatus::CannotConfirm && !judged {
            era.fails = true;
        }
    }
    let found = checked
        .iter()
        .any(|era| era.checked || era.status == EraStatus::CannotConfirm);
    if !found && let Some((protocol, error)) = first_error {
        return Err(match eras {
            Eras::Both => CheckError::Era {
                protocol: protocol.as_str(),
                source: Box::new(error),
            },
            _ => error,
        });
    }
    Ok(checked)
}

/// Runs the check of `target` in each era `eras` names, handing every
/// session's record to `log` (its `case` prefixed with the era when more than
/// one is tried).
///
/// An era whose check fails part-way (a hook, a server that no longer
/// starts) is kept as [`EraStatus::Incomplete`] beside the eras judged, so
/// nothing finished is lost.
///
/// # Errors
/// When no era could be judged or found wanting: a configuration error, or
/// the first era's error (under `both`, the failing era's, prefixed with it).
pub async fn check_eras(
    target: &Target,
    eras: Eras,
    log: &mut dyn FnMut(CaseRecord),
) -> Result<ErasReport, CheckError> {
    let protocols = eras.protocols();
    let several = protocols.len() > 1;
    let mut results = Vec::new();
    // An ignored stdin close shown in one era is shown sooner in the next.
    let mut shown = false;
    for protocol in protocols {
        let era_target = target.clone().protocol(protocol);
        let mut tagged = |mut record: CaseRecord| {
            if several {
                record.case = format!("{protocol}: {}", record.case);
            }
            log(record);
        };
        let (result, shown_now) = check_era(&era_target, &mut tagged, shown).await;
        shown = shown_now;
        // A configuration error speaks for every era: nothing more to try.
        if let Err(error @ (CheckError::Usage(_) | CheckError::Spawn { .. })) = result {
            return Err(error);
        }
        results.push((protocol, result));
    }
    let checked = judge_eras(eras, target.strict, results)?;
    let outcome = ErasReport::outcome_of(&checked);
    let mut report = ErasReport {
        elicit_check_version: env!("CARGO_PKG_VERSION"),
        server_command: target.command.clone(),
        url: target.transport.url().map(str::to_owned),
        tool: target.tool.clone(),
        protocol: eras.to_string(),
        passed: outcome == Outcome::Passed,
        outcome,
        sdk: SdkGuess::unknown("no era was checked"),
        eras: checked,
    };
    report.sdk = apply_remedies(report.eras.iter_mut().filter_map(|era| era.report.as_mut()));
    Ok(report)
}

/// Names the SDK of the server of every era's report (the best guess over
/// them, [`SdkGuess::better`]) and gives each failed property its `fix` and
/// `fix_url` ([`remedy::fix`], [`remedy::url`]); returns that guess.
fn apply_remedies<'a>(reports: impl IntoIterator<Item = &'a mut CheckReport>) -> SdkGuess {
    let mut reports: Vec<&mut CheckReport> = reports.into_iter().collect();
    let guess = reports
        .iter()
        .map(|report| report.sdk.clone())
        .reduce(SdkGuess::better)
        .unwrap_or_else(|| SdkGuess::unknown("no era was checked"));
    for report in &mut reports {
        report.sdk = guess.clone();
        for property in &mut report.properties {
            if let Some(failure) = &mut property.failure {
                failure.fix = remedy::fix(failure.flaw, guess.sdk);
                failure.fix_url = remedy::url(failure.flaw);
            }
        }
    }
    guess
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocol_names_parse_and_print_back() {
        for text in ["auto", "both", "2025-11-25", "2026-07-28"] {
            let eras: Eras = text.parse().expect("an era choice");
            assert_eq!(eras.to_string(), text);
        }
        assert_eq!(Eras::default(), Eras::Auto);
        assert_eq!(
            "2024-11-05".parse::<Eras>(),
            Err(
                "protocol \"2024-11-05\": expected auto, both, 2025-11-25 or 2026-07-28".to_owned()
            )
        );
        assert_eq!(
            Eras::Auto.protocols(),
            vec![Protocol::V2025_11_25, Protocol::V2026_07_28]
        );
        assert_eq!(Eras::Both.protocols(), Eras::Auto.protocols());
        assert_eq!(
            Eras::One(Protocol::V2026_07_28).protocols(),
            vec![Protocol::V2026_07_28]
        );
    }

    #[test]
    fn only_a_server_that_does_not_speak_or_ask_in_an_era_is_skipped_by_auto() {
        let not_spoken = [
            CheckError::DidNotStart {
                error: "server/discover failed".into(),
                stray: String::new(),
                stderr: String::new(),
            },
            CheckError::ToolNotFound {
                tool: "t".into(),
                tools: vec![],
            },
            CheckError::NoElicitation {
                tool: "t".into(),
                asked: "sent no form elicitation/create",
                reply: "{}".into(),
                hint: String::new(),
            },
            CheckError::NoReply {
                tool: "t".into(),
                failure: "closed".into(),
                stderr: String::new(),
            },
        ];
        assert!(not_spoken.iter().all(era_not_spoken));
        let configuration = [
            CheckError::Usage("no tool".into()),
            CheckError::BadSchema("bad".into()),
        ];
        assert!(!configuration.iter().any(era_not_spoken));
        assert_eq!(not_spoken_why(&not_spoken[0]), "server/discover failed");
        assert_eq!(
            not_spoken_why(&not_spoken[1]),
            "the server offers no tool named \"t\"; it offers: no tools"
        );
    }

    fn no_form(reply: &str) -> CheckError {
        CheckError::NoElicitation {
            tool: "purge".into(),
            asked: "returned no InputRequiredResult asking for a form",
            reply: reply.into(),
            hint: String::new(),
        }
    }

    #[test]
    fn a_reply_names_elicitation_by_its_word_an_input_request_or_the_missing_capability_code() {
        for reply in [
            r#"{"error":{"code":-32600,"message":"Cannot send 'elicitation/create'"}}"#,
            r#"{"result":{"content":[{"type":"text","text":"client cannot ELICIT"}]}}"#,
            r#"{"error":{"code":-32603,"message":"expected an input_required result"}}"#,
            r#"{"error":{"code":-32603,"message":"InputRequired is not supported"}}"#,
            r#"{"error":{"code":-32021,"message":"missing capability","data":{}}}"#,
        ] {
            assert!(names_elicitation(reply), "{reply}");
        }
        for reply in [
            r#"{"result":{"content":[{"type":"text","text":"done"}]}}"#,
            r#"{"error":{"code":-32602,"message":"invalid params"}}"#,
            r#"{"error":{"code":-320210,"message":"x"}}"#,
        ] {
            assert!(!names_elicitation(reply), "{reply}");
        }
    }

    #[test]
    fn a_tool_that_asks_for_nothing_cannot_be_confirmed_when_its_reply_names_elicitation_or_another_era_asks()
     {
        let named = no_form(r#"{"error":{"code":-32600,"message":"no elicitation here"}}"#);
        assert_eq!(
            cannot_confirm(Protocol::V2026_07_28, &named, None).as_deref(),
            Some(
                "the tool cannot be confirmed in 2026-07-28: tools/call \"purge\" returned no InputRequiredResult asking for a form to a client declaring form elicitation, and acted on nothing (its reply names elicitation); its reply: {\"error\":{\"code\":-32600,\"message\":\"no elicitation here\"}}"
            )
        );
        let plain = no_form(r#"{"result":{"content":[]}}"#);
        assert_eq!(cannot_confirm(Protocol::V2026_07_28, &plain, None), None);
        assert_eq!(
            cannot_confirm(Protocol::V2026_07_28, &plain, Some("2025-11-25")).as_deref(),
            Some(
                "the tool cannot be confirmed in 2026-07-28: tools/call \"purge\" returned no InputRequiredResult asking for a form to a client declaring form elicitation, and acted on nothing (in 2025-11-25 it asks for a form); its reply: {\"result\":{\"content\":[]}}"
            )
        );
        // Any other error is not this finding.
        let other = CheckError::Usage("no tool".into());
        assert_eq!(
            cannot_confirm(Protocol::V2026_07_28, &other, Some("2025-11-25")),
            None
        );
    }

    fn era(status: EraStatus, fails: bool, report: Option<CheckReport>) -> EraCheck {
        EraCheck {
            protocol: "2025-11-25",
            checked: status == EraStatus::Checked,
            status,
            why: "why\nmore".into(),
            fails,
            report,
        }
    }

    /// An era's report: passed or not, inconclusive or not.
    fn judged(passed: bool, inconclusive: bool) -> Option<CheckReport> {
        let mut report = crate::report::check::baseline::tests::report(&[(
            "2025-11-25",
            crate::report::check::baseline::tests::ALL_HOLD,
        )])
        .eras
        .remove(0)
        .report?;
        report.passed = passed;
        report.health.inconclusive = inconclusive.then(|| "0 of 3 planned cases".to_owned());
        Some(report)
    }

    #[test]
    fn the_outcome_is_the_worst_era_incomplete_over_inconclusive_over_failed_over_passed() {
        use EraStatus::{CannotConfirm, Checked, Incomplete, NotChecked};
        let outcome = |eras: Vec<EraCheck>| ErasReport::outcome_of(&eras);
        assert_eq!(outcome(vec![]), Outcome::Passed);
        assert_eq!(
            outcome(vec![era(Checked, false, judged(true, false))]),
            Outcome::Passed
        );
        assert_eq!(
            outcome(vec![
                era(Checked, false, judged(true, false)),
                era(NotChecked, false, None)
            ]),
            Outcome::Passed
        );
        assert_eq!(
            outcome(vec![
                era(Checked, false, judged(true, false)),
                era(CannotConfirm, false, None)
            ]),
            Outcome::Passed
        );
        assert_eq!(
            outcome(vec![
                era(Checked, false, judged(true, false)),
                era(CannotConfirm, true, None)
            ]),
            Outcome::Failed
        );
        assert_eq!(
            outcome(vec![era(Checked, false, judged(false, false))]),
            Outcome::Failed
        );
        assert_eq!(
            outcome(vec![
                era(Checked, false, judged(false, false)),
                era(Checked, false, judged(false, true))
            ]),
            Outcome::Inconclusive
        );
        assert_eq!(
            outcome(vec![
                era(Checked, false, judged(false, true)),
                era(Incomplete, false, None)
            ]),
            Outcome::Incomplete
        );
    }

    #[test]
    fn an_unfinished_check_says_the_incomplete_era_first_then_the_inconclusive_one() {
        let report = |eras: Vec<EraCheck>| ErasReport {
            elicit_check_version: "0",
            server_command: Vec::new(),
            url: None,
            tool: "t".into(),
            protocol: "auto".into(),
            passed: false,
            outcome: ErasReport::outcome_of(&eras),
            sdk: SdkGuess::unknown("a report made by hand"),
            eras,
        };
        let mut incomplete = era(EraStatus::Incomplete, false, None);
        incomplete.protocol = "2026-07-28";
        let both = report(vec![
            era(EraStatus::Checked, false, judged(false, true)),
            incomplete,
        ]);
        assert_eq!(
            both.unfinished().as_deref(),
            Some(
                "the check could not be completed in protocol 2026-07-28: why (the report keeps every verdict reached)"
            )
        );
        let inconclusive = report(vec![era(EraStatus::Checked, false, judged(false, true))]);
        assert_eq!(
            inconclusive.unfinished().as_deref(),
            Some("the check is inconclusive in protocol 2025-11-25: 0 of 3 planned cases")
        );
        let failed = report(vec![
            era(EraStatus::Checked, false, judged(false, false)),
            era(EraStatus::CannotConfirm, true, None),
        ]);
        assert_eq!(failed.unfinished(), None);
        assert!(failed.era_fails());
        let warned = report(vec![era(EraStatus::CannotConfirm, false, None)]);
        assert!(!warned.era_fails());
    }

    #[test]
    fn apply_names_the_best_sdk_of_the_eras_and_fills_every_failure() {
        use crate::fix::flaw::Flaw;
        use crate::fix::sdk::Sdk;
        use crate::report::check::baseline::tests::{P2_FAILS, report};
        use crate::verdict::check::outcome::PropertyFailure;
        let mut eras = report(&[("2025-11-25", P2_FAILS), ("2026-07-28", P2_FAILS)]);
        let named = SdkGuess {
            sdk: Some(Sdk::TypescriptV2),
            version: None,
            told_by: "it answers server/discover".to_owned(),
        };
        eras.eras[1].report.as_mut().unwrap().sdk = named.clone();
        for era in eras.eras.iter_mut().filter_map(|era| era.report.as_mut()) {
            era.properties[1].failure = Some(PropertyFailure {
                reason: "acted on an accept whose content is invalid: accept has no content"
                    .to_owned(),
                flaw: Flaw::ContentlessAccept,
                fix: String::new(),
                fix_url: String::new(),
                case_index: None,
                answers: Vec::new(),
                built_as: Vec::new(),
                shrink_runs: 0,
                shrink_stopped_early: false,
                wire: Vec::new(),
                stray_stdout: Vec::new(),
                reproduce: String::new(),
                reproduce_seed: None,
                reply: serde_json::Value::Null,
                stderr: String::new(),
            });
        }
        let guess = apply_remedies(eras.eras.iter_mut().filter_map(|era| era.report.as_mut()));
        assert_eq!(guess, named);
        // Eras that tell nothing keep what the first saw.
        let mut unknown = report(&[("2025-11-25", P2_FAILS), ("2026-07-28", P2_FAILS)]);
        let seen = SdkGuess::unknown("no SDK's marks; serverInfo {\"name\":\"x\"}");
        unknown.eras[0].report.as_mut().unwrap().sdk = seen.clone();
        assert_eq!(
            apply_remedies(
                unknown
                    .eras
                    .iter_mut()
                    .filter_map(|era| era.report.as_mut())
            ),
            seen
        );
        assert_eq!(
            apply_remedies(Vec::new()),
            SdkGuess::unknown("no era was checked")
        );
        for era in eras.eras.iter().filter_map(|era| era.report.as_ref()) {
            assert_eq!(era.sdk, named);
            let failure = era.properties[1].failure.as_ref().unwrap();
            assert_eq!(
                failure.fix,
                remedy::fix(Flaw::ContentlessAccept, Some(Sdk::TypescriptV2))
            );
            assert_eq!(failure.fix_url, remedy::url(Flaw::ContentlessAccept));
        }
    }

    /// A passing 2025-11-25 report ([`judged`]) whose probe got the forms `asked`.
    fn era_report(asked: &[serde_json::Value]) -> CheckReport {
        let mut report = judged(true, false).expect("a report");
        report.requested_schemas = asked.to_vec();
        report
    }

    fn tool_not_found() -> CheckError {
        CheckError::ToolNotFound {
            tool: "purge".into(),
            tools: vec!["other".into()],
        }
    }

    /// (protocol, status, fails, why) of each era.
    fn shown(eras: &[EraCheck]) -> Vec<(&'static str, EraStatus, bool, String)> {
        eras.iter()
            .map(|era| (era.protocol, era.status, era.fails, era.why.clone()))
            .collect()
    }

    #[test]
    fn an_era_without_a_form_where_the_other_asks_cannot_be_confirmed_and_one_that_asks_for_nothing_is_not_checked()
     {
        let plain = r#"{"result":{"content":[{"type":"text","text":"queued"}]}}"#;
        let form = serde_json::json!({"type": "object", "properties": {}});
        let asked_in_2025 = judge_eras(
            Eras::Auto,
            false,
            vec![
                (Protocol::V2025_11_25, Ok(era_report(&[form]))),
                (Protocol::V2026_07_28, Err(no_form(plain))),
            ],
        )
        .unwrap();
        assert_eq!(
            shown(&asked_in_2025),
            vec![
                (
                    "2025-11-25",
                    EraStatus::Checked,
                    false,
                    "the server answers in this era".to_owned()
                ),
                (
                    "2026-07-28",
                    EraStatus::CannotConfirm,
                    false,
                    format!(
                        "the tool cannot be confirmed in 2026-07-28: tools/call \"purge\" returned no InputRequiredResult asking for a form to a client declaring form elicitation, and acted on nothing (in 2025-11-25 it asks for a form); its reply: {plain}"
                    )
                ),
            ]
        );
        // An era judged without a form (it acted without asking) asked for
        // nothing: the era with no form is simply not checked.
        let acted_unasked = judge_eras(
            Eras::Auto,
            false,
            vec![
                (Protocol::V2025_11_25, Ok(era_report(&[]))),
                (Protocol::V2026_07_28, Err(no_form(plain))),
            ],
        )
        .unwrap();
        assert_eq!(acted_unasked[1].status, EraStatus::NotChecked);
        assert!(!acted_unasked[1].fails);
        // Asked for by name, or under --strict, the finding fails.
        for (eras, strict) in [(Eras::Both, false), (Eras::Auto, true)] {
            let failing = judge_eras(
                eras,
                strict,
                vec![
                    (
                        Protocol::V2025_11_25,
                        Ok(era_report(&[serde_json::json!({})])),
                    ),
                    (Protocol::V2026_07_28, Err(no_form(plain))),
                ],
            )
            .unwrap();
            assert_eq!(
                (failing[1].status, failing[1].fails),
                (EraStatus::CannotConfirm, true),
                "{eras} strict {strict}"
            );
            assert_eq!(failing[1].why, asked_in_2025[1].why);
        }
    }

    #[test]
    fn a_tool_confirmed_in_no_era_fails_where_it_cannot_be_even_under_auto() {
        let named = r#"{"error":{"code":-32021,"message":"missing capability"}}"#;
        let eras = judge_eras(
            Eras::Auto,
            false,
            vec![
                (Protocol::V2025_11_25, Err(no_form(named))),
                (Protocol::V2026_07_28, Err(tool_not_found())),
            ],
        )
        .unwrap();
        assert_eq!(
            shown(&eras)
                .into_iter()
                .map(|(protocol, status, fails, _)| (protocol, status, fails))
                .collect::<Vec<_>>(),
            vec![
                ("2025-11-25", EraStatus::CannotConfirm, true),
                ("2026-07-28", EraStatus::NotChecked, false),
            ]
        );
        assert_eq!(
            eras[1].why,
            "the server offers no tool named \"purge\"; it offers: other"
        );
        assert_eq!(ErasReport::outcome_of(&eras), Outcome::Failed);
    }

    #[test]
    fn when_no_era_is_checked_or_a_finding_the_first_eras_error_is_the_answer_named_by_its_era_under_both()
     {
        let neither = || {
            vec![
                (Protocol::V2025_11_25, Err(tool_not_found())),
                (
                    Protocol::V2026_07_28,
                    Err(no_form(r#"{"result":{"content":[]}}"#)),
                ),
            ]
        };
        let Err(CheckError::Era { protocol, source }) = judge_eras(Eras::Both, false, neither())
        else {
            panic!("under both, the error names its era");
        };
        assert_eq!(protocol, "2025-11-25");
        assert!(matches!(*source, CheckError::ToolNotFound { .. }));
        assert!(matches!(
            judge_eras(Eras::Auto, false, neither()),
            Err(CheckError::ToolNotFound { .. })
        ));
        let one = judge_eras(
            Eras::One(Protocol::V2026_07_28),
            false,
            vec![(Protocol::V2026_07_28, Err(tool_not_found()))],
        );
        assert!(matches!(one, Err(CheckError::ToolNotFound { .. })));
    }
}
