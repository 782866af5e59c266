//! `check --sarif`: the report as SARIF 2.1.0 (OASIS, "Static Analysis Results
//! Interchange Format", the format GitHub code scanning reads): one run per
//! protocol era checked, one rule per property (`P1` to `P8`), one result per
//! failed property, level `error`, its message leading with the primary reason,
//! then the minimal answer and the reproduction line.
//!
//! A property's warnings (acting on lenient accepts, valid accepts refused,
//! forms not exercised: they fail nothing without `--strict`) are results of
//! their own, level `warning`, one per warning.
//!
//! A result's location is logical (the tool, kind `function`), and physical
//! when the check read a config file (`--config`): code scanning shows a
//! result only at a file, and the config is the file that names the target.

use serde_json::{Value, json};

use super::baseline::Applied;
use crate::check::CheckReport;
use crate::check::eras::{EraCheck, EraStatus, ErasReport};
use crate::fix::flaw::Flaw;
use crate::fix::remedy;
use crate::oracle::property::Property;

/// The SARIF version written.
pub const VERSION: &str = "2.1.0";

/// Where the SARIF 2.1.0 schema lives (the `$schema` of the document).
pub const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// Where a property is explained, for each rule's `helpUri`.
const PROPERTIES_DOC: &str = "https://github.com/elicit-check/elicit-check/blob/main/docs/src/check.md#the-properties-p1-to-p8";

/// What a SARIF document says beside the report itself.
#[derive(Debug, Clone, Copy, Default)]
pub struct Context<'a> {
    /// The config file the target came from (`--config`): the results'
    /// physical location.
    pub config: Option<&'a str>,
    /// The file holding every session's evidence (`--output DIR`'s
    /// `cases.jsonl`): each result's `properties.evidence`.
    pub evidence: Option<&'a str>,
    /// What the baseline (`--baseline`) made of the check.
    pub baseline: Option<&'a Applied>,
    /// The target's name when the check ran a config's targets: each run's
    /// `automationDetails.id` is then `elicit-check/NAME/ERA/`, so two targets
    /// of one tool stay apart in code scanning.
    pub target: Option<&'a str>,
}

/// The SARIF document of `report`, with what `context` adds.
///
/// With a baseline (`--baseline`), a known failure's result carries an
/// external suppression whose justification is the entry's reason, and each
/// stale entry is a result of its own (level `error`).
pub fn document(report: &ErasReport, context: &Context<'_>) -> Value {
    wrap(runs(report, context))
}

/// The runs of `report`: one per era checked, as [`document`] holds them
/// (an inconclusive era's invocation did not succeed, its notification
/// says why), and one per era the tool cannot be confirmed in or whose
/// check is incomplete, with no results and a notification saying so
/// (SARIF 2.1.0, 3.20 "invocation object", 3.58 "notification object").
pub fn runs(report: &ErasReport, context: &Context<'_>) -> Vec<Value> {
    report
        .eras
        .iter()
        .filter_map(|era| match &era.report {
            Some(checked) => Some(run(report, checked, context)),
            None => era_run(report, era, context),
        })
        .collect()
}

/// The run of an era without a report that says something: the tool cannot
/// be confirmed in it (a notification at level `error` when that fails,
/// `warning` otherwise), or its check is incomplete (the invocation did not
/// succeed); none for an era the server does not speak.
fn era_run(report: &ErasReport, era: &EraCheck, context: &Context<'_>) -> Option<Value> {
    let (successful, level) = match era.status {
        EraStatus::CannotConfirm => (true, if era.fails { "error" } else { "warning" }),
        EraStatus::Incomplete => (false, "error"),
        EraStatus::Checked | EraStatus::NotChecked => return None,
    };
    Some(json!({
        "tool": driver(),
        "automationDetails": {"id": format!(
            "elicit-check/{}/{}/",
            context.target.unwrap_or(&report.tool),
            era.protocol
        )},
        "invocations": [{
            "executionSuccessful": successful,
            "toolExecutionNotifications": [{
                "level": level,
                "message": {"text": era.why},
            }],
        }],
        "results": [],
        "properties": {"protocol": era.protocol, "tool": report.tool, "passed": !era.fails && successful},
    }))
}

/// The run of a target that could not be checked: no results, and an
/// invocation that did not succeed (`executionSuccessful` false) whose
/// error notification says why (SARIF 2.1.0, 3.20 "invocation object").
pub fn not_checked_run(name: &str, tool: &str, error: &str) -> Value {
    json!({
        "tool": driver(),
        "automationDetails": {"id": format!("elicit-check/{name}/")},
        "invocations": [{
            "executionSuccessful": false,
            "toolExecutionNotifications": [{
                "level": "error",
                "message": {"text": error},
            }],
        }],
        "results": [],
        "properties": {"tool": tool, "passed": false},
    })
}

/// The SARIF document holding `runs`.
pub fn wrap(runs: Vec<Value>) -> Value {
    json!({
        "$schema": SCHEMA_URI,
        "version": VERSION,
        "runs": runs,
    })
}

/// The tool object: elicit-check, its version and the rules.
fn driver() -> Value {
    json!({"driver": {
        "name": "elicit-check",
        "version": env!("CARGO_PKG_VERSION"),
        "informationUri": "https://github.com/elicit-check/elicit-check",
        "rules": rules(),
    }})
}

/// `P2`: the rule id of `property`.
pub fn rule_id(number: u8) -> String {
    format!("P{number}")
}

