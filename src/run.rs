//! A run: every case through the harness, each judged by the contract oracle.
//!
//! The fixed contract cases first ([`run_contract_in`]), then, on request,
//! generated cases ([`run_generated_in`]) whose first failure is shrunk over stdio
//! to a minimal answer, as proptest would.
//!
//! Each case runs in one or both protocol eras (those of the run's
//! [`Settings`]): 2025-11-25 is judged by `oracle::contract`, 2026-07-28 by
//! `oracle::era`; with both, the 2026-07-28 verdict (named `NAME@2026-07-28`)
//! also fails when its result differs from the 2025-11-25 one beyond the
//! 2026-07-28 table (docs/src/eras.md).
//!
//! [`hostile`] runs the hostile-client cases instead (`run --hostile`).

pub mod hostile;
pub mod judge;
pub mod schedule;
pub mod settings;

use futures::StreamExt;
use proptest::strategy::{Strategy, ValueTree};
use serde_json::Value;

use self::judge::judge_in;
pub use self::settings::Settings;
use self::settings::{MAX_CONSECUTIVE_HUNG, MAX_CONSECUTIVE_IGNORED_STDIN_CLOSE};
use crate::case::{self, Case};
use crate::compare;
use crate::error::Error;
use crate::format::last_lines;
use crate::harness;
use crate::oracle::failure::{Failure, GeneratedFailure};
use crate::oracle::model;
use crate::report::{
    ANSWER_CASE, EvidenceLog, GENERATED_PREFIX, MINIMAL_CASE, ReplayKind, Verdict, reproduction,
};
use crate::strategy::{GeneratedCase, generated_case, seeded_runner};
use crate::verdict::Primary;

/// Most stdio runs spent shrinking one failure.
pub const MAX_SHRINK_RUNS: usize = 256;

/// Whether the run stops after the verdict just logged: the last
/// [`MAX_CONSECUTIVE_HUNG`] verdicts in `log` are all `hung`, or the last
/// [`MAX_CONSECUTIVE_IGNORED_STDIN_CLOSE`] all `ignored_stdin_close`,
/// whichever phase (contract, generated) each came from, and
/// `settings.keep_going` is off.
///
/// # Errors
/// [`Error::Hung`] or [`Error::IgnoredStdinClose`] with the number of
/// consecutive such verdicts.
fn stop_if_stuck(log: &EvidenceLog, settings: &Settings) -> Result<(), Error> {
    if settings.keep_going {
        return Ok(());
    }
    let hung = log.trailing(Primary::Hung);
    if hung >= MAX_CONSECUTIVE_HUNG {
        return Err(Error::Hung { cases: hung });
    }
    let ignored = log.trailing(Primary::IgnoredStdinClose);
    if ignored >= MAX_CONSECUTIVE_IGNORED_STDIN_CLOSE {
        return Err(Error::IgnoredStdinClose {
            cases: ignored,
            grace: settings.limits.shutdown,
        });
    }
    Ok(())
}

/// Runs `cases` against `command` under `settings` (one verdict per case and
/// era, in the processes `settings.schedule` gives), judging each against `expected[case.name]`; each verdict goes to `log` and then to
/// `on_verdict` (the CLI prints its table row there).
///
/// # Errors
/// [`Error::Spawn`] when the server cannot start; [`Error::ServerDidNotStart`]
/// when it starts but the first case's handshake fails (its evidence is logged
/// first; no later case could be judged either); [`Error::Hung`] after
/// [`MAX_CONSECUTIVE_HUNG`] consecutive `hung` cases and
/// [`Error::IgnoredStdinClose`] after [`MAX_CONSECUTIVE_IGNORED_STDIN_CLOSE`]
/// consecutive `ignored_stdin_close` cases (unless `settings.keep_going`); [`Error::Io`] when the evidence cannot be written. A
/// case whose expected outcome is missing fails with that reason.
pub async fn run_cases_in(
    command: &[String],
    cases: &[Case],
    expected: &serde_json::Map<String, Value>,
    settings: &Settings,
    log: &EvidenceLog,
    on_verdict: &mut dyn FnMut(&Verdict),
) -> Result<(), Error> {
    let cases: Vec<(Case, Option<Value>)> = cases
        .iter()
        .map(|case| (case.clone(), expected.get(&case.name).cloned()))
        .collect();
    // The first case alone: a server that does not start ends the run there.
    let (first, rest) = cases.split_at(cases.len().min(1));
    let mut index = 0;
    for chunk in std::iter::once(first).chain(rest.chunks(settings.schedule.window())) {
        let mut judged =
            schedule::judge_stream(command, chunk, settings, log, (CONTRACT, index), &|_, _| {});
        while let Some(judged) = judged.next().await {
            let (key, verdicts) = judged?;
            log.unstash(key);
            emit(index, verdicts, log, on_verdict, settings)?;
            index += 1;
        }
    }
    Ok(())
}

