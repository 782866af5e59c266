//! The `run` job: the contract cases, then the generated ones (or the
//! hostile-client cases, or one `--answer` case), a row per case, the evidence
//! in `--output`, and whether every case passed.

use std::fmt::Write as _;
use std::io::Write;

use anyhow::Context;
use serde_json::json;

use super::args::RunArgs;
use super::program::{check_program, output_is_a_folder};
use super::signals::StopSignals;
use crate::format::counted;
use crate::oracle::contract::Judging;
use crate::report::{self, EvidenceLog};
use crate::run::settings::Schedule;
use crate::strategy::clock_seed;

/// Runs the contract cases, then the generated ones; `Ok(false)` when any case
/// failed. The arguments are checked before the evidence folder is touched, so
/// a typo never replaces the previous run's evidence.
/// Ctrl-C or SIGTERM stops the run: the case in flight is kept as `interrupted`
/// with its frames so far (its server killed), and the three evidence files say
/// the run was interrupted.
pub async fn run(args: RunArgs) -> anyhow::Result<bool> {
    let args = args.with_era_names()?;
    let hostile = if args.hostile {
        crate::run::hostile::select(&args.only)?
    } else {
        if let Some(name) = args
            .only
            .iter()
            .find(|name| crate::run::hostile::case_named(name).is_some())
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
        crate::run::Selection::default()
    } else {
        crate::run::select_cases(&args.only)?
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
    let transport = match &args.url {
        Some(url) => crate::harness::Transport::http(url, !args.server.is_empty())?,
        None => crate::harness::Transport::Stdio,
    };
    output_is_a_folder(&args.output)?;
    let command = if args.server.is_empty() && args.url.is_some() {
        // A server already running at the URL: nothing to start.
        Vec::new()
    } else if args.server.is_empty() {
        let exe = std::env::current_exe()
            .context("cannot find this executable to serve the reference server")?;
        vec![exe.to_string_lossy().into_owned(), "serve".to_owned()]
    } else {
        check_program(&args.server[0])?;
        args.server.clone()
    };
    match &args.url {
        Some(url) if command.is_empty() => eprintln!("elicit-check: server: running at {url}"),
        Some(url) => eprintln!(
            "elicit-check: server: {}, at {url}",
            crate::error::shell_words(&command)
        ),
        None => eprintln!(
            "elicit-check: server: {}",
            crate::error::shell_words(&command)
        ),
    }
    let cases = if args.hostile || answer.is_some() {
        0
    } else if selection.generated.is_empty() {
        args.cases
            .unwrap_or(if args.only.is_empty() { 256 } else { 0 })
    } else {
        0
    };
    let seed = args.seed.unwrap_or_else(clock_seed);
    let mut run_info = json!({
        "server_command": command,
        "seed": seed,
        "protocol": args.protocol().to_string(),
        // Generated cases run: --cases N, or those named with --case generated_N.
        "generated_cases": cases + selection.generated.len(),
        "hostile": args.hostile,
    });
    if let Some(url) = &args.url {
        run_info["url"] = json!(url);
    }
    let log = EvidenceLog::create_for_run(&args.output, &run_info)
        .with_context(|| format!("cannot write the evidence folder {}", args.output.display()))?;
    let mut minimal = None;
    let schedule = args.schedule().for_protocols(&args.protocol().protocols());
    let started = std::time::Instant::now();
    let mut signals = StopSignals::listen();
    let mut stopped: Option<anyhow::Error> = None;
    let interrupted = {
        let in_flight = crate::harness::InFlight::default();
        let outcome = tokio::select! {
            result = crate::harness::IN_FLIGHT.scope(
                in_flight.clone(),
                run_all(&args, &selection, &hostile, answer.as_ref(), &command, &transport, cases, seed, &log, &mut minimal),
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
    let generated: Vec<report::CaseTally> =
        tallies.iter().filter(|t| t.generated).cloned().collect();
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
            error.downcast_ref::<crate::error::Error>(),
            Some(crate::error::Error::Hung { .. } | crate::error::Error::IgnoredStdinClose { .. })
        )
    });
    let did_not_start = stopped.as_ref().is_some_and(|error| {
        matches!(
            error.downcast_ref::<crate::error::Error>(),
            Some(
                crate::error::Error::ServerDidNotStart { .. }
                    | crate::error::Error::NoContractTool { .. }
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
fn failed_generated(log: &EvidenceLog, tallies: &[report::CaseTally]) -> String {
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

/// The contract cases (rows printed as they finish), then the generated ones.
#[allow(clippy::too_many_arguments)]
async fn run_all(
    args: &RunArgs,
    selection: &crate::run::Selection,
    hostile: &[crate::harness::hostile::HostileCase],
    answer: Option<&crate::case::Case>,
    command: &[String],
    transport: &crate::harness::Transport,
    cases: usize,
    seed: u64,
    log: &EvidenceLog,
    minimal: &mut Option<crate::run::MinimalFailure>,
) -> anyhow::Result<()> {
    let limits = args.limits.limits();
    eprintln!("elicit-check: protocol {}", args.protocol());
    let settings = crate::run::Settings {
        limits,
        protocols: args.protocol().protocols(),
        judging: Judging {
            exact_messages: args.exact_messages(),
        },
        keep_going: args.keep_going,
        schedule: args.schedule(),
        transport: transport.clone(),
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
        return Ok(crate::run::hostile::run_hostile(
            command,
            hostile,
            &settings,
            log,
            &mut print_row,
        )
        .await?);
    }
    if let Some(case) = answer {
        return Ok(crate::run::run_answer(command, case, &settings, log, &mut print_row).await?);
    }
    if args.only.is_empty() || !selection.contract.is_empty() {
        crate::run::run_contract_in(command, &selection.contract, &settings, log, &mut print_row)
            .await?;
    }
    if !selection.generated.is_empty() {
        *minimal =
            crate::run::run_generated_selected(command, &selection.generated, seed, &settings, log)
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
        *minimal =
            crate::run::run_generated_in(command, cases, seed, &settings, log, &mut |done| {
                bar.set_position(done as u64)
            })
            .await?;
        bar.finish_and_clear();
    }
    Ok(())
}

/// `N cases/s` for `cases` judged in `seconds` (one decimal), or `no cases`.
pub(crate) fn throughput(cases: usize, seconds: f64) -> String {
    if cases == 0 {
        "no cases".to_owned()
    } else {
        format!("{:.1} cases/s", cases as f64 / seconds.max(1e-9))
    }
}

/// How the cases ran, for the summary line: `fresh-process, -j 2` or `session, -j 1`.
pub(crate) fn mode_line(schedule: Schedule) -> String {
    format!("{}, -j {}", schedule.mode, schedule.jobs)
}
