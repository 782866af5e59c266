//! The `check` job: the target from the options and the config file, the
//! report on stdout (table or JSON), `--junit`, `--sarif`, `--summary`, the
//! evidence in `--output`,
//! and whether every property held; the parts a config's targets share
//! (`super::targets_job`).

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use serde_json::json;

use super::args::CheckArgs;
use super::program::{check_program, output_is_a_folder, report_file_can_be_written};
use super::signals::StopSignals;
use crate::check::eras::ErasReport;
use crate::format::counted;
use crate::report::check::baseline::{Applied, Baseline};
use crate::targets::config::{ConfigFile, TargetConfig};
use crate::targets::shard::Shard;

/// A check that was stopped by SIGINT or SIGTERM: the message says where the
/// calls that ran before it are (those of a phase not judged yet are marked
/// `"not_judged": true`; the call in flight is dropped).
#[derive(Debug, thiserror::Error)]
#[error("interrupted; {0}")]
pub(super) struct Interrupted(pub(super) String);

/// The baseline file read and checked (`--baseline`), with its path as given.
pub(super) type BaselineFile = (Baseline, String);

/// One target checked: its report, what the baseline made of it, and the
/// report's JSON (as `--json` prints it).
pub(super) struct Checked {
    /// The report over its eras.
    pub(super) report: ErasReport,
    /// The baseline applied, when one is given.
    pub(super) applied: Option<Applied>,
    /// The report as JSON, `baseline` added when one is given.
    pub(super) json: String,
}

/// Refuses, before any server starts, report files and an evidence folder
/// that cannot be written.
pub(super) fn outputs_can_be_written(args: &CheckArgs) -> anyhow::Result<()> {
    if let Some(dir) = &args.output {
        output_is_a_folder(dir)?;
    }
    if let Some(path) = &args.junit {
        report_file_can_be_written("--junit", path)?;
    }
    if let Some(path) = &args.sarif {
        report_file_can_be_written("--sarif", path)?;
    }
    if let Some(path) = &args.summary {
        report_file_can_be_written("--summary", path)?;
    }
    Ok(())
}

/// Reads the baseline (`--baseline`); a file that cannot be read or is not
/// one is refused before any server starts.
pub(super) fn read_baseline(args: &CheckArgs) -> anyhow::Result<Option<BaselineFile>> {
    let Some(path) = &args.baseline else {
        return Ok(None);
    };
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the baseline {file}"))?;
    let baseline = Baseline::parse(&text, &file).map_err(anyhow::Error::msg)?;
    Ok(Some((baseline, file)))
}

