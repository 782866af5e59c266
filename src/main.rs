//! The `elicit-check` command: `serve` the reference server, or `run` the checks.

use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, Subcommand};
use elicit_check::format::counted;
use elicit_check::harness::Limits;
use elicit_check::harness::era::Protocol;
use elicit_check::oracle::contract::Judging;
use elicit_check::report::{self, EvidenceLog};
use elicit_check::run::settings::{Mode, Schedule};
use serde_json::json;

/// Property-based and mutation testing for MCP form elicitation servers.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the reference server on stdin/stdout: protocol 2025-11-25 after
    /// `initialize`, 2026-07-28 for requests carrying their version in `_meta`.
    Serve(ServeArgs),
    /// Run the contract cases against a server (default: the built-in reference server).
    Run(RunArgs),
    /// Check any stdio MCP server's tool from the requestedSchema it sends: does it
    /// act on anything but a valid, consenting accept?
    Check(CheckArgs),
}

#[derive(Debug, clap::Args)]
struct CheckArgs {
    /// The tool to call (required unless the config has exactly one target).
    #[arg(long)]
    tool: Option<String>,
    /// The tool's arguments, a JSON object.
    #[arg(long, value_name = "JSON")]
    arguments: Option<String>,
    /// Acted = the JSON boolean at this pointer in structuredContent (or in the JSON
    /// of the first text content) is true, e.g. `/booked`; `POINTER=JSON` compares
    /// with a JSON value instead, e.g. `/dry_run=false` or `/status="booked"`.
    #[arg(long, value_name = "POINTER[=JSON]", conflicts_with_all = ["acted_text", "acted_cmd"])]
    acted: Option<String>,
    /// Acted = the text of the result matches this regex, an isError result
    /// included (a tool may act, then fail); add --acted-not-error to require
    /// that the result is not an error too.
    #[arg(long, value_name = "REGEX", conflicts_with = "acted_cmd")]
    acted_text: Option<String>,
    /// Acted = the result is neither isError nor a JSON-RPC error (alone, or
    /// beside --acted-text).
    #[arg(long, conflicts_with_all = ["acted", "acted_cmd"])]
    acted_not_error: bool,
    /// Acted = this shell command exits 0 after each case (fresh mode: after the
    /// server exited; session mode: after the call's reply), e.g.
    /// `test ! -e victim.txt`; runs with --env and --cwd.
    #[arg(long, value_name = "CMD")]
    acted_cmd: Option<String>,
    /// A shell command run before each case (before the server starts, or before
    /// each call in session mode), e.g. to reset a fixture; a non-zero exit
    /// stops the check (exit 2).
    #[arg(long, value_name = "CMD")]
    setup: Option<String>,
    /// Set a variable in the server's (and the commands') environment; repeatable.
    #[arg(long, value_name = "KEY=VALUE")]
    env: Vec<String>,
    /// The server's (and the commands') working directory.
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Random cases after the coverage cases [default: 100].
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    cases: Option<usize>,
    /// Run each case in a fresh server process (default: session mode, where
    /// the cases run one `tools/call` after another in one server process and a
    /// case that breaks a property is re-run fresh, that run being judged).
    #[arg(long, conflicts_with = "session")]
    fresh: bool,
    /// Session mode (the default; kept for older command lines).
    #[arg(long, hide = true)]
    session: bool,
    /// Seed of the generated cases (default: from the clock; printed).
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    seed: Option<u64>,
    /// Run only this case of the seed (with --seed), as a failure's reproduction line says.
    #[arg(long, value_name = "I", allow_negative_numbers = true)]
    case_index: Option<usize>,
    /// Replay this answer (an ElicitResult as JSON) instead of generating; repeat
    /// it for a multi-step form, one per elicitation/create in order.
    #[arg(long, value_name = "JSON")]
    answer: Vec<String>,
    /// Warnings (acting on extra keys or whole floats for integers) fail property 2.
    #[arg(long)]
    strict: bool,
    /// The tool acts on purpose when the client cannot answer (a documented
    /// fail-open design): property 7 reports each such call as a warning
    /// instead of failing.
    #[arg(long)]
    allow_unasked: bool,
    /// The protocol era(s) to drive the server in: 2025-11-25 (elicitation/create
    /// inside the call), 2026-07-28 (multi round-trip requests: input requests
    /// answered on the retry), both (each required), or auto: every era the
    /// server answers, each with its own verdicts (README, "Check your own
    /// server in detail", Protocol eras)
    /// [default: auto].
    #[arg(long, value_name = "ERA", value_parser = ["auto", "both", "2025-11-25", "2026-07-28"])]
    protocol: Option<String>,
    /// Most server runs spent shrinking one property's failure [default: 32].
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    max_shrink_runs: Option<usize>,
    /// Fresh server processes run at once: the cases of --fresh, the re-runs of
    /// a session that did not end cleanly, the 2026-07-28 retries [default: 1].
    /// --setup and --acted-cmd then run concurrently too: give more than 1 only
    /// when cases share no state.
    #[arg(short = 'j', long = "jobs", value_name = "N", allow_negative_numbers = true, value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
    /// Print one JSON document instead of the table.
    #[arg(long)]
    json: bool,
    /// Write JUnit XML (one testcase per property) to this file.
    #[arg(long, value_name = "PATH")]
    junit: Option<PathBuf>,
    /// Folder for the evidence: check.json (the report) and cases.jsonl (every session).
    #[arg(long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// A TOML file of [[target]]s (see README); options given here override it.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Seconds a server may take to answer `initialize` and `tools/list`.
    #[arg(long, default_value_t = 10.0, value_parser = seconds, value_name = "SECS", allow_negative_numbers = true)]
    startup_timeout: f64,
    /// Seconds one `tools/call` may take, elicitations included.
    #[arg(long, default_value_t = 10.0, value_parser = seconds, value_name = "SECS", allow_negative_numbers = true)]
    call_timeout: f64,
    /// Seconds a server may take to exit after its stdin closes before it is killed.
    #[arg(long, default_value_t = 5.0, value_parser = seconds, value_name = "SECS", allow_negative_numbers = true)]
    shutdown_grace: f64,
    /// The server command, after `--` (e.g. `-- python3 server.py`).
    #[arg(last = true)]
    server: Vec<String>,
}

