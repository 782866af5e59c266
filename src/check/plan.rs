//! Planning the cases: the coverage phase's calls (one per coverage answer,
//! the same for every seed), the random case `I` of seed `S` (one RNG per
//! case, so `--seed S --case-index I` repeats it alone), the answers of
//! `--answer`, and the consenting valid accepts the probe and the retries send.

use proptest::strategy::{BoxedStrategy, Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{Map, Value};

use super::case_run::Step;
use super::progress::Phase;
use crate::oracle::property::{self, Class, Property};
use crate::schema::answer::{Built, GeneratedAnswer};
use crate::schema::coverage::{self, accept};
use crate::targets::target::Target;

/// One planned call of the coverage or random phase.
#[derive(Clone)]
pub(super) struct Planned {
    /// `coverage N` or `case N`.
    pub(super) label: String,
    /// One answer per request.
    pub(super) plan: Vec<GeneratedAnswer>,
    /// The random case's index (none for a coverage case).
    pub(super) random: Option<usize>,
    /// Whether it sends the probe's base, the consenting answer the tool
    /// acted on in the probe (the first coverage case): refusing it shows
    /// that the tool's state changed.
    pub(super) base: bool,
}

impl Planned {
    /// Its phase and label, as a call starting says them.
    pub(super) fn id(&self) -> (Phase, &str) {
        let phase = if self.random.is_some() {
            Phase::Random
        } else {
            Phase::Coverage
        };
        (phase, &self.label)
    }

    /// The property its answers are planned to test: property 1 when one is
    /// a `decline` or `cancel`, else property 2 when one is an invalid
    /// accept or not an `ElicitResult`, else property 3 when every one is a
    /// valid accept (as the tally counts calls); none for a plan of lenient
    /// accepts (warnings of property 2).
    pub(super) fn aims_at(&self, steps: &[Step]) -> Option<Property> {
        let classes: Vec<Class> = self
            .plan
            .iter()
            .zip(steps)
            .map(|(planned, step)| property::classify(&step.form, &step.judge, &planned.answer))
            .collect();
        if classes
            .iter()
            .any(|class| matches!(class, Class::Refusal(_)))
        {
            Some(Property::NoActOnRefusal)
        } else if classes
            .iter()
            .any(|class| matches!(class, Class::InvalidAccept(_) | Class::NearMiss(_)))
        {
            Some(Property::NoActOnInvalid)
        } else if !classes.is_empty() && classes.iter().all(|class| *class == Class::ValidAccept) {
            Some(Property::ActsOnValid)
        } else {
            None
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
        built: Built::Valid,
    };
    let mut planned = Vec::new();
    for (index, step) in steps.iter().enumerate() {
        let answers = coverage::coverage_answers(&step.form, &bases[index]);
        for mut answer in answers.into_iter().skip(usize::from(index > 0)) {
            let mut plan: Vec<GeneratedAnswer> = (0..steps.len()).map(base_answer).collect();
            answer.built_as = step_named(index, steps.len(), &answer.built_as);
            plan[index] = answer;
            planned.push(Planned {
                label: format!("coverage {}", planned.len()),
                plan,
                random: None,
                base: planned.is_empty(),
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
        plan: focus(new_tree(strategy, seed, index).current(), index, steps),
        random: Some(index),
        base: false,
    }));
    planned
}

/// `built_as` of an answer to step `index` of `steps`, named by its step
/// when the form has several (`step 2 of 2: accept: ...`).
fn step_named(index: usize, steps: usize, built_as: &str) -> String {
    if steps > 1 {
        format!("step {} of {steps}: {built_as}", index + 1)
    } else {
        built_as.to_owned()
    }
}

/// Random case `index`'s answers, focused on one step: with several steps,
/// the step under test is `index` modulo their number and keeps its
/// generated answer (named by its step); every other step gets the probe's
/// consenting answer, so a failure speaks of one step.
pub(super) fn focus(
    mut plan: Vec<GeneratedAnswer>,
    index: usize,
    steps: &[Step],
) -> Vec<GeneratedAnswer> {
    if steps.len() < 2 {
        return plan;
    }
    let under_test = index % steps.len();
    for (at, (answer, step)) in plan.iter_mut().zip(steps).enumerate() {
        if at == under_test {
            answer.built_as = step_named(at, steps.len(), &answer.built_as);
        } else if let Some(consenting) = step.consenting.get() {
            *answer = GeneratedAnswer {
                answer: consenting.clone(),
                built_as: coverage::VALID.to_owned(),
                built: Built::Valid,
            };
        }
    }
    plan
}

/// The answers of `--answer`, one per request, sent as given.
pub(super) fn replay(target: &Target) -> Vec<GeneratedAnswer> {
    target
        .replay
        .iter()
        .map(|answer| GeneratedAnswer {
            answer: answer.clone(),
            built_as: "the answer given with --answer".to_owned(),
            built: Built::Given,
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
            built: Built::Valid,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::schema::Form;
    use crate::schema::judge::Judge;

    fn step(schema: Value, consenting: Value) -> Step {
        let step = Step {
            form: Form::read(&schema),
            judge: Judge::new(&schema).expect("compiles"),
            schema,
            consenting: std::sync::OnceLock::new(),
        };
        step.consenting.set(consenting).expect("set once");
        step
    }

    fn generated(answer: Value, built_as: &str) -> GeneratedAnswer {
        GeneratedAnswer {
            answer,
            built_as: built_as.to_owned(),
            built: Built::Given,
        }
    }

    #[test]
    fn a_random_case_of_a_multi_step_form_tests_one_step_and_consents_on_the_others() {
        let first = json!({"type": "object", "properties": {"a": {"type": "boolean"}}});
        let second = json!({"type": "object", "properties": {"b": {"type": "boolean"}}});
        let steps = [
            step(first, json!({"action": "accept", "content": {"a": true}})),
            step(second, json!({"action": "accept", "content": {"b": true}})),
        ];
        let drawn = || {
            vec![
                generated(json!({"action": "decline"}), "decline"),
                generated(json!({"action": "cancel"}), "cancel"),
            ]
        };
        // Case 4 tests step 1 (4 mod 2 = 0); case 5 step 2.
        let four = focus(drawn(), 4, &steps);
        assert_eq!(four[0].answer, json!({"action": "decline"}));
        assert_eq!(four[0].built_as, "step 1 of 2: decline");
        assert_eq!(
            four[1].answer,
            json!({"action": "accept", "content": {"b": true}})
        );
        assert_eq!(four[1].built_as, coverage::VALID);
        let five = focus(drawn(), 5, &steps);
        assert_eq!(
            five[0].answer,
            json!({"action": "accept", "content": {"a": true}})
        );
        assert_eq!(five[1].built_as, "step 2 of 2: cancel");
        // One step: the drawn answer as it is.
        let one = focus(drawn(), 3, &steps[..1]);
        assert_eq!(one[0].built_as, "decline");
        assert_eq!(one[1].built_as, "cancel");
    }

    #[test]
    fn with_three_steps_each_random_case_tests_its_step_modulo_three() {
        let form =
            |name: &str| json!({"type": "object", "properties": {name: {"type": "boolean"}}});
        let steps = [
            step(
                form("a"),
                json!({"action": "accept", "content": {"a": true}}),
            ),
            step(
                form("b"),
                json!({"action": "accept", "content": {"b": true}}),
            ),
            step(
                form("c"),
                json!({"action": "accept", "content": {"c": true}}),
            ),
        ];
        let drawn = || {
            (0..3)
                .map(|_| generated(json!({"action": "decline"}), "decline"))
                .collect()
        };
        let two = focus(drawn(), 2, &steps);
        let built: Vec<&str> = two.iter().map(|answer| answer.built_as.as_str()).collect();
        assert_eq!(
            built,
            [coverage::VALID, coverage::VALID, "step 3 of 3: decline"]
        );
        assert_eq!(
            two[0].answer,
            json!({"action": "accept", "content": {"a": true}})
        );
    }

    #[test]
    fn the_cases_are_the_coverage_plans_then_the_random_ones_or_the_one_case_index() {
        let schema =
            json!({"type": "object", "properties": {"a": {"type": "boolean"}}, "required": ["a"]});
        let steps = [step(schema, json!({}))];
        let bases = [Map::from_iter([("a".to_owned(), json!(true))])];
        let strategy = vec![
            proptest::strategy::Just(generated(json!({"action": "cancel"}), "cancel")).boxed(),
        ];
        let mut target = Target::stdio(["s"]);
        target.cases = 2;
        let coverage = coverage_plans(&steps, &bases).len();
        let all = cases(&target, &steps, &bases, &strategy, 1);
        assert_eq!(all.len(), coverage + 2);
        assert!(all[0].base && all[0].random.is_none());
        let random: Vec<(&str, Option<usize>)> = all[coverage..]
            .iter()
            .map(|case| (case.label.as_str(), case.random))
            .collect();
        assert_eq!(random, [("case 0", Some(0)), ("case 1", Some(1))]);
        assert_eq!(all[coverage].plan[0].answer, json!({"action": "cancel"}));
        target.case_index = Some(7);
        let one = cases(&target, &steps, &bases, &strategy, 1);
        let labels: Vec<(&str, Option<usize>)> = one
            .iter()
            .map(|case| (case.label.as_str(), case.random))
            .collect();
        assert_eq!(labels, [("case 7", Some(7))]);
    }

    #[test]
    fn a_planned_case_aims_at_the_property_its_answers_test() {
        let schema =
            json!({"type": "object", "properties": {"a": {"type": "boolean"}}, "required": ["a"]});
        let steps = [step(schema, json!({}))];
        let case = |answer: Value| Planned {
            label: "coverage 0".into(),
            plan: vec![generated(answer, "")],
            random: None,
            base: false,
        };
        assert_eq!(
            case(json!({"action": "decline"})).aims_at(&steps),
            Some(Property::NoActOnRefusal)
        );
        assert_eq!(
            case(json!({"action": "accept", "content": {"a": "x"}})).aims_at(&steps),
            Some(Property::NoActOnInvalid)
        );
        assert_eq!(
            case(json!({"action": "Accept", "content": {"a": true}})).aims_at(&steps),
            Some(Property::NoActOnInvalid)
        );
        assert_eq!(
            case(json!({"action": "accept", "content": {"a": true}})).aims_at(&steps),
            Some(Property::ActsOnValid)
        );
        assert_eq!(
            case(json!({"action": "accept", "content": {"a": true, "x": 1}})).aims_at(&steps),
            None
        );
        let mut none = case(json!({}));
        none.plan.clear();
        assert_eq!(none.aims_at(&steps), None);
        assert_eq!(none.id(), (Phase::Coverage, "coverage 0"));
        none.random = Some(2);
        assert_eq!(none.id().0, Phase::Random);
    }

    #[test]
    fn the_coverage_answers_of_a_multi_step_form_name_their_step() {
        let first =
            json!({"type": "object", "properties": {"a": {"type": "boolean"}}, "required": ["a"]});
        let second =
            json!({"type": "object", "properties": {"b": {"type": "boolean"}}, "required": ["b"]});
        let steps = [step(first, json!({})), step(second, json!({}))];
        let bases = [
            Map::from_iter([("a".to_owned(), json!(true))]),
            Map::from_iter([("b".to_owned(), json!(true))]),
        ];
        let planned = coverage_plans(&steps, &bases);
        // The base once, for the first step only.
        let answers =
            |index: usize| coverage::coverage_answers(&steps[index].form, &bases[index]).len();
        assert_eq!(planned.len(), answers(0) + answers(1) - 1);
        let base = [accept(&bases[0]), accept(&bases[1])];
        let bases_sent = planned
            .iter()
            .filter(|case| {
                case.plan
                    .iter()
                    .map(|answer| &answer.answer)
                    .eq(base.iter())
            })
            .count();
        assert_eq!(bases_sent, 1);
        assert_eq!(
            planned[0].plan[0].built_as,
            format!("step 1 of 2: {}", coverage::VALID)
        );
        assert_eq!(planned[0].plan[1].built_as, coverage::VALID);
        let second_step = planned
            .iter()
            .find(|case| case.plan[1].built_as.starts_with("step 2 of 2: "))
            .expect("a case testing step 2");
        assert_eq!(second_step.plan[0].built_as, coverage::VALID);
        assert!(planned.iter().all(|case| {
            case.plan
                .iter()
                .filter(|answer| answer.built_as.starts_with("step "))
                .count()
                == 1
        }));
        // One step: no step named.
        let one = coverage_plans(&steps[..1], &bases[..1]);
        assert!(
            one.iter()
                .all(|case| !case.plan[0].built_as.starts_with("step "))
        );
    }
}