/// The phase of the contract cases in the evidence log's stash keys
/// ([`schedule::StashKey`]).
const CONTRACT: usize = 0;
/// The phase of the generated cases in the stash keys.
const GENERATED: usize = 1;

/// Logs and shows the verdicts of case number `index`; the first case's
/// verdict ends the run with [`Error::ServerDidNotStart`] when its session
/// did not start, and the [`MAX_CONSECUTIVE_HUNG`]th `hung` case in a row
/// (counted in `log`, across the run's phases) ends it with [`Error::Hung`],
/// as the [`MAX_CONSECUTIVE_IGNORED_STDIN_CLOSE`]th `ignored_stdin_close` case
/// in a row ends it with [`Error::IgnoredStdinClose`], unless `--keep-going`.
fn emit(
    index: usize,
    verdicts: Vec<Verdict>,
    log: &EvidenceLog,
    on_verdict: &mut dyn FnMut(&Verdict),
    settings: &Settings,
) -> Result<(), Error> {
    for verdict in verdicts {
        if index == 0
            && !verdict.evidence.started
            && let Some(offered) = listed_without_contract_tool(&verdict.evidence.wire)
        {
            // Not a case's verdict: the run cannot judge this server at all.
            return Err(Error::NoContractTool { offered });
        }
        let did_not_start =
            (index == 0 && !verdict.evidence.started).then(|| Error::ServerDidNotStart {
                error: verdict
                    .evidence
                    .error
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default(),
                stderr: last_lines(&verdict.evidence.stderr, 20),
            });
        on_verdict(&verdict);
        log.push(verdict)?;
        if let Some(error) = did_not_start {
            return Err(error);
        }
        stop_if_stuck(log, settings)?;
    }
    Ok(())
}

/// The tools a server listed, from its reply to the client's `tools/list` in
/// `wire`, when that list has no [`crate::harness::TOOL_NAME`]; `None` when it
/// has it or no such reply was recorded.
fn listed_without_contract_tool(wire: &[crate::harness::proxy::Frame]) -> Option<Vec<String>> {
    use crate::harness::proxy::Side;
    let id = wire.iter().find_map(|frame| {
        (frame.from == Side::Client
            && frame.message.get("method").and_then(Value::as_str) == Some("tools/list"))
        .then(|| frame.message.get("id").cloned())
        .flatten()
    })?;
    let tools = wire
        .iter()
        .find(|frame| {
            frame.from == Side::Server
                && frame.message.get("method").is_none()
                && frame.message.get("id") == Some(&id)
        })?
        .message
        .pointer("/result/tools")?
        .as_array()?;
    let names: Vec<String> = tools
        .iter()
        .filter_map(|tool| tool.get("name").and_then(Value::as_str))
        .map(str::to_owned)
        .collect();
    (!names.iter().any(|name| name == crate::harness::TOOL_NAME)).then_some(names)
}

/// What `--case NAME` (repeatable) selects: contract cases by name, and
/// generated cases by their name in a run's evidence (`generated_0042`, replayed
/// with the run's `--seed`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// Names of contract cases (empty with an empty `--case` list: all of them).
    pub contract: Vec<String>,
    /// Numbers of generated cases (`generated_0042` is 42).
    pub generated: Vec<usize>,
}

