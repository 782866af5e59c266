//! The verdict of one case and the copy-paste command that runs it again.
//!
//! [`Verdict::settle`] computes the reproduction command from the verdict
//! (its case, failures, seed, evidence and [`Replay`]), and [`reproduction`]
//! reads those members back, so the two live in one file: a file of each would
//! import the other.

use serde::Serialize;
use serde_json::Value;

use super::case_names::{GENERATED_PREFIX, MINIMAL_CASE};
use super::replay::{Replay, ReplayKind};
use crate::evidence::Evidence;
use crate::oracle::failure::Failure;
use crate::verdict::{self, Primary};

/// The verdict of one case: its evidence, what was expected, and every failure.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    /// The case's name.
    pub case: String,
    /// `true` when `failures` is empty.
    pub passed: bool,
    /// The one primary verdict from the closed list of [`Primary`]
    /// (`"passed"`, `"crashed"`, `"hung"`, ...), so CI can group failures by it.
    pub verdict: Primary,
    /// The evidence line of [`Verdict::verdict`], in the protocol's words
    /// (`exit code 3 before replying to tools/call`).
    pub primary: String,
    /// The expected outcome (hand-written, or from the oracle for generated cases).
    pub expected: Value,
    /// Every failed check, typed by rule family; `results.json` keeps each as
    /// its message, naming its JSON path or frame.
    pub failures: Vec<Failure>,
    /// Findings that do not fail the case: e.g. a
    /// `requestedSchema` key outside the MCP restricted subset. Kept apart from
    /// `failures`; `passed` ignores them.
    pub warnings: Vec<String>,
    /// Differences of detail that judging by meaning tolerated
    /// (`crate::oracle::meaning`, e.g. `errors also names [["units","int"]]`):
    /// not failures, not printed under a row.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Why a generated case was built (`None` for contract cases).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The seed of a generated case (`None` for contract cases).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// A failed case's copy-paste reproduction command (see [`reproduction`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reproduce: Option<String>,
    /// How the reproduction command runs the case again, and the options of the
    /// run it repeats (not in `results.json`: `reproduce` says it).
    #[serde(skip)]
    pub replay: Replay,
    /// Everything the harness recorded.
    pub evidence: Evidence,
}

/// The warning of a case whose server left a process of its group running
/// after it exited (`group_left_running` in the evidence): a wrapper's child,
/// killed by the harness (docs/src/verdicts.md).
pub const GROUP_LEFT_RUNNING: &str = "a process of the server's process group was still running after the server exited; it was killed";

impl Verdict {
    /// A verdict from checks already run, classified ([`Verdict::settle`]);
    /// with the [`GROUP_LEFT_RUNNING`] warning when the evidence says so.
    pub fn new(expected: Value, failures: Vec<Failure>, evidence: Evidence) -> Self {
        let warnings = if evidence.group_left_running {
            vec![GROUP_LEFT_RUNNING.to_owned()]
        } else {
            Vec::new()
        };
        let mut verdict = Verdict {
            case: evidence.case.clone(),
            passed: failures.is_empty(),
            verdict: Primary::Passed,
            primary: String::new(),
            expected,
            failures,
            warnings,
            notes: Vec::new(),
            reason: None,
            seed: None,
            reproduce: None,
            replay: Replay::default(),
            evidence,
        };
        verdict.settle();
        verdict
    }

    /// Recomputes `passed`, the primary verdict and the reproduction command from
    /// the failures, after checks were added to them.
    pub fn settle(&mut self) {
        self.passed = self.failures.is_empty();
        let finding = verdict::classify(&self.evidence, &self.expected, &self.failures);
        self.verdict = finding.verdict;
        self.primary = finding.evidence;
        self.reproduce = (!self.passed).then(|| reproduction(self));
    }

    /// The verdict of the case in flight when the run was stopped: its frames so
    /// far, verdict `interrupted`, and a reproduction with the run's `replay`
    /// options: a generated case (`generated_0042`) replays with `seed`, a case
    /// being shrunk ([`MINIMAL_CASE`]) with its answer (`--answer`).
    pub fn interrupted(evidence: Evidence, signal: &str, replay: Replay, seed: u64) -> Self {
        let mut verdict = Verdict::new(
            Value::Null,
            vec![Failure::Interrupted(signal.to_owned())],
            evidence,
        );
        verdict.verdict = Primary::Interrupted;
        verdict.primary = format!("the run was {signal} while this case was in flight");
        verdict.replay = replay;
        if verdict.case.starts_with(GENERATED_PREFIX) {
            verdict.seed = Some(seed);
        }
        let base = verdict.case.split('@').next().unwrap_or_default();
        if replay.kind == ReplayKind::Case && base == MINIMAL_CASE {
            verdict.replay.kind = ReplayKind::Answer;
        }
        verdict.reproduce = Some(reproduction(&verdict));
        verdict
    }
}

