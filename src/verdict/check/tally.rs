//! What `check` counts over its calls for the property lines: how many calls
//! each property applied to, the valid calls (for property 3 and the consent
//! fields), and the findings of properties 1 and 2 (each answer class the tool
//! acted on, how often, and its smallest answer).

use serde::Serialize;
use serde_json::{Value, json};

use crate::oracle::consent::ValidCall;
use crate::oracle::property::{Class, Property};
use crate::schema::answer::{Built, GeneratedAnswer};

/// The class of a lenient accept's traits: their text without the numbers
/// in it (`whole float 3.0 for integer `units`` is of class `whole float for
/// integer `units``), so one warning speaks for every value.
pub fn lenient_class(traits: &[String]) -> String {
    traits
        .iter()
        .map(|each| {
            each.split(' ')
                .filter(|word| word.parse::<f64>().is_err())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("; ")
}

impl Tally {
    /// The warnings of property 2 for lenient accepts acted on, one per
    /// class: `acted on whole float for integer `units`: 4 of 4, e.g. {..}:
    /// valid JSON Schema, refused by strict servers`.
    pub fn lenient_warnings(&self) -> Vec<String> {
        self.lenient
            .iter()
            .filter(|finding| finding.acted > 0)
            .map(|finding| {
                format!(
                    "acted on {}: {} of {}, e.g. {}: valid JSON Schema, refused by strict servers",
                    finding.answer_class, finding.acted, finding.of, finding.smallest
                )
            })
            .collect()
    }
}

/// One answer class a property failed on: `acted` of `of` calls that sent an
/// answer built this way acted, and the smallest such answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassFinding {
    /// How the answer was built, e.g. ``accept: "NaN" for number `amount` ``.
    pub answer_class: String,
    /// Calls with such an answer that acted.
    pub acted: usize,
    /// Calls with such an answer.
    pub of: usize,
    /// The shortest such answer (as compact JSON) that the tool acted on.
    pub smallest: Value,
}

/// A valid call the tool refused: the call, its last answer, and what it left.
#[derive(Debug, Clone)]
pub struct Refused {
    /// The answer of the call's last request, as sent.
    pub answer: Value,
    /// The tool's reply (`{"result": ..}` or `{"error": ..}`).
    pub reply: Value,
    /// The server's stderr in that call's run.
    pub stderr: String,
}

/// Counts over the calls of a check.
#[derive(Debug, Default)]
pub struct Tally {
    /// Calls made (probe, cases, capability sessions).
    pub sessions: usize,
    /// Calls in the capability sessions (property 4).
    pub capability_sessions: usize,
    /// Calls with a decline or cancel answer (property 1).
    pub with_refusal: usize,
    /// Calls with an invalid or near-miss answer and no refusal (property 2).
    pub with_invalid: usize,
    /// Calls with a reply whose acted value was read (property 6).
    pub acted_readings: usize,
    /// Every call whose every answer was a valid accept (property 3).
    pub valid: Vec<ValidCall>,
    /// The refused ones among them, in the same order as their `valid` entries
    /// with `acted == false`.
    pub refused: Vec<Refused>,
    /// Per class of lenient accept (the traits without their numbers: `whole
    /// float for integer `units``), how many calls carried one, how many
    /// acted, and the shortest acted on (warnings of property 2).
    pub lenient: Vec<ClassFinding>,
    /// Generated invalid answers the judge called valid.
    pub reclassified: usize,
    /// Calls in which no answer could come (property 7).
    pub unanswered: usize,
    /// Calls whose valid accept did not carry a declared consent value
    /// (`--consent`; property 7).
    pub withheld_consent: usize,
    /// Calls in which the server asked a form again after an answer (a
    /// re-ask): only the last answer to each form is judged.
    pub reasked: usize,
    /// The client capabilities of each such call that acted, once each.
    pub unanswered_acted: Vec<Value>,
    /// Calls declined after a valid accept was planted in another session
    /// (Streamable HTTP; property 7).
    pub cross_session: usize,
    /// Property 8's retries that ran (2026-07-28).
    pub state_retries: usize,
    /// The retry forms the server gave no opening for: the property, the form
    /// and why (`the server sent no requestState`).
    pub not_exercised: Vec<(Property, String)>,
    /// Per property 1, 2 and 8, each answer class (or retry form) met, in
    /// first-seen order.
    findings: Vec<(Property, ClassFinding)>,
}

/// What one call sent and how it ended, as the tally reads it.
#[derive(Debug, Clone, Copy)]
pub struct CallSummary<'a> {
    /// Each answer sent with its class and how it was built.
    pub sent: &'a [crate::oracle::property::SentAnswer],
    /// Whether the call counts as acted.
    pub acted: bool,
    /// Whether `acted` says something of this call: the tool replied (a
    /// result or a JSON-RPC error), or `--acted-cmd` read the world after
    /// it. A call with neither (its server died in it, it waited out
    /// `--call-timeout`) counts for no property but 5, which it fails: its
    /// acting is unknown (no decline it kept, no valid accept it refused, no
    /// lenient class).
    pub read: bool,
    /// The tool's reply.
    pub reply: &'a Value,
    /// The server's stderr.
    pub stderr: &'a str,
    /// The capabilities the client declared.
    pub capabilities: &'a Value,
    /// The consent fields declared with `--consent`.
    pub consent: &'a [crate::oracle::consent::DeclaredConsent],
}

