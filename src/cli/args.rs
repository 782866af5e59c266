//! The command line: `serve`, `run` and `check`, their options and the
//! checks of option values clap cannot express.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, Subcommand};
use serde_json::json;

use crate::check::eras::Eras;
use crate::harness::Limits;
use crate::harness::era::Protocol;
use crate::report;
use crate::run::settings::{Mode, Schedule};
use crate::strategy::Policy;

/// Property-based and mutation testing for MCP form elicitation servers.
#[derive(Debug, Parser)]
#[command(
    version,
    about,
    after_help = "Without a subcommand, `elicit-check` is `elicit-check run`: the contract suite against the built-in reference server."
)]
pub struct Cli {
    /// The subcommand (none: `run` with its defaults).
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the reference server on stdin/stdout: protocol 2025-11-25 after
    /// `initialize`, 2026-07-28 for requests carrying their version in `_meta`.
    Serve(ServeArgs),
    /// Run the contract cases against a server (default: the built-in reference server).
    Run(Box<RunArgs>),
    /// Check any MCP server's tool (stdio or Streamable HTTP) from the
    /// requestedSchema it sends: does it act on anything but a valid, consenting accept?
    Check(Box<CheckArgs>),
    /// Join the `--json` reports of `check --config FILE --shard K/N` (one per
    /// shard of a CI matrix) into the report of all the config's targets.
    Merge(MergeArgs),
}

/// The options of `elicit-check merge`.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The shards' reports (`check --config FILE --shard K/N --json > FILE`),
    /// each shard exactly once.
    #[arg(required = true, value_name = "FILE")]
    pub(crate) reports: Vec<PathBuf>,
    /// Print the merged report as one JSON document instead of the table.
    #[arg(long)]
    pub(crate) json: bool,
    /// Append the overview (one row per target) as Markdown to this file,
    /// e.g. "$GITHUB_STEP_SUMMARY".
    #[arg(long, value_name = "PATH")]
    pub(crate) summary: Option<PathBuf>,
}

