//! Planning the cases: the coverage phase's calls (one per coverage answer,
//! the same for every seed), the random case `I` of seed `S` (one RNG per
//! case, so `--seed S --case-index I` repeats it alone), the consenting valid
//! accepts the probe and the retries send, and which failures to keep: an
//! unshrunk failure per property, or per property the random case with the
//! smallest answers, to shrink after the stream.

use proptest::strategy::{BoxedStrategy, Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{Map, Value};

use super::case_run::{CaseRun, Step};
use super::outcome::PropertyFailure;
use super::shrink::failure_of;
use super::target::Target;
use crate::oracle::property::Property;
use crate::schema::answer::GeneratedAnswer;
use crate::schema::coverage::{self, accept};

/// One planned call of the coverage or random phase.
pub(super) struct Planned {
    /// `coverage N` or `case N`.
    pub(super) label: String,
    /// One answer per request.
    pub(super) plan: Vec<GeneratedAnswer>,
    /// The random case's index (none for a coverage case).
    pub(super) random: Option<usize>,
}

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

/// Keeps a failure (unshrunk) of every property `run` breaks that has none yet.
pub(super) fn note_failures(
    target: &Target,
    failures: &mut Vec<(Property, PropertyFailure)>,
    run: &CaseRun,
    seed: u64,
) {
    for (property, reason) in run.violations(target) {
        if !failures.iter().any(|(known, _)| *known == property) {
            failures.push((
                property,
                failure_of(target, reason, run, None, 0, false, seed),
            ));
        }
    }
}

/// The coverage phase's calls: for each request in turn, each of its coverage
/// answers, every other request answered with its base (the base itself
/// once, for the first request only).
pub(super) fn coverage_plans(steps: &[Step], bases: &[Map<String, Value>]) -> Vec<Planned> {
    let base_answer = |index: usize| GeneratedAnswer {
        answer: accept(&bases[index]),
        built_as: coverage::VALID.to_owned(),
    };
    let mut planned = Vec::new();
    for (index, step) in steps.iter().enumerate() {
        let answers = coverage::coverage_answers(&step.form, &bases[index]);
        for answer in answers.into_iter().skip(usize::from(index > 0)) {
            let mut plan: Vec<GeneratedAnswer> = (0..steps.len()).map(base_answer).collect();
            plan[index] = answer;
            planned.push(Planned {
                label: format!("coverage {}", planned.len()),
                plan,
                random: None,
            });
        }
    }
    planned
}

/// The case strategy's tree for case `index` of `seed` (one RNG per case, so a
/// case can be repeated alone with `--seed S --case-index I`).
pub(super) fn new_tree(
    strategy: &Vec<BoxedStrategy<GeneratedAnswer>>,
    seed: u64,
    index: usize,
) -> Box<dyn ValueTree<Value = Vec<GeneratedAnswer>>> {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8..16].copy_from_slice(&(index as u64).to_le_bytes());
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
    );
    Box::new(
        strategy
            .new_tree(&mut runner)
            .expect("answer strategies never reject"),
    )
}

/// One consenting valid accept per request, of `contents` (the probe's
/// candidates, or the bases the tool acted on).
pub(super) fn consenting_plan(contents: &[Map<String, Value>]) -> Vec<GeneratedAnswer> {
    contents
        .iter()
        .map(|content| GeneratedAnswer {
            answer: accept(content),
            built_as: coverage::VALID.to_owned(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn plan(answer: Value) -> Vec<GeneratedAnswer> {
        vec![GeneratedAnswer {
            answer,
            built_as: String::new(),
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
