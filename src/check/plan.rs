//! Planning the cases: the coverage phase's calls (one per coverage answer,
//! the same for every seed), the random case `I` of seed `S` (one RNG per
//! case, so `--seed S --case-index I` repeats it alone), the answers of
//! `--answer`, and the consenting valid accepts the probe and the retries send.

use proptest::strategy::{BoxedStrategy, Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{Map, Value};

use super::case_run::Step;
use super::target::Target;
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

/// The calls of the coverage phase (none with `--case-index`), then the
/// random cases (`--cases` of them, or the one of `--case-index`), answering
/// `steps` by `strategy`.
pub(super) fn cases(
    target: &Target,
    steps: &[Step],
    bases: &[Map<String, Value>],
    strategy: &Vec<BoxedStrategy<GeneratedAnswer>>,
    seed: u64,
) -> Vec<Planned> {
    let mut planned = Vec::new();
    if target.case_index.is_none() {
        planned = coverage_plans(steps, bases);
    }
    let indices: Vec<usize> = match target.case_index {
        Some(index) => vec![index],
        None => (0..target.cases).collect(),
    };
    planned.extend(indices.into_iter().map(|index| Planned {
        label: format!("case {index}"),
        plan: new_tree(strategy, seed, index).current(),
        random: Some(index),
    }));
    planned
}

/// The answers of `--answer`, one per request, sent as given.
pub(super) fn replay(target: &Target) -> Vec<GeneratedAnswer> {
    target
        .replay
        .iter()
        .map(|answer| GeneratedAnswer {
            answer: answer.clone(),
            built_as: "the answer given with --answer".to_owned(),
        })
        .collect()
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
