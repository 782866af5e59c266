//! The report: one verdict per case, a table for people, `results.json` for tools.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Error;
use crate::harness::Evidence;
use crate::strategy::GeneratedCase;
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
    /// Every failed check, each naming its JSON path or frame.
    pub failures: Vec<String>,
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
/// killed by the harness (README "The harness").
pub const GROUP_LEFT_RUNNING: &str = "a process of the server's process group was still running after the server exited; it was killed";

impl Verdict {
    /// A verdict from checks already run, classified ([`Verdict::settle`]);
    /// with the [`GROUP_LEFT_RUNNING`] warning when the evidence says so.
    pub fn new(expected: Value, failures: Vec<String>, evidence: Evidence) -> Self {
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
            vec![format!("{signal} while the case was in flight")],
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

/// The name of a generated case is this prefix and its number (`generated_0042`).
pub const GENERATED_PREFIX: &str = "generated_";

/// The name of the case a shrinking run judges.
pub const MINIMAL_CASE: &str = "minimal";

/// The name of the one case of `run --answer JSON`.
pub const ANSWER_CASE: &str = "answer";

/// How a reproduction command runs a case again (README, "Verdicts").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ReplayKind {
    /// By name: a contract case, or a generated one with its seed (`--case NAME`).
    #[default]
    Case,
    /// A hostile-client case (`--hostile --case NAME`).
    Hostile,
    /// By its inputs: capabilities, policy and the raw answer (`--answer JSON`),
    /// for a case that has no name to replay by: a shrunk minimal failure, or a
    /// case of `run --answer`.
    Answer,
}

/// What a failed case's reproduction command repeats of its run: how the case
/// is run again and the run's options that change a verdict (README,
/// "Verdicts": a copy-paste reproduction command).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Replay {
    /// By name, as a hostile case, or by its answer.
    pub kind: ReplayKind,
    /// Whether the run judged free text word for word (`--exact-messages`);
    /// `None`: the default for its server (on for the reference server only).
    pub exact_messages: Option<bool>,
    /// Whether the run used `--session`.
    pub session: bool,
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
        .any(|failure| failure.starts_with(crate::oracle::era::ERAS_DIFFER))
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

/// `elicit-check run [--hostile] [--exact-messages[=false]] [--session] WORDS
/// [-- SERVER]`, each word shell-quoted where it needs it (`--hostile` also
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
    if !reference {
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

/// Most stderr lines printed under a failed case.
pub const STDERR_LINES: usize = 5;

/// The last `count` non-empty lines of `text`.
pub fn last_lines(text: &str, count: usize) -> Vec<&str> {
    let lines: Vec<&str> = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect();
    lines[lines.len().saturating_sub(count)..].to_vec()
}

/// The table cell for a JSON member of the outcome (`-` when absent).
fn cell(outcome: Option<&Value>, key: &str) -> String {
    outcome.and_then(|outcome| outcome.get(key)).map_or_else(
        || "-".to_owned(),
        |value| match value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        },
    )
}

/// Width of the case column: the longest contract case name.
const CASE_WIDTH: usize = 32;

/// Writes the table's header line (case, status, computed, value, verdict).
///
/// # Errors
/// The writer's I/O error.
pub fn write_header(out: &mut impl Write) -> std::io::Result<()> {
    writeln!(
        out,
        "{:<CASE_WIDTH$}  {:<16}  {:<8}  {:<6}  verdict",
        "case", "status", "computed", "value"
    )
}

/// Writes one table row; for a failed case, under it: the primary verdict and
/// its evidence first (`    case: crashed: exit code 3 ...`), then the failures
/// that add information beyond it ([`verdict::secondary`]), the last [`STDERR_LINES`] lines of the server's
/// stderr when there are any, and the reproduction command. Long lines are cut
/// at [`MAX_FAILURE_CHARS`]; `results.json` keeps them whole. A case's
/// warnings are not shown here but once per run ([`RunWarning`]).
///
/// # Errors
/// The writer's I/O error.
pub fn write_row(out: &mut impl Write, verdict: &Verdict) -> std::io::Result<()> {
    // A server may answer in JSON text content only (judging by meaning).
    let outcome = verdict.evidence.outcome.as_ref().or(verdict
        .evidence
        .text_outcome
        .as_ref()
        .filter(|text| text.is_object()));
    writeln!(
        out,
        "{:<CASE_WIDTH$}  {:<16}  {:<8}  {:<6}  {}",
        verdict.case,
        match (outcome, &verdict.evidence.rpc_error) {
            // 2026-07-28: a refused call has no outcome, only its JSON-RPC error code.
            (None, Some(error)) => format!("jsonrpc {}", error["code"]),
            _ => cell(outcome, "status"),
        },
        cell(outcome, "computed"),
        cell(outcome, "value"),
        if verdict.passed { "pass" } else { "FAIL" }
    )?;
    let case = &verdict.case;
    if !verdict.passed {
        write_primary(out, case, verdict.verdict.name(), &verdict.primary)?;
        let finding = verdict::Finding {
            verdict: verdict.verdict,
            evidence: verdict.primary.clone(),
        };
        for failure in verdict::secondary(&finding, verdict.evidence.started, &verdict.failures) {
            writeln!(out, "    {case}: {}", shorten(failure))?;
        }
    }
    if !verdict.passed {
        let stderr = last_lines(&verdict.evidence.stderr, STDERR_LINES);
        if !stderr.is_empty() {
            writeln!(out, "    {case}: server stderr (last lines):")?;
            for line in stderr {
                writeln!(out, "    {case}:   | {}", shorten(line))?;
            }
        }
        let reproduce = verdict
            .reproduce
            .clone()
            .unwrap_or_else(|| reproduction(verdict));
        write_reproduce(out, case, &reproduce)?;
    }
    Ok(())
}

/// The first line under a failed case's row: `    CASE: VERDICT: EVIDENCE`.
fn write_primary(
    out: &mut impl Write,
    case: &str,
    verdict: &str,
    primary: &str,
) -> std::io::Result<()> {
    writeln!(out, "    {case}: {verdict}: {}", shorten(primary))
}

/// The last line under a failed case's row: `    CASE: reproduce: COMMAND`.
fn write_reproduce(out: &mut impl Write, case: &str, reproduce: &str) -> std::io::Result<()> {
    writeln!(out, "    {case}: reproduce: {reproduce}")
}

/// Most failed generated cases [`write_failed_generated`] prints; the others
/// are in `results.json`.
pub const MAX_FAILED_GENERATED_SHOWN: usize = 10;

/// Writes the failed generated cases, which have no table row (the table lists
/// the contract cases as they finish, the generated ones run under a progress
/// bar): for each of the first [`MAX_FAILED_GENERATED_SHOWN`], the lines a row
/// has first and last, its primary verdict with its evidence and its
/// reproduction command; then `... and N more failed generated cases: see
/// results.json`. `tallies` and `cases` are the run's cases in order (a
/// [`Tally`] says which are generated).
///
/// # Errors
/// The writer's I/O error.
pub fn write_failed_generated(
    out: &mut impl Write,
    tallies: &[Tally],
    cases: &[CaseLine],
) -> std::io::Result<()> {
    let failed: Vec<&CaseLine> = tallies
        .iter()
        .zip(cases)
        .filter(|(tally, _)| tally.generated && !tally.passed)
        .map(|(_, case)| case)
        .collect();
    for case in failed.iter().take(MAX_FAILED_GENERATED_SHOWN) {
        write_primary(out, &case.case, &case.verdict, &case.primary)?;
        if let Some(reproduce) = &case.reproduce {
            write_reproduce(out, &case.case, reproduce)?;
        }
    }
    if failed.len() > MAX_FAILED_GENERATED_SHOWN {
        writeln!(
            out,
            "... and {}: see results.json",
            crate::format::counted(
                failed.len() - MAX_FAILED_GENERATED_SHOWN,
                "more failed generated case"
            )
        )?;
    }
    Ok(())
}

/// Most characters of one failure printed in the table.
pub const MAX_FAILURE_CHARS: usize = 300;

/// `text` cut at [`MAX_FAILURE_CHARS`] characters, with the length it had.
fn shorten(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(MAX_FAILURE_CHARS) {
        None => text.into(),
        Some((end, _)) => format!("{}… ({} bytes in all)", &text[..end], text.len()).into(),
    }
}

/// `N passed, N failed` (the plain closing line CI reads).
pub fn summary(verdicts: &[Verdict]) -> String {
    let passed = verdicts.iter().filter(|v| v.passed).count();
    format!("{passed} passed, {} failed", verdicts.len() - passed)
}

/// Shortest time between two rewrites of `results.json` during a run; a
/// rewrite also waits [`CHECKPOINT_COST_FACTOR`] times as long as the last one
/// took, so a long run stays linear. `results.jsonl` gets every verdict at once.
pub const CHECKPOINT_INTERVAL: Duration = Duration::from_secs(1);

/// A checkpoint of `results.json` waits at least this many times its own cost.
pub const CHECKPOINT_COST_FACTOR: u32 = 20;

/// What a run keeps in memory of one finished case: enough for the summary
/// line and `run.json` (the evidence itself is on disk only, so a run's
/// memory stays flat whatever `--cases` is).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// The case's name.
    pub case: String,
    /// Whether it passed.
    pub passed: bool,
    /// Its primary verdict.
    pub verdict: Primary,
    /// Whether it is a generated case (it has a reason).
    pub generated: bool,
}