/// The contract cases' default capabilities, left out of an `--answer` reproduction.
const FORM_CAPABILITIES: &str = r#"{"elicitation":{"form":{}}}"#;

/// The name `elicit-check` users type.
const PROGRAM: &str = "elicit-check";

/// The copy-paste command that runs this one case again, by
/// [`Verdict::replay`]'s kind:
/// - a case by name: `elicit-check run --case NAME -- SERVER`, with `--seed S`
///   for a generated case (generation is deterministic, so `--case
///   generated_0042 --seed S` replays exactly its answer) and `--protocol
///   2026-07-28` for a case of a run in that era; the 2026-07-28 verdict of a
///   run in both eras (`NAME@2026-07-28`) is replayed alone by that name
///   (`--case NAME@2026-07-28`), or with `--protocol both --case NAME` when it
///   failed because the eras differ, which only both eras show; by its inputs
///   it is `--protocol 2026-07-28` (or `both`) with them;
/// - a hostile-client case: `elicit-check run --hostile
///   --case NAME -- SERVER`; hostile cases speak 2025-11-25 only (`--hostile`
///   refuses `--protocol` and `--session`), so neither is added;
/// - a case by its inputs (a shrunk minimal failure, a case of `run --answer`):
///   `elicit-check run [--policy P] [--capabilities JSON] --answer JSON -- SERVER`
///   (`--answer-error JSON` for a JSON-RPC error answer; the answer's exact
///   text, so `-0` stays `-0`; the contract's `validated` and form capabilities
///   left out, but never all three, which would run the contract cases).
///
/// Each adds the run's options that change a verdict: `--exact-messages` (or
/// `--exact-messages=false` for the reference server) when the run judged
/// otherwise than the default for its server, and `--session`. The server
/// command is shell-quoted, and left out for the built-in reference server.
pub fn reproduction(verdict: &Verdict) -> String {
    if verdict.replay.kind == ReplayKind::Hostile {
        return command_line(verdict, &[]);
    }
    let by_answer = verdict.replay.kind == ReplayKind::Answer;
    let (name, protocol) = match verdict.case.split_once('@') {
        // The 2026-07-28 verdict of a run in both eras: a difference between
        // the eras shows only when both run.
        Some((name, _)) if eras_differed(verdict) => (name, Some("both")),
        // Otherwise that era alone: `--case NAME@2026-07-28` selects it.
        Some(_) if by_answer => (verdict.case.as_str(), Some("2026-07-28")),
        Some(_) => (verdict.case.as_str(), None),
        None => (
            verdict.case.as_str(),
            spoke_2026_07_28(&verdict.evidence).then_some("2026-07-28"),
        ),
    };
    let mut words: Vec<String> = protocol
        .map(|protocol| vec!["--protocol".to_owned(), protocol.to_owned()])
        .unwrap_or_default();
    if by_answer {
        words.extend(answer_options(&verdict.evidence.input));
    } else {
        words.extend(["--case".to_owned(), name.to_owned()]);
        if let Some(seed) = verdict.seed {
            words.extend(["--seed".to_owned(), seed.to_string()]);
        }
    }
    command_line(verdict, &words)
}

/// Whether one of the verdict's failures is the difference between the two
/// eras of a case (`oracle::era::eras_differ`).
fn eras_differed(verdict: &Verdict) -> bool {
    verdict
        .failures
        .iter()
        .any(|failure| matches!(failure, Failure::ErasDiffer { .. }))
}

/// Whether the case ran in protocol 2026-07-28: negotiated so, or opened with
/// `server/discover` (the era's first request; a server that did not start
/// negotiated nothing).
fn spoke_2026_07_28(evidence: &Evidence) -> bool {
    evidence.protocol_version.as_deref() == Some("2026-07-28")
        || evidence.wire.iter().any(|frame| {
            frame.from == crate::harness::proxy::Side::Client
                && frame.message.get("method").and_then(Value::as_str) == Some("server/discover")
        })
}