/// The options of `elicit-check check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The tool to call; with --config, the target of this tool (without it,
    /// every target of the config is checked).
    #[arg(long)]
    pub(crate) tool: Option<String>,
    /// With --config, check only the [[target]] of this name (its `name`, else
    /// its tool); repeatable.
    #[arg(
        long = "target",
        value_name = "NAME",
        requires = "config",
        conflicts_with = "tool"
    )]
    pub(crate) target: Vec<String>,
    /// With --config, check the K-th of N slices of its targets (round-robin in
    /// the file's order; of its planned cases when one target is selected), for
    /// a CI matrix of N jobs; `elicit-check merge` joins the slices' --json
    /// reports (docs/src/ci.md).
    #[arg(long, value_name = "K/N", requires = "config", conflicts_with = "tool")]
    pub(crate) shard: Option<crate::targets::shard::Shard>,
    /// The tool's arguments, a JSON object.
    #[arg(long, value_name = "JSON")]
    pub(crate) arguments: Option<String>,
    /// Acted = the JSON boolean at this pointer in structuredContent (or in the JSON
    /// of the first text content) is true, e.g. `/booked`; `POINTER=JSON` compares
    /// with a JSON value instead, e.g. `/dry_run=false` or `/status="booked"`.
    #[arg(long, value_name = "POINTER[=JSON]", conflicts_with_all = ["acted_text", "acted_cmd"])]
    pub(crate) acted: Option<String>,
    /// Acted = the text of the result matches this regex, an isError result
    /// included (a tool may act, then fail); add --acted-not-error to require
    /// that the result is not an error too.
    #[arg(long, value_name = "REGEX", conflicts_with = "acted_cmd")]
    pub(crate) acted_text: Option<String>,
    /// Acted = the result is neither isError nor a JSON-RPC error (alone, or
    /// beside --acted-text).
    #[arg(long, conflicts_with_all = ["acted", "acted_cmd"])]
    pub(crate) acted_not_error: bool,
    /// Acted = this shell command exits 0 after each case (fresh mode: after the
    /// server exited; session mode: after the call's reply), e.g.
    /// `test ! -e victim.txt`; runs with --env and --cwd. It is run before each
    /// call too and must not exit 0 then (a call it already reads as acted
    /// counts for no property).
    #[arg(long, value_name = "CMD")]
    pub(crate) acted_cmd: Option<String>,
    /// A shell command run before each case (before the server starts, or before
    /// each call in session mode), e.g. to reset a fixture; a non-zero exit
    /// stops that era's check (exit 2). It and --acted-cmd see ELICIT_CHECK_ERA,
    /// ELICIT_CHECK_SESSION (the server process, from 1; the server sees
    /// both) and ELICIT_CHECK_CASE (the call, as cases.jsonl names it).
    #[arg(long, value_name = "CMD")]
    pub(crate) setup: Option<String>,
    /// Set a variable in the server's (and the commands') environment; repeatable.
    #[arg(long, value_name = "KEY=VALUE")]
    pub(crate) env: Vec<String>,
    /// The server's (and the commands') working directory.
    #[arg(long, value_name = "DIR")]
    pub(crate) cwd: Option<PathBuf>,
    /// Random cases after the coverage cases [default: 100].
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub(crate) cases: Option<usize>,
    /// Run each case in a fresh server process (default: session mode, where
    /// the cases run one `tools/call` after another in one server process and a
    /// case that breaks a property is re-run fresh, that run being judged).
    #[arg(long, conflicts_with = "session")]
    pub(crate) fresh: bool,
    /// Session mode (the default; kept for older command lines).
    #[arg(long, hide = true)]
    pub(crate) session: bool,
    /// Seed of the generated cases (default: from the clock; printed).
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    pub(crate) seed: Option<u64>,
    /// Run only this case of the seed (with --seed), as a failure's reproduction line says.
    #[arg(long, value_name = "I", allow_negative_numbers = true)]
    pub(crate) case_index: Option<usize>,
    /// Replay this answer (an ElicitResult as JSON) instead of generating; repeat
    /// it for a multi-step form, one per elicitation/create in order.
    #[arg(long, value_name = "JSON")]
    pub(crate) answer: Vec<String>,
    /// Warnings (acting on extra keys or whole floats for integers) fail property 2.
    #[arg(long)]
    pub(crate) strict: bool,
    /// The tool acts on purpose when the client declared no form elicitation
    /// (a documented fail-open design): property 7 reports each such call as
    /// a warning instead of failing. A form-capable client that is never
    /// asked still fails it.
    #[arg(long)]
    pub(crate) allow_unasked: bool,
    /// A consent field and the one value that consents, e.g. '/confirm=true'
    /// or '/choice="Yes"' (repeatable): acting on a valid accept that carries
    /// another value there fails property 7. Without it, consent fields are
    /// inferred from what the tool does, and a field that reads as consent but
    /// was acted on at two values is only a warning.
    #[arg(long, value_name = "POINTER=JSON")]
    pub(crate) consent: Vec<String>,
    /// The protocol era(s) to drive the server in: 2025-11-25 (elicitation/create
    /// inside the call), 2026-07-28 (multi round-trip requests: input requests
    /// answered on the retry), both (each required), or auto: every era the
    /// server answers, each with its own verdicts (docs/src/eras.md,
    /// "What check does in each era")
    /// [default: auto].
    #[arg(long, value_name = "ERA", value_parser = eras_parser())]
    pub(crate) protocol: Option<Eras>,
    /// Most server runs spent shrinking one property's failure [default: 32].
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub(crate) max_shrink_runs: Option<usize>,
    /// Fresh server processes run at once: the cases of --fresh, the re-runs of
    /// a session that did not end cleanly, the capability sessions, the
    /// 2026-07-28 retries [default: 1]. With --setup or --acted-cmd, cases
    /// still run one at a time unless --independent-cases.
    #[arg(short = 'j', long = "jobs", value_name = "N", allow_negative_numbers = true, value_parser = clap::value_parser!(u16).range(1..))]
    pub(crate) jobs: Option<u16>,
    /// The cases share no state: each case's --setup and --acted-cmd use a
    /// fixture of its own (e.g. named after $ELICIT_CHECK_SESSION), so with
    /// -j N they may run at once. Without it, nothing of one case (setup,
    /// server, call, acted reading, exit) overlaps another's.
    #[arg(long)]
    pub(crate) independent_cases: bool,
    /// Show progress on stderr (cases done per era, the current phase) even
    /// when stderr is not a terminal [default: on a terminal only].
    #[arg(long)]
    pub(crate) progress: bool,
    /// Print one JSON document instead of the table.
    #[arg(long)]
    pub(crate) json: bool,
    /// In the table, every wire line whole (by default a line past 400
    /// characters is cut, saying its size; --json keeps everything either
    /// way).
    #[arg(long)]
    pub(crate) verbose: bool,
    /// Write JUnit XML (one testcase per property) to this file.
    #[arg(long, value_name = "PATH")]
    pub(crate) junit: Option<PathBuf>,
    /// Write SARIF 2.1.0 (one rule per property, one result per failed
    /// property) to this file, for code scanning.
    #[arg(long, value_name = "PATH")]
    pub(crate) sarif: Option<PathBuf>,
    /// A TOML list of known failures (`[[known]]` tool, property, era,
    /// reason): a listed failure does not fail the check, a listed property
    /// that holds fails it as stale (docs/src/ci.md).
    #[arg(long, value_name = "FILE")]
    pub(crate) baseline: Option<PathBuf>,
    /// Append a Markdown summary (the table, the findings, the reproduction
    /// lines) to this file, e.g. "$GITHUB_STEP_SUMMARY".
    #[arg(long, value_name = "PATH")]
    pub(crate) summary: Option<PathBuf>,
    /// Folder for the evidence: check.json (the report) and cases.jsonl (every session).
    #[arg(long, value_name = "DIR")]
    pub(crate) output: Option<PathBuf>,
    /// A TOML file of [[target]]s (docs/src/config.md): every target is checked
    /// (or those --tool, --target or --shard choose); options given here
    /// override it.
    #[arg(long, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
    /// The MCP registry's server.json (one server, or a JSON list of them):
    /// each server is started from its npm or pypi package, its tools are
    /// called once, and every tool that sends a form elicitation/create is
    /// checked (docs/src/registry.md); acting is read as --acted-not-error
    /// unless an --acted option is given.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["config", "url", "server"])]
    pub(crate) server_json: Option<PathBuf>,
    /// Speak Streamable HTTP to the MCP endpoint at this URL instead of stdio.
    /// With a server command after `--`, one server is started per session and
    /// `{port}` in the URL, the command and --env values becomes a free local
    /// port (e.g. `--url 'http://127.0.0.1:{port}/mcp' -- env PORT={port} node
    /// server.js`); without one, the server is already running and each
    /// session is its own Mcp-Session-Id (docs/src/http.md).
    #[arg(long, value_name = "URL")]
    pub(crate) url: Option<String>,
    /// With --url, a header sent on every HTTP request, e.g. 'Authorization:
    /// Bearer ${TOKEN}' (repeatable): `${VAR}` is read from the environment,
    /// and a value given literally is printed as *** in reports and
    /// reproduction lines.
    #[arg(long = "header", value_name = "NAME: VALUE", requires = "url")]
    pub(crate) header: Vec<String>,
    #[command(flatten)]
    pub(crate) limits: LimitArgs,
    /// The server command, after `--` (e.g. `-- python3 server.py`).
    #[arg(last = true)]
    pub(crate) server: Vec<String>,
}