/// `N passed, N failed` of `tallies` (the plain closing line CI reads).
pub fn tally_summary(tallies: &[Tally]) -> String {
    let passed = tallies.iter().filter(|tally| tally.passed).count();
    format!("{passed} passed, {} failed", tallies.len() - passed)
}

/// The number of failed cases per primary verdict, in [`Primary::ALL`] order
/// (`{"crashed": 3, "hung": 2}`), for `run.json`.
pub fn verdict_counts(tallies: &[Tally]) -> Value {
    let mut counts = serde_json::Map::new();
    for verdict in Primary::ALL {
        let count = tallies
            .iter()
            .filter(|tally| !tally.passed && tally.verdict == verdict)
            .count();
        if count > 0 {
            counts.insert(verdict.name().to_owned(), count.into());
        }
    }
    Value::Object(counts)
}

/// One case in the document of `run --json` ([`run_document`]): the members of
/// its verdict in `results.json` that a CI system groups and reports by, without
/// the evidence (README, "Verdicts": `run.json` and `--json` carry the verdict
/// name, so CI can group failures).
///
/// JSON shape: `{"case": "accept_valid", "passed": false, "verdict": "crashed",
/// "primary": "exit code 3 before replying to tools/call", "reproduce":
/// "elicit-check run --case accept_valid -- ..."}` (`reproduce` only for a
/// failed case).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseLine {
    /// The case's name.
    pub case: String,
    /// Whether it passed.
    pub passed: bool,
    /// Its primary verdict's name (`passed`, `crashed`, `hung`, ...).
    pub verdict: String,
    /// The evidence line of that verdict.
    pub primary: String,
    /// A failed case's reproduction command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reproduce: Option<String>,
}