/// The options of `run --answer` that give `case`'s inputs: `--policy` and
/// `--capabilities` unless the contract's defaults (but at least one option),
/// then `--answer` / `--answer-error` with the answer's exact text.
fn answer_options(case: &crate::case::Case) -> Vec<String> {
    let mut words = Vec::new();
    let wire = case.wire_answer();
    let default_capabilities =
        serde_json::from_str::<Value>(FORM_CAPABILITIES).ok() == Some(case.capabilities.clone());
    if case.policy != "validated" || (default_capabilities && wire.is_none()) {
        words.extend(["--policy".to_owned(), case.policy.clone()]);
    }
    if !default_capabilities {
        words.extend(["--capabilities".to_owned(), case.capabilities.to_string()]);
    }
    if let Some(wire) = wire {
        let option = match wire.member {
            crate::case::Member::Result => "--answer",
            crate::case::Member::Error => "--answer-error",
        };
        words.extend([option.to_owned(), wire.text.get().to_owned()]);
    }
    words
}

/// `elicit-check run [--hostile] [--url URL] [--exact-messages[=false]]
/// [--session] WORDS [-- SERVER]`, each word shell-quoted where it needs it (`--hostile` also
/// adds `--case NAME`).
fn command_line(verdict: &Verdict, words: &[String]) -> String {
    let quote = |word: &str| {
        shlex::try_quote(word).map_or_else(|_| word.to_owned(), std::borrow::Cow::into_owned)
    };
    let command = &verdict.evidence.server_command;
    let reference = is_reference_server(command);
    let replay = verdict.replay;
    let mut line = vec![PROGRAM.to_owned(), "run".to_owned()];
    let hostile = replay.kind == ReplayKind::Hostile;
    if hostile {
        line.push("--hostile".to_owned());
    }
    if let Some(url) = &verdict.evidence.url {
        line.extend(["--url".to_owned(), quote(url)]);
    }
    match replay.exact_messages {
        Some(true) if !reference => line.push("--exact-messages".to_owned()),
        Some(false) if reference => line.push("--exact-messages=false".to_owned()),
        _ => {}
    }
    if replay.session && !hostile {
        line.push("--session".to_owned());
    }
    if hostile {
        line.extend(["--case".to_owned(), quote(&verdict.case)]);
    } else {
        line.extend(words.iter().map(|word| quote(word)));
    }
    // A server already running at `--url` has no command.
    if !reference && !command.is_empty() {
        line.push("--".to_owned());
        line.extend(command.iter().map(|word| quote(word)));
    }
    line.join(" ")
}

