//! The evidence folder of one run (`run-output/` by default): `run.json`,
//! `results.jsonl` and `results.json` written as cases end, the cases in flight
//! stashed until they are logged in case order, and the run's warnings.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use super::case_verdict::Verdict;
use super::run_document::{CaseLine, Record, RunEnd, with_status};
use super::tally::CaseTally;
use crate::error::Error;
use crate::verdict::Primary;

/// Shortest time between two rewrites of `results.json` during a run; a
/// rewrite also waits [`CHECKPOINT_COST_FACTOR`] times as long as the last one
/// took, so a long run stays linear. `results.jsonl` gets every verdict at once.
pub const CHECKPOINT_INTERVAL: Duration = Duration::from_secs(1);

/// A checkpoint of `results.json` waits at least this many times its own cost.
pub const CHECKPOINT_COST_FACTOR: u32 = 20;

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
/// Only a [`CaseTally`] per case stays in memory. An earlier run's files in the same
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
    tallies: Vec<CaseTally>,
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
    /// `results.json` at the next checkpoint; only its [`CaseTally`] is kept.
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
        state.tallies.push(CaseTally {
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

    /// The [`CaseTally`] of every case recorded so far, in order.
    pub fn tallies(&self) -> Vec<CaseTally> {
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
        let source = std::fs::File::open(&lines_path).map_err(io_error(&lines_path))?;
        let partial = partial_file(&self.dir, "results.json")?;
        let mut first = true;
        let copy = |file: &std::fs::File| -> std::io::Result<()> {
            let mut out = std::io::BufWriter::new(file);
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
        copy(partial.as_file()).map_err(io_error(partial.path()))?;
        partial
            .persist(&path)
            .map_err(|failed| io_error(&path)(failed.error))?;
        Ok(path)
    }

    /// Writes `value` as pretty JSON to `name` in the folder, atomically.
    fn write_json(&self, name: &str, value: &impl Serialize) -> Result<PathBuf, Error> {
        let path = self.dir.join(name);
        let text = serde_json::to_string_pretty(value).map_err(|source| Error::Json {
            path: path.clone(),
            source,
        })?;
        let mut partial = partial_file(&self.dir, name)?;
        partial
            .write_all((text + "\n").as_bytes())
            .map_err(io_error(partial.path()))?;
        partial
            .persist(&path)
            .map_err(|failed| io_error(&path)(failed.error))?;
        Ok(path)
    }
}

/// A new file `.NAME.XXXXXX.partial` in `dir`, renamed over `dir/NAME` once
/// written (so a reader never sees half a file) and removed if the run stops
/// before that.
fn partial_file(dir: &Path, name: &str) -> Result<tempfile::NamedTempFile, Error> {
    tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".partial")
        .tempfile_in(dir)
        .map_err(io_error(&dir.join(name)))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::report::tests::evidence;

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