#[derive(Debug, clap::Args)]
struct ServeArgs {
    /// Seconds a sealed 2026-07-28 `requestState` stays valid (`0`: every state
    /// has expired when it comes back, to test expiry without waiting).
    #[arg(long, default_value_t = 300.0, value_parser = seconds_or_zero, value_name = "SECS", allow_negative_numbers = true)]
    request_state_ttl: f64,
    /// Seconds a 2025-11-25 call waits for the answer to its `elicitation/create`;
    /// then it ends `{"status":"timed_out","computed":false}` and the request is
    /// cancelled (`notifications/cancelled`) [default: no limit].
    #[arg(long, value_parser = seconds, value_name = "SECS", allow_negative_numbers = true)]
    elicitation_timeout: Option<f64>,
}

#[derive(Debug, clap::Args)]
struct RunArgs {
    /// Folder for the evidence (`results.json`), written even when cases fail.
    #[arg(long, default_value = "run-output")]
    output: PathBuf,
    /// Generated cases to run over stdio after the contract cases
    /// [default: 256, or 0 when --case is given].
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    cases: Option<usize>,
    /// Seed of the generated cases (default: from the clock; printed, so a run can be repeated).
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    seed: Option<u64>,
    /// Run only this contract case (repeatable); default: all 19. With
    /// --hostile, a hostile-client case (default: all 16).
    #[arg(long = "case", value_name = "NAME")]
    only: Vec<String>,
    /// Run the 16 hostile-client cases (a client that misbehaves on the wire:
    /// a call before `initialized`, replies under wrong ids, lines that are not
    /// JSON, misspelt actions, huge or deep answers, stdin closed early) instead
    /// of the contract and generated cases; each is a row of the same table and
    /// evidence (README, "Hostile clients").
    #[arg(long, conflicts_with_all = ["cases", "seed", "session", "protocol"])]
    hostile: bool,
    /// Seconds a server may take to answer `initialize` and `tools/list`.
    #[arg(long, default_value_t = 10.0, value_parser = seconds, value_name = "SECS", allow_negative_numbers = true)]
    startup_timeout: f64,
    /// Seconds one `tools/call` may take, elicitation included.
    #[arg(long, default_value_t = 10.0, value_parser = seconds, value_name = "SECS", allow_negative_numbers = true)]
    call_timeout: f64,
    /// Seconds a server may take to exit after its stdin closes before it is killed.
    #[arg(long, default_value_t = 5.0, value_parser = seconds, value_name = "SECS", allow_negative_numbers = true)]
    shutdown_grace: f64,
    /// Protocol era: 2025-11-25 (`initialize`, `elicitation/create`), 2026-07-28
    /// (`server/discover`, `InputRequiredResult`, retry), or both (each case in
    /// both eras; a case whose outcomes differ beyond what the era changes fails:
    /// README, "Protocol 2026-07-28")
    /// [default: 2025-11-25, or 2026-07-28 for `--case NAME@2026-07-28`].
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(["2025-11-25", "2026-07-28", "both"]))]
    protocol: Option<String>,
    /// Judge free-text messages word for word, `errors` in contract order and the
    /// exact `requestedSchema` [default: on for the built-in reference server,
    /// off for a server given after `--`, which is judged by meaning].
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    exact_messages: Option<bool>,
    /// Run every case even when cases keep hanging or the server keeps
    /// outliving its stdin (by default the run stops after 2 consecutive `hung`
    /// or 2 consecutive `ignored_stdin_close` cases, with that verdict, exit 1).
    #[arg(long)]
    keep_going: bool,
    /// Run many cases in one server process per capability set, one `tools/call`
    /// after another; a case that fails there is re-run in a fresh process and
    /// that verdict is reported (README, "Session mode and parallel cases").
    /// Default: a fresh process per case.
    #[arg(long)]
    session: bool,
    /// Cases (or, with --session, groups of cases) run at once, each in its own
    /// server process [default: the number of cores]. Output stays in case order.
    #[arg(short = 'j', long = "jobs", value_name = "N", allow_negative_numbers = true, value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
    /// Run one case with this raw answer instead of the contract and generated
    /// cases: the `result` of the reply to `elicitation/create`, sent byte for
    /// byte; judged against the reference model's outcome for it. A failed
    /// generated case's minimal form reproduces this way.
    #[arg(long, value_name = "JSON", conflicts_with_all = ["only", "cases", "seed", "hostile"])]
    answer: Option<String>,
    /// As --answer, with a JSON-RPC `error` member (e.g. `{"code":-32603,"message":"x"}`)
    /// instead of a `result`.
    #[arg(long, value_name = "JSON", conflicts_with_all = ["answer", "only", "cases", "seed", "hostile"])]
    answer_error: Option<String>,
    /// The client capabilities of the --answer case, a JSON object declared at
    /// `initialize` byte for byte [default: {"elicitation":{"form":{}}}]; given
    /// alone (or with --policy), the client answers as a spec client does:
    /// `{"action":"cancel"}` with form declared, else error -32602.
    #[arg(long, value_name = "JSON", conflicts_with_all = ["only", "cases", "seed", "hostile"])]
    capabilities: Option<String>,
    /// The `policy` argument of the --answer case [default: validated].
    #[arg(long, value_name = "NAME", value_parser = clap::builder::PossibleValuesParser::new(["validated", "raw", "diagnostic_unchecked"]), conflicts_with_all = ["only", "cases", "seed", "hostile"])]
    policy: Option<String>,
    /// Print one JSON document on stdout instead of the table: the members of
    /// run.json and `results`, each case's name, `passed`, verdict name,
    /// primary evidence and reproduction (shape: schemas/run-report.schema.json).
    #[arg(long)]
    json: bool,
    /// The server command to test, after `--` (e.g. `-- python3 server.py`).
    #[arg(last = true)]
    server: Vec<String>,
}

