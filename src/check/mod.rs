//! `elicit-check check`: anyone's stdio MCP server, judged from the
//! `requestedSchema` it sends (README, "Check your own server in detail").
//!
//! The job, along the data flow:
//!
//! 1. **probe**: start the server declaring form elicitation, check the tool is
//!    listed, call it answering every `elicitation/create` with a consenting
//!    valid accept ([`crate::schema::coverage::base_candidates`], the next
//!    candidate until the tool acts), keep each request's `requestedSchema`
//!    (one per step of a multi-step form), and check that the acted rule can be
//!    read from its result and from a decline's (else exit 2: a configuration
//!    error, not a server bug);
//! 2. **coverage**: the answers [`crate::schema::coverage`] enumerates from
//!    each schema, the same for every seed, each already minimal;
//! 3. **random**: `--cases` answers proptest draws from each schema
//!    ([`crate::schema::answer`]); the recording proxy's responder sends
//!    every answer, judged by `jsonschema` ([`crate::oracle::property::classify`]).
//!    Coverage and random cases run in one server process after another
//!    (session mode, the default) or a fresh process each; a case that breaks
//!    a property not yet shown by a fresh run is re-run fresh and that run is
//!    judged;
//! 4. **properties**: each call is judged ([`crate::oracle::property::violations`]);
//!    the first failure of each property in a random case is shrunk over stdio,
//!    as proptest would (a coverage failure is minimal already);
//! 5. **capabilities**: two more sessions declaring no elicitation and URL only
//!    (property 4).

pub mod config;
pub mod eras;
pub mod hooks;
pub mod report;
mod retry;
pub mod tally;

use std::sync::{Arc, Mutex};

use proptest::strategy::{BoxedStrategy, Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use regex::Regex;
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::case::Answer;
use crate::format::counted;
use crate::harness::child::Environment;
use crate::harness::client::{FORM_NOT_DECLARED, URL_NOT_DECLARED};
use crate::harness::era::Protocol;
use crate::harness::proxy::{Frame, Mark, Recording, Responder, Side, StrayLine};
use crate::harness::{Limits, Session, ToolCall};
use crate::oracle::consent::{self, ConsentField};
use crate::oracle::property::{self, ActedRule, Class, Observation, Property, Reading, SentAnswer};
use crate::schema::Form;
use crate::schema::answer::{GeneratedAnswer, answer_strategy};
use crate::schema::coverage::{self, accept};
use crate::schema::judge::Judge;
use tally::{CallSummary, Finding, Tally};

/// Cases per check when `--cases` is not given.
pub const DEFAULT_CASES: usize = 100;

/// Most stdio runs spent shrinking one property's failure, by default: a
/// failure the coverage phase found is minimal already, so shrinking is left
/// to the rare failure only a random case shows.
pub const MAX_SHRINK_RUNS: usize = 32;

/// Most valid accepts the server refused that are listed as warnings.
pub const MAX_REFUSED_LISTED: usize = 5;

/// What to check: a server command, a tool, and how to read "acted".
///
/// Build with [`Target::stdio`], then the setters, e.g.
/// `Target::stdio(["python3", "server.py"]).tool("book").acted_pointer("/booked")`.
#[derive(Debug, Clone)]
pub struct Target {
    /// The server command: program, then arguments.
    pub command: Vec<String>,
    /// The tool to call.
    pub tool: String,
    /// The tool's `arguments` object (none: the key is left out).
    pub arguments: Option<Map<String, Value>>,
    /// How to read whether the server acted.
    pub acted: ActedRule,
    /// Generated cases (one server process each).
    pub cases: usize,
    /// The seed of the generated cases (none: from the clock).
    pub seed: Option<u64>,
    /// Run only this case index of the seed (reproduction).
    pub case_index: Option<usize>,
    /// Replay these answers (one per request, in order) instead of generating.
    pub replay: Vec<Value>,
    /// Whether warnings (lenient accepts acted on) fail property 2.
    pub strict: bool,
    /// Most stdio runs spent shrinking one property's failure.
    pub max_shrink_runs: usize,
    /// Time bounds per session.
    pub limits: Limits,
    /// Session mode (the default; `--fresh` turns it off): the coverage and
    /// random cases run one `tools/call` after another in one server process; a
    /// case that breaks a property no fresh run has shown yet, or every case of
    /// a session that does not end cleanly, is re-run in a fresh process and
    /// that run is the one judged.
    pub session: bool,
    /// A shell command run before each case (`--setup`), e.g. to reset a
    /// fixture; a non-zero exit stops the check (exit 2).
    pub setup: Option<String>,
    /// The server's (and the hooks') environment and working directory
    /// (`--env KEY=VALUE`, `--cwd DIR`).
    pub environment: Environment,
    /// The program name reproduction lines start with (as the user invoked it).
    pub invoked_as: String,
    /// `--allow-unasked`: acting when no answer could come is the tool's
    /// declared fail-open design; property 7 reports it as a warning.
    pub allow_unasked: bool,
    /// The protocol era the server is driven in (`--protocol`): 2025-11-25
    /// (`elicitation/create` inside the call) or 2026-07-28 (multi round-trip
    /// requests: `inputRequests` answered on the retry through `inputResponses`,
    /// the `requestState` echoed as received, client capabilities in each
    /// request's `_meta`).
    pub protocol: Protocol,
    /// Fresh server processes run at once (`-j N`, at least 1): the cases of
    /// `--fresh` mode, the re-runs of a session that did not end cleanly, the
    /// retries of 2026-07-28. `--setup` and `--acted-cmd` then run
    /// concurrently too, so more than 1 suits only cases that share no state.
    pub jobs: usize,
}

impl Target {
    /// A target running `command` over stdio; tool `""` (set it), `--acted-not-error`,
    /// [`DEFAULT_CASES`] cases, a seed from the clock, default limits.
    pub fn stdio<I, S>(command: I) -> Target
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Target {
            command: command.into_iter().map(Into::into).collect(),
            tool: String::new(),
            arguments: None,
            acted: ActedRule::NotError,
            cases: DEFAULT_CASES,
            seed: None,
            case_index: None,
            replay: Vec::new(),
            strict: false,
            max_shrink_runs: MAX_SHRINK_RUNS,
            limits: Limits::default(),
            session: true,
            setup: None,
            environment: Environment::default(),
            invoked_as: "elicit-check".to_owned(),
            allow_unasked: false,
            protocol: Protocol::V2025_11_25,
            jobs: 1,
        }
    }

    /// The protocol era (see the field `protocol`).
    pub fn protocol(mut self, protocol: Protocol) -> Target {
        self.protocol = protocol;
        self
    }

    /// The tool to call.
    pub fn tool(mut self, name: impl Into<String>) -> Target {
        self.tool = name.into();
        self
    }

    /// The tool's `arguments` object.
    pub fn arguments(mut self, arguments: Map<String, Value>) -> Target {
        self.arguments = Some(arguments);
        self
    }

    /// Acted = the JSON boolean at `pointer` (e.g. `/booked`) in `structuredContent`
    /// or the JSON of the first text content.
    pub fn acted_pointer(mut self, pointer: impl Into<String>) -> Target {
        self.acted = ActedRule::Pointer(pointer.into());
        self
    }

    /// Acted = the JSON value at `pointer` equals `value` (`/dry_run` and `false`).
    pub fn acted_equals(mut self, pointer: impl Into<String>, value: Value) -> Target {
        self.acted = ActedRule::Equals(pointer.into(), value);
        self
    }

    /// Acted = the text content matches `regex` (an `isError` result included).
    pub fn acted_text(mut self, regex: Regex) -> Target {
        self.acted = ActedRule::Text {
            regex,
            not_error: false,
        };
        self
    }

    /// Acted = the shell command `command` exits 0 after the case.
    pub fn acted_command(mut self, command: impl Into<String>) -> Target {
        self.acted = ActedRule::Command(command.into());
        self
    }

    /// Runs `command` (`sh -c`) before each case.
    pub fn setup(mut self, command: impl Into<String>) -> Target {
        self.setup = Some(command.into());
        self
    }

    /// Sets `key` to `value` in the server's and the hooks' environment.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Target {
        self.environment.vars.push((key.into(), value.into()));
        self
    }

    /// Starts the server and the hooks in `dir`.
    pub fn cwd(mut self, dir: impl Into<std::path::PathBuf>) -> Target {
        self.environment.cwd = Some(dir.into());
        self
    }

    /// Acted = the result is neither `isError` nor a JSON-RPC error.
    pub fn acted_not_error(mut self) -> Target {
        self.acted = ActedRule::NotError;
        self
    }

    /// Number of generated cases.
    pub fn cases(mut self, cases: usize) -> Target {
        self.cases = cases;
        self
    }

    /// The seed of the generated cases.
    pub fn seed(mut self, seed: u64) -> Target {
        self.seed = Some(seed);
        self
    }

    /// Warnings fail (`--strict`).
    pub fn strict(mut self, strict: bool) -> Target {
        self.strict = strict;
        self
    }

    /// Most stdio runs spent shrinking one property's failure.
    pub fn max_shrink_runs(mut self, runs: usize) -> Target {
        self.max_shrink_runs = runs;
        self
    }

    /// Session mode for the coverage and random cases (see the field `session`).
    pub fn session(mut self, session: bool) -> Target {
        self.session = session;
        self
    }

    /// Fresh processes at once (see the field `jobs`); 0 counts as 1.
    pub fn jobs(mut self, jobs: usize) -> Target {
        self.jobs = jobs.max(1);
        self
    }

    /// Time bounds per session.
    pub fn limits(mut self, limits: Limits) -> Target {
        self.limits = limits;
        self
    }
}