/// The options of `elicit-check serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Seconds a sealed 2026-07-28 `requestState` stays valid (`0`: every state
    /// has expired when it comes back, to test expiry without waiting).
    #[arg(long, default_value_t = 300.0, value_parser = seconds_or_zero, value_name = "SECS", allow_negative_numbers = true)]
    pub(crate) request_state_ttl: f64,
    /// Seconds a 2025-11-25 call waits for the answer to its `elicitation/create`;
    /// then it ends `{"status":"timed_out","computed":false}` and the request is
    /// cancelled (`notifications/cancelled`) [default: no limit].
    #[arg(long, value_parser = seconds, value_name = "SECS", allow_negative_numbers = true)]
    pub(crate) elicitation_timeout: Option<f64>,
    /// Serve over Streamable HTTP at `http://127.0.0.1:PORT/mcp` instead of
    /// stdin/stdout, until stopped (SIGTERM, Ctrl-C); for `run --url` and
    /// `check --url` (`elicit-check serve --port {port}`).
    #[arg(long, value_name = "PORT")]
    pub(crate) port: Option<u16>,
}

/// The options of `elicit-check run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Folder for the evidence (`results.json`), written even when cases fail.
    #[arg(long, default_value = "run-output")]
    pub(crate) output: PathBuf,
    /// Generated cases to run after the contract cases
    /// [default: 256, or 0 when --case is given].
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub(crate) cases: Option<usize>,
    /// Seed of the generated cases (default: from the clock; printed, so a run can be repeated).
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    pub(crate) seed: Option<u64>,
    /// Run only this contract case (repeatable); default: all 19. With
    /// --hostile, a hostile-client case (default: all 16).
    #[arg(long = "case", value_name = "NAME")]
    pub(crate) only: Vec<String>,
    /// Run the 16 hostile-client cases (a client that misbehaves on the wire:
    /// a call before `initialized`, replies under wrong ids, lines that are not
    /// JSON, misspelt actions, huge or deep answers, stdin closed early) instead
    /// of the contract and generated cases; each is a row of the same table and
    /// evidence (docs/src/hostile.md).
    #[arg(long, conflicts_with_all = ["cases", "seed", "session", "protocol"])]
    pub(crate) hostile: bool,
    /// Speak Streamable HTTP to the MCP endpoint at this URL instead of stdio
    /// (the contract and generated cases; the hostile-client cases are stdio
    /// lines). With a server command after `--`, one server is started per
    /// case (or per session) and `{port}` in the URL and the command becomes a
    /// free local port; without one, the server is already running and each
    /// case is its own Mcp-Session-Id (docs/src/http.md).
    #[arg(long, value_name = "URL", conflicts_with = "hostile")]
    pub(crate) url: Option<String>,
    #[command(flatten)]
    pub(crate) limits: LimitArgs,
    /// Protocol era: 2025-11-25 (`initialize`, `elicitation/create`), 2026-07-28
    /// (`server/discover`, `InputRequiredResult`, retry), or both (each case in
    /// both eras; a case whose outcomes differ beyond what the era changes fails:
    /// docs/src/eras.md)
    /// [default: 2025-11-25, or 2026-07-28 for `--case NAME@2026-07-28`].
    #[arg(long, value_enum)]
    pub(crate) protocol: Option<RunEras>,
    /// Judge free-text messages word for word, `errors` in contract order and the
    /// exact `requestedSchema` [default: on for the built-in reference server,
    /// off for a server given after `--`, which is judged by meaning].
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub(crate) exact_messages: Option<bool>,
    /// Run every case even when cases keep hanging or the server keeps
    /// outliving its stdin (by default the run stops after 2 consecutive `hung`
    /// or 2 consecutive `ignored_stdin_close` cases, with that verdict, exit 1).
    #[arg(long)]
    pub(crate) keep_going: bool,
    /// Run many cases in one server process per capability set, one `tools/call`
    /// after another; a case that fails there is re-run in a fresh process and
    /// that verdict is reported (docs/src/sessions.md).
    /// Default: a fresh process per case.
    #[arg(long)]
    pub(crate) session: bool,
    /// Cases (or, with --session, groups of cases) run at once, each in its own
    /// server process [default: the number of cores]. Output stays in case order.
    #[arg(short = 'j', long = "jobs", value_name = "N", allow_negative_numbers = true, value_parser = clap::value_parser!(u16).range(1..))]
    pub(crate) jobs: Option<u16>,
    /// Run one case with this raw answer instead of the contract and generated
    /// cases: the `result` of the reply to `elicitation/create`, sent byte for
    /// byte; judged against the reference model's outcome for it. A failed
    /// generated case's minimal form reproduces this way.
    #[arg(long, value_name = "JSON", conflicts_with_all = ["only", "cases", "seed", "hostile"])]
    pub(crate) answer: Option<String>,
    /// As --answer, with a JSON-RPC `error` member (e.g. `{"code":-32603,"message":"x"}`)
    /// instead of a `result`.
    #[arg(long, value_name = "JSON", conflicts_with_all = ["answer", "only", "cases", "seed", "hostile"])]
    pub(crate) answer_error: Option<String>,
    /// The client capabilities of the --answer case, a JSON object declared at
    /// `initialize` byte for byte [default: {"elicitation":{"form":{}}}]; given
    /// alone (or with --policy), the client answers as a spec client does:
    /// `{"action":"cancel"}` with form declared, else error -32602.
    #[arg(long, value_name = "JSON", conflicts_with_all = ["only", "cases", "seed", "hostile"])]
    pub(crate) capabilities: Option<String>,
    /// The `policy` argument of the --answer case [default: validated].
    #[arg(long, value_name = "NAME", value_enum, conflicts_with_all = ["only", "cases", "seed", "hostile"])]
    pub(crate) policy: Option<Policy>,
    /// Print one JSON document on stdout instead of the table: the members of
    /// run.json and `results`, each case's name, `passed`, verdict name,
    /// primary evidence and reproduction (shape: schemas/run-report.schema.json).
    #[arg(long)]
    pub(crate) json: bool,
    /// The server command to test, after `--` (e.g. `-- python3 server.py`).
    #[arg(last = true)]
    pub(crate) server: Vec<String>,
}