/// The target of `check` and its eras from the options and, when given, the
/// config file's target `config`.
pub(super) fn check_target(
    args: &CheckArgs,
    config: Option<&TargetConfig>,
) -> anyhow::Result<(crate::check::Target, crate::check::eras::Eras)> {
    use crate::check::Target;
    let command = if args.server.is_empty() {
        config.map(|c| c.command.clone()).unwrap_or_default()
    } else {
        args.server.clone()
    };
    let url = args
        .url
        .clone()
        .or_else(|| config.and_then(|c| c.url.clone()));
    let headers = if args.header.is_empty() {
        config.map(|c| c.headers.clone()).unwrap_or_default()
    } else {
        args.header.clone()
    };
    if url.is_none() && !headers.is_empty() {
        anyhow::bail!("headers go with --url (or url in the config): stdio has no headers");
    }
    let headers = headers
        .iter()
        .map(|text| {
            crate::harness::request_header::RequestHeader::parse(text, &|name| {
                std::env::var(name).ok()
            })
        })
        .collect::<Result<Vec<_>, String>>()
        .map_err(anyhow::Error::msg)?;
    let transport = match &url {
        Some(url) => {
            crate::harness::Transport::http(url, !command.is_empty())?.with_headers(headers)
        }
        None if command.is_empty() => anyhow::bail!(
            "no server command: give it after `--` (e.g. `-- python3 server.py`), or --url URL for a running Streamable HTTP server"
        ),
        None => crate::harness::Transport::Stdio,
    };
    // As `run` does: a program that cannot start is refused before anything runs.
    if let Some(program) = command.first() {
        check_program(program)?;
    }
    let tool = args
        .tool
        .clone()
        .or_else(|| config.map(|c| c.tool.clone()))
        .context("no tool: give --tool NAME")?;
    let mut target = Target::stdio(command).transport(transport).tool(tool);
    let arguments = match &args.arguments {
        Some(text) => match serde_json::from_str(text) {
            Ok(serde_json::Value::Object(arguments)) => Some(arguments),
            Ok(_) => anyhow::bail!("--arguments must be a JSON object, got {text}"),
            Err(error) => anyhow::bail!("--arguments is not JSON: {error}"),
        },
        None => config.and_then(|c| c.arguments.clone()),
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
    } else if let Some(config) = config {
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
            crate::oracle::property::ActedRule::parse_pointer(&pointer)
                .map_err(anyhow::Error::msg)?
        }
        (None, Some(text), not_error, None) => crate::oracle::property::ActedRule::Text {
            regex: regex::Regex::new(&text)
                .with_context(|| format!("--acted-text {text:?} is not a regex"))?,
            not_error,
        },
        (None, None, true, None) => crate::oracle::property::ActedRule::NotError,
        (None, None, false, Some(command)) => crate::oracle::property::ActedRule::Command(command),
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
        .or_else(|| config.and_then(|c| c.setup.clone()))
    {
        target = target.setup(setup);
    }
    let mut environment: Vec<(String, String)> = config
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
        .or_else(|| config.and_then(|c| c.cwd.clone()))
    {
        if !cwd.is_dir() {
            anyhow::bail!("--cwd {}: no such folder", cwd.display());
        }
        target = target.cwd(cwd);
    }
    if let Some(cases) = args.cases.or_else(|| config.and_then(|c| c.cases)) {
        target = target.cases(cases);
    }
    if let Some(seed) = args.seed.or_else(|| config.and_then(|c| c.seed)) {
        target = target.seed(seed);
    }
    if let Some(runs) = args
        .max_shrink_runs
        .or_else(|| config.and_then(|c| c.max_shrink_runs))
    {
        target = target.max_shrink_runs(runs);
    }
    if let Some(jobs) = args
        .jobs
        .map(usize::from)
        .or_else(|| config.and_then(|c| c.jobs))
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
        config.and_then(|c| c.session).unwrap_or(true)
    };
    target = target
        .strict(args.strict || config.is_some_and(|c| c.strict))
        .session(session);
    target.allow_unasked = args.allow_unasked || config.is_some_and(|c| c.allow_unasked);
    target.independent_cases =
        args.independent_cases || config.is_some_and(|c| c.independent_cases);
    let consent = if args.consent.is_empty() {
        config.map(|c| c.consent.clone()).unwrap_or_default()
    } else {
        args.consent.clone()
    };
    for text in &consent {
        target.consent.push(
            crate::oracle::consent::DeclaredConsent::parse(text).map_err(anyhow::Error::msg)?,
        );
    }
    let eras: crate::check::eras::Eras = match (args.protocol, config) {
        (Some(eras), _) => eras,
        (None, Some(config)) => match &config.protocol {
            Some(protocol) => protocol.parse().map_err(anyhow::Error::msg)?,
            None => crate::check::eras::Eras::default(),
        },
        (None, None) => crate::check::eras::Eras::default(),
    };
    target.invoked_as = std::env::args()
        .next()
        .unwrap_or_else(|| "elicit-check".to_owned());
    Ok((target.limits(args.limits.limits()), eras))
}