/// Why a check could not be done (exit code 2), as opposed to a failed property.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CheckError {
    /// The server command could not be started.
    #[error("cannot start server {}", crate::error::shell_words(command))]
    Spawn {
        /// Program and arguments.
        command: Vec<String>,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The server never completed `initialize` and `tools/list`.
    #[error(
        "the server did not start: {error}{}{}",
        stray_banner(stray),
        stderr_banner(stderr)
    )]
    DidNotStart {
        /// The harness's reason.
        error: String,
        /// The first lines of its stdout that were not JSON-RPC (empty: none).
        stray: String,
        /// The last lines of its stderr (empty: none).
        stderr: String,
    },
    /// The tool is not among the server's tools.
    #[error("the server offers no tool named {tool:?}; it offers: {}", if tools.is_empty() { "no tools".to_owned() } else { tools.join(", ") })]
    ToolNotFound {
        /// The tool asked for.
        tool: String,
        /// The tools it lists.
        tools: Vec<String>,
    },
    /// The probe call got no reply at all (a timeout, a crash) before asking
    /// anything: not a server that never elicits, so it is named apart.
    #[error(
        "tools/call {tool:?} got no reply ({failure}) and sent no elicitation/create before it; nothing to check\n--- its stderr (last lines) ---\n{stderr}"
    )]
    NoReply {
        /// The tool.
        tool: String,
        /// Why there is no reply, in the harness's words.
        failure: String,
        /// The last lines of its stderr.
        stderr: String,
    },
    /// The probe call sent no form `elicitation/create`.
    #[error(
        "tools/call {tool:?} sent no form elicitation/create to a client declaring form elicitation; nothing to check (its reply: {reply})"
    )]
    NoElicitation {
        /// The tool.
        tool: String,
        /// Its reply, as compact JSON.
        reply: String,
    },
    /// The acted rule cannot be read from the probe's results: a wrong
    /// `--acted` pointer, not a server bug.
    #[error(
        "{rule} cannot be read from the tool's reply to {answer}: {why}\n  the reply: {reply}\n  give the pointer of a value every reply carries (--acted POINTER or POINTER=JSON), or read acting another way: --acted-text REGEX, --acted-not-error, --acted-cmd CMD"
    )]
    ActedUnreadable {
        /// The rule as its option, e.g. `--acted /scheduled`.
        rule: String,
        /// The answer whose reply it was, e.g. `the valid accept {..}`.
        answer: String,
        /// Why, e.g. `no value at /scheduled in structuredContent or the text content`.
        why: String,
        /// The reply, as compact JSON.
        reply: String,
    },
    /// A `--setup` or `--acted-cmd` command failed or could not start.
    #[error("{option} {command:?} {how}{}", stderr_banner(stderr))]
    Hook {
        /// `--setup` or `--acted-cmd`.
        option: &'static str,
        /// The command.
        command: String,
        /// How it failed: `cannot start: ...`, `ended with exit status 1`.
        how: String,
        /// The last lines of its stderr.
        stderr: String,
    },
    /// A `requestedSchema` the `jsonschema` crate cannot compile.
    #[error("{0}")]
    BadSchema(String),
    /// The target is incomplete (no tool, no command).
    #[error("{0}")]
    Usage(String),
    /// `--protocol both`: the era named could not be checked.
    #[error("protocol {protocol}: {source}")]
    Era {
        /// `2025-11-25` or `2026-07-28`.
        protocol: &'static str,
        /// Why.
        source: Box<CheckError>,
    },
}

/// A property's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// It held on every case it applied to (warnings aside).
    Holds,
    /// A case broke it.
    Fails,
    /// No case applied to it (e.g. property 6 without `--acted POINTER`).
    Untested,
}

impl Verdict {
    /// The word printed in the table.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::Fails => "FAILS",
            Verdict::Untested => "untested",
        }
    }
}

/// A property's minimal failure.
#[derive(Debug, Clone, Serialize)]
pub struct Failure {
    /// The one primary reason, on the minimal case.
    pub reason: String,
    /// The generated case it came from (none for replays and capability sessions).
    pub case_index: Option<usize>,
    /// The minimal answers, one per `elicitation/create`, as sent.
    pub answers: Vec<Value>,
    /// How each was built.
    pub built_as: Vec<String>,
    /// Stdio runs spent shrinking.
    pub shrink_runs: usize,
    /// Whether shrinking stopped at [`Target::max_shrink_runs`] before it was done.
    pub shrink_stopped_early: bool,
    /// The minimal case's whole wire.
    pub wire: Vec<Frame>,
    /// Its non-JSON-RPC stdout lines.
    pub stray_stdout: Vec<StrayLine>,
    /// A one-line command replaying the minimal answers (`--answer JSON`).
    pub reproduce: String,
    /// A one-line command repeating the generated case (`--seed S --case-index I`).
    pub reproduce_seed: Option<String>,
    /// The tool's reply in that case (`{"result": ..}`, `{"error": ..}` or `{}`).
    pub reply: Value,
    /// The last lines of the server's stderr in that case.
    pub stderr: String,
}

/// One property's line of the report.
#[derive(Debug, Clone, Serialize)]
pub struct PropertyReport {
    /// 1 to 8.
    pub property: u8,
    /// What it states.
    pub statement: &'static str,
    /// Calls it applied to.
    pub cases: usize,
    /// Its verdict.
    pub verdict: Verdict,
    /// Warnings (never failures unless `--strict`).
    pub warnings: Vec<String>,
    /// The minimal failure, when it fails.
    pub failure: Option<Failure>,
    /// Properties 1 and 2: every answer class the tool acted on, with how
    /// often and its smallest answer, in the order they were met.
    pub findings: Vec<Finding>,
}