impl Tally {
    /// Counts one call; `plan` is what was planned for it (for the count of
    /// reclassified answers).
    ///
    /// Only the answers the action is attributed to are judged
    /// ([`crate::oracle::property::judged`]: the last answer to each form, a
    /// re-ask superseding the earlier ones; URL completions left out).
    ///
    /// A call without an acted reading ([`CallSummary::read`]) counts as a
    /// session only (property 5): whether it acted is unknown, so it is no
    /// evidence that any property reading the act holds or fails.
    pub fn add(&mut self, call: CallSummary<'_>, plan: &[GeneratedAnswer]) {
        self.sessions += 1;
        let judged = crate::oracle::property::judged(call.sent);
        self.reasked += usize::from(crate::oracle::property::superseded(call.sent) > 0);
        for (sent, planned) in call.sent.iter().zip(plan) {
            if planned.built == Built::Mutated && sent.class == Class::ValidAccept {
                self.reclassified += 1;
            }
        }
        if !call.read {
            return;
        }
        let refusal = judged
            .iter()
            .copied()
            .find(|sent| matches!(sent.class, Class::Refusal(_)));
        let invalid = judged
            .iter()
            .copied()
            .find(|sent| matches!(sent.class, Class::InvalidAccept(_) | Class::NearMiss(_)));
        self.with_refusal += usize::from(refusal.is_some());
        self.with_invalid += usize::from(invalid.is_some() && refusal.is_none());
        match (refusal, invalid) {
            (Some(answer), _) => self.found(Property::NoActOnRefusal, answer, call.acted),
            (None, Some(answer)) => self.found(Property::NoActOnInvalid, answer, call.acted),
            (None, None) => {}
        }
        if call.reply.get("result").is_some() || call.reply.get("error").is_some() {
            self.acted_readings += 1;
        }
        if crate::oracle::property::unanswered(call.sent) {
            self.unanswered += 1;
            if call.acted && !self.unanswered_acted.contains(call.capabilities) {
                self.unanswered_acted.push(call.capabilities.clone());
            }
        }
        if refusal.is_none()
            && invalid.is_none()
            && crate::oracle::property::withheld_consent(&judged, call.consent).is_some()
        {
            self.withheld_consent += 1;
        }
        let all_valid =
            !judged.is_empty() && judged.iter().all(|sent| sent.class == Class::ValidAccept);
        // No answer at all: nothing lenient to list (the loop below is empty).
        let all_accepted = judged
            .iter()
            .all(|sent| matches!(sent.class, Class::ValidAccept | Class::LenientAccept(_)));
        if all_valid {
            self.valid.push(ValidCall {
                // An accept without content to a form that requires nothing is `{}`.
                contents: judged
                    .iter()
                    .map(|sent| sent.answer.get("content").cloned().unwrap_or(json!({})))
                    .collect(),
                acted: call.acted,
            });
            if !call.acted
                && let Some(last) = judged.last()
            {
                self.refused.push(Refused {
                    answer: last.answer.clone(),
                    reply: call.reply.clone(),
                    stderr: call.stderr.to_owned(),
                });
            }
        } else if all_accepted {
            // Lenient accepts, grouped by class (and by step, in a planned
            // case of several steps, as the findings are): how many acted of
            // how many.
            let steps = plan.len();
            for (step, sent) in judged.iter().enumerate() {
                if let Class::LenientAccept(traits) = &sent.class {
                    let class = if steps > 1 {
                        format!("step {} of {steps}: {}", step + 1, lenient_class(traits))
                    } else {
                        lenient_class(traits)
                    };
                    let at = self
                        .lenient
                        .iter()
                        .position(|known| known.answer_class == class)
                        .unwrap_or_else(|| {
                            self.lenient.push(ClassFinding {
                                answer_class: class,
                                acted: 0,
                                of: 0,
                                smallest: Value::Null,
                            });
                            self.lenient.len() - 1
                        });
                    let finding = &mut self.lenient[at];
                    finding.of += 1;
                    if call.acted {
                        finding.acted += 1;
                        let shorter = finding.smallest.is_null()
                            || sent.answer.to_string().len() < finding.smallest.to_string().len();
                        if shorter {
                            finding.smallest = sent.answer.clone();
                        }
                    }
                }
            }
        }
    }

