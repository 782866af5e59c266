//! Assembling the report: per property (1 to 8) the calls it applied to, its
//! warnings (lenient accepts acted on, valid accepts refused for no consent
//! field, acting without an answer under `--allow-unasked`, forms not
//! exercised) and its failure, into the [`CheckReport`].

use serde_json::{Map, Value};

use super::case_run::{Step, last_lines};
use super::outcome::{CheckReport, PropertyFailure, PropertyReport, PropertyVerdict};
use super::reproduction::{base_command, join_command};
use super::tally::{self, Tally};
use super::target::Target;
use crate::format::counted;
use crate::oracle::consent::{self, ConsentField};
use crate::oracle::property::{ActedRule, Property};
use crate::schema::Form;
use crate::schema::coverage::{self, accept};

/// Most valid accepts the server refused that are listed as warnings of
/// property 3 (refusals a consent field explains are not listed; the rest
/// are counted in one more warning).
pub const MAX_REFUSED_LISTED: usize = 5;

/// What [`assemble`] needs beside the tally and the failures.
pub(super) struct Assembly<'a> {
    /// The seed of the random cases.
    pub(super) seed: u64,
    /// The form's steps, as probed.
    pub(super) steps: &'a [Step],
    /// Each request's base: the consenting valid content the tool acted on.
    pub(super) bases: &'a [Map<String, Value>],
    /// Coverage cases run.
    pub(super) coverage_cases: usize,
    /// The probe's calls (valid accepts, a decline).
    pub(super) probe_calls: usize,
    /// Retries of property 7 counted in the tally's sessions.
    pub(super) retry_calls: usize,
    /// `--answer` or `--case-index`: property 3 is judged only on what they show.
    pub(super) replaying: bool,
}