/// Checks every `--case` name before anything runs or is written (a typo
/// must not replace the previous run's evidence).
///
/// # Errors
/// [`Error::UnknownCase`] for a name that is neither a contract case nor
/// `generated_N` with N ≥ 1.
pub fn select_cases(only: &[String]) -> Result<Selection, Error> {
    let cases = case::contract_cases();
    let mut selection = Selection::default();
    for name in only {
        if cases.iter().any(|case| &case.name == name) {
            selection.contract.push(name.clone());
        } else if let Some(index) = name
            .strip_prefix(GENERATED_PREFIX)
            .and_then(|digits| digits.parse::<usize>().ok())
            .filter(|index| *index > 0)
        {
            selection.generated.push(index);
        } else {
            return Err(Error::UnknownCase {
                name: name.clone(),
                known: cases.into_iter().map(|case| case.name).collect(),
            });
        }
    }
    Ok(selection)
}

/// The contract run: the cases of `fixtures/cases.json` named in `only` (all 19
/// when `only` is empty) judged against `expected/results.json`, in the eras and
/// with the limits of `settings`.
///
/// # Errors
/// [`Error::UnknownCase`] when `only` names a case that does not exist (before
/// anything runs); otherwise as [`run_cases_in`].
pub async fn run_contract_in(
    command: &[String],
    only: &[String],
    settings: &Settings,
    log: &EvidenceLog,
    on_verdict: &mut dyn FnMut(&Verdict),
) -> Result<(), Error> {
    let mut cases = case::contract_cases();
    if let Some(unknown) = only
        .iter()
        .find(|name| !cases.iter().any(|case| &case.name == *name))
    {
        return Err(Error::UnknownCase {
            name: unknown.clone(),
            known: cases.into_iter().map(|case| case.name).collect(),
        });
    }
    if !only.is_empty() {
        cases.retain(|case| only.contains(&case.name));
    }
    let expected = case::contract_expected();
    run_cases_in(command, &cases, &expected, settings, log, on_verdict).await
}

/// The one case of `run --answer JSON` (how a shrunk minimal failure replays
/// exactly its answer): named [`ANSWER_CASE`], with `capabilities` declared at
/// `initialize`, `policy` as the tool's argument and `answer` (none: the
/// client's own reply, `cancel`, or `-32602` without form) written into the
/// reply to `elicitation/create` byte for byte, as a generated case's is.
pub fn answer_case(
    capabilities: Value,
    policy: &str,
    answer: Option<crate::case::WireAnswer>,
) -> Case {
    let mut case = Case {
        name: ANSWER_CASE.to_owned(),
        policy: policy.to_owned(),
        capabilities,
        answer: None,
        answer_text: None,
    };
    if let Some(answer) = answer {
        case.set_wire_answer(answer);
    }
    case
}

/// Runs `case` (an [`answer_case`]) against `command` in each era of
/// `settings`, judged against the outcome the reference model gives its inputs
/// (`oracle::model`: a case of `run --answer` has no reason to derive one
/// from); its reproduction replays it by its inputs (`--answer`).
///
/// # Errors
/// As [`run_cases_in`].
pub async fn run_answer(
    command: &[String],
    case: &Case,
    settings: &Settings,
    log: &EvidenceLog,
    on_verdict: &mut dyn FnMut(&Verdict),
) -> Result<(), Error> {
    let expected = model::expected_outcome(case);
    let cases = [(case.clone(), Some(expected))];
    let by_answer = |_: usize, verdicts: &mut Vec<Verdict>| {
        for verdict in verdicts {
            verdict.replay.kind = ReplayKind::Answer;
            verdict.settle();
        }
    };
    let mut judged =
        schedule::judge_stream(command, &cases, settings, log, (CONTRACT, 0), &by_answer);
    while let Some(judged) = judged.next().await {
        let (key, verdicts) = judged?;
        log.unstash(key);
        emit(0, verdicts, log, on_verdict, settings)?;
    }
    Ok(())
}