/// `elicit-check check` of one target: the options, and `config`'s target
/// when given (the only one, or the one of `--tool`). `Ok(true)` when every
/// property holds.
pub(super) async fn check_single(
    args: CheckArgs,
    config: Option<&ConfigFile>,
) -> anyhow::Result<bool> {
    let chosen = match config {
        Some(config) => Some(
            config
                .select(args.tool.as_deref())
                .map_err(anyhow::Error::msg)?,
        ),
        None => None,
    };
    outputs_can_be_written(&args)?;
    let baseline = read_baseline(&args)?;
    if let Some((baseline, file)) = &baseline {
        let tool = args
            .tool
            .as_deref()
            .or(chosen.map(|target| target.tool.as_str()))
            .unwrap_or_default();
        for other in baseline.other_tools(tool) {
            eprintln!(
                "elicit-check: warning: baseline {file} lists {} of tool {:?}, not {tool:?}: left out",
                other.property, other.tool
            );
        }
    }
    let mut signals = StopSignals::listen();
    let checked = match check_one(
        &args,
        chosen,
        baseline.as_ref(),
        args.output.as_deref(),
        &mut signals,
        None,
    )
    .await
    {
        Ok(checked) => checked,
        Err(error) if error.is::<Interrupted>() => {
            // Stopped: no report of an earlier run may pass for this one's.
            not_checked_reports(&args, chosen, &format!("{error:#}"))?;
            return Err(error);
        }
        Err(error) => {
            // Every report the options ask for still says why, so a CI job
            // that reads them never reads nothing (or an earlier run's).
            not_checked_reports(&args, chosen, &format!("{error:#}"))?;
            return Err(error);
        }
    };
    let Checked {
        report,
        applied,
        json,
    } = checked;
    // The report first: a file that cannot be written then loses nothing.
    {
        let mut stdout = std::io::stdout().lock();
        if args.json {
            writeln!(stdout, "{json}")?;
        } else {
            write!(
                stdout,
                "{}",
                crate::report::check::eras_table(&report, applied.as_ref(), args.verbose)
            )?;
        }
    }
    if let Some(dir) = &args.output {
        write_check_json(dir, &json)?;
    }
    if let Some(path) = &args.junit {
        let xml = crate::report::check::eras_junit(&report, applied.as_ref())?;
        std::fs::write(path, xml).with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &args.sarif {
        let config = args
            .config
            .as_ref()
            .map(|config| config.display().to_string());
        let evidence = args
            .output
            .as_ref()
            .map(|dir| dir.join("cases.jsonl").display().to_string());
        let context = crate::report::check::sarif::Context {
            config: config.as_deref(),
            evidence: evidence.as_deref(),
            baseline: applied.as_ref(),
            target: None,
        };
        let sarif = crate::report::check::sarif::document(&report, &context);
        let text = serde_json::to_string_pretty(&sarif)?;
        std::fs::write(path, text + "\n")
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &args.summary {
        append_summary(
            path,
            &crate::report::check::summary::markdown(&report, applied.as_ref(), &report.tool),
        )?;
    }
    // Every report is written first: an incomplete or inconclusive check
    // loses none of the verdicts it reached.
    if let Some(why) = report.unfinished() {
        anyhow::bail!(why);
    }
    Ok(!report.era_fails() && applied.map_or(report.passed, |applied| applied.passed))
}

/// The reports of a check that could not be done, each saying `error`:
/// with `--json` a document `{"passed": false, "outcome": "not_checked",
/// "error": ...}` on stdout, JUnit's one testcase in error, SARIF's run whose
/// invocation did not succeed, the summary's `NOT CHECKED` heading.
///
/// # Errors
/// A report file cannot be written.
fn not_checked_reports(
    args: &CheckArgs,
    config: Option<&TargetConfig>,
    error: &str,
) -> anyhow::Result<()> {
    let tool = args
        .tool
        .clone()
        .or_else(|| config.map(|c| c.tool.clone()))
        .unwrap_or_default();
    if args.json {
        let document = json!({
            "passed": false,
            "outcome": "not_checked",
            "tool": tool,
            "error": error,
        });
        writeln!(
            std::io::stdout().lock(),
            "{}",
            serde_json::to_string_pretty(&document)?
        )?;
    }
    if let Some(path) = &args.junit {
        let mut junit = quick_junit::Report::new("elicit-check");
        junit.add_test_suite(crate::report::check::not_checked_suite(&tool, error));
        std::fs::write(path, junit.to_string()?)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &args.sarif {
        let sarif =
            crate::report::check::sarif::wrap(vec![crate::report::check::sarif::not_checked_run(
                &tool, &tool, error,
            )]);
        std::fs::write(path, serde_json::to_string_pretty(&sarif)? + "\n")
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &args.summary {
        append_summary(
            path,
            &format!(
                "## elicit-check check `{tool}`: NOT CHECKED\n\n{}\n\n",
                crate::report::check::summary::cell(error)
            ),
        )?;
    }
    Ok(())
}

/// Writes a target's report `json` to `dir/check.json`.
pub(super) fn write_check_json(dir: &Path, json: &str) -> anyhow::Result<()> {
    let path = dir.join("check.json");
    std::fs::write(&path, json).with_context(|| format!("cannot write {}", path.display()))
}

/// Appends `markdown` to the summary file `path` (`--summary`): appended, as
/// a CI job's summary file collects every step's.
pub(super) fn append_summary(path: &Path, markdown: &str) -> anyhow::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    file.write_all(markdown.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Checks one target (`config`, the options overriding it), only the slice
/// `cases_shard` of its planned cases when given: prints what it checks, keeps every session in `output/cases.jsonl` when `output` is
/// given (and, when the check cannot be done, why in `output/check.json`),
/// and stops at a signal.
///
/// # Errors
/// The target's options are wrong, the check could not be done (its
/// `check.json` then says why), the evidence cannot be written, or a signal
/// came ([`Interrupted`]).
pub(super) async fn check_one(
    args: &CheckArgs,
    config: Option<&TargetConfig>,
    baseline: Option<&BaselineFile>,
    output: Option<&Path>,
    signals: &mut StopSignals,
    cases_shard: Option<Shard>,
) -> anyhow::Result<Checked> {
    let (mut target, eras) = check_target(args, config)?;
    target.shard = cases_shard;
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
    let server = match (target.transport.url(), target.command.as_slice()) {
        (None, command) => crate::error::shell_words(command),
        (Some(url), []) => format!("the server at {url}"),
        (Some(url), command) => format!("{} at {url}", crate::error::shell_words(command)),
    };
    eprintln!(
        "elicit-check: checking tool {:?} of {server} (protocol {}; {what}; {})",
        target.tool,
        match eras {
            crate::check::eras::Eras::Auto => "auto: every era the server answers".to_owned(),
            other => other.to_string(),
        },
        match (target.session, target.parallel_cases()) {
            _ if target.parallel_cases() < target.jobs => format!(
                "{}, one case at a time: --setup or --acted-cmd may share state between cases (--independent-cases lets -j {} overlap them)",
                if target.session {
                    "session mode"
                } else {
                    "a fresh process per case"
                },
                target.jobs
            ),
            (true, 1) => "session mode".to_owned(),
            (true, jobs) => format!("session mode, fresh re-runs -j {jobs}"),
            (false, 1) => "a fresh process per case".to_owned(),
            (false, jobs) => format!("a fresh process per case, -j {jobs}"),
        }
    );
    let mut cases_log = match output {
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
    let journal = target.journal.clone();
    let mut on_record = |record: crate::check::CaseRecord| {
        journal.logged(&record.case);
        if let Some(file) = cases_log.as_mut() {
            let line = serde_json::to_string(&record).unwrap_or_default();
            if let Err(error) = writeln!(file, "{line}") {
                log_error.get_or_insert(error);
            }
        }
    };
    let (display, sink) = super::progress::Display::on_stderr(args.progress);
    target.progress = sink;
    let started = std::time::Instant::now();
    let hooks_before = crate::harness::hooks::time_spent();
    let finished = tokio::select! {
        report = crate::check::eras::check_eras(&target, eras, &mut on_record) => Some(report),
        signal = signals.recv() => {
            display.finish();
            eprintln!("elicit-check: {signal}: stopping; the case in flight is dropped and its server killed");
            None
        }
    };
    display.finish();
    let hooks = crate::harness::hooks::time_spent().saturating_sub(hooks_before);
    // Only a check that ran to its report was checked.
    let took = match &finished {
        Some(Ok(_)) => "checked in",
        _ => "stopped after",
    };
    eprintln!(
        "elicit-check: {took} {:.1} s{}",
        started.elapsed().as_secs_f64(),
        if hooks.is_zero() {
            String::new()
        } else {
            format!(
                ", {:.1} s of it in --setup and --acted-cmd",
                hooks.as_secs_f64()
            )
        }
    );
    let Some(report) = finished else {
        if let Some(file) = cases_log.as_mut() {
            // The calls a phase had run before the signal, not judged yet.
            for record in target.journal.take() {
                let line = serde_json::to_string(&record).unwrap_or_default();
                writeln!(file, "{line}").context("cannot write cases.jsonl")?;
            }
            file.flush().context("cannot write cases.jsonl")?;
        }
        if let Some(dir) = output {
            let stopped = json!({
                "passed": false,
                "outcome": "not_checked",
                "server_command": target.command,
                "url": target.transport.url(),
                "tool": target.tool,
                "error": "interrupted: stopped by a signal before its report",
            });
            write_check_json(dir, &(serde_json::to_string_pretty(&stopped)? + "\n"))?;
        }
        return Err(Interrupted(match output {
            Some(dir) => format!(
                "the calls that ran before it are in {} (those of a phase not judged yet marked \"not_judged\": true)",
                dir.join("cases.jsonl").display()
            ),
            None => "no report (give --output DIR to keep the sessions that finish)".to_owned(),
        })
        .into());
    };
    let report = match report {
        Ok(report) => report,
        Err(error) => {
            // The report file is written even when the check cannot be done, so
            // a CI job that archives it never keeps an earlier run's report.
            if let Some(dir) = output {
                let path = dir.join("check.json");
                let failed = json!({
                    "passed": false,
                    "outcome": "not_checked",
                    "server_command": target.command,
                    "url": target.transport.url(),
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
    // An entry naming a config target speaks of that target only.
    let applied = baseline.map(|(baseline, file)| {
        baseline
            .for_target(config.map(TargetConfig::name))
            .apply(&report, file)
    });
    let json = match &applied {
        None => crate::report::check::eras_json(&report)?,
        Some(applied) => {
            let mut document = serde_json::to_value(&report)?;
            document["baseline"] = serde_json::to_value(applied)?;
            serde_json::to_string_pretty(&document)?
        }
    };
    Ok(Checked {
        report,
        applied,
        json,
    })
}