/// Whether `command` is this executable's `serve` (the default server of `run`).
fn is_reference_server(command: &[String]) -> bool {
    match command {
        [program, serve] if serve == "serve" => {
            std::env::current_exe().is_ok_and(|exe| exe.to_string_lossy() == program.as_str())
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::compare::Mismatch;
    use crate::oracle::failure::OutcomeFailure;
    use crate::report::tests::evidence;

    /// A failed verdict of case `name` of `command`, reproduced as `replay` says.
    fn failed(name: &str, command: &[&str], replay: Replay) -> Verdict {
        let mut verdict = Verdict::new(
            json!({"status": "declined", "computed": false}),
            vec![Failure::Outcome(OutcomeFailure::Mismatch(Mismatch {
                path: "$.computed".to_owned(),
                detail: "true != false".to_owned(),
            }))],
            evidence(name, command),
        );
        verdict.replay = replay;
        verdict.settle();
        verdict
    }

    /// This executable's `serve`: the command `run` uses for the reference server.
    fn reference() -> Vec<String> {
        let exe = std::env::current_exe().expect("the test binary");
        vec![exe.to_string_lossy().into_owned(), "serve".to_owned()]
    }

    #[test]
    fn a_reproduction_over_http_repeats_the_url_and_leaves_out_a_running_servers_command() {
        let plain = Replay {
            kind: ReplayKind::Case,
            exact_messages: None,
            session: false,
        };
        let mut started = failed("decline", &["node", "server.js", "--port", "{port}"], plain);
        started.evidence.url = Some("http://127.0.0.1:{port}/mcp".to_owned());
        started.settle();
        assert_eq!(
            started.reproduce.as_deref(),
            Some(
                "elicit-check run --url 'http://127.0.0.1:{port}/mcp' --case decline -- node server.js --port '{port}'"
            )
        );
        let mut running = failed("decline", &[], plain);
        running.evidence.url = Some("http://127.0.0.1:8931/mcp".to_owned());
        running.settle();
        assert_eq!(
            running.reproduce.as_deref(),
            Some("elicit-check run --url http://127.0.0.1:8931/mcp --case decline")
        );
    }

    #[test]
    fn a_reproduction_repeats_exact_messages_and_session_when_the_run_used_them() {
        let server = ["python3", "my server.py"];
        let plain = Replay {
            kind: ReplayKind::Case,
            exact_messages: Some(false),
            session: false,
        };
        assert_eq!(
            failed("decline", &server, plain).reproduce.as_deref(),
            Some("elicit-check run --case decline -- python3 'my server.py'")
        );
        let both = Replay {
            exact_messages: Some(true),
            session: true,
            ..plain
        };
        assert_eq!(
            failed("decline", &server, both).reproduce.as_deref(),
            Some(
                "elicit-check run --exact-messages --session --case decline -- python3 'my server.py'"
            )
        );
        // The reference server is judged exactly by default: only turning that
        // off is repeated, and its command is left out.
        let reference = reference();
        let reference: Vec<&str> = reference.iter().map(String::as_str).collect();
        assert_eq!(
            failed("decline", &reference, both).reproduce.as_deref(),
            Some("elicit-check run --session --case decline")
        );
        assert_eq!(
            failed("decline", &reference, plain).reproduce.as_deref(),
            Some("elicit-check run --exact-messages=false --case decline")
        );
        // Unknown (the default for its server): nothing added.
        let default = Replay::default();
        assert_eq!(
            failed("decline", &reference, default).reproduce.as_deref(),
            Some("elicit-check run --case decline")
        );
        let mut generated = failed("generated_0042", &server, both);
        generated.seed = Some(7);
        generated.settle();
        assert_eq!(
            generated.reproduce.as_deref(),
            Some(
                "elicit-check run --exact-messages --session --case generated_0042 --seed 7 -- python3 'my server.py'"
            )
        );
        // A hostile case never repeats --session (run --hostile refuses it).
        let hostile = Replay {
            kind: ReplayKind::Hostile,
            ..both
        };
        assert_eq!(
            failed("action_empty", &server, hostile)
                .reproduce
                .as_deref(),
            Some(
                "elicit-check run --hostile --exact-messages --case action_empty -- python3 'my server.py'"
            )
        );
    }

    #[test]
    fn a_case_without_a_name_to_replay_by_reproduces_by_its_inputs() {
        let server = ["node", "server.js"];
        let answer = Replay {
            kind: ReplayKind::Answer,
            exact_messages: Some(false),
            session: false,
        };
        let mut verdict = failed(MINIMAL_CASE, &server, answer);
        verdict.evidence.input.set_wire_answer(
            crate::case::WireAnswer::result_text(
                r#"{"action":"accept","content":{"units":-0,"unit_value":7}}"#,
            )
            .expect("JSON"),
        );
        verdict.settle();
        // The contract's policy and capabilities are left out; the answer's text
        // is the one sent (-0 stays -0).
        assert_eq!(
            verdict.reproduce.as_deref(),
            Some(
                r#"elicit-check run --answer '{"action":"accept","content":{"units":-0,"unit_value":7}}' -- node server.js"#
            )
        );
        verdict.evidence.input.policy = "raw".to_owned();
        verdict.evidence.input.capabilities = json!({"elicitation": {}});
        verdict.evidence.input.set_wire_answer(
            crate::case::WireAnswer::error_text(r#"{"code":-32603,"message":"x y"}"#)
                .expect("JSON"),
        );
        verdict.settle();
        assert_eq!(
            verdict.reproduce.as_deref(),
            Some(
                r#"elicit-check run --policy raw --capabilities '{"elicitation":{}}' --answer-error '{"code":-32603,"message":"x y"}' -- node server.js"#
            )
        );
        // No answer, the contract's policy and capabilities: --policy keeps the
        // line from running the contract cases instead.
        verdict.evidence.input.policy = "validated".to_owned();
        verdict.evidence.input.capabilities = json!({"elicitation": {"form": {}}});
        verdict.evidence.input.answer = None;
        verdict.evidence.input.answer_text = None;
        verdict.settle();
        assert_eq!(
            verdict.reproduce.as_deref(),
            Some("elicit-check run --policy validated -- node server.js")
        );
        verdict.evidence.input.capabilities = json!({});
        verdict.settle();
        assert_eq!(
            verdict.reproduce.as_deref(),
            Some("elicit-check run --capabilities '{}' -- node server.js")
        );
        // The 2026-07-28 run of a case in both eras: that era alone, unless the
        // eras differed, which only both show.
        verdict.case = format!("{MINIMAL_CASE}@2026-07-28");
        verdict.replay.session = true;
        verdict.settle();
        assert_eq!(
            verdict.reproduce.as_deref(),
            Some(
                "elicit-check run --session --protocol 2026-07-28 --capabilities '{}' -- node server.js"
            )
        );
        verdict.failures.insert(
            0,
            Failure::ErasDiffer {
                legacy: Value::Null,
                modern: Value::Null,
            },
        );
        verdict.settle();
        assert_eq!(
            verdict.reproduce.as_deref(),
            Some(
                "elicit-check run --session --protocol both --capabilities '{}' -- node server.js"
            )
        );
    }

    #[test]
    fn a_verdict_of_the_2026_07_28_era_replays_in_that_era_only() {
        let server = ["server"];
        let replay = Replay {
            kind: ReplayKind::Case,
            exact_messages: Some(false),
            session: false,
        };
        // `--protocol both`: the 2026-07-28 verdict by its own name.
        let mut verdict = failed("accept_valid@2026-07-28", &server, replay);
        verdict.evidence.protocol_version = Some("2026-07-28".to_owned());
        verdict.settle();
        assert_eq!(
            verdict.reproduce.as_deref(),
            Some("elicit-check run --case accept_valid@2026-07-28 -- server")
        );
        verdict.seed = Some(7);
        verdict.case = "generated_0003@2026-07-28".to_owned();
        verdict.settle();
        assert_eq!(
            verdict.reproduce.as_deref(),
            Some("elicit-check run --case generated_0003@2026-07-28 --seed 7 -- server")
        );
        // It failed because the eras differ: both eras again.
        verdict.failures.push(Failure::ErasDiffer {
            legacy: json!({"status": "declined", "computed": false}),
            modern: Value::Null,
        });
        verdict.settle();
        assert_eq!(
            verdict.reproduce.as_deref(),
            Some("elicit-check run --protocol both --case generated_0003 --seed 7 -- server")
        );
        // `--protocol 2026-07-28`: a server that did not start negotiated no
        // version, but the case opened with server/discover.
        let mut modern = failed("accept_valid", &server, replay);
        modern.evidence.protocol_version = None;
        modern.settle();
        assert_eq!(
            modern.reproduce.as_deref(),
            Some("elicit-check run --case accept_valid -- server"),
            "no 2026-07-28 frame: the default era"
        );
        modern.evidence.wire.push(crate::harness::proxy::Frame {
            seq: 0,
            from: crate::harness::proxy::Side::Client,
            message: json!({"jsonrpc": "2.0", "id": 0, "method": "server/discover"}),
            text: None,
        });
        modern.settle();
        assert_eq!(
            modern.reproduce.as_deref(),
            Some("elicit-check run --protocol 2026-07-28 --case accept_valid -- server")
        );
        // A reply from the server saying server/discover is no request of the client.
        modern.evidence.wire[0].from = crate::harness::proxy::Side::Server;
        modern.settle();
        assert_eq!(
            modern.reproduce.as_deref(),
            Some("elicit-check run --case accept_valid -- server")
        );
        modern.evidence.protocol_version = Some("2026-07-28".to_owned());
        modern.settle();
        assert_eq!(
            modern.reproduce.as_deref(),
            Some("elicit-check run --protocol 2026-07-28 --case accept_valid -- server")
        );
    }

    #[test]
    fn the_case_in_flight_reproduces_by_name_seed_or_answer() {
        let server = ["server"];
        let replay = Replay {
            kind: ReplayKind::Case,
            exact_messages: Some(false),
            session: false,
        };
        let generated =
            Verdict::interrupted(evidence("generated_0003", &server), "terminated", replay, 9);
        assert_eq!(generated.verdict, Primary::Interrupted);
        assert_eq!(generated.seed, Some(9));
        assert_eq!(
            generated.reproduce.as_deref(),
            Some("elicit-check run --case generated_0003 --seed 9 -- server")
        );
        let contract = Verdict::interrupted(evidence("decline", &server), "terminated", replay, 9);
        assert_eq!(contract.seed, None);
        assert_eq!(
            contract.reproduce.as_deref(),
            Some("elicit-check run --case decline -- server")
        );
        let shrinking =
            Verdict::interrupted(evidence(MINIMAL_CASE, &server), "interrupted", replay, 9);
        assert_eq!(
            shrinking.reproduce.as_deref(),
            Some("elicit-check run --policy validated -- server")
        );
        assert_eq!(
            shrinking.primary,
            "the run was interrupted while this case was in flight"
        );
        let hostile = Replay {
            kind: ReplayKind::Hostile,
            ..replay
        };
        let hostile =
            Verdict::interrupted(evidence("deep_answer", &server), "terminated", hostile, 9);
        assert_eq!(
            hostile.reproduce.as_deref(),
            Some("elicit-check run --hostile --case deep_answer -- server")
        );
    }
}