    /// Counts one call whose `answer` is the one `property` judges.
    fn found(
        &mut self,
        property: Property,
        answer: &crate::oracle::property::SentAnswer,
        acted: bool,
    ) {
        let at = self.findings.iter().position(|(known, finding)| {
            *known == property && finding.answer_class == answer.built_as
        });
        let at = at.unwrap_or_else(|| {
            self.findings.push((
                property,
                ClassFinding {
                    answer_class: answer.built_as.clone(),
                    acted: 0,
                    of: 0,
                    smallest: Value::Null,
                },
            ));
            self.findings.len() - 1
        });
        let finding = &mut self.findings[at].1;
        finding.of += 1;
        if acted {
            finding.acted += 1;
            let shorter = finding.smallest.is_null()
                || answer.answer.to_string().len() < finding.smallest.to_string().len();
            if shorter {
                finding.smallest = answer.answer.clone();
            }
        }
    }

    /// The answer classes `property` was found acting on, in first-seen order.
    pub fn findings(&self, property: Property) -> Vec<ClassFinding> {
        self.findings
            .iter()
            .filter(|(known, finding)| *known == property && finding.acted > 0)
            .map(|(_, finding)| finding.clone())
            .collect()
    }

    /// Counts one retry of property 8: the form it sent (`a tampered
    /// requestState ...`), whether the tool acted, the answer it carried.
    pub fn state_retry(&mut self, form: &str, acted: bool, answer: Value) {
        self.state_retries += 1;
        self.findings.push((
            Property::StateVerified,
            ClassFinding {
                answer_class: form.to_owned(),
                acted: usize::from(acted),
                of: 1,
                smallest: answer,
            },
        ));
    }