/// The result of a check.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    /// This crate's version.
    pub elicit_check_version: &'static str,
    /// The server command.
    pub server_command: Vec<String>,
    /// The tool called.
    pub tool: String,
    /// The acted rule, as its option (`--acted /computed`).
    pub acted: String,
    /// The seed.
    pub seed: u64,
    /// Random cases run.
    pub cases: usize,
    /// Coverage cases run (the same for every seed).
    pub coverage_cases: usize,
    /// Per request and field, how many coverage answers were built on it, e.g.
    /// `nights: 10`.
    pub coverage_fields: Vec<String>,
    /// The fields the tool acts on at one value only, e.g.
    /// `/confirm is a consent field: acts only when true`.
    pub consent_fields: Vec<String>,
    /// `session` (cases one after another in a server process, failures re-run
    /// fresh) or `fresh-process`.
    pub mode: &'static str,
    /// The protocol era the server was driven in: `2025-11-25` or `2026-07-28`.
    pub protocol: &'static str,
    /// Whether `--strict` was on.
    pub strict: bool,
    /// Whether every property holds.
    pub passed: bool,
    /// Each step's `requestedSchema`, as the probe saw it.
    pub requested_schemas: Vec<Value>,
    /// Warnings about the schemas (keywords outside the MCP subset).
    pub schema_warnings: Vec<String>,
    /// Generated invalid answers the judge called valid (reclassified, not misjudged).
    pub reclassified: usize,
    /// The eight properties, in order.
    pub properties: Vec<PropertyReport>,
}

impl CheckReport {
    /// The property report numbered `number` (1 to 8).
    pub fn property(&self, number: u8) -> Option<&PropertyReport> {
        self.properties.iter().find(|p| p.property == number)
    }
}

/// One step of the tool's form: the schema as probed, read and compiled.
struct Step {
    schema: Value,
    form: Form,
    judge: Judge,
}

/// What one session left behind.
#[derive(Debug, Clone)]
pub struct CaseRun {
    /// The answers sent, in order.
    pub sent: Vec<SentAnswer>,
    /// The acted reading.
    pub reading: Reading,
    /// The tool's result or error, as sent.
    pub reply: Value,
    /// The whole wire.
    pub wire: Vec<Frame>,
    /// Stray stdout lines.
    pub stray: Vec<StrayLine>,
    /// Whether the server was killed after stdin closed.
    pub forced_kill: bool,
    /// Why the call has no reply.
    pub call_failure: Option<String>,
    /// The capabilities declared at `initialize`.
    pub capabilities: Value,
    /// Its stderr.
    pub stderr: String,
}

impl CaseRun {
    /// What the tally reads of this run.
    fn summary(&self) -> CallSummary<'_> {
        CallSummary {
            sent: &self.sent,
            acted: self.reading.acted,
            reply: &self.reply,
            stderr: &self.stderr,
            capabilities: &self.capabilities,
        }
    }

    fn violations(&self, target: &Target) -> Vec<(Property, String)> {
        property::violations(&Observation {
            sent: &self.sent,
            reading: &self.reading,
            capabilities: &self.capabilities,
            wire: &self.wire,
            stray: &self.stray,
            forced_kill: self.forced_kill,
            grace: target.limits.shutdown,
            call_failure: self.call_failure.as_deref(),
            strict: target.strict,
            allow_unasked: target.allow_unasked,
        })
    }
}

/// `{"elicitation":{"form":{}}}`.
fn form_capabilities() -> Value {
    json!({"elicitation": {"form": {}}})
}

/// Runs the check, blocking on a runtime of its own (for a downstream `#[test]`).
///
/// # Errors
/// [`CheckError`] when the check cannot be done. Failed properties are in the report.
///
/// # Panics
/// When called from inside a tokio runtime; use [`check_async`] there.
pub fn check(target: Target) -> Result<CheckReport, CheckError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| CheckError::Spawn {
            command: target.command.clone(),
            source,
        })?;
    runtime.block_on(check_async(&target))
}

/// Runs the check (see the module docs).
///
/// # Errors
/// As [`check`].
pub async fn check_async(target: &Target) -> Result<CheckReport, CheckError> {
    check_with_log(target, &mut |_| {}).await
}

/// One case's record for the evidence folder (`cases.jsonl`).
#[derive(Debug, Clone, Serialize)]
pub struct CaseRecord {
    /// `probe`, `case N`, `capabilities {..}`, `replay`, or `shrink of property N`.
    pub case: String,
    /// The answers sent.
    pub sent: Vec<SentAnswer>,
    /// The acted reading.
    pub reading: Reading,
    /// The tool's reply.
    pub reply: Value,
    /// The properties it broke.
    pub violations: Vec<String>,
    /// The whole wire.
    pub wire: Vec<Frame>,
    /// Stray stdout lines.
    pub stray_stdout: Vec<StrayLine>,
    /// The server's stderr.
    pub stderr: String,
}

/// One planned call of the coverage or random phase.
struct Planned {
    /// `coverage N` or `case N`.
    label: String,
    /// One answer per request.
    plan: Vec<GeneratedAnswer>,
    /// The random case's index (none for a coverage case).
    random: Option<usize>,
}