/// The last record of `results.jsonl` (and so the last element of
/// `results.json`) of a run that did not finish: how it ended, in the words of
/// `run.json`'s `status`, `cases` and `stopped_because` (a run that
/// did not finish says so in all three files). A finished run has none.
///
/// JSON shape: `{"run_status": "stopped", "cases": 2, "stopped_because":
/// "stopped after 2 consecutive hung cases ..."}`. It has no `case` member, which
/// is how a reader of verdicts tells it apart (README "The evidence folder").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunEnd {
    /// `stopped`, `interrupted` or `aborted`.
    pub run_status: String,
    /// The verdicts recorded before it.
    pub cases: usize,
    /// Why the run ended early, as in `run.json`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_because: Option<String>,
}

/// One line of `results.jsonl`: a case's verdict, or the run's [`RunEnd`].
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Record {
    Case(CaseLine),
    End(#[allow(dead_code)] RunEnd),
}

/// The one JSON document `elicit-check run --json` prints on stdout: the members
/// of `run.json` (`summary` with `"status": status` first) and `results`, one
/// [`CaseLine`] per case in case order. Shape: `schemas/run-report.schema.json`
/// (README, "Verdicts"; the conventions of `check --json`: one pretty-printed
/// document, nothing else on stdout).
pub fn run_document(summary: &Value, status: &str, results: Vec<CaseLine>) -> Value {
    let mut document = match with_status(summary, status) {
        Value::Object(members) => members,
        _ => serde_json::Map::new(),
    };
    document.insert(
        "results".to_owned(),
        Value::Array(
            results
                .into_iter()
                .map(|line| serde_json::to_value(line).unwrap_or(Value::Null))
                .collect(),
        ),
    );
    Value::Object(document)
}

/// The evidence folder of one run. The three files always describe the same run:
/// - `run.json`: the run's summary (server command, seed, counts, minimal
///   failure) and its `status`: `in_progress` from the moment the folder is
///   created, then `finished`, `interrupted`, `stopped` (a bound hit: the server
///   did not start or hung) or `aborted` (an error);
/// - `results.jsonl`: one verdict per line, appended and flushed as each case
///   ends; when the run did not finish, a last [`RunEnd`] line says how it ended;
/// - `results.json`: the array of all verdicts, rebuilt from `results.jsonl` and
///   replaced atomically (write, then rename) at checkpoints (see
///   [`CHECKPOINT_INTERVAL`]) and at [`EvidenceLog::finish`], so it is never
///   empty or half-written, even when the run is interrupted.
///
/// Only a [`Tally`] per case stays in memory. An earlier run's files in the same
/// folder are replaced, so create the log only after the run's arguments are
/// known to be valid.
#[derive(Debug)]
pub struct EvidenceLog {
    dir: PathBuf,
    inner: Mutex<LogState>,
}

#[derive(Debug)]
struct LogState {
    lines: std::fs::File,
    tallies: Vec<Tally>,
    last_checkpoint: Option<Instant>,
    checkpoint_cost: Duration,
    /// Cases started but not logged yet, by (phase, case number): their name
    /// and, once judged, their verdicts (a case before them is still running,
    /// `-j N`, or their session batch has not ended, `--session`).
    stash: std::collections::BTreeMap<(usize, usize), (String, Vec<Verdict>)>,
    /// Each distinct warning of the run, in first-seen order, with the cases it
    /// came with.
    warnings: Vec<RunWarning>,
}

/// One warning of a run, shown once in the closing lines however many cases
/// gave it (a `requestedSchema` key outside the MCP restricted subset comes
/// with every case that asks); `results.json` keeps it under each case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunWarning {
    /// The warning's text, as under each case in `results.json`.
    pub text: String,
    /// The first case that gave it.
    pub first_case: String,
    /// How many cases gave it.
    pub cases: usize,
}