/// Parses the command line; a server command given without `--` gets a message
/// saying where it goes (clap alone would only call it an unexpected argument).
fn parse_cli() -> Cli {
    match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let args: Vec<String> = std::env::args().collect();
            let subcommand = args.get(1).map(String::as_str);
            // A stray word is likely the server command; a stray `-x` is a
            // misspelt option, where that hint would mislead.
            let stray_is_an_option = matches!(
                error.get(clap::error::ContextKind::InvalidArg),
                Some(clap::error::ContextValue::String(arg)) if arg.starts_with('-')
            );
            if error.kind() == clap::error::ErrorKind::UnknownArgument
                && matches!(subcommand, Some("run" | "check"))
                && !stray_is_an_option
                && !args.iter().any(|arg| arg == "--")
            {
                let _ = error.print();
                eprintln!(
                    "\nelicit-check: put the server command after `--`, e.g. `elicit-check {} -- python3 server.py`",
                    subcommand.unwrap_or("run")
                );
                std::process::exit(2);
            }
            error.exit()
        }
    }
}

/// The suffix `--protocol both` gives the name of a case's 2026-07-28 verdict
/// (`accept_valid@2026-07-28`); `--case` takes it to mean that case in that era.
const ERA_2026_SUFFIX: &str = "@2026-07-28";

impl RunArgs {
    /// The era(s) of `--protocol` (2025-11-25 when not given).
    fn protocol(&self) -> &str {
        self.protocol.as_deref().unwrap_or("2025-11-25")
    }