/// As [`check_async`], handing every session's record to `log`.
///
/// # Errors
/// As [`check`].
pub async fn check_with_log(
    target: &Target,
    log: &mut dyn FnMut(CaseRecord),
) -> Result<CheckReport, CheckError> {
    if target.tool.is_empty() {
        return Err(CheckError::Usage("no tool to call (--tool NAME)".into()));
    }
    let seed = target.seed.unwrap_or_else(clock_seed);
    let probed = probe(target, log).await?;
    let steps = Arc::clone(&probed.steps);
    let mut tally = Tally::default();
    let mut failures: Vec<(Property, Failure)> = Vec::new();
    // The probe's calls (valid accepts, a decline) count like any case.
    for run in &probed.runs {
        tally.add(run.summary(), &[]);
        note_failures(target, &mut failures, run, seed);
    }

    let replaying = !target.replay.is_empty() || target.case_index.is_some();
    let mut coverage_cases = 0;
    if steps.is_empty() {
        // The probe's call acted without asking: no schema to answer from.
    } else if target.replay.is_empty() {
        let strategy: Vec<BoxedStrategy<GeneratedAnswer>> = steps
            .iter()
            .map(|step| answer_strategy(&step.form))
            .collect();
        let mut planned = Vec::new();
        if target.case_index.is_none() {
            planned = coverage_plans(&steps, &probed.bases);
            coverage_cases = planned.len();
        }
        let indices: Vec<usize> = match target.case_index {
            Some(index) => vec![index],
            None => (0..target.cases).collect(),
        };
        planned.extend(indices.into_iter().map(|index| Planned {
            label: format!("case {index}"),
            plan: new_tree(&strategy, seed, index).current(),
            random: Some(index),
        }));
        let plans: Vec<Vec<GeneratedAnswer>> =
            planned.iter().map(|planned| planned.plan.clone()).collect();
        let runs = if target.session {
            let mut confirmed: Vec<Property> = failures.iter().map(|(known, _)| *known).collect();
            session_runs(target, &steps, &plans, &mut confirmed).await?
        } else {
            fresh_runs(target, &steps, plans.iter().map(Vec::as_slice)).await?
        };
        // Per property a random case broke (and no coverage case did): the
        // case with the smallest answers, shrunk after the stream.
        let mut to_shrink: Vec<Smallest> = Vec::new();
        for (planned, run) in planned.iter().zip(runs) {
            let violations = run.violations(target);
            tally.add(run.summary(), &planned.plan);
            log(record(planned.label.clone(), &run, &violations));
            for (property, reason) in violations {
                if failures.iter().any(|(known, _)| *known == property) {
                    continue;
                }
                match planned.random {
                    Some(index) => note_smallest(&mut to_shrink, property, index, &planned.plan),
                    None => failures.push((
                        property,
                        failure_of(target, reason, &run, None, 0, false, seed),
                    )),
                }
            }
        }
        for smallest in to_shrink {
            let mut tree = new_tree(&strategy, seed, smallest.index);
            let failure = shrink(
                target,
                &steps,
                &mut tree,
                smallest.property,
                seed,
                smallest.index,
                log,
            )
            .await?;
            failures.push((smallest.property, failure));
        }
    } else {
        let plan: Vec<GeneratedAnswer> = target
            .replay
            .iter()
            .map(|answer| GeneratedAnswer {
                answer: answer.clone(),
                built_as: "the answer given with --answer".to_owned(),
            })
            .collect();
        let run = run_case(target, &steps, &plan, &form_capabilities()).await?;
        let violations = run.violations(target);
        tally.add(run.summary(), &plan);
        log(record("replay".to_owned(), &run, &violations));
        note_failures(target, &mut failures, &run, seed);
    }

    // Property 4: sessions declaring no elicitation, and URL only, at once.
    let declared = [json!({}), json!({"elicitation": {"url": {}}})];
    let (none, url) = futures::join!(
        run_case(target, &steps, &[], &declared[0]),
        run_case(target, &steps, &[], &declared[1])
    );
    for (capabilities, run) in declared.iter().zip([none?, url?]) {
        let violations = run.violations(target);
        tally.add(run.summary(), &[]);
        tally.capability_sessions += 1;
        log(record(
            format!("capabilities {capabilities}"),
            &run,
            &violations,
        ));
        note_failures(target, &mut failures, &run, seed);
    }

    // Properties 8 and 7 on 2026-07-28: the retries a client can get wrong.
    let mut retry_calls = 0;
    if target.protocol == Protocol::V2026_07_28 && !steps.is_empty() && !replaying {
        use futures::{StreamExt, TryStreamExt};
        let forms = retry::forms();
        let outcomes: Vec<retry::Outcome> = futures::stream::iter(&forms)
            .map(|form| retry::run_form(target, &steps, &probed.bases, form))
            .buffered(target.jobs.max(1))
            .try_collect()
            .await?;
        for (form, outcome) in forms.into_iter().zip(outcomes) {
            let run = match outcome {
                retry::Outcome::Ran(run) => run,
                retry::Outcome::NotExercised(why) => {
                    tally.not_exercised.push((
                        form.property(),
                        format!("{}: not sent ({why})", form.describe()),
                    ));
                    continue;
                }
            };
            let mut violations = run.violations(target);
            if form.property() == Property::StateVerified {
                // Only what the state did is judged here (a decline is in the
                // answers on purpose): the wire, and acting.
                violations.retain(|(property, _)| *property == Property::CleanWire);
                let answer = run
                    .sent
                    .last()
                    .map_or(Value::Null, |sent| sent.answer.clone());
                tally.state_retry(form.describe(), run.reading.acted, answer);
                if run.reading.acted {
                    violations.push((
                        Property::StateVerified,
                        format!("acted on {}", form.describe()),
                    ));
                }
            } else {
                tally.add(run.summary(), &[]);
                retry_calls += 1;
            }
            log(record(
                format!("retry: {}", form.describe()),
                &run,
                &violations,
            ));
            for (property, reason) in violations {
                if !failures.iter().any(|(known, _)| *known == property) {
                    let mut failure = failure_of(target, reason, &run, None, 0, false, seed);
                    // The forms run on every check: the check itself repeats them.
                    failure.reproduce = join_command(&base_command(target), &target.command);
                    failures.push((property, failure));
                }
            }
        }
    }

    Ok(assemble(
        target,
        Assembly {
            seed,
            steps: &steps,
            bases: &probed.bases,
            coverage_cases,
            probe_calls: probed.runs.len(),
            retry_calls,
            replaying,
        },
        tally,
        failures,
    ))
}

/// The random case to shrink a property's failure from: the smallest seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Smallest {
    property: Property,
    /// The random case's index.
    index: usize,
    /// The length of its answers as compact JSON.
    size: usize,
}

