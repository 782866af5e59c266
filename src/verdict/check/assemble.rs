//! Assembling the report: per property (1 to 8) the calls it applied to, its
//! warnings (lenient accepts acted on, valid accepts refused for no consent
//! field, acting without an answer under `--allow-unasked`, forms not
//! exercised) and its failure, into the [`CheckReport`].

use serde_json::{Map, Value};

use super::health::{Aimed, Health};
use super::outcome::{CheckReport, PropertyFailure, PropertyReport, PropertyVerdict};
use super::reproduction::{base_command, join_command};
use super::tally::{self, Tally};
use crate::check::case_run::Step;
use crate::fix::flaw::Flaw;
use crate::fix::sdk::SdkGuess;
use crate::format::counted;
use crate::format::last_lines;
use crate::harness::client::declares_form;
use crate::oracle::consent::{self, ConsentField};
use crate::oracle::format_shape::{self, ShapeRefusal};
use crate::oracle::property::{ActedRule, Property};
use crate::schema::Form;
use crate::schema::coverage::{self, accept};
use crate::targets::target::Target;

/// Most valid accepts the server refused that are listed as warnings of
/// property 3 (refusals a consent field explains are not listed; the rest
/// are counted in one more warning).
pub const MAX_REFUSED_LISTED: usize = 5;

/// What [`assemble`] needs beside the tally and the failures.
pub(crate) struct Assembly<'a> {
    /// The seed of the random cases.
    pub(crate) seed: u64,
    /// The form's steps, as probed.
    pub(crate) steps: &'a [Step],
    /// Each request's base: the consenting valid content the tool acted on.
    pub(crate) bases: &'a [Map<String, Value>],
    /// Coverage cases run.
    pub(crate) coverage_cases: usize,
    /// Random cases run.
    pub(crate) random_cases: usize,
    /// `--answer` or `--case-index`: property 3 is judged only on what they show.
    pub(crate) replaying: bool,
    /// What the era's calls could learn: when inconclusive, no property is
    /// called "holds".
    pub(crate) health: Health,
    /// Per property, the planned cases aimed at it and reaching the form.
    pub(crate) aimed: Aimed,
}