    /// `--case NAME@2026-07-28` (the name of a case's 2026-07-28 verdict in a
    /// run of `--protocol both`) selects NAME in era 2026-07-28 only, as
    /// `--case NAME --protocol 2026-07-28` does. Refused with another explicit
    /// `--protocol`, and beside a `--case` without the suffix when `--protocol`
    /// is not given (which era would that one run in?).
    fn with_era_names(mut self) -> anyhow::Result<RunArgs> {
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
        match self.protocol.as_deref() {
            None | Some("2026-07-28") => {}
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
        self.protocol = Some("2026-07-28".to_owned());
        Ok(self)
    }

    /// Whether free text is judged word for word: `--exact-messages`, by
    /// default on for the built-in reference server only.
    fn exact_messages(&self) -> bool {
        self.exact_messages.unwrap_or(self.server.is_empty())
    }

    /// The one case of `--answer`, `--answer-error`, `--capabilities` or
    /// `--policy` (`None` when none is given), checked before anything is written.
    fn answer_case(&self) -> anyhow::Result<Option<elicit_check::case::Case>> {
        use elicit_check::case::WireAnswer;
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
        Ok(Some(elicit_check::run::answer_case(
            capabilities,
            self.policy.as_deref().unwrap_or("validated"),
            answer,
        )))
    }

    /// What a failed case's reproduction repeats of this run (kind by mode).
    fn replay(&self) -> report::Replay {
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
    fn schedule(&self) -> Schedule {
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

fn main() -> ExitCode {
    let mut cli = parse_cli();
    if cli.command.is_none() {
        // No subcommand means `run` with its defaults.
        cli = Cli::parse_from(["elicit-check", "run"]);
    }
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,rmcp=error")),
        )
        .init();
    // `serve` runs on one thread: the reference server handles one client, and a
    // single-threaded runtime has no worker threads to wake or to keep stacks for
    // (for its round trips and its peak memory). `run` and `check` drive
    // many server processes at once (`-j`) and keep the multi-threaded runtime.
    let runtime = match &cli.command {
        Some(Command::Serve(_)) => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
        _ => tokio::runtime::Runtime::new(),
    };
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("elicit-check: cannot start the async runtime: {error}");
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        Some(Command::Serve(args)) => runtime
            .block_on(elicit_check::server::serve_stdio_with(
                elicit_check::server::ReferenceServer::with_request_state_ttl(
                    Duration::from_secs_f64(args.request_state_ttl),
                )
                .with_elicitation_timeout(args.elicitation_timeout.map(Duration::from_secs_f64)),
            ))
            .map(|()| true),
        Some(Command::Run(args)) => runtime.block_on(run(args)),
        Some(Command::Check(args)) => runtime.block_on(check(args)),
        None => unreachable!("defaulted to run above"),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(error) => {
            eprintln!("elicit-check: {error:#}");
            ExitCode::from(2)
        }
    }
}

/// Runs the contract cases, then the generated ones; `Ok(false)` when any case
/// failed. The arguments are checked before the evidence folder is touched, so
/// a typo never replaces the previous run's evidence.
/// Ctrl-C or SIGTERM stops the run: the case in flight is kept as `interrupted`
/// with its frames so far (its server killed), and the three evidence files say
/// the run was interrupted.
async fn run(args: RunArgs) -> anyhow::Result<bool> {
    let args = args.with_era_names()?;
    let hostile = if args.hostile {
        elicit_check::run::hostile::select(&args.only)?
    } else {
        if let Some(name) = args
            .only
            .iter()
            .find(|name| elicit_check::run::hostile::case_named(name).is_some())
        {
            anyhow::bail!("{name:?} is a hostile-client case: add --hostile");
        }
        Vec::new()
    };
    let answer = args.answer_case()?;
    if let Some(twice) = args
        .only
        .iter()
        .enumerate()
        .find_map(|(at, name)| args.only[..at].contains(name).then_some(name))
    {
        anyhow::bail!("--case {twice} is given twice: each case runs once");
    }
    let selection = if args.hostile || answer.is_some() {
        elicit_check::run::Selection::default()
    } else {
        elicit_check::run::select_cases(&args.only)?
    };
    if !selection.generated.is_empty() && args.seed.is_none() {
        anyhow::bail!(
            "--case generated_N replays a generated case of a seed: give the --seed it came from"
        );
    }
    if !selection.generated.is_empty() && args.cases.is_some() {
        anyhow::bail!(
            "--cases cannot be used with --case generated_N: the named generated cases are the \
             ones replayed (name more with --case, or leave out --case to generate --cases N)"
        );
    }
    output_is_a_folder(&args.output)?;
    let command = if args.server.is_empty() {
        let exe = std::env::current_exe()
            .context("cannot find this executable to serve the reference server")?;
        vec![exe.to_string_lossy().into_owned(), "serve".to_owned()]
    } else {
        check_program(&args.server[0])?;
        args.server.clone()
    };
    eprintln!(
        "elicit-check: server: {}",
        elicit_check::error::shell_words(&command)
    );
    let cases = if args.hostile || answer.is_some() {
        0
    } else if selection.generated.is_empty() {
        args.cases
            .unwrap_or(if args.only.is_empty() { 256 } else { 0 })
    } else {
        0
    };
    let seed = args.seed.unwrap_or_else(clock_seed);
    let run_info = json!({
        "server_command": command,
        "seed": seed,
        "protocol": args.protocol(),
        // Generated cases run: --cases N, or those named with --case generated_N.
        "generated_cases": cases + selection.generated.len(),
        "hostile": args.hostile,
    });
    let log = EvidenceLog::create_for_run(&args.output, &run_info)
        .with_context(|| format!("cannot write the evidence folder {}", args.output.display()))?;
    let mut minimal = None;
    let schedule = args.schedule().for_protocols(&protocols(args.protocol()));
    let started = std::time::Instant::now();
    let mut signals = StopSignals::listen();
    let mut stopped: Option<anyhow::Error> = None;
    let interrupted = {
        let in_flight = elicit_check::harness::InFlight::default();
        let outcome = tokio::select! {
            result = elicit_check::harness::IN_FLIGHT.scope(
                in_flight.clone(),
                run_all(&args, &selection, &hostile, answer.as_ref(), &command, cases, seed, &log, &mut minimal),
            ) => Err(result),
            signal = signals.recv() => Ok(signal),
        };
        match outcome {
            Err(result) => {
                if let Err(error) = result {
                    stopped = Some(error);
                }
                None
            }
            Ok(signal) => {
                eprintln!(
                    "elicit-check: {signal}: stopping; the case in flight is kept as interrupted and its server killed"
                );
                // The cases in flight, kept as interrupted, and the cases that
                // finished behind one of them (-j N) or in a session batch that
                // had not ended: all kept, in case order.
                let interrupted = in_flight
                    .take()
                    .into_iter()
                    .map(|evidence| {
                        report::Verdict::interrupted(evidence, signal, args.replay(), seed)
                    })
                    .collect();
                // Their rows, as the run would have printed them (generated
                // cases have none: a failed one is listed below).
                for verdict in log.push_stopped(interrupted)? {
                    if !args.json && verdict.reason.is_none() {
                        report::write_row(&mut std::io::stdout(), &verdict)?;
                    }
                }
                Some(signal)
            }
        }
    };
    let tallies = log.tallies();
    // The closing lines for people: on stdout, or on stderr under --json (stdout
    // then holds the one JSON document only).
    let mut closing = String::new();
    for warning in log.warnings() {
        writeln!(closing, "{warning}")?;
    }
    closing.push_str(&failed_generated(&log, &tallies));
    let generated: Vec<report::Tally> = tallies.iter().filter(|t| t.generated).cloned().collect();
    if !generated.is_empty() {
        writeln!(closing, "generated: {}", report::tally_summary(&generated))?;
    }
    if let Some(minimal) = &minimal {
        writeln!(
            closing,
            "{}:{}",
            minimal.heading(),
            report::explain(&minimal.generated, &minimal.outcome)
        )?;
        for failure in &minimal.failures {
            writeln!(closing, "    {failure}")?;
        }
        writeln!(closing, "    reproduce: {}", minimal.reproduce)?;
    }
    let hung = stopped.as_ref().is_some_and(|error| {
        matches!(
            error.downcast_ref::<elicit_check::error::Error>(),
            Some(
                elicit_check::error::Error::Hung { .. }
                    | elicit_check::error::Error::IgnoredStdinClose { .. }
            )
        )
    });
    let did_not_start = stopped.as_ref().is_some_and(|error| {
        matches!(
            error.downcast_ref::<elicit_check::error::Error>(),
            Some(
                elicit_check::error::Error::ServerDidNotStart { .. }
                    | elicit_check::error::Error::NoContractTool { .. }
            )
        )
    });
    let status = match (&interrupted, &stopped) {
        (Some(_), _) => "interrupted",
        (None, None) => "finished",
        (None, Some(_)) if hung || did_not_start => "stopped",
        (None, Some(_)) => "aborted",
    };
    let seconds = started.elapsed().as_secs_f64();
    let counts = format!(
        "{} in {seconds:.1} s ({}; {})",
        report::tally_summary(&tallies),
        throughput(tallies.len(), seconds),
        mode_line(schedule)
    );
    match (status, tallies.last()) {
        ("finished", _) => writeln!(closing, "{counts}")?,
        ("stopped", Some(last)) => writeln!(closing, "stopped ({}): {counts}", last.verdict)?,
        (other, _) => writeln!(
            closing,
            "{other} after {}: {counts}",
            counted(tallies.len(), "case")
        )?,
    }
    let mut summary = run_info;
    let members = summary
        .as_object_mut()
        .context("the run summary is an object")?;
    members.insert("interrupted".into(), interrupted.is_some().into());
    if let Some(error) = &stopped {
        members.insert("stopped_because".into(), format!("{error:#}").into());
    }
    if let Some(signal) = interrupted {
        members.insert(
            "stopped_because".into(),
            format!("{signal} by {}", StopSignals::name(signal)).into(),
        );
    }
    members.insert("mode".into(), schedule.mode.to_string().into());
    members.insert("jobs".into(), schedule.jobs.into());
    members.insert("seconds".into(), seconds.into());
    members.insert("cases".into(), tallies.len().into());
    members.insert(
        "passed".into(),
        tallies.iter().filter(|t| t.passed).count().into(),
    );
    members.insert("verdicts".into(), report::verdict_counts(&tallies));
    members.insert(
        "minimal_failure".into(),
        json!(minimal.as_ref().map(|m| json!({
            "reason": m.generated.reason.to_string(),
            "case": m.generated.case,
            "outcome": m.outcome,
            "expected": m.generated.expected,
            "failures": m.failures,
            "shrink_runs": m.shrink_runs,
            "shrink_stopped_early": m.shrink_stopped_early,
            "reproduce": m.reproduce,
        }))),
    );
    let results = log.finish(&summary, status)?;
    if args.json {
        eprint!("{closing}");
        let document = report::run_document(&summary, status, log.case_lines()?);
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "{}", serde_json::to_string_pretty(&document)?)?;
    } else {
        print!("{closing}");
    }
    eprintln!("elicit-check: evidence in {}", results.display());
    if let Some(signal) = interrupted {
        anyhow::bail!("{signal} after {}", counted(tallies.len(), "case"));
    }
    if let (true, Some(error)) = (hung, &stopped) {
        eprintln!("elicit-check: {error:#}");
        return Ok(false);
    }
    if let Some(error) = stopped {
        return Err(error);
    }
    Ok(tallies.iter().all(|tally| tally.passed))
}

/// The closing lines that show the failed generated cases (they have no table
/// row): read back from `results.jsonl` only when one failed
/// ([`report::write_failed_generated`]).
fn failed_generated(log: &EvidenceLog, tallies: &[report::Tally]) -> String {
    if !tallies.iter().any(|tally| tally.generated && !tally.passed) {
        return String::new();
    }
    let mut out = Vec::new();
    let written = log
        .case_lines()
        .map_err(anyhow::Error::from)
        .and_then(|cases| Ok(report::write_failed_generated(&mut out, tallies, &cases)?));
    match written {
        Ok(()) => String::from_utf8_lossy(&out).into_owned(),
        Err(error) => format!("elicit-check: cannot show the failed generated cases: {error:#}\n"),
    }
}

/// Checks that the server's program can be started before anything is
/// written: a path must name a regular file with an execute bit, a bare name
/// must be such a file in a folder of `PATH` (as `execvp` looks it up). Each
/// refusal says why: not found, a directory, not executable.
/// Refuses an `--output` path that exists and is no folder (a file), before
/// anything is written.
fn output_is_a_folder(dir: &std::path::Path) -> anyhow::Result<()> {
    if dir.exists() && !dir.is_dir() {
        anyhow::bail!(
            "--output {} is a file, not a folder: give a folder for the evidence",
            dir.display()
        );
    }
    Ok(())
}

fn check_program(program: &str) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let quoted = elicit_check::error::shell_words(&[program.to_owned()]);
    let executable = |metadata: &std::fs::Metadata| {
        metadata.is_file() && metadata.permissions().mode() & 0o111 != 0
    };
    if program.contains('/') {
        return match std::fs::metadata(program) {
            Err(_) => anyhow::bail!("cannot start server: {quoted} not found"),
            Ok(metadata) if metadata.is_dir() => {
                anyhow::bail!("cannot start server: {quoted} is a directory, not a program")
            }
            Ok(metadata) if !metadata.is_file() => {
                anyhow::bail!("cannot start server: {quoted} is not a regular file")
            }
            Ok(metadata) if !executable(&metadata) => {
                anyhow::bail!("cannot start server: {quoted} is not executable")
            }
            Ok(_) => Ok(()),
        };
    }
    let candidates: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join(program))
                .collect()
        })
        .unwrap_or_default();
    if candidates
        .iter()
        .any(|candidate| std::fs::metadata(candidate).is_ok_and(|m| executable(&m)))
    {
        return Ok(());
    }
    match candidates
        .iter()
        .find(|candidate| std::fs::metadata(candidate).is_ok_and(|m| m.is_file()))
    {
        Some(file) => anyhow::bail!(
            "cannot start server: {quoted} not found on PATH ({} is not executable)",
            file.display()
        ),
        None => anyhow::bail!("cannot start server: {quoted} not found on PATH"),
    }
}