/// Notes that random case `index`, whose answers are `plan`, broke `property`:
/// kept when it is the first case to, or its answers are shorter (as compact
/// JSON) than the kept case's; on a tie the earlier case stays.
fn note_smallest(
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
fn note_failures(
    target: &Target,
    failures: &mut Vec<(Property, Failure)>,
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
fn coverage_plans(steps: &[Step], bases: &[Map<String, Value>]) -> Vec<Planned> {
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
fn new_tree(
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

/// `stray` lines under a banner, or nothing when there are none.
fn stray_banner(stray: &str) -> String {
    if stray.is_empty() {
        String::new()
    } else {
        format!("\n--- its stdout lines that are not JSON-RPC ---\n{stray}")
    }
}

/// `stderr` under a banner, or nothing when it is empty (no empty banner).
fn stderr_banner(stderr: &str) -> String {
    if stderr.trim().is_empty() {
        String::new()
    } else {
        format!("\n--- its stderr (last lines) ---\n{stderr}")
    }
}

/// What the probe learnt.
struct Probed {
    /// Each request's schema, read and compiled.
    steps: Arc<Vec<Step>>,
    /// Each request's base: the consenting valid content the tool acted on
    /// (the first candidate when it acted on none).
    bases: Vec<Map<String, Value>>,
    /// Its calls: the valid accepts tried, then a decline.
    runs: Vec<CaseRun>,
}

/// The probe: start, check the tool, call it with consenting valid accepts
/// (the next base candidate while the tool does not act), keep the schemas,
/// then send one decline; check that the acted rule reads on both replies.
async fn probe(target: &Target, log: &mut dyn FnMut(CaseRecord)) -> Result<Probed, CheckError> {
    let session = open(target, &form_capabilities(), true).await?;
    let did_not_start = |error: String, finished: crate::harness::Finished| {
        let stray: Vec<String> = finished
            .recording
            .stray_stdout
            .iter()
            .take(3)
            .map(|stray| format!("#{}: {}", stray.seq, Value::String(stray.line.clone())))
            .collect();
        CheckError::DidNotStart {
            error,
            stray: stray.join("\n"),
            stderr: last_lines(&finished.exit.stderr, 20),
        }
    };
    if let Some(error) = session.startup_error().map(str::to_owned) {
        let finished = session.finish().await;
        return Err(did_not_start(error, finished));
    }
    let tools = match session.list_tools().await {
        Ok(tools) => tools,
        Err(error) => {
            let finished = session.finish().await;
            return Err(did_not_start(error, finished));
        }
    };
    if !tools.contains(&target.tool) {
        session.finish().await;
        return Err(CheckError::ToolNotFound {
            tool: target.tool.clone(),
            tools,
        });
    }
    let (run, schemas) = call_and_finish(target, session, &form_capabilities(), None, &[]).await?;
    log(record(
        "probe: a consenting valid accept".to_owned(),
        &run,
        &[],
    ));
    if let (true, Some(failure)) = (schemas.is_empty(), &run.call_failure) {
        return Err(CheckError::NoReply {
            tool: target.tool.clone(),
            failure: failure.clone(),
            stderr: last_lines(&run.stderr, 20),
        });
    }
    if schemas.is_empty() && !run.reading.acted {
        return Err(CheckError::NoElicitation {
            tool: target.tool.clone(),
            reply: run.reply.to_string(),
        });
    }
    acted_readable(target, &run)?;
    if schemas.is_empty() {
        // It acted without asking a client that could answer: property 7's
        // failure, and nothing to generate answers from.
        return Ok(Probed {
            steps: Arc::new(Vec::new()),
            bases: Vec::new(),
            runs: vec![run],
        });
    }
    let steps = schemas
        .into_iter()
        .map(|schema| {
            let judge = Judge::new(&schema).map_err(CheckError::BadSchema)?;
            Ok(Step {
                form: Form::read(&schema),
                schema,
                judge,
            })
        })
        .collect::<Result<Vec<Step>, CheckError>>()?;
    let candidates: Vec<Vec<Map<String, Value>>> = steps
        .iter()
        .map(|step| coverage::base_candidates(&step.form))
        .collect();
    let candidate = |index: usize| -> Vec<Map<String, Value>> {
        candidates
            .iter()
            .map(|each| each[index.min(each.len() - 1)].clone())
            .collect()
    };
    let mut bases = candidate(0);
    let mut acted = run.reading.acted;
    let mut runs = vec![run];
    let steps = Arc::new(steps);
    let most = candidates.iter().map(Vec::len).max().unwrap_or(1);
    for index in 1..most {
        if acted {
            break;
        }
        let tried = candidate(index);
        let plan = consenting_plan(&tried);
        let run = run_case(target, &steps, &plan, &form_capabilities()).await?;
        log(record(
            format!("probe: consenting valid accept {}", index + 1),
            &run,
            &[],
        ));
        acted_readable(target, &run)?;
        if run.reading.acted {
            acted = true;
            bases = tried;
        }
        runs.push(run);
    }
    let decline = [GeneratedAnswer {
        answer: json!({"action": "decline"}),
        built_as: "decline".to_owned(),
    }];
    let run = run_case(target, &steps, &decline, &form_capabilities()).await?;
    log(record("probe: a decline".to_owned(), &run, &[]));
    acted_readable(target, &run)?;
    runs.push(run);
    Ok(Probed { steps, bases, runs })
}

/// One consenting valid accept per request, of `contents` (the probe's
/// candidates, or the bases the tool acted on).
fn consenting_plan(contents: &[Map<String, Value>]) -> Vec<GeneratedAnswer> {
    contents
        .iter()
        .map(|content| GeneratedAnswer {
            answer: accept(content),
            built_as: coverage::VALID.to_owned(),
        })
        .collect()
}

/// [`CheckError::ActedUnreadable`] when the acted rule found no value in a
/// probe's reply that is not an error.
fn acted_readable(target: &Target, run: &CaseRun) -> Result<(), CheckError> {
    let Some(why) = &run.reading.unreadable else {
        return Ok(());
    };
    let answer = run.sent.first().map_or_else(
        || "the call".to_owned(),
        |sent| format!("the answer {}", sent.answer),
    );
    Err(CheckError::ActedUnreadable {
        rule: target.acted.to_string(),
        answer,
        why: why.clone(),
        reply: run.reply.to_string(),
    })
}

/// Opens a session declaring `capabilities`, running `--setup` first when
/// `setup` (a session that will hold several cases runs it per call instead).
async fn open(target: &Target, capabilities: &Value, setup: bool) -> Result<Session, CheckError> {
    if setup {
        run_setup(target).await?;
    }
    let opened = match target.protocol {
        Protocol::V2025_11_25 => {
            Session::open_in(
                &target.command,
                &target.environment,
                capabilities,
                target.limits,
                None,
            )
            .await
        }
        Protocol::V2026_07_28 => {
            Session::open_discover(
                &target.command,
                &target.environment,
                capabilities,
                target.limits,
            )
            .await
        }
    };
    opened.map_err(|error| match error {
        crate::error::Error::Spawn { command, source } => CheckError::Spawn { command, source },
        other => CheckError::Usage(other.to_string()),
    })
}

/// Runs `--setup`, when given: [`CheckError::Hook`] unless it exits 0.
async fn run_setup(target: &Target) -> Result<(), CheckError> {
    let Some(command) = &target.setup else {
        return Ok(());
    };
    let run = hooks::run(command, &target.environment, target.limits.call)
        .await
        .map_err(|error| CheckError::Hook {
            option: "--setup",
            command: command.clone(),
            how: format!("cannot start: {error}"),
            stderr: String::new(),
        })?;
    if run.succeeded() {
        Ok(())
    } else {
        Err(CheckError::Hook {
            option: "--setup",
            command: command.clone(),
            how: format!("ended with {}", run.ending(target.limits.call)),
            stderr: run.stderr,
        })
    }
}

/// With `--acted-cmd`, the reading from running it now (exit 0: acted);
/// otherwise `reading` as read from the reply.
async fn acted_after(target: &Target, reading: Reading) -> Result<Reading, CheckError> {
    let ActedRule::Command(command) = &target.acted else {
        return Ok(reading);
    };
    let run = hooks::run(command, &target.environment, target.limits.call)
        .await
        .map_err(|error| CheckError::Hook {
            option: "--acted-cmd",
            command: command.clone(),
            how: format!("cannot start: {error}"),
            stderr: String::new(),
        })?;
    if run.timed_out {
        return Err(CheckError::Hook {
            option: "--acted-cmd",
            command: command.clone(),
            how: format!("ended with {}", run.ending(target.limits.call)),
            stderr: run.stderr,
        });
    }
    Ok(Reading::plain(run.succeeded()))
}

/// One case in a fresh server process declaring `capabilities`.
async fn run_case(
    target: &Target,
    steps: &Arc<Vec<Step>>,
    plan: &[GeneratedAnswer],
    capabilities: &Value,
) -> Result<CaseRun, CheckError> {
    let session = open(target, capabilities, true).await?;
    Ok(
        call_and_finish(target, session, capabilities, Some(Arc::clone(steps)), plan)
            .await?
            .0,
    )
}

/// The answers sent and the form schemas seen by a [`responder`].
type Sent = (Arc<Mutex<Vec<SentAnswer>>>, Arc<Mutex<Vec<Value>>>);

/// A responder answering each `elicitation/create` from `plan` (or, when
/// probing, with fixed valid accepts) and noting what it sent and saw.
fn responder(
    capabilities: &Value,
    steps: Option<Arc<Vec<Step>>>,
    plan: &[GeneratedAnswer],
) -> (Responder, Sent) {
    let form_declared = crate::harness::client::declares_form(capabilities);
    let url_declared = crate::harness::client::declares_url(capabilities);
    let sent: Arc<Mutex<Vec<SentAnswer>>> = Arc::default();
    let schemas: Arc<Mutex<Vec<Value>>> = Arc::default();
    let responder: Responder = {
        let sent = Arc::clone(&sent);
        let schemas = Arc::clone(&schemas);
        let plan = plan.to_vec();
        Arc::new(move |request: &Value| {
            let params = request.get("params").cloned().unwrap_or(Value::Null);
            let mode = params.get("mode");
            let is_form =
                mode.is_none_or(Value::is_null) || mode.and_then(Value::as_str) == Some("form");
            let schema = params
                .get("requestedSchema")
                .cloned()
                .unwrap_or(Value::Null);
            let (reply, class, built_as) = if !is_form {
                if url_declared {
                    (
                        Answer::Result(json!({"action": "cancel"})),
                        Class::Refusal("cancel".into()),
                        "URL elicitation: cancel".to_owned(),
                    )
                } else {
                    (url_error(), Class::Error, "URL not declared".to_owned())
                }
            } else if !form_declared {
                (form_error(), Class::Error, "form not declared".to_owned())
            } else {
                let mut schemas = lock(&schemas);
                let index = schemas.len();
                schemas.push(schema.clone());
                drop(schemas);
                let step = steps
                    .as_ref()
                    .and_then(|steps| steps.get(index))
                    .filter(|step| step.schema == schema);
                let form = Form::read(&schema);
                let (answer, built_as) = match (plan.get(index), step) {
                    (Some(planned), Some(_)) => (planned.answer.clone(), planned.built_as.clone()),
                    _ => (
                        accept(&coverage::base_candidates(&form)[0]),
                        "a consenting valid accept (request not planned)".to_owned(),
                    ),
                };
                let class = match step {
                    Some(step) => property::classify(&step.form, &step.judge, &answer),
                    None => match Judge::new(&schema) {
                        Ok(judge) => property::classify(&form, &judge, &answer),
                        Err(error) => Class::InvalidAccept(vec![error]),
                    },
                };
                (Answer::Result(answer), class, built_as)
            };
            let answer = match &reply {
                Answer::Result(value) | Answer::Error(value) => value.clone(),
            };
            lock(&sent).push(SentAnswer {
                requested_schema: schema,
                answer,
                class,
                built_as,
            });
            reply
        })
    };
    (responder, (sent, schemas))
}

/// Calls the target's tool in `session`, every form request answered by
/// `responder`: on 2025-11-25 each `elicitation/create` inside the call, on
/// 2026-07-28 each input request of each round.
async fn call_tool(target: &Target, session: &mut Session, responder: Responder) -> ToolCall {
    match target.protocol {
        Protocol::V2025_11_25 => {
            session.set_responder(Some(responder));
            let call = session
                .call_tool(&target.tool, target.arguments.clone())
                .await;
            session.set_responder(None);
            call
        }
        Protocol::V2026_07_28 => {
            session
                .call_tool_rounds(&target.tool, target.arguments.clone(), &responder)
                .await
        }
    }
}

/// The tool's reply as the evidence keeps it: `{"result": ..}`, `{"error": ..}` or `{}`.
fn reply_of(call: &ToolCall) -> Value {
    match (&call.result, &call.error) {
        (Some(result), _) => json!({"result": result}),
        (None, Some(error)) => json!({"error": error}),
        (None, None) => json!({}),
    }
}

/// Calls the tool with a [`responder`] answering from `plan`, finishes the
/// session and reads everything (`--acted-cmd` after the server exited);
/// returns the run and the form schemas the server sent.
///
/// # Errors
/// [`CheckError::Hook`] when `--acted-cmd` cannot run.
async fn call_and_finish(
    target: &Target,
    mut session: Session,
    capabilities: &Value,
    steps: Option<Arc<Vec<Step>>>,
    plan: &[GeneratedAnswer],
) -> Result<(CaseRun, Vec<Value>), CheckError> {
    let (responder, (sent, schemas)) = responder(capabilities, steps, plan);
    let call = call_tool(target, &mut session, responder).await;
    let sent = lock(&sent).clone();
    let run = finish_run(target, session, capabilities, &call, sent).await?;
    let schemas = lock(&schemas).clone();
    Ok((run, schemas))
}

/// Finishes `session` after `call` and reads everything into a [`CaseRun`]
/// (`--acted-cmd` after the server exited).
///
/// # Errors
/// [`CheckError::Hook`] when `--acted-cmd` cannot run.
async fn finish_run(
    target: &Target,
    session: Session,
    capabilities: &Value,
    call: &ToolCall,
    sent: Vec<SentAnswer>,
) -> Result<CaseRun, CheckError> {
    let finished = session.finish().await;
    let reading = property::read_acted(&target.acted, call.result.as_ref(), call.error.as_ref());
    let reading = acted_after(target, reading).await?;
    Ok(CaseRun {
        sent,
        reading,
        reply: reply_of(call),
        wire: finished.recording.wire,
        stray: finished.recording.stray_stdout,
        forced_kill: finished.exit.forced_kill,
        call_failure: finished.startup_error.or_else(|| call.failure.clone()),
        capabilities: capabilities.clone(),
        stderr: finished.exit.stderr,
    })
}

/// A server process running cases one after another (session mode).
struct OpenSession {
    session: Session,
    /// What its handshake recorded: shown in each of its cases' wire.
    handshake: Recording,
    /// Indexes (into the plans) of the cases whose session run is kept: re-run
    /// fresh when the session does not end cleanly.
    kept: Vec<usize>,
    /// Whether a case saw a frame the server sent before that case's
    /// `tools/call` (a late frame of an earlier case): its cases are re-run.
    late_frame: bool,
}

/// The runs of `plans`, in order, in session mode (as `run --session`): the
/// cases run one `tools/call` after another in one server process declaring
/// form elicitation (`--setup` before each call, `--acted-cmd` after it).
///
/// A case that gets no reply, or breaks a property not in `confirmed` (the
/// properties a fresh run has already shown broken), is re-run in a fresh
/// process and that run is kept, and the fresh run's broken properties join
/// `confirmed`; after a call without reply (or a server frame ahead of a
/// call) the session ends and the next case starts a new one, otherwise the
/// session goes on. A case that breaks only confirmed properties keeps its
/// session run: a server that fails on every invalid answer costs a fresh
/// process per broken property, not per case. When a session ends, the cases
/// it kept are re-run in fresh processes too unless it ended cleanly: exit
/// code 0 after its stdin closed, not killed, no stray stdout line and no
/// server frame after its last case, and no server frame ahead of any case's
/// `tools/call`. A case run in a session shows the session's handshake and
/// its own call; its exit reads as clean, and the session's stderr is on its
/// last case.
///
/// # Errors
/// [`CheckError::Spawn`] when a server process cannot start;
/// [`CheckError::Hook`] when `--setup` or `--acted-cmd` fails.
async fn session_runs(
    target: &Target,
    steps: &Arc<Vec<Step>>,
    plans: &[Vec<GeneratedAnswer>],
    confirmed: &mut Vec<Property>,
) -> Result<Vec<CaseRun>, CheckError> {
    let capabilities = form_capabilities();
    let mut runs: Vec<Option<CaseRun>> = vec![None; plans.len()];
    let mut open: Option<OpenSession> = None;
    for (index, plan) in plans.iter().enumerate() {
        if open.is_none() {
            let session = self::open(target, &capabilities, false).await?;
            if session.startup_error().is_some() {
                session.finish().await;
                runs[index] = Some(run_case(target, steps, plan, &capabilities).await?);
                continue;
            }
            let handshake = session.recording_since(Mark::default());
            open = Some(OpenSession {
                session,
                handshake,
                kept: Vec::new(),
                late_frame: false,
            });
        }
        let Some(current) = open.as_mut() else {
            continue;
        };
        let (run, late) = call_in_session(target, current, steps, plan).await?;
        current.late_frame |= late;
        let news = run
            .violations(target)
            .into_iter()
            .any(|(property, _)| !confirmed.contains(&property));
        if !late && run.call_failure.is_none() && !news {
            current.kept.push(index);
            runs[index] = Some(run);
        } else {
            // A call without reply or a late frame may have left the server
            // broken: the session ends. A call that only broke a property
            // leaves it as able as before: the session goes on.
            if (late || run.call_failure.is_some())
                && let Some(ended) = open.take()
            {
                close(target, steps, plans, ended, &mut runs).await?;
            }
            let fresh = run_case(target, steps, plan, &capabilities).await?;
            for (property, _) in fresh.violations(target) {
                if !confirmed.contains(&property) {
                    confirmed.push(property);
                }
            }
            runs[index] = Some(fresh);
        }
    }
    if let Some(ended) = open.take() {
        close(target, steps, plans, ended, &mut runs).await?;
    }
    Ok(runs.into_iter().flatten().collect())
}

/// One case as the next `tools/call` of `open`'s session, and whether the
/// server sent a frame before this case's `tools/call` request.
///
/// # Errors
/// [`CheckError::Hook`] when `--setup` or `--acted-cmd` fails.
async fn call_in_session(
    target: &Target,
    open: &mut OpenSession,
    steps: &Arc<Vec<Step>>,
    plan: &[GeneratedAnswer],
) -> Result<(CaseRun, bool), CheckError> {
    run_setup(target).await?;
    let capabilities = form_capabilities();
    let before = open.session.mark();
    let (responder, (sent, _)) = responder(&capabilities, Some(Arc::clone(steps)), plan);
    let call = call_tool(target, &mut open.session, responder).await;
    let during = open.session.recording_since(before);
    let late = during
        .wire
        .first()
        .is_some_and(|frame| frame.from == Side::Server);
    let mut wire = open.handshake.wire.clone();
    wire.extend(during.wire);
    let mut stray = open.handshake.stray_stdout.clone();
    stray.extend(during.stray_stdout);
    let reading = property::read_acted(&target.acted, call.result.as_ref(), call.error.as_ref());
    let reading = acted_after(target, reading).await?;
    let sent = lock(&sent).clone();
    let run = CaseRun {
        sent,
        reading,
        reply: reply_of(&call),
        wire,
        stray,
        forced_kill: false,
        call_failure: call.failure,
        capabilities,
        stderr: String::new(),
    };
    Ok((run, late))
}

/// Ends `open`'s session: when it ended cleanly its last case gets the
/// session's stderr, otherwise every case it kept is re-run in a fresh process.
async fn close(
    target: &Target,
    steps: &Arc<Vec<Step>>,
    plans: &[Vec<GeneratedAnswer>],
    open: OpenSession,
    runs: &mut [Option<CaseRun>],
) -> Result<(), CheckError> {
    let seen = open.session.mark();
    let finished = open.session.finish().await;
    let frame_after_last_case = finished
        .recording
        .wire
        .iter()
        .skip(seen.wire)
        .any(|frame| frame.from == Side::Server);
    if finished.ended_cleanly(seen.stray_stdout) && !frame_after_last_case && !open.late_frame {
        if let Some(last) = open.kept.last().and_then(|&index| runs[index].as_mut()) {
            last.stderr = finished.exit.stderr;
        }
        return Ok(());
    }
    let again = fresh_runs(
        target,
        steps,
        open.kept.iter().map(|&index| plans[index].as_slice()),
    )
    .await?;
    for (index, run) in open.kept.into_iter().zip(again) {
        runs[index] = Some(run);
    }
    Ok(())
}

/// Runs each plan in a fresh process declaring form elicitation, at most
/// [`Target::jobs`] at once; the runs come back in the plans' order.
///
/// # Errors
/// The first [`CheckError`] of a run.
async fn fresh_runs<'a>(
    target: &Target,
    steps: &Arc<Vec<Step>>,
    plans: impl Iterator<Item = &'a [GeneratedAnswer]>,
) -> Result<Vec<CaseRun>, CheckError> {
    use futures::{StreamExt, TryStreamExt};
    let capabilities = form_capabilities();
    futures::stream::iter(plans)
        .map(|plan| run_case(target, steps, plan, &capabilities))
        .buffered(target.jobs.max(1))
        .try_collect()
        .await
}

/// `-32602 elicitation mode not declared: form`.
fn form_error() -> Answer {
    Answer::Error(json!({"code": -32602, "message": FORM_NOT_DECLARED}))
}

/// `-32602 elicitation mode not declared: url`.
fn url_error() -> Answer {
    Answer::Error(json!({"code": -32602, "message": URL_NOT_DECLARED}))
}

/// Locks a mutex, keeping the data after a panic elsewhere.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// proptest's shrinking loop over stdio, keeping the case failing `property`.
async fn shrink(
    target: &Target,
    steps: &Arc<Vec<Step>>,
    tree: &mut Box<dyn ValueTree<Value = Vec<GeneratedAnswer>>>,
    property: Property,
    seed: u64,
    index: usize,
    log: &mut dyn FnMut(CaseRecord),
) -> Result<Failure, CheckError> {
    let failing = |run: &CaseRun| {
        run.violations(target)
            .into_iter()
            .find(|(broken, _)| *broken == property)
            .map(|(_, reason)| reason)
    };
    let plan = tree.current();
    let mut best_run = run_case(target, steps, &plan, &form_capabilities()).await?;
    let mut best_reason = failing(&best_run);
    let mut runs = 0;
    let mut step = tree.simplify();
    while step && runs < target.max_shrink_runs {
        runs += 1;
        let candidate = tree.current();
        let run = run_case(target, steps, &candidate, &form_capabilities()).await?;
        step = match failing(&run) {
            Some(reason) => {
                best_reason = Some(reason);
                best_run = run;
                tree.simplify()
            }
            None => tree.complicate(),
        };
    }
    let stopped_early = step && runs >= target.max_shrink_runs;
    let violations = best_run.violations(target);
    log(record(
        format!("minimal case of {property}"),
        &best_run,
        &violations,
    ));
    // A flaky server may pass the re-run of the original case: keep the first reason.
    let reason = best_reason.unwrap_or_else(|| {
        format!("{property} failed on case {index}, but not when the case was run again")
    });
    Ok(failure_of(
        target,
        reason,
        &best_run,
        Some(index),
        runs,
        stopped_early,
        seed,
    ))
}

/// A failure from a run.
fn failure_of(
    target: &Target,
    reason: String,
    run: &CaseRun,
    case_index: Option<usize>,
    shrink_runs: usize,
    shrink_stopped_early: bool,
    seed: u64,
) -> Failure {
    let answers: Vec<Value> = run
        .sent
        .iter()
        .filter(|sent| sent.class != Class::Error)
        .map(|sent| sent.answer.clone())
        .collect();
    let mut replay = base_command(target);
    for answer in &answers {
        replay.push("--answer".to_owned());
        replay.push(answer.to_string());
    }
    Failure {
        reason,
        case_index,
        built_as: run.sent.iter().map(|sent| sent.built_as.clone()).collect(),
        answers,
        shrink_runs,
        shrink_stopped_early,
        wire: run.wire.clone(),
        stray_stdout: run.stray.clone(),
        reproduce: join_command(&replay, &target.command),
        reply: run.reply.clone(),
        stderr: last_lines(&run.stderr, 10),
        reproduce_seed: case_index.map(|index| {
            let mut again = base_command(target);
            again.extend([
                "--seed".to_owned(),
                seed.to_string(),
                "--case-index".to_owned(),
                index.to_string(),
            ]);
            join_command(&again, &target.command)
        }),
    }
}

/// `elicit-check check --tool T [--arguments JSON] ACTED [--strict]
/// [--allow-unasked] --protocol ERA [--setup CMD] [--env K=V]... [--cwd DIR]`,
/// the program named as the user invoked it.
fn base_command(target: &Target) -> Vec<String> {
    let mut command = vec![
        target.invoked_as.clone(),
        "check".to_owned(),
        "--tool".to_owned(),
        target.tool.clone(),
    ];
    if let Some(arguments) = &target.arguments {
        command.push("--arguments".to_owned());
        command.push(Value::Object(arguments.clone()).to_string());
    }
    command.extend(target.acted.words());
    if target.strict {
        command.push("--strict".to_owned());
    }
    if target.allow_unasked {
        command.push("--allow-unasked".to_owned());
    }
    // The era it failed in: the default `auto` may run both.
    command.extend(["--protocol".to_owned(), target.protocol.to_string()]);
    if let Some(setup) = &target.setup {
        command.extend(["--setup".to_owned(), setup.clone()]);
    }
    for (key, value) in &target.environment.vars {
        command.extend(["--env".to_owned(), format!("{key}={value}")]);
    }
    if let Some(cwd) = &target.environment.cwd {
        command.extend(["--cwd".to_owned(), cwd.display().to_string()]);
    }
    command
}

/// `ARGS -- SERVER`, shell-quoted.
fn join_command(args: &[String], server: &[String]) -> String {
    let quote = |word: &String| {
        shlex::try_quote(word).map_or_else(|_| word.clone(), |quoted| quoted.into_owned())
    };
    let mut words: Vec<String> = args.iter().map(quote).collect();
    words.push("--".to_owned());
    words.extend(server.iter().map(quote));
    words.join(" ")
}

/// A session's record for the evidence.
fn record(case: String, run: &CaseRun, violations: &[(Property, String)]) -> CaseRecord {
    CaseRecord {
        case,
        sent: run.sent.clone(),
        reading: run.reading.clone(),
        reply: run.reply.clone(),
        violations: violations
            .iter()
            .map(|(property, reason)| format!("{property}: {reason}"))
            .collect(),
        wire: run.wire.clone(),
        stray_stdout: run.stray.clone(),
        stderr: run.stderr.clone(),
    }
}

/// What [`assemble`] needs beside the tally and the failures.
struct Assembly<'a> {
    seed: u64,
    steps: &'a [Step],
    bases: &'a [Map<String, Value>],
    coverage_cases: usize,
    probe_calls: usize,
    /// Retries of property 7 counted in the tally's sessions.
    retry_calls: usize,
    /// `--answer` or `--case-index`: property 3 is judged only on what they show.
    replaying: bool,
}

/// The report from the tally and the failures.
fn assemble(
    target: &Target,
    run: Assembly<'_>,
    tally: Tally,
    mut failures: Vec<(Property, Failure)>,
) -> CheckReport {
    let forms: Vec<Form> = run.steps.iter().map(|step| step.form.clone()).collect();
    let consent_fields: Vec<ConsentField> = consent::consent_fields(&forms, &tally.valid);
    let mut unexplained: Vec<&tally::Refused> = Vec::new();
    let refusals = tally
        .valid
        .iter()
        .filter(|call| !call.acted)
        .zip(&tally.refused);
    for (call, refused) in refusals {
        let listed = unexplained
            .iter()
            .any(|known| known.answer == refused.answer);
        if consent::withheld(&consent_fields, call).is_none() && !listed {
            unexplained.push(refused);
        }
    }
    let random_cases = tally.sessions.saturating_sub(
        tally.capability_sessions + run.probe_calls + run.coverage_cases + run.retry_calls,
    );
    let properties: Vec<PropertyReport> = Property::ALL
        .iter()
        .map(|&property| {
            let mut failure = failures
                .iter()
                .position(|(known, _)| *known == property)
                .map(|at| failures.remove(at).1);
            let mut warnings = Vec::new();
            let cases = match property {
                Property::NoActOnRefusal => tally.with_refusal,
                Property::NoActOnInvalid => {
                    if !target.strict {
                        warnings.extend(tally.lenient_acted.iter().cloned());
                    }
                    tally.with_invalid
                }
                Property::ActsOnValid => {
                    let valid_acted = tally.valid_acted();
                    // When it acted on none, the failure says so: no warning per refusal.
                    if !run.replaying && valid_acted > 0 {
                        for refused in unexplained.iter().take(MAX_REFUSED_LISTED) {
                            warnings.push(format!(
                                "did not act on the valid accept {} (it answered {})",
                                refused.answer, refused.reply
                            ));
                        }
                        if unexplained.len() > MAX_REFUSED_LISTED {
                            warnings.push(format!(
                                "and {} it did not act on",
                                counted(
                                    unexplained.len() - MAX_REFUSED_LISTED,
                                    "more valid accept"
                                )
                            ));
                        }
                    }
                    if !tally.valid.is_empty() && valid_acted == 0 && failure.is_none() {
                        if run.replaying {
                            // One refusal shows nothing about whether it ever acts.
                            return untested(property, warnings);
                        }
                        failure = Some(never_acted(target, &tally, run.bases));
                    }
                    tally.valid.len()
                }
                Property::CapabilityRespected => tally.capability_sessions,
                Property::CleanWire => tally.sessions,
                Property::ActedIsBoolean => match target.acted {
                    ActedRule::Pointer(_) => tally.acted_readings,
                    _ => 0,
                },
                Property::NoActWithoutAnswer => {
                    if target.allow_unasked {
                        warnings.extend(tally.unanswered_acted.iter().map(|capabilities| {
                            format!(
                                "acted without a valid consenting answer (client capabilities {capabilities}): allowed by --allow-unasked, a declared fail-open design"
                            )
                        }));
                    }
                    tally.unanswered
                }
                Property::StateVerified => tally.state_retries,
            };
            warnings.extend(
                tally
                    .not_exercised
                    .iter()
                    .filter(|(known, _)| *known == property)
                    .map(|(_, note)| note.clone()),
            );
            let verdict = if failure.is_some() {
                Verdict::Fails
            } else if cases == 0 {
                Verdict::Untested
            } else {
                Verdict::Holds
            };
            PropertyReport {
                property: property.number(),
                statement: property.statement(),
                cases,
                verdict,
                warnings,
                failure,
                findings: tally.findings(property),
            }
        })
        .collect();
    let passed = properties.iter().all(|p| p.verdict != Verdict::Fails);
    let mut schema_warnings = Vec::new();
    let mut coverage_fields = Vec::new();
    for (index, step) in run.steps.iter().enumerate() {
        for warning in &step.form.outside_subset {
            schema_warnings.push(format!("request {}: {warning}", index + 1));
        }
        if run.coverage_cases > 0 {
            let answers = coverage::coverage_answers(&step.form, &run.bases[index]);
            for (field, count) in coverage::field_counts(&step.form, &answers) {
                coverage_fields.push(if run.steps.len() > 1 {
                    format!("request {}: {field}: {count}", index + 1)
                } else {
                    format!("{field}: {count}")
                });
            }
        }
    }
    CheckReport {
        elicit_check_version: env!("CARGO_PKG_VERSION"),
        server_command: target.command.clone(),
        tool: target.tool.clone(),
        acted: target.acted.to_string(),
        seed: run.seed,
        cases: random_cases,
        coverage_cases: run.coverage_cases,
        coverage_fields,
        consent_fields: consent_fields.iter().map(ToString::to_string).collect(),
        protocol: target.protocol.as_str(),
        mode: if target.session {
            "session"
        } else {
            "fresh-process"
        },
        strict: target.strict,
        passed,
        requested_schemas: run.steps.iter().map(|step| step.schema.clone()).collect(),
        schema_warnings,
        reclassified: tally.reclassified,
        properties,
    }
}

/// A property's line when nothing it applies to was run.
fn untested(property: Property, warnings: Vec<String>) -> PropertyReport {
    PropertyReport {
        property: property.number(),
        statement: property.statement(),
        cases: 0,
        verdict: Verdict::Untested,
        warnings,
        failure: None,
        findings: Vec::new(),
    }
}

/// Property 3's failure: the tool acted on none of its valid calls; shown on
/// the first one it refused, with what it answered.
fn never_acted(target: &Target, tally: &Tally, bases: &[Map<String, Value>]) -> Failure {
    let first = tally.refused.first();
    let answer = first.map_or_else(|| accept(&bases[0]), |refused| refused.answer.clone());
    let mut replay = base_command(target);
    replay.extend(["--answer".to_owned(), answer.to_string()]);
    Failure {
        reason: format!(
            "acted on none of the {} whose every answer was a valid accept (consenting ones included)",
            counted(tally.valid.len(), "call")
        ),
        case_index: None,
        answers: vec![answer],
        built_as: vec![coverage::VALID.to_owned()],
        shrink_runs: 0,
        shrink_stopped_early: false,
        wire: Vec::new(),
        stray_stdout: Vec::new(),
        reproduce: join_command(&replay, &target.command),
        reproduce_seed: None,
        reply: first.map_or(Value::Null, |refused| refused.reply.clone()),
        stderr: first.map_or_else(String::new, |refused| last_lines(&refused.stderr, 10)),
    }
}

/// The last `count` lines of `text`.
fn last_lines(text: &str, count: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(count)..].join("\n")
}

/// A seed from the clock's nanoseconds.
fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

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