/// The suffix `--protocol both` gives the name of a case's 2026-07-28 verdict
/// (`accept_valid@2026-07-28`); `--case` takes it to mean that case in that era.
const ERA_2026_SUFFIX: &str = "@2026-07-28";

impl RunArgs {
    /// The era(s) of `--protocol` (2025-11-25 when not given).
    pub(crate) fn protocol(&self) -> RunEras {
        self.protocol.unwrap_or(RunEras::V2025_11_25)
    }

    /// `--case NAME@2026-07-28` (the name of a case's 2026-07-28 verdict in a
    /// run of `--protocol both`) selects NAME in era 2026-07-28 only, as
    /// `--case NAME --protocol 2026-07-28` does. Refused with another explicit
    /// `--protocol`, and beside a `--case` without the suffix when `--protocol`
    /// is not given (which era would that one run in?).
    pub(crate) fn with_era_names(mut self) -> anyhow::Result<RunArgs> {
        if self.hostile {
            return Ok(self);
        }
        let Some(first) = self
            .only
            .iter()
            .find(|name| name.ends_with(ERA_2026_SUFFIX))
            .cloned()
        else {
            return Ok(self);
        };
        let base = first.trim_end_matches(ERA_2026_SUFFIX).to_owned();
        match self.protocol {
            None | Some(RunEras::V2026_07_28) => {}
            Some(other) => anyhow::bail!(
                "--case {first} is the case's run in protocol 2026-07-28, but --protocol is \
                 {other}: give --case {base} --protocol {other}, or leave out --protocol"
            ),
        }
        if self.protocol.is_none()
            && let Some(plain) = self
                .only
                .iter()
                .find(|name| !name.ends_with(ERA_2026_SUFFIX))
        {
            anyhow::bail!(
                "--case {first} runs in protocol 2026-07-28 and --case {plain} in 2025-11-25: \
                 give --protocol 2026-07-28 to run both there, or run them separately"
            );
        }
        for name in &mut self.only {
            if let Some(base) = name.strip_suffix(ERA_2026_SUFFIX) {
                *name = base.to_owned();
            }
        }
        self.protocol = Some(RunEras::V2026_07_28);
        Ok(self)
    }