impl std::fmt::Display for RunWarning {
    /// `warning (accept_valid): TEXT` for one case, `warning (83 cases): TEXT`
    /// for more.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.cases {
            1 => write!(f, "warning ({}): {}", self.first_case, self.text),
            cases => write!(f, "warning ({cases} cases): {}", self.text),
        }
    }
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> Error {
    let path = path.to_owned();
    move |source| Error::Io { path, source }
}

impl EvidenceLog {
    /// [`EvidenceLog::create_for_run`] with no run details.
    ///
    /// # Errors
    /// As [`EvidenceLog::create_for_run`].
    pub fn create(dir: &Path) -> Result<Self, Error> {
        Self::create_for_run(dir, &Value::Object(serde_json::Map::new()))
    }

    /// Creates `dir` (and parents), writes `run.json` (`run`'s members with
    /// `"status": "in_progress"`), starts an empty `results.jsonl` and writes an
    /// empty `results.json`, so a run that cannot write its evidence fails before
    /// any case runs and the three files agree from the start.
    ///
    /// # Errors
    /// [`Error::Io`] when the folder or a file cannot be written.
    pub fn create_for_run(dir: &Path, run: &Value) -> Result<Self, Error> {
        std::fs::create_dir_all(dir).map_err(io_error(dir))?;
        let lines_path = dir.join("results.jsonl");
        let lines = std::fs::File::create(&lines_path).map_err(io_error(&lines_path))?;
        let log = EvidenceLog {
            dir: dir.to_owned(),
            inner: Mutex::new(LogState {
                lines,
                tallies: Vec::new(),
                last_checkpoint: None,
                checkpoint_cost: Duration::ZERO,
                stash: std::collections::BTreeMap::new(),
                warnings: Vec::new(),
            }),
        };
        log.write_json("run.json", &with_status(run, "in_progress"))?;
        log.write_json("results.json", &Vec::<Verdict>::new())?;
        Ok(log)
    }

    /// Notes that case `name` at `key` (phase, case number) has started, so a
    /// stopped run can log it in its place ([`EvidenceLog::push_stopped`]).
    pub fn stash_started(&self, key: (usize, usize), name: &str) {
        self.state()
            .stash
            .entry(key)
            .or_insert_with(|| (name.to_owned(), Vec::new()));
    }