/// The report from the tally and the failures.
pub(crate) fn assemble(
    target: &Target,
    run: Assembly<'_>,
    tally: Tally,
    mut failures: Vec<(Property, PropertyFailure)>,
) -> CheckReport {
    let forms: Vec<Form> = run.steps.iter().map(|step| step.form.clone()).collect();
    let schemas: Vec<Value> = run.steps.iter().map(|step| step.schema.clone()).collect();
    // The declared consent fields, then those inferred that none declares.
    let mut consent_fields: Vec<ConsentField> = consent::declared_fields(&forms, &target.consent);
    for inferred in consent::consent_fields(&forms, &tally.valid) {
        let declared = consent_fields
            .iter()
            .any(|field| field.request == inferred.request && field.name == inferred.name);
        if !declared {
            consent_fields.push(inferred);
        }
    }
    let acted_both =
        consent::undeclared_acted_both(&forms, &schemas, &tally.valid, &target.consent);
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
    // A refusal for the shape of a date-time alone fails property 3.
    let shape_refusal = tally
        .valid
        .iter()
        .filter(|call| !call.acted)
        .zip(&tally.refused)
        .find_map(|(call, refused)| {
            format_shape::refused_shape(&forms, &tally.valid, call).map(|found| (found, refused))
        });
    let inconclusive = run.health.inconclusive.is_some();
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
                        warnings.extend(tally.lenient_warnings());
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
                    if !run.replaying
                        && failure.is_none()
                        && let Some((found, refused)) = &shape_refusal
                    {
                        failure = Some(shape_refused(target, found, refused));
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
                        // Only a client that declared no form elicitation:
                        // a form-capable one never asked still fails.
                        warnings.extend(
                            tally
                                .unanswered_acted
                                .iter()
                                .filter(|capabilities| !declares_form(capabilities))
                                .map(|capabilities| {
                                    format!(
                                        "acted without a valid consenting answer (client capabilities {capabilities}): allowed by --allow-unasked, a declared fail-open design for clients that cannot answer a form"
                                    )
                                }),
                        );
                    }
                    for (request, name, values) in &acted_both {
                        let shown: Vec<String> = values.iter().map(ToString::to_string).collect();
                        let step = if run.steps.len() > 1 {
                            format!("request {}: ", request + 1)
                        } else {
                            String::new()
                        };
                        warnings.push(format!(
                            "{step}`{name}` reads as a consent field and the tool acted on valid accepts with it {}: if it is one, --consent '/{name}={}' makes acting on any other value a failure",
                            shown.join(" and "),
                            values[0]
                        ));
                    }
                    tally.unanswered + tally.cross_session + tally.withheld_consent
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
            } else if inconclusive {
                PropertyVerdict::Inconclusive
            } else {
                PropertyVerdict::Holds
            };
            PropertyReport {
                property: property.number(),
                statement: property.statement(),
                cases,
                verdict,
                planned: run.aimed.of(property),
                warnings,
                failure,
                findings: tally.findings(property),
            }
        })
        .collect();
    let passed = !inconclusive
        && properties
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
        cases: run.random_cases,
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
        sdk: SdkGuess::unknown("not read yet"),
        passed,
        requested_schemas: run.steps.iter().map(|step| step.schema.clone()).collect(),
        schema_warnings,
        reclassified: tally.reclassified,
        health: run.health,
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
        planned: None,
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
        flaw: Flaw::RefusesValid,
        fix: String::new(),
        fix_url: String::new(),
        case_index: None,
        answers: vec![answer],
        built_as: vec![coverage::VALID.to_owned()],
        shrink_runs: 0,
        shrink_stopped_early: false,
        earlier_calls: 0,
        wire: Vec::new(),
        stray_stdout: Vec::new(),
        reproduce: join_command(&replay, &target.command),
        reproduce_seed: None,
        reply: first.map_or(Value::Null, |refused| refused.reply.clone()),
        stderr: first.map_or_else(String::new, |refused| last_lines(&refused.stderr, 10)),
    }
}