    /// Whether free text is judged word for word: `--exact-messages`, by
    /// default on for the built-in reference server only.
    pub(crate) fn exact_messages(&self) -> bool {
        self.exact_messages
            .unwrap_or(self.server.is_empty() && self.url.is_none())
    }

    /// The one case of `--answer`, `--answer-error`, `--capabilities` or
    /// `--policy` (`None` when none is given), checked before anything is written.
    pub(crate) fn answer_case(&self) -> anyhow::Result<Option<crate::case::Case>> {
        use crate::case::WireAnswer;
        if self.answer.is_none()
            && self.answer_error.is_none()
            && self.capabilities.is_none()
            && self.policy.is_none()
        {
            return Ok(None);
        }
        let capabilities = match &self.capabilities {
            None => json!({"elicitation": {"form": {}}}),
            Some(text) => match serde_json::from_str(text) {
                Ok(serde_json::Value::Object(members)) => serde_json::Value::Object(members),
                Ok(_) => anyhow::bail!("--capabilities must be a JSON object, got {text}"),
                Err(error) => anyhow::bail!("--capabilities is not JSON: {error}"),
            },
        };
        let answer =
            match (&self.answer, &self.answer_error) {
                (Some(text), _) => Some(WireAnswer::result_text(text).with_context(|| {
                    format!("--answer {text:?} is not JSON the oracles can read")
                })?),
                (None, Some(text)) => Some(WireAnswer::error_text(text).with_context(|| {
                    format!("--answer-error {text:?} is not JSON the oracles can read")
                })?),
                (None, None) => None,
            };
        Ok(Some(crate::run::answer_case(
            capabilities,
            self.policy.unwrap_or(Policy::Validated).as_str(),
            answer,
        )))
    }

    /// What a failed case's reproduction repeats of this run (kind by mode).
    pub(crate) fn replay(&self) -> report::Replay {
        report::Replay {
            kind: if self.hostile {
                report::ReplayKind::Hostile
            } else if self.answer.is_some()
                || self.answer_error.is_some()
                || self.capabilities.is_some()
                || self.policy.is_some()
            {
                report::ReplayKind::Answer
            } else {
                report::ReplayKind::Case
            },
            exact_messages: Some(self.exact_messages()),
            session: self.session,
        }
    }