    /// Keeps the verdicts of the case at `key` until [`EvidenceLog::unstash`]
    /// (the run logs them in case order) or [`EvidenceLog::push_stopped`] (the
    /// run was stopped first); a later stash under the same key replaces them.
    pub fn stash(&self, key: (usize, usize), verdicts: Vec<Verdict>) {
        let name = verdicts
            .first()
            .map(|verdict| verdict.case.clone())
            .unwrap_or_default();
        let mut state = self.state();
        let entry = state.stash.entry(key).or_insert_with(|| (name, Vec::new()));
        entry.1 = verdicts;
    }

    /// Forgets the case stashed at `key`: the run is logging it itself.
    pub fn unstash(&self, key: (usize, usize)) {
        self.state().stash.remove(&key);
    }

    /// Logs what a run stopped by Ctrl-C or SIGTERM has of the cases it had
    /// started, in case order (nothing lost): each case
    /// in flight, `interrupted` (one verdict each, in the place of the started
    /// case of its name, `NAME@2026-07-28` in the place of `NAME`), and each
    /// case judged but not logged yet (it finished behind a case in flight, or
    /// in a session batch that had not ended). Started cases with neither are
    /// left out; the stash is emptied. Returns the verdicts it logged, in that
    /// order (for the table's rows).
    ///
    /// # Errors
    /// As [`EvidenceLog::push`].
    pub fn push_stopped(&self, interrupted: Vec<Verdict>) -> Result<Vec<Verdict>, Error> {
        let mut stashed = std::mem::take(&mut self.state().stash);
        let mut unplaced = Vec::new();
        for verdict in interrupted {
            let base = verdict.case.split('@').next().unwrap_or_default();
            match stashed
                .values_mut()
                .find(|(name, verdicts)| name == base && verdicts.is_empty())
            {
                Some((_, verdicts)) => verdicts.push(verdict),
                None => unplaced.push(verdict),
            }
        }
        let mut logged = Vec::new();
        for verdict in stashed
            .into_values()
            .flat_map(|(_, verdicts)| verdicts)
            .chain(unplaced)
        {
            logged.push(verdict.clone());
            self.push(verdict)?;
        }
        Ok(logged)
    }

    /// Appends `record` as one line to `results.jsonl` and flushes it.
    ///
    /// # Errors
    /// [`Error::Json`] or [`Error::Io`] naming `results.jsonl`.
    fn append_line(&self, state: &mut LogState, record: &impl Serialize) -> Result<(), Error> {
        let path = self.dir.join("results.jsonl");
        let line = serde_json::to_string(record).map_err(|source| Error::Json {
            path: path.clone(),
            source,
        })?;
        writeln!(state.lines, "{line}")
            .and_then(|()| state.lines.flush())
            .map_err(io_error(&path))
    }

    fn state(&self) -> std::sync::MutexGuard<'_, LogState> {
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Records one verdict: appended to `results.jsonl` at once, and to
    /// `results.json` at the next checkpoint; only its [`Tally`] is kept.
    ///
    /// # Errors
    /// [`Error::Io`] when a file cannot be written.
    pub fn push(&self, verdict: Verdict) -> Result<(), Error> {
        let mut state = self.state();
        self.append_line(&mut state, &verdict)?;
        for text in &verdict.warnings {
            match state.warnings.iter_mut().find(|seen| &seen.text == text) {
                Some(seen) => seen.cases += 1,
                None => state.warnings.push(RunWarning {
                    text: text.clone(),
                    first_case: verdict.case.clone(),
                    cases: 1,
                }),
            }
        }
        state.tallies.push(Tally {
            case: verdict.case,
            passed: verdict.passed,
            verdict: verdict.verdict,
            generated: verdict.reason.is_some(),
        });
        let due = state.last_checkpoint.is_none_or(|last| {
            last.elapsed()
                >= CHECKPOINT_INTERVAL.max(state.checkpoint_cost * CHECKPOINT_COST_FACTOR)
        });
        if due {
            let started = Instant::now();
            self.write_results()?;
            state.checkpoint_cost = started.elapsed();
            state.last_checkpoint = Some(Instant::now());
        }
        Ok(())
    }