/// Property 3's failure for a valid accept refused for the shape of its
/// date-time alone ([`format_shape`]): the refused accept, replayed.
fn shape_refused(
    target: &Target,
    found: &ShapeRefusal,
    refused: &tally::Refused,
) -> PropertyFailure {
    let mut replay = base_command(target);
    replay.extend(["--answer".to_owned(), refused.answer.to_string()]);
    PropertyFailure {
        reason: found.reason(),
        flaw: Flaw::RefusesValid,
        fix: String::new(),
        fix_url: String::new(),
        case_index: None,
        answers: vec![refused.answer.clone()],
        built_as: vec![format!(
            "{}, `{}` {} {}",
            coverage::VALID,
            found.field,
            found.how,
            found.refused
        )],
        shrink_runs: 0,
        shrink_stopped_early: false,
        earlier_calls: 0,
        wire: Vec::new(),
        stray_stdout: Vec::new(),
        reproduce: join_command(&replay, &target.command),
        reproduce_seed: None,
        reply: refused.reply.clone(),
        stderr: last_lines(&refused.stderr, 10),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::oracle::consent::{DeclaredConsent, ValidCall};
    use crate::schema::judge::Judge;

    fn step(schema: Value) -> Step {
        Step {
            form: Form::read(&schema),
            judge: Judge::new(&schema).expect("compiles"),
            schema,
            consenting: std::sync::OnceLock::new(),
        }
    }

    /// A tally set by `set`.
    fn with_tally(set: impl FnOnce(&mut Tally)) -> Tally {
        let mut tally = Tally::default();
        set(&mut tally);
        tally
    }

    fn confirm_form() -> Value {
        json!({"type": "object", "properties": {"confirm": {"type": "boolean", "title": "Confirm?"}}, "required": ["confirm"]})
    }

    fn call(confirm: bool, acted: bool) -> ValidCall {
        ValidCall {
            contents: vec![json!({"confirm": confirm})],
            acted,
        }
    }

    /// The report of `tally` over `steps`, with `health` and `aimed`.
    fn report(
        target: &Target,
        steps: &[Step],
        tally: Tally,
        (health, aimed): (Health, Aimed),
    ) -> CheckReport {
        let bases: Vec<Map<String, Value>> = steps
            .iter()
            .map(|_| Map::from_iter([("confirm".to_owned(), json!(true))]))
            .collect();
        assemble(
            target,
            Assembly {
                seed: 1,
                steps,
                bases: &bases,
                coverage_cases: 0,
                random_cases: 0,
                replaying: false,
                health,
                aimed,
            },
            tally,
            Vec::new(),
        )
    }

    fn seven(report: &CheckReport) -> &PropertyReport {
        report.property(7).expect("property 7")
    }

    #[test]
    fn a_declared_consent_field_is_named_once_before_the_inferred_ones() {
        let steps = [step(confirm_form())];
        let mut tally = Tally::default();
        tally.valid = vec![call(true, true), call(false, false)];
        tally.refused.push(tally::Refused {
            answer: json!({"action": "accept", "content": {"confirm": false}}),
            reply: json!({}),
            stderr: String::new(),
        });
        let inferred = report(
            &Target::stdio(["s"]),
            &steps,
            with_tally(|t| {
                t.valid = tally.valid.clone();
            }),
            Default::default(),
        );
        assert_eq!(
            inferred.consent_fields,
            vec!["/confirm is a consent field: acts only when true".to_owned()]
        );
        let mut declared = Target::stdio(["s"]);
        declared.consent = vec![DeclaredConsent {
            name: "confirm".into(),
            value: json!(true),
        }];
        let both = report(&declared, &steps, tally, Default::default());
        assert_eq!(
            both.consent_fields,
            vec![
                "/confirm is the consent field declared with --consent: acts only when true"
                    .to_owned()
            ]
        );
        // Refusing the non-consenting accept is no warning of property 3.
        assert!(both.property(3).expect("3").warnings.is_empty());
    }

    #[test]
    fn a_field_that_reads_as_consent_acted_on_at_two_values_is_a_warning_naming_the_option() {
        let one = [step(confirm_form())];
        let tally = || {
            with_tally(|t| {
                t.valid = vec![call(true, true), call(false, true)];
            })
        };
        assert_eq!(
            seven(&report(&Target::stdio(["s"]), &one, tally(), Default::default())).warnings,
            vec![
                "`confirm` reads as a consent field and the tool acted on valid accepts with it true and false: if it is one, --consent '/confirm=true' makes acting on any other value a failure".to_owned()
            ]
        );
        // With several steps, the warning names its request.
        let other = json!({"type": "object", "properties": {"note": {"type": "string"}}});
        let two = [step(other), step(confirm_form())];
        let calls = with_tally(|t| {
            t.valid = vec![
                ValidCall {
                    contents: vec![json!({}), json!({"confirm": true})],
                    acted: true,
                },
                ValidCall {
                    contents: vec![json!({}), json!({"confirm": false})],
                    acted: true,
                },
            ];
        });
        let two_steps = report(&Target::stdio(["s"]), &two, calls, Default::default());
        let warnings = &seven(&two_steps).warnings;
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].starts_with("request 2: `confirm` reads as"),
            "{warnings:?}"
        );
    }

    #[test]
    fn allow_unasked_warns_only_for_clients_without_form_elicitation() {
        let steps = [step(confirm_form())];
        let tally = || {
            with_tally(|t| {
                t.unanswered = 3;
                t.withheld_consent = 2;
                t.cross_session = 1;
                t.unanswered_acted = vec![
                    json!({}),
                    json!({"elicitation": {"form": {}}}),
                    json!({"elicitation": {"url": {}}}),
                ];
            })
        };
        let mut allowed = Target::stdio(["s"]);
        allowed.allow_unasked = true;
        let allowing = report(&allowed, &steps, tally(), Default::default());
        let property = seven(&allowing);
        assert_eq!(
            property.cases, 6,
            "unanswered, cross-session and withheld-consent calls"
        );
        assert_eq!(
            property.warnings,
            vec![
                "acted without a valid consenting answer (client capabilities {}): allowed by --allow-unasked, a declared fail-open design for clients that cannot answer a form".to_owned(),
                "acted without a valid consenting answer (client capabilities {\"elicitation\":{\"url\":{}}}): allowed by --allow-unasked, a declared fail-open design for clients that cannot answer a form".to_owned(),
            ]
        );
        let without = report_of(&steps, tally());
        assert!(seven(&without).warnings.is_empty());
    }

    #[test]
    fn a_date_time_refused_in_another_shape_after_acting_fails_property_3_and_a_leap_day_warns() {
        let steps = [step(json!({
            "type": "object",
            "properties": {"arrival": {"type": "string", "format": "date-time"}},
            "required": ["arrival"]
        }))];
        let arrival = |value: &str, acted: bool| ValidCall {
            contents: vec![json!({"arrival": value})],
            acted,
        };
        let refused = |value: &str| tally::Refused {
            answer: json!({"action": "accept", "content": {"arrival": value}}),
            reply: json!({"result": {"isError": true}}),
            stderr: "only UTC\n".into(),
        };
        let judged = report_of(
            &steps,
            with_tally(|t| {
                t.valid = vec![
                    arrival("2030-01-15T10:00:00Z", true),
                    arrival("2028-02-29T10:00:00Z", false),
                    arrival("2030-01-15T10:00:00+02:00", false),
                ];
                t.refused = vec![
                    refused("2028-02-29T10:00:00Z"),
                    refused("2030-01-15T10:00:00+02:00"),
                ];
            }),
        );
        assert!(!judged.passed);
        let three = judged.property(3).expect("3");
        assert_eq!(three.verdict, PropertyVerdict::Fails);
        let failure = three.failure.as_ref().expect("a failure");
        assert_eq!(
            failure.reason,
            "refused `arrival` \"2030-01-15T10:00:00+02:00\" (a date-time with an offset, valid under RFC 3339 section 5.6) after acting on \"2030-01-15T10:00:00Z\" in the same accept"
        );
        assert_eq!(
            failure.answers,
            vec![json!({"action": "accept", "content": {"arrival": "2030-01-15T10:00:00+02:00"}})]
        );
        assert_eq!(
            failure.built_as,
            vec![
                "accept: valid content, `arrival` with an offset \"2030-01-15T10:00:00+02:00\""
                    .to_owned()
            ]
        );
        assert_eq!(failure.reply, json!({"result": {"isError": true}}));
        assert_eq!(failure.stderr, "only UTC");
        assert!(failure.reproduce.contains(r#"--answer '{"action":"accept","content":{"arrival":"2030-01-15T10:00:00+02:00"}}'"#), "{}", failure.reproduce);
        // Both refusals are still listed.
        assert_eq!(three.warnings.len(), 2, "{:?}", three.warnings);
        // Without the offset, the leap day (another day) is a warning only.
        let leap_day = report_of(
            &steps,
            with_tally(|t| {
                t.valid = vec![
                    arrival("2030-01-15T10:00:00Z", true),
                    arrival("2028-02-29T10:00:00Z", false),
                ];
                t.refused = vec![refused("2028-02-29T10:00:00Z")];
            }),
        );
        assert!(leap_day.passed);
        let three = leap_day.property(3).expect("3");
        assert_eq!(three.verdict, PropertyVerdict::Holds);
        assert_eq!(three.warnings.len(), 1);
    }

    #[test]
    fn a_field_inferred_beside_a_declared_one_in_the_same_request_is_listed_too() {
        let steps = [step(json!({
            "type": "object",
            "properties": {"confirm": {"type": "boolean"}, "agree": {"type": "boolean"}},
            "required": ["confirm", "agree"]
        }))];
        let mut target = Target::stdio(["s"]);
        target.consent = vec![DeclaredConsent {
            name: "confirm".into(),
            value: json!(true),
        }];
        let calls = |agree: bool| ValidCall {
            contents: vec![json!({"confirm": true, "agree": agree})],
            acted: agree,
        };
        let judged = report(
            &target,
            &steps,
            with_tally(|t| t.valid = vec![calls(true), calls(false)]),
            Default::default(),
        );
        assert_eq!(
            judged.consent_fields,
            vec![
                "/confirm is the consent field declared with --consent: acts only when true"
                    .to_owned(),
                "/agree is a consent field: acts only when true".to_owned(),
            ]
        );
    }

    #[test]
    fn lenient_accepts_acted_on_are_property_2_warnings_unless_strict() {
        let steps = [step(confirm_form())];
        let tally = || {
            with_tally(|t| {
                t.with_invalid = 2;
                t.lenient = vec![tally::ClassFinding {
                    answer_class: "string \"true\" for boolean `confirm`".into(),
                    acted: 1,
                    of: 2,
                    smallest: json!({"action": "accept", "content": {"confirm": "true"}}),
                }];
            })
        };
        let lenient = report(&Target::stdio(["s"]), &steps, tally(), Default::default());
        assert_eq!(
            lenient.property(2).expect("2").warnings,
            vec![
                "acted on string \"true\" for boolean `confirm`: 1 of 2, e.g. {\"action\":\"accept\",\"content\":{\"confirm\":\"true\"}}: valid JSON Schema, refused by strict servers".to_owned()
            ]
        );
        let mut strict = Target::stdio(["s"]);
        strict.strict = true;
        let judged = report(&strict, &steps, tally(), Default::default());
        assert!(judged.property(2).expect("2").warnings.is_empty());
    }

    fn report_of(steps: &[Step], tally: Tally) -> CheckReport {
        report(&Target::stdio(["s"]), steps, tally, Default::default())
    }

    #[test]
    fn an_inconclusive_era_calls_no_property_holds_and_does_not_pass() {
        let steps = [step(confirm_form())];
        let tally = || {
            with_tally(|t| {
                t.sessions = 3;
                t.with_refusal = 2;
                t.valid = vec![call(true, true)];
            })
        };
        let mut aimed = Aimed::default();
        aimed.add(Some(Property::NoActOnRefusal), true);
        aimed.add(Some(Property::NoActOnRefusal), false);
        let health = Health {
            inconclusive: Some("1 of 2 planned cases reached the form".into()),
            ..Health::default()
        };
        let judged = report(&Target::stdio(["s"]), &steps, tally(), (health, aimed));
        assert!(!judged.passed);
        let verdicts: Vec<PropertyVerdict> = judged.properties.iter().map(|p| p.verdict).collect();
        assert!(!verdicts.contains(&PropertyVerdict::Holds), "{verdicts:?}");
        assert_eq!(verdicts[0], PropertyVerdict::Inconclusive);
        assert_eq!(verdicts[5], PropertyVerdict::Untested);
        assert_eq!(
            judged.property(1).and_then(|p| p.planned),
            Some(crate::verdict::check::health::PlannedCases {
                cases: 2,
                judged: 1
            })
        );
        let conclusive = report(&Target::stdio(["s"]), &steps, tally(), Default::default());
        assert!(conclusive.passed);
        assert_eq!(conclusive.properties[0].verdict, PropertyVerdict::Holds);
        assert_eq!(conclusive.property(1).and_then(|p| p.planned), None);
    }
}