/// A generated failure shrunk to its minimal form.
#[derive(Debug, Clone)]
pub struct MinimalFailure {
    /// The minimal case, with its reason and expected outcome.
    pub generated: GeneratedCase,
    /// The server's outcome for it (`null` when there was none).
    pub outcome: Value,
    /// The checks that failed on it.
    pub failures: Vec<Failure>,
    /// Stdio runs spent shrinking.
    pub shrink_runs: usize,
    /// Whether shrinking stopped at its budget of runs with simplifications still
    /// untried, so the case may not be minimal.
    pub shrink_stopped_early: bool,
    /// The copy-paste command that runs exactly this case again (`elicit-check
    /// run --answer JSON ...`: its capabilities, policy and answer; see
    /// [`crate::report::reproduction`]), with the run's options.
    pub reproduce: String,
}

impl MinimalFailure {
    /// The report's heading for this failure, with how shrinking ended:
    /// `minimal failing generated case (shrunk in 12 runs)`, or, when shrinking
    /// stopped at its budget, `failing generated case, not fully shrunk
    /// (shrinking stopped at its budget after 256 runs: it may not be minimal)`.
    pub fn heading(&self) -> String {
        let runs = match self.shrink_runs {
            1 => "1 run".to_owned(),
            runs => format!("{runs} runs"),
        };
        if self.shrink_stopped_early {
            format!(
                "failing generated case, not fully shrunk (shrinking stopped at its budget \
                 after {runs}: it may not be minimal)"
            )
        } else {
            format!("minimal failing generated case (shrunk in {runs})")
        }
    }
}

/// Runs `count` generated cases (seeded by `seed`) against `command`, logs a
/// verdict per case and era (named `generated_0001`, ...) with its reason, and
/// shrinks the first failure over stdio. A case fails when any of its verdicts
/// fails, and is shrunk in all the eras of `settings`. `progress` is called after
/// each case with the number done.
///
/// # Errors
/// As [`run_cases_in`].
pub async fn run_generated_in(
    command: &[String],
    count: usize,
    seed: u64,
    settings: &Settings,
    log: &EvidenceLog,
    progress: &mut dyn FnMut(usize),
) -> Result<Option<MinimalFailure>, Error> {
    run_generated_where(command, count, seed, settings, log, progress, &|_| true).await
}

/// Replays the generated cases numbered `indices` (1-based, `generated_0042`
/// is 42) of `seed` exactly: generation is deterministic, so the cases before
/// them are generated (not run) and each selected one gets the very answer it
/// had in the run that named it. The first failure is shrunk.
///
/// # Errors
/// As [`run_cases_in`].
pub async fn run_generated_selected(
    command: &[String],
    indices: &[usize],
    seed: u64,
    settings: &Settings,
    log: &EvidenceLog,
) -> Result<Option<MinimalFailure>, Error> {
    let count = indices.iter().copied().max().unwrap_or(0);
    run_generated_where(command, count, seed, settings, log, &mut |_| {}, &|index| {
        indices.contains(&index)
    })
    .await
}