/// The contract cases (rows printed as they finish), then the generated ones.
#[allow(clippy::too_many_arguments)]
async fn run_all(
    args: &RunArgs,
    selection: &elicit_check::run::Selection,
    hostile: &[elicit_check::harness::hostile::HostileCase],
    answer: Option<&elicit_check::case::Case>,
    command: &[String],
    cases: usize,
    seed: u64,
    log: &EvidenceLog,
    minimal: &mut Option<elicit_check::run::MinimalFailure>,
) -> anyhow::Result<()> {
    let limits = Limits {
        startup: Duration::from_secs_f64(args.startup_timeout),
        call: Duration::from_secs_f64(args.call_timeout),
        shutdown: Duration::from_secs_f64(args.shutdown_grace),
    };
    eprintln!("elicit-check: protocol {}", args.protocol());
    let settings = elicit_check::run::Settings {
        limits,
        protocols: protocols(args.protocol()),
        judging: Judging {
            exact_messages: args.exact_messages(),
        },
        keep_going: args.keep_going,
        schedule: args.schedule(),
    };
    // Under --json stdout holds the one document printed at the end: no table;
    // nor when only generated cases were named (they have no rows).
    let rows =
        args.hostile || answer.is_some() || args.only.is_empty() || !selection.contract.is_empty();
    if !args.json && rows {
        report::write_header(&mut std::io::stdout())?;
    }
    let mut print_row = |verdict: &report::Verdict| {
        if !args.json {
            let _ = report::write_row(&mut std::io::stdout(), verdict);
        }
    };
    if args.hostile {
        return Ok(elicit_check::run::hostile::run_hostile(
            command,
            hostile,
            &settings,
            log,
            &mut print_row,
        )
        .await?);
    }
    if let Some(case) = answer {
        return Ok(
            elicit_check::run::run_answer(command, case, &settings, log, &mut print_row).await?,
        );
    }
    if args.only.is_empty() || !selection.contract.is_empty() {
        elicit_check::run::run_contract_in(
            command,
            &selection.contract,
            &settings,
            log,
            &mut print_row,
        )
        .await?;
    }
    if !selection.generated.is_empty() {
        *minimal = elicit_check::run::run_generated_selected(
            command,
            &selection.generated,
            seed,
            &settings,
            log,
        )
        .await?;
    }
    if cases > 0 {
        eprintln!(
            "elicit-check: {}, seed {seed} (repeat with --seed {seed})",
            counted(cases, "generated case")
        );
        let bar = indicatif::ProgressBar::new(cases as u64);
        let template = if cases == 1 {
            "{bar:40} {pos}/{len} generated case"
        } else {
            "{bar:40} {pos}/{len} generated cases"
        };
        bar.set_style(
            indicatif::ProgressStyle::with_template(template)
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        *minimal = elicit_check::run::run_generated_in(
            command,
            cases,
            seed,
            &settings,
            log,
            &mut |done| bar.set_position(done as u64),
        )
        .await?;
        bar.finish_and_clear();
    }
    Ok(())
}

/// Ctrl-C (SIGINT) and SIGTERM, listened for from the moment this is made: made
/// before any server is spawned, so no signal can kill the run (and orphan the
/// server group) before it is listened for.
struct StopSignals {
    interrupt: Option<tokio::signal::unix::Signal>,
    terminate: Option<tokio::signal::unix::Signal>,
}

impl StopSignals {
    fn listen() -> StopSignals {
        use tokio::signal::unix::{SignalKind, signal};
        StopSignals {
            interrupt: signal(SignalKind::interrupt()).ok(),
            terminate: signal(SignalKind::terminate()).ok(),
        }
    }

    /// The signal that `word` ([`StopSignals::recv`]) stands for: `SIGTERM` for
    /// `terminated`, `SIGINT` (Ctrl-C) for `interrupted`.
    fn name(word: &str) -> &'static str {
        if word == "terminated" {
            "SIGTERM"
        } else {
            "SIGINT"
        }
    }

    /// Resolves on the first of the two signals, naming it.
    async fn recv(&mut self) -> &'static str {
        async fn next(stream: &mut Option<tokio::signal::unix::Signal>) {
            match stream {
                Some(stream) => {
                    stream.recv().await;
                }
                None => std::future::pending().await,
            }
        }
        tokio::select! {
            () = next(&mut self.interrupt) => "interrupted",
            () = next(&mut self.terminate) => "terminated",
        }
    }
}

