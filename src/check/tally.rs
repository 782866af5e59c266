//! What `check` counts over its calls for the property lines: how many calls
//! each property applied to, the valid calls (for property 3 and the consent
//! fields), and the findings of properties 1 and 2 (each answer class the tool
//! acted on, how often, and its smallest answer).

use serde::Serialize;
use serde_json::Value;

use crate::oracle::consent::ValidCall;
use crate::oracle::property::{Class, Property};
use crate::schema::answer::GeneratedAnswer;
use crate::schema::coverage::VALID;

/// Most lenient accepts acted on that are listed as warnings.
pub const MAX_LENIENT_LISTED: usize = 5;

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
    /// Lenient accepts acted on (warnings of property 2).
    pub lenient_acted: Vec<String>,
    /// Generated invalid answers the judge called valid.
    pub reclassified: usize,
    /// Calls in which no answer could come (property 7).
    pub unanswered: usize,
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
    /// The tool's reply.
    pub reply: &'a Value,
    /// The server's stderr.
    pub stderr: &'a str,
    /// The capabilities the client declared.
    pub capabilities: &'a Value,
}

impl Tally {
    /// Counts one call; `plan` is what was planned for it (for the count of
    /// reclassified answers).
    pub fn add(&mut self, call: CallSummary<'_>, plan: &[GeneratedAnswer]) {
        self.sessions += 1;
        let sent = call.sent;
        let refusal = sent
            .iter()
            .find(|sent| matches!(sent.class, Class::Refusal(_)));
        let invalid = sent
            .iter()
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
        if crate::oracle::property::unanswered(sent) {
            self.unanswered += 1;
            if call.acted && !self.unanswered_acted.contains(call.capabilities) {
                self.unanswered_acted.push(call.capabilities.clone());
            }
        }
        let all_valid =
            !sent.is_empty() && sent.iter().all(|sent| sent.class == Class::ValidAccept);
        // No answer at all: nothing lenient to list (the loop below is empty).
        let all_accepted = sent
            .iter()
            .all(|sent| matches!(sent.class, Class::ValidAccept | Class::LenientAccept(_)));
        if all_valid {
            self.valid.push(ValidCall {
                contents: sent
                    .iter()
                    .map(|sent| sent.answer.get("content").cloned().unwrap_or(Value::Null))
                    .collect(),
                acted: call.acted,
            });
            if !call.acted
                && let Some(last) = sent.last()
            {
                self.refused.push(Refused {
                    answer: last.answer.clone(),
                    reply: call.reply.clone(),
                    stderr: call.stderr.to_owned(),
                });
            }
        } else if all_accepted && call.acted {
            for sent in sent {
                if let Class::LenientAccept(traits) = &sent.class
                    && self.lenient_acted.len() < MAX_LENIENT_LISTED
                {
                    let warning = format!(
                        "acted on {} ({}): valid JSON Schema, refused by strict servers",
                        sent.answer,
                        traits.join("; ")
                    );
                    if !self.lenient_acted.contains(&warning) {
                        self.lenient_acted.push(warning);
                    }
                }
            }
        }
        for (sent, planned) in sent.iter().zip(plan) {
            let built_invalid = planned.built_as.starts_with("accept: ")
                && !planned.built_as.starts_with(VALID)
                && !planned.built_as.contains("extra key")
                && !planned.built_as.contains("whole float");
            if built_invalid && sent.class == Class::ValidAccept {
                self.reclassified += 1;
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
    use serde_json::json;

    fn sent(answer: Value, class: Class, built_as: &str) -> SentAnswer {
        SentAnswer {
            requested_schema: json!({}),
            answer,
            class,
            built_as: built_as.to_owned(),
        }
    }

    fn add(tally: &mut Tally, answers: &[SentAnswer], acted: bool) {
        tally.add(
            CallSummary {
                sent: answers,
                acted,
                reply: &json!({"result": {}}),
                stderr: "",
                capabilities: &json!({"elicitation": {"form": {}}}),
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
                reply: &Value::Null,
                stderr: "",
                capabilities,
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
    fn lenient_accepts_acted_on_are_listed_only_beside_accepts_and_at_most_five() {
        let mut tally = Tally::default();
        let lenient = |n: u32| {
            sent(
                json!({"action": "accept", "content": {"a": n, "note": "x"}}),
                Class::LenientAccept(vec!["extra key `note` the schema does not name".into()]),
                "accept: extra key `note`",
            )
        };
        let invalid = sent(
            json!({"action": "accept", "content": {"a": "x"}}),
            Class::InvalidAccept(vec!["/a: x".into()]),
            "accept: a string",
        );
        // Beside an invalid answer, the call is property 2's, not a warning.
        add(&mut tally, &[lenient(0), invalid], true);
        assert!(tally.lenient_acted.is_empty());
        // Not acted on: nothing to warn about.
        add(&mut tally, &[lenient(0)], false);
        assert!(tally.lenient_acted.is_empty());
        for n in 1..=7 {
            add(
                &mut tally,
                &[lenient(n), sent(json!({}), Class::ValidAccept, VALID)],
                true,
            );
        }
        assert_eq!(tally.lenient_acted.len(), MAX_LENIENT_LISTED);
        assert_eq!(
            tally.lenient_acted[0],
            "acted on {\"action\":\"accept\",\"content\":{\"a\":1,\"note\":\"x\"}} (extra key `note` the schema does not name): valid JSON Schema, refused by strict servers"
        );
        // The same warning twice is listed once.
        let mut again = Tally::default();
        add(&mut again, &[lenient(1)], true);
        add(&mut again, &[lenient(1)], true);
        assert_eq!(again.lenient_acted.len(), 1);
    }

    #[test]
    fn an_invalid_built_answer_the_judge_calls_valid_is_reclassified() {
        let mut tally = Tally::default();
        let answer = json!({"action": "accept", "content": {"a": 1}});
        let plan = |built_as: &str| {
            vec![GeneratedAnswer {
                answer: answer.clone(),
                built_as: built_as.to_owned(),
            }]
        };
        let call = [sent(answer.clone(), Class::ValidAccept, "")];
        let summary = CallSummary {
            sent: &call,
            acted: true,
            reply: &Value::Null,
            stderr: "",
            capabilities: &Value::Null,
        };
        for built_as in [
            VALID,
            "accept: valid content, `confirm` false",
            "accept: extra key `note`",
            "accept: whole float 1.0 for integer `a`",
            "decline",
        ] {
            tally.add(summary, &plan(built_as));
        }
        assert_eq!(tally.reclassified, 0);
        tally.add(summary, &plan("accept: 15 above maximum 14 for `a`"));
        assert_eq!(tally.reclassified, 1);
        assert_eq!(tally.acted_readings, 0);
    }
}