/// The generated cases `1..=count` of `seed` for which `selected` holds.
async fn run_generated_where(
    command: &[String],
    count: usize,
    seed: u64,
    settings: &Settings,
    log: &EvidenceLog,
    progress: &mut dyn FnMut(usize),
    selected: &dyn Fn(usize) -> bool,
) -> Result<Option<MinimalFailure>, Error> {
    let mut runner = seeded_runner(seed);
    let strategy = generated_case();
    let mut minimal = None;
    let window = settings.schedule.window();
    // The case numbers to generate, each once (no index arithmetic: every
    // window takes numbers from here, and the run ends when none is left).
    let mut numbers = 1..=count;
    loop {
        // Generated in order by one runner, so the cases do not depend on the
        // schedule or the selection; shrinking moves only a case's own tree.
        let mut trees = Vec::new();
        let mut generated: Vec<(usize, GeneratedCase)> = Vec::new();
        let mut cases = Vec::new();
        // The last number generated for this window.
        let mut reached = None;
        while trees.len() < window {
            let Some(number) = numbers.next() else {
                break;
            };
            let tree = strategy
                .new_tree(&mut runner)
                .expect("the generated-case strategy never rejects");
            reached = Some(number);
            if !selected(number) {
                continue;
            }
            let mut case = tree.current();
            case.case.name = format!("{GENERATED_PREFIX}{number:04}");
            cases.push((case.case.clone(), Some(case.expected.clone())));
            generated.push((number, case));
            trees.push(tree);
        }
        let Some(reached) = reached else {
            break;
        };
        let checked = |position: usize, verdicts: &mut Vec<Verdict>| {
            let (_, generated) = &generated[position];
            add_generated_checks(generated, verdicts);
            for verdict in verdicts {
                verdict.reason = Some(generated.reason.to_string());
                verdict.seed = Some(seed);
                verdict.settle();
            }
        };
        // The first failure of the window, shrunk once the window is judged
        // (no case is in flight then: its bounds would run out unpolled).
        let mut first_failure = None;
        // Stash keys: the window's first case number, then one per case.
        let first = generated.first().map_or(0, |(number, _)| *number);
        let mut judged =
            schedule::judge_stream(command, &cases, settings, log, (GENERATED, first), &checked)
                .enumerate();
        while let Some((position, judged)) = judged.next().await {
            let (key, verdicts) = judged?;
            let (number, _) = generated[position];
            log.unstash(key);
            let failed = verdicts.iter().any(|verdict| !verdict.passed);
            // A hung case would cost one call bound per shrink run: not shrunk.
            let shrinkable = verdicts
                .iter()
                .all(|verdict| verdict.verdict != Primary::Hung);
            if failed && shrinkable && first_failure.is_none() {
                first_failure = Some(position);
            }
            for verdict in verdicts {
                log.push(verdict)?;
                stop_if_stuck(log, settings)?;
            }
            progress(number);
        }
        drop(judged);
        if let (Some(position), None) = (first_failure, &minimal) {
            // Shrink runs are no cases of the run: registered in a registry of
            // their own, a stop (Ctrl-C) leaves them out of the evidence (their
            // servers are killed all the same when the run is dropped).
            let shrunk = harness::IN_FLIGHT.scope(
                harness::InFlight::default(),
                shrink(command, &mut trees[position], settings, MAX_SHRINK_RUNS),
            );
            minimal = Some(shrunk.await?);
        }
        progress(reached);
    }
    Ok(minimal)
}

/// Judges one generated case over stdio in each era of `settings` (one verdict
/// per era): the contract checks against the case's expected outcome (derived
/// from its reason), and the two oracles must agree: when the reference model
/// disagrees with the reason, every verdict fails with `the oracles disagree
/// (model vs reason): PATH: ...` even if the server matched the reason.
/// A failed verdict ends with `reason: ...`.
///
/// # Errors
/// [`Error::Spawn`] when the server cannot start.
pub async fn judge_generated(
    command: &[String],
    generated: &GeneratedCase,
    settings: &Settings,
) -> Result<Vec<Verdict>, Error> {
    let mut verdicts = judge_in(
        command,
        &generated.case,
        Some(generated.expected.clone()),
        settings,
        None,
    )
    .await?;
    add_generated_checks(generated, &mut verdicts);
    Ok(verdicts)
}

/// The checks of a generated case beyond the contract: the two oracles must
/// agree, and a failed verdict ends with its reason ([`judge_generated`]).
fn add_generated_checks(generated: &GeneratedCase, verdicts: &mut [Verdict]) {
    let model = model::expected_outcome(&generated.case);
    for verdict in verdicts {
        for mismatch in compare::compare(&generated.expected, &model) {
            verdict
                .failures
                .push(Failure::Generated(GeneratedFailure::OraclesDisagree(
                    mismatch,
                )));
            verdict.passed = false;
        }
        if !verdict.passed {
            verdict
                .failures
                .push(Failure::Generated(GeneratedFailure::Reason(
                    generated.reason.to_string(),
                )));
        }
        verdict.settle();
    }
}

