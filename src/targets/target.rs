//! The target of a check: the server command to start over stdio, the tool
//! to call, the rule that reads whether the tool acted, and the knobs of the
//! job (cases, seed, session or fresh mode, protocol era, hooks, limits).
//! [`Target::stdio`] starts from the defaults below; the setters change one
//! field each.

use regex::Regex;
use serde_json::{Map, Value};

use crate::harness::child::Environment;
use crate::harness::era::Protocol;
use crate::harness::{Limits, Transport};
use crate::oracle::property::ActedRule;

/// Cases per check when `--cases` is not given.
pub const DEFAULT_CASES: usize = 100;

/// Most stdio runs spent shrinking one property's failure, by default: a
/// failure the coverage phase found is minimal already, so shrinking is left
/// to the rare failure only a random case shows.
pub const MAX_SHRINK_RUNS: usize = 32;

/// What to check: a server command, a tool, and how to read "acted".
///
/// Build with [`Target::stdio`], then the setters, e.g.
/// `Target::stdio(["python3", "server.py"]).tool("book").acted_pointer("/booked")`.
#[derive(Debug, Clone)]
pub struct Target {
    /// The server command: program, then arguments (over HTTP, empty when
    /// the server is already running at the URL).
    pub command: Vec<String>,
    /// How the server is reached: stdio (the default) or Streamable HTTP at
    /// a URL (`--url`).
    pub transport: Transport,
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
    /// sessions declaring other capabilities, the retries of 2026-07-28. With
    /// `--setup` or `--acted-cmd`, cases still run one at a time unless
    /// [`Target::independent_cases`] says they share no state
    /// ([`Target::parallel_cases`]).
    pub jobs: usize,
    /// `--consent POINTER=JSON` (repeatable): the consent fields and the one
    /// value of each that consents. Acting on a valid accept that carries
    /// another value there breaks property 7; the probe's base carries the
    /// consenting value.
    pub consent: Vec<crate::oracle::consent::DeclaredConsent>,
    /// `--independent-cases`: the cases share no state (each case's
    /// `--setup` and `--acted-cmd` use a fixture of their own, e.g. named
    /// after `ELICIT_CHECK_SESSION`), so with `-j N` they may overlap.
    pub independent_cases: bool,
    /// Where the check says how far it is (`--progress`, or a terminal);
    /// none: nowhere.
    pub progress: Option<crate::check::progress::ProgressSink>,
    /// The calls that finished and are not in the evidence yet (shared by
    /// the target's copies): a check stopped by a signal writes them too
    /// ([`crate::verdict::check::journal`]).
    pub journal: crate::verdict::check::journal::Journal,
    /// The slice of the planned cases to run (`--shard K/N` of a config with
    /// one target): the coverage and random cases at positions `i` (in plan
    /// order) with `i % N + 1 == K`. The probe runs and is judged in every
    /// slice (each needs the schemas, and a property must not fail in a slice
    /// for want of the probe's calls); the sessions declaring other
    /// capabilities, the planted reply and the 2026-07-28 retries run in slice
    /// 1 only. `None`: every case.
    pub shard: Option<crate::targets::shard::Shard>,
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
            transport: Transport::Stdio,
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
            consent: Vec::new(),
            independent_cases: false,
            progress: None,
            journal: crate::verdict::check::journal::Journal::default(),
            shard: None,
        }
    }

    /// How many cases may run at once: [`Target::jobs`], or 1 when a
    /// `--setup` or `--acted-cmd` may share state between cases and
    /// [`Target::independent_cases`] does not say otherwise. Then nothing of
    /// one case (its setup, server, call, acted reading, exit) overlaps
    /// another's.
    pub fn parallel_cases(&self) -> usize {
        let hooks = self.setup.is_some() || matches!(self.acted, ActedRule::Command(_));
        if hooks && !self.independent_cases {
            1
        } else {
            self.jobs.max(1)
        }
    }

    /// The transport (see the field `transport`).
    pub fn transport(mut self, transport: Transport) -> Target {
        self.transport = transport;
        self
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