    /// How many of the verdicts recorded so far are `verdict`, counted back from
    /// the last one until one is not (the `hung` cases in a row).
    pub fn trailing(&self, verdict: Primary) -> usize {
        self.state()
            .tallies
            .iter()
            .rev()
            .take_while(|tally| tally.verdict == verdict)
            .count()
    }

    /// Each distinct warning of the cases recorded so far, in first-seen order,
    /// with the number of cases that gave it.
    pub fn warnings(&self) -> Vec<RunWarning> {
        self.state().warnings.clone()
    }

    /// The [`Tally`] of every case recorded so far, in order.
    pub fn tallies(&self) -> Vec<Tally> {
        self.state().tallies.clone()
    }

    /// Every verdict recorded so far, read back from `results.jsonl` as JSON.
    ///
    /// # Errors
    /// [`Error::Io`] or [`Error::Json`] when the file cannot be read back.
    pub fn read_verdicts(&self) -> Result<Vec<Value>, Error> {
        let _state = self.state();
        let path = self.dir.join("results.jsonl");
        let text = std::fs::read_to_string(&path).map_err(io_error(&path))?;
        text.lines()
            .map(|line| {
                serde_json::from_str(line).map_err(|source| Error::Json {
                    path: path.clone(),
                    source,
                })
            })
            .collect()
    }

    /// The [`CaseLine`] of every verdict recorded so far, read back from
    /// `results.jsonl` line by line (only these few members are kept, so the
    /// evidence is never all in memory); a [`RunEnd`] record is no case.
    ///
    /// # Errors
    /// [`Error::Io`] or [`Error::Json`] when the file cannot be read back.
    pub fn case_lines(&self) -> Result<Vec<CaseLine>, Error> {
        use std::io::BufRead;
        let _state = self.state();
        let path = self.dir.join("results.jsonl");
        let file = std::fs::File::open(&path).map_err(io_error(&path))?;
        let mut lines = Vec::new();
        for line in std::io::BufReader::new(file).lines() {
            let line = line.map_err(io_error(&path))?;
            if line.is_empty() {
                continue;
            }
            let record = serde_json::from_str(&line).map_err(|source| Error::Json {
                path: path.clone(),
                source,
            })?;
            if let Record::Case(case) = record {
                lines.push(case);
            }
        }
        Ok(lines)
    }

    /// Writes the final `results.json` and `run.json` (`summary`'s members with
    /// `"status": status`); returns the path of `results.json`. A run that did
    /// not finish (`status` other than `finished`) first gets its [`RunEnd`]
    /// record appended to `results.jsonl`, so all three files say how it ended.
    ///
    /// # Errors
    /// [`Error::Io`] when a file cannot be written.
    pub fn finish(&self, summary: &Value, status: &str) -> Result<PathBuf, Error> {
        let mut state = self.state();
        if status != "finished" {
            let end = RunEnd {
                run_status: status.to_owned(),
                cases: state.tallies.len(),
                stopped_because: summary
                    .get("stopped_because")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            };
            self.append_line(&mut state, &end)?;
        }
        let results = self.write_results()?;
        self.write_json("run.json", &with_status(summary, status))?;
        Ok(results)
    }

    /// Rebuilds `results.json` from `results.jsonl`, line by line (never the whole
    /// run in memory), atomically.
    fn write_results(&self) -> Result<PathBuf, Error> {
        use std::io::BufRead;
        let lines_path = self.dir.join("results.jsonl");
        let path = self.dir.join("results.json");
        let partial = self.dir.join(".results.json.partial");
        let source = std::fs::File::open(&lines_path).map_err(io_error(&lines_path))?;
        let file = std::fs::File::create(&partial).map_err(io_error(&partial))?;
        let mut out = std::io::BufWriter::new(file);
        let mut first = true;
        let copy = || -> std::io::Result<()> {
            out.write_all(b"[")?;
            for line in std::io::BufReader::new(source).lines() {
                let line = line?;
                if line.is_empty() {
                    continue;
                }
                out.write_all(if first { b"\n" } else { b",\n" })?;
                out.write_all(line.as_bytes())?;
                first = false;
            }
            out.write_all(b"\n]\n")?;
            out.flush()
        };
        copy().map_err(io_error(&partial))?;
        std::fs::rename(&partial, &path).map_err(io_error(&path))?;
        Ok(path)
    }