    /// The schedule of `--session` and `-j`.
    pub(crate) fn schedule(&self) -> Schedule {
        Schedule {
            mode: if self.session {
                Mode::Session
            } else {
                Mode::FreshProcess
            },
            jobs: self.jobs.map_or_else(Schedule::cores, usize::from),
        }
    }
}

/// Parses a positive number of seconds (at most a day).
pub(crate) fn seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if value > 0.0 && value <= 86_400.0 => Ok(value),
        _ => Err(format!("{text:?} is not a number of seconds in (0, 86400]")),
    }
}

/// The eras `run --protocol` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RunEras {
    /// `initialize`, then `elicitation/create` inside the call.
    #[value(name = "2025-11-25")]
    V2025_11_25,
    /// `server/discover`, `InputRequiredResult`, the retry with `inputResponses`.
    #[value(name = "2026-07-28")]
    V2026_07_28,
    /// Each case in both eras, 2025-11-25 first.
    Both,
}

impl RunEras {
    /// The eras in the order the run goes through them.
    pub fn protocols(self) -> Vec<Protocol> {
        match self {
            RunEras::V2025_11_25 => vec![Protocol::V2025_11_25],
            RunEras::V2026_07_28 => vec![Protocol::V2026_07_28],
            RunEras::Both => Protocol::ALL.to_vec(),
        }
    }
}

impl std::fmt::Display for RunEras {
    /// As written on the command line and in `run.json`: `2025-11-25`, `both`.
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use clap::ValueEnum;
        let value = self.to_possible_value().expect("no variant is skipped");
        formatter.write_str(value.get_name())
    }
}

/// `check --protocol`'s parser: the four values listed in `--help`, read as
/// [`Eras`] (the config file's `protocol` reads the same words).
fn eras_parser() -> impl clap::builder::TypedValueParser<Value = Eras> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(["auto", "both", "2025-11-25", "2026-07-28"])
        .map(|text| text.parse::<Eras>().expect("one of the listed values"))
}

/// A clap value parser: seconds in [0, 86400] (`--request-state-ttl`).
pub(crate) fn seconds_or_zero(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if (0.0..=86_400.0).contains(&value) => Ok(value),
        _ => Err(format!("{text:?} is not a number of seconds in [0, 86400]")),
    }
}

/// The time bounds of every server session, the same options for `run` and
/// `check` (as [`Limits`]).
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct LimitArgs {
    /// Seconds a server may take to answer `initialize` and `tools/list`.
    #[arg(long, default_value_t = 10.0, value_parser = seconds, value_name = "SECS", allow_negative_numbers = true)]
    pub(crate) startup_timeout: f64,
    /// Seconds one `tools/call` may take, elicitations included (and each
    /// `check --setup` or `--acted-cmd` run).
    #[arg(long, default_value_t = 10.0, value_parser = seconds, value_name = "SECS", allow_negative_numbers = true)]
    pub(crate) call_timeout: f64,
    /// Seconds a server may take to exit after its stdin closes before it is killed.
    #[arg(long, default_value_t = 5.0, value_parser = seconds, value_name = "SECS", allow_negative_numbers = true)]
    pub(crate) shutdown_grace: f64,
}

impl LimitArgs {
    /// The bounds these options give.
    pub fn limits(self) -> Limits {
        Limits {
            startup: Duration::from_secs_f64(self.startup_timeout),
            call: Duration::from_secs_f64(self.call_timeout),
            shutdown: Duration::from_secs_f64(self.shutdown_grace),
        }
    }
}

/// The `--help` text of `elicit-check` (`None`) or of one subcommand
/// (`Some("run")`), exactly as the binary prints it, without styling: the one
/// source of the option reference.
///
/// # Panics
/// When `subcommand` names none of `serve`, `run`, `check`.
pub fn help(subcommand: Option<&str>) -> String {
    use clap::CommandFactory;
    let args = std::iter::once("elicit-check")
        .chain(subcommand)
        .chain(["--help"]);
    match Cli::command().try_get_matches_from(args) {
        Err(shown) if shown.kind() == clap::error::ErrorKind::DisplayHelp => {
            shown.render().to_string()
        }
        _ => panic!("no subcommand {subcommand:?}"),
    }
}