/// The target of `check` and its eras from the options and, when given, the
/// config file.
fn check_target(
    args: &CheckArgs,
) -> anyhow::Result<(elicit_check::check::Target, elicit_check::check::eras::Eras)> {
    use elicit_check::check::Target;
    use elicit_check::check::config::ConfigFile;
    let config = match &args.config {
        Some(path) => Some(
            ConfigFile::load(path)
                .map_err(anyhow::Error::msg)?
                .select(args.tool.as_deref())
                .map_err(anyhow::Error::msg)?
                .clone(),
        ),
        None => None,
    };
    let command = if args.server.is_empty() {
        config
            .as_ref()
            .map(|c| c.command.clone())
            .unwrap_or_default()
    } else {
        args.server.clone()
    };
    if command.is_empty() {
        anyhow::bail!("no server command: give it after `--` (e.g. `-- python3 server.py`)");
    }
    // As `run` does: a program that cannot start is refused before anything runs.
    check_program(&command[0])?;
    if let Some(dir) = &args.output {
        output_is_a_folder(dir)?;
    }
    let tool = args
        .tool
        .clone()
        .or_else(|| config.as_ref().map(|c| c.tool.clone()))
        .context("no tool: give --tool NAME")?;
    let mut target = Target::stdio(command).tool(tool);
    let arguments = match &args.arguments {
        Some(text) => match serde_json::from_str(text) {
            Ok(serde_json::Value::Object(arguments)) => Some(arguments),
            Ok(_) => anyhow::bail!("--arguments must be a JSON object, got {text}"),
            Err(error) => anyhow::bail!("--arguments is not JSON: {error}"),
        },
        None => config.as_ref().and_then(|c| c.arguments.clone()),
    };
    if let Some(arguments) = arguments {
        target = target.arguments(arguments);
    }
    let given_here = args.acted.is_some()
        || args.acted_text.is_some()
        || args.acted_not_error
        || args.acted_cmd.is_some();
    let (pointer, text, not_error, command) = if given_here {
        (
            args.acted.clone(),
            args.acted_text.clone(),
            args.acted_not_error,
            args.acted_cmd.clone(),
        )
    } else if let Some(config) = &config {
        (
            config.acted.clone(),
            config.acted_text.clone(),
            config.acted_not_error,
            config.acted_cmd.clone(),
        )
    } else {
        (None, None, false, None)
    };
    target.acted = match (pointer, text, not_error, command) {
        (Some(pointer), None, false, None) => {
            elicit_check::oracle::property::ActedRule::parse_pointer(&pointer)
                .map_err(anyhow::Error::msg)?
        }
        (None, Some(text), not_error, None) => elicit_check::oracle::property::ActedRule::Text {
            regex: regex::Regex::new(&text)
                .with_context(|| format!("--acted-text {text:?} is not a regex"))?,
            not_error,
        },
        (None, None, true, None) => elicit_check::oracle::property::ActedRule::NotError,
        (None, None, false, Some(command)) => {
            elicit_check::oracle::property::ActedRule::Command(command)
        }
        (None, None, false, None) => anyhow::bail!(
            "say how to read whether the server acted: --acted POINTER[=JSON], --acted-text REGEX, --acted-not-error or --acted-cmd CMD"
        ),
        _ => anyhow::bail!(
            "give one way to read acting: acted, acted_text (with or without acted_not_error), acted_not_error or acted_cmd"
        ),
    };
    if let Some(setup) = args
        .setup
        .clone()
        .or_else(|| config.as_ref().and_then(|c| c.setup.clone()))
    {
        target = target.setup(setup);
    }
    let mut environment: Vec<(String, String)> = config
        .as_ref()
        .map(|c| c.env.clone().into_iter().collect())
        .unwrap_or_default();
    for pair in &args.env {
        let Some((key, value)) = pair.split_once('=').filter(|(key, _)| !key.is_empty()) else {
            anyhow::bail!("--env {pair:?} is not KEY=VALUE");
        };
        environment.retain(|(known, _)| known != key);
        environment.push((key.to_owned(), value.to_owned()));
    }
    for (key, value) in environment {
        target = target.env(key, value);
    }
    if let Some(cwd) = args
        .cwd
        .clone()
        .or_else(|| config.as_ref().and_then(|c| c.cwd.clone()))
    {
        if !cwd.is_dir() {
            anyhow::bail!("--cwd {}: no such folder", cwd.display());
        }
        target = target.cwd(cwd);
    }
    if let Some(cases) = args.cases.or_else(|| config.as_ref().and_then(|c| c.cases)) {
        target = target.cases(cases);
    }
    if let Some(seed) = args.seed.or_else(|| config.as_ref().and_then(|c| c.seed)) {
        target = target.seed(seed);
    }
    if let Some(runs) = args
        .max_shrink_runs
        .or_else(|| config.as_ref().and_then(|c| c.max_shrink_runs))
    {
        target = target.max_shrink_runs(runs);
    }
    if let Some(jobs) = args
        .jobs
        .map(usize::from)
        .or_else(|| config.as_ref().and_then(|c| c.jobs))
    {
        if jobs == 0 {
            anyhow::bail!("jobs = 0 in the config: give at least 1");
        }
        target = target.jobs(jobs);
    }
    if args.case_index.is_some() && target.seed.is_none() {
        anyhow::bail!("--case-index needs the --seed it came from");
    }
    target.case_index = args.case_index;
    for answer in &args.answer {
        target.replay.push(
            serde_json::from_str(answer)
                .with_context(|| format!("--answer {answer:?} is not JSON"))?,
        );
    }
    let session = if args.fresh {
        false
    } else if args.session {
        true
    } else {
        config.as_ref().and_then(|c| c.session).unwrap_or(true)
    };
    target = target
        .strict(args.strict || config.as_ref().is_some_and(|c| c.strict))
        .session(session);
    target.allow_unasked = args.allow_unasked || config.as_ref().is_some_and(|c| c.allow_unasked);
    let eras: elicit_check::check::eras::Eras = match args
        .protocol
        .clone()
        .or_else(|| config.as_ref().and_then(|c| c.protocol.clone()))
    {
        Some(protocol) => protocol.parse().map_err(anyhow::Error::msg)?,
        None => elicit_check::check::eras::Eras::default(),
    };
    target.invoked_as = std::env::args()
        .next()
        .unwrap_or_else(|| "elicit-check".to_owned());
    Ok((
        target.limits(Limits {
            startup: Duration::from_secs_f64(args.startup_timeout),
            call: Duration::from_secs_f64(args.call_timeout),
            shutdown: Duration::from_secs_f64(args.shutdown_grace),
        }),
        eras,
    ))
}