    /// Writes `value` as pretty JSON to `name` in the folder, atomically.
    fn write_json(&self, name: &str, value: &impl Serialize) -> Result<PathBuf, Error> {
        let path = self.dir.join(name);
        let partial = self.dir.join(format!(".{name}.partial"));
        let text = serde_json::to_string_pretty(value).map_err(|source| Error::Json {
            path: path.clone(),
            source,
        })?;
        std::fs::write(&partial, text + "\n").map_err(io_error(&partial))?;
        std::fs::rename(&partial, &path).map_err(io_error(&path))?;
        Ok(path)
    }
}

/// `run` (an object) with `"status": status` first.
fn with_status(run: &Value, status: &str) -> Value {
    let mut members = serde_json::Map::new();
    members.insert("status".to_owned(), status.into());
    if let Some(run) = run.as_object() {
        members.extend(
            run.iter()
                .filter(|(key, _)| *key != "status")
                .map(|(key, value)| (key.clone(), value.clone())),
        );
    }
    Value::Object(members)
}

/// A generated case's failure in its minimal form, one item per line: reason,
/// capabilities, policy, answer, outcome and expected outcome. Used by the
/// properties and by `elicit-check run --cases N` alike.
pub fn explain(generated: &GeneratedCase, outcome: &Value) -> String {
    format!(
        "\n  reason:       {}\n  capabilities: {}\n  policy:       {}\n  answer:       {}\n  outcome:      {}\n  expected:     {}",
        generated.reason,
        generated.case.capabilities,
        generated.case.policy,
        serde_json::to_string(&generated.case.answer).unwrap_or_default(),
        outcome,
        generated.expected
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use serde_json::json;

    use super::*;
    use crate::case::Case;

    /// The evidence of a case named `name` of `command` that ran and passed.
    pub(crate) fn evidence(name: &str, command: &[&str]) -> Evidence {
        Evidence {
            case: name.to_owned(),
            input: Case {
                name: name.to_owned(),
                policy: "validated".to_owned(),
                capabilities: json!({"elicitation": {"form": {}}}),
                answer: None,
                answer_text: None,
            },
            elicit_check_version: env!("CARGO_PKG_VERSION"),
            rmcp_version: crate::harness::evidence::RMCP_VERSION,
            server_command: command.iter().map(|word| (*word).to_owned()).collect(),
            pid: Some(7),
            protocol_version: Some("2025-11-25".to_owned()),
            wire: Vec::new(),
            timeline: Vec::new(),
            callbacks: 1,
            stray_stdout: Vec::new(),
            stray_stdout_not_kept: 0,
            stderr: String::new(),
            exit_code: Some(0),
            exit_signal: None,
            forced_kill: false,
            shutdown_grace_secs: 5.0,
            group_left_running: false,
            outcome: Some(json!({"status": "declined", "computed": false})),
            text_outcome: None,
            error: None,
            started: true,
            rpc_error: None,
        }
    }

    /// A fresh evidence folder, removed when dropped.
    struct Folder(PathBuf);

    impl Drop for Folder {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn folder(test: &str) -> Folder {
        let dir = std::env::temp_dir().join(format!(
            "elicit-check-unit-{}-report-{test}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        Folder(dir)
    }

    fn lines(dir: &Path) -> Vec<Value> {
        std::fs::read_to_string(dir.join("results.jsonl"))
            .expect("results.jsonl")
            .lines()
            .map(|line| serde_json::from_str(line).expect("a JSON line"))
            .collect()
    }

    /// A failed verdict of case `name` of `command`, reproduced as `replay` says.
    fn failed(name: &str, command: &[&str], replay: Replay) -> Verdict {
        let mut verdict = Verdict::new(
            json!({"status": "declined", "computed": false}),
            vec!["outcome $.computed: true != false".to_owned()],
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
            "the eras differ: 2025-11-25 gave null, 2026-07-28 gave null".to_owned(),
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
        verdict.failures.push(
            "the eras differ: 2025-11-25 gave {\"status\":\"declined\",\"computed\":false}, \
             2026-07-28 gave null"
                .to_owned(),
        );
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

    #[test]
    fn failed_generated_cases_are_shown_as_under_a_row_at_most_ten() {
        let tally = |case: &str, passed: bool, generated: bool| Tally {
            case: case.to_owned(),
            passed,
            verdict: if passed {
                Primary::Passed
            } else {
                Primary::Hung
            },
            generated,
        };
        let line = |case: &str, passed: bool| CaseLine {
            case: case.to_owned(),
            passed,
            verdict: if passed { "passed" } else { "hung" }.to_owned(),
            primary: if passed {
                "every check held"
            } else {
                "no reply to tools/call within 1 s"
            }
            .to_owned(),
            reproduce: (!passed).then(|| format!("elicit-check run --case {case} --seed 3")),
        };
        // A failed contract case (it has its row) and a passed generated case
        // are not shown; the failed generated ones are.
        let mut tallies = vec![
            tally("decline", false, false),
            tally("generated_0001", true, true),
        ];
        let mut lines = vec![line("decline", false), line("generated_0001", true)];
        for index in 2..=12 {
            let name = format!("generated_{index:04}");
            tallies.push(tally(&name, false, true));
            lines.push(line(&name, false));
        }
        let shown = |tallies: &[Tally], lines: &[CaseLine]| {
            let mut out = Vec::new();
            write_failed_generated(&mut out, tallies, lines).expect("written");
            String::from_utf8(out).expect("UTF-8")
        };
        let text = shown(&tallies[..3], &lines[..3]);
        assert_eq!(
            text,
            "    generated_0002: hung: no reply to tools/call within 1 s\n    \
             generated_0002: reproduce: elicit-check run --case generated_0002 --seed 3\n"
        );
        // Eleven failed: ten shown, then one more (in the singular).
        let text = shown(&tallies, &lines);
        let all: Vec<&str> = text.lines().collect();
        assert_eq!(all.len(), 21, "{text}");
        assert_eq!(
            all[0],
            "    generated_0002: hung: no reply to tools/call within 1 s"
        );
        assert_eq!(
            all[19],
            "    generated_0011: reproduce: elicit-check run --case generated_0011 --seed 3"
        );
        assert_eq!(
            all[20],
            "... and 1 more failed generated case: see results.json"
        );
        // Exactly ten: no "more" line.
        assert_eq!(shown(&tallies[..12], &lines[..12]).lines().count(), 20);
        assert_eq!(shown(&tallies[..2], &lines[..2]), "");
    }

    #[test]
    fn a_run_that_did_not_finish_ends_both_result_files_with_how_it_ended() {
        let passed = || {
            Verdict::new(
                json!({"status": "declined", "computed": false}),
                Vec::new(),
                evidence("decline", &["server"]),
            )
        };
        let dir = folder("finished");
        let log = EvidenceLog::create(&dir.0).expect("a folder");
        log.push(passed()).expect("written");
        log.finish(&json!({"cases": 1}), "finished")
            .expect("written");
        let finished = lines(&dir.0);
        assert_eq!(finished.len(), 1, "a finished run has no end record");
        assert_eq!(finished[0]["case"], "decline");

        let dir = folder("stopped");
        let log = EvidenceLog::create(&dir.0).expect("a folder");
        log.push(passed()).expect("written");
        log.push(passed()).expect("written");
        log.finish(
            &json!({"cases": 2, "stopped_because": "stopped after 2 consecutive hung cases"}),
            "stopped",
        )
        .expect("written");
        let stopped = lines(&dir.0);
        assert_eq!(stopped.len(), 3);
        assert_eq!(
            stopped[2],
            json!({"run_status": "stopped", "cases": 2, "stopped_because": "stopped after 2 consecutive hung cases"})
        );
        let results: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.0.join("results.json")).expect("results.json"),
        )
        .expect("JSON");
        assert_eq!(results, Value::Array(stopped));
        let run: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.0.join("run.json")).expect("run.json"),
        )
        .expect("JSON");
        assert_eq!(run["status"], "stopped");
        // The end record is no case of `run --json`.
        let cases = log.case_lines().expect("read back");
        assert_eq!(
            cases
                .iter()
                .map(|line| line.case.as_str())
                .collect::<Vec<_>>(),
            ["decline", "decline"]
        );
        // Without a reason given, the record has none.
        let dir = folder("aborted");
        let log = EvidenceLog::create(&dir.0).expect("a folder");
        log.finish(&json!({}), "aborted").expect("written");
        assert_eq!(
            lines(&dir.0),
            [json!({"run_status": "aborted", "cases": 0})]
        );
    }
}