/// The report from the tally and the failures.
pub(super) fn assemble(
    target: &Target,
    run: Assembly<'_>,
    tally: Tally,
    mut failures: Vec<(Property, PropertyFailure)>,
) -> CheckReport {
    let forms: Vec<Form> = run.steps.iter().map(|step| step.form.clone()).collect();
    let consent_fields: Vec<ConsentField> = consent::consent_fields(&forms, &tally.valid);
    let mut unexplained: Vec<&tally::Refused> = Vec::new();
    let refusals = tally
        .valid
        .iter()
        .filter(|call| !call.acted)
        .zip(&tally.refused);
    for (call, refused) in refusals {
        let listed = unexplained
            .iter()
            .any(|known| known.answer == refused.answer);
        if consent::withheld(&consent_fields, call).is_none() && !listed {
            unexplained.push(refused);
        }
    }
    // The sessions that were not random cases: the capability sessions, the
    // probe, the coverage cases, the 2026-07-28 retries and the sessions of
    // a reply planted in another HTTP session.
    let random_cases = tally.sessions.saturating_sub(
        tally.capability_sessions
            + run.probe_calls
            + run.coverage_cases
            + run.retry_calls
            + tally.cross_session,
    );
    let properties: Vec<PropertyReport> = Property::ALL
        .iter()
        .map(|&property| {
            let mut failure = failures
                .iter()
                .position(|(known, _)| *known == property)
                .map(|at| failures.remove(at).1);
            let mut warnings = Vec::new();
            let cases = match property {
                Property::NoActOnRefusal => tally.with_refusal,
                Property::NoActOnInvalid => {
                    if !target.strict {
                        warnings.extend(tally.lenient_acted.iter().cloned());
                    }
                    tally.with_invalid
                }
                Property::ActsOnValid => {
                    let valid_acted = tally.valid_acted();
                    // When it acted on none, the failure says so: no warning per refusal.
                    if !run.replaying && valid_acted > 0 {
                        for refused in unexplained.iter().take(MAX_REFUSED_LISTED) {
                            warnings.push(format!(
                                "did not act on the valid accept {} (it answered {})",
                                refused.answer, refused.reply
                            ));
                        }
                        if unexplained.len() > MAX_REFUSED_LISTED {
                            warnings.push(format!(
                                "and {} it did not act on",
                                counted(
                                    unexplained.len() - MAX_REFUSED_LISTED,
                                    "more valid accept"
                                )
                            ));
                        }
                    }
                    if !tally.valid.is_empty() && valid_acted == 0 && failure.is_none() {
                        if run.replaying {
                            // One refusal shows nothing about whether it ever acts.
                            return untested(property, warnings);
                        }
                        failure = Some(never_acted(target, &tally, run.bases));
                    }
                    tally.valid.len()
                }
                Property::CapabilityRespected => tally.capability_sessions,
                Property::CleanWire => tally.sessions,
                Property::ActedIsBoolean => match target.acted {
                    ActedRule::Pointer(_) => tally.acted_readings,
                    _ => 0,
                },
                Property::NoActWithoutAnswer => {
                    if target.allow_unasked {
                        warnings.extend(tally.unanswered_acted.iter().map(|capabilities| {
                            format!(
                                "acted without a valid consenting answer (client capabilities {capabilities}): allowed by --allow-unasked, a declared fail-open design"
                            )
                        }));
                    }
                    tally.unanswered + tally.cross_session
                }
                Property::StateVerified => tally.state_retries,
            };
            warnings.extend(
                tally
                    .not_exercised
                    .iter()
                    .filter(|(known, _)| *known == property)
                    .map(|(_, note)| note.clone()),
            );
            let verdict = if failure.is_some() {
                PropertyVerdict::Fails
            } else if cases == 0 {
                PropertyVerdict::Untested
            } else {
                PropertyVerdict::Holds
            };
            PropertyReport {
                property: property.number(),
                statement: property.statement(),
                cases,
                verdict,
                warnings,
                failure,
                findings: tally.findings(property),
            }
        })
        .collect();
    let passed = properties
        .iter()
        .all(|p| p.verdict != PropertyVerdict::Fails);
    let mut schema_warnings = Vec::new();
    let mut coverage_fields = Vec::new();
    for (index, step) in run.steps.iter().enumerate() {
        for warning in &step.form.outside_subset {
            schema_warnings.push(format!("request {}: {warning}", index + 1));
        }
        if run.coverage_cases > 0 {
            let answers = coverage::coverage_answers(&step.form, &run.bases[index]);
            for (field, count) in coverage::field_counts(&step.form, &answers) {
                coverage_fields.push(if run.steps.len() > 1 {
                    format!("request {}: {field}: {count}", index + 1)
                } else {
                    format!("{field}: {count}")
                });
            }
        }
    }
    CheckReport {
        elicit_check_version: env!("CARGO_PKG_VERSION"),
        server_command: target.command.clone(),
        url: target.transport.url().map(str::to_owned),
        tool: target.tool.clone(),
        acted: target.acted.to_string(),
        seed: run.seed,
        cases: random_cases,
        coverage_cases: run.coverage_cases,
        coverage_fields,
        consent_fields: consent_fields.iter().map(ToString::to_string).collect(),
        protocol: target.protocol.as_str(),
        mode: if target.session {
            "session"
        } else {
            "fresh-process"
        },
        strict: target.strict,
        passed,
        requested_schemas: run.steps.iter().map(|step| step.schema.clone()).collect(),
        schema_warnings,
        reclassified: tally.reclassified,
        properties,
    }
}

/// A property's line when nothing it applies to was run.
fn untested(property: Property, warnings: Vec<String>) -> PropertyReport {
    PropertyReport {
        property: property.number(),
        statement: property.statement(),
        cases: 0,
        verdict: PropertyVerdict::Untested,
        warnings,
        failure: None,
        findings: Vec::new(),
    }
}

/// Property 3's failure: the tool acted on none of its valid calls; shown on
/// the first one it refused, with what it answered.
fn never_acted(target: &Target, tally: &Tally, bases: &[Map<String, Value>]) -> PropertyFailure {
    let first = tally.refused.first();
    let answer = first.map_or_else(|| accept(&bases[0]), |refused| refused.answer.clone());
    let mut replay = base_command(target);
    replay.extend(["--answer".to_owned(), answer.to_string()]);
    PropertyFailure {
        reason: format!(
            "acted on none of the {} whose every answer was a valid accept (consenting ones included)",
            counted(tally.valid.len(), "call")
        ),
        case_index: None,
        answers: vec![answer],
        built_as: vec![coverage::VALID.to_owned()],
        shrink_runs: 0,
        shrink_stopped_early: false,
        wire: Vec::new(),
        stray_stdout: Vec::new(),
        reproduce: join_command(&replay, &target.command),
        reproduce_seed: None,
        reply: first.map_or(Value::Null, |refused| refused.reply.clone()),
        stderr: first.map_or_else(String::new, |refused| last_lines(&refused.stderr, 10)),
    }
}