    /// Valid calls that acted.
    pub fn valid_acted(&self) -> usize {
        self.valid.iter().filter(|call| call.acted).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::property::SentAnswer;
    use crate::schema::coverage::VALID;
    use serde_json::json;

    fn sent(answer: Value, class: Class, built_as: &str) -> SentAnswer {
        SentAnswer {
            requested_schema: json!({}),
            answer,
            class,
            built_as: built_as.to_owned(),
        }
    }

    /// `answer` as the answer to the form of step `number` (a form of its own).
    fn at_step(mut answer: SentAnswer, number: u32) -> SentAnswer {
        answer.requested_schema = json!({"title": format!("step {number}")});
        answer
    }

    fn add(tally: &mut Tally, answers: &[SentAnswer], acted: bool) {
        tally.add(
            CallSummary {
                sent: answers,
                acted,
                read: true,
                reply: &json!({"result": {}}),
                stderr: "",
                capabilities: &json!({"elicitation": {"form": {}}}),
                consent: &[],
            },
            &[],
        );
    }

    #[test]
    fn findings_count_each_answer_class_and_keep_its_smallest_acted_answer() {
        let mut tally = Tally::default();
        let nan = "accept: \"NaN\" for number `amount`";
        let long = json!({"action": "accept", "content": {"amount": "NaN", "note": "long note"}});
        let short = json!({"action": "accept", "content": {"amount": "NaN"}});
        let invalid =
            |answer: &Value| sent(answer.clone(), Class::InvalidAccept(vec!["x".into()]), nan);
        add(&mut tally, &[invalid(&long)], true);
        add(&mut tally, &[invalid(&short)], true);
        add(&mut tally, &[invalid(&long)], false);
        let decline = sent(
            json!({"action": "decline"}),
            Class::Refusal("decline".into()),
            "decline",
        );
        add(&mut tally, std::slice::from_ref(&decline), false);
        let with_content = sent(
            json!({"action": "decline", "content": {"amount": 1}}),
            Class::Refusal("decline".into()),
            "decline with content",
        );
        add(&mut tally, &[with_content], true);
        assert_eq!(
            tally.findings(Property::NoActOnInvalid),
            vec![ClassFinding {
                answer_class: nan.into(),
                acted: 2,
                of: 3,
                smallest: short.clone()
            }]
        );
        // `decline` never acted: not a finding; the one with content is.
        assert_eq!(
            tally.findings(Property::NoActOnRefusal),
            vec![ClassFinding {
                answer_class: "decline with content".into(),
                acted: 1,
                of: 1,
                smallest: json!({"action": "decline", "content": {"amount": 1}})
            }]
        );
        // Of two acted answers of the same length, the first met stays.
        let mut same = Tally::default();
        let first = json!({"action": "accept", "content": {"amount": "NaN"}});
        let second = json!({"action": "accept", "content": {"amount": "nan"}});
        add(&mut same, &[invalid(&first)], true);
        add(&mut same, &[invalid(&second)], true);
        assert_eq!(same.findings(Property::NoActOnInvalid)[0].smallest, first);
        assert_eq!(tally.with_refusal, 2);
        assert_eq!(tally.with_invalid, 3);
        // A refusal beside an invalid accept counts for property 1 only.
        add(&mut tally, &[invalid(&short), decline], true);
        assert_eq!(tally.with_invalid, 3);
        assert_eq!(
            tally.findings(Property::NoActOnRefusal)[0].answer_class,
            "decline"
        );
    }

    #[test]
    fn valid_calls_are_kept_with_their_contents_and_refusals_with_their_reply() {
        let mut tally = Tally::default();
        let yes = json!({"action": "accept", "content": {"confirm": true}});
        let no = json!({"action": "accept", "content": {"confirm": false}});
        add(&mut tally, &[sent(yes, Class::ValidAccept, VALID)], true);
        add(
            &mut tally,
            &[sent(no.clone(), Class::ValidAccept, VALID)],
            false,
        );
        add(&mut tally, &[], false);
        assert_eq!(
            tally.valid,
            vec![
                ValidCall {
                    contents: vec![json!({"confirm": true})],
                    acted: true
                },
                ValidCall {
                    contents: vec![json!({"confirm": false})],
                    acted: false
                },
            ]
        );
        assert_eq!(tally.valid_acted(), 1);
        assert_eq!(tally.refused.len(), 1);
        assert_eq!(tally.refused[0].answer, no);
        assert_eq!(tally.refused[0].reply, json!({"result": {}}));
        assert_eq!(tally.sessions, 3);
        assert_eq!(tally.acted_readings, 3);
    }

    /// In a planned case of several steps, a lenient accept's class names
    /// its step, as a finding's answer class does: the same leniency at two
    /// steps is two warnings. A case of one step names none.
    #[test]
    fn a_lenient_accept_of_a_multi_step_case_is_grouped_by_its_step() {
        let lenient = sent(
            json!({"action": "accept", "content": {"a": 1, "b": 2}}),
            Class::LenientAccept(vec!["extra key `b` the schema does not name".into()]),
            "accept: extra key `b`",
        );
        let valid = sent(
            json!({"action": "accept", "content": {"a": 1}}),
            Class::ValidAccept,
            VALID,
        );
        let planned = |count: usize| {
            vec![
                GeneratedAnswer {
                    answer: json!({}),
                    built_as: VALID.to_owned(),
                    built: Built::Valid,
                };
                count
            ]
        };
        let summary = |sent| CallSummary {
            sent,
            acted: true,
            read: true,
            reply: &Value::Null,
            stderr: "",
            capabilities: &Value::Null,
            consent: &[],
        };
        let mut tally = Tally::default();
        let second = [at_step(valid.clone(), 1), at_step(lenient.clone(), 2)];
        tally.add(summary(&second), &planned(2));
        let first = [at_step(lenient.clone(), 1), at_step(valid, 2)];
        tally.add(summary(&first), &planned(2));
        tally.add(summary(&first), &planned(2));
        tally.add(summary(std::slice::from_ref(&lenient)), &planned(1));
        let classes: Vec<(&str, usize)> = tally
            .lenient
            .iter()
            .map(|finding| (finding.answer_class.as_str(), finding.of))
            .collect();
        assert_eq!(
            classes,
            vec![
                ("step 2 of 2: extra key `b` the schema does not name", 1),
                ("step 1 of 2: extra key `b` the schema does not name", 2),
                ("extra key `b` the schema does not name", 1),
            ]
        );
    }

    /// A call whose acting is unknown (no reply, no `--acted-cmd`) counts as
    /// a session only: no decline or invalid accept kept, no valid accept
    /// refused, no lenient accept, no call asked nothing; a call that was
    /// read counts, whatever its reply.
    #[test]
    fn a_call_without_an_acted_reading_counts_for_no_property_but_5() {
        let valid = [sent(
            json!({"action": "accept", "content": {"confirm": true}}),
            Class::ValidAccept,
            VALID,
        )];
        let lenient = [sent(
            json!({"action": "accept", "content": {"confirm": "true"}}),
            Class::LenientAccept(vec!["string for boolean `confirm`".into()]),
            "string for boolean",
        )];
        let decline = [sent(
            json!({"action": "decline"}),
            Class::Refusal("decline".into()),
            "decline",
        )];
        let invalid = [sent(
            json!({"action": "accept", "content": {"confirm": 3}}),
            Class::InvalidAccept(vec!["/confirm: 3 is not a boolean".into()]),
            "accept: a number",
        )];
        let mut tally = Tally::default();
        let unread: [&[SentAnswer]; 5] = [&valid, &lenient, &decline, &invalid, &[]];
        for (sent, read) in unread
            .into_iter()
            .map(|sent| (sent, false))
            .chain([(&valid[..], true)])
        {
            tally.add(
                CallSummary {
                    sent,
                    acted: false,
                    read,
                    reply: &json!({}),
                    stderr: "",
                    capabilities: &json!({"elicitation": {"form": {}}}),
                    consent: &[],
                },
                &[],
            );
        }
        assert_eq!(
            tally.valid,
            vec![ValidCall {
                contents: vec![json!({"confirm": true})],
                acted: false
            }]
        );
        assert_eq!(tally.refused.len(), 1);
        assert!(tally.lenient.is_empty(), "{:?}", tally.lenient);
        assert_eq!(
            (tally.with_refusal, tally.with_invalid, tally.unanswered),
            (0, 0, 0)
        );
        assert!(tally.findings.is_empty(), "{:?}", tally.findings);
        assert_eq!(tally.sessions, 6);
    }

    #[test]
    fn calls_no_answer_could_come_to_are_counted_and_their_capabilities_kept_once() {
        let mut tally = Tally::default();
        let none = json!({});
        let url = json!({"elicitation": {"url": {}}});
        fn call<'a>(
            sent: &'a [SentAnswer],
            acted: bool,
            capabilities: &'a Value,
        ) -> CallSummary<'a> {
            CallSummary {
                sent,
                acted,
                read: true,
                reply: &Value::Null,
                stderr: "",
                capabilities,
                consent: &[],
            }
        }
        let error = [sent(
            json!({"code": -32602}),
            Class::Error,
            "form not declared",
        )];
        tally.add(call(&[], true, &none), &[]);
        tally.add(call(&[], true, &none), &[]);
        tally.add(call(&error, false, &url), &[]);
        tally.add(call(&error, true, &url), &[]);
        let answered = [sent(
            json!({"action": "cancel"}),
            Class::Refusal("cancel".into()),
            "cancel",
        )];
        tally.add(call(&answered, true, &url), &[]);
        assert_eq!(tally.unanswered, 4);
        assert_eq!(tally.unanswered_acted, vec![none.clone(), url.clone()]);
    }

    #[test]
    fn lenient_accepts_are_grouped_by_class_with_how_many_acted_and_the_shortest_one() {
        let mut tally = Tally::default();
        let lenient = |n: u32, note: &str| {
            sent(
                json!({"action": "accept", "content": {"a": n, "note": note}}),
                Class::LenientAccept(vec!["extra key `note` the schema does not name".into()]),
                "accept: extra key `note`",
            )
        };
        let float = |value: f64| {
            sent(
                json!({"action": "accept", "content": {"a": value}}),
                Class::LenientAccept(vec![format!("whole float {value:.1} for integer `a`")]),
                "accept: whole float",
            )
        };
        let invalid = sent(
            json!({"action": "accept", "content": {"a": "x"}}),
            Class::InvalidAccept(vec!["/a: x".into()]),
            "accept: a string",
        );
        // Beside an invalid answer, the call is property 2's, not a warning.
        add(&mut tally, &[lenient(0, "x"), at_step(invalid, 2)], true);
        assert!(tally.lenient_warnings().is_empty());
        // Not acted on: counted, nothing to warn about.
        add(&mut tally, &[lenient(0, "long note")], false);
        assert!(tally.lenient_warnings().is_empty());
        for n in 1..=4 {
            add(
                &mut tally,
                &[
                    lenient(n, "long note"),
                    at_step(sent(json!({}), Class::ValidAccept, VALID), 2),
                ],
                true,
            );
        }
        add(&mut tally, &[lenient(9, "x")], true);
        // As short as the shortest: the first one seen stays the example.
        add(&mut tally, &[lenient(8, "y")], true);
        add(&mut tally, &[float(3.0)], true);
        add(&mut tally, &[float(12.0)], false);
        assert_eq!(
            tally.lenient_warnings(),
            vec![
                "acted on extra key `note` the schema does not name: 6 of 7, e.g. {\"action\":\"accept\",\"content\":{\"a\":9,\"note\":\"x\"}}: valid JSON Schema, refused by strict servers".to_owned(),
                "acted on whole float for integer `a`: 1 of 2, e.g. {\"action\":\"accept\",\"content\":{\"a\":3.0}}: valid JSON Schema, refused by strict servers".to_owned(),
            ]
        );
        assert_eq!(
            lenient_class(&[
                "whole float 3.0 for integer `a`".into(),
                "extra key `b`".into()
            ]),
            "whole float for integer `a`; extra key `b`"
        );
    }

    #[test]
    fn an_invalid_built_answer_the_judge_calls_valid_is_reclassified() {
        let mut tally = Tally::default();
        let answer = json!({"action": "accept", "content": {"a": 1}});
        let plan = |built_as: &str, built: Built| {
            vec![GeneratedAnswer {
                answer: answer.clone(),
                built_as: built_as.to_owned(),
                built,
            }]
        };
        let call = [sent(answer.clone(), Class::ValidAccept, "")];
        let summary = CallSummary {
            sent: &call,
            acted: true,
            read: true,
            reply: &Value::Null,
            stderr: "",
            capabilities: &Value::Null,
            consent: &[],
        };
        for (built_as, built) in [
            (VALID, Built::Valid),
            ("accept: valid content, `confirm` false", Built::Valid),
            ("accept: extra key `note`", Built::Lenient),
            ("accept: whole float 1.0 for integer `a`", Built::Lenient),
            ("decline", Built::Refusal),
            (
                "near-miss action \"Accept\" with valid content",
                Built::NearMissAction,
            ),
            ("accept with empty content {}", Built::ContentShape),
            ("the answer given with --answer", Built::Given),
        ] {
            tally.add(summary, &plan(built_as, built));
        }
        assert_eq!(tally.reclassified, 0);
        tally.add(
            summary,
            &plan("accept: 15 above maximum 14 for `a`", Built::Mutated),
        );
        assert_eq!(tally.reclassified, 1);
        // The answer to a later step of a multi-step tool is named by its step;
        // what it was built to be does not change.
        tally.add(
            summary,
            &plan(
                "step 2 of 2: accept: 15 above maximum 14 for `a`",
                Built::Mutated,
            ),
        );
        assert_eq!(tally.reclassified, 2);
        assert_eq!(tally.acted_readings, 0);
    }

    #[test]
    fn a_re_asked_call_is_counted_and_judged_on_its_last_answer() {
        let mut tally = Tally::default();
        let invalid = sent(
            json!({"action": "accept", "content": {"a": "x"}}),
            Class::InvalidAccept(vec!["/a: x".into()]),
            "accept: a string",
        );
        let valid = sent(
            json!({"action": "accept", "content": {"a": 1}}),
            Class::ValidAccept,
            VALID,
        );
        add(&mut tally, &[invalid.clone(), valid.clone()], true);
        assert_eq!(tally.reasked, 1);
        assert_eq!(tally.with_invalid, 0);
        assert_eq!(tally.valid_acted(), 1);
        assert_eq!(tally.valid[0].contents, vec![json!({"a": 1})]);
        add(&mut tally, &[invalid, at_step(valid, 2)], true);
        assert_eq!(tally.reasked, 1);
        assert_eq!(tally.with_invalid, 1);
        // An accept without content to a form that requires nothing is `{}`.
        let bare = sent(json!({"action": "accept"}), Class::ValidAccept, VALID);
        add(&mut tally, &[bare], true);
        assert_eq!(tally.valid[1].contents, vec![json!({})]);
    }

    #[test]
    fn valid_calls_that_withhold_a_declared_consent_are_counted_for_property_7() {
        let consent = [crate::oracle::consent::DeclaredConsent {
            name: "confirm".into(),
            value: json!(true),
        }];
        let form = json!({"type": "object", "properties": {"confirm": {"type": "boolean"}}});
        let answer = |confirm: bool, class: Class| SentAnswer {
            requested_schema: form.clone(),
            answer: json!({"action": "accept", "content": {"confirm": confirm}}),
            class,
            built_as: VALID.to_owned(),
        };
        let summary = |sent: &[SentAnswer]| {
            let mut call = CallSummary {
                sent: &[],
                acted: false,
                read: true,
                reply: &Value::Null,
                stderr: "",
                capabilities: &Value::Null,
                consent: &consent,
            };
            call.sent = sent;
            tally_of(call)
        };
        fn tally_of(call: CallSummary<'_>) -> usize {
            let mut tally = Tally::default();
            tally.add(call, &[]);
            tally.withheld_consent
        }
        assert_eq!(summary(&[answer(false, Class::ValidAccept)]), 1);
        assert_eq!(summary(&[answer(true, Class::ValidAccept)]), 0);
        assert_eq!(
            summary(&[answer(false, Class::InvalidAccept(vec!["x".into()]))]),
            0
        );
        assert_eq!(
            summary(&[answer(false, Class::Refusal("decline".into()))]),
            0
        );
    }
}