/// The first failing verdict of a case's eras, else the first.
fn worst(mut verdicts: Vec<Verdict>) -> Verdict {
    let index = verdicts
        .iter()
        .position(|verdict| !verdict.passed)
        .unwrap_or(0);
    verdicts.swap_remove(index)
}

/// proptest's shrinking loop, over stdio: simplify while the case still fails,
/// complicate when a simplification passes, at most `max_runs` stdio runs after
/// the one that judges `tree`'s current (failing) case ([`run_generated_in`] passes
/// [`MAX_SHRINK_RUNS`]). The minimal failure is the last case that failed;
/// [`MinimalFailure::shrink_stopped_early`] says whether the budget ran out
/// before shrinking was done.
///
/// # Errors
/// [`Error::Spawn`] when the server cannot start.
pub async fn shrink(
    command: &[String],
    tree: &mut impl ValueTree<Value = GeneratedCase>,
    settings: &Settings,
    max_runs: usize,
) -> Result<MinimalFailure, Error> {
    let mut generated = tree.current();
    generated.case.name = MINIMAL_CASE.into();
    let mut verdict = worst(judge_generated(command, &generated, settings).await?);
    let mut best = (generated, verdict.clone());
    let mut runs = 0;
    let mut step = tree.simplify();
    while step && runs < max_runs {
        runs += 1;
        let mut candidate = tree.current();
        candidate.case.name = MINIMAL_CASE.into();
        verdict = worst(judge_generated(command, &candidate, settings).await?);
        step = if verdict.passed {
            tree.complicate()
        } else {
            best = (candidate, verdict.clone());
            tree.simplify()
        };
    }
    let (generated, mut verdict) = best;
    verdict.replay.kind = ReplayKind::Answer;
    Ok(MinimalFailure {
        reproduce: reproduction(&verdict),
        outcome: verdict.evidence.outcome.clone().unwrap_or(Value::Null),
        failures: verdict.failures,
        generated,
        shrink_runs: runs,
        // The loop ends on `!step` (nothing left to try) or on the budget.
        shrink_stopped_early: step,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::Limits;
    use crate::oracle::contract::Judging;

    /// A generated case's verdict over its eras is its first failing one, else
    /// its first: shrinking reads it, so a case that fails in one era only
    /// still fails (and is shrunk as failing).
    #[test]
    fn a_case_is_as_bad_as_its_first_failing_era() {
        let verdict = |name: &str, fails: bool| {
            let failures = if fails {
                vec![Failure::Generated(GeneratedFailure::Reason(
                    "accept with units \"3\"".to_owned(),
                ))]
            } else {
                Vec::new()
            };
            let evidence = crate::report::tests::evidence(name, &["server"]);
            Verdict::new(serde_json::json!({}), failures, evidence)
        };
        let case = |verdicts: Vec<Verdict>| {
            let chosen = worst(verdicts);
            (chosen.case, chosen.passed)
        };
        assert_eq!(
            case(vec![
                verdict("generated_0001", false),
                verdict("generated_0001@2026-07-28", true)
            ]),
            ("generated_0001@2026-07-28".to_owned(), false)
        );
        assert_eq!(
            case(vec![verdict("a", true), verdict("b", true)]),
            ("a".to_owned(), false)
        );
        assert_eq!(
            case(vec![verdict("a", false), verdict("b", false)]),
            ("a".to_owned(), true)
        );
    }

    #[test]
    fn a_tools_list_without_calculate_is_read_from_the_wire() {
        use crate::harness::proxy::{Side, frame};
        use serde_json::json;
        let wire = |tools: Value| {
            vec![
                frame(
                    0,
                    Side::Client,
                    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize"}),
                ),
                frame(
                    1,
                    Side::Server,
                    json!({"jsonrpc": "2.0", "id": 0, "result": {}}),
                ),
                frame(
                    2,
                    Side::Client,
                    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
                ),
                // A reply to another id is not the list.
                frame(
                    3,
                    Side::Server,
                    json!({"jsonrpc": "2.0", "id": 0, "result": {"tools": []}}),
                ),
                frame(
                    4,
                    Side::Server,
                    json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}),
                ),
            ]
        };
        assert_eq!(
            listed_without_contract_tool(&wire(json!([{"name": "book"}, {"name": "refund"}]))),
            Some(vec!["book".to_owned(), "refund".to_owned()])
        );
        assert_eq!(listed_without_contract_tool(&wire(json!([]))), Some(vec![]));
        assert_eq!(
            listed_without_contract_tool(&wire(json!([{"name": "book"}, {"name": "calculate"}]))),
            None
        );
        // No reply to tools/list (initialize failed): not this rule's to say.
        assert_eq!(listed_without_contract_tool(&wire(json!([]))[..4]), None);
        assert_eq!(listed_without_contract_tool(&[]), None);
    }

    /// A verdict of primary verdict `primary` (the rest of it does not matter here).
    fn logged(log: &EvidenceLog, primary: Primary) {
        let mut verdict = Verdict::new(
            Value::Null,
            vec![Failure::Harness(
                crate::evidence::HarnessFailure::NotStarted,
            )],
            crate::report::tests::evidence("c", &["server"]),
        );
        verdict.verdict = primary;
        log.push(verdict).expect("written");
    }

    #[test]
    fn only_consecutive_hung_or_ignored_stdin_close_cases_stop_a_run_and_keep_going_never_stops() {
        let dir =
            std::env::temp_dir().join(format!("elicit-check-unit-{}-run-hung", std::process::id()));
        let log = EvidenceLog::create(&dir).expect("a folder");
        let mut settings = Settings::legacy(Limits::default(), Judging::EXACT);
        let stops = |log: &EvidenceLog, settings: &Settings| stop_if_stuck(log, settings);
        logged(&log, Primary::Hung);
        assert!(stops(&log, &settings).is_ok());
        logged(&log, Primary::Crashed);
        assert!(stops(&log, &settings).is_ok());
        logged(&log, Primary::Hung);
        assert!(stops(&log, &settings).is_ok());
        logged(&log, Primary::Hung);
        let stop = stops(&log, &settings);
        assert!(matches!(stop, Err(Error::Hung { cases: 2 })), "{stop:?}");
        settings.keep_going = true;
        for _ in 0..3 {
            logged(&log, Primary::Hung);
            assert!(stops(&log, &settings).is_ok());
        }
        assert_eq!(log.trailing(Primary::Hung), 5);
        assert_eq!(log.trailing(Primary::Crashed), 0);
        settings.keep_going = false;
        logged(&log, Primary::IgnoredStdinClose);
        assert!(stops(&log, &settings).is_ok());
        logged(&log, Primary::Passed);
        logged(&log, Primary::IgnoredStdinClose);
        assert!(stops(&log, &settings).is_ok());
        logged(&log, Primary::IgnoredStdinClose);
        let stop = stops(&log, &settings);
        assert!(
            matches!(stop, Err(Error::IgnoredStdinClose { cases: 2, .. })),
            "{stop:?}"
        );
        settings.keep_going = true;
        logged(&log, Primary::IgnoredStdinClose);
        assert!(stops(&log, &settings).is_ok());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn case_names_select_contract_and_generated_cases_and_anything_else_is_refused() {
        let names = |names: &[&str]| {
            names
                .iter()
                .map(|name| (*name).to_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            select_cases(&names(&["decline", "generated_0042", "generated_7"])).expect("known"),
            Selection {
                contract: names(&["decline"]),
                generated: vec![42, 7],
            }
        );
        assert_eq!(select_cases(&[]).expect("empty"), Selection::default());
        for bad in [
            "generated_0000",
            "generated_x",
            "generated_",
            "declined",
            "0042",
        ] {
            let error = select_cases(&names(&[bad])).expect_err(bad);
            assert!(
                error.to_string().starts_with(&format!(
                    "no contract case named \"{bad}\"; the cases are: accept_valid,"
                )),
                "{error}"
            );
            assert!(
                error.to_string().ends_with(
                    "; generated cases are named generated_0001, generated_0002, ... (with the \
                     --seed of their run)"
                ),
                "{error}"
            );
        }
    }
}
