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

use serde::Serialize;

use super::case_run::CaseRecord;
use super::check_with_log;
use super::error::CheckError;
use super::outcome::CheckReport;
use super::target::Target;
use crate::harness::era::Protocol;

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

/// One era's outcome.
#[derive(Debug, Clone, Serialize)]
pub struct EraCheck {
    /// `2025-11-25` or `2026-07-28`.
    pub protocol: &'static str,
    /// Whether its properties were judged.
    pub checked: bool,
    /// Why it ran, or why it was not checked (`server/discover failed: ...`).
    pub why: String,
    /// Its report, when checked.
    pub report: Option<CheckReport>,
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
    /// Whether every property holds in every era checked.
    pub passed: bool,
    /// Each era tried, in order.
    pub eras: Vec<EraCheck>,
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

/// Runs the check of `target` in each era `eras` names, handing every
/// session's record to `log` (its `case` prefixed with the era when more than
/// one is tried).
///
/// # Errors
/// A configuration error in any era; with one era or `both`, any
/// [`CheckError`] (its message prefixed with the era under `both`); with
/// `auto`, the first era's error when no era could be checked.
pub async fn check_eras(
    target: &Target,
    eras: Eras,
    log: &mut dyn FnMut(CaseRecord),
) -> Result<ErasReport, CheckError> {
    let protocols = eras.protocols();
    let several = protocols.len() > 1;
    let mut checked = Vec::new();
    let mut first_error = None;
    for protocol in protocols {
        let era_target = target.clone().protocol(protocol);
        let mut tagged = |mut record: CaseRecord| {
            if several {
                record.case = format!("{protocol}: {}", record.case);
            }
            log(record);
        };
        match check_with_log(&era_target, &mut tagged).await {
            Ok(report) => checked.push(EraCheck {
                protocol: protocol.as_str(),
                checked: true,
                why: match eras {
                    Eras::Auto => "the server answers in this era".to_owned(),
                    other => format!("--protocol {other}"),
                },
                report: Some(report),
            }),
            Err(error) if eras == Eras::Auto && era_not_spoken(&error) => {
                checked.push(EraCheck {
                    protocol: protocol.as_str(),
                    checked: false,
                    why: not_spoken_why(&error),
                    report: None,
                });
                first_error.get_or_insert(error);
            }
            Err(error) if eras == Eras::Both => {
                return Err(CheckError::Era {
                    protocol: protocol.as_str(),
                    source: Box::new(error),
                });
            }
            Err(error) => return Err(error),
        }
    }
    if !checked.iter().any(|era| era.checked)
        && let Some(error) = first_error
    {
        return Err(error);
    }
    Ok(ErasReport {
        elicit_check_version: env!("CARGO_PKG_VERSION"),
        server_command: target.command.clone(),
        url: target.transport.url().map(str::to_owned),
        tool: target.tool.clone(),
        protocol: eras.to_string(),
        passed: checked
            .iter()
            .filter_map(|era| era.report.as_ref())
            .all(|report| report.passed),
        eras: checked,
    })
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
}
