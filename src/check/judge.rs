//! The properties' judgement of the calls a check collected, phase by phase:
//! each call's violations ([`crate::oracle::property::violations`]), the
//! tally the property lines read, the first failure of each property, and per
//! property the random case with the smallest answers, to shrink once the
//! cases have run (as proptest would; a coverage failure is minimal already).
//!
//! The job (`super`) runs the calls and hands each finished one here, in
//! order; nothing here starts a server.

use serde_json::Value;

use super::case_run::{CaseRun, record};
use super::cross_session;
use super::plan::Planned;
use super::retry;
use crate::harness::cross_session::PlantedSession;
use crate::oracle::property::Property;
use crate::schema::answer::GeneratedAnswer;
use crate::targets::target::Target;
use crate::verdict::check::case_record::CaseRecord;
use crate::verdict::check::failure::{failure_of, in_session};
use crate::verdict::check::health::{Aimed, Seen};
use crate::verdict::check::outcome::PropertyFailure;
use crate::verdict::check::reproduction::{base_command, join_command};
use crate::verdict::check::tally::Tally;

/// The random case to shrink a property's failure from: the smallest seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Smallest {
    /// The property it broke.
    pub(super) property: Property,
    /// The random case's index.
    pub(super) index: usize,
    /// The length of its answers as compact JSON.
    pub(super) size: usize,
}

/// The judgement so far of one check's calls.
pub(super) struct Judge<'t> {
    target: &'t Target,
    seed: u64,
    /// What the property lines count.
    pub(super) tally: Tally,
    /// The first failure of each property, in the order they were found.
    pub(super) failures: Vec<(Property, PropertyFailure)>,
    /// Per property a random case broke (and no earlier call did): the case
    /// with the smallest answers.
    to_shrink: Vec<Smallest>,
    /// Retry forms of property 7 judged (2026-07-28).
    pub(super) retry_calls: usize,
    /// The calls declaring form elicitation, in order, as health reads them.
    pub(super) seen: Vec<Seen>,
    /// Per property, the planned cases aimed at it.
    pub(super) aimed: Aimed,
    /// Calls whose server never reached the tool: `LABEL: WHY`.
    pub(super) never_reached_tool: Vec<String>,
    /// Calls before which `--acted-cmd` already said acted, by label.
    pub(super) acted_before_call: Vec<String>,
    /// Random cases that ran.
    pub(super) random_cases: usize,
}

impl<'t> Judge<'t> {
    /// No call judged yet, for `target`'s check under `seed`.
    pub(super) fn new(target: &'t Target, seed: u64) -> Self {
        Judge {
            target,
            seed,
            tally: Tally::default(),
            failures: Vec::new(),
            to_shrink: Vec::new(),
            retry_calls: 0,
            seen: Vec::new(),
            aimed: Aimed::default(),
            never_reached_tool: Vec::new(),
            acted_before_call: Vec::new(),
            random_cases: 0,
        }
    }

    /// Whether `run` can be judged; when it cannot, it is noted and counts
    /// for no property: it never reached the tool (its server died at
    /// start-up, its handshake failed), or `--acted-cmd` already said acted
    /// before the call.
    fn reached_tool(&mut self, label: &str, run: &CaseRun) -> bool {
        if !run.reached_tool() {
            let why = run
                .call_failure
                .as_ref()
                .map_or_else(|| "no tools/call was sent".to_owned(), ToString::to_string);
            self.never_reached_tool.push(format!("{label}: {why}"));
            return false;
        }
        if run.acted_before {
            self.acted_before_call.push(label.to_owned());
            return false;
        }
        true
    }

    /// The properties a call has broken so far (session mode re-runs a case
    /// fresh only for a property not among them).
    pub(super) fn confirmed(&self) -> Vec<Property> {
        self.failures.iter().map(|(known, _)| *known).collect()
    }

    /// A call of the probe, labelled `label`: counted like any case.
    pub(super) fn probe_call(&mut self, label: &str, run: &CaseRun) {
        if !self.reached_tool(label, run) {
            return;
        }
        self.seen
            .push(Seen::of(label, (false, false), run, &self.target.acted));
        self.tally.add(run.summary(self.target), &[]);
        self.note_failures(run);
    }

    /// A planned case left unrun (too many before it never reached the
    /// form), aimed at `aims`.
    pub(super) fn not_run(&mut self, aims: Option<Property>) {
        self.aimed.add(aims, false);
    }

