//! The report: one verdict per case, a table for people, `results.json` for tools.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use crate::error::Error;
use crate::harness::Evidence;
use crate::strategy::GeneratedCase;

/// The verdict of one case: its evidence, what was expected, and every failure.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    /// The case's name.
    pub case: String,
    /// `true` when `failures` is empty.
    pub passed: bool,
    /// The expected outcome (hand-written, or from the oracle for generated cases).
    pub expected: Value,
    /// Every failed check, each naming its JSON path or frame.
    pub failures: Vec<String>,
    /// Findings that do not fail the case (issue 8, section 1): e.g. a
    /// `requestedSchema` key outside the MCP restricted subset. Kept apart from
    /// `failures`; `passed` ignores them.
    pub warnings: Vec<String>,
    /// Why a generated case was built (`None` for contract cases).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Everything the harness recorded.
    pub evidence: Evidence,
}

impl Verdict {
    /// A verdict from checks already run.
    pub fn new(expected: Value, failures: Vec<String>, evidence: Evidence) -> Self {
        Verdict {
            case: evidence.case.clone(),
            passed: failures.is_empty(),
            expected,
            failures,
            warnings: Vec::new(),
            reason: None,
            evidence,
        }
    }
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

/// Writes one table row, then each failure under it, then each warning
/// (`    case: warning: ...`; long lines cut at
/// [`MAX_FAILURE_CHARS`]; `results.json` keeps them whole).
///
/// # Errors
/// The writer's I/O error.
pub fn write_row(out: &mut impl Write, verdict: &Verdict) -> std::io::Result<()> {
    // A server may answer in JSON text content only (issue 8, section 1).
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
    for failure in &verdict.failures {
        writeln!(out, "    {}: {}", verdict.case, shorten(failure))?;
    }
    for warning in &verdict.warnings {
        writeln!(out, "    {}: warning: {}", verdict.case, shorten(warning))?;
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

/// Shortest time between two rewrites of `results.json` during a run, so a long
/// run stays linear; `results.jsonl` gets every verdict at once.
pub const CHECKPOINT_INTERVAL: Duration = Duration::from_secs(1);

/// The evidence folder of one run:
/// - `results.jsonl`: one verdict per line, appended and flushed as each case ends;
/// - `results.json`: the array of all verdicts, replaced atomically (write, then
///   rename) at most every [`CHECKPOINT_INTERVAL`] and at [`EvidenceLog::finish`],
///   so it is never empty or half-written, even when the run is interrupted;
/// - `run.json`: the run's summary (server command, seed, counts, minimal failure).
///
/// An earlier run's files in the same folder are replaced.
#[derive(Debug)]
pub struct EvidenceLog {
    dir: PathBuf,
    inner: Mutex<LogState>,
}

#[derive(Debug)]
struct LogState {
    lines: std::fs::File,
    verdicts: Vec<Verdict>,
    last_checkpoint: Option<Instant>,
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> Error {
    let path = path.to_owned();
    move |source| Error::Io { path, source }
}

impl EvidenceLog {
    /// Creates `dir` (and parents), starts an empty `results.jsonl` and writes an
    /// empty `results.json`, so a run that cannot write its evidence fails before
    /// any case runs.
    ///
    /// # Errors
    /// [`Error::Io`] when the folder or a file cannot be written.
    pub fn create(dir: &Path) -> Result<Self, Error> {
        std::fs::create_dir_all(dir).map_err(io_error(dir))?;
        let lines_path = dir.join("results.jsonl");
        let lines = std::fs::File::create(&lines_path).map_err(io_error(&lines_path))?;
        let log = EvidenceLog {
            dir: dir.to_owned(),
            inner: Mutex::new(LogState {
                lines,
                verdicts: Vec::new(),
                last_checkpoint: None,
            }),
        };
        log.write_json("results.json", &Vec::<Verdict>::new())?;
        Ok(log)
    }

    fn state(&self) -> std::sync::MutexGuard<'_, LogState> {
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Records one verdict: appended to `results.jsonl` at once, and to
    /// `results.json` at the next checkpoint.
    ///
    /// # Errors
    /// [`Error::Io`] when a file cannot be written.
    pub fn push(&self, verdict: Verdict) -> Result<(), Error> {
        let mut state = self.state();
        let path = self.dir.join("results.jsonl");
        let line = serde_json::to_string(&verdict).map_err(|source| Error::Json {
            path: path.clone(),
            source,
        })?;
        writeln!(state.lines, "{line}")
            .and_then(|()| state.lines.flush())
            .map_err(io_error(&path))?;
        state.verdicts.push(verdict);
        let due = state
            .last_checkpoint
            .is_none_or(|last| last.elapsed() >= CHECKPOINT_INTERVAL);
        if due {
            state.last_checkpoint = Some(Instant::now());
            self.write_json("results.json", &state.verdicts)?;
        }
        Ok(())
    }

    /// A copy of every verdict recorded so far.
    pub fn verdicts(&self) -> Vec<Verdict> {
        self.state().verdicts.clone()
    }

    /// Writes the final `results.json` and `run.json` (`summary`); returns the
    /// path of `results.json`.
    ///
    /// # Errors
    /// [`Error::Io`] when a file cannot be written.
    pub fn finish(&self, summary: &Value) -> Result<PathBuf, Error> {
        let state = self.state();
        self.write_json("run.json", summary)?;
        self.write_json("results.json", &state.verdicts)
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