/// The rules: one per property, in order, each named as the code names the
/// property (`NoActOnRefusal`).
fn rules() -> Vec<Value> {
    Property::ALL
        .iter()
        .map(|property| {
            json!({
                "id": rule_id(property.number()),
                "name": format!("{property:?}"),
                "shortDescription": {"text": property.statement()},
                "fullDescription": {"text": format!(
                    "elicit-check property {}: the tool {}.",
                    property.number(),
                    property.statement()
                )},
                "helpUri": PROPERTIES_DOC,
                "help": help(*property),
                "defaultConfiguration": {"level": "error"},
            })
        })
        .collect()
}

/// A rule's `help` (SARIF 2.1.0, 3.49.13): the flaws a failure of
/// `property` shows in a server's code, each with its guide page of
/// before/after pairs per SDK (`docs/src/fixes/`).
fn help(property: Property) -> Value {
    let flaws: Vec<Flaw> = Flaw::ALL
        .into_iter()
        .filter(|flaw| flaw.properties().contains(&property))
        .collect();
    let text: Vec<String> = flaws
        .iter()
        .map(|flaw| format!("{}: {}", flaw.slug(), remedy::url(*flaw)))
        .collect();
    let markdown: Vec<String> = flaws
        .iter()
        .map(|flaw| {
            format!(
                "- [{}]({}): {}",
                flaw.slug(),
                remedy::url(*flaw),
                remedy::fix(*flaw, None)
            )
        })
        .collect();
    json!({
        "text": format!("How to fix a failure, per SDK: {}", text.join("; ")),
        "markdown": format!("How to fix a failure, per SDK:\n\n{}", markdown.join("\n")),
    })
}

/// One era's run.
fn run(report: &ErasReport, checked: &CheckReport, context: &Context<'_>) -> Value {
    let Context {
        config,
        evidence,
        baseline,
        target,
    } = *context;
    let server = if report.server_command.is_empty() {
        report.url.clone().unwrap_or_default()
    } else {
        crate::error::shell_words(&report.server_command)
    };
    let location = || {
        let mut location = json!({
            "logicalLocations": [{
                "name": checked.tool,
                "fullyQualifiedName": format!("{server} {}", checked.tool),
                "kind": "function",
            }],
        });
        if let Some(config) = config {
            location["physicalLocation"] = json!({
                "artifactLocation": {"uri": config},
                "region": {"startLine": 1},
            });
        }
        location
    };
    let mut results: Vec<Value> = checked
        .properties
        .iter()
        .filter_map(|property| {
            let failure = property.failure.as_ref()?;
            let answers: Vec<String> = failure.answers.iter().map(ToString::to_string).collect();
            let answers = if answers.is_empty() {
                "none sent".to_owned()
            } else {
                answers.join(" then ")
            };
            let mut result = json!({
                "ruleId": rule_id(property.property),
                "ruleIndex": usize::from(property.property) - 1,
                "level": "error",
                "message": {"text": format!(
                    "{}\nfix: {}\n{}: {answers}\nreproduce: {}",
                    failure.reason, failure.fix, failure.answers_title(), failure.reproduce
                )},
                "locations": [location()],
                "properties": {
                    "protocol": checked.protocol,
                    "tool": checked.tool,
                    "answers": failure.answers,
                    "reproduce": failure.reproduce,
                    "reproduceSeed": failure.reproduce_seed,
                    "reply": failure.reply,
                    "flaw": failure.flaw,
                    "fix": failure.fix,
                    "fixUrl": failure.fix_url,
                    "sdk": report.sdk,
                },
            });
            if let Some(evidence) = evidence {
                result["properties"]["evidence"] = json!(evidence);
            }
            if let Some(known) =
                baseline.and_then(|applied| applied.known(property.property, checked.protocol))
            {
                result["suppressions"] = json!([{
                    "kind": "external",
                    "justification": known.reason,
                }]);
            }
            Some(result)
        })
        .collect();
    for property in &checked.properties {
        for warning in &property.warnings {
            let mut result = json!({
                "ruleId": rule_id(property.property),
                "ruleIndex": usize::from(property.property) - 1,
                "level": "warning",
                "message": {"text": warning},
                "locations": [location()],
                "properties": {"protocol": checked.protocol, "tool": checked.tool},
            });
            if let Some(evidence) = evidence {
                result["properties"]["evidence"] = json!(evidence);
            }
            results.push(result);
        }
    }
    for stale in baseline
        .iter()
        .flat_map(|applied| applied.stale.iter().map(move |stale| (applied, stale)))
        .filter(|(_, stale)| stale.protocol == checked.protocol)
    {
        let (applied, stale) = stale;
        results.push(json!({
            "ruleId": rule_id(stale.property),
            "ruleIndex": usize::from(stale.property) - 1,
            "level": "error",
            "message": {"text": applied.stale_line(stale)},
            "locations": [location()],
            "properties": {"protocol": checked.protocol, "tool": checked.tool, "baseline": applied.file},
        }));
    }
    let mut run = json!({
        "tool": driver(),
        "automationDetails": {"id": format!(
            "elicit-check/{}/{}/",
            target.unwrap_or(&checked.tool),
            checked.protocol
        )},
        "results": results,
        "properties": {
            "protocol": checked.protocol,
            "tool": checked.tool,
            "server": server,
            "seed": checked.seed,
            "passed": checked.passed,
        },
    });
    // An inconclusive era did not succeed; the health's notes are
    // notifications of level `note` either way.
    let mut notifications: Vec<Value> = checked
        .health
        .inconclusive
        .iter()
        .map(|line| json!({"level": "error", "message": {"text": format!("inconclusive: {line}")}}))
        .collect();
    notifications.extend(
        checked
            .health
            .notes
            .iter()
            .map(|note| json!({"level": "note", "message": {"text": note}})),
    );
    if !notifications.is_empty() {
        run["invocations"] = json!([{
            "executionSuccessful": checked.health.inconclusive.is_none(),
            "toolExecutionNotifications": notifications,
        }]);
    }
    run
}