    /// A coverage or random case (`planned`, aimed at `aims`) and its run: a
    /// coverage case's failure is kept as it is, a random case's is noted to
    /// shrink.
    pub(super) fn case(
        &mut self,
        planned: &Planned,
        aims: Option<Property>,
        run: &CaseRun,
        log: &mut dyn FnMut(CaseRecord),
    ) {
        self.random_cases += usize::from(planned.random.is_some());
        self.aimed.add(
            aims,
            run.reached_form() && run.has_reading(&self.target.acted),
        );
        self.seen.push(Seen::of(
            &planned.label,
            (true, planned.base),
            run,
            &self.target.acted,
        ));
        if !self.reached_tool(&planned.label, run) {
            log(record(planned.label.clone(), run, &[]));
            return;
        }
        let violations = run.violations(self.target);
        self.tally.add(run.summary(self.target), &planned.plan);
        log(record(planned.label.clone(), run, &violations));
        for (property, reason) in violations {
            if self.known(property) {
                continue;
            }
            if run.served_before > 0 {
                // Seen after earlier calls of its process: not shrunk alone.
                if !self.to_shrink.iter().any(|kept| kept.property == property) {
                    let failure = in_session(self.target, (property, reason), run, self.seed);
                    self.failures.push((property, failure));
                }
                continue;
            }
            match planned.random {
                Some(index) => note_smallest(&mut self.to_shrink, property, index, &planned.plan),
                None => self.failures.push((
                    property,
                    failure_of(
                        self.target,
                        (property, reason),
                        run,
                        None,
                        0,
                        false,
                        self.seed,
                    ),
                )),
            }
        }
    }

    /// The random cases to shrink, one per property, in the order the
    /// properties broke; each shrunk failure comes back through [`Judge::shrunk`].
    pub(super) fn take_to_shrink(&mut self) -> Vec<Smallest> {
        std::mem::take(&mut self.to_shrink)
    }

    /// A property's failure, shrunk.
    pub(super) fn shrunk(&mut self, property: Property, failure: PropertyFailure) {
        self.failures.push((property, failure));
    }

    /// The one case of `--answer` (its answers `plan`).
    pub(super) fn replay(
        &mut self,
        plan: &[GeneratedAnswer],
        run: &CaseRun,
        log: &mut dyn FnMut(CaseRecord),
    ) {
        if !self.reached_tool("replay", run) {
            log(record("replay".to_owned(), run, &[]));
            return;
        }
        let violations = run.violations(self.target);
        self.tally.add(run.summary(self.target), plan);
        log(record("replay".to_owned(), run, &violations));
        self.note_failures(run);
    }

    /// A session declaring `capabilities` other than form (property 4).
    pub(super) fn capability_session(
        &mut self,
        capabilities: &Value,
        run: &CaseRun,
        log: &mut dyn FnMut(CaseRecord),
    ) {
        let label = format!("capabilities {capabilities}");
        if !self.reached_tool(&label, run) {
            log(record(label, run, &[]));
            return;
        }
        let violations = run.violations(self.target);
        self.tally.add(run.summary(self.target), &[]);
        self.tally.capability_sessions += 1;
        log(record(label, run, &violations));
        self.note_failures(run);
    }

    /// A retry `form` of properties 7 and 8 (2026-07-28) and how it went.
    pub(super) fn retry(
        &mut self,
        form: retry::Form,
        outcome: retry::Outcome,
        log: &mut dyn FnMut(CaseRecord),
    ) {
        let run = match outcome {
            retry::Outcome::Ran(run) => run,
            retry::Outcome::NotExercised(why) => {
                self.tally.not_exercised.push((
                    form.property(),
                    format!("{}: not tried ({why})", form.describe()),
                ));
                return;
            }
        };
        let label = format!("retry: {}", form.describe());
        if !self.reached_tool(&label, &run) {
            log(record(label, &run, &[]));
            return;
        }
        let mut violations = run.violations(self.target);
        if form.property() == Property::StateVerified {
            // Only what the state did is judged here (a decline is in the
            // answers on purpose): the wire, and acting.
            violations.retain(|(property, _)| *property == Property::CleanWire);
            let answer = run
                .sent
                .last()
                .map_or(Value::Null, |sent| sent.answer.clone());
            self.tally
                .state_retry(form.describe(), run.reading.acted, answer);
            if run.reading.acted {
                violations.push((
                    Property::StateVerified,
                    format!("acted on {}", form.describe()),
                ));
            }
        } else {
            self.tally.add(run.summary(self.target), &[]);
            self.retry_calls += 1;
        }
        log(record(label, &run, &violations));
        self.note_repeated_failures(violations, &run);
    }

