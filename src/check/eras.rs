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

use super::check_era;
use super::error::CheckError;
use crate::fix::remedy;
use crate::fix::sdk::SdkGuess;
use crate::harness::era::Protocol;
use crate::targets::target::Target;
use crate::verdict::check::case_record::CaseRecord;
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
mod tests;