/// `elicit-check check`: `Ok(true)` when every property holds.
async fn check(args: CheckArgs) -> anyhow::Result<bool> {
    let (target, eras) = check_target(&args)?;
    let seed = target
        .seed
        .map_or_else(|| "from the clock".to_owned(), |seed| seed.to_string());
    let what = match (target.replay.len(), target.case_index) {
        (0, Some(index)) => format!("one case: random case {index} of seed {seed}"),
        (0, None) => format!(
            "the coverage cases, then {} of seed {seed}",
            counted(target.cases, "random case")
        ),
        (answers, _) => format!("one case replaying {}", counted(answers, "answer")),
    };
    eprintln!(
        "elicit-check: checking tool {:?} of {} (protocol {}; {what}; {})",
        target.tool,
        elicit_check::error::shell_words(&target.command),
        match eras {
            elicit_check::check::eras::Eras::Auto =>
                "auto: every era the server answers".to_owned(),
            other => other.to_string(),
        },
        match (target.session, target.jobs) {
            (true, 1) => "session mode".to_owned(),
            (true, jobs) => format!("session mode, fresh re-runs -j {jobs}"),
            (false, 1) => "a fresh process per case".to_owned(),
            (false, jobs) => format!("a fresh process per case, -j {jobs}"),
        }
    );
    let mut cases_log = match &args.output {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot write the evidence folder {}", dir.display()))?;
            let path = dir.join("cases.jsonl");
            Some(std::io::BufWriter::new(
                std::fs::File::create(&path)
                    .with_context(|| format!("cannot write {}", path.display()))?,
            ))
        }
        None => None,
    };
    let mut log_error = None;
    let mut signals = StopSignals::listen();
    let mut on_record = |record: elicit_check::check::CaseRecord| {
        if let Some(file) = cases_log.as_mut() {
            let line = serde_json::to_string(&record).unwrap_or_default();
            if let Err(error) = writeln!(file, "{line}") {
                log_error.get_or_insert(error);
            }
        }
    };
    let finished = tokio::select! {
        report = elicit_check::check::eras::check_eras(&target, eras, &mut on_record) => Some(report),
        signal = signals.recv() => {
            eprintln!("elicit-check: {signal}: stopping; the case in flight is dropped and its server killed");
            None
        }
    };
    let Some(report) = finished else {
        if let Some(file) = cases_log.as_mut() {
            file.flush().context("cannot write cases.jsonl")?;
        }
        anyhow::bail!("interrupted; the sessions that finished are in cases.jsonl");
    };
    let report = match report {
        Ok(report) => report,
        Err(error) => {
            // The report file is written even when the check cannot be done, so
            // a CI job that archives it never keeps an earlier run's report.
            if let Some(dir) = &args.output {
                let path = dir.join("check.json");
                let failed = json!({
                    "passed": false,
                    "server_command": target.command,
                    "tool": target.tool,
                    "error": error.to_string(),
                });
                let text = serde_json::to_string_pretty(&failed)?;
                std::fs::write(&path, text + "\n")
                    .with_context(|| format!("cannot write {}", path.display()))?;
            }
            if let Some(file) = cases_log.as_mut() {
                file.flush().context("cannot write cases.jsonl")?;
            }
            return Err(error.into());
        }
    };
    if let Some(error) = log_error {
        return Err(error).context("cannot write cases.jsonl");
    }
    if let Some(mut file) = cases_log {
        file.flush().context("cannot write cases.jsonl")?;
    }
    let json = elicit_check::check::report::eras_json(&report)?;
    if let Some(dir) = &args.output {
        let path = dir.join("check.json");
        std::fs::write(&path, &json).with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &args.junit {
        let xml = elicit_check::check::report::eras_junit(&report)?;
        std::fs::write(path, xml).with_context(|| format!("cannot write {}", path.display()))?;
    }
    let mut stdout = std::io::stdout().lock();
    if args.json {
        writeln!(stdout, "{json}")?;
    } else {
        write!(
            stdout,
            "{}",
            elicit_check::check::report::eras_table(&report)
        )?;
    }
    Ok(report.passed)
}