    /// A call declined in its own session after a valid accept was planted
    /// under `session` (Streamable HTTP, property 7): acting on it breaks
    /// property 7; only the wire is judged otherwise (the decline is on
    /// purpose, so property 1 does not speak for it).
    pub(super) fn cross_session(
        &mut self,
        session: PlantedSession,
        outcome: cross_session::Outcome,
        log: &mut dyn FnMut(CaseRecord),
    ) {
        let planted = cross_session::describe(session);
        let run = match outcome {
            cross_session::Outcome::Ran(run) => run,
            cross_session::Outcome::NotPlanted(why) => {
                self.tally.not_exercised.push((
                    Property::NoActWithoutAnswer,
                    format!("{planted}: not tried ({why})"),
                ));
                return;
            }
        };
        let label = format!("cross-session: {planted}");
        if !self.reached_tool(&label, &run) {
            log(record(label, &run, &[]));
            return;
        }
        let mut violations = run.violations(self.target);
        violations.retain(|(property, _)| *property == Property::CleanWire);
        self.tally.sessions += 1;
        self.tally.cross_session += 1;
        if run.reading.acted {
            violations.push((
                Property::NoActWithoutAnswer,
                format!("acted on {planted}, though its own session's answer was decline"),
            ));
        }
        log(record(label, &run, &violations));
        self.note_repeated_failures(violations, &run);
    }

    /// Keeps a failure of every property in `violations` that has none yet,
    /// for a call every check makes (the retry forms, the planted replies):
    /// the check itself repeats it, so its reproduction is the check's command.
    fn note_repeated_failures(&mut self, violations: Vec<(Property, String)>, run: &CaseRun) {
        for (property, reason) in violations {
            if !self.known(property) {
                let mut failure = failure_of(
                    self.target,
                    (property, reason),
                    run,
                    None,
                    0,
                    false,
                    self.seed,
                );
                failure.reproduce = join_command(&base_command(self.target), &self.target.command);
                self.failures.push((property, failure));
            }
        }
    }

    /// Whether `property` has a failure already.
    fn known(&self, property: Property) -> bool {
        self.failures.iter().any(|(known, _)| *known == property)
    }

    /// Keeps a failure (unshrunk) of every property `run` breaks that has none yet.
    fn note_failures(&mut self, run: &CaseRun) {
        for (property, reason) in run.violations(self.target) {
            if !self.known(property) {
                self.failures.push((
                    property,
                    failure_of(
                        self.target,
                        (property, reason),
                        run,
                        None,
                        0,
                        false,
                        self.seed,
                    ),
                ));
            }
        }
    }
}

/// Notes that random case `index`, whose answers are `plan`, broke `property`:
/// kept when it is the first case to, or its answers are shorter (as compact
/// JSON) than the kept case's; on a tie the earlier case stays.
pub(super) fn note_smallest(
    to_shrink: &mut Vec<Smallest>,
    property: Property,
    index: usize,
    plan: &[GeneratedAnswer],
) {
    let size = plan
        .iter()
        .map(|planned| planned.answer.to_string().len())
        .sum();
    match to_shrink.iter_mut().find(|kept| kept.property == property) {
        Some(kept) if size < kept.size => {
            kept.index = index;
            kept.size = size;
        }
        Some(_) => {}
        None => to_shrink.push(Smallest {
            property,
            index,
            size,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn plan(answer: Value) -> Vec<GeneratedAnswer> {
        vec![GeneratedAnswer {
            answer,
            built_as: String::new(),
            built: crate::schema::answer::Built::Given,
        }]
    }

    #[test]
    fn a_property_is_shrunk_from_its_smallest_failing_random_case() {
        let mut kept = Vec::new();
        let long = plan(json!({"action": "accept", "content": {"n": "12345"}}));
        let short = plan(json!({"action": "accept", "content": {"n": "1"}}));
        note_smallest(&mut kept, Property::NoActOnInvalid, 4, &long);
        note_smallest(&mut kept, Property::NoActOnRefusal, 5, &long);
        note_smallest(&mut kept, Property::NoActOnInvalid, 9, &short);
        // A tie keeps the earlier case; a longer one never replaces it.
        note_smallest(&mut kept, Property::NoActOnInvalid, 11, &short);
        note_smallest(&mut kept, Property::NoActOnInvalid, 12, &long);
        let size = |plan: &[GeneratedAnswer]| plan[0].answer.to_string().len();
        assert_eq!(
            kept,
            vec![
                Smallest {
                    property: Property::NoActOnInvalid,
                    index: 9,
                    size: size(&short)
                },
                Smallest {
                    property: Property::NoActOnRefusal,
                    index: 5,
                    size: size(&long)
                },
            ]
        );
    }
}