/// `N cases/s` for `cases` judged in `seconds` (one decimal), or `no cases`.
fn throughput(cases: usize, seconds: f64) -> String {
    if cases == 0 {
        "no cases".to_owned()
    } else {
        format!("{:.1} cases/s", cases as f64 / seconds.max(1e-9))
    }
}

/// How the cases ran, for the summary line: `fresh-process, -j 2` or `session, -j 1`.
fn mode_line(schedule: Schedule) -> String {
    format!("{}, -j {}", schedule.mode, schedule.jobs)
}

/// Parses a positive number of seconds (at most a day).
fn seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if value > 0.0 && value <= 86_400.0 => Ok(value),
        _ => Err(format!("{text:?} is not a number of seconds in (0, 86400]")),
    }
}

/// The eras of `--protocol`: one version, or `both` (2025-11-25 first).
fn protocols(protocol: &str) -> Vec<Protocol> {
    match protocol.parse::<Protocol>() {
        Ok(one) => vec![one],
        Err(_) => Protocol::ALL.to_vec(),
    }
}

/// A clap value parser: seconds in [0, 86400] (`--request-state-ttl`).
fn seconds_or_zero(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if (0.0..=86_400.0).contains(&value) => Ok(value),
        _ => Err(format!("{text:?} is not a number of seconds in [0, 86400]")),
    }
}

/// A seed from the clock's nanoseconds.
fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos() as u64)
}
